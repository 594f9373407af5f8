//! The safe, scoped API: the compiler enforces the spec's lifetimes.
//!
//! * [`Arena`] owns the state over a borrowed buffer. [`Arena::split`] gives a [`Loader`]
//!   (persistent and shared tensors, usable for as long as the split lasts) and a [`Runner`].
//! * [`Runner::inference`] runs one inference in a scope: ephemeral tensors and scratch buffers
//!   borrow the scope, and the ephemeral reset happens when it ends (also on unwind). Using an
//!   ephemeral tensor after that reset does not compile.
//! * [`Arena::reinit`] reclaims everything, persistent memory included; it needs `&mut Arena`,
//!   so no tensor can be alive across it.
//!
//! ```
//! use synaptic_mem::{Arena, ArenaBuffer, DType};
//! let mut buf = ArenaBuffer::<{ 128 * 1024 }>::new();
//! let mut arena = Arena::new(buf.as_mut_slice()).unwrap();
//! let (loader, mut runner) = arena.split();
//! let mut weights = loader.persistent(&[8, 8], DType::Int8).unwrap();
//! weights.as_mut_slice::<i8>().unwrap().fill(3);
//! for _ in 0..10 {
//!     let sum = runner.inference(|inf| {
//!         let mut act = inf.ephemeral(&[1, 8], DType::Int32).unwrap();
//!         let scratch = inf.scratch(256).unwrap();
//!         scratch.fill(0);
//!         let w = weights.as_slice::<i8>().unwrap();
//!         for (i, a) in act.as_mut_slice::<i32>().unwrap().iter_mut().enumerate() {
//!             *a = w[i * 8..i * 8 + 8].iter().map(|&x| x as i32).sum();
//!         }
//!         act.as_slice::<i32>().unwrap().iter().sum::<i32>()
//!     });
//!     assert_eq!(sum, 192);
//! }
//! assert_eq!(runner.stats().reset_count, 10);
//! assert_eq!(runner.stats().ephemeral_used, 0);
//! ```
//!
//! An ephemeral tensor cannot outlive its inference:
//!
//! ```compile_fail
//! use synaptic_mem::{Arena, ArenaBuffer, DType};
//! let mut buf = ArenaBuffer::<8192>::new();
//! let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
//! let (_loader, mut runner) = arena.split();
//! let escaped = runner.inference(|inf| inf.ephemeral(&[4], DType::Int8).unwrap());
//! ```
//!
//! Nor be smuggled out through a captured variable:
//!
//! ```compile_fail
//! use synaptic_mem::{Arena, ArenaBuffer, DType, Tensor};
//! let mut buf = ArenaBuffer::<8192>::new();
//! let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
//! let (_loader, mut runner) = arena.split();
//! let mut slot: Option<Tensor<'_>> = None;
//! runner.inference(|inf| slot = Some(inf.ephemeral(&[4], DType::Int8).unwrap()));
//! runner.inference(|_| ());
//! let _ = slot.unwrap().bytes();
//! ```
//!
//! Nor can a scratch buffer:
//!
//! ```compile_fail
//! use synaptic_mem::{Arena, ArenaBuffer};
//! let mut buf = ArenaBuffer::<8192>::new();
//! let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
//! let (_loader, mut runner) = arena.split();
//! let s: &mut [u8] = runner.inference(|inf| inf.scratch(64).unwrap());
//! ```
//!
//! Inferences cannot nest (the inner reset would reclaim the outer scope's tensors):
//!
//! ```compile_fail
//! use synaptic_mem::{Arena, ArenaBuffer, DType};
//! let mut buf = ArenaBuffer::<8192>::new();
//! let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
//! let (_loader, mut runner) = arena.split();
//! runner.inference(|inf| {
//!     let t = inf.ephemeral(&[4], DType::Int8).unwrap();
//!     runner.inference(|_| ());
//!     let _ = t.bytes();
//! });
//! ```
//!
//! Re-initialising (which reclaims persistent memory) needs every tensor gone:
//!
//! ```compile_fail
//! use synaptic_mem::{Arena, ArenaBuffer, DType};
//! let mut buf = ArenaBuffer::<8192>::new();
//! let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
//! let (loader, _runner) = arena.split();
//! let w = loader.persistent(&[4], DType::Int8).unwrap();
//! arena.reinit();
//! let _ = w.bytes();
//! ```
//!
//! In a planned inference, a tensor reached at one operator cannot be held into the next
//! (slots whose lifetimes do not overlap share memory):
//!
//! ```compile_fail
//! use synaptic_mem::{Arena, ArenaBuffer, DType, Plan, PlanSlot};
//! const SLOTS: &[PlanSlot] = &[
//!     PlanSlot { offset: 0, size: 64, first_op: 0, last_op: 0 },
//!     PlanSlot { offset: 0, size: 64, first_op: 1, last_op: 1 },
//! ];
//! let mut buf = ArenaBuffer::<8192>::new();
//! let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
//! let (loader, mut runner) = arena.split();
//! let plan = loader.load_plan(Plan { region_size: 64, slots: SLOTS }).unwrap();
//! runner.planned(&plan, |p| {
//!     p.alloc(0, &[64], DType::Int8).unwrap();
//!     p.alloc(1, &[64], DType::Int8).unwrap();
//!     let [t0] = p.at(0, [0]).unwrap();
//!     let [mut t1] = p.at(1, [1]).unwrap();
//!     t1.bytes_mut()[0] = t0.bytes()[0];
//! }).unwrap();
//! ```
//!
//! And there is only one runner per split, so the arena cannot be split twice at once:
//!
//! ```compile_fail
//! use synaptic_mem::{Arena, ArenaBuffer};
//! let mut buf = ArenaBuffer::<8192>::new();
//! let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
//! let (_l1, mut r1) = arena.split();
//! let (_l2, mut r2) = arena.split();
//! r1.inference(|_| ());
//! ```

