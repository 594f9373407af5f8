//! The interpreter: a `.tflite` model run on a synaptic-mem arena, every buffer accounted for.
//!
//! ## Where each byte lives
//!
//! | data | where | when |
//! |---|---|---|
//! | weights, biases, constant operands | the model bytes (flash), read in place | never copied |
//! | per-operator data: prepared parameters, tensor locations (plan slot, shared I/O, model constant), requantization multipliers and shifts | the compiled program ([`crate::program`]): in flash beside the model ([`Interpreter::with_program`], verified at load) or one PERSISTENT tensor ([`Interpreter::new`], compiled at load) | prepared once |
//! | activations | the plan's EPHEMERAL region, at the planned offsets ([`Runner::planned`]) | per inference |
//! | graph input/output | the SHARED region ([`IoPlacement::Shared`]) or plan slots ([`IoPlacement::Plan`]) | allocated at load / per inference |
//! | kernel temporaries | the scratch pool ([`synaptic_mem::Inference::scratch`]) | none of the 17 kernels needs one |
//!
//! The interpreter object itself (outside the arena, like TFLM's `MicroInterpreter`) holds a
//! handful of handles and no per-operator state. An inference reads the program, never the
//! flatbuffer's metadata: each operator's record gives its kernel, its parameters (decoded from
//! the record's words in the kernel's arm), where its inputs and output are and its table. Both
//! constructors run the same inference code.
//!
//! [`Memory`] maps the figures: `tables` is the program's PERSISTENT tensor (0 with a program in
//! flash), `locations` is 0 (the locations are part of the program), `program_bytes` the
//! program's size wherever it lives and `program_flash` the part outside the arena.
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
//! Loading compiles (or verifies) the program, which validates the model in one pass (the
//! crate docs' "Hostile models"): the data flow ([`LoadError::Graph`]: no operator reads a
//! tensor nothing wrote before it, so no output depends on leftover arena bytes), every tensor
//! an operator uses ([`LoadError::Tensor`]: sizes, quantization), and every operator, prepared
//! once: an unsupported operator, type, option or shape is a [`LoadError::Operator`] naming the
//! operator index and what is missing; a program that is not this model's is a
//! [`LoadError::Program`]. A model that loaded runs: its operators do not fail at invoke.

// Loops index several parallel fixed-size arrays (slots, view indices) by one counter.
#![allow(clippy::needless_range_loop)]

use core::fmt;

use synaptic_mem::plan::{OverlapDirection, OverlapPair, OverlapSpan};
use synaptic_mem::{
    AllocError, DType, Loader, Plan, PlanHandle, PlanLoadError, PlannedInference, Runner, Tensor,
};

use crate::contract::{Contract, Direction};
use crate::error::KernelError;
use crate::kernels::overlapped::{self, InPlace};
use crate::kernels::{
    activations, conv, elementwise, fully_connected, layout, pooling, quantize, reduce, LeI32,
};
use crate::math::QuantParams;
use crate::program::{
    self,
    codec::Words,
    prepare::{core_request, tinfo, Graph},
    Loc, OpRecord, Program,
};

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

/// The plan an [`Interpreter`] runs: a [`Plan`] and the output/input overlaps it declares
/// ([`OverlapPair`], issue 12; empty for a plain plan). `synaptic-plan` makes both
/// (`MemoryPlan::core_plan`, `MemoryPlan::overlaps`), `synmem emit` writes them (`PLAN`,
/// `OVERLAPS`). A plain [`Plan`] converts into one with no overlaps, so the constructors take
/// either:
///
/// ```
/// use synaptic_mem::plan::{OverlapDirection, OverlapPair, Plan, PlanSlot};
/// use synaptic_run::interpreter::RunPlan;
/// const SLOTS: &[PlanSlot] = &[
///     PlanSlot { offset: 0, size: 32, first_op: 0, last_op: 1 },
///     PlanSlot { offset: 16, size: 64, first_op: 1, last_op: 2 },
/// ];
/// const PAIRS: &[OverlapPair] = &[OverlapPair {
///     op: 1, input: 0, output: 1, direction: OverlapDirection::Backward, bound: 7,
/// }];
/// let plan = Plan { region_size: 80, slots: SLOTS };
/// assert!(RunPlan::from(plan).overlaps.is_empty());
/// let overlapped = RunPlan::overlapped(plan, PAIRS);
/// assert_eq!(overlapped.overlaps.len(), 1);
/// ```
///
/// At load every declared pair is checked against the runtime's **own** access contract of
/// its operator ([`crate::contract`], derived from the compiled program's parameters, never
/// from the pair's `bound`): the pair must be the operator's output slot and one input slot it
/// reads once, its kernel must have an overlapped entry point ([`crate::kernels::overlapped`])
/// for that input in the declared direction, the declared bound must claim no more than the
/// contract's and the plan's actual delta must be safe. Anything else is a
/// [`LoadError::Plan`]. Pairs are listed in operator order, at most one per operator (what
/// `synaptic-plan` declares).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunPlan<'p> {
    /// Slots and region.
    pub plan: Plan<'p>,
    /// The declared output/input overlaps (empty: a plain plan).
    pub overlaps: &'p [OverlapPair],
}

impl<'p> RunPlan<'p> {
    /// `plan` with its declared `overlaps`.
    pub const fn overlapped(plan: Plan<'p>, overlaps: &'p [OverlapPair]) -> Self {
        RunPlan { plan, overlaps }
    }
}

impl<'p> From<Plan<'p>> for RunPlan<'p> {
    fn from(plan: Plan<'p>) -> Self {
        RunPlan {
            plan,
            overlaps: &[],
        }
    }
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
    /// A compiled program ([`Interpreter::with_program`], [`crate::program::verify`]) is not
    /// the one this model compiles to.
    Program {
        /// What differs (a header field, or part of an operator's record).
        what: &'static str,
        /// The operator whose record differs (`usize::MAX`: none).
        op: usize,
        /// Its name, as TFLite names it (empty: none).
        name: &'static str,
        /// Index of the first word that differs.
        word: usize,
    },
    /// The buffer given to [`crate::program::compile`] is too small.
    ProgramBuffer {
        /// Words the program needs.
        needed: usize,
        /// Words given.
        got: usize,
    },
    /// A tensor holds a value the runtime refuses: one TFLM's kernels would compute
    /// nonsense, overflow or undefined behaviour from (a zero point outside its type, a scale
    /// that is not finite and positive, a size that overflows).
    Tensor {
        /// The operator that uses it (execution order); `None`: the graph's own I/O, or a
        /// tensor the loader reads before any operator.
        op: Option<usize>,
        /// The operator, as TFLite names it (empty: none).
        name: &'static str,
        /// The tensor.
        tensor: usize,
        /// What is wrong with it.
        fault: TensorFault,
    },
    /// The graph's data flow is not one an inference can run deterministically: an operator
    /// reads a tensor nothing wrote before it, a graph output nothing writes, a tensor
    /// written twice.
    Graph {
        /// The operator concerned (`None`: the graph's own inputs or outputs).
        op: Option<usize>,
        /// The tensor concerned.
        tensor: usize,
        /// What is wrong.
        fault: GraphFault,
    },
}

/// What is wrong with one tensor of a model ([`LoadError::Tensor`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TensorFault {
    /// A zero point outside the range of the tensor's type (the kernels negate it and clamp
    /// with it in `int32`).
    ZeroPoint {
        /// The value in the model.
        value: i64,
        /// The type's smallest value.
        min: i32,
        /// The type's largest value.
        max: i32,
    },
    /// A scale that is not finite and positive.
    Scale {
        /// The value in the model.
        value: f32,
    },
    /// Zero points that are neither one nor one per scale.
    ZeroPointCount {
        /// Zero points in the model.
        got: usize,
        /// Scales in the model.
        scales: usize,
    },
    /// A filter's per-channel scales that are neither one nor one per output channel.
    ScaleCount {
        /// Scales in the model.
        got: usize,
        /// Output channels.
        channels: usize,
    },
    /// A filter's per-channel quantization along a dimension that does not hold one entry
    /// per output channel (or is not one of its dimensions).
    QuantizedDimension {
        /// The dimension in the model.
        got: i32,
        /// Output channels (and scales).
        channels: usize,
    },
    /// A quantized operator's tensor without quantization (scale and zero point).
    NotQuantized,
    /// A dimension of 0 in a tensor an operator reads or writes.
    EmptyDimension,
    /// A negative (dynamic) dimension.
    DynamicDimension,
    /// More than 6 dimensions.
    Rank,
    /// Elements or bytes beyond 2^31 − 1 (TFLM's `int` sizes; the products would overflow).
    TooLarge,
}

