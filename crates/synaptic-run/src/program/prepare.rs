//! From the model to prepared operators: every operator validated as TFLM's `Prepare` does,
//! its kernel's parameters (the `*Params` structs) and its requantization table derived.
//!
//! Why here, under `program`: this is the only code that reads operator metadata from the
//! flatbuffer, and only the program compiler ([`super::compile`]) calls it — at load (compiling
//! into the arena, or verifying a program given by the user) or on the host (`synmem`). An
//! inference never comes here: it decodes what this code prepared from the program.

use synaptic_mem::DType;
use synaptic_tflite::{code, Floats, Model, SubGraph, TensorType};

use crate::error::KernelError;

use crate::interpreter::{GraphFault, LoadError, TensorFault, MAX_IO, MAX_OP_INPUTS};
use crate::kernels::{
    activations, conv, elementwise, extent, fully_connected, layout, pooling, quantize, reduce,
    LeI32, MAX_DIMS, MAX_TENSOR_SIZE,
};
use crate::math::{per_channel_multipliers, Activation, Padding, QuantParams};

/// What the interpreter knows of one tensor, read from the model and checked ([`tinfo`]).
#[derive(Clone, Copy)]
pub(crate) struct TInfo<'m> {
    /// Its index in the main subgraph.
    pub(crate) index: usize,
    pub(crate) ty: TensorType,
    pub(crate) dims: [usize; MAX_DIMS],
    pub(crate) rank: usize,
    /// The per-tensor quantization (the first scale and zero point; `0.0, 0` without one).
    pub(crate) q: QuantParams,
    /// Whether the tensor is quantized: scales and zero points both present, as TFLM reads
    /// them (`micro_allocator.cc`).
    pub(crate) quantized: bool,
    /// Number of scales (per-channel: more than one).
    pub(crate) scale_count: usize,
    /// The dimension the per-channel scales run along.
    pub(crate) quantized_dimension: i32,
    /// Whether a dimension is 0.
    pub(crate) empty: bool,
    /// Constant data (empty: none).
    pub(crate) data: &'m [u8],
    pub(crate) bytes: usize,
}

impl TInfo<'_> {
    pub(crate) fn shape(&self) -> &[usize] {
        &self.dims[..self.rank]
    }
}

/// The range of a zero point of an integer type the kernels compute with (`None`: a type
/// whose quantization no kernel reads).
fn zero_point_range(ty: TensorType) -> Option<(i32, i32)> {
    match ty {
        TensorType::Int8 => Some((-128, 127)),
        TensorType::UInt8 => Some((0, 255)),
        TensorType::Int16 => Some((-32768, 32767)),
        TensorType::Int4 => Some((-8, 7)),
        _ => None,
    }
}

/// Tensor `t` of the main subgraph, checked: at most 6 dimensions, none negative, elements
/// and bytes at most [`MAX_TENSOR_SIZE`] (the product of the dimensions, zeros counted as 1,
/// too), and for an integer type whose quantization the kernels use, every scale finite and
/// positive, every zero point inside the type's range and one zero point or one per scale.
/// A failure is a [`LoadError::Tensor`] without operator (the caller adds it).
pub(crate) fn tinfo<'m>(
    model: &Model<'m>,
    sg: &SubGraph<'m>,
    t: usize,
) -> Result<TInfo<'m>, LoadError> {
    let fault = |fault| LoadError::Tensor {
        op: None,
        name: "",
        tensor: t,
        fault,
    };
    let tt = sg.tensor(t)?;
    let ty = tt.tensor_type()?;
    let shape = tt.shape()?;
    if shape.len() > MAX_DIMS {
        return Err(fault(TensorFault::Rank));
    }
    let mut dims = [1usize; MAX_DIMS];
    for (i, d) in shape.iter().enumerate() {
        dims[i] = usize::try_from(d).map_err(|_| fault(TensorFault::DynamicDimension))?;
    }
    let dims_used = &dims[..shape.len()];
    extent(dims_used).ok_or(fault(TensorFault::TooLarge))?;
    let elems: usize = dims_used.iter().product();
    let empty = dims_used.contains(&0);
    let bytes = match ty {
        TensorType::Int8 | TensorType::UInt8 | TensorType::Bool => Some(elems),
        TensorType::Int16 | TensorType::Float16 | TensorType::BFloat16 | TensorType::UInt16 => {
            elems.checked_mul(2)
        }
        TensorType::Int32 | TensorType::Float32 | TensorType::UInt32 => elems.checked_mul(4),
        TensorType::Int64 | TensorType::Float64 | TensorType::UInt64 => elems.checked_mul(8),
        TensorType::Int4 => Some(elems.div_ceil(2)),
        _ => Some(0),
    }
    .filter(|&b| b <= MAX_TENSOR_SIZE)
    .ok_or(fault(TensorFault::TooLarge))?;
    let mut info = TInfo {
        index: t,
        ty,
        dims,
        rank: shape.len(),
        q: QuantParams::new(0.0, 0),
        quantized: false,
        scale_count: 0,
        quantized_dimension: 0,
        empty,
        data: model.tensor_data(&tt)?,
        bytes,
    };
    let Some(q) = tt.quantization()? else {
        return Ok(info);
    };
    let (scales, zps) = (q.scales()?, q.zero_points()?);
    if scales.is_empty() || zps.is_empty() {
        // TFLM reads no quantization then (its kernels that need one refuse the tensor).
        return Ok(info);
    }
    info.quantized = true;
    info.scale_count = scales.len();
    info.quantized_dimension = q.quantized_dimension()?;
    let zp0 = zps.get(0).unwrap_or(0);
    if let Some((min, max)) = zero_point_range(ty) {
        if zps.len() != 1 && zps.len() != scales.len() {
            return Err(fault(TensorFault::ZeroPointCount {
                got: zps.len(),
                scales: scales.len(),
            }));
        }
        for i in 0..scales.len() {
            let value = scales.get(i).unwrap_or(f32::NAN);
            if !(value.is_finite() && value > 0.0) {
                return Err(fault(TensorFault::Scale { value }));
            }
        }
        for i in 0..zps.len() {
            let value = zps.get(i).unwrap_or(0);
            if value < i64::from(min) || value > i64::from(max) {
                return Err(fault(TensorFault::ZeroPoint { value, min, max }));
            }
        }
    }
    // Other types: the quantization is read by no kernel (int32 biases, floats); a zero point
    // that does not fit `int32` reads as 0 there.
    info.q = QuantParams::new(
        scales.get(0).unwrap_or(0.0),
        i32::try_from(zp0).unwrap_or(0),
    );
    Ok(info)
}