use core::marker::PhantomData;

use crate::config::{ConfigError, DEFAULT_SCRATCH_SIZE};
use crate::dtype::{DType, Lifetime};
use crate::error::AllocError;
use crate::plan::{LoadedPlan, OverlapPair, OverlapSpan, Plan, PlanLoadError, PlanRegion};
use crate::raw::{RawArena, Scratch, Tensor};
use crate::stats::Stats;

/// A 16-byte aligned byte buffer of `N` bytes, e.g. a local or a field holding an arena.
///
/// ```
/// let mut buf = synaptic_mem::ArenaBuffer::<4096>::new();
/// assert_eq!(buf.as_mut_slice().as_ptr() as usize % 16, 0);
/// ```
#[repr(C, align(16))]
pub struct ArenaBuffer<const N: usize>(pub [u8; N]);

impl<const N: usize> ArenaBuffer<N> {
    /// A zeroed buffer (`const`, so it can initialise a `static`).
    pub const fn new() -> Self {
        Self([0; N])
    }
    /// The bytes, 16-byte aligned.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.0
    }
}

impl<const N: usize> Default for ArenaBuffer<N> {
    fn default() -> Self {
        Self::new()
    }
}

/// A tensor arena over a borrowed buffer: persistent, ephemeral and scratch regions, plus an
/// optional shared region. Several arenas may exist at once (one per model).
///
/// See the [module docs](crate::arena) for the scoped API and what it refuses to compile.
///
/// ```
/// use synaptic_mem::{Arena, ArenaBuffer, DType, Lifetime};
/// let mut buf = ArenaBuffer::<131072>::new();
/// let mut io = ArenaBuffer::<1024>::new();
/// let mut arena = Arena::new(buf.as_mut_slice()).unwrap(); // 16 KB scratch by default
/// arena.set_shared_region(io.as_mut_slice()).unwrap();
/// assert_eq!(arena.stats().tensor_capacity, 114_688); // 112 KB tensor space
/// let (loader, mut runner) = arena.split();
/// let input = loader.shared(&[1, 4], DType::Float32).unwrap();
/// assert_eq!(input.lifetime(), Lifetime::Shared);
/// runner.inference(|inf| {
///     let t = inf.ephemeral(&[1, 16], DType::Int8).unwrap();
///     assert_eq!(t.size(), 16);
/// });
/// ```
pub struct Arena<'buf> {
    raw: RawArena<'buf>,
}

impl<'buf> Arena<'buf> {
    /// An arena over all of `buf` with the default 16 KB scratch pool.
    pub fn new(buf: &'buf mut [u8]) -> Result<Self, ConfigError> {
        Self::with_scratch(buf, DEFAULT_SCRATCH_SIZE)
    }

