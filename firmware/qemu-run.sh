#!/usr/bin/env bash
# Cargo runner for the firmware images: boots an ELF in QEMU's lm3s6965evb (Cortex-M3).
#
#   ./qemu-run.sh <elf> [extra qemu args...]
#
# The `bench` image gets `-icount shift=10`: every instruction then advances the virtual clock
# by 1024 ns, and SysTick on the core clock (RCC SYSDIV cleared: 200 MHz, one tick per 5 ns)
# advances 1024/5 = 204.8 ticks per instruction, so ticks * 5 / 1024 is an exact instruction
# count and runs are bit-for-bit repeatable. The exit status is the image's semihosting exit
# code (0 = success).
set -euo pipefail
elf="$1"
shift
args=(-cpu cortex-m3 -machine lm3s6965evb -nographic
      -semihosting-config enable=on,target=native)
case "$(basename "$elf")" in
  bench*) args+=(-icount shift=10) ;;
esac
exec qemu-system-arm "${args[@]}" "$@" -kernel "$elf"