impl fmt::Display for TensorFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TensorFault::ZeroPoint { value, min, max } => {
                write!(
                    f,
                    "zero point {value} outside its type's range {min}..={max}"
                )
            }
            // The bits, not the float: a device's image then needs no float formatting.
            TensorFault::Scale { value } => write!(
                f,
                "quantization scale (f32 bits {:#010x}) is not finite and positive",
                value.to_bits()
            ),
            TensorFault::ZeroPointCount { got, scales } => write!(
                f,
                "{got} zero points for {scales} scales (one, or one per scale)"
            ),
            TensorFault::ScaleCount { got, channels } => write!(
                f,
                "{got} filter scales for {channels} output channels (one, or one per channel)"
            ),
            TensorFault::QuantizedDimension { got, channels } => write!(
                f,
                "per-channel quantization along dimension {got}, which does not hold the \
                 {channels} output channels"
            ),
            TensorFault::NotQuantized => f.write_str("no quantization (scale and zero point)"),
            TensorFault::EmptyDimension => f.write_str("a dimension of 0 (an empty tensor)"),
            TensorFault::DynamicDimension => f.write_str("a negative (dynamic) dimension"),
            TensorFault::Rank => f.write_str("more than 6 dimensions"),
            TensorFault::TooLarge => {
                f.write_str("more than 2^31 - 1 elements or bytes (the size overflows)")
            }
        }
    }
}

/// What is wrong with a graph's data flow ([`LoadError::Graph`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphFault {
    /// An operator reads a tensor that is neither a graph input, a constant nor the output of
    /// an earlier operator: it would read whatever the arena held before.
    ReadBeforeWrite,
    /// A graph output that no operator writes and that is not a graph input.
    OutputNotWritten,
    /// A graph input or output that is a constant.
    ConstantIo,
    /// A tensor written by a second operator (or by an operator while being a graph input).
    WrittenTwice,
}

impl fmt::Display for GraphFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GraphFault::ReadBeforeWrite => {
                "reads a tensor that is not a graph input, a constant or the output of an \
                 earlier operator"
            }
            GraphFault::OutputNotWritten => "a graph output that nothing writes",
            GraphFault::ConstantIo => "a graph input or output that is a constant",
            GraphFault::WrittenTwice => {
                "writes a tensor already written (by an earlier operator, or as a graph input)"
            }
        })
    }
}

impl LoadError {
    /// The error with operator `op` (`name`) as the user of its tensor, if it is a
    /// [`LoadError::Tensor`] that names none.
    pub(crate) fn at_op(self, op: usize, name: &'static str) -> Self {
        match self {
            LoadError::Tensor {
                op: None,
                tensor,
                fault,
                ..
            } => LoadError::Tensor {
                op: Some(op),
                name,
                tensor,
                fault,
            },
            e => e,
        }
    }
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
            LoadError::Program {
                what,
                op,
                name,
                word,
            } => {
                write!(f, "program does not match the model: {what} (")?;
                if *op != usize::MAX {
                    write!(f, "operator {op} ({name}), ")?;
                }
                write!(f, "word {word})")
            }
            LoadError::ProgramBuffer { needed, got } => write!(
                f,
                "program buffer too small: {got} words given, the program needs {needed}"
            ),
            LoadError::Tensor {
                op,
                name,
                tensor,
                fault,
            } => {
                if let Some(op) = op {
                    write!(f, "operator {op} ({name}): ")?;
                }
                write!(f, "tensor {tensor}: {fault}")
            }
            LoadError::Graph { op, tensor, fault } => match op {
                Some(op) => write!(f, "operator {op}: tensor {tensor}: {fault}"),
                None => write!(f, "graph: tensor {tensor}: {fault}"),
            },
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
    /// The program could not be decoded at this word (cannot happen for a program that
    /// loaded: it was compiled or verified against the model).
    Program {
        /// Word index.
        at: usize,
    },
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
            RunError::Program { at } => write!(f, "program: cannot decode word {at}"),
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
    /// Persistent bytes of the per-operator data: the program compiled at load into one
    /// PERSISTENT tensor (descriptor + data; [`Interpreter::new`]), which holds the
    /// requantization tables, the prepared parameters and the tensor locations. 0 with a
    /// program outside the arena ([`Interpreter::with_program`]).
    pub tables: usize,
    /// Persistent bytes of a separate tensor → location map: 0, the locations are part of the
    /// program (counted in `tables`, or in flash).
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
    /// Bytes of the program (4 per word), wherever it lives.
    pub program_bytes: usize,
    /// Bytes of the program outside the arena (flash; [`Interpreter::with_program`]), not
    /// counted in any RAM figure: `program_bytes`, or 0 with the program in RAM.
    pub program_flash: usize,
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

    /// The arena (in bytes) that holds exactly this model: persistent + planned + the scratch
    /// the kernels need, for [`synaptic_mem::Arena::exact`] with a pool of
    /// [`Memory::scratch`] bytes (no Kconfig floors: an arena sized from a plan). At least the
    /// smallest arena the core accepts (one descriptor's span and 16 bytes): with the program
    /// in flash and graph I/O in the SHARED region a model may need no arena byte at all.
    pub fn arena_bytes(&self) -> usize {
        (self.persistent + self.planned + self.scratch).max(synaptic_mem::DESC_SPAN + 16)
    }

    /// The arena (in bytes) on the Kconfig path ([`synaptic_mem::Arena::with_scratch`]) with a
    /// scratch pool of `scratch_pool` bytes: persistent + planned + the pool, at least the
    /// core's smallest arena ([`synaptic_mem::MIN_ARENA_SIZE`]). The pool must be one the core
    /// accepts there (at least [`synaptic_mem::MIN_SCRATCH_SIZE`], a multiple of 16).
    pub fn kconfig_arena_bytes(&self, scratch_pool: usize) -> usize {
        (self.persistent + self.planned + scratch_pool.max(self.scratch))
            .max(synaptic_mem::MIN_ARENA_SIZE)
    }
}

/// An operator input as the kernels see it: a tensor of the arena (viewed as the kernel
/// needs), bytes of the model read in place, or absent.
#[derive(Clone, Copy)]
enum In<'x, 't> {
    Absent,
    Arena(&'x Tensor<'t>),
    Model(&'x [u8]),
}

impl<'x> In<'x, '_> {
    #[inline]
    fn bytes(self) -> &'x [u8] {
        match self {
            In::Absent => &[],
            In::Arena(t) => t.bytes(),
            In::Model(b) => b,
        }
    }

    #[inline]
    fn i8(self) -> Option<&'x [i8]> {
        match self {
            In::Arena(t) => t.as_slice::<i8>().ok(),
            _ => None,
        }
    }
}

/// ADD / MUL with each operand an activation (`i8`) or a model constant (raw bytes).
macro_rules! binary {
    ($a:expr, $b:expr, |$x:ident, $y:ident| $run:expr) => {
        match ($a.i8(), $b.i8()) {
            (Some($x), Some($y)) => $run,
            (Some($x), None) => {
                let $y = $b.bytes();
                $run
            }
            (None, Some($y)) => {
                let $x = $a.bytes();
                $run
            }
            (None, None) => {
                let ($x, $y) = ($a.bytes(), $b.bytes());
                $run
            }
        }
    };
}

