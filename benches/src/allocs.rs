//! The allocators under test behind one interface, each doing the same work per tensor: a
//! 16-byte aligned block holding a filled tensor descriptor (32 bytes) followed by the data.
//!
//! synaptic-mem's [`RawArena`] writes its own descriptor; the peers get the identical
//! `#[repr(C)]` layout written by [`write_desc`], with the byte size computed by the same
//! `synaptic_mem::shape_bytes`, so what differs is the allocator alone.

use std::alloc::{GlobalAlloc, Layout, System};
use std::mem::MaybeUninit;
use std::ptr::NonNull;

use synaptic_mem::{
    shape_bytes, DType, Lifetime, LoadedPlan, Plan, PlanRegion, PlanSlot, RawArena,
};

use crate::trace::{Activation, ModelTrace, TensorSpec};

/// Bytes from a block's start to its data (the descriptor rounded up to 16), as in synaptic-mem.
pub const DESC_SPAN: usize = synaptic_mem::DESC_SPAN;

/// Same layout as `synaptic_mem::TensorDesc` / `syn_tensor_t`.
#[repr(C)]
pub struct BenchDesc {
    /// 16-byte aligned data.
    pub data: *mut u8,
    /// Dimensions (unused trailing ones are 1).
    pub shape: [u32; 4],
    /// Used dimensions.
    pub ndim: u8,
    /// Element type.
    pub dtype: DType,
    /// Lifetime class.
    pub lifetime: Lifetime,
    /// Zero.
    pub reserved: u8,
    /// Bytes of data.
    pub size: u32,
}

/// Size and layout of a tensor's block (descriptor + data), after validating the shape with
/// synaptic-mem's own rule (the same work synaptic-mem does).
#[inline(always)]
pub fn block_layout(spec: &TensorSpec) -> Option<(Layout, [u32; 4], u32)> {
    let (dims, bytes) = shape_bytes(spec.dims(), spec.dtype).ok()?;
    let size = synaptic_mem::block_span(bytes as u64) as usize;
    Some((Layout::from_size_align(size, 16).ok()?, dims, bytes))
}

/// Writes the descriptor at the start of `block`; the data follows at `block + DESC_SPAN`.
///
/// # Safety
/// `block` must be valid for writes of `DESC_SPAN` bytes and 16-byte aligned.
#[inline(always)]
pub unsafe fn write_desc(
    block: NonNull<u8>,
    dims: [u32; 4],
    spec: &TensorSpec,
    bytes: u32,
    lifetime: Lifetime,
) {
    let p = block.as_ptr();
    // SAFETY: the caller guarantees `p` is valid and aligned for a descriptor (32 bytes, align
    // ≤ 16); the data pointer is only computed, not dereferenced.
    unsafe {
        p.cast::<BenchDesc>().write(BenchDesc {
            data: p.add(DESC_SPAN),
            shape: dims,
            ndim: spec.ndim,
            dtype: spec.dtype,
            lifetime,
            reserved: 0,
            size: bytes,
        });
    }
}

/// An allocator under test.
pub trait TensorAlloc {
    /// Name printed in tables (`synaptic-mem` for ours).
    const NAME: &'static str;
    /// Whether tensors are freed one by one (heaps) rather than reset wholesale (bump).
    const HEAP: bool;
    /// Allocates a tensor block; returns the descriptor's address.
    fn alloc(&mut self, spec: &TensorSpec, lifetime: Lifetime) -> Option<NonNull<u8>>;
    /// Frees one tensor (a no-op for bump allocators).
    fn free(&mut self, block: NonNull<u8>, spec: &TensorSpec);
    /// Acquires per-operator scratch.
    fn scratch(&mut self, bytes: usize) -> Option<NonNull<u8>>;
    /// Releases scratch (a no-op for bump allocators).
    fn scratch_release(&mut self, p: NonNull<u8>, bytes: usize);
    /// End of an inference: bump allocators reset their ephemeral memory.
    fn end_inference(&mut self);
    /// Drops every persistent and shared allocation (bump allocators re-initialise; heaps free
    /// nothing here: the replay frees each block itself).
    fn unload_all(&mut self);
    /// Total free bytes by the allocator's own account (for the fragmentation run).
    fn free_bytes(&mut self) -> usize;
    /// Called once a model's persistent tensors are loaded (the planned path loads its plan).
    #[inline(always)]
    fn prepare(&mut self, _t: &ModelTrace) {}
    /// Start of an inference of model `t` (the planned path reserves `t`'s planned region).
    #[inline(always)]
    fn begin_inference(&mut self, _t: &ModelTrace) {}
    /// Allocates an activation: by default an ephemeral tensor; the planned path places it at
    /// its plan slot.
    #[inline(always)]
    fn alloc_act(&mut self, act: &Activation) -> Option<NonNull<u8>> {
        self.alloc(&act.spec, Lifetime::Ephemeral)
    }
}

