//! The model as the runtime reads it: the main subgraph and its I/O ([`Graph`], with the one
//! data-flow rule [`Graph::check_dataflow`]), one operator ([`OpView`]) and one tensor
//! ([`TInfo`], checked by [`tinfo`]: its size, its quantization). Only the loader comes here
//! (compiling or verifying a program, at load or on the host); an inference reads the program.

use synaptic_mem::DType;
use synaptic_tflite::{Model, SubGraph, TensorType};

use crate::error::{GraphFault, KernelError, LoadError, Operand, TensorFault, Unsupported};
use crate::limits::{MAX_DIMS, MAX_IO, MAX_OP_INPUTS, MAX_OP_OUTPUTS, MAX_STATE, MAX_TENSOR_SIZE};
use crate::math::QuantParams;

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

/// Tensor `t` (its table `tt`), its type and shape only: what [`tinfo`] reads first, checked
/// the same way (rank, dynamic dimensions, size), without its data or its quantization
/// (`data` empty, `quantized` false). For a tensor that is also read whole where it is used
/// (an operator's operand: its record reads it by [`tinfo`]), so no check is skipped.
pub(crate) fn tensor_shape<'m>(
    tt: synaptic_tflite::Tensor<'m>,
    t: usize,
) -> Result<TInfo<'m>, LoadError> {
    let fault = |fault| LoadError::Tensor {
        op: None,
        name: "",
        tensor: t,
        fault,
    };
    let ty = tt.tensor_type()?;
    let shape = tt.shape()?;
    if shape.len() > MAX_DIMS {
        return Err(fault(TensorFault::Rank));
    }
    // One pass over the dimensions' bytes (in bounds: checked when the vector was read): a
    // negative one refused first, then an extent past the limit ([`crate::limits::extent`]).
    let mut dims = [1usize; MAX_DIMS];
    // `ext` stays at most `MAX_TENSOR_SIZE + 1` (2^31): past the limit (a 32-bit product
    // that overflows or exceeds it) it is 2^31 from then on, and every later dimension is
    // still checked for a negative one.
    const PAST: u32 = MAX_TENSOR_SIZE as u32 + 1;
    let (mut ext, mut elems) = (1u32, 1usize);
    for (d, b) in dims.iter_mut().zip(shape.bytes().chunks_exact(4)) {
        let v = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        if v < 0 {
            return Err(fault(TensorFault::DynamicDimension));
        }
        *d = v as usize;
        ext = match ext.checked_mul((v as u32).max(1)) {
            Some(x) if x < PAST => x,
            _ => PAST,
        };
        elems = elems.wrapping_mul(*d);
    }
    if ext == PAST {
        return Err(fault(TensorFault::TooLarge));
    }
    // (At most `ext`: no wrap above.)
    let empty = elems == 0;
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
    Ok(TInfo {
        index: t,
        ty,
        dims,
        rank: shape.len(),
        q: QuantParams::new(0.0, 0),
        quantized: false,
        scale_count: 0,
        quantized_dimension: 0,
        empty,
        data: &[],
        bytes,
    })
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
    tinfo_known(model, sg, t, None)
}

/// [`tinfo`] of a tensor whose constancy is `known` ([`Graph::is_constant`]: `Some(false)`,
/// its buffer was read without a fault and holds nothing, so it is not read again).
pub(crate) fn tinfo_known<'m>(
    model: &Model<'m>,
    sg: &SubGraph<'m>,
    t: usize,
    known: Option<bool>,
) -> Result<TInfo<'m>, LoadError> {
    let tt = sg.tensor(t)?;
    // Completed where it was returned (a `TInfo` is 64 bytes: not moved out and back).
    let mut r = tensor_shape(tt, t);
    if let Ok(info) = &mut r {
        data_and_quantization(model, tt, info, known)?;
    }
    r
}

