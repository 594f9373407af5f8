#!/usr/bin/env bash
# AddressSanitizer run of the host test suite (nightly -Zsanitizer=address), in its own target
# directory (target/asan) so it never invalidates the normal builds. Exits non-zero on any
# test failure or sanitizer report (ASan aborts the test binary, which fails the run).
#
#   scripts/asan.sh                     # synaptic-mem, synaptic-mem-ffi, synaptic-plan
#   ASAN_PACKAGES="synaptic-mem" scripts/asan.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
host="x86_64-unknown-linux-gnu"
pkgs=()
for p in ${ASAN_PACKAGES:-synaptic-mem synaptic-mem-ffi synaptic-plan}; do
  [[ -d "crates/$p" ]] && pkgs+=(-p "$p")
done
export RUSTFLAGS="-Zsanitizer=address ${RUSTFLAGS:-}"
export RUSTDOCFLAGS="-Zsanitizer=address ${RUSTDOCFLAGS:-}"
# The unoptimised instrumented build is ~10x slower: the long randomised tests run a quarter of
# their cases (tests/common `cases`).
export SYNAPTIC_TEST_DIVISOR="${SYNAPTIC_TEST_DIVISOR:-4}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1}"
# LeakSanitizer suppressions: synaptic-mem-ffi's unit tests deliberately leak their arena
# buffers (`Box::leak`: the C API's global arena may keep pointing at them for the rest of the
# process). Every other leak is reported.
supp="$(mktemp)"
trap 'rm -f "$supp"' EXIT
echo "leak:synaptic_mem_ffi::tests::" >"$supp"
export LSAN_OPTIONS="suppressions=$supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
# --target makes RUSTFLAGS apply to the tests only, not to build scripts and proc macros.
nice -n 10 cargo +nightly test --no-fail-fast --target "$host" --target-dir target/asan "${pkgs[@]}" "$@"
echo "asan: no AddressSanitizer errors (${pkgs[*]})"
