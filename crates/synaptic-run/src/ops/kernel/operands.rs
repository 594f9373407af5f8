//! What a kernel reads and writes, as the interpreter hands it over: the operator's inputs
//! resolved when the kernel asks for one (no array of them is built), its output, its record's
//! tables ([`Operands`]); for an overlapped run, the one buffer holding the pair's input and
//! output instead ([`InPlaceOperands`]).

use synaptic_mem::{DType, Element, Scratch, Tensor};

use crate::error::{KernelError, Unsupported};
use crate::format::{Loc, OpRecord, Program};
use crate::ops::common::LeI32;
use crate::ops::{Geometry, InPlace};

/// An operator input: a tensor of the arena (viewed as the kernel needs), bytes of the model
/// read in place, or absent.
#[derive(Clone, Copy)]
pub(crate) enum In<'x, 't> {
    /// No input (optional, absent; or one the kernel does not get).
    Absent,
    /// An activation or graph I/O tensor in the arena.
    Arena(&'x Tensor<'t>),
    /// A constant, in place in the model bytes.
    Model(&'x [u8]),
}

impl<'x> In<'x, '_> {
    /// The bytes (empty when absent).
    #[inline]
    pub(crate) fn bytes(self) -> &'x [u8] {
        match self {
            In::Absent => &[],
            In::Arena(t) => t.bytes(),
            In::Model(b) => b,
        }
    }

    /// An int8 activation of the arena (`None`: a model constant, absent, another type).
    #[inline]
    pub(crate) fn i8(self) -> Option<&'x [i8]> {
        match self {
            In::Arena(t) => t.as_slice::<i8>().ok(),
            _ => None,
        }
    }

    /// An int16 activation of the arena.
    #[inline]
    pub(crate) fn i16(self) -> Option<&'x [i16]> {
        match self {
            In::Arena(t) => t.as_slice::<i16>().ok(),
            _ => None,
        }
    }

    /// A float32 activation of the arena.
    #[inline]
    pub(crate) fn f32(self) -> Option<&'x [f32]> {
        match self {
            In::Arena(t) => t.as_slice::<f32>().ok(),
            _ => None,
        }
    }
}

/// The graph I/O tensors in the SHARED region as an operator's inputs see them: every entry
/// but the operator's own output (borrowed mutably apart), by index among inputs then outputs.
#[derive(Clone, Copy)]
pub(crate) struct SharedIns<'x, 't> {
    /// Entries `0 .. out`.
    pub(crate) lo: &'x [Option<Tensor<'t>>],
    /// Entries `out + 1 ..`.
    pub(crate) hi: &'x [Option<Tensor<'t>>],
    /// The output's entry (`usize::MAX`: the output is not in the SHARED region).
    pub(crate) out: usize,
}

impl<'x, 't> SharedIns<'x, 't> {
    /// All of `io` as inputs (the output is not one of them).
    pub(crate) fn all(io: &'x [Option<Tensor<'t>>]) -> Self {
        SharedIns {
            lo: io,
            hi: &[],
            out: usize::MAX,
        }
    }

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
pub(crate) fn split_io<'x, 't>(
    io: &'x mut [Option<Tensor<'t>>],
    out: Option<usize>,
) -> (Option<&'x mut Tensor<'t>>, SharedIns<'x, 't>) {
    match out {
        Some(k) if k < io.len() => {
            let (lo, rest) = io.split_at_mut(k);
            let (o, hi) = rest.split_at_mut(1);
            (o[0].as_mut(), SharedIns { lo, hi, out: k })
        }
        _ => (None, SharedIns::all(io)),
    }
}

/// An operator's inputs, resolved when a kernel asks for one.
#[derive(Clone, Copy)]
pub(crate) struct Inputs<'x, 't> {
    pub(crate) rec: &'x OpRecord<'x>,
    /// The planned inputs' slots, distinct, in the order of `views`.
    pub(crate) slots: &'x [usize],
    /// Their views (the output's excluded).
    pub(crate) views: &'x [Tensor<'t>],
    /// Graph I/O tensors in the SHARED region (the output's excluded).
    pub(crate) shared: SharedIns<'x, 't>,
    /// The model bytes (constants).
    pub(crate) model: &'x [u8],
}

