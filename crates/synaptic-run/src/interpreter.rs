//! The interpreter: a `.tflite` model run on a synaptic-mem arena, every buffer accounted for.
//!
//! ## Where each byte lives
//!
//! | data | where | when |
//! |---|---|---|
//! | weights, biases, constant operands | the model bytes (flash), read in place | never copied |
//! | per-operator constant data: requantization multipliers and shifts | one PERSISTENT `int32` tensor | computed once at load |
//! | tensor → location map (plan slot, shared I/O, constant) | one PERSISTENT `int16` tensor | computed once at load |
//! | activations | the plan's EPHEMERAL region, at the planned offsets ([`Runner::planned`]) | per inference |
//! | graph input/output | the SHARED region ([`IoPlacement::Shared`]) or plan slots ([`IoPlacement::Plan`]) | allocated at load / per inference |
//! | kernel temporaries | the scratch pool ([`synaptic_mem::Inference::scratch`]) | none of the 17 kernels needs one |
//!
//! The interpreter object itself (outside the arena, like TFLM's `MicroInterpreter`) holds a
//! handful of handles and no per-operator state: the small scalar parameters of each operator
//! (offsets, clamps, shapes: the `*Params` structs) are prepared again from the model before
//! each operator runs, by the same code that validated them at load, so they cannot disagree.
//! Only the per-channel tables — the bulk of TFLM's per-operator persistent buffers — are kept.
//!
//! ## The plan and the runtime agree on slots
//!
//! Slot `k` of the plan is the `k`-th planned activation in ascending tensor order, as
//! `synaptic-plan` numbers them (`Analysis::ephemeral_tensors`, `ActivationEntry::slot`): a
//! tensor with no constant data, not a variable, used by an operator or the graph, and — with
//! I/O in the SHARED region — not a graph input or output. At load every slot is checked
//! against its tensor: at least its size, live from the operator that produces it (or operator
//! 0) through the last one that reads it (or the last operator, for a graph output). A plan
//! that does not fit the model is a [`LoadError::Plan`], never a wrong answer.
//!
//! ## Validation
//!
//! [`Interpreter::new`] prepares every operator once: an unsupported operator, type, option or
//! shape is a [`LoadError::Operator`] naming the operator index and what is missing.

// Loops index several parallel fixed-size arrays (roles, slots, locations) by one counter.
#![allow(clippy::needless_range_loop)]

use core::fmt;

use synaptic_mem::{
    AllocError, DType, Loader, Plan, PlanHandle, PlanLoadError, PlannedInference, Runner, Tensor,
};
use synaptic_tflite::{code, Model, SubGraph, TensorType};

use crate::error::KernelError;
use crate::kernels::{
    activations, conv, elementwise, fully_connected, layout, pooling, quantize, reduce, LeI32,
    MAX_DIMS,
};
use crate::math::{per_channel_multipliers, Activation, Padding, QuantParams};

/// Most graph inputs plus outputs a model may have.
pub const MAX_IO: usize = 8;
/// Most inputs an operator may have (CONCATENATION's limit here).
pub const MAX_OP_INPUTS: usize = 16;
/// Most distinct planned tensors one operator may touch (inputs and output).
pub const MAX_OP_TENSORS: usize = MAX_OP_INPUTS + 1;

/// Where the graph's input and output tensors live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoPlacement {
    /// In the arena's SHARED region (the spec's IPC lifetime): allocated once at load, they
    /// survive every reset, so a DMA or another core can fill the next input between
    /// inferences. The plan must leave them out (`synaptic-plan`'s `IoPlacement::Shared`).
    Shared,
    /// Inside the plan, sharing memory with activations not live with them (least RAM). The
    /// input is copied in at the start of an inference and the output out at its end.
    Plan,
}

/// Why a model could not be loaded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LoadError {
    /// The model bytes could not be read.
    Model(synaptic_tflite::Error),
    /// The model as a whole is not supported (no subgraph, too many inputs, other subgraphs).
    Unsupported {
        /// What is missing.
        what: &'static str,
    },
    /// An operator is not supported or its tensors do not fit it.
    Operator {
        /// Operator index (execution order).
        op: usize,
        /// The operator, as TFLite names it.
        name: &'static str,
        /// What is missing or wrong.
        error: KernelError,
    },
    /// The plan does not fit the model.
    Plan {
        /// What is wrong.
        what: &'static str,
        /// The slot (or slot count) concerned.
        slot: usize,
        /// The tensor concerned (`usize::MAX`: none).
        tensor: usize,
    },
    /// The arena could not hold the persistent or shared data.
    Alloc(AllocError),
    /// The arena refused the plan.
    PlanLoad(PlanLoadError),
}

impl From<synaptic_tflite::Error> for LoadError {
    fn from(e: synaptic_tflite::Error) -> Self {
        LoadError::Model(e)
    }
}

impl From<AllocError> for LoadError {
    fn from(e: AllocError) -> Self {
        LoadError::Alloc(e)
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Model(e) => write!(f, "{e}"),
            LoadError::Unsupported { what } => write!(f, "unsupported model: {what}"),
            LoadError::Operator { op, name, error } => {
                write!(f, "operator {op} ({name}): ")?;
                match error {
                    KernelError::Unsupported { what, .. } => write!(f, "unsupported: {what}"),
                    KernelError::Shape { what, .. } => write!(f, "shape mismatch: {what}"),
                    e => write!(f, "{e}"),
                }
            }
            LoadError::Plan { what, slot, tensor } => {
                write!(f, "plan does not fit the model: {what} (slot {slot}")?;
                if *tensor != usize::MAX {
                    write!(f, ", tensor {tensor}")?;
                }
                f.write_str(")")
            }
            LoadError::Alloc(e) => write!(f, "arena: {e}"),
            LoadError::PlanLoad(e) => write!(f, "arena refused the plan: {e}"),
        }
    }
}

