//! A loaded model that owns everything it borrows: the one `unsafe` module of the crate.
//!
//! `synaptic_run::Interpreter<'m, 'a, 'p>` borrows the model bytes and the compiled program
//! (`'m`), the arena through the core's `Loader`/`Runner` (`'a`) and the plan (`'p`); the
//! arena (`synaptic_mem::Arena<'buf>`) borrows its buffer and the SHARED region mutably. A
//! Python object must own all of them at once, so [`Loaded`] keeps each owner on the heap
//! behind a raw pointer taken from `Box::into_raw` (never moved, never touched through another
//! path while borrowed), hands the runtime `'static` references to them, and in [`Drop`]
//! drops the borrowers first (interpreter, runner, arena) and then frees the owners, each
//! exactly once. Nothing with a `'static` lifetime leaves this module: the methods below lend
//! the interpreter's views for the length of a `&self` / `&mut self` borrow only.

use std::ptr::NonNull;
use synaptic_mem::plan::{OverlapPair, PlanSlot};
use synaptic_mem::{Arena, Plan, Runner, Stats};
use synaptic_run::{Interpreter, IoPlacement, LoadError, Memory, RunError, RunPlan};

/// What gets each operator's output (`op, tensor, bytes`) during an observed inference.
pub(crate) type Observer<'o> = &'o mut (dyn FnMut(usize, usize, &[u8]) + Send);

/// What [`Loaded::new`] needs: the owners (moved in) and the arena's sizes.
pub(crate) struct Parts {
    /// The `.tflite` bytes (weights are read in place from here).
    pub(crate) model: Vec<u8>,
    /// The program compiled beforehand (`--op-data flash`), or `None` to compile it at load
    /// into the arena (`--op-data ram`).
    pub(crate) program: Option<Vec<u32>>,
    /// The plan's slots (`MemoryPlan::core_plan`).
    pub(crate) slots: Vec<PlanSlot>,
    /// The plan's region size.
    pub(crate) region_size: u32,
    /// The plan's declared overlaps (empty without overlap).
    pub(crate) overlaps: Vec<OverlapPair>,
    /// Arena bytes (exact: `Arena::exact`).
    pub(crate) arena_size: usize,
    /// Its scratch pool.
    pub(crate) scratch: usize,
    /// SHARED region bytes registered beside it.
    pub(crate) shared_size: usize,
    /// Where graph I/O lives.
    pub(crate) io: IoPlacement,
    /// Fill arena and SHARED region with these bytes (arena first) before loading.
    pub(crate) poison: Option<Vec<u8>>,
}

/// Why a [`Loaded`] could not be made.
pub(crate) enum MakeError {
    /// The arena configuration was refused by the core.
    Config(String),
    /// The runtime refused the model, program or plan.
    Load(LoadError),
}

/// A model loaded into an arena it owns (see the module docs).
pub(crate) struct Loaded {
    // Borrowers, dropped first (in this order) by `Drop`.
    net: Option<Interpreter<'static, 'static, 'static>>,
    runner: Option<Runner<'static>>,
    arena: Option<NonNull<Arena<'static>>>,
    // Owners, freed last.
    buf: NonNull<[u8]>,
    shared: NonNull<[u8]>,
    model: NonNull<[u8]>,
    program: Option<NonNull<[u32]>>,
    slots: NonNull<[PlanSlot]>,
    overlaps: NonNull<[OverlapPair]>,
}

/// `v` on the heap, owned through the returned pointer (freed by [`free`]).
fn own<T>(v: Vec<T>) -> NonNull<[T]> {
    let raw: *mut [T] = Box::into_raw(v.into_boxed_slice());
    // SAFETY: `Box::into_raw` never returns null.
    unsafe { NonNull::new_unchecked(raw) }
}

/// Frees what [`own`] returned.
///
/// # Safety
/// `p` came from [`own`], is freed once, and nothing borrows it any more.
unsafe fn free<T>(p: NonNull<[T]>) {
    // SAFETY: the caller's contract: `p` is a live `Box<[T]>` turned into a raw pointer.
    drop(unsafe { Box::from_raw(p.as_ptr()) });
}

