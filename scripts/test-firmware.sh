#!/usr/bin/env bash
# Firmware tests on QEMU's Cortex-M3 (lm3s6965evb). Run from the repository root:
#
#   scripts/test-firmware.sh
#
# 1. installs what is missing (qemu-system-arm, arm-none-eabi-gcc + newlib, python3, the
#    thumbv7m/thumbv6m rustup targets);
# 2. builds the core for thumbv6m-none-eabi (Cortex-M0, no CAS atomics) and thumbv7m-none-eabi;
# 3. checks formatting and clippy of firmware/;
# 4. builds the firmware images and runs, under QEMU with timeouts:
#    - the on-target tests (Rust safe + raw API, and the C API from a C file built with
#      arm-none-eabi-gcc -Werror), which end with `N passed, N failed` and exit 0 only if all pass;
#    - the `syn mem stats` shell test (firmware/tests/shell_test.py drives UART0);
#    - a smoke run of the benchmark image (figures: scripts/bench-firmware.sh).
# Exits non-zero on any failure.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)

source "$root/scripts/firmware-deps.sh"
for c in rustfmt clippy; do
  rustup component list --installed | grep -q "^$c" || rustup component add "$c"
done

echo "==> core for thumbv6m-none-eabi and thumbv7m-none-eabi"
cargo build -p synaptic-mem --target thumbv6m-none-eabi
cargo build -p synaptic-mem --target thumbv7m-none-eabi

cd "$root/firmware"
echo "==> firmware: fmt, clippy, build"
cargo fmt --check
cargo clippy --release --bins -- -D warnings
cargo build --release --bins
elf=target/thumbv7m-none-eabi/release

log=$(mktemp)
trap 'rm -f "$log"' EXIT

echo "==> on-target tests (QEMU Cortex-M3)"
set +e
timeout 120 ./qemu-run.sh "$elf/tests" </dev/null 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n1 || true)
if [ "$rc" -ne 0 ] || [ -z "$summary" ] || ! grep -qE '^[0-9]+ passed, 0 failed$' <<<"$summary"; then
  echo "on-target tests FAILED (QEMU exit $rc, summary: ${summary:-none})" >&2
  exit 1
fi

echo "==> syn mem stats shell (UART0)"
timeout 120 python3 tests/shell_test.py "$elf/shell"

echo "==> benchmark smoke run"
set +e
timeout 120 ./qemu-run.sh "$elf/bench" </dev/null >"$log" 2>&1
rc=$?
set -e
if [ "$rc" -ne 0 ] || [ "$(grep -c '^bench ' "$log")" -lt 20 ]; then
  cat "$log" >&2
  echo "benchmark image FAILED (QEMU exit $rc)" >&2
  exit 1
fi

echo "firmware: on-target tests, shell test and benchmark smoke run passed"