    /// An arena over all of `buf` with a `scratch_size`-byte scratch pool at its top.
    /// `buf.len()` must lie in 4096..=524288 and `scratch_size` in 1024..=65536, below it.
    /// An unaligned buffer is aligned up; the lost bytes show in [`Stats::usable_size`].
    pub fn with_scratch(buf: &'buf mut [u8], scratch_size: usize) -> Result<Self, ConfigError> {
        Ok(Self {
            raw: RawArena::new(buf, scratch_size)?,
        })
    }

    /// An arena over all of `buf` sized exactly for a model's plan: no Kconfig floors
    /// ([`Floors::Exact`](crate::Floors)), so `buf` may be as small as the plan needs and the
    /// scratch pool 0 bytes (a model whose kernels need no temporaries).
    ///
    /// ```
    /// use synaptic_mem::{Arena, ArenaBuffer, DType, ErrorKind};
    /// let mut buf = ArenaBuffer::<288>::new();
    /// let mut arena = Arena::exact(buf.as_mut_slice(), 0).unwrap();
    /// let (loader, mut runner) = arena.split();
    /// let w = loader.persistent(&[64], DType::Int8).unwrap();
    /// runner.inference(|inf| {
    ///     assert!(inf.ephemeral(&[128], DType::Int8).is_ok()); // 288 - 96 - 160 = 32 B left
    ///     assert_eq!(inf.scratch(16).unwrap_err().kind, ErrorKind::TooLarge);
    /// });
    /// # drop(w);
    /// ```
    pub fn exact(buf: &'buf mut [u8], scratch_size: usize) -> Result<Self, ConfigError> {
        Ok(Self {
            raw: RawArena::new_exact(buf, scratch_size)?,
        })
    }

    /// Registers the shared (IPC) region that SHARED tensors are allocated from.
    pub fn set_shared_region(&mut self, region: &'buf mut [u8]) -> Result<(), ConfigError> {
        self.raw.set_shared(region)
    }

    /// Splits the arena into a [`Loader`] (persistent and shared tensors) and a [`Runner`]
    /// (inference scopes). Both borrow the arena until they and their tensors are dropped.
    pub fn split(&mut self) -> (Loader<'_>, Runner<'_>) {
        (Loader { raw: &self.raw }, Runner { raw: &self.raw })
    }

    /// Re-initialises: every region empty (the shared region stays registered), statistics
    /// zero. The only way to reclaim persistent memory; needs every tensor gone.
    pub fn reinit(&mut self) {
        self.raw.clear();
    }

    /// Current statistics.
    pub fn stats(&self) -> Stats {
        self.raw.stats()
    }
}

/// Allocates persistent (weights, biases) and shared (model input/output) tensors; they stay
/// usable across inferences for as long as the split lasts. `Copy`: hand it to model loaders.
#[derive(Clone, Copy)]
pub struct Loader<'a> {
    raw: &'a RawArena<'a>,
}

impl<'a> Loader<'a> {
    /// Grows the scratch pool to at least `size` bytes, taking them from the top of the
    /// tensor space (a runtime at load, once it knows the largest block one of its kernels
    /// takes per call); a pool already that large stays. See [`RawArena::reserve_scratch`].
    ///
    /// ```
    /// use synaptic_mem::{Arena, ArenaBuffer};
    /// let mut buf = ArenaBuffer::<8192>::new();
    /// let mut arena = Arena::exact(buf.as_mut_slice(), 0).unwrap();
    /// let (loader, mut runner) = arena.split();
    /// loader.reserve_scratch(1000).unwrap();
    /// assert_eq!(loader.stats().scratch_size, 1008);
    /// runner.inference(|inf| assert!(inf.with_scratch(1000, |_| ()).is_ok()));
    /// ```
    pub fn reserve_scratch(&self, size: usize) -> Result<(), AllocError> {
        self.raw.reserve_scratch(size)
    }

