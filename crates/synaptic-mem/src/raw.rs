//! The raw arena: bump logic over a raw byte region, and every `unsafe` block of the crate.
//!
//! # Layout (offsets from the 16-byte aligned base)
//!
//! ```text
//! 0          pers_end        top                 tensor_cap          usable
//! | persistent | ephemeral     | free ...           | scratch pool ... |
//! ```
//!
//! # Invariants (hold between any two calls)
//!
//! 1. `base` is 16-byte aligned and `base .. base + usable` is memory this arena alone may use
//!    (a `&'a mut [u8]` it borrows, or what the `unsafe` constructor's caller promised).
//! 2. `0 <= pers_end <= top <= tensor_cap <= usable`, all multiples of 16;
//!    `0 <= scratch_top <= scratch_cap = usable - tensor_cap`, multiple of 16;
//!    `0 <= shared_top <= shared_cap`, multiples of 16, `shared_base` 16-byte aligned.
//! 3. Every block handed out lies below its region's bump offset, and blocks of one region never
//!    overlap: an offset only moves up, except `reset_ephemeral` (ephemeral and scratch) and
//!    [`RawArena::clear`] / re-initialisation (everything).
//! 4. An uninitialised arena has every capacity 0, so every allocation fails.
//!
//! The raw API hands out `NonNull` pointers: using them after the reset that reclaimed them is
//! the caller's responsibility (the C API's contract). The safe API (`crate::arena`) is the only
//! user of the `pub(crate)` view constructors below, and its types guarantee that no view
//! outlives the reset or re-initialisation that reclaims its memory.

use core::cell::Cell;
use core::marker::PhantomData;
use core::ptr::{self, NonNull};

use crate::config::{
    align_down, align_up, ArenaConfig, ConfigError, MAX_SHARED_SIZE, MIN_SHARED_SIZE,
};
use crate::dtype::{DType, Element, Lifetime};
use crate::error::{AllocError, ErrorKind, Region};
use crate::plan::{LoadedPlan, Plan, PlanLoadError, PlanRegion};
use crate::stats::Stats;
use crate::tensor::{TensorDesc, TensorRequest, DESC_SPAN};

/// Bump allocator state over one arena (and an optional shared region).
///
/// Interior mutability (`Cell`) lets several handles share it on one thread; it is `Send` but
/// not `Sync`. The C API keeps one in a `critical_section::Mutex`.
///
/// ```
/// use synaptic_mem::{raw::RawArena, DType, Lifetime};
/// let mut buf = synaptic_mem::ArenaBuffer::<8192>::new();
/// let arena = RawArena::new(buf.as_mut_slice(), 1024).unwrap();
/// let t = arena.alloc(&[4, 4], DType::Int8, Lifetime::Ephemeral).unwrap();
/// let d = unsafe { t.as_ref() };
/// assert_eq!(d.data_ptr() as usize % 16, 0);
/// assert_eq!(d.size(), 16);
/// arena.reset_ephemeral();
/// assert_eq!(arena.stats().ephemeral_used, 0);
/// ```
pub struct RawArena<'a> {
    base: Cell<*mut u8>,
    arena_size: Cell<usize>,
    usable: Cell<usize>,
    tensor_cap: Cell<usize>,
    scratch_size: Cell<usize>,
    pers_end: Cell<usize>,
    top: Cell<usize>,
    scratch_top: Cell<usize>,
    shared_base: Cell<*mut u8>,
    shared_size: Cell<usize>,
    shared_cap: Cell<usize>,
    shared_top: Cell<usize>,
    /// Highest `top` since the persistent region last changed (kept at allocation time, so a
    /// reset only moves offsets). The persistent region is constant within an epoch, so the
    /// epoch's ephemeral peak is `epoch_peak - pers_end`.
    epoch_peak: Cell<usize>,
    /// Highest `top` of earlier epochs.
    arena_peak: Cell<usize>,
    /// Highest ephemeral usage of earlier epochs.
    ephemeral_peak: Cell<usize>,
    scratch_peak: Cell<usize>,
    alloc_count: Cell<u32>,
    reset_count: Cell<u32>,
    failed_count: Cell<u32>,
    last_error: Cell<Option<AllocError>>,
    _mem: PhantomData<&'a mut [u8]>,
}

// SAFETY: the raw pointers refer to memory owned (borrowed mutably) by this arena alone; moving
// the arena to another thread moves that ownership with it. `Cell` keeps it `!Sync`.
unsafe impl Send for RawArena<'_> {}

impl core::fmt::Debug for RawArena<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RawArena")
            .field("stats", &self.stats())
            .finish()
    }
}

impl Default for RawArena<'_> {
    fn default() -> Self {
        Self::UNINIT
    }
}

