//! Memory plans: activations at precomputed offsets in an ephemeral region of exactly the
//! planned size (made by `synaptic-plan` / `synmem emit`).

use crate::dtype::DType;
use crate::error::ErrorKind;
use crate::tensor::{data_span, TensorRequest};

/// The overlap rule of lifetimes: two inclusive intervals `(first, last)` of operators (or
/// scopes) are live together when they share one. The one definition, used by
/// [`Plan::validate`] and by `synaptic-plan`'s lifetimes and planner.
///
/// ```
/// use synaptic_mem::plan::live_together;
/// assert!(live_together((0, 2), (2, 5)));
/// assert!(!live_together((0, 1), (2, 5)));
/// ```
#[inline(always)]
pub const fn live_together(a: (u64, u64), b: (u64, u64)) -> bool {
    a.0 <= b.1 && b.0 <= a.1
}

/// One planned activation tensor.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PlanSlot {
    /// Offset of the data from the start of the planned ephemeral region (multiple of 16).
    pub offset: u32,
    /// Bytes of data (the block spans `size` rounded up to 16).
    pub size: u32,
    /// First operator (execution order, 0-based) at which the tensor is live.
    pub first_op: u16,
    /// Last operator at which the tensor is live (inclusive).
    pub last_op: u16,
}

impl PlanSlot {
    /// End of the slot's block (offset + size rounded up to 16), in `u64` so that no slot's
    /// end wraps, on 32 or 64 bits.
    #[inline]
    pub const fn end(&self) -> u64 {
        self.offset as u64 + data_span(self.size as u64)
    }
    /// Whether the two slots are live at a common operator ([`live_together`]).
    #[inline]
    pub const fn lifetimes_overlap(&self, other: &PlanSlot) -> bool {
        live_together(
            (self.first_op as u64, self.last_op as u64),
            (other.first_op as u64, other.last_op as u64),
        )
    }
    /// Whether the two slots' blocks share a byte.
    #[inline]
    pub const fn memory_overlaps(&self, other: &PlanSlot) -> bool {
        (self.offset as u64) < other.end() && (other.offset as u64) < self.end()
    }
}

/// A plan: the size of the ephemeral region and one slot per activation.
///
/// ```
/// use synaptic_mem::plan::{Plan, PlanSlot};
/// const SLOTS: &[PlanSlot] = &[
///     PlanSlot { offset: 0, size: 100, first_op: 0, last_op: 1 },
///     PlanSlot { offset: 112, size: 40, first_op: 1, last_op: 2 },
///     PlanSlot { offset: 0, size: 64, first_op: 2, last_op: 3 }, // reuses slot 0's memory
/// ];
/// let plan = Plan { region_size: 160, slots: SLOTS };
/// assert_eq!(plan.validate(), Ok(()));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan<'p> {
    /// Bytes of the planned ephemeral region (multiple of 16).
    pub region_size: u32,
    /// One slot per activation, indexed by the runtime.
    pub slots: &'p [PlanSlot],
}

/// Why a plan is not usable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// The region size is not a multiple of 16.
    UnalignedRegion,
    /// Slot `0` has an offset that is not a multiple of 16.
    UnalignedOffset(usize),
    /// Slot `0` ends beyond the region.
    OutOfRegion(usize),
    /// Slot `0` has `first_op > last_op` or a zero size.
    BadSlot(usize),
    /// Slots `.0` and `.1` are live at the same time and share memory.
    Overlap(usize, usize),
    /// A typed plan's slot `0` has an invalid type (ndim 0 or > 4, a zero dimension, an
    /// unknown dtype, a size overflow: the [`ErrorKind`] says which) or one larger than the
    /// slot.
    BadType(usize, ErrorKind),
    /// A typed plan has `.1` slot types for `.0` slots.
    TypeCount(usize, usize),
    /// Declared overlap `0` is malformed: a slot out of range, the same slot twice, the
    /// output not born or the input not dying at its operator, two declarations of one pair, or
    /// two directions for one operator.
    BadOverlap(usize),
}

impl core::fmt::Display for PlanError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            PlanError::UnalignedRegion => f.write_str("plan region size is not a multiple of 16"),
            PlanError::UnalignedOffset(i) => write!(f, "slot {i}: offset not 16-byte aligned"),
            PlanError::OutOfRegion(i) => write!(f, "slot {i}: ends beyond the plan's region"),
            PlanError::BadSlot(i) => write!(f, "slot {i}: empty size or first_op > last_op"),
            PlanError::Overlap(a, b) => {
                write!(
                    f,
                    "slots {a} and {b} are live together and overlap in memory"
                )
            }
            PlanError::BadType(i, kind) => {
                write!(f, "slot {i}: bad tensor type ({})", kind.describe())
            }
            PlanError::TypeCount(n, t) => write!(f, "{t} slot types for {n} slots"),
            PlanError::BadOverlap(i) => write!(
                f,
                "declared overlap {i}: slot out of range, not an output born and an input \
                 dying at its operator, or a second declaration or direction"
            ),
        }
    }
}