impl Loaded {
    /// Makes the arena (`Arena::exact` on a 16-byte aligned buffer of `arena_size` bytes with
    /// a SHARED region of `shared_size`), poisons both if asked, and loads the model.
    pub(crate) fn new(p: Parts) -> Result<Loaded, MakeError> {
        // The arena must start 16-byte aligned: 15 spare bytes let the slice below start on
        // an aligned address whatever the allocator returned.
        let mut this = Loaded {
            net: None,
            runner: None,
            arena: None,
            buf: own(vec![0u8; p.arena_size + 15]),
            shared: own(vec![0u8; p.shared_size + 15]),
            model: own(p.model),
            program: p.program.map(own),
            slots: own(p.slots),
            overlaps: own(p.overlaps),
        };
        // SAFETY: every pointer below came from `own` just above and is freed only by `Drop`,
        // after the borrowers made from these references (interpreter, runner, arena) are
        // dropped; no other reference to the owners is made while they live, so the `'static`
        // references are unique (the mutable ones) and valid for as long as anything holds
        // them. `this` itself may move: the heap blocks it points to do not.
        let (buf, shared, model, program, slots, overlaps) = unsafe {
            (
                &mut *this.buf.as_ptr(),
                &mut *this.shared.as_ptr(),
                &*this.model.as_ptr(),
                this.program.map(|w| &*w.as_ptr()),
                &*this.slots.as_ptr(),
                &*this.overlaps.as_ptr(),
            )
        };
        let buf: &'static mut [u8] = aligned(buf, p.arena_size);
        let shared: &'static mut [u8] = aligned(shared, p.shared_size);
        if let Some(junk) = &p.poison {
            let (a, s) = junk.split_at(p.arena_size.min(junk.len()));
            buf[..a.len()].copy_from_slice(a);
            let n = s.len().min(shared.len());
            shared[..n].copy_from_slice(&s[..n]);
        }
        let mut arena =
            Arena::exact(buf, p.scratch).map_err(|e| MakeError::Config(e.to_string()))?;
        arena
            .set_shared_region(shared)
            .map_err(|e| MakeError::Config(e.to_string()))?;
        let arena = own_one(arena);
        this.arena = Some(arena);
        // SAFETY: `arena` came from `own_one` above, is freed by `Drop` only after the loader
        // and runner made from this reference are gone, and is never accessed otherwise.
        let arena: &'static mut Arena<'static> = unsafe { &mut *arena.as_ptr() };
        let (loader, runner) = arena.split();
        let plan = RunPlan::overlapped(
            Plan {
                region_size: p.region_size,
                slots,
            },
            overlaps,
        );
        let net = match program {
            Some(w) => Interpreter::with_program(model, w, loader, plan, p.io),
            None => Interpreter::new(model, loader, plan, p.io),
        }
        .map_err(MakeError::Load)?;
        this.runner = Some(runner);
        this.net = Some(net);
        Ok(this)
    }

    /// The loaded interpreter and the runner it runs on (both present after `new`).
    fn parts(
        &mut self,
    ) -> (
        &mut Interpreter<'static, 'static, 'static>,
        &mut Runner<'static>,
    ) {
        match (&mut self.net, &mut self.runner) {
            (Some(n), Some(r)) => (n, r),
            _ => unreachable!("Loaded::new sets both or fails"),
        }
    }