impl<'a> RawArena<'a> {
    /// An arena with no memory: every allocation fails with [`ErrorKind::NotInitialized`].
    /// Each use is a fresh arena (that is the point: e.g. a `static` initialiser).
    #[allow(clippy::declare_interior_mutable_const)]
    pub const UNINIT: RawArena<'a> = RawArena {
        base: Cell::new(ptr::null_mut()),
        arena_size: Cell::new(0),
        usable: Cell::new(0),
        tensor_cap: Cell::new(0),
        scratch_size: Cell::new(0),
        pers_end: Cell::new(0),
        top: Cell::new(0),
        scratch_top: Cell::new(0),
        shared_base: Cell::new(ptr::null_mut()),
        shared_size: Cell::new(0),
        shared_cap: Cell::new(0),
        shared_top: Cell::new(0),
        epoch_peak: Cell::new(0),
        arena_peak: Cell::new(0),
        ephemeral_peak: Cell::new(0),
        scratch_peak: Cell::new(0),
        alloc_count: Cell::new(0),
        reset_count: Cell::new(0),
        failed_count: Cell::new(0),
        last_error: Cell::new(None),
        _mem: PhantomData,
    };

    /// An arena over `buf` (its length is the arena size) with a `scratch_size`-byte pool.
    pub fn new(buf: &'a mut [u8], scratch_size: usize) -> Result<Self, ConfigError> {
        let arena = Self::UNINIT;
        // SAFETY: `buf` is exclusively borrowed for 'a, which the arena carries in its type.
        unsafe { arena.init(buf.as_mut_ptr(), buf.len(), scratch_size)? };
        Ok(arena)
    }

    /// (Re-)initialises the arena over `len` bytes at `base`, dropping all earlier allocations,
    /// statistics and the shared region. On error nothing changes.
    ///
    /// # Safety
    /// `base .. base + len` must be valid for reads and writes and used by nothing but this arena
    /// (and the pointers it hands out) until the next `init` or the arena's end of life.
    pub unsafe fn init(
        &self,
        base: *mut u8,
        len: usize,
        scratch_size: usize,
    ) -> Result<(), ConfigError> {
        let layout = ArenaConfig {
            arena_size: len,
            scratch_size,
        }
        .layout_at(base.addr())?;
        if base.is_null() {
            return Err(ConfigError::NullBase);
        }
        self.base.set(base.wrapping_add(layout.pad));
        self.arena_size.set(len);
        self.usable.set(layout.usable_size);
        self.tensor_cap.set(layout.tensor_capacity);
        self.scratch_size.set(scratch_size);
        self.shared_base.set(ptr::null_mut());
        self.shared_size.set(0);
        self.shared_cap.set(0);
        self.clear();
        Ok(())
    }

    /// Registers the shared (IPC) region for [`Lifetime::Shared`] tensors, replacing (and
    /// emptying) any earlier one.
    pub fn set_shared(&self, region: &'a mut [u8]) -> Result<(), ConfigError> {
        // SAFETY: `region` is exclusively borrowed for 'a, which the arena carries in its type.
        unsafe { self.set_shared_raw(region.as_mut_ptr(), region.len()) }
    }

    /// Registers `len` bytes at `base` as the shared region, replacing (and emptying) any earlier
    /// one. The base is aligned up to 16 and the size reduced to a multiple of 16; the result
    /// must lie in 48..=2^30 bytes. On error nothing changes.
    ///
    /// # Safety
    /// As for [`RawArena::init`], for the shared region.
    pub unsafe fn set_shared_raw(&self, base: *mut u8, len: usize) -> Result<(), ConfigError> {
        if base.is_null() {
            return Err(ConfigError::NullBase);
        }
        let pad = base.addr().wrapping_neg() & 15;
        let cap = align_down(len.saturating_sub(pad));
        if !(MIN_SHARED_SIZE..=MAX_SHARED_SIZE).contains(&cap) {
            return Err(ConfigError::SharedSizeOutOfRange { size: len });
        }
        self.shared_base.set(base.wrapping_add(pad));
        self.shared_size.set(len);
        self.shared_cap.set(cap);
        self.shared_top.set(0);
        Ok(())
    }

    /// Whether [`RawArena::init`] (or [`RawArena::new`]) has succeeded.
    #[inline]
    pub fn is_initialized(&self) -> bool {
        self.usable.get() != 0
    }

    /// Whether a shared region is registered.
    #[inline]
    pub fn has_shared(&self) -> bool {
        self.shared_cap.get() != 0
    }

    /// Re-initialises in place: every region empty (the shared region stays registered, empty),
    /// every statistic zero. The only way to reclaim persistent memory.
    pub fn clear(&self) {
        for c in [
            &self.pers_end,
            &self.top,
            &self.scratch_top,
            &self.shared_top,
            &self.epoch_peak,
            &self.arena_peak,
            &self.ephemeral_peak,
            &self.scratch_peak,
        ] {
            c.set(0);
        }
        self.alloc_count.set(0);
        self.reset_count.set(0);
        self.failed_count.set(0);
        self.last_error.set(None);
    }

    /// Returns the arena to the uninitialised state (no memory, no shared region, statistics
    /// zero): every allocation fails with [`ErrorKind::NotInitialized`] until the next `init`.
    pub fn deinit(&self) {
        self.base.set(ptr::null_mut());
        for c in [
            &self.arena_size,
            &self.usable,
            &self.tensor_cap,
            &self.scratch_size,
            &self.shared_size,
            &self.shared_cap,
        ] {
            c.set(0);
        }
        self.shared_base.set(ptr::null_mut());
        self.clear();
    }

    /// The most recent allocation failure, if any since the last (re-)initialisation.
    pub fn last_error(&self) -> Option<AllocError> {
        self.last_error.get()
    }

    /// Allocates a tensor: descriptor at a 16-byte aligned offset, data at the next 16-byte
    /// boundary after it. Align, check, bump: constant work whatever the size.
    ///
    /// Persistent allocations are refused ([`ErrorKind::EphemeralLive`]) while ephemeral tensors
    /// or scratch buffers are live. On error only the failed-allocation count changes.
    #[inline]
    pub fn alloc(
        &self,
        shape: &[u32],
        dtype: DType,
        lifetime: Lifetime,
    ) -> Result<NonNull<TensorDesc>, AllocError> {
        match self.try_alloc(shape, dtype, lifetime) {
            Some(p) => Ok(p),
            None => Err(self.last_error_or_default()),
        }
    }

    /// [`RawArena::alloc`] returning a bare pointer (a register, not a 16-byte `Result`): `None`
    /// on failure, with the details in [`RawArena::last_error`]. The C API's hot path: the
    /// ephemeral case is inline; persistent and shared (load-time) allocations take an
    /// out-of-line path with the same bump logic.
    #[inline(always)]
    pub fn try_alloc(
        &self,
        shape: &[u32],
        dtype: DType,
        lifetime: Lifetime,
    ) -> Option<NonNull<TensorDesc>> {
        match TensorRequest::new(shape, dtype) {
            Ok(req) => self.try_alloc_request(req, lifetime),
            Err(kind) => self.fail_none(kind, region_of(lifetime), 0),
        }
    }

    /// Allocates a tensor for an already validated request (see [`TensorRequest`]): only the
    /// bump and the descriptor write, so a caller can keep its critical section this short.
    #[inline(always)]
    pub fn try_alloc_request(
        &self,
        req: TensorRequest,
        lifetime: Lifetime,
    ) -> Option<NonNull<TensorDesc>> {
        if lifetime != Lifetime::Ephemeral {
            return self.alloc_load_time(req, lifetime);
        }
        let needed = DESC_SPAN + align_up(req.bytes as usize);
        let start = self.top.get();
        let end = start + needed;
        if end > self.tensor_cap.get() {
            return self.fail_none(ErrorKind::OutOfMemory, Region::Ephemeral, needed);
        }
        self.top.set(end);
        if end > self.epoch_peak.get() {
            self.epoch_peak.set(end);
        }
        // SAFETY: `start .. end` is inside tensor space (checked above) and was free.
        Some(unsafe { self.place(self.base.get(), start, req, lifetime) })
    }

    /// Persistent and shared allocations (model load time).
    #[inline(never)]
    fn alloc_load_time(
        &self,
        req: TensorRequest,
        lifetime: Lifetime,
    ) -> Option<NonNull<TensorDesc>> {
        let needed = DESC_SPAN + align_up(req.bytes as usize);
        let (base, start) = if lifetime == Lifetime::Shared {
            let start = self.shared_top.get();
            let end = start + needed;
            if end > self.shared_cap.get() {
                return self.fail_none(ErrorKind::OutOfMemory, Region::Shared, needed);
            }
            self.shared_top.set(end);
            (self.shared_base.get(), start)
        } else {
            let start = self.top.get();
            if start != self.pers_end.get() || self.scratch_top.get() != 0 {
                return self.fail_none(ErrorKind::EphemeralLive, Region::Persistent, needed);
            }
            let end = start + needed;
            if end > self.tensor_cap.get() {
                return self.fail_none(ErrorKind::OutOfMemory, Region::Persistent, needed);
            }
            self.grow_persistent(end);
            (self.base.get(), start)
        };
        // SAFETY: `start .. start + needed` is inside the region (checked above) and was free.
        Some(unsafe { self.place(base, start, req, lifetime) })
    }

    /// Writes a descriptor at `base + start` and its data pointer `DESC_SPAN` bytes later, and
    /// counts the allocation.
    ///
    /// # Safety
    /// `start .. start + DESC_SPAN + align_up(bytes)` must lie inside the region starting at
    /// `base` (16-byte aligned), be a multiple of 16 from it, and be referred to by nothing else
    /// (it was above the region's bump offset, invariant 3).
    #[inline(always)]
    unsafe fn place(
        &self,
        base: *mut u8,
        start: usize,
        req: TensorRequest,
        lifetime: Lifetime,
    ) -> NonNull<TensorDesc> {
        // SAFETY: by the contract both pointers are in bounds of the region, the descriptor is
        // 16-byte aligned and nothing else refers to the block.
        unsafe { self.write_desc(base.add(start), base.add(start + DESC_SPAN), req, lifetime) }
    }

    /// Writes a descriptor for `req` at `desc` pointing at `data`, and counts the allocation.
    ///
    /// # Safety
    /// `desc` must be valid for writes of a [`TensorDesc`], 16-byte aligned, and referred to by
    /// nothing else; `data` must point at the tensor's data block.
    #[inline(always)]
    unsafe fn write_desc(
        &self,
        desc: *mut u8,
        data: *mut u8,
        req: TensorRequest,
        lifetime: Lifetime,
    ) -> NonNull<TensorDesc> {
        self.alloc_count.set(self.alloc_count.get().wrapping_add(1));
        // SAFETY: by the contract `desc` is valid, aligned and unaliased. The four one-byte
        // fields (ndim, dtype, lifetime, reserved) are adjacent and 4-byte aligned (`repr(C)`
        // after the pointer and `[u32; 4]`), so one `u32` store writes them with valid values.
        unsafe {
            let desc = desc.cast::<TensorDesc>();
            ptr::addr_of_mut!((*desc).data).write(data);
            ptr::addr_of_mut!((*desc).shape).write(req.dims);
            ptr::addr_of_mut!((*desc).ndim)
                .cast::<u32>()
                .write(req.meta | u32::from_ne_bytes([0, 0, lifetime as u8, 0]));
            ptr::addr_of_mut!((*desc).size).write(req.bytes);
            NonNull::new_unchecked(desc)
        }
    }

    /// Moves the end of the persistent region (ephemeral and scratch are empty) to `end`,
    /// closing the current peak epoch.
    #[inline]
    fn grow_persistent(&self, end: usize) {
        let epoch_peak = self.epoch_peak.get();
        self.arena_peak.set(self.arena_peak.get().max(epoch_peak));
        self.ephemeral_peak.set(
            self.ephemeral_peak
                .get()
                .max(epoch_peak - self.pers_end.get()),
        );
        self.top.set(end);
        self.pers_end.set(end);
        self.epoch_peak.set(end);
    }

    /// Takes `size` bytes (16-byte aligned) from the scratch pool. Freed by
    /// [`RawArena::reset_ephemeral`].
    #[inline]
    pub fn scratch_acquire(&self, size: usize) -> Result<NonNull<u8>, AllocError> {
        let cap = self.scratch_cap();
        if size.wrapping_sub(1) >= cap {
            let kind = if size == 0 {
                ErrorKind::ZeroSize
            } else {
                ErrorKind::TooLarge
            };
            return Err(self.fail(kind, Region::Scratch, size));
        }
        let start = self.scratch_top.get();
        let end = start + align_up(size);
        if end > cap {
            return Err(self.fail(ErrorKind::OutOfMemory, Region::Scratch, align_up(size)));
        }
        self.scratch_top.set(end);
        if end > self.scratch_peak.get() {
            self.scratch_peak.set(end);
        }
        self.alloc_count.set(self.alloc_count.get().wrapping_add(1));
        // SAFETY: `tensor_cap + start < usable` (start < end <= cap = usable - tensor_cap), so
        // the pointer is in bounds of the arena and non-null (base is non-null when cap > 0).
        unsafe {
            Ok(NonNull::new_unchecked(
                self.base.get().add(self.tensor_cap.get() + start),
            ))
        }
    }

    /// `free` for one tensor: a deliberate no-op. A bump allocator never reclaims mid-region
    /// holes; memory comes back wholesale with [`RawArena::reset_ephemeral`] or re-init.
    #[inline(always)]
    pub fn free(&self, _tensor: NonNull<TensorDesc>) {}

    /// `release` for one scratch buffer: a deliberate no-op (see [`RawArena::free`]).
    #[inline(always)]
    pub fn scratch_release(&self, _ptr: NonNull<u8>) {}

    /// Reclaims the whole ephemeral region and scratch pool in O(1) and counts a reset: two
    /// offsets written and a counter bumped (high-water marks are kept at allocation time).
    /// Persistent and shared tensors survive.
    #[inline]
    pub fn reset_ephemeral(&self) {
        self.top.set(self.pers_end.get());
        self.scratch_top.set(0);
        self.reset_count.set(self.reset_count.get().wrapping_add(1));
    }

    #[inline(always)]
    fn scratch_cap(&self) -> usize {
        self.usable.get() - self.tensor_cap.get()
    }

    /// The failure path of [`RawArena::try_alloc`].
    #[cold]
    #[inline(never)]
    fn fail_none<T>(&self, kind: ErrorKind, region: Region, needed: usize) -> Option<T> {
        self.fail(kind, region, needed);
        None
    }

    #[cold]
    fn last_error_or_default(&self) -> AllocError {
        self.last_error.get().unwrap_or(AllocError {
            kind: ErrorKind::NotInitialized,
            region: Region::Ephemeral,
            needed: 0,
            available: 0,
        })
    }

    /// The failure path: classifies, counts, records it as the last error, and touches nothing
    /// else.
    #[cold]
    #[inline(never)]
    fn fail(&self, kind: ErrorKind, region: Region, needed: usize) -> AllocError {
        self.failed_count
            .set(self.failed_count.get().wrapping_add(1));
        let (capacity, available) = match region {
            Region::Persistent | Region::Ephemeral => (
                self.tensor_cap.get() - self.pers_end.get(),
                self.tensor_cap.get() - self.top.get(),
            ),
            Region::Scratch => (
                self.scratch_cap(),
                self.scratch_cap() - self.scratch_top.get(),
            ),
            Region::Shared => (
                self.shared_cap.get(),
                self.shared_cap.get() - self.shared_top.get(),
            ),
        };
        // Shape errors are reported as such; a space failure is refined into why.
        let kind = if !self.is_initialized() {
            ErrorKind::NotInitialized
        } else if kind != ErrorKind::OutOfMemory {
            kind
        } else if region == Region::Shared && !self.has_shared() {
            ErrorKind::NoSharedRegion
        } else if needed > capacity {
            ErrorKind::TooLarge
        } else {
            kind
        };
        let e = AllocError {
            kind,
            region,
            needed,
            available,
        };
        self.last_error.set(Some(e));
        e
    }

    /// Counts a failure found by a layer above (e.g. an unknown C enum value) and describes it.
    #[cold]
    pub fn reject(&self, kind: ErrorKind, region: Region) -> AllocError {
        self.fail(kind, region, 0)
    }

    /// Offset of `ptr` from the arena base (for tests and tools; `None` if outside the arena).
    pub fn offset_of(&self, ptr: *const u8) -> Option<usize> {
        let off = ptr.addr().wrapping_sub(self.base.get().addr());
        (off < self.usable.get()).then_some(off)
    }

    /// Offset of `ptr` from the shared region's base (`None` if outside it).
    pub fn shared_offset_of(&self, ptr: *const u8) -> Option<usize> {
        let off = ptr.addr().wrapping_sub(self.shared_base.get().addr());
        (off < self.shared_cap.get()).then_some(off)
    }

    /// A snapshot of every statistic.
    pub fn stats(&self) -> Stats {
        let top = self.top.get();
        let pers_end = self.pers_end.get();
        Stats {
            arena_size: self.arena_size.get(),
            usable_size: self.usable.get(),
            tensor_capacity: self.tensor_cap.get(),
            persistent_used: pers_end,
            ephemeral_used: top - pers_end,
            ephemeral_peak: self
                .ephemeral_peak
                .get()
                .max(self.epoch_peak.get() - pers_end),
            scratch_used: self.scratch_top.get(),
            scratch_size: self.scratch_cap(),
            scratch_peak: self.scratch_peak.get(),
            shared_used: self.shared_top.get(),
            shared_size: self.shared_cap.get(),
            arena_peak: self.arena_peak.get().max(self.epoch_peak.get()),
            alloc_count: self.alloc_count.get(),
            reset_count: self.reset_count.get(),
            failed_count: self.failed_count.get(),
        }
    }

    // ---- planned ephemeral regions (crate::plan) ----

    /// Loads a validated plan: reserves its descriptor table (one [`DESC_SPAN`] block per slot)
    /// in the persistent region and fills it with empty descriptors. O(n) once per model.
    pub fn load_plan<'p>(&self, plan: Plan<'p>) -> Result<LoadedPlan<'p>, PlanLoadError> {
        plan.validate().map_err(PlanLoadError::Invalid)?;
        let needed = plan.slots.len() * DESC_SPAN;
        let start = self.top.get();
        if start != self.pers_end.get() || self.scratch_top.get() != 0 {
            return Err(PlanLoadError::Alloc(self.fail(
                ErrorKind::EphemeralLive,
                Region::Persistent,
                needed,
            )));
        }
        if start + needed > self.tensor_cap.get() {
            return Err(PlanLoadError::Alloc(self.fail(
                ErrorKind::OutOfMemory,
                Region::Persistent,
                needed,
            )));
        }
        self.grow_persistent(start + needed);
        self.alloc_count.set(self.alloc_count.get().wrapping_add(1));
        let base = self.base.get();
        for i in 0..plan.slots.len() {
            // SAFETY: the table `start .. start + needed` was just reserved in the persistent
            // region (checked against `tensor_cap`), is 16-byte aligned, and nothing refers to it.
            unsafe {
                base.add(start + i * DESC_SPAN)
                    .cast::<TensorDesc>()
                    .write(TensorDesc::EMPTY);
            }
        }
        Ok(LoadedPlan {
            plan,
            table: start,
            arena: self.base.get().addr(),
        })
    }

    /// Reserves the plan's ephemeral region (exactly `region_size` bytes) for one inference, like
    /// one ephemeral allocation. Reclaimed by [`RawArena::reset_ephemeral`].
    #[inline]
    pub fn begin_plan(&self, plan: &LoadedPlan<'_>) -> Result<PlanRegion, AllocError> {
        let needed = plan.plan.region_size as usize;
        let start = self.top.get();
        if plan.arena != self.base.get().addr() {
            return Err(self.fail(ErrorKind::PlanMismatch, Region::Ephemeral, needed));
        }
        if start + needed > self.tensor_cap.get() {
            return Err(self.fail(ErrorKind::OutOfMemory, Region::Ephemeral, needed));
        }
        self.top.set(start + needed);
        if start + needed > self.epoch_peak.get() {
            self.epoch_peak.set(start + needed);
        }
        Ok(PlanRegion { offset: start })
    }

    /// Places slot `slot`'s tensor at its planned offset in `region`: writes its descriptor in
    /// the plan's table and points it at `region + slot.offset`. O(1). The tensor's byte size
    /// must not exceed the slot's. The caller must not use a `region` after the reset that
    /// reclaimed it (raw API contract).
    ///
    /// Errors: the shape's ([`ErrorKind::InvalidNdim`], [`ErrorKind::ZeroDimension`],
    /// [`ErrorKind::SizeOverflow`]), or [`ErrorKind::PlanMismatch`] (no such slot, a tensor
    /// larger than its slot, a plan loaded into another arena, a region already reclaimed).
    #[inline]
    pub fn alloc_planned(
        &self,
        plan: &LoadedPlan<'_>,
        region: PlanRegion,
        slot: usize,
        shape: &[u32],
        dtype: DType,
    ) -> Result<NonNull<TensorDesc>, AllocError> {
        match self.try_alloc_planned(plan, region, slot, shape, dtype) {
            Some(p) => Ok(p),
            None => Err(self.last_error_or_default()),
        }
    }

    /// [`RawArena::alloc_planned`] returning a bare pointer: `None` on failure, with the details
    /// in [`RawArena::last_error`]. The planned path's hot path (inline).
    #[inline(always)]
    pub fn try_alloc_planned(
        &self,
        plan: &LoadedPlan<'_>,
        region: PlanRegion,
        slot: usize,
        shape: &[u32],
        dtype: DType,
    ) -> Option<NonNull<TensorDesc>> {
        match TensorRequest::new(shape, dtype) {
            Ok(req) => self.try_alloc_planned_request(plan, region, slot, req),
            Err(kind) => self.fail_none(kind, Region::Ephemeral, 0),
        }
    }

    /// [`RawArena::try_alloc_planned`] for an already validated request (see [`TensorRequest`]):
    /// the slot, size, arena and live-region checks, then the descriptor write.
    #[inline(always)]
    pub fn try_alloc_planned_request(
        &self,
        plan: &LoadedPlan<'_>,
        region: PlanRegion,
        slot: usize,
        req: TensorRequest,
    ) -> Option<NonNull<TensorDesc>> {
        let base = self.base.get();
        match plan.plan.slots.get(slot) {
            // The slot exists and holds the tensor, the plan's table is in this arena, and the
            // region has not been reclaimed by a reset (it still ends at or below `top`).
            Some(s)
                if req.bytes <= s.size
                    && plan.arena == base.addr()
                    && region.offset + plan.plan.region_size as usize <= self.top.get() =>
            {
                // SAFETY: the table entry lies in the persistent block reserved by `load_plan` on
                // this arena (same base, `slot < len`); the data lies inside the plan region
                // reserved by `begin_plan` (`offset + size <= region_size`, plan validated),
                // which is still below `top`, so in tensor space.
                unsafe {
                    Some(self.write_desc(
                        base.add(plan.table + slot * DESC_SPAN),
                        base.add(region.offset + s.offset as usize),
                        req,
                        Lifetime::Ephemeral,
                    ))
                }
            }
            _ => self.planned_mismatch(plan, slot, req),
        }
    }

    /// The planned path's failure: the slot is missing or too small for the tensor (needed:
    /// the tensor's aligned size), or the plan or region does not belong to this arena's
    /// current inference (needed: 0).
    #[cold]
    #[inline(never)]
    fn planned_mismatch<T>(
        &self,
        plan: &LoadedPlan<'_>,
        slot: usize,
        req: TensorRequest,
    ) -> Option<T> {
        let slot_bad = plan.plan.slots.get(slot).is_none_or(|s| req.bytes > s.size);
        let needed = if slot_bad {
            align_up(req.bytes as usize)
        } else {
            0
        };
        self.fail_none(ErrorKind::PlanMismatch, Region::Ephemeral, needed)
    }

    /// Views of the tensors in `slots`, which must be distinct, allocated in this `region`
    /// (with [`RawArena::alloc_planned`]) and live at operator `op`. Contract as for
    /// [`RawArena::alloc_view`], with `'t` ending before the next call for the same region.
    pub(crate) fn planned_views<'t, const N: usize>(
        &self,
        plan: &LoadedPlan<'_>,
        region: PlanRegion,
        op: u16,
        slots: [usize; N],
    ) -> Result<[Tensor<'t>; N], AllocError> {
        let base = self.base.get();
        for (i, &slot) in slots.iter().enumerate() {
            let ok = match plan.plan.slots.get(slot) {
                Some(s) => {
                    let table = base.wrapping_add(plan.table + slot * DESC_SPAN);
                    // SAFETY: `slot < len`, so the entry lies in this plan's descriptor table,
                    // initialised by `load_plan` and only written by `alloc_planned`.
                    let d = unsafe { &*table.cast::<TensorDesc>() };
                    s.first_op <= op
                        && op <= s.last_op
                        && !slots[..i].contains(&slot)
                        && d.data.addr() == base.addr() + region.offset + s.offset as usize
                        && d.size <= s.size
                }
                None => false,
            };
            if !ok || plan.arena != base.addr() {
                return Err(self.fail(ErrorKind::PlanMismatch, Region::Ephemeral, 0));
            }
        }
        Ok(slots.map(|slot| Tensor {
            // SAFETY: in bounds of the table (checked above); never null.
            desc: unsafe { NonNull::new_unchecked(base.add(plan.table + slot * DESC_SPAN).cast()) },
            _mem: PhantomData,
        }))
    }

    // ---- views for the safe API (crate::arena); see the module docs for the contract ----

    /// Allocates and wraps the descriptor in a view. Contract: the caller (crate::arena) ties
    /// `'t` to a scope that ends before the reset or re-init that reclaims the tensor.
    #[inline]
    pub(crate) fn alloc_view<'t>(
        &self,
        shape: &[u32],
        dtype: DType,
        lifetime: Lifetime,
    ) -> Result<Tensor<'t>, AllocError> {
        self.alloc(shape, dtype, lifetime).map(|desc| Tensor {
            desc,
            _mem: PhantomData,
        })
    }

    /// Takes scratch bytes as a slice. Same contract as [`RawArena::alloc_view`].
    #[inline]
    pub(crate) fn scratch_view<'t>(&self, size: usize) -> Result<&'t mut [u8], AllocError> {
        let p = self.scratch_acquire(size)?;
        // SAFETY: `size` bytes from `p` lie in the scratch pool above the old scratch offset, so
        // no other block or view refers to them (invariant 3); the contract keeps the slice from
        // outliving the reset that reclaims them. `u8` is valid for any (even uninit-free:
        // the arena memory came from an initialised `&mut [u8]` or the C caller) bytes.
        Ok(unsafe { core::slice::from_raw_parts_mut(p.as_ptr(), size) })
    }
}

