#!/usr/bin/env bash
# The flash (and static RAM) each part of a C firmware costs, with the kit as shipped, on every
# Cortex-M target: links the C firmware kit (examples/c-firmware) against the release kit's
# libraries with arm-none-eabi-gcc -Os --gc-sections and reads the map files, then writes
# docs/code-size.generated.md.
#
#   empty      the kit alone: start-up, fault handlers, semihosting console (the baseline)
#   syn_mem    examples/c-firmware/size/mem_only.c on libsynaptic_mem_ffi.a (init, alloc,
#              scratch, reset, print_stats)
#   int8       main.c running hello_world_int8 on lib/<target>/int8 (syn_run, int8 kernels)
#   +float32   the same on the default library (int8 and float32 kernels)
# and, on thumbv7m-none-eabi, the same int8 and +float32 images with the library at opt-level
# "z" and 3 (each in its own cargo target dir, target/code-size-opt*).
#
# "library" is the bytes the linker kept from the Rust archive (its code, tables and
# compiler_builtins); libgcc and the kit's own objects are apart; the model's bytes and program
# (the emitted header's const arrays) are counted under "model".
#
#   scripts/code-size.sh [--kit DIR] [--no-opt-levels] [--out FILE]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
KIT=$ROOT/target/release-kit
OPT_LEVELS=1
OUT_MD=$ROOT/docs/code-size.generated.md
while [ $# -gt 0 ]; do
    case "$1" in
        --kit) KIT=$2; shift 2 ;;
        --no-opt-levels) OPT_LEVELS=0; shift ;;
        --out) OUT_MD=$2; shift 2 ;;
        *) echo "usage: $0 [--kit DIR] [--no-opt-levels] [--out FILE]" >&2; exit 2 ;;
    esac
done
log() { echo "code-size: $*" >&2; }
TARGETS="thumbv6m-none-eabi thumbv7m-none-eabi thumbv7em-none-eabihf thumbv8m.main-none-eabihf"
SHARED_DIR=${SYNAPTIC_SHARED:-$ROOT/../shared}
KITSRC=$ROOT/examples/c-firmware
WORK=$ROOT/target/code-size
rm -rf "$WORK"
mkdir -p "$WORK"
command -v arm-none-eabi-gcc >/dev/null || { echo "code-size: arm-none-eabi-gcc missing (apt-get install gcc-arm-none-eabi)" >&2; exit 1; }

# The release kit (a no-op when it is up to date).
scripts/release.sh --out "$KIT" --targets "$TARGETS" --variants "default int8" >&2
SYNMEM=$KIT/bin/synmem
model=$SHARED_DIR/models/hello_world_int8.tflite
[ -f "$model" ] || { echo "code-size: $model missing (set SYNAPTIC_SHARED)" >&2; exit 1; }
cp "$model" "$WORK/"
"$SYNMEM" emit "$WORK/hello_world_int8.tflite" --lang c --with-model --io ephemeral --op-data flash \
    -o "$WORK/model.h" >/dev/null 2>&1