/// A set of tensor indices `base .. base + WINDOW_TENSORS`, as bits on the stack: the loader's
/// passes over the graph ([`Graph::check_dataflow`], the slot table) take the tensors a window
/// at a time, so they need no memory proportional to the model and stay linear in its size
/// (times the number of windows: at most 8 for the 32,767 tensors a model may have).
pub(crate) struct TensorWindow {
    base: usize,
    bits: [u32; WINDOW_TENSORS / 32],
}

/// Tensors per [`TensorWindow`] (512 bytes of stack).
pub(crate) const WINDOW_TENSORS: usize = 4096;

impl TensorWindow {
    pub(crate) fn new(base: usize) -> Self {
        TensorWindow {
            base,
            bits: [0; WINDOW_TENSORS / 32],
        }
    }

    /// Whether `t` lies in the window.
    pub(crate) fn covers(&self, t: usize) -> bool {
        t.checked_sub(self.base).is_some_and(|i| i < WINDOW_TENSORS)
    }

    /// Whether `t` is in the set (false outside the window).
    pub(crate) fn has(&self, t: usize) -> bool {
        match t.checked_sub(self.base) {
            Some(i) if i < WINDOW_TENSORS => self.bits[i / 32] & (1 << (i % 32)) != 0,
            _ => false,
        }
    }

    /// Adds `t` (nothing outside the window).
    pub(crate) fn insert(&mut self, t: usize) {
        if let Some(i) = t.checked_sub(self.base).filter(|&i| i < WINDOW_TENSORS) {
            self.bits[i / 32] |= 1 << (i % 32);
        }
    }
}

/// The core allocation (shape of 1–4 dims, dtype) of an activation of `t`, with exactly its
/// bytes: shapes of more than 4 dimensions fold into the leading one, a scalar is `[1]`.
pub(crate) fn core_request(t: &TInfo<'_>) -> Option<([u32; 4], usize, DType)> {
    let dtype = match t.ty {
        TensorType::Int8 => DType::Int8,
        TensorType::UInt8 | TensorType::Bool => DType::UInt8,
        TensorType::Int16 | TensorType::UInt16 => DType::Int16,
        TensorType::Int32 | TensorType::UInt32 => DType::Int32,
        TensorType::Float32 => DType::Float32,
        TensorType::Float16 => DType::Float16,
        TensorType::BFloat16 => DType::BFloat16,
        TensorType::Int4 => DType::Int4,
        _ => return None,
    };
    let mut out = [1u32; 4];
    let s = t.shape();
    if s.is_empty() {
        return Some((out, 1, dtype));
    }
    let fold = s.len().saturating_sub(3);
    let mut lead = 1usize;
    for &d in &s[..=fold.min(s.len() - 1)] {
        lead = lead.checked_mul(d)?;
    }
    out[0] = u32::try_from(lead).ok()?;
    for (i, &d) in s[fold + 1..].iter().enumerate() {
        out[i + 1] = u32::try_from(d).ok()?;
    }
    let n = s.len().min(4);
    let (_, bytes) = synaptic_mem::shape_bytes(&out[..n], dtype).ok()?;
    (bytes as usize == t.bytes).then_some((out, n, dtype))
}

/// The prepared form of one operator (the `*Params` of its kernel).
#[derive(Clone, Copy)]
pub(crate) enum Prepared {
    Conv(conv::ConvParams),
    Depthwise(conv::ConvParams),
    FullyConnected(fully_connected::FullyConnectedParams),
    AveragePool(pooling::PoolParams),
    MaxPool(pooling::PoolParams),
    Softmax(activations::SoftmaxParams),
    Logistic(activations::LogisticParams),
    Add(elementwise::AddParams),
    Mul(elementwise::MulParams),
    Mean(reduce::MeanParams),
    Pad(layout::PadParams, i8),
    Concat(layout::ConcatParams),
    Transpose(layout::TransposeParams),
    Copy,
    Quantize(QuantParams),
    Requantize(quantize::RequantizeParams),
    Dequantize(QuantParams),
}