/// The graph I/O tensors in the SHARED region as an operator's inputs see them: every entry
/// but the operator's own output (borrowed mutably apart), by index among inputs then outputs.
#[derive(Clone, Copy)]
struct SharedIns<'x, 't> {
    /// Entries `0 .. out`.
    lo: &'x [Option<Tensor<'t>>],
    /// Entries `out + 1 ..`.
    hi: &'x [Option<Tensor<'t>>],
    /// The output's entry (`usize::MAX`: the output is not in the SHARED region).
    out: usize,
}

impl<'x, 't> SharedIns<'x, 't> {
    /// Entry `k`, unless it is the output's or absent.
    #[inline]
    fn get(self, k: usize) -> Option<&'x Tensor<'t>> {
        let e = if k < self.out {
            self.lo.get(k)
        } else {
            self.hi.get(k.checked_sub(self.out)?.checked_sub(1)?)
        };
        e?.as_ref()
    }
}

/// Splits `io` around entry `out` (if any): the output's tensor mutably, the rest as inputs.
#[inline]
fn split_io<'x, 't>(
    io: &'x mut [Option<Tensor<'t>>],
    out: Option<usize>,
) -> (Option<&'x mut Tensor<'t>>, SharedIns<'x, 't>) {
    match out {
        Some(k) if k < io.len() => {
            let (lo, rest) = io.split_at_mut(k);
            let (o, hi) = rest.split_at_mut(1);
            (o[0].as_mut(), SharedIns { lo, hi, out: k })
        }
        _ => (
            None,
            SharedIns {
                lo: io,
                hi: &[],
                out: usize::MAX,
            },
        ),
    }
}

/// An operator's inputs, resolved when a kernel asks for one (no array of them is built).
struct Inputs<'x, 't> {
    rec: &'x OpRecord<'x>,
    /// The planned inputs' slots, distinct, in the order of `views`.
    slots: &'x [usize],
    /// Their views (the output's excluded).
    views: &'x [Tensor<'t>],
    /// Graph I/O tensors in the SHARED region (the output's excluded).
    shared: SharedIns<'x, 't>,
    model: &'x [u8],
}

impl<'x, 't> Inputs<'x, 't> {
    fn len(&self) -> usize {
        self.rec.n_inputs()
    }

    /// Input `k` (absent past the last).
    #[inline]
    fn get(&self, k: usize) -> In<'x, 't> {
        match self.rec.input(k) {
            Some(Loc::Slot(s)) => self
                .slots
                .iter()
                .position(|&x| x == s)
                .and_then(|j| self.views.get(j))
                .map_or(In::Absent, In::Arena),
            Some(Loc::Shared(s)) => self.shared.get(s).map_or(In::Absent, In::Arena),
            Some(Loc::Model { offset, len }) => {
                In::Model(self.model.get(offset..offset + len).unwrap_or(&[]))
            }
            _ => In::Absent,
        }
    }
}

/// Decodes the parameters of a record (`Words` of the kernel's struct).
#[inline(always)]
fn params<T: Words>(w: &[u32], ty: impl Fn() -> KernelError) -> Result<T, KernelError> {
    if w.len() != T::N {
        return Err(ty());
    }
    T::get(w).ok_or_else(ty)
}

/// Runs operator record `rec`'s kernel on resolved buffers: its parameters are decoded here,
/// from the program's words, as the kernel needs them.
#[inline(never)]
fn execute(
    rec: &OpRecord<'_>,
    ins: &Inputs<'_, '_>,
    out: &mut Tensor<'_>,
) -> Result<(), KernelError> {
    let ty = || {
        KernelError::unsupported(
            synaptic_tflite::builtin_name(rec.builtin).unwrap_or("UNKNOWN"),
            "tensor type or program differs from load",
        )
    };
    let x = |k: usize| ins.get(k).i8().ok_or_else(ty);
    let bias = |k: usize| {
        Some(ins.get(k).bytes())
            .filter(|b| !b.is_empty())
            .map(LeI32)
    };
    let w = |k: usize| ins.get(k).bytes();
    let (m, s) = (rec.multipliers, rec.shifts);
    let pw = rec.params;
    match rec.kind {
        program::KIND_CONV => {
            let pp: conv::ConvParams = params(pw, ty)?;
            let o = out.as_mut_slice::<i8>().map_err(|_| ty())?;
            conv::conv2d(&pp, m, s, x(0)?, w(1), bias(2).as_ref(), o)
        }
        program::KIND_DEPTHWISE => {
            let pp: conv::ConvParams = params(pw, ty)?;
            let o = out.as_mut_slice::<i8>().map_err(|_| ty())?;
            conv::depthwise_conv2d(&pp, m, s, x(0)?, w(1), bias(2).as_ref(), o)
        }
        program::KIND_FULLY_CONNECTED => {
            let pp: fully_connected::FullyConnectedParams = params(pw, ty)?;
            let n = pp.output_depth.checked_mul(pp.accum_depth).ok_or_else(ty)?;
            let filter = w(1).get(..n).ok_or_else(ty)?;
            let o = out.as_mut_slice::<i8>().map_err(|_| ty())?;
            if rec.constants.is_empty() {
                fully_connected::fully_connected(&pp, m, s, x(0)?, filter, bias(2).as_ref(), o)
            } else {
                // The bias and input offset folded at compile time (the program's constants).
                fully_connected::fully_connected_folded(&pp, m, s, x(0)?, filter, rec.constants, o)
            }
        }
        program::KIND_AVERAGE_POOL => {
            let pp: pooling::PoolParams = params(pw, ty)?;
            pooling::average_pool(&pp, x(0)?, out.as_mut_slice::<i8>().map_err(|_| ty())?)
        }
        program::KIND_MAX_POOL => {
            let pp: pooling::PoolParams = params(pw, ty)?;
            pooling::max_pool(&pp, x(0)?, out.as_mut_slice::<i8>().map_err(|_| ty())?)
        }
        program::KIND_SOFTMAX => {
            let pp: activations::SoftmaxParams = params(pw, ty)?;
            activations::softmax(&pp, x(0)?, out.as_mut_slice::<i8>().map_err(|_| ty())?)
        }
        program::KIND_LOGISTIC => {
            let pp: activations::LogisticParams = params(pw, ty)?;
            activations::logistic(&pp, x(0)?, out.as_mut_slice::<i8>().map_err(|_| ty())?)
        }
        program::KIND_ADD => {
            let pp: elementwise::AddParams = params(pw, ty)?;
            let o = out.as_mut_slice::<i8>().map_err(|_| ty())?;
            let (a, b) = (ins.get(0), ins.get(1));
            binary!(a, b, |x, y| elementwise::add(&pp, x, y, o))
        }
        program::KIND_MUL => {
            let pp: elementwise::MulParams = params(pw, ty)?;
            let o = out.as_mut_slice::<i8>().map_err(|_| ty())?;
            let (a, b) = (ins.get(0), ins.get(1));
            binary!(a, b, |x, y| elementwise::mul(&pp, x, y, o))
        }
        program::KIND_MEAN => {
            let pp: reduce::MeanParams = params(pw, ty)?;
            reduce::mean(&pp, x(0)?, out.as_mut_slice::<i8>().map_err(|_| ty())?)
        }
        program::KIND_PAD => {
            let (pp, value): (layout::PadParams, i8) = params(pw, ty)?;
            layout::pad(
                &pp,
                x(0)?,
                value,
                out.as_mut_slice::<i8>().map_err(|_| ty())?,
            )
        }
        program::KIND_CONCAT => {
            let pp: layout::ConcatParams = params(pw, ty)?;
            let size = match out.dtype() {
                DType::Int8 | DType::UInt8 => 1,
                DType::Int16 => 2,
                _ => 4,
            };
            let bytes = pp.with_element_bytes(size)?;
            let mut refs: [&[u8]; MAX_OP_INPUTS] = [&[]; MAX_OP_INPUTS];
            let mut sizes = [0usize; MAX_OP_INPUTS];
            let n = ins.len().min(MAX_OP_INPUTS);
            // Every input's axis length from its byte count: outer × n × inner bytes (a length
            // that is not a multiple is refused by the kernel's check).
            let row = bytes.outer.saturating_mul(bytes.inner).max(1);
            for k in 0..n {
                refs[k] = ins.get(k).bytes();
                sizes[k] = refs[k].len() / row;
            }
            layout::concatenation(&bytes, &refs[..n], &sizes[..n], out.bytes_mut())
        }
        program::KIND_TRANSPOSE => {
            let pp: layout::TransposeParams = params(pw, ty)?;
            layout::transpose(&pp, x(0)?, out.as_mut_slice::<i8>().map_err(|_| ty())?)
        }
        program::KIND_COPY => {
            let name = synaptic_tflite::builtin_name(rec.builtin).unwrap_or("UNKNOWN");
            layout::copy(name, ins.get(0).bytes(), out.bytes_mut())
        }
        program::KIND_QUANTIZE => {
            let q: QuantParams = params(pw, ty)?;
            let input = match ins.get(0) {
                In::Arena(t) => t.as_slice::<f32>().map_err(|_| ty())?,
                _ => return Err(ty()),
            };
            quantize::quantize_f32(q, input, out.as_mut_slice::<i8>().map_err(|_| ty())?)
        }
        program::KIND_REQUANTIZE => {
            let pp: quantize::RequantizeParams = params(pw, ty)?;
            quantize::requantize(&pp, x(0)?, out.as_mut_slice::<i8>().map_err(|_| ty())?)
        }
        program::KIND_DEQUANTIZE => {
            let q: QuantParams = params(pw, ty)?;
            quantize::dequantize(q, x(0)?, out.as_mut_slice::<f32>().map_err(|_| ty())?)
        }
        _ => Err(ty()),
    }
}