#[inline(always)]
fn region_of(lifetime: Lifetime) -> Region {
    match lifetime {
        Lifetime::Persistent => Region::Persistent,
        Lifetime::Ephemeral => Region::Ephemeral,
        Lifetime::Shared => Region::Shared,
    }
}

/// A tensor allocated through the safe API: its descriptor and exclusive access to its data for
/// `'t`, the scope it was allocated in (the inference for ephemeral tensors, the arena split for
/// persistent and shared ones).
///
/// ```
/// use synaptic_mem::{Arena, ArenaBuffer, DType};
/// let mut buf = ArenaBuffer::<8192>::new();
/// let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
/// let (loader, _runner) = arena.split();
/// let mut w = loader.persistent(&[2, 2], DType::Float32).unwrap();
/// w.as_mut_slice::<f32>().unwrap().copy_from_slice(&[1.0, 2.0, 3.0, 4.0]);
/// assert_eq!(w.as_slice::<f32>().unwrap()[3], 4.0);
/// assert!(w.as_slice::<i8>().is_err()); // checked against the dtype
/// assert_eq!(w.as_ptr() as usize % 16, 0); // DMA-ready
/// ```
pub struct Tensor<'t> {
    desc: NonNull<TensorDesc>,
    _mem: PhantomData<&'t mut TensorDesc>,
}

