#!/usr/bin/env bash
# Tests of the syn_mem C API (crates/synaptic-mem-ffi), runnable from the repo root on a fresh
# Debian machine:
#   1. builds libsynaptic_mem_ffi.a (cargo build -p synaptic-mem-ffi --release),
#   2. checks the committed include/synaptic/syn_mem.h equals a fresh cbindgen generation,
#   3. checks the Kconfig handling (out-of-range values fail the build; values reach the header),
#   4. compiles the C tests with gcc -std=c11 -Wall -Wextra -Werror -pedantic and runs them:
#      tests/unit/test_mem.c (cmocka), test_mem_stress.c (8 pthreads), test_mem_bench.c,
#   5. runs the crate's Rust tests and builds it for thumbv7m-none-eabi (no_std),
#   6. the runtime's C API (crates/synaptic-run-ffi, libsynaptic_run_ffi.a + syn_run.h): checks
#      the committed header, emits the plans and compiled programs of hello_world_int8 and
#      micro_speech_quantized with `synmem emit --lang c --op-data flash` (I/O shared and in the
#      plan), runs seeded inputs through `synmem run --op-data ram|flash` and compiles and runs
#      tests/unit/test_run.c (cmocka), which compares the C API's outputs (program given and
#      NULL) with the CLI's bit for bit; then the crate's Rust tests and its no_std thumbv7m
#      build. Models come from ../shared/models ($SYNAPTIC_SHARED overrides ../shared).
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
if CONFIG_SYNAPTIC_TENSOR_ARENA_SIZE=1000 cargo check -q --release -p synaptic-mem-ffi >"$tmp/kc.log" 2>&1; then
    fail "CONFIG_SYNAPTIC_TENSOR_ARENA_SIZE=1000 should fail the build"
elif grep -q 'CONFIG_SYNAPTIC_TENSOR_ARENA_SIZE=1000,.*arena size 1000 B is outside 4096..=524288' "$tmp/kc.log"; then
    pass "out-of-range CONFIG_SYNAPTIC_TENSOR_ARENA_SIZE fails the build with a clear message"
else
    cat "$tmp/kc.log" >&2
    fail "out-of-range Kconfig value: message missing"
fi
if CONFIG_SYNAPTIC_SCRATCH_POOL_SIZE=70000 cargo check -q --release -p synaptic-mem-ffi >"$tmp/kc.log" 2>&1; then
    fail "CONFIG_SYNAPTIC_SCRATCH_POOL_SIZE=70000 should fail the build"
else
    pass "out-of-range CONFIG_SYNAPTIC_SCRATCH_POOL_SIZE fails the build"
fi
if CONFIG_SYNAPTIC_TENSOR_ARENA_SIZE=65536 CONFIG_SYNAPTIC_SCRATCH_POOL_SIZE=8192 \
    SYN_MEM_HEADER_DIR="$tmp/inc" cargo check -q --release -p synaptic-mem-ffi >"$tmp/kc.log" 2>&1 \
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
if cargo test -q --release -p synaptic-mem-ffi; then pass "cargo test -p synaptic-mem-ffi"; else fail "cargo test -p synaptic-mem-ffi"; fi
if ! rustup target list --installed 2>/dev/null | grep -qx thumbv7m-none-eabi; then
    rustup target add thumbv7m-none-eabi || true
fi
if cargo build -q --release -p synaptic-mem-ffi --no-default-features --target thumbv7m-none-eabi; then
    pass "no_std build for thumbv7m-none-eabi"
else
    fail "no_std build for thumbv7m-none-eabi"
fi
# A bare-metal C firmware links the library with its own single-core critical section and
# nothing else; without the feature the two symbols an RTOS provides are missing.
cm_lib=target/thumbv7m-none-eabi/release/libsynaptic_mem_ffi.a
cm_link() {
    arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -Os --specs=nosys.specs -Wl,--gc-sections \
        -I "$CRATE/include" "$CRATE/tests/unit/link_cortex_m.c" "$cm_lib" -o "$tmp/cm.elf" \
        >"$tmp/cm.log" 2>&1
}
if cargo build -q --release -p synaptic-mem-ffi --no-default-features --target thumbv7m-none-eabi \
    && ! cm_link && grep -q "undefined reference to \`_critical_section_1_0_acquire'" "$tmp/cm.log" \
    && cargo build -q --release -p synaptic-mem-ffi --no-default-features \
        --features cortex-m-single-core --target thumbv7m-none-eabi \
    && cm_link && arm-none-eabi-nm "$tmp/cm.elf" | grep -q ' T _critical_section_1_0_acquire$'; then
    pass "C firmware links with cortex-m-single-core (and without it names the two RTOS hooks)"
else
    cat "$tmp/cm.log" >&2
    fail "C firmware link with cortex-m-single-core"
fi