/// A 16-byte aligned heap buffer (from the system allocator), freed on drop.
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    len: usize,
}

impl AlignedBuf {
    /// `len` zeroed bytes, 16-byte aligned.
    pub fn new(len: usize) -> Self {
        let layout = Layout::from_size_align(len, 16).expect("buffer layout");
        // SAFETY: `len` > 0 for every caller (arena sizes); a null result aborts below.
        let p = unsafe { System.alloc_zeroed(layout) };
        Self {
            ptr: NonNull::new(p).expect("out of host memory"),
            len,
        }
    }
    /// Start of the buffer.
    pub fn ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether the buffer is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The buffer as uninitialised bytes, for allocators that take a slice.
    ///
    /// # Safety
    /// The caller must not create another reference to the buffer while the slice is used.
    pub unsafe fn as_uninit(&self) -> &'static mut [MaybeUninit<u8>] {
        // SAFETY: `ptr .. ptr + len` is one live allocation owned by `self`; the caller keeps
        // the buffer alive (field order) and unaliased for as long as the slice is used.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr().cast(), self.len) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with exactly this layout.
        unsafe {
            System.dealloc(
                self.ptr.as_ptr(),
                Layout::from_size_align_unchecked(self.len, 16),
            )
        }
    }
}

// ---------------------------------------------------------------- synaptic-mem (bump path)

/// synaptic-mem's [`RawArena`], bump path (the C API's code path). Its planned path is
/// [`SynapticPlanned`].
pub struct SynapticMem {
    arena: RawArena<'static>,
    _shared: AlignedBuf,
    _buf: AlignedBuf,
    scratch_size: usize,
}

impl SynapticMem {
    /// An arena of `arena_size` bytes with a `scratch_size` pool and a shared region.
    pub fn new(arena_size: usize, scratch_size: usize, shared_size: usize) -> Self {
        let buf = AlignedBuf::new(arena_size);
        let shared = AlignedBuf::new(shared_size);
        let arena = RawArena::UNINIT;
        // SAFETY: both buffers are owned by the returned value (dropped after `arena`, which
        // holds no drop glue) and used by nothing else.
        unsafe {
            arena
                .init(buf.ptr(), buf.len(), scratch_size)
                .expect("arena config");
            arena
                .set_shared_raw(shared.ptr(), shared.len())
                .expect("shared region");
        }
        Self {
            arena,
            _shared: shared,
            _buf: buf,
            scratch_size,
        }
    }
    /// The arena, for statistics.
    pub fn arena(&self) -> &RawArena<'static> {
        &self.arena
    }
}

