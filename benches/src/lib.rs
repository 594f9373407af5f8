//! # synaptic-benches
//!
//! synaptic-mem side by side with the allocators embedded Rust users would otherwise pick
//! (bumpalo, static-alloc, rlsf's TLSF, linked_list_allocator's LLFF, talc, the system
//! malloc), replaying allocation traces derived from real `.tflite` models. See `README.md`.
//!
//! * [`trace`]: model → allocation trace (load, per-inference events, unload).
//! * [`allocs`]: the allocators behind one [`allocs::TensorAlloc`] interface, same work per
//!   tensor (16-byte aligned block: filled descriptor + data).
//! * [`replay`]: running a trace on an allocator.

pub mod allocs;
pub mod replay;
pub mod trace;

use allocs::{
    Bumpalo, Harness, Llff, ReplayLoop, StaticAlloc, SynapticMem, SynapticPlanned, SystemMalloc,
    Talc, TensorAlloc, Tlsf,
};

/// Arena size used by the speed benches: the largest the spec allows (512 KB), so that every
/// trace's persistent + bump-path activations fit (person_detect needs ~470 KB).
pub const BENCH_ARENA: usize = synaptic_mem::MAX_ARENA_SIZE;
/// Scratch pool of the speed benches (the spec's default).
pub const BENCH_SCRATCH: usize = synaptic_mem::DEFAULT_SCRATCH_SIZE;
/// Shared (IPC) region of the speed benches.
pub const BENCH_SHARED: usize = 64 * 1024;

/// Builds an allocator with the benches' buffer sizes: synaptic-mem gets the arena (with its
/// scratch pool) and a separate shared region; every peer that takes a buffer gets buffers of
/// the same total size (the bump peers one per lifetime class).
pub trait Make: TensorAlloc + Sized + 'static {
    /// An instance over `arena` + `shared` bytes (`scratch` inside the arena).
    fn make(arena: usize, scratch: usize, shared: usize) -> Self;
}

impl Make for SynapticMem {
    fn make(arena: usize, scratch: usize, shared: usize) -> Self {
        SynapticMem::new(arena, scratch, shared)
    }
}
impl Make for SynapticPlanned {
    fn make(arena: usize, scratch: usize, shared: usize) -> Self {
        SynapticPlanned::new(arena, scratch, shared)
    }
}
impl Make for Bumpalo {
    fn make(arena: usize, _scratch: usize, shared: usize) -> Self {
        Bumpalo::new(arena + shared)
    }
}
impl Make for StaticAlloc {
    fn make(arena: usize, _scratch: usize, shared: usize) -> Self {
        StaticAlloc::new(arena + shared)
    }
}
impl Make for Tlsf {
    fn make(arena: usize, _scratch: usize, shared: usize) -> Self {
        Tlsf::new(arena + shared)
    }
}
impl Make for Llff {
    fn make(arena: usize, _scratch: usize, shared: usize) -> Self {
        Llff::new(arena + shared)
    }
}
impl Make for Talc {
    fn make(arena: usize, _scratch: usize, shared: usize) -> Self {
        Talc::new(arena + shared)
    }
}
impl<const WORK: bool> Make for allocs::Baseline<WORK> {
    fn make(_arena: usize, _scratch: usize, _shared: usize) -> Self {
        Self::new()
    }
}
impl Make for SystemMalloc {
    fn make(_arena: usize, _scratch: usize, _shared: usize) -> Self {
        SystemMalloc::new()
    }
}

/// Something done once per allocator type (Rust has no generic closures).
pub trait Visit {
    /// Called with each allocator type in [`ALLOCATORS`] order.
    fn visit<A: Make>(&mut self);
}

/// Names of the allocators, in table order (ours first).
pub const ALLOCATORS: [&str; 8] = [
    SynapticMem::NAME,
    SynapticPlanned::NAME,
    Bumpalo::NAME,
    StaticAlloc::NAME,
    Tlsf::NAME,
    Llff::NAME,
    Talc::NAME,
    SystemMalloc::NAME,
];

/// Visits every allocator type in [`ALLOCATORS`] order.
pub fn for_each_alloc(v: &mut impl Visit) {
    v.visit::<SynapticMem>();
    v.visit::<SynapticPlanned>();
    v.visit::<Bumpalo>();
    v.visit::<StaticAlloc>();
    v.visit::<Tlsf>();
    v.visit::<Llff>();
    v.visit::<Talc>();
    v.visit::<SystemMalloc>();
}

/// Visits the two baselines ([`allocs::ReplayLoop`] and [`allocs::Harness`], not allocators),
/// then every allocator.
pub fn for_each_alloc_and_harness(v: &mut impl Visit) {
    v.visit::<ReplayLoop>();
    v.visit::<Harness>();
    for_each_alloc(v);
}

/// Whether allocator `name` is a general-purpose heap (frees tensors one by one).
pub fn is_heap(name: &str) -> bool {
    [Tlsf::NAME, Llff::NAME, Talc::NAME, SystemMalloc::NAME].contains(&name)
}

/// The `q` quantile (0..=1) of sorted samples (nearest rank).
pub fn quantile(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}
