#!/usr/bin/env python3
"""TFLM's own wheel as the oracle of `synmem emit --lang tflite` (synaptic_plan::tflm).

  tflm_plan_oracle.py head MODEL
      Prints `head N`: the head TFLM's RecordingMicroAllocator reports for MODEL
      (print_allocations(): "Arena allocation head N bytes"), or `refused: <reason>` when the
      wheel cannot allocate the model. The C++ side prints to the process's own stdout/stderr,
      so it runs in a child process whose output is captured whole.

  tflm_plan_oracle.py scratch MODEL
      Prints one line per operator: the bytes of kernel scratch (RequestScratchBufferInArena,
      each request rounded up to 16) TFLM's kernels ask for at that operator. Measured, one
      operator at a time, on a model holding only that operator and its tensors, with its
      activations planned offline back to back from offset 0: every scratch buffer of the
      operator is live with all of them, so TFLM's greedy planner stacks the scratch right
      above them and the head is (their bytes, rounded) + (the scratch).

  tflm_plan_oracle.py check ORIGINAL EMITTED CUTS SEEDS
      Compares EMITTED (the same model with an OfflineMemoryAllocation plan) with ORIGINAL on
      SEEDS seeded random inputs; prints one JSON object. Reference values: ORIGINAL under
      kPreserveAllTensors (TFLM's linear planner, no reuse), interpreter reset before every
      run. Checked:
        * outputs: ORIGINAL and EMITTED under TFLM's greedy planner (the one that honours
          offline plans; kPreserveAllTensors refuses them), SEEDS runs in a row without reset
          (state carried), every output of every run equal byte for byte, and the first run's
          equal to the reference;
        * every intermediate tensor: TFLM keeps no dead tensor, so each is observed at a cut.
          CUTS (JSON: [[s, [t...]], ...], from the Rust test) lists, for cut s, the activations
          live at scope s in TFLM's lifetimes. EMITTED truncated to its first s operators, with
          those tensors as its graph outputs, keeps the emitted plan valid (no lifetime grows)
          and runs under the greedy planner with it; every listed tensor must equal the
          reference, but for tensors whose kernel leaves bytes unwritten (they differ from the
          reference under TFLM's own plan too, the original cut the same way; reported in
          "partial" with the bytes that differ; their written bytes reach the graph only
          through their consumers, checked exactly at their own cuts).
          The cuts cover every activation at a scope after its last write.
"""

import json
import re
import subprocess
import sys
import tempfile

import numpy as np
from tflite_micro import runtime

schema = runtime.schema_fb
OFFLINE = "OfflineMemoryAllocation"
# Bytes per element by TFLite TensorType code (INT4 handled apart).
ELEM = {0: 4, 1: 2, 2: 4, 3: 1, 4: 8, 6: 1, 7: 2, 9: 1, 10: 8, 12: 8, 15: 4, 16: 2, 18: 2}


def arena_for(model_bytes):
    return max(10 * len(model_bytes), 4 << 20)


HEAD_CHILD = """
import sys
from tflite_micro import runtime
m = open(sys.argv[1], 'rb').read()
it = runtime.Interpreter.from_bytes(m, arena_size=max(10 * len(m), 4 << 20))
it.print_allocations()
"""


def head(path):
    r = subprocess.run([sys.executable, "-c", HEAD_CHILD, path], capture_output=True, text=True)
    out = r.stdout + r.stderr
    m = re.search(r"Arena allocation head (\d+) bytes", out)
    if r.returncode != 0 or not m:
        last = out.strip().splitlines()[-1] if out.strip() else f"exit {r.returncode}"
        return None, last
    return int(m.group(1)), None


def tensor_bytes(t):
    n = int(np.prod(t.shape)) if t.shape is not None and len(t.shape) else 1
    if t.type == 17:
        return (n + 1) // 2
    return n * ELEM[t.type]


def has_data(m, t):
    b = m.buffers[t.buffer] if t.buffer < len(m.buffers) else None
    return b is not None and b.data is not None and len(b.data) > 0