/// What gets each operator's output (`op, tensor, bytes`), if anything does.
type Observer<'o, 'f> = Option<&'o mut (dyn FnMut(usize, usize, &[u8]) + 'f)>;

/// How a declared overlap's operator failed at run time.
enum PairError {
    Kernel(KernelError),
    Alloc(AllocError),
    /// The record does not match the pair (cannot happen for a plan that loaded).
    Program,
}

impl From<AllocError> for PairError {
    fn from(e: AllocError) -> Self {
        PairError::Alloc(e)
    }
}

impl From<KernelError> for PairError {
    fn from(e: KernelError) -> Self {
        PairError::Kernel(e)
    }
}

/// Where a declared overlap's input is among its operator's inputs, and its operator's other
/// planned input (at most one; ADD / MUL), from the record.
struct PairInputs {
    /// The input position (operator input index) of the pair's input slot.
    k: usize,
    /// The other planned input: its position and slot.
    other: Option<(usize, usize)>,
}

/// The positions of `pair`'s slots in `rec`: its output must be the record's output slot and
/// its input exactly one of the record's inputs; at most one other input may be planned.
fn pair_inputs(rec: &OpRecord<'_>, pair: &OverlapPair) -> Result<PairInputs, &'static str> {
    if rec.out_loc != Loc::Slot(usize::from(pair.output)) {
        return Err("declared overlap: the output slot is not the operator's output");
    }
    let mut k = None;
    let mut other = None;
    for j in 0..rec.n_inputs() {
        let Some(Loc::Slot(s)) = rec.input(j) else {
            continue;
        };
        let twice = if s == usize::from(pair.input) {
            k.replace(j).is_some()
        } else {
            other.replace((j, s)).is_some()
        };
        if twice {
            return Err(if s == usize::from(pair.input) {
                "declared overlap: the operator reads its input slot twice"
            } else {
                "declared overlap: the operator has more than one other planned input"
            });
        }
    }
    let k = k.ok_or("declared overlap: the input slot is not an input of the operator")?;
    Ok(PairInputs { k, other })
}

/// Elements and bytes of planned slot `s`'s tensor (from the program's slot table).
fn slot_elems(prog: &Program<'_>, s: usize) -> Option<(usize, usize)> {
    let (shape, n, dtype) = prog.slot(s)?;
    let mut e = 1usize;
    for &d in &shape[..n] {
        e = e.checked_mul(usize::try_from(d).ok()?)?;
    }
    let bytes = synaptic_mem::shape_bytes(&shape[..n], dtype).ok()?.1;
    Some((e, usize::try_from(bytes).ok()?))
}

/// The runtime's own access contract of record `rec` for its input at position `k`, with the
/// overlapped kernel's element counts (`elems` and `bytes`: the output tensor's), exactly the
/// one the overlapped entry point checks ([`crate::kernels::overlapped`]); an error names why
/// the operator cannot run overlapped.
fn pair_contract(
    rec: &OpRecord<'_>,
    k: usize,
    elems: usize,
    bytes: usize,
) -> Result<Contract, &'static str> {
    const NONE: &str = "declared overlap: the operator's kernel has no overlapped entry point \
                        for that input";
    const PARAMS: &str = "declared overlap: the operator's parameters do not decode";
    const BAD: KernelError = KernelError::Unsupported {
        op: "",
        what: "parameters",
    };
    let pw = rec.params;
    let get = |ok: bool| if ok { Ok(()) } else { Err(NONE) };
    Ok(match rec.kind {
        program::KIND_CONV | program::KIND_DEPTHWISE => {
            get(k == 0)?;
            let pp: conv::ConvParams = params(pw, || BAD).map_err(|_| PARAMS)?;
            Contract::conv(&pp, rec.kind == program::KIND_DEPTHWISE)
        }
        program::KIND_FULLY_CONNECTED => {
            get(k == 0)?;
            let pp: fully_connected::FullyConnectedParams =
                params(pw, || BAD).map_err(|_| PARAMS)?;
            Contract::fully_connected(&pp)
        }
        program::KIND_AVERAGE_POOL | program::KIND_MAX_POOL => {
            get(k == 0)?;
            let pp: pooling::PoolParams = params(pw, || BAD).map_err(|_| PARAMS)?;
            Contract::pool(&pp)
        }
        program::KIND_SOFTMAX => {
            get(k == 0)?;
            let pp: activations::SoftmaxParams = params(pw, || BAD).map_err(|_| PARAMS)?;
            Contract::softmax(&pp)
        }
        program::KIND_ADD | program::KIND_MUL => {
            get(k < 2)?;
            let bc = if rec.kind == program::KIND_ADD {
                let pp: elementwise::AddParams = params(pw, || BAD).map_err(|_| PARAMS)?;
                pp.broadcast
            } else {
                let pp: elementwise::MulParams = params(pw, || BAD).map_err(|_| PARAMS)?;
                pp.broadcast
            };
            get(bc.full(k))?;
            Contract::elementwise(bc.sizes()[2], 1, 1)
        }
        program::KIND_LOGISTIC | program::KIND_REQUANTIZE => {
            get(k == 0)?;
            Contract::elementwise(elems, 1, 1)
        }
        program::KIND_COPY => {
            // A byte copy (RESHAPE / SQUEEZE of any type).
            get(k == 0)?;
            Contract::elementwise(bytes, 1, 1)
        }
        program::KIND_QUANTIZE => {
            get(k == 0)?;
            Contract::elementwise(elems, 4, 1)
        }
        program::KIND_DEQUANTIZE => {
            get(k == 0)?;
            Contract::elementwise(elems, 1, 4)
        }
        _ => return Err(NONE),
    })
}