/// The rest of [`tinfo`] after [`tensor_shape`]: the tensor's data and its quantization.
fn data_and_quantization<'m>(
    model: &Model<'m>,
    tt: synaptic_tflite::Tensor<'m>,
    info: &mut TInfo<'m>,
    known: Option<bool>,
) -> Result<(), LoadError> {
    if known != Some(false) {
        info.data = model.tensor_data(&tt)?;
    }
    let t = info.index;
    let fault = |fault| LoadError::Tensor {
        op: None,
        name: "",
        tensor: t,
        fault,
    };
    let ty = info.ty;
    let Some(q) = tt.quantization()? else {
        return Ok(());
    };
    let (scales, zps) = (q.scales()?, q.zero_points()?);
    if scales.is_empty() || zps.is_empty() {
        // TFLM reads no quantization then (its kernels that need one refuse the tensor).
        return Ok(());
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
        if let Some(value) = scales.iter().find(|&v| !positive_finite(v)) {
            return Err(fault(TensorFault::Scale { value }));
        }
        let (lo, hi) = (i64::from(min), i64::from(max));
        if let Some(value) = zps.iter().find(|v| *v < lo || *v > hi) {
            return Err(fault(TensorFault::ZeroPoint { value, min, max }));
        }
    }
    // Other types: the quantization is read by no kernel (int32 biases, floats); a zero point
    // that does not fit `int32` reads as 0 there.
    info.q = QuantParams::new(
        scales.get(0).unwrap_or(0.0),
        i32::try_from(zp0).unwrap_or(0),
    );
    Ok(())
}

/// `v.is_finite() && v > 0.0`, from its bits: `+0.0 < v < +∞` is bits `1 ..= 0x7F7F_FFFF` (one
/// compare a scale at load, no float compare).
fn positive_finite(v: f32) -> bool {
    v.to_bits().wrapping_sub(1) < 0x7F7F_FFFF
}

/// A set of tensor indices `base .. base + 32·bits.len()`, as bits on the stack: the loader's
/// passes over the graph ([`Graph::check_dataflow`], the slot table) take the tensors a window
/// at a time, so they need no memory proportional to the model and stay linear in its size
/// (times the number of windows: at most 8 for the 32,767 tensors a model may have with
/// [`WINDOW_TENSORS`]; one for a graph of at most [`KNOWN_TENSORS`] tensors, whose window is
/// 16 bytes, not 512 cleared for nothing).
pub(crate) struct TensorWindow<'b> {
    base: usize,
    bits: &'b mut [u32],
}

/// Tensors per [`TensorWindow`] of a large graph (512 bytes of stack).
pub(crate) const WINDOW_TENSORS: usize = 4096;

/// Tests: the loader's passes take their tensors a [`WINDOW_TENSORS`] window at a time in
/// every graph (the path of a graph over [`KNOWN_TENSORS`] tensors, which no shared model
/// has), to hold its results equal to the small graphs' path.
#[cfg(test)]
pub(crate) static WINDOWS_ONLY: core::sync::atomic::AtomicBool =
    core::sync::atomic::AtomicBool::new(false);

/// Whether the loader takes large windows in every graph ([`WINDOWS_ONLY`]; never outside
/// tests).
pub(crate) fn large_windows() -> bool {
    #[cfg(test)]
    return WINDOWS_ONLY.load(core::sync::atomic::Ordering::Relaxed);
    #[cfg(not(test))]
    false
}

impl<'b> TensorWindow<'b> {
    /// The empty window of tensors from `base` over `bits` (cleared).
    pub(crate) fn new(base: usize, bits: &'b mut [u32]) -> Self {
        bits.fill(0);
        TensorWindow { base, bits }
    }

    /// Empties the window and moves it to `base`.
    pub(crate) fn reset(&mut self, base: usize) {
        self.bits.fill(0);
        self.base = base;
    }

    /// Tensors the window spans.
    pub(crate) fn span(&self) -> usize {
        32 * self.bits.len()
    }

