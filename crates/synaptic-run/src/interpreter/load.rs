//! Construction: the program compiled (or a given one checked by its seal), the plan checked against it
//! ([`check_slots`]) and its declared overlaps against the kernels' own contracts
//! ([`check_overlaps`]), the graph I/O allocated in the SHARED region, the plan loaded and
//! every activation placed once.

// The graph I/O loop indexes the parallel I/O tensor and SHARED arrays by one counter.
#![allow(clippy::needless_range_loop)]

use synaptic_mem::plan::{OverlapDirection, OverlapPair};
use synaptic_mem::{DType, Loader, Plan, Tensor};

use super::{Interpreter, IoPlacement, Memory, RunPlan, Store};
use crate::contract::Direction;
use crate::error::LoadError;
use crate::format::{self as program, Loc, OpRecord, Program};
use crate::limits::{MAX_IO, MAX_STATE};
use crate::model::Graph;
use crate::ops::{self, OpSet};

/// Every load ([`Interpreter::new`], [`Interpreter::with_program`] and their `_ops` forms).
/// Never inlined: an image's runtime code is the runtime's symbols, whatever calls it. One
/// copy for a program given in flash (`FLASH`: `given` is `Some`) and one compiled at load, so
/// that an image that loads from flash links no compiler that writes a program.
#[inline(never)]
pub(super) fn load<'m, 'a, 'p, O: OpSet, const FLASH: bool>(
    model: &'m [u8],
    given: Option<&'m [u32]>,
    loader: Loader<'a>,
    run_plan: RunPlan<'p>,
    placement: IoPlacement,
) -> Result<Interpreter<'m, 'a, 'p, O>, LoadError> {
    let sizing = Sizing {
        before: Before::of(&loader),
        slots: run_plan.plan.slots.len(),
        region: run_plan.plan.region_size as usize,
    };
    // Returned as it is (an `Interpreter` is some 200 bytes: not moved through a `map_err`);
    // each step maps its own failure ([`too_small`]) in a frame of its own.
    load_parts::<O, FLASH>(model, given, loader, run_plan, placement, &sizing)
}

/// What [`too_small`] needs to tell an arena too small from another failure.
struct Sizing {
    before: Before,
    /// The plan's slots and region.
    slots: usize,
    region: usize,
}

/// What the load needs of the arena's statistics before it starts: its accounting
/// ([`Memory`]) and the size an arena too small should have been ([`too_small`]). Five words
/// on the stack under the whole load, not all of [`synaptic_mem::Stats`].
struct Before {
    arena_size: usize,
    tensor_capacity: usize,
    persistent_used: usize,
    shared_used: usize,
    scratch_size: usize,
}

impl Before {
    #[inline(never)]
    fn of(loader: &Loader<'_>) -> Self {
        let s = loader.stats();
        Before {
            arena_size: s.arena_size,
            tensor_capacity: s.tensor_capacity,
            persistent_used: s.persistent_used,
            shared_used: s.shared_used,
            scratch_size: s.scratch_size,
        }
    }
}

/// What an arena too small lacks beyond the plan's descriptors and region (bytes of arena):
/// the program's block when it is compiled at load, the kernels' scratch pool, the variable
/// tensors.
#[derive(Clone, Copy)]
struct Needs {
    program: usize,
    scratch: usize,
    state: usize,
}

/// An out-of-memory failure of the arena (not of the SHARED region) as the arena size to give
/// ([`LoadError::ArenaTooSmall`]): [`Needs`] (found by `needs`, only on this failure path),
/// the plan's descriptor table and its region, against the tensor space that was free (the
/// accounting of [`Memory::arena_bytes`] and of synaptic-plan's RAM figure); the scratch
/// counted beyond the pool the arena was given. Any other failure is returned as it is.
#[cold]
#[inline(never)]
fn too_small(e: LoadError, sizing: &Sizing, needs: &dyn Fn() -> Option<Needs>) -> LoadError {
    let Sizing {
        ref before,
        slots,
        region,
    } = *sizing;
    use synaptic_mem::{ErrorKind, PlanLoadError, Region};
    let oom = |a: &synaptic_mem::AllocError| {
        matches!(a.kind, ErrorKind::OutOfMemory | ErrorKind::TooLarge)
            && !matches!(a.region, Region::Shared)
    };
    let arena = match &e {
        LoadError::Alloc(a) | LoadError::PlanLoad(PlanLoadError::Alloc(a)) => oom(a),
        LoadError::ProgramBuffer { .. } => true,
        _ => false,
    };
    if !arena {
        return e;
    }
    let Some(n) = needs() else {
        return e;
    };
    // The kernels' scratch beyond the pool the arena was given (reserved from its top).
    let scratch = n
        .scratch
        .div_ceil(16)
        .saturating_mul(16)
        .saturating_sub(before.scratch_size);
    let need = n
        .program
        .saturating_add(synaptic_mem::DESC_SPAN.saturating_mul(slots))
        .saturating_add(region)
        .saturating_add(scratch)
        .saturating_add(n.state);
    let free = before
        .tensor_capacity
        .saturating_sub(before.persistent_used);
    if need <= free {
        return e;
    }
    LoadError::ArenaTooSmall {
        short: need - free,
        arena: before.arena_size.saturating_add(need - free),
    }
}

