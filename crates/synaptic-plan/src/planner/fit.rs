//! First-fit placement, the primitive every reusing strategy is built on: the one first-fit
//! scan ([`first_fit`]), the conflict-list decoder ([`Ctx::decode`]: items in a given order,
//! each at the lowest offset free of the placed items live with it), greedy-by-size order and
//! time compressed to the operators where items start.
//!
//! Guarantees: a decoded placement never puts two items live together on a common byte, its
//! offsets are multiples of 16 (spans are), and [`Ctx::work`] counts every conflict visited and
//! every sort, so the searches built on it stop on budgets of real work.

use super::PlanItem;
use std::cell::Cell;

/// The one first-fit scan of the planner: the lowest offset at which `size` bytes meet none of
/// the `busy` intervals `(start, end)`, which must be sorted by start (they may overlap).
pub(super) fn first_fit(busy: &[(u64, u64)], size: u64) -> u64 {
    let mut x = 0u64;
    for &(start, end) in busy {
        if start >= x.saturating_add(size) {
            break;
        }
        x = x.max(end);
    }
    x
}

/// Sorts `busy` by start and returns [`first_fit`] of it and the work done (`k` intervals
/// visited and `k·⌈log₂ k⌉` for sorting them).
pub(super) fn sort_and_fit(busy: &mut [(u64, u64)], size: u64) -> (u64, u64) {
    busy.sort_unstable();
    let k = busy.len() as u64;
    (
        first_fit(busy, size),
        k + k * u64::from(64 - k.leading_zeros()),
    )
}

/// Time compressed to the operators where an item starts (the load only rises there, and two
/// items are live together exactly when they share one of these points): the sorted points
/// and each item's inclusive range of point indices.
pub(super) fn time_points(items: &[PlanItem]) -> (Vec<usize>, Vec<(usize, usize)>) {
    let mut points: Vec<usize> = items.iter().map(|i| i.first_op).collect();
    points.sort_unstable();
    points.dedup();
    let ranges = items
        .iter()
        .map(|it| {
            let a = points.partition_point(|&p| p < it.first_op);
            let b = points.partition_point(|&p| p <= it.last_op).max(a + 1) - 1;
            (a, b)
        })
        .collect();
    (points, ranges)
}

/// The items to place with what first fit needs of them: each one's span and the items live
/// with it (its conflicts), and the work done so far.
pub(super) struct Ctx<'a> {
    /// The items.
    pub(super) items: &'a [PlanItem],
    /// Each item's span.
    pub(super) span: Vec<u64>,
    /// Per item, the items live with it.
    pub(super) conflicts: Vec<Vec<usize>>,
    /// Work done so far by [`Ctx::first_fit`] and the searches: conflicts visited, plus
    /// `k·⌈log₂ k⌉` for sorting `k` placed ones ([`sort_and_fit`]); [`Ctx::decode`] adds one per
    /// item and the exact search its bound computations.
    pub(super) work: Cell<u64>,
}

impl<'a> Ctx<'a> {
    /// The context of `items`: spans and conflict lists (a sweep by first operator).
    pub(super) fn new(items: &'a [PlanItem]) -> Self {
        let n = items.len();
        let span: Vec<u64> = items.iter().map(|i| i.span()).collect();
        // Sweep by first op to build conflict lists without an all-pairs scan when sparse.
        let mut by_first: Vec<usize> = (0..n).collect();
        by_first.sort_by_key(|&i| (items[i].first_op, i));
        let mut conflicts = vec![Vec::new(); n];
        let mut active: Vec<usize> = Vec::new();
        for &i in &by_first {
            active.retain(|&j| items[j].overlaps(&items[i]));
            for &j in &active {
                conflicts[i].push(j);
                conflicts[j].push(i);
            }
            active.push(i);
        }
        Ctx {
            items,
            span,
            conflicts,
            work: Cell::new(0),
        }
    }

    /// Adds `w` to [`Ctx::work`] (saturating).
    pub(super) fn add_work(&self, w: u64) {
        self.work.set(self.work.get().saturating_add(w));
    }

    /// Lowest offset for `i` free of the placed conflicting items ([`first_fit`]).
    pub(super) fn first_fit(
        &self,
        i: usize,
        offsets: &[Option<u64>],
        scratch: &mut Vec<(u64, u64)>,
    ) -> u64 {
        scratch.clear();
        for &j in &self.conflicts[i] {
            if let Some(o) = offsets[j] {
                scratch.push((o, o + self.span[j]));
            }
        }
        let (x, work) = sort_and_fit(scratch, self.span[i]);
        self.add_work(self.conflicts[i].len() as u64 + work);
        x
    }

    /// Places items in `order` by first fit; returns offsets and region size.
    pub(super) fn decode(&self, order: &[usize], scratch: &mut Vec<(u64, u64)>) -> (Vec<u64>, u64) {
        let mut offs: Vec<Option<u64>> = vec![None; self.items.len()];
        let mut peak = 0;
        self.add_work(order.len() as u64);
        for &i in order {
            let x = self.first_fit(i, &offs, scratch);
            offs[i] = Some(x);
            peak = peak.max(x + self.span[i]);
        }
        (offs.into_iter().map(|o| o.unwrap_or(0)).collect(), peak)
    }
}

/// Greedy-by-size order: largest span first, then longest lifetime, earliest first operator,
/// lowest index (deterministic).
pub(super) fn order_by_size(items: &[PlanItem]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| {
        let it = &items[i];
        (
            std::cmp::Reverse(it.span()),
            std::cmp::Reverse(it.last_op - it.first_op),
            it.first_op,
            i,
        )
    });
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_fit_takes_the_lowest_gap() {
        assert_eq!(first_fit(&[], 32), 0);
        assert_eq!(first_fit(&[(0, 16), (48, 64)], 32), 16);
        assert_eq!(first_fit(&[(0, 16), (32, 64)], 32), 64);
        assert_eq!(first_fit(&[(0, 64), (16, 32), (80, 96)], 16), 64);
        let (x, work) = sort_and_fit(&mut [(32, 64), (0, 16)], 32);
        assert_eq!((x, work), (64, 2 + 2 * 2));
    }

    /// The search budget counts the sorting of every first fit, not only the conflicts.
    #[test]
    fn decode_work_counts_sorting() {
        // 64 items all live together: placing the k-th sorts k placed conflicts.
        let items: Vec<PlanItem> = (0..64)
            .map(|_| PlanItem {
                bytes: 16,
                first_op: 0,
                last_op: 0,
            })
            .collect();
        let ctx = Ctx::new(&items);
        let order: Vec<usize> = (0..64).collect();
        let (_, peak) = ctx.decode(&order, &mut Vec::new());
        assert_eq!(peak, 64 * 16);
        let sorting: u64 = (0..64u64)
            .map(|k| k * u64::from(64 - k.leading_zeros()))
            .sum();
        assert!(ctx.work.get() >= 64 + 64 * 63 + sorting);
    }
}