cpu_flags() {
    case "$1" in
        thumbv6m-none-eabi) echo "-mcpu=cortex-m0plus -mthumb -mfloat-abi=soft" ;;
        thumbv7m-none-eabi) echo "-mcpu=cortex-m3 -mthumb -mfloat-abi=soft" ;;
        thumbv7em-none-eabihf) echo "-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard" ;;
        thumbv8m.main-none-eabihf) echo "-mcpu=cortex-m33 -mthumb -mfpu=fpv5-sp-d16 -mfloat-abi=hard" ;;
    esac
}
# link NAME TARGET LIB SOURCES... -> $WORK/NAME.elf and .map
link() {
    local name=$1 t=$2 lib=$3
    shift 3
    local flags
    read -r -a flags <<<"$(cpu_flags "$t")"
    arm-none-eabi-gcc "${flags[@]}" -std=c11 -Wall -Wextra -Werror -Os -ffunction-sections \
        -fdata-sections -I "$KIT/include" -I "$KITSRC" -I "$WORK" \
        -DKIT_MODEL=hello_world_int8 -DKIT_MODEL_UC=HELLO_WORLD_INT8 -DKIT_BOARD_NAME='"size"' \
        -DKIT_OUTPUT_MAX=16 -DKIT_INPUT_MAX=16 \
        -nostdlib -nostartfiles -Wl,--gc-sections -Wl,-z,noexecstack -L "$KITSRC/boards" \
        -T "$KITSRC/boards/mps2-an385.ld" -Wl,-Map="$WORK/$name.map" \
        "$@" "$KITSRC/startup.c" "$KITSRC/semihost.c" ${lib:+"$lib"} -lgcc -o "$WORK/$name.elf"
}
# parts NAME -> "flash_total library_flash library_ram libgcc kit model" from the map file
parts() {
    awk -v prefix="hello_world_int8_" '
        function hex(s,    i, c, v) {
            v = 0
            s = tolower(substr(s, 3))
            for (i = 1; i <= length(s); i++) {
                c = index("0123456789abcdef", substr(s, i, 1)) - 1
                v = v * 16 + c
            }
            return v
        }
        /^Linker script and memory map/ { on = 1; next }
        !on { next }
        /^ \*fill\*/ { next }
        /^ [.A-Za-z_][^ ]*$/ { pend = $1; next }
        {
            sec = ""; size = ""; file = ""
            if (pend != "" && $1 ~ /^0x/ && NF >= 3) { sec = pend; size = $2; file = $3 }
            else if ($1 ~ /^\./ && $2 ~ /^0x/ && NF >= 4) { sec = $1; size = $3; file = $4 }
            pend = ""
            if (sec == "" || size !~ /^0x/) next
            n = hex(size)
            if (n == 0) next
            flash = (sec ~ /^\.(text|rodata|ARM\.ex|data|vectors|glue|vfp11|v4_bx)/)
            ram = (sec ~ /^\.(bss|data)/) || sec == "COMMON"
            if (file ~ /libsynaptic_(run|mem)_ffi\.a/) { if (flash) lib += n; if (ram) libram += n }
            else if (file ~ /libgcc\.a/) { if (flash) gcc += n }
            else if (sec ~ ("\\.rodata\\." prefix)) { model += n }
            else if (flash) { kit += n }
        }
        END { printf "%d %d %d %d %d\n", lib, libram, gcc, kit, model }' "$WORK/$1.map"
}
flash_of() { arm-none-eabi-size -A "$WORK/$1.elf" | awk '$1 ~ /^\.(vectors|text|rodata|ARM|data)/ { s += $2 } END { print s }'; }

rows=()
measure() { # LABEL TARGET NAME
    local p f
    p=$(parts "$3")
    f=$(flash_of "$3")
    rows+=("$1|$2|$f|$p")
    log "$2 $1: flash $f, parts (library library-ram libgcc kit model) $p"
}

for t in $TARGETS; do
    lib=$KIT/lib/$t
    link "empty-$t" "$t" "" "$KITSRC/size/empty.c"
    measure empty "$t" "empty-$t"
    link "mem-$t" "$t" "$lib/libsynaptic_mem_ffi.a" "$KITSRC/size/mem_only.c"
    measure syn_mem "$t" "mem-$t"
    link "int8-$t" "$t" "$lib/int8/libsynaptic_run_ffi.a" "$KITSRC/main.c"
    measure "syn_run int8" "$t" "int8-$t"
    link "f32-$t" "$t" "$lib/libsynaptic_run_ffi.a" "$KITSRC/main.c"
    measure "syn_run int8+float32" "$t" "f32-$t"
done

