#!/usr/bin/env bash
# The C kit's library as a user links it, measured like the runtime's own firmware (issue 39):
# builds the release kit's int8 library for thumbv7em-none-eabihf exactly as scripts/release.sh
# ships it (its build for that target: `release-speed`, tuned for the Cortex-M4; another
# profile with SYNAPTIC_PROFILE), emits each model's header with
# synmem (--lang c --with-model --io ephemeral --op-data flash --isa dsp: the M4's program),
# builds the kit's main.c with
# plain make for QEMU's mps2-an386 (Cortex-M4F) with KIT_COUNT, runs it under -icount shift=10
# and checks its output bytes against `synmem run` on the host. Prints, per model:
#
#   kit <model> <instructions of one syn_run_invoke_copy()> m4
#   kit-load <model> <instructions of syn_run_load()> m4
#   kit-library <model> <flash bytes the linker kept from the library> m4
#
# (`kit-<profile>`, `kit-<profile>-load`, `kit-<profile>-library` with SYNAPTIC_PROFILE set.)
#
#   scripts/bench-kit.sh                       # the five shared models
#   MODELS=hello_world_int8 scripts/bench-kit.sh
#   SYNAPTIC_PROFILE=release-size scripts/bench-kit.sh   # the library at opt-level "s"
#
# Exits non-zero if an image fails or its output differs. Work files: target/bench-kit/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
SHARED_DIR=${SYNAPTIC_SHARED:-$ROOT/../shared}
models=${MODELS:-"hello_world_int8 micro_speech_quantized kws_ref_model person_detect pretrainedResnet_quant"}
profile=${SYNAPTIC_PROFILE:-shipped}
WORK=$ROOT/target/bench-kit/$profile
KIT=$WORK/kit
SEED=${KIT_SEED:-7}
mkdir -p "$WORK"
key=kit
[ "$profile" = shipped ] || key=kit-$profile
log() { echo "bench-kit: $*" >&2; }

log "scripts/release.sh (thumbv7em-none-eabihf, int8, profile $profile)"
scripts/release.sh --out "$KIT" --targets thumbv7em-none-eabihf \
    --variants int8 --no-host >"$WORK/release.log" 2>&1 || { cat "$WORK/release.log" >&2; exit 1; }
cargo build -q --release -p synmem
target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
SYNMEM=$target_dir/release/synmem

fail=0
for m in $models; do
    d=$WORK/$m
    mkdir -p "$d"
    cp "$SHARED_DIR/models/$m.tflite" "$d/"
    "$SYNMEM" emit "$d/$m.tflite" --lang c --with-model --io ephemeral --op-data flash --isa dsp \
        -o "$d/model.h" \
        >"$d/emit.log" 2>&1 || { cat "$d/emit.log" >&2; fail=1; continue; }
    "$SYNMEM" run "$d/$m.tflite" --random "$SEED" --save-input "$d/in.raw" --output "$d/out.raw" \
        --io plan --op-data flash >/dev/null || { fail=1; continue; }
    if ! make -s -C examples/c-firmware BOARD=mps2-an386 MODEL_HEADER="$d/model.h" INPUT="$d/in.raw" \
        SYNAPTIC_KIT="$KIT" VARIANT=int8 BUILD="$d/build" DEFINES=-DKIT_COUNT \
        OUTPUT_MAX=16384 >"$d/build.log" 2>&1; then
        cat "$d/build.log" >&2
        log "$m: build FAILED"
        fail=1
        continue
    fi
    rc=0
    timeout 1800 qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic -monitor none \
        -serial none -semihosting-config enable=on,target=native -icount shift=10 \
        -kernel "$d/build/firmware.elf" >"$d/run.log" 2>&1 || rc=$?
    got=$(sed -n 's/^syn-out \([0-9a-f]*\)$/\1/p' "$d/run.log")
    want=$(od -An -v -tx1 "$d/out.raw" | tr -d ' \n')
    counts=$(sed -n 's/^syn-kit: instructions load \([0-9]*\) invoke \([0-9]*\)$/\1 \2/p' "$d/run.log")
    if [ "$rc" -ne 0 ] || [ -z "$got" ] || [ "$got" != "$want" ] || [ -z "$counts" ]; then
        cat "$d/run.log" >&2
        log "$m: FAILED on the Cortex-M4 (QEMU exit $rc, output equal to the host's: $([ "$got" = "$want" ] && echo yes || echo no))"
        fail=1
        continue
    fi
    lib=$(python3 - "$d/build/firmware.map" <<'EOF'
import re, sys
# Flash sections the linker kept from the Rust archive (code, constants, compiler_builtins).
total, pend, on = 0, None, False
for line in open(sys.argv[1]):
    if line.startswith("Linker script and memory map"):
        on = True
        continue
    if not on or line.startswith(" *fill*"):
        continue
    f = line.split()
    if len(f) == 1 and line.startswith(" ."):
        pend = f[0]
        continue
    sec = size = obj = None
    if pend and len(f) >= 3 and f[0].startswith("0x"):
        sec, size, obj = pend, f[1], f[2]
    elif len(f) >= 4 and f[0].startswith(".") and f[1].startswith("0x"):
        sec, size, obj = f[0], f[2], f[3]
    pend = None
    if sec and size.startswith("0x") and "libsynaptic_run_ffi.a" in obj \
            and re.match(r"\.(text|rodata|ARM\.ex|data)", sec):
        total += int(size, 16)
print(total)
EOF
)
    read -r load invoke <<<"$counts"
    echo "$key $m $invoke m4"
    echo "$key-load $m $load m4"
    echo "$key-library $m $lib m4"
done
exit $fail
