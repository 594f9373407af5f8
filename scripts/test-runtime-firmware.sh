#!/usr/bin/env bash
# The fast on-target subset of the runtime (a step for scripts/test): fmt and clippy of
# firmware/runtime, then hello_world_int8, micro_speech_quantized and hello_world_float (float32,
# soft-float) on QEMU's lm3s6965evb,
# each checking its outputs (I/O in the plan and in the SHARED region) against the output the
# host computed at build time. From the repository root:
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
echo "==> firmware/runtime: fmt, clippy, build"
cargo fmt --check
cargo clippy --release -q --target-dir target/lm3s6965 -- -D warnings
cargo build --release -q --target-dir target/lm3s6965
# The float image apart, with the float32 kernels (the int8 images keep their flash).
cargo clippy --release -q --features float32 --bin hello_world_float --target-dir target/lm3s6965-f32 \
  -- -D warnings
cargo build --release -q --features float32 --bin hello_world_float --target-dir target/lm3s6965-f32

for m in hello_world_int8 micro_speech_quantized hello_world_float; do
  dir=lm3s6965
  [ "$m" = hello_world_float ] && dir=lm3s6965-f32
  echo "==> $m on lm3s6965evb"
  out=$(timeout 120 ./qemu-run.sh lm3s6965 "target/$dir/thumbv7m-none-eabi/release/$m" \
    </dev/null 2>/dev/null) || {
    echo "$out"
    echo "$m: FAILED on target" >&2
    exit 1
  }
  echo "$out" | grep -E "^(run|check) "
  grep -q "^check $m ok" <<<"$out" || {
    echo "$m: output differs from the host's" >&2
    exit 1
  }
done
echo "runtime firmware: hello_world_int8, micro_speech_quantized and hello_world_float equal the host on target"
