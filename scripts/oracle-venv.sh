#!/usr/bin/env bash
# Creates (if missing) the Python venv holding TFLM's own wheel, the oracle of synaptic-run's
# bit-exactness tests: <repo>/.venv-oracle (git-ignored). Prints the venv's python path.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${ORACLE_VENV:-$root/.venv-oracle}"
if ! "$venv/bin/python" -c 'import tflite_micro, numpy' >/dev/null 2>&1; then
    echo "oracle-venv: creating $venv (pip install tflite-micro)" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check tflite-micro >&2
fi
echo "$venv/bin/python"
