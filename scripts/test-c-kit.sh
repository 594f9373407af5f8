#!/usr/bin/env bash
# End-to-end test of the C firmware kit (examples/c-firmware, scripts/release.sh): from a
# .tflite the tests have not used on a target before to the same output bytes on four QEMU
# boards, one per Cortex-M library target, as on the host.
#
#   1. installs what is missing: arm-none-eabi-gcc, qemu-system-arm, cmake, make (apt), the
#      rustup targets thumbv6m-none-eabi, thumbv7m-none-eabi, thumbv7em-none-eabihf and
#      thumbv8m.main-none-eabihf;
#   2. builds the release kit (scripts/release.sh: bare-metal libraries, CMake package,
#      pkg-config files) for thumbv7m-none-eabi and thumbv7em-none-eabihf with and without
#      float32, for thumbv8m.main-none-eabihf the int8 library only (one library: the cold
#      cost of the extra target is kept to one build), and the host synmem; for the micro:bit
#      a second kit (target/c-kit-test/kit-m0), as a Cortex-M0 user with 256 KB of flash
#      builds one: the thumbv6m-none-eabi int8 library with only hello_world_int8's
#      operators and kernel paths (SYNAPTIC_RUN_OPS / SYNAPTIC_RUN_PATHS from the header
#      synmem emit wrote; the library with every operator no longer fits the micro:bit);
#   3. takes the models: ad01_int8 (../shared/models, run by no other firmware test), two
#      single-operator models generated now with random structure and quantization
#      (crates/synaptic-run/tests/oracle/gen_models.py --sweep SEED, the oracle's venv): a
#      CONV_2D and one other operator picked by the seed (SEED is C_KIT_SEED, else the clock;
#      it is logged, and C_KIT_SEED=SEED reruns the same models and inputs), and
#      hello_world_int8 (../shared/models: small enough for the micro:bit's 16 KB of RAM);
#   4. for each model: synmem plan, synmem emit --lang c --with-model --io ephemeral (the
#      header main.c includes), an input from synmem run --random SEED --save-input, the
#      expected output from synmem run --input IN --output OUT --io plan --op-data flash;
#   5. builds the firmware for mps2-an385 (Cortex-M3, CMake + find_package, the int8 library),
#      mps2-an386 (Cortex-M4F, CMake, the int8 + float32 library) and mps2-an505 (Cortex-M33,
#      Secure state, the thumbv8m.main-none-eabihf int8 library: CMake for ad01_int8, plain
#      make for the generated models), and for ad01_int8 also with plain make (mps2-an385) and
#      with --io shared (mps2-an386: the input filled in place, syn_run_invoke,
#      syn_run_output); hello_world_int8 for microbit (Cortex-M0, kit-m0's thumbv6m-none-eabi
#      int8 library) with CMake and with make; checks that each image links the library of its
#      CPU's target; every image with KIT_CHECK_ARENA: on target an
#      arena of <MODEL>_ARENA_BYTES - 16 must fail with -ENOMEM, <MODEL>_ARENA_BYTES must load
#      and syn_run_memory() must report exactly it;
#   6. runs every image under qemu-system-arm and compares its syn-out bytes with the host's.
# Exits non-zero on any difference or failure. Work files: target/c-kit-test/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
T0=$SECONDS
SHARED_DIR=${SYNAPTIC_SHARED:-$ROOT/../shared}
WORK=$ROOT/target/c-kit-test
KIT=$WORK/kit
KIT_M0=$WORK/kit-m0
SEED=${C_KIT_SEED:-$(($(date +%s) % 1000000))}
log() { echo "c-kit: $*"; }
die() { echo "c-kit: FAIL: $*" >&2; exit 1; }

passed=0
failed=0
failures=()
pass() { passed=$((passed + 1)); log "PASS $1"; }
fail() { failed=$((failed + 1)); failures+=("$1"); echo "c-kit: FAIL $1" >&2; }