def set_offline(m, offsets):
    """Replaces (or adds) the model's OfflineMemoryAllocation metadata."""
    values = np.array([1, len(m.subgraphs), len(offsets)] + list(offsets), dtype="<i4")
    buf = schema.BufferT()
    buf.data = np.frombuffer(values.tobytes(), dtype=np.uint8)
    m.buffers.append(buf)
    md = schema.MetadataT()
    md.name = OFFLINE
    md.buffer = len(m.buffers) - 1
    kept = [x for x in (m.metadata or []) if x.name not in (OFFLINE, OFFLINE.encode())]
    m.metadata = kept + [md]


def pack(m):
    import flatbuffers
    b = flatbuffers.Builder(1 << 16)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def scratch(path):
    data = open(path, "rb").read()
    base = schema.ModelT.InitFromPackedBuf(data, 0)
    n_ops = len(base.subgraphs[0].operators)
    table = []
    for k in range(n_ops):
        m = schema.ModelT.InitFromPackedBuf(data, 0)
        sg = m.subgraphs[0]
        op = sg.operators[k]
        ins = [int(t) for t in (op.inputs if op.inputs is not None else [])]
        outs = [int(t) for t in (op.outputs if op.outputs is not None else [])]
        inter = [int(t) for t in (op.intermediates if op.intermediates is not None else [])]
        used = sorted({t for t in ins + outs + inter if t >= 0})
        remap = {t: i for i, t in enumerate(used)}
        op.inputs = [remap[t] if t >= 0 else -1 for t in ins]
        op.outputs = [remap[t] for t in outs]
        if op.intermediates is not None:
            op.intermediates = [remap[t] for t in inter]
        tensors = [sg.tensors[t] for t in used]
        sg.tensors = tensors
        sg.operators = [op]
        act = [i for i, t in enumerate(tensors) if not t.isVariable and not has_data(m, t)]
        sg.inputs = [remap[t] for t in dict.fromkeys(ins) if t >= 0 and remap[t] in act
                     and t not in outs]
        sg.outputs = [remap[t] for t in outs]
        m.subgraphs = [sg]
        m.signatureDefs = None
        offsets, end = [-1] * len(tensors), 0
        for i in act:
            nbytes = tensor_bytes(tensors[i])
            if nbytes:
                offsets[i] = end
                end += (nbytes + 15) // 16 * 16
        set_offline(m, offsets)
        with tempfile.NamedTemporaryFile(suffix=f".op{k}.tflite") as f:
            f.write(pack(m))
            f.flush()
            h, err = head(f.name)
        if h is None:
            sys.exit(f"{path}: operator {k} alone: {err}")
        table.append(h - end)
    print("\n".join(str(x) for x in table))


def random_input(d, rng):
    dt = np.dtype(d["dtype"])
    shape = d["shape"]
    if dt == np.float32 or dt == np.float64:
        return rng.standard_normal(shape).astype(dt)
    if dt == np.bool_:
        return rng.integers(0, 2, shape).astype(dt)
    info = np.iinfo(dt)
    lo, hi = max(info.min, -1000), min(info.max, 1000)
    if dt.itemsize == 1:
        lo, hi = info.min, info.max
    return rng.integers(lo, hi, shape, endpoint=True).astype(dt)


def interp(model_bytes, preserve):
    cfg = (runtime.InterpreterConfig.kPreserveAllTensors if preserve
           else runtime.InterpreterConfig.kAllocationRecording)
    return runtime.Interpreter.from_bytes(model_bytes, arena_size=arena_for(model_bytes),
                                          intrepreter_config=cfg)


def raw(a):
    return np.ascontiguousarray(a).tobytes()


