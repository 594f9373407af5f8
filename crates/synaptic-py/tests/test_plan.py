"""plan() against `synmem plan --json` (the installed console script) on every shared model,
with several option sets; the one-liner of the issue on every model; SVG and text forms."""

import json
import subprocess
import sys

import pytest

import synaptic_mem
from conftest import MODELS, model_id, synmem

# (Python options, the CLI's flags): the same configuration both ways.
OPTION_SETS = [
    ({}, []),
    ({"io": "ephemeral"}, ["--io", "ephemeral"]),
    ({"io": "plan", "overlap": False}, ["--io", "plan", "--no-overlap"]),
    ({"op_data": "ram"}, ["--op-data", "ram"]),
    ({"strategy": "greedy", "weights": "flash"}, ["--strategy", "greedy", "--weights", "flash"]),
    ({"strategy": "bump", "arena": 262144, "scratch": 4096}, ["--strategy", "bump", "--arena", "262144", "--scratch", "4096"]),
]


def cli_plan(model, flags):
    r = synmem("plan", model, "--json", *flags, check=False)
    return r.returncode, json.loads(r.stdout) if r.stdout.strip() else None, r.stderr.decode()


def without_time(d):
    d = dict(d)
    d.pop("planning_micros")  # the planner's own run time: the one field that varies
    return d


@pytest.mark.parametrize("model", MODELS, ids=model_id)
def test_plan_equals_cli_json(model):
    for opts, flags in OPTION_SETS:
        code, want, err = cli_plan(model, flags)
        if code == 0:
            got = synaptic_mem.plan(model, **opts)
            d = got.to_dict()
            assert list(d)[:3] == ["model", "ram_bytes", "ram"], list(d)[:3]
            assert without_time(d) == without_time(want), (model.name, opts)
            assert got.ram_bytes == want["ram_bytes"]
            assert without_time(json.loads(got.json())) == without_time(want)
            assert set(got.keys()) == set(want)
        else:
            # The CLI refused (e.g. op_data ram for a model synaptic-run cannot compile):
            # the same reason as a PlanError.
            with pytest.raises(synaptic_mem.PlanError) as e:
                synaptic_mem.plan(model, **opts)
            reason = err.strip().removeprefix("synmem: error: ")
            assert reason in str(e.value), (str(e.value), reason)
            assert e.value.kind


@pytest.mark.parametrize("model", MODELS, ids=model_id)
def test_one_liner_every_model(model):
    # The command, verbatim, in a fresh interpreter.
    code = f"import synaptic_mem; print(synaptic_mem.plan({str(model)!r}).ram_bytes)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    _, want, _ = cli_plan(model, [])
    assert int(out.stdout) == want["ram_bytes"] > 0


def test_bytes_and_bytearray_equal_path(models):
    m = next(p for p in models if p.stem == "person_detect")
    by_path = without_time(synaptic_mem.plan(m).to_dict())
    raw = m.read_bytes()
    assert without_time(synaptic_mem.plan(raw, name="person_detect").to_dict()) == by_path
    assert without_time(synaptic_mem.plan(bytearray(raw), name="person_detect").to_dict()) == by_path
    assert without_time(synaptic_mem.plan(memoryview(raw), name="person_detect").to_dict()) == by_path
    import pathlib

    assert without_time(synaptic_mem.plan(pathlib.Path(m)).to_dict()) == by_path


def test_scratch_table_equals_cli(tmp_path, models):
    m = next(p for p in models if p.stem == "hello_world_int8")
    n_ops = synaptic_mem.plan(m).operators
    table = [64 * (k + 1) for k in range(n_ops)]
    f = tmp_path / "scratch.txt"
    f.write_text(" ".join(map(str, table)))
    _, want, _ = cli_plan(m, ["--scratch-table", f])
    got = synaptic_mem.plan(m, scratch_table=table)
    assert without_time(got.to_dict()) == without_time(want)
    assert got.scratch_pool_bytes == want["scratch_pool_bytes"]
    with pytest.raises(synaptic_mem.PlanError):
        synaptic_mem.plan(m, scratch_table=table + [16])  # one entry too many


def test_svg_and_text_equal_cli(tmp_path, models):
    m = next(p for p in models if p.stem == "person_detect")
    svg = tmp_path / "plan.svg"
    text = synmem("plan", m, "--svg", svg).stdout.decode()
    p = synaptic_mem.plan(m)
    assert p.to_svg() == svg.read_text()
    assert p.to_svg().lstrip().startswith(("<svg", "<?xml"))
    # The text report, less the line naming the SVG file.
    assert p.text() == "".join(l for l in text.splitlines(True) if not l.startswith("plan drawn to"))


def test_bad_options():
    m = MODELS[0]
    with pytest.raises(ValueError):
        synaptic_mem.plan(m, strategy="fastest")
    with pytest.raises(ValueError):
        synaptic_mem.plan(m, io="sideways")
    with pytest.raises(TypeError):
        synaptic_mem.plan(m, no_such_option=1)
    with pytest.raises(TypeError):
        synaptic_mem.plan(m, overlap="yes")
    with pytest.raises(synaptic_mem.PlanError) as e:
        synaptic_mem.plan(m, arena=100)  # below the spec's smallest arena
    assert e.value.kind == "Config"
    with pytest.raises(TypeError):
        synaptic_mem.plan(12345)
    with pytest.raises(OSError):
        synaptic_mem.plan("/nonexistent/model.tflite")
