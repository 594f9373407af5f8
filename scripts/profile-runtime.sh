#!/usr/bin/env bash
# Where one inference's instructions go, on QEMU's Cortex-M3: builds the runtime image of
# MODEL (as scripts/bench-runtime.sh does), runs it once with `-singlestep -d exec,nochain`
# (every executed instruction logged; QEMU's -icount keeps the counts exact) and prints the
# instructions per function of one measured window (default: the first inference, overlapped
# plan, program in flash), optionally per source line. A development tool, not a test.
#
#   scripts/profile-runtime.sh hello_world_int8
#   scripts/profile-runtime.sh hello_world_int8 --lines 40      # also per source line
#   scripts/profile-runtime.sh hello_world_int8 --window 12     # another window (listed)
#
# The log grows by one line per instruction: use the small models (hello_world_int8 logs
# ~1.3 M lines, micro_speech_quantized ~10^8).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)
model=${1:?usage: scripts/profile-runtime.sh MODEL [--window K] [--lines N]}
shift
source "$root/scripts/firmware-deps.sh"
case "$model" in
  person_detect | pretrainedResnet_quant) board=mps2-an385 feat=(--no-default-features --features mps2-an385) machine=mps2-an385 ;;
  *) board=lm3s6965 feat=() machine=lm3s6965evb ;;
esac
cd "$root/firmware/runtime"
cargo build --release -q "${feat[@]}" --target-dir "target/$board" --bin "$model"
elf="target/$board/thumbv7m-none-eabi/release/$model"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
timeout 1800 qemu-system-arm -cpu cortex-m3 -machine "$machine" -nographic \
  -semihosting-config enable=on,target=native -icount shift=10 -singlestep \
  -d exec,nochain -D "$log" -kernel "$elf" >/dev/null </dev/null
python3 "$root/scripts/profile-runtime.py" "$elf" "$log" "$@"