def check(orig_path, emit_path, cuts_path, seeds):
    orig = open(orig_path, "rb").read()
    emit = open(emit_path, "rb").read()
    cuts = json.load(open(cuts_path))
    report = {"mismatches": []}
    h0, err = head(orig_path)
    if h0 is None:
        print(json.dumps({"refused": err}))
        return
    h1, err = head(emit_path)
    if h1 is None:
        report["mismatches"].append(f"emitted model refused: {err}")
    report["head_before"], report["head_after"] = h0, h1

    base = schema.ModelT.InitFromPackedBuf(orig, 0)
    sg = base.subgraphs[0]
    n_tensors = len(sg.tensors)
    n_out = len(sg.outputs)
    ref_it = interp(orig, True)
    n_in = len(sg.inputs)
    details = [ref_it.get_input_details(k) for k in range(n_in)]
    inputs = []
    for s in range(seeds):
        rng = np.random.default_rng(0x5EED_0000 + s)
        inputs.append([random_input(d, rng) for d in details])

    ref = []  # ref[seed][tensor] = bytes
    for ins in inputs:
        ref_it.reset()
        for k, x in enumerate(ins):
            ref_it.set_input(x, k)
        ref_it.invoke()
        ref.append([raw(ref_it.GetTensor(t, 0)["tensor_data"]) for t in range(n_tensors)])

    # Outputs, runs in a row (state carried), greedy planner with and without the plan.
    a, b = interp(orig, False), interp(emit, False)
    outputs = 0
    for s, ins in enumerate(inputs):
        for it in (a, b):
            for k, x in enumerate(ins):
                it.set_input(x, k)
            it.invoke()
        for k in range(n_out):
            oa, ob = raw(a.get_output(k)), raw(b.get_output(k))
            outputs += 1
            if oa != ob:
                report["mismatches"].append(f"run {s}: output {k} differs (state carried)")
            if s == 0 and ob != ref[0][int(sg.outputs[k])]:
                report["mismatches"].append(f"run 0: output {k} differs from the reference")
    report["outputs"] = outputs

    # Every activation, at its cut. A kernel may leave bytes of its output unwritten
    # (SignalEnergy writes only its [start_index, end_index) bins): those hold whatever the
    # arena held, under any plan that reuses memory, TFLM's own included. So the ORIGINAL model
    # is cut the same way and run under TFLM's own plan too.
    tensors = 0
    checked = set()
    partial = {}
    for s, live in cuts:
        runs = []
        for src in (emit, orig):
            m = schema.ModelT.InitFromPackedBuf(src, 0)
            msg = m.subgraphs[0]
            msg.operators = msg.operators[:s]
            msg.outputs = list(live)
            m.signatureDefs = None
            it = interp(pack(m), False)
            got = []
            for ins in inputs:
                it.reset()
                for k, x in enumerate(ins):
                    it.set_input(x, k)
                it.invoke()
                got.append([raw(it.get_output(k)) for k in range(len(live))])
            runs.append(got)
        # Tensors with unwritten bytes: TFLM's own plan gives them other values than the
        # reference in some run. Their written bytes reach the graph only through their
        # consumers, whose outputs are checked exactly at their own cuts.
        own_partial = {t for k, t in enumerate(live)
                       if any(runs[1][r][k] != ref[r][t] for r in range(len(inputs)))}
        for r in range(len(inputs)):
            for k, t in enumerate(live):
                tensors += 1
                checked.add(t)
                want, mine = ref[r][t], runs[0][r][k]
                if mine == want:
                    continue
                if t in own_partial and len(mine) == len(want):
                    w, e = (np.frombuffer(x, dtype=np.uint8) for x in (want, mine))
                    partial[t] = max(partial.get(t, 0), int(np.sum(e != w)))
                else:
                    report["mismatches"].append(
                        f"run {r}: tensor {t} differs at scope {s} (after operator {s - 1})")
    report["partial"] = {str(t): n for t, n in sorted(partial.items())}
    report["tensor_values"] = tensors
    report["tensors"] = len(checked)
    report["cuts"] = len(cuts)
    report["runs"] = seeds
    print(json.dumps(report))


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "head" and len(sys.argv) == 3:
        h, err = head(sys.argv[2])
        print(f"head {h}" if h is not None else f"refused: {err}")
    elif cmd == "scratch" and len(sys.argv) == 3:
        scratch(sys.argv[2])
    elif cmd == "check" and len(sys.argv) == 6:
        check(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
