//! Planning below the live-set bound (issue 12): an operator's output may share bytes with an
//! input that dies at that operator, as far as the kernel's access contract allows
//! ([`synaptic_run::contract`]: the safe deltas `output offset − input offset`, forward or
//! backward, derived from the order in which the kernel writes and the input range each output
//! element reads; a kernel without a contract gets no overlap).
//!
//! * [`candidates`] lists the (operator, input item, output item) pairs that may overlap: the
//!   operator's only output, an input read once by it that dies there and is not a graph output,
//!   both in the plan. Aliases are the special case of a same-size element-wise contract
//!   (a byte copy or an element-wise kernel writing into a dying input): delta 0 is safe.
//! * [`overlap_lower_bound`] is the live-set bound with each operator's output counted at its
//!   best safe overlap with its dying inputs.
//! * [`plan_overlapped`] places items by first fit over orders (greedy by size, by time, then
//!   hill-climbing on a work budget), where a candidate pair forbids only its unsafe deltas, and
//!   returns the better of that and the plain plan ([`crate::plan_items`]). The plan declares
//!   every pair that actually shares bytes ([`synaptic_mem::plan::OverlapPair`]) and is valid by
//!   the core's one rule, [`synaptic_mem::Plan::validate_overlapped`] ([`MemoryPlan::check`]).
//!
//! Each operator runs in one direction: the planner picks, per operator, the direction whose
//! best overlap saves the most bytes over its pairs.

use crate::lifetime::live_per_op;
use crate::model::Model;
use crate::planner::{
    plan_items, MemoryPlan, PlanItem, PlanOptions, SearchStats, SEARCH_MAX_ITEMS,
};
use std::time::Instant;
use synaptic_mem::plan::{OverlapDirection, OverlapPair};
use synaptic_run::contract::SafeOverlap;

/// A pair of items that may overlap: `output` is born at `op`, `input` dies there, and the
/// kernel's contract gives the safe deltas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The operator.
    pub op: usize,
    /// Item index of the input.
    pub input: usize,
    /// Item index of the output.
    pub output: usize,
    /// The kernel's safe overlap.
    pub safe: SafeOverlap,
    /// The direction the planner runs `op` in.
    pub direction: OverlapDirection,
}

/// Rounds `v` down (or up) to a multiple of 16.
fn floor16(v: i64) -> i64 {
    v.div_euclid(16) * 16
}
fn ceil16(v: i64) -> i64 {
    -floor16(-v)
}

/// The contract's bound in `dir` as the plan format holds it (`i32`), or `None` if that
/// direction does not exist or its bound does not fit (then it gives no overlap). A bound
/// beyond the tensors (forward at or above the input's bytes, backward at or below minus the
/// output's: every overlapping delta is safe) is clamped there, which admits the same
/// overlapping deltas.
fn dir_bound(safe: &SafeOverlap, dir: OverlapDirection) -> Option<i32> {
    let b = match dir {
        OverlapDirection::Forward => safe.forward_max.min(safe.in_bytes),
        OverlapDirection::Backward => safe.backward_min?.max(-safe.out_bytes),
    };
    i32::try_from(b).ok()
}

/// The unsafe deltas of a pair placed in `dir`: the open interval `(lo, hi)`; every other delta
/// is safe (at or beyond the contract's bound, or the blocks disjoint). `si`, `so` are the
/// blocks' spans.
fn unsafe_deltas(safe: &SafeOverlap, dir: OverlapDirection, si: u64, so: u64) -> (i64, i64) {
    let (si, so) = (si as i64, so as i64);
    match (dir, dir_bound(safe, dir)) {
        (_, None) => (-so, si),
        (OverlapDirection::Forward, Some(b)) => (i64::from(b).max(-so), si),
        (OverlapDirection::Backward, Some(b)) => (-so, i64::from(b).min(si)),
    }
}

/// The smallest span of the union of the two blocks over the safe 16-aligned deltas in `dir`
/// (the disjoint placement, `si + so`, if nothing better is safe).
pub fn best_pair_span(safe: &SafeOverlap, dir: OverlapDirection, si: u64, so: u64) -> u64 {
    let (lo, hi) = unsafe_deltas(safe, dir, si, so);
    let (si_, so_) = (si as i64, so as i64);
    let union = |d: i64| -> i64 { (si_.max(d + so_)) - d.min(0) };
    let mut best = si_ + so_;
    // The union is smallest at delta 0 and grows away from it: try the safe aligned deltas
    // nearest 0 on each side of the unsafe interval.
    let below = floor16(lo);
    let above = ceil16(hi);
    for d in [below.min(0), above.max(0)] {
        if (d <= lo || d >= hi) && d > -so_ && d < si_ {
            best = best.min(union(d));
        }
    }
    if lo >= 0 || hi <= 0 {
        best = best.min(union(0));
    }
    best as u64
}

