//! Replaying a trace on an allocator: load, inferences, unload.

use std::ptr::NonNull;

use synaptic_mem::Lifetime;

use crate::allocs::TensorAlloc;
use crate::trace::{Event, ModelTrace};

/// A model loaded into an allocator: its persistent and shared blocks, and one slot per
/// activation (reused by every inference, so replaying allocates nothing on the host heap).
pub struct Loaded {
    /// Persistent blocks (weights, variables), in trace order; `None` where loading failed.
    pub persistent: Vec<Option<NonNull<u8>>>,
    /// Shared I/O blocks.
    pub shared: Vec<Option<NonNull<u8>>>,
    /// Live activation blocks during an inference.
    pub slots: Vec<Option<NonNull<u8>>>,
    /// Allocations that failed while loading.
    pub failed: u32,
}

/// Loads a model: persistent allocations, then the shared I/O tensors. `on_fail(alloc, bytes)`
/// is called for each allocation that fails.
pub fn load<A: TensorAlloc>(
    a: &mut A,
    t: &ModelTrace,
    mut on_fail: impl FnMut(&mut A, usize),
) -> Loaded {
    let mut failed = 0;
    let mut one = |a: &mut A, s, lt| {
        let p = a.alloc(s, lt);
        if p.is_none() {
            failed += 1;
            on_fail(a, synaptic_mem::block_span(s.bytes as u64) as usize);
        }
        p
    };
    let persistent = t
        .persistent
        .iter()
        .map(|s| one(a, s, Lifetime::Persistent))
        .collect();
    let shared = t
        .shared
        .iter()
        .map(|s| one(a, s, Lifetime::Shared))
        .collect();
    a.prepare(t);
    Loaded {
        persistent,
        shared,
        slots: vec![None; t.activations.len()],
        failed,
    }
}

/// Frees a loaded model's blocks one by one (heaps). Bump allocators ignore the frees; they
/// reclaim persistent memory only through [`TensorAlloc::unload_all`].
pub fn unload<A: TensorAlloc>(a: &mut A, t: &ModelTrace, l: Loaded) {
    for (p, s) in l.persistent.iter().zip(&t.persistent) {
        if let Some(p) = p {
            a.free(*p, s);
        }
    }
    for (p, s) in l.shared.iter().zip(&t.shared) {
        if let Some(p) = p {
            a.free(*p, s);
        }
    }
}

/// One inference: the trace's events in order, then the allocator's end-of-inference reset.
/// Returns the number of failed allocations; `on_fail(alloc, bytes)` is called for each.
#[inline(always)]
pub fn inference<A: TensorAlloc>(
    a: &mut A,
    t: &ModelTrace,
    slots: &mut [Option<NonNull<u8>>],
    on_fail: impl FnMut(&mut A, usize),
) -> u32 {
    inference_with(a, t, slots, on_fail, usize::MAX, |_| {})
}

/// [`inference`] that calls `hook` just before event number `at` (e.g. another task loading a
/// model while this inference is half way through).
#[inline(always)]
pub fn inference_with<A: TensorAlloc>(
    a: &mut A,
    t: &ModelTrace,
    slots: &mut [Option<NonNull<u8>>],
    mut on_fail: impl FnMut(&mut A, usize),
    at: usize,
    hook: impl FnOnce(&mut A),
) -> u32 {
    let mut failed = 0;
    let mut scratch: Option<(NonNull<u8>, usize)> = None;
    let mut hook = Some(hook);
    a.begin_inference(t);
    for (k, ev) in t.events.iter().enumerate() {
        if k == at {
            if let Some(h) = hook.take() {
                h(a);
            }
        }
        match *ev {
            Event::Alloc(i) => {
                let act = &t.activations[i as usize];
                let spec = &act.spec;
                let p = a.alloc_act(act);
                if p.is_none() {
                    failed += 1;
                    on_fail(a, synaptic_mem::block_span(spec.bytes as u64) as usize);
                }
                slots[i as usize] = p;
            }
            Event::Free(i) => {
                if let Some(p) = slots[i as usize].take() {
                    a.free(p, &t.activations[i as usize].spec);
                }
            }
            Event::Scratch(bytes) => {
                let p = a.scratch(bytes as usize);
                match p {
                    Some(p) => scratch = Some((p, bytes as usize)),
                    None => {
                        failed += 1;
                        on_fail(a, synaptic_mem::data_span(bytes as u64) as usize);
                    }
                }
            }
            Event::ScratchRelease => {
                if let Some((p, n)) = scratch.take() {
                    a.scratch_release(p, n);
                }
            }
        }
    }
    // Every activation has a `Free` event (after its last reader), so no slot is still
    // occupied here; bump allocators leave stale pointers in the slots, which the next
    // inference's `Alloc` events overwrite before any `Free` reads them.
    a.end_inference();
    failed
}

/// No-op failure hook.
#[inline(always)]
pub fn ignore<A>(_: &mut A, _: usize) {}
