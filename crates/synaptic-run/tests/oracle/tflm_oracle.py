#!/usr/bin/env python3
"""TFLM, through its own Python wheel, as the oracle of synaptic-run's tests.

  tflm_oracle.py dump MODEL OUT RUN...   For each RUN file (the raw bytes of every graph input,
                                         concatenated in input order): set the inputs, invoke,
                                         and append every tensor of subgraph 0 to OUT as
                                         u32-le length + raw bytes (row-major, tensor order).
  tflm_oracle.py batch MANIFEST          The same for many models in one process: every line of
                                         MANIFEST is MODEL OUT RUN... separated by tabs.
  tflm_oracle.py batch-tolerant MANIFEST The same, a model TFLM refuses (an exception) leaving
                                         OUT.refused (why) instead of OUT: mutant sweeps; a model
                                         whose result TFLM computes from bytes it never wrote
                                         (`stale_read`) too, its reason starting "unwritten:".
  tflm_oracle.py features PREPROC WAV OUT
                                         micro_speech features: the 49x40 int8 features TFLM's
                                         audio_preprocessor_int8.tflite makes from a 1 s 16 kHz
                                         WAV (30 ms windows, 20 ms stride, as the example's
                                         evaluate.py), written raw to OUT.

The interpreter runs with InterpreterConfig.kPreserveAllTensors, so GetTensor(i, 0) after
invoke() returns the value every tensor had in that inference (intermediates included); only
indices below the model's tensor count are asked for (past it the wheel crashes).
"""

import struct
import os
import sys
import wave

import numpy as np
from tflite_micro import runtime


def tensor_count(model_bytes):
    model = runtime.schema_fb.Model.GetRootAsModel(model_bytes, 0)
    sg = model.Subgraphs(0)
    return sg.TensorsLength(), sg.InputsLength()


def packed_int4(model_bytes):
    """The INT4 tensors' byte sizes, per tensor index: {tensor: ceil(elements / 2)}. The wheel
    hands an INT4 tensor out as one int8 per element, the packed bytes then whatever memory
    follows them; the dump keeps the packed bytes only (the model's buffer)."""
    model = runtime.schema_fb.Model.GetRootAsModel(model_bytes, 0)
    sg = model.Subgraphs(0)
    sizes = {}
    for t in range(sg.TensorsLength()):
        tensor = sg.Tensors(t)
        if tensor.Type() == runtime.schema_fb.TensorType.INT4:
            n = int(np.prod(tensor.ShapeAsNumpy())) if tensor.ShapeLength() else 1
            sizes[t] = (n + 1) // 2
    return sizes


def unwritten(model_bytes):
    """The elements TFLM never writes, per tensor index: {tensor: (lo, hi)}, the elements
    outside lo..hi. SignalEnergy writes only the bins start_index..end_index of its output (the
    others keep whatever the arena held: another tensor's bytes), and a CAST of such a tensor
    carries them through. The dump records them as 0, what synaptic-run writes there, so that
    every element compared is one TFLM computed."""
    from flatbuffers import flexbuffers
    model = runtime.schema_fb.Model.GetRootAsModel(model_bytes, 0)
    sg = model.Subgraphs(0)
    spans = {}
    for i in range(sg.OperatorsLength()):
        op = sg.Operators(i)
        code = model.OperatorCodes(op.OpcodeIndex())
        custom = code.CustomCode()
        builtin = max(code.BuiltinCode(), code.DeprecatedBuiltinCode())
        if custom == b"SignalEnergy" and op.CustomOptionsLength():
            o = flexbuffers.Loads(op.CustomOptionsAsNumpy().tobytes())
            spans[int(op.Outputs(0))] = (o["start_index"], o["end_index"])
        elif builtin == 53 and op.InputsLength() and int(op.Inputs(0)) in spans:  # CAST
            spans[int(op.Outputs(0))] = spans[int(op.Inputs(0))]
    return spans