impl core::fmt::Debug for Tensor<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.descriptor().fmt(f)
    }
}

/// A typed view was asked of a tensor whose data type does not match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DTypeMismatch {
    /// The tensor's data type.
    pub actual: DType,
}

impl core::fmt::Display for DTypeMismatch {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "tensor data type is {}", self.actual.name())
    }
}

impl<'t> Tensor<'t> {
    /// The C-layout descriptor.
    #[inline]
    pub fn descriptor(&self) -> &TensorDesc {
        // SAFETY: the descriptor was written by `RawArena::alloc` and stays valid and unchanged
        // for 't (module contract); only shared access is handed out here.
        unsafe { self.desc.as_ref() }
    }

    /// Pointer to the descriptor, e.g. to hand the tensor to a C kernel as `syn_tensor_t *`.
    #[inline]
    pub fn descriptor_ptr(&self) -> NonNull<TensorDesc> {
        self.desc
    }

    /// The used dimensions.
    #[inline]
    pub fn shape(&self) -> &[u32] {
        self.descriptor().shape()
    }

    /// Element type.
    #[inline]
    pub fn dtype(&self) -> DType {
        self.descriptor().dtype
    }

    /// Lifetime class.
    #[inline]
    pub fn lifetime(&self) -> Lifetime {
        self.descriptor().lifetime
    }