impl core::error::Error for LoadError {}

/// Why an inference failed (the arena or the caller's buffers; a loaded model's operators do
/// not fail).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RunError {
    /// The arena refused an allocation or a view.
    Alloc(AllocError),
    /// A kernel refused its buffers.
    Kernel {
        /// Operator index.
        op: usize,
        /// The kernel's error.
        error: KernelError,
    },
    /// The model bytes could not be read (cannot happen for a model that loaded).
    Model(synaptic_tflite::Error),
    /// The caller's input or output buffer has the wrong length.
    Io {
        /// Which buffer.
        what: &'static str,
        /// Bytes the model needs.
        expected: usize,
        /// Bytes given.
        got: usize,
    },
}

impl From<AllocError> for RunError {
    fn from(e: AllocError) -> Self {
        RunError::Alloc(e)
    }
}

impl From<synaptic_tflite::Error> for RunError {
    fn from(e: synaptic_tflite::Error) -> Self {
        RunError::Model(e)
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Alloc(e) => write!(f, "arena: {e}"),
            RunError::Kernel { op, error } => write!(f, "operator {op}: {error}"),
            RunError::Model(e) => write!(f, "{e}"),
            RunError::Io {
                what,
                expected,
                got,
            } => write!(f, "{what}: {got} bytes given, the model needs {expected}"),
        }
    }
}

impl core::error::Error for RunError {}

/// The arena bytes a loaded model takes, by region (all in the core's block accounting:
/// descriptors included, data rounded up to 16).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Memory {
    /// Persistent bytes of the per-operator requantization tables (descriptor + data).
    pub tables: usize,
    /// Persistent bytes of the tensor → location map (descriptor + data).
    pub locations: usize,
    /// Persistent bytes of the plan's descriptor table (32 bytes per slot).
    pub plan_descriptors: usize,
    /// All persistent bytes this model took.
    pub persistent: usize,
    /// The plan's ephemeral region (activations).
    pub planned: usize,
    /// Shared-region bytes of the graph I/O (0 with [`IoPlacement::Plan`]).
    pub shared: usize,
    /// Scratch bytes the kernels take per inference.
    pub scratch: usize,
    /// Descriptor bytes included in the figures above: [`DESC_SPAN`] per persistent and
    /// shared tensor plus the plan's descriptor table (`plan_descriptors`).
    ///
    /// [`DESC_SPAN`]: synaptic_mem::DESC_SPAN
    pub descriptors: usize,
}

impl Memory {
    /// Persistent + planned + scratch + shared: the RAM that holds the model's tensors,
    /// their descriptors and per-operator data.
    pub fn total(&self) -> usize {
        self.persistent + self.planned + self.scratch + self.shared
    }

    /// The arena (in bytes) that holds exactly this model with a scratch pool of
    /// `scratch_pool` bytes: persistent + planned + the pool, at least the core's smallest
    /// arena ([`synaptic_mem::MIN_ARENA_SIZE`]). The pool must be one the core accepts
    /// (at least [`synaptic_mem::MIN_SCRATCH_SIZE`], a multiple of 16); the kernels need none.
    pub fn arena_bytes(&self, scratch_pool: usize) -> usize {
        (self.persistent + self.planned + scratch_pool.max(self.scratch))
            .max(synaptic_mem::MIN_ARENA_SIZE)
    }
}

/// Location codes of the `int16` tensor → location map.
const LOC_NONE: i16 = -1;
const LOC_SHARED0: i16 = -2;

/// What the interpreter knows of one tensor, read from the model.
#[derive(Clone, Copy)]
struct TInfo<'m> {
    ty: TensorType,
    dims: [usize; MAX_DIMS],
    rank: usize,
    q: QuantParams,
    /// Constant data (empty: none).
    data: &'m [u8],
    bytes: usize,
}

impl TInfo<'_> {
    fn shape(&self) -> &[usize] {
        &self.dims[..self.rank]
    }
}

fn tinfo<'m>(model: &Model<'m>, sg: &SubGraph<'m>, t: usize) -> Result<TInfo<'m>, LoadError> {
    let tt = sg.tensor(t)?;
    let ty = tt.tensor_type()?;
    let shape = tt.shape()?;
    if shape.len() > MAX_DIMS {
        return Err(LoadError::Unsupported {
            what: "a tensor of more than 6 dimensions",
        });
    }
    let mut dims = [1usize; MAX_DIMS];
    let mut elems = 1usize;
    for (i, d) in shape.iter().enumerate() {
        let d = usize::try_from(d).map_err(|_| LoadError::Unsupported {
            what: "a dynamic (negative) dimension",
        })?;
        dims[i] = d;
        elems = elems.checked_mul(d).ok_or(LoadError::Unsupported {
            what: "a tensor whose size overflows",
        })?;
    }
    let bytes = match ty {
        TensorType::Int8 | TensorType::UInt8 | TensorType::Bool => elems,
        TensorType::Int16 | TensorType::Float16 | TensorType::BFloat16 | TensorType::UInt16 => {
            elems * 2
        }
        TensorType::Int32 | TensorType::Float32 | TensorType::UInt32 => elems * 4,
        TensorType::Int64 | TensorType::Float64 | TensorType::UInt64 => elems * 8,
        TensorType::Int4 => elems.div_ceil(2),
        _ => 0,
    };
    let q = match tt.quantization()? {
        Some(q) => QuantParams::new(
            q.scales()?.get(0).unwrap_or(0.0),
            q.zero_points()?.get(0).unwrap_or(0) as i32,
        ),
        None => QuantParams::new(0.0, 0),
    };
    Ok(TInfo {
        ty,
        dims,
        rank: shape.len(),
        q,
        data: model.tensor_data(&tt)?,
        bytes,
    })
}