/// [`too_small`] of a program compiled at load that did not fit: what it needs found from the
/// model (the program counted, every operator prepared again for its scratch).
#[cold]
#[inline(never)]
fn too_small_compiling<O: OpSet>(
    e: LoadError,
    model: &[u8],
    placement: IoPlacement,
    sizing: &Sizing,
) -> LoadError {
    too_small(e, sizing, &|| {
        // Read where it was returned (a `Graph` is some 270 bytes: not moved out).
        let opened = Graph::open_for(model, O::KINDS);
        let g = opened.as_ref().ok()?;
        let words = crate::program::compiled_len_in::<O>(model, g, placement, crate::Isa::NATIVE);
        let state = (0..g.n_states)
            .map(|k| match g.states[k] {
                crate::model::PRIVATE_STATE => crate::ops::private_state_in::<O>(
                    &g.model,
                    &g.sg,
                    usize::from(g.state_owner[k]),
                ),
                t => crate::model::tinfo(&g.model, &g.sg, usize::from(t)).map_or(0, |i| i.bytes),
            })
            .map(|b| synaptic_mem::block_span(b as u64) as usize)
            .sum();
        Some(Needs {
            program: synaptic_mem::block_span(4 * words.ok()? as u64) as usize,
            scratch: crate::ops::model_scratch::<O>(g),
            state,
        })
    })
}

/// [`Needs`] of a program that loaded, read from it: its block (compiled at load), the scratch
/// its kernels take (`scratch`, as [`check_slots`] found it) and its variable tensors.
fn needs_of(store: &Store<'_, '_>, scratch: usize) -> Option<Needs> {
    let prog = program_of(store).ok()?;
    let program = match store {
        Store::Flash(_) => 0,
        Store::Ram(t) => synaptic_mem::block_span(t.size() as u64) as usize,
    };
    // (At most the state tensors a load allocates: a count past them is refused there.)
    let state = (0..prog.states().min(MAX_STATE))
        .filter_map(|k| prog.state(k))
        .filter_map(|(_, _, (shape, n, dtype))| synaptic_mem::shape_bytes(&shape[..n], dtype).ok())
        .map(|(_, bytes)| synaptic_mem::block_span(u64::from(bytes)) as usize)
        .sum();
    Some(Needs {
        program,
        scratch,
        state,
    })
}

fn load_parts<'m, 'a, 'p, O: OpSet, const FLASH: bool>(
    model: &'m [u8],
    given: Option<&'m [u32]>,
    loader: Loader<'a>,
    run_plan: RunPlan<'p>,
    placement: IoPlacement,
    sizing: &Sizing,
) -> Result<Interpreter<'m, 'a, 'p, O>, LoadError> {
    let store = match given {
        Some(words) if FLASH => flash_store::<O>(model, words, placement)?,
        None if !FLASH => {
            // Read where it was returned (a `Graph` is some 270 bytes: not moved out).
            let opened = Graph::open_for(model, O::KINDS);
            let g = match &opened {
                Ok(g) => g,
                Err(e) => return Err(*e),
            };
            compile_store::<O>(model, g, &loader, placement)
                .map_err(|e| too_small_compiling::<O>(e, model, placement, sizing))?
        }
        _ => {
            return Err(LoadError::Unsupported {
                what: "a program both given and compiled (internal)",
            })
        }
    };
    // The plan against the program, then everything else, in a frame of its own: the
    // compiler's deep calls above run without the interpreter's arrays on the stack.
    build::<O>(model, loader, store, run_plan, placement, sizing)
}

