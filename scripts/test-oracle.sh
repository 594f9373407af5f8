#!/usr/bin/env bash
# Bit-exactness of synaptic-run against TensorFlow Lite Micro, live: creates the oracle venv
# (TFLM's wheel, scripts/oracle-venv.sh) if it is missing, then runs the oracle tests of
# crates/synaptic-run (every operator of the shared models and of the single-operator models
# in crates/synaptic-run/tests/models, on seeded random and real inputs), and checks the
# committed golden files (crates/synaptic-run/tests/golden) against the live TFLM dumps: a
# disagreement fails. Needs ../shared.
#
#   SYNAPTIC_GOLDEN=update scripts/test-oracle.sh     # rewrite the golden files from TFLM
#
# Extra arguments go to the test binary (e.g. `scripts/test-oracle.sh arena_person_detect`;
# the golden files come from `shared_models` and `single_operator_models`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export ORACLE_PYTHON="$(scripts/oracle-venv.sh)"
cargo test --release -p synaptic-run --features oracle --test oracle -- --nocapture "$@"
