#!/usr/bin/env bash
# synaptic-run's Interpreter on QEMU's Cortex-M3, against TFLM's figures. From the repository
# root:
#
#   scripts/bench-runtime.sh                 # the five int8 models and the three float ones
#   MODELS="hello_world_int8 micro_speech_quantized" scripts/bench-runtime.sh
#
# Builds firmware/runtime for lm3s6965evb (hello_world_int8, micro_speech_quantized;
# hello_world_float) and mps2-an385 (kws_ref_model, person_detect, pretrainedResnet_quant;
# ad01_fp32, pretrainedResnet), the float images apart with the float32 kernels (Cortex-M3
# soft-float); each image embeds its
# model from ../shared/models (SYNAPTIC_MODELS=<dir> to change), a plan computed on the host at
# build time and the output the host computed for the input `synmem run --random 1` makes. On
# target it runs one inference with graph I/O in the plan and one with I/O in the SHARED
# region, checks both outputs against the host's, replays the arena's own calls alone, and
# exits 0 only if everything matches. The script checks the printed checksum once more
# against `synmem run --random 1 --io plan --output` on this machine.
#
# Each image embeds the model's compiled program (synaptic_run::program, the per-operator data)
# in flash and loads with it (Interpreter::with_program: no per-operator RAM); it also runs the
# RAM-program variant (Interpreter::new compiles the program at load into the arena).
#
# The plans are overlapped (issue 12: outputs overlap dying inputs as the kernels' access
# contracts allow; those operators run overlapped); each image also runs the plain plan
# (`--no-overlap`, the figures before issue 12) and checks its output equal.
#
# Then the five int8 models again on a Cortex-M4F (QEMU mps2-an386, thumbv7em-none-eabihf,
# target-cpu=cortex-m4; CPUS=m3 leaves it out), checked the same way and against the M3's
# checksum, with a table against TFLM + CMSIS-NN on that machine; and on a Cortex-M7 (QEMU
# mps2-an500, target-cpu=cortex-m7) and a Cortex-M33 with the DSP extension (QEMU mps2-an505,
# Secure state, thumbv8m.main-none-eabihf, target-cpu=cortex-m33), each with its own table
# (CPUS without m7 or m33 leaves it out).
#
# Output, per model (each figure line ends with its CPU, m3, m4, m7 or m33):
#   run <model> <instructions-per-inference> <ram-bytes> <output-checksum>     (program in flash)
#   state <model> <bytes>
#   ram-program <model> <instructions-per-inference> <ram-bytes> <output-checksum>
#   plain <model> <instructions-per-inference> <ram-bytes>     (the plain plan, program in flash)
#   jitter <model> <max - min> runs <n> min <instructions> max <instructions>
#                      (the first inference repeated: REPEAT=100 times, the float images 5)
#   flash <model> <runtime-code-bytes>    (no model, program, constants or board support)
#   load <model> <instructions>  (Interpreter creation to ready, program in flash; also on m4)
#   stack <model> load <bytes> invoke <bytes>   (stack high-water marks, painted; also on m4)
#                      (of the model's `deploy` image: what a product links, see below)
# then the other figures (shared-I/O RAM and instructions, arena calls, arena sizes, QEMU wall
# time) and a comparison table with TFLM. ram-bytes = persistent (plan descriptors; with the
# RAM program also the program) + planned activations + scratch (0) + shared (0 with I/O in
# the plan): the exact need. The arena the core accepts today (Kconfig floors: arena >= 4096 B,
# scratch pool >= 1024 B) is printed on the `arena` line.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)
source "$root/scripts/firmware-deps.sh"

all="hello_world_int8 micro_speech_quantized kws_ref_model person_detect pretrainedResnet_quant
  trained_lstm_int8 keyword_scrambled_8bit keyword_scrambled micro_speech_lstm dtln_noise_suppression
  audio_preprocessor_int8"
# The float32 models: their images alone are built with the runtime's float32 kernels
# (feature float32), so the int8 images above keep their flash.
float="hello_world_float ad01_fp32 pretrainedResnet trained_lstm audio_preprocessor_float"
models=${MODELS:-$all $float}
seed=${SYNAPTIC_SEED:-1}
export SYNAPTIC_SEED=$seed

