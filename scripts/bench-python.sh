#!/usr/bin/env bash
# Interpreter.invoke on a model (default: person_detect) from Python, in-process over many
# invocations, against the same inference through the Rust API (crates/synaptic-py/bench:
# the same plan, program, exact arena and `Interpreter::invoke` with its copies in and out),
# also in-process; prints both, the ratio, and the import time. Measures, asserts nothing (the
# issue's goal: Python within 10 % of Rust). The machine is shared, so the two sides run in
# alternating rounds and the minimum batch of each side is the figure (noise only adds time);
# the medians are printed too. Builds the wheel's test venv (scripts/test-python.sh) if it is
# missing.
#
#   scripts/bench-python.sh [MODEL.tflite] [INVOCATIONS per batch] [BATCHES per round] [ROUNDS]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
crate="$root/crates/synaptic-py"
shared="${SYNAPTIC_SHARED:-$root/../shared}"
model="${1:-$shared/models/person_detect.tflite}"
n="${2:-100}"
batches="${3:-5}"
rounds="${4:-4}"
venv="$crate/target/test-venv"
if ! "$venv/bin/python" -c 'import synaptic_mem, numpy' 2>/dev/null; then
    echo "bench-python: no test venv, building it (scripts/test-python.sh -k import_time)" >&2
    "$root/scripts/test-python.sh" -k import_time >&2
fi
export PYO3_PYTHON="$root/.venv-python-build/bin/python"
(cd "$crate" && nice cargo build --release -q -p synaptic-py-bench)
echo "bench-python: $(basename "$model"): $rounds rounds x $batches batches x $n invocations per side, $(nproc) cores"
"$venv/bin/python" - "$model" "$n" "$batches" "$rounds" "$crate/target/release/synaptic-py-bench" <<'PY'
import statistics, subprocess, sys, time
t = time.perf_counter()
import synaptic_mem
t_import = time.perf_counter() - t
t = time.perf_counter()
import numpy as np
t_numpy = time.perf_counter() - t
model, n, batches, rounds, rust_bin = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
it = synaptic_mem.Interpreter(model)
rng = np.random.default_rng(1)
xs = []
for d in it.inputs:
    if d.dtype == np.float32:
        xs.append(rng.uniform(-1, 1, d.shape).astype(np.float32))
    else:
        info = np.iinfo(d.dtype)
        xs.append(rng.integers(info.min, info.max, d.shape, dtype=d.dtype, endpoint=True))
for _ in range(20):
    it.invoke(*xs)
py, rust = [], []
for r in range(rounds):
    out = subprocess.run([rust_bin, model, str(n), str(batches)], check=True, capture_output=True, text=True).stdout
    rust += [float(v) for v in out.split(":", 1)[1].split()]
    for _ in range(batches):
        t = time.perf_counter()
        for _ in range(n):
            it.invoke(*xs)
        py.append((time.perf_counter() - t) * 1e6 / n)
for name, v in (("rust", rust), ("python", py)):
    print(f"{name + ' invoke:':<16}{min(v):>9.1f} us min, {statistics.median(v):9.1f} us median of {len(v)} batches of {n}")
ratio = min(py) / min(rust)
print(f"python / rust: {ratio:.3f} ({100 * (ratio - 1):+.1f} %) of the minimums, "
      f"{statistics.median(py) / statistics.median(rust):.3f} of the medians; the issue asks for within 10 %")
print(f"import synaptic_mem: {1000 * t_import:.1f} ms (numpy, which it imports on first use: {1000 * t_numpy:.1f} ms)")
PY