/// The direction an overlapped operator runs in (see [`OverlapPair`]).
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OverlapDirection {
    /// Output elements first to last; safe while `output.offset − input.offset ≤ bound`.
    Forward = 0,
    /// Output elements last to first; safe while `output.offset − input.offset ≥ bound`.
    Backward = 1,
}

/// A declared overlap of an operator's output slot with one of its input slots (issue 12):
/// operator `op` reads slot `input` (which dies at `op`) and writes slot `output` (born at
/// `op`) in `direction`, and the two slots may share bytes as long as the delta
/// `output.offset − input.offset` stays within `bound` (the kernel's safe overlap, derived from
/// its access contract by `synaptic_run::contract`: the largest safe delta forward, the smallest
/// backward). A runtime that executes such a plan must re-derive the bound from its own
/// contract and refuse a declaration that claims more.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OverlapPair {
    /// The operator (execution order).
    pub op: u16,
    /// The input slot (dies at `op`).
    pub input: u16,
    /// The output slot (born at `op`).
    pub output: u16,
    /// The direction the operator runs in.
    pub direction: OverlapDirection,
    /// The safe delta bound in bytes (see [`OverlapDirection`]).
    pub bound: i32,
}

impl OverlapPair {
    /// Whether slots at `input_offset` and `output_offset` are within the declared bound.
    #[inline]
    pub const fn admits(&self, input_offset: u32, output_offset: u32) -> bool {
        let d = output_offset as i64 - input_offset as i64;
        match self.direction {
            OverlapDirection::Forward => d <= self.bound as i64,
            OverlapDirection::Backward => d >= self.bound as i64,
        }
    }
}

impl Plan<'_> {
    /// Checks every slot: aligned, inside the region, and disjoint in memory from every slot
    /// whose lifetime overlaps its own. O(n²), done once when a plan is loaded. The same rule as
    /// [`Self::validate_overlapped`] with no declared overlap.
    pub fn validate(&self) -> Result<(), PlanError> {
        self.validate_overlapped(&[])
    }

    /// The validity rule of every plan, overlapped or not — the one place it is written: every
    /// slot aligned, non-empty and inside the region; two slots live at a common operator share
    /// no byte **unless** they are a declared [`OverlapPair`] (the input slot dying and the
    /// output slot born at its operator, so that operator is the only one where both are live)
    /// whose offset delta is within its declared bound. Every declaration must be well formed
    /// ([`PlanError::BadOverlap`]) even where its slots happen to be disjoint. O(n² + n·k) for
    /// `k` declarations, done once when a plan is loaded.
    ///
    /// ```
    /// use synaptic_mem::plan::{OverlapDirection, OverlapPair, Plan, PlanError, PlanSlot};
    /// // Operator 1 reads slot 0 (dies at 1) and writes slot 1 (born at 1), backward,
    /// // safe for output − input ≥ 7: the output starts 16 bytes into the input.
    /// let slots = [
    ///     PlanSlot { offset: 0, size: 32, first_op: 0, last_op: 1 },
    ///     PlanSlot { offset: 16, size: 64, first_op: 1, last_op: 2 },
    /// ];
    /// let pair = OverlapPair { op: 1, input: 0, output: 1, direction: OverlapDirection::Backward, bound: 7 };
    /// let plan = Plan { region_size: 80, slots: &slots };
    /// assert_eq!(plan.validate_overlapped(&[pair]), Ok(()));
    /// assert_eq!(plan.validate(), Err(PlanError::Overlap(0, 1)));
    /// let tight = OverlapPair { bound: 17, ..pair };
    /// assert_eq!(plan.validate_overlapped(&[tight]), Err(PlanError::Overlap(0, 1)));
    /// ```
    pub fn validate_overlapped(&self, pairs: &[OverlapPair]) -> Result<(), PlanError> {
        for (k, p) in pairs.iter().enumerate() {
            let (i, o) = (p.input as usize, p.output as usize);
            let (Some(si), Some(so)) = (self.slots.get(i), self.slots.get(o)) else {
                return Err(PlanError::BadOverlap(k));
            };
            if i == o || si.last_op != p.op || so.first_op != p.op {
                return Err(PlanError::BadOverlap(k));
            }
            // One declaration per pair, and one direction per operator.
            if pairs[..k].iter().any(|q| {
                (q.input, q.output) == (p.input, p.output)
                    || (q.op == p.op && q.direction != p.direction)
            }) {
                return Err(PlanError::BadOverlap(k));
            }
        }
        if self.region_size % 16 != 0 {
            return Err(PlanError::UnalignedRegion);
        }
        for (i, s) in self.slots.iter().enumerate() {
            if s.offset % 16 != 0 {
                return Err(PlanError::UnalignedOffset(i));
            }
            if s.size == 0 || s.first_op > s.last_op {
                return Err(PlanError::BadSlot(i));
            }
            if s.end() > self.region_size as u64 {
                return Err(PlanError::OutOfRegion(i));
            }
            for (j, t) in self.slots[..i].iter().enumerate() {
                if s.lifetimes_overlap(t) && s.memory_overlaps(t) {
                    let declared = pairs.iter().any(|p| {
                        let (a, b) = (p.input as usize, p.output as usize);
                        ((a, b) == (j, i) && p.admits(t.offset, s.offset))
                            || ((a, b) == (i, j) && p.admits(s.offset, t.offset))
                    });
                    if !declared {
                        return Err(PlanError::Overlap(j, i));
                    }
                }
            }
        }
        Ok(())
    }
}