impl TensorAlloc for SynapticMem {
    const NAME: &'static str = "synaptic-mem";
    const HEAP: bool = false;
    #[inline(always)]
    fn alloc(&mut self, spec: &TensorSpec, lifetime: Lifetime) -> Option<NonNull<u8>> {
        self.arena
            .alloc(spec.dims(), spec.dtype, lifetime)
            .ok()
            .map(NonNull::cast)
    }
    #[inline(always)]
    fn free(&mut self, block: NonNull<u8>, _spec: &TensorSpec) {
        self.arena.free(block.cast());
    }
    #[inline(always)]
    fn scratch(&mut self, bytes: usize) -> Option<NonNull<u8>> {
        self.arena.scratch_acquire(bytes).ok()
    }
    #[inline(always)]
    fn scratch_release(&mut self, p: NonNull<u8>, _bytes: usize) {
        self.arena.scratch_release(p);
    }
    #[inline(always)]
    fn end_inference(&mut self) {
        self.arena.reset_ephemeral();
    }
    fn unload_all(&mut self) {
        self.arena.clear();
    }
    fn free_bytes(&mut self) -> usize {
        let s = self.arena.stats();
        s.tensor_capacity - s.persistent_used - s.ephemeral_used
    }
}

impl SynapticMem {
    /// Scratch pool size.
    pub fn scratch_size(&self) -> usize {
        self.scratch_size
    }
}

// ---------------------------------------------------------------- synaptic-mem (planned path)