def invalid_unwritten(model_bytes):
    """[(output, valid)] tensor pairs of the operators that leave their output unwritten when
    their `valid` output is false (SignalStacker: its output then keeps the tensor's earlier
    bytes). The dump records such an output as 0, what synaptic-run writes there."""
    model = runtime.schema_fb.Model.GetRootAsModel(model_bytes, 0)
    sg = model.Subgraphs(0)
    pairs = []
    for i in range(sg.OperatorsLength()):
        op = sg.Operators(i)
        code = model.OperatorCodes(op.OpcodeIndex())
        if code.CustomCode() == b"SignalStacker" and op.OutputsLength() == 2:
            pairs.append((int(op.Outputs(0)), int(op.Outputs(1))))
    return pairs


class FramerFrames:
    """The frames a SignalFramer leaves unwritten (not yet whole: they keep the tensor's
    earlier bytes), run after run: its buffer's count as TFLM's `CircularBuffer` keeps it
    (every row advances alike). The dump records such a frame as 0, what synaptic-run writes.
    Likewise the rows of a CIRCULAR_BUFFER's window not yet written (`windows`)."""

    def __init__(self, model_bytes):
        from flatbuffers import flexbuffers
        model = runtime.schema_fb.Model.GetRootAsModel(model_bytes, 0)
        sg = model.Subgraphs(0)
        self.ops = []
        self.buffers = []
        for i in range(sg.OperatorsLength()):
            op = sg.Operators(i)
            code = model.OperatorCodes(op.OpcodeIndex())
            if code.CustomCode() == b"CIRCULAR_BUFFER" and op.OutputsLength() == 1:
                y = sg.Tensors(int(op.Outputs(0)))
                self.buffers.append([int(op.Outputs(0)), int(y.ShapeAsNumpy()[1]), 0])
            if code.CustomCode() == b"SignalFramer" and op.CustomOptionsLength():
                o = flexbuffers.Loads(op.CustomOptionsAsNumpy().tobytes())
                x = sg.Tensors(int(op.Inputs(0)))
                row = int(x.ShapeAsNumpy()[-1])
                held = o["frame_size"] - o["frame_step"] if o["prefill"] else 0
                self.ops.append([int(op.Outputs(0)), o["frame_size"], o["frame_step"],
                                 row // o["frame_step"], held])

    def windows(self):
        """{output tensor: rows} of each CIRCULAR_BUFFER's window TFLM has not yet written (its
        output tensor is the window: rows before the first `num_slots` invocations hold
        whatever the arena held), advancing each a run. The dump records them as 0, what
        synaptic-run's window starts as."""
        out = {}
        for entry in self.buffers:
            t, slots, calls = entry
            entry[2] = calls + 1
            out[t] = max(slots - entry[2], 0)
        return out

    def mask(self):
        """{output tensor: [frame k unwritten in this run]}, advancing each buffer a run."""
        out = {}
        for entry in self.ops:
            t, size, step, frames, held = entry
            unwritten = []
            for _ in range(frames):
                held += step
                if held >= size:
                    held -= step
                    unwritten.append(False)
                else:
                    unwritten.append(True)
            entry[4] = held
            out[t] = unwritten
        return out
def detection_rows(model_bytes):
    """TFLite_Detection_PostProcess's outputs whose rows past the detections TFLM never writes:
    [(boxes, classes, scores, num_detections)], one per such operator of fast (not regular)
    suppression, which writes only the rows it detects (regular writes every row). The dump
    records the others as 0, what synaptic-run writes there, so that every element compared
    is one TFLM computed."""
    from flatbuffers import flexbuffers
    model = runtime.schema_fb.Model.GetRootAsModel(model_bytes, 0)
    sg = model.Subgraphs(0)
    found = []
    for i in range(sg.OperatorsLength()):
        op = sg.Operators(i)
        code = model.OperatorCodes(op.OpcodeIndex())
        if code.CustomCode() != b"TFLite_Detection_PostProcess" or op.OutputsLength() != 4:
            continue
        o = flexbuffers.Loads(op.CustomOptionsAsNumpy().tobytes()) if op.CustomOptionsLength() else {}
        if not o.get("use_regular_nms", False):
            found.append(tuple(int(op.Outputs(k)) for k in range(4)))
    return found


def stale_read(model_bytes):
    """Why TFLM's result depends on bytes it never wrote (None if it does not): an operator
    other than CAST reads elements of an `unwritten` span (a STRIDED_SLICE of one dimension,
    stride 1, no masks, inside the written bins is fine: the audio front end's). Such a model
    (a mutant) has no oracle: what TFLM reads there is whatever its arena held."""
    model = runtime.schema_fb.Model.GetRootAsModel(model_bytes, 0)
    sg = model.Subgraphs(0)
    spans = unwritten(model_bytes)

    def const_ints(t):
        tensor = sg.Tensors(t)
        data = model.Buffers(tensor.Buffer()).DataAsNumpy()
        if isinstance(data, int) or tensor.Type() != 2:  # INT32 constants only
            return None
        return [int(v) for v in np.frombuffer(data.tobytes(), dtype="<i4")]

    for i in range(sg.OperatorsLength()):
        op = sg.Operators(i)
        code = model.OperatorCodes(op.OpcodeIndex())
        builtin = max(code.BuiltinCode(), code.DeprecatedBuiltinCode())
        for k in range(op.InputsLength()):
            t = int(op.Inputs(k))
            if t not in spans:
                continue
            if builtin == 53 and k == 0:  # CAST: the span carried to its output
                continue
            if builtin == 45 and k == 0 and op.InputsLength() >= 4:  # STRIDED_SLICE
                lo, hi = spans[t]
                n = int(sg.Tensors(t).ShapeAsNumpy().prod()) if sg.Tensors(t).ShapeLength() else 1
                b, e, st = (const_ints(int(op.Inputs(j))) for j in (1, 2, 3))
                o = runtime.schema_fb.StridedSliceOptions()
                opts = op.BuiltinOptions()
                masks = 0
                if opts is not None:
                    o.Init(opts.Bytes, opts.Pos)
                    masks = (o.BeginMask() | o.EndMask() | o.EllipsisMask() | o.NewAxisMask()
                             | o.ShrinkAxisMask() | int(o.Offset()))
                if (sg.Tensors(t).ShapeLength() == 1 and b and e and st and len(b) == 1
                        and len(e) == 1 and st == [1] and masks == 0):
                    lo_b = b[0] + n if b[0] < 0 else b[0]
                    hi_e = e[0] + n if e[0] < 0 else e[0]
                    if lo <= lo_b and min(hi_e, n) <= hi and lo_b < hi_e:
                        continue
            return f"operator {i} input {k} reads tensor {t}'s elements outside {spans[t]}"
    return None


def dump(model_path, out_path, runs):
    model = open(model_path, "rb").read()
    n_tensors, n_inputs = tensor_count(model)
    spans = unwritten(model)
    int4 = packed_int4(model)
    invalid_pairs = invalid_unwritten(model)
    framer = FramerFrames(model)
    detections = detection_rows(model)
    # The wheel's default arena (10x the model) is too small for tiny single-op models.
    it = runtime.Interpreter.from_bytes(
        model, arena_size=max(10 * len(model), 4 << 20),
        intrepreter_config=runtime.InterpreterConfig.kPreserveAllTensors)
    details = [it.get_input_details(k) for k in range(n_inputs)]
    with open(out_path, "wb") as out:
        for run in runs:
            raw = open(run, "rb").read()
            pos = 0
            for k, d in enumerate(details):
                dt = np.dtype(d["dtype"])
                n = int(np.prod(d["shape"])) * dt.itemsize
                if pos + n > len(raw):
                    sys.exit(f"{run}: {len(raw)} bytes, input {k} needs bytes {pos}..{pos + n}")
                it.set_input(np.frombuffer(raw[pos:pos + n], dtype=dt).reshape(d["shape"]), k)
                pos += n
            if pos != len(raw):
                sys.exit(f"{run}: {len(raw)} bytes, the inputs take {pos}")
            it.invoke()
            invalid = {o for o, v in invalid_pairs
                       if not np.array(it.GetTensor(v, 0)["tensor_data"]).reshape(-1)[0]}
            frames_unwritten = framer.mask()
            windows = framer.windows()
            rows = {}
            for boxes, classes, scores, num in detections:
                n = int(np.array(it.GetTensor(num, 0)["tensor_data"]).reshape(-1)[0])
                rows.update({boxes: 4 * n, classes: n, scores: n})
            for t in range(n_tensors):
                value = np.array(it.GetTensor(t, 0)["tensor_data"])
                if t in invalid:
                    value = np.zeros_like(value)
                if t in frames_unwritten:
                    # (..., frames, frame_size): the frames not yet whole, in every row.
                    mask = frames_unwritten[t]
                    value = value.copy()
                    value.reshape(-1, len(mask), value.shape[-1])[:, mask, :] = 0
                if windows.get(t):
                    value = value.copy()
                    value[:, :windows[t]] = 0
                if t in spans:
                    lo, hi = spans[t]
                    flat = value.reshape(-1)
                    flat[:lo] = 0
                    flat[hi:] = 0
                if t in rows:
                    value.reshape(-1)[rows[t]:] = 0
                data = np.ascontiguousarray(value).tobytes()
                if t in int4:
                    data = data[:int4[t]]
                out.write(struct.pack("<I", len(data)))
                out.write(data)


def features(preproc_path, wav_path, out_path):
    w = wave.open(wav_path)
    if w.getframerate() != 16000 or w.getsampwidth() != 2 or w.getnchannels() != 1:
        sys.exit(f"{wav_path}: want 16 kHz 16-bit mono")
    samples = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16)
    it = runtime.Interpreter.from_file(preproc_path)
    window, stride = 480, 320  # 30 ms, 20 ms at 16 kHz
    feats = np.zeros((49, 40), dtype=np.int8)
    start, frame = 0, 0
    while start + window <= len(samples) and frame < 49:
        it.set_input(samples[start:start + window].reshape(1, -1), 0)
        it.invoke()
        feats[frame] = it.get_output(0)
        start += stride
        frame += 1
    open(out_path, "wb").write(feats.tobytes())


def main(argv):
    if len(argv) >= 4 and argv[1] == "dump":
        dump(argv[2], argv[3], argv[4:])
    elif len(argv) == 3 and argv[1] == "batch":
        for line in open(argv[2]):
            if line.strip():
                model, out, *runs = line.rstrip("\n").split("\t")
                dump(model, out, runs)
    elif len(argv) == 3 and argv[1] == "batch-tolerant":
        # Each model's dump, or (TFLM refusing it) `<out>.refused` holding why: a mutant
        # sweep's models may be refused by TFLM.
        for line in open(argv[2]):
            if line.strip():
                model, out, *runs = line.rstrip("\n").split("\t")
                try:
                    why = stale_read(open(model, "rb").read())
                    if why is not None:
                        # Not an oracle there: counted apart by the sweep.
                        open(out + ".refused", "w").write(f"unwritten: {why}")
                        continue
                    dump(model, out, runs)
                except BaseException as e:  # RuntimeError, ValueError, SystemExit, ...
                    if os.path.exists(out):
                        os.remove(out)
                    open(out + ".refused", "w").write(f"{type(e).__name__}: {e}")
                sys.stdout.flush()
    elif len(argv) == 5 and argv[1] == "features":
        features(argv[2], argv[3], argv[4])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