# ---- 6. the runtime's C API (syn_run.h) ------------------------------------------------------
RCRATE=crates/synaptic-run-ffi
RHEADER=$RCRATE/include/synaptic/syn_run.h
SHARED_DIR=${SYNAPTIC_SHARED:-$ROOT/../shared}
echo "ffi-test: cargo build -p synaptic-run-ffi -p synmem --release"
cargo build -p synaptic-run-ffi -p synmem --release --message-format=json-render-diagnostics >"$json"
rout_dir=$(grep '"reason":"build-script-executed"' "$json" | grep 'synaptic-run-ffi' \
    | sed -n 's/.*"out_dir":"\([^"]*\)".*/\1/p' | tail -n 1)
RLIB="$target_dir/release/libsynaptic_run_ffi.a"
SYNMEM="$target_dir/release/synmem"
RFRESH="$rout_dir/include/synaptic/syn_run.h"
if [ ! -f "$RFRESH" ]; then
    fail "no generated header at '$RFRESH'"
elif cmp -s "$RFRESH" "$RHEADER"; then
    pass "header $RHEADER is up to date"
elif [ "$UPDATE" = 1 ]; then
    cp "$RFRESH" "$RHEADER"
    pass "header $RHEADER updated"
else
    diff -u "$RHEADER" "$RFRESH" >&2 || true
    fail "header $RHEADER differs from a fresh generation (run $0 --update-header)"
fi

# Deterministic input bytes (an LCG; no tools beyond bash): gen_input SEED BYTES FILE.
gen_input() {
    local s=$1 n=$2 i b out=""
    for ((i = 0; i < n; i++)); do
        s=$(((s * 1103515245 + 12345) & 0x7fffffff))
        printf -v b '\\%03o' $(((s >> 16) & 255))
        out+=$b
    done
    printf "$out" >"$3"
}
# The memory figures of `synmem run --json` output JSON, one line into MEM (test_run.c reads
# them in this order): mem_figures JSON MEM.
mem_figures() {
    local f v fig=""
    for f in persistent_bytes planned_ephemeral_bytes scratch_peak_bytes shared_bytes \
        total_bytes tables_bytes program_bytes program_flash_bytes; do
        v=$(sed -n "s/^  \"$f\": \([0-9]*\),\{0,1\}$/\1/p" "$1")
        [ -n "$v" ] || { echo "ffi-test: no $f in $1" >&2; return 1; }
        fig+="$v "
    done
    echo "$fig" >"$2"
}
# Prepares $run (see test_run.c): model copies named for their plan, emitted plans and
# programs, inputs, the CLI's outputs and figures with the program in flash and in RAM.
prepare_run() {
    local m src bytes io emit_io k od
    for m in hello_world_int8 micro_speech_quantized; do
        src=$SHARED_DIR/models/$m.tflite
        [ -f "$src" ] || { echo "ffi-test: $src missing (set SYNAPTIC_SHARED)" >&2; return 1; }
        "$SYNMEM" run "$src" --random 1 --output "$run/probe.raw" --json >"$run/probe.json" || return 1
        bytes=$(sed -n 's/^      "bytes": \([0-9]*\),$/\1/p' "$run/probe.json" | head -n 1)
        [ -n "$bytes" ] || { echo "ffi-test: no input size for $m" >&2; return 1; }
        head -c "$bytes" /dev/zero >"$run/${m}_in0.raw"
        head -c "$bytes" /dev/zero | tr '\0' '\177' >"$run/${m}_in1.raw"
        head -c "$bytes" /dev/zero | tr '\0' '\200' >"$run/${m}_in2.raw"
        for k in 3 4 5 6 7; do gen_input "$k" "$bytes" "$run/${m}_in$k.raw"; done
        for io in shared plan; do
            emit_io=$io
            [ "$io" = plan ] && emit_io=ephemeral
            cp "$src" "$run/${m}_$io.tflite"
            cp "$src" "$run/${m}_${io}_ovl.tflite"
            # A plain plan (--no-overlap) and the overlapped one (emit's default), each under
            # its own prefix (the model file's name).
            "$SYNMEM" emit "$run/${m}_$io.tflite" --lang c --io "$emit_io" --op-data flash \
                --no-overlap -o "$run/${m}_${io}_plan.h" >/dev/null || return 1
            "$SYNMEM" emit "$run/${m}_${io}_ovl.tflite" --lang c --io "$emit_io" --op-data flash \
                -o "$run/${m}_${io}_ovl_plan.h" >/dev/null || return 1
            for od in ram flash; do
                for k in 0 1 2 3 4 5 6 7; do
                    "$SYNMEM" run "$src" --input "$run/${m}_in$k.raw" --io "$io" --op-data "$od" \
                        --no-overlap --output "$run/${m}_out${k}_${io}_$od.raw" --json \
                        >"$run/${m}_${io}_$od.json" || return 1
                done
                mem_figures "$run/${m}_${io}_$od.json" "$run/${m}_${io}_$od.mem" || return 1
                # The overlapped plan's figures (its outputs are the plain plan's: the C test
                # compares them with the files above).
                "$SYNMEM" run "$src" --input "$run/${m}_in0.raw" --io "$io" --op-data "$od" \
                    --output "$run/${m}_ovl.raw" --json >"$run/${m}_${io}_${od}_ovl.json" || return 1
                mem_figures "$run/${m}_${io}_${od}_ovl.json" "$run/${m}_${io}_${od}_ovl.mem" \
                    || return 1
            done
        done
    done
    cp "$SHARED_DIR/models/kws_ref_model_float32.tflite" "$run/" || return 1
}
run=$tmp/run
mkdir -p "$run"
RCFLAGS=(-std=c11 -Wall -Wextra -Werror -pedantic -O1 -g -I "$CRATE/include" -I "$RCRATE/include"
    -I "$run")