impl<'x, 't> Inputs<'x, 't> {
    /// Input `k` (absent past the last, or a slot without a view).
    #[inline]
    pub(crate) fn get(&self, k: usize) -> In<'x, 't> {
        match self.rec.input(k) {
            Some(Loc::Slot(s)) => self
                .slots
                .iter()
                .position(|&x| x == s)
                .and_then(|j| self.views.get(j))
                .map_or(In::Absent, In::Arena),
            Some(Loc::Shared(s)) => self.shared.get(s).map_or(In::Absent, In::Arena),
            Some(Loc::Model { offset, len }) => In::Model(
                offset
                    .checked_add(len)
                    .and_then(|end| self.model.get(offset..end))
                    .unwrap_or(&[]),
            ),
            _ => In::Absent,
        }
    }
}

/// The error of an operand that is not what the load prepared (cannot happen for a program
/// that loaded: it was compiled from the model, or sealed to it).
pub(crate) fn differs(op: &'static str) -> KernelError {
    KernelError::unsupported(op, Unsupported::ProgramMismatch)
}

/// The inputs and tables of a record, shared by [`Operands`] and [`InPlaceOperands`].
macro_rules! input_accessors {
    () => {
        /// Input `k`.
        #[inline]
        #[allow(dead_code)]
        pub(crate) fn input(&self, k: usize) -> In<'x, 't> {
            self.ins.get(k)
        }

        /// Number of inputs.
        #[inline]
        pub(crate) fn n_inputs(&self) -> usize {
            self.ins.rec.n_inputs()
        }

        /// Input `k` as an int8 activation.
        #[inline]
        pub(crate) fn i8(&self, k: usize) -> Result<&'x [i8], KernelError> {
            self.ins.get(k).i8().ok_or_else(|| differs(self.name))
        }

        /// Input `k`'s bytes (a weight or constant in place; empty when absent).
        #[inline]
        pub(crate) fn bytes(&self, k: usize) -> &'x [u8] {
            self.ins.get(k).bytes()
        }

        /// Input `k` as an int32 bias read in place (`None`: absent).
        #[inline]
        pub(crate) fn bias(&self, k: usize) -> Option<LeI32<'x>> {
            Some(self.ins.get(k).bytes())
                .filter(|b| !b.is_empty())
                .map(LeI32)
        }

        /// The record's requantization multipliers.
        #[inline]
        pub(crate) fn multipliers(&self) -> &'x [u32] {
            self.ins.rec.multipliers
        }

        /// The record's requantization shifts.
        #[inline]
        pub(crate) fn shifts(&self) -> &'x [u32] {
            self.ins.rec.shifts
        }

        /// The record's per-channel accumulator constants.
        #[inline]
        pub(crate) fn constants(&self) -> &'x [u32] {
            self.ins.rec.constants
        }
    };
}

/// A kernel's operands for a plain run (its output a tensor of lifetime `'o`: a planned view
/// or a graph output in the SHARED region).
pub(crate) struct Operands<'x, 't, 'o> {
    /// The operator, as TFLite names it (set by the dispatcher: errors).
    pub(crate) name: &'static str,
    pub(crate) ins: Inputs<'x, 't>,
    pub(crate) out: &'x mut Tensor<'o>,
    /// The second output's bytes if it is a planned tensor (SignalFftAutoScale's scale); a
    /// second output holding the kernel's own state is `states[0]` instead.
    pub(crate) out2: Option<&'x mut [u8]>,
    /// The operator's block of the scratch pool for this call: what its kernel's
    /// `scratch_bytes` asked (empty for most kernels).
    pub(crate) scratch: Scratch<'x>,
    /// The bytes of the variable tensors among its inputs (state it reads and updates), in
    /// input order: the first [`MAX_OP_STATES`].
    pub(crate) states: [Option<&'x mut [u8]>; MAX_OP_STATES],
}

/// Most variable tensors one operator reads and updates (LSTM: its output and cell state).
pub(crate) const MAX_OP_STATES: usize = 2;
// The interpreter's lookup (`state_views`) handles one or two.
const _: () = assert!(MAX_OP_STATES == 2);

