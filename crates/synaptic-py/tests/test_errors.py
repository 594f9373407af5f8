"""Bad input raises the right exception, with the runtime's typed reason, and neither the
interpreter object nor the process dies: truncated models, garbage bytes, wrong dtype or
shape, a float array for an int8 input, hostile (mutated) models in a child process."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import synaptic_mem
from conftest import MODELS_DIR

PERSON = MODELS_DIR / "person_detect.tflite"
HELLO = MODELS_DIR / "hello_world_int8.tflite"


def test_exception_hierarchy():
    for cls in (synaptic_mem.LoadError, synaptic_mem.RunError, synaptic_mem.PlanError):
        assert issubclass(cls, synaptic_mem.SynapticError)
    assert issubclass(synaptic_mem.SynapticError, Exception)
    assert not issubclass(synaptic_mem.LoadError, synaptic_mem.RunError)


@pytest.mark.parametrize("cut", [0, 7, 100, 4096, "half", "last"])
def test_truncated_model(cut):
    raw = PERSON.read_bytes()
    n = {"half": len(raw) // 2, "last": len(raw) - 1}.get(cut, cut)
    with pytest.raises(synaptic_mem.LoadError) as e:
        synaptic_mem.Interpreter(raw[:n])
    assert e.value.kind and e.value.detail and str(e.value)
    with pytest.raises(synaptic_mem.PlanError) as e:
        synaptic_mem.plan(raw[:n])
    assert e.value.kind


def test_garbage_bytes():
    rng = np.random.default_rng(1)
    for n in (8, 64, 1000, 100000):
        junk = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        with pytest.raises(synaptic_mem.LoadError):
            synaptic_mem.Interpreter(junk)
        with pytest.raises(synaptic_mem.PlanError):
            synaptic_mem.plan(junk)
    # The identifier right, the rest garbage.
    junk = bytearray(rng.integers(0, 256, 4096, dtype=np.uint8).tobytes())
    junk[4:8] = b"TFL3"
    with pytest.raises(synaptic_mem.LoadError):
        synaptic_mem.Interpreter(bytes(junk))


def test_unsupported_model_is_a_load_error_with_the_reason():
    with pytest.raises(synaptic_mem.LoadError) as e:
        synaptic_mem.Interpreter(MODELS_DIR / "kws_ref_model_float32.tflite")
    assert e.value.kind == "Operator"
    assert synaptic_mem.plan(MODELS_DIR / "kws_ref_model_float32.tflite").ram["unsupported"] in str(e.value)


def test_bad_inputs_then_the_interpreter_still_runs():
    it = synaptic_mem.Interpreter(PERSON, poison=3)
    x = np.random.default_rng(0).integers(-128, 128, (1, 96, 96, 1), dtype=np.int8)
    [want] = it.invoke(x)
    bad = [
        x.astype(np.float32),                      # a float array for an int8 input
        x.astype(np.uint8),                        # wrong dtype
        x.astype(np.int16),
        x.reshape(1, 96 * 96),                     # wrong shape, right size
        x[:, :48],                                 # wrong shape, wrong size
        np.zeros((1, 96, 96, 1, 1), np.int8),
        x.tolist(),                                # not an ndarray
        "not an array",
        None,
    ]
    for b in bad:
        with pytest.raises(synaptic_mem.RunError) as e:
            it.invoke(b)
        assert "input 0" in str(e.value)
    with pytest.raises(synaptic_mem.RunError):
        it.invoke()
    with pytest.raises(synaptic_mem.RunError):
        it.invoke(x, x)
    [got] = it.invoke(x)
    assert np.array_equal(got, want)
    # Non-contiguous views of the right dtype and shape are accepted (copied element-wise).
    big = np.zeros((1, 96, 192, 1), np.int8)
    big[:, :, ::2] = x
    [got] = it.invoke(big[:, :, ::2])
    assert np.array_equal(got, want)


def test_bad_interpreter_options():
    with pytest.raises(ValueError):
        synaptic_mem.Interpreter(HELLO, io="ephemeralish")
    with pytest.raises(ValueError):
        synaptic_mem.Interpreter(HELLO, op_data="rom")
    with pytest.raises(TypeError):
        synaptic_mem.Interpreter(HELLO, overlap=1)
    with pytest.raises(OSError):
        synaptic_mem.Interpreter(MODELS_DIR / "no_such_model.tflite")
    it = synaptic_mem.Interpreter(HELLO)
    with pytest.raises(IndexError):
        it.get_tensor(10**6)
    with pytest.raises(ValueError):
        it.get_tensor(it.outputs[0].index)  # not preserved


def test_hostile_models_never_kill_the_process():
    # 300 mutated copies of two real models through plan(), Interpreter() and invoke(), in a
    # child process: only synaptic_mem's exceptions may come out, and it must exit 0.
    code = textwrap.dedent(
        f"""
        import numpy as np, synaptic_mem
        rng = np.random.default_rng(24)
        counts = dict(ok=0, refused=0)
        for path in ({str(HELLO)!r}, {str(MODELS_DIR / "micro_speech_quantized.tflite")!r}):
            base = np.frombuffer(open(path, "rb").read(), np.uint8)
            for i in range(150):
                m = base.copy()
                at = rng.integers(0, len(m), rng.integers(1, 8))
                m[at] = rng.integers(0, 256, len(at))
                b = m.tobytes()
                try:
                    synaptic_mem.plan(b)
                    it = synaptic_mem.Interpreter(b, poison=i)
                    if all(d.nbytes <= 1 << 20 for d in it.inputs):
                        it.invoke(*[np.zeros(d.shape, d.dtype) for d in it.inputs])
                    counts["ok"] += 1
                except synaptic_mem.SynapticError:
                    counts["refused"] += 1
        print(counts)
        """
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    print(r.stdout.strip())


def _rss():
    import os

    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_no_leak_per_object():
    # Each Interpreter owns model bytes (300 KB), program, arena and SHARED region: 300 of them
    # leaked would be ~75 MB, 200 here. Failed loads must free what they allocated too.
    import gc

    x = np.zeros((1, 96, 96, 1), np.int8)
    raw = PERSON.read_bytes()
    for i in range(20):
        synaptic_mem.Interpreter(raw).invoke(x)
    gc.collect()
    base = _rss()
    for i in range(200):
        it = synaptic_mem.Interpreter(raw, poison=i, preserve_all_tensors=i % 2 == 0)
        if i % 10 == 0:
            it.invoke(x)
            it.reset_state()
        del it
        with pytest.raises(synaptic_mem.LoadError):
            synaptic_mem.Interpreter(raw[: len(raw) // 2])
    gc.collect()
    grown = _rss() - base
    print(f"RSS grew {grown / 2**20:.1f} MiB over 200 interpreters and 200 failed loads")
    assert grown < 20 << 20, f"RSS grew {grown >> 20} MiB over 200 interpreters"