if ! prepare_run; then
    fail "test_run: preparing plans, inputs and the CLI's outputs"
elif ! gcc "${RCFLAGS[@]}" "$RCRATE/tests/unit/test_run.c" -o "$tmp/test_run" "$RLIB" \
    $(pkg-config --cflags --libs cmocka) -lpthread -ldl -lm; then
    fail "test_run: compile"
else
    echo "ffi-test: running test_run"
    if SYN_RUN_TEST_DIR=$run "$tmp/test_run"; then pass "test_run"; else fail "test_run"; fi
    # The same under AddressSanitizer and UBSan (the C side; the library is the release one).
    if gcc "${RCFLAGS[@]}" -fsanitize=address,undefined -fno-omit-frame-pointer \
        "$RCRATE/tests/unit/test_run.c" -o "$tmp/test_run_asan" "$RLIB" \
        $(pkg-config --cflags --libs cmocka) -lpthread -ldl -lm \
        && SYN_RUN_TEST_DIR=$run ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
            UBSAN_OPTIONS=halt_on_error=1 "$tmp/test_run_asan" >"$tmp/asan.log" 2>&1; then
        pass "test_run under ASan/UBSan"
    else
        cat "$tmp/asan.log" >&2
        fail "test_run under ASan/UBSan"
    fi
fi
# The header on Cortex-M (32-bit pointers: the 272-byte object), when the Arm GCC is installed
# (the firmware step installs it).
if command -v arm-none-eabi-gcc >/dev/null 2>&1; then
    printf '#include <synaptic/syn_run.h>\n_Static_assert(sizeof(syn_run_model_t) == SYN_RUN_MODEL_WORDS_32 * 8, "32-bit");\n' >"$tmp/arm.c"
    if arm-none-eabi-gcc -std=c11 -Wall -Wextra -Werror -pedantic -mcpu=cortex-m3 -mthumb \
        -fsyntax-only -I "$CRATE/include" -I "$RCRATE/include" "$tmp/arm.c"; then
        pass "syn_run.h compiles for Cortex-M3 with the 32-bit object size"
    else
        fail "syn_run.h for Cortex-M3"
    fi
fi
if cargo test -q --release -p synaptic-run-ffi; then pass "cargo test -p synaptic-run-ffi"; else fail "cargo test -p synaptic-run-ffi"; fi
# A library for a given program only (no compiler linked): a load with none is refused.
if cargo test -q --release -p synaptic-run-ffi --features program-given-only --lib program_given_only; then
    pass "synaptic-run-ffi with program-given-only refuses compiling at load"
else
    fail "synaptic-run-ffi with program-given-only"
fi
# Error strings stripped: every failure keeps its errno.
if cargo test -q --release -p synaptic-run-ffi --features strip-error-strings --lib stripped_error_strings; then
    pass "synaptic-run-ffi with strip-error-strings keeps each errno"
else
    fail "synaptic-run-ffi with strip-error-strings"
fi
# A library linking other kernel paths than a program's refuses it at load.
if SYNAPTIC_RUN_PATHS=FC_BIAS cargo test -q --release -p synaptic-run-ffi --lib linked_paths -- --ignored; then
    pass "synaptic-run-ffi with SYNAPTIC_RUN_PATHS refuses a program taking another path"
else
    fail "synaptic-run-ffi with SYNAPTIC_RUN_PATHS"
fi
if cargo build -q --release -p synaptic-run-ffi --no-default-features --target thumbv7m-none-eabi; then
    pass "synaptic-run-ffi no_std build for thumbv7m-none-eabi"
else
    fail "synaptic-run-ffi no_std build for thumbv7m-none-eabi"
fi

for f in "${failures[@]+"${failures[@]}"}"; do echo "ffi-test: failed: $f" >&2; done
echo "ffi-test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
