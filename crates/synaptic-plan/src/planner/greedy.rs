//! The greedy strategy ([`Strategy::Greedy`](super::Strategy::Greedy)): greedy by size, like
//! TFLM's `GreedyMemoryPlanner` — largest first, each tensor at the lowest offset free of the
//! tensors already placed that are live at the same time.
//!
//! Two implementations of the same placement: [`plan`] through the conflict lists of
//! [`Ctx`], and [`plan_large`], for inputs above
//! [`SEARCH_MAX_ITEMS`](super::SEARCH_MAX_ITEMS), through an index of the placed items by time
//! ([`TimeIndex`]), exact first fit while a work budget lasts and then each item on top of the
//! items live with it.
//!
//! Guarantees: always valid (no two items live together share a byte), offsets multiples of
//! 16, deterministic; [`plan_large`] places exactly as [`plan`] while its budget lasts and its
//! time is bounded whatever the input.

use super::fit::{order_by_size, sort_and_fit, time_points, Ctx};
use super::PlanItem;

/// Work the large greedy may spend on exact first-fit placements (conflicts gathered, plus
/// `k·⌈log₂ k⌉` for sorting `k` of them), largest items first; once it is spent, each item goes
/// on top of the items placed and live with it (about 0.1 s here).
const LARGE_WORK_BUDGET: u64 = 30_000_000;

/// Greedy by size through conflict lists: [`Ctx::decode`] of [`order_by_size`]; the offsets
/// and the region size.
pub(super) fn plan(items: &[PlanItem]) -> (Vec<u64>, u64) {
    let ctx = Ctx::new(items);
    let mut scratch = Vec::new();
    let order = order_by_size(items);
    ctx.decode(&order, &mut scratch)
}

/// Placed items by time, for the large greedy: a segment tree over the time points whose
/// nodes list the items covering the node's whole range (`cover`) or only part of it (`part`,
/// at the strict ancestors of the covering nodes), with the highest block end of each list.
/// The items live at some point of `[a, b]` are those in the `cover` lists of the nodes
/// meeting `[a, b]` and in the `part` lists of the nodes inside it (an item may be listed
/// twice): O(log n) lists to read, and their highest end, the top of everything live in
/// `[a, b]`, in O(log n).
struct TimeIndex {
    points: usize,
    cover: Vec<Vec<u32>>,
    part: Vec<Vec<u32>>,
    cover_top: Vec<u64>,
    part_top: Vec<u64>,
}

impl TimeIndex {
    fn new(points: usize) -> Self {
        let nodes = 4 * points.max(1);
        TimeIndex {
            points,
            cover: vec![Vec::new(); nodes],
            part: vec![Vec::new(); nodes],
            cover_top: vec![0; nodes],
            part_top: vec![0; nodes],
        }
    }

    /// Calls `f(node, inside)` for every node meeting `a..=b` of a tree over `points` points;
    /// `inside` if the node's range is within `a..=b` (its children are then not visited).
    fn visit(points: usize, (a, b): (usize, usize), mut f: impl FnMut(usize, bool)) {
        // Depth-first with at most two pending nodes per level: 64 covers any `usize` count.
        let mut stack = [(0usize, 0usize, 0usize); 128];
        stack[0] = (1, 0, points - 1);
        let mut len = 1;
        while len > 0 {
            len -= 1;
            let (node, l, r) = stack[len];
            let inside = a <= l && r <= b;
            f(node, inside);
            if inside {
                continue;
            }
            let m = l + (r - l) / 2;
            if a <= m {
                stack[len] = (2 * node, l, m);
                len += 1;
            }
            if b > m {
                stack[len] = (2 * node + 1, m + 1, r);
                len += 1;
            }
        }
    }

    /// Records item `i`, live over points `range`, with its block ending at `end`.
    fn insert(&mut self, i: usize, range: (usize, usize), end: u64) {
        Self::visit(self.points, range, |node, inside| {
            let (list, top) = if inside {
                (&mut self.cover[node], &mut self.cover_top[node])
            } else {
                (&mut self.part[node], &mut self.part_top[node])
            };
            list.push(i as u32);
            *top = (*top).max(end);
        });
    }

    /// The items live at some point of `range` (some twice) and the highest end of their
    /// blocks; `want_items` false gives the end alone.
    fn live(&self, range: (usize, usize), want_items: bool, items: &mut Vec<u32>) -> u64 {
        let mut top = 0;
        Self::visit(self.points, range, |node, inside| {
            top = top.max(self.cover_top[node]);
            if want_items {
                items.extend_from_slice(&self.cover[node]);
            }
            if inside {
                top = top.max(self.part_top[node]);
                if want_items {
                    items.extend_from_slice(&self.part[node]);
                }
            }
        });
        top
    }
}

/// Greedy by size for large inputs, without conflict lists: the placement of [`Ctx::decode`]
/// of [`order_by_size`] (each item at the lowest offset free of the items already placed and
/// live with it), through a [`TimeIndex`], while [`LARGE_WORK_BUDGET`] lasts; then each item
/// on top of the placed items live with it, in O(log n). Deterministic.
pub(super) fn plan_large(items: &[PlanItem]) -> (Vec<u64>, u64) {
    plan_indexed(items, LARGE_WORK_BUDGET)
}

/// [`plan_large`] with `budget` units of work for exact first-fit placements.
fn plan_indexed(items: &[PlanItem], budget: u64) -> (Vec<u64>, u64) {
    let n = items.len();
    let mut offs = vec![0u64; n];
    if n == 0 {
        return (offs, 0);
    }
    let (points, ranges) = time_points(items);
    let mut index = TimeIndex::new(points.len());
    let (mut live, mut busy) = (Vec::new(), Vec::new());
    let (mut work, mut peak) = (0u64, 0u64);
    for i in order_by_size(items) {
        let span = items[i].span();
        live.clear();
        let top = index.live(ranges[i], work < budget, &mut live);
        let x = if work < budget {
            busy.clear();
            busy.extend(live.iter().map(|&j| {
                let j = j as usize;
                (offs[j], offs[j].saturating_add(items[j].span()))
            }));
            let (x, w) = sort_and_fit(&mut busy, span);
            work = work.saturating_add(w);
            x
        } else {
            top
        };
        let end = x.saturating_add(span);
        index.insert(i, ranges[i], end);
        offs[i] = x;
        peak = peak.max(end);
    }
    (offs, peak)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planner::test_support::random_items;
    use crate::planner::{plan_items, MemoryPlan, PlanOptions, Strategy};

    /// The indexed greedy places exactly as the conflict-list greedy while its budget lasts,
    /// and validly (on top) once it is spent.
    #[test]
    fn indexed_greedy_equals_conflict_list_greedy() {
        for seed in 1..40u64 {
            let items = random_items(50 + 20 * seed as usize, seed);
            assert_eq!(plan_indexed(&items, u64::MAX), plan(&items));
            for budget in [0, 5_000] {
                let (offsets, region_size) = plan_indexed(&items, budget);
                let bump = PlanOptions {
                    strategy: Strategy::Bump,
                    ..PlanOptions::default()
                };
                let plan = plan_items(&items, &bump);
                MemoryPlan {
                    offsets,
                    region_size,
                    ..plan
                }
                .check()
                .unwrap();
            }
        }
    }
}