/// The overlap candidates of `model` for `items`, where item `i` holds tensor `tensors[i]`,
/// each with the direction whose best overlap saves the most over its operator's pairs (the
/// planner's starting point; its search may flip an operator's direction).
pub fn candidates(model: &Model, tensors: &[usize], items: &[PlanItem]) -> Vec<Candidate> {
    let mut item_of = vec![usize::MAX; model.tensors.len()];
    for (i, &t) in tensors.iter().enumerate() {
        item_of[t] = i;
    }
    let mut out = Vec::new();
    for op in &model.operators {
        let [t_out] = op.outputs[..] else { continue };
        let io = item_of[t_out];
        if io == usize::MAX || items[io].first_op != op.index {
            continue;
        }
        let mut pairs = Vec::new();
        for &(t_in, safe) in &op.overlaps {
            let ii = item_of[t_in];
            let once = op.inputs.iter().filter(|&&t| t == t_in).count() == 1;
            if ii == usize::MAX
                || ii == io
                || !once
                || model.tensors[t_in].is_output
                || items[ii].last_op != op.index
            {
                continue;
            }
            pairs.push((ii, safe));
        }
        if pairs.is_empty() {
            continue;
        }
        // One direction per operator: the one saving the most over its pairs.
        let saving = |dir| -> u64 {
            pairs
                .iter()
                .map(|(ii, safe)| {
                    let (si, so) = (items[*ii].span(), items[io].span());
                    si + so - best_pair_span(safe, dir, si, so)
                })
                .sum()
        };
        let direction = if saving(OverlapDirection::Backward) > saving(OverlapDirection::Forward) {
            OverlapDirection::Backward
        } else {
            OverlapDirection::Forward
        };
        for (ii, safe) in pairs {
            out.push(Candidate {
                op: op.index,
                input: ii,
                output: io,
                safe,
                direction,
            });
        }
    }
    out
}

/// The live-set bound with overlaps: at each operator, the spans of the items live there, less
/// what the operator's output can share with its dying inputs — per pair at most
/// `input + output − best pair span` (either direction), in all at most the output's span (the
/// inputs are disjoint from each other). No plan using only these overlaps is smaller: the
/// union of the blocks live at an operator is at least their sum less their pairwise
/// intersections, and only candidate pairs may intersect.
pub fn overlap_lower_bound(items: &[PlanItem], cands: &[Candidate]) -> u64 {
    let mut live = live_per_op(items.iter().map(|i| (i.first_op, i.last_op, i.span())));
    // Savings per (op, output).
    let mut savings: Vec<(usize, usize, u64)> = cands
        .iter()
        .map(|c| {
            let (si, so) = (items[c.input].span(), items[c.output].span());
            let best = best_pair_span(&c.safe, OverlapDirection::Forward, si, so)
                .min(best_pair_span(&c.safe, OverlapDirection::Backward, si, so));
            (c.op, c.output, si + so - best)
        })
        .collect();
    savings.sort_unstable();
    let mut k = 0;
    while k < savings.len() {
        let (op, out) = (savings[k].0, savings[k].1);
        let mut total = 0u64;
        while k < savings.len() && (savings[k].0, savings[k].1) == (op, out) {
            total += savings[k].2;
            k += 1;
        }
        if let Some(l) = live.get_mut(op) {
            *l = l.saturating_sub(total.min(items[out].span()));
        }
    }
    live.into_iter().max().unwrap_or(0)
}

/// How two conflicting items relate when placing one of them.
#[derive(Clone, Copy)]
enum Rel {
    /// Disjoint blocks required.
    Plain,
    /// The item placed is the output of candidate `.0`.
    Output(usize),
    /// The item placed is the input of candidate `.0`.
    Input(usize),
}

struct Ctx<'a> {
    items: &'a [PlanItem],
    cands: &'a [Candidate],
    conflicts: Vec<Vec<(usize, Rel)>>,
}