opt_rows=()
if [ "$OPT_LEVELS" = 1 ]; then
    t=thumbv7m-none-eabi
    for o in s z 3; do
        # The release-size profile at opt-level $o (the kit's own libraries: release.sh's
        # per-target profiles, the table above).
        log "opt-level $o: scripts/release.sh in target/code-size-opt$o"
        SYNAPTIC_PROFILE=release-size CARGO_TARGET_DIR=$ROOT/target/code-size-opt$o \
            CARGO_PROFILE_RELEASE_SIZE_OPT_LEVEL=$o \
            scripts/release.sh --out "$WORK/kit-opt$o" --targets "$t" --variants "default int8" \
            --no-host >&2
        lib=$WORK/kit-opt$o/lib/$t
        for v in int8 f32; do
            l=$lib/libsynaptic_run_ffi.a
            [ "$v" = int8 ] && l=$lib/int8/libsynaptic_run_ffi.a
            link "opt$o-$v" "$t" "$l" "$KITSRC/main.c"
            opt_rows+=("$o|$v|$(flash_of "opt$o-$v")|$(parts "opt$o-$v")")
        done
    done
fi

# The model's own library (issue 40): built with the operators and kernel paths the emitted
# header names (HELLO_WORLD_INT8_OPS, HELLO_WORLD_INT8_PATHS) and program-given-only, as shipped
# (release-speed) and at release-size, with the messages and with strip-error-strings.
model_rows=()
ops=$(sed -n 's/^#define HELLO_WORLD_INT8_OPS "\(.*\)"$/\1/p' "$WORK/model.h")
paths=$(sed -n 's/^#define HELLO_WORLD_INT8_PATHS "\(.*\)"$/\1/p' "$WORK/model.h")
[ -n "$ops" ] && [ -n "$paths" ] || { echo "code-size: model.h names no operators or paths" >&2; exit 1; }
for t in thumbv7m-none-eabi thumbv7em-none-eabihf; do
    for prof in release-speed release-size; do
        for strip in "" strip-error-strings; do
            name="model-$t-$prof${strip:+-strip}"
            log "$name: SYNAPTIC_RUN_OPS=$ops SYNAPTIC_RUN_PATHS=$paths"
            SYNAPTIC_RUN_OPS=$ops SYNAPTIC_RUN_PATHS=$paths \
                SYNAPTIC_RUN_FEATURES="program-given-only${strip:+,$strip}" SYNAPTIC_PROFILE=$prof \
                CARGO_TARGET_DIR=$ROOT/target/code-size-model \
                scripts/release.sh --out "$WORK/kit-$name" --targets "$t" --variants int8 --no-host >&2
            link "$name" "$t" "$WORK/kit-$name/lib/$t/int8/libsynaptic_run_ffi.a" "$KITSRC/main.c"
            model_rows+=("$t|$prof|${strip:-messages}|$(flash_of "$name")|$(parts "$name")")
        done
    done
done