/// Checks `plan` against the program ([module docs](self)): one slot per planned activation,
/// each at least its tensor's bytes and live at every operator that reads or writes its
/// tensor, from operator 0 for a graph input through the last operator for a graph output.
/// One pass over the program's records (the data flow was checked at compile: a tensor's
/// first use is its producer).
fn check_slots(prog: &Program<'_>, plan: &Plan<'_>) -> Result<(), LoadError> {
    let n = prog.slots();
    let bad = |what, slot: usize| LoadError::Plan {
        what,
        slot,
        tensor: prog.slot_tensor(slot).unwrap_or(usize::MAX),
    };
    if plan.slots.len() < n {
        return Err(LoadError::Plan {
            what: "the plan has fewer slots than the model has planned activations",
            slot: plan.slots.len(),
            tensor: usize::MAX,
        });
    }
    if plan.slots.len() > n {
        return Err(LoadError::Plan {
            what: "the plan has more slots than the model has planned activations",
            slot: plan.slots.len(),
            tensor: usize::MAX,
        });
    }
    for (s, slot) in plan.slots.iter().enumerate() {
        let (_, bytes) = slot_elems(prog, s).ok_or(bad("program slot table", s))?;
        if (slot.size as usize) < bytes {
            return Err(bad("slot smaller than its tensor", s));
        }
    }
    let live = |loc: Option<Loc>, op: usize| match loc {
        Some(Loc::Slot(s)) => match plan.slots.get(s) {
            Some(slot) if (slot.first_op as usize) <= op && op <= slot.last_op as usize => Ok(()),
            _ => Err(bad("slot not live over its tensor's lifetime", s)),
        },
        _ => Ok(()),
    };
    let n_ops = prog.ops();
    let mut at = prog.header(program::h::OPS_AT);
    for i in 0..n_ops {
        let (rec, next) = prog.op(at).ok_or(bad("program record", 0))?;
        live(Some(rec.out_loc), i)?;
        for loc in rec.input_locs() {
            live(loc, i)?;
        }
        at = next;
    }
    for k in 0..prog.inputs() + prog.outputs() {
        let (_, loc, _) = prog.io(k).ok_or(bad("program I/O table", 0))?;
        let op = if k < prog.inputs() {
            0
        } else {
            n_ops.saturating_sub(1)
        };
        live(Some(loc), op)?;
    }
    Ok(())
}

/// Checks every declared overlap of `plan` against the runtime's own contracts (see
/// [`RunPlan`]): in operator order, one per operator, the operator's output and one input it
/// reads once, a kernel with an overlapped entry point for it, the declared bound no more than
/// the contract's and the plan's delta safe in the declared direction.
fn check_overlaps(
    prog: &Program<'_>,
    plan: &Plan<'_>,
    overlaps: &[OverlapPair],
) -> Result<(), LoadError> {
    let mut at = prog.header(program::h::OPS_AT);
    let mut op = 0usize;
    for (q, pair) in overlaps.iter().enumerate() {
        let refuse = |what: &'static str| LoadError::Plan {
            what,
            slot: usize::from(pair.output),
            tensor: prog
                .slot_tensor(usize::from(pair.output))
                .unwrap_or(usize::MAX),
        };
        if q > 0 && overlaps[q - 1].op >= pair.op {
            return Err(refuse(
                "declared overlaps must be in operator order, at most one per operator",
            ));
        }
        let target = usize::from(pair.op);
        if target >= prog.ops() {
            return Err(refuse(
                "declared overlap of an operator the model does not have",
            ));
        }
        // Walk the records up to the pair's operator (once over all pairs).
        let rec = loop {
            let (rec, next) = prog.op(at).ok_or(refuse("program record"))?;
            if op == target {
                break rec;
            }
            at = next;
            op += 1;
        };
        let (Some(si), Some(so)) = (
            plan.slots.get(usize::from(pair.input)),
            plan.slots.get(usize::from(pair.output)),
        ) else {
            return Err(refuse("declared overlap of a slot the plan does not have"));
        };
        let found = pair_inputs(&rec, pair).map_err(refuse)?;
        let binary = matches!(rec.kind, program::KIND_ADD | program::KIND_MUL);
        if !binary && found.other.is_some() {
            // The inference takes the pair's input as input 0 and no other planned input
            // (ADD / MUL look theirs up).
            return Err(refuse(
                "declared overlap: the operator has another planned input",
            ));
        }
        let (elems, bytes) = slot_elems(prog, usize::from(pair.output))
            .ok_or(refuse("declared overlap: the output slot's tensor"))?;
        let contract = pair_contract(&rec, found.k, elems, bytes).map_err(refuse)?;
        let safe = contract.safe_overlap().ok_or(refuse(
            "declared overlap of tensors too large for a contract",
        ))?;
        let dir = Direction::from(pair.direction);
        let bound = i64::from(pair.bound);
        let claims_no_more = match pair.direction {
            OverlapDirection::Forward => bound <= safe.forward_max,
            OverlapDirection::Backward => safe.backward_min.is_some_and(|b| bound >= b),
        };
        if !claims_no_more {
            return Err(refuse(
                "declared overlap's bound claims more than the kernel's access contract allows",
            ));
        }
        if rec.kind == program::KIND_SOFTMAX && dir == Direction::Backward {
            return Err(refuse("declared overlap: SOFTMAX runs forward only"));
        }
        let d = i64::from(so.offset) - i64::from(si.offset);
        if !safe.safe(d, dir) {
            return Err(refuse(
                "declared overlap's delta is unsafe by the kernel's access contract",
            ));
        }
    }
    Ok(())
}

/// Runs the operator of declared overlap `q` (`pair`) through its overlapped kernel on the
/// core's span, with the graph I/O in the SHARED region `io` (empty with I/O in the plan);
/// `observe(op, tensor, bytes)` gets its output. `Ok(false)`: the pair's blocks share no byte,
/// nothing ran (the operator runs as in a plain plan).
#[allow(clippy::too_many_arguments)]
fn run_pair(
    p: &mut PlannedInference<'_, '_>,
    prog: &Program<'_>,
    rec: &OpRecord<'_>,
    q: usize,
    pair: &OverlapPair,
    io: &[Option<Tensor<'_>>],
    model: &[u8],
    observe: Observer<'_, '_>,
) -> Result<bool, PairError> {
    // The pair's output is a plan slot: every SHARED entry is an input.
    let shared = SharedIns {
        lo: io,
        hi: &[],
        out: usize::MAX,
    };
    let ran = |span: OverlapSpan<'_>, ins: &Inputs<'_, '_>, k: usize| {
        let at = InPlace::checked_at_load(span.input, span.output, span.direction.into());
        let out_slot = usize::from(pair.output);
        let out_bytes = execute_overlapped(rec, k, ins, prog, out_slot, span.bytes, at)?;
        if let Some(observe) = observe {
            let out = span
                .bytes
                .get(span.output..span.output + out_bytes)
                .ok_or(PairError::Program)?;
            observe(usize::from(pair.op), rec.output, out);
        }
        Ok(true)
    };
    if !matches!(rec.kind, program::KIND_ADD | program::KIND_MUL) {
        // Checked at load: every kind but ADD / MUL reads the pair's input as input 0 and has
        // no other planned input.
        let Some((span, [])) = p.overlapped(q, [])? else {
            return Ok(false);
        };
        let ins = Inputs {
            rec,
            slots: &[],
            views: &[],
            shared,
            model,
        };
        return ran(span, &ins, 0);
    }
    let found = pair_inputs(rec, pair).map_err(|_| PairError::Program)?;
    let other: &[usize] = match &found.other {
        Some((_, s)) => core::slice::from_ref(s),
        None => &[],
    };
    let (span, views) = match other {
        [] => match p.overlapped(q, [])? {
            Some((span, [])) => (span, None),
            None => return Ok(false),
        },
        _ => match p.overlapped(q, [other[0]])? {
            Some((span, [v])) => (span, Some(v)),
            None => return Ok(false),
        },
    };
    let ins = Inputs {
        rec,
        slots: other,
        views: views.as_slice(),
        shared,
        model,
    };
    ran(span, &ins, found.k)
}

