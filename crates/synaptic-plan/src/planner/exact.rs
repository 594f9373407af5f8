//! The exact search of the best strategy: a branch-and-bound over placement orders that either
//! finds a plan smaller than the heuristics' or proves theirs optimal, for graphs of at most
//! [`PlanOptions::exact_max_items`] tensors, within a node limit
//! ([`PlanOptions::exact_node_limit`]) and a budget of real work ([`EXACT_WORK_BUDGET`]).
//!
//! Guarantees: a plan it returns is valid and never larger than the one it started from; it
//! reports a plan proven optimal only when the search ran to completion (or the plan meets the
//! live-set bound).
//!
//! Why the exact search is complete: given an optimal placement, re-placing its tensors in order
//! of increasing offset, each at the lowest free offset ("first fit"), never puts one higher
//! than it was; repeating this reaches a placement that first fit reproduces from its own
//! offset order. So searching the orders whose first-fit offsets are non-decreasing (ties by
//! tensor index) is enough, and bounding each partial placement by
//! `offset + occupied-above(t) + remaining(t)` at every operator `t` keeps it small.

use super::fit::{time_points, Ctx};
use super::{PlanOptions, SearchStats};

/// Work the exact branch-and-bound may do (it gives up, unproven, beyond it; about 0.15 s).
const EXACT_WORK_BUDGET: u64 = 30_000_000;

/// Runs the exact search over `ctx`'s items from the heuristics' best plan (`best_offs`, of
/// region `best_peak`; `lb` the live-set bound), if `opts` allow it (at most
/// [`PlanOptions::exact_max_items`] items, a node limit above 0): the best plan found, its
/// region size and whether it is proven optimal, with the search's figures in `stats`.
pub(super) fn search(
    ctx: &Ctx<'_>,
    opts: &PlanOptions,
    lb: u64,
    mut best_offs: Vec<u64>,
    mut best_peak: u64,
    stats: &mut SearchStats,
) -> (Vec<u64>, u64, bool) {
    let n = ctx.items.len();
    let mut proven = false;
    if n <= opts.exact_max_items && opts.exact_node_limit > 0 {
        let mut bb = BranchAndBound::new(ctx, best_peak, lb, opts.exact_node_limit);
        bb.run();
        stats.exact_nodes = bb.nodes;
        stats.exact_complete = !bb.aborted;
        if let Some(offs) = bb.best_offsets.take() {
            best_offs = offs;
            best_peak = bb.best;
        }
        proven = !bb.aborted || best_peak == lb;
    }
    (best_offs, best_peak, proven)
}

/// The state of the depth-first search: the partial placement, the bound's per-point load
/// still to place, and the best plan so far.
struct BranchAndBound<'c, 'a> {
    ctx: &'c Ctx<'a>,
    best: u64,
    lb: u64,
    best_offsets: Option<Vec<u64>>,
    offsets: Vec<Option<u64>>,
    /// Per item, its range of compressed time points (distinct first ops it covers).
    range: Vec<(usize, usize)>,
    remaining: Vec<u64>,
    nodes: u64,
    limit: u64,
    /// [`Ctx::work`] at which it gives up ([`EXACT_WORK_BUDGET`] after it starts).
    work_end: u64,
    aborted: bool,
    scratch: Vec<(u64, u64)>,
}

impl<'c, 'a> BranchAndBound<'c, 'a> {
    fn new(ctx: &'c Ctx<'a>, best: u64, lb: u64, limit: u64) -> Self {
        // The load only rises where an item starts: bound at those points only (at most n),
        // whatever the operator numbers.
        let (points, range) = time_points(ctx.items);
        let mut remaining = vec![0; points.len()];
        for (i, &(a, b)) in range.iter().enumerate() {
            for r in &mut remaining[a..=b] {
                *r += ctx.span[i];
            }
        }
        BranchAndBound {
            ctx,
            best,
            lb,
            best_offsets: None,
            offsets: vec![None; ctx.items.len()],
            range,
            remaining,
            nodes: 0,
            limit,
            work_end: ctx.work.get().saturating_add(EXACT_WORK_BUDGET),
            aborted: false,
            scratch: Vec::new(),
        }
    }

