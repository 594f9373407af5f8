#!/usr/bin/env bash
# TFLM's offline memory plans (`synmem emit --lang tflite`, synaptic_plan::tflm) and TFLM's arena
# (`kTensorArenaSize`, synaptic_plan::tflm_arena), live against
# TensorFlow Lite Micro's own wheel: creates the oracle venv (scripts/oracle-venv.sh) if it is
# missing, then, for every model of ../shared/models the wheel runs, measures TFLM's kernel
# scratch, emits the plan, and checks outputs and every activation bit-identical to the
# original model's and TFLM's reported head never above its own plan's. Prints one
# `tflm-plan | …` row per model (the before/after table of docs/tflm.md). Needs ../shared.
# By default a fast subset runs (about 75 s here: kws_ref_model, hello_world_int8, and
# keyword_scrambled and trained_lstm_int8 for kernel-scratch holes and LSTM state);
# TFLM_PLAN_ONLY=all runs every model, TFLM_PLAN_ONLY=name1,name2 the ones named. Extra
# arguments go to the test binary.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export TFLM_PLAN_ONLY="${TFLM_PLAN_ONLY:-kws_ref_model,hello_world_int8,keyword_scrambled,trained_lstm_int8}"
# kTensorArenaSize (synaptic_plan::tflm_arena) against TFLM measured on a 32-bit Cortex-M4
# (tests/tflm/m4_arena.txt; no Python, well under a second), and `synmem emit --kernels`.
cargo test --release -p synaptic-plan --test tflm_arena
cargo test --release -p synmem --test tflm_emit
# The before/after table the docs cite (docs/tflm-heads.generated.md) is the tool's output now.
scripts/tflm-heads.sh --check
export ORACLE_PYTHON="$(scripts/oracle-venv.sh)"
cargo test --release -p synaptic-plan --features oracle --test tflm_oracle -- --nocapture "$@"
