#!/usr/bin/env bash
# The fast on-target subset of the runtime (a step for scripts/test): fmt and clippy of
# firmware/runtime, then hello_world_int8, micro_speech_quantized, the streaming trained_lstm_int8,
# keyword_scrambled_8bit, keyword_scrambled and the audio front end audio_preprocessor_int8 (10
# consecutive invocations, state carried, each output the host's), hello_world_float,
# trained_lstm and audio_preprocessor_float (float32, soft-float) on QEMU's
# lm3s6965evb, and the three small int8 models on mps2-an386 (Cortex-M4F),
# each checking its outputs (I/O in the plan and in the SHARED region) against the output the
# host computed at build time; and on each of these cores the `kernels` image (the kernels' ISA
# variants against their arithmetic, over shapes and values no model has). From the
# repository root:
#
#   scripts/test-runtime-firmware.sh
#
# The big models (kws_ref_model, person_detect, pretrainedResnet_quant) and the figures are in
# scripts/bench-runtime.sh. Needs ../shared/models (or SYNAPTIC_MODELS=<dir>).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)
source "$root/scripts/firmware-deps.sh"

cd "$root/firmware/runtime"

# on_target <board> <cpu name> <elf> <model> [<line>]: boots the image, prints its
# run/check/stream/kernels lines, fails unless it ran and printed the line (a regular
# expression; by default `check <model> ok`: its output equals the host's).
on_target() {
  local board=$1 cpu=$2 elf=$3 m=$4 want=${5:-"^check $4 ok"} out
  echo "==> $m on $board"
  out=$(timeout 120 ./qemu-run.sh "$board" "$elf" </dev/null 2>/dev/null) || {
    echo "$out"
    echo "$m: FAILED on the $cpu" >&2
    exit 1
  }
  echo "$out" | grep -E "^(run|check|stream|kernels) "
  grep -q "$want" <<<"$out" || {
    echo "$m: output differs from the host's on the $cpu" >&2
    exit 1
  }
}
# kernels_on <board> <cpu name> <elf>: the kernels' ISA variants against their arithmetic
# (src/bin/kernels.rs: shapes and values no model has); fails unless every case agrees.
kernels_on() {
  on_target "$1" "$2" "$3" kernels "^kernels fully_connected [0-9]* cases ok"
}

# One target directory for every board and feature set: the host build-dependencies (the
# runtime crates at opt-level 3, for build.rs's reference inference) built once, and clippy's
# build-script runs the build's own.
t=target/ci
echo "==> firmware/runtime: fmt, clippy, build"
cargo fmt --check
cargo clippy --release -q --target-dir $t -- -D warnings
cargo build --release -q --target-dir $t
# The float image apart, with the float32 kernels (the int8 images keep their flash).
f32_bins=(--bin hello_world_float --bin trained_lstm --bin audio_preprocessor_float)
cargo clippy --release -q --features float32 "${f32_bins[@]}" \
  --target-dir $t -- -D warnings
cargo build --release -q --features float32 "${f32_bins[@]}" \
  --target-dir $t

for m in hello_world_int8 micro_speech_quantized trained_lstm_int8 keyword_scrambled_8bit \
  keyword_scrambled audio_preprocessor_int8 hello_world_float trained_lstm \
  audio_preprocessor_float; do
  on_target lm3s6965 Cortex-M3 "$t/thumbv7m-none-eabi/release/$m" "$m"
done
kernels_on lm3s6965 Cortex-M3 "$t/thumbv7m-none-eabi/release/kernels"
# Cortex-M4F (thumbv7em-none-eabihf, target-cpu=cortex-m4) on QEMU mps2-an386: the build the
# speed figures use, and the only one that compiles the DSP path (src/dsp.rs, src/ops/conv/*/dsp.rs): micro_speech's
# DEPTHWISE_CONV_2D (one input channel, multiplier 8), kws_ref_model's CONV_2D (SMLAD) and
# DEPTHWISE_CONV_2D (four channels a word), each output checked against the host's.
echo "==> firmware/runtime for mps2-an386 (Cortex-M4F): clippy, build"
an386=(--release -q --no-default-features --features mps2-an386 --target thumbv7em-none-eabihf
  --target-dir $t)
