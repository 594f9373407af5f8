//! The raw arena: bump logic over a raw byte region, and every `unsafe` block of the crate.
//!
//! One type, [`RawArena`], whose `impl` is split by concern across this module's files (as
//! smoltcp splits its sockets), so each file can be read with its invariants in view:
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | the state, (re-)initialisation, the shared region, statistics, the failure path |
//! | `bump.rs` | the bump allocation paths (tensors of every lifetime, scratch), the O(1) reset |
//! | `planned.rs` | memory plans: loading a plan's descriptor table, planned inferences |
//! | `views.rs` | the safe views ([`Tensor`], scratch slices) the scoped API hands out |
//! | `static_buf.rs` | [`StaticArenaBuffer`], a `'static` arena buffer handed out once |
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
//! 2. `0 <= pers_end <= top <= tensor_cap <= usable <= MAX_ARENA_SIZE`, all multiples of 16;
//!    `0 <= scratch_top <= scratch_cap = usable - tensor_cap`, multiple of 16;
//!    `0 <= shared_top <= shared_cap <= MAX_SHARED_SIZE`, multiples of 16, `shared_base`
//!    16-byte aligned, and the shared region shares no byte with the arena's buffer.
//!    Every sum of an offset and a request's span therefore fits a 32-bit `usize`: requests
//!    are at most [`MAX_TENSOR_BYTES`](crate::MAX_TENSOR_BYTES) + 32 bytes (2^30 + 32), and
//!    plans are refused at load unless their region fits the tensor space.
//! 3. Every block handed out lies below its region's bump offset, and blocks of one region never
//!    overlap: an offset only moves up, except `reset_ephemeral` (ephemeral and scratch),
//!    [`RawArena::clear`] / re-initialisation (everything), and the end of a scratch scope,
//!    which moves `scratch_top` back to where the scope began only if the scope's block is
//!    still the last one (nothing lies above it) and no reference to it is left.
//! 4. An uninitialised arena has every capacity 0, so every allocation fails.
//! 5. `generation` changes at every [`RawArena::clear`] (and so at every `init` / `deinit`): a
//!    [`LoadedPlan`](crate::LoadedPlan) or [`TypedPlan`](crate::TypedPlan) stamped with another
//!    generation, or whose descriptor table does not lie below `pers_end`, or that was loaded at
//!    another base, is refused.
//! 6. The epoch (`reset_count`, which is never zeroed: the statistic is
//!    `reset_count - reset_base`) changes at every reset and every `clear`: a
//!    [`PlanRun`](crate::PlanRun) stamped with another epoch or base is refused. Within one
//!    epoch the ephemeral region only grows and the persistent region does not move, so a run
//!    of this epoch refers to a descriptor table below `pers_end` and a region below `top`.
//!
//! Invariants 2 and 3 are checked by `debug_assert!`s on every path that moves an offset
//! (debug and Miri runs; free in release).
//!
//! The raw API hands out `NonNull` pointers: using them after the reset that reclaimed them is
//! the caller's responsibility (the C API's contract). Every safe method keeps every write
//! inside the arena's (or shared region's) own memory, whatever its arguments. The safe API
//! (`crate::arena`) is the only user of the `pub(crate)` view constructors, and its types
//! guarantee that no view outlives the reset or re-initialisation that reclaims its memory.

use core::cell::Cell;
use core::marker::PhantomData;
use core::ptr;

use crate::config::{
    align_down, ArenaConfig, ConfigError, Floors, MAX_SHARED_SIZE, MIN_SHARED_SIZE,
};
use crate::error::{AllocError, ErrorKind, Region};
use crate::stats::Stats;

mod bump;
mod planned;
#[cfg(target_has_atomic = "8")]
mod static_buf;
mod views;

#[cfg(target_has_atomic = "8")]
pub use static_buf::StaticArenaBuffer;
pub use views::{DTypeMismatch, Scratch, Tensor};