/// A program given (in flash): its header and seal checked, intact and compiled from these
/// very model bytes (no compiler linked, no part of the model's flatbuffer read); with
/// `verify-program`, verified word by word against the model too.
#[inline(always)]
#[cfg_attr(
    not(feature = "verify-program"),
    allow(clippy::extra_unused_type_parameters)
)]
fn flash_store<'m, 'a, O: OpSet>(
    model: &'m [u8],
    words: &'m [u32],
    placement: IoPlacement,
) -> Result<Store<'m, 'a>, LoadError> {
    crate::program::check_sealed(model, placement, words)?;
    #[cfg(feature = "verify-program")]
    {
        let opened = Graph::open_for(model, O::KINDS);
        let g = match &opened {
            Ok(g) => g,
            Err(e) => return Err(*e),
        };
        crate::program::verify_in::<O>(model, g, placement, words)?;
    }
    Ok(Store::Flash(words))
}

/// The program compiled into the persistent region, in one preparation pass (the region then
/// ends right after its last word).
#[inline(always)]
fn compile_store<'m, 'a, O: OpSet>(
    model: &'m [u8],
    g: &Graph<'m>,
    loader: &Loader<'a>,
    placement: IoPlacement,
) -> Result<Store<'m, 'a>, LoadError> {
    let t = loader.persistent_filled(DType::Int32, |t| {
        let out = t
            .as_mut_slice::<u32>()
            .map_err(|_| LoadError::Unsupported {
                what: "program tensor",
            })?;
        let n = crate::program::compile_in::<O>(model, g, placement, crate::Isa::NATIVE, out)?;
        u32::try_from(n).map_err(|_| LoadError::Unsupported {
            what: "a program of more than 2^32 words",
        })
    })?;
    Ok(Store::Ram(t))
}

/// The program of `store`, readable (its header checked).
fn program_of<'s>(store: &'s Store<'_, '_>) -> Result<Program<'s>, LoadError> {
    let words = match store {
        Store::Flash(w) => *w,
        Store::Ram(t) => t.as_slice::<u32>().unwrap_or(&[]),
    };
    Program::new(words).ok_or(LoadError::Program {
        what: "header",
        op: usize::MAX,
        name: "",
        word: 0,
    })
}

/// The plan against the model's program: one slot per planned activation, each big enough
/// and live over its tensor's lifetime ([`check_slots`]), every declared overlap within its
/// kernel's contract ([`check_overlaps`]); returns the scratch pool the kernels take (the
/// most one operator needs at a time).
#[inline(never)]
fn check_plan<O: OpSet>(
    store: &Store<'_, '_>,
    plan: &Plan<'_>,
    overlaps: &[OverlapPair],
) -> Result<usize, LoadError> {
    let prog = program_of(store)?;
    // A program given is trusted for its seal, and its data flow checked again all the same
    // (compiled at load, the compiler checked the model's): nothing reads bytes nothing
    // wrote, whatever its words. One window of slots with the other checks; each further
    // window (no model so far has more) in a pass of its own, bounded by the plan's slots.
    let flash = matches!(store, Store::Flash(_));
    let scratch = check_slots::<O>(&prog, plan, overlaps, flash.then_some(0))?;
    let mut base = DATAFLOW_WINDOW;
    while flash && base < prog.slots() {
        check_slots::<O>(&prog, plan, overlaps, Some(base))?;
        base += DATAFLOW_WINDOW;
    }
    Ok(scratch)
}

/// Slots one pass of [`check_slots`] follows for the data flow (its bits: 36 bytes of stack).
const DATAFLOW_WINDOW: usize = 256;

/// What a pass over a program's records has written so far: its planned slots
/// `base .. base + DATAFLOW_WINDOW` (the first words' bits) and its SHARED I/O tensors (the
/// first 32: the last word's).
struct Written {
    base: usize,
    bits: [u32; DATAFLOW_WINDOW / 32 + 1],
}

impl Written {
    /// Nothing written yet, for the window from slot `base`.
    fn new(base: usize) -> Self {
        Written {
            base,
            bits: [0; DATAFLOW_WINDOW / 32 + 1],
        }
    }