    /// Whether `t` lies in the window.
    pub(crate) fn covers(&self, t: usize) -> bool {
        t.checked_sub(self.base).is_some_and(|i| i < self.span())
    }

    /// Whether `t` is in the set (false outside the window).
    pub(crate) fn has(&self, t: usize) -> bool {
        match t.checked_sub(self.base) {
            Some(i) => self
                .bits
                .get(i / 32)
                .is_some_and(|w| w & (1 << (i % 32)) != 0),
            None => false,
        }
    }

    /// Adds `t` (nothing outside the window).
    pub(crate) fn insert(&mut self, t: usize) {
        if let Some(w) = t.checked_sub(self.base).and_then(|i| {
            let b = 1 << (i % 32);
            self.bits.get_mut(i / 32).map(|w| (w, b))
        }) {
            *w.0 |= w.1;
        }
    }
}

/// The core allocation of an activation of `t` ([`core_request_of`]), if it holds exactly
/// its bytes.
/// A core allocation: shape (1–4 dimensions, the rest 1), dimensions, type.
pub(crate) type CoreRequest = ([u32; 4], usize, DType);

pub(crate) fn core_request(t: &TInfo<'_>) -> Option<CoreRequest> {
    let (out, n, dtype) = core_request_of(t.shape(), t.ty)?;
    let (_, bytes) = synaptic_mem::shape_bytes(&out[..n], dtype).ok()?;
    (bytes as usize == t.bytes).then_some((out, n, dtype))
}

