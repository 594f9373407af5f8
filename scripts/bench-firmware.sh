#!/usr/bin/env bash
# The spec's allocation benchmark on QEMU's Cortex-M3 (lm3s6965evb), in exact instruction
# counts. Run from the repository root:
#
#   scripts/bench-firmware.sh            # build, run twice, check the runs are identical
#   scripts/bench-firmware.sh --sizes    # also print .text sizes of the allocator paths
#
# Method (firmware/src/timer.rs): SysTick on the core clock with the lm3s6965 RCC SYSDIV bits
# cleared, QEMU `-icount shift=10` (added by firmware/qemu-run.sh for the bench image), so
# ticks * 5 / 1024 = instructions; the matching empty loop and timer-read overhead are
# subtracted; batches of 100 stay far below SysTick's 24-bit wrap (~81 920 instructions).
# Output: `bench <api> <name> <value> instructions` lines (api = c | rust | floor), then a table.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)

source "$root/scripts/firmware-deps.sh"

cd "$root/firmware"
cargo build --release --bin bench
elf=target/thumbv7m-none-eabi/release/bench
run1=$(mktemp)
run2=$(mktemp)
trap 'rm -f "$run1" "$run2"' EXIT
timeout 120 ./qemu-run.sh "$elf" </dev/null 2>/dev/null >"$run1"
timeout 120 ./qemu-run.sh "$elf" </dev/null 2>/dev/null >"$run2"
cat "$run1"
if cmp -s "$run1" "$run2"; then
  echo "repeatable: a second run printed exactly the same figures"
else
  echo "NOT repeatable: the second run differs:" >&2
  diff "$run1" "$run2" >&2 || true
  exit 1
fi

if [ "${1:-}" = "--sizes" ]; then
  # Code size of the allocator in the on-target test image, which links the whole C API.
  cargo build --release --bin tests
  echo
  python3 size-report.py target/thumbv7m-none-eabi/release/tests
fi