# ---- the generated page -----------------------------------------------------------------------
{
    echo "# Code size of a C firmware (generated)"
    echo
    echo "Written by \`scripts/code-size.sh\` (also \`scripts/release.sh --sizes\`); do not edit. Explained"
    echo "in [c-firmware.md](c-firmware.md#code-size)."
    echo
    echo "- library: as \`scripts/release.sh\` builds it (root \`Cargo.toml\`'s \`release-speed\`: opt-level 3, fat LTO,"
    echo "  one codegen unit, panic abort, thumbv7em tuned for the Cortex-M4; thumbv6m at \`release-min\`,"
    echo "  opt-level \"z\": the kit's MANIFEST), \`$(rustc -V)\`; commit \`$(git rev-parse --short HEAD 2>/dev/null || echo unknown)\`$(git diff --quiet HEAD -- crates Cargo.toml 2>/dev/null || echo ' with local changes in crates/')"
    echo "- C: \`$(arm-none-eabi-gcc --version | head -n 1)\`, \`-Os -ffunction-sections -fdata-sections\`,"
    echo "  linked with \`-nostdlib -Wl,--gc-sections\` (no newlib: the library's compiler_builtins"
    echo "  provides memcpy/memset), the kit's start-up and console, \`boards/mps2-an385.ld\`"
    echo "- images: \`empty\` the kit alone; \`syn_mem\` \`size/mem_only.c\` on \`libsynaptic_mem_ffi.a\`;"
    echo "  \`syn_run\` the kit's \`main.c\` running hello_world_int8 (model $(stat -c %s "$WORK/hello_world_int8.tflite") B + program $((4 * $(sed -n 's/^#define HELLO_WORLD_INT8_PROGRAM_WORDS \([0-9]*\)u$/\1/p' "$WORK/model.h"))) B) on"
    echo "  \`lib/<target>/int8\` (int8 kernels) and \`lib/<target>\` (int8 + float32)"
    echo "- columns, bytes: **flash** the whole image (\`.vectors .text .rodata .ARM.* .data\`);"
    echo "  **library** what the linker kept from the Rust archive (code, constant tables,"
    echo "  compiler_builtins); **library RAM** its static \`.data\`+\`.bss\` (the last error, the"
    echo "  global arena state); **libgcc**; **kit** start-up, console and \`main.c\`; **model** the"
    echo "  emitted header's arrays (model bytes, program, plan)"
    echo
    echo "| target | image | flash | library | library RAM | libgcc | kit | model |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|"
    for r in "${rows[@]}"; do
        IFS='|' read -r label t f p <<<"$r"
        read -r lib lram gcc kit mdl <<<"$p"
        echo "| $t | $label | $f | $lib | $lram | $gcc | $kit | $mdl |"
    done
    echo
    echo "What each part adds (library bytes, from the table):"
    echo
    echo "| target | syn_mem only | syn_run int8 | float32 kernels add |"
    echo "|---|---:|---:|---:|"
    for t in $TARGETS; do
        m="" i="" f=""
        for r in "${rows[@]}"; do
            IFS='|' read -r label tt _ p <<<"$r"
            [ "$tt" = "$t" ] || continue
            read -r lib _ <<<"$p"
            case "$label" in syn_mem) m=$lib ;; "syn_run int8") i=$lib ;; "syn_run int8+float32") f=$lib ;; esac
        done
        echo "| $t | $m | $i | $((f - i)) |"
    done
    echo
    echo "The model's own library: built with the operators and kernel paths the emitted header names"
    echo "(\`SYNAPTIC_RUN_OPS=$ops SYNAPTIC_RUN_PATHS=$paths\`) and \`program-given-only\`, the same"
    echo "hello_world_int8 image; \`strip-error-strings\`: errno only, no formatting (issue 40's goal: library ≤ 32 KB):"
    echo
    echo "| target | profile | messages | flash | library |"
    echo "|---|---|---|---:|---:|"
    for r in "${model_rows[@]}"; do
        IFS='|' read -r t prof msg f p <<<"$r"
        read -r lib _ <<<"$p"
        echo "| $t | \`$prof\` | $msg | $f | $lib |"
    done
    if [ ${#opt_rows[@]} -gt 0 ]; then
        echo
        echo "opt-level of the library (thumbv7m-none-eabi, the same hello_world_int8 image, the"
        echo "\`release-size\` profile at each opt-level: fat LTO, one codegen unit; speed in c-firmware.md):"
        echo
        echo "| opt-level | kernels | flash | library |"
        echo "|---|---|---:|---:|"
        for r in "${opt_rows[@]}"; do
            IFS='|' read -r o v f p <<<"$r"
            read -r lib _ <<<"$p"
            echo "| $o | $([ "$v" = int8 ] && echo int8 || echo int8+float32) | $f | $lib |"
        done
    fi
} >"$OUT_MD.tmp"
mv "$OUT_MD.tmp" "$OUT_MD"
log "wrote ${OUT_MD#"$ROOT"/}"
cat "$OUT_MD"
