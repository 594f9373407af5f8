#!/usr/bin/env bash
# Tests of the syn_mem C API (crates/synaptic-mem-ffi), runnable from the repo root on a fresh
# Debian machine:
#   1. builds libsynaptic_mem_ffi.a (cargo build -p synaptic-mem-ffi --release),
#   2. checks the committed include/synaptic/syn_mem.h equals a fresh cbindgen generation,
#   3. checks the Kconfig handling (out-of-range values fail the build; values reach the header),
#   4. compiles the C tests with gcc -std=c11 -Wall -Wextra -Werror -pedantic and runs them:
#      tests/unit/test_mem.c (cmocka), test_mem_stress.c (8 pthreads), test_mem_bench.c,
#   5. runs the crate's Rust tests and builds it for thumbv7m-none-eabi (no_std).
# Exits non-zero on any failure. `--update-header` rewrites the committed header instead of
# failing on a difference.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
CRATE=crates/synaptic-mem-ffi
HEADER=$CRATE/include/synaptic/syn_mem.h
UPDATE=0
for arg in "$@"; do
    case "$arg" in
        --update-header) UPDATE=1 ;;
        *) echo "usage: $0 [--update-header]" >&2; exit 2 ;;
    esac
done

# The committed header and the tests assume the default Kconfig values.
unset CONFIG_SYNAPTIC_TENSOR_ARENA_SIZE CONFIG_SYNAPTIC_SCRATCH_POOL_SIZE SYN_MEM_HEADER_DIR

passed=0
failed=0
failures=()
pass() { passed=$((passed + 1)); echo "ffi-test: PASS $1"; }
fail() { failed=$((failed + 1)); failures+=("$1"); echo "ffi-test: FAIL $1" >&2; }

# ---- tools ------------------------------------------------------------------------------------
need=()
command -v gcc >/dev/null 2>&1 || need+=(gcc libc6-dev)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists cmocka; then
    need+=(libcmocka-dev)
fi
if ((${#need[@]})); then
    echo "ffi-test: installing ${need[*]}"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${need[@]}"
fi

# ---- 1. the static library --------------------------------------------------------------------
echo "ffi-test: cargo build -p synaptic-mem-ffi --release"
json=$(mktemp)
tmp=$(mktemp -d)
trap 'rm -rf "$json" "$tmp"' EXIT
cargo build -p synaptic-mem-ffi --release --message-format=json-render-diagnostics >"$json"
out_dir=$(grep '"reason":"build-script-executed"' "$json" | grep 'synaptic-mem-ffi' \
    | sed -n 's/.*"out_dir":"\([^"]*\)".*/\1/p' | tail -n 1)
target_dir=$(cargo metadata --format-version 1 --no-deps \
    | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
LIB="$target_dir/release/libsynaptic_mem_ffi.a"
[ -f "$LIB" ] || { echo "ffi-test: $LIB not built" >&2; exit 1; }
FRESH="$out_dir/include/synaptic/syn_mem.h"
[ -f "$FRESH" ] || { echo "ffi-test: no generated header at '$FRESH'" >&2; exit 1; }

# ---- 2. the committed header is what cbindgen generates now ------------------------------------
if cmp -s "$FRESH" "$HEADER"; then
    pass "header $HEADER is up to date"
elif [ "$UPDATE" = 1 ]; then
    cp "$FRESH" "$HEADER"
    pass "header $HEADER updated"
else
    diff -u "$HEADER" "$FRESH" >&2 || true
    fail "header $HEADER differs from a fresh generation (run $0 --update-header)"
fi

# ---- 3. Kconfig values from the environment ---------------------------------------------------
if CONFIG_SYNAPTIC_TENSOR_ARENA_SIZE=1000 cargo check -q -p synaptic-mem-ffi >"$tmp/kc.log" 2>&1; then
    fail "CONFIG_SYNAPTIC_TENSOR_ARENA_SIZE=1000 should fail the build"
elif grep -q 'CONFIG_SYNAPTIC_TENSOR_ARENA_SIZE=1000 is out of range' "$tmp/kc.log"; then
    pass "out-of-range CONFIG_SYNAPTIC_TENSOR_ARENA_SIZE fails the build with a clear message"
else
    cat "$tmp/kc.log" >&2
    fail "out-of-range Kconfig value: message missing"
fi
if CONFIG_SYNAPTIC_SCRATCH_POOL_SIZE=70000 cargo check -q -p synaptic-mem-ffi >"$tmp/kc.log" 2>&1; then
    fail "CONFIG_SYNAPTIC_SCRATCH_POOL_SIZE=70000 should fail the build"
else
    pass "out-of-range CONFIG_SYNAPTIC_SCRATCH_POOL_SIZE fails the build"
fi
if CONFIG_SYNAPTIC_TENSOR_ARENA_SIZE=65536 CONFIG_SYNAPTIC_SCRATCH_POOL_SIZE=8192 \
    SYN_MEM_HEADER_DIR="$tmp/inc" cargo check -q -p synaptic-mem-ffi >"$tmp/kc.log" 2>&1 \
    && grep -qx '#define SYN_MEM_TENSOR_ARENA_SIZE 65536' "$tmp/inc/synaptic/syn_mem.h" \
    && grep -qx '#define SYN_MEM_SCRATCH_POOL_SIZE 8192' "$tmp/inc/synaptic/syn_mem.h"; then
    pass "Kconfig values reach the header macros"
else
    cat "$tmp/kc.log" >&2
    fail "Kconfig values in the header"
fi

# ---- 4. C tests -------------------------------------------------------------------------------
# The golden emitted plan (synmem emit --lang c) is included by test_mem.c.
CFLAGS=(-std=c11 -Wall -Wextra -Werror -pedantic -O2 -g -I "$CRATE/include"
    -I crates/synaptic-plan/tests/golden)
LIBS=("$LIB" -lpthread -ldl -lm)
build_c() { # name, extra libs...
    local name=$1
    shift
    gcc "${CFLAGS[@]}" "$CRATE/tests/unit/$name.c" -o "$tmp/$name" "${LIBS[@]}" "$@"
}
run_c() { # name, extra libs...
    local name=$1
    if ! build_c "$@"; then
        fail "$name: compile"
        return
    fi
    echo "ffi-test: running $name"
    if "$tmp/$name"; then pass "$name"; else fail "$name"; fi
}
# shellcheck disable=SC2046
run_c test_mem $(pkg-config --cflags --libs cmocka)
run_c test_mem_stress
run_c test_mem_bench

# ---- 5. Rust tests and the no_std Cortex-M build ---------------------------------------------
if cargo test -p synaptic-mem-ffi; then pass "cargo test -p synaptic-mem-ffi"; else fail "cargo test -p synaptic-mem-ffi"; fi
if ! rustup target list --installed 2>/dev/null | grep -qx thumbv7m-none-eabi; then
    rustup target add thumbv7m-none-eabi || true
fi
if cargo build -p synaptic-mem-ffi --no-default-features --target thumbv7m-none-eabi; then
    pass "no_std build for thumbv7m-none-eabi"
else
    fail "no_std build for thumbv7m-none-eabi"
fi

for f in "${failures[@]+"${failures[@]}"}"; do echo "ffi-test: failed: $f" >&2; done
echo "ffi-test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
