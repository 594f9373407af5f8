#!/usr/bin/env bash
# TFLM's head and kTensorArenaSize before and after `synmem emit --lang tflite`, for every
# shared model: writes docs/tflm-heads.generated.md (the figures docs/tflm.md and README cite).
#   scripts/tflm-heads.sh            # rewrite the file
#   scripts/tflm-heads.sh --check    # fail if the committed file differs (scripts/test-tflm-plan.sh)
# "TFLM's own head" is the figure of ../shared/models/README.md (TFLM's GreedyMemoryPlanner,
# measured with its wheel); "ours" is the head of the offline plan synmem writes; the arenas are
# synaptic_plan::tflm_arena's 32-bit figures (checked against TFLM on a Cortex-M4: docs/tflm.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
models=${SYNAPTIC_MODELS:-../shared/models}
cargo build --release -q -p synmem
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for m in "$models"/*.tflite; do
  n=$(basename "$m" .tflite)
  for k in reference cmsis-nn; do
    ./target/release/synmem emit "$m" --lang tflite --kernels "$k" -o "$out/$n.tflite" --json \
      >"$out/$n.$k.json" 2>/dev/null || echo '{}' >"$out/$n.$k.json"
  done
done
./target/release/synmem survey "$models" --json >"$out/survey.json" 2>/dev/null || true
python3 - "$out" >"$out/table.md" <<'PY'
import json, os, sys
d = sys.argv[1]
survey = {r["model"]: r for r in json.load(open(os.path.join(d, "survey.json")))}
def arena(v, key):
    a = v.get(key) or {}
    return a.get("arena")
print("# TFLM with synaptic-mem's offline plan: heads and arenas, before and after")
print()
print("Written by `scripts/tflm-heads.sh` (do not edit; `scripts/test-tflm-plan.sh` fails when it is stale).")
print("Bytes. Head: TFLM's non-persistent section (activations and kernel scratch); kTensorArenaSize:")
print("the whole arena a 32-bit TFLM build needs (head + persistent tail), TFLM's own plan → ours;")
print("`-`: an operator the arena model does not know yet (the plan is still written). Measured on a Cortex-M4 (QEMU,")
print("docs/tflm.md): the int8 models of the anchor with both kernel sets; the float rows are the formula's alone.")
print()
print("| model | TFLM's own head | our head | saved | kTensorArenaSize, reference kernels | kTensorArenaSize, CMSIS-NN |")
print("|---|---:|---:|---:|---:|---:|")
for name in sorted(survey):
    r = survey[name]
    ref = json.load(open(os.path.join(d, f"{name}.reference.json")))
    nn = json.load(open(os.path.join(d, f"{name}.cmsis-nn.json")))
    own = r.get("tflm_head_bytes")
    ours = ref.get("head_bytes")
    if own is None or ours is None:
        continue
    def pair(v):
        a, b = arena(v, "arena_32bit_tflm_own_plan"), arena(v, "arena_32bit")
        return "-" if a is None or b is None else f"{a:,} → {b:,}"
    saved = own - ours
    mark = f"**{saved:,}**" if saved > 0 else f"{saved:,}"
    print(f"| {name} | {own:,} | {ours:,} | {mark} | {pair(ref)} | {pair(nn)} |")
PY
target=docs/tflm-heads.generated.md
if [ "${1:-}" = --check ]; then
  if ! diff -u "$target" "$out/table.md"; then
    echo "$target is stale: run scripts/tflm-heads.sh" >&2
    exit 1
  fi
  echo "$target is current"
else
  cp "$out/table.md" "$target"
  cat "$target"
fi