/// One operator as read from the model.
pub(crate) struct OpView<'m> {
    pub(crate) code: i32,
    pub(crate) name: &'static str,
    pub(crate) inputs: [i32; MAX_OP_INPUTS],
    pub(crate) n_in: usize,
    pub(crate) output: usize,
    op: synaptic_tflite::Operator<'m>,
}

pub(crate) fn op_view<'m>(
    model: &Model<'m>,
    sg: &SubGraph<'m>,
    index: usize,
    n_tensors: usize,
) -> Result<OpView<'m>, LoadError> {
    let op = sg.operator(index)?;
    let c = model.operator_code(op.opcode_index()? as usize)?;
    let name = synaptic_tflite::builtin_name(c.builtin).unwrap_or("UNKNOWN");
    let err = |what| LoadError::Operator {
        op: index,
        name,
        error: KernelError::unsupported(name, what),
    };
    const SUPPORTED: [i32; 17] = [
        code::ADD,
        code::AVERAGE_POOL_2D,
        code::CONCATENATION,
        code::CONV_2D,
        code::DEPTHWISE_CONV_2D,
        code::DEQUANTIZE,
        code::FULLY_CONNECTED,
        code::LOGISTIC,
        code::MAX_POOL_2D,
        code::MUL,
        code::RESHAPE,
        code::SOFTMAX,
        code::PAD,
        code::TRANSPOSE,
        code::MEAN,
        code::SQUEEZE,
        code::QUANTIZE,
    ];
    if !SUPPORTED.contains(&c.builtin) {
        return Err(err("operator not implemented"));
    }
    let ins = op.inputs()?;
    if ins.len() > MAX_OP_INPUTS {
        return Err(err("more than 16 inputs"));
    }
    let mut inputs = [-1i32; MAX_OP_INPUTS];
    for (k, v) in ins.iter().enumerate() {
        if v < -1 || (v >= 0 && v as usize >= n_tensors) {
            return Err(err("an input tensor index out of range"));
        }
        inputs[k] = v;
    }
    let outs = op.outputs()?;
    if outs.len() != 1 {
        return Err(err("operators with other than one output"));
    }
    let output = match outs.get(0) {
        Some(v) if v >= 0 && (v as usize) < n_tensors => v as usize,
        _ => return Err(err("an output tensor index out of range")),
    };
    if inputs[..ins.len()].contains(&(output as i32)) {
        return Err(err("an output that is also an input"));
    }
    Ok(OpView {
        code: c.builtin,
        name,
        inputs,
        n_in: ins.len(),
        output,
        op,
    })
}

/// Whether the kernel of builtin `code` reads its input `k`: every input but RESHAPE's shape
/// (TFLM takes the output tensor's shape; a shape computed at run time is accepted and
/// ignored, so it must not count as an input the kernel reads, e.g. beside a declared
/// overlap).
pub(crate) fn reads_input(code: i32, k: usize) -> bool {
    !(code == code::RESHAPE && k == 1)
}

/// Reads an `int32` constant into a small array (axes, paddings, permutations).
fn small_i32s<const N: usize>(data: &[u8]) -> Option<([i32; N], usize)> {
    let n = data.len() / 4;
    if n > N || data.len() % 4 != 0 {
        return None;
    }
    let mut out = [0i32; N];
    for (i, c) in data.chunks_exact(4).enumerate() {
        out[i] = i32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    }
    Some((out, n))
}

/// An operator's requantization table, derived one entry at a time ([`Table::entry`]) so that
/// compiling or verifying a program needs no buffer for it.
#[derive(Clone, Copy)]
pub(crate) enum Table<'m> {
    /// No table.
    None,
    /// One multiplier and shift per output channel (`PopulateConvolutionQuantizationParams`):
    /// CONV_2D, DEPTHWISE_CONV_2D, per-channel FULLY_CONNECTED.
    PerChannel {
        name: &'static str,
        channels: usize,
        input: f32,
        filter: Floats<'m>,
        output: f32,
    },
    /// One entry: a per-tensor FULLY_CONNECTED (its own derivation, the product in `float`).
    FullyConnected {
        params: fully_connected::FullyConnectedParams,
        input: f32,
        filter: f32,
        output: f32,
    },
}

impl Table<'_> {
    /// Entries (multipliers; as many shifts).
    pub(crate) fn len(&self) -> usize {
        match self {
            Table::None => 0,
            Table::PerChannel { channels, .. } => *channels,
            Table::FullyConnected { .. } => 1,
        }
    }

    /// Multiplier and shift of entry `c` (`c < len()`).
    pub(crate) fn entry(&self, c: usize) -> Result<(i32, i32), KernelError> {
        let (mut m, mut s) = ([0i32], [0i32]);
        match self {
            Table::None => return Err(KernelError::unsupported("", "no table")),
            Table::PerChannel {
                name,
                input,
                filter,
                output,
                ..
            } => {
                let sc = if filter.len() == 1 {
                    filter.get(0)
                } else {
                    filter.get(c)
                };
                let sc = sc.ok_or(KernelError::unsupported(name, "filter scales"))?;
                per_channel_multipliers(name, *input, &[sc], *output, &mut m, &mut s)?;
            }
            Table::FullyConnected {
                params,
                input,
                filter,
                output,
            } => params.multipliers(*input, &[*filter], *output, &mut m, &mut s)?,
        }
        Ok((m[0], s[0]))
    }
}

