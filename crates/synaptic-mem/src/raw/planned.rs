//! Planned inferences: activations at a plan's precomputed offsets.
//!
//! [`RawArena::load_plan`] validates a [`Plan`] and reserves its descriptor table (one
//! [`DESC_SPAN`] block per slot) in the persistent region; [`RawArena::begin_plan`] reserves the
//! plan's ephemeral region (one bump); [`RawArena::alloc_planned`] places one slot's tensor (one
//! descriptor write). A [`LoadedPlan`] and a [`PlanRegion`] are plain values that a caller can
//! keep, copy, or hand to another arena, so every entry point checks that they belong to this
//! arena as it is now (invariant 5) before it writes anything:
//!
//! * the plan was loaded at this base, in this generation (no re-init since), and its table
//!   lies below `pers_end`: so the table entries written are the ones reserved for it;
//! * the region's end (`offset + region_size`, both ≤ 512 KiB, so no wrap) is at or below
//!   `top`: so every slot's data (`offset + slot.offset + size ≤ offset + region_size`, the
//!   plan being valid) lies in this arena's live ephemeral region.
//!
//! A plan's region larger than the tensor space left after its table is refused at load, so a
//! plan can never make an offset wrap on a 32-bit target.
//!
//! A **typed plan** ([`RawArena::load_typed_plan`]) also knows each slot's tensor type
//! ([`SlotType`]): its table holds every slot's complete descriptor, written once at load, so an
//! inference is [`RawArena::begin_typed_plan`] (one bump, and O(n) only when the region lands
//! somewhere else than last time: the data pointers move) and then
//! [`RawArena::planned_tensor`] per tensor, which only checks and returns a pointer: the C API's
//! planned allocation. A [`PlanRun`] is checked by epoch (invariant 6) and base: a run of this
//! epoch refers to a table of this arena, bound to a region that is still live.

use core::marker::PhantomData;
use core::ptr::{self, NonNull};

use super::bump::fill_desc;
use super::{RawArena, Tensor};
use crate::dtype::{DType, Lifetime};
use crate::error::{AllocError, ErrorKind, Region};
use crate::plan::{
    LoadedPlan, OverlapPair, OverlapSpan, Plan, PlanError, PlanLoadError, PlanRegion, PlanRun,
    PlanSlot, SlotType, TypedPlan,
};
use crate::tensor::{TensorDesc, TensorRequest, DESC_SPAN};