/// The core allocation (shape of 1–4 dims, dtype) of an activation of `t`, with exactly its
/// bytes: shapes of more than 4 dimensions fold into the leading one, a scalar is `[1]`.
fn core_request(t: &TInfo<'_>) -> Option<([u32; 4], usize, DType)> {
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
enum Prepared {
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
struct OpView<'m> {
    code: i32,
    name: &'static str,
    inputs: [i32; MAX_OP_INPUTS],
    n_in: usize,
    output: usize,
    op: synaptic_tflite::Operator<'m>,
}

fn op_view<'m>(
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

/// Prepares operator `v`: validates it as TFLM's `Prepare` does and returns its parameters
/// and the length of its requantization table (0 for most operators). When `tables` is given
/// (at load), the multipliers and shifts are written into it.
fn prepare(
    model: &Model<'_>,
    sg: &SubGraph<'_>,
    v: &OpView<'_>,
    index: usize,
    tables: Option<(&mut [i32], &mut [i32])>,
) -> Result<(Prepared, usize), LoadError> {
    let name = v.name;
    let kerr = |error: KernelError| LoadError::Operator {
        op: index,
        name,
        error,
    };
    let unsupported = |what: &'static str| kerr(KernelError::unsupported(name, what));
    let input = |k: usize| -> Result<TInfo<'_>, LoadError> {
        if k >= v.n_in || v.inputs[k] < 0 {
            return Err(unsupported("a required input is missing"));
        }
        tinfo(model, sg, v.inputs[k] as usize)
    };
    let has = |k: usize| k < v.n_in && v.inputs[k] >= 0;
    let out = tinfo(model, sg, v.output)?;
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
    let filter_scales = |k: usize| -> Result<synaptic_tflite::Floats<'_>, LoadError> {
        let t = sg.tensor(v.inputs[k] as usize)?;
        match t.quantization()? {
            Some(q) => Ok(q.scales()?),
            None => Err(unsupported("filter is not quantized")),
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
    let fill_per_channel = |tables: Option<(&mut [i32], &mut [i32])>,
                            in_scale: f32,
                            scales: &synaptic_tflite::Floats<'_>,
                            out_scale: f32|
     -> Result<(), LoadError> {
        if let Some((m, s)) = tables {
            for c in 0..m.len() {
                let sc = if scales.len() == 1 {
                    scales.get(0)
                } else {
                    scales.get(c)
                };
                let sc = sc.ok_or(unsupported("filter scales"))?;
                per_channel_multipliers(
                    name,
                    in_scale,
                    &[sc],
                    out_scale,
                    &mut m[c..c + 1],
                    &mut s[c..c + 1],
                )
                .map_err(kerr)?;
            }
        }
        Ok(())
    };

    let p = match v.code {
        code::CONV_2D | code::DEPTHWISE_CONV_2D => {
            let (x, w) = (input(0)?, input(1)?);
            i8_act(&x)?;
            i8_act(&out)?;
            if w.ty != TensorType::Int8 {
                return Err(unsupported("only int8 filters"));
            }
            constant(&w, "a non-constant filter")?;
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
            let scales = filter_scales(1)?;
            if scales.len() != 1 && scales.len() != ch {
                return Err(unsupported(
                    "filter quantization must have one scale or one per output channel",
                ));
            }
            bias(2, ch)?;
            fill_per_channel(tables, x.q.scale, &scales, out.q.scale)?;
            let prepared = if depthwise {
                Prepared::Depthwise(p)
            } else {
                Prepared::Conv(p)
            };
            return Ok((prepared, ch));
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
            let scales = filter_scales(1)?;
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
            let n = p.table_len();
            if let Some((m, s)) = tables {
                if p.per_channel {
                    fill_per_channel(Some((m, s)), x.q.scale, &scales, out.q.scale)?;
                } else {
                    let s0 = scales.get(0).ok_or(unsupported("filter scales"))?;
                    p.multipliers(x.q.scale, &[s0], out.q.scale, m, s)
                        .map_err(kerr)?;
                }
            }
            return Ok((Prepared::FullyConnected(p), n));
        }
        code::AVERAGE_POOL_2D | code::MAX_POOL_2D => {
            let x = input(0)?;
            i8_act(&x)?;
            i8_act(&out)?;
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
                TensorType::Float32 => Prepared::Quantize(out.q),
                TensorType::Int8 => {
                    Prepared::Requantize(quantize::RequantizeParams::new(x.q, out.q))
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
            if out.bytes != 4 * x.bytes {
                return Err(kerr(KernelError::shape(
                    name,
                    "input and output differ in size",
                )));
            }
            Prepared::Dequantize(x.q)
        }
        _ => return Err(unsupported("operator not implemented")),
    };
    Ok((p, 0))
}

fn core_size(t: TensorType) -> usize {
    match t {
        TensorType::Float32 | TensorType::Int32 => 4,
        TensorType::Int16 => 2,
        _ => 1,
    }
}

/// An operator input as the kernels see it.
#[derive(Clone, Copy)]
struct In<'x> {
    bytes: &'x [u8],
    i8: Option<&'x [i8]>,
    f32: Option<&'x [f32]>,
}

impl<'x> In<'x> {
    const ABSENT: In<'static> = In {
        bytes: &[],
        i8: None,
        f32: None,
    };
    fn arena(t: &'x Tensor<'_>) -> Self {
        In {
            bytes: t.bytes(),
            i8: t.as_slice::<i8>().ok(),
            f32: t.as_slice::<f32>().ok(),
        }
    }
    fn model(b: &'x [u8]) -> Self {
        In {
            bytes: b,
            i8: None,
            f32: None,
        }
    }
}