/// An operator's per-output-channel accumulator constants (the tail of its program record),
/// derived one entry at a time like [`Table`].
#[derive(Clone, Copy)]
pub(crate) enum Constants<'m> {
    /// None (every kind but a foldable FULLY_CONNECTED).
    None,
    /// A FULLY_CONNECTED's folded biases ([`fully_connected::FullyConnectedParams::folded_bias`]):
    /// its filter and bias (empty: none) read in place in the model.
    FullyConnected {
        params: fully_connected::FullyConnectedParams,
        filter: &'m [u8],
        bias: &'m [u8],
    },
}

impl<'m> Constants<'m> {
    /// The constants of operator `v`, prepared as `prep` (by [`prepare`], which checked its
    /// filter and bias).
    pub(crate) fn of(
        model: &Model<'m>,
        sg: &SubGraph<'m>,
        v: &OpView<'m>,
        prep: &Prepared,
    ) -> Result<Self, LoadError> {
        let Prepared::FullyConnected(params) = prep else {
            return Ok(Constants::None);
        };
        if !params.foldable() {
            return Ok(Constants::None);
        }
        let data = |k: usize| -> Result<&'m [u8], LoadError> {
            match usize::try_from(v.inputs[k]) {
                Ok(t) if k < v.n_in => Ok(tinfo(model, sg, t)?.data),
                _ => Ok(&[]),
            }
        };
        Ok(Constants::FullyConnected {
            params: *params,
            filter: data(1)?,
            bias: data(2)?,
        })
    }

    /// Entries.
    pub(crate) fn len(&self) -> usize {
        match self {
            Constants::None => 0,
            Constants::FullyConnected { params, .. } => params.output_depth,
        }
    }

    /// Entry `c` (`c < len()`).
    pub(crate) fn entry(&self, c: usize) -> Option<i32> {
        match self {
            Constants::None => None,
            Constants::FullyConnected {
                params,
                filter,
                bias,
            } => {
                let bias = (!bias.is_empty()).then_some(LeI32(bias));
                params.folded_bias(filter, bias.as_ref(), c)
            }
        }
    }
}