# Between them every DSP path: pretrainedResnet_quant for ADD's.
cargo clippy "${an386[@]}" --bin hello_world_int8 --bin micro_speech_quantized --bin kws_ref_model \
  --bin pretrainedResnet_quant --bin kernels -- -D warnings
cargo build "${an386[@]}" --bin hello_world_int8 --bin micro_speech_quantized --bin kws_ref_model \
  --bin pretrainedResnet_quant --bin kernels
for m in hello_world_int8 micro_speech_quantized kws_ref_model pretrainedResnet_quant; do
  on_target mps2-an386 Cortex-M4 "$t/thumbv7em-none-eabihf/release/$m" "$m"
done
kernels_on mps2-an386 Cortex-M4 "$t/thumbv7em-none-eabihf/release/kernels"
# Cortex-M7 (target-cpu=cortex-m7) on QEMU mps2-an500: the bench's M7 board, its clock and
# memory map, and the DSP path as the M7's scheduling compiles it.
echo "==> firmware/runtime for mps2-an500 (Cortex-M7): build, run"
for m in hello_world_int8 micro_speech_quantized; do
  CARGO_TARGET_THUMBV7EM_NONE_EABIHF_RUSTFLAGS="-C target-cpu=cortex-m7" \
    cargo build --release -q --no-default-features --features mps2-an500 \
    --target thumbv7em-none-eabihf --target-dir $t --bin "$m" --bin kernels
  on_target mps2-an500 Cortex-M7 "$t/thumbv7em-none-eabihf/release/$m" "$m"
done
kernels_on mps2-an500 Cortex-M7 "$t/thumbv7em-none-eabihf/release/kernels"
# Cortex-M33 with the DSP extension (thumbv8m.main-none-eabihf, target-cpu=cortex-m33) on QEMU
# mps2-an505: the bench's M33 board, its Secure memory map and 20 MHz SysTick, and the DSP path
# as Armv8-M Mainline compiles it (synaptic-run's build script: the DSP rule of its flags).
echo "==> firmware/runtime for mps2-an505 (Cortex-M33): build, run"
cargo build --release -q --no-default-features --features mps2-an505 \
  --target thumbv8m.main-none-eabihf --target-dir $t \
  --bin hello_world_int8 --bin micro_speech_quantized --bin kernels
for m in hello_world_int8 micro_speech_quantized; do
  on_target mps2-an505 Cortex-M33 "$t/thumbv8m.main-none-eabihf/release/$m" "$m"
done
kernels_on mps2-an505 Cortex-M33 "$t/thumbv8m.main-none-eabihf/release/kernels"
echo "==> deploy images (feature deploy: what a product links) for mps2-an386: clippy, build"
deploy=(--release -q --no-default-features --features mps2-an386,deploy
  --target thumbv7em-none-eabihf --target-dir $t)
cargo clippy "${deploy[@]}" --bin hello_world_int8 --bin micro_speech_quantized -- -D warnings
cargo build "${deploy[@]}" --bin hello_world_int8 --bin micro_speech_quantized
for m in hello_world_int8 micro_speech_quantized; do
  out=$(timeout 120 ./qemu-run.sh mps2-an386 \
    "$t/thumbv7em-none-eabihf/release/$m" </dev/null 2>/dev/null) || true
  [ "$out" = "deploy ok" ] || {
    echo "$out"
    echo "$m: its deploy image FAILED on the Cortex-M4" >&2
    exit 1
  }
  echo "$m deploy image: $out"
done
echo "runtime firmware: hello_world_int8, micro_speech_quantized (M3, M4F, M4F deploy, M7), kws_ref_model and pretrainedResnet_quant (M4F) and hello_world_float equal the host on target"
