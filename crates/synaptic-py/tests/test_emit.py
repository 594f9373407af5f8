"""emit() against `synmem emit` (the installed console script): the same bytes, for C, Rust
and TFLM's offline plan, on a supported and an unsupported model, with several options."""

import pytest

import synaptic_mem
from conftest import MODELS_DIR, synmem

CASES = [
    # (model, Python kwargs, CLI flags)
    ("hello_world_int8", {"lang": "c"}, ["--lang", "c"]),
    ("hello_world_int8", {"lang": "c", "with_model": True}, ["--lang", "c", "--with-model"]),
    ("hello_world_int8", {"lang": "rust", "op_data": "ram"}, ["--lang", "rust", "--op-data", "ram"]),
    ("micro_speech_quantized", {"lang": "c", "isa": "dsp"}, ["--lang", "c", "--isa", "dsp"]),
    ("micro_speech_quantized", {"lang": "rust", "isa": "portable"}, ["--lang", "rust", "--isa", "portable"]),
    ("person_detect", {"lang": "rust"}, ["--lang", "rust"]),
    ("person_detect", {"lang": "c", "io": "plan", "overlap": False}, ["--lang", "c", "--io", "plan", "--no-overlap"]),
    ("person_detect", {"lang": "tflite"}, ["--lang", "tflite"]),
    ("person_detect", {"lang": "tflite", "kernels": "cmsis-nn"}, ["--lang", "tflite", "--kernels", "cmsis-nn"]),
    ("kws_ref_model", {"lang": "tflite", "strategy": "greedy"}, ["--lang", "tflite", "--strategy", "greedy"]),
    # synaptic-run cannot run it (a hybrid model, as TFLM): the plan alone, as the CLI does.
    ("kws_ref_model_float32", {"lang": "c"}, ["--lang", "c"]),
    # TFLM's signal library (custom operators).
    ("audio_preprocessor_int8", {"lang": "c"}, ["--lang", "c"]),
    ("audio_preprocessor_float", {"lang": "tflite"}, ["--lang", "tflite"]),
]


@pytest.mark.parametrize("name,kwargs,flags", CASES, ids=[f"{c[0]}-{'-'.join(c[2][1:])}" for c in CASES])
def test_emit_equals_cli(tmp_path, name, kwargs, flags):
    m = MODELS_DIR / f"{name}.tflite"
    out = tmp_path / "out"
    synmem("emit", m, "-o", out, *flags)
    want = out.read_bytes()
    if kwargs["lang"] != "tflite" and not synaptic_mem.plan(m).ram["supported"]:
        # The CLI's stderr note, as a Python warning.
        with pytest.warns(UserWarning, match="no program emitted"):
            got = synaptic_mem.emit(m, **kwargs)
    else:
        got = synaptic_mem.emit(m, **kwargs)
    if kwargs["lang"] == "tflite":
        assert isinstance(got, bytes)
        assert got == want
        # And the planner reads the result back as a model.
        assert synaptic_mem.plan(got, name=name).tensors == synaptic_mem.plan(m).tensors
    else:
        assert isinstance(got, str)
        assert got.encode() == want


def test_emit_errors():
    m = MODELS_DIR / "hello_world_int8.tflite"
    with pytest.raises(ValueError):
        synaptic_mem.emit(m, lang="go")
    with pytest.raises(ValueError):
        synaptic_mem.emit(m, lang="rust", with_model=True)
    with pytest.raises(ValueError):
        synaptic_mem.emit(m, lang="c", kernels="reference")
    # An explicit op_data="flash" for a model synaptic-run cannot compile: the runtime's reason.
    with pytest.raises(synaptic_mem.LoadError) as e:
        synaptic_mem.emit(MODELS_DIR / "kws_ref_model_float32.tflite", lang="c", op_data="flash")
    assert e.value.kind == "Operator"
    with pytest.raises(synaptic_mem.PlanError):
        synaptic_mem.emit(b"\x00" * 64, lang="c")