board_of() {
  case "$1" in
    kws_ref_model | person_detect | pretrainedResnet_quant | ad01_fp32 | pretrainedResnet | micro_speech_lstm | \
      dtln_noise_suppression) echo mps2-an385 ;;
    *) echo lm3s6965 ;;
  esac
}
is_float() { case " $float " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# The image's target directory: per board, and apart for the float images.
dir_of() { if is_float "$1"; then echo "$(board_of "$1")-f32"; else board_of "$1"; fi; }

need_lm3s=0
need_mps2=0
float_lm3s=()
float_mps2=()
for m in $models; do
  b=$(board_of "$m")
  if is_float "$m"; then
    if [ "$b" = mps2-an385 ]; then float_mps2+=(--bin "$m"); else float_lm3s+=(--bin "$m"); fi
  elif [ "$b" = mps2-an385 ]; then need_mps2=1; else need_lm3s=1; fi
done

cargo build --release -q -p synmem
synmem="$root/target/release/synmem"

# image <model> <the bench image's text, as arm-none-eabi-size counts it: vectors, code, model,
# program, constants>.
image_line() {
  printf 'image %s %s\n' "$2" "$(arm-none-eabi-size -A "$1" | awk '$1 == ".vector_table" || $1 == ".text" || $1 == ".rodata" { t += $2 } END { print t }')"
}

# flash <model> <runtime code bytes> of the model's deploy image (firmware/runtime feature
# `deploy`: what a product links, the model's kernels only, loaded with its program in flash,
# one inference, the output checked, no figure or error formatted; it must print
# `deploy ok`). scripts/runtime-code-bytes.py: the code of the runtime and what it pulls from
# core, without the model, the program, any constant or the board support. The bench images
# link more: both load paths, both I/O placements, the observer, the replay, the printing.
# deploy_lines <board> <target> <target-dir> <model>...
deploy_lines() {
  local board=$1 target=$2 dir=$3
  shift 3
  for m in "$@"; do
    local elf="target/$dir/$target/release/$m" out
    set +e
    out=$(timeout 1800 ./qemu-run.sh "$board" "$elf" </dev/null 2>&1)
    local rc=$?
    set -e
    if [ "$rc" -ne 0 ] || [ "$out" != "deploy ok" ]; then
      echo "$out" >&2
      echo "$m: its deploy image FAILED on $board (QEMU exit $rc)" >&2
      fail=1
      continue
    fi
    printf 'flash %s %s\n' "$m" "$(python3 "$root/scripts/runtime-code-bytes.py" "$elf" "$m")"
  done
}

# Every int8 image repeats its first inference REPEAT more times (the jitter line); the float
# images (soft-float: up to 1.4 G instructions an inference) REPEAT_FLOAT times.
repeat=${REPEAT:-100}
repeat_float=${REPEAT_FLOAT:-5}
export SYNAPTIC_REPEAT=$repeat
cd "$root/firmware/runtime"
t0=$(date +%s)
if [ "$need_lm3s" = 1 ]; then
  cargo build --release -q --target-dir target/lm3s6965
fi
if [ "$need_mps2" = 1 ]; then
  cargo build --release -q --no-default-features --features mps2-an385 --target-dir target/mps2-an385
fi
if [ ${#float_lm3s[@]} -gt 0 ]; then
  SYNAPTIC_REPEAT=$repeat_float cargo build --release -q --features float32 "${float_lm3s[@]}" \
    --target-dir target/lm3s6965-f32
fi
if [ ${#float_mps2[@]} -gt 0 ]; then
  SYNAPTIC_REPEAT=$repeat_float cargo build --release -q --no-default-features \
    --features mps2-an385,float32 "${float_mps2[@]}" --target-dir target/mps2-an385-f32
fi
echo "build: $(($(date +%s) - t0)) s" >&2

log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
fail=0
for m in $models; do
  b=$(board_of "$m")
  elf="target/$(dir_of "$m")/thumbv7m-none-eabi/release/$m"
  start=$(date +%s.%N)
  set +e
  timeout 1800 ./qemu-run.sh "$b" "$elf" </dev/null >"$log/$m" 2>"$log/$m.err"
  rc=$?
  set -e
  end=$(date +%s.%N)
  printf 'qemu-seconds %s %.2f\n' "$m" "$(echo "$end - $start" | bc)" >>"$log/$m"
  image_line "$elf" "$m" >>"$log/$m"
  if [ "$rc" -ne 0 ] || ! grep -q "^check $m ok" "$log/$m"; then
    cat "$log/$m" "$log/$m.err" >&2
    echo "$m: FAILED on target (QEMU exit $rc)" >&2
    fail=1
    continue
  fi
  # The host once more, through the CLI.
  "$synmem" run "$root/../shared/models/$m.tflite" --random "$seed" --io plan \
    --output "$log/$m.out" >/dev/null
  host=$(python3 -c '
import sys
h = 0x811C9DC5
for b in open(sys.argv[1], "rb").read():
    h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
print("%08x" % h)' "$log/$m.out")
  target=$(awk -v m="$m" '$1 == "run" && $2 == m { print $5 }' "$log/$m")
  if [ "$host" != "$target" ]; then
    echo "$m: target checksum $target differs from synmem run's $host" >&2
    fail=1
  fi
  plain=$(awk -v m="$m" '$1 == "plain-checksum" && $2 == m { print $3 }' "$log/$m")
  if [ "$plain" != "$target" ]; then
    echo "$m: the plain plan's checksum $plain differs from the overlapped plan's $target" >&2
    fail=1
  fi
done

# The deploy images on the Cortex-M3 (mps2-an385 for every model: one build for the int8
# images, one for the float ones).
t0=$(date +%s)
int8_bins=()
float_bins=()
for m in $models; do
  if is_float "$m"; then float_bins+=(--bin "$m"); else int8_bins+=(--bin "$m"); fi
done
if [ ${#int8_bins[@]} -gt 0 ]; then
  cargo build --release -q --no-default-features --features mps2-an385,small-models,deploy \
    "${int8_bins[@]}" --target-dir target/mps2-an385-deploy
fi
if [ ${#float_bins[@]} -gt 0 ]; then
  cargo build --release -q --no-default-features \
    --features mps2-an385,small-models,float32,deploy "${float_bins[@]}" \
    --target-dir target/mps2-an385-f32-deploy
fi
echo "build (deploy, M3): $(($(date +%s) - t0)) s" >&2
for m in $models; do
  [ -f "$log/$m" ] || continue
  d=mps2-an385-deploy
  if is_float "$m"; then d=mps2-an385-f32-deploy; fi
  deploy_lines mps2-an385 thumbv7m-none-eabi "$d" "$m" >>"$log/$m"
done

# Cortex-M4F (mps2-an386, thumbv7em-none-eabihf, target-cpu=cortex-m4): every int8 model,
# the same image source and checks; CPUS="m3" leaves it out.
m4_models=""
if [[ " ${CPUS:-m3 m4} " == *" m4 "* ]]; then
  for m in $models; do is_float "$m" || m4_models="$m4_models $m"; done
fi
if [ -n "$m4_models" ]; then
  t0=$(date +%s)
  m4_bins=()
  for m in $m4_models; do m4_bins+=(--bin "$m"); done
  cargo build --release -q --no-default-features --features mps2-an386 \
    --target thumbv7em-none-eabihf "${m4_bins[@]}" --target-dir target/mps2-an386
  cargo build --release -q --no-default-features --features mps2-an386,deploy \
    --target thumbv7em-none-eabihf "${m4_bins[@]}" --target-dir target/mps2-an386-deploy
  echo "build (M4, with the deploy images): $(($(date +%s) - t0)) s" >&2
  mkdir -p "$log/m4"
  for m in $m4_models; do
    elf="target/mps2-an386/thumbv7em-none-eabihf/release/$m"
    set +e
    timeout 1800 ./qemu-run.sh mps2-an386 "$elf" </dev/null >"$log/m4/$m" 2>"$log/m4/$m.err"
    rc=$?
    set -e
    image_line "$elf" "$m" >>"$log/m4/$m"
    if [ "$rc" -ne 0 ] || ! grep -q "^check $m ok" "$log/m4/$m"; then
      cat "$log/m4/$m" "$log/m4/$m.err" >&2
      echo "$m: FAILED on the Cortex-M4 (QEMU exit $rc)" >&2
      fail=1
    fi
    deploy_lines mps2-an386 thumbv7em-none-eabihf mps2-an386-deploy "$m" >>"$log/m4/$m"
    m4sum=$(awk -v m="$m" '$1 == "run" && $2 == m { print $5 }' "$log/m4/$m")
    m3sum=$(awk -v m="$m" '$1 == "run" && $2 == m { print $5 }' "$log/$m" 2>/dev/null || true)
    if [ -n "$m3sum" ] && [ "$m4sum" != "$m3sum" ]; then
      echo "$m: the Cortex-M4's checksum $m4sum differs from the Cortex-M3's $m3sum" >&2
      fail=1
    fi
  done
fi

# More cores: the five int8 models of the TFLM table, the same image source and checks (output
# against the host's and the M3's checksum), each core's lines in $log/<cpu>/; CPUS without the
# core leaves it out.
#   other_cpu <cpu> <board> <target> <target-cpu>   (sets <cpu>_models)
other_cpu() {
  local cpu=$1 board=$2 target=$3 tcpu=$4 ms="" m
  if [[ " ${CPUS:-m3 m4 m7 m33} " == *" $cpu "* ]]; then
    for m in $models; do
      case "$m" in hello_world_int8 | micro_speech_quantized | kws_ref_model | person_detect | pretrainedResnet_quant)
        ms="$ms $m" ;;
      esac
    done
  fi
  printf -v "${cpu}_models" '%s' "$ms"
  [ -n "$ms" ] || return 0
  local t0 bins=() var elf rc sum m3sum
  t0=$(date +%s)
  for m in $ms; do bins+=(--bin "$m"); done
  # (Joined to the config's flags for the target: the later target-cpu is the one taken.)
  var="CARGO_TARGET_$(echo "$target" | tr 'a-z.-' 'A-Z__')_RUSTFLAGS"
  env "$var=-C target-cpu=$tcpu" \
    cargo build --release -q --no-default-features --features "$board" \
    --target "$target" "${bins[@]}" --target-dir "target/$board"
  echo "build ($cpu): $(($(date +%s) - t0)) s" >&2
  mkdir -p "$log/$cpu"
  for m in $ms; do
    elf="target/$board/$target/release/$m"
    set +e
    timeout 1800 ./qemu-run.sh "$board" "$elf" </dev/null >"$log/$cpu/$m" 2>"$log/$cpu/$m.err"
    rc=$?
    set -e
    if [ "$rc" -ne 0 ] || ! grep -q "^check $m ok" "$log/$cpu/$m"; then
      cat "$log/$cpu/$m" "$log/$cpu/$m.err" >&2
      echo "$m: FAILED on the $cpu (QEMU exit $rc)" >&2
      fail=1
    fi
    sum=$(awk -v m="$m" '$1 == "run" && $2 == m { print $5 }' "$log/$cpu/$m")
    m3sum=$(awk -v m="$m" '$1 == "run" && $2 == m { print $5 }' "$log/$m" 2>/dev/null || true)
    if [ -n "$m3sum" ] && [ "$sum" != "$m3sum" ]; then
      echo "$m: the $cpu's checksum $sum differs from the Cortex-M3's $m3sum" >&2
      fail=1
    fi
  done
}
# other_cpu_lines <kinds>: the lines of those kinds (`run|load|...`) of every other core's
# models, each ending with its cpu.
other_cpu_lines() {
  local cpu ms m
  for cpu in m7 m33; do
    ms="${cpu}_models"
    for m in ${!ms}; do
      [ -f "$log/$cpu/$m" ] || continue
      grep -E "^($1) $m " "$log/$cpu/$m" | sed "s/\$/ $cpu/" || true
    done
  done
}
# Cortex-M7: mps2-an500, thumbv7em-none-eabihf, target-cpu=cortex-m7.
other_cpu m7 mps2-an500 thumbv7em-none-eabihf cortex-m7
# Cortex-M33 with the DSP extension: mps2-an505 (Secure state), thumbv8m.main-none-eabihf,
# target-cpu=cortex-m33 (synaptic-run's DSP paths).
other_cpu m33 mps2-an505 thumbv8m.main-none-eabihf cortex-m33

# The C kit's int8 library as a user links it (scripts/bench-kit.sh: as shipped, and at the
# size profile `release-size` beside it), on the M4 models of the TFLM table.
kit_models=""
for m in $m4_models; do
  case "$m" in hello_world_int8 | micro_speech_quantized | kws_ref_model | person_detect | pretrainedResnet_quant)
    kit_models="$kit_models $m" ;;
  esac
done
if [ -n "$kit_models" ] && [ "${KIT:-1}" != 0 ]; then
  : >"$log/kit"
  for profile in "" release-size; do
    t0=$(date +%s)
    if ! MODELS="$kit_models" SYNAPTIC_PROFILE=$profile "$root/scripts/bench-kit.sh" >>"$log/kit"; then
      echo "the C kit's images FAILED (profile $profile)" >&2
      fail=1
    fi
    echo "kit (${profile:-as shipped}): $(($(date +%s) - t0)) s" >&2
  done
fi

# Every line ends with its CPU (m3: lm3s6965evb or mps2-an385; m4: mps2-an386; m7: mps2-an500;
# m33: mps2-an505).
for m in $models; do
  [ -f "$log/$m" ] || continue
  grep -E "^run $m " "$log/$m" | sed 's/$/ m3/' || true
  grep -E "^state $m " "$log/$m" || true
  grep -E "^ram-program $m " "$log/$m" || true
  grep -E "^plain $m " "$log/$m" || true
  grep -E "^(jitter|flash) $m " "$log/$m" | sed 's/$/ m3/' || true
done
for m in $m4_models; do
  [ -f "$log/m4/$m" ] || continue
  grep -E "^(run|ram-program|plain|jitter|flash) $m " "$log/m4/$m" | sed 's/$/ m4/' || true
done
other_cpu_lines "run|jitter|load|stack"
if [ -f "$log/kit" ]; then grep -E "^kit " "$log/kit" || true; fi
echo
echo "# kit <model> <instructions> m4: one syn_run_invoke_copy() of the C kit's int8 library as shipped (release-speed, target-cpu=cortex-m4);"
echo "# kit-load, kit-library <flash bytes kept from the library>; kit-release-size* the same at opt-level s;"
echo "# other figures: shared <model> <instructions> <ram-bytes, I/O in SHARED> <checksum>;"
echo "# arena-calls <model> <instructions of the arena's own calls of one inference, replayed alone>;"
echo "# arena <model> exact <B> accepted <B> (what the core's Kconfig floors accept) ...;"
echo "# load <model> <instructions of Interpreter::with_program (verifies the program)>;"
echo "# load-ram-program <model> <instructions of Interpreter::new (compiles it into the arena)>;"
echo "# stack <model> load <bytes> invoke <bytes> (stack high-water marks, painted: program in flash, I/O in the plan); stack-ram-program <model> load <bytes>;"
echo "# program <model> <bytes of the program in flash>; flash <model> <bytes of runtime code in its deploy image (no model, program, constants or board)>;"
echo "# image <model> <text bytes of the image, as arm-none-eabi-size>;"
echo "# jitter <model> <max - min instructions> runs <n> min <instructions> max <instructions> (the same inference repeated)"
echo "# op <model> <i> <instructions to the end of operator i>"
for m in $models; do
  [ -f "$log/$m" ] || continue
  grep -E "^(shared|arena-calls|arena|state-detail|load|load-ram-program|stack|stack-ram-program|program|flash|image|jitter|op|counter|qemu-seconds) $m " "$log/$m" || true
done
for m in $m4_models; do
  [ -f "$log/m4/$m" ] || continue
  grep -E "^(shared|load|load-ram-program|stack|stack-ram-program|flash|image|jitter) $m " "$log/m4/$m" | sed 's/$/ m4/' || true
done
if [ -f "$log/kit" ]; then grep -vE "^kit " "$log/kit" || true; fi

echo
# The comparison table, also written (full runs only, MODELS unset) to
# docs/bench-runtime.generated.md: the figures the docs cite, never copied by hand.
table=$(mktemp)
python3 - "$log" $models >"$table" <<'EOF'
import sys, os
log, models = sys.argv[1], sys.argv[2:]
tflm = {  # instructions per inference, smallest arena, live-set bound (issue 11)
    "hello_world_int8": (5450, 1068, 32),
    "micro_speech_quantized": (22731350, 6800, 5968),
    "kws_ref_model": (198688152, 22772, 16000),
    "person_detect": (525999889, 82296, 55296),
    "pretrainedResnet_quant": (824239521, 54340, 49152),
    # Float models: no TFLM instruction figure (the anchor measures the int8 models); the
    # smallest arena and the bound from ../shared/models/README.md.
    # Streaming models (state carried; their images check 10 consecutive invocations): TFLM's
    # instructions (2nd invocation, state carried) and smallest arena measured on the Cortex-M3
    # (mps2-an385, reference kernels) with the ../shared/anchors/tflm-qemu harness, its resolver
    # extended with their operators (benches/tflm-anchor: LSTM, SVDF, TFLM's signal library); outputs equal to the
    # wheel's over 3 invocations (trained_lstm: soft-float, within 1.8e-7); the bound from
    # ../shared/models/README.md (TFLM's arena holds the state too, the bound does not).
    "trained_lstm_int8": (1657002, 3224, 1344),
    "keyword_scrambled_8bit": (230783, 10400, 288),
    "keyword_scrambled": (258764, 15520, 288),
    "micro_speech_lstm": (56181076, 19016, 16528),
    "dtln_noise_suppression": (3833989, 5128, 544),
    "trained_lstm": (16359975, 7356, 5376),
    # The audio front end (TFLM's signal library), its noise estimate carried.
    "audio_preprocessor_int8": (111000, 8436, 2096),
    "audio_preprocessor_float": (110599, 7960, 2096),
    "hello_world_float": (None, 1936, 128),
    "ad01_fp32": (None, 6216, 3072),
    "pretrainedResnet": (None, 203376, 196608),
}
rows = []
print("| model | instr (ours) | instr (TFLM) | ours/TFLM | RAM exact, I/O in plan | arena accepted today | RAM, I/O in SHARED | TFLM arena | bound | overhead ours/TFLM | arena calls | state | instr, RAM program | RAM, RAM program | overhead, RAM program | instr, plain plan | RAM, plain plan | RAM ÷ TFLM arena |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
ratios = []
for m in models:
    p = os.path.join(log, m)
    if not os.path.exists(p):
        continue
    f = {}
    for line in open(p):
        w = line.split()
        if len(w) > 2 and w[1] == m:
            f[w[0]] = w[2:]
    if "run" not in f:
        continue
    n, ram = int(f["run"][0]), int(f["run"][1])
    ti, ta, lb = tflm[m]
    ov = (ram - lb) / (ta - lb)
    ratios.append(ram / ta)
    nr, rr = int(f["ram-program"][0]), int(f["ram-program"][1])
    tis, rat = (f"{ti:,}", f"{n / ti:.3f}") if ti else ("-", "-")
    print(f"| {m} | {n:,} | {tis} | {rat} | {ram:,} | {int(f['arena'][3]):,} | "
          f"{int(f['shared'][1]):,} | {ta:,} | {lb:,} | {ov:.3f} | {int(f['arena-calls'][0]):,} | {f['state'][0]} | "
          f"{nr:,} | {rr:,} | {(rr - lb) / (ta - lb):.3f} | {int(f['plain'][0]):,} | {int(f['plain'][1]):,} | {ram / ta:.3f} |")
if ratios:
    g = 1.0
    for r in ratios:
        g *= r
    g **= 1 / len(ratios)
    print(f"\noverhead = (RAM - bound) / (TFLM arena - bound), bound = the live-set bound (negative: below it); "
          f"geometric mean of RAM / TFLM arena here {g:.3f}")
# Cortex-M4F (mps2-an386) against TFLM with CMSIS-NN on the same machine
# (../shared/anchors/tflm-qemu: TFLM 90b983c2 + CMSIS-NN 4ab83cc3, -O2, cortex-m4 hard float).
nn = {  # instructions per inference, smallest arena
    "hello_world_int8": (3710, 1156),
    "micro_speech_quantized": (1495635, 6836),
    "kws_ref_model": (7698817, 22824),
    "person_detect": (22930806, 82316),
    "pretrainedResnet_quant": (29864293, 55000),
}
rows = []
for m in models:
    p = os.path.join(log, "m4", m)
    if not os.path.exists(p) or m not in nn:
        continue
    f = {}
    for line in open(p):
        w = line.split()
        if len(w) > 2 and w[1] == m:
            f[w[0]] = w[2:]
    if "run" not in f:
        continue
    rows.append((m, int(f["run"][0]), int(f["run"][1]), int(f["flash"][0]), int(f["image"][0]),
                 int(f["jitter"][0]) if "jitter" in f else None))
if rows:
    print()
    print("Cortex-M4F (mps2-an386), against TFLM + CMSIS-NN on the same machine:")
    print()
    print("| model | instr (ours, M4) | instr (TFLM+CMSIS-NN, M4) | ours ÷ CMSIS-NN | max − min, repeated | RAM exact, I/O in plan | CMSIS-NN arena | RAM ÷ arena | runtime code B (deploy image) | image B (bench image) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    g = 1.0
    for m, n, ram, fl, im, jit in rows:
        ti, ta = nn[m]
        g *= n / ti
        j = "-" if jit is None else f"{jit:,}"
        print(f"| {m} | {n:,} | {ti:,} | {n / ti:.2f} | {j} | {ram:,} | {ta:,} | {ram / ta:.3f} | {fl:,} | {im:,} |")
    print(f"\ngeometric mean of ours ÷ CMSIS-NN: {g ** (1 / len(rows)):.2f}")
# The load (Interpreter creation to ready) against TFLM's AllocateTensors on the same machines
# (../shared/anchors/tflm-qemu/README.md: TFLM + CMSIS-NN, M3 and M4), and the stack it takes.
alloc = {  # AllocateTensors instructions: (M3, M4)
    "hello_world_int8": (29763, 29359),
    "micro_speech_quantized": (41272, 41066),
    "kws_ref_model": (814444, 814311),
    "person_detect": (2889344, 2875722),
    "pretrainedResnet_quant": (558632, 559383),
}
def figures(p, m):
    f = {}
    if os.path.exists(p):
        for line in open(p):
            w = line.split()
            if len(w) > 2 and w[1] == m:
                f[w[0]] = w[2:]
    return f
# Cortex-M3 against TFLM with CMSIS-NN's plain-C paths on the same machine (what an M3 user
# ships; ../shared/anchors/tflm-qemu/README.md, CPU=m3 on mps2-an385), the reference kernels'
# figure (the first table's) beside it.
nn3 = {  # instructions per inference
    "hello_world_int8": 3892,
    "micro_speech_quantized": 1512758,
    "kws_ref_model": 10533607,
    "person_detect": 30329522,
    "pretrainedResnet_quant": 41848047,
}
rows3 = []
for m in models:
    f = figures(os.path.join(log, m), m)
    if m in nn3 and "run" in f:
        rows3.append((m, int(f["run"][0]), tflm[m][0] if m in tflm else None))
if rows3:
    print()
    print("Cortex-M3 against TFLM + CMSIS-NN (plain C, no DSP) on the same machine, and against TFLM's reference kernels:")
    print()
    print("| model | instr (ours, M3) | instr (TFLM+CMSIS-NN, M3) | ours ÷ CMSIS-NN | instr (TFLM reference, M3) | ours ÷ reference |")
    print("|---|---:|---:|---:|---:|---:|")
    g = 1.0
    for m, n, ref in rows3:
        c = nn3[m]
        g *= n / c
        r = f"{ref:,} | {n / ref:.3f}" if ref else "- | -"
        print(f"| {m} | {n:,} | {c:,} | {n / c:.2f} | {r} |")
    print(f"\ngeometric mean of ours ÷ CMSIS-NN on the M3: {g ** (1 / len(rows3)):.2f}")
# Cortex-M7 (mps2-an500) and Cortex-M33 (mps2-an505) against TFLM with CMSIS-NN on the same
# machines (../shared/anchors/tflm-qemu, CPU=m7: -mcpu=cortex-m7; CPU=m33: -mcpu=cortex-m33;
# CMSIS-NN's DSP paths on both).
nn_more = {  # instructions per inference
    "m7": ("Cortex-M7 (mps2-an500, target-cpu=cortex-m7)", "M7", {
        "hello_world_int8": 3721,
        "micro_speech_quantized": 1489690,
        "kws_ref_model": 7644549,
        "person_detect": 22718148,
        "pretrainedResnet_quant": 30027087,
    }),
    "m33": ("Cortex-M33 (mps2-an505, Secure state, target-cpu=cortex-m33: the DSP extension)", "M33", {
        "hello_world_int8": 3721,
        "micro_speech_quantized": 1481784,
        "kws_ref_model": 7681109,
        "person_detect": 22843115,
        "pretrainedResnet_quant": 29963162,
    }),
}
for cpu, (title, short, nnc) in nn_more.items():
    rows_c = []
    for m in models:
        f = figures(os.path.join(log, cpu, m), m)
        if m in nnc and "run" in f:
            rows_c.append((m, int(f["run"][0]), f.get("load", ["0"])[0], f.get("stack", [])))
    if not rows_c:
        continue
    print()
    print(f"{title}, against TFLM + CMSIS-NN on the same machine:")
    print()
    print(f"| model | instr (ours, {short}) | instr (TFLM+CMSIS-NN, {short}) | ours ÷ CMSIS-NN | load (ours, {short}) | stack load / invoke B |")
    print("|---|---:|---:|---:|---:|---:|")
    g = 1.0
    for m, n, ld, st in rows_c:
        g *= n / nnc[m]
        stk = f"{int(st[1]):,} / {int(st[3]):,}" if len(st) >= 4 else "-"
        print(f"| {m} | {n:,} | {nnc[m]:,} | {n / nnc[m]:.2f} | {int(ld):,} | {stk} |")
    print(f"\ngeometric mean of ours ÷ CMSIS-NN on the {short}: {g ** (1 / len(rows_c)):.2f}")
rows = []
for m in models:
    if m not in alloc:
        continue
    f3, f4 = figures(os.path.join(log, m), m), figures(os.path.join(log, "m4", m), m)
    if "load" not in f3 and "load" not in f4:
        continue
    rows.append((m, f3, f4))
if rows:
    print()
    print("The load (program in flash: `load`; compiled at load: `load-ram-program`) against TFLM + CMSIS-NN's AllocateTensors, and the stack (bytes, painted):")
    print()
    print("| model | load M3 | AllocateTensors M3 | ÷ TFLM | load M4 | AllocateTensors M4 | ÷ TFLM | load-ram-program M4 | ÷ TFLM | load ÷ inference M4 | stack load M4 | stack invoke M4 | stack load, RAM program M4 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    num = lambda f, k, i=0: int(f[k][i]) if k in f and len(f[k]) > i else None
    fmt = lambda v: "-" if v is None else f"{v:,}"
    ratio = lambda a, b, d=2: "-" if a is None or not b else f"{a / b:.{d}f}"
    for m, f3, f4 in rows:
        a3, a4 = alloc[m]
        l3, l4, r4, n4 = num(f3, "load"), num(f4, "load"), num(f4, "load-ram-program"), num(f4, "run")
        s = f4.get("stack", [])
        sl = int(s[1]) if len(s) > 3 else None
        si = int(s[3]) if len(s) > 3 else None
        sr = f4.get("stack-ram-program", [])
        srl = int(sr[1]) if len(sr) > 1 else None
        print(f"| {m} | {fmt(l3)} | {a3:,} | {ratio(l3, a3)} | {fmt(l4)} | {a4:,} | {ratio(l4, a4)} | "
              f"{fmt(r4)} | {ratio(r4, a4)} | {ratio(l4, n4, 3)} | {fmt(sl)} | {fmt(si)} | {fmt(srl)} |")
# The C kit's library as a user links it (scripts/bench-kit.sh), against TFLM + CMSIS-NN and
# against the Rust firmware above (the same models on the same machine).
kit = {}
kp = os.path.join(log, "kit")
if os.path.exists(kp):
    for line in open(kp):
        w = line.split()
        if len(w) == 4:
            kit[(w[0], w[1])] = int(w[2])
run4 = {}
for m in models:
    p = os.path.join(log, "m4", m)
    if os.path.exists(p):
        for line in open(p):
            w = line.split()
            if len(w) > 2 and w[0] in ("run", "load") and w[1] == m:
                run4[(w[0], m)] = int(w[2])
kms = [m for m in models if ("kit", m) in kit and m in nn]
if kms:
    print()
    print("The C kit's int8 library as a user links it (`scripts/bench-kit.sh`: `scripts/release.sh`'s library, the kit's `main.c`, plain make, mps2-an386): "
          "instructions of one `syn_run_invoke_copy()` and of `syn_run_load()`, the library's flash, as shipped (`release-speed`: opt-level 3, `target-cpu=cortex-m4`) and at `release-size` (opt-level \"s\"):")
    print()
    print("| model | kit | ÷ CMSIS-NN | ÷ Rust firmware | kit, s | ÷ CMSIS-NN | ÷ Rust firmware | load | ÷ AllocateTensors | load, s | library B | library B, s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    r = lambda a, b: "-" if a is None or not b else f"{a / b:.2f}"
    f_ = lambda v: "-" if v is None else f"{v:,}"
    gs, g3 = [], []
    for m in kms:
        k_, ks = kit.get(("kit", m)), kit.get(("kit-release-size", m))
        fw, ti = run4.get(("run", m)), nn[m][0]
        gs.append(k_ / ti)
        if ks:
            g3.append(ks / ti)
        print(f"| {m} | {f_(k_)} | {r(k_, ti)} | {r(k_, fw)} | {f_(ks)} | {r(ks, ti)} | {r(ks, fw)} | "
              f"{f_(kit.get(('kit-load', m)))} | {r(kit.get(('kit-load', m)), alloc.get(m, (0, 0))[1])} | "
              f"{f_(kit.get(('kit-release-size-load', m)))} | "
              f"{f_(kit.get(('kit-library', m)))} | {f_(kit.get(('kit-release-size-library', m)))} |")
    gm = lambda v: "-" if not v else f"{__import__('math').prod(v) ** (1 / len(v)):.2f}"
    print(f"\ngeometric mean ÷ CMSIS-NN: the kit as shipped {gm(gs)}, at opt-level s {gm(g3)}")
EOF
cat "$table"
if [ -z "${MODELS:-}" ] && [ "$fail" -eq 0 ]; then
  out="$root/docs/bench-runtime.generated.md"
  {
    echo "# synaptic-run on QEMU Cortex-M3 and Cortex-M4F: the figures of the last full bench"
    echo
    echo "Written by \`scripts/bench-runtime.sh\` (do not edit): commit $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- crates firmware || echo ' + local changes'), $(date -u +%Y-%m-%d)."
    echo "Instructions are exact (QEMU \`-icount shift=10\`, SysTick); RAM in bytes, the exact need (\`synmem plan\`'s \`ram_bytes\`);"
    echo "TFLM's figures from \`../shared/anchors/tflm-qemu/\` (reference kernels on the M3; TFLM + CMSIS-NN on the M4, the M7 and the M33)."
    echo "Each figure line ends with its CPU: m3 (lm3s6965evb or mps2-an385), m4 (mps2-an386), m7 (mps2-an500) or m33 (mps2-an505)."
    echo
    cat "$table"
    echo
    echo '```text'
    for m in $models; do
      [ -f "$log/$m" ] || continue
      grep -E "^(run|state|ram-program|plain|shared|arena|load|load-ram-program|stack|stack-ram-program|program|flash|image|jitter) $m " "$log/$m" | sed 's/$/ m3/' || true
    done
    for m in $m4_models; do
      [ -f "$log/m4/$m" ] || continue
      grep -E "^(run|ram-program|plain|shared|load|load-ram-program|stack|stack-ram-program|flash|image|jitter) $m " "$log/m4/$m" | sed 's/$/ m4/' || true
    done
    other_cpu_lines "run|ram-program|load|load-ram-program|stack|jitter"
    echo '```'
  } >"$out"
  echo "wrote $out"
fi
rm -f "$table"
exit $fail