/// Runs the kernel of `p` on resolved buffers.
fn execute(
    p: &Prepared,
    name: &'static str,
    tables: (&[i32], &[i32]),
    ins: &[In<'_>],
    out: &mut Tensor<'_>,
) -> Result<(), KernelError> {
    let ty = KernelError::unsupported(name, "tensor type differs from load");
    let x = |k: usize| ins.get(k).and_then(|i| i.i8).ok_or(ty);
    let bias = |k: usize| {
        ins.get(k)
            .filter(|i| !i.bytes.is_empty())
            .map(|i| LeI32(i.bytes))
    };
    let w = |k: usize| ins.get(k).map_or(&[][..], |i| i.bytes);
    let (m, s) = tables;
    match p {
        Prepared::Conv(pp) => conv::conv2d(
            pp,
            m,
            s,
            x(0)?,
            w(1),
            bias(2).as_ref(),
            out.as_mut_slice::<i8>().map_err(|_| ty)?,
        ),
        Prepared::Depthwise(pp) => conv::depthwise_conv2d(
            pp,
            m,
            s,
            x(0)?,
            w(1),
            bias(2).as_ref(),
            out.as_mut_slice::<i8>().map_err(|_| ty)?,
        ),
        Prepared::FullyConnected(pp) => {
            let filter = &w(1)[..pp.output_depth * pp.accum_depth];
            fully_connected::fully_connected(
                pp,
                m,
                s,
                x(0)?,
                filter,
                bias(2).as_ref(),
                out.as_mut_slice::<i8>().map_err(|_| ty)?,
            )
        }
        Prepared::AveragePool(pp) => {
            pooling::average_pool(pp, x(0)?, out.as_mut_slice::<i8>().map_err(|_| ty)?)
        }
        Prepared::MaxPool(pp) => {
            pooling::max_pool(pp, x(0)?, out.as_mut_slice::<i8>().map_err(|_| ty)?)
        }
        Prepared::Softmax(pp) => {
            activations::softmax(pp, x(0)?, out.as_mut_slice::<i8>().map_err(|_| ty)?)
        }
        Prepared::Logistic(pp) => {
            activations::logistic(pp, x(0)?, out.as_mut_slice::<i8>().map_err(|_| ty)?)
        }
        Prepared::Add(_) | Prepared::Mul(_) => {
            let o = out.as_mut_slice::<i8>().map_err(|_| ty)?;
            let (a, b) = (ins.first().ok_or(ty)?, ins.get(1).ok_or(ty)?);
            binary(p, a, b, o)
        }
        Prepared::Mean(pp) => reduce::mean(pp, x(0)?, out.as_mut_slice::<i8>().map_err(|_| ty)?),
        Prepared::Pad(pp, value) => {
            layout::pad(pp, x(0)?, *value, out.as_mut_slice::<i8>().map_err(|_| ty)?)
        }
        Prepared::Concat(pp) => {
            let size = match out.dtype() {
                DType::Int8 | DType::UInt8 => 1,
                DType::Int16 => 2,
                _ => 4,
            };
            let mut refs: [&[u8]; MAX_OP_INPUTS] = [&[]; MAX_OP_INPUTS];
            let mut sizes = [0usize; MAX_OP_INPUTS];
            let n = ins.len();
            // Every input's axis length from its byte count: outer × n × inner elements.
            for k in 0..n {
                refs[k] = ins[k].bytes;
                sizes[k] = ins[k].bytes.len() / (pp.outer * pp.inner).max(1);
            }
            let bytes = layout::ConcatParams {
                output_len: pp.output_len * size,
                ..*pp
            };
            layout::concatenation(&bytes, &refs[..n], &sizes[..n], out.bytes_mut())
        }
        Prepared::Transpose(pp) => {
            layout::transpose(pp, x(0)?, out.as_mut_slice::<i8>().map_err(|_| ty)?)
        }
        Prepared::Copy => layout::copy(name, ins.first().ok_or(ty)?.bytes, out.bytes_mut()),
        Prepared::Quantize(q) => quantize::quantize_f32(
            *q,
            ins.first().and_then(|i| i.f32).ok_or(ty)?,
            out.as_mut_slice::<i8>().map_err(|_| ty)?,
        ),
        Prepared::Requantize(pp) => {
            quantize::requantize(pp, x(0)?, out.as_mut_slice::<i8>().map_err(|_| ty)?)
        }
        Prepared::Dequantize(q) => {
            quantize::dequantize(*q, x(0)?, out.as_mut_slice::<f32>().map_err(|_| ty)?)
        }
    }
}

/// ADD / MUL with each operand an activation (`i8`) or a model constant (raw bytes).
fn binary(p: &Prepared, a: &In<'_>, b: &In<'_>, o: &mut [i8]) -> Result<(), KernelError> {
    macro_rules! run {
        ($x:expr, $y:expr) => {
            match p {
                Prepared::Add(pp) => elementwise::add(pp, $x, $y, o),
                Prepared::Mul(pp) => elementwise::mul(pp, $x, $y, o),
                _ => Ok(()),
            }
        };
    }
    match (a.i8, b.i8) {
        (Some(x), Some(y)) => run!(x, y),
        (Some(x), None) => run!(x, b.bytes),
        (None, Some(y)) => run!(a.bytes, y),
        (None, None) => run!(a.bytes, b.bytes),
    }
}

/// The tensors of `slots` at operator `op`, as a slice (the core hands out a fixed-size array
/// per call; this picks the size at run time).
fn with_views<R>(
    p: &mut PlannedInference<'_, '_>,
    op: u16,
    slots: &[usize],
    f: impl FnOnce(&mut [Tensor<'_>]) -> R,
) -> Result<R, AllocError> {
    fn go<const N: usize, R>(
        p: &mut PlannedInference<'_, '_>,
        op: u16,
        slots: &[usize],
        f: impl FnOnce(&mut [Tensor<'_>]) -> R,
    ) -> Result<R, AllocError> {
        let mut v = p.at::<N>(op, core::array::from_fn(|i| slots[i]))?;
        Ok(f(&mut v))
    }
    match slots.len() {
        0 => Ok(f(&mut [])),
        1 => go::<1, R>(p, op, slots, f),
        2 => go::<2, R>(p, op, slots, f),
        3 => go::<3, R>(p, op, slots, f),
        4 => go::<4, R>(p, op, slots, f),
        5 => go::<5, R>(p, op, slots, f),
        6 => go::<6, R>(p, op, slots, f),
        7 => go::<7, R>(p, op, slots, f),
        8 => go::<8, R>(p, op, slots, f),
        9 => go::<9, R>(p, op, slots, f),
        10 => go::<10, R>(p, op, slots, f),
        11 => go::<11, R>(p, op, slots, f),
        12 => go::<12, R>(p, op, slots, f),
        13 => go::<13, R>(p, op, slots, f),
        14 => go::<14, R>(p, op, slots, f),
        15 => go::<15, R>(p, op, slots, f),
        16 => go::<16, R>(p, op, slots, f),
        _ => go::<MAX_OP_TENSORS, R>(p, op, slots, f),
    }
}

/// The model's main subgraph and its I/O, as the interpreter reads it (a few handles).
#[derive(Clone, Copy)]
struct Graph<'m> {
    model: Model<'m>,
    sg: SubGraph<'m>,
    n_ops: usize,
    n_tensors: usize,
    /// Tensor index of each graph input, then output.
    io_tensor: [usize; MAX_IO],
    n_inputs: usize,
    n_outputs: usize,
}

impl Graph<'_> {
    fn used_by_op(&self, t: usize) -> Result<bool, LoadError> {
        for i in 0..self.n_ops {
            let op = self.sg.operator(i)?;
            if op
                .inputs()?
                .iter()
                .chain(op.outputs()?.iter())
                .any(|x| x == t as i32)
            {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Checks plan slot `s` holds tensor `t`: large enough and live wherever `t` is used.
    fn check_slot(
        &self,
        plan: &Plan<'_>,
        s: usize,
        t: usize,
        info: &TInfo<'_>,
    ) -> Result<(), LoadError> {
        let bad = |what| LoadError::Plan {
            what,
            slot: s,
            tensor: t,
        };
        let slot = plan.slots.get(s).ok_or(bad(
            "the plan has fewer slots than the model has planned activations",
        ))?;
        if (slot.size as usize) < info.bytes {
            return Err(bad("slot smaller than its tensor"));
        }
        let is_input = self.io_tensor[..self.n_inputs].contains(&t);
        let is_output = self.io_tensor[self.n_inputs..self.n_inputs + self.n_outputs].contains(&t);
        let mut first = None;
        let mut last = 0usize;
        for i in 0..self.n_ops {
            let op = self.sg.operator(i)?;
            if first.is_none() && op.outputs()?.iter().any(|x| x == t as i32) {
                first = Some(i);
            }
            if op.inputs()?.iter().any(|x| x == t as i32) {
                last = i;
            }
        }
        let first = if is_input { 0 } else { first.unwrap_or(0) };
        let last = if is_output {
            self.n_ops.saturating_sub(1)
        } else {
            last.max(first)
        };
        if (slot.first_op as usize) > first || (slot.last_op as usize) < last {
            return Err(bad("slot not live over its tensor's lifetime"));
        }
        Ok(())
    }

    fn io_bytes(&self, from: usize, to: usize) -> usize {
        self.io_tensor[from..to]
            .iter()
            .map(|&t| tinfo(&self.model, &self.sg, t).map_or(0, |i| i.bytes))
            .sum()
    }
}

/// A `.tflite` model loaded into an arena, ready to run (see the [module docs](self)).
///
/// ```
/// use synaptic_mem::{Arena, ArenaBuffer, Plan, PlanSlot};
/// use synaptic_run::{Interpreter, IoPlacement};
/// // A one-operator int8 ADD model: two graph inputs and one output.
/// let model = synaptic_tflite::tests_support::tiny_model();
/// // With I/O in the SHARED region this plan holds no tensor (synaptic-plan computes plans
/// // on the host; `synmem emit --lang rust` writes them as source).
/// let plan = Plan { region_size: 0, slots: &[] };
/// let mut buf = ArenaBuffer::<4096>::new();
/// let mut io = ArenaBuffer::<1024>::new();
/// let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
/// arena.set_shared_region(io.as_mut_slice()).unwrap();
/// let (loader, mut runner) = arena.split();
/// let mut net = Interpreter::new(model, loader, plan, IoPlacement::Shared).unwrap();
/// let input = vec![3u8; net.input_bytes()]; // both inputs, concatenated
/// let mut output = vec![0u8; net.output_bytes()];
/// net.invoke(&mut runner, &input, &mut output).unwrap();
/// // The same again, filling the input in place in the SHARED region (no copy).
/// net.input_mut(0).unwrap().fill(3);
/// net.input_mut(1).unwrap().fill(3);
/// net.invoke_in_place(&mut runner).unwrap();
/// assert_eq!(net.output(0).unwrap(), &output[..]);
/// let m = net.memory();
/// assert_eq!(m.planned, 0);
/// assert_eq!(m.total(), m.persistent + m.shared);
/// ```
pub struct Interpreter<'m, 'a, 'p> {
    g: Graph<'m>,
    plan: PlanHandle<'a, 'p>,
    /// Per-operator multipliers then shifts, operator after operator (persistent).
    tables: Option<Tensor<'a>>,
    /// Tensor → location (persistent).
    locs: Tensor<'a>,
    /// Graph inputs then outputs in the SHARED region ([`IoPlacement::Shared`]).
    io: [Option<Tensor<'a>>; MAX_IO],
    placement: IoPlacement,
    memory: Memory,
}

impl<'m, 'a, 'p> Interpreter<'m, 'a, 'p> {
    /// Loads `model` (its bytes stay where they are: weights are read in place) into the
    /// arena of `loader`: validates every operator, computes the per-operator tables into the
    /// persistent region, allocates graph I/O in the SHARED region ([`IoPlacement::Shared`];
    /// the arena needs one registered) and loads `plan` (its descriptor table goes in the
    /// persistent region). `plan` must be the plan of this model's activations for this
    /// placement (see the [module docs](self)); it is checked.
    pub fn new(
        model: &'m [u8],
        loader: Loader<'a>,
        plan: Plan<'p>,
        placement: IoPlacement,
    ) -> Result<Self, LoadError> {
        let before = loader.stats();
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
        let (n_inputs, n_outputs) = (ins.len(), outs.len());

        // Validate every operator; size the tables.
        let mut table_words = 0usize;
        for i in 0..n_ops {
            let v = op_view(&m, &sg, i, n_tensors)?;
            let (_, n) = prepare(&m, &sg, &v, i, None)?;
            table_words += 2 * n;
        }

        let g = Graph {
            model: m,
            sg,
            n_ops,
            n_tensors,
            io_tensor,
            n_inputs,
            n_outputs,
        };

        // Locations: which tensors are planned activations, in synaptic-plan's slot order.
        let mut locs = loader.persistent(&[n_tensors.max(1) as u32], DType::Int16)?;
        let loc_table = locs
            .as_mut_slice::<i16>()
            .map_err(|_| LoadError::Unsupported {
                what: "location table",
            })?;
        let mut slot = 0usize;
        for (t, loc_t) in loc_table.iter_mut().enumerate().take(n_tensors) {
            let info = tinfo(&g.model, &g.sg, t)?;
            let io_k = g.io_tensor[..n_inputs + n_outputs]
                .iter()
                .position(|&x| x == t);
            let referenced = io_k.is_some() || g.used_by_op(t)?;
            let loc = if !info.data.is_empty() || !referenced {
                LOC_NONE
            } else if g.sg.tensor(t)?.is_variable()? {
                return Err(LoadError::Unsupported {
                    what: "variable tensors",
                });
            } else if let (Some(k), IoPlacement::Shared) = (io_k, placement) {
                LOC_SHARED0 - k as i16
            } else {
                let s = slot;
                slot += 1;
                g.check_slot(&plan, s, t, &info)?;
                s as i16
            };
            if loc != LOC_NONE && core_request(&info).is_none() {
                return Err(LoadError::Unsupported {
                    what: "an activation of a type or shape the arena cannot hold",
                });
            }
            *loc_t = loc;
        }
        if slot != plan.slots.len() {
            return Err(LoadError::Plan {
                what: "the plan has more slots than the model has planned activations",
                slot: plan.slots.len(),
                tensor: usize::MAX,
            });
        }
        let mut memory = Memory {
            locations: synaptic_mem::block_span(2 * n_tensors.max(1) as u64) as usize,
            descriptors: synaptic_mem::DESC_SPAN,
            ..Memory::default()
        };

        // Per-operator tables, computed once.
        let mut tables = None;
        if table_words > 0 {
            let mut t = loader.persistent(&[table_words as u32], DType::Int32)?;
            let words = t
                .as_mut_slice::<i32>()
                .map_err(|_| LoadError::Unsupported {
                    what: "table tensor",
                })?;
            let mut off = 0;
            for i in 0..n_ops {
                let v = op_view(&g.model, &g.sg, i, n_tensors)?;
                let (_, n) = prepare(&g.model, &g.sg, &v, i, None)?;
                let (m, rest) = words[off..off + 2 * n].split_at_mut(n);
                prepare(&g.model, &g.sg, &v, i, Some((m, rest)))?;
                off += 2 * n;
            }
            memory.tables = synaptic_mem::block_span(4 * table_words as u64) as usize;
            memory.descriptors += synaptic_mem::DESC_SPAN;
            tables = Some(t);
        }

        // Graph I/O in the SHARED region.
        let mut io: [Option<Tensor<'a>>; MAX_IO] = Default::default();
        if placement == IoPlacement::Shared {
            for k in 0..n_inputs + n_outputs {
                let t = g.io_tensor[k];
                if g.io_tensor[..k].contains(&t) {
                    continue;
                }
                let info = tinfo(&g.model, &g.sg, t)?;
                let (shape, n, dtype) = core_request(&info).ok_or(LoadError::Unsupported {
                    what: "a graph input or output of a type the arena cannot hold",
                })?;
                io[k] = Some(loader.shared(&shape[..n], dtype)?);
                memory.descriptors += synaptic_mem::DESC_SPAN;
            }
        }

        // The plan last: its descriptor table ends the persistent region.
        let mid = loader.stats();
        let plan_handle = loader.load_plan(plan).map_err(LoadError::PlanLoad)?;
        let after = loader.stats();
        memory.plan_descriptors = after.persistent_used - mid.persistent_used;
        memory.descriptors += memory.plan_descriptors;
        memory.persistent = after.persistent_used - before.persistent_used;
        memory.planned = plan.region_size as usize;
        memory.shared = after.shared_used - before.shared_used;
        Ok(Interpreter {
            g,
            plan: plan_handle,
            tables,
            locs,
            io,
            placement,
            memory,
        })
    }

    /// The arena bytes this model took, by region.
    pub fn memory(&self) -> Memory {
        self.memory
    }

    /// Number of graph inputs.
    pub fn inputs(&self) -> usize {
        self.g.n_inputs
    }

    /// Number of graph outputs.
    pub fn outputs(&self) -> usize {
        self.g.n_outputs
    }

    /// Bytes of all graph inputs (`input` of [`Interpreter::invoke`]), concatenated.
    pub fn input_bytes(&self) -> usize {
        self.g.io_bytes(0, self.g.n_inputs)
    }

    /// Bytes of all graph outputs (`output` of [`Interpreter::invoke`]), concatenated.
    pub fn output_bytes(&self) -> usize {
        self.g
            .io_bytes(self.g.n_inputs, self.g.n_inputs + self.g.n_outputs)
    }

    /// With [`IoPlacement::Shared`]: graph input `k` in the SHARED region, to fill in place
    /// (by the CPU, a DMA or another core) before [`Interpreter::invoke_in_place`].
    pub fn input_mut(&mut self, k: usize) -> Option<&mut [u8]> {
        if k >= self.g.n_inputs {
            return None;
        }
        self.io[k].as_mut().map(|t| t.bytes_mut())
    }

    /// With [`IoPlacement::Shared`]: graph output `k` in the SHARED region, valid after an
    /// inference until the next one.
    pub fn output(&self, k: usize) -> Option<&[u8]> {
        if k >= self.g.n_outputs {
            return None;
        }
        let k = self.g.n_inputs + k;
        let t = self.g.io_tensor[k];
        // A tensor listed twice is allocated once, at its first position.
        let first = self.g.io_tensor[..=k].iter().position(|&x| x == t)?;
        self.io[first].as_ref().map(|t| t.bytes())
    }

    /// Runs one inference: copies `input` (every graph input's bytes, concatenated in input
    /// order) in, runs every operator, copies every graph output out to `output`
    /// (concatenated in output order).
    pub fn invoke(
        &mut self,
        runner: &mut Runner<'a>,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<(), RunError> {
        self.invoke_observed(runner, Some(input), Some(output), &mut |_, _, _| {})
    }

    /// Runs one inference on the inputs already in the SHARED region
    /// ([`Interpreter::input_mut`]); outputs stay there ([`Interpreter::output`]).
    pub fn invoke_in_place(&mut self, runner: &mut Runner<'a>) -> Result<(), RunError> {
        self.invoke_observed(runner, None, None, &mut |_, _, _| {})
    }

    /// [`Interpreter::invoke`] calling `observe(op, tensor, bytes)` after each operator with
    /// its output, read from the arena while it is live there (for tests and tracing).
    /// `input: None` uses the inputs in the SHARED region; `output: None` leaves the outputs
    /// where they are.
    pub fn invoke_observed(
        &mut self,
        runner: &mut Runner<'a>,
        input: Option<&[u8]>,
        output: Option<&mut [u8]>,
        observe: &mut dyn FnMut(usize, usize, &[u8]),
    ) -> Result<(), RunError> {
        if let Some(i) = input {
            let expected = self.input_bytes();
            if i.len() != expected {
                return Err(RunError::Io {
                    what: "input",
                    expected,
                    got: i.len(),
                });
            }
        }
        if let Some(o) = &output {
            let expected = self.output_bytes();
            if o.len() != expected {
                return Err(RunError::Io {
                    what: "output",
                    expected,
                    got: o.len(),
                });
            }
        }
        if self.placement == IoPlacement::Plan && input.is_none() {
            return Err(RunError::Io {
                what: "input (I/O in the plan needs the input bytes)",
                expected: self.input_bytes(),
                got: 0,
            });
        }
        let Interpreter {
            g,
            plan,
            tables,
            locs,
            io,
            ..
        } = self;
        let Graph {
            model,
            sg,
            n_ops,
            n_tensors,
            io_tensor,
            n_inputs,
            n_outputs,
        } = *g;
        let locs = locs.as_slice::<i16>().map_err(|_| RunError::Io {
            what: "location table",
            expected: 0,
            got: 0,
        })?;
        let words: &[i32] = match tables {
            Some(t) => t.as_slice::<i32>().unwrap_or(&[]),
            None => &[],
        };
        runner.planned(plan, |p| -> Result<(), RunError> {
            // Place every planned activation at its offset.
            for t in 0..n_tensors {
                let l = locs[t];
                if l >= 0 {
                    let info = tinfo(&model, &sg, t).map_err(load_to_run)?;
                    let (shape, n, dtype) = core_request(&info).ok_or(RunError::Io {
                        what: "activation",
                        expected: info.bytes,
                        got: 0,
                    })?;
                    p.alloc(l as usize, &shape[..n], dtype)?;
                }
            }
            // Graph inputs: into the SHARED region or their slots.
            if let Some(input) = input {
                let mut off = 0;
                for k in 0..n_inputs {
                    let t = io_tensor[k];
                    let n = tinfo(&model, &sg, t).map_err(load_to_run)?.bytes;
                    let src = &input[off..off + n];
                    off += n;
                    let l = locs[t];
                    if l >= 0 {
                        with_views(p, 0, &[l as usize], |v| {
                            v[0].bytes_mut().copy_from_slice(src)
                        })?;
                    } else if let Some(t) = io[k].as_mut() {
                        t.bytes_mut().copy_from_slice(src);
                    }
                }
            }
            let mut table_off = 0usize;
            for i in 0..n_ops {
                let v = op_view(&model, &sg, i, n_tensors).map_err(load_to_run)?;
                let (prep, tlen) = prepare(&model, &sg, &v, i, None).map_err(load_to_run)?;
                let m = words.get(table_off..table_off + tlen).unwrap_or(&[]);
                let s = words
                    .get(table_off + tlen..table_off + 2 * tlen)
                    .unwrap_or(&[]);
                table_off += 2 * tlen;

                // The distinct planned tensors: the output first, then the inputs.
                let mut slots = [0usize; MAX_OP_TENSORS];
                let mut n_slots = 0;
                let out_loc = locs[v.output];
                if out_loc >= 0 {
                    slots[0] = out_loc as usize;
                    n_slots = 1;
                }
                // Where each input comes from: a view index, a shared index, or the model.
                let mut role = [Role::Absent; MAX_OP_INPUTS];
                for k in 0..v.n_in {
                    let t = v.inputs[k];
                    if t < 0 {
                        continue;
                    }
                    let l = locs[t as usize];
                    role[k] = if l >= 0 {
                        let l = l as usize;
                        match slots[..n_slots].iter().position(|&x| x == l) {
                            Some(j) => Role::View(j),
                            None => {
                                slots[n_slots] = l;
                                n_slots += 1;
                                Role::View(n_slots - 1)
                            }
                        }
                    } else if l <= LOC_SHARED0 {
                        Role::Shared((LOC_SHARED0 - l) as usize)
                    } else {
                        Role::Model(t as usize)
                    };
                }
                let out_shared = (out_loc <= LOC_SHARED0).then(|| (LOC_SHARED0 - out_loc) as usize);
                // Split the shared I/O tensors: the output mutably, the rest shared.
                let mut shared_out: Option<&mut Tensor<'a>> = None;
                let mut shared_in: [Option<&Tensor<'a>>; MAX_IO] = [None; MAX_IO];
                for (k, t) in io.iter_mut().enumerate() {
                    if Some(k) == out_shared {
                        shared_out = t.as_mut();
                    } else {
                        shared_in[k] = t.as_ref();
                    }
                }
                let r = with_views(p, i as u16, &slots[..n_slots], |views| {
                    let (out_view, in_views) = if out_loc >= 0 {
                        let (o, rest) = views.split_at_mut(1);
                        (o.first_mut(), rest)
                    } else {
                        (None, views)
                    };
                    let mut ins = [In::ABSENT; MAX_OP_INPUTS];
                    for k in 0..v.n_in {
                        ins[k] = match role[k] {
                            Role::Absent => In::ABSENT,
                            Role::View(j) => {
                                let j = if out_loc >= 0 { j - 1 } else { j };
                                In::arena(&in_views[j])
                            }
                            Role::Shared(s) => shared_in[s].map_or(In::ABSENT, In::arena),
                            Role::Model(t) => In::model(
                                sg.tensor(t)
                                    .and_then(|tt| model.tensor_data(&tt))
                                    .unwrap_or(&[]),
                            ),
                        };
                    }
                    let ins = &ins[..v.n_in];
                    let mut run = |out: &mut Tensor<'_>| -> Result<(), RunError> {
                        execute(&prep, v.name, (m, s), ins, out)
                            .map_err(|error| RunError::Kernel { op: i, error })?;
                        observe(i, v.output, out.bytes());
                        Ok(())
                    };
                    match (out_view, shared_out) {
                        (Some(o), _) => run(o)?,
                        (None, Some(o)) => run(o)?,
                        (None, None) => {
                            return Err(RunError::Kernel {
                                op: i,
                                error: KernelError::unsupported(v.name, "output has no location"),
                            })
                        }
                    }
                    Ok(())
                })?;
                r?;
            }
            // Graph outputs: out of the SHARED region or their slots.
            if let Some(output) = output {
                let mut off = 0;
                for k in n_inputs..n_inputs + n_outputs {
                    let t = io_tensor[k];
                    let n = tinfo(&model, &sg, t).map_err(load_to_run)?.bytes;
                    let dst = &mut output[off..off + n];
                    off += n;
                    let l = locs[t];
                    let last = n_ops.saturating_sub(1) as u16;
                    if l >= 0 {
                        with_views(p, last, &[l as usize], |v| {
                            dst.copy_from_slice(v[0].bytes())
                        })?;
                    } else {
                        let first = io_tensor[..=k].iter().position(|&x| x == t).unwrap_or(k);
                        if let Some(t) = io[first].as_ref() {
                            dst.copy_from_slice(t.bytes());
                        }
                    }
                }
            }
            Ok(())
        })?
    }
}

#[derive(Clone, Copy)]
enum Role {
    Absent,
    View(usize),
    Shared(usize),
    Model(usize),
}

fn load_to_run(e: LoadError) -> RunError {
    match e {
        LoadError::Model(e) => RunError::Model(e),
        LoadError::Alloc(e) => RunError::Alloc(e),
        LoadError::Operator { op, error, .. } => RunError::Kernel { op, error },
        _ => RunError::Io {
            what: "model changed since load",
            expected: 0,
            got: 0,
        },
    }
}