/// The tensor a slot holds: shape and data type, the template of the slot's descriptor in a
/// typed plan ([`RawArena::load_typed_plan`](crate::RawArena::load_typed_plan)). `#[repr(C)]`:
/// the C API's `syn_plan_type_t` (20 bytes), what `synmem emit --lang c` writes per slot.
///
/// ```
/// use synaptic_mem::{plan::SlotType, DType};
/// let t = SlotType::new([1, 8, 8, 3], 4, DType::Int8);
/// assert_eq!(t.request().unwrap().bytes(), 192);
/// assert!(SlotType::new([1, 1, 1, 1], 5, DType::Int8).request().is_err());
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SlotType {
    /// Dimensions; only the first `ndim` are read.
    pub shape: [u32; 4],
    /// Number of dimensions, 1..=4.
    pub ndim: u8,
    /// A [`DType`] value (`DType as u8`), checked at load.
    pub dtype: u8,
}

impl SlotType {
    /// A slot type of `ndim` dimensions of `shape` and `dtype`.
    pub const fn new(shape: [u32; 4], ndim: u8, dtype: DType) -> SlotType {
        SlotType {
            shape,
            ndim,
            dtype: dtype as u8,
        }
    }

    /// The validated request (shape, dtype, bytes) the slot's descriptor is made from.
    pub fn request(&self) -> Result<TensorRequest, ErrorKind> {
        let dtype = DType::from_u8(self.dtype).ok_or(ErrorKind::InvalidDtype)?;
        if self.ndim > 4 {
            return Err(ErrorKind::InvalidNdim);
        }
        TensorRequest::new(&self.shape[..self.ndim as usize], dtype)
    }
}

/// A plan loaded into an arena: its descriptor table lives in the persistent region.
/// Made by [`RawArena::load_plan`](crate::RawArena::load_plan) or
/// [`Loader::load_plan`](crate::Loader::load_plan). Its fields are private: it records where
/// its table is, in which arena and generation, and every use checks them (so a plan from
/// another arena, or from before a re-initialisation, is refused, never written through).
#[derive(Clone, Copy, Debug)]
pub struct LoadedPlan<'p> {
    pub(crate) plan: Plan<'p>,
    /// The declared overlaps it was validated with (empty for a plain plan).
    pub(crate) overlaps: &'p [OverlapPair],
    /// Offset of the descriptor table from the arena base.
    pub(crate) table: usize,
    /// End of the descriptor table (`table + 32 × slots`).
    pub(crate) table_end: usize,
    /// Address of the arena base it was loaded into.
    pub(crate) arena: usize,
    /// The arena's generation at load (changes at every re-initialisation).
    pub(crate) generation: u32,
}

impl<'p> LoadedPlan<'p> {
    /// The plan.
    pub fn plan(&self) -> &Plan<'p> {
        &self.plan
    }

    /// The declared output/input overlaps it was validated with (empty for a plain plan).
    pub fn overlaps(&self) -> &'p [OverlapPair] {
        self.overlaps
    }
}