    /// Bytes of data.
    #[inline]
    pub fn size(&self) -> usize {
        self.descriptor().size()
    }

    /// The 16-byte aligned data address (a DMA source).
    #[inline]
    pub fn as_ptr(&self) -> *const u8 {
        self.descriptor().data
    }

    /// The 16-byte aligned data address (a DMA target).
    #[inline]
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.descriptor().data
    }

    /// The data bytes.
    #[inline]
    pub fn bytes(&self) -> &[u8] {
        let d = self.descriptor();
        // SAFETY: `data .. data + size` was reserved for this tensor alone (invariant 3) and
        // stays so for 't; `&self` gives shared access only.
        unsafe { core::slice::from_raw_parts(d.data, d.size()) }
    }

    /// The data bytes, writable.
    #[inline]
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        let d = self.descriptor();
        let (data, size) = (d.data, d.size());
        // SAFETY: as in `bytes`; `&mut self` makes this the only live view of the data.
        unsafe { core::slice::from_raw_parts_mut(data, size) }
    }

    /// The data as `&[T]`, if `T` matches the data type (e.g. `f32` for FLOAT32).
    #[inline]
    pub fn as_slice<T: Element>(&self) -> Result<&[T], DTypeMismatch> {
        let d = self.descriptor();
        if !T::matches(d.dtype) {
            return Err(DTypeMismatch { actual: d.dtype });
        }
        // SAFETY: `data` is 16-byte aligned (≥ align_of::<T>() for every sealed `Element`),
        // the length covers only whole `T`s inside the tensor's `size` bytes, and every
        // `Element` is valid for any bit pattern.
        Ok(unsafe {
            core::slice::from_raw_parts(d.data.cast::<T>(), d.size() / core::mem::size_of::<T>())
        })
    }

    /// The data as `&mut [T]`, if `T` matches the data type.
    #[inline]
    pub fn as_mut_slice<T: Element>(&mut self) -> Result<&mut [T], DTypeMismatch> {
        let d = self.descriptor();
        if !T::matches(d.dtype) {
            return Err(DTypeMismatch { actual: d.dtype });
        }
        let (data, len) = (d.data, d.size() / core::mem::size_of::<T>());
        // SAFETY: as in `as_slice`; `&mut self` makes this the only live view of the data.
        Ok(unsafe { core::slice::from_raw_parts_mut(data.cast::<T>(), len) })
    }
}

