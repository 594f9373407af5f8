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
#
# CPU=m4: the Cortex-M4F image (mps2-an386, as the bench's M4 table). On the MPS2 boards (the
# M4, and the M3's large models: kws_ref_model, person_detect, pretrainedResnet_quant) the log
# is streamed through a FIFO and QEMU stopped after the chosen window, so any model's load
# can be profiled (person_detect's: ~10 s); the per-function counts then also give calls
# (entries).
#
#   CPU=m4 scripts/profile-runtime.sh person_detect --window 3   # the load, program in flash
#   CPU=m4 scripts/profile-runtime.sh person_detect --window 3 --inclusive 30  # with callees
#   CPU=m4 scripts/profile-runtime.sh person_detect --window 3 --stack  # deepest frame chain
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)
model=${1:?usage: scripts/profile-runtime.sh MODEL [--window K] [--lines N]}
shift
source "$root/scripts/firmware-deps.sh"
target=thumbv7m-none-eabi cpu=cortex-m3
case "${CPU:-m3}:$model" in
  m4:*) board=mps2-an386 feat=(--no-default-features --features mps2-an386) machine=mps2-an386
    target=thumbv7em-none-eabihf cpu=cortex-m4 ;;
  *:person_detect | *:pretrainedResnet_quant | *:kws_ref_model)
    board=mps2-an385 feat=(--no-default-features --features mps2-an385) machine=mps2-an385 ;;
  *) board=lm3s6965 feat=() machine=lm3s6965evb ;;
esac
cd "$root/firmware/runtime"
cargo build --release -q "${feat[@]}" --target "$target" --target-dir "target/$board" --bin "$model"
elf="target/$board/$target/release/$model"
qemu=(qemu-system-arm -cpu "$cpu" -machine "$machine" -nographic
  -semihosting-config enable=on,target=native -icount shift=10 -singlestep -d exec,nochain)
if [ "$board" != lm3s6965 ]; then
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
  mkfifo "$dir/log"
  "${qemu[@]}" -D "$dir/log" -kernel "$elf" >/dev/null </dev/null &
  pid=$!
  disown # stopped by the profiler once it has its window: no job notice
  python3 "$root/scripts/profile-runtime.py" "$elf" "$dir/log" --stream "$pid" "$@"
else
  log=$(mktemp)
  trap 'rm -f "$log"' EXIT
  timeout 1800 "${qemu[@]}" -D "$log" -kernel "$elf" >/dev/null </dev/null
  python3 "$root/scripts/profile-runtime.py" "$elf" "$log" "$@"
fi