/// The core allocation (shape of 1–4 dims, dtype) of an activation of shape `s` and type `ty`,
/// as the program's slot table holds it: shapes of more than 4 dimensions fold into the
/// leading one, a scalar is `[1]`; a 64-bit type (the core has none) is `INT32` words, two per
/// element (its last dimension doubled), and its kernels read and write it as bytes. `None`:
/// a type the arena cannot hold, or a dimension over 32 bits.
///
/// ```
/// use synaptic_mem::DType;
/// use synaptic_tflite::TensorType;
/// let r = synaptic_run::program::core_request_of(&[2, 3, 4, 5, 6], TensorType::Int8);
/// assert_eq!(r, Some(([24, 5, 6, 1], 4, DType::Int8))); // 720 bytes either way
/// let r = synaptic_run::program::core_request_of(&[40], TensorType::UInt64);
/// assert_eq!(r, Some(([80, 1, 1, 1], 1, DType::Int32)));
/// ```
pub fn core_request_of(s: &[usize], ty: TensorType) -> Option<([u32; 4], usize, DType)> {
    let wide = matches!(
        ty,
        TensorType::Int64 | TensorType::UInt64 | TensorType::Float64
    );
    let dtype = match ty {
        TensorType::Int64 | TensorType::UInt64 | TensorType::Float64 => DType::Int32,
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
    if s.is_empty() {
        out[0] = if wide { 2 } else { 1 };
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
    if wide {
        out[n - 1] = out[n - 1].checked_mul(2)?;
    }
    Some((out, n, dtype))
}

/// One operator as read from the model.
pub(crate) struct OpView<'m> {
    pub(crate) code: i32,
    pub(crate) name: &'static str,
    /// Tensor indices (`-1`: absent), each below `2^15` (a model has at most 32767
    /// tensors: [`Graph::open`]).
    pub(crate) inputs: [i16; MAX_OP_INPUTS],
    pub(crate) n_in: usize,
    /// The first output (the one most operators have).
    pub(crate) output: usize,
    /// Every output, `outputs[0] == output` ([`MAX_OP_OUTPUTS`] at most).
    pub(crate) outputs: [usize; MAX_OP_OUTPUTS],
    pub(crate) n_out: usize,
    /// The operator's table (its options).
    pub(crate) op: synaptic_tflite::Operator<'m>,
}

/// The builtin code and name of operator `index` (before anything else is read of it: a model
/// is refused naming its first operator the runtime does not implement).
pub(crate) fn op_code(
    model: &Model<'_>,
    sg: &SubGraph<'_>,
    index: usize,
) -> Result<(i32, &'static str), LoadError> {
    let op = sg.operator(index)?;
    let c = model.operator_code(op.opcode_index()? as usize)?;
    Ok(crate::ops::identify(c.builtin, c.custom))
}

/// Operator `index` as read from the model: its input and output indices checked in range, one
/// or two distinct outputs none of which is also an input.
pub(crate) fn op_view<'m>(
    model: &Model<'m>,
    sg: &SubGraph<'m>,
    index: usize,
    n_tensors: usize,
) -> Result<OpView<'m>, LoadError> {
    let op = sg.operator(index)?;
    let c = model.operator_code(op.opcode_index()? as usize)?;
    let (code, name) = crate::ops::identify(c.builtin, c.custom);
    let err = |reason| LoadError::Operator {
        op: index,
        name,
        error: KernelError::unsupported(name, reason),
    };
    let ins = op.inputs()?;
    if ins.len() > MAX_OP_INPUTS {
        return Err(err(Unsupported::TooManyInputs));
    }
    let mut inputs = [-1i16; MAX_OP_INPUTS];
    for (k, v) in ins.iter().enumerate() {
        match i16::try_from(v) {
            Ok(t) if t >= -1 && (t < 0 || (t as usize) < n_tensors) => inputs[k] = t,
            _ => return Err(err(Unsupported::TensorIndex(Operand::Input(k as u8)))),
        }
    }
    let outs = op.outputs()?;
    if outs.is_empty() || outs.len() > MAX_OP_OUTPUTS {
        return Err(err(Unsupported::OutputCount));
    }
    let mut outputs = [0usize; MAX_OP_OUTPUTS];
    for (k, v) in outs.iter().enumerate() {
        let o = match v {
            v if v >= 0 && (v as usize) < n_tensors => v as usize,
            _ => return Err(err(Unsupported::TensorIndex(Operand::Output))),
        };
        if inputs[..ins.len()]
            .iter()
            .any(|&t| t as isize == o as isize)
            || outputs[..k].contains(&o)
        {
            return Err(err(Unsupported::OutputIsInput));
        }
        outputs[k] = o;
    }
    Ok(OpView {
        code,
        name,
        inputs,
        n_in: ins.len(),
        output: outputs[0],
        outputs,
        n_out: outs.len(),
        op,
    })
}

/// The model's main subgraph and its I/O, as the loader reads it (a few handles).
#[derive(Clone, Copy)]
pub(crate) struct Graph<'m> {
    pub(crate) model: Model<'m>,
    pub(crate) sg: SubGraph<'m>,
    pub(crate) n_ops: usize,
    pub(crate) n_tensors: usize,
    /// Tensor index of each graph input, then output.
    pub(crate) io_tensor: [u16; MAX_IO],
    pub(crate) n_inputs: usize,
    pub(crate) n_outputs: usize,
    /// The variable tensors (state across invocations), in tensor order: state `k` is
    /// `states[k]`; then the kernels' private states ([`PRIVATE_STATE`], of the operator
    /// `state_owner[k]`).
    pub(crate) states: [u16; MAX_STATE],
    pub(crate) n_states: usize,
    /// The operator whose kernel keeps state `k` in its own output ([`crate::ops::state_output`]),
    /// `u16::MAX` for a variable tensor.
    pub(crate) state_owner: [u16; MAX_STATE],
    /// Whether each of the first [`KNOWN_TENSORS`] tensors holds constant data, as
    /// [`Graph::open`] found it on its one pass over the tensors ([`Graph::is_constant`]).
    pub(crate) constants: ConstantBits,
}

/// Tensors whose constancy [`Graph::open`] records (two bits each: 32 bytes of the graph);
/// a tensor past them is read again where it is asked about.
pub(crate) const KNOWN_TENSORS: usize = 128;