/// synaptic-mem's planned path: the model's plan (from `synaptic-plan`) is loaded once
/// (`RawArena::load_plan`: a descriptor table in the persistent region); each inference reserves
/// the planned region (`begin_plan`, one bump) and places every activation at its slot
/// (`alloc_planned`, O(1)); the reset is the same as the bump path's.
pub struct SynapticPlanned {
    inner: SynapticMem,
    /// One loaded plan per resident model, keyed by the trace's address (at most a few).
    plans: Vec<(*const ModelTrace, LoadedPlan<'static>)>,
    /// The plan and region of the inference in progress.
    current: Option<(LoadedPlan<'static>, PlanRegion)>,
}

impl SynapticPlanned {
    /// An arena of `arena_size` bytes with a `scratch_size` pool and a shared region.
    pub fn new(arena_size: usize, scratch_size: usize, shared_size: usize) -> Self {
        Self {
            inner: SynapticMem::new(arena_size, scratch_size, shared_size),
            plans: Vec::new(),
            current: None,
        }
    }
    /// The arena, for statistics.
    pub fn arena(&self) -> &RawArena<'static> {
        self.inner.arena()
    }
}

impl TensorAlloc for SynapticPlanned {
    const NAME: &'static str = "synaptic-mem-planned";
    const HEAP: bool = false;
    #[inline(always)]
    fn alloc(&mut self, spec: &TensorSpec, lifetime: Lifetime) -> Option<NonNull<u8>> {
        self.inner.alloc(spec, lifetime)
    }
    #[inline(always)]
    fn free(&mut self, block: NonNull<u8>, spec: &TensorSpec) {
        self.inner.free(block, spec);
    }
    #[inline(always)]
    fn scratch(&mut self, bytes: usize) -> Option<NonNull<u8>> {
        self.inner.scratch(bytes)
    }
    #[inline(always)]
    fn scratch_release(&mut self, p: NonNull<u8>, bytes: usize) {
        self.inner.scratch_release(p, bytes);
    }
    #[inline(always)]
    fn end_inference(&mut self) {
        self.current = None;
        self.inner.end_inference();
    }
    fn unload_all(&mut self) {
        self.plans.clear();
        self.current = None;
        self.inner.unload_all();
    }
    fn free_bytes(&mut self) -> usize {
        self.inner.free_bytes()
    }
    fn prepare(&mut self, t: &ModelTrace) {
        // Leaked once per loaded model (setup only): the loaded plan borrows its slots.
        let slots: &'static [PlanSlot] = Box::leak(t.plan_slots.clone().into_boxed_slice());
        let plan = Plan {
            region_size: u32::try_from(t.plan_region_size).expect("plan region fits u32"),
            slots,
        };
        // A plan that does not fit leaves the model without one: its activations then fail.
        if let Ok(p) = self.inner.arena.load_plan(plan) {
            self.plans.retain(|(k, _)| !std::ptr::eq(*k, t));
            self.plans.push((t as *const ModelTrace, p));
        }
    }
    #[inline(always)]
    fn begin_inference(&mut self, t: &ModelTrace) {
        let key = t as *const ModelTrace;
        self.current = self
            .plans
            .iter()
            .find(|(k, _)| std::ptr::eq(*k, key))
            .and_then(|(_, p)| Some((*p, self.inner.arena.begin_plan(p).ok()?)));
    }
    #[inline(always)]
    fn alloc_act(&mut self, act: &Activation) -> Option<NonNull<u8>> {
        let (p, r) = self.current.as_ref()?;
        self.inner
            .arena
            .alloc_planned(p, *r, act.slot as usize, act.spec.dims(), act.spec.dtype)
            .ok()
            .map(NonNull::cast)
    }
}

// ---------------------------------------------------------------- bumpalo

/// bumpalo: one `Bump<16>` for persistent/shared tensors, one for activations (reset per
/// inference), each pre-sized to the arena size.
pub struct Bumpalo {
    persistent: bumpalo::Bump<16>,
    ephemeral: bumpalo::Bump<16>,
    cap: usize,
}

impl Bumpalo {
    /// Two bumps of `cap` bytes each.
    pub fn new(cap: usize) -> Self {
        Self {
            persistent: bumpalo::Bump::with_min_align_and_capacity(cap),
            ephemeral: bumpalo::Bump::with_min_align_and_capacity(cap),
            cap,
        }
    }
}

impl TensorAlloc for Bumpalo {
    const NAME: &'static str = "bumpalo";
    const HEAP: bool = false;
    #[inline(always)]
    fn alloc(&mut self, spec: &TensorSpec, lifetime: Lifetime) -> Option<NonNull<u8>> {
        let (layout, dims, bytes) = block_layout(spec)?;
        let bump = match lifetime {
            Lifetime::Ephemeral => &self.ephemeral,
            _ => &self.persistent,
        };
        let p = bump.try_alloc_layout(layout).ok()?;
        // SAFETY: `p` is a fresh block of `layout.size() >= DESC_SPAN` bytes, 16-aligned.
        unsafe { write_desc(p, dims, spec, bytes, lifetime) };
        Some(p)
    }
    #[inline(always)]
    fn free(&mut self, _block: NonNull<u8>, _spec: &TensorSpec) {}
    #[inline(always)]
    fn scratch(&mut self, bytes: usize) -> Option<NonNull<u8>> {
        let layout = Layout::from_size_align(bytes, 16).ok()?;
        self.ephemeral.try_alloc_layout(layout).ok()
    }
    #[inline(always)]
    fn scratch_release(&mut self, _p: NonNull<u8>, _bytes: usize) {}
    #[inline(always)]
    fn end_inference(&mut self) {
        self.ephemeral.reset();
    }
    fn unload_all(&mut self) {
        self.persistent.reset();
        self.ephemeral.reset();
    }
    fn free_bytes(&mut self) -> usize {
        self.cap
            .saturating_sub(self.ephemeral.allocated_bytes() + self.persistent.allocated_bytes())
    }
}

// ---------------------------------------------------------------- static-alloc

/// static-alloc's unsynchronised bump (`unsync::BumpSlice`) over caller buffers: one for
/// persistent/shared tensors, one for activations (reset per inference).
pub struct StaticAlloc {
    persistent: static_alloc::leaked::LeakBox<'static, static_alloc::unsync::BumpSlice>,
    ephemeral: static_alloc::leaked::LeakBox<'static, static_alloc::unsync::BumpSlice>,
    _bufs: [AlignedBuf; 2],
}

impl StaticAlloc {
    /// Two bumps over `cap`-byte buffers.
    pub fn new(cap: usize) -> Self {
        let bufs = [AlignedBuf::new(cap), AlignedBuf::new(cap)];
        // SAFETY: each buffer is owned by the returned value, outlives the bumps (field
        // order) and is referenced by nothing else.
        let (a, b) = unsafe { (bufs[0].as_uninit(), bufs[1].as_uninit()) };
        Self {
            persistent: static_alloc::unsync::BumpSlice::from_mem(a).expect("bump buffer"),
            ephemeral: static_alloc::unsync::BumpSlice::from_mem(b).expect("bump buffer"),
            _bufs: bufs,
        }
    }
}

impl TensorAlloc for StaticAlloc {
    const NAME: &'static str = "static-alloc";
    const HEAP: bool = false;
    #[inline(always)]
    fn alloc(&mut self, spec: &TensorSpec, lifetime: Lifetime) -> Option<NonNull<u8>> {
        let (layout, dims, bytes) = block_layout(spec)?;
        let bump = match lifetime {
            Lifetime::Ephemeral => &self.ephemeral,
            _ => &self.persistent,
        };
        let p = bump.alloc(layout)?;
        // SAFETY: `p` is a fresh block of `layout.size() >= DESC_SPAN` bytes, 16-aligned.
        unsafe { write_desc(p, dims, spec, bytes, lifetime) };
        Some(p)
    }
    #[inline(always)]
    fn free(&mut self, _block: NonNull<u8>, _spec: &TensorSpec) {}
    #[inline(always)]
    fn scratch(&mut self, bytes: usize) -> Option<NonNull<u8>> {
        self.ephemeral
            .alloc(Layout::from_size_align(bytes, 16).ok()?)
    }
    #[inline(always)]
    fn scratch_release(&mut self, _p: NonNull<u8>, _bytes: usize) {}
    #[inline(always)]
    fn end_inference(&mut self) {
        self.ephemeral.reset();
    }
    fn unload_all(&mut self) {
        self.persistent.reset();
        self.ephemeral.reset();
    }
    fn free_bytes(&mut self) -> usize {
        self.ephemeral.capacity() - self.ephemeral.level().byte_offset()
    }
}

// ---------------------------------------------------------------- heaps

macro_rules! heap_common {
    () => {
        const HEAP: bool = true;
        #[inline(always)]
        fn alloc(&mut self, spec: &TensorSpec, lifetime: Lifetime) -> Option<NonNull<u8>> {
            let (layout, dims, bytes) = block_layout(spec)?;
            let p = self.raw_alloc(layout)?;
            // SAFETY: `p` is a fresh block of `layout.size() >= DESC_SPAN` bytes, 16-aligned.
            unsafe { write_desc(p, dims, spec, bytes, lifetime) };
            Some(p)
        }
        #[inline(always)]
        fn free(&mut self, block: NonNull<u8>, spec: &TensorSpec) {
            let (layout, _, _) = block_layout(spec).expect("freed block had a valid layout");
            // SAFETY: `block` came from `alloc` with this spec, hence this layout, and is
            // freed once (the replay's bookkeeping).
            unsafe { self.raw_free(block, layout) }
        }
        #[inline(always)]
        fn scratch(&mut self, bytes: usize) -> Option<NonNull<u8>> {
            self.raw_alloc(Layout::from_size_align(bytes, 16).ok()?)
        }
        #[inline(always)]
        fn scratch_release(&mut self, p: NonNull<u8>, bytes: usize) {
            // SAFETY: `p` came from `scratch(bytes)` and is released once.
            unsafe { self.raw_free(p, Layout::from_size_align_unchecked(bytes, 16)) }
        }
        #[inline(always)]
        fn end_inference(&mut self) {}
        fn unload_all(&mut self) {}
    };
}

/// rlsf's TLSF over a caller buffer.
pub struct Tlsf {
    tlsf: rlsf::Tlsf<'static, u32, u32, 24, 16>,
    cap: usize,
    /// The bytes of the buffer TLSF made its pool of (what `iter_blocks` must be given).
    pool_len: usize,
    _buf: AlignedBuf,
}

impl Tlsf {
    /// A TLSF heap over a `cap`-byte buffer.
    pub fn new(cap: usize) -> Self {
        let buf = AlignedBuf::new(cap);
        let mut tlsf = rlsf::Tlsf::new();
        // SAFETY: the buffer is owned by the returned value, outlives the heap (field order)
        // and is used by nothing else.
        let pool_len =
            unsafe { tlsf.insert_free_block_ptr(NonNull::slice_from_raw_parts(buf.ptr, buf.len)) }
                .expect("buffer large enough for a TLSF pool")
                .get();
        Self {
            tlsf,
            cap,
            pool_len,
            _buf: buf,
        }
    }
    #[inline(always)]
    fn raw_alloc(&mut self, layout: Layout) -> Option<NonNull<u8>> {
        self.tlsf.allocate(layout)
    }
    #[inline(always)]
    unsafe fn raw_free(&mut self, p: NonNull<u8>, layout: Layout) {
        // SAFETY: forwarded from the caller: `p` was allocated here with `layout`.
        unsafe { self.tlsf.deallocate(p, layout.align()) }
    }
}

impl TensorAlloc for Tlsf {
    const NAME: &'static str = "rlsf-tlsf";
    heap_common!();
    fn free_bytes(&mut self) -> usize {
        let mut free = 0;
        // SAFETY: the only pool inserted is the buffer owned by `self`, still alive, and
        // `pool_len` is the size `insert_free_block_ptr` returned for it.
        unsafe {
            let pool = NonNull::slice_from_raw_parts(self._buf.ptr, self.pool_len);
            for b in self.tlsf.iter_blocks(pool) {
                if !b.is_occupied() {
                    free += b.max_payload_size();
                }
            }
        }
        free.min(self.cap)
    }
}

/// linked_list_allocator's first-fit heap (the LLFF of embedded-alloc) over a caller buffer.
pub struct Llff {
    heap: linked_list_allocator::Heap,
    _buf: AlignedBuf,
}

impl Llff {
    /// An LLFF heap over a `cap`-byte buffer.
    pub fn new(cap: usize) -> Self {
        let buf = AlignedBuf::new(cap);
        // SAFETY: the buffer is owned by the returned value, outlives the heap (field order)
        // and is used by nothing else.
        let heap = unsafe { linked_list_allocator::Heap::new(buf.ptr(), buf.len()) };
        Self { heap, _buf: buf }
    }
    #[inline(always)]
    fn raw_alloc(&mut self, layout: Layout) -> Option<NonNull<u8>> {
        self.heap.allocate_first_fit(layout).ok()
    }
    #[inline(always)]
    unsafe fn raw_free(&mut self, p: NonNull<u8>, layout: Layout) {
        // SAFETY: forwarded from the caller: `p` was allocated here with `layout`.
        unsafe { self.heap.deallocate(p, layout) }
    }
}

impl TensorAlloc for Llff {
    const NAME: &'static str = "llff";
    heap_common!();
    fn free_bytes(&mut self) -> usize {
        self.heap.free()
    }
}

/// talc over a caller buffer.
pub struct Talc {
    talc: talc::Talc<talc::ErrOnOom>,
    cap: usize,
    used: usize,
    _buf: AlignedBuf,
}

impl Talc {
    /// A talc heap over a `cap`-byte buffer.
    pub fn new(cap: usize) -> Self {
        let buf = AlignedBuf::new(cap);
        let mut talc = talc::Talc::new(talc::ErrOnOom);
        // SAFETY: the buffer is owned by the returned value, outlives the heap (field order)
        // and is used by nothing else.
        unsafe {
            talc.claim(talc::Span::from_base_size(buf.ptr(), buf.len()))
                .expect("talc claim");
        }
        Self {
            talc,
            cap,
            used: 0,
            _buf: buf,
        }
    }
    #[inline(always)]
    fn raw_alloc(&mut self, layout: Layout) -> Option<NonNull<u8>> {
        // SAFETY: layouts here have non-zero size.
        let p = unsafe { self.talc.malloc(layout) }.ok()?;
        self.used += layout.size();
        Some(p)
    }
    #[inline(always)]
    unsafe fn raw_free(&mut self, p: NonNull<u8>, layout: Layout) {
        self.used -= layout.size();
        // SAFETY: forwarded from the caller: `p` was allocated here with `layout`.
        unsafe { self.talc.free(p, layout) }
    }
}

impl TensorAlloc for Talc {
    const NAME: &'static str = "talc";
    heap_common!();
    fn free_bytes(&mut self) -> usize {
        self.cap - self.used
    }
}

/// The system allocator (glibc malloc/free on Linux) through `std::alloc::System`.
pub struct SystemMalloc {
    used: usize,
}

impl SystemMalloc {
    /// The process heap.
    pub fn new() -> Self {
        Self { used: 0 }
    }
    #[inline(always)]
    fn raw_alloc(&mut self, layout: Layout) -> Option<NonNull<u8>> {
        // SAFETY: layouts here have non-zero size.
        let p = NonNull::new(unsafe { System.alloc(layout) })?;
        self.used += layout.size();
        Some(p)
    }
    #[inline(always)]
    unsafe fn raw_free(&mut self, p: NonNull<u8>, layout: Layout) {
        self.used -= layout.size();
        // SAFETY: forwarded from the caller: `p` was allocated by `System` with `layout`.
        unsafe { System.dealloc(p.as_ptr(), layout) }
    }
}

impl Default for SystemMalloc {
    fn default() -> Self {
        Self::new()
    }
}

impl TensorAlloc for SystemMalloc {
    const NAME: &'static str = "system-malloc";
    heap_common!();
    fn free_bytes(&mut self) -> usize {
        usize::MAX - self.used
    }
}

// ---------------------------------------------------------------- baselines

/// Not an allocator: a baseline that runs the same replay with one fixed block for every
/// allocation. With `WORK` ([`Harness`]) it also does the per-tensor work every allocator does
/// (shape check, byte size, descriptor write); without ([`ReplayLoop`]) nothing at all. Their
/// times are subtracted to give the "net" (allocator-only) and "call" (one allocation call with
/// its work, without the benchmark's loop) figures.
pub struct Baseline<const WORK: bool> {
    block: AlignedBuf,
}

/// The replay loop plus the per-tensor work, no allocator (the "net" figures' baseline).
pub type Harness = Baseline<true>;
/// The replay loop alone (the "call" figures' baseline).
pub type ReplayLoop = Baseline<false>;

impl<const WORK: bool> Baseline<WORK> {
    /// A baseline with one descriptor-sized block.
    pub fn new() -> Self {
        Self {
            block: AlignedBuf::new(DESC_SPAN),
        }
    }
}

impl<const WORK: bool> Default for Baseline<WORK> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const WORK: bool> TensorAlloc for Baseline<WORK> {
    const NAME: &'static str = if WORK { "harness" } else { "loop" };
    const HEAP: bool = false;
    #[inline(always)]
    fn alloc(&mut self, spec: &TensorSpec, lifetime: Lifetime) -> Option<NonNull<u8>> {
        let p = NonNull::new(self.block.ptr())?;
        if WORK {
            let (_, dims, bytes) = block_layout(spec)?;
            // SAFETY: the block is DESC_SPAN bytes, 16-byte aligned, owned by `self`.
            unsafe { write_desc(p, dims, spec, bytes, lifetime) };
        }
        Some(p)
    }
    #[inline(always)]
    fn free(&mut self, _block: NonNull<u8>, _spec: &TensorSpec) {}
    #[inline(always)]
    fn scratch(&mut self, _bytes: usize) -> Option<NonNull<u8>> {
        NonNull::new(self.block.ptr())
    }
    #[inline(always)]
    fn scratch_release(&mut self, _p: NonNull<u8>, _bytes: usize) {}
    #[inline(always)]
    fn end_inference(&mut self) {}
    fn unload_all(&mut self) {}
    fn free_bytes(&mut self) -> usize {
        0
    }
}
