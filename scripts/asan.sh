#!/usr/bin/env bash
# AddressSanitizer run of the host test suite (nightly -Zsanitizer=address), in its own target
# directory (target/asan) so it never invalidates the normal builds. Exits non-zero on any
# test failure or sanitizer report (ASan aborts the test binary, which fails the run).
#
#   scripts/asan.sh                     # synaptic-mem, synaptic-mem-ffi, synaptic-plan
#   ASAN_PACKAGES="synaptic-mem" scripts/asan.sh
#   ASAN_ALL=1 scripts/asan.sh          # also the planner's three longest random properties
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
# The unoptimised instrumented build is ~10x slower: the long randomised tests run an eighth of
# their cases (tests/common `cases`), and the planner's three longest random properties —
# pure safe Rust, ~200 s here, run in full by the `core` and `i686` steps — are left out
# unless ASAN_ALL=1 (the core's own tests, the C layer's and the planner's replays through the
# core still run).
export SYNAPTIC_TEST_DIVISOR="${SYNAPTIC_TEST_DIVISOR:-8}"
skip=(--skip fits_means_the_core_runs_it_and_the_minimum_is_exact
  --skip hostile_models_give_valid_plans --skip hostile_item_shapes_give_valid_plans)
[[ "${ASAN_ALL:-0}" == 1 ]] && skip=()
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1}"
# LeakSanitizer suppressions: synaptic-mem-ffi's unit tests deliberately leak their arena
# buffers (`Box::leak`: the C API's global arena may keep pointing at them for the rest of the
# process). Every other leak is reported.
supp="$(mktemp)"
trap 'rm -f "$supp"' EXIT
echo "leak:synaptic_mem_ffi::tests::" >"$supp"
export LSAN_OPTIONS="suppressions=$supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
# --target makes RUSTFLAGS apply to the tests only, not to build scripts and proc macros.
nice -n 10 cargo +nightly test --no-fail-fast --target "$host" --target-dir target/asan "${pkgs[@]}" "$@" \
  -- "${skip[@]}"
echo "asan: no AddressSanitizer errors (${pkgs[*]})"