impl<'a> Ctx<'a> {
    fn new(items: &'a [PlanItem], cands: &'a [Candidate]) -> Ctx<'a> {
        let n = items.len();
        let mut conflicts = vec![Vec::new(); n];
        let mut by_first: Vec<usize> = (0..n).collect();
        by_first.sort_by_key(|&i| items[i].first_op);
        for (a, &i) in by_first.iter().enumerate() {
            for &j in &by_first[a + 1..] {
                if items[j].first_op > items[i].last_op {
                    break;
                }
                conflicts[i].push((j, Rel::Plain));
                conflicts[j].push((i, Rel::Plain));
            }
        }
        for (k, c) in cands.iter().enumerate() {
            for (x, y, rel) in [
                (c.output, c.input, Rel::Output(k)),
                (c.input, c.output, Rel::Input(k)),
            ] {
                if let Some(e) = conflicts[x].iter_mut().find(|e| e.0 == y) {
                    e.1 = rel;
                }
            }
        }
        Ctx {
            items,
            cands,
            conflicts,
        }
    }

    /// First fit in `order`: each item at the lowest 16-aligned offset that none of the items
    /// already placed forbids. Returns the offsets and the region size; `work` counts the
    /// conflicts visited and their sorting.
    fn decode(
        &self,
        order: &[usize],
        dirs: &[OverlapDirection],
        work: &mut u64,
    ) -> (Vec<u64>, u64) {
        let n = self.items.len();
        let mut placed: Vec<Option<i64>> = vec![None; n];
        let mut busy: Vec<(i64, i64)> = Vec::new();
        let mut peak = 0i64;
        for &x in order {
            let sx = self.items[x].span() as i64;
            busy.clear();
            for &(y, rel) in &self.conflicts[x] {
                let Some(oy) = placed[y] else { continue };
                let sy = self.items[y].span() as i64;
                busy.push(match rel {
                    Rel::Plain => (oy - sx + 1, oy + sy),
                    Rel::Output(k) => {
                        let c = &self.cands[k];
                        let (lo, hi) = unsafe_deltas(&c.safe, dirs[k], sy as u64, sx as u64);
                        (oy + lo + 1, oy + hi)
                    }
                    Rel::Input(k) => {
                        let c = &self.cands[k];
                        let (lo, hi) = unsafe_deltas(&c.safe, dirs[k], sx as u64, sy as u64);
                        (oy - hi + 1, oy - lo)
                    }
                });
            }
            // Work: the conflicts visited and the sorting of them (k + k·⌈log₂ k⌉).
            let k = busy.len() as u64;
            *work += 1 + k + k * u64::from(64 - k.leading_zeros());
            busy.sort_unstable();
            let mut at = 0i64;
            for &(a, b) in &busy {
                if a > at {
                    break;
                }
                if b > at {
                    at = ceil16(b);
                }
            }
            placed[x] = Some(at);
            peak = peak.max(at + sx);
        }
        (
            placed.into_iter().map(|o| o.unwrap_or(0) as u64).collect(),
            peak as u64,
        )
    }
}

/// Work the overlapped search may do (conflicts visited plus their sorting, as the plain
/// planner counts it): once spent, no further order is tried (the first is always decoded).
/// About 0.2 s here on the worst synthetic shape (`plan_bench`'s `+overlap` lines); the shared
/// models need under a tenth of it.
const OVERLAP_WORK_BUDGET: u64 = 30_000_000;

/// A small deterministic generator (xorshift64*) for the hill-climbing's moves.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n.max(1)
    }
}