    /// A persistent tensor. Refused with [`ErrorKind::EphemeralLive`](crate::ErrorKind) while
    /// ephemeral tensors or scratch are live (it would overlap the ephemeral region).
    pub fn persistent(&self, shape: &[u32], dtype: DType) -> Result<Tensor<'a>, AllocError> {
        self.raw.alloc_view(shape, dtype, Lifetime::Persistent)
    }

    /// A persistent 1-D tensor of `dtype` whose length is known only once written (a compiled
    /// program): `fill` gets the whole free tensor space as one tensor and returns how many
    /// leading elements it used; the tensor keeps those and the persistent region ends right
    /// after them — one pass where sizing first would do the work twice. O(1) besides `fill`.
    /// If `fill` fails (or returns 0, or more than it got), nothing is allocated and no
    /// statistic changes; the arena's own refusals are [`AllocError`]s (converted into `E`).
    ///
    /// ```
    /// use synaptic_mem::{AllocError, Arena, ArenaBuffer, DType};
    /// let mut buf = ArenaBuffer::<8192>::new();
    /// let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
    /// let (loader, _) = arena.split();
    /// let before = loader.stats();
    /// let t = loader
    ///     .persistent_filled::<AllocError>(DType::Int32, |t| {
    ///         let words = t.as_mut_slice::<i32>().unwrap();
    ///         words[..3].copy_from_slice(&[7, 8, 9]);
    ///         Ok(3)
    ///     })
    ///     .unwrap();
    /// assert_eq!(t.as_slice::<i32>().unwrap(), &[7, 8, 9]);
    /// // Exactly what `persistent(&[3], DType::Int32)` takes.
    /// assert_eq!(loader.stats().persistent_used - before.persistent_used, 32 + 16);
    /// ```
    pub fn persistent_filled<E: From<AllocError>>(
        &self,
        dtype: DType,
        fill: impl FnOnce(&mut Tensor<'a>) -> Result<u32, E>,
    ) -> Result<Tensor<'a>, E> {
        self.raw.alloc_filled(dtype, fill)
    }

    /// A tensor in the shared (IPC) region; fails with
    /// [`ErrorKind::NoSharedRegion`](crate::ErrorKind) if none is registered.
    pub fn shared(&self, shape: &[u32], dtype: DType) -> Result<Tensor<'a>, AllocError> {
        self.raw.alloc_view(shape, dtype, Lifetime::Shared)
    }

    /// Loads a memory plan (from `synmem emit`): validates it and reserves its descriptor
    /// table (32 bytes per planned tensor) in the persistent region.
    pub fn load_plan<'p>(&self, plan: Plan<'p>) -> Result<PlanHandle<'a, 'p>, PlanLoadError> {
        Ok(PlanHandle {
            loaded: self.raw.load_plan(plan)?,
            _arena: PhantomData,
        })
    }

    /// [`Loader::load_plan`] for a plan with declared output/input overlaps
    /// ([`RawArena::load_overlapped_plan`]): reach each pair with
    /// [`PlannedInference::overlapped`].
    pub fn load_overlapped_plan<'p>(
        &self,
        plan: Plan<'p>,
        overlaps: &'p [OverlapPair],
    ) -> Result<PlanHandle<'a, 'p>, PlanLoadError> {
        Ok(PlanHandle {
            loaded: self.raw.load_overlapped_plan(plan, overlaps)?,
            _arena: PhantomData,
        })
    }

    /// Places slot `slot`'s tensor (its `shape` and `dtype`, at most the slot's size) once,
    /// ahead of the plan's inferences ([`RawArena::preplace_planned`]): an inference finds it
    /// [`PlannedInference::placed`] while its region lies where the persistent region ends now
    /// (no persistent allocation since), so it need not [`PlannedInference::alloc`] it.
    /// Refused while an inference is running.
    ///
    /// ```
    /// use synaptic_mem::{Arena, ArenaBuffer, DType, Plan, PlanSlot};
    /// const SLOTS: &[PlanSlot] = &[PlanSlot { offset: 0, size: 16, first_op: 0, last_op: 0 }];
    /// let mut buf = ArenaBuffer::<8192>::new();
    /// let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
    /// let (loader, mut runner) = arena.split();
    /// let plan = loader.load_plan(Plan { region_size: 16, slots: SLOTS }).unwrap();
    /// loader.preplace(&plan, 0, &[4, 4], DType::Int8).unwrap();
    /// assert!(loader.preplace(&plan, 0, &[32], DType::Int8).is_err()); // larger than its slot
    /// runner.planned(&plan, |p| {
    ///     assert!(p.placed(0));
    ///     let [t] = p.at(0, [0]).unwrap();
    ///     assert_eq!(t.shape(), &[4, 4]);
    /// }).unwrap();
    /// ```
    ///
    /// [`RawArena::preplace_planned`]: crate::RawArena::preplace_planned
    pub fn preplace(
        &self,
        plan: &PlanHandle<'a, '_>,
        slot: usize,
        shape: &[u32],
        dtype: DType,
    ) -> Result<(), AllocError> {
        self.raw.preplace_planned(&plan.loaded, slot, shape, dtype)
    }

    /// Current statistics.
    pub fn stats(&self) -> Stats {
        self.raw.stats()
    }
}