/// A declared overlap's two slots as one mutable span (from
/// [`PlannedInference::overlapped`](crate::PlannedInference::overlapped)): the operator reads
/// its input at `bytes[input..input + input_bytes]` and writes its output at
/// `bytes[output..output + output_bytes]` in `direction` — one `&mut [u8]`, so a kernel that
/// takes the buffer and the two offsets (`synaptic_run::kernels::overlapped`) needs no aliasing
/// borrows.
#[derive(Debug)]
pub struct OverlapSpan<'t> {
    /// The union of the two slots' blocks.
    pub bytes: &'t mut [u8],
    /// Offset of the input in `bytes`.
    pub input: usize,
    /// Offset of the output in `bytes`.
    pub output: usize,
    /// Bytes of the input slot.
    pub input_bytes: usize,
    /// Bytes of the output slot.
    pub output_bytes: usize,
    /// The declared direction.
    pub direction: OverlapDirection,
    /// The operator.
    pub op: u16,
}

/// One inference's planned ephemeral region (from
/// [`RawArena::begin_plan`](crate::RawArena::begin_plan)). Only `begin_plan` makes one: its
/// offset is always inside some arena's tensor space, so it cannot be forged to point anywhere
/// else:
///
/// ```compile_fail
/// let _ = synaptic_mem::PlanRegion { offset: usize::MAX - 15 };
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlanRegion {
    pub(crate) offset: usize,
}

impl PlanRegion {
    /// Offset of the region from the arena base.
    pub fn offset(&self) -> usize {
        self.offset
    }
}

/// A typed plan loaded into an arena by
/// [`RawArena::load_typed_plan`](crate::RawArena::load_typed_plan): its descriptor table, in the
/// persistent region, holds every slot's complete descriptor (shape, dtype, size, lifetime),
/// written once at load; [`RawArena::begin_typed_plan`](crate::RawArena::begin_typed_plan)
/// points their data at one inference's region. Plain integers (it keeps no reference to the
/// plan's slots), private, checked at every use like a [`LoadedPlan`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypedPlan {
    /// Offset of the descriptor table from the arena base.
    pub(crate) table: usize,
    /// End of the descriptor table (`table + 32 × len`).
    pub(crate) table_end: usize,
    /// Number of slots.
    pub(crate) len: usize,
    /// Bytes of the planned region (fitted the tensor space at load).
    pub(crate) region_size: usize,
    /// Slot 0's offset in the region (0 without slots): from it and slot 0's data pointer,
    /// `begin_typed_plan` knows where the table's data pointers point now.
    pub(crate) first_offset: usize,
    /// Address of the arena base it was loaded into.
    pub(crate) arena: usize,
    /// The arena's generation at load.
    pub(crate) generation: u32,
}

impl TypedPlan {
    /// Number of slots.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether the plan has no slots.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Bytes of the planned ephemeral region.
    pub fn region_size(&self) -> usize {
        self.region_size
    }
}

/// One inference of a [`TypedPlan`] (from
/// [`RawArena::begin_typed_plan`](crate::RawArena::begin_typed_plan)): what
/// [`RawArena::planned_tensor`](crate::RawArena::planned_tensor) needs to hand out a slot's
/// descriptor in O(1). Valid until the next reset or re-initialisation of the arena that made
/// it (its epoch); [`PlanRun::NOT_BEGUN`] (the default) is refused for every slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlanRun {
    /// Offset of the plan's descriptor table from the arena base.
    pub(crate) table: usize,
    /// Number of slots (0: not begun).
    pub(crate) len: usize,
    /// Address of the arena base.
    pub(crate) arena: usize,
    /// The arena's epoch at begin (changes at every reset and re-initialisation).
    pub(crate) epoch: u32,
}

impl PlanRun {
    /// A run that was never begun: every slot is refused.
    pub const NOT_BEGUN: PlanRun = PlanRun {
        table: 0,
        len: 0,
        arena: 0,
        epoch: 0,
    };

    /// Number of slots it hands out (0 if not begun).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it hands out no slot (never begun, or a plan without slots).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Default for PlanRun {
    fn default() -> Self {
        PlanRun::NOT_BEGUN
    }
}

/// Why a plan could not be loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanLoadError {
    /// The plan itself is inconsistent.
    Invalid(PlanError),
    /// Its descriptor table does not fit in (or may not grow) the persistent region.
    Alloc(crate::AllocError),
}

impl core::fmt::Display for PlanLoadError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            PlanLoadError::Invalid(e) => write!(f, "invalid plan: {e}"),
            PlanLoadError::Alloc(e) => write!(f, "plan descriptor table: {e}"),
        }
    }
}

impl core::error::Error for PlanError {}

impl core::error::Error for PlanLoadError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            PlanLoadError::Invalid(e) => Some(e),
            PlanLoadError::Alloc(e) => Some(e),
        }
    }
}
