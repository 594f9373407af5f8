//! The inference: graph inputs in, every operator in order — a declared overlap's on one span
//! of the plan's region ([`super::overlap`]), every other with its distinct planned tensors as
//! views ([`run_op`]) —, graph outputs out. Every kernel is reached through the operator list
//! ([`crate::ops::run`]); nothing here names an operator.

// Loops index several parallel fixed-size arrays (slots, view indices) by one counter.
#![allow(clippy::needless_range_loop)]

use synaptic_mem::plan::{OverlapPair, PlanSlot};
use synaptic_mem::{AllocError, PlannedInference, Runner, Scratch, Tensor};

use super::{overlap, Interpreter, IoPlacement, Store};
use crate::error::{KernelError, RunError};
use crate::format::{self as program, Loc, OpRecord, Program};
use crate::limits::{MAX_OP_INPUTS, MAX_OP_TENSORS};

// `with_views` has an arm for every list length up to this.
const _: () = assert!(MAX_OP_TENSORS == 18);
use crate::ops::operands::{split_io, Inputs, MAX_OP_STATES};
use crate::ops::{self, OpSet, Operands};

/// What gets each operator's output (`op, tensor, bytes`), if anything does.
pub(super) type Observer<'o, 'f> = Option<&'o mut (dyn FnMut(usize, usize, &[u8]) + 'f)>;