/// A plan loaded into an arena by [`Loader::load_plan`]; run it with [`Runner::planned`].
#[derive(Debug)]
pub struct PlanHandle<'a, 'p> {
    loaded: LoadedPlan<'p>,
    _arena: PhantomData<&'a RawArena<'a>>,
}

impl<'p> PlanHandle<'_, 'p> {
    /// The plan.
    pub fn plan(&self) -> &Plan<'p> {
        self.loaded.plan()
    }

    /// The declared output/input overlaps it was loaded with
    /// ([`Loader::load_overlapped_plan`]; empty for a plain plan).
    pub fn overlaps(&self) -> &'p [OverlapPair] {
        self.loaded.overlaps()
    }
}

/// Runs inferences. There is one per [`Arena::split`]; [`Runner::inference`] needs it mutably,
/// so inference scopes never nest.
pub struct Runner<'a> {
    raw: &'a RawArena<'a>,
}

impl<'a> Runner<'a> {
    /// Runs `f` as one inference. Ephemeral tensors and scratch buffers allocated through the
    /// [`Inference`] borrow it; when `f` returns (or unwinds) the ephemeral region and the
    /// scratch pool are reset in O(1).
    pub fn inference<R>(&mut self, f: impl for<'i> FnOnce(&Inference<'i>) -> R) -> R {
        struct ResetOnDrop<'r, 'b>(&'r RawArena<'b>);
        impl Drop for ResetOnDrop<'_, '_> {
            fn drop(&mut self) {
                self.0.reset_ephemeral();
            }
        }
        let _reset = ResetOnDrop(self.raw);
        f(&Inference {
            raw: self.raw,
            _scope: PhantomData,
        })
    }

    /// Runs `f` as one planned inference: the plan's ephemeral region (exactly its
    /// `region_size`) is reserved first, activations are placed at their planned offsets with
    /// [`PlannedInference::alloc`] (O(1) each) and reached per operator with
    /// [`PlannedInference::at`]; the reset happens when `f` returns. Fails without running `f`
    /// if the region does not fit.
    ///
    /// ```
    /// use synaptic_mem::{Arena, ArenaBuffer, DType, Plan, PlanSlot};
    /// // op 0: t0 -> t1; op 1: t1 -> t2 (t2 reuses t0's memory)
    /// const SLOTS: &[PlanSlot] = &[
    ///     PlanSlot { offset: 0, size: 64, first_op: 0, last_op: 0 },
    ///     PlanSlot { offset: 64, size: 64, first_op: 0, last_op: 1 },
    ///     PlanSlot { offset: 0, size: 64, first_op: 1, last_op: 1 },
    /// ];
    /// let mut buf = ArenaBuffer::<8192>::new();
    /// let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
    /// let (loader, mut runner) = arena.split();
    /// let plan = loader.load_plan(Plan { region_size: 128, slots: SLOTS }).unwrap();
    /// let out = runner.planned(&plan, |p| {
    ///     for slot in 0..3 {
    ///         p.alloc(slot, &[64], DType::Int8).unwrap();
    ///     }
    ///     let [mut t0, mut t1] = p.at(0, [0, 1]).unwrap();
    ///     t0.bytes_mut().fill(1);
    ///     t1.bytes_mut().copy_from_slice(t0.bytes());
    ///     assert!(p.at(0, [2]).is_err()); // t2 is not live at op 0
    ///     let [t1, mut t2] = p.at(1, [1, 2]).unwrap();
    ///     t2.bytes_mut().iter_mut().zip(t1.bytes()).for_each(|(o, i)| *o = i + 1);
    ///     t2.bytes()[0]
    /// }).unwrap();
    /// assert_eq!(out, 2);
    /// assert_eq!(runner.stats().ephemeral_peak, 128);
    /// ```
    pub fn planned<R>(
        &mut self,
        plan: &PlanHandle<'a, '_>,
        f: impl for<'i> FnOnce(&mut PlannedInference<'i, '_>) -> R,
    ) -> Result<R, AllocError> {
        let region = self.raw.begin_plan(&plan.loaded)?;
        Ok(self.inference(|inf| {
            f(&mut PlannedInference {
                inf: Inference {
                    raw: inf.raw,
                    _scope: PhantomData,
                },
                plan: plan.loaded,
                region,
            })
        }))
    }

    /// Current statistics.
    pub fn stats(&self) -> Stats {
        self.raw.stats()
    }
}