/// Prepares operator `v`: validates it as TFLM's `Prepare` does and returns its parameters
/// and its requantization table ([`Table::None`] for most operators).
pub(crate) fn prepare<'m>(
    model: &Model<'m>,
    sg: &SubGraph<'m>,
    v: &OpView<'m>,
    index: usize,
) -> Result<(Prepared, Table<'m>), LoadError> {
    let name = v.name;
    let kerr = |error: KernelError| LoadError::Operator {
        op: index,
        name,
        error,
    };
    let unsupported = |what: &'static str| kerr(KernelError::unsupported(name, what));
    let fault = |t: &TInfo<'_>, fault| LoadError::Tensor {
        op: Some(index),
        name,
        tensor: t.index,
        fault,
    };
    // A tensor of this operator: checked by `tinfo` (the error names the operator), and an
    // activation has no dimension of 0 (its kernel would loop over the other dimensions for
    // nothing; a constant's size is bounded by its data).
    let operand = |t: usize| -> Result<TInfo<'m>, LoadError> {
        let info = tinfo(model, sg, t).map_err(|e| e.at_op(index, name))?;
        if info.empty && info.data.is_empty() {
            return Err(fault(&info, TensorFault::EmptyDimension));
        }
        Ok(info)
    };
    let input = |k: usize| -> Result<TInfo<'m>, LoadError> {
        if k >= v.n_in || v.inputs[k] < 0 {
            return Err(unsupported("a required input is missing"));
        }
        operand(v.inputs[k] as usize)
    };
    let has = |k: usize| k < v.n_in && v.inputs[k] >= 0;
    let out = operand(v.output)?;
    if !out.data.is_empty() {
        return Err(unsupported("a constant output"));
    }
    let i8_act = |t: &TInfo<'_>| -> Result<(), LoadError> {
        if t.ty != TensorType::Int8 {
            return Err(unsupported("only int8 activations"));
        }
        if !t.data.is_empty() {
            return Err(unsupported("a constant where an activation is expected"));
        }
        Ok(())
    };
    // A tensor whose scale and zero point the kernel computes with (TFLM's kernels refuse
    // one without: `TF_LITE_ENSURE_EQ(quantization.type, kTfLiteAffineQuantization)`).
    let quantized = |ts: &[&TInfo<'_>]| -> Result<(), LoadError> {
        match ts.iter().find(|t| !t.quantized) {
            Some(t) => Err(fault(t, TensorFault::NotQuantized)),
            None => Ok(()),
        }
    };
    let constant = |t: &TInfo<'_>, what: &'static str| -> Result<(), LoadError> {
        if t.data.is_empty() {
            Err(unsupported(what))
        } else if t.data.len() < t.bytes {
            Err(unsupported("a constant buffer shorter than its tensor"))
        } else {
            Ok(())
        }
    };
    let act = |a: i8| Activation::from_tflite(name, a).map_err(kerr);
    let pad = |p: i8| Padding::from_tflite(name, p).map_err(kerr);
    // A filter's scales, one or one per output channel, per channel along a dimension of as
    // many entries (`PopulateConvolutionQuantizationParams`).
    let filter_scales =
        |k: usize, w: &TInfo<'_>, channels: usize| -> Result<Floats<'m>, LoadError> {
            quantized(&[w])?;
            if w.scale_count > 1 {
                if w.scale_count != channels {
                    return Err(fault(
                        w,
                        TensorFault::ScaleCount {
                            got: w.scale_count,
                            channels,
                        },
                    ));
                }
                let along = usize::try_from(w.quantized_dimension)
                    .ok()
                    .and_then(|d| w.shape().get(d).copied());
                if along != Some(channels) {
                    return Err(fault(
                        w,
                        TensorFault::QuantizedDimension {
                            got: w.quantized_dimension,
                            channels,
                        },
                    ));
                }
            }
            let t = sg.tensor(v.inputs[k] as usize)?;
            match t.quantization()? {
                Some(q) => Ok(q.scales()?),
                None => Err(fault(w, TensorFault::NotQuantized)),
            }
        };
    let bias = |k: usize, channels: usize| -> Result<(), LoadError> {
        if has(k) {
            let b = input(k)?;
            if b.ty != TensorType::Int32 {
                return Err(unsupported("only int32 bias"));
            }
            constant(&b, "a non-constant bias")?;
            if b.bytes != 4 * channels {
                return Err(kerr(KernelError::shape(
                    name,
                    "bias length differs from the channels",
                )));
            }
        }
        Ok(())
    };
    // The inputs each kernel takes (TFLM's `NumInputs` checks): a trailing optional one may be
    // given as -1; an extra input is refused, never ignored.
    let (min_in, max_in) = match v.code {
        code::CONV_2D | code::DEPTHWISE_CONV_2D | code::FULLY_CONNECTED => (2, 3),
        code::PAD => (2, 3),
        code::ADD | code::MUL | code::MEAN | code::TRANSPOSE => (2, 2),
        code::RESHAPE => (1, 2),
        code::CONCATENATION => (1, MAX_OP_INPUTS),
        _ => (1, 1),
    };
    if v.n_in < min_in || v.n_in > max_in {
        return Err(unsupported("a number of inputs the operator does not take"));
    }
    let p = match v.code {
        code::CONV_2D | code::DEPTHWISE_CONV_2D => {
            let (x, w) = (input(0)?, input(1)?);
            i8_act(&x)?;
            i8_act(&out)?;
            if w.ty != TensorType::Int8 {
                return Err(unsupported("only int8 filters"));
            }
            constant(&w, "a non-constant filter")?;
            quantized(&[&x, &out])?;
            let depthwise = v.code == code::DEPTHWISE_CONV_2D;
            let p = if depthwise {
                let o = v.op.depthwise_conv2d_options()?;
                let d = conv::DepthwiseOptions {
                    conv: conv::ConvOptions {
                        padding: pad(o.padding)?,
                        stride_w: o.stride_w.max(0) as usize,
                        stride_h: o.stride_h.max(0) as usize,
                        activation: act(o.fused_activation)?,
                        dilation_w: o.dilation_w.max(0) as usize,
                        dilation_h: o.dilation_h.max(0) as usize,
                    },
                    depth_multiplier: o.depth_multiplier.max(0) as usize,
                };
                conv::ConvParams::depthwise(&d, x.shape(), w.shape(), out.shape(), x.q, out.q)
            } else {
                let o = v.op.conv2d_options()?;
                let c = conv::ConvOptions {
                    padding: pad(o.padding)?,
                    stride_w: o.stride_w.max(0) as usize,
                    stride_h: o.stride_h.max(0) as usize,
                    activation: act(o.fused_activation)?,
                    dilation_w: o.dilation_w.max(0) as usize,
                    dilation_h: o.dilation_h.max(0) as usize,
                };
                conv::ConvParams::conv2d(&c, x.shape(), w.shape(), out.shape(), x.q, out.q)
            }
            .map_err(kerr)?;
            let ch = p.output_channels();
            let scales = filter_scales(1, &w, ch)?;
            bias(2, ch)?;
            let table = Table::PerChannel {
                name,
                channels: ch,
                input: x.q.scale,
                filter: scales,
                output: out.q.scale,
            };
            let prepared = if depthwise {
                Prepared::Depthwise(p)
            } else {
                Prepared::Conv(p)
            };
            return Ok((prepared, table));
        }
        code::FULLY_CONNECTED => {
            let (x, w) = (input(0)?, input(1)?);
            i8_act(&x)?;
            i8_act(&out)?;
            if w.ty != TensorType::Int8 {
                return Err(unsupported("only int8 filters"));
            }
            constant(&w, "a non-constant filter")?;
            let o = v.op.fully_connected_options()?;
            let fo = fully_connected::FullyConnectedOptions {
                activation: act(o.fused_activation)?,
                weights_format: o.weights_format,
            };
            quantized(&[&x, &out])?;
            let rows = w.shape().first().copied().unwrap_or(0);
            let scales = filter_scales(1, &w, rows)?;
            let p = fully_connected::FullyConnectedParams::with_scale_count(
                &fo,
                x.shape(),
                w.shape(),
                out.shape(),
                x.q,
                scales.len(),
                w.q.zero_point,
                out.q,
            )
            .map_err(kerr)?;
            bias(2, p.output_depth)?;
            let table = if p.per_channel {
                Table::PerChannel {
                    name,
                    channels: p.output_depth,
                    input: x.q.scale,
                    filter: scales,
                    output: out.q.scale,
                }
            } else {
                Table::FullyConnected {
                    params: p,
                    input: x.q.scale,
                    filter: scales.get(0).ok_or(unsupported("filter scales"))?,
                    output: out.q.scale,
                }
            };
            return Ok((Prepared::FullyConnected(p), table));
        }
        code::AVERAGE_POOL_2D | code::MAX_POOL_2D => {
            let x = input(0)?;
            i8_act(&x)?;
            i8_act(&out)?;
            quantized(&[&x, &out])?;
            let o = v.op.pool2d_options()?;
            let po = pooling::PoolOptions {
                padding: pad(o.padding)?,
                stride_w: o.stride_w.max(0) as usize,
                stride_h: o.stride_h.max(0) as usize,
                filter_w: o.filter_w.max(0) as usize,
                filter_h: o.filter_h.max(0) as usize,
                activation: act(o.fused_activation)?,
            };
            let p = pooling::PoolParams::new(name, &po, x.shape(), out.shape(), x.q, out.q)
                .map_err(kerr)?;
            if v.code == code::AVERAGE_POOL_2D {
                Prepared::AveragePool(p)
            } else {
                Prepared::MaxPool(p)
            }
        }
        code::SOFTMAX => {
            let x = input(0)?;
            i8_act(&x)?;
            i8_act(&out)?;
            if x.bytes != out.bytes {
                return Err(kerr(KernelError::shape(
                    name,
                    "input and output differ in size",
                )));
            }
            quantized(&[&x, &out])?;
            let beta = v.op.softmax_beta()?;
            Prepared::Softmax(
                activations::SoftmaxParams::new(beta, x.shape(), x.q, out.q).map_err(kerr)?,
            )
        }
        code::LOGISTIC => {
            let x = input(0)?;
            i8_act(&x)?;
            i8_act(&out)?;
            if x.bytes != out.bytes {
                return Err(kerr(KernelError::shape(
                    name,
                    "input and output differ in size",
                )));
            }
            quantized(&[&x, &out])?;
            Prepared::Logistic(activations::LogisticParams::new(x.q, out.q).map_err(kerr)?)
        }
        code::ADD | code::MUL => {
            let (a, b) = (input(0)?, input(1)?);
            for t in [&a, &b] {
                if t.ty != TensorType::Int8 {
                    return Err(unsupported("only int8 inputs"));
                }
                if !t.data.is_empty() {
                    constant(t, "")?;
                }
            }
            i8_act(&out)?;
            quantized(&[&a, &b, &out])?;
            let ac = act(v.op.add_mul_activation(v.code)?)?;
            if v.code == code::ADD {
                Prepared::Add(
                    elementwise::AddParams::new(
                        ac,
                        a.shape(),
                        b.shape(),
                        out.shape(),
                        a.q,
                        b.q,
                        out.q,
                    )
                    .map_err(kerr)?,
                )
            } else {
                Prepared::Mul(
                    elementwise::MulParams::new(
                        ac,
                        a.shape(),
                        b.shape(),
                        out.shape(),
                        a.q,
                        b.q,
                        out.q,
                    )
                    .map_err(kerr)?,
                )
            }
        }
        code::MEAN => {
            let (x, axes) = (input(0)?, input(1)?);
            i8_act(&x)?;
            i8_act(&out)?;
            constant(&axes, "non-constant axes")?;
            if axes.ty != TensorType::Int32 {
                return Err(unsupported("only int32 axes"));
            }
            quantized(&[&x, &out])?;
            let (ax, n) = small_i32s::<MAX_DIMS>(&axes.data[..axes.bytes])
                .ok_or(unsupported("axes of more than 6 int32 values"))?;
            Prepared::Mean(
                reduce::MeanParams::new(x.shape(), &ax[..n], out.shape(), x.q, out.q)
                    .map_err(kerr)?,
            )
        }
        code::PAD => {
            let (x, pads) = (input(0)?, input(1)?);
            i8_act(&x)?;
            i8_act(&out)?;
            if has(2) {
                return Err(unsupported("a constant_values input"));
            }
            constant(&pads, "non-constant paddings")?;
            if pads.ty != TensorType::Int32 {
                return Err(unsupported("only int32 paddings"));
            }
            let (raw, n) = small_i32s::<{ 2 * MAX_DIMS }>(&pads.data[..pads.bytes])
                .ok_or(unsupported("paddings of more than 6 dimensions"))?;
            let mut pp = [[0i32; 2]; MAX_DIMS];
            for (i, p) in pp.iter_mut().enumerate().take(n / 2) {
                *p = [raw[2 * i], raw[2 * i + 1]];
            }
            Prepared::Pad(
                layout::PadParams::new(x.shape(), &pp[..n / 2], out.shape()).map_err(kerr)?,
                out.q.zero_point.clamp(-128, 127) as i8,
            )
        }
        code::CONCATENATION => {
            let (axis, a) = v.op.concatenation_options()?;
            let mut shapes = [[1usize; MAX_DIMS]; MAX_OP_INPUTS];
            let mut ranks = [0usize; MAX_OP_INPUTS];
            let mut quants = [QuantParams::new(0.0, 0); MAX_OP_INPUTS];
            for k in 0..v.n_in {
                let t = input(k)?;
                if t.ty != out.ty || !t.data.is_empty() {
                    return Err(unsupported(
                        "inputs must be activations of the output's type",
                    ));
                }
                shapes[k] = t.dims;
                ranks[k] = t.rank;
                quants[k] = t.q;
            }
            let mut refs: [&[usize]; MAX_OP_INPUTS] = [&[]; MAX_OP_INPUTS];
            for k in 0..v.n_in {
                refs[k] = &shapes[k][..ranks[k]];
            }
            let quantized = out.ty == TensorType::Int8;
            if !quantized && out.ty != TensorType::Float32 && out.ty != TensorType::Int32 {
                return Err(unsupported("only int8, int32 and float32 tensors"));
            }
            Prepared::Concat(
                layout::ConcatParams::new(
                    axis,
                    act(a)?,
                    &refs[..v.n_in],
                    out.shape(),
                    if quantized { &quants[..v.n_in] } else { &[] },
                    quantized.then_some(out.q),
                )
                .map_err(kerr)?,
            )
        }
        code::TRANSPOSE => {
            let (x, perm) = (input(0)?, input(1)?);
            i8_act(&x)?;
            i8_act(&out)?;
            constant(&perm, "a non-constant permutation")?;
            if perm.ty != TensorType::Int32 {
                return Err(unsupported("only an int32 permutation"));
            }
            let (pm, n) = small_i32s::<MAX_DIMS>(&perm.data[..perm.bytes])
                .ok_or(unsupported("a permutation of more than 6 values"))?;
            Prepared::Transpose(
                layout::TransposeParams::new(x.shape(), &pm[..n], out.shape()).map_err(kerr)?,
            )
        }
        code::RESHAPE | code::SQUEEZE => {
            let x = input(0)?;
            if !x.data.is_empty() {
                return Err(unsupported("a constant input"));
            }
            if x.ty != out.ty || x.bytes != out.bytes {
                return Err(kerr(KernelError::shape(
                    name,
                    "input and output differ in type or size",
                )));
            }
            Prepared::Copy
        }
        code::QUANTIZE => {
            let x = input(0)?;
            if !x.data.is_empty() {
                return Err(unsupported("a constant input"));
            }
            i8_act(&out)?;
            if x.bytes / core_size(x.ty) != out.bytes {
                return Err(kerr(KernelError::shape(
                    name,
                    "input and output differ in size",
                )));
            }
            match x.ty {
                TensorType::Float32 => {
                    quantized(&[&out])?;
                    Prepared::Quantize(out.q)
                }
                TensorType::Int8 => {
                    quantized(&[&x, &out])?;
                    Prepared::Requantize(quantize::RequantizeParams::new(x.q, out.q).map_err(kerr)?)
                }
                _ => return Err(unsupported("only float32 or int8 input")),
            }
        }
        code::DEQUANTIZE => {
            let x = input(0)?;
            i8_act(&x)?;
            if out.ty != TensorType::Float32 {
                return Err(unsupported("only int8 to float32"));
            }
            quantized(&[&x])?;
            if x.bytes.checked_mul(4) != Some(out.bytes) {
                return Err(kerr(KernelError::shape(
                    name,
                    "input and output differ in size",
                )));
            }
            Prepared::Dequantize(x.q)
        }
        _ => return Err(unsupported("operator not implemented")),
    };
    Ok((p, Table::None))
}

