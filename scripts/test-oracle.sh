#!/usr/bin/env bash
# Bit-exactness of synaptic-run against TensorFlow Lite Micro, live: creates the oracle venv
# (TFLM's wheel, scripts/oracle-venv.sh) if it is missing, then runs the oracle tests of
# crates/synaptic-run (every operator of the shared models and of the single-operator models
# in crates/synaptic-run/tests/models, on seeded random and real inputs). Needs ../shared.
# Extra arguments go to the test binary (e.g. `scripts/test-oracle.sh person_detect`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export ORACLE_PYTHON="$(scripts/oracle-venv.sh)"
cargo test --release -p synaptic-run --features oracle --test oracle -- --nocapture "$@"