/// [`execute`] for a declared overlap: record `rec`'s overlapped kernel with its input at
/// position `k` and its output (planned slot `out_slot`) in `buf` (`at`). Returns the output's
/// bytes.
#[inline(never)]
fn execute_overlapped(
    rec: &OpRecord<'_>,
    k: usize,
    ins: &Inputs<'_, '_>,
    prog: &Program<'_>,
    out_slot: usize,
    buf: &mut [u8],
    at: InPlace,
) -> Result<usize, KernelError> {
    let ty = || {
        KernelError::unsupported(
            synaptic_tflite::builtin_name(rec.builtin).unwrap_or("UNKNOWN"),
            "tensor type or program differs from load",
        )
    };
    let bias = |k: usize| {
        Some(ins.get(k).bytes())
            .filter(|b| !b.is_empty())
            .map(LeI32)
    };
    let w = |k: usize| ins.get(k).bytes();
    let (m, s) = (rec.multipliers, rec.shifts);
    let pw = rec.params;
    // Elements of the output (the element-wise kinds' count, from the program's slot table).
    let elems = || slot_elems(prog, out_slot).map(|(e, _)| e).ok_or_else(ty);
    let all = |d: &[usize; 4]| d.iter().product::<usize>();
    match rec.kind {
        program::KIND_CONV => {
            let pp: conv::ConvParams = params(pw, ty)?;
            overlapped::conv2d(&pp, m, s, w(1), bias(2).as_ref(), buf, at)?;
            Ok(all(&pp.output_shape))
        }
        program::KIND_DEPTHWISE => {
            let pp: conv::ConvParams = params(pw, ty)?;
            overlapped::depthwise_conv2d(&pp, m, s, w(1), bias(2).as_ref(), buf, at)?;
            Ok(all(&pp.output_shape))
        }
        program::KIND_FULLY_CONNECTED => {
            let pp: fully_connected::FullyConnectedParams = params(pw, ty)?;
            let n = pp.output_depth.checked_mul(pp.accum_depth).ok_or_else(ty)?;
            let filter = w(1).get(..n).ok_or_else(ty)?;
            let out = pp.batches * pp.output_depth;
            if pp.accum_depth > crate::contract::FC_ROW_BUFFER {
                overlapped::fully_connected(&pp, m, s, filter, bias(2).as_ref(), buf, at)?;
                return Ok(out);
            }
            // Short rows: a row at a time from its copy on the stack, through the plain
            // kernel writing into the buffer (folded constants when the program has them, as
            // in `execute`).
            let rows;
            let one = if pp.batches == 1 {
                &pp
            } else {
                rows = fully_connected::FullyConnectedParams { batches: 1, ..pp };
                &rows
            };
            let c = rec.constants;
            if c.is_empty() {
                let b = bias(2);
                overlapped::fully_connected_rows(&pp, buf, at, |x, o| {
                    fully_connected::fully_connected(one, m, s, x, filter, b.as_ref(), o)
                })?;
            } else {
                overlapped::fully_connected_rows(&pp, buf, at, |x, o| {
                    fully_connected::fully_connected_folded(one, m, s, x, filter, c, o)
                })?;
            }
            Ok(out)
        }
        program::KIND_AVERAGE_POOL => {
            let pp: pooling::PoolParams = params(pw, ty)?;
            overlapped::average_pool(&pp, buf, at)?;
            Ok(all(&pp.output_shape))
        }
        program::KIND_MAX_POOL => {
            let pp: pooling::PoolParams = params(pw, ty)?;
            overlapped::max_pool(&pp, buf, at)?;
            Ok(all(&pp.output_shape))
        }
        program::KIND_SOFTMAX => {
            let pp: activations::SoftmaxParams = params(pw, ty)?;
            overlapped::softmax(&pp, buf, at)?;
            Ok(pp.outer * pp.depth)
        }
        program::KIND_LOGISTIC => {
            let pp: activations::LogisticParams = params(pw, ty)?;
            let n = elems()?;
            overlapped::logistic(&pp, n, buf, at)?;
            Ok(n)
        }
        program::KIND_ADD | program::KIND_MUL => {
            let other = ins.get(1 - k.min(1));
            let run = |buf: &mut [u8]| match other.i8() {
                Some(o) => {
                    if rec.kind == program::KIND_ADD {
                        let pp: elementwise::AddParams = params(pw, ty)?;
                        overlapped::add(&pp, k, o, buf, at)
                    } else {
                        let pp: elementwise::MulParams = params(pw, ty)?;
                        overlapped::mul(&pp, k, o, buf, at)
                    }
                }
                None => {
                    let o = other.bytes();
                    if rec.kind == program::KIND_ADD {
                        let pp: elementwise::AddParams = params(pw, ty)?;
                        overlapped::add(&pp, k, o, buf, at)
                    } else {
                        let pp: elementwise::MulParams = params(pw, ty)?;
                        overlapped::mul(&pp, k, o, buf, at)
                    }
                }
            };
            run(buf)?;
            elems()
        }
        program::KIND_COPY => {
            let name = synaptic_tflite::builtin_name(rec.builtin).unwrap_or("UNKNOWN");
            let n = slot_elems(prog, out_slot).map(|(_, b)| b).ok_or_else(ty)?;
            overlapped::copy(name, n, buf, at)?;
            Ok(n)
        }
        program::KIND_QUANTIZE => {
            let q: QuantParams = params(pw, ty)?;
            let n = elems()?;
            overlapped::quantize_f32_i8(q, n, buf, at)?;
            Ok(n)
        }
        program::KIND_REQUANTIZE => {
            let pp: quantize::RequantizeParams = params(pw, ty)?;
            let n = elems()?;
            overlapped::requantize_i8(&pp, n, buf, at)?;
            Ok(n)
        }
        program::KIND_DEQUANTIZE => {
            let q: QuantParams = params(pw, ty)?;
            let n = elems()?;
            overlapped::dequantize_i8(q, n, buf, at)?;
            Ok(4 * n)
        }
        _ => Err(ty()),
    }
}