pub(crate) fn core_size(t: TensorType) -> usize {
    match t {
        TensorType::Float32 | TensorType::Int32 => 4,
        TensorType::Int16 => 2,
        _ => 1,
    }
}

/// The model's main subgraph and its I/O, as the loader reads it (a few handles).
#[derive(Clone, Copy)]
pub(crate) struct Graph<'m> {
    pub(crate) model: Model<'m>,
    pub(crate) sg: SubGraph<'m>,
    pub(crate) n_ops: usize,
    pub(crate) n_tensors: usize,
    /// Tensor index of each graph input, then output.
    pub(crate) io_tensor: [usize; MAX_IO],
    pub(crate) n_inputs: usize,
    pub(crate) n_outputs: usize,
}

impl<'m> Graph<'m> {
    /// Opens the model's main subgraph: refuses models with control flow, too many tensors,
    /// operators or graph I/O, or I/O indices out of range.
    pub(crate) fn open(model: &'m [u8]) -> Result<Self, LoadError> {
        let m = Model::new(model)?;
        if m.subgraphs_len()? == 0 {
            return Err(LoadError::Unsupported {
                what: "no subgraph",
            });
        }
        for s in 1..m.subgraphs_len()? {
            let sg = m.subgraph(s)?;
            if sg.operators_len()? > 0 || sg.tensors_len()? > 0 {
                return Err(LoadError::Unsupported {
                    what: "subgraphs other than the main one (control flow)",
                });
            }
        }
        let sg = m.subgraph(0)?;
        let n_tensors = sg.tensors_len()?;
        let n_ops = sg.operators_len()?;
        if n_tensors > i16::MAX as usize || n_ops > u16::MAX as usize {
            return Err(LoadError::Unsupported {
                what: "more than 32767 tensors or 65535 operators",
            });
        }
        let (ins, outs) = (sg.inputs()?, sg.outputs()?);
        if ins.len() + outs.len() > MAX_IO {
            return Err(LoadError::Unsupported {
                what: "more than 8 graph inputs and outputs",
            });
        }
        let mut io_tensor = [0usize; MAX_IO];
        for (k, t) in ins.iter().chain(outs.iter()).enumerate() {
            if t < 0 || t as usize >= n_tensors {
                return Err(LoadError::Unsupported {
                    what: "a graph input or output index out of range",
                });
            }
            io_tensor[k] = t as usize;
        }
        Ok(Graph {
            model: m,
            sg,
            n_ops,
            n_tensors,
            io_tensor,
            n_inputs: ins.len(),
            n_outputs: outs.len(),
        })
    }