/// The tensor word of a kernel's private state among a graph's states ([`Graph::states`]):
/// no tensor (every tensor index is below 32768).
pub(crate) const PRIVATE_STATE: u16 = u16::MAX;

/// Bit `t` of `known`: tensor `t` was read without a fault, and bit `t` of `constant` says
/// whether it holds data. A tensor whose read failed stays unknown, so that the fault is
/// reported where it was before (by the read that needs it), not by the open.
#[derive(Clone, Copy, Default)]
pub(crate) struct ConstantBits {
    known: [u32; KNOWN_TENSORS / 32],
    constant: [u32; KNOWN_TENSORS / 32],
}

impl ConstantBits {
    /// Whether tensor `t` holds data, if known.
    pub(crate) fn get(&self, t: usize) -> Option<bool> {
        let (w, b) = (t / 32, 1u32 << (t % 32));
        let known = self.known.get(w)? & b != 0;
        known.then(|| self.constant[w] & b != 0)
    }

    fn set(&mut self, t: usize, constant: bool) {
        let (w, b) = (t / 32, 1u32 << (t % 32));
        if let (Some(k), Some(c)) = (self.known.get_mut(w), self.constant.get_mut(w)) {
            *k |= b;
            if constant {
                *c |= b;
            }
        }
    }
}

/// Whether tensor `tt` holds constant data: a buffer with bytes (buffer 0 has none).
fn holds_data(model: &Model<'_>, tt: &synaptic_tflite::Tensor<'_>) -> Result<bool, LoadError> {
    Ok(!model.tensor_data(tt)?.is_empty())
}

/// `sum + bytes` of graph I/O tensor `t`, at most [`MAX_TENSOR_SIZE`] (the header's sums of
/// the inputs' and the outputs' bytes), else the tensor's [`TensorFault::TooLarge`].
#[inline(always)]
pub(crate) fn add_io_bytes(sum: usize, bytes: usize, t: usize) -> Result<usize, LoadError> {
    sum.checked_add(bytes)
        .filter(|&b| b <= MAX_TENSOR_SIZE)
        .ok_or(LoadError::Tensor {
            op: None,
            name: "",
            tensor: t,
            fault: TensorFault::TooLarge,
        })
}

impl<'m> Graph<'m> {
    /// Opens the model's main subgraph: refuses models with control flow, too many tensors,
    /// operators or graph I/O, or I/O indices out of range.
    pub(crate) fn open(model: &'m [u8]) -> Result<Self, LoadError> {
        Self::open_for(model, crate::ops::Kinds::ALL)
    }