/// Runs plain operator `i` (record `rec` at word `rec_at`, no declared overlap sharing bytes): its distinct
/// planned tensors from the core (output first, then the inputs), the SHARED I/O tensors `io`
/// (empty with I/O in the plan) split around its output, then its kernel; `observe(op,
/// tensor, bytes)` gets its output.
fn run_op(
    p: &mut PlannedInference<'_, '_>,
    rec: &OpRecord<'_>,
    (i, rec_at): (usize, usize),
    io: &mut [Option<Tensor<'_>>],
    model: &[u8],
    observe: Observer<'_, '_>,
) -> Result<(), RunError> {
    // The caller checked the input count (at most MAX_OP_INPUTS).
    let n_in = rec.n_inputs().min(MAX_OP_INPUTS);
    // The distinct planned tensors: the output first, then the inputs (a short list for the
    // usual operator: zeroing the long one costs more than the rest of the list).
    if n_in < 4 {
        let mut slots = [0usize; 4];
        let (n, out_planned) = distinct_slots(rec, n_in, &mut slots);
        run_op_slots(
            p,
            rec,
            (i, rec_at),
            io,
            model,
            observe,
            &slots[..n],
            out_planned,
        )
    } else {
        let mut slots = [0usize; MAX_OP_TENSORS];
        let (n, out_planned) = distinct_slots(rec, n_in, &mut slots);
        run_op_slots(
            p,
            rec,
            (i, rec_at),
            io,
            model,
            observe,
            &slots[..n],
            out_planned,
        )
    }
}

/// Fills `slots` (at least `n_in + 1` long) with the distinct planned tensors of record `rec`:
/// its output first if it is planned, then its inputs. Returns how many, and whether the
/// output is among them.
fn distinct_slots(rec: &OpRecord<'_>, n_in: usize, slots: &mut [usize]) -> (usize, bool) {
    let mut n_slots = 0;
    let out_planned = match rec.out_loc {
        Loc::Slot(s) => {
            slots[0] = s;
            n_slots = 1;
            true
        }
        _ => false,
    };
    for loc in rec.input_locs().take(n_in) {
        if let Some(Loc::Slot(s)) = loc {
            if !slots[..n_slots].contains(&s) {
                slots[n_slots] = s;
                n_slots += 1;
            }
        }
    }
    (n_slots, out_planned)
}

/// [`run_op`] with the operator's distinct planned tensors `slots` (the output first if
/// `out_planned`).
#[allow(clippy::too_many_arguments)]
fn run_op_slots(
    p: &mut PlannedInference<'_, '_>,
    rec: &OpRecord<'_>,
    (i, rec_at): (usize, usize),
    io: &mut [Option<Tensor<'_>>],
    model: &[u8],
    mut observe: Observer<'_, '_>,
    slots: &[usize],
    out_planned: bool,
) -> Result<(), RunError> {
    let out_shared = match rec.out_loc {
        Loc::Shared(k) => Some(k),
        _ => None,
    };
    let (shared_out, shared) = split_io(io, out_shared);
    let in_slots = &slots[usize::from(out_planned).min(slots.len())..];
    with_views(p, i as u16, slots, |views| {
        let (out_view, in_views) = if out_planned {
            let (o, rest) = views.split_at_mut(1);
            (o.first_mut(), rest)
        } else {
            (None, views)
        };
        let ins = Inputs {
            rec,
            slots: in_slots,
            views: in_views,
            shared,
            model,
        };
        let mut run = |out: &mut Tensor<'_>| -> Result<(), RunError> {
            execute(rec, &ins, out).map_err(|error| RunError::Kernel { op: i, error })?;
            if let Some(observe) = observe.as_deref_mut() {
                observe(i, rec.output, out.bytes());
            }
            Ok(())
        };
        match (out_view, shared_out) {
            (Some(o), _) => run(o),
            (None, Some(o)) => run(o),
            (None, None) => Err(RunError::Program { at: rec_at }),
        }
    })?
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
///
/// With the program compiled beforehand (on the host, into flash), no per-operator data takes
/// RAM:
///
/// ```
/// # use synaptic_mem::{Arena, ArenaBuffer, Plan};
/// # use synaptic_run::{program, Interpreter, IoPlacement};
/// # let model = synaptic_tflite::tests_support::tiny_model();
/// # let plan = Plan { region_size: 0, slots: &[] };
/// # let mut buf = ArenaBuffer::<4096>::new();
/// # let mut io = ArenaBuffer::<1024>::new();
/// # let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
/// # arena.set_shared_region(io.as_mut_slice()).unwrap();
/// # let (loader, mut runner) = arena.split();
/// let mut words = vec![0u32; program::compiled_len(model, IoPlacement::Shared).unwrap()];
/// program::compile(model, IoPlacement::Shared, &mut words).unwrap();
/// let mut net = Interpreter::with_program(model, &words, loader, plan, IoPlacement::Shared)
///     .unwrap();
/// assert_eq!(net.memory().tables, 0);
/// assert_eq!(net.memory().program_flash, 4 * words.len());
/// ```
pub struct Interpreter<'m, 'a, 'p> {
    model: &'m [u8],
    program: Store<'m, 'a>,
    /// The plan and its declared overlaps (checked at load, in operator order).
    plan: PlanHandle<'a, 'p>,
    /// Graph inputs then outputs in the SHARED region ([`IoPlacement::Shared`]).
    io: [Option<Tensor<'a>>; MAX_IO],
    placement: IoPlacement,
    memory: Memory,
}

/// Where the program lives.
enum Store<'m, 'a> {
    /// Outside the arena (flash), verified at load.
    Flash(&'m [u32]),
    /// Compiled at load into a PERSISTENT tensor.
    Ram(Tensor<'a>),
}

impl<'m, 'a, 'p> Interpreter<'m, 'a, 'p> {
    /// Loads `model` (its bytes stay where they are: weights are read in place) into the
    /// arena of `loader`: compiles its program ([`crate::program`]: every operator validated
    /// and prepared, locations, requantization tables) into one PERSISTENT tensor, allocates
    /// graph I/O in the SHARED region ([`IoPlacement::Shared`]; the arena needs one
    /// registered) and loads `plan` (its descriptor table goes in the persistent region).
    /// `plan` must be the plan of this model's activations for this placement (see the
    /// [module docs](self)); it is checked. It is a [`Plan`] or a [`RunPlan`]: a plan with
    /// declared output/input overlaps, whose operators then run overlapped (each pair checked
    /// at load against the kernel's own contract).
    pub fn new(
        model: &'m [u8],
        loader: Loader<'a>,
        plan: impl Into<RunPlan<'p>>,
        placement: IoPlacement,
    ) -> Result<Self, LoadError> {
        Self::load(model, None, loader, plan.into(), placement)
    }

    /// [`Interpreter::new`] with the program compiled beforehand ([`crate::program::compile`],
    /// e.g. by `synmem emit` into a `static` in flash): it is verified against the model
    /// ([`crate::program::verify`]; a program of another model or placement, truncated or
    /// altered, is a [`LoadError::Program`]) and read where it is, so no per-operator data
    /// takes arena RAM.
    pub fn with_program(
        model: &'m [u8],
        program: &'m [u32],
        loader: Loader<'a>,
        plan: impl Into<RunPlan<'p>>,
        placement: IoPlacement,
    ) -> Result<Self, LoadError> {
        Self::load(model, Some(program), loader, plan.into(), placement)
    }

    fn load(
        model: &'m [u8],
        given: Option<&'m [u32]>,
        loader: Loader<'a>,
        run_plan: RunPlan<'p>,
        placement: IoPlacement,
    ) -> Result<Self, LoadError> {
        let RunPlan { plan, overlaps } = run_plan;
        let before = loader.stats();
        let g = Graph::open(model)?;
        let mut memory = Memory::default();
        let store = match given {
            Some(words) => {
                program::verify(model, placement, words)?;
                memory.program_flash = 4 * words.len();
                memory.program_bytes = 4 * words.len();
                Store::Flash(words)
            }
            None => {
                let n = program::compiled_len(model, placement)?;
                let words = u32::try_from(n.max(1)).map_err(|_| LoadError::Unsupported {
                    what: "a program of more than 2^32 words",
                })?;
                let mut t = loader.persistent(&[words], DType::Int32)?;
                let out = t
                    .as_mut_slice::<u32>()
                    .map_err(|_| LoadError::Unsupported {
                        what: "program tensor",
                    })?;
                program::compile(model, placement, &mut out[..n])?;
                memory.tables = synaptic_mem::block_span(4 * u64::from(words)) as usize;
                memory.program_bytes = 4 * n;
                memory.descriptors += synaptic_mem::DESC_SPAN;
                Store::Ram(t)
            }
        };
        let words = match &store {
            Store::Flash(w) => *w,
            Store::Ram(t) => t.as_slice::<u32>().unwrap_or(&[]),
        };
        let prog = Program::new(words).ok_or(LoadError::Program {
            what: "header",
            op: usize::MAX,
            name: "",
            word: 0,
        })?;

        // The plan against the model: one slot per planned activation, each big enough and
        // live over its tensor's lifetime.
        let n_slots = prog.slots();
        check_slots(&prog, &plan)?;
        check_overlaps(&prog, &plan, overlaps)?;

        // Graph I/O in the SHARED region.
        let mut io: [Option<Tensor<'a>>; MAX_IO] = Default::default();
        if placement == IoPlacement::Shared {
            for k in 0..g.n_inputs + g.n_outputs {
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
        let plan_handle = loader
            .load_overlapped_plan(plan, overlaps)
            .map_err(LoadError::PlanLoad)?;
        // Every activation placed once, here: an inference finds them in place.
        for s in 0..n_slots {
            if let Some((shape, n, dtype)) = prog.slot(s) {
                loader.preplace(&plan_handle, s, &shape[..n], dtype)?;
            }
        }
        let after = loader.stats();
        memory.plan_descriptors = after.persistent_used - mid.persistent_used;
        memory.descriptors += memory.plan_descriptors;
        memory.persistent = after.persistent_used - before.persistent_used;
        memory.planned = plan.region_size as usize;
        memory.shared = after.shared_used - before.shared_used;
        Ok(Interpreter {
            model,
            program: store,
            plan: plan_handle,
            io,
            placement,
            memory,
        })
    }

    /// The program this interpreter runs from (in flash, or in its PERSISTENT tensor).
    pub fn program(&self) -> &[u32] {
        match &self.program {
            Store::Flash(w) => w,
            Store::Ram(t) => t.as_slice::<u32>().unwrap_or(&[]),
        }
    }

    fn prog(&self) -> Program<'_> {
        Program::new(self.program()).unwrap_or(Program::EMPTY)
    }

    /// The arena bytes this model took, by region.
    pub fn memory(&self) -> Memory {
        self.memory
    }

    /// Number of graph inputs.
    pub fn inputs(&self) -> usize {
        self.prog().inputs()
    }

    /// Number of graph outputs.
    pub fn outputs(&self) -> usize {
        self.prog().outputs()
    }

    /// Bytes of all graph inputs (`input` of [`Interpreter::invoke`]), concatenated.
    pub fn input_bytes(&self) -> usize {
        self.prog().header(program::h::INPUT_BYTES)
    }

    /// Bytes of all graph outputs (`output` of [`Interpreter::invoke`]), concatenated.
    pub fn output_bytes(&self) -> usize {
        self.prog().header(program::h::OUTPUT_BYTES)
    }

    /// With [`IoPlacement::Shared`]: graph input `k` in the SHARED region, to fill in place
    /// (by the CPU, a DMA or another core) before [`Interpreter::invoke_in_place`].
    pub fn input_mut(&mut self, k: usize) -> Option<&mut [u8]> {
        if k >= self.inputs() {
            return None;
        }
        self.io[k].as_mut().map(|t| t.bytes_mut())
    }

    /// With [`IoPlacement::Shared`]: graph output `k` in the SHARED region, valid after an
    /// inference until the next one.
    pub fn output(&self, k: usize) -> Option<&[u8]> {
        let p = self.prog();
        if k >= p.outputs() {
            return None;
        }
        // A tensor listed twice is allocated once, at its first position.
        match p.io(p.inputs() + k)? {
            (_, Loc::Shared(first), _) => self.io.get(first)?.as_ref().map(|t| t.bytes()),
            _ => None,
        }
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
        self.run(runner, Some(input), Some(output), None)
    }

    /// Runs one inference on the inputs already in the SHARED region
    /// ([`Interpreter::input_mut`]); outputs stay there ([`Interpreter::output`]).
    pub fn invoke_in_place(&mut self, runner: &mut Runner<'a>) -> Result<(), RunError> {
        self.run(runner, None, None, None)
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
        self.run(runner, input, output, Some(observe))
    }

    /// The inference of [`Interpreter::invoke_observed`], observed or not.
    fn run(
        &mut self,
        runner: &mut Runner<'a>,
        input: Option<&[u8]>,
        output: Option<&mut [u8]>,
        mut observe: Observer<'_, '_>,
    ) -> Result<(), RunError> {
        let Interpreter {
            model,
            program,
            plan,
            io,
            placement,
            ..
        } = self;
        let overlaps: &[OverlapPair] = plan.overlaps();
        let words: &[u32] = match program {
            Store::Flash(w) => w,
            Store::Ram(t) => t.as_slice::<u32>().unwrap_or(&[]),
        };
        let prog = Program::new(words).ok_or(RunError::Program { at: 0 })?;
        let (n_inputs, n_outputs) = (prog.inputs(), prog.outputs());
        if let Some(i) = input {
            let expected = prog.header(program::h::INPUT_BYTES);
            if i.len() != expected {
                return Err(RunError::Io {
                    what: "input",
                    expected,
                    got: i.len(),
                });
            }
        }
        if let Some(o) = &output {
            let expected = prog.header(program::h::OUTPUT_BYTES);
            if o.len() != expected {
                return Err(RunError::Io {
                    what: "output",
                    expected,
                    got: o.len(),
                });
            }
        }
        if *placement == IoPlacement::Plan && input.is_none() {
            return Err(RunError::Io {
                what: "input (I/O in the plan needs the input bytes)",
                expected: prog.header(program::h::INPUT_BYTES),
                got: 0,
            });
        }
        let model: &[u8] = model;
        let n_ops = prog.ops();
        let bad = |at: usize| RunError::Program { at };
        runner.planned(plan, |p| -> Result<(), RunError> {
            // Place every planned activation at its offset, unless the load or an earlier
            // inference left them there. Only this interpreter places tensors of its plan (the
            // handle is private), always every slot in slot order with the same shape and type,
            // so the last slot placed in this region means every slot is (a region that moved
            // since finds none placed; a placement that failed part-way left the last one
            // out). Every view still checks its own slot.
            let n_slots = prog.slots();
            if n_slots > 0 && !p.placed(n_slots - 1) {
                for s in 0..n_slots {
                    let (shape, n, dtype) = prog.slot(s).ok_or(bad(program::HEADER_WORDS))?;
                    p.alloc(s, &shape[..n], dtype)?;
                }
            }
            // Graph inputs: into the SHARED region or their slots.
            if let Some(input) = input {
                let mut off = 0;
                for k in 0..n_inputs {
                    let (_, loc, n) = prog.io(k).ok_or(bad(program::HEADER_WORDS))?;
                    let src = input.get(off..off + n).ok_or(bad(program::HEADER_WORDS))?;
                    off += n;
                    match loc {
                        Loc::Slot(s) => {
                            with_views(p, 0, &[s], |v| v[0].bytes_mut().copy_from_slice(src))?
                        }
                        _ => {
                            if let Some(t) = io.get_mut(k).and_then(|t| t.as_mut()) {
                                t.bytes_mut().copy_from_slice(src);
                            }
                        }
                    }
                }
            }
            let mut at = prog.header(program::h::OPS_AT);
            let shared_io = *placement == IoPlacement::Shared;
            // The next declared overlap (in operator order, checked at load).
            let mut next_pair = 0;
            for i in 0..n_ops {
                let (rec, next) = prog.op(at).ok_or(bad(at))?;
                let n_in = rec.n_inputs();
                if n_in > MAX_OP_INPUTS {
                    return Err(bad(at));
                }
                let rec_at = at;
                at = next;

                // A declared overlap whose slots share bytes: the operator runs overlapped, on
                // the core's one span holding its input and output.
                // (The planner may declare a pair whose blocks do not share bytes: the operator
                // then runs as in a plain plan.)
                if let Some(pair) = overlaps.get(next_pair).filter(|q| usize::from(q.op) == i) {
                    let q = next_pair;
                    next_pair += 1;
                    let shared: &[Option<Tensor<'a>>] = if shared_io { io } else { &[] };
                    let ran = run_pair(
                        p,
                        &prog,
                        &rec,
                        q,
                        pair,
                        shared,
                        model,
                        observe.as_deref_mut(),
                    )
                    .map_err(|e| match e {
                        PairError::Kernel(error) => RunError::Kernel { op: i, error },
                        PairError::Alloc(e) => RunError::Alloc(e),
                        PairError::Program => bad(rec_at),
                    })?;
                    if ran {
                        continue;
                    }
                }

                let io_now: &mut [Option<Tensor<'a>>] = if shared_io { io } else { &mut [] };
                run_op(p, &rec, (i, rec_at), io_now, model, observe.as_deref_mut())?;
            }
            // Graph outputs: out of the SHARED region or their slots.
            if let Some(output) = output {
                let mut off = 0;
                let last = n_ops.saturating_sub(1) as u16;
                for k in n_inputs..n_inputs + n_outputs {
                    let (_, loc, n) = prog.io(k).ok_or(bad(program::HEADER_WORDS))?;
                    let dst = output
                        .get_mut(off..off + n)
                        .ok_or(bad(program::HEADER_WORDS))?;
                    off += n;
                    match loc {
                        Loc::Slot(s) => {
                            with_views(p, last, &[s], |v| dst.copy_from_slice(v[0].bytes()))?
                        }
                        Loc::Shared(first) => {
                            if let Some(t) = io.get(first).and_then(|t| t.as_ref()) {
                                dst.copy_from_slice(t.bytes());
                            }
                        }
                        _ => {}
                    }
                }
            }
            Ok(())
        })?
    }
}
