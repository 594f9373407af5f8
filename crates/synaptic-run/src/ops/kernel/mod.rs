//! The kernel plumbing every operator family builds on, and nothing operator-specific: the
//! element traits and shape rules ([`common`]), the float32 arithmetic TFLM's reference kernels
//! use ([`float`]), overlapped execution on one buffer ([`in_place`]), what a kernel is handed
//! (`operands`), what a preparation works with and returns (`prep`), the program's
//! per-entry tables (`tables`) and the kernels' paths ([`paths`]); and what every kernel is:
//! its kind code (`Kind`), its entry points (`Kernel`) and the sets of kernels an image links
//! ([`OpSet`]). The operator list and its dispatch are `ops/mod.rs`; the operators are the
//! family folders beside this one.

pub mod common;
pub mod float;
pub mod in_place;
mod kinds;
pub(crate) mod names;
pub(crate) mod operands;
pub mod paths;
pub(crate) mod prep;
pub(crate) mod tables;

use crate::contract::Contract;
use crate::error::{KernelError, Unsupported};
use crate::format::codec::Words;
use crate::format::Geometry;
pub use kinds::Kinds;
use operands::{InPlaceOperands, Operands};

/// The kind code of a kernel: which kernel a program record runs (given by the list).
pub(crate) trait Kind {
    /// The code.
    const KIND: u32;
    /// Whether this build has the kernel (a list entry `if "feature"` is built only with that
    /// cargo feature): every dispatch arm of a kernel not built is a constant-false guard, so
    /// its code is not linked, and its operator is refused at load.
    const BUILT: bool;
}

/// The kernels an interpreter links: its type parameter ([`crate::Interpreter::with_program_ops`]),
/// as TFLM's `MicroMutableOpResolver` registers them. The dispatch arms (`run`, `run_in_place`,
/// `contract`) and the preparation of a kernel not in the set are constant-false, so an image
/// for one model carries only that model's kernels; a model that needs another one is refused
/// at load ([`Unsupported::NotLinked`]), never run wrong. [`AllOps`] (the default) links
/// every kernel of this build; a model's set is [`crate::program::kinds`] of its program
/// (`synmem emit` and the firmware's build script write it as an `OpSet` type).
pub trait OpSet {
    /// The kernels linked: kind `k` in the set, the kernel of kind `k` (kinds are below
    /// [`Kinds::BITS`]).
    const KINDS: Kinds;
    /// The kernels' paths linked ([`paths`]: the variants a model's operators take, a model's
    /// [`crate::program::paths`]); every one unless named. A program with a record whose
    /// path is left out is refused at load, as one of a kernel not linked.
    const PATHS: u64 = u64::MAX;
}

/// Every kernel this build has (the interpreter's default [`OpSet`]).
#[derive(Debug, Clone, Copy)]
pub struct AllOps;

impl OpSet for AllOps {
    const KINDS: Kinds = Kinds::ALL;
}

/// Whether kernel `kind` is in `kinds` (an [`OpSet::KINDS`] mask).
#[inline(always)]
pub(crate) const fn linked(kinds: Kinds, kind: u32) -> bool {
    kinds.contains(kind)
}

/// One kernel of an operator: what the interpreter runs for a program record of its kind.
pub(crate) trait Kernel {
    /// The operator, as TFLite names it (errors).
    const NAME: &'static str;
    /// The builtins (of its module's `BUILTINS`) this kernel runs when not all of them (the
    /// comparisons' bool kernel: EQUAL and NOT_EQUAL only); empty: every one. What
    /// [`crate::ops::kinds_of`] and `synmem ops` say a builtin runs on.
    const ONLY: &'static [i32] = &[];
    /// Everything the kernel needs besides the data, as stored in the program.
    type Params: Words + Copy;