/// Bump allocator state over one arena (and an optional shared region).
///
/// Interior mutability (`Cell`) lets several handles share it on one thread; it is `Send` but
/// not `Sync`. The C API keeps one in a `critical_section::Mutex`. Every allocation entry point
/// returns a `Result` (with [`AllocError`] saying why); the inline ones cost nothing over a bare
/// pointer on success.
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
    /// Address of the buffer as given (before aligning up), for the shared-region check.
    buf_addr: Cell<usize>,
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
    /// The epoch (invariant 6): bumped by every reset and every `clear`, never zeroed.
    reset_count: Cell<u32>,
    /// `reset_count` at the last `clear`: the statistic is `reset_count - reset_base`.
    reset_base: Cell<u32>,
    failed_count: Cell<u32>,
    /// Changes at every `clear` (invariant 5): stamps loaded plans.
    generation: Cell<u32>,
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
        buf_addr: Cell::new(0),
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
        reset_base: Cell::new(0),
        failed_count: Cell::new(0),
        generation: Cell::new(0),
        _mem: PhantomData,
    };

    /// An arena over `buf` (its length is the arena size) with a `scratch_size`-byte pool.
    pub fn new(buf: &'a mut [u8], scratch_size: usize) -> Result<Self, ConfigError> {
        let arena = Self::UNINIT;
        // SAFETY: `buf` is exclusively borrowed for 'a, which the arena carries in its type.
        unsafe { arena.init(buf.as_mut_ptr(), buf.len(), scratch_size)? };
        Ok(arena)
    }

    /// An arena over `buf` sized exactly for a plan: no Kconfig floors ([`Floors::Exact`]), so
    /// the scratch pool may be 0 bytes and the arena as small as the model needs.
    pub fn new_exact(buf: &'a mut [u8], scratch_size: usize) -> Result<Self, ConfigError> {
        let arena = Self::UNINIT;
        // SAFETY: `buf` is exclusively borrowed for 'a, which the arena carries in its type.
        unsafe { arena.init_with(buf.as_mut_ptr(), buf.len(), scratch_size, Floors::Exact)? };
        Ok(arena)
    }

    /// (Re-)initialises the arena over `len` bytes at `base` under the Kconfig floors, dropping
    /// all earlier allocations, statistics and the shared region. On error nothing changes.
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
        // SAFETY: forwarded contract.
        unsafe { self.init_with(base, len, scratch_size, Floors::Kconfig) }
    }

    /// [`RawArena::init`] under the given floors. The layout is
    /// [`ArenaConfig::layout_at_with`]'s.
    ///
    /// # Safety
    /// As for [`RawArena::init`].
    pub unsafe fn init_with(
        &self,
        base: *mut u8,
        len: usize,
        scratch_size: usize,
        floors: Floors,
    ) -> Result<(), ConfigError> {
        let layout = ArenaConfig {
            arena_size: len,
            scratch_size,
        }
        .layout_at_with(base.addr(), floors)?;
        if base.is_null() {
            return Err(ConfigError::NullBase);
        }
        self.base.set(base.wrapping_add(layout.pad));
        self.buf_addr.set(base.addr());
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

    /// Registers the shared (IPC) region for [`Lifetime::Shared`](crate::Lifetime) tensors,
    /// replacing (and emptying) any earlier one. Takes `&mut self`: the region must live as long
    /// as the arena's own buffer (`'a`), and a shared borrow of a longer-lived arena cannot be
    /// used to register a shorter-lived region:
    ///
    /// ```compile_fail
    /// use synaptic_mem::{ArenaBuffer, DType, Lifetime, RawArena};
    /// let mut buf = ArenaBuffer::<8192>::new();
    /// let mut arena = RawArena::new(buf.as_mut_slice(), 1024).unwrap();
    /// {
    ///     let mut io = ArenaBuffer::<1024>::new(); // dropped at the end of this block
    ///     arena.set_shared(io.as_mut_slice()).unwrap();
    /// }
    /// let _ = arena.alloc(&[4], DType::Int8, Lifetime::Shared); // would write into `io`
    /// ```
    ///
    /// A region that lives as long as the buffer is fine:
    ///
    /// ```
    /// use synaptic_mem::{ArenaBuffer, DType, Lifetime, RawArena};
    /// let mut buf = ArenaBuffer::<8192>::new();
    /// let mut io = ArenaBuffer::<1024>::new();
    /// let mut arena = RawArena::new(buf.as_mut_slice(), 1024).unwrap();
    /// arena.set_shared(io.as_mut_slice()).unwrap();
    /// assert!(arena.alloc(&[4], DType::Int8, Lifetime::Shared).is_ok());
    /// ```
    pub fn set_shared(&mut self, region: &'a mut [u8]) -> Result<(), ConfigError> {
        // SAFETY: `region` is exclusively borrowed for 'a, which the arena carries in its type
        // (and `&mut self` keeps 'a from being shortened through a shared borrow).
        unsafe { self.set_shared_raw(region.as_mut_ptr(), region.len()) }
    }

    /// Registers `len` bytes at `base` as the shared region, replacing (and emptying) any earlier
    /// one. The base is aligned up to 16 and the size reduced to a multiple of 16; the result
    /// must lie in 48..=2^30 bytes and share no byte with the arena's buffer
    /// ([`ConfigError::SharedOverlapsArena`]). On error nothing changes.
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
        // The given bytes and the arena's whole buffer share none (u64: no sum can wrap).
        let s0 = base.addr() as u64;
        let s1 = s0 + len as u64;
        let a0 = self.buf_addr.get() as u64;
        let a1 = a0 + self.arena_size.get() as u64;
        if self.is_initialized() && s0 < a1 && a0 < s1 {
            return Err(ConfigError::SharedOverlapsArena);
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
    /// every statistic zero, and every loaded plan and plan run stale (invariants 5 and 6). The
    /// only way to reclaim persistent memory.
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
        // A new epoch whose reset statistic starts at 0 (invariant 6).
        let epoch = self.reset_count.get().wrapping_add(1);
        self.reset_count.set(epoch);
        self.reset_base.set(epoch);
        self.failed_count.set(0);
        self.generation.set(self.generation.get().wrapping_add(1));
    }

    /// Returns the arena to the uninitialised state (no memory, no shared region, statistics
    /// zero): every allocation fails with [`ErrorKind::NotInitialized`] until the next `init`.
    pub fn deinit(&self) {
        self.base.set(ptr::null_mut());
        for c in [
            &self.buf_addr,
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

    #[inline(always)]
    fn scratch_cap(&self) -> usize {
        self.usable.get() - self.tensor_cap.get()
    }

    /// Invariants 2 and 3 of the module docs, checked in debug builds (and under Miri) after
    /// every change of an offset; compiled out in release.
    #[inline(always)]
    fn debug_check(&self) {
        debug_assert!(self.base.get().addr() % 16 == 0);
        debug_assert!(self.pers_end.get() <= self.top.get());
        debug_assert!(self.top.get() <= self.tensor_cap.get());
        debug_assert!(self.tensor_cap.get() <= self.usable.get());
        debug_assert!(self.usable.get() <= crate::MAX_ARENA_SIZE);
        debug_assert!(self.scratch_top.get() <= self.scratch_cap());
        debug_assert!(self.shared_top.get() <= self.shared_cap.get());
        debug_assert!(self.shared_cap.get() <= MAX_SHARED_SIZE);
        debug_assert!(
            (self.pers_end.get() | self.top.get() | self.scratch_top.get() | self.shared_top.get())
                % 16
                == 0
        );
        debug_assert!(self.epoch_peak.get() >= self.top.get());
    }

    /// The failure path: classifies, counts, and touches nothing else.
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
        AllocError {
            kind,
            region,
            needed,
            available,
        }
    }

    /// The failure path for callers that handle the error out of line (see
    /// [`RawArena::alloc_request_or_else`]): classifies and counts, then hands the error to
    /// `on_err`, all in one cold function.
    #[cold]
    #[inline(never)]
    fn fail_with<E>(
        &self,
        kind: ErrorKind,
        region: Region,
        needed: usize,
        on_err: impl FnOnce(AllocError) -> E,
    ) -> E {
        on_err(self.fail(kind, region, needed))
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
            reset_count: self.reset_count.get().wrapping_sub(self.reset_base.get()),
            failed_count: self.failed_count.get(),
        }
    }
}