impl RawArena<'_> {
    /// Loads a validated plan: reserves its descriptor table (one [`DESC_SPAN`] block per slot)
    /// in the persistent region and fills it with empty descriptors. O(n) once per model.
    ///
    /// Refused: an invalid plan ([`PlanLoadError::Invalid`]); a table that does not fit or may
    /// not grow the persistent region now; a region larger than the tensor space left after the
    /// table ([`ErrorKind::TooLarge`], region ephemeral). On error only the failed count moves.
    pub fn load_plan<'p>(&self, plan: Plan<'p>) -> Result<LoadedPlan<'p>, PlanLoadError> {
        self.load_overlapped_plan(plan, &[])
    }

    /// [`RawArena::load_plan`] for a plan with declared output/input overlaps, validated by
    /// [`Plan::validate_overlapped`] (the one rule). The slots of a declared pair that share
    /// bytes are never handed out together as tensors
    /// ([`PlannedInference::at`](crate::PlannedInference::at) refuses any two that overlap);
    /// the pair is reached as one span
    /// ([`PlannedInference::overlapped`](crate::PlannedInference::overlapped)).
    pub fn load_overlapped_plan<'p>(
        &self,
        plan: Plan<'p>,
        overlaps: &'p [OverlapPair],
    ) -> Result<LoadedPlan<'p>, PlanLoadError> {
        let loaded = self.reserve_table(plan, overlaps)?;
        let base = self.base.get();
        for i in 0..plan.slots.len() {
            // SAFETY: the table `table .. table_end` was just reserved in the persistent region
            // (checked against `tensor_cap`), is 16-byte aligned, and nothing refers to it.
            unsafe {
                base.add(loaded.table + i * DESC_SPAN)
                    .cast::<TensorDesc>()
                    .write(TensorDesc::EMPTY);
            }
        }
        Ok(loaded)
    }

    /// Validates `plan` and reserves its descriptor table (uninitialised) in the persistent
    /// region: the checks of [`RawArena::load_plan`], shared with the typed load.
    fn reserve_table<'p>(
        &self,
        plan: Plan<'p>,
        overlaps: &'p [OverlapPair],
    ) -> Result<LoadedPlan<'p>, PlanLoadError> {
        plan.validate_overlapped(overlaps)
            .map_err(PlanLoadError::Invalid)?;
        let start = self.top.get();
        let free = self.tensor_cap.get() - start;
        // Saturating: a table too large for the address space is just "too large".
        let needed = plan.slots.len().saturating_mul(DESC_SPAN);
        if start != self.pers_end.get() || self.scratch_top.get() != 0 {
            return Err(PlanLoadError::Alloc(self.fail(
                ErrorKind::EphemeralLive,
                Region::Persistent,
                needed,
            )));
        }
        if needed > free {
            return Err(PlanLoadError::Alloc(self.fail(
                ErrorKind::OutOfMemory,
                Region::Persistent,
                needed,
            )));
        }
        let region = plan.region_size as usize;
        if region > free - needed {
            let mut e = self.fail(ErrorKind::TooLarge, Region::Ephemeral, region);
            e.available = free - needed;
            return Err(PlanLoadError::Alloc(e));
        }
        let table_end = start + needed;
        self.grow_persistent(table_end);
        self.alloc_count.set(self.alloc_count.get().wrapping_add(1));
        self.debug_check();
        Ok(LoadedPlan {
            plan,
            overlaps,
            table: start,
            table_end,
            arena: self.base.get().addr(),
            generation: self.generation.get(),
        })
    }

    /// Loads a typed plan: the checks and the table of [`RawArena::load_plan`], and each slot's
    /// complete descriptor written once from `types[slot]` (shape, dtype, size, lifetime
    /// ephemeral; data pointing where the region of a first [`RawArena::begin_typed_plan`]
    /// right after the load would be). O(n²) once per model (the plan's validation).
    ///
    /// Refused, besides [`RawArena::load_plan`]'s errors: `types` not one per slot
    /// ([`PlanError::TypeCount`]), a type that is invalid or larger than its slot
    /// ([`PlanError::BadType`]). On error only the failed count moves (not for an invalid plan).
    ///
    /// ```
    /// use synaptic_mem::{plan::*, ArenaBuffer, DType, RawArena};
    /// const SLOTS: &[PlanSlot] = &[PlanSlot { offset: 0, size: 64, first_op: 0, last_op: 0 }];
    /// const TYPES: &[SlotType] = &[SlotType::new([4, 16, 1, 1], 2, DType::Int8)];
    /// let mut buf = ArenaBuffer::<8192>::new();
    /// let arena = RawArena::new(buf.as_mut_slice(), 1024).unwrap();
    /// let plan = arena.load_typed_plan(Plan { region_size: 64, slots: SLOTS }, TYPES).unwrap();
    /// let run = arena.begin_typed_plan(&plan).unwrap();
    /// let t = unsafe { arena.planned_tensor(&run, 0).unwrap().as_ref() };
    /// assert_eq!((t.shape(), t.size()), (&[4, 16][..], 64));
    /// arena.reset_ephemeral();
    /// assert!(arena.planned_tensor(&run, 0).is_err()); // reclaimed
    /// ```
    pub fn load_typed_plan(
        &self,
        plan: Plan<'_>,
        types: &[SlotType],
    ) -> Result<TypedPlan, PlanLoadError> {
        let n = plan.slots.len();
        if types.len() != n {
            return Err(PlanLoadError::Invalid(PlanError::TypeCount(n, types.len())));
        }
        for (i, (slot, ty)) in plan.slots.iter().zip(types).enumerate() {
            match ty.request() {
                Ok(req) if req.bytes <= slot.size => {}
                Ok(_) => {
                    return Err(PlanLoadError::Invalid(PlanError::BadType(
                        i,
                        ErrorKind::TooLarge,
                    )))
                }
                Err(kind) => return Err(PlanLoadError::Invalid(PlanError::BadType(i, kind))),
            }
        }
        let loaded = self.reserve_table(plan, &[])?;
        let base = self.base.get();
        for (i, (slot, ty)) in plan.slots.iter().zip(types).enumerate() {
            let Ok(req) = ty.request() else {
                unreachable!("checked above")
            };
            // SAFETY: the table entry lies in the block just reserved in the persistent region
            // (`i < n`), 16-byte aligned, referred to by nothing else. The data pointer is in
            // bounds: `table_end + slot.end() <= table_end + region_size <= tensor_cap` (the
            // plan is valid and its region fitted the tensor space after the table).
            unsafe {
                fill_desc(
                    base.add(loaded.table + i * DESC_SPAN),
                    base.add(loaded.table_end + slot.offset as usize),
                    req,
                    Lifetime::Ephemeral,
                );
            }
        }
        Ok(TypedPlan {
            table: loaded.table,
            table_end: loaded.table_end,
            len: n,
            region_size: plan.region_size as usize,
            first_offset: plan.slots.first().map_or(0, |s| s.offset as usize),
            arena: loaded.arena,
            generation: loaded.generation,
        })
    }

    /// Reserves a typed plan's ephemeral region (exactly its `region_size` bytes) for one
    /// inference, points every slot's descriptor at it and counts the plan's tensors as
    /// allocations. O(1) when the region lands where the plan's last region was (the data
    /// pointers are already right), O(n) otherwise. Several runs of one plan may be live in one
    /// epoch; the descriptors point at the most recent one's region.
    ///
    /// Errors: [`ErrorKind::PlanMismatch`] (a plan loaded into another arena, or before the last
    /// re-initialisation), [`ErrorKind::OutOfMemory`] (not enough ephemeral space left now).
    /// On error only the failed count moves.
    pub fn begin_typed_plan(&self, plan: &TypedPlan) -> Result<PlanRun, AllocError> {
        let needed = plan.region_size;
        let base = self.base.get();
        if !self.owns_table(plan.arena, plan.generation, plan.table_end) {
            return Err(self.fail(ErrorKind::PlanMismatch, Region::Ephemeral, needed));
        }
        // `needed` fitted a tensor space (≤ 512 KiB) at load, so the bump cannot wrap.
        let Some(offset) = self.bump_ephemeral(needed) else {
            return Err(self.fail(ErrorKind::OutOfMemory, Region::Ephemeral, needed));
        };
        if plan.len != 0 {
            let table = base.wrapping_add(plan.table).cast::<TensorDesc>();
            // SAFETY: the plan is this arena's (same base and generation, table below
            // `pers_end`), so its table's first entry lies in the persistent region, written by
            // `load_typed_plan` (or, for a plan passing these checks from another arena at this
            // base, by some allocation: any bytes are a valid raw pointer, only compared).
            let data0 = unsafe { ptr::addr_of!((*table).data).read() };
            // Where the data pointers point now: slot 0's pointer minus its offset.
            let bound = data0
                .addr()
                .wrapping_sub(base.addr())
                .wrapping_sub(plan.first_offset);
            if bound != offset {
                for i in 0..plan.len {
                    // SAFETY: entry `i < len` lies in the table, inside the persistent region
                    // (`table_end <= pers_end`), 16-byte aligned; only its data pointer is read
                    // and rewritten. The new pointer is the old one moved by the region's shift,
                    // computed from `base` (its provenance) without dereferencing anything.
                    unsafe {
                        let data = ptr::addr_of_mut!(
                            (*base.add(plan.table + i * DESC_SPAN).cast::<TensorDesc>()).data
                        );
                        let rel = data
                            .read()
                            .addr()
                            .wrapping_sub(base.addr())
                            .wrapping_sub(bound);
                        data.write(base.wrapping_add(offset.wrapping_add(rel)));
                    }
                }
            }
        }
        self.alloc_count
            .set(self.alloc_count.get().wrapping_add(plan.len as u32));
        self.debug_check();
        Ok(PlanRun {
            table: plan.table,
            len: plan.len,
            arena: base.addr(),
            epoch: self.reset_count.get(),
        })
    }

    /// The descriptor of slot `slot` in `run`'s inference: O(1), three checks (the slot exists,
    /// the run is of this arena — same base — and of this epoch: no reset or re-initialisation
    /// since [`RawArena::begin_typed_plan`]), no write. The descriptor was filled at load and
    /// its data points into the plan's live region.
    ///
    /// Errors: [`ErrorKind::PlanMismatch`] (no such slot, a run never begun, of another arena,
    /// or whose region a reset or re-initialisation reclaimed); only the failed count moves.
    #[inline(always)]
    pub fn planned_tensor(
        &self,
        run: &PlanRun,
        slot: usize,
    ) -> Result<NonNull<TensorDesc>, AllocError> {
        let base = self.base.get();
        if slot < run.len && run.arena == base.addr() && run.epoch == self.reset_count.get() {
            // In the table of a plan this arena began in this epoch (invariant 6), so inside the
            // persistent region; `wrapping_add` keeps even a run passing these checks from
            // another arena at this base free of UB (the pointer is not dereferenced here).
            let desc = base.wrapping_add(run.table + slot * DESC_SPAN);
            // SAFETY: `base` is non-null here (`run.arena == base`, and a run with `len > 0` is
            // only made by `begin_typed_plan` on an initialised arena, whose base is non-null);
            // the offset is below the arena size, so the sum does not wrap to 0.
            Ok(unsafe { NonNull::new_unchecked(desc.cast()) })
        } else {
            Err(self.fail(ErrorKind::PlanMismatch, Region::Ephemeral, 0))
        }
    }

    /// Whether `plan` was loaded into this arena as it is now (invariant 5): same base, same
    /// generation, and its descriptor table inside the persistent region.
    #[inline(always)]
    fn owns(&self, plan: &LoadedPlan<'_>) -> bool {
        self.owns_table(plan.arena, plan.generation, plan.table_end)
    }

    /// The one ownership rule (invariant 5) for every kind of loaded plan: loaded at this base,
    /// in this generation, its descriptor table ending inside the persistent region.
    #[inline(always)]
    fn owns_table(&self, arena: usize, generation: u32, table_end: usize) -> bool {
        arena == self.base.get().addr()
            && generation == self.generation.get()
            && table_end <= self.pers_end.get()
    }

    /// Reserves the plan's ephemeral region (exactly `region_size` bytes) for one inference, like
    /// one ephemeral allocation. Reclaimed by [`RawArena::reset_ephemeral`].
    ///
    /// Errors: [`ErrorKind::PlanMismatch`] (a plan loaded into another arena, or before the last
    /// re-initialisation), [`ErrorKind::OutOfMemory`] (not enough ephemeral space left now).
    #[inline]
    pub fn begin_plan(&self, plan: &LoadedPlan<'_>) -> Result<PlanRegion, AllocError> {
        let needed = plan.plan.region_size as usize;
        if !self.owns(plan) {
            return Err(self.fail(ErrorKind::PlanMismatch, Region::Ephemeral, needed));
        }
        // `needed` fitted a tensor space (≤ 512 KiB) at load, so the bump cannot wrap.
        match self.bump_ephemeral(needed) {
            Some(offset) => Ok(PlanRegion { offset }),
            None => Err(self.fail(ErrorKind::OutOfMemory, Region::Ephemeral, needed)),
        }
    }

    /// Places slot `slot`'s tensor at its planned offset in `region`: writes its descriptor in
    /// the plan's table and points it at `region + slot.offset`. O(1). The tensor's byte size
    /// must not exceed the slot's. The caller must not use a `region` after the reset that
    /// reclaimed it (raw API contract).
    ///
    /// Errors: the shape's ([`ErrorKind::InvalidNdim`], [`ErrorKind::ZeroDimension`],
    /// [`ErrorKind::SizeOverflow`]), or [`ErrorKind::PlanMismatch`] (no such slot, a tensor
    /// larger than its slot, a plan not loaded into this arena as it is now, a region already
    /// reclaimed).
    #[inline(always)]
    pub fn alloc_planned(
        &self,
        plan: &LoadedPlan<'_>,
        region: PlanRegion,
        slot: usize,
        shape: &[u32],
        dtype: DType,
    ) -> Result<NonNull<TensorDesc>, AllocError> {
        match TensorRequest::new(shape, dtype) {
            Ok(req) => self.alloc_planned_request(plan, region, slot, req),
            Err(kind) => Err(self.fail(kind, Region::Ephemeral, 0)),
        }
    }

    /// [`RawArena::alloc_planned`] for an already validated request (see [`TensorRequest`]):
    /// the slot, size, arena and live-region checks, then the descriptor write. Inline; the
    /// failure path is out of line.
    #[inline(always)]
    pub fn alloc_planned_request(
        &self,
        plan: &LoadedPlan<'_>,
        region: PlanRegion,
        slot: usize,
        req: TensorRequest,
    ) -> Result<NonNull<TensorDesc>, AllocError> {
        match plan.plan.slots.get(slot) {
            // The slot exists and holds the tensor, the plan is this arena's (table reserved
            // here, in this generation), and the region has not been reclaimed by a reset (it
            // still ends at or below `top`; both terms ≤ 512 KiB, no wrap).
            Some(s)
                if req.bytes <= s.size
                    && self.owns(plan)
                    && region.offset + plan.plan.region_size as usize <= self.top.get() =>
            {
                let base = self.base.get();
                // SAFETY: the table entry lies in the block `load_plan` reserved for this plan
                // in this arena's persistent region (`owns`: same base and generation, table
                // below `pers_end`; `slot < len`); the data lies inside the region reserved by
                // `begin_plan` (`slot.offset + size <= region_size`, plan validated), which is
                // still below `top`, so in tensor space and referred to by no other block.
                unsafe {
                    Ok(self.write_desc(
                        base.add(plan.table + slot * DESC_SPAN),
                        base.add(region.offset + s.offset as usize),
                        req,
                        Lifetime::Ephemeral,
                    ))
                }
            }
            _ => Err(self.planned_mismatch(plan, slot, req)),
        }
    }

    /// Places slot `slot`'s tensor ahead of the plan's inferences: writes its descriptor in the
    /// plan's table, pointing where the region of a [`RawArena::begin_plan`] now would lie (the
    /// end of the persistent region). An inference whose region lies there finds the tensor
    /// placed ([`crate::PlannedInference::placed`]) and need not call
    /// [`RawArena::alloc_planned`]; one whose region lies elsewhere (the persistent region grew
    /// since) does not. Every view still checks the descriptor against its live region. Counts
    /// no allocation.
    ///
    /// Errors: the shape's, [`ErrorKind::EphemeralLive`] (ephemeral tensors or scratch are live:
    /// a view may be reading the table), [`ErrorKind::PlanMismatch`] (no such slot, a tensor
    /// larger than its slot, a plan not loaded into this arena as it is now),
    /// [`ErrorKind::OutOfMemory`] (the region would not fit there). Only the failed count moves.
    pub fn preplace_planned(
        &self,
        plan: &LoadedPlan<'_>,
        slot: usize,
        shape: &[u32],
        dtype: DType,
    ) -> Result<(), AllocError> {
        let req = TensorRequest::new(shape, dtype)
            .map_err(|kind| self.fail(kind, Region::Ephemeral, 0))?;
        let start = self.pers_end.get();
        if self.top.get() != start || self.scratch_top.get() != 0 {
            return Err(self.fail(ErrorKind::EphemeralLive, Region::Ephemeral, 0));
        }
        let region = plan.plan.region_size as usize;
        match plan.plan.slots.get(slot) {
            Some(s) if req.bytes <= s.size && self.owns(plan) => {
                // Both terms ≤ 512 KiB: no wrap.
                if start + region > self.tensor_cap.get() {
                    return Err(self.fail(ErrorKind::OutOfMemory, Region::Ephemeral, region));
                }
                let base = self.base.get();
                // SAFETY: the table entry lies in the block `load_plan` reserved for this plan
                // in this arena's persistent region (`owns`, `slot < len`), and no view of it is
                // live (no ephemeral tensor or scratch: no planned inference is running). The
                // data pointer is in bounds: `start + slot.end() <= start + region <= tensor_cap`.
                unsafe {
                    fill_desc(
                        base.add(plan.table + slot * DESC_SPAN),
                        base.add(start + s.offset as usize),
                        req,
                        Lifetime::Ephemeral,
                    );
                }
                Ok(())
            }
            _ => Err(self.planned_mismatch(plan, slot, req)),
        }
    }

    /// The planned path's failure: the slot is missing or too small for the tensor (needed:
    /// the tensor's aligned size), or the plan or region does not belong to this arena's
    /// current inference (needed: 0).
    #[cold]
    #[inline(never)]
    fn planned_mismatch(
        &self,
        plan: &LoadedPlan<'_>,
        slot: usize,
        req: TensorRequest,
    ) -> AllocError {
        let slot_bad = plan.plan.slots.get(slot).is_none_or(|s| req.bytes > s.size);
        let needed = if slot_bad { req.span() - DESC_SPAN } else { 0 };
        self.fail(ErrorKind::PlanMismatch, Region::Ephemeral, needed)
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
        if N == 1 {
            self.check_views_inline(plan, region, op, &slots)?;
        } else {
            self.check_views(plan, region, op, &slots)?;
        }
        let base = self.base.get();
        Ok(slots.map(|slot| Tensor {
            // SAFETY: in bounds of the table (`check_views`: the plan is this arena's, every
            // slot in its range); never null.
            desc: unsafe { NonNull::new_unchecked(base.add(plan.table + slot * DESC_SPAN).cast()) },
            _mem: PhantomData,
        }))
    }

    /// The rules of [`RawArena::planned_views`] for `slots`: the plan is this arena's, every
    /// slot in range, allocated in `region`, live at `op`, distinct from and disjoint with the
    /// others. One function for every `N` (not inlined: its code once in an image).
    #[inline(never)]
    fn check_views(
        &self,
        plan: &LoadedPlan<'_>,
        region: PlanRegion,
        op: u16,
        slots: &[usize],
    ) -> Result<(), AllocError> {
        self.check_views_inline(plan, region, op, slots)
    }

    /// [`RawArena::check_views`]' rules, inlined: a one-slot view's caller (the interpreter's
    /// graph input and output copies) takes them in place (M4, hello_world_int8: 73
    /// instructions an inference fewer than through the call).
    #[inline(always)]
    fn check_views_inline(
        &self,
        plan: &LoadedPlan<'_>,
        region: PlanRegion,
        op: u16,
        slots: &[usize],
    ) -> Result<(), AllocError> {
        let refuse = || self.fail(ErrorKind::PlanMismatch, Region::Ephemeral, 0);
        if !self.owns(plan) {
            return Err(refuse());
        }
        for (i, &slot) in slots.iter().enumerate() {
            let Some(s) = plan.plan.slots.get(slot) else {
                return Err(refuse());
            };
            // Distinct, and (an overlapped plan's declared pairs share bytes) disjoint.
            // SAFETY: the plan is this arena's (checked above) and `slot` in range (`get`).
            let ok = unsafe { self.placed_live(plan, region, op, slot, s) }
                && slots[..i]
                    .iter()
                    .all(|&other| other != slot && !plan.plan.slots[other].memory_overlaps(s));
            if !ok {
                return Err(refuse());
            }
        }
        Ok(())
    }

    /// Whether `slot` of `plan` (this arena's) is allocated in `region` and live at `op`.
    #[inline(always)]
    fn slot_live(&self, plan: &LoadedPlan<'_>, region: PlanRegion, op: u16, slot: usize) -> bool {
        match plan.plan.slots.get(slot) {
            // SAFETY: `owns` is checked first, `slot` is in range (`get`).
            Some(s) => self.owns(plan) && unsafe { self.placed_live(plan, region, op, slot, s) },
            None => false,
        }
    }

    /// [`RawArena::slot_live`] for `s`, slot `slot` of `plan`.
    ///
    /// # Safety
    /// As for [`RawArena::placed_at`].
    #[inline(always)]
    unsafe fn placed_live(
        &self,
        plan: &LoadedPlan<'_>,
        region: PlanRegion,
        op: u16,
        slot: usize,
        s: &PlanSlot,
    ) -> bool {
        // SAFETY: the caller's contract, forwarded.
        s.first_op <= op && op <= s.last_op && unsafe { self.placed_at(plan, region, slot, s) }
    }

    /// Whether `slot` of `plan` holds a tensor placed in `region`: the plan is this arena's,
    /// the slot exists and its descriptor points at the slot's offset in `region` with at most
    /// the slot's size (written by [`RawArena::alloc_planned`] in this region, or in an
    /// earlier region of the plan that lay at the same offset). O(1), no write.
    #[inline(always)]
    pub(crate) fn slot_placed(
        &self,
        plan: &LoadedPlan<'_>,
        region: PlanRegion,
        slot: usize,
    ) -> bool {
        self.owns(plan)
            && match plan.plan.slots.get(slot) {
                // SAFETY: `owns` is checked first, `slot` is in range (`get`).
                Some(s) => unsafe { self.placed_at(plan, region, slot, s) },
                None => false,
            }
    }

    /// [`RawArena::slot_placed`] for `s`, slot `slot` of `plan` (the checks a view call makes
    /// once for all its slots are the caller's).
    ///
    /// # Safety
    /// `plan` is this arena's (`self.owns(plan)`) and `slot < plan.plan.slots.len()`.
    #[inline(always)]
    unsafe fn placed_at(
        &self,
        plan: &LoadedPlan<'_>,
        region: PlanRegion,
        slot: usize,
        s: &PlanSlot,
    ) -> bool {
        let base = self.base.get();
        let table = base.wrapping_add(plan.table + slot * DESC_SPAN);
        // SAFETY: the plan is this arena's and `slot < len` (the caller's contract), so the
        // entry lies in this plan's descriptor table, initialised by `load_plan` and only
        // written by `alloc_planned` / `preplace_planned`.
        let d = unsafe { &*table.cast::<TensorDesc>() };
        d.data.addr() == base.addr().wrapping_add(region.offset + s.offset as usize)
            && d.size <= s.size
    }

    /// The whole of `region`, the plan's `region_size` bytes, as one slice: what a caller
    /// that reaches each operator's tensors by their planned offsets (validated at load) takes
    /// once, instead of a checked view per operator. Contract as for
    /// [`RawArena::planned_views`]: `'t` ends before the next call for the same region, and
    /// no view of the region lives meanwhile (the caller's exclusive borrow of its planned
    /// inference).
    ///
    /// Errors: [`ErrorKind::PlanMismatch`] (a plan not loaded into this arena as it is now).
    #[inline(always)]
    pub(crate) fn region_bytes<'t>(
        &self,
        plan: &LoadedPlan<'_>,
        region: PlanRegion,
    ) -> Result<&'t mut [u8], AllocError> {
        if !self.owns(plan) {
            return Err(self.fail(ErrorKind::PlanMismatch, Region::Ephemeral, 0));
        }
        // SAFETY: `begin_plan` reserved `region_size` bytes at `region.offset` of this arena's
        // ephemeral region for this plan (which this arena owns, checked above), so the range
        // is in bounds of the arena's buffer; no other reference to it exists for `'t` (the
        // contract above), and nothing else lies in it (descriptors sit in the persistent
        // region, later ephemeral tensors after the region, scratch blocks in the pool).
        Ok(unsafe {
            core::slice::from_raw_parts_mut(
                self.base.get().add(region.offset),
                plan.plan.region_size as usize,
            )
        })
    }

    /// The one span holding both slots of declared overlap `pair` (both allocated in
    /// `region`), and views of the tensors in `others`, live at the pair's operator, distinct
    /// and disjoint from the span and from each other; `None` (no failure) if the pair's
    /// blocks share no byte. Contract as for [`RawArena::planned_views`]: `'t` ends before the
    /// next call for the same region.
    #[allow(clippy::type_complexity)]
    pub(crate) fn overlapped_view<'t, const N: usize>(
        &self,
        plan: &LoadedPlan<'_>,
        region: PlanRegion,
        pair: usize,
        others: [usize; N],
    ) -> Result<Option<(OverlapSpan<'t>, [Tensor<'t>; N])>, AllocError> {
        let refuse = || self.fail(ErrorKind::PlanMismatch, Region::Ephemeral, 0);
        let p = *plan.overlaps.get(pair).ok_or_else(refuse)?;
        let (i, o) = (p.input as usize, p.output as usize);
        let (Some(&si), Some(&so)) = (plan.plan.slots.get(i), plan.plan.slots.get(o)) else {
            return Err(refuse());
        };
        if !(self.owns(plan)
            // SAFETY: `owns` is checked first; `i` and `o` are in range (`get` above).
            && unsafe { self.placed_live(plan, region, p.op, i, &si) }
            // SAFETY: as above.
            && unsafe { self.placed_live(plan, region, p.op, o, &so) })
        {
            return Err(refuse());
        }
        if !si.memory_overlaps(&so) {
            // Disjoint blocks: the span would cover whatever lies between them. The caller
            // takes the two slots as separate tensors instead.
            return Ok(None);
        }
        // The union of two blocks that share a byte: one contiguous range of the region.
        let start = si.offset.min(so.offset);
        let span = PlanSlot {
            offset: start,
            size: (si.end().max(so.end()) - start as u64) as u32,
            first_op: p.op,
            last_op: p.op,
        };
        for (k, &slot) in others.iter().enumerate() {
            let ok = self.slot_live(plan, region, p.op, slot)
                && !plan.plan.slots[slot].memory_overlaps(&span)
                && others[..k].iter().all(|&other| {
                    other != slot && !plan.plan.slots[other].memory_overlaps(&plan.plan.slots[slot])
                });
            if !ok {
                return Err(refuse());
            }
        }
        let base = self.base.get();
        // SAFETY: both slots end inside the plan's region (validated at load), which
        // `begin_plan` reserved in this arena's ephemeral region at `region.offset`, so
        // `start .. start + size` is in bounds of the arena's buffer. No other view of these
        // bytes exists: the caller's exclusive borrow covers every view of this region, and the
        // `others` are disjoint from the span (checked above).
        let bytes = unsafe {
            core::slice::from_raw_parts_mut(
                base.add(region.offset + start as usize),
                span.size as usize,
            )
        };
        let views = others.map(|slot| Tensor {
            // SAFETY: in bounds of the table (checked by `slot_live`); never null.
            desc: unsafe { NonNull::new_unchecked(base.add(plan.table + slot * DESC_SPAN).cast()) },
            _mem: PhantomData,
        });
        Ok(Some((
            OverlapSpan {
                bytes,
                input: (si.offset - start) as usize,
                output: (so.offset - start) as usize,
                input_bytes: si.size as usize,
                output_bytes: so.size as usize,
                direction: p.direction,
                op: p.op,
            },
            views,
        )))
    }
}
