"""Interpreter.invoke against TFLM's own Python wheel (tflite-micro, reference kernels), bit
for bit: every graph output and every operator's output tensor (TFLM with
kPreserveAllTensors, ours with preserve_all_tensors=True), on every shared model synaptic-run
runs, on seeded random inputs (and person_detect on ../shared/inputs' two images), in several
configurations of ours (I/O in SHARED or in the plan, overlapped or plain plan, program in
flash or in RAM, a poisoned arena)."""

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from tflite_micro import runtime

import synaptic_mem
from conftest import INPUTS_DIR, MODELS_DIR, model_id, supported_models, synmem

SUPPORTED = supported_models()

# The one rule of the elements TFLM never writes (SignalEnergy's bins outside
# start_index..end_index, and a CAST of them): synaptic-run's oracle's, recorded as 0.
_spec = importlib.util.spec_from_file_location(
    "tflm_oracle", Path(__file__).resolve().parents[2] / "synaptic-run/tests/oracle/tflm_oracle.py")
_oracle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_oracle)


def tflm_tensor(ref, t, spans):
    """TFLM's bytes of tensor t, its never-written elements as 0 (what synaptic-run writes)."""
    value = np.array(ref.GetTensor(t, 0)["tensor_data"])
    if t in spans:
        lo, hi = spans[t]
        flat = value.reshape(-1)
        flat[:lo] = 0
        flat[hi:] = 0
    return np.ascontiguousarray(value).tobytes()
CONFIGS = [
    dict(io="shared", overlap=True, op_data="flash"),
    dict(io="plan", overlap=False, op_data="ram", poison=0x5EED),
    dict(io="plan", overlap=True, op_data="flash", poison=7),
]


def test_the_runtime_runs_the_oracle_models():
    # The models synaptic-run's own oracle test covers (crates/synaptic-run/tests/common/golden.rs).
    want = {"hello_world_int8", "micro_speech_quantized", "kws_ref_model", "person_detect",
            "pretrainedResnet_quant", "ad01_int8", "simple_add_model", "hello_world_float",
            "ad01_fp32", "pretrainedResnet"}
    assert want <= {m.stem for m in SUPPORTED}


def tflm(path):
    raw = path.read_bytes()
    return runtime.Interpreter.from_bytes(
        raw, arena_size=max(10 * len(raw), 4 << 20),
        intrepreter_config=runtime.InterpreterConfig.kPreserveAllTensors)


def operator_outputs(path):
    """Every operator's output tensor indices, read with TFLM's own schema module."""
    m = runtime.schema_fb.Model.GetRootAsModel(path.read_bytes(), 0)
    sg = m.Subgraphs(0)
    outs = []
    for k in range(sg.OperatorsLength()):
        op = sg.Operators(k)
        outs += [op.Outputs(j) for j in range(op.OutputsLength()) if op.Outputs(j) >= 0]
    return outs


def random_input(rng, d):
    if d.dtype == np.float32:
        return rng.uniform(-1.0, 1.0, d.shape).astype(np.float32)
    info = np.iinfo(d.dtype)
    return rng.integers(info.min, info.max, d.shape, dtype=d.dtype, endpoint=True)


def bmp_inputs(tmp_path, model):
    """person.bmp / no_person.bmp as the repository decodes them (synmem run --save-input,
    synaptic_run::bmp::gray8: TFLM's person_detection test rule)."""
    xs = []
    for name in ("person.bmp", "no_person.bmp"):
        saved = tmp_path / f"{name}.raw"
        synmem("run", model, "--input", INPUTS_DIR / name, "--save-input", saved,
               "--output", tmp_path / "out.raw")
        xs.append(np.frombuffer(saved.read_bytes(), np.int8).reshape(1, 96, 96, 1))
    return xs


@pytest.mark.parametrize("model", SUPPORTED, ids=model_id)
def test_bit_exact_with_tflm(tmp_path, model):
    ours = [synaptic_mem.Interpreter(model, preserve_all_tensors=True, **c) for c in CONFIGS]
    ref = tflm(model)
    op_outs = operator_outputs(model)
    spans = _oracle.unwritten(model.read_bytes())
    rng = np.random.default_rng(sum(model.stem.encode()))
    runs = [[random_input(rng, d) for d in ours[0].inputs] for _ in range(4)]
    if model.stem == "person_detect":
        runs += [[x] for x in bmp_inputs(tmp_path, model)]
    compared = 0
    for r, xs in enumerate(runs):
        for k, x in enumerate(xs):
            ref.set_input(x, k)
        ref.invoke()
        want_out = [np.array(ref.get_output(k)) for k in range(len(ours[0].outputs))]
        for cfg, it in zip(CONFIGS, ours):
            got = it.invoke(*xs)
            where = f"{model.stem} run {r} {cfg}"
            for k, (g, w) in enumerate(zip(got, want_out)):
                d = it.outputs[k]
                assert g.dtype == d.dtype and g.shape == d.shape, where
                assert g.tobytes() == np.ascontiguousarray(w).tobytes(), f"{where}: output {k} differs"
            inter = it.intermediates()
            for t in op_outs:
                assert t in inter, f"{where}: tensor {t} not preserved"
                want = tflm_tensor(ref, t, spans)
                assert inter[t].tobytes() == want, f"{where}: tensor {t} ({it.tensors[t].name}) differs from TFLM"
                assert np.array_equal(it.get_tensor(t), inter[t], equal_nan=True)
                compared += 1
    if model.stem == "person_detect":
        # [no person, person]: person.bmp scores person, no_person.bmp no person.
        it = ours[0]
        [p], [n] = it.invoke(runs[-2][0]), it.invoke(runs[-1][0])
        assert p[0, 1] > p[0, 0] and n[0, 0] > n[0, 1], (p, n)
    print(f"{model.stem}: {len(runs)} inputs x {len(CONFIGS)} configurations, {compared} tensors equal to TFLM")