/// A `'static`, 16-byte aligned arena buffer that can be handed out once, for firmware that keeps
/// its arena in a `static`.
///
/// ```
/// use synaptic_mem::{Arena, StaticArenaBuffer};
/// static BUF: StaticArenaBuffer<8192> = StaticArenaBuffer::new();
/// let buf: &'static mut [u8] = BUF.take().unwrap();
/// assert!(BUF.take().is_none()); // only once
/// assert_eq!(buf.as_ptr() as usize % 16, 0);
/// let arena = Arena::with_scratch(buf, 1024).unwrap();
/// assert_eq!(arena.stats().usable_size, 8192);
/// ```
#[cfg(target_has_atomic = "8")]
#[repr(C, align(16))]
pub struct StaticArenaBuffer<const N: usize> {
    bytes: core::cell::UnsafeCell<[u8; N]>,
    taken: core::sync::atomic::AtomicBool,
}

// SAFETY: the bytes are only reachable through `take`, which hands out the one `&mut` at most
// once (atomic swap), so sharing the buffer between threads cannot create aliasing access.
#[cfg(target_has_atomic = "8")]
unsafe impl<const N: usize> Sync for StaticArenaBuffer<N> {}

#[cfg(target_has_atomic = "8")]
impl<const N: usize> StaticArenaBuffer<N> {
    /// A zeroed buffer, usable as a `static` initialiser.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        Self {
            bytes: core::cell::UnsafeCell::new([0; N]),
            taken: core::sync::atomic::AtomicBool::new(false),
        }
    }

    /// The buffer as `&'static mut [u8]`, the first time only; `None` afterwards.
    #[allow(clippy::mut_from_ref)] // exclusive by the one-shot flag, like a singleton
    pub fn take(&'static self) -> Option<&'static mut [u8]> {
        if self.taken.swap(true, core::sync::atomic::Ordering::AcqRel) {
            return None;
        }
        // SAFETY: the swap above returns `false` exactly once, so this is the only `&mut` to the
        // bytes ever created; they live for 'static.
        Some(unsafe { &mut *self.bytes.get() })
    }
}