    /// Runs the kernel on its resolved operands.
    fn run(p: &Self::Params, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError>;

    /// Whether the kernel has paths ([`paths`], [`Kernel::paths`]); false: nothing is decoded
    /// or tested for them.
    const PATHS: bool = false;

    /// The paths ([`paths`]) the kernel takes for parameters `p` of a record that carries
    /// folded constants or not (`constants`): every one its [`Kernel::run_linked`] and
    /// [`Kernel::run_in_place_linked`] may take for them.
    fn paths(_p: &Self::Params, _constants: bool) -> u64 {
        0
    }

    /// [`Kernel::run`] in an image that links only the paths of `O` ([`OpSet::PATHS`]): what
    /// the interpreter calls (at load it refused a record whose [`Kernel::paths`] are not
    /// among them). A kernel with paths implements it, its `run` with every path, and
    /// refuses parameters of a path not linked itself ([`Unsupported::NotLinked`], the
    /// test constant where the image links one way only), never taking another.
    #[inline(always)]
    fn run_linked<O: OpSet>(
        p: &Self::Params,
        io: &mut Operands<'_, '_, '_>,
    ) -> Result<(), KernelError> {
        Self::run(p, io)
    }

    /// [`Kernel::run_in_place`] with only the paths of `O`, as [`Kernel::run_linked`].
    #[inline(always)]
    fn run_in_place_linked<O: OpSet>(
        p: &Self::Params,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        Self::run_in_place(p, io)
    }

    /// The access contract for input `k` ([`crate::contract`]) if the output may overlap it
    /// ([`Kernel::run_in_place`] runs then), `out` the output tensor. `None`: no overlap.
    fn contract(_p: &Self::Params, _k: usize, _out: Geometry) -> Option<Contract> {
        None
    }

    /// Runs the kernel with its input `io.k` and its output in one buffer (the contract's
    /// overlap); returns the output's bytes. Only called where [`Kernel::contract`] gave a
    /// contract for that input.
    fn run_in_place(
        _p: &Self::Params,
        _io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        Err(KernelError::unsupported(Self::NAME, Unsupported::InPlace))
    }

    /// Whether [`Kernel::run_in_place`] may run only forward (its contract has no backward
    /// direction: it reads a row before writing any of it).
    const FORWARD_ONLY: bool = false;

    /// The input position [`Kernel::run_in_place`] takes in the buffer when it is always the
    /// same one and the kernel reads no other planned input in place (the usual case: input
    /// 0); `None`: the pair's input and the other planned input are found from the record
    /// (ADD, MUL: either operand).
    const PAIR_INPUT: Option<usize> = Some(0);

    /// The most inputs an operator of this kernel has (its `prepare`'s bound; a record with
    /// more is refused at load, by [`Prepared`] too): with [`Kernel::OUTPUTS`], the most
    /// planned tensors it views at once ([`views`]), so an interpreter links no view list
    /// longer than its kernels take.
    const MAX_INPUTS: usize = crate::limits::MAX_OP_INPUTS;

    /// The operator's outputs (every one written by [`Kernel::run`]; a second one is
    /// `Operands::out2`, or `Operands::states` when it holds the kernel's own state).
    const OUTPUTS: usize = 1;

    /// Whether the operator has one output or more (up to [`crate::limits::MAX_OP_OUTPUTS`],
    /// each planned or graph I/O) and its kernel runs once per output, writing output
    /// `Operands::part` (SPLIT, UNPACK: each output a part of the input); [`Kernel::OUTPUTS`]
    /// is then 1, the views of one run.
    const PER_OUTPUT: bool = false;

    /// Whether the kernel reads and updates variable tensors (state kept across invocations:
    /// `Operands::states`).
    const STATE: bool = false;

    /// The inputs (bit `k`: input `k`) the kernel reads as state (`Operands::states`) when
    /// they are variable tensors or another kernel's own state; any other input that is
    /// such a tensor is refused at load (the kernel would find no view of it).
    const STATE_INPUTS: u32 = 0;

    /// Whether the kernel may stop the inference after it (`KernelError::Abort`, TFLM's
    /// `kTfLiteAbort`: CIRCULAR_BUFFER); an interpreter linking none has no code for it.
    const ABORTS: bool = false;

    /// Whether the kernel keeps a private state across invocations (TFLM's persistent buffer
    /// of a signal library kernel: a delay line, a frame stacker's frames): a PERSISTENT
    /// buffer of [`Kernel::private_state_bytes`] the load allocates, zeroed at load and by a
    /// state reset, handed to each run as the last of `Operands::states`. All-zero bytes are
    /// the kernel's initial state (its positions and counts included). Only read for an
    /// operator code of [`crate::ops::private_state`].
    const PRIVATE_STATE: bool = false;

    /// The bytes of the kernel's private state ([`Kernel::PRIVATE_STATE`]) for parameters `p`.
    fn private_state_bytes(_p: &Self::Params) -> usize {
        0
    }

    /// Whether the kernel takes scratch ([`Kernel::scratch_bytes`]); false: the interpreter
    /// opens no block for it and decodes nothing to ask.
    const SCRATCH: bool = false;

    /// Scratch bytes the kernel takes per call from the spec's scratch pool (its buffer-size
    /// function, as CMSIS-NN's `arm_<op>_get_buffer_size`): the interpreter opens a block of
    /// this size around each call and gives it back after; the pool is the largest over the
    /// graph. Only read when [`Kernel::SCRATCH`].
    fn scratch_bytes(_p: &Self::Params) -> usize {
        0
    }
}