def test_state_kept_and_reset():
    m = MODELS_DIR / "micro_speech_quantized.tflite"
    it = synaptic_mem.Interpreter(m, poison=1)
    rng = np.random.default_rng(5)
    xs = [random_input(rng, d) for d in it.inputs]
    a = it.invoke(*xs)
    b = it.invoke(*xs)
    assert it.invocations == 2
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    it.reset_state()
    assert it.invocations == 0
    c = it.invoke(*xs)
    assert all(np.array_equal(x, y) for x, y in zip(a, c))


def test_streaming_state_carried_and_reset():
    # keyword_scrambled: seven SVDF memories carried from one invoke to the next.
    m = MODELS_DIR / "keyword_scrambled.tflite"
    it = synaptic_mem.Interpreter(m, poison=3)
    assert it.memory()["state_bytes"] > 0
    rng = np.random.default_rng(11)
    xs = [[random_input(rng, d) for d in it.inputs] for _ in range(10)]
    first = [it.invoke(*x) for x in xs]
    it.reset_state()
    assert it.invocations == 0
    again = [it.invoke(*x) for x in xs]
    assert all(np.array_equal(a, b) for r, s in zip(first, again) for a, b in zip(r, s))
    fresh = synaptic_mem.Interpreter(m)
    new = [fresh.invoke(*x) for x in xs]
    assert all(np.array_equal(a, b) for r, s in zip(first, new) for a, b in zip(r, s))


@pytest.mark.parametrize("flags,kwargs", [
    ([], {}),
    (["--io", "plan"], {"io": "plan"}),
    (["--io", "plan", "--no-overlap", "--op-data", "ram"], {"io": "plan", "overlap": False, "op_data": "ram"}),
    (["--poison", "9"], {"poison": 9}),
], ids=["default", "io-plan", "plain-ram", "poison"])
def test_memory_and_output_equal_synmem_run(tmp_path, flags, kwargs):
    m = MODELS_DIR / "person_detect.tflite"
    saved, out = tmp_path / "in.raw", tmp_path / "out.raw"
    r = synmem("run", m, "--random", 3, "--save-input", saved, "--output", out, "--json", *flags)
    want = json.loads(r.stdout)
    it = synaptic_mem.Interpreter(m, **kwargs)
    x = np.frombuffer(saved.read_bytes(), np.int8).reshape(1, 96, 96, 1)
    [y] = it.invoke(x)
    assert y.tobytes() == out.read_bytes()
    got = it.memory()
    # The run's own fields (its tensors, its invocations) are not the memory's.
    run_only = ("inputs", "outputs", "invocations", "state_carried")
    assert want["invocations"] == 1 and want["state_carried"] is False
    assert got == {k: v for k, v in want.items() if k not in run_only}
    assert got["ram_bytes"] == synaptic_mem.plan(m, io=kwargs.get("io", "shared"),
                                                 overlap=kwargs.get("overlap", True),
                                                 op_data=kwargs.get("op_data", "flash")).ram_bytes


def test_details_match_tflm():
    for m in SUPPORTED:
        it, ref = synaptic_mem.Interpreter(m), tflm(m)
        for k, d in enumerate(it.inputs):
            r = ref.get_input_details(k)
            assert tuple(r["shape"]) == d.shape, m.stem
            assert np.dtype(r["dtype"]) == d.dtype, m.stem
            q = r.get("quantization_parameters") or {}
            scales = list(q.get("scales", []))
            if scales and d.scale is not None:
                assert np.float32(scales[0]) == np.float32(d.scale), m.stem
                assert int(q["zero_points"][0]) == d.zero_point, m.stem


def test_import_time():
    import subprocess
    import sys
    import time

    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import synaptic_mem"], check=True)
    total = time.perf_counter() - t
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    bare = time.perf_counter() - t
    print(f"import synaptic_mem: {1000 * (total - bare):.1f} ms (python start-up {1000 * bare:.1f} ms)")
    assert total - bare < 1.0


def test_threads():
    # The GIL is released during an inference: interpreters run in parallel threads, and one
    # made in a thread may be used from another, with the same answers.
    import threading

    m = MODELS_DIR / "person_detect.tflite"
    rng = np.random.default_rng(11)
    xs = [random_input(rng, synaptic_mem.Interpreter(m).inputs[0]) for _ in range(6)]
    want = [synaptic_mem.Interpreter(m).invoke(x)[0] for x in xs]
    shared = synaptic_mem.Interpreter(m, io="plan")
    results, errors = {}, []

    def work(k):
        try:
            own = synaptic_mem.Interpreter(m, poison=k)
            results[k] = [own.invoke(x)[0] for x in xs]
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for k in range(3):
        assert all(np.array_equal(g, w) for g, w in zip(results[k], want))
    other = []
    t = threading.Thread(target=lambda: other.extend(shared.invoke(x)[0] for x in xs))
    t.start()
    t.join()
    assert all(np.array_equal(g, w) for g, w in zip(other, want))
