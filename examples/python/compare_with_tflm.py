#!/usr/bin/env python3
"""Compare synaptic_mem with TensorFlow Lite Micro on one model.

    python examples/python/compare_with_tflm.py MODEL.tflite [--svg PLAN.svg] [--seed N]

Needs the synaptic_mem wheel and TFLM's tflite-micro wheel (docs/python.md). Prints a table:
the RAM synaptic-run needs (``plan().ram_bytes``, with graph I/O in the SHARED region and in
the plan) against TFLM's arena (its RecordingMicroAllocator's total: the tflite-micro wheel
has no ``arena_used_bytes()``, so ``print_allocations()`` is read), then, if synaptic-run
runs the model, one seeded random inference in both with every operator's output tensor
compared byte for byte (TFLM with kPreserveAllTensors, synaptic_mem with
preserve_all_tensors=True). The plan's picture is saved as SVG (default ``<model>.plan.svg``).
Exit status 1 if any tensor differs.
"""

import argparse
import os
import pathlib
import re
import sys
import tempfile

import numpy as np

import synaptic_mem


def tflm_interpreter(raw, preserve):
    """TFLM's interpreter: recording its allocations (the default), or preserving every
    tensor (then it records nothing)."""
    from tflite_micro import runtime

    config = (runtime.InterpreterConfig.kPreserveAllTensors if preserve
              else runtime.InterpreterConfig.kAllocationRecording)
    return runtime.Interpreter.from_bytes(
        raw, arena_size=max(10 * len(raw), 4 << 20), intrepreter_config=config)


def tflm_arena_total(it):
    """TFLM's arena use: 'Arena allocation total N bytes' of print_allocations(), which
    writes to the process's stdout or stderr from C++ (captured at the file descriptors)."""
    with tempfile.TemporaryFile(mode="w+b") as f:
        sys.stdout.flush()
        sys.stderr.flush()
        saved = os.dup(1), os.dup(2)
        os.dup2(f.fileno(), 1)
        os.dup2(f.fileno(), 2)
        try:
            it.print_allocations()
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
        f.seek(0)
        text = f.read().decode(errors="replace")
    m = re.search(r"Arena allocation total (\d+) bytes", text)
    return int(m.group(1)) if m else None


def random_input(rng, d):
    if np.issubdtype(d.dtype, np.floating):
        return rng.uniform(-1.0, 1.0, d.shape).astype(d.dtype)
    info = np.iinfo(d.dtype)
    return rng.integers(info.min, info.max, d.shape, dtype=d.dtype, endpoint=True)


def operator_outputs(raw):
    from tflite_micro import runtime

    sg = runtime.schema_fb.Model.GetRootAsModel(raw, 0).Subgraphs(0)
    outs = []
    for k in range(sg.OperatorsLength()):
        op = sg.Operators(k)
        outs += [(k, op.Outputs(j)) for j in range(op.OutputsLength()) if op.Outputs(j) >= 0]
    return outs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", type=pathlib.Path)
    ap.add_argument("--svg", type=pathlib.Path, help="where to save the plan's picture")
    ap.add_argument("--seed", type=int, default=1, help="seed of the random input")
    args = ap.parse_args(argv)
    raw = args.model.read_bytes()
    name = args.model.stem

    shared = synaptic_mem.plan(args.model)
    in_plan = synaptic_mem.plan(args.model, io="plan")
    svg = args.svg or pathlib.Path(f"{name}.plan.svg")
    svg.write_text(shared.to_svg())

    try:
        tflm_total = tflm_arena_total(tflm_interpreter(raw, preserve=False))
        ref = tflm_interpreter(raw, preserve=True)
        tflm_why = None
    except Exception as e:  # TFLM refuses some models (hybrid, custom operators)
        ref, tflm_total, tflm_why = None, None, str(e).splitlines()[0] if str(e) else type(e).__name__

    print(f"{name} ({len(raw)} B, {shared.operators} operators, {shared.tensors} tensors)")
    print(f"{'RAM, bytes':<44}{'value':>10}")
    print(f"{'synaptic-run, I/O in SHARED (ram_bytes)':<44}{shared.ram_bytes:>10}")
    print(f"{'  arena + shared region':<44}{shared.ram['arena_bytes']:>10} + {shared.ram['shared_bytes']}")
    print(f"{'synaptic-run, I/O in the plan (ram_bytes)':<44}{in_plan.ram_bytes:>10}")
    print(f"{'live-set bound of the activations':<44}{shared.live_lower_bound_bytes:>10}")
    if tflm_total is not None:
        print(f"{'TFLM arena (x86-64 wheel, recorded total)':<44}{tflm_total:>10}")
        best = min(shared.ram_bytes, in_plan.ram_bytes)
        print(f"{'synaptic-run less than TFLM':<44}{tflm_total - best:>10}"
              f"  ({100 * (tflm_total - best) / tflm_total:.1f} %)")
    else:
        print(f"{'TFLM arena':<44}{'-':>10}  (TFLM refuses the model: {tflm_why})")
    print(f"plan picture: {svg}")

    if not shared.ram["supported"]:
        print(f"synaptic-run does not run it: {shared.ram['unsupported']}")
        return 0
    if ref is None:
        print("no per-tensor comparison: TFLM does not run it")
        return 0
    it = synaptic_mem.Interpreter(raw, preserve_all_tensors=True, poison=args.seed)
    rng = np.random.default_rng(args.seed)
    xs = [random_input(rng, d) for d in it.inputs]
    for k, x in enumerate(xs):
        ref.set_input(x, k)
    ref.invoke()
    it.invoke(*xs)
    got = it.intermediates()
    rows, bad = [], 0
    for op, t in operator_outputs(raw):
        want = np.ascontiguousarray(ref.GetTensor(t, 0)["tensor_data"]).tobytes()
        mine = got[t].tobytes() if t in got else b""
        ok = mine == want
        bad += not ok
        d = it.tensors[t]
        rows.append((op, t, d.name, str(d.dtype), "x".join(map(str, d.shape)) or "scalar",
                     len(want), "equal" if ok else "DIFFERS"))
    print()
    print(f"{'op':>3} {'tensor':>6}  {'dtype':<8} {'shape':<16} {'bytes':>8}  TFLM    name")
    for op, t, tname, dt, shape, n, verdict in rows:
        print(f"{op:>3} {t:>6}  {dt:<8} {shape:<16} {n:>8}  {verdict:<7} {tname[:60]}")
    print(f"{len(rows) - bad} of {len(rows)} operator outputs equal to TFLM's, byte for byte"
          f" (seed {args.seed}, poisoned arena)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