impl<'x, 't> Operands<'x, 't, '_> {
    input_accessors!();

    /// Input `k` as a float32 activation.
    #[inline]
    pub(crate) fn f32(&self, k: usize) -> Result<&'x [f32], KernelError> {
        self.ins.get(k).f32().ok_or_else(|| differs(self.name))
    }

    /// The output this run writes (0 but for a kernel run once per output:
    /// [`crate::ops::Kernel::PER_OUTPUT`]).
    #[inline]
    pub(crate) fn part(&self) -> usize {
        self.ins.rec.part
    }

    /// The output's element type.
    #[inline]
    pub(crate) fn out_dtype(&self) -> DType {
        self.out.dtype()
    }

    /// Input `k` as an activation of the arena of element type `T` (its data type's).
    #[inline]
    pub(crate) fn slice<T: Element>(&self, k: usize) -> Result<&'x [T], KernelError> {
        match self.ins.get(k) {
            In::Arena(t) => t.as_slice::<T>().map_err(|_| differs(self.name)),
            _ => Err(differs(self.name)),
        }
    }

    /// The output as element type `T` (its data type's).
    #[inline]
    pub(crate) fn out_slice<T: Element>(&mut self) -> Result<&mut [T], KernelError> {
        let name = self.name;
        self.out.as_mut_slice::<T>().map_err(|_| differs(name))
    }

    /// The output as int8.
    #[inline]
    pub(crate) fn out_i8(&mut self) -> Result<&mut [i8], KernelError> {
        let name = self.name;
        self.out.as_mut_slice::<i8>().map_err(|_| differs(name))
    }

    /// Input `k` as an int16 activation.
    #[inline]
    pub(crate) fn i16(&self, k: usize) -> Result<&'x [i16], KernelError> {
        self.ins.get(k).i16().ok_or_else(|| differs(self.name))
    }

    /// The output as int16.
    #[inline]
    pub(crate) fn out_i16(&mut self) -> Result<&mut [i16], KernelError> {
        let name = self.name;
        self.out.as_mut_slice::<i16>().map_err(|_| differs(name))
    }

    /// The output as int32.
    #[inline]
    pub(crate) fn out_i32(&mut self) -> Result<&mut [i32], KernelError> {
        let name = self.name;
        self.out.as_mut_slice::<i32>().map_err(|_| differs(name))
    }

    /// Input `k` as a uint32 activation (uint32 tensors are INT32 words in the arena).
    #[inline]
    pub(crate) fn u32s(&self, k: usize) -> Result<&'x [u32], KernelError> {
        match self.ins.get(k) {
            In::Arena(t) => t.as_slice::<u32>().map_err(|_| differs(self.name)),
            _ => Err(differs(self.name)),
        }
    }

    /// Input `k` as an int32 activation of the arena.
    #[inline]
    pub(crate) fn i32s(&self, k: usize) -> Result<&'x [i32], KernelError> {
        match self.ins.get(k) {
            In::Arena(t) => t.as_slice::<i32>().map_err(|_| differs(self.name)),
            _ => Err(differs(self.name)),
        }
    }

    /// The output as uint32.
    #[inline]
    pub(crate) fn out_u32(&mut self) -> Result<&mut [u32], KernelError> {
        let name = self.name;
        self.out.as_mut_slice::<u32>().map_err(|_| differs(name))
    }

    /// The output as float32.
    #[inline]
    pub(crate) fn out_f32(&mut self) -> Result<&mut [f32], KernelError> {
        let name = self.name;
        self.out.as_mut_slice::<f32>().map_err(|_| differs(name))
    }

    /// The output's bytes.
    #[inline]
    pub(crate) fn out_bytes(&mut self) -> &mut [u8] {
        self.out.bytes_mut()
    }
}

/// A kernel's operands for an overlapped run: its input `k` and its output in one buffer
/// (`buf`, at `at`), its other inputs resolved as for a plain run.
pub(crate) struct InPlaceOperands<'x, 't> {
    /// The operator, as TFLite names it (set by the dispatcher: errors).
    pub(crate) name: &'static str,
    /// The other inputs (the pair's input `k` resolves to nothing).
    pub(crate) ins: Inputs<'x, 't>,
    /// The buffer holding the pair's input and output.
    pub(crate) buf: &'x mut [u8],
    /// Where they lie in it, and the direction to run.
    pub(crate) at: InPlace,
    /// The pair's input position among the operator's inputs.
    pub(crate) k: usize,
    /// The program (the output's geometry, from its slot table, when a kernel asks).
    pub(crate) prog: Program<'x>,
    /// The output's plan slot.
    pub(crate) out_slot: usize,
    /// The operator's block of the scratch pool for this call (as [`Operands::scratch`]).
    pub(crate) scratch: Scratch<'x>,
}

// Not every accessor has an in-place user yet.
#[allow(dead_code)]
impl<'x, 't> InPlaceOperands<'x, 't> {
    input_accessors!();

    /// The output tensor's elements and bytes (from the program's slot table; the kernels
    /// whose parameters hold no count ask).
    pub(crate) fn out(&self) -> Result<Geometry, KernelError> {
        self.prog
            .slot_geometry(self.out_slot)
            .ok_or_else(|| differs(self.name))
    }
}
