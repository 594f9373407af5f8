#!/usr/bin/env bash
# Creates (if missing) the Python venv holding TFLM's own wheel, the oracle of synaptic-run's
# bit-exactness tests: <repo>/.venv-oracle (git-ignored). Prints the venv's python path.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${ORACLE_VENV:-$root/.venv-oracle}"
# The wheel the oracle figures were checked with (TFLM's reference kernels, nightly build).
spec="tflite-micro==0.dev20261023182759"
if ! "$venv/bin/python" -c 'import tflite_micro, numpy' >/dev/null 2>&1; then
    echo "oracle-venv: creating $venv (pip install $spec)" >&2
    "$root/scripts/make-venv.sh" "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "$spec" >&2
fi
echo "$venv/bin/python"
