"""Shared fixtures of the synaptic_mem pytest suite (scripts/test-python.sh runs it in a fresh
venv where the built wheel is installed beside numpy, pytest and TFLM's tflite-micro wheel).

The shared models and inputs come from ``$SYNAPTIC_SHARED`` (default: ``../shared`` beside
the repository); a missing directory fails the suite, never skips it. ``synmem`` is the
console script the wheel installed (``<venv>/bin/synmem``), never the source tree's binary.
"""

import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
SHARED = pathlib.Path(os.environ.get("SYNAPTIC_SHARED", REPO.parent / "shared")).resolve()
MODELS_DIR = SHARED / "models"
INPUTS_DIR = SHARED / "inputs"
MODELS = sorted(MODELS_DIR.glob("*.tflite"))

if not MODELS:
    raise SystemExit(f"no shared models in {MODELS_DIR} (set SYNAPTIC_SHARED)")

SYNMEM = pathlib.Path(sys.prefix) / "bin" / "synmem"


def model_id(p):
    return p.stem


def synmem(*args, check=True):
    """Runs the installed `synmem` console script; returns the CompletedProcess."""
    if not SYNMEM.exists():
        raise AssertionError(f"{SYNMEM}: the wheel did not install the synmem console script")
    r = subprocess.run([str(SYNMEM), *map(str, args)], capture_output=True)
    if check and r.returncode != 0:
        raise AssertionError(f"synmem {' '.join(map(str, args))}: exit {r.returncode}: {r.stderr.decode()}")
    return r


def supported_models():
    """The shared models synaptic-run runs (the planner says so: ram.supported)."""
    import synaptic_mem

    return [m for m in MODELS if synaptic_mem.plan(m).ram["supported"]]


@pytest.fixture(scope="session")
def models():
    return MODELS