    /// [`Graph::open`] for an interpreter that links the kernels `kinds`
    /// ([`crate::ops::OpSet::KINDS`]): the operators are looked through for a kernel's own
    /// state output only if one of `kinds` keeps one ([`crate::ops::OWN_STATE_KINDS`]; an
    /// operator of another kernel is refused by its record as not linked).
    pub(crate) fn open_for(model: &'m [u8], kinds: crate::ops::Kinds) -> Result<Self, LoadError> {
        // Each part read where it is used, checked there (no walk over the whole model first).
        let m = Model::open(model)?;
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
        let mut io_tensor = [0u16; MAX_IO];
        for (k, t) in ins.iter().chain(outs.iter()).enumerate() {
            if t < 0 || t as usize >= n_tensors {
                return Err(LoadError::Unsupported {
                    what: "a graph input or output index out of range",
                });
            }
            // Below 32768 tensors (checked above).
            io_tensor[k] = t as u16;
        }
        // The variable tensors, in tensor order (one pass; the loader allocates each).
        let mut states = [0u16; MAX_STATE];
        let mut state_owner = [u16::MAX; MAX_STATE];
        let mut n_states = 0;
        let mut constants = ConstantBits::default();
        for t in 0..n_tensors {
            let tt = sg.tensor(t)?;
            if t < KNOWN_TENSORS {
                if let Ok(c) = holds_data(&m, &tt) {
                    constants.set(t, c);
                }
            }
            if tt.is_variable()? {
                if n_states == MAX_STATE {
                    return Err(LoadError::Unsupported {
                        what: "more than 8 variable tensors",
                    });
                }
                // Below 32768 tensors (checked above).
                states[n_states] = t as u16;
                n_states += 1;
            }
        }
        // The outputs that hold a kernel's own state (`ops::state_output`: the spectral
        // subtraction's noise estimate) are state too, each of one operator, no variable.
        // (Only if an operator code of the model is such a kernel's: most models have none, and
        // their operators are not read for it. A code that does not read is looked for among
        // the operators all the same, as each operator reads it.)
        let kernel_state = kinds.intersects(crate::ops::OWN_STATE_KINDS)
            && (0..m.operator_codes_len()?).any(|c| {
                m.operator_code(c).map_or(true, |c| {
                    crate::ops::state_output(crate::ops::identify(c.builtin, c.custom).0).is_some()
                })
            });
        let kernel_ops = if kernel_state { n_ops } else { 0 };
        for i in 0..kernel_ops {
            // Below 32768 tensors (an index of one, checked above).
            let Some(t) = crate::ops::state_output_in(&m, &sg, i).map(|t| t as u16) else {
                continue;
            };
            if states[..n_states].contains(&t) {
                return Err(LoadError::Unsupported {
                    what: "a kernel's state output that is a variable tensor or another's state",
                });
            }
            if n_states == MAX_STATE {
                return Err(LoadError::Unsupported {
                    what: "more than 8 variable tensors",
                });
            }
            // In tensor order (an insertion: a handful of entries; no memmove linked).
            let mut at = n_states;
            while at > 0 && states[at - 1] > t {
                states[at] = states[at - 1];
                state_owner[at] = state_owner[at - 1];
                at -= 1;
            }
            states[at] = t;
            // Below 65535 operators (checked above).
            state_owner[at] = i as u16;
            n_states += 1;
        }
        // The kernels' private states (`ops::private_state`: the signal library's delay
        // lines, …), after the tensors', in operator order: no tensor ([`PRIVATE_STATE`]).
        let private = kinds.intersects(crate::ops::PRIVATE_STATE_KINDS)
            && (0..m.operator_codes_len()?).any(|c| {
                m.operator_code(c).map_or(true, |c| {
                    crate::ops::private_state(crate::ops::identify(c.builtin, c.custom).0)
                })
            });
        for i in 0..if private { n_ops } else { 0 } {
            if !op_code(&m, &sg, i).is_ok_and(|(c, _)| crate::ops::private_state(c)) {
                continue;
            }
            if n_states == MAX_STATE {
                return Err(LoadError::Unsupported {
                    what: "more than 8 variable tensors",
                });
            }
            states[n_states] = PRIVATE_STATE;
            // Below 65535 operators (checked above).
            state_owner[n_states] = i as u16;
            n_states += 1;
        }
        Ok(Graph {
            model: m,
            sg,
            n_ops,
            n_tensors,
            io_tensor,
            n_inputs: ins.len(),
            n_outputs: outs.len(),
            states,
            n_states,
            state_owner,
            constants,
        })
    }

    /// The output of operator `op` that holds its kernel's own state, if it has one
    /// ([`crate::ops::state_output_in`], found once by [`Graph::open`]).
    pub(crate) fn own_state(&self, op: usize) -> Option<usize> {
        let k = (0..self.n_states)
            .find(|&k| usize::from(self.state_owner[k]) == op && self.states[k] != PRIVATE_STATE)?;
        Some(usize::from(self.states[k]))
    }

