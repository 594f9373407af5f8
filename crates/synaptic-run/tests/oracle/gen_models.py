#!/usr/bin/env python3
"""Writes the single-operator test models of synaptic-run (tests/models/*.tflite): int8, and
float32 (f32_*).

Each model is one operator whose activation inputs are graph inputs and whose weights, bias and
parameter tensors are constants, with options chosen to cover what the five target models do
not: strides, dilation, SAME/VALID, every fused activation, depth multipliers, per-channel and
per-tensor weights, broadcasting, negative axes. The quantization parameters are odd on
purpose (non-power-of-two scales, non-zero zero points).

The flatbuffers are built with the TFLite schema's object API that TFLM's own wheel ships
(`tflite_micro...schema_py_generated`), so no TensorFlow is needed; TFLM then serves as the
oracle for them exactly as for the real models. Deterministic: the same script writes the same
bytes. Run: `.venv-oracle/bin/python crates/synaptic-run/tests/oracle/gen_models.py`.

`gen_models.py --sweep SEED COUNT DIR` writes COUNT models of random structure and
quantization instead (the oracle test's sweep, generated at test time, not committed).
"""

import os
import sys

import flatbuffers
import numpy as np
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as s

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models")
T = s.TensorType
OPS = s.BuiltinOperator
OPT = s.BuiltinOptions
ACT = s.ActivationFunctionType
PAD = s.Padding


def quant(scale, zero_point, dim=0):
    q = s.QuantizationParametersT()
    q.scale = [float(np.float32(x)) for x in np.atleast_1d(scale)]
    q.zeroPoint = [int(z) for z in np.atleast_1d(zero_point)]
    q.quantizedDimension = dim
    return q


class Builder:
    def __init__(self):
        self.tensors, self.buffers = [], [s.BufferT()]  # buffer 0: the empty sentinel

    def tensor(self, name, shape, ttype, q=None, data=None):
        t = s.TensorT()
        t.name, t.shape, t.type, t.quantization = name, list(shape), ttype, q
        if data is None:
            t.buffer = 0
        else:
            b = s.BufferT()
            b.data = list(np.ascontiguousarray(data).tobytes())
            self.buffers.append(b)
            t.buffer = len(self.buffers) - 1
        self.tensors.append(t)
        return len(self.tensors) - 1

    def write(self, name, opcode, inputs, outputs, options_type=0, options=None):
        """A model of one operator: `opcode` a builtin code, or a custom operator's name (a
        string) whose `options` are then its FlexBuffer bytes (`flex`)."""
        graph_inputs = [i for i in inputs if i >= 0 and self.tensors[i].buffer == 0]
        self.write_ops(name, [(opcode, inputs, outputs, options_type, options)], graph_inputs,
                       outputs)

    def write_ops(self, name, ops, graph_inputs, graph_outputs):
        """A model of `ops` ((opcode, inputs, outputs, options type, options) each, in order)."""
        codes, operators = [], []
        for opcode, inputs, outputs, options_type, options in ops:
            if opcode not in codes:
                codes.append(opcode)
            op = s.OperatorT()
            op.opcodeIndex, op.inputs, op.outputs = codes.index(opcode), inputs, outputs
            if isinstance(opcode, str):
                # A custom operator: its options are a FlexBuffer (`custom_options`).
                op.customOptions = list(bytes(options or b""))
                op.customOptionsFormat = s.CustomOptionsFormat.FLEXBUFFERS
            else:
                op.builtinOptionsType, op.builtinOptions = options_type, options
            operators.append(op)
        op_codes = []
        for opcode in codes:
            code = s.OperatorCodeT()
            if isinstance(opcode, str):
                # A custom operator's code is its name (`custom_code`).
                code.builtinCode = code.deprecatedBuiltinCode = OPS.CUSTOM
                code.customCode = opcode
            else:
                code.builtinCode = opcode
                code.deprecatedBuiltinCode = min(opcode, 127)
            code.version = 1
            op_codes.append(code)
        sg = s.SubGraphT()
        sg.tensors, sg.operators, sg.name = self.tensors, operators, "main"
        sg.inputs = graph_inputs
        sg.outputs = graph_outputs
        m = s.ModelT()
        m.version, m.operatorCodes, m.subgraphs, m.buffers = 3, op_codes, [sg], self.buffers
        m.description = "synaptic-run single-operator test model"
        fb = flatbuffers.Builder(1024)
        fb.Finish(m.Pack(fb), file_identifier=b"TFL3")
        with open(os.path.join(OUT, name + ".tflite"), "wb") as f:
            f.write(fb.Output())
        if not name.startswith("rand_"):
            print(name)


def flex(options):
    """A custom operator's options: `options` (a dict) as a FlexBuffer map, its keys sorted
    (as TFLM's generated `*_flexbuffers_generated_data` and the converter write them)."""
    from flatbuffers import flexbuffers
    return bytes(flexbuffers.Dumps(options))