    /// The word and bit of `loc`'s flag, if this pass follows it.
    fn bit(&self, loc: Loc) -> Option<(usize, u32)> {
        match loc {
            Loc::Slot(s) => {
                let d = s.checked_sub(self.base).filter(|&d| d < DATAFLOW_WINDOW)?;
                Some((d / 32, 1 << (d % 32)))
            }
            Loc::Shared(k) if k < 32 => Some((DATAFLOW_WINDOW / 32, 1 << k)),
            _ => None,
        }
    }

    /// `loc` written.
    fn write(&mut self, loc: Loc) {
        if let Some((i, b)) = self.bit(loc) {
            self.bits[i] |= b;
        }
    }

    /// Whether `loc` holds what was written: one this pass does not follow, or written.
    fn holds(&self, loc: Loc) -> bool {
        self.bit(loc).is_none_or(|(i, b)| self.bits[i] & b != 0)
    }
}

/// The interpreter of a checked program and plan ([`build_checked`]), an arena too small
/// reported as such ([`too_small`]).
#[inline(never)]
fn build<'m, 'a, 'p, O: OpSet>(
    model: &'m [u8],
    loader: Loader<'a>,
    store: Store<'m, 'a>,
    run_plan: RunPlan<'p>,
    placement: IoPlacement,
    sizing: &Sizing,
) -> Result<Interpreter<'m, 'a, 'p, O>, LoadError> {
    // The plan against the program first, in a frame of its own (its deep calls run without
    // the interpreter's arrays on the stack). A plan or program that does not fit: never the
    // arena's size.
    let scratch = check_plan::<O>(&store, &run_plan.plan, run_plan.overlaps)?;
    // (A handful of instructions: found before the program's store moves into the result.)
    let needs = needs_of(&store, scratch);
    let r = build_checked(
        model,
        loader,
        store,
        run_plan,
        placement,
        &sizing.before,
        scratch,
    );
    if let Err(e) = &r {
        return Err(too_small(*e, sizing, &|| needs));
    }
    r
}