    /// The state of operator `op`'s kernel's private state ([`crate::ops::private_state`]),
    /// if it keeps one: its position among the states.
    pub(crate) fn private_state(&self, op: usize) -> Option<usize> {
        (0..self.n_states)
            .find(|&k| self.states[k] == PRIVATE_STATE && usize::from(self.state_owner[k]) == op)
    }

    /// Position of tensor `t` among the variable tensors ([`Graph::states`]).
    pub(crate) fn state_index(&self, t: usize) -> Option<usize> {
        self.states[..self.n_states]
            .iter()
            .position(|&x| usize::from(x) == t)
    }

    /// Position of tensor `t` among the graph inputs then outputs (its first).
    pub(crate) fn io_index(&self, t: usize) -> Option<usize> {
        self.io_tensor[..self.n_inputs + self.n_outputs]
            .iter()
            .position(|&x| usize::from(x) == t)
    }

    /// Makes `used` the tensors of window `base` that an operator reads or writes (in place:
    /// its bits are the caller's).
    pub(crate) fn used_window(
        &self,
        used: &mut TensorWindow<'_>,
        base: usize,
    ) -> Result<(), LoadError> {
        used.reset(base);
        for i in 0..self.n_ops {
            let op = self.sg.operator(i)?;
            for t in op.inputs()?.iter().chain(op.outputs()?.iter()) {
                if let Ok(t) = usize::try_from(t) {
                    used.insert(t);
                }
            }
        }
        Ok(())
    }

    /// Whether tensor `t` holds constant data (a buffer): as [`Graph::open`] found it, or
    /// read again (a tensor past [`KNOWN_TENSORS`], or one whose read failed: the same fault
    /// again, here).
    pub(crate) fn is_constant(&self, t: usize) -> Result<bool, LoadError> {
        match self.constants.get(t) {
            Some(c) => Ok(c),
            None => holds_data(&self.model, &self.sg.tensor(t)?),
        }
    }

    /// The one data-flow rule of a graph the runtime runs (every operator's indices already
    /// checked in range by [`op_view`]): every tensor an operator reads is a constant, a graph
    /// input, a variable tensor (state, set at load) or the output of an earlier operator; no
    /// tensor is written twice (by two
    /// operators, or by an operator while being a graph input); every graph output is written
    /// (by an operator, or is a graph input) and no graph input or output is a constant. So
    /// no inference reads a byte that it did not write or copy in: its outputs depend on its
    /// inputs alone, never on what the arena held before. O(operator inputs + outputs) per
    /// [`TensorWindow`] of tensors. Not inlined: its window is on the stack only while it runs
    /// (not under every operator record of its caller).
    ///
    /// Returns the tensors below [`KNOWN_TENSORS`] that are written (variable tensors, graph
    /// inputs, operator outputs but a kernel's own state): with the graph I/O and less the
    /// constants and variable tensors, the planned activations (what an operator reads is
    /// written before or constant or state, so these are every tensor an operator uses).
    #[inline(never)]
    pub(crate) fn check_dataflow(&self) -> Result<[u32; KNOWN_TENSORS / 32], LoadError> {
        // One window of the tensors a small graph has (16 bytes), else windows of 512 bytes
        // (cleared, and on the stack, only then).
        if self.n_tensors <= KNOWN_TENSORS && !large_windows() {
            self.dataflow_in(&mut [0u32; KNOWN_TENSORS / 32])
        } else {
            self.dataflow_windowed()
        }
    }

    /// [`Graph::check_dataflow`] of a larger graph, windows of [`WINDOW_TENSORS`] tensors.
    #[inline(never)]
    fn dataflow_windowed(&self) -> Result<[u32; KNOWN_TENSORS / 32], LoadError> {
        self.dataflow_in(&mut [0u32; WINDOW_TENSORS / 32])
    }

