//! Tensor lifetimes over the operator schedule.

use crate::model::Model;
use serde::Serialize;
use synaptic_mem::data_span;

/// When an activation is live, in two equivalent numberings.
///
/// *Scopes* (as in the models README's lifetime tables) count operators from 1 in execution
/// order; scope 0 is "before the first operator", where graph inputs are born. A tensor is live
/// from the operator that produces it (scope 0 for a graph input) through the last operator
/// that reads it (the last scope, `operators.len()`, for a graph output), inclusive.
///
/// *Ops* (as in [`synaptic_mem::PlanSlot`]) are 0-based operator indices: `first_op =
/// max(first_scope, 1) - 1`, `last_op = max(last_scope, 1) - 1`, so scope 0 merges into op 0
/// (a graph input is live at the first operator).
///
/// ```
/// use synaptic_plan::Lifetime;
/// let l = Lifetime { tensor: 0, first_scope: 0, last_scope: 3 };
/// assert_eq!((l.first_op(), l.last_op()), (0, 2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Lifetime {
    /// Tensor index.
    pub tensor: usize,
    /// First scope at which the tensor is live.
    pub first_scope: usize,
    /// Last scope at which the tensor is live (inclusive).
    pub last_scope: usize,
}

impl Lifetime {
    /// First 0-based operator at which the tensor is live.
    pub fn first_op(&self) -> usize {
        self.first_scope.max(1) - 1
    }
    /// Last 0-based operator at which the tensor is live (inclusive).
    pub fn last_op(&self) -> usize {
        self.last_scope.max(1) - 1
    }
    /// Whether the two lifetimes share a scope (the crate's one overlap rule, that of
    /// [`synaptic_mem::PlanSlot::lifetimes_overlap`]).
    pub fn overlaps(&self, other: &Lifetime) -> bool {
        live_together(
            (self.first_scope, self.last_scope),
            (other.first_scope, other.last_scope),
        )
    }
}

/// Lifetimes of every activation of `model`, in ascending tensor order.
///
/// Rules: born at the first operator that outputs it (scope `op + 1`), or at scope 0 if it is a
/// graph input or no operator produces it; dies after the last operator that reads it, or at
/// the last scope if it is a graph output; a tensor nobody reads dies where it is born.
pub fn lifetimes(model: &Model) -> Vec<Lifetime> {
    let n = model.tensors.len();
    let end = model.operators.len();
    let mut first: Vec<Option<usize>> = vec![None; n];
    let mut last: Vec<Option<usize>> = vec![None; n];
    for op in &model.operators {
        let scope = op.index + 1;
        for &t in &op.outputs {
            first[t].get_or_insert(scope);
        }
        for &t in &op.inputs {
            last[t] = Some(last[t].map_or(scope, |l| l.max(scope)));
        }
    }
    model
        .activations()
        .map(|t| {
            let born = if t.is_input {
                0
            } else {
                first[t.index].unwrap_or(0)
            };
            let dies = if t.is_output {
                end
            } else {
                last[t.index].unwrap_or(born).max(born)
            };
            Lifetime {
                tensor: t.index,
                first_scope: born,
                last_scope: dies,
            }
        })
        .collect()
}

/// The overlap rule of the whole crate (lifetimes, planner items, the planner's conflict lists):
/// two inclusive intervals `(first, last)` of scopes or operators meet if they share one. It is
/// the rule of the core's [`synaptic_mem::PlanSlot::lifetimes_overlap`], which
/// [`crate::MemoryPlan::check`] applies through [`synaptic_mem::Plan::validate`].
pub(crate) const fn live_together(a: (usize, usize), b: (usize, usize)) -> bool {
    synaptic_mem::plan::live_together((a.0 as u64, a.1 as u64), (b.0 as u64, b.1 as u64))
}