    fn net(&self) -> &Interpreter<'static, 'static, 'static> {
        self.net.as_ref().expect("Loaded::new sets it or fails")
    }

    /// The model bytes.
    pub(crate) fn model(&self) -> &[u8] {
        // SAFETY: owned by `self` until `Drop`; only shared references are ever made to it.
        unsafe { &*self.model.as_ptr() }
    }

    /// `Interpreter::memory`.
    pub(crate) fn memory(&self) -> Memory {
        self.net().memory()
    }

    /// The arena's statistics (scratch peak, …).
    pub(crate) fn stats(&self) -> Stats {
        self.runner.as_ref().expect("set by new").stats()
    }

    /// `Interpreter::input_bytes`.
    pub(crate) fn input_bytes(&self) -> usize {
        self.net().input_bytes()
    }

    /// `Interpreter::output_bytes`.
    pub(crate) fn output_bytes(&self) -> usize {
        self.net().output_bytes()
    }

    /// `Interpreter::input_mut` (I/O in the SHARED region).
    pub(crate) fn input_mut(&mut self, k: usize) -> Option<&mut [u8]> {
        self.parts().0.input_mut(k)
    }

    /// `Interpreter::reset_state`.
    pub(crate) fn reset_state(&mut self) {
        self.parts().0.reset_state();
    }

    /// `Interpreter::output` (I/O in the SHARED region).
    pub(crate) fn output(&self, k: usize) -> Option<&[u8]> {
        self.net().output(k)
    }

    /// `Interpreter::invoke_observed`, or the plain `invoke` / `invoke_in_place` without an
    /// observer.
    pub(crate) fn invoke(
        &mut self,
        input: Option<&[u8]>,
        output: Option<&mut [u8]>,
        observe: Option<Observer<'_>>,
    ) -> Result<(), RunError> {
        let (net, runner) = self.parts();
        match (observe, input, output) {
            (Some(f), i, o) => net.invoke_observed(runner, i, o, &mut |op, t, b| f(op, t, b)),
            (None, Some(i), Some(o)) => net.invoke(runner, i, o),
            (None, None, None) => net.invoke_in_place(runner),
            (None, i, o) => net.invoke_observed(runner, i, o, &mut |_, _, _| {}),
        }
    }
}

// SAFETY (Send): a `Loaded` owns everything its borrowers (interpreter, runner, arena) point
// into, and no reference into it exists outside it, so moving the whole to another thread
// moves every borrower with what it borrows; nothing in synaptic-mem or synaptic-run is
// tied to a thread (no thread-locals; `#![no_std]`).
unsafe impl Send for Loaded {}
// SAFETY (Sync): through `&Loaded` only reading methods are reachable (`model`, `memory`,
// `stats`, `input_bytes`, `output_bytes`, `output`): they read the arena's bookkeeping and
// bytes, never write (every writer takes `&mut self`), so concurrent `&Loaded` give
// concurrent reads, not data races. The Python object (`interp::Interpreter`) reaches
// `&mut Loaded` only through PyO3's exclusive borrow, and `invoke` (the one call that
// releases the GIL) holds it for the whole inference.
unsafe impl Sync for Loaded {}

/// One value on the heap, owned through the returned pointer (freed in `Drop`).
fn own_one<T>(v: T) -> NonNull<T> {
    // SAFETY: `Box::into_raw` never returns null.
    unsafe { NonNull::new_unchecked(Box::into_raw(Box::new(v))) }
}

/// The `n` bytes of `buf` from its first 16-byte aligned address (`buf` has 15 spare bytes).
fn aligned(buf: &mut [u8], n: usize) -> &mut [u8] {
    let off = buf.as_ptr().align_offset(16).min(15);
    &mut buf[off..off + n]
}

impl Drop for Loaded {
    fn drop(&mut self) {
        // Borrowers first: the interpreter (borrows model, program, plan, arena), the runner
        // (borrows the arena), then the arena (borrows buffer and SHARED region).
        // (Neither has drop glue today; setting them to None keeps the order if they gain it.)
        self.net = None;
        self.runner = None;
        if let Some(a) = self.arena.take() {
            // SAFETY: `a` came from `own_one` and nothing borrows it any more (the loader was
            // consumed by the interpreter, which is dropped, as is the runner).
            drop(unsafe { Box::from_raw(a.as_ptr()) });
        }
        // SAFETY: each came from `own`, is freed here once, and its borrowers are gone.
        unsafe {
            free(self.buf);
            free(self.shared);
            free(self.model);
            if let Some(w) = self.program.take() {
                free(w);
            }
            free(self.slots);
            free(self.overlaps);
        }
    }
}
