//! An operator of a declared overlap: its input and output in one span of the plan's region —
//! the core's checked span ([`PlannedInference::overlapped`]) with its other planned input a
//! view beside it, or, with none, the span at the pair's planned offsets in the region
//! ([`PlannedInference::region_bytes`]; the plan validated at load) — run by its kernel's
//! in-place entry point ([`crate::ops::run_in_place`], checked at load against its own
//! contract).

use synaptic_mem::plan::{OverlapPair, OverlapSpan, PlanSlot};
use synaptic_mem::{data_span, AllocError, PlannedInference, Scratch, Tensor};

use super::load::pair_inputs;
use super::run::Observer;
use crate::error::KernelError;
use crate::format::{OpRecord, Program};
use crate::ops::operands::{Inputs, SharedIns};
use crate::ops::{self, InPlace, InPlaceOperands, OpSet};

/// How a declared overlap's operator failed at run time.
pub(super) enum PairError {
    Kernel(KernelError),
    Alloc(AllocError),
    /// The record does not match the pair (cannot happen for a plan that loaded).
    Program,
}

impl From<AllocError> for PairError {
    fn from(e: AllocError) -> Self {
        PairError::Alloc(e)
    }
}

impl From<KernelError> for PairError {
    fn from(e: KernelError) -> Self {
        PairError::Kernel(e)
    }
}

/// Runs the operator of declared overlap `q` (`pair`) through its in-place kernel on the
/// core's span, with the graph I/O in the SHARED region `io` (empty with I/O in the plan);
/// `observe(op, tensor, bytes)` gets its output. `Ok(false)`: the pair's blocks share no byte,
/// nothing ran (the operator runs as in a plain plan).
#[allow(clippy::too_many_arguments)]
pub(super) fn run_pair<O: OpSet>(
    p: &mut PlannedInference<'_, '_>,
    prog: &Program<'_>,
    rec: &OpRecord<'_>,
    q: usize,
    pair: &OverlapPair,
    slots: &[PlanSlot],
    io: &[Option<Tensor<'_>>],
    model: &[u8],
    observe: Observer<'_, '_>,
) -> Result<bool, PairError> {
    // The pair's output is a plan slot: every SHARED entry is an input.
    let shared = SharedIns::all(io);
    let ran = |span: OverlapSpan<'_>,
               k: usize,
               slots: &[usize],
               views: &[Tensor<'_>],
               scratch: Scratch<'_>| {
        let ins = Inputs {
            rec,
            slots,
            views,
            shared,
            model,
        };
        let mut io = InPlaceOperands {
            name: "",
            ins,
            buf: span.bytes,
            at: InPlace::checked_at_load(span.input, span.output, span.direction.into()),
            k,
            prog: *prog,
            out_slot: usize::from(pair.output),
            scratch,
        };
        let n = ops::run_in_place::<O>(rec.kind, rec.params, &mut io)?;
        if let Some(observe) = observe {
            let output = span.output;
            let bytes = io.buf.get(output..output + n).ok_or(PairError::Program)?;
            observe(usize::from(pair.op), rec.output, bytes);
        }
        Ok(true)
    };
    // Checked at load: a kernel with a fixed pair input views no other input; otherwise the
    // pair's input is read once and at most one other input is planned.
    let (k, other) = match ops::pair_input(rec.kind) {
        Some(k) => (k, None),
        None => {
            let found = pair_inputs(rec, pair).map_err(|_| PairError::Program)?;
            (found.k, found.other)
        }
    };
    // The kernel's scratch: one block of the pool for this call, given back when it returns.
    let scratch_bytes = ops::scratch_bytes::<O>(rec.kind, rec.params);
    let body = |p: &mut PlannedInference<'_, '_>, scratch: Scratch<'_>| match other {
        // No other planned input: the span straight from the plan's region at the pair's
        // planned offsets (the plan validated at load: both slots live at the pair's
        // operator, inside the region, no other slot live there sharing their bytes), not a
        // checked view per operator (hello_world_int8: 97 instructions an inference fewer on
        // the M4, 36 on the M3, its three operators).
        None => match span_in(p, slots, pair)? {
            Some(span) => ran(span, k, &[], &[], scratch),
            None => Ok(false),
        },
        Some((_, s)) => match p.overlapped(q, [s])? {
            Some((span, [v])) => ran(span, k, &[s], core::slice::from_ref(&v), scratch),
            None => Ok(false),
        },
    };
    if scratch_bytes == 0 {
        // No block to take (the usual in-place kernel): no scope (in the C kit's library,
        // whose every kernel is linked, the scope's closure was a call of its own).
        return body(p, Scratch::empty());
    }
    p.with_scratch(scratch_bytes, body)?
}

/// The one span of the plan's region holding both slots of `pair` (`slots`: the plan's), as
/// [`PlannedInference::overlapped`] makes it; `None` if the two blocks share no byte.
#[inline(always)]
fn span_in<'t>(
    p: &'t mut PlannedInference<'_, '_>,
    slots: &[PlanSlot],
    pair: &OverlapPair,
) -> Result<Option<OverlapSpan<'t>>, PairError> {
    let (Some(si), Some(so)) = (
        slots.get(usize::from(pair.input)),
        slots.get(usize::from(pair.output)),
    ) else {
        return Err(PairError::Program);
    };
    // The blocks' ends by the core's rule (`PlanSlot::end`), in `usize`: a loaded plan's
    // slots end inside its region (checked at load), so nothing wraps (a wrapped end of
    // another plan would fail the region's bounds below, never index past them).
    let block = |s: &PlanSlot| {
        let start = s.offset as usize;
        (
            start,
            start.wrapping_add(data_span(u64::from(s.size)) as usize),
        )
    };
    let ((i0, i1), (o0, o1)) = (block(si), block(so));
    if !(i0 < o1 && o0 < i1) {
        return Ok(None);
    }
    let start = i0.min(o0);
    let bytes = p
        .region_bytes()?
        .get_mut(start..i1.max(o1))
        .ok_or(PairError::Program)?;
    Ok(Some(OverlapSpan {
        bytes,
        input: i0 - start,
        output: o0 - start,
        input_bytes: si.size as usize,
        output_bytes: so.size as usize,
        direction: pair.direction,
        op: pair.op,
    }))
}