/// The inference of [`Interpreter::invoke_observed`], observed or not. Never inlined: an
/// image's runtime code is the runtime's symbols, whatever calls it.
#[inline(never)]
pub(super) fn run<'a, O: OpSet>(
    net: &mut Interpreter<'_, 'a, '_, O>,
    runner: &mut Runner<'a>,
    input: Option<&[u8]>,
    output: Option<&mut [u8]>,
    mut observe: Observer<'_, '_>,
) -> Result<(), RunError> {
    let Interpreter {
        model,
        program,
        plan,
        io,
        placement,
        state,
        n_state,
        ..
    } = net;
    let state: &mut [Option<Tensor<'a>>] = &mut state[..*n_state];
    let overlaps: &[OverlapPair] = plan.overlaps();
    let slots: &[PlanSlot] = plan.plan().slots;
    let words: &[u32] = match program {
        Store::Flash(w) => w,
        Store::Ram(t) => t.as_slice::<u32>().unwrap_or(&[]),
    };
    let prog = Program::new(words).ok_or(RunError::Program { at: 0 })?;
    if let Some(i) = input {
        let expected = prog.header(program::h::INPUT_BYTES);
        if i.len() != expected {
            return Err(RunError::Io {
                what: "input",
                expected,
                got: i.len(),
            });
        }
    }
    if let Some(o) = &output {
        let expected = prog.header(program::h::OUTPUT_BYTES);
        if o.len() != expected {
            return Err(RunError::Io {
                what: "output",
                expected,
                got: o.len(),
            });
        }
    }
    if *placement == IoPlacement::Plan && input.is_none() {
        return Err(RunError::Io {
            what: "input (I/O in the plan needs the input bytes)",
            expected: prog.header(program::h::INPUT_BYTES),
            got: 0,
        });
    }
    let model: &[u8] = model;
    let n_ops = prog.ops();
    let bad = |at: usize| RunError::Program { at };
    runner.planned(plan, |p| -> Result<(), RunError> {
        place_inputs(p, &prog, slots, input, io)?;
        let mut at = prog.header(program::h::OPS_AT);
        let shared_io = *placement == IoPlacement::Shared;
        // The next declared overlap (in operator order, checked at load).
        let mut next_pair = 0;
        for i in 0..n_ops {
            let (rec, next) = prog.op(at, ops::param_words).ok_or(bad(at))?;
            let n_in = rec.n_inputs();
            if n_in > MAX_OP_INPUTS {
                return Err(bad(at));
            }
            let rec_at = at;
            at = next;

            // A declared overlap whose slots share bytes: the operator runs overlapped, on
            // one span of the plan's region holding its input and output.
            // (The planner may declare a pair whose blocks do not share bytes: the operator
            // then runs as in a plain plan.)
            if let Some(pair) = overlaps.get(next_pair).filter(|q| usize::from(q.op) == i) {
                let q = next_pair;
                next_pair += 1;
                let shared: &[Option<Tensor<'a>>] = if shared_io { io } else { &[] };
                let ran = overlap::run_pair::<O>(
                    p,
                    &prog,
                    &rec,
                    q,
                    pair,
                    slots,
                    shared,
                    model,
                    observe.as_deref_mut(),
                )
                .map_err(|e| match e {
                    overlap::PairError::Kernel(error) => RunError::Kernel { op: i, error },
                    overlap::PairError::Alloc(e) => RunError::Alloc(e),
                    overlap::PairError::Program => bad(rec_at),
                })?;
                if ran {
                    continue;
                }
            }

            let io_now: &mut [Option<Tensor<'a>>] = if shared_io { io } else { &mut [] };
            if rec.n_extra() > 0 && ops::per_output_in::<O>(rec.kind) {
                run_each_output::<O>(
                    p,
                    &rec,
                    (i, rec_at),
                    (io_now, &mut *state),
                    model,
                    observe.as_deref_mut(),
                )?;
                continue;
            }
            run_op::<O>(
                p,
                &rec,
                (i, rec_at),
                (io_now, &mut *state),
                model,
                observe.as_deref_mut(),
            )?;
        }
        // Graph outputs: out of the SHARED region or their slots.
        if let Some(output) = output {
            take_outputs(p, &prog, slots, output, io)?;
        }
        Ok(())
    })?
}

/// Places every planned activation at its offset, unless the load or an earlier inference
/// left them there, then copies the graph inputs `input` (if given) into the SHARED region
/// (`io`) or their slots.
#[inline(always)]
fn place_inputs(
    p: &mut PlannedInference<'_, '_>,
    prog: &Program<'_>,
    slots: &[PlanSlot],
    input: Option<&[u8]>,
    io: &mut [Option<Tensor<'_>>],
) -> Result<(), RunError> {
    let bad = |at: usize| RunError::Program { at };
    // Only this interpreter places tensors of its plan (the handle is private), always every
    // slot in slot order with the same shape and type, so the last slot placed in this region
    // means every slot is (a region that moved since finds none placed; a placement that
    // failed part-way left the last one out). Every view still checks its own slot.
    let n_slots = prog.slots();
    if n_slots > 0 && !p.placed(n_slots - 1) {
        for s in 0..n_slots {
            let (shape, n, dtype) = prog.slot(s).ok_or(bad(program::HEADER_WORDS))?;
            p.alloc(s, &shape[..n], dtype)?;
        }
    }
    // Graph inputs: into the SHARED region or their slots.
    if let Some(input) = input {
        let mut off = 0;
        for k in 0..prog.inputs() {
            let (_, loc, n) = prog.io(k).ok_or(bad(program::HEADER_WORDS))?;
            let src = input.get(off..off + n).ok_or(bad(program::HEADER_WORDS))?;
            off += n;
            match loc {
                // Its planned bytes in the region (no view).
                Loc::Slot(s) => slot_in(p, slots, s, src)?,
                _ => {
                    if let Some(t) = io.get_mut(k).and_then(|t| t.as_mut()) {
                        copy_bytes(t.bytes_mut(), src);
                    }
                }
            }
        }
    }
    Ok(())
}

/// Copies the graph outputs out of the SHARED region (`io`) or their slots (`slots`: the
/// plan's) into `output`.
#[inline(always)]
fn take_outputs(
    p: &mut PlannedInference<'_, '_>,
    prog: &Program<'_>,
    slots: &[PlanSlot],
    output: &mut [u8],
    io: &[Option<Tensor<'_>>],
) -> Result<(), RunError> {
    let bad = |at: usize| RunError::Program { at };
    let mut off = 0;
    let n_inputs = prog.inputs();
    for k in n_inputs..n_inputs + prog.outputs() {
        let (_, loc, n) = prog.io(k).ok_or(bad(program::HEADER_WORDS))?;
        let dst = output
            .get_mut(off..off + n)
            .ok_or(bad(program::HEADER_WORDS))?;
        off += n;
        match loc {
            Loc::Slot(s) => slot_out(p, slots, s, dst)?,
            Loc::Shared(first) => {
                if let Some(t) = io.get(first).and_then(|t| t.as_ref()) {
                    copy_bytes(dst, t.bytes());
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Copies `src` into slot `s` of `slots` (the plan's): its planned bytes in the region. A
/// frame of its own, not inlined into the inference's (which stays under every kernel).
#[inline(never)]
fn slot_in(
    p: &mut PlannedInference<'_, '_>,
    slots: &[PlanSlot],
    s: usize,
    src: &[u8],
) -> Result<(), RunError> {
    copy_bytes(slot_bytes(p, slots, s, src.len())?, src);
    Ok(())
}

/// Copies slot `s` into `dst`; apart as [`slot_in`].
#[inline(never)]
fn slot_out(
    p: &mut PlannedInference<'_, '_>,
    slots: &[PlanSlot],
    s: usize,
    dst: &mut [u8],
) -> Result<(), RunError> {
    copy_bytes(dst, slot_bytes(p, slots, s, dst.len())?);
    Ok(())
}

/// The first `n` bytes of slot `s` of `slots` (the plan's) in the plan's region, at its
/// planned offset: a graph input's or output's (live at the first or last operator and placed
/// before the first, both checked — at load and by [`place_inputs`]), so no view is taken. A
/// slot of fewer than `n` bytes is a program error.
#[inline(always)]
fn slot_bytes<'t>(
    p: &'t mut PlannedInference<'_, '_>,
    slots: &[PlanSlot],
    s: usize,
    n: usize,
) -> Result<&'t mut [u8], RunError> {
    let bad = RunError::Program {
        at: program::HEADER_WORDS,
    };
    let slot = slots.get(s).filter(|t| n <= t.size as usize).ok_or(bad)?;
    let start = slot.offset as usize;
    p.region_bytes()?
        .get_mut(start..start.wrapping_add(n))
        .ok_or(bad)
}

/// `dst.copy_from_slice(src)` (equal lengths, or it panics as that does), a one-byte tensor
/// (hello_world_int8's input and output) without the call to `memcpy`.
#[inline(always)]
fn copy_bytes(dst: &mut [u8], src: &[u8]) {
    match (dst, src) {
        ([d], [s]) => *d = *s,
        (dst, src) => dst.copy_from_slice(src),
    }
}

/// Runs plain operator `i` (record `rec` at word `rec_at`, no declared overlap sharing bytes): its distinct
/// planned tensors from the core (output first, then the inputs), the SHARED I/O tensors `io`
/// (empty with I/O in the plan) split around its output, then its kernel; `observe(op,
/// tensor, bytes)` gets its output.
pub(super) fn run_op<O: OpSet>(
    p: &mut PlannedInference<'_, '_>,
    rec: &OpRecord<'_>,
    (i, rec_at): (usize, usize),
    (io, state): (&mut [Option<Tensor<'_>>], &mut [Option<Tensor<'_>>]),
    model: &[u8],
    observe: Observer<'_, '_>,
) -> Result<(), RunError> {
    // The distinct planned tensors: the outputs first, then the inputs (a short list for the
    // usual operator: zeroing the long one costs more than the rest of the list).
    if rec.n_inputs().min(MAX_OP_INPUTS) + rec.n_extra() >= 4 {
        return run_op_many::<O>(p, rec, (i, rec_at), (io, state), model, observe);
    }
    run_op_list::<4, O>(p, rec, (i, rec_at), (io, state), model, observe)
}

/// Runs operator `i` (record `rec` at word `rec_at`) of a kernel run once per output
/// ([`crate::ops::Kernel::PER_OUTPUT`]): [`run_op`] for each output in turn, on a record of
/// that output alone (`part` its position), so each run views the inputs and one output.
#[inline(never)]
fn run_each_output<O: OpSet>(
    p: &mut PlannedInference<'_, '_>,
    rec: &OpRecord<'_>,
    (i, rec_at): (usize, usize),
    (io, state): (&mut [Option<Tensor<'_>>], &mut [Option<Tensor<'_>>]),
    model: &[u8],
    mut observe: Observer<'_, '_>,
) -> Result<(), RunError> {
    for part in 0..=rec.n_extra() {
        let (output, out_loc) = match part {
            0 => (rec.output, rec.out_loc),
            k => rec
                .extra_output(k - 1)
                .ok_or(RunError::Program { at: rec_at })?,
        };
        let one = OpRecord {
            output,
            out_loc,
            extra: &[],
            part,
            ..*rec
        };
        run_op::<O>(
            p,
            &one,
            (i, rec_at),
            (&mut *io, &mut *state),
            model,
            observe.as_deref_mut(),
        )?;
    }
    Ok(())
}

/// [`run_op`] of an operator with four tensors or more (a concatenation, an LSTM): their
/// long list in a frame of its own, not on the stack under every other operator.
#[cold]
#[inline(never)]
fn run_op_many<O: OpSet>(
    p: &mut PlannedInference<'_, '_>,
    rec: &OpRecord<'_>,
    at: (usize, usize),
    tensors: (&mut [Option<Tensor<'_>>], &mut [Option<Tensor<'_>>]),
    model: &[u8],
    observe: Observer<'_, '_>,
) -> Result<(), RunError> {
    run_op_list::<MAX_OP_TENSORS, O>(p, rec, at, tensors, model, observe)
}

/// [`run_op`] with a list of at most `N` distinct planned tensors.
#[inline(always)]
fn run_op_list<const N: usize, O: OpSet>(
    p: &mut PlannedInference<'_, '_>,
    rec: &OpRecord<'_>,
    at: (usize, usize),
    tensors: (&mut [Option<Tensor<'_>>], &mut [Option<Tensor<'_>>]),
    model: &[u8],
    observe: Observer<'_, '_>,
) -> Result<(), RunError> {
    // The caller checked the input count (at most MAX_OP_INPUTS).
    let n_in = rec.n_inputs().min(MAX_OP_INPUTS);
    let mut slots = [0usize; N];
    let (n, out_planned) = distinct_slots(rec, n_in, &mut slots);
    run_op_slots::<O>(
        p,
        rec,
        at,
        tensors,
        model,
        observe,
        &slots[..n],
        out_planned,
    )
}

/// Fills `slots` (at least `n_in + 1 + rec.n_extra()` long, or inputs past its end are left
/// out) with the distinct planned tensors of record `rec`: its output first if it is planned,
/// then its second output if planned (a planned second output is always one: the compiler
/// refuses any other than a slot or state), then its inputs. Returns how many, and whether
/// the output is among them.
fn distinct_slots(rec: &OpRecord<'_>, n_in: usize, slots: &mut [usize]) -> (usize, bool) {
    let mut n_slots = 0;
    let out_planned = match rec.out_loc {
        Loc::Slot(s) => {
            slots[0] = s;
            n_slots = 1;
            true
        }
        _ => false,
    };
    if let Some((_, Loc::Slot(s))) = rec.extra_output(0) {
        if let Some(d) = slots.get_mut(n_slots) {
            *d = s;
            n_slots += 1;
        }
    }
    for loc in rec.input_locs().take(n_in) {
        if let Some(Loc::Slot(s)) = loc {
            if !slots[..n_slots].contains(&s) {
                // The compiler refused more than MAX_OP_ACTIVATIONS; past the list's end
                // the kernel finds its input absent and fails (never an index past it).
                let Some(d) = slots.get_mut(n_slots) else {
                    break;
                };
                *d = s;
                n_slots += 1;
            }
        }
    }
    (n_slots, out_planned)
}

/// [`run_op`] with the operator's distinct planned tensors `slots` (the output first if
/// `out_planned`).
#[allow(clippy::too_many_arguments)]
fn run_op_slots<O: OpSet>(
    p: &mut PlannedInference<'_, '_>,
    rec: &OpRecord<'_>,
    (i, rec_at): (usize, usize),
    (io, state): (&mut [Option<Tensor<'_>>], &mut [Option<Tensor<'_>>]),
    model: &[u8],
    mut observe: Observer<'_, '_>,
    slots: &[usize],
    out_planned: bool,
) -> Result<(), RunError> {
    let out_shared = match rec.out_loc {
        Loc::Shared(k) => Some(k),
        _ => None,
    };
    let (mut shared_out, shared) = split_io(io, out_shared);
    // Constant-false for an operator set without a stateful kernel.
    let stateful = O::KINDS.intersects(ops::STATE_KINDS);
    let mut states = Some(if stateful {
        state_views(rec, state)
    } else {
        Default::default()
    });
    // The second output's view, if planned (after the output's in `slots`).
    let extra_planned = matches!(rec.extra_output(0), Some((_, Loc::Slot(_))));
    let n_outs = usize::from(out_planned) + usize::from(extra_planned);
    let in_slots = &slots[n_outs.min(slots.len())..];
    // The kernel's scratch: one block of the pool for this call, given back when it returns.
    let scratch_bytes = ops::scratch_bytes::<O>(rec.kind, rec.params);
    p.with_scratch(scratch_bytes, |p, scratch| {
        let mut scratch = Some(scratch);
        with_views::<O>(p, i as u16, slots, &mut move |views| {
            let (out_view, rest) = if out_planned {
                let (o, rest) = views.split_at_mut(1);
                (o.first_mut(), rest)
            } else {
                (None, views)
            };
            let (out2, in_views) = if extra_planned {
                let (o, rest) = rest.split_at_mut(1);
                (o.first_mut(), rest)
            } else {
                (None, rest)
            };
            let ins = Inputs {
                rec,
                slots: in_slots,
                views: in_views,
                shared,
                model,
            };
            let (out2, scratch) = (out2.map(|t| t.bytes_mut()), scratch.take());
            let (scratch, states) = (scratch.unwrap_or_else(Scratch::empty), states.take());
            let states = states.unwrap_or_default();
            // The output: its view, or its SHARED tensor (tensors of two lifetimes: the
            // operands made in each arm, the kernel called from one place).
            let obs = observe.as_deref_mut();
            macro_rules! call_on {
                ($out:expr) => {
                    call::<O>(
                        rec,
                        i,
                        obs,
                        &mut Operands {
                            name: "",
                            ins,
                            out: $out,
                            out2,
                            scratch,
                            states,
                        },
                    )
                };
            }
            match (out_view, shared_out.as_deref_mut()) {
                (Some(out), _) => call_on!(out),
                (None, Some(out)) => call_on!(out),
                (None, None) => Err(RunError::Program { at: rec_at }),
            }
        })
    })??
}

/// Runs operator `i`'s kernel (record `rec`) on its operands `io`; `observe(op, tensor,
/// bytes)` gets its output and second output. Inlined into the views' closure: a frame of its
/// own (72 B on the M4) sat under every plain operator's kernel.
#[inline(always)]
fn call<O: OpSet>(
    rec: &OpRecord<'_>,
    i: usize,
    observe: Observer<'_, '_>,
    io: &mut Operands<'_, '_, '_>,
) -> Result<(), RunError> {
    let r = ops::run::<O>(rec.kind, rec.params, io);
    // Constant-false in an image without a kernel that may stop the inference: that image's
    // code is the plain one.
    if !O::KINDS.intersects(ops::ABORT_KINDS) {
        r.map_err(|error| RunError::Kernel { op: i, error })?;
        if let Some(observe) = observe {
            observe_outputs(rec, i, observe, io);
        }
        return Ok(());
    }
    // (An abort: the kernel ran, its outputs written.)
    if let (Some(observe), Ok(())) | (Some(observe), Err(KernelError::Abort { .. })) = (observe, &r)
    {
        observe_outputs(rec, i, observe, io);
    }
    r.map_err(|error| match error {
        KernelError::Abort { .. } => RunError::Aborted { op: i },
        error => RunError::Kernel { op: i, error },
    })
}

/// [`call`]'s observer: `observe(op, tensor, bytes)` gets operator `i`'s output and second
/// output. Cold and apart: none of its registers in the frame under the kernel.
#[cold]
#[inline(never)]
fn observe_outputs(
    rec: &OpRecord<'_>,
    i: usize,
    observe: &mut (dyn FnMut(usize, usize, &[u8]) + '_),
    io: &Operands<'_, '_, '_>,
) {
    observe(i, rec.output, io.out.bytes());
    // The second output: its view, or the kernel's own state (the first of `states`, see
    // `state_views`).
    match (rec.extra_output(0), &io.out2, &io.states[0]) {
        (Some((t, Loc::Slot(_))), Some(o), _) => observe(i, t, o),
        (Some((t, Loc::State(_))), _, Some(b)) => observe(i, t, b),
        _ => {}
    }
}

/// The bytes of the state `rec` reads and updates: its second output's if that is its
/// kernel's own state, then the variable tensors among its inputs, in input order (the first
/// [`MAX_OP_STATES`]; one named twice is given once).
#[inline(never)]
fn state_views<'x>(
    rec: &OpRecord<'_>,
    state: &'x mut [Option<Tensor<'_>>],
) -> [Option<&'x mut [u8]>; MAX_OP_STATES] {
    let mut out: [Option<&'x mut [u8]>; MAX_OP_STATES] = Default::default();
    if state.is_empty() {
        return out;
    }
    let mut want = [usize::MAX; MAX_OP_STATES];
    let mut n = 0;
    let own = rec.extra.get(1..program::OUT_WORDS).unwrap_or(&[]);
    for w in [own]
        .into_iter()
        .chain(rec.inputs.chunks_exact(program::LOC_WORDS))
    {
        if let (Some(j), true) = (Loc::state_of(w), n < MAX_OP_STATES) {
            if !want[..n].contains(&j) {
                want[n] = j;
                n += 1;
            }
        }
    }
    let bytes = |t: &'x mut Option<Tensor<'_>>| t.as_mut().map(|t| t.bytes_mut());
    match n {
        0 => {}
        1 => out[0] = state.get_mut(want[0]).and_then(bytes),
        _ => {
            // Two distinct states: split the table between them.
            let (lo, hi) = (want[0].min(want[1]), want[0].max(want[1]));
            if hi < state.len() {
                let (l, r) = state.split_at_mut(hi);
                let (x, y) = (l.get_mut(lo).and_then(bytes), r.first_mut().and_then(bytes));
                out = if want[0] < want[1] { [x, y] } else { [y, x] };
            }
        }
    }
    out
}

/// What [`with_views`] runs on the views.
pub(super) type ViewsFn<'f> = dyn FnMut(&mut [Tensor<'_>]) -> Result<(), RunError> + 'f;

/// The tensors of `slots` at operator `op`, as a slice (the core hands out a fixed-size array
/// per call; this picks the size at run time). `f` is one function for every size (a `dyn`:
/// its code once in the image, not once per size; never inlined, so its callers stay small).
///
/// Only the sizes the kernels of `O` can take are linked ([`ops::views`]: an arm past them is
/// constant-false); a longer list (a record no prepared kernel makes) is a program error.
#[inline(never)]
pub(super) fn with_views<O: OpSet>(
    p: &mut PlannedInference<'_, '_>,
    op: u16,
    slots: &[usize],
    f: &mut ViewsFn<'_>,
) -> Result<Result<(), RunError>, AllocError> {
    let most = const { ops::views(O::KINDS) };
    // The short lists (the usual operator's: at most four views) inlined, their arrays in
    // this frame and no frame of their own between it and the kernel's; a longer list in a
    // frame of its own, its array's size, only when taken (on Armv6-M, the least flash, one
    // function for every size).
    #[inline(always)]
    fn go<const N: usize>(
        p: &mut PlannedInference<'_, '_>,
        op: u16,
        slots: &[usize],
        f: &mut ViewsFn<'_>,
    ) -> Result<Result<(), RunError>, AllocError> {
        let mut v = p.at::<N>(op, core::array::from_fn(|i| slots[i]))?;
        Ok(f(&mut v))
    }
    #[cfg_attr(not(synaptic_v6m), inline(never))]
    fn apart<const N: usize>(
        p: &mut PlannedInference<'_, '_>,
        op: u16,
        slots: &[usize],
        f: &mut ViewsFn<'_>,
    ) -> Result<Result<(), RunError>, AllocError> {
        go::<N>(p, op, slots, f)
    }
    match slots.len() {
        0 => Ok(f(&mut [])),
        1 if 1 <= most => go::<1>(p, op, slots, f),
        2 if 2 <= most => go::<2>(p, op, slots, f),
        3 if 3 <= most => go::<3>(p, op, slots, f),
        4 if 4 <= most => go::<4>(p, op, slots, f),
        5 if 5 <= most => apart::<5>(p, op, slots, f),
        6 if 6 <= most => apart::<6>(p, op, slots, f),
        7 if 7 <= most => apart::<7>(p, op, slots, f),
        8 if 8 <= most => apart::<8>(p, op, slots, f),
        9 if 9 <= most => apart::<9>(p, op, slots, f),
        10 if 10 <= most => apart::<10>(p, op, slots, f),
        11 if 11 <= most => apart::<11>(p, op, slots, f),
        12 if 12 <= most => apart::<12>(p, op, slots, f),
        13 if 13 <= most => apart::<13>(p, op, slots, f),
        14 if 14 <= most => apart::<14>(p, op, slots, f),
        15 if 15 <= most => apart::<15>(p, op, slots, f),
        16 if 16 <= most => apart::<16>(p, op, slots, f),
        17 if 17 <= most => apart::<17>(p, op, slots, f),
        18 if 18 <= most => apart::<18>(p, op, slots, f),
        // Never: no list is longer than its kernel's views (`run_op`'s arrays, the
        // kernels' bounds checked at load).
        _ => Ok(Err(RunError::Program { at: 0 })),
    }
}
