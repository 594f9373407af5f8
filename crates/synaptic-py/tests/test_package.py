"""The installed package itself: the type stubs agree with what the module returns, py.typed
is there, the synmem console script is the real CLI, and the example script runs."""

import ast
import pathlib
import subprocess
import sys

import synaptic_mem
from conftest import MODELS_DIR, REPO, SYNMEM

PKG = pathlib.Path(synaptic_mem.__file__).parent


def stub_fields(cls_name):
    tree = ast.parse((PKG / "__init__.pyi").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls_name)
    return [n.target.id for n in cls.body if isinstance(n, ast.AnnAssign)]


def test_stubs_and_py_typed_installed():
    assert (PKG / "py.typed").exists()
    assert (PKG / "__init__.pyi").exists()


def test_stub_fields_match_the_module():
    p = synaptic_mem.plan(MODELS_DIR / "person_detect.tflite")
    assert set(stub_fields("Plan")) == set(p.keys())
    assert stub_fields("Plan")[0] == "ram_bytes"
    assert set(stub_fields("RuntimeNeed")) == set(p.ram)
    it = synaptic_mem.Interpreter(MODELS_DIR / "hello_world_int8.tflite")
    assert stub_fields("Memory") == list(it.memory())
    d = it.inputs[0]
    for f in stub_fields("TensorDetails"):
        getattr(d, f)
    for name in synaptic_mem.__all__:
        assert hasattr(synaptic_mem, name)


def test_docstrings():
    for obj in (synaptic_mem.plan, synaptic_mem.emit, synaptic_mem.Interpreter,
                synaptic_mem.Interpreter.invoke, synaptic_mem.Interpreter.memory,
                synaptic_mem.Interpreter.reset_state, synaptic_mem.Plan.to_svg,
                synaptic_mem.SynapticError, synaptic_mem.LoadError):
        assert obj.__doc__ and len(obj.__doc__) > 20, obj


def test_console_script_is_the_real_cli():
    r = subprocess.run([str(SYNMEM), "--version"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("synmem "), r
    r = subprocess.run([str(SYNMEM), "plan", "--help"], capture_output=True, text=True)
    assert "--op-data" in r.stdout


def test_compare_with_tflm_example(tmp_path):
    script = REPO / "examples" / "python" / "compare_with_tflm.py"
    for name, runs in (("person_detect", True), ("kws_ref_model_float32", False)):
        svg = tmp_path / f"{name}.svg"
        r = subprocess.run([sys.executable, str(script), str(MODELS_DIR / f"{name}.tflite"), "--svg", str(svg)],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "TFLM arena" in r.stdout and svg.read_text().lstrip().startswith(("<svg", "<?xml"))
        want = synaptic_mem.plan(MODELS_DIR / f"{name}.tflite").ram_bytes
        assert f"{want:>10}" in r.stdout
        if runs:
            assert "31 of 31 operator outputs equal to TFLM's" in r.stdout, r.stdout
        else:
            assert "synaptic-run does not run it" in r.stdout