    /// Position of tensor `t` among the graph inputs then outputs (its first).
    pub(crate) fn io_index(&self, t: usize) -> Option<usize> {
        self.io_tensor[..self.n_inputs + self.n_outputs]
            .iter()
            .position(|&x| x == t)
    }

    /// The tensors of window `base` that an operator reads or writes.
    pub(crate) fn used_window(&self, base: usize) -> Result<TensorWindow, LoadError> {
        let mut used = TensorWindow::new(base);
        for i in 0..self.n_ops {
            let op = self.sg.operator(i)?;
            for t in op.inputs()?.iter().chain(op.outputs()?.iter()) {
                if let Ok(t) = usize::try_from(t) {
                    used.insert(t);
                }
            }
        }
        Ok(used)
    }

    /// Whether tensor `t` holds constant data (a buffer).
    fn is_constant(&self, t: usize) -> Result<bool, LoadError> {
        Ok(!self.model.tensor_data(&self.sg.tensor(t)?)?.is_empty())
    }

    /// The one data-flow rule of a graph the runtime runs (every operator's indices already
    /// checked in range by [`op_view`]): every tensor an operator reads is a constant, a graph
    /// input or the output of an earlier operator; no tensor is written twice (by two
    /// operators, or by an operator while being a graph input); every graph output is written
    /// (by an operator, or is a graph input) and no graph input or output is a constant. So
    /// no inference reads a byte that it did not write or copy in: its outputs depend on its
    /// inputs alone, never on what the arena held before. O(operator inputs + outputs) per
    /// [`TensorWindow`] of tensors.
    pub(crate) fn check_dataflow(&self) -> Result<(), LoadError> {
        let graph =
            |op: Option<usize>, tensor: usize, fault| LoadError::Graph { op, tensor, fault };
        let mut base = 0;
        while base < self.n_tensors {
            let mut written = TensorWindow::new(base);
            for &t in &self.io_tensor[..self.n_inputs] {
                if written.covers(t) {
                    if self.is_constant(t)? {
                        return Err(graph(None, t, GraphFault::ConstantIo));
                    }
                    written.insert(t);
                }
            }
            for i in 0..self.n_ops {
                let op = self.sg.operator(i)?;
                for t in op.inputs()?.iter() {
                    let Ok(t) = usize::try_from(t) else { continue };
                    if written.covers(t) && !written.has(t) && !self.is_constant(t)? {
                        return Err(graph(Some(i), t, GraphFault::ReadBeforeWrite));
                    }
                }
                for t in op.outputs()?.iter() {
                    let Ok(t) = usize::try_from(t) else { continue };
                    if written.has(t) {
                        return Err(graph(Some(i), t, GraphFault::WrittenTwice));
                    }
                    written.insert(t);
                }
            }
            let outputs = &self.io_tensor[self.n_inputs..self.n_inputs + self.n_outputs];
            for &t in outputs {
                if written.covers(t) {
                    if self.is_constant(t)? {
                        return Err(graph(None, t, GraphFault::ConstantIo));
                    }
                    if !written.has(t) {
                        return Err(graph(None, t, GraphFault::OutputNotWritten));
                    }
                }
            }
            base += WINDOW_TENSORS;
        }
        Ok(())
    }

    /// Bytes of graph I/O tensors `from..to` (inputs then outputs), concatenated: at most
    /// [`MAX_TENSOR_SIZE`] in all.
    pub(crate) fn io_bytes(&self, from: usize, to: usize) -> Result<usize, LoadError> {
        let mut sum = 0usize;
        for &t in self.io_tensor.get(from..to).unwrap_or(&[]) {
            sum = sum
                .checked_add(tinfo(&self.model, &self.sg, t)?.bytes)
                .filter(|&b| b <= MAX_TENSOR_SIZE)
                .ok_or(LoadError::Tensor {
                    op: None,
                    name: "",
                    tensor: t,
                    fault: TensorFault::TooLarge,
                })?;
        }
        Ok(sum)
    }
}
