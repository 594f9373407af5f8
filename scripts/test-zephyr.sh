#!/usr/bin/env bash
# The Zephyr module (zephyr/) on both boards of ../shared/zephyr, from this checkout: builds
# zephyr/samples/syn_run for qemu_cortex_m3 (hello_world_int8; the arena overlay of its 64 KiB)
# and mps2/an386 (person_detect on person.bmp), runs each under QEMU, drives the shell through
# stdin (`syn mem stats`, `syn run`, `syn mem reset`) and checks what they print: the model's
# output equal to the host's at boot and on `syn run`, the stats table with the configured
# sizes. Then checks that a bad Kconfig value fails the configure step (out of its range;
# scratch pool not below the arena). Prints `zephyr <check> ok|FAIL` lines and the time taken.
#
#   scripts/test-zephyr.sh            # both boards
#   BOARDS=qemu_cortex_m3 scripts/test-zephyr.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)
source scripts/zephyr-env.sh
out=$root/target/zephyr
mkdir -p "$out"
# One cargo target directory for every build here (boards and refused configurations): the
# library's host build-dependencies compiled once.
export SYNAPTIC_CARGO_TARGET_DIR=$out/cargo
start=$SECONDS
failed=0
ok() { echo "zephyr $1 ok"; }
bad() { echo "zephyr $1 FAIL${2:+: $2}"; failed=1; }

# board -> "qemu machine|cpu|arena|scratch" (the sizes prj.conf and the board overlay give)
declare -A QEMU=(
    [qemu_cortex_m3]="lm3s6965evb|cortex-m3|16384|2048"
    [mps2/an386]="mps2-an386|cortex-m4|131072|16384"
)
for board in ${BOARDS:-qemu_cortex_m3 mps2/an386}; do
    IFS='|' read -r machine cpu arena scratch <<<"${QEMU[$board]}"
    dir=$out/${board//\//_}
    t0=$SECONDS
    if ! { cmake -B "$dir" -GNinja -DBOARD="$board" -DBUILD_VERSION=synaptic \
        zephyr/samples/syn_run && ninja -C "$dir"; } >"$dir.log" 2>&1; then
        tail -30 "$dir.log"
        bad "$board build" "see $dir.log"
        continue
    fi
    ok "$board build ($((SECONDS - t0)) s; $(grep -E '^ +(FLASH|RAM):' "$dir.log" | awk '{print $1, $2, $3}' | paste -sd' ' -))"
    log=$dir.qemu.txt
    (sleep 6; printf 'syn mem stats\r'; sleep 2; printf 'syn run\r'; sleep 4
        printf 'syn mem reset\r'; sleep 1; printf 'syn mem stats\r'; sleep 2) |
        timeout 30 qemu-system-arm -machine "$machine" -cpu "$cpu" -nographic \
            -kernel "$dir/zephyr/zephyr.elf" 2>&1 | tr -d '\r' |
        sed 's/\x1b\[[0-9;]*[a-zA-Z]//g' >"$log"
    grep -aq 'syn run at boot: ok' "$log" && ok "$board run at boot" || bad "$board run at boot" "$log"
    grep -aq 'isr and thread: ok' "$log" && ok "$board C API from an ISR and a thread at once" ||
        bad "$board C API from an ISR and a thread" "$log"
    n=$(grep -ac "output equals the host's" "$log")
    [ "$n" -ge 2 ] && ok "$board syn run: output equals the host's" ||
        bad "$board syn run" "$n matching runs in $log"
    grep -aq "^arena $arena B, usable $arena B" "$log" &&
        grep -aqE "^scratch +[0-9]+ +$scratch +[0-9]+" "$log" &&
        grep -aqE '^region +used +capacity +peak' "$log" &&
        ok "$board syn mem stats: arena $arena B, scratch pool $scratch B" ||
        bad "$board syn mem stats" "no table with arena $arena / scratch $scratch in $log"
    grep -aq 'ephemeral tensors and scratch reclaimed' "$log" &&
        [ "$(grep -aE '^ephemeral ' "$log" | tail -1 | awk '{print $2}')" = 0 ] &&
        ok "$board syn mem reset" || bad "$board syn mem reset" "$log"
    grep -aq 'FAULT' "$log" && bad "$board no fault" "$log"
    grep -a "syn run:\|^isr:" "$log" | sed "s|^|  $board: |" | sort -u | head -8
done

# A bad configuration fails the configure step, with the reason.
bad_cfg() {
    local name=$1 want=$2
    shift 2
    local dir=$out/bad-$name
    rm -rf "$dir"
    if cmake -B "$dir" -GNinja -DBOARD=qemu_cortex_m3 -DBUILD_VERSION=synaptic "$@" \
        zephyr/samples/syn_run >"$dir.log" 2>&1; then
        bad "configure refuses $name" "cmake succeeded"
    elif grep -q "$want" "$dir.log"; then
        ok "configure refuses $name"
    else
        tail -20 "$dir.log"
        bad "configure refuses $name" "message '$want' missing"
    fi
}
bad_cfg arena-out-of-range 'outside the active range (\[4096, 524288\])' \
    -DCONFIG_SYNAPTIC_TENSOR_ARENA_SIZE=1000
bad_cfg scratch-not-below-arena 'must be smaller than the arena' \
    -DCONFIG_SYNAPTIC_TENSOR_ARENA_SIZE=8192 -DCONFIG_SYNAPTIC_SCRATCH_POOL_SIZE=8192
echo "zephyr: $((SECONDS - start)) s"
exit $failed
