//! The bump paths: tensors of every lifetime and scratch buffers, and the O(1) reset.
//!
//! Each allocation is align, check, advance: no loop, no search. The ephemeral path is the hot
//! one (every activation of every inference) and is inlined into its caller; persistent and
//! shared allocations happen at model load and take one out-of-line function with the same
//! logic. Every sum below fits a 32-bit `usize` (invariant 2: offsets ≤ 512 KiB or ≤ 1 GiB for
//! the shared region, spans ≤ 2^30 + 32).

use core::ptr::{self, NonNull};

use super::RawArena;
use crate::config::align_up;
use crate::dtype::{DType, Lifetime};
use crate::error::{AllocError, ErrorKind, Region};
use crate::tensor::{TensorDesc, TensorRequest, DESC_SPAN};

impl RawArena<'_> {
    /// Allocates a tensor: descriptor at a 16-byte aligned offset, data at the next 16-byte
    /// boundary after it. Align, check, bump: constant work whatever the size.
    ///
    /// Persistent allocations are refused ([`ErrorKind::EphemeralLive`]) while ephemeral tensors
    /// or scratch buffers are live. On error only the failed-allocation count changes.
    #[inline(always)]
    pub fn alloc(
        &self,
        shape: &[u32],
        dtype: DType,
        lifetime: Lifetime,
    ) -> Result<NonNull<TensorDesc>, AllocError> {
        match TensorRequest::new(shape, dtype) {
            Ok(req) => self.alloc_request(req, lifetime),
            Err(kind) => Err(self.fail(kind, lifetime.region(), 0)),
        }
    }

    /// [`RawArena::alloc`] for an already validated request (see [`TensorRequest`]): only the
    /// bump and the descriptor write, so a caller (the C API) can keep its critical section
    /// this short. Inline; the failure path is out of line.
    #[inline(always)]
    pub fn alloc_request(
        &self,
        req: TensorRequest,
        lifetime: Lifetime,
    ) -> Result<NonNull<TensorDesc>, AllocError> {
        self.alloc_request_or_else(req, lifetime, |e| e)
    }

    /// [`RawArena::alloc_request`] with the failure handed to `on_err` inside the out-of-line
    /// failure path, whose result becomes the `Err`. The inline success path then keeps nothing
    /// for the error: with a zero-sized `E` (the C API records its errno in `on_err` and uses
    /// `()`) the whole `Result` is one pointer-sized register, and no [`AllocError`] is ever
    /// built in the caller's frame.
    ///
    /// ```
    /// use synaptic_mem::{raw::RawArena, DType, ErrorKind, Lifetime, TensorRequest};
    /// let mut buf = synaptic_mem::ArenaBuffer::<8192>::new();
    /// let arena = RawArena::new(buf.as_mut_slice(), 1024).unwrap();
    /// let req = TensorRequest::new(&[1 << 20], DType::Int8).unwrap();
    /// let mut why = None;
    /// let r = arena.alloc_request_or_else(req, Lifetime::Ephemeral, |e| why = Some(e.kind));
    /// assert!(r.is_err());
    /// assert_eq!(why, Some(ErrorKind::TooLarge));
    /// ```
    #[inline(always)]
    pub fn alloc_request_or_else<E>(
        &self,
        req: TensorRequest,
        lifetime: Lifetime,
        on_err: impl FnOnce(AllocError) -> E,
    ) -> Result<NonNull<TensorDesc>, E> {
        if lifetime != Lifetime::Ephemeral {
            return self.alloc_load_time(req, lifetime, on_err);
        }
        let needed = req.span();
        match self.bump_ephemeral(needed) {
            // SAFETY: `start .. start + span` is inside tensor space (checked by the bump) and
            // was free.
            Some(start) => Ok(unsafe { self.place(self.base.get(), start, req, lifetime) }),
            None => Err(self.fail_with(ErrorKind::OutOfMemory, Region::Ephemeral, needed, on_err)),
        }
    }

    /// The ephemeral bump: reserves `needed` bytes at `top` (the high-water mark kept at
    /// allocation time) and returns their offset, or `None` (nothing changed, nothing counted:
    /// the caller takes its failure path) if they do not fit. Shared by tensors and planned
    /// regions. `needed` must be at most 2^30 + 32 (a request's span, or a plan region that
    /// fitted the tensor space at load), so the sum cannot wrap.
    #[inline(always)]
    pub(super) fn bump_ephemeral(&self, needed: usize) -> Option<usize> {
        let start = self.top.get();
        let end = start + needed;
        if end > self.tensor_cap.get() {
            return None;
        }
        self.top.set(end);
        if end > self.epoch_peak.get() {
            self.epoch_peak.set(end);
        }
        self.debug_check();
        Some(start)
    }

    /// Persistent and shared allocations (model load time).
    #[inline(never)]
    fn alloc_load_time<E>(
        &self,
        req: TensorRequest,
        lifetime: Lifetime,
        on_err: impl FnOnce(AllocError) -> E,
    ) -> Result<NonNull<TensorDesc>, E> {
        let needed = req.span();
        let (base, start) = if lifetime == Lifetime::Shared {
            let start = self.shared_top.get();
            let end = start + needed;
            if end > self.shared_cap.get() {
                return Err(on_err(self.fail(
                    ErrorKind::OutOfMemory,
                    Region::Shared,
                    needed,
                )));
            }
            self.shared_top.set(end);
            (self.shared_base.get(), start)
        } else {
            let start = self.top.get();
            let kind = if start != self.pers_end.get() || self.scratch_top.get() != 0 {
                ErrorKind::EphemeralLive
            } else if start + needed > self.tensor_cap.get() {
                ErrorKind::OutOfMemory
            } else {
                self.grow_persistent(start + needed);
                return Ok(self.place_checked(self.base.get(), start, req, lifetime));
            };
            return Err(on_err(self.fail(kind, Region::Persistent, needed)));
        };
        Ok(self.place_checked(base, start, req, lifetime))
    }

    /// [`RawArena::place`] for a block just reserved (the bump above checked it).
    #[inline(always)]
    fn place_checked(
        &self,
        base: *mut u8,
        start: usize,
        req: TensorRequest,
        lifetime: Lifetime,
    ) -> NonNull<TensorDesc> {
        self.debug_check();
        // SAFETY: called right after a bump reserved `start .. start + req.span()` inside the
        // region at `base` (checked against its capacity); it was free.
        unsafe { self.place(base, start, req, lifetime) }
    }

    /// Writes a descriptor at `base + start` and its data pointer `DESC_SPAN` bytes later, and
    /// counts the allocation.
    ///
    /// # Safety
    /// `start .. start + req.span()` must lie inside the region starting at `base` (16-byte
    /// aligned), be a multiple of 16 from it, and be referred to by nothing else (it was above
    /// the region's bump offset, invariant 3).
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
    pub(super) unsafe fn write_desc(
        &self,
        desc: *mut u8,
        data: *mut u8,
        req: TensorRequest,
        lifetime: Lifetime,
    ) -> NonNull<TensorDesc> {
        self.alloc_count.set(self.alloc_count.get().wrapping_add(1));
        // SAFETY: forwarded contract.
        unsafe { fill_desc(desc, data, req, lifetime) }
    }

    /// Moves the end of the persistent region (ephemeral and scratch are empty) to `end`,
    /// closing the current peak epoch.
    #[inline]
    pub(super) fn grow_persistent(&self, end: usize) {
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
        // `size < cap <= 64 KiB + 16`: neither sum can wrap.
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
        self.debug_check();
        // SAFETY: `tensor_cap + start < usable` (start < end <= cap = usable - tensor_cap), so
        // the pointer is in bounds of the arena and non-null (base is non-null when cap > 0).
        unsafe {
            Ok(NonNull::new_unchecked(
                self.base.get().add(self.tensor_cap.get() + start),
            ))
        }
    }

    /// Grows the scratch pool to at least `size` bytes (rounded up to 16), taking them from the
    /// top of the tensor space: what a runtime does at load once it knows the largest block its
    /// kernels take. A pool already that large stays as it is. O(1). Refused while ephemeral
    /// tensors or scratch buffers are live ([`ErrorKind::EphemeralLive`]), and with
    /// [`ErrorKind::TooLarge`] over the core's largest pool or beyond the free tensor space
    /// above the persistent region (which only a re-initialisation gives back); on error only
    /// the failure count changes.
    /// A plan loaded before whose region no longer fits is refused when its inference begins.
    pub fn reserve_scratch(&self, size: usize) -> Result<(), AllocError> {
        if size > crate::MAX_SCRATCH_SIZE {
            return Err(self.fail(ErrorKind::TooLarge, Region::Scratch, size));
        }
        let want = align_up(size);
        let have = self.scratch_cap();
        if want <= have {
            return Ok(());
        }
        if self.top.get() != self.pers_end.get() || self.scratch_top.get() != 0 {
            return Err(self.fail(ErrorKind::EphemeralLive, Region::Scratch, want));
        }
        // `want - have` ≤ 64 KiB: no wrap; the new end stays a multiple of 16.
        let grow = want - have;
        let tensor_cap = self.tensor_cap.get();
        if tensor_cap < self.pers_end.get() + grow {
            return Err(self.fail(ErrorKind::TooLarge, Region::Ephemeral, grow));
        }
        self.tensor_cap.set(tensor_cap - grow);
        self.debug_check();
        Ok(())
    }

    /// Runs `f` on a `size`-byte block of the scratch pool taken for one scope (one
    /// operator's call), then gives the block back if it is still the last one taken
    /// (nothing was taken above it during the scope): O(1), two offsets compared and one
    /// written. A block something else was taken above stays until the reset, like any
    /// scratch buffer. Scopes nest in call order, so they end last-in first-out. `size` 0
    /// takes nothing and gives `f` an empty block; a failed take leaves the arena as it was
    /// (only the failure statistics count it) and does not run `f`.
    ///
    /// Contract (as [`RawArena::alloc_view`]): the caller ties the block's lifetime to the
    /// scope, so no reference to it outlives `f`.
    #[inline]
    pub(crate) fn scratch_scope<'s, R>(
        &self,
        size: usize,
        f: impl FnOnce(&'s mut [u8]) -> R,
    ) -> Result<R, AllocError> {
        if size == 0 {
            return Ok(f(&mut []));
        }
        let mark = self.scratch_top.get();
        let block = self.scratch_view(size)?;
        let end = self.scratch_top.get();
        struct GiveBack<'r, 'b> {
            raw: &'r RawArena<'b>,
            mark: usize,
            end: usize,
        }
        impl Drop for GiveBack<'_, '_> {
            fn drop(&mut self) {
                // Still the last block: the offset goes back to where the scope began (a
                // reset during the scope cannot happen: it needs the runner, which the scope
                // borrows).
                if self.raw.scratch_top.get() == self.end {
                    self.raw.scratch_top.set(self.mark);
                }
                self.raw.debug_check();
            }
        }
        let _give_back = GiveBack {
            raw: self,
            mark,
            end,
        };
        Ok(f(block))
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
        self.debug_check();
    }
}

/// Writes a descriptor for `req` at `desc` pointing at `data`, without counting: the one
/// descriptor-writing routine, for allocations and for typed-plan templates.
///
/// # Safety
/// `desc` must be valid for writes of a [`TensorDesc`], 16-byte aligned, and referred to by
/// nothing else.
#[inline(always)]
pub(super) unsafe fn fill_desc(
    desc: *mut u8,
    data: *mut u8,
    req: TensorRequest,
    lifetime: Lifetime,
) -> NonNull<TensorDesc> {
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
