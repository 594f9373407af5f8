"""A model over the core's arena limit (simple_add_model grown to 1x512x512x1 int8, rewritten
with TFLM's own schema module): the planner says it does not fit, `emit` and `Interpreter`
refuse it with the CLI's reason; with graph I/O in the SHARED region it fits and runs, equal
to TFLM."""

import json

import flatbuffers
import numpy as np
import pytest
from tflite_micro import runtime

import synaptic_mem
from conftest import MODELS_DIR, synmem


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    sf = runtime.schema_fb
    raw = (MODELS_DIR / "simple_add_model.tflite").read_bytes()
    m = sf.ModelT.InitFromObj(sf.Model.GetRootAsModel(raw, 0))
    for t in m.subgraphs[0].tensors:
        t.shape = np.array([1, 512, 512, 1], np.int32)
        if t.shapeSignature is not None:
            t.shapeSignature = np.array([1, 512, 512, 1], np.int32)
    b = flatbuffers.Builder(0)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    path = tmp_path_factory.mktemp("big") / "big_add.tflite"
    path.write_bytes(bytes(b.Output()))
    return path


def test_over_the_limit_with_io_in_the_plan(big, tmp_path):
    p = synaptic_mem.plan(big, io="plan")
    want = json.loads(synmem("plan", big, "--json", "--io", "plan").stdout)
    assert p.ram == want["ram"] and p.ram["fits"] is False and p.ram["help"]
    assert p.ram["arena_bytes"] > p.ram["limit_bytes"]
    r = synmem("emit", big, "--lang", "c", "--io", "plan", "-o", tmp_path / "x.h", check=False)
    assert r.returncode == 1
    reason = r.stderr.decode().strip().removeprefix("synmem: error: ")
    with pytest.raises(synaptic_mem.PlanError) as e:
        synaptic_mem.emit(big, lang="c", io="plan")
    assert str(e.value) == reason and e.value.kind == "ArenaTooLarge"
    r = synmem("run", big, "--io", "plan", "--random", 1, "--output", tmp_path / "o.raw", check=False)
    assert r.returncode == 1
    reason = r.stderr.decode().strip().removeprefix("synmem: error: ")
    with pytest.raises(synaptic_mem.LoadError) as e:
        synaptic_mem.Interpreter(big, io="plan")
    assert str(e.value) == reason and e.value.kind == "ArenaTooLarge"


def test_fits_with_io_in_shared_and_equals_tflm(big):
    it = synaptic_mem.Interpreter(big, poison=5)
    assert it.memory()["shared_region_bytes"] > 512 * 1024
    rng = np.random.default_rng(2)
    xs = [rng.integers(-128, 128, d.shape, dtype=np.int8, endpoint=False) for d in it.inputs]
    raw = big.read_bytes()
    ref = runtime.Interpreter.from_bytes(raw, arena_size=8 << 20)
    for k, x in enumerate(xs):
        ref.set_input(x, k)
    ref.invoke()
    [got] = it.invoke(*xs)
    assert got.tobytes() == np.ascontiguousarray(ref.get_output(0)).tobytes()