/// One planned inference: activations at the plan's offsets, reached per operator.
pub struct PlannedInference<'i, 'p> {
    inf: Inference<'i>,
    plan: LoadedPlan<'p>,
    region: PlanRegion,
}

impl<'i> PlannedInference<'i, '_> {
    /// Places slot `slot`'s tensor (its `shape` and `dtype`, at most the slot's size) at its
    /// planned offset. O(1).
    #[inline]
    pub fn alloc(&mut self, slot: usize, shape: &[u32], dtype: DType) -> Result<(), AllocError> {
        self.inf
            .raw
            .alloc_planned(&self.plan, self.region, slot, shape, dtype)
            .map(drop)
    }

    /// Whether slot `slot`'s tensor is already placed at its planned offset in this
    /// inference's region: by [`Self::alloc`] in this inference, or in an earlier one of the
    /// same plan whose region lay at the same place (the plan's descriptor table keeps it).
    /// Then the tensor has the shape and type of that last [`Self::alloc`], and calling it again
    /// with them would change nothing: a caller that always places a slot with the same shape
    /// and type can skip it. O(1), no write.
    ///
    /// ```
    /// use synaptic_mem::{Arena, ArenaBuffer, DType, Plan, PlanSlot};
    /// const SLOTS: &[PlanSlot] = &[PlanSlot { offset: 0, size: 16, first_op: 0, last_op: 0 }];
    /// let mut buf = ArenaBuffer::<8192>::new();
    /// let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
    /// let (loader, mut runner) = arena.split();
    /// let plan = loader.load_plan(Plan { region_size: 16, slots: SLOTS }).unwrap();
    /// for first in [true, false] {
    ///     runner.planned(&plan, |p| {
    ///         assert_eq!(p.placed(0), !first); // placed by the first inference, kept
    ///         if !p.placed(0) {
    ///             p.alloc(0, &[16], DType::Int8).unwrap();
    ///         }
    ///         assert!(p.placed(0));
    ///         assert!(!p.placed(1)); // no such slot
    ///         let [t] = p.at(0, [0]).unwrap();
    ///         assert_eq!(t.shape(), &[16]);
    ///     }).unwrap();
    /// }
    /// ```
    #[inline]
    pub fn placed(&self, slot: usize) -> bool {
        self.inf.raw.slot_placed(&self.plan, self.region, slot)
    }

    /// The tensors of `slots` at operator `op`: they must be distinct, allocated, and live at
    /// `op` (so, by the validated plan, disjoint in memory).
    pub fn at<const N: usize>(
        &mut self,
        op: u16,
        slots: [usize; N],
    ) -> Result<[Tensor<'_>; N], AllocError> {
        self.inf
            .raw
            .planned_views(&self.plan, self.region, op, slots)
    }

    /// The declared overlap `pair` of an overlapped plan as one mutable span holding both its
    /// slots ([`OverlapSpan`]), with the tensors of `others` (live at the pair's operator,
    /// distinct, disjoint from the span and from each other) — everything one overlapped
    /// operator needs. `Ok(None)` if the pair's blocks share no byte (a plan may declare such
    /// a pair; then [`Self::at`] hands out both, and nothing counts as failed). Refused: a
    /// pair index out of range, slots not allocated or not live at the pair's operator, an
    /// `others` slot that fails those rules. The two slots of a pair that share bytes are
    /// never handed out as two tensors.
    ///
    /// ```
    /// use synaptic_mem::plan::{OverlapDirection, OverlapPair};
    /// use synaptic_mem::{Arena, ArenaBuffer, DType, Plan, PlanSlot};
    /// // op 0 writes t1 (64 B) backward over t0 (32 B), 16 bytes above it.
    /// const SLOTS: &[PlanSlot] = &[
    ///     PlanSlot { offset: 0, size: 32, first_op: 0, last_op: 0 },
    ///     PlanSlot { offset: 16, size: 64, first_op: 0, last_op: 1 },
    /// ];
    /// const PAIRS: &[OverlapPair] = &[OverlapPair {
    ///     op: 0, input: 0, output: 1, direction: OverlapDirection::Backward, bound: 16,
    /// }];
    /// let mut buf = ArenaBuffer::<8192>::new();
    /// let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
    /// let (loader, mut runner) = arena.split();
    /// let plan = loader.load_overlapped_plan(Plan { region_size: 80, slots: SLOTS }, PAIRS).unwrap();
    /// runner.planned(&plan, |p| {
    ///     p.alloc(0, &[32], DType::Int8).unwrap();
    ///     p.alloc(1, &[64], DType::Int8).unwrap();
    ///     assert!(p.at(0, [0, 1]).is_err()); // they share bytes
    ///     let (span, []) = p.overlapped(0, []).unwrap().unwrap();
    ///     assert_eq!((span.bytes.len(), span.input, span.output), (80, 0, 16));
    ///     span.bytes[span.output..].fill(7);
    ///     let [t1] = p.at(1, [1]).unwrap();
    ///     assert!(t1.bytes().iter().all(|&b| b == 7));
    /// }).unwrap();
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn overlapped<const N: usize>(
        &mut self,
        pair: usize,
        others: [usize; N],
    ) -> Result<Option<(OverlapSpan<'_>, [Tensor<'_>; N])>, AllocError> {
        self.inf
            .raw
            .overlapped_view(&self.plan, self.region, pair, others)
    }

    /// The plan's whole region (its `region_size` bytes) as one slice, for a caller that
    /// reaches each operator's tensors by their planned offsets ([`Plan::slots`], validated
    /// at load) rather than through a checked view per operator ([`Self::at`],
    /// [`Self::overlapped`]): a slice borrows this inference exclusively, so no view coexists
    /// with it. Its bytes are what the placed tensors hold (descriptors are not in it).
    ///
    /// ```
    /// use synaptic_mem::{Arena, ArenaBuffer, DType, Plan, PlanSlot};
    /// const SLOTS: &[PlanSlot] = &[
    ///     PlanSlot { offset: 0, size: 16, first_op: 0, last_op: 0 },
    ///     PlanSlot { offset: 16, size: 16, first_op: 0, last_op: 0 },
    /// ];
    /// let mut buf = ArenaBuffer::<4096>::new();
    /// let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
    /// let (loader, mut runner) = arena.split();
    /// let plan = loader.load_plan(Plan { region_size: 32, slots: SLOTS }).unwrap();
    /// runner.planned(&plan, |p| {
    ///     p.alloc(1, &[16], DType::Int8).unwrap();
    ///     p.region_bytes().unwrap()[16..].fill(5);
    ///     let [t1] = p.at(0, [1]).unwrap();
    ///     assert!(t1.bytes().iter().all(|&b| b == 5));
    /// }).unwrap();
    /// ```
    #[inline]
    pub fn region_bytes(&mut self) -> Result<&mut [u8], AllocError> {
        self.inf.raw.region_bytes(&self.plan, self.region)
    }

    /// Runs `f` with this inference and a `size`-byte block of the scratch pool for one
    /// scope, one operator's call: the spec's per-layer intermediates. The block goes back to
    /// the pool when `f` returns, in O(1), so the pool needs what one operator takes at a
    /// time, not the sum over the graph (see [`Inference::with_scratch`]). Fails without
    /// running `f` if the pool cannot hold `size` bytes now.
    ///
    /// ```
    /// use synaptic_mem::{Arena, ArenaBuffer, DType, Plan, PlanSlot};
    /// const SLOTS: &[PlanSlot] = &[PlanSlot { offset: 0, size: 16, first_op: 0, last_op: 1 }];
    /// let mut buf = ArenaBuffer::<8192>::new();
    /// let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
    /// let (loader, mut runner) = arena.split();
    /// let plan = loader.load_plan(Plan { region_size: 16, slots: SLOTS }).unwrap();
    /// runner.planned(&plan, |p| {
    ///     p.alloc(0, &[16], DType::Int8).unwrap();
    ///     for op in 0..2 {
    ///         // Each operator's 768 bytes: the same block of the 1 KB pool every time.
    ///         p.with_scratch(768, |p, mut scratch| {
    ///             let [mut t] = p.at(op, [0]).unwrap();
    ///             let acc: &mut [i32] = scratch.take(192).unwrap();
    ///             acc.fill(op.into());
    ///             t.bytes_mut()[0] = acc.iter().sum::<i32>() as u8;
    ///         }).unwrap();
    ///     }
    ///     assert_eq!(p.inference().stats().scratch_used, 0);
    /// }).unwrap();
    /// assert_eq!(runner.stats().scratch_peak, 768);
    /// ```
    #[inline]
    pub fn with_scratch<R>(
        &mut self,
        size: usize,
        f: impl for<'s> FnOnce(&mut Self, Scratch<'s>) -> R,
    ) -> Result<R, AllocError> {
        let raw = self.inf.raw;
        raw.scratch_scope(size, |block| f(self, Scratch::new(block)))
    }

    /// The plain inference scope: extra ephemeral tensors and scratch buffers.
    pub fn inference(&self) -> &Inference<'i> {
        &self.inf
    }
}

