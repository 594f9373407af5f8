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
    // Checked at load: a kernel with a fixed pair input views no other input; otherwise the
    // pair's input is read once and at most one other input is planned.
    let (k, other) = match ops::pair_input::<O>(rec.kind) {
        Some(k) => (k, None),
        None => {
            let found = pair_inputs(rec, pair).map_err(|_| PairError::Program)?;
            (found.k, found.other)
        }
    };
    let run = PairRun {
        rec,
        prog,
        pair,
        slots,
        // The pair's output is a plan slot: every SHARED entry is an input.
        shared: SharedIns::all(io),
        model,
        observe,
        q,
        k,
        other: other.map(|(_, s)| s),
    };
    // The kernel's scratch: one block of the pool for this call, given back when it returns.
    let scratch_bytes = ops::scratch_bytes::<O>(rec.kind, rec.params);
    if scratch_bytes == 0 {
        // No block to take (the usual in-place kernel): no scope, and the body inlined here
        // (methods, not closures: the C kit's library, whose every kernel is linked, had made
        // the shared closure a call of its own, ~90 instructions an operator).
        return run.body::<O>(p, Scratch::empty());
    }
    p.with_scratch(scratch_bytes, move |p, scratch| run.body::<O>(p, scratch))?
}

/// What [`run_pair`] runs its operator with: the record, the pair, the inputs' sources and
/// the pair's input operand `k` and other planned input `other` (a plan slot).
struct PairRun<'r, 'o, 'f> {
    rec: &'r OpRecord<'r>,
    prog: &'r Program<'r>,
    pair: &'r OverlapPair,
    slots: &'r [PlanSlot],
    shared: SharedIns<'r, 'r>,
    model: &'r [u8],
    observe: Observer<'o, 'f>,
    /// The pair's index among the plan's declared overlaps.
    q: usize,
    k: usize,
    other: Option<usize>,
}

impl PairRun<'_, '_, '_> {
    /// The operator on its span: straight from the plan's region at the pair's planned
    /// offsets when it has no other planned input (the plan validated at load: both slots
    /// live at the pair's operator, inside the region, no other slot live there sharing their
    /// bytes), not a checked view per operator (hello_world_int8: 97 instructions an
    /// inference fewer on the M4, 36 on the M3, its three operators); else the core's checked
    /// span with the other input's view beside it.
    #[inline(always)]
    fn body<O: OpSet>(
        self,
        p: &mut PlannedInference<'_, '_>,
        scratch: Scratch<'_>,
    ) -> Result<bool, PairError> {
        match self.other {
            None => match span_in(p, self.slots, self.pair)? {
                Some(span) => self.ran::<O>(span, &[], &[], scratch),
                None => Ok(false),
            },
            Some(s) => match p.overlapped(self.q, [s])? {
                Some((span, [v])) => self.ran::<O>(span, &[s], core::slice::from_ref(&v), scratch),
                None => Ok(false),
            },
        }
    }

    /// The kernel's in-place entry on `span`, its other input `views` (of plan `slots`).
    #[inline(always)]
    fn ran<O: OpSet>(
        self,
        span: OverlapSpan<'_>,
        slots: &[usize],
        views: &[Tensor<'_>],
        scratch: Scratch<'_>,
    ) -> Result<bool, PairError> {
        let rec = self.rec;
        let ins = Inputs {
            rec,
            slots,
            views,
            shared: self.shared,
            model: self.model,
        };
        let mut io = InPlaceOperands {
            name: "",
            ins,
            buf: span.bytes,
            at: InPlace::checked_at_load(span.input, span.output, span.direction.into()),
            k: self.k,
            prog: *self.prog,
            out_slot: usize::from(self.pair.output),
            scratch,
        };
        let n = ops::run_in_place::<O>(rec.kind, rec.params, &mut io)?;
        if let Some(observe) = self.observe {
            let output = span.output;
            let bytes = io.buf.get(output..output + n).ok_or(PairError::Program)?;
            observe(usize::from(self.pair.op), rec.output, bytes);
        }
        Ok(true)
    }
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