# ---- 1. tools ---------------------------------------------------------------------------------
need=()
command -v arm-none-eabi-gcc >/dev/null || need+=(gcc-arm-none-eabi)
command -v qemu-system-arm >/dev/null || need+=(qemu-system-arm)
command -v cmake >/dev/null || need+=(cmake)
command -v make >/dev/null || need+=(make)
command -v python3 >/dev/null || need+=(python3)
command -v pkg-config >/dev/null || need+=(pkg-config)
if ((${#need[@]})); then
    log "apt-get install ${need[*]}"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
installed=$(rustup target list --installed)
for t in thumbv6m-none-eabi thumbv7m-none-eabi thumbv7em-none-eabihf thumbv8m.main-none-eabihf; do
    grep -qx "$t" <<<"$installed" || { log "rustup target add $t"; rustup target add "$t"; }
done
for f in ad01_int8 hello_world_int8; do
    [ -f "$SHARED_DIR/models/$f.tflite" ] || die "$SHARED_DIR/models/$f.tflite missing (set SYNAPTIC_SHARED)"
done

# ---- 2. the kit and synmem --------------------------------------------------------------------
rm -rf "$WORK"
mkdir -p "$WORK"
log "seed $SEED (rerun these models and inputs: C_KIT_SEED=$SEED $0)"
log "scripts/release.sh --out $KIT (thumbv7m-none-eabi, thumbv7em-none-eabihf; default, int8)"
scripts/release.sh --out "$KIT" --targets "thumbv7m-none-eabi thumbv7em-none-eabihf" \
    --variants "default int8" --no-host >"$WORK/release.log" 2>&1 \
    || { cat "$WORK/release.log" >&2; die "scripts/release.sh"; }
# The Cortex-M33's target: the int8 library only, into the same kit (its MANIFEST then lists
# the libraries of both runs).
t_kit=$SECONDS
log "scripts/release.sh --out $KIT (thumbv8m.main-none-eabihf; int8)"
mv "$KIT/MANIFEST" "$WORK/MANIFEST.v7"
scripts/release.sh --out "$KIT" --targets "thumbv8m.main-none-eabihf" \
    --variants int8 --no-host >"$WORK/release-v8.log" 2>&1 \
    || { cat "$WORK/release-v8.log" >&2; die "scripts/release.sh (thumbv8m.main)"; }
mv "$KIT/MANIFEST" "$WORK/MANIFEST.v8"
{
    sed '/^layout:/,$d' "$WORK/MANIFEST.v7" | sed '$d'
    sed -n '/^library features /,/^$/p' "$WORK/MANIFEST.v8" | sed '1d;$d'
    echo
    sed -n '/^layout:/,$p' "$WORK/MANIFEST.v8"
} >"$KIT/MANIFEST"
log "kit: $(grep -c '^lib/' "$KIT/MANIFEST") libraries ($((SECONDS - t_kit)) s for the thumbv8m.main one)"
log "cargo build --release -p synmem"
nice cargo build -q --release -p synmem
target_dir=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
SYNMEM=$target_dir/release/synmem
for pc in synaptic-run synaptic-run-int8; do
    lib=$(PKG_CONFIG_PATH=$KIT/lib/thumbv7m-none-eabi/pkgconfig pkg-config --libs "$pc" 2>/dev/null || true)
    if [[ "$lib" == *-lsynaptic_run_ffi* ]] \
        && [ -f "$(sed 's/.*-L\([^ ]*\).*/\1/' <<<"$lib")/libsynaptic_run_ffi.a" ]; then
        pass "pkg-config $pc names an existing library"
    else
        fail "pkg-config $pc ('$lib')"
    fi
done

# ---- 3. models ----------------------------------------------------------------------------------
mkdir -p "$WORK/models"
cp "$SHARED_DIR/models/ad01_int8.tflite" "$SHARED_DIR/models/hello_world_int8.tflite" "$WORK/models/"
models=(ad01_int8)
log "generating models: gen_models.py --sweep $SEED 16 (the oracle's venv: scripts/oracle-venv.sh)"
py=$(scripts/oracle-venv.sh) || die "scripts/oracle-venv.sh (the TFLM wheel's schema builds the models)"
"$py" crates/synaptic-run/tests/oracle/gen_models.py --sweep "$SEED" 16 "$WORK/gen" >/dev/null
# A CONV_2D and one more int8 operator (no QUANTIZE/DEQUANTIZE: float I/O), by the seed.
others=(001_dw 002_fc 003_avg 004_max 005_softmax 006_logistic 007_add 008_mul 009_mean 010_pad
    011_concat 012_transpose 014_requantize)
for g in 000_conv "${others[$((SEED % ${#others[@]}))]}"; do
    cp "$WORK/gen/rand_$g.tflite" "$WORK/models/"
    models+=("rand_$g")
done
log "models: ${models[*]} (all boards but microbit), hello_world_int8 (microbit)"

# ---- 4. plan, header, input, expected output -------------------------------------------------
# arena_define MODEL UC JSON: the -D of <UC>_ARENA_BYTES when the emitted header lacks it (the
# header's rename of the runtime arena figure had not landed when this test was written): from
# synmem run --json, persistent + planned ephemeral + scratch peak.
json_num() { sed -n "s/^  \"$1\": \([0-9]*\),\{0,1\}$/\1/p" "$2"; }
prepare() { # MODEL IO(ephemeral|shared) -> $WORK/<model>-<io>/
    local m=$1 io=$2 d=$WORK/$1-$2 runio=plan
    [ "$io" = shared ] && runio=shared
    mkdir -p "$d"
    cp "$WORK/models/$m.tflite" "$d/$m.tflite"
    "$SYNMEM" plan "$d/$m.tflite" >"$d/plan.txt" 2>&1 || { cat "$d/plan.txt" >&2; return 1; }
    "$SYNMEM" emit "$d/$m.tflite" --lang c --with-model --io "$io" --op-data flash -o "$d/model.h" \
        >"$d/emit.log" 2>&1 || { cat "$d/emit.log" >&2; return 1; }
    "$SYNMEM" run "$d/$m.tflite" --random "$SEED" --save-input "$d/in.raw" --output "$d/probe.raw" \
        --io "$runio" --op-data flash >/dev/null || return 1
    "$SYNMEM" run "$d/$m.tflite" --input "$d/in.raw" --output "$d/out.raw" --io "$runio" \
        --op-data flash --json >"$d/run.json" || return 1
    cmp -s "$d/probe.raw" "$d/out.raw" || { echo "c-kit: --random and --input runs differ" >&2; return 1; }
    local uc defs="" p s sh
    uc=$(sed -n 's/^#define SYNMEM_PLAN_\([A-Za-z0-9_]*\)_H$/\1/p' "$d/model.h")
    if ! grep -q "^#define ${uc}_ARENA_BYTES " "$d/model.h"; then
        p=$(json_num persistent_bytes "$d/run.json")
        s=$(json_num planned_ephemeral_bytes "$d/run.json")
        sh=$(json_num scratch_peak_bytes "$d/run.json")
        defs="${uc}_ARENA_BYTES=$((p + s + sh))u"
        echo "$defs" >"$d/defines"
        log "$m ($io): header has no ${uc}_ARENA_BYTES yet; -D$defs (synmem run --json)"
    else
        : >"$d/defines"
        log "$m ($io): ${uc}_ARENA_BYTES from the header: $(sed -n "s/^#define ${uc}_ARENA_BYTES \(.*\)$/\1/p" "$d/model.h")"
    fi
    log "$m ($io): input $(stat -c %s "$d/in.raw") B, output $(stat -c %s "$d/out.raw") B, model $(stat -c %s "$d/$m.tflite") B"
    # The image's output buffer: the kit's 4096 B, or the model's output if larger (a random
    # model's may be).
    local out_b
    out_b=$(stat -c %s "$d/out.raw")
    echo $((out_b > 4096 ? out_b : 4096)) >"$d/outmax"
}

# ---- 5 and 6. build, run, compare -------------------------------------------------------------
# run_image ELF BOARD LABEL DIR
run_image() {
    local elf=$1 board=$2 label=$3 d=$4 cpu=cortex-m3 rc=0 got want
    case "$board" in
        mps2-an386) cpu=cortex-m4 ;;
        mps2-an505) cpu=cortex-m33 ;; # boots Secure; the firmware stays Secure
        microbit) cpu=cortex-m0 ;;
    esac
    timeout 300 qemu-system-arm -machine "$board" -cpu "$cpu" -nographic -monitor none -serial none \
        -semihosting-config enable=on,target=native -kernel "$elf" >"$d/$label.log" 2>&1 || rc=$?
    sed 's/^/c-kit:   | /' "$d/$label.log" | grep -v '^c-kit:   | syn-out ' || true
    got=$(sed -n 's/^syn-out \([0-9a-f]*\)$/\1/p' "$d/$label.log")
    want=$(od -An -v -tx1 "$d/out.raw" | tr -d ' \n')
    if [ "$rc" -ne 0 ]; then
        fail "$label: QEMU exit status $rc"
    elif ! grep -q 'check: arena ARENA_BYTES - 16 refused with -ENOMEM' "$d/$label.log" \
        || ! grep -q 'check: ARENA_BYTES arena accepted, syn_run_memory() agrees' "$d/$label.log"; then
        fail "$label: arena checks missing"
    elif [ -z "$got" ] || [ "$got" != "$want" ]; then
        echo "c-kit:   target ${got:0:96}..." >&2
        echo "c-kit:   host   ${want:0:96}..." >&2
        fail "$label: output differs from synmem run (${#got}/2 vs ${#want}/2 bytes)"
    else
        pass "$label: $(( ${#got} / 2 )) output bytes equal to synmem run's"
    fi
}
# The library each board's CPU must get (find_package from the flags; the Makefile from CPU).
rust_target_of() {
    case "$1" in
        mps2-an386) echo thumbv7em-none-eabihf ;;
        mps2-an505) echo thumbv8m.main-none-eabihf ;;
        microbit) echo thumbv6m-none-eabi ;;
        *) echo thumbv7m-none-eabi ;;
    esac
}
# The kit a board's images link: the micro:bit's own (kit-m0, the model's operators only).
kit_of() { [ "$1" = microbit ] && echo "$KIT_M0" || echo "$KIT"; }
# cmake_image MODEL IO BOARD FLOAT32(ON|OFF)
cmake_image() {
    local m=$1 io=$2 board=$3 f32=$4 d=$WORK/$1-$2 label b
    label="$m $io $board cmake float32=$f32"
    b=$d/cmake-$board-$f32
    if ! cmake -S examples/c-firmware -B "$b" -DCMAKE_TOOLCHAIN_FILE="$ROOT/examples/c-firmware/cmake/arm-none-eabi.cmake" \
        -DCMAKE_PREFIX_PATH="$(kit_of "$board")" -DKIT_BOARD="$board" -DKIT_MODEL_HEADER="$d/model.h" \
        -DKIT_INPUT="$d/in.raw" -DKIT_CHECK_ARENA=ON -DSYNAPTIC_FLOAT32="$f32" \
        -DKIT_OUTPUT_MAX="$(cat "$d/outmax")" \
        -DKIT_DEFINES="$(cat "$d/defines")" >"$b.log" 2>&1 \
        || ! cmake --build "$b" >>"$b.log" 2>&1; then
        cat "$b.log" >&2
        fail "$label: build"
        return
    fi
    if ! grep -q "^-- synaptic kit: .* ($(rust_target_of "$board"), " "$b.log"; then
        fail "$label: find_package did not pick the $(rust_target_of "$board") library: $(grep -- '-- synaptic kit: /' "$b.log")"
        return
    fi
    grep -E '^[[:space:]]*[0-9]+[[:space:]]+[0-9]+[[:space:]]+[0-9]+[[:space:]]' "$b.log" \
        | tr -s ' \t' ' ' | sed "s|^ *|c-kit:   size (text data bss dec hex file) |; s|$b/||" || true
    run_image "$b/$m-$board.elf" "$board" "$label" "$d"
}
make_image() { # MODEL IO BOARD [VARIANT]
    local m=$1 io=$2 board=$3 variant=${4:-default} d=$WORK/$1-$2 label b defs=""
    label="$m $io $board make variant=$variant"
    b=$d/make-$board
    [ -s "$d/defines" ] && defs="-D$(cat "$d/defines")"
    if ! make -s -C examples/c-firmware BOARD="$board" MODEL_HEADER="$d/model.h" INPUT="$d/in.raw" \
        CHECK_ARENA=1 SYNAPTIC_KIT="$(kit_of "$board")" VARIANT="$variant" BUILD="$b" DEFINES="$defs" \
        OUTPUT_MAX="$(cat "$d/outmax")" >"$b.log" 2>&1; then
        cat "$b.log" >&2
        fail "$label: build"
        return
    fi
    if ! grep -q "/lib/$(rust_target_of "$board")/" "$b/firmware.map"; then
        fail "$label: not linked with the $(rust_target_of "$board") library"
        return
    fi
    run_image "$b/firmware.elf" "$board" "$label" "$d"
}

