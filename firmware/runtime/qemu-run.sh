#!/usr/bin/env bash
# Boots a runtime image under QEMU with exact instruction counting:
#
#   ./qemu-run.sh <lm3s6965|mps2-an385|mps2-an386|mps2-an500|mps2-an505> <elf> [extra qemu args...]
#
# -icount shift=10: every instruction advances the virtual clock by 1024 ns; the image derives
# instructions from SysTick ticks (src/counter.rs). The exit status is the image's
# semihosting exit code (0 = outputs equal the host's).
set -euo pipefail
board="$1"
elf="$2"
shift 2
cpu=cortex-m3
case "$board" in
  lm3s6965) machine=lm3s6965evb ;;
  mps2-an385) machine=mps2-an385 ;;
  mps2-an386) machine=mps2-an386 cpu=cortex-m4 ;;
  mps2-an500) machine=mps2-an500 cpu=cortex-m7 ;;
  mps2-an505) machine=mps2-an505 cpu=cortex-m33 ;;
  *) echo "unknown board $board (lm3s6965 | mps2-an385 | mps2-an386 | mps2-an500 | mps2-an505)" >&2; exit 2 ;;
esac
exec qemu-system-arm -cpu "$cpu" -machine "$machine" -nographic \
  -semihosting-config enable=on,target=native -icount shift=10 "$@" -kernel "$elf"
