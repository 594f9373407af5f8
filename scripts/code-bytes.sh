#!/usr/bin/env bash
# Where the flash goes, and what a size-first build costs in speed (issue 40): writes
# docs/code-bytes.generated.md.
#
# For each of the five shared models' Cortex-M4 (mps2-an386) firmware, at the library's
# opt-level 3 (the bench's), "s" and "z" (fat LTO and one codegen unit each time):
#   - the runtime code of its deploy image (scripts/runtime-code-bytes.py: the bench's `flash`
#     line; the image is run and must print `deploy ok`);
#   - the instructions of one inference of its bench image (the bench's `run` line), whose
#     checksum must be the opt-level 3 image's;
# then, for hello_world_int8 and person_detect at opt-level 3, where the bytes go
# (scripts/code-by-module.py: by module, by function with its monomorphised copies).
#
#   scripts/code-bytes.sh [--out FILE]        (MODELS="..." for fewer models; ~15 minutes)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
out_md=$root/docs/code-bytes.generated.md
[ "${1:-}" = "--out" ] && out_md=$2
models=${MODELS:-"hello_world_int8 micro_speech_quantized kws_ref_model person_detect pretrainedResnet_quant"}
levels="3 s z"
log=$root/target/code-bytes
rm -rf "$log"
mkdir -p "$log"
cd firmware/runtime
bins=()
for m in $models; do bins+=(--bin "$m"); done
target=thumbv7em-none-eabihf
for lvl in $levels; do
  cfg=()
  for p in "" .package.synaptic-run .package.synaptic-mem .package.synaptic-tflite; do
    cfg+=(--config "profile.release$p.opt-level=$([ "$lvl" = 3 ] && echo 3 || echo "\"$lvl\"")")
  done
  for kind in bench deploy; do
    feat=mps2-an386
    [ "$kind" = deploy ] && feat=mps2-an386,deploy
    dir=target/code-bytes-$lvl-$kind
    echo "code-bytes: building $kind images at opt-level $lvl" >&2
    SYNAPTIC_REPEAT=0 cargo build --release -q --no-default-features --features "$feat" --target "$target" \
      "${bins[@]}" --target-dir "$dir" "${cfg[@]}"
    for m in $models; do
      elf=$dir/$target/release/$m
      if [ "$kind" = deploy ]; then
        o=$(timeout 600 ./qemu-run.sh mps2-an386 "$elf" </dev/null 2>&1)
        [ "$o" = "deploy ok" ] || { echo "$m: deploy image at opt-level $lvl: $o" >&2; exit 1; }
        echo "flash $m $lvl $(python3 "$root/scripts/runtime-code-bytes.py" "$elf" "$m")" >>"$log/lines"
        if [ "$lvl" = 3 ]; then
          cp "$elf" "$log/$m.elf"
        fi
      else
        timeout 1800 ./qemu-run.sh mps2-an386 "$elf" </dev/null >"$log/$m.$lvl" 2>&1 || true
        grep -q "^check $m ok" "$log/$m.$lvl" || { cat "$log/$m.$lvl" >&2; exit 1; }
        awk -v m="$m" -v l="$lvl" '$1 == "run" && $2 == m { print "run", m, l, $3, $5 }' "$log/$m.$lvl" >>"$log/lines"
      fi
    done
  done
done
cd "$root"
commit="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates firmware || echo ' + local changes')"
python3 - "$log/lines" "$models" "$commit" >"$out_md.tmp" <<'EOF'
import sys
lines, models = open(sys.argv[1]).read().split("\n"), sys.argv[2].split()
flash, run, check = {}, {}, {}
for l in lines:
    f = l.split()
    if not f:
        continue
    if f[0] == "flash":
        flash[(f[1], f[2])] = int(f[3])
    elif f[0] == "run":
        run[(f[1], f[2])] = int(f[3])
        check[(f[1], f[2])] = f[4]
for m in models:
    for lvl in "sz":
        if check.get((m, lvl)) != check.get((m, "3")):
            sys.exit(f"{m}: the opt-level {lvl} image's checksum differs from opt-level 3's")
print("# Flash: where the runtime's code goes (generated)\n")
print(f"Written by `scripts/code-bytes.sh` at commit {sys.argv[3]}; do not edit. Cortex-M4 (`thumbv7em-none-eabihf`,")
print("QEMU mps2-an386) firmware of `firmware/runtime`, fat LTO, one codegen unit, panic abort.")
print("**Runtime code**: the code symbols of the model's `deploy` image (what a product links:")
print("the model's kernels only, its program in flash, one inference, no message formatted)")
print("less the board support, as the bench's `flash` line (`scripts/runtime-code-bytes.py`);")
print("**instructions**: one inference of the bench image built the same way (the bench's `run`")
print("line; every opt-level's output checksum equal).\n")
print("| model | code, opt 3 | code, opt s | code, opt z | instr, opt 3 | instr, opt s | instr, opt z | s ÷ 3 code | s ÷ 3 instr | z ÷ 3 code | z ÷ 3 instr |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for m in models:
    c = [flash[(m, l)] for l in "3sz"]
    r = [run[(m, l)] for l in "3sz"]
    print(f"| {m} | " + " | ".join(f"{x:,}" for x in c + r)
          + f" | {c[1]/c[0]:.2f} | {r[1]/r[0]:.2f} | {c[2]/c[0]:.2f} | {r[2]/r[0]:.2f} |")
print()
EOF
for m in hello_world_int8 person_detect; do
  case " $models " in *" $m "*) ;; *) continue ;; esac
  {
    echo "## $m, opt-level 3: by module and by function"
    echo
    python3 scripts/code-by-module.py "$log/$m.elf" "$m" --markdown --top 20
  } >>"$out_md.tmp"
done
mv "$out_md.tmp" "$out_md"
echo "code-bytes: wrote $out_md" >&2