/// The one live-set sweep: the largest total `bytes`, over time points, of the inclusive
/// intervals `(first, last, bytes)` live at that point. Sorts the interval ends (O(n log n),
/// whatever the numbers of the points) and saturates instead of overflowing; an interval with
/// `first > last` (never made by this crate) cannot panic it.
pub(crate) fn max_live_sum(intervals: impl IntoIterator<Item = (usize, usize, u64)>) -> u64 {
    let mut starts: Vec<(usize, u64)> = Vec::new();
    let mut ends: Vec<(usize, u64)> = Vec::new();
    for (first, last, bytes) in intervals {
        starts.push((first, bytes));
        ends.push((last, bytes));
    }
    starts.sort_unstable();
    ends.sort_unstable();
    let (mut live, mut best) = (0i128, 0i128);
    let mut ended = ends.iter().peekable();
    for &(first, bytes) in &starts {
        // Intervals that ended before `first` no longer count; one ending at `first` does.
        while let Some(&&(last, b)) = ended.peek() {
            if last >= first {
                break;
            }
            live -= b as i128;
            ended.next();
        }
        live += bytes as i128;
        best = best.max(live);
    }
    u64::try_from(best).unwrap_or(u64::MAX)
}

/// The live sum at every operator `0..=max last`: the total `bytes` of the inclusive intervals
/// `(first, last, bytes)` live there (a difference array, O(n + operators)); its maximum is
/// [`max_live_sum`] of the same intervals (a test). Used where a bound needs per-operator
/// totals (the overlap bound subtracts per-operator savings).
pub(crate) fn live_per_op(intervals: impl IntoIterator<Item = (usize, usize, u64)>) -> Vec<u64> {
    let mut diff: Vec<i128> = Vec::new();
    for (first, last, bytes) in intervals {
        if first > last {
            continue;
        }
        if diff.len() < last + 2 {
            diff.resize(last + 2, 0);
        }
        diff[first] += bytes as i128;
        diff[last + 1] -= bytes as i128;
    }
    let mut live = 0i128;
    let mut out = Vec::with_capacity(diff.len().saturating_sub(1));
    for d in &diff[..diff.len().saturating_sub(1)] {
        live += d;
        out.push(u64::try_from(live).unwrap_or(u64::MAX));
    }
    out
}

/// The live-set lower bound: the largest total, over operators, of the activations live at
/// that operator, each rounded up to 16 bytes ([`synaptic_mem::data_span`]). Variable tensors
/// are not activations and are not counted. No plan of these activations can be smaller.
///
/// Counted over operators (`first_op ..= last_op`, the lifetimes plans and the runtime use),
/// not scopes: a tensor live only at scope 0 — a graph input or an unproduced tensor nobody
/// reads — is live at operator 0 in every plan (the first operator runs with it in place), so
/// counting scopes could give a "bound" below every plan. On graphs without such tensors the
/// two agree.
pub fn live_lower_bound(model: &Model, lifetimes: &[Lifetime]) -> u64 {
    max_live_sum(lifetimes.iter().map(|l| {
        (
            l.first_op(),
            l.last_op(),
            data_span(model.tensors[l.tensor].bytes),
        )
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_per_op_peaks_at_max_live_sum() {
        let mut seed = 0x1234_5678_u64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..200 {
            let iv: Vec<(usize, usize, u64)> = (0..next(20) + 1)
                .map(|_| {
                    let a = next(30) as usize;
                    (a, a + next(10) as usize, next(1000) + 1)
                })
                .collect();
            let per_op = live_per_op(iv.iter().copied());
            assert_eq!(
                per_op.iter().copied().max().unwrap(),
                max_live_sum(iv.iter().copied())
            );
            for (op, &l) in per_op.iter().enumerate() {
                let want: u64 = iv
                    .iter()
                    .filter(|i| i.0 <= op && op <= i.1)
                    .map(|i| i.2)
                    .sum();
                assert_eq!(l, want);
            }
        }
    }
}