/// One inference scope: ephemeral tensors and scratch buffers live until it ends.
pub struct Inference<'i> {
    raw: &'i RawArena<'i>,
    /// Invariant in `'i`, so nothing allocated here can be stretched past the scope.
    _scope: PhantomData<fn(&'i ()) -> &'i ()>,
}

impl<'i> Inference<'i> {
    /// An ephemeral tensor (an activation), reclaimed when the inference ends.
    #[inline]
    pub fn ephemeral(&self, shape: &[u32], dtype: DType) -> Result<Tensor<'i>, AllocError> {
        self.raw.alloc_view(shape, dtype, Lifetime::Ephemeral)
    }

    /// `size` bytes (16-byte aligned) from the scratch pool, reclaimed when the inference ends.
    #[inline]
    pub fn scratch(&self, size: usize) -> Result<&'i mut [u8], AllocError> {
        self.raw.scratch_view(size)
    }

    /// Runs `f` with a `size`-byte block of the scratch pool for one scope (one layer's
    /// intermediates), then gives the block back in O(1) if it is still the last one taken;
    /// one taken above it during the scope (a [`Inference::scratch`] buffer, which lives to
    /// the end of the inference) keeps it until the reset. Scopes nest last-in first-out. The
    /// block cannot outlive `f`; `size` 0 gives an empty block. Fails without running `f` if
    /// the pool cannot hold `size` bytes now (the arena and its statistics as they were, but
    /// for the failure count).
    ///
    /// ```
    /// use synaptic_mem::{Arena, ArenaBuffer};
    /// let mut buf = ArenaBuffer::<8192>::new();
    /// let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
    /// let (_loader, mut runner) = arena.split();
    /// runner.inference(|inf| {
    ///     for _layer in 0..4 {
    ///         inf.with_scratch(1024, |mut s| s.take::<u8>(1024).unwrap().fill(1)).unwrap();
    ///     }
    ///     assert!(inf.with_scratch(2048, |_| ()).is_err()); // more than the pool
    ///     assert_eq!(inf.stats().scratch_used, 0);
    /// });
    /// assert_eq!(runner.stats().scratch_peak, 1024);
    /// ```
    ///
    /// The block cannot leave its scope:
    ///
    /// ```compile_fail
    /// use synaptic_mem::{Arena, ArenaBuffer};
    /// let mut buf = ArenaBuffer::<8192>::new();
    /// let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
    /// let (_loader, mut runner) = arena.split();
    /// runner.inference(|inf| {
    ///     let kept: &mut [u8] = inf.with_scratch(64, |mut s| s.take::<u8>(64).unwrap()).unwrap();
    ///     let _other = inf.scratch(64).unwrap(); // would share bytes with `kept`
    ///     kept[0] = 1;
    /// });
    /// ```
    #[inline]
    pub fn with_scratch<R>(
        &self,
        size: usize,
        f: impl for<'s> FnOnce(Scratch<'s>) -> R,
    ) -> Result<R, AllocError> {
        self.raw.scratch_scope(size, |block| f(Scratch::new(block)))
    }

    /// Current statistics.
    pub fn stats(&self) -> Stats {
        self.raw.stats()
    }
}