/// The interpreter of a checked program and plan: its variable tensors, its graph I/O in the
/// SHARED region, the plan loaded and every activation placed once.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn build_checked<'m, 'a, 'p, O: OpSet>(
    model: &'m [u8],
    loader: Loader<'a>,
    store: Store<'m, 'a>,
    run_plan: RunPlan<'p>,
    placement: IoPlacement,
    before: &Before,
    scratch: usize,
) -> Result<Interpreter<'m, 'a, 'p, O>, LoadError> {
    let RunPlan { plan, overlaps } = run_plan;
    let mut memory = Memory::default();
    match &store {
        Store::Flash(words) => {
            memory.program_flash = 4 * words.len();
            memory.program_bytes = 4 * words.len();
        }
        Store::Ram(t) => {
            memory.tables = synaptic_mem::block_span(t.size() as u64) as usize;
            memory.program_bytes = 4 * (t.size() / 4);
            memory.descriptors += synaptic_mem::DESC_SPAN;
        }
    }
    memory.scratch = scratch;
    // The pool holds that block (taken from the top of the tensor space if it is smaller:
    // an exact arena is given no pool).
    loader.reserve_scratch(memory.scratch)?;
    let prog = program_of(&store)?;
    let n_slots = prog.slots();
    // The variable tensors (state across invocations): one PERSISTENT tensor each, in tensor
    // order, set to its reset value (TFLM's `ResetVariableTensors`: an int8 tensor's zero
    // point, 0 otherwise).
    let mut state: [Option<Tensor<'a>>; MAX_STATE] = Default::default();
    let mut state_of = [(0u16, 0u8); MAX_STATE];
    let st0 = loader.stats();
    // (None without a stateful kernel in `O`: such a model's operators are refused anyway.)
    let n_states = if O::KINDS.intersects(ops::STATE_KINDS) {
        prog.states()
    } else {
        0
    };
    let bad_tail = LoadError::Program {
        what: "tensor requests",
        op: usize::MAX,
        name: "",
        word: prog.header(program::h::TAIL_AT),
    };
    if n_states > MAX_STATE {
        return Err(bad_tail);
    }
    for k in 0..n_states {
        // Its tensor index, reset byte and request, as the program's tail has them.
        let (t, fill, (shape, n, dtype)) = prog.state(k).ok_or(bad_tail)?;
        let t = u16::try_from(t).map_err(|_| bad_tail)?;
        let mut v = loader.persistent(&shape[..n], dtype)?;
        v.bytes_mut().fill(fill);
        state[k] = Some(v);
        state_of[k] = (t, fill);
        memory.descriptors += synaptic_mem::DESC_SPAN;
    }
    memory.state = loader.stats().persistent_used - st0.persistent_used;

    // Graph I/O in the SHARED region.
    let mut io: [Option<Tensor<'a>>; MAX_IO] = Default::default();
    if placement == IoPlacement::Shared {
        let n_io = prog.inputs() + prog.outputs();
        if n_io > MAX_IO {
            return Err(bad_tail);
        }
        let mut tensors = [usize::MAX; MAX_IO];
        for k in 0..n_io {
            let (t, _, _) = prog.io(k).ok_or(bad_tail)?;
            tensors[k] = t;
            if tensors[..k].contains(&t) {
                continue;
            }
            let (shape, n, dtype) = prog.io_request(k).ok_or(LoadError::Unsupported {
                what: "a graph input or output of a type the arena cannot hold",
            })?;
            io[k] = Some(loader.shared(&shape[..n], dtype)?);
            memory.descriptors += synaptic_mem::DESC_SPAN;
        }
    }

    // The plan last: its descriptor table ends the persistent region.
    let mid = loader.stats();
    let plan_handle = loader
        .load_overlapped_plan(plan, overlaps)
        .map_err(LoadError::PlanLoad)?;
    // Every activation placed once, here: an inference finds them in place.
    for s in 0..n_slots {
        if let Some((shape, n, dtype)) = prog.slot(s) {
            loader.preplace(&plan_handle, s, &shape[..n], dtype)?;
        }
    }
    let after = loader.stats();
    memory.plan_descriptors = after.persistent_used - mid.persistent_used;
    memory.descriptors += memory.plan_descriptors;
    memory.persistent = after.persistent_used - before.persistent_used;
    memory.planned = plan.region_size as usize;
    memory.shared = after.shared_used - before.shared_used;
    Ok(Interpreter {
        model,
        program: store,
        plan: plan_handle,
        io,
        state,
        state_of,
        n_state: n_states,
        placement,
        memory,
        ops: core::marker::PhantomData,
    })
}

/// Checks `plan` against the program ([module docs](self)): one slot per planned activation,
/// each at least its tensor's bytes and live at every operator that reads or writes its
/// tensor, from operator 0 for a graph input through the last operator for a graph output.
/// One pass over the program's records (the data flow was checked at compile: a tensor's
/// first use is its producer), which also returns the most scratch bytes one kernel takes,
/// and checks each declared overlap ([`check_overlap`]) at its operator's record: a fault of
/// the slots first, then the first fault of the overlaps in their order.
#[inline(never)]
fn check_slots<O: OpSet>(
    prog: &Program<'_>,
    plan: &Plan<'_>,
    overlaps: &[OverlapPair],
    dataflow: Option<usize>,
) -> Result<usize, LoadError> {
    let n = prog.slots();
    let bad = |what, slot: usize| LoadError::Plan {
        what,
        slot,
        tensor: prog.slot_tensor(slot).unwrap_or(usize::MAX),
    };
    if plan.slots.len() < n {
        return Err(LoadError::Plan {
            what: "the plan has fewer slots than the model has planned activations",
            slot: plan.slots.len(),
            tensor: usize::MAX,
        });
    }
    if plan.slots.len() > n {
        return Err(LoadError::Plan {
            what: "the plan has more slots than the model has planned activations",
            slot: plan.slots.len(),
            tensor: usize::MAX,
        });
    }
    for (s, slot) in plan.slots.iter().enumerate() {
        let bytes = prog
            .slot_geometry(s)
            .ok_or(bad("program slot table", s))?
            .bytes;
        if (slot.size as usize) < bytes {
            return Err(bad("slot smaller than its tensor", s));
        }
    }
    let live = |loc: Option<Loc>, op: usize| match loc {
        Some(Loc::Slot(s)) => match plan.slots.get(s) {
            Some(slot) if (slot.first_op as usize) <= op && op <= slot.last_op as usize => Ok(()),
            _ => Err(bad("slot not live over its tensor's lifetime", s)),
        },
        _ => Ok(()),
    };
    let n_ops = prog.ops();
    // The data flow (`dataflow`: the window's first slot), the graph inputs written first.
    let mut written = dataflow.map(Written::new);
    let fault = |op, loc: Loc, fault| LoadError::Graph {
        op,
        tensor: match loc {
            Loc::Slot(s) => prog.slot_tensor(s).unwrap_or(usize::MAX),
            _ => usize::MAX,
        },
        fault,
    };
    if let Some(w) = &mut written {
        for k in 0..prog.inputs() {
            w.write(prog.io(k).ok_or(bad("program I/O table", 0))?.1);
        }
    }
    let mut at = prog.header(program::h::OPS_AT);
    let mut scratch = 0;
    // The next declared overlap, and the first fault of one (reported after the slots').
    let (mut q, mut overlap_fault) = (0usize, None);
    for i in 0..n_ops {
        let (rec, next) = prog
            .op(at, ops::param_words)
            .ok_or(bad("program record", 0))?;
        if !ops::linked(O::KINDS, rec.kind)
            || ops::paths::refused::<O>(|| {
                ops::paths_of::<O>(rec.kind, rec.params, !rec.constants.is_empty())
            })
        {
            // A kernel this image does not link (a program compiled at load never has one),
            // or a path of one (a model whose layers take another than the image's).
            let name = ops::kernel_name(rec.kind);
            return Err(LoadError::Operator {
                op: i,
                name,
                error: crate::error::KernelError::unsupported(
                    name,
                    crate::error::Unsupported::NotLinked,
                ),
            });
        }
        scratch = scratch.max(scratch_of::<O>(rec.kind, rec.params));
        if let Some(w) = &mut written {
            for loc in rec.input_locs().flatten() {
                if matches!(loc, Loc::Slot(_)) && !w.holds(loc) {
                    return Err(fault(
                        Some(i),
                        loc,
                        crate::error::GraphFault::ReadBeforeWrite,
                    ));
                }
            }
            w.write(rec.out_loc);
            for k in 0..rec.n_extra() {
                w.write(rec.extra_output(k).ok_or(bad("program record", 0))?.1);
            }
        }
        live(Some(rec.out_loc), i)?;
        for loc in rec.input_locs() {
            live(loc, i)?;
        }
        while overlaps.get(q).is_some_and(|p| usize::from(p.op) == i) {
            if overlap_fault.is_none() {
                overlap_fault = check_overlap::<O>(prog, plan, overlaps, q, &rec)
                    .err()
                    .map(|what| (q, what));
            }
            q += 1;
        }
        at = next;
    }
    for k in 0..prog.inputs() + prog.outputs() {
        let (_, loc, _) = prog.io(k).ok_or(bad("program I/O table", 0))?;
        let op = if k < prog.inputs() {
            0
        } else {
            n_ops.saturating_sub(1)
        };
        if let Some(w) = &mut written {
            if k >= prog.inputs() && !w.holds(loc) {
                return Err(fault(None, loc, crate::error::GraphFault::OutputNotWritten));
            }
        }
        live(Some(loc), op)?;
    }
    if let Some((q, what)) = overlap_fault {
        return Err(overlap_refusal(prog, &overlaps[q], what));
    }
    // A declared overlap not reached: out of operator order, or of an operator past the last.
    if let Some(pair) = overlaps.get(q) {
        return Err(overlap_refusal(
            prog,
            pair,
            if q > 0 && overlaps[q - 1].op >= pair.op {
                OUT_OF_ORDER
            } else {
                "declared overlap of an operator the model does not have"
            },
        ));
    }
    Ok(scratch)
}

/// The fault of declared overlaps out of operator order ([`check_overlap`]).
const OUT_OF_ORDER: &str = "declared overlaps must be in operator order, at most one per operator";

/// The error refusing declared overlap `pair` for `what`.
fn overlap_refusal(prog: &Program<'_>, pair: &OverlapPair, what: &'static str) -> LoadError {
    LoadError::Plan {
        what,
        slot: usize::from(pair.output),
        tensor: prog
            .slot_tensor(usize::from(pair.output))
            .unwrap_or(usize::MAX),
    }
}

/// [`ops::scratch_bytes`] in a frame of its own (a kernel's parameters decoded there, not in
/// the frame of [`check_slots`], under which [`check_overlap`] runs).
#[inline(never)]
fn scratch_of<O: OpSet>(kind: u32, params: &[u32]) -> usize {
    ops::scratch_bytes::<O>(kind, params)
}

/// Checks declared overlap `overlaps[q]` of `plan`, at the record `rec` of its operator,
/// against the runtime's own contracts (see [`RunPlan`]): in operator order, one per
/// operator, the operator's output and one input it reads once, at most [`MAX_PAIR_OTHERS`]
/// other planned inputs, a kernel with a contract for that input, the declared bound no more
/// than the contract's and the plan's delta safe in the declared direction.
#[inline(never)]
fn check_overlap<O: OpSet>(
    prog: &Program<'_>,
    plan: &Plan<'_>,
    overlaps: &[OverlapPair],
    q: usize,
    rec: &OpRecord<'_>,
) -> Result<(), &'static str> {
    let Some(pair) = overlaps.get(q) else {
        return Ok(());
    };
    if q > 0 && overlaps[q - 1].op >= pair.op {
        return Err(OUT_OF_ORDER);
    }
    let (Some(si), Some(so)) = (
        plan.slots.get(usize::from(pair.input)),
        plan.slots.get(usize::from(pair.output)),
    ) else {
        return Err("declared overlap of a slot the plan does not have");
    };
    if rec.n_extra() > 0 {
        return Err("declared overlap of an operator with two outputs");
    }
    let found = pair_inputs(rec, pair)?;
    if let Some(k) = ops::pair_input::<O>(rec.kind) {
        // The kernel takes that input in place and views no other one.
        if found.k != k || found.other.is_some() {
            return Err(
                "declared overlap: the kernel runs in place on another input or beside \
                 another planned input",
            );
        }
    }
    let out = prog
        .slot_geometry(usize::from(pair.output))
        .ok_or("declared overlap: the output slot's tensor")?;
    // Read where it was returned (a `Contract` is some 100 bytes: not moved out).
    let contract = ops::contract::<O>(rec.kind, rec.params, found.k, out);
    let Some(contract) = &contract else {
        return Err(
            "declared overlap: the operator's kernel has no overlapped entry point for that \
             input",
        );
    };
    // Only the declared direction's bound: the one both checks below read.
    let dir = Direction::from(pair.direction);
    let windows = O::KINDS.intersects(ops::WINDOW_KINDS);
    let safe = contract
        .safe_overlap_in_kinds(dir, windows)
        .ok_or("declared overlap of tensors too large for a contract")?;
    let bound = i64::from(pair.bound);
    let claims_no_more = match pair.direction {
        OverlapDirection::Forward => bound <= safe.forward_max,
        OverlapDirection::Backward => safe.backward_min.is_some_and(|b| bound >= b),
    };
    if !claims_no_more {
        return Err(
            "declared overlap's bound claims more than the kernel's access contract allows",
        );
    }
    if ops::forward_only::<O>(rec.kind) && dir == Direction::Backward {
        return Err("declared overlap: the kernel runs forward only");
    }
    let d = i64::from(so.offset) - i64::from(si.offset);
    if !safe.safe(d, dir) {
        return Err("declared overlap's delta is unsafe by the kernel's access contract");
    }
    Ok(())
}