def signal_fft(name, op, ttype, fft_length, in_shape, in_last=None):
    """The signal library's SignalRfft or SignalIrfft of `ttype` (its options' `T`, a TFLite
    type code, as the converter writes it) over the last dimension of `in_shape`: RFFT's
    output rows `fft_length / 2 + 1` complex values, IRFFT's `fft_length` samples."""
    b = Builder()
    code = {T.INT16: 7, T.INT32: 2, T.FLOAT32: 0}[ttype]
    last = (fft_length // 2 + 1) * 2 if op == "SignalRfft" else fft_length
    i = b.tensor("input", in_shape, ttype)
    o = b.tensor("output", list(in_shape[:-1]) + [last], ttype)
    b.write(name, op, [i], [o], options=flex({"T": code, "fft_length": fft_length}))


def decode_lut(name, seed, shape, ttype, width, stride, channels=1, axis=0, add=False):
    """TFLM_DECODE's lookup table (decode type 0): an encoded tensor of `width`-bit indices
    (most significant bit first) and its ancillary tensor (the 16-byte DCM, then `channels`
    value tables of `stride` elements of `ttype`), decoded into the graph's output (no graph
    input). `channels` > 1: the output per-channel quantized along `axis` (0 or the last).
    `add`: the int8 decoded tensor an activation of an ADD with the graph's input after it."""
    r = rng(seed)
    b = Builder()
    np_ty = {T.BOOL: np.bool_, T.INT8: np.int8, T.INT16: np.int16, T.INT32: np.int32,
             T.INT64: np.int64, T.FLOAT32: np.float32}[ttype]
    count = int(np.prod(shape))
    if ttype == T.BOOL:
        tables = np.tile(np.array([False, True] + [False] * (stride - 2))[:stride], channels)
    elif ttype == T.FLOAT32:
        tables = (r.standard_normal(channels * stride) * 3).astype(np.float32)
    else:
        info = np.iinfo(np_ty)
        tables = r.integers(max(info.min, -(1 << 40)), min(info.max, 1 << 40), channels * stride,
                            dtype=np.int64, endpoint=True).astype(np_ty)
    indices = r.integers(0, min(stride, 1 << width), count)
    bits = []
    for i in indices:
        bits.extend((int(i) >> k) & 1 for k in range(width - 1, -1, -1))
    bits += [0] * (-len(bits) % 8)
    enc = np.packbits(np.array(bits, dtype=np.uint8))
    dcm = bytes([0, 1, 0, 0, 1, width, stride]) + bytes(9)
    anc = np.frombuffer(dcm + np.ascontiguousarray(tables).tobytes(), dtype=np.uint8)
    q = None
    if channels > 1:
        q = quant(0.01 + r.random(channels) * 0.1, np.zeros(channels, dtype=int), axis)
    e = b.tensor("encoded", [len(enc)], T.UINT8, data=enc)
    a = b.tensor("ancillary", [len(anc)], T.UINT8, data=anc)
    if add:
        d = b.tensor("decoded", shape, ttype, quant(0.05, 3))
        x = b.tensor("input", shape, T.INT8, quant(0.07, -5))
        o = b.tensor("output", shape, T.INT8, quant(0.1, 2))
        b.write_ops(name, [("TFLM_DECODE", [e, a], [d], 0, None),
                           (OPS.ADD, [x, d], [o], *arithmetic_options(OPS.ADD, ACT.NONE))],
                    [x], [o])
        return
    o = b.tensor("output", shape, ttype, q)
    b.write_ops(name, [("TFLM_DECODE", [e, a], [o], 0, None)], [], [o])


def decode_prune(name, seed, shape, ttype, keep, zero_point=0, channels=1, axis=0):
    """TFLM_DECODE's pruning (decode type 2): a bitmap of the output's elements (most
    significant bit first, a fraction `keep` of them 1) and its ancillary tensor (the 16-byte
    DCM, then the kept values of `ttype` in order), decoded into the graph's output (no graph
    input); the others the output's zero point (`zero_point`, quantized when not None)."""
    r = rng(seed)
    b = Builder()
    np_ty = {T.BOOL: np.bool_, T.INT8: np.int8, T.INT16: np.int16, T.INT32: np.int32,
             T.INT64: np.int64, T.FLOAT32: np.float32}[ttype]
    count = int(np.prod(shape))
    bits = (r.random(count) < keep).astype(np.uint8)
    kept = int(bits.sum())
    if ttype == T.BOOL:
        values = r.integers(0, 2, kept).astype(np.bool_)
    elif ttype == T.FLOAT32:
        values = (r.standard_normal(kept) * 3).astype(np.float32)
    else:
        info = np.iinfo(np_ty)
        values = r.integers(max(info.min, -(1 << 40)), min(info.max, 1 << 40), kept,
                            dtype=np.int64, endpoint=True).astype(np_ty)
    enc = np.packbits(bits)
    dcm = bytes([2, 1, 0, 0, 1]) + bytes(11)
    anc = np.frombuffer(dcm + np.ascontiguousarray(values).tobytes(), dtype=np.uint8)
    q = None
    if zero_point is not None:
        q = quant(0.01 + r.random(channels) * 0.1, np.full(channels, zero_point), axis)
    e = b.tensor("encoded", [len(enc)], T.UINT8, data=enc)
    a = b.tensor("ancillary", [len(anc)], T.UINT8, data=anc)
    o = b.tensor("output", shape, ttype, q)
    b.write_ops(name, [("TFLM_DECODE", [e, a], [o], 0, None)], [], [o])


def decode_huffman(name, seed, shape, ttype, n_symbols, first, wide):
    """TFLM_DECODE's Huffman (decode type 1): a Huffman code of `n_symbols` values of random
    frequencies, its codewords most significant bit first in 32-bit big-endian words (one
    zero word after), and its Xtensa-format tables (16- or 32-bit elements, `wide`) after the
    16-byte DCM: a first lookup of `first` bits, one table a longer prefix (links)."""
    import heapq
    r = rng(seed)
    b = Builder()
    count = int(np.prod(shape))
    if ttype == T.INT8:
        symbols = r.permutation(256)[:n_symbols] - 128
    else:
        symbols = r.choice(65536, n_symbols, replace=False) - 32768
    freq = r.random(n_symbols) ** 3 + 0.01
    heap = [(f, k, [k]) for k, f in enumerate(freq)]
    heapq.heapify(heap)
    length = [0] * n_symbols
    tie = n_symbols
    while len(heap) > 1:
        f1, _, a = heapq.heappop(heap)
        f2, _, c = heapq.heappop(heap)
        for k in a + c:
            length[k] += 1
        heapq.heappush(heap, (f1 + f2, tie, a + c))
        tie += 1
    assert max(length) <= first + 16
    code, nxt, prev = {}, 0, 0
    for k in sorted(range(n_symbols), key=lambda k: (length[k], k)):
        nxt <<= length[k] - prev
        prev = length[k]
        code[k] = nxt
        nxt += 1
    shift, vmask = (27, 0x07FFFFFF) if wide else (11, 0x07FF)
    found = 1 << (31 if wide else 15)
    low = 0xFF if ttype == T.INT8 else 0xFFFF

    def symbol(k, used):
        return found | (used << shift) | (int(symbols[k]) & low)

    table = [0] * (1 << first)
    for idx in range(1 << first):
        short = [k for k in code if length[k] <= first and code[k] == idx >> (first - length[k])]
        if short:
            table[idx] = symbol(short[0], length[k := short[0]])
            continue
        group = [k for k in code if length[k] > first and code[k] >> (length[k] - first) == idx]
        m = max(length[k] - first for k in group)
        start = len(table)
        assert start - idx <= vmask
        table[idx] = ((m - 1) << shift) | (start - idx)
        sub = [0] * (1 << m)
        for j in range(1 << m):
            for k in group:
                rest = length[k] - first
                if code[k] & ((1 << rest) - 1) == j >> (m - rest):
                    sub[j] = symbol(k, rest)
                    break
        table += sub
    picks = r.choice(n_symbols, count, p=freq / freq.sum())
    bits = []
    for k in picks:
        bits.extend((code[k] >> i) & 1 for i in range(length[k] - 1, -1, -1))
    bits += [0] * (-len(bits) % 32 + 32)
    enc = np.packbits(np.array(bits, dtype=np.uint8))
    dcm = bytes([1, 1, 0, 0, 1, ((first - 1) << 4) | (1 if wide else 0)]) + bytes(10)
    tables = np.array(table, dtype=np.uint32 if wide else np.uint16).astype("<u4" if wide else "<u2")
    anc = np.frombuffer(dcm + tables.tobytes(), dtype=np.uint8)
    e = b.tensor("encoded", [len(enc)], T.UINT8, data=enc)
    a = b.tensor("ancillary", [len(anc)], T.UINT8, data=anc)
    o = b.tensor("output", shape, ttype)
    b.write_ops(name, [("TFLM_DECODE", [e, a], [o], 0, None)], [], [o])


def rng(seed):
    return np.random.default_rng(seed)


def conv(name, seed, in_shape, out_c, kh, kw, stride, dilation, padding, act, per_channel, groups=1):
    r = rng(seed)
    b = Builder()
    in_c = in_shape[3]
    f_shape = [out_c, kh, kw, in_c // groups]
    in_q = quant(0.05 + r.random() * 0.1, r.integers(-20, 20))
    f_scales = (0.002 + r.random(out_c) * 0.02) if per_channel else 0.01 + r.random() * 0.01
    out_q = quant(0.08 + r.random() * 0.2, r.integers(-30, 30))
    i = b.tensor("input", in_shape, T.INT8, in_q)
    f = b.tensor("filter", f_shape, T.INT8, quant(f_scales, np.zeros(np.size(f_scales), int)),
                 r.integers(-127, 128, f_shape, dtype=np.int8))
    bias_scale = in_q.scale[0] * np.atleast_1d(f_scales)
    bias = b.tensor("bias", [out_c], T.INT32, quant(bias_scale, np.zeros(np.size(bias_scale), int)),
                    r.integers(-3000, 3000, out_c, dtype=np.int32))
    oh = _out(in_shape[1], kh, stride[0], dilation[0], padding)
    ow = _out(in_shape[2], kw, stride[1], dilation[1], padding)
    o = b.tensor("output", [in_shape[0], oh, ow, out_c], T.INT8, out_q)
    opt = s.Conv2DOptionsT()
    opt.padding, opt.strideH, opt.strideW = padding, stride[0], stride[1]
    opt.dilationHFactor, opt.dilationWFactor, opt.fusedActivationFunction = dilation[0], dilation[1], act
    b.write(name, OPS.CONV_2D, [i, f, bias], [o], OPT.Conv2DOptions, opt)


def _out(size, k, stride, dilation, padding):
    eff = (k - 1) * dilation + 1
    return (size + stride - 1) // stride if padding == PAD.SAME else (size + stride - eff) // stride


def depthwise(name, seed, in_shape, mult, kh, kw, stride, dilation, padding, act, per_channel,
              gain=1.0):
    """`gain` scales the filter's scales: above ~5 the requantization multiplier is at least
    0.5 (a left shift, the kernels' general path)."""
    r = rng(seed)
    b = Builder()
    out_c = in_shape[3] * mult
    f_shape = [1, kh, kw, out_c]
    in_q = quant(0.03 + r.random() * 0.1, r.integers(-20, 20))
    f_scales = gain * ((0.002 + r.random(out_c) * 0.02) if per_channel else 0.015)
    out_q = quant(0.05 + r.random() * 0.1, r.integers(-30, 30))
    i = b.tensor("input", in_shape, T.INT8, in_q)
    f = b.tensor("filter", f_shape, T.INT8, quant(f_scales, np.zeros(np.size(f_scales), int), dim=3),
                 r.integers(-127, 128, f_shape, dtype=np.int8))
    bias = b.tensor("bias", [out_c], T.INT32, quant(in_q.scale[0] * np.atleast_1d(f_scales), np.zeros(np.size(f_scales), int)),
                    r.integers(-2000, 2000, out_c, dtype=np.int32))
    oh = _out(in_shape[1], kh, stride[0], dilation[0], padding)
    ow = _out(in_shape[2], kw, stride[1], dilation[1], padding)
    o = b.tensor("output", [in_shape[0], oh, ow, out_c], T.INT8, out_q)
    opt = s.DepthwiseConv2DOptionsT()
    opt.padding, opt.strideH, opt.strideW, opt.depthMultiplier = padding, stride[0], stride[1], mult
    opt.dilationHFactor, opt.dilationWFactor, opt.fusedActivationFunction = dilation[0], dilation[1], act
    b.write(name, OPS.DEPTHWISE_CONV_2D, [i, f, bias], [o], OPT.DepthwiseConv2DOptions, opt)


def fully_connected(name, seed, in_shape, units, act, per_channel, bias=True):
    r = rng(seed)
    b = Builder()
    depth = in_shape[-1]
    batches = int(np.prod(in_shape)) // depth
    in_q = quant(0.02 + r.random() * 0.1, r.integers(-50, 50))
    f_scales = (0.001 + r.random(units) * 0.01) if per_channel else 0.004 + r.random() * 0.01
    out_q = quant(0.05 + r.random() * 0.3, r.integers(-40, 40))
    i = b.tensor("input", in_shape, T.INT8, in_q)
    f = b.tensor("filter", [units, depth], T.INT8, quant(f_scales, np.zeros(np.size(f_scales), int)),
                 r.integers(-127, 128, [units, depth], dtype=np.int8))
    bi = -1
    if bias:
        bi = b.tensor("bias", [units], T.INT32, quant(in_q.scale[0] * np.atleast_1d(f_scales), np.zeros(np.size(f_scales), int)),
                      r.integers(-5000, 5000, units, dtype=np.int32))
    o = b.tensor("output", [batches, units], T.INT8, out_q)
    opt = s.FullyConnectedOptionsT()
    opt.fusedActivationFunction = act
    b.write(name, OPS.FULLY_CONNECTED, [i, f, bi], [o], OPT.FullyConnectedOptions, opt)


def pack_int4(values):
    """Packs int4 values (-8..7) two a byte as TFLite's INT4 buffers: element 2k in the low
    nibble, 2k+1 in the high one; an odd count leaves the last high nibble 0."""
    v = (np.asarray(values, dtype=np.int8).reshape(-1) & 0xF).astype(np.uint8)
    if v.size % 2:
        v = np.append(v, np.uint8(0))
    return (v[0::2] | (v[1::2] << 4)).astype(np.uint8)


def fully_connected_i4(name, seed, in_shape, units, act, bias=True, filter_zp=0):
    """FULLY_CONNECTED with a packed INT4 constant filter (per-tensor: TFLM refuses per-channel
    int4 FC), int8 activations."""
    r = rng(seed)
    b = Builder()
    depth = in_shape[-1]
    batches = int(np.prod(in_shape)) // depth
    in_q = quant(0.02 + r.random() * 0.1, r.integers(-50, 50))
    f_scale = 0.05 + r.random() * 0.1
    out_q = quant(0.05 + r.random() * 0.3, r.integers(-40, 40))
    i = b.tensor("input", in_shape, T.INT8, in_q)
    f = b.tensor("filter", [units, depth], T.INT4, quant(f_scale, filter_zp),
                 pack_int4(r.integers(-8, 8, [units, depth])))
    bi = -1
    if bias:
        bi = b.tensor("bias", [units], T.INT32, quant(in_q.scale[0] * f_scale, 0),
                      r.integers(-500, 500, units, dtype=np.int32))
    o = b.tensor("output", [batches, units], T.INT8, out_q)
    opt = s.FullyConnectedOptionsT()
    opt.fusedActivationFunction = act
    b.write(name, OPS.FULLY_CONNECTED, [i, f, bi], [o], OPT.FullyConnectedOptions, opt)


def conv_i4(name, seed, in_shape, out_c, kh, kw, stride, dilation, padding, act, per_channel,
            groups=1, bias=True):
    """CONV_2D with a packed INT4 constant filter (`pack_int4`), int8 activations."""
    r = rng(seed)
    b = Builder()
    in_c = in_shape[3]
    f_shape = [out_c, kh, kw, in_c // groups]
    in_q = quant(0.05 + r.random() * 0.1, r.integers(-20, 20))
    f_scales = (0.02 + r.random(out_c) * 0.2) if per_channel else 0.1 + r.random() * 0.1
    out_q = quant(0.08 + r.random() * 0.2, r.integers(-30, 30))
    i = b.tensor("input", in_shape, T.INT8, in_q)
    f = b.tensor("filter", f_shape, T.INT4, quant(f_scales, np.zeros(np.size(f_scales), int)),
                 pack_int4(r.integers(-8, 8, f_shape)))
    bi = -1
    if bias:
        bias_scale = in_q.scale[0] * np.atleast_1d(f_scales)
        bi = b.tensor("bias", [out_c], T.INT32, quant(bias_scale, np.zeros(np.size(bias_scale), int)),
                      r.integers(-300, 300, out_c, dtype=np.int32))
    oh = _out(in_shape[1], kh, stride[0], dilation[0], padding)
    ow = _out(in_shape[2], kw, stride[1], dilation[1], padding)
    o = b.tensor("output", [in_shape[0], oh, ow, out_c], T.INT8, out_q)
    opt = s.Conv2DOptionsT()
    opt.padding, opt.strideH, opt.strideW = padding, stride[0], stride[1]
    opt.dilationHFactor, opt.dilationWFactor, opt.fusedActivationFunction = dilation[0], dilation[1], act
    b.write(name, OPS.CONV_2D, [i, f, bi], [o], OPT.Conv2DOptions, opt)


def depthwise_i4(name, seed, in_shape, mult, kh, kw, stride, dilation, padding, act, per_channel):
    """DEPTHWISE_CONV_2D with a packed INT4 constant filter (`pack_int4`), int8 activations."""
    r = rng(seed)
    b = Builder()
    out_c = in_shape[3] * mult
    f_shape = [1, kh, kw, out_c]
    in_q = quant(0.03 + r.random() * 0.1, r.integers(-20, 20))
    f_scales = (0.02 + r.random(out_c) * 0.2) if per_channel else 0.15
    out_q = quant(0.05 + r.random() * 0.1, r.integers(-30, 30))
    i = b.tensor("input", in_shape, T.INT8, in_q)
    f = b.tensor("filter", f_shape, T.INT4, quant(f_scales, np.zeros(np.size(f_scales), int), dim=3),
                 pack_int4(r.integers(-8, 8, f_shape)))
    bias = b.tensor("bias", [out_c], T.INT32, quant(in_q.scale[0] * np.atleast_1d(f_scales), np.zeros(np.size(f_scales), int)),
                    r.integers(-200, 200, out_c, dtype=np.int32))
    oh = _out(in_shape[1], kh, stride[0], dilation[0], padding)
    ow = _out(in_shape[2], kw, stride[1], dilation[1], padding)
    o = b.tensor("output", [in_shape[0], oh, ow, out_c], T.INT8, out_q)
    opt = s.DepthwiseConv2DOptionsT()
    opt.padding, opt.strideH, opt.strideW, opt.depthMultiplier = padding, stride[0], stride[1], mult
    opt.dilationHFactor, opt.dilationWFactor, opt.fusedActivationFunction = dilation[0], dilation[1], act
    b.write(name, OPS.DEPTHWISE_CONV_2D, [i, f, bias], [o], OPT.DepthwiseConv2DOptions, opt)


def _i16_out_scale(r, in_scale, f_scales, taps, gain=1.0):
    """An int16 output scale that keeps most sums of `taps` random int16 x int8 products inside
    int16's range (some saturate), `gain` times smaller."""
    return float(in_scale * np.mean(f_scales) * np.sqrt(taps) * (200 + 100 * r.random()) / gain)


def _i16_bias(b, r, in_q, f_scales, n, bias_type, bias_edge=None):
    """A 16x8 kernel's bias of `bias_type` (int64, int32; None: no bias), scale input x filter;
    `bias_edge` (a magnitude): biases of about that size, of alternating signs (sums that wrap
    an int32 accumulator, or leave the 64-bit requantization's int32 result)."""
    if bias_type is None:
        return -1
    bias_scale = in_q.scale[0] * np.atleast_1d(f_scales)
    bnp = np.int64 if bias_type == T.INT64 else np.int32
    if bias_edge is None:
        values = r.integers(-3_000_000, 3_000_000, n).astype(bnp)
    else:
        values = np.array([(bias_edge - k) * (-1) ** k for k in range(n)], dtype=bnp)
    return b.tensor("bias", [n], bias_type, quant(bias_scale, np.zeros(np.size(bias_scale), int)),
                    values)


def conv_i16(name, seed, in_shape, out_c, kh, kw, stride, dilation, padding, act, per_channel,
             bias_type=T.INT64, groups=1, qbt=None, gain=1.0):
    """CONV_2D 16x8: int16 input and output of zero point 0, an int8 filter (per-channel or
    per-tensor scales), a `bias_type` bias (None: none; `qbt` the options' quantized_bias_type)."""
    r = rng(seed)
    b = Builder()
    in_c = in_shape[3]
    f_shape = [out_c, kh, kw, in_c // groups]
    in_q = quant(0.0005 + r.random() * 0.001, 0)
    f_scales = (0.002 + r.random(out_c) * 0.02) if per_channel else 0.01 + r.random() * 0.01
    out_q = quant(_i16_out_scale(r, in_q.scale[0], f_scales, kh * kw * f_shape[3], gain), 0)
    i = b.tensor("input", in_shape, T.INT16, in_q)
    f = b.tensor("filter", f_shape, T.INT8, quant(f_scales, np.zeros(np.size(f_scales), int)),
                 r.integers(-127, 128, f_shape, dtype=np.int8))
    bi = _i16_bias(b, r, in_q, f_scales, out_c, bias_type)
    oh = _out(in_shape[1], kh, stride[0], dilation[0], padding)
    ow = _out(in_shape[2], kw, stride[1], dilation[1], padding)
    o = b.tensor("output", [in_shape[0], oh, ow, out_c], T.INT16, out_q)
    opt = s.Conv2DOptionsT()
    opt.padding, opt.strideH, opt.strideW = padding, stride[0], stride[1]
    opt.dilationHFactor, opt.dilationWFactor, opt.fusedActivationFunction = dilation[0], dilation[1], act
    if qbt is not None:
        opt.quantizedBiasType = qbt
    b.write(name, OPS.CONV_2D, [i, f, bi], [o], OPT.Conv2DOptions, opt)


def depthwise_i16(name, seed, in_shape, mult, kh, kw, stride, dilation, padding, act, per_channel,
                  bias=True):
    """DEPTHWISE_CONV_2D 16x8: int16 input and output of zero point 0, an int8 filter, an int64
    bias (or none)."""
    r = rng(seed)
    b = Builder()
    out_c = in_shape[3] * mult
    f_shape = [1, kh, kw, out_c]
    in_q = quant(0.0005 + r.random() * 0.001, 0)
    f_scales = (0.002 + r.random(out_c) * 0.02) if per_channel else 0.015
    out_q = quant(_i16_out_scale(r, in_q.scale[0], f_scales, kh * kw), 0)
    i = b.tensor("input", in_shape, T.INT16, in_q)
    f = b.tensor("filter", f_shape, T.INT8, quant(f_scales, np.zeros(np.size(f_scales), int), dim=3),
                 r.integers(-127, 128, f_shape, dtype=np.int8))
    bi = _i16_bias(b, r, in_q, f_scales, out_c, T.INT64 if bias else None)
    oh = _out(in_shape[1], kh, stride[0], dilation[0], padding)
    ow = _out(in_shape[2], kw, stride[1], dilation[1], padding)
    o = b.tensor("output", [in_shape[0], oh, ow, out_c], T.INT16, out_q)
    opt = s.DepthwiseConv2DOptionsT()
    opt.padding, opt.strideH, opt.strideW, opt.depthMultiplier = padding, stride[0], stride[1], mult
    opt.dilationHFactor, opt.dilationWFactor, opt.fusedActivationFunction = dilation[0], dilation[1], act
    # Without a bias two inputs: TFLM's Prepare frees an absent third one (-1) and crashes.
    ins = [i, f, bi] if bias else [i, f]
    b.write(name, OPS.DEPTHWISE_CONV_2D, ins, [o], OPT.DepthwiseConv2DOptions, opt)


def fully_connected_i16(name, seed, in_shape, units, act, per_channel, bias_type=T.INT64,
                        qbt=None, zero_points=(0, 0), bias_edge=None):
    """FULLY_CONNECTED 16x8: int16 input and output (zero points `zero_points`, 0 as the
    converter writes them unless given), an int8 filter, a `bias_type` bias (None: none; `qbt`
    the options' quantized_bias_type)."""
    r = rng(seed)
    b = Builder()
    depth = in_shape[-1]
    batches = int(np.prod(in_shape)) // depth
    in_q = quant(0.0005 + r.random() * 0.001, zero_points[0])
    f_scales = (0.001 + r.random(units) * 0.01) if per_channel else 0.004 + r.random() * 0.01
    out_q = quant(_i16_out_scale(r, in_q.scale[0], f_scales, depth), zero_points[1])
    i = b.tensor("input", in_shape, T.INT16, in_q)
    f = b.tensor("filter", [units, depth], T.INT8, quant(f_scales, np.zeros(np.size(f_scales), int)),
                 r.integers(-127, 128, [units, depth], dtype=np.int8))
    bi = _i16_bias(b, r, in_q, f_scales, units, bias_type, bias_edge)
    o = b.tensor("output", [batches, units], T.INT16, out_q)
    opt = s.FullyConnectedOptionsT()
    opt.fusedActivationFunction = act
    if qbt is not None:
        opt.quantizedBiasType = qbt
    b.write(name, OPS.FULLY_CONNECTED, [i, f, bi], [o], OPT.FullyConnectedOptions, opt)


def pool(name, seed, opcode, in_shape, k, stride, padding, act):
    r = rng(seed)
    b = Builder()
    q = quant(0.03 + r.random() * 0.1, r.integers(-20, 20))
    i = b.tensor("input", in_shape, T.INT8, q)
    oh = _out(in_shape[1], k[0], stride[0], 1, padding)
    ow = _out(in_shape[2], k[1], stride[1], 1, padding)
    o = b.tensor("output", [in_shape[0], oh, ow, in_shape[3]], T.INT8, q)
    opt = s.Pool2DOptionsT()
    opt.padding, opt.strideH, opt.strideW = padding, stride[0], stride[1]
    opt.filterHeight, opt.filterWidth, opt.fusedActivationFunction = k[0], k[1], act
    b.write(name, opcode, [i], [o], OPT.Pool2DOptions, opt)


def softmax(name, shape, beta, scale, zp):
    b = Builder()
    i = b.tensor("input", shape, T.INT8, quant(scale, zp))
    o = b.tensor("output", shape, T.INT8, quant(1.0 / 256, -128))
    opt = s.SoftmaxOptionsT()
    opt.beta = beta
    b.write(name, OPS.SOFTMAX, [i], [o], OPT.SoftmaxOptions, opt)


def logistic(name, shape, scale, zp):
    b = Builder()
    i = b.tensor("input", shape, T.INT8, quant(scale, zp))
    o = b.tensor("output", shape, T.INT8, quant(1.0 / 256, -128))
    b.write(name, OPS.LOGISTIC, [i], [o])


def relu(name, opcode, shape, in_q, out_q):
    """RELU (its own output quantization: a requantization) or RELU6 (TFLM clamps the input's
    values: the output's quantization is the input's)."""
    b = Builder()
    i = b.tensor("input", shape, T.INT8, quant(*in_q))
    o = b.tensor("output", shape, T.INT8, quant(*out_q))
    b.write(name, opcode, [i], [o])


def expand_dims(name, ttype, in_shape, axis):
    b = Builder()
    q = quant(0.07, -3) if ttype == T.INT8 else None
    i = b.tensor("input", in_shape, ttype, q)
    a = b.tensor("axis", [1], T.INT32, None, np.array([axis], dtype=np.int32))
    r = len(in_shape)
    at = axis if axis >= 0 else r + 1 + axis
    o = b.tensor("output", in_shape[:at] + [1] + in_shape[at:], ttype, q)
    b.write(name, OPS.EXPAND_DIMS, [i, a], [o])


def slice_(name, ttype, in_shape, begin, size, itype=T.INT32):
    b = Builder()
    q = quant(0.07, -3) if ttype == T.INT8 else None
    i = b.tensor("input", in_shape, ttype, q)
    it = np.int32 if itype == T.INT32 else np.int64
    bg = b.tensor("begin", [len(begin)], itype, None, np.array(begin, dtype=it))
    sz = b.tensor("size", [len(size)], itype, None, np.array(size, dtype=it))
    out = [d - f if n == -1 else n for d, f, n in zip(in_shape, begin, size)]
    o = b.tensor("output", out, ttype, q)
    b.write(name, OPS.SLICE, [i, bg, sz], [o])


def pack(name, ttype, shape, n, axis, const_first=False):
    b = Builder()
    q = quant(0.07, -3) if ttype == T.INT8 else None
    dt = {T.INT8: np.int8, T.INT16: np.int16, T.INT32: np.int32, T.INT64: np.int64,
          T.FLOAT32: np.float32}[ttype]
    first = np.arange(int(np.prod(shape))).reshape(shape).astype(dt) if const_first else None
    ins = [b.tensor(f"in{k}", shape, ttype, q, first if k == 0 else None) for k in range(n)]
    at = axis if axis >= 0 else len(shape) + 1 + axis
    o = b.tensor("output", shape[:at] + [n] + shape[at:], ttype, q)
    opt = s.PackOptionsT()
    opt.valuesCount, opt.axis = n, axis
    b.write(name, OPS.PACK, ins, [o], OPT.PackOptions, opt)


def split(name, ttype, in_shape, axis, parts, sizes=None, opcode=None):
    """SPLIT into `parts` equal parts along `axis` (a constant); SPLIT_V (`sizes`, one may be
    -1) or UNPACK (`opcode`) otherwise."""
    b = Builder()
    q = quant(0.07, -3) if ttype in (T.INT8, T.INT16) else None
    if ttype == T.INT16:
        q = quant(0.002, 0)
    rank = len(in_shape)
    a = axis + rank if axis < 0 else axis
    if opcode == OPS.UNPACK:
        x = b.tensor("input", in_shape, ttype, q)
        outs = [b.tensor(f"out{k}", in_shape[:a] + in_shape[a + 1:], ttype, q)
                for k in range(in_shape[a])]
        opt = s.UnpackOptionsT()
        opt.num, opt.axis = in_shape[a], axis
        b.write(name, OPS.UNPACK, [x], outs, OPT.UnpackOptions, opt)
        return
    if sizes is None:
        lens = [in_shape[a] // parts] * parts
    else:
        known = sum(v for v in sizes if v >= 0)
        lens = [v if v >= 0 else in_shape[a] - known for v in sizes]
    ax = b.tensor("axis", [], T.INT32, None, np.array([axis], dtype=np.int32))
    x = b.tensor("input", in_shape, ttype, q)
    outs = [b.tensor(f"out{k}", in_shape[:a] + [n] + in_shape[a + 1:], ttype, q)
            for k, n in enumerate(lens)]
    if sizes is None:
        opt = s.SplitOptionsT()
        opt.numSplits = parts
        b.write(name, OPS.SPLIT, [ax, x], outs, OPT.SplitOptions, opt)
    else:
        sz = b.tensor("size_splits", [len(sizes)], T.INT32, None, np.array(sizes, dtype=np.int32))
        opt = s.SplitVOptionsT()
        opt.numSplits = len(sizes)
        b.write(name, OPS.SPLIT_V, [x, sz, ax], outs, OPT.SplitVOptions, opt)


def unpack_pack(name, ttype, in_shape):
    """UNPACK along axis 0 into in_shape[0] outputs (more than a model's graph I/O may have),
    then PACK of them in reverse order: the outputs are activations of a two-operator model."""
    b = Builder()
    n = in_shape[0]
    x = b.tensor("input", in_shape, ttype, None)
    outs = [b.tensor(f"part{k}", in_shape[1:], ttype, None) for k in range(n)]
    o = b.tensor("output", [n] + in_shape[1:], ttype, None)
    u = s.UnpackOptionsT()
    u.num, u.axis = n, 0
    pk = s.PackOptionsT()
    pk.valuesCount, pk.axis = n, 0
    b.write_ops(name, [(OPS.UNPACK, [x], outs, OPT.UnpackOptions, u),
                       (OPS.PACK, outs[::-1], [o], OPT.PackOptions, pk)], [x], [o])


def fill(name, ttype, out_shape, dims_type, value=None):
    """FILL of `out_shape` (a `dims_type` constant) with a scalar: a graph input, or the
    constant `value`."""
    b = Builder()
    q = quant(0.07, -3) if ttype == T.INT8 else None
    it = {T.INT8: np.int8, T.INT16: np.int16, T.INT32: np.int32, T.INT64: np.int64}[dims_type]
    d = b.tensor("dims", [len(out_shape)], dims_type, None, np.array(out_shape, dtype=it))
    vt = {T.INT8: np.int8, T.INT32: np.int32, T.FLOAT32: np.float32}[ttype]
    v = b.tensor("value", [], ttype, q, None if value is None else np.array(value, dtype=vt))
    o = b.tensor("output", out_shape, ttype, q)
    b.write(name, OPS.FILL, [d, v], [o])


def zeros_like(name, ttype, shape):
    b = Builder()
    q = quant(0.07, -3) if ttype == T.INT8 else None
    i = b.tensor("input", shape, ttype, q)
    o = b.tensor("output", shape, ttype, q)
    b.write(name, OPS.ZEROS_LIKE, [i], [o])


def shape_of(name, ttype, in_shape):
    b = Builder()
    q = quant(0.07, -3) if ttype == T.INT8 else None
    i = b.tensor("input", in_shape, ttype, q)
    o = b.tensor("output", [len(in_shape)], T.INT32)
    b.write(name, OPS.SHAPE, [i], [o])


def binary(name, seed, opcode, a_shape, b_shape, out_shape, act):
    r = rng(seed)
    b = Builder()
    qa = quant(0.02 + r.random() * 0.1, r.integers(-30, 30))
    qb = quant(0.02 + r.random() * 0.2, r.integers(-30, 30))
    qo = quant(0.05 + r.random() * 0.2, r.integers(-30, 30))
    x = b.tensor("a", a_shape, T.INT8, qa)
    y = b.tensor("b", b_shape, T.INT8, qb)
    o = b.tensor("output", out_shape, T.INT8, qo)
    b.write(name, opcode, [x, y], [o], *arithmetic_options(opcode, act))


def arithmetic_options(opcode, act):
    """The (options type, options) of ADD, SUB, MUL or DIV with fused activation `act`
    (SQUARED_DIFFERENCE: its empty options, no activation)."""
    if opcode == OPS.SQUARED_DIFFERENCE:
        return OPT.SquaredDifferenceOptions, s.SquaredDifferenceOptionsT()
    opt, ty = {OPS.ADD: (s.AddOptionsT, OPT.AddOptions), OPS.SUB: (s.SubOptionsT, OPT.SubOptions),
               OPS.MUL: (s.MulOptionsT, OPT.MulOptions),
               OPS.DIV: (s.DivOptionsT, OPT.DivOptions)}[opcode]
    opt = opt()
    opt.fusedActivationFunction = act
    return ty, opt


def squared_difference(name, seed, a_shape, b_shape, out_shape):
    """int8 SQUARED_DIFFERENCE, the output scale the squares' range over int8's."""
    r = rng(seed)
    b = Builder()
    sa, sb = 0.01 + r.random() * 0.05, 0.01 + r.random() * 0.05
    qa, qb = quant(sa, r.integers(-30, 30)), quant(sb, r.integers(-30, 30))
    qo = quant((255 * max(sa, sb)) ** 2 / 255 * (0.3 + r.random()), r.integers(-128, -100))
    x = b.tensor("a", a_shape, T.INT8, qa)
    y = b.tensor("b", b_shape, T.INT8, qb)
    o = b.tensor("output", out_shape, T.INT8, qo)
    b.write(name, OPS.SQUARED_DIFFERENCE, [x, y], [o], *arithmetic_options(OPS.SQUARED_DIFFERENCE, 0))


def div_i8(name, a_shape, b_shape, out_shape, qa, qb, qo, act, const_b=None):
    """int8 DIV of the quantizations given (`const_b`: the divisor a constant)."""
    b = Builder()
    x = b.tensor("a", a_shape, T.INT8, quant(*qa))
    y = b.tensor("b", b_shape, T.INT8, quant(*qb),
                 None if const_b is None else np.array(const_b, dtype=np.int8).reshape(b_shape))
    o = b.tensor("output", out_shape, T.INT8, quant(*qo))
    b.write(name, OPS.DIV, [x, y], [o], *arithmetic_options(OPS.DIV, act))


def svdf_f32(name, seed, batches, input_size, units, rank, memory, act, bias=True):
    """float32 SVDF: constant feature and time weights (and bias), its state a variable
    tensor (not a graph input)."""
    r = rng(seed)
    b = Builder()
    filters = units * rank
    x = b.tensor("input", [batches, input_size], T.FLOAT32)
    wf = b.tensor("weights_feature", [filters, input_size], T.FLOAT32, None,
                  r.normal(0, 0.5, [filters, input_size]).astype(np.float32))
    wt = b.tensor("weights_time", [filters, memory], T.FLOAT32, None,
                  r.normal(0, 0.5, [filters, memory]).astype(np.float32))
    bi = b.tensor("bias", [units], T.FLOAT32, None, r.normal(0, 1, [units]).astype(np.float32)) if bias else -1
    st = b.tensor("state", [batches, memory * filters], T.FLOAT32)
    b.tensors[st].isVariable = True
    o = b.tensor("output", [batches, units], T.FLOAT32)
    opt = s.SVDFOptionsT()
    opt.rank, opt.fusedActivationFunction = rank, act
    b.write_ops(name, [(OPS.SVDF, [x, wf, wt, bi, st], [o], OPT.SVDFOptions, opt)], [x], [o])


def lstm_16x8(name, seed, batches, time_steps, input_size, state, time_major, in_scale, h_scale,
              cell_scale, cell_clip=0.0):
    """UNIDIRECTIONAL_SEQUENCE_LSTM 16x8 (the standard LSTM TFLM runs): an int16 input, hidden
    state and output (zero points 0), int8 weights of one scale each (zero point 0), int64
    biases of scale input · weight, an int16 cell state; hidden and cell state variable
    tensors (not graph inputs), carried over the oracle's consecutive runs."""
    r = rng(seed)
    b = Builder()
    seq = [time_steps, batches] if time_major else [batches, time_steps]
    x = b.tensor("input", seq + [input_size], T.INT16, quant(in_scale, 0))
    ins = [x]
    w_scales = []
    for g in range(8):
        cols = input_size if g < 4 else state
        # Pre-activations of a few units either way (neither saturated nor flat): a
        # product's spread is about sqrt(n)·range·127·scale/3.
        reach = 32768 * (in_scale if g < 4 else h_scale)
        ws = float(np.float32(6.0 / (np.sqrt(cols) * reach * 127) * (0.7 + 0.6 * r.random())))
        w_scales.append(ws)
        ins.append(b.tensor(f"w{g}", [state, cols], T.INT8, quant(ws, 0),
                            r.integers(-127, 128, [state, cols]).astype(np.int8)))
    ins += [-1, -1, -1]  # no peephole
    for g in range(4):
        bs = in_scale * w_scales[g]
        ins.append(b.tensor(f"bias{g}", [state], T.INT64, quant(bs, 0),
                            np.round(r.uniform(-1.5, 1.5, [state]) / bs).astype(np.int64)))
    ins += [-1, -1]  # no projection
    h = b.tensor("hidden", [batches, state], T.INT16, quant(h_scale, 0))
    c = b.tensor("cell", [batches, state], T.INT16, quant(cell_scale, 0))
    b.tensors[h].isVariable = True
    b.tensors[c].isVariable = True
    ins += [h, c, -1, -1, -1, -1]
    o = b.tensor("output", seq + [state], T.INT16, quant(h_scale, 0))
    opt = s.UnidirectionalSequenceLSTMOptionsT()
    opt.fusedActivationFunction, opt.cellClip, opt.timeMajor = ACT.TANH, cell_clip, time_major
    b.write_ops(name, [(OPS.UNIDIRECTIONAL_SEQUENCE_LSTM, ins, [o],
                        OPT.UnidirectionalSequenceLSTMOptions, opt)], [x], [o])


def binary_i32(name, opcode, a_shape, b_shape, out_shape, act):
    b = Builder()
    x = b.tensor("a", a_shape, T.INT32)
    y = b.tensor("b", b_shape, T.INT32)
    o = b.tensor("output", out_shape, T.INT32)
    b.write(name, opcode, [x, y], [o], *arithmetic_options(opcode, act))


def pad(name, in_shape, paddings):
    b = Builder()
    q = quant(0.07, 9)
    i = b.tensor("input", in_shape, T.INT8, q)
    p = b.tensor("paddings", [len(in_shape), 2], T.INT32, None, np.array(paddings, dtype=np.int32))
    out = [d + a + c for d, (a, c) in zip(in_shape, paddings)]
    o = b.tensor("output", out, T.INT8, q)
    b.write(name, OPS.PAD, [i, p], [o], OPT.PadOptions, s.PadOptionsT())


def mean(name, in_shape, axes, keep, in_q, out_q, opcode=None, ttype=T.INT8):
    """MEAN (or `opcode`: SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_ALL) of `ttype` over `axes`
    (quantizations `None` for float32 and bool)."""
    b = Builder()
    qi = quant(*in_q) if in_q else None
    qo = quant(*out_q) if out_q else None
    i = b.tensor("input", in_shape, ttype, qi)
    a = b.tensor("axis", [len(axes)], T.INT32, None, np.array(axes, dtype=np.int32))
    rank = len(in_shape)
    red = {(x + rank) % rank for x in axes}
    out = [1 if k in red else d for k, d in enumerate(in_shape)] if keep else \
        [d for k, d in enumerate(in_shape) if k not in red]
    o = b.tensor("output", out, ttype, qo)
    opt = s.ReducerOptionsT()
    opt.keepDims = keep
    b.write(name, OPS.MEAN if opcode is None else opcode, [i, a], [o], OPT.ReducerOptions, opt)


def concat(name, shapes, axis):
    b = Builder()
    q = quant(0.06, -3)
    ins = [b.tensor(f"in{k}", sh, T.INT8, q) for k, sh in enumerate(shapes)]
    rank = len(shapes[0])
    ax = (axis + rank) % rank
    out = list(shapes[0])
    out[ax] = sum(sh[ax] for sh in shapes)
    o = b.tensor("output", out, T.INT8, q)
    opt = s.ConcatenationOptionsT()
    opt.axis = axis
    b.write(name, OPS.CONCATENATION, ins, [o], OPT.ConcatenationOptions, opt)


def transpose(name, in_shape, perm, ttype=T.INT8):
    b = Builder()
    q = {T.INT8: quant(0.1, 4), T.INT16: quant(0.01, 0)}.get(ttype)
    i = b.tensor("input", in_shape, ttype, q)
    p = b.tensor("perm", [len(perm)], T.INT32, None, np.array(perm, dtype=np.int32))
    o = b.tensor("output", [in_shape[k] for k in perm], ttype, q)
    b.write(name, OPS.TRANSPOSE, [i, p], [o], OPT.TransposeOptions, s.TransposeOptionsT())


def quantize_f32(name, shape, scale, zp):
    b = Builder()
    i = b.tensor("input", shape, T.FLOAT32)
    o = b.tensor("output", shape, T.INT8, quant(scale, zp))
    b.write(name, OPS.QUANTIZE, [i], [o])


def requantize(name, shape, q_in, q_out):
    b = Builder()
    i = b.tensor("input", shape, T.INT8, quant(*q_in))
    o = b.tensor("output", shape, T.INT8, quant(*q_out))
    b.write(name, OPS.QUANTIZE, [i], [o])


def dequantize(name, shape, scale, zp):
    b = Builder()
    i = b.tensor("input", shape, T.INT8, quant(scale, zp))
    o = b.tensor("output", shape, T.FLOAT32)
    b.write(name, OPS.DEQUANTIZE, [i], [o])


def quantize_typed(name, shape, in_type, out_type, q_in, q_out):
    """QUANTIZE from `in_type` (float32: unquantized) to `out_type`, quantized `q_in`, `q_out`."""
    b = Builder()
    i = b.tensor("input", shape, in_type, None if q_in is None else quant(*q_in))
    o = b.tensor("output", shape, out_type, quant(*q_out))
    b.write(name, OPS.QUANTIZE, [i], [o])


def dequantize_typed(name, shape, in_type, scale, zp):
    """DEQUANTIZE from `in_type` (int16, uint8) to float32."""
    b = Builder()
    i = b.tensor("input", shape, in_type, quant(scale, zp))
    o = b.tensor("output", shape, T.FLOAT32)
    b.write(name, OPS.DEQUANTIZE, [i], [o])


def reshape(name, in_shape, out_shape):
    b = Builder()
    q = quant(0.1, 1)
    i = b.tensor("input", in_shape, T.INT8, q)
    sh = b.tensor("shape", [len(out_shape)], T.INT32, None, np.array(out_shape, dtype=np.int32))
    o = b.tensor("output", out_shape, T.INT8, q)
    opt = s.ReshapeOptionsT()
    opt.newShape = list(out_shape)
    b.write(name, OPS.RESHAPE, [i, sh], [o], OPT.ReshapeOptions, opt)


def squeeze(name, in_shape, dims):
    b = Builder()
    q = quant(0.1, 1)
    i = b.tensor("input", in_shape, T.INT8, q)
    o = b.tensor("output", [d for k, d in enumerate(in_shape) if k not in dims], T.INT8, q)
    opt = s.SqueezeOptionsT()
    opt.squeezeDims = list(dims)
    b.write(name, OPS.SQUEEZE, [i], [o], OPT.SqueezeOptions, opt)


# float32 models: the same operators with float activations, weights and bias (TFLM's reference
# float kernels), named f32_*.


def conv_f32(name, seed, in_shape, out_c, kh, kw, stride, dilation, padding, act, bias=True):
    r = rng(seed)
    b = Builder()
    f_shape = [out_c, kh, kw, in_shape[3]]
    i = b.tensor("input", in_shape, T.FLOAT32)
    f = b.tensor("filter", f_shape, T.FLOAT32, None, r.normal(0, 0.3, f_shape).astype(np.float32))
    bi = b.tensor("bias", [out_c], T.FLOAT32, None, r.normal(0, 1, out_c).astype(np.float32)) if bias else -1
    oh = _out(in_shape[1], kh, stride[0], dilation[0], padding)
    ow = _out(in_shape[2], kw, stride[1], dilation[1], padding)
    o = b.tensor("output", [in_shape[0], oh, ow, out_c], T.FLOAT32)
    opt = s.Conv2DOptionsT()
    opt.padding, opt.strideH, opt.strideW = padding, stride[0], stride[1]
    opt.dilationHFactor, opt.dilationWFactor, opt.fusedActivationFunction = dilation[0], dilation[1], act
    b.write(name, OPS.CONV_2D, [i, f, bi], [o], OPT.Conv2DOptions, opt)


def depthwise_f32(name, seed, in_shape, mult, kh, kw, stride, dilation, padding, act):
    r = rng(seed)
    b = Builder()
    out_c = in_shape[3] * mult
    f_shape = [1, kh, kw, out_c]
    i = b.tensor("input", in_shape, T.FLOAT32)
    f = b.tensor("filter", f_shape, T.FLOAT32, None, r.normal(0, 0.3, f_shape).astype(np.float32))
    bi = b.tensor("bias", [out_c], T.FLOAT32, None, r.normal(0, 1, out_c).astype(np.float32))
    oh = _out(in_shape[1], kh, stride[0], dilation[0], padding)
    ow = _out(in_shape[2], kw, stride[1], dilation[1], padding)
    o = b.tensor("output", [in_shape[0], oh, ow, out_c], T.FLOAT32)
    opt = s.DepthwiseConv2DOptionsT()
    opt.padding, opt.strideH, opt.strideW, opt.depthMultiplier = padding, stride[0], stride[1], mult
    opt.dilationHFactor, opt.dilationWFactor, opt.fusedActivationFunction = dilation[0], dilation[1], act
    b.write(name, OPS.DEPTHWISE_CONV_2D, [i, f, bi], [o], OPT.DepthwiseConv2DOptions, opt)


def fully_connected_f32(name, seed, in_shape, units, act, bias=True):
    r = rng(seed)
    b = Builder()
    depth = in_shape[-1]
    batches = int(np.prod(in_shape)) // depth
    i = b.tensor("input", in_shape, T.FLOAT32)
    f = b.tensor("filter", [units, depth], T.FLOAT32, None, r.normal(0, 0.3, [units, depth]).astype(np.float32))
    bi = b.tensor("bias", [units], T.FLOAT32, None, r.normal(0, 1, units).astype(np.float32)) if bias else -1
    o = b.tensor("output", [batches, units], T.FLOAT32)
    opt = s.FullyConnectedOptionsT()
    opt.fusedActivationFunction = act
    b.write(name, OPS.FULLY_CONNECTED, [i, f, bi], [o], OPT.FullyConnectedOptions, opt)


def pool_f32(name, opcode, in_shape, k, stride, padding, act):
    b = Builder()
    i = b.tensor("input", in_shape, T.FLOAT32)
    oh = _out(in_shape[1], k[0], stride[0], 1, padding)
    ow = _out(in_shape[2], k[1], stride[1], 1, padding)
    o = b.tensor("output", [in_shape[0], oh, ow, in_shape[3]], T.FLOAT32)
    opt = s.Pool2DOptionsT()
    opt.padding, opt.strideH, opt.strideW = padding, stride[0], stride[1]
    opt.filterHeight, opt.filterWidth, opt.fusedActivationFunction = k[0], k[1], act
    b.write(name, opcode, [i], [o], OPT.Pool2DOptions, opt)


def softmax_f32(name, shape, beta):
    b = Builder()
    i = b.tensor("input", shape, T.FLOAT32)
    o = b.tensor("output", shape, T.FLOAT32)
    opt = s.SoftmaxOptionsT()
    opt.beta = beta
    b.write(name, OPS.SOFTMAX, [i], [o], OPT.SoftmaxOptions, opt)


def logistic_f32(name, shape):
    b = Builder()
    i = b.tensor("input", shape, T.FLOAT32)
    o = b.tensor("output", shape, T.FLOAT32)
    b.write(name, OPS.LOGISTIC, [i], [o])


def relu_f32(name, opcode, shape, out_scale=None):
    """A float32 operator of one input and no options (RELU, RELU6, NEG, FLOOR, CEIL, SQUARE,
    ABS, SQRT, RSQRT, ROUND, EXP, SIN, COS, LOG). `out_scale` on the output (TFLM ignores it on a float
    tensor) sets the test inputs' range and step: 200 steps of it either side of 0, every
    seventh input halfway between two steps (ROUND's ties at a scale of 1)."""
    b = Builder()
    i = b.tensor("input", shape, T.FLOAT32)
    o = b.tensor("output", shape, T.FLOAT32, None if out_scale is None else quant(out_scale, 0))
    b.write(name, opcode, [i], [o])


def compare(name, opcode, ttype, a_shape, b_shape, out_shape, qa=None, qb=None, const_b=None,
            out_type=None):
    """A comparison (bool output) or LOGICAL_AND / LOGICAL_OR of two inputs of `ttype`, input
    2 a constant when `const_b` holds its values."""
    b = Builder()
    x = b.tensor("a", a_shape, ttype, None if qa is None else quant(*qa))
    y = b.tensor("b", b_shape, ttype, None if qb is None else quant(*qb), const_b)
    o = b.tensor("out", out_shape, T.BOOL if out_type is None else out_type)
    b.write(name, opcode, [x, y], [o])


def space_depth(name, opcode, ttype, in_shape, block):
    """SPACE_TO_DEPTH or DEPTH_TO_SPACE of block `block` (the output's shape derived)."""
    n, h, w, d = in_shape
    if opcode == OPS.SPACE_TO_DEPTH:
        out_shape, opt, ty = [n, h // block, w // block, d * block * block], s.SpaceToDepthOptionsT(), OPT.SpaceToDepthOptions
    else:
        out_shape, opt, ty = [n, h * block, w * block, d // (block * block)], s.DepthToSpaceOptionsT(), OPT.DepthToSpaceOptions
    opt.blockSize = block
    q = quant(0.05, 3) if ttype == T.INT8 else None
    b = Builder()
    i = b.tensor("input", in_shape, ttype, q)
    o = b.tensor("output", out_shape, ttype, q)
    b.write(name, opcode, [i], [o], ty, opt)


def gather(name, ttype, in_shape, indices, axis, batch_dims=0):
    """GATHER of an activation by constant int32 `indices` (an array)."""
    idx = np.asarray(indices, dtype=np.int32)
    a = axis + len(in_shape) if axis < 0 else axis
    out_shape = list(in_shape[:a]) + list(idx.shape[batch_dims:]) + list(in_shape[a + 1:])
    q = quant(0.05, 3) if ttype == T.INT8 else None
    b = Builder()
    i = b.tensor("input", in_shape, ttype, q)
    k = b.tensor("indices", list(idx.shape), T.INT32, None, idx)
    o = b.tensor("output", out_shape, ttype, q)
    opt = s.GatherOptionsT()
    opt.axis, opt.batchDims = axis, batch_dims
    b.write(name, OPS.GATHER, [i, k], [o], OPT.GatherOptions, opt)


def arg_min_max(name, opcode, ttype, in_shape, axis):
    """ARG_MAX or ARG_MIN along the constant int32 `axis`, an int32 output."""
    a = axis + len(in_shape) if axis < 0 else axis
    out_shape = list(in_shape[:a]) + list(in_shape[a + 1:])
    b = Builder()
    i = b.tensor("input", in_shape, ttype, quant(0.05, 3) if ttype == T.INT8 else None)
    k = b.tensor("axis", [1], T.INT32, None, np.array([axis], dtype=np.int32))
    o = b.tensor("output", out_shape, T.INT32)
    if opcode == OPS.ARG_MAX:
        opt, ty = s.ArgMaxOptionsT(), OPT.ArgMaxOptions
    else:
        opt, ty = s.ArgMinOptionsT(), OPT.ArgMinOptions
    opt.outputType = T.INT32
    b.write(name, opcode, [i, k], [o], ty, opt)


def reverse(name, ttype, shape, axes):
    """REVERSE_V2 of an activation along the constant int32 `axes`."""
    b = Builder()
    i = b.tensor("input", shape, ttype, quant(0.05, 3) if ttype == T.INT8 else None)
    k = b.tensor("axis", [len(axes)], T.INT32, None, np.array(axes, dtype=np.int32))
    o = b.tensor("output", shape, ttype, quant(0.05, 3) if ttype == T.INT8 else None)
    b.write(name, OPS.REVERSE_V2, [i, k], [o], OPT.ReverseV2Options, s.ReverseV2OptionsT())


def resize_nearest(name, ttype, in_shape, size, align_corners=False, half_pixel_centers=False):
    """RESIZE_NEAREST_NEIGHBOR of an activation to the constant `size` (height, width)."""
    q = quant(0.05, 3) if ttype == T.INT8 else (quant(0.01, 0) if ttype == T.INT16 else None)
    b = Builder()
    i = b.tensor("input", in_shape, ttype, q)
    k = b.tensor("size", [2], T.INT32, None, np.array(size, dtype=np.int32))
    o = b.tensor("output", [in_shape[0], size[0], size[1], in_shape[3]], ttype, q)
    opt = s.ResizeNearestNeighborOptionsT()
    opt.alignCorners, opt.halfPixelCenters = align_corners, half_pixel_centers
    b.write(name, OPS.RESIZE_NEAREST_NEIGHBOR, [i, k], [o], OPT.ResizeNearestNeighborOptions, opt)


def resize_bilinear(name, ttype, in_shape, size, align_corners=False, half_pixel_centers=False):
    """RESIZE_BILINEAR of an activation to the constant `size` (height, width)."""
    q = quant(0.05, 3) if ttype == T.INT8 else None
    b = Builder()
    i = b.tensor("input", in_shape, ttype, q)
    k = b.tensor("size", [2], T.INT32, None, np.array(size, dtype=np.int32))
    o = b.tensor("output", [in_shape[0], size[0], size[1], in_shape[3]], ttype, q)
    opt = s.ResizeBilinearOptionsT()
    opt.alignCorners, opt.halfPixelCenters = align_corners, half_pixel_centers
    b.write(name, OPS.RESIZE_BILINEAR, [i, k], [o], OPT.ResizeBilinearOptions, opt)


def leaky_relu(name, ttype, shape, alpha, q_in=None, q_out=None):
    """LEAKY_RELU of slope `alpha` (int8 / int16 with their quantizations, or float32)."""
    b = Builder()
    i = b.tensor("input", shape, ttype, None if q_in is None else quant(*q_in))
    o = b.tensor("output", shape, ttype, None if q_out is None else quant(*q_out))
    opt = s.LeakyReluOptionsT()
    opt.alpha = alpha
    b.write(name, OPS.LEAKY_RELU, [i], [o], OPT.LeakyReluOptions, opt)


def unary_bool(name, opcode, shape):
    """A bool operator of one input and no options (LOGICAL_NOT)."""
    b = Builder()
    i = b.tensor("input", shape, T.BOOL)
    o = b.tensor("output", shape, T.BOOL)
    b.write(name, opcode, [i], [o])


def unary_i16(name, opcode, shape, q_in=None, q_out=None):
    """An int16 operator of one input and no options (ABS), quantized or not."""
    b = Builder()
    i = b.tensor("input", shape, T.INT16, None if q_in is None else quant(*q_in))
    o = b.tensor("output", shape, T.INT16, None if q_out is None else quant(*q_out))
    b.write(name, opcode, [i], [o])


def binary_f32(name, seed, opcode, a_shape, b_shape, out_shape, act, const_b=False):
    r = rng(seed)
    b = Builder()
    x = b.tensor("a", a_shape, T.FLOAT32)
    y = b.tensor("b", b_shape, T.FLOAT32, None,
                 r.normal(0, 2, b_shape).astype(np.float32) if const_b else None)
    o = b.tensor("output", out_shape, T.FLOAT32)
    b.write(name, opcode, [x, y], [o], *arithmetic_options(opcode, act))


def concat_f32(name, shapes, axis):
    b = Builder()
    ins = [b.tensor(f"in{k}", sh, T.FLOAT32) for k, sh in enumerate(shapes)]
    rank = len(shapes[0])
    ax = (axis + rank) % rank
    out = list(shapes[0])
    out[ax] = sum(sh[ax] for sh in shapes)
    o = b.tensor("output", out, T.FLOAT32)
    opt = s.ConcatenationOptionsT()
    opt.axis = axis
    b.write(name, OPS.CONCATENATION, ins, [o], OPT.ConcatenationOptions, opt)


def concat_typed(name, ttype, shapes, axis, scales=None, const=()):
    """CONCATENATION of `ttype` (bool, int16, int64: unquantized, or int16 of zero point 0 and
    the input `scales`); the inputs at positions `const` constants."""
    b = Builder()
    r = rng(len(name))
    q = (lambda k: quant(scales[k], 0)) if scales else (lambda k: None)
    dt = {T.BOOL: np.bool_, T.INT16: np.int16, T.INT64: np.int64}[ttype]
    ins = []
    for k, sh in enumerate(shapes):
        data = None
        if k in const:
            data = (r.integers(0, 2, sh) if ttype == T.BOOL else r.integers(-3000, 3000, sh)).astype(dt)
        ins.append(b.tensor(f"in{k}", sh, ttype, q(k), data))
    rank = len(shapes[0])
    ax = (axis + rank) % rank
    out = list(shapes[0])
    out[ax] = sum(sh[ax] for sh in shapes)
    o = b.tensor("output", out, ttype, quant(scales[-1], 0) if scales else None)
    opt = s.ConcatenationOptionsT()
    opt.axis = axis
    b.write(name, OPS.CONCATENATION, ins, [o], OPT.ConcatenationOptions, opt)


def reshape_f32(name, in_shape, out_shape):
    b = Builder()
    i = b.tensor("input", in_shape, T.FLOAT32)
    sh = b.tensor("shape", [len(out_shape)], T.INT32, None, np.array(out_shape, dtype=np.int32))
    o = b.tensor("output", out_shape, T.FLOAT32)
    opt = s.ReshapeOptionsT()
    opt.newShape = list(out_shape)
    b.write(name, OPS.RESHAPE, [i, sh], [o], OPT.ReshapeOptions, opt)


def mirror_pad(name, ttype, in_shape, paddings, mode, ptype=T.INT32):
    """MIRROR_PAD of an activation by constant `paddings` (`mode` None: no options)."""
    b = Builder()
    q = quant(0.05, 3) if ttype == T.INT8 else None
    i = b.tensor("input", in_shape, ttype, q)
    pt = np.int32 if ptype == T.INT32 else np.int64
    p = b.tensor("paddings", [len(in_shape), 2], ptype, None, np.array(paddings, dtype=pt))
    out = [d + a + c for d, (a, c) in zip(in_shape, paddings)]
    o = b.tensor("output", out, ttype, q)
    if mode is None:
        b.write(name, OPS.MIRROR_PAD, [i, p], [o])
    else:
        opt = s.MirrorPadOptionsT()
        opt.mode = mode
        b.write(name, OPS.MIRROR_PAD, [i, p], [o], OPT.MirrorPadOptions, opt)


def pad_value(name, opcode, ttype, in_shape, paddings, value=None, q=None):
    """PAD or PADV2 of any type: `value` None (no constant_values input), "input" (a graph
    input scalar) or a constant scalar; int8 tensors quantized as `q`."""
    b = Builder()
    dt = {T.INT8: np.int8, T.INT16: np.int16, T.INT32: np.int32, T.FLOAT32: np.float32}[ttype]
    qq = None if q is None else quant(*q)
    i = b.tensor("input", in_shape, ttype, qq)
    p = b.tensor("paddings", [len(in_shape), 2], T.INT32, None, np.array(paddings, dtype=np.int32))
    ins = [i, p]
    if value is not None:
        data = None if isinstance(value, str) else np.array(value, dtype=dt)
        ins.append(b.tensor("constant_values", [], ttype, None if q is None else quant(*q), data))
    out = [d + a + c for d, (a, c) in zip(in_shape, paddings)]
    o = b.tensor("output", out, ttype, qq)
    if opcode == OPS.PAD:
        b.write(name, opcode, ins, [o], OPT.PadOptions, s.PadOptionsT())
    else:
        b.write(name, opcode, ins, [o], OPT.PadV2Options, s.PadV2OptionsT())


def space_batch(name, opcode, ttype, in_shape, block, pads):
    """SPACE_TO_BATCH_ND (paddings) or BATCH_TO_SPACE_ND (crops) of an activation, 3-D NHC or
    4-D NHWC, by constant int32 `block` and `pads` (the output's shape derived)."""
    sp = len(in_shape) - 2
    out = list(in_shape)
    k = int(np.prod(block))
    if opcode == OPS.SPACE_TO_BATCH_ND:
        out[0] = in_shape[0] * k
        for d in range(sp):
            out[1 + d] = (in_shape[1 + d] + pads[d][0] + pads[d][1]) // block[d]
        opt, ty = s.SpaceToBatchNDOptionsT(), OPT.SpaceToBatchNDOptions
    else:
        out[0] = in_shape[0] // k
        for d in range(sp):
            out[1 + d] = in_shape[1 + d] * block[d] - pads[d][0] - pads[d][1]
        opt, ty = s.BatchToSpaceNDOptionsT(), OPT.BatchToSpaceNDOptions
    q = quant(0.05, 3) if ttype == T.INT8 else None
    b = Builder()
    i = b.tensor("input", in_shape, ttype, q)
    bl = b.tensor("block_shape", [sp], T.INT32, None, np.array(block, dtype=np.int32))
    p = b.tensor("paddings", [sp, 2], T.INT32, None, np.array(pads, dtype=np.int32))
    o = b.tensor("output", out, ttype, q)
    b.write(name, opcode, [i, bl, p], [o], ty, opt)


def broadcast_to(name, ttype, in_shape, out_shape, stype=T.INT32):
    """BROADCAST_TO of an activation to the constant shape `out_shape` (a `stype` vector)."""
    q = quant(0.05, 3) if ttype == T.INT8 else None
    b = Builder()
    i = b.tensor("input", in_shape, ttype, q)
    st = np.int32 if stype == T.INT32 else np.int64
    k = b.tensor("shape", [len(out_shape)], stype, None, np.array(out_shape, dtype=st))
    o = b.tensor("output", out_shape, ttype, q)
    b.write(name, OPS.BROADCAST_TO, [i, k], [o], OPT.BroadcastToOptions, s.BroadcastToOptionsT())


def gather_nd(name, ttype, in_shape, indices):
    """GATHER_ND of an activation by constant int32 `indices` (an array)."""
    idx = np.asarray(indices, dtype=np.int32)
    nd = idx.shape[-1]
    out_shape = list(idx.shape[:-1]) + list(in_shape[nd:])
    q = quant(0.05, 3) if ttype == T.INT8 else None
    b = Builder()
    i = b.tensor("params", in_shape, ttype, q)
    k = b.tensor("indices", list(idx.shape), T.INT32, None, idx)
    o = b.tensor("output", out_shape, ttype, q)
    b.write(name, OPS.GATHER_ND, [i, k], [o], OPT.GatherNdOptions, s.GatherNdOptionsT())


def embedding_lookup(name, ttype, table_shape, ids, out_type=None):
    """EMBEDDING_LOOKUP of constant int32 `ids` in an activation table (`out_type` float32 of
    an int8 table: TFLM's hybrid path, the table's zero point 0)."""
    out_type = ttype if out_type is None else out_type
    b = Builder()
    k = b.tensor("ids", [len(ids)], T.INT32, None, np.array(ids, dtype=np.int32))
    q = quant(0.05, 0 if out_type == T.FLOAT32 else 3) if ttype == T.INT8 else None
    t = b.tensor("table", table_shape, ttype, q)
    o = b.tensor("output", [len(ids)] + list(table_shape[1:]), out_type,
                 q if out_type == T.INT8 else None)
    b.write(name, OPS.EMBEDDING_LOOKUP, [k, t], [o])


def dynamic_update_slice(name, ttype, shape, upd_shape, starts=None, itype=T.INT32):
    """DYNAMIC_UPDATE_SLICE of an activation by an activation update at `starts` (None: an
    activation, random and clamped; else a constant of type `itype`)."""
    q = quant(0.05, 3) if ttype == T.INT8 else (quant(0.01, 0) if ttype == T.INT16 else None)
    b = Builder()
    i = b.tensor("operand", shape, ttype, q)
    u = b.tensor("update", upd_shape, ttype, q)
    it = np.int32 if itype == T.INT32 else np.int64
    k = b.tensor("start_indices", [len(shape)], itype, None,
                 None if starts is None else np.array(starts, dtype=it))
    o = b.tensor("output", shape, ttype, q)
    b.write(name, OPS.DYNAMIC_UPDATE_SLICE, [i, u, k], [o],
            OPT.DynamicUpdateSliceOptions, s.DynamicUpdateSliceOptionsT())


def broadcast_args(name, ttype, s1, s2):
    """BROADCAST_ARGS of two shape vectors: a list (a constant) or an int (an activation of
    that length)."""
    it = np.int32 if ttype == T.INT32 else np.int64
    b = Builder()
    ins = []
    for k, v in enumerate([s1, s2]):
        if isinstance(v, int):
            ins.append(b.tensor(f"shape{k}", [v], ttype))
        else:
            ins.append(b.tensor(f"shape{k}", [len(v)], ttype, None, np.array(v, dtype=it)))
    n = max(v if isinstance(v, int) else len(v) for v in [s1, s2])
    o = b.tensor("output", [n], ttype)
    b.write(name, OPS.BROADCAST_ARGS, ins, [o])


def cumsum(name, ttype, shape, axis, exclusive, reverse, q_in=None, q_out=None):
    """CUMSUM of an activation along the constant int32 `axis`."""
    b = Builder()
    i = b.tensor("input", shape, ttype, None if q_in is None else quant(*q_in))
    a = b.tensor("axis", [], T.INT32, None, np.array(axis, dtype=np.int32))
    o = b.tensor("output", shape, ttype, None if q_out is None else quant(*q_out))
    opt = s.CumsumOptionsT()
    opt.exclusive, opt.reverse = exclusive, reverse
    b.write(name, OPS.CUMSUM, [i, a], [o], OPT.CumsumOptions, opt)
def unary(name, opcode, ttype, shape, q_in=None, q_out=None, options=(0, None)):
    """An operator of one input (`ttype`, quantized by `q_in`/`q_out` when given) and its
    builtin options `(type, table)` if any: ELU, HARD_SWISH, TANH, LOG_SOFTMAX, ..."""
    b = Builder()
    i = b.tensor("input", shape, ttype, None if q_in is None else quant(*q_in))
    o = b.tensor("output", shape, ttype, None if q_out is None else quant(*q_out))
    b.write(name, opcode, [i], [o], *options)


def prelu(name, seed, ttype, in_shape, alpha_shape, out_shape, q_in=None, q_alpha=None, q_out=None,
          const_alpha=True):
    """PRELU of `alpha` (int8 for a quantized input, float32 otherwise), a constant or a
    graph input, broadcast against the input."""
    r = rng(seed)
    b = Builder()
    i = b.tensor("input", in_shape, ttype, None if q_in is None else quant(*q_in))
    aty = T.FLOAT32 if ttype == T.FLOAT32 else T.INT8
    data = None
    if const_alpha:
        data = (r.uniform(-1, 1, alpha_shape).astype(np.float32) if aty == T.FLOAT32
                else r.integers(-128, 128, alpha_shape).astype(np.int8))
    a = b.tensor("alpha", alpha_shape, aty, None if q_alpha is None else quant(*q_alpha), data)
    o = b.tensor("output", out_shape, ttype, None if q_out is None else quant(*q_out))
    b.write(name, OPS.PRELU, [i, a], [o])


def binary_plain(name, opcode, ttype, a_shape, b_shape, out_shape, const_b=None):
    """An operator of two inputs of type `ttype` and no options (FLOOR_DIV, FLOOR_MOD), the
    second a constant when `const_b` is given."""
    b = Builder()
    x = b.tensor("a", a_shape, ttype)
    y = b.tensor("b", b_shape, ttype, None, const_b)
    o = b.tensor("output", out_shape, ttype)
    b.write(name, opcode, [x, y], [o])


def add_n(name, seed, ttype, shape, n, q_in=None, q_out=None, const=()):
    """ADD_N of `n` inputs of one shape and quantization, those of `const` constants."""
    r = rng(seed)
    b = Builder()
    ins = []
    for k in range(n):
        data = None
        if k in const:
            data = (r.uniform(-4, 4, shape).astype(np.float32) if ttype == T.FLOAT32
                    else r.integers(-128, 128, shape).astype(np.int8))
        ins.append(b.tensor(f"in{k}", shape, ttype, None if q_in is None else quant(*q_in), data))
    o = b.tensor("output", shape, ttype, None if q_out is None else quant(*q_out))
    b.write(name, OPS.ADD_N, ins, [o], OPT.AddNOptions, s.AddNOptionsT())


def select_v2(name, seed, ttype, c_shape, x_shape, y_shape, out_shape, q=None, const_y=False):
    """SELECT_V2 of a bool condition and two inputs of `ttype` (one quantization `q`),
    broadcast together; `y` a constant if `const_y`."""
    r = rng(seed)
    b = Builder()
    c = b.tensor("condition", c_shape, T.BOOL)
    x = b.tensor("x", x_shape, ttype, None if q is None else quant(*q))
    data = None
    if const_y:
        data = {T.FLOAT32: lambda: r.uniform(-4, 4, y_shape).astype(np.float32),
                T.INT8: lambda: r.integers(-128, 128, y_shape).astype(np.int8),
                T.INT16: lambda: r.integers(-32768, 32768, y_shape).astype(np.int16)}[ttype]()
    y = b.tensor("y", y_shape, ttype, None if q is None else quant(*q), data)
    o = b.tensor("output", out_shape, ttype, None if q is None else quant(*q))
    b.write(name, OPS.SELECT_V2, [c, x, y], [o], OPT.SelectV2Options, s.SelectV2OptionsT())


def batch_matmul(name, seed, ttype, lhs_shape, rhs_shape, out_shape, adj_x=False, adj_y=False,
                 q=None, const_rhs=False):
    """BATCH_MATMUL of `ttype`, `q` its (lhs, rhs, output) quantizations; the rhs a constant
    if `const_rhs`."""
    r = rng(seed)
    b = Builder()
    qs = [None, None, None] if q is None else [quant(*x) for x in q]
    x = b.tensor("lhs", lhs_shape, ttype, qs[0])
    data = None
    if const_rhs:
        data = {T.FLOAT32: lambda: r.uniform(-2, 2, rhs_shape).astype(np.float32),
                T.INT8: lambda: r.integers(-128, 128, rhs_shape).astype(np.int8),
                T.INT16: lambda: r.integers(-32768, 32768, rhs_shape).astype(np.int16)}[ttype]()
    y = b.tensor("rhs", rhs_shape, ttype, qs[1], data)
    o = b.tensor("output", out_shape, ttype, qs[2])
    opt = s.BatchMatMulOptionsT()
    opt.adjX, opt.adjY = adj_x, adj_y
    b.write(name, OPS.BATCH_MATMUL, [x, y], [o], OPT.BatchMatMulOptions, opt)


def transpose_conv(name, seed, ttype, in_shape, out_c, kh, kw, stride, padding, out_hw, act=0,
                   per_channel=True, bias=True, bias_type=T.INT64):
    """TRANSPOSE_CONV of `ttype` (int8: per-channel or per-tensor filter scales, int32 bias;
    int16: an int8 filter, a `bias_type` bias, zero points 0), its output
    `[batch, *out_hw, out_c]` (the output-shape input a constant)."""
    r = rng(seed)
    b = Builder()
    f_shape = [out_c, kh, kw, in_shape[3]]
    out_shape = [in_shape[0], out_hw[0], out_hw[1], out_c]
    shape = b.tensor("output_shape", [4], T.INT32, None, np.array(out_shape, dtype=np.int32))
    if ttype == T.FLOAT32:
        f = b.tensor("filter", f_shape, T.FLOAT32, None, r.normal(0, 0.3, f_shape).astype(np.float32))
        i = b.tensor("input", in_shape, T.FLOAT32)
        bi = b.tensor("bias", [out_c], T.FLOAT32, None, r.normal(0, 1, out_c).astype(np.float32)) if bias else -1
        o = b.tensor("output", out_shape, T.FLOAT32)
    elif ttype == T.INT16:
        in_q = quant(0.0005 + r.random() * 0.001, 0)
        f_scales = (0.002 + r.random(out_c) * 0.02) if per_channel else 0.01 + r.random() * 0.01
        out_q = quant(0.002 + r.random() * 0.003, 0)
        f = b.tensor("filter", f_shape, T.INT8, quant(f_scales, np.zeros(np.size(f_scales), int)),
                     r.integers(-127, 128, f_shape, dtype=np.int8))
        i = b.tensor("input", in_shape, T.INT16, in_q)
        bi = -1
        if bias:
            bias_scale = in_q.scale[0] * np.atleast_1d(f_scales)
            bnp = np.int64 if bias_type == T.INT64 else np.int16
            bi = b.tensor("bias", [out_c], bias_type, quant(bias_scale, np.zeros(np.size(bias_scale), int)),
                          r.integers(-30000, 30000, out_c).astype(bnp))
        o = b.tensor("output", out_shape, T.INT16, out_q)
    else:
        in_q = quant(0.05 + r.random() * 0.1, r.integers(-20, 20))
        f_scales = (0.002 + r.random(out_c) * 0.02) if per_channel else 0.01 + r.random() * 0.01
        out_q = quant(0.1 + r.random() * 0.3, r.integers(-30, 30))
        f = b.tensor("filter", f_shape, T.INT8, quant(f_scales, np.zeros(np.size(f_scales), int)),
                     r.integers(-127, 128, f_shape, dtype=np.int8))
        i = b.tensor("input", in_shape, T.INT8, in_q)
        bi = -1
        if bias:
            bias_scale = in_q.scale[0] * np.atleast_1d(f_scales)
            bi = b.tensor("bias", [out_c], T.INT32, quant(bias_scale, np.zeros(np.size(bias_scale), int)),
                          r.integers(-3000, 3000, out_c, dtype=np.int32))
        o = b.tensor("output", out_shape, T.INT8, out_q)
    opt = s.TransposeConvOptionsT()
    opt.padding, opt.strideH, opt.strideW, opt.fusedActivationFunction = padding, stride[0], stride[1], act
    ins = [shape, f, i] + ([bi] if bias else [])
    b.write(name, OPS.TRANSPOSE_CONV, ins, [o], OPT.TransposeConvOptions, opt)


def detection(name, seed, boxes, classes, background, options, stride=4, floor_scores=False):
    """TFLite_Detection_PostProcess (float32): the box encodings [1, boxes, stride] and class
    predictions [1, boxes, classes + background] graph inputs (random ±8: boxes overlapping,
    scores on both sides of the thresholds), constant anchors (centres in [0, 1], sizes in
    [0.1, 0.5]); `floor_scores`: the predictions a FLOOR of the input (integers: many ties in
    the scores). `options` the FlexBuffer map's entries."""
    r = rng(seed)
    row = classes + background
    b = Builder()
    anchors = np.concatenate([r.uniform(0, 1, (boxes, 2)), r.uniform(0.1, 0.5, (boxes, 2))],
                             axis=1).astype(np.float32)
    enc = b.tensor("box_encodings", [1, boxes, stride], T.FLOAT32)
    cls = b.tensor("class_predictions", [1, boxes, row], T.FLOAT32)
    anc = b.tensor("anchors", [boxes, 4], T.FLOAT32, data=anchors)
    md = options["max_detections"]
    outs = [b.tensor("detection_boxes", [1, md, 4], T.FLOAT32),
            b.tensor("detection_classes", [1, md], T.FLOAT32),
            b.tensor("detection_scores", [1, md], T.FLOAT32),
            b.tensor("num_detections", [1], T.FLOAT32)]
    ops = []
    inputs = [enc, cls]
    if floor_scores:
        raw = b.tensor("raw_scores", [1, boxes, row], T.FLOAT32)
        ops.append((OPS.FLOOR, [raw], [cls], 0, None))
        inputs = [enc, raw]
    ops.append(("TFLite_Detection_PostProcess", [enc, cls, anc], outs, 0, flex(options)))
    b.write_ops(name, ops, inputs, outs)


def binary_i16(name, seed, opcode, a_shape, b_shape, out_shape, act, zps=(0, 0, 0), const_b=False,
               scales=None):
    """An int16 ADD, SUB, MUL or SQUARED_DIFFERENCE (TFLM's 16x8 quantization: zero points 0
    unless `zps` says otherwise), random scales near the converter's unless `scales` gives
    them; `const_b`: the second operand a constant."""
    r = rng(seed)
    b = Builder()
    if scales is None:
        sa, sb = 0.0005 + r.random() * 0.001, 0.0005 + r.random() * 0.002
        so = {OPS.MUL: sa * sb * 32768 * (0.3 + r.random()),
              OPS.SQUARED_DIFFERENCE: (2 * max(sa, sb)) ** 2 * 16384 * (0.2 + r.random())}.get(
                  opcode, (sa + sb) * (0.8 + r.random()))
        scales = (sa, sb, so)
    x = b.tensor("a", a_shape, T.INT16, quant(scales[0], zps[0]))
    data = r.integers(-32768, 32768, b_shape).astype(np.int16) if const_b else None
    y = b.tensor("b", b_shape, T.INT16, quant(scales[1], zps[1]), data)
    o = b.tensor("output", out_shape, T.INT16, quant(scales[2], zps[2]))
    b.write(name, opcode, [x, y], [o], *arithmetic_options(opcode, act))


def relu_i16(name, opcode, shape, in_q, out_q):
    """int16 RELU (zero points 0, a requantization) or RELU6 (the input's values clamped)."""
    b = Builder()
    i = b.tensor("input", shape, T.INT16, quant(*in_q))
    o = b.tensor("output", shape, T.INT16, quant(*out_q))
    b.write(name, opcode, [i], [o])


def pool_i16(name, opcode, in_shape, k, stride, padding, act, q=(0.0007, 0)):
    """int16 AVERAGE_POOL_2D or MAX_POOL_2D, input and output of quantization `q`."""
    b = Builder()
    i = b.tensor("input", in_shape, T.INT16, quant(*q))
    oh = _out(in_shape[1], k[0], stride[0], 1, padding)
    ow = _out(in_shape[2], k[1], stride[1], 1, padding)
    o = b.tensor("output", [in_shape[0], oh, ow, in_shape[3]], T.INT16, quant(*q))
    opt = s.Pool2DOptionsT()
    opt.padding, opt.strideH, opt.strideW = padding, stride[0], stride[1]
    opt.filterHeight, opt.filterWidth, opt.fusedActivationFunction = k[0], k[1], act
    b.write(name, opcode, [i], [o], OPT.Pool2DOptions, opt)


def sweep(seed, count):
    """`count` single-operator models with random structure (shapes, strides, dilation,
    padding, activation, broadcasting, axes) and random quantization, named rand_NNN_OP."""
    r = rng(seed)
    pads, acts = [PAD.SAME, PAD.VALID], [ACT.NONE, ACT.RELU, ACT.RELU_N1_TO_1, ACT.RELU6]
    kinds = ["conv", "dw", "fc", "avg", "max", "softmax", "logistic", "add", "mul", "mean",
             "pad", "concat", "transpose", "quantize", "requantize", "dequantize", "sub"]

    def ri(lo, hi):
        return int(r.integers(lo, hi + 1))

    def spatial(k, dil, stride, padding):
        size = ri(1, 12)
        if padding == PAD.VALID and size < (k - 1) * dil + 1:
            size = (k - 1) * dil + 1 + ri(0, 3)
        return size

    for n in range(count):
        kind = kinds[n % len(kinds)]
        name = f"rand_{n:03d}_{kind}"
        sd = ri(0, 1 << 30)
        padding, act = pads[ri(0, 1)], acts[ri(0, 3)]
        if kind in ("conv", "dw"):
            kh, kw, sh, sw, dh, dw_ = ri(1, 4), ri(1, 4), ri(1, 3), ri(1, 3), ri(1, 3), ri(1, 3)
            shape = [ri(1, 2), spatial(kh, dh, sh, padding), spatial(kw, dw_, sw, padding), ri(1, 6)]
            if kind == "conv":
                conv(name, sd, shape, ri(1, 8), kh, kw, (sh, sw), (dh, dw_), padding, act, ri(0, 1) == 1)
            else:
                depthwise(name, sd, shape, ri(1, 3), kh, kw, (sh, sw), (dh, dw_), padding, act, ri(0, 1) == 1)
        elif kind == "fc":
            fully_connected(name, sd, [ri(1, 3), ri(1, 64)], ri(1, 16), act, ri(0, 1) == 1, bias=ri(0, 3) > 0)
        elif kind in ("avg", "max"):
            kh, kw, sh, sw = ri(1, 4), ri(1, 4), ri(1, 3), ri(1, 3)
            shape = [ri(1, 2), spatial(kh, 1, sh, padding), spatial(kw, 1, sw, padding), ri(1, 5)]
            pool(name, sd, OPS.AVERAGE_POOL_2D if kind == "avg" else OPS.MAX_POOL_2D,
                 shape, (kh, kw), (sh, sw), padding, act)
        elif kind == "softmax":
            softmax(name, [ri(1, 4), ri(1, 50)], float(r.uniform(0.2, 2.0)),
                    float(np.exp(r.uniform(np.log(0.002), np.log(0.5)))), ri(-128, 127))
        elif kind == "logistic":
            logistic(name, [1, 256], float(np.exp(r.uniform(np.log(0.002), np.log(0.5)))), ri(-128, 127))
        elif kind in ("add", "mul", "sub"):
            out = [ri(1, 5) for _ in range(ri(1, 4))]
            a = [d if r.random() < 0.7 else 1 for d in out]
            b = [d if r.random() < 0.7 else 1 for d in out][ri(0, len(out) - 1):]
            opcode = {"add": OPS.ADD, "mul": OPS.MUL, "sub": OPS.SUB}[kind]
            binary(name, sd, opcode, a, b, list(np.broadcast_shapes(tuple(a), tuple(b))), act)
        elif kind == "mean":
            shape = [ri(1, 6) for _ in range(ri(1, 4))]
            axes = sorted({ri(-len(shape), len(shape) - 1) for _ in range(ri(1, len(shape)))})
            mean(name, shape, axes, ri(0, 1) == 1,
                 (float(r.uniform(0.01, 0.3)), ri(-128, 127)), (float(r.uniform(0.01, 0.3)), ri(-128, 127)))
        elif kind == "pad":
            shape = [ri(1, 5) for _ in range(ri(1, 4))]
            pad(name, shape, [[ri(0, 3), ri(0, 3)] for _ in shape])
        elif kind == "concat":
            rank = ri(1, 4)
            base = [ri(1, 4) for _ in range(rank)]
            axis = ri(-rank, rank - 1)
            shapes = []
            for _ in range(ri(1, 4)):
                sh = list(base)
                sh[axis] = ri(1, 4)
                shapes.append(sh)
            concat(name, shapes, axis)
        elif kind == "transpose":
            shape = [ri(1, 5) for _ in range(ri(1, 5))]
            transpose(name, shape, [int(x) for x in r.permutation(len(shape))])
        elif kind == "quantize":
            quantize_f32(name, [1, 300], float(np.exp(r.uniform(np.log(0.001), np.log(1.0)))), ri(-128, 127))
        elif kind == "requantize":
            requantize(name, [1, 256], (float(r.uniform(0.005, 0.5)), ri(-128, 127)),
                       (float(r.uniform(0.005, 0.5)), ri(-128, 127)))
        else:
            dequantize(name, [1, 256], float(np.exp(r.uniform(np.log(0.001), np.log(1.0)))), ri(-128, 127))


def main():
    global OUT
    if len(sys.argv) == 5 and sys.argv[1] == "--sweep":
        OUT = sys.argv[4]
        os.makedirs(OUT, exist_ok=True)
        return sweep(int(sys.argv[2]), int(sys.argv[3]))
    os.makedirs(OUT, exist_ok=True)
    conv("conv_s2x1_same_relu6_pc", 1, [1, 9, 11, 5], 6, 3, 3, (2, 1), (1, 1), PAD.SAME, ACT.RELU6, True)
    conv("conv_dil2x3_valid_relu_pt", 2, [2, 10, 12, 4], 8, 3, 2, (1, 1), (2, 3), PAD.VALID, ACT.RELU, False)
    conv("conv_s2_same_relun1_pc", 3, [1, 8, 8, 3], 4, 5, 5, (2, 2), (1, 1), PAD.SAME, ACT.RELU_N1_TO_1, True)
    conv("conv_1x1_none_pc", 4, [1, 5, 5, 16], 12, 1, 1, (1, 1), (1, 1), PAD.VALID, ACT.NONE, True)
    depthwise("dw_m2_s2_same_relun1_pc", 5, [1, 7, 8, 3], 2, 3, 3, (2, 2), (1, 1), PAD.SAME, ACT.RELU_N1_TO_1, True)
    depthwise("dw_m1_dil2_valid_relu6_pc", 6, [1, 12, 12, 4], 1, 3, 3, (1, 1), (2, 2), PAD.VALID, ACT.RELU6, True)
    depthwise("dw_m3_s1x2_same_none_pt", 7, [2, 6, 9, 2], 3, 2, 3, (1, 2), (1, 1), PAD.SAME, ACT.NONE, False)
    # One input channel, a multiplier of 8 or 16, more than 25 taps (micro_speech's shape:
    # its window rows read in place), one with multipliers of at least 0.5.
    depthwise("dw_m8_in1_s2_same_relu_pc", 40, [1, 11, 10, 1], 8, 6, 5, (2, 2), (1, 1), PAD.SAME, ACT.RELU, True)
    depthwise("dw_m16_in1_valid_none_pt", 41, [2, 8, 9, 1], 16, 5, 6, (1, 1), (1, 1), PAD.VALID, ACT.NONE, False)
    depthwise("dw_m8_in1_same_gain_pc", 42, [1, 7, 9, 1], 8, 6, 5, (1, 1), (1, 1), PAD.SAME, ACT.NONE, True, gain=400.0)
    fully_connected("fc_pc_relu", 8, [3, 20], 7, ACT.RELU, True)
    # 16x8 (int16 activations, int8 weights): int64 and int32 biases, none (int64, or int32
    # by the options' quantized_bias_type), per-channel and per-tensor filters.
    conv_i16("conv_i16_same_pc_b64_relu", 170, [1, 5, 6, 3], 4, 3, 3, (1, 1), (1, 1), PAD.SAME, ACT.RELU, True)
    conv_i16("conv_i16_valid_s2x1_pt_b32_relu6", 171, [2, 7, 6, 4], 5, 3, 2, (2, 1), (1, 1), PAD.VALID,
             ACT.RELU6, False, bias_type=T.INT32)
    conv_i16("conv_i16_dil2_same_nobias", 172, [1, 8, 8, 2], 3, 3, 3, (1, 1), (2, 2), PAD.SAME, ACT.NONE, True,
             bias_type=None)
    conv_i16("conv_i16_nobias_qbt32_s2", 173, [1, 7, 9, 5], 6, 2, 3, (2, 2), (1, 1), PAD.SAME, ACT.NONE, True,
             bias_type=None, qbt=T.INT32)
    conv_i16("conv_i16_grouped_relun1", 174, [1, 6, 6, 4], 6, 3, 3, (1, 1), (1, 1), PAD.SAME, ACT.RELU_N1_TO_1,
             True, groups=2)
    conv_i16("conv_i16_1x1_gain_b32", 175, [2, 3, 4, 8], 7, 1, 1, (1, 1), (1, 1), PAD.VALID, ACT.NONE, True,
             bias_type=T.INT32, gain=3000.0)
    conv_i16("conv_i16_1x1_gain_b64", 176, [2, 3, 4, 8], 7, 1, 1, (1, 1), (1, 1), PAD.VALID, ACT.NONE, False,
             gain=3000.0)
    depthwise_i16("dw_i16_m1_same_pc_relu", 177, [1, 6, 5, 4], 1, 3, 3, (1, 1), (1, 1), PAD.SAME, ACT.RELU, True)
    depthwise_i16("dw_i16_m2_s2_valid_pt_relu6", 178, [2, 7, 7, 3], 2, 3, 3, (2, 2), (1, 1), PAD.VALID, ACT.RELU6,
                  False)
    depthwise_i16("dw_i16_m3_dil2x1_same_nobias", 179, [1, 9, 8, 2], 3, 2, 3, (1, 1), (2, 1), PAD.SAME, ACT.NONE,
                  True, bias=False)
    fully_connected_i16("fc_i16_pc_b64_relu", 180, [3, 10], 6, ACT.RELU, True)
    fully_connected_i16("fc_i16_pt_b32", 181, [2, 2, 16], 5, ACT.NONE, False, bias_type=T.INT32)
    fully_connected_i16("fc_i16_pc_nobias_qbt32", 182, [4, 12], 3, ACT.NONE, True, bias_type=None, qbt=T.INT32)
    fully_connected_i16("fc_i16_pt_zp_relu6", 183, [2, 9], 4, ACT.RELU6, False, zero_points=(17, -5))
    fully_connected_i16("fc_i16_pc_nobias_1unit", 184, [5, 7], 1, ACT.RELU_N1_TO_1, True, bias_type=None)
    # Biases at int32's edge (the 32-bit sum wraps, as TFLM's on x86-64) and far past 2^47
    # (the 64-bit requantization's product wraps and its int32 result truncates, as TFLM's).
    fully_connected_i16("fc_i16_pt_b32_wrap", 185, [6, 24], 4, ACT.NONE, False, bias_type=T.INT32,
                        bias_edge=2**31 - 1)
    fully_connected_i16("fc_i16_pc_b64_huge", 186, [6, 24], 4, ACT.NONE, True, bias_edge=2**47 + 12345)
    fully_connected("fc_pt_relun1_3d", 9, [2, 1, 16], 5, ACT.RELU_N1_TO_1, False)
    fully_connected("fc_pt_relu6_nobias", 10, [1, 40], 9, ACT.RELU6, False, bias=False)
    fully_connected_i4("fc_i4_none", 300, [2, 7], 5, ACT.NONE)
    fully_connected_i4("fc_i4_relu_odd_nobias", 301, [3, 5], 3, ACT.RELU, bias=False)
    fully_connected_i4("fc_i4_zp_relu6_3d", 302, [2, 2, 12], 6, ACT.RELU6, filter_zp=3)
    conv_i4("conv_i4_same_pc_relu6", 303, [1, 6, 5, 3], 4, 3, 3, (1, 1), (1, 1), PAD.SAME, ACT.RELU6, True)
    conv_i4("conv_i4_valid_s2_dil_pt_odd", 304, [2, 7, 7, 3], 3, 3, 1, (2, 1), (1, 2), PAD.VALID, ACT.NONE, False)
    conv_i4("conv_i4_1x1_nobias_relu", 305, [1, 4, 4, 5], 7, 1, 1, (1, 1), (1, 1), PAD.VALID, ACT.RELU, True, bias=False)
    conv_i4("conv_i4_grouped", 306, [1, 5, 5, 4], 6, 2, 2, (1, 1), (1, 1), PAD.SAME, ACT.NONE, True, groups=2)
    depthwise_i4("dw_i4_m1_same_pc_relu", 307, [1, 6, 6, 5], 1, 3, 3, (1, 1), (1, 1), PAD.SAME, ACT.RELU, True)
    depthwise_i4("dw_i4_m3_s2_valid_pt_odd", 308, [1, 7, 5, 1], 3, 3, 3, (2, 2), (1, 1), PAD.VALID, ACT.NONE, False)
    depthwise_i4("dw_i4_m2_dil2_same_relu6", 309, [2, 6, 6, 3], 2, 2, 3, (1, 1), (2, 1), PAD.SAME, ACT.RELU6, True)
    pool("avgpool_3x3_s2_same_relu6", 11, OPS.AVERAGE_POOL_2D, [1, 9, 9, 6], (3, 3), (2, 2), PAD.SAME, ACT.RELU6)
    pool("avgpool_2x3_s1_valid_none", 12, OPS.AVERAGE_POOL_2D, [2, 6, 7, 3], (2, 3), (1, 1), PAD.VALID, ACT.NONE)
    pool("maxpool_2x3_s2_valid_none", 13, OPS.MAX_POOL_2D, [2, 8, 7, 3], (2, 3), (2, 2), PAD.VALID, ACT.NONE)
    pool("maxpool_3x3_s2_same_relu", 14, OPS.MAX_POOL_2D, [1, 9, 10, 4], (3, 3), (2, 2), PAD.SAME, ACT.RELU)
    softmax("softmax_beta07", [3, 10], 0.7, 0.13, 5)
    softmax("softmax_4d_wide", [1, 2, 3, 40], 1.0, 0.0625, -128)
    softmax("softmax_small_scale", [4, 12], 1.0, 0.01, 20)
    logistic("logistic_q007", [1, 256], 0.07, 5)
    logistic("logistic_q002", [4, 64], 0.02, -10)
    # RELU: a scale ratio below one and above one (a left shift), zero points either side;
    # RELU6: six inside int8, and clamped to 127 (a small scale).
    relu("relu_requant_down", OPS.RELU, [2, 3, 5, 7], (0.05, -7), (0.09, 11))
    relu("relu_requant_up", OPS.RELU, [1, 300], (0.11, 20), (0.037, -100))
    relu("relu6_q005", OPS.RELU6, [3, 50], (0.05, -10), (0.05, -10))
    relu("relu6_six_clamped", OPS.RELU6, [1, 4, 4, 8], (0.021, 60), (0.021, 60))
    # ABS: scales that differ (a requantization) and one scale; int16 quantized (zero points
    # 0) and plain. RSQRT int8: an input zero point of -128 (TFLM fails on an input below it).
    relu("abs_rescale", OPS.ABS, [2, 3, 40], (0.05, -7), (0.03, -100))
    relu("abs_same_scale", OPS.ABS, [1, 300], (0.07, 20), (0.07, 5))
    unary_i16("abs_i16_quantized", OPS.ABS, [4, 50], (0.01, 0), (0.007, 0))
    unary_i16("abs_i16_plain", OPS.ABS, [3, 64])
    relu("rsqrt_q", OPS.RSQRT, [2, 128], (0.05, -128), (0.02, -100))
    relu("rsqrt_q_small_scale", OPS.RSQRT, [1, 256], (0.003, -128), (0.15, 10))
    # The comparisons: int8 of two quantizations (compared by value), broadcast; float32,
    # int32, int64, bool; a constant operand. LOGICAL_AND / OR broadcast, LOGICAL_NOT.
    compare("cmp_equal_i8_bcast", OPS.EQUAL, T.INT8, [2, 3, 4], [4], [2, 3, 4], (0.05, -3), (0.1, 7))
    compare("cmp_greater_i8_same", OPS.GREATER, T.INT8, [3, 40], [3, 40], [3, 40], (0.02, 10), (0.03, -20))
    compare("cmp_less_equal_f32_bcast", OPS.LESS_EQUAL, T.FLOAT32, [2, 1, 5], [3, 1], [2, 3, 5])
    compare("cmp_greater_f32_const", OPS.GREATER, T.FLOAT32, [2, 50], [50], [2, 50],
            const_b=rng(70).uniform(-8, 8, 50).astype(np.float32))
    compare("cmp_greater_equal_i32", OPS.GREATER_EQUAL, T.INT32, [4, 6], [4, 6], [4, 6])
    compare("cmp_not_equal_i32_const", OPS.NOT_EQUAL, T.INT32, [3, 8], [8], [3, 8],
            const_b=rng(71).integers(-5, 5, 8, dtype=np.int32))
    compare("cmp_less_i64_bcast", OPS.LESS, T.INT64, [3, 4], [1, 4], [3, 4])
    compare("cmp_equal_bool_bcast", OPS.EQUAL, T.BOOL, [2, 5, 3], [5, 1], [2, 5, 3])
    compare("cmp_not_equal_bool", OPS.NOT_EQUAL, T.BOOL, [40], [40], [40])
    compare("cmp_less_i8_const", OPS.LESS, T.INT8, [5, 9], [1], [5, 9], (0.04, 0), (0.04, 0),
            const_b=np.array([3], dtype=np.int8))
    compare("logical_and_bcast", OPS.LOGICAL_AND, T.BOOL, [2, 3, 4], [3, 1], [2, 3, 4])
    compare("logical_or_same", OPS.LOGICAL_OR, T.BOOL, [60], [60], [60])
    unary_bool("logical_not", OPS.LOGICAL_NOT, [3, 17])
    space_depth("space_to_depth_b2", OPS.SPACE_TO_DEPTH, T.INT8, [1, 4, 6, 3], 2)
    space_depth("depth_to_space_b2", OPS.DEPTH_TO_SPACE, T.INT8, [2, 2, 3, 12], 2)
    space_depth("f32_space_to_depth_b3", OPS.SPACE_TO_DEPTH, T.FLOAT32, [1, 6, 3, 2], 3)
    space_depth("f32_depth_to_space_b3", OPS.DEPTH_TO_SPACE, T.FLOAT32, [1, 3, 2, 18], 3)
    gather("gather_axis0", T.INT8, [10, 4], [3, 0, 9, 3, 7], 0)
    gather("f32_gather_axis1_2d_indices", T.FLOAT32, [2, 5, 3], [[4, 0], [2, 2]], 1)
    gather("gather_batch_dims1_last_axis", T.INT8, [2, 3, 6], [[5, 1, 0], [2, 2, 4]], -1, 1)
    arg_min_max("arg_max_last", OPS.ARG_MAX, T.INT8, [3, 5, 10], -1)
    arg_min_max("arg_min_axis1", OPS.ARG_MIN, T.INT8, [2, 40, 3], 1)
    arg_min_max("f32_arg_max_axis0", OPS.ARG_MAX, T.FLOAT32, [7, 12], 0)
    arg_min_max("f32_arg_min_last", OPS.ARG_MIN, T.FLOAT32, [4, 9], 1)
    reverse("reverse_last", T.INT8, [3, 4, 7], [-1])
    reverse("reverse_mid_two_i16", T.INT16, [2, 3, 4, 5], [2, 1])
    reverse("reverse_all_i64", T.INT64, [4, 6], [0, 1])
    reverse("f32_reverse_first", T.FLOAT32, [5, 2, 3], [0])
    resize_nearest("resize_nn_up2", T.INT8, [1, 3, 4, 5], [6, 8])
    resize_nearest("resize_nn_half_pixel_i16", T.INT16, [2, 5, 5, 3], [3, 7], half_pixel_centers=True)
    resize_nearest("f32_resize_nn_align", T.FLOAT32, [1, 4, 6, 2], [7, 5], align_corners=True)
    resize_nearest("resize_nn_align_half", T.INT8, [1, 7, 3, 4], [5, 9], True, True)
    resize_bilinear("resize_bl_up", T.INT8, [1, 3, 4, 5], [7, 9])
    resize_bilinear("resize_bl_half_down", T.INT8, [2, 9, 7, 3], [4, 5], half_pixel_centers=True)
    resize_bilinear("resize_bl_align", T.INT8, [1, 5, 6, 2], [9, 4], align_corners=True)
    resize_bilinear("f32_resize_bl_up", T.FLOAT32, [1, 3, 4, 5], [7, 9])
    resize_bilinear("f32_resize_bl_half", T.FLOAT32, [2, 6, 5, 3], [9, 3], half_pixel_centers=True)
    resize_bilinear("f32_resize_bl_align", T.FLOAT32, [1, 4, 7, 2], [6, 13], align_corners=True)
    leaky_relu("leaky_relu_02", T.INT8, [2, 3, 40], 0.2, (0.05, -7), (0.04, 10))
    leaky_relu("leaky_relu_i16", T.INT16, [4, 50], 0.1, (0.001, 0), (0.0007, 0))
    leaky_relu("f32_leaky_relu", T.FLOAT32, [3, 60], 0.3)
    leaky_relu("f32_leaky_relu_negative_alpha", T.FLOAT32, [100], -0.5)
    # MINIMUM / MAXIMUM on the stored values of each type (TFLM neither rescales nor checks).
    compare("max_i8_bcast", OPS.MAXIMUM, T.INT8, [2, 3, 4], [4], [2, 3, 4], (0.05, -3), (0.05, -3),
            out_type=T.INT8)
    compare("min_i16_same", OPS.MINIMUM, T.INT16, [3, 40], [3, 40], [3, 40], out_type=T.INT16)
    compare("max_i64_bcast", OPS.MAXIMUM, T.INT64, [3, 1, 4], [1, 5, 4], [3, 5, 4], out_type=T.INT64)
    compare("min_f32_const", OPS.MINIMUM, T.FLOAT32, [2, 50], [50], [2, 50],
            const_b=rng(72).uniform(-8, 8, 50).astype(np.float32), out_type=T.FLOAT32)
    expand_dims("expand_dims_last", T.INT8, [2, 3, 5], -1)
    expand_dims("expand_dims_mid_i16", T.INT16, [4, 6], 1)
    shape_of("shape_4d", T.INT8, [2, 3, 5, 7])
    slice_("slice_4d", T.INT8, [2, 6, 5, 7], [1, 2, 0, 3], [1, 3, 5, 4])
    slice_("slice_to_end_i16_i64", T.INT16, [7, 9], [3, 4], [-1, 5], T.INT64)
    slice_("slice_i32_data", T.INT32, [4, 6], [1, 1], [2, -1])
    slice_("slice_bool_3d", T.BOOL, [3, 4, 5], [0, 1, 2], [3, 2, -1])
    pack("pack_axis1_3", T.INT8, [2, 3, 4], 3, 1)
    pack("pack_last_i64", T.INT64, [3, 5], 2, -1)
    pack("pack_first_i16_const", T.INT16, [4, 6], 4, 0, const_first=True)
    fill("fill_i8_input", T.INT8, [3, 4, 5], T.INT32)
    fill("fill_i32_const_dims_i64", T.INT32, [2, 7], T.INT64, value=-123456)
    zeros_like("zeros_like_i8", T.INT8, [4, 9])
    zeros_like("zeros_like_i64", T.INT64, [3, 5])
    binary("add_bcast_relu6", 15, OPS.ADD, [1, 4, 5, 3], [1, 1, 5, 1], [1, 4, 5, 3], ACT.RELU6)
    binary("add_same_relu", 16, OPS.ADD, [2, 33], [2, 33], [2, 33], ACT.RELU)
    binary("add_bcast_both_none", 17, OPS.ADD, [3, 1, 4], [1, 5, 4], [3, 5, 4], ACT.NONE)
    binary("mul_bcast_relun1", 18, OPS.MUL, [1, 3, 4, 6], [6], [1, 3, 4, 6], ACT.RELU_N1_TO_1)
    binary("mul_same_none", 19, OPS.MUL, [5, 13], [5, 13], [5, 13], ACT.NONE)
    binary("sub_same_none", 60, OPS.SUB, [3, 40], [3, 40], [3, 40], ACT.NONE)
    binary("sub_bcast_relu", 61, OPS.SUB, [1, 4, 5, 3], [1, 1, 5, 1], [1, 4, 5, 3], ACT.RELU)
    binary("sub_bcast_first_relu6", 62, OPS.SUB, [1, 1, 5, 1], [2, 4, 5, 3], [2, 4, 5, 3], ACT.RELU6)
    binary_i32("i32_sub_bcast_relu", OPS.SUB, [2, 3, 4], [4], [2, 3, 4], ACT.RELU)
    binary_i32("i32_sub_same_none", OPS.SUB, [5, 7], [5, 7], [5, 7], ACT.NONE)
    squared_difference("sqdiff_same", 65, [3, 40], [3, 40], [3, 40])
    squared_difference("sqdiff_bcast", 66, [1, 4, 5, 3], [1, 1, 5, 1], [1, 4, 5, 3])
    squared_difference("sqdiff_bcast_first", 67, [1, 1, 5, 1], [2, 4, 5, 3], [2, 4, 5, 3])
    binary_i32("i32_sqdiff_bcast", OPS.SQUARED_DIFFERENCE, [2, 3, 4], [4], [2, 3, 4], ACT.NONE)
    pad("pad_4d", [1, 5, 6, 3], [[0, 0], [1, 2], [2, 1], [0, 1]])
    pad("pad_2d", [3, 7], [[2, 0], [1, 3]])
    mean("mean_hw_keep", [1, 7, 9, 10], [1, 2], True, (0.05, -5), (0.02, 7))
    mean("mean_last_nokeep", [2, 3, 20], [-1], False, (0.1, 3), (0.1, 3))
    mean("mean_all_keep", [2, 4, 5], [0, 1, 2], True, (0.3, -100), (0.01, 0))
    # The other reductions (reduce.cc): SUM int8/int16/float32, MEAN int16/float32, REDUCE_MAX
    # and REDUCE_MIN int8/float32, REDUCE_ALL bool.
    mean("sum_last", [2, 3, 20], [-1], False, (0.1, 3), (0.9, -4), OPS.SUM)
    mean("sum_hw_keep_dup_axes", [1, 5, 6, 7], [1, 2, -3], True, (0.05, -7), (1.5, 2), OPS.SUM)
    mean("sum_i16", [3, 4, 9], [0, 2], False, (0.02, 0), (0.5, 0), OPS.SUM, T.INT16)
    mean("mean_i16_hw", [1, 6, 5, 8], [1, 2], True, (0.03, 0), (0.02, 0), OPS.MEAN, T.INT16)
    mean("f32_mean_hw_keep", [2, 7, 9, 10], [1, 2], True, None, None, OPS.MEAN, T.FLOAT32)
    mean("f32_mean_first_nokeep", [5, 3, 4], [0], False, None, None, OPS.MEAN, T.FLOAT32)
    mean("f32_sum_all", [3, 4, 5], [0, 1, 2], False, None, None, OPS.SUM, T.FLOAT32)
    mean("f32_sum_mid_keep", [2, 6, 5], [1], True, None, None, OPS.SUM, T.FLOAT32)
    mean("reduce_max_last", [2, 3, 11], [-1], False, (0.1, 3), (0.1, 3), OPS.REDUCE_MAX)
    mean("reduce_min_axes02", [4, 3, 6], [0, 2], True, (0.07, -9), (0.07, -9), OPS.REDUCE_MIN)
    mean("f32_reduce_max_hw", [1, 5, 4, 6], [1, 2], False, None, None, OPS.REDUCE_MAX, T.FLOAT32)
    mean("f32_reduce_min_first", [6, 2, 3], [0], True, None, None, OPS.REDUCE_MIN, T.FLOAT32)
    mean("reduce_all_last", [3, 4, 5], [-1], False, None, None, OPS.REDUCE_ALL, T.BOOL)
    mean("reduce_all_first_keep", [6, 7], [0], True, None, None, OPS.REDUCE_ALL, T.BOOL)
    # SPLIT, SPLIT_V, UNPACK: one output a run (up to 16 outputs).
    split("split_axis1_3", T.INT8, [2, 6, 5], 1, 3)
    split("split_last_2_i16", T.INT16, [3, 4, 8], -1, 2)
    split("split_first_4_i32", T.INT32, [4, 3], 0, 4)
    split("f32_split_mid_2", T.FLOAT32, [2, 4, 3, 2], 2, 3)
    split("split_v_sizes", T.INT8, [2, 9, 3], 1, 3, [2, -1, 4])
    split("f32_split_v_last", T.FLOAT32, [3, 10], -1, 2, [7, 3])
    split("unpack_axis0", T.INT8, [3, 4, 5], 0, 0, opcode=OPS.UNPACK)
    split("unpack_last_i16", T.INT16, [2, 3, 6], -1, 0, opcode=OPS.UNPACK)
    split("f32_unpack_mid", T.FLOAT32, [2, 5, 3], 1, 0, opcode=OPS.UNPACK)
    split("unpack_6_i32", T.INT32, [6, 3], 0, 0, opcode=OPS.UNPACK)
    unpack_pack("unpack_16_pack_i32", T.INT32, [16, 3])
    concat("concat_axis_last", [[1, 4, 4, 2], [1, 4, 4, 3], [1, 4, 4, 1]], -1)
    concat("concat_axis1", [[2, 3, 5], [2, 1, 5]], 1)
    quantize_typed("f32_quantize_i16", [3, 41], T.FLOAT32, T.INT16, None, (0.0013, 0))
    quantize_typed("f32_quantize_i16_zp_clamp", [2, 37], T.FLOAT32, T.INT16, None, (0.07, 32700))
    quantize_typed("quantize_i8_u8_shift128", [4, 33], T.INT8, T.UINT8, (0.03, -5), (0.03, 123))
    quantize_typed("quantize_i8_u8_rescale", [4, 33], T.INT8, T.UINT8, (0.03, -5), (0.011, 130))
    quantize_typed("quantize_i8_i16", [5, 21], T.INT8, T.INT16, (0.05, 3), (0.0007, 0))
    quantize_typed("quantize_i8_i32_up", [5, 21], T.INT8, T.INT32, (0.5, -7), (0.001, 11))
    quantize_typed("quantize_i16_i16_down", [3, 50], T.INT16, T.INT16, (0.0011, 0), (0.003, 0))
    quantize_typed("quantize_i16_i16_up", [3, 50], T.INT16, T.INT16, (0.0031, 0), (0.001, 0))
    quantize_typed("quantize_i32_i8", [6, 17], T.INT32, T.INT8, (1.5e-9, 3), (0.05, -2))
    quantize_typed("quantize_i32_i16", [6, 17], T.INT32, T.INT16, (2.5e-10, -9), (0.00005, 0))
    quantize_typed("quantize_u8_i8_shift128", [4, 29], T.UINT8, T.INT8, (0.02, 130), (0.02, 2))
    quantize_typed("quantize_u8_i8_rescale", [4, 29], T.UINT8, T.INT8, (0.02, 130), (0.047, -3))
    dequantize_typed("dequantize_i16", [3, 44], T.INT16, 0.0009, 0)
    dequantize_typed("dequantize_i16_zp", [2, 31], T.INT16, 0.13, -300)
    dequantize_typed("dequantize_u8", [3, 44], T.UINT8, 0.021, 128)
    concat_typed("concat_bool_axis0", T.BOOL, [[2, 3], [1, 3], [3, 3]], 0, const=(1,))
    concat_typed("concat_i16_axis_last_scales", T.INT16, [[2, 3, 4], [2, 3, 1]], -1, scales=[0.01, 0.5, 0.02])
    concat_typed("concat_i16_axis1", T.INT16, [[1, 2, 5], [1, 4, 5], [1, 1, 5]], 1)
    concat_typed("concat_i64_axis1", T.INT64, [[2, 2, 3], [2, 1, 3]], 1, const=(1,))
    concat_typed("concat_i64_axis_last", T.INT64, [[3, 2], [3, 5]], -1)
    transpose("transpose_0231", [2, 3, 4, 5], [0, 2, 3, 1])
    transpose("transpose_3d", [4, 6, 3], [2, 0, 1])
    transpose("transpose_i16_0231", [2, 3, 4, 5], [0, 2, 3, 1], T.INT16)
    transpose("transpose_i16_5d", [2, 1, 3, 2, 4], [4, 2, 0, 3, 1], T.INT16)
    transpose("f32_transpose_3d", [4, 6, 3], [2, 0, 1], T.FLOAT32)
    transpose("f32_transpose_2d", [7, 5], [1, 0], T.FLOAT32)
    quantize_f32("quantize_f32_i8", [1, 200], 0.031, -7)
    requantize("requantize_i8_i8", [1, 256], (0.05, 10), (0.13, -20))
    dequantize("dequantize_i8_f32", [1, 256], 0.037, -3)
    reshape("reshape_4d_2d", [1, 6, 1, 4], [6, 4])
    squeeze("squeeze_02", [1, 6, 1, 4], [0, 2])
    conv_f32("f32_conv_s2x1_same_relu6", 31, [1, 9, 11, 5], 6, 3, 3, (2, 1), (1, 1), PAD.SAME, ACT.RELU6)
    conv_f32("f32_conv_dil2x3_valid_relu", 32, [2, 10, 12, 4], 8, 3, 2, (1, 1), (2, 3), PAD.VALID, ACT.RELU)
    conv_f32("f32_conv_1x1_none_nobias", 33, [1, 5, 5, 16], 12, 1, 1, (1, 1), (1, 1), PAD.VALID, ACT.NONE, bias=False)
    depthwise_f32("f32_dw_m2_s2_same_relun1", 34, [1, 7, 8, 3], 2, 3, 3, (2, 2), (1, 1), PAD.SAME, ACT.RELU_N1_TO_1)
    depthwise_f32("f32_dw_m1_dil2_valid_none", 35, [1, 12, 12, 4], 1, 3, 3, (1, 1), (2, 2), PAD.VALID, ACT.NONE)
    fully_connected_f32("f32_fc_relu", 36, [3, 20], 7, ACT.RELU)
    fully_connected_f32("f32_fc_none_nobias_3d", 37, [2, 1, 16], 5, ACT.NONE, bias=False)
    pool_f32("f32_avgpool_3x3_s2_same_relu6", OPS.AVERAGE_POOL_2D, [1, 9, 9, 6], (3, 3), (2, 2), PAD.SAME, ACT.RELU6)
    pool_f32("f32_avgpool_2x3_s1_valid_none", OPS.AVERAGE_POOL_2D, [2, 6, 7, 3], (2, 3), (1, 1), PAD.VALID, ACT.NONE)
    pool_f32("f32_l2pool_3x3_s2_same_relu6", OPS.L2_POOL_2D, [1, 9, 9, 6], (3, 3), (2, 2), PAD.SAME, ACT.RELU6)
    pool_f32("f32_l2pool_2x3_s1_valid_none", OPS.L2_POOL_2D, [2, 6, 7, 3], (2, 3), (1, 1), PAD.VALID, ACT.NONE)
    pool_f32("f32_l2pool_4x2_s3x1_same_relun1", OPS.L2_POOL_2D, [1, 10, 5, 4], (4, 2), (3, 1), PAD.SAME, ACT.RELU_N1_TO_1)
    pool_f32("f32_maxpool_3x3_s2_same_relu", OPS.MAX_POOL_2D, [1, 9, 10, 4], (3, 3), (2, 2), PAD.SAME, ACT.RELU)
    softmax_f32("f32_softmax_beta07", [3, 10], 0.7)
    softmax_f32("f32_softmax_4d_wide", [1, 2, 3, 40], 1.0)
    logistic_f32("f32_logistic", [4, 64])
    relu_f32("f32_relu", OPS.RELU, [2, 5, 13])
    relu_f32("f32_relu6", OPS.RELU6, [1, 200])
    relu_f32("f32_neg", OPS.NEG, [3, 40])
    relu_f32("f32_floor", OPS.FLOOR, [2, 4, 25])
    relu_f32("f32_ceil", OPS.CEIL, [200])
    relu_f32("f32_square", OPS.SQUARE, [5, 31])
    relu_f32("f32_abs", OPS.ABS, [3, 40])
    div_i8("div_i8_same_none", [3, 40], [3, 40], [3, 40], (0.05, 3), (0.04, -7), (0.1, 2), ACT.NONE)
    div_i8("div_i8_bcast_relu6", [1, 4, 5, 3], [1, 1, 5, 1], [1, 4, 5, 3], (0.1, -20), (0.03, 10), (0.05, -128),
           ACT.RELU6)
    div_i8("div_i8_small_out_scale", [2, 33], [2, 33], [2, 33], (0.003, 0), (0.5, -1), (0.00002, 5), ACT.NONE)
    div_i8("div_i8_const_divisor_relun1", [4, 6], [6], [4, 6], (0.02, 1), (0.02, -3), (0.01, 0), ACT.RELU_N1_TO_1,
           const_b=[-128, -50, -4, 5, 60, 127])
    div_i8("div_i8_multiplier_below_one", [5, 26], [5, 26], [5, 26], (0.01, 0), (0.2, 0), (0.16, -1), ACT.NONE)
    binary("div_i8_random_q", 75, OPS.DIV, [2, 3, 4, 5], [2, 3, 4, 5], [2, 3, 4, 5], ACT.NONE)
    svdf_f32("f32_svdf_rank1_none", 120, 2, 7, 4, 1, 5, ACT.NONE)
    svdf_f32("f32_svdf_rank2_relu", 121, 1, 10, 3, 2, 8, ACT.RELU)
    svdf_f32("f32_svdf_rank3_relu6", 122, 3, 4, 2, 3, 3, ACT.RELU6)
    svdf_f32("f32_svdf_tanh_mem1", 123, 2, 5, 3, 1, 1, ACT.TANH)
    binary_f32("f32_div_bcast_relu", 73, OPS.DIV, [1, 4, 5, 3], [1, 1, 5, 1], [1, 4, 5, 3], ACT.RELU)
    binary_f32("f32_div_same_none", 74, OPS.DIV, [3, 40], [3, 40], [3, 40], ACT.NONE)
    relu_f32("f32_sqrt", OPS.SQRT, [2, 100], out_scale=0.3)
    relu_f32("f32_rsqrt", OPS.RSQRT, [2, 100], out_scale=0.3)
    relu_f32("f32_round", OPS.ROUND, [4, 70], out_scale=1.0)
    relu_f32("f32_exp", OPS.EXP, [3, 90])
    # SIN, COS: out_scale 1 reaches ±200 (glibc's large-argument reduction above 120).
    relu_f32("f32_sin", OPS.SIN, [3, 50])
    relu_f32("f32_sin_wide", OPS.SIN, [2, 3, 40], out_scale=1.0)
    relu_f32("f32_cos", OPS.COS, [4, 30], out_scale=0.05)
    relu_f32("f32_cos_wide", OPS.COS, [1, 250], out_scale=1.0)
    # LOG: negative inputs give NaN, zero gives -inf.
    relu_f32("f32_log", OPS.LOG, [2, 100], out_scale=0.3)
    relu_f32("f32_log_default", OPS.LOG, [5, 21])
    # Edges: SIN and COS of arguments up to ±1e8 and ±6e5 (the 192-bit reduction's range),
    # LOG of subnormal inputs (normalized first).
    relu_f32("f32_sin_huge", OPS.SIN, [2, 60], out_scale=5e5)
    relu_f32("f32_cos_huge", OPS.COS, [2, 60], out_scale=3e3)
    relu_f32("f32_log_subnormal", OPS.LOG, [2, 60], out_scale=1e-40)
    expand_dims("f32_expand_dims_0", T.FLOAT32, [3, 7], 0)
    shape_of("f32_shape_2d", T.FLOAT32, [11, 13])
    slice_("f32_slice_5d", T.FLOAT32, [2, 3, 4, 5, 6], [0, 1, 1, 2, 0], [2, 2, -1, 3, 6])
    pack("f32_pack_axis2", T.FLOAT32, [2, 3, 4], 2, 2)
    fill("f32_fill_input", T.FLOAT32, [2, 3, 4], T.INT32)
    zeros_like("f32_zeros_like", T.FLOAT32, [2, 3, 4])
    binary_f32("f32_add_bcast_relu6", 38, OPS.ADD, [1, 4, 5, 3], [1, 1, 5, 1], [1, 4, 5, 3], ACT.RELU6)
    binary_f32("f32_add_same_none", 39, OPS.ADD, [2, 33], [2, 33], [2, 33], ACT.NONE)
    binary_f32("f32_add_const_relu", 40, OPS.ADD, [2, 5, 4], [4], [2, 5, 4], ACT.RELU, const_b=True)
    binary_f32("f32_mul_bcast_relun1", 41, OPS.MUL, [1, 3, 4, 6], [6], [1, 3, 4, 6], ACT.RELU_N1_TO_1)
    binary_f32("f32_mul_same_none", 42, OPS.MUL, [5, 13], [5, 13], [5, 13], ACT.NONE)
    binary_f32("f32_sub_bcast_relu", 63, OPS.SUB, [1, 4, 5, 3], [1, 1, 5, 1], [1, 4, 5, 3], ACT.RELU)
    binary_f32("f32_sub_const_none", 64, OPS.SUB, [2, 5, 4], [4], [2, 5, 4], ACT.NONE, const_b=True)
    binary_f32("f32_sqdiff_bcast", 68, OPS.SQUARED_DIFFERENCE, [1, 4, 5, 3], [1, 1, 5, 1], [1, 4, 5, 3], ACT.NONE)
    mirror_pad("mirror_pad_reflect_4d", T.INT8, [1, 4, 5, 3], [[0, 0], [3, 1], [2, 4], [0, 2]], 0)
    mirror_pad("f32_mirror_pad_symmetric", T.FLOAT32, [3, 4, 2], [[1, 2], [4, 0], [2, 5]], 1, T.INT64)
    mirror_pad("mirror_pad_reflect_one_wide", T.INT8, [2, 1, 6], [[1, 0], [0, 3], [5, 2]], 0)
    mirror_pad("mirror_pad_no_options", T.INT8, [5, 3], [[2, 3], [3, 1]], None)
    pad_value("f32_pad_4d", OPS.PAD, T.FLOAT32, [1, 5, 6, 3], [[0, 0], [1, 2], [2, 1], [0, 1]])
    pad_value("pad_i16_3d", OPS.PAD, T.INT16, [3, 4, 5], [[1, 0], [0, 2], [3, 1]], q=(0.001, 0))
    pad_value("pad_i32_2d", OPS.PAD, T.INT32, [4, 7], [[2, 1], [0, 3]])
    pad_value("pad_i8_value_input", OPS.PAD, T.INT8, [2, 3, 4], [[1, 1], [0, 2], [1, 0]], "input", (0.07, 9))
    pad_value("padv2_i8_const_value", OPS.PADV2, T.INT8, [1, 4, 4, 3], [[0, 0], [2, 1], [1, 2], [0, 0]], -77, (0.05, -3))
    pad_value("padv2_i8_no_value", OPS.PADV2, T.INT8, [3, 5], [[1, 2], [2, 0]], None, (0.05, -3))
    pad_value("padv2_i16_value_input_5d", OPS.PADV2, T.INT16, [2, 1, 3, 2, 2], [[0, 1], [1, 1], [0, 0], [2, 0], [1, 1]], "input", (0.002, 0))
    pad_value("padv2_i32_const_value", OPS.PADV2, T.INT32, [5, 3], [[0, 2], [3, 3]], -123456)
    pad_value("f32_padv2_const_value", OPS.PADV2, T.FLOAT32, [2, 3, 4], [[1, 0], [2, 2], [0, 3]], 2.75)
    pad_value("f32_padv2_value_input", OPS.PADV2, T.FLOAT32, [6, 5], [[3, 0], [1, 4]], "input")
    space_batch("space_to_batch_2x3", OPS.SPACE_TO_BATCH_ND, T.INT8, [2, 6, 9, 3], [2, 3], [[0, 0], [0, 0]])
    space_batch("space_to_batch_3d", OPS.SPACE_TO_BATCH_ND, T.INT8, [1, 9, 4], [3], [[0, 0]])
    space_batch("f32_space_to_batch", OPS.SPACE_TO_BATCH_ND, T.FLOAT32, [1, 4, 6, 2], [2, 2], [[0, 0], [0, 0]])
    space_batch("batch_to_space_crop", OPS.BATCH_TO_SPACE_ND, T.INT8, [12, 3, 2, 3], [2, 3], [[1, 0], [0, 2]])
    space_batch("batch_to_space_3d", OPS.BATCH_TO_SPACE_ND, T.INT8, [6, 3, 5], [3], [[1, 2]])
    space_batch("f32_batch_to_space", OPS.BATCH_TO_SPACE_ND, T.FLOAT32, [8, 2, 3, 2], [2, 2], [[0, 0], [0, 0]])
    broadcast_to("broadcast_to_i8_mid", T.INT8, [3, 1, 4], [2, 3, 5, 4])
    broadcast_to("broadcast_to_bool_5d", T.BOOL, [2, 1, 3, 1], [2, 2, 4, 3, 2], T.INT64)
    broadcast_to("broadcast_to_i16_last", T.INT16, [4, 1], [4, 7])
    broadcast_to("broadcast_to_i64_first", T.INT64, [1, 5], [3, 5])
    broadcast_to("broadcast_to_u8_same", T.UINT8, [2, 3], [2, 3])
    broadcast_to("broadcast_to_i32_scalarish", T.INT32, [1], [3, 2, 4])
    broadcast_to("f32_broadcast_to", T.FLOAT32, [1, 3, 1], [2, 3, 6])
    gather_nd("gather_nd_elements", T.INT8, [4, 5], [[1, 2], [3, 4], [0, 0]])
    gather_nd("f32_gather_nd_slices", T.FLOAT32, [3, 4, 2], [[2], [0]])
    gather_nd("gather_nd_3d_indices", T.INT8, [3, 4, 5], [[[2, 1], [0, 3]], [[1, 1], [2, 0]]])
    gather_nd("gather_nd_flat_spill", T.INT8, [3, 4], [[0, 5], [2, -1]])
    embedding_lookup("embedding_lookup_i8", T.INT8, [4, 5], [2, 0, 2])
    embedding_lookup("f32_embedding_lookup_3d", T.FLOAT32, [5, 2, 3], [4, 1])
    embedding_lookup("f32_embedding_lookup_hybrid", T.INT8, [6, 7], [5, 0, 3, 3], T.FLOAT32)
    dynamic_update_slice("dus_i8_starts_input", T.INT8, [4, 5, 3], [2, 3, 3])
    dynamic_update_slice("f32_dus_i64_starts", T.FLOAT32, [6, 4], [2, 4], [3, 0], T.INT64)
    dynamic_update_slice("dus_i16_clamped", T.INT16, [5, 6], [2, 3], [10, -3])
    dynamic_update_slice("dus_i32_whole", T.INT32, [3, 4], [3, 4], [1, 1])
    broadcast_args("broadcast_args_i32", T.INT32, 3, [1, 1, 1, 1])
    broadcast_args("broadcast_args_i64", T.INT64, [1, 1], 3)
    cumsum("cumsum_i8_axis1", T.INT8, [3, 10], 1, False, False, (0.05, -7), (0.2, 10))
    cumsum("cumsum_i8_exclusive_reverse", T.INT8, [2, 5, 4], -1, True, True, (0.02, 3), (0.1, -20))
    cumsum("cumsum_i8_axis0_reverse", T.INT8, [6, 3], 0, False, True, (0.1, 0), (0.3, 0))
    cumsum("f32_cumsum_exclusive", T.FLOAT32, [4, 7], 1, True, False)
    cumsum("f32_cumsum_axis0_reverse", T.FLOAT32, [3, 4, 5], 0, False, True)
    broadcast_args("broadcast_args_constants", T.INT32, [2, 1, 3], [4, 1])
    cumsum("cumsum_i8_long_wrapping", T.INT8, [2, 64], 1, False, False, (0.5, -128), (0.001, 0))
    reshape_f32("f32_reshape_4d_2d", [1, 6, 1, 4], [6, 4])
    concat_f32("f32_concat_axis_last", [[1, 4, 4, 2], [1, 4, 4, 3]], -1)
    # ELU: int8 by its lookup table (zero points either side, an output scale that clamps),
    # float32 by expm1.
    unary("elu_i8", OPS.ELU, T.INT8, [2, 3, 50], (0.05, -7), (0.04, 10))
    unary("elu_i8_clamped", OPS.ELU, T.INT8, [1, 256], (0.11, 30), (0.013, -100))
    unary("f32_elu", OPS.ELU, T.FLOAT32, [3, 70])
    # (An output scale so small that the table's float-to-int conversion overflows: x86-64's
    # INT32_MIN, clamped to -128, as the wheel computes it.)
    unary("elu_i8_overflow", OPS.ELU, T.INT8, [2, 128], (0.05, 0), (1e-10, 0))
    # HARD_SWISH int8: a relu-ish multiplier shifted left (input scale 0.05) and right (0.004),
    # an output multiplier near one; float32 over [-8, 8].
    unary("hard_swish_i8", OPS.HARD_SWISH, T.INT8, [2, 3, 50], (0.05, -7), (0.04, 10))
    unary("hard_swish_i8_small_scale", OPS.HARD_SWISH, T.INT8, [1, 256], (0.004, 30), (0.0039, -100))
    unary("hard_swish_i8_wide", OPS.HARD_SWISH, T.INT8, [4, 64], (0.3, 0), (0.2, -128))
    unary("f32_hard_swish", OPS.HARD_SWISH, T.FLOAT32, [3, 70])
    # PRELU: alpha per channel (a constant, the converter's [1, 1, C]), an alpha input
    # broadcast both ways, int16 with int8 alpha, float32.
    prelu("prelu_i8_channel", 80, T.INT8, [1, 4, 5, 6], [1, 1, 6], [1, 4, 5, 6], (0.05, -7), (0.01, 3), (0.04, 10))
    prelu("prelu_i8_input_alpha_bcast", 81, T.INT8, [3, 1, 5], [4, 1], [3, 4, 5], (0.1, 20), (0.02, -5), (0.07, -3),
          const_alpha=False)
    prelu("prelu_i16_channel", 82, T.INT16, [2, 3, 8], [8], [2, 3, 8], (0.001, 0), (0.008, 0), (0.0009, 0))
    prelu("f32_prelu_channel", 83, T.FLOAT32, [1, 3, 4, 5], [1, 1, 5], [1, 3, 4, 5])
    prelu("f32_prelu_input_alpha", 84, T.FLOAT32, [4, 30], [4, 30], [4, 30], const_alpha=False)
    # int16 (16x8) ADD, SUB, MUL, SQUARED_DIFFERENCE: same shapes, broadcasts, a constant
    # operand, every fused activation; ADD of non-zero zero points (TFLM accepts them for
    # ADD only); MUL of a multiplier above one (mostly saturating: random inputs).
    binary_i16("add_i16_same_relu6", 180, OPS.ADD, [2, 3, 40], [2, 3, 40], [2, 3, 40], ACT.RELU6)
    binary_i16("add_i16_bcast", 181, OPS.ADD, [2, 1, 5, 6], [3, 1, 6], [2, 3, 5, 6], ACT.NONE)
    binary_i16("add_i16_scalar_const_relu", 182, OPS.ADD, [4, 25], [1], [4, 25], ACT.RELU, const_b=True)
    binary_i16("add_i16_zero_points", 183, OPS.ADD, [3, 30], [3, 30], [3, 30], ACT.RELU_N1_TO_1,
               zps=(-300, 1200, 25))
    binary_i16("sub_i16_same_relu_n1", 184, OPS.SUB, [3, 50], [3, 50], [3, 50], ACT.RELU_N1_TO_1)
    binary_i16("sub_i16_bcast_first", 185, OPS.SUB, [1, 7], [4, 3, 7], [4, 3, 7], ACT.NONE)
    binary_i16("sub_i16_const_relu6", 186, OPS.SUB, [2, 4, 6], [6], [2, 4, 6], ACT.RELU6, const_b=True)
    binary_i16("mul_i16_same", 187, OPS.MUL, [2, 3, 30], [2, 3, 30], [2, 3, 30], ACT.NONE)
    binary_i16("mul_i16_bcast_relu", 188, OPS.MUL, [3, 1, 8], [5, 1], [3, 5, 8], ACT.RELU)
    binary_i16("mul_i16_const_relu6", 189, OPS.MUL, [4, 20], [20], [4, 20], ACT.RELU6, const_b=True,
               scales=(0.0001, 0.0001, 0.0002))
    binary_i16("mul_i16_gain", 192, OPS.MUL, [3, 30], [3, 30], [3, 30], ACT.NONE,
               scales=(0.002, 0.003, 0.000004))
    binary_i16("squared_difference_i16_same", 190, OPS.SQUARED_DIFFERENCE, [3, 40], [3, 40], [3, 40], ACT.NONE)
    binary_i16("squared_difference_i16_bcast", 191, OPS.SQUARED_DIFFERENCE, [2, 1, 9], [3, 9], [2, 3, 9],
               ACT.NONE)
    # int16 RELU (a scale ratio below and above one), RELU6 (six inside int16, a zero point,
    # six clamped to 32767).
    relu_i16("relu_i16_down", OPS.RELU, [2, 3, 40], (0.0006, 0), (0.0011, 0))
    relu_i16("relu_i16_up", OPS.RELU, [1, 300], (0.0013, 0), (0.0004, 0))
    relu_i16("relu6_i16", OPS.RELU6, [3, 50], (0.0004, 0), (0.0004, 0))
    relu_i16("relu6_i16_zero_point", OPS.RELU6, [2, 60], (0.0005, -2000), (0.0005, -2000))
    relu_i16("relu6_i16_six_clamped", OPS.RELU6, [1, 4, 4, 8], (0.0001, 0), (0.0001, 0))
    # int16 pooling: SAME and VALID, strides, a window larger than the input, activations.
    pool_i16("avgpool_i16_3x3_s2_same_relu6", OPS.AVERAGE_POOL_2D, [1, 9, 9, 6], (3, 3), (2, 2), PAD.SAME,
             ACT.RELU6, (0.0003, 0))
    pool_i16("avgpool_i16_2x3_s1_valid_none", OPS.AVERAGE_POOL_2D, [2, 6, 7, 3], (2, 3), (1, 1), PAD.VALID,
             ACT.NONE)
    pool_i16("avgpool_i16_global_same_relu", OPS.AVERAGE_POOL_2D, [1, 5, 4, 10], (6, 6), (1, 1), PAD.SAME,
             ACT.RELU, (0.0009, 0))
    pool_i16("maxpool_i16_2x3_s2_valid_none", OPS.MAX_POOL_2D, [2, 8, 7, 3], (2, 3), (2, 2), PAD.VALID,
             ACT.NONE)
    pool_i16("maxpool_i16_3x3_s2_same_relu_n1", OPS.MAX_POOL_2D, [1, 9, 10, 4], (3, 3), (2, 2), PAD.SAME,
             ACT.RELU_N1_TO_1, (0.00005, 0))
    # TANH: int8 (its output 1/128, 0), int16 of power-of-two scales (the table's own
    # scale, shifts 0 and 1) and of another scale (a multiplier), float32.
    unary("tanh_i8", OPS.TANH, T.INT8, [2, 3, 50], (0.05, -7), (1.0 / 128, 0))
    unary("tanh_i8_small_scale", OPS.TANH, T.INT8, [1, 256], (0.01, 30), (1.0 / 128, 0))
    unary("tanh_i16_pot", OPS.TANH, T.INT16, [4, 64], (2.0 ** -12, 0), (2.0 ** -15, 0))
    unary("tanh_i16_pot_shift1", OPS.TANH, T.INT16, [2, 100], (2.0 ** -11, 0), (2.0 ** -15, 0))
    unary("tanh_i16_scale", OPS.TANH, T.INT16, [3, 70], (0.0003, 0), (2.0 ** -15, 0))
    unary("f32_tanh", OPS.TANH, T.FLOAT32, [3, 70])
    # LOGISTIC int16: the table's own scale 2^-12, another power of two (the multiplier path),
    # a general scale and a coarse one.
    unary("logistic_i16_pot", OPS.LOGISTIC, T.INT16, [4, 64], (2.0 ** -12, 0), (2.0 ** -15, 0))
    unary("logistic_i16_pot_m10", OPS.LOGISTIC, T.INT16, [2, 100], (2.0 ** -10, 0), (2.0 ** -15, 0))
    unary("logistic_i16_scale", OPS.LOGISTIC, T.INT16, [3, 70], (0.0003, 0), (2.0 ** -15, 0))
    unary("logistic_i16_coarse", OPS.LOGISTIC, T.INT16, [1, 2, 3, 50], (0.002, 0), (2.0 ** -15, 0))
    # SOFTMAX int16 -> int16 (its output 1/32768, 0): several betas and input scales, rows of
    # one, an output scale within TFLM's 0.1 % of 1/32768.
    def sm_opts(beta):
        o = s.SoftmaxOptionsT()
        o.beta = beta
        return (OPT.SoftmaxOptions, o)
    unary("softmax_i16", OPS.SOFTMAX, T.INT16, [3, 10], (0.0005, 0), (1.0 / 32768, 0), sm_opts(1.0))
    unary("softmax_i16_4d_beta05", OPS.SOFTMAX, T.INT16, [1, 2, 3, 40], (0.001, 0), (1.0 / 32768, 0), sm_opts(0.5))
    unary("softmax_i16_fine", OPS.SOFTMAX, T.INT16, [4, 64], (2.0 ** -15, 0), (1.0 / 32768, 0), sm_opts(1.0))
    unary("softmax_i16_coarse", OPS.SOFTMAX, T.INT16, [2, 33], (0.01, 0), (1.0005 / 32768, 0), sm_opts(2.0))
    unary("softmax_i16_depth1", OPS.SOFTMAX, T.INT16, [5, 1], (0.0003, 0), (1.0 / 32768, 0), sm_opts(1.0))
    # UNIDIRECTIONAL_SEQUENCE_LSTM 16x8: batch-major and time-major, cell scales of a left
    # and a right tanh shift, a cell clip, one batch; state over the oracle's runs.
    lstm_16x8("lstm_16x8", 4201, 2, 3, 5, 4, False, 2.0 ** -12, 2.0 ** -15, 2.0 ** -11)
    lstm_16x8("lstm_16x8_time_major_clip", 4202, 3, 4, 3, 6, True, 0.0003, 2.0 ** -15, 2.0 ** -14, 0.8)
    lstm_16x8("lstm_16x8_b1_wide", 4203, 1, 5, 8, 8, False, 2.0 ** -10, 1.0 / 30000, 2.0 ** -10, 6.0)
    # FLOOR_DIV / FLOOR_MOD (float32 only in TFLM): same shapes, a broadcast constant divisor
    # of either sign, a broadcast of both.
    binary_plain("f32_floor_div_same", OPS.FLOOR_DIV, T.FLOAT32, [3, 40], [3, 40], [3, 40])
    binary_plain("f32_floor_div_const", OPS.FLOOR_DIV, T.FLOAT32, [2, 5, 6], [6], [2, 5, 6],
                 np.array([-3.5, -1.0, -0.25, 0.3, 2.0, 7.0], dtype=np.float32))
    binary_plain("f32_floor_mod_same", OPS.FLOOR_MOD, T.FLOAT32, [3, 40], [3, 40], [3, 40])
    binary_plain("f32_floor_mod_bcast", OPS.FLOOR_MOD, T.FLOAT32, [2, 1, 5], [3, 1], [2, 3, 5])
    binary_plain("f32_floor_mod_const", OPS.FLOOR_MOD, T.FLOAT32, [4, 6], [6], [4, 6],
                 np.array([-3.5, -1.0, -0.25, 0.3, 2.0, 7.0], dtype=np.float32))
    # ADD_N: int8 of three inputs (TFLM's sum starts from the input offset), one of them a
    # constant; float32 of four.
    add_n("add_n_i8_3", 90, T.INT8, [2, 3, 10], 3, (0.05, -7), (0.09, 12))
    add_n("add_n_i8_const", 91, T.INT8, [4, 25], 2, (0.02, 30), (0.03, -20), const=(1,))
    add_n("f32_add_n_4", 92, T.FLOAT32, [3, 7, 5], 4)
    # SELECT_V2: one shape, a three-way broadcast (int16), a constant broadcast y (float32).
    select_v2("select_v2_i8_same", 93, T.INT8, [3, 20], [3, 20], [3, 20], [3, 20], (0.05, 3))
    select_v2("select_v2_i16_bcast", 94, T.INT16, [2, 1, 4], [3, 1], [1], [2, 3, 4])
    select_v2("f32_select_v2_const_y", 95, T.FLOAT32, [4, 1], [4, 6], [6], [4, 6], const_y=True)
    # (One-element tensors of different ranks: TFLM's "mixed scalar" case.)
    select_v2("select_v2_i8_scalars", 96, T.INT8, [1, 1], [1], [], [1], (0.05, 3))
    # L2_NORMALIZATION: int8 (its output 1/128, 0), rows of one, float32.
    l2norm_opts = (OPT.L2NormOptions, s.L2NormOptionsT())
    unary("l2norm_i8", OPS.L2_NORMALIZATION, T.INT8, [2, 3, 16], (0.05, -5), (1.0 / 128, 0), l2norm_opts)
    unary("l2norm_i8_depth1", OPS.L2_NORMALIZATION, T.INT8, [6, 1], (0.1, 3), (1.0 / 128, 0), l2norm_opts)
    unary("f32_l2norm", OPS.L2_NORMALIZATION, T.FLOAT32, [3, 20], options=l2norm_opts)
    # LOG_SOFTMAX: int8 (its output 16/256, 127) of two input scales, rows of one, float32.
    ls_opts = (OPT.LogSoftmaxOptions, s.LogSoftmaxOptionsT())
    unary("log_softmax_i8", OPS.LOG_SOFTMAX, T.INT8, [3, 10], (0.1, 0), (16.0 / 256, 127), ls_opts)
    unary("log_softmax_i8_4d", OPS.LOG_SOFTMAX, T.INT8, [1, 2, 3, 40], (0.02, -20), (16.0 / 256, 127), ls_opts)
    unary("log_softmax_i8_coarse", OPS.LOG_SOFTMAX, T.INT8, [2, 64], (0.9, -3), (16.0 / 256, 127), ls_opts)
    unary("log_softmax_i8_depth1", OPS.LOG_SOFTMAX, T.INT8, [5, 1], (0.3, 4), (16.0 / 256, 127), ls_opts)
    unary("f32_log_softmax", OPS.LOG_SOFTMAX, T.FLOAT32, [4, 25], options=ls_opts)
    # BATCH_MATMUL: int8 of a constant rhs (non-zero zero points), batch broadcast with
    # adj_x and adj_y, an rhs batch of 1 (TFLM's flattened case), 5-D; int16 (zero points 0);
    # float32 plain and broadcast with both adjoints.
    batch_matmul("bmm_i8_const_rhs", 100, T.INT8, [2, 3, 5], [2, 5, 4], [2, 3, 4],
                 q=((0.05, -7), (0.02, 3), (0.09, 10)), const_rhs=True)
    batch_matmul("bmm_i8_bcast_adj", 101, T.INT8, [2, 1, 6, 3], [3, 4, 6], [2, 3, 3, 4], True, True,
                 q=((0.03, 20), (0.04, -11), (0.2, -5)))
    batch_matmul("bmm_i8_rhs_batch1", 102, T.INT8, [3, 2, 7], [1, 7, 5], [3, 2, 5],
                 q=((0.02, 0), (0.05, -128), (0.15, 4)))
    batch_matmul("bmm_i8_5d_adj_y", 103, T.INT8, [2, 1, 2, 3, 4], [3, 1, 5, 4], [2, 3, 2, 3, 5],
                 adj_y=True, q=((0.06, 5), (0.03, 1), (0.3, -2)))
    batch_matmul("bmm_i16", 104, T.INT16, [2, 3, 8], [8, 5], [2, 3, 5],
                 q=((0.001, 0), (0.0007, 0), (0.004, 0)), const_rhs=True)
    batch_matmul("f32_bmm", 105, T.FLOAT32, [2, 3, 5], [2, 5, 4], [2, 3, 4])
    batch_matmul("f32_bmm_bcast_adj", 106, T.FLOAT32, [1, 4, 3], [2, 2, 5, 4], [2, 2, 3, 5], True, True,
                 const_rhs=True)
    # TRANSPOSE_CONV: int8 per-channel SAME stride 2, per-tensor VALID of an odd stride pair
    # without bias and a RELU, SAME of an output one short of in·stride (padding from the
    # output's size), 3x3 stride 1; float32 SAME with bias and VALID with RELU6, no bias.
    transpose_conv("tconv_i8_same_s2_pc", 110, T.INT8, [1, 4, 5, 3], 6, 3, 3, (2, 2), PAD.SAME, (8, 10))
    transpose_conv("tconv_i8_valid_s2x1_pt_relu", 111, T.INT8, [2, 3, 4, 5], 4, 2, 3, (2, 1), PAD.VALID, (6, 6),
                   act=ACT.RELU, per_channel=False, bias=False)
    transpose_conv("tconv_i8_same_odd_out", 112, T.INT8, [1, 5, 3, 4], 3, 4, 2, (3, 2), PAD.SAME, (14, 5))
    transpose_conv("tconv_i8_s1_3x3", 113, T.INT8, [1, 6, 6, 8], 5, 3, 3, (1, 1), PAD.SAME, (6, 6))
    transpose_conv("tconv_i16_same_s2_b64", 116, T.INT16, [1, 4, 5, 3], 6, 3, 3, (2, 2), PAD.SAME, (8, 10))
    transpose_conv("tconv_i16_valid_b16_relu", 117, T.INT16, [2, 3, 4, 5], 4, 2, 3, (2, 1), PAD.VALID, (6, 6),
                   act=ACT.RELU, bias_type=T.INT16)
    transpose_conv("f32_tconv_same_s2", 114, T.FLOAT32, [1, 4, 5, 3], 6, 3, 3, (2, 2), PAD.SAME, (8, 10))
    # TFLite_Detection_PostProcess: fast (one class per detection) and regular suppression,
    # with and without a background class, thresholds that keep some and drop some, scores
    # with many ties (a FLOOR before), over 20 kept scores (the merge sort's merging), a box
    # encoding of 5 values, detections_per_class missing (TFLM's 100), one class with more
    # classes per detection asked.
    scales = {"y_scale": 10.0, "x_scale": 10.0, "h_scale": 5.0, "w_scale": 5.0}
    detection("f32_det_fast_bg", 120, 24, 3, 1, dict(
        max_detections=10, max_classes_per_detection=1, detections_per_class=100,
        use_regular_nms=False, nms_score_threshold=0.0, nms_iou_threshold=0.5, num_classes=3,
        **scales))
    detection("f32_det_regular", 121, 30, 4, 0, dict(
        max_detections=12, max_classes_per_detection=1, detections_per_class=5,
        use_regular_nms=True, nms_score_threshold=1.0, nms_iou_threshold=0.4, num_classes=4,
        **scales))
    detection("f32_det_fast_ties", 122, 40, 5, 1, dict(
        max_detections=16, max_classes_per_detection=1, use_regular_nms=False,
        nms_score_threshold=2.0, nms_iou_threshold=0.6, num_classes=5, **scales),
        floor_scores=True)
    detection("f32_det_regular_ties", 123, 20, 3, 1, dict(
        max_detections=8, max_classes_per_detection=1, detections_per_class=4,
        use_regular_nms=True, nms_score_threshold=0.0, nms_iou_threshold=0.5, num_classes=3,
        **scales), floor_scores=True)
    detection("f32_det_regular_many", 124, 50, 3, 0, dict(
        max_detections=20, max_classes_per_detection=1, use_regular_nms=True,
        nms_score_threshold=-1.0, nms_iou_threshold=0.7, num_classes=3, y_scale=8.0,
        x_scale=12.0, h_scale=4.0, w_scale=6.0), stride=5)
    detection("f32_det_fast_one_class", 125, 36, 1, 1, dict(
        max_detections=30, max_classes_per_detection=3, nms_score_threshold=-2.0,
        nms_iou_threshold=1.0, num_classes=1, **scales))
    transpose_conv("f32_tconv_valid_relu6", 115, T.FLOAT32, [2, 3, 4, 5], 4, 2, 3, (2, 1), PAD.VALID, (6, 6),
                   act=ACT.RELU6, bias=False)
    signal_state_models()


def signal_delay(name, shape, delay_length):
    """SignalDelay (int16): each row of `shape` delayed by `delay_length` samples across the
    test's runs (its state: zeros before the first)."""
    b = Builder()
    x = b.tensor("x", shape, T.INT16)
    y = b.tensor("y", shape, T.INT16)
    b.write(name, "SignalDelay", [x], [y], options=flex({"delay_length": delay_length}))


def signal_stacker(name, channels, left, right, step):
    """SignalStacker (int16): frames of `channels` stacked with `left` and `right` context
    frames, `step` frames on after each stack; its `valid` flag an intermediate (a second
    output the runtime plans)."""
    b = Builder()
    x = b.tensor("x", [channels], T.INT16)
    y = b.tensor("stack", [channels * (left + right + 1)], T.INT16)
    v = b.tensor("valid", [], T.BOOL)
    opts = flex({"num_channels": channels, "stacker_left_context": left,
                 "stacker_right_context": right, "stacker_step": step})
    b.write_ops(name, [("SignalStacker", [x], [y, v], 0, opts)], [x], [y])


def signal_framer(name, shape, size, step, prefill):
    """SignalFramer (int16): each row of `shape` cut into frames of `size`, `step` apart."""
    b = Builder()
    x = b.tensor("x", shape, T.INT16)
    y = b.tensor("frames", shape[:-1] + [shape[-1] // step, size], T.INT16)
    v = b.tensor("valid", [], T.BOOL)
    opts = flex({"frame_size": size, "frame_step": step, "prefill": prefill})
    b.write_ops(name, [("SignalFramer", [x], [y, v], 0, opts)], [x], [y])


def signal_overlap_add(name, shape, step, ttype):
    """SignalOverlapAdd (int16 or float32): frames of `shape` (…, frames, size) added, `step`
    apart, into a running buffer a row."""
    b = Builder()
    x = b.tensor("x", shape, ttype)
    y = b.tensor("y", shape[:-2] + [shape[-2] * step], ttype)
    b.write(name, "SignalOverlapAdd", [x], [y], options=flex({"T": ttype, "frame_step": step}))


def circular_buffer(name, depth_hw, slots, cycles_max):
    """CIRCULAR_BUFFER (int8): a window of `slots` rows of `depth_hw` (h, w); `cycles_max`
    None: no options (TFLM picks it from the shape)."""
    b = Builder()
    h, w = depth_hw
    q = quant(0.05, -3)
    x = b.tensor("x", [1, 1, h, w], T.INT8, q)
    y = b.tensor("window", [1, slots, h, w], T.INT8, q)
    opts = flex({"cycles_max": cycles_max}) if cycles_max is not None else b""
    b.write(name, "CIRCULAR_BUFFER", [x], [y], options=opts)


def signal_state_models():
    """The signal library's stateful operators: their state carried across the test's runs
    (one interpreter, no reset between them, on both sides)."""
    # Delay shorter than a frame, longer than one (across two runs), equal to one, none.
    signal_delay("signal_delay_3_of_8", [1, 8], 3)
    signal_delay("signal_delay_7_rows", [2, 3, 5], 7)
    signal_delay("signal_delay_frame", [2, 6], 6)
    signal_delay("signal_delay_0", [4], 0)
    # A stack every run, one every other (step 2: a run of zeros and valid false between),
    # and one after three runs (two frames of right context).
    signal_stacker("signal_stacker_l2_r0", 5, 2, 0, 1)
    signal_stacker("signal_stacker_l1_r1_step2", 4, 1, 1, 2)
    signal_stacker("signal_stacker_l0_r2", 3, 0, 2, 1)
    # Prefilled; not prefilled, whole frames only from the second run; a step over the frame.
    signal_framer("signal_framer_prefill", [2, 8], 6, 2, True)
    signal_framer("signal_framer_no_prefill", [1, 4], 10, 4, False)
    signal_framer("signal_framer_step_over_size", [3, 6], 2, 3, False)
    # int16 (saturating: random samples overflow), float32, a step equal to the frame.
    signal_overlap_add("signal_overlap_add_i16", [2, 3, 8], 4, T.INT16)
    signal_overlap_add("signal_overlap_add_f32", [4, 6], 2, T.FLOAT32)
    signal_overlap_add("signal_overlap_add_i16_step_size", [2, 5], 5, T.INT16)
    # TFLM_DECODE's lookup table: every bit width, TFLM's int8 paths of widths 2, 3, 4 (16 or
    # 32 indices a word) across channel boundaries, channels along the first and the last
    # axis, tables shorter than 2^width, every output type.
    decode_lut("decode_lut_i8_w4", 1, [4, 8], T.INT8, 4, 16)
    decode_lut("decode_lut_i8_w3_pc", 2, [3, 40], T.INT8, 3, 8, channels=3)
    decode_lut("decode_lut_i8_w2_pc", 3, [2, 37], T.INT8, 2, 4, channels=2)
    decode_lut("decode_lut_i8_w2_last", 4, [2, 5, 4], T.INT8, 2, 3, channels=4, axis=2)
    decode_lut("decode_lut_i16_w5", 5, [6, 7], T.INT16, 5, 20)
    decode_lut("decode_lut_i16_w4_last", 6, [5, 3], T.INT16, 4, 16, channels=3, axis=1)
    decode_lut("decode_lut_i32_w7", 7, [130], T.INT32, 7, 100)
    decode_lut("decode_lut_i64_w6_pc", 8, [2, 3, 10], T.INT64, 6, 40, channels=2)
    decode_lut("f32_decode_lut_w1", 9, [9], T.FLOAT32, 1, 2)
    decode_lut("f32_decode_lut_w3", 10, [4, 6], T.FLOAT32, 3, 7)
    decode_lut("decode_lut_bool_w1", 11, [3, 5], T.BOOL, 1, 2)
    # A decoded tensor read by a later operator (an activation of the plan).
    decode_lut("decode_lut_i8_w4_then_add", 12, [2, 3, 6], T.INT8, 4, 11, add=True)
    # TFLM_DECODE's pruning: every output type, int8 zero points (one, or one a channel all
    # equal), none pruned, all pruned, counts not a multiple of 8.
    decode_prune("decode_prune_i8_zp", 21, [5, 7], T.INT8, 0.4, zero_point=-13)
    decode_prune("decode_prune_i8_pc", 22, [3, 4, 4], T.INT8, 0.6, zero_point=7, channels=4, axis=2)
    decode_prune("decode_prune_i8_plain", 23, [19], T.INT8, 0.5, zero_point=None)
    decode_prune("decode_prune_i16_all_kept", 24, [4, 6], T.INT16, 1.0)
    decode_prune("decode_prune_i32_none_kept", 25, [3, 3], T.INT32, 0.0, channels=3)
    decode_prune("decode_prune_i64", 26, [2, 9], T.INT64, 0.3, zero_point=None)
    decode_prune("f32_decode_prune", 27, [4, 5], T.FLOAT32, 0.5, zero_point=None)
    decode_prune("decode_prune_bool", 28, [13], T.BOOL, 0.5, zero_point=None)
    # TFLM_DECODE's Huffman: 16- and 32-bit tables, int8 and int16, first lookups of 3 to 8
    # bits (links to longer codes' tables; none with 8).
    decode_huffman("decode_huffman_i8_t16_k3", 31, [64], T.INT8, 12, 3, False)
    decode_huffman("decode_huffman_i8_t32_k4", 32, [5, 20], T.INT8, 30, 4, True)
    decode_huffman("decode_huffman_i16_k5", 33, [3, 33], T.INT16, 40, 5, True)
    decode_huffman("decode_huffman_i8_t16_k8_flat", 34, [50], T.INT8, 9, 8, False)
    # CIRCULAR_BUFFER: due every invocation, every other one (it stops the others), by the
    # shape without options (5 slots: every one; 3: every other).
    circular_buffer("circular_buffer_every", (1, 4), 3, 1)
    circular_buffer("circular_buffer_every_other", (2, 3), 2, 2)
    circular_buffer("circular_buffer_default_5", (1, 6), 5, None)
    circular_buffer("circular_buffer_default_3", (3, 2), 3, None)

    # The signal library's FFTs: several lengths (radices 4, 2, 3, 5), rows of a few frames,
    # input rows shorter than fft_length (zero-padded), an IRFFT row longer than its bins.
    signal_fft("rfft_i16_48_pad", "SignalRfft", T.INT16, 48, [2, 40])
    signal_fft("rfft_i32_64", "SignalRfft", T.INT32, 64, [3, 64])
    signal_fft("rfft_i32_30_pad", "SignalRfft", T.INT32, 30, [2, 1, 25])
    signal_fft("f32_rfft_512", "SignalRfft", T.FLOAT32, 512, [2, 400])
    signal_fft("f32_rfft_40", "SignalRfft", T.FLOAT32, 40, [3, 40])
    signal_fft("f32_rfft_6", "SignalRfft", T.FLOAT32, 6, [1, 2, 6])
    signal_fft("irfft_i16_64", "SignalIrfft", T.INT16, 64, [2, 66])
    signal_fft("irfft_i16_12", "SignalIrfft", T.INT16, 12, [3, 14])
    signal_fft("irfft_i32_30", "SignalIrfft", T.INT32, 30, [3, 32])
    signal_fft("irfft_i32_32_long_row", "SignalIrfft", T.INT32, 32, [2, 40])
    signal_fft("f32_irfft_512", "SignalIrfft", T.FLOAT32, 512, [1, 514])
    signal_fft("f32_irfft_40", "SignalIrfft", T.FLOAT32, 40, [2, 2, 42])
    signal_fft("f32_irfft_12", "SignalIrfft", T.FLOAT32, 12, [3, 14])
    # Longer lengths (the largest tables of these goldens; 4096, the longest, in kissfft's
    # unit tests).
    signal_fft("rfft_i32_1024", "SignalRfft", T.INT32, 1024, [1, 1000])
    signal_fft("f32_irfft_1024", "SignalIrfft", T.FLOAT32, 1024, [1, 1026])


if __name__ == "__main__":
    sys.exit(main())
