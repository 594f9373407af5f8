#!/usr/bin/env bash
# The Python package `synaptic_mem` (crates/synaptic-py, docs/python.md), end to end:
#   1. the crate's rustfmt --check and clippy (-D warnings), outside the root workspace, and
#      Miri on its one unsafe module (crates/synaptic-py/miri);
#   2. crates/synaptic-py/build-wheel.sh: a build venv with maturin (.venv-python-build, made
#      if missing), the real `synmem` binary (cargo build --release -p synmem), stripped, into
#      the wheel's <name>.data/scripts (the console script), `maturin build` of the one abi3
#      wheel;
#   3. a FRESH venv (crates/synaptic-py/target/test-venv, re-made every run) where the built
#      wheel file is pip-installed beside numpy, pytest and TFLM's tflite-micro wheel (the
#      oracle's pinned version, scripts/oracle-venv.sh);
#   4. the pytest suite (crates/synaptic-py/tests): Interpreter.invoke bit-exact with TFLM
#      (outputs and every intermediate tensor) on every shared model synaptic-run runs,
#      plan() == `synmem plan --json` and emit() == `synmem emit` through the installed
#      console script, bad input raising the right exception, the issue's one-liner on every
#      shared model; and the import time.
# Needs ../shared ($SYNAPTIC_SHARED overrides it). Package registries only (PyPI, crates.io).
# Extra arguments go to pytest (e.g. `scripts/test-python.sh -k tflm`).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
crate="$root/crates/synaptic-py"
say() { printf 'test-python: %s\n' "$*"; }
t0=$SECONDS

# TFLM's wheel as the oracle pins it.
tflm_spec="$(sed -n 's/^spec="\(tflite-micro==[^"]*\)"$/\1/p' "$root/scripts/oracle-venv.sh")"
[ -n "$tflm_spec" ] || { echo "test-python: no tflite-micro pin in scripts/oracle-venv.sh" >&2; exit 1; }

# The build venv (maturin), the synmem binary and the wheel: crates/synaptic-py/build-wheel.sh.
say "rustfmt --check (crates/synaptic-py, its own workspace: the root's cargo fmt does not reach it)"
(cd "$crate" && rustfmt --edition 2021 --check src/lib.rs bench/src/main.rs miri/lib.rs)
wheel="$("$crate/build-wheel.sh")"
export PYO3_PYTHON="$root/.venv-python-build/bin/python"
say "clippy -D warnings"
(cd "$crate" && CARGO_TERM_COLOR=never nice cargo clippy --release --all-targets -q -- -D warnings)

# The crate's one unsafe module (src/owned.rs, free of PyO3) under Miri (crates/synaptic-py/miri:
# load, invoke, poison, move and drop in every configuration). x86_64 here; MIRI_I686=1 adds
# i686 (about a minute each; the nightly Miri component is installed by scripts/test's setup).
say "Miri: src/owned.rs (x86_64${MIRI_I686:+ and i686})"
(cd "$crate/miri" && MIRIFLAGS="-Zmiri-strict-provenance" nice cargo +nightly miri test -q \
    --target-dir "$root/target/miri-py")
if [ -n "${MIRI_I686:-}" ]; then
    (cd "$crate/miri" && MIRIFLAGS="-Zmiri-strict-provenance" nice cargo +nightly miri test -q \
        --target i686-unknown-linux-gnu --target-dir "$root/target/miri-py")
fi


venv="$crate/target/test-venv"
say "fresh venv $venv: pip install $(basename "$wheel") numpy pytest $tflm_spec"
rm -rf "$venv"
"$root/scripts/make-venv.sh" "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "$wheel" numpy pytest "$tflm_spec"

say "import time"
"$venv/bin/python" - <<'PY'
import subprocess, sys, time
def best(code):
    ts = []
    for _ in range(5):
        t = time.perf_counter(); subprocess.run([sys.executable, "-c", code], check=True); ts.append(time.perf_counter() - t)
    return min(ts)
bare, imp = best("pass"), best("import synaptic_mem")
t = time.perf_counter(); import synaptic_mem; inproc = time.perf_counter() - t
print(f"test-python: import synaptic_mem: {1000 * inproc:.1f} ms in-process; "
      f"python -c 'import synaptic_mem' {1000 * imp:.0f} ms vs python -c pass {1000 * bare:.0f} ms")
PY

say "pytest crates/synaptic-py/tests"
cd "$crate/tests"
"$venv/bin/python" -m pytest -p no:cacheprovider -q -rfE --durations=5 "$@"
say "done in $((SECONDS - t0)) s"