/// Where a declared overlap's input is among its operator's inputs, and its operator's other
/// planned input (at most one beside it), from the record.
pub(super) struct PairInputs {
    /// The input position (operator input index) of the pair's input slot.
    pub(super) k: usize,
    /// The other planned input: its position and slot.
    pub(super) other: Option<(usize, usize)>,
}

/// The positions of `pair`'s slots in `rec`: its output must be the record's output slot and
/// its input exactly one of the record's inputs; at most one other input may be planned.
pub(super) fn pair_inputs(
    rec: &OpRecord<'_>,
    pair: &OverlapPair,
) -> Result<PairInputs, &'static str> {
    if rec.out_loc != Loc::Slot(usize::from(pair.output)) {
        return Err("declared overlap: the output slot is not the operator's output");
    }
    let mut k = None;
    let mut other = None;
    for j in 0..rec.n_inputs() {
        let Some(Loc::Slot(s)) = rec.input(j) else {
            continue;
        };
        let twice = if s == usize::from(pair.input) {
            k.replace(j).is_some()
        } else {
            other.replace((j, s)).is_some()
        };
        if twice {
            return Err(if s == usize::from(pair.input) {
                "declared overlap: the operator reads its input slot twice"
            } else {
                "declared overlap: the operator has more than one other planned input"
            });
        }
    }
    let k = k.ok_or("declared overlap: the input slot is not an input of the operator")?;
    Ok(PairInputs { k, other })
}