/// Plans `items` with the overlaps `cands` may give (see the module documentation): the better
/// of the plain plan and the overlapped search, whose `lower_bound` is
/// [`overlap_lower_bound`] and whose declared overlaps are the candidates that share bytes.
pub fn plan_overlapped(items: &[PlanItem], cands: &[Candidate], opts: &PlanOptions) -> MemoryPlan {
    let start = Instant::now();
    let plain = plan_items(items, opts);
    let bound = overlap_lower_bound(items, cands);
    if cands.is_empty() || items.len() > SEARCH_MAX_ITEMS {
        return plain.with_overlaps(plain.offsets.clone(), Vec::new(), bound, plain.stats);
    }
    let ctx = Ctx::new(items, cands);
    let mut work = 0u64;
    let n = items.len();
    let by_size = |a: &usize, b: &usize| {
        let (x, y) = (&items[*a], &items[*b]);
        y.span()
            .cmp(&x.span())
            .then(x.first_op.cmp(&y.first_op))
            .then(a.cmp(b))
    };
    let mut orders: Vec<Vec<usize>> = Vec::new();
    let mut o: Vec<usize> = (0..n).collect();
    o.sort_by(by_size);
    orders.push(o.clone());
    o.sort_by_key(|&i| (items[i].first_op, items[i].last_op, i));
    orders.push(o.clone());
    o.reverse();
    orders.push(o.clone());
    o.sort_by_key(|&i| (std::cmp::Reverse(items[i].last_op - items[i].first_op), i));
    orders.push(o);
    // The operators with candidates, and the candidates of each (one direction per operator).
    let mut ops: Vec<usize> = cands.iter().map(|c| c.op).collect();
    ops.sort_unstable();
    ops.dedup();
    // One direction per operator (the core's rule): that of its first candidate.
    let initial: Vec<OverlapDirection> = cands
        .iter()
        .map(|c| {
            cands
                .iter()
                .find(|d| d.op == c.op)
                .map_or(c.direction, |d| d.direction)
        })
        .collect();
    let all = |d: OverlapDirection| vec![d; cands.len()];
    let mut stats = SearchStats::default();
    let (mut best_order, mut best_dirs, mut best) = (Vec::new(), initial.clone(), u64::MAX);
    for order in &orders {
        for dirs in [
            initial.clone(),
            all(OverlapDirection::Forward),
            all(OverlapDirection::Backward),
        ] {
            if work > OVERLAP_WORK_BUDGET && !best_order.is_empty() {
                break;
            }
            let (_, peak) = ctx.decode(order, &dirs, &mut work);
            stats.orders_evaluated += 1;
            if peak < best {
                best = peak;
                best_order = order.clone();
                best_dirs = dirs;
            }
        }
    }
    stats.greedy_bytes = best;
    // Hill-climbing: move one item elsewhere in the order, or flip one operator's direction;
    // keep the move unless it is worse.
    let mut rng = Rng(opts.seed | 1);
    let (mut order, mut dirs) = (best_order.clone(), best_dirs.clone());
    let mut current = best;
    let tries = opts.search_iterations.saturating_mul(opts.restarts.max(1));
    let flip = |dirs: &mut [OverlapDirection], op: usize| {
        for (d, c) in dirs.iter_mut().zip(cands) {
            if c.op == op {
                *d = match *d {
                    OverlapDirection::Forward => OverlapDirection::Backward,
                    OverlapDirection::Backward => OverlapDirection::Forward,
                };
            }
        }
    };
    for _ in 0..tries {
        if work > OVERLAP_WORK_BUDGET || best <= bound || n < 2 {
            break;
        }
        let flip_op = (rng.below(2) == 0).then(|| ops[rng.below(ops.len())]);
        let (a, b) = (rng.below(n), rng.below(n));
        match flip_op {
            Some(op) => flip(&mut dirs, op),
            None => {
                let item = order.remove(a);
                order.insert(b, item);
            }
        }
        let (_, peak) = ctx.decode(&order, &dirs, &mut work);
        stats.orders_evaluated += 1;
        if peak <= current {
            current = peak;
            if peak < best {
                best = peak;
                best_order = order.clone();
                best_dirs = dirs.clone();
            }
        } else {
            match flip_op {
                Some(op) => flip(&mut dirs, op),
                None => {
                    let item = order.remove(b);
                    order.insert(a, item);
                }
            }
        }
    }
    stats.heuristic_bytes = best;
    if best >= plain.region_size {
        let mut stats = plain.stats;
        stats.micros = start.elapsed().as_micros() as u64;
        return plain.with_overlaps(plain.offsets.clone(), Vec::new(), bound, stats);
    }
    let (offsets, _) = ctx.decode(&best_order, &best_dirs, &mut work);
    let overlaps = cands
        .iter()
        .zip(&best_dirs)
        .filter(|(c, _)| {
            let (oi, oo) = (offsets[c.input], offsets[c.output]);
            oi < oo + items[c.output].span() && oo < oi + items[c.input].span()
        })
        .filter_map(|(c, &direction)| {
            Some(OverlapPair {
                op: u16::try_from(c.op).ok()?,
                input: u16::try_from(c.input).ok()?,
                output: u16::try_from(c.output).ok()?,
                direction,
                // Blocks that share bytes were placed at a safe delta, so the bound exists.
                bound: dir_bound(&c.safe, direction)?,
            })
        })
        .collect();
    stats.micros = start.elapsed().as_micros() as u64;
    plain.with_overlaps(offsets, overlaps, bound, stats)
}