    /// [`Graph::check_dataflow`] a window of `bits` at a time (one copy for both sizes).
    #[inline(never)]
    fn dataflow_in(&self, bits: &mut [u32]) -> Result<[u32; KNOWN_TENSORS / 32], LoadError> {
        let graph =
            |op: Option<usize>, tensor: usize, fault| LoadError::Graph { op, tensor, fault };
        let mut first = [0u32; KNOWN_TENSORS / 32];
        let mut base = 0;
        while base < self.n_tensors {
            let mut written = TensorWindow::new(base, &mut *bits);
            // A variable tensor holds its state from the load on (and no operator output
            // may be one: that is a second write).
            for t in self.states[..self.n_states].iter().map(|&t| usize::from(t)) {
                if written.covers(t) {
                    written.insert(t);
                }
            }
            for t in self.io_tensor[..self.n_inputs]
                .iter()
                .map(|&t| usize::from(t))
            {
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
                let own = self.own_state(i);
                for t in op.outputs()?.iter() {
                    let Ok(t) = usize::try_from(t) else { continue };
                    // A kernel's own state output holds its state from the load on.
                    if own == Some(t) {
                        continue;
                    }
                    if written.has(t) {
                        return Err(graph(Some(i), t, GraphFault::WrittenTwice));
                    }
                    written.insert(t);
                }
            }
            let outputs = &self.io_tensor[self.n_inputs..self.n_inputs + self.n_outputs];
            for t in outputs.iter().map(|&t| usize::from(t)) {
                if written.covers(t) {
                    if self.is_constant(t)? {
                        return Err(graph(None, t, GraphFault::ConstantIo));
                    }
                    if !written.has(t) {
                        return Err(graph(None, t, GraphFault::OutputNotWritten));
                    }
                }
            }
            if base == 0 {
                first.copy_from_slice(&written.bits[..KNOWN_TENSORS / 32]);
            }
            base += written.span();
        }
        Ok(first)
    }

    /// Bytes of graph I/O tensors `from..to` (inputs then outputs), concatenated: at most
    /// [`MAX_TENSOR_SIZE`] in all.
    pub(crate) fn io_bytes(&self, from: usize, to: usize) -> Result<usize, LoadError> {
        self.io_infos(from, to, true, |_, _| ())
    }

    /// [`Graph::io_bytes`], giving `each(k, info)` I/O tensor `k` on the way (one read of
    /// each): read whole ([`tinfo`]) if `whole`, else its type and shape only
    /// ([`tensor_shape`]: no data, no quantization; for a tensor read whole where it is used).
    /// Not inlined: the tensor read is not in its caller's frame.
    #[inline(never)]
    pub(crate) fn io_infos(
        &self,
        from: usize,
        to: usize,
        whole: bool,
        mut each: impl FnMut(usize, &TInfo<'m>),
    ) -> Result<usize, LoadError> {
        let mut sum = 0usize;
        for k in from..to.min(self.n_inputs + self.n_outputs) {
            let t = usize::from(self.io_tensor[k]);
            let info = if whole {
                tinfo_known(&self.model, &self.sg, t, self.constants.get(t))?
            } else {
                tensor_shape(self.sg.tensor(t)?, t)?
            };
            sum = add_io_bytes(sum, info.bytes, t)?;
            each(k, &info);
        }
        Ok(sum)
    }
}

#[cfg(test)]
mod tests {
    use super::positive_finite;

    #[test]
    fn positive_finite_is_the_float_test() {
        let special = [
            0.0f32,
            -0.0,
            f32::MIN_POSITIVE,
            f32::from_bits(1),
            -f32::from_bits(1),
            f32::MAX,
            -f32::MAX,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            f32::from_bits(0x7F80_0001),
            f32::from_bits(0xFFFF_FFFF),
            1.0,
            -1.0,
        ];
        let mut x = 0x2545_F491u32;
        let random = (0..100_000).map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            f32::from_bits(x)
        });
        for v in special.into_iter().chain(random) {
            assert_eq!(
                positive_finite(v),
                v.is_finite() && v > 0.0,
                "{:#x}",
                v.to_bits()
            );
        }
    }
}