for m in "${models[@]}"; do
    prepare "$m" ephemeral || { fail "$m: synmem plan/emit/run"; continue; }
    cmake_image "$m" ephemeral mps2-an385 OFF
    cmake_image "$m" ephemeral mps2-an386 ON
    # mps2-an505: ad01_int8 with CMake (find_package's thumbv8m.main pick), the others with
    # make (its cortex-m33f flags; no CMake configure: the step's time)
    if [ "$m" = ad01_int8 ]; then
        cmake_image "$m" ephemeral mps2-an505 OFF
    else
        make_image "$m" ephemeral mps2-an505 int8
    fi
done
# Cortex-M0: 256 KB of flash, 16 KB of RAM. The library a micro:bit user builds: the model's
# operators and kernel paths only (the header's <MODEL>_OPS / <MODEL>_PATHS), int8, at the
# thumbv6m-none-eabi default (release-min). The library with every operator (~250 KB) no
# longer leaves room for the rest of the image.
if prepare hello_world_int8 ephemeral; then
    h=$WORK/hello_world_int8-ephemeral/model.h
    m0_ops=$(sed -n 's/^#define HELLO_WORLD_INT8_OPS "\(.*\)"$/\1/p' "$h")
    m0_paths=$(sed -n 's/^#define HELLO_WORLD_INT8_PATHS "\(.*\)"$/\1/p' "$h")
    log "SYNAPTIC_RUN_OPS=$m0_ops SYNAPTIC_RUN_PATHS=$m0_paths scripts/release.sh --out $KIT_M0 (thumbv6m-none-eabi; int8)"
    if [ -z "$m0_ops" ]; then
        fail "hello_world_int8: the header names no HELLO_WORLD_INT8_OPS"
    elif ! SYNAPTIC_RUN_OPS=$m0_ops SYNAPTIC_RUN_PATHS=$m0_paths scripts/release.sh --out "$KIT_M0" \
        --targets thumbv6m-none-eabi --variants int8 --no-host >"$WORK/release-m0.log" 2>&1; then
        cat "$WORK/release-m0.log" >&2
        fail "scripts/release.sh (thumbv6m-none-eabi, hello_world_int8's operators)"
    elif ! grep -qx "SYNAPTIC_RUN_OPS $m0_ops" "$KIT_M0/MANIFEST"; then
        fail "kit-m0's MANIFEST does not name its operators (SYNAPTIC_RUN_OPS $m0_ops)"
    else
        log "kit-m0: lib/thumbv6m-none-eabi/int8/libsynaptic_run_ffi.a $(stat -c %s "$KIT_M0/lib/thumbv6m-none-eabi/int8/libsynaptic_run_ffi.a") B (archive)"
        cmake_image hello_world_int8 ephemeral microbit OFF
        make_image hello_world_int8 ephemeral microbit int8
    fi
else
    fail "hello_world_int8: synmem plan/emit/run"
fi
make_image ad01_int8 ephemeral mps2-an385
if prepare ad01_int8 shared; then
    cmake_image ad01_int8 shared mps2-an386 ON
else
    fail "ad01_int8 shared: synmem plan/emit/run"
fi

for f in "${failures[@]+"${failures[@]}"}"; do echo "c-kit: failed: $f" >&2; done
log "$passed passed, $failed failed ($((SECONDS - T0)) s, seed $SEED)"
[ "$failed" -eq 0 ]
