#!/usr/bin/env bash
# Prints TFLM's kernel scratch per operator of MODEL (one byte count a line, execution order),
# measured with TFLM's own wheel (reference kernels) in the oracle venv (scripts/oracle-venv.sh,
# created if missing): the table `synmem emit MODEL --lang tflite --scratch-table FILE` plans
# holes for. Other kernel libraries (CMSIS-NN, …) ask for other amounts: measure with those.
#   scripts/tflm-scratch-table.sh MODEL > MODEL.scratch
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 MODEL.tflite" >&2; exit 2; }
model="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
py="$(scripts/oracle-venv.sh)"
exec "$py" crates/synaptic-plan/tests/tflm/tflm_plan_oracle.py scratch "$model"