    fn run(&mut self) {
        self.dfs(0, None, 0);
    }

    /// Bound with `i` just placed at `o` (offsets/remaining already updated).
    fn bound(&self, o: u64) -> u64 {
        let mut acc = self.remaining.clone();
        let mut work = acc.len() as u64;
        for (j, off) in self.offsets.iter().enumerate() {
            if let Some(off) = *off {
                let end = off + self.ctx.span[j];
                if end > o {
                    let above = end - off.max(o);
                    let (a0, b0) = self.range[j];
                    work += (b0 - a0 + 1) as u64;
                    for a in &mut acc[a0..=b0] {
                        *a += above;
                    }
                }
            }
        }
        self.ctx.add_work(work);
        o + acc.into_iter().max().unwrap_or(0)
    }

    fn dfs(&mut self, placed: usize, prev: Option<(u64, usize)>, peak: u64) {
        let n = self.ctx.items.len();
        if placed == n {
            if peak < self.best {
                self.best = peak;
                self.best_offsets = Some(self.offsets.iter().map(|o| o.unwrap_or(0)).collect());
            }
            return;
        }
        self.nodes += 1;
        if self.nodes > self.limit || self.ctx.work.get() > self.work_end {
            self.aborted = true;
            return;
        }
        let mut cands: Vec<(u64, usize)> = Vec::new();
        for i in 0..n {
            if self.offsets[i].is_some() {
                continue;
            }
            let x = self.ctx.first_fit(i, &self.offsets, &mut self.scratch);
            if prev.is_some_and(|p| (x, i) <= p) {
                continue;
            }
            cands.push((x, i));
        }
        cands.sort_by_key(|&(x, i)| (x, std::cmp::Reverse(self.ctx.span[i]), i));
        for (x, i) in cands {
            let span = self.ctx.span[i];
            let new_peak = peak.max(x + span);
            if new_peak >= self.best {
                continue;
            }
            self.offsets[i] = Some(x);
            let (a0, b0) = self.range[i];
            for r in &mut self.remaining[a0..=b0] {
                *r -= span;
            }
            if self.bound(x).max(new_peak) < self.best {
                self.dfs(placed + 1, Some((x, i)), new_peak);
            }
            for r in &mut self.remaining[a0..=b0] {
                *r += span;
            }
            self.offsets[i] = None;
            if self.aborted || self.best == self.lb {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::planner::test_support::{arb_items, brute_force, item};
    use crate::planner::{plan_items, PlanItem, PlanOptions};
    use proptest::prelude::{prop_assert, prop_assert_eq, proptest, ProptestConfig};

    /// An instance whose optimum (224 B) is above the live-set bound (208 B): only the exact
    /// search can prove it optimal.
    #[test]
    fn exact_search_proves_a_plan_above_the_bound() {
        let items: Vec<PlanItem> = [
            (6, 4, 6),
            (5, 0, 0),
            (6, 6, 9),
            (1, 1, 3),
            (4, 1, 4),
            (8, 0, 1),
            (2, 3, 5),
            (1, 3, 5),
        ]
        .iter()
        .map(|&(u, f, l)| item(u, f, l))
        .collect();
        let p = plan_items(&items, &PlanOptions::default());
        p.check().unwrap();
        assert_eq!((p.lower_bound, p.region_size), (208, 224));
        assert_eq!(p.region_size, brute_force(&items));
        assert!(p.proven_optimal);
        assert!(p.stats.exact_complete && p.stats.exact_nodes > 0);
        // Without the exact search it is not proven.
        let p = plan_items(
            &items,
            &PlanOptions {
                exact_node_limit: 0,
                ..PlanOptions::default()
            },
        );
        assert!(!p.proven_optimal);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
        /// The exact search alone (no heuristics beyond greedy) is also optimal.
        #[test]
        fn exact_search_alone_is_optimal(items in arb_items()) {
            let opts = PlanOptions { search_iterations: 0, restarts: 0, ..PlanOptions::default() };
            let p = plan_items(&items, &opts);
            p.check().unwrap();
            prop_assert_eq!(p.region_size, brute_force(&items));
            prop_assert!(p.proven_optimal);
        }
    }
}
