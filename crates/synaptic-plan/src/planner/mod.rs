//! The activation memory planner: offsets in one region so that tensors live at the same
//! operator never share a byte.
//!
//! Three strategies ([`Strategy`]), one module each, as TensorFlow Lite Micro's
//! `memory_planner/` has one file per planner:
//! * **bump** ([`bump`]): every tensor after the previous one (no reuse), the spec's plain bump
//!   layout.
//! * **greedy** ([`greedy`]): greedy-by-size (largest first, each at the lowest offset free of
//!   the tensors already placed that are live at the same time), like TFLM's planner.
//! * **best** ([`best`]): greedy, then several ordering heuristics, then hill-climbing over the
//!   placement order with randomised moves (deterministic seed), as Arm's Vela does, then — for
//!   graphs of at most [`PlanOptions::exact_max_items`] tensors — an exact branch-and-bound
//!   ([`exact`]) that either finds a better plan or proves the best one optimal.
//!
//! The first-fit placement the reusing strategies share is in [`fit`]; this module holds the
//! types ([`PlanItem`], [`PlanOptions`], [`MemoryPlan`] and its validity check), the lower bound
//! and the dispatch ([`plan_items`]). The planner over output/input overlaps is
//! [`crate::overlap`], built on [`plan_items`].
//!
//! Very large inputs (hostile files) degrade gracefully: above [`SEARCH_MAX_ITEMS`] tensors
//! "best" is plain greedy (through an index of the items by time, exact first fit while a work
//! budget lasts, then each item on top of those live with it), above [`GREEDY_MAX_ITEMS`] every
//! strategy is bump. The search and the exact branch-and-bound stop on budgets of real work
//! (conflicts visited and the sorting of every first fit), so that their time is bounded,
//! deterministically: `cargo run --release -p synaptic-plan --example plan_bench` prints the
//! times on hostile shapes and on the shared models.
//!
//! A plan whose size equals the live-set lower bound is optimal by definition and reported as
//! proven without searching further.

mod best;
mod bump;
mod exact;
mod fit;
mod greedy;
#[cfg(test)]
mod test_support;

use crate::lifetime::{live_together, max_live_sum};
use serde::Serialize;
use std::time::Instant;
use synaptic_mem::plan::{OverlapPair, PlanSlot};
use synaptic_mem::{data_span, Plan};

/// One tensor to place. For [`MemoryPlan::slots`] (the core's format) operators must be at
/// most 65535 and offsets below 4 GiB; [`crate::Analysis`] checks both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct PlanItem {
    /// Bytes of data (the block spans this rounded up to 16).
    pub bytes: u64,
    /// First operator (0-based) at which it is live.
    pub first_op: usize,
    /// Last operator at which it is live (inclusive).
    pub last_op: usize,
}

impl PlanItem {
    /// Bytes of the block: `bytes` rounded up to 16 (the core's [`data_span`]).
    pub fn span(&self) -> u64 {
        data_span(self.bytes)
    }
    /// Whether both are live at a common operator (the crate's one overlap rule, the core's
    /// [`PlanSlot::lifetimes_overlap`]).
    pub fn overlaps(&self, o: &PlanItem) -> bool {
        live_together((self.first_op, self.last_op), (o.first_op, o.last_op))
    }

    /// The item at `offset` as the core's [`PlanSlot`], or `None` if the offset or size does not
    /// fit `u32` or an operator does not fit `u16`.
    fn slot_at(&self, offset: u64) -> Option<PlanSlot> {
        Some(PlanSlot {
            offset: u32::try_from(offset).ok()?,
            size: u32::try_from(self.bytes).ok()?,
            first_op: u16::try_from(self.first_op).ok()?,
            last_op: u16::try_from(self.last_op).ok()?,
        })
    }
}

/// How to plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// No reuse: every tensor after the previous one.
    Bump,
    /// Greedy by size (TFLM-like).
    Greedy,
    /// Greedy, heuristics, hill-climbing and exact search (default).
    #[default]
    Best,
}

impl Strategy {
    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Bump => "bump",
            Strategy::Greedy => "greedy",
            Strategy::Best => "best",
        }
    }
}

/// Planner settings. The defaults are deterministic and fast (person_detect in milliseconds).
///
/// ```
/// use synaptic_plan::{PlanOptions, Strategy};
/// let opts = PlanOptions { strategy: Strategy::Greedy, ..PlanOptions::default() };
/// assert_eq!(opts.seed, PlanOptions::default().seed);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PlanOptions {
    /// Strategy.
    pub strategy: Strategy,
    /// Seed of the hill-climbing's random moves.
    pub seed: u64,
    /// Hill-climbing moves tried (per restart).
    pub search_iterations: usize,
    /// Hill-climbing restarts from shuffled orders.
    pub restarts: usize,
    /// Largest number of tensors for the exact search.
    pub exact_max_items: usize,
    /// Node budget of the exact search (it gives up, unproven, beyond it).
    pub exact_node_limit: u64,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            strategy: Strategy::Best,
            seed: 0x5eed_cafe_f00d_d00d,
            search_iterations: 4000,
            restarts: 4,
            exact_max_items: 48,
            exact_node_limit: 200_000,
        }
    }
}

impl PlanOptions {
    /// Small search budgets (200 moves, one restart, the exact search up to 12 tensors and
    /// 2,000 nodes): valid plans fast, not optimal ones, for fuzzers and harnesses that plan
    /// many hostile models a second.
    ///
    /// ```
    /// let quick = synaptic_plan::PlanOptions::small_budget();
    /// assert!(quick.search_iterations < synaptic_plan::PlanOptions::default().search_iterations);
    /// ```
    pub fn small_budget() -> Self {
        PlanOptions {
            search_iterations: 200,
            restarts: 1,
            exact_max_items: 12,
            exact_node_limit: 2_000,
            ..PlanOptions::default()
        }
    }
}

/// Statistics of a planning run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SearchStats {
    /// Region size of plain greedy-by-size.
    pub greedy_bytes: u64,
    /// Region size after the heuristics and hill-climbing.
    pub heuristic_bytes: u64,
    /// Orders evaluated by the heuristics and hill-climbing.
    pub orders_evaluated: u64,
    /// Nodes of the exact search (0 if it did not run).
    pub exact_nodes: u64,
    /// Whether the exact search ran to completion.
    pub exact_complete: bool,
    /// Wall-clock planning time in microseconds (the only non-deterministic field).
    pub micros: u64,
}

/// A plan: one offset per item, the region size, and how good it is.
///
/// ```
/// use synaptic_plan::{plan_items, PlanItem, PlanOptions};
/// // A chain a -> b -> c: a and c can share memory.
/// let items = [
///     PlanItem { bytes: 100, first_op: 0, last_op: 0 },
///     PlanItem { bytes: 40, first_op: 0, last_op: 1 },
///     PlanItem { bytes: 64, first_op: 1, last_op: 1 },
/// ];
/// let plan = plan_items(&items, &PlanOptions::default());
/// assert_eq!(plan.region_size, 160); // = the live-set bound, 112 + 48
/// assert!(plan.proven_optimal);
/// assert_eq!(plan.core_plan().validate(), Ok(()));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MemoryPlan {
    /// The items planned.
    pub items: Vec<PlanItem>,
    /// Offset of each item (multiple of 16).
    pub offsets: Vec<u64>,
    /// Bytes of the region (multiple of 16): the highest block end.
    pub region_size: u64,
    /// Live-set lower bound: the largest total span of items live at one operator.
    pub lower_bound: u64,
    /// Whether no smaller plan exists (equal to the bound, or proven by the exact search).
    pub proven_optimal: bool,
    /// Strategy used.
    pub strategy: Strategy,
    /// How the search went.
    pub stats: SearchStats,
    /// The declared output/input overlaps (empty for a plain plan; see
    /// [`crate::overlap::plan_overlapped`]): slot indices are item indices. A plan with
    /// overlaps is valid by [`Plan::validate_overlapped`] with these, not by [`Plan::validate`].
    #[serde(skip)]
    pub overlaps: Vec<OverlapPair>,
    #[serde(skip)]
    slots: Vec<PlanSlot>,
}

impl MemoryPlan {
    /// The plan as the core consumes it: one [`PlanSlot`] per item, same order.
    pub fn slots(&self) -> &[PlanSlot] {
        &self.slots
    }

    /// A [`synaptic_mem::Plan`] borrowing this plan's slots; `validate()` passes for every plan
    /// [`check`](Self::check) accepts. Values beyond the core's format are saturated (an offset
    /// or size to `u32::MAX`, an operator to `u16::MAX`), so such a plan never validates by
    /// wrapping.
    pub fn core_plan(&self) -> Plan<'_> {
        Plan {
            region_size: u32::try_from(self.region_size).unwrap_or(u32::MAX),
            slots: &self.slots,
        }
    }

    /// Checks the plan with the core's own rule ([`Plan::validate_overlapped`] with the plan's
    /// declared [`overlaps`](Self::overlaps): 16-byte alignment, region bounds, no two items
    /// live together sharing a byte unless a declared pair within its bound, no empty item),
    /// after converting it
    /// to the core's format exactly (an offset, size or region beyond `u32`, or an operator
    /// beyond `u16`, is an error); then that the region is not below the lower bound.
    pub fn check(&self) -> Result<(), String> {
        if self.items.len() != self.offsets.len() {
            return Err(format!(
                "{} items but {} offsets",
                self.items.len(),
                self.offsets.len()
            ));
        }
        let slots = self
            .items
            .iter()
            .zip(&self.offsets)
            .enumerate()
            .map(|(i, (it, &o))| {
                it.slot_at(o).ok_or_else(|| {
                    format!(
                        "item {i}: offset {o}, size {} or operators {}..={} beyond the plan \
                         format (u32 bytes, u16 operators)",
                        it.bytes, it.first_op, it.last_op
                    )
                })
            })
            .collect::<Result<Vec<PlanSlot>, String>>()?;
        let region_size = u32::try_from(self.region_size).map_err(|_| {
            format!(
                "region of {} B beyond the plan format's u32",
                self.region_size
            )
        })?;
        Plan {
            region_size,
            slots: &slots,
        }
        .validate_overlapped(&self.overlaps)
        .map_err(|e| e.to_string())?;
        if self.region_size < self.lower_bound {
            return Err(format!(
                "region of {} B below the lower bound {} B",
                self.region_size, self.lower_bound
            ));
        }
        Ok(())
    }
}

/// Largest total span of items live at one operator (the same sweep as
/// [`crate::live_lower_bound`], over operators instead of scopes); O(n log n) whatever the
/// operator numbers.
pub fn items_lower_bound(items: &[PlanItem]) -> u64 {
    max_live_sum(items.iter().map(|i| (i.first_op, i.last_op, i.span())))
}

/// Above this many items the "best" strategy falls back to greedy (keeps hostile inputs fast).
pub const SEARCH_MAX_ITEMS: usize = 2048;

/// Above this many items every strategy falls back to bump (no real model comes close).
pub const GREEDY_MAX_ITEMS: usize = 50_000;

/// Plans `items` with `opts`. Never fails; an empty list gives an empty plan.
pub fn plan_items(items: &[PlanItem], opts: &PlanOptions) -> MemoryPlan {
    let start = Instant::now();
    let n = items.len();
    let lower_bound = items_lower_bound(items);
    let mut stats = SearchStats::default();
    let strategy = if n > GREEDY_MAX_ITEMS {
        Strategy::Bump
    } else {
        opts.strategy
    };
    let (offsets, region, proven) = match strategy {
        Strategy::Bump => {
            let (offs, top) = bump::plan(items);
            stats.greedy_bytes = top;
            stats.heuristic_bytes = top;
            (offs, top, top == lower_bound)
        }
        Strategy::Best if n <= SEARCH_MAX_ITEMS => best::best(items, opts, lower_bound, &mut stats),
        Strategy::Greedy | Strategy::Best => {
            let (offs, peak) = if n > SEARCH_MAX_ITEMS {
                greedy::plan_large(items)
            } else {
                greedy::plan(items)
            };
            stats.greedy_bytes = peak;
            stats.heuristic_bytes = peak;
            stats.orders_evaluated = 1;
            (offs, peak, peak == lower_bound)
        }
    };
    stats.micros = start.elapsed().as_micros() as u64;
    MemoryPlan {
        items: items.to_vec(),
        slots: slots_of(items, &offsets),
        offsets,
        region_size: region,
        lower_bound,
        proven_optimal: proven,
        strategy,
        stats,
        overlaps: Vec::new(),
    }
}

/// The core's slots of `items` at `offsets` (values beyond the format saturated).
fn slots_of(items: &[PlanItem], offsets: &[u64]) -> Vec<PlanSlot> {
    items
        .iter()
        .zip(offsets)
        .map(|(it, &o)| {
            it.slot_at(o).unwrap_or(PlanSlot {
                offset: u32::try_from(o).unwrap_or(u32::MAX),
                size: u32::try_from(it.bytes).unwrap_or(u32::MAX),
                first_op: u16::try_from(it.first_op).unwrap_or(u16::MAX),
                last_op: u16::try_from(it.last_op).unwrap_or(u16::MAX),
            })
        })
        .collect()
}

impl MemoryPlan {
    /// The same items at `offsets` with the declared `overlaps`, the overlap bound
    /// `lower_bound` and `stats` (the overlapped planner's result).
    pub(crate) fn with_overlaps(
        &self,
        offsets: Vec<u64>,
        overlaps: Vec<OverlapPair>,
        lower_bound: u64,
        stats: SearchStats,
    ) -> MemoryPlan {
        let region_size = self
            .items
            .iter()
            .zip(&offsets)
            .map(|(it, &o)| o + it.span())
            .max()
            .unwrap_or(0);
        MemoryPlan {
            items: self.items.clone(),
            slots: slots_of(&self.items, &offsets),
            offsets,
            region_size,
            lower_bound,
            proven_optimal: region_size == lower_bound,
            strategy: self.strategy,
            stats,
            overlaps,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::{item, random_items};
    use super::*;

    #[test]
    fn empty_and_single() {
        let p = plan_items(&[], &PlanOptions::default());
        assert_eq!((p.region_size, p.proven_optimal), (0, true));
        let p = plan_items(&[item(3, 0, 0)], &PlanOptions::default());
        assert_eq!((p.region_size, p.proven_optimal), (48, true));
        assert_eq!(p.core_plan().validate(), Ok(()));
    }

    #[test]
    fn large_inputs_fall_back_and_stay_valid() {
        let items = random_items(SEARCH_MAX_ITEMS + 10, 7);
        let p = plan_items(&items, &PlanOptions::default());
        assert_eq!(p.stats.orders_evaluated, 1);
        assert!(p.region_size >= p.lower_bound);
        // Spot-check validity on a prefix-independent basis: the core validator is O(n²) but
        // fine at this size in release; in debug check a sample of pairs.
        for i in (0..items.len()).step_by(37) {
            for j in 0..items.len() {
                if i != j && items[i].overlaps(&items[j]) {
                    let (a, b) = (p.offsets[i], p.offsets[j]);
                    assert!(a + items[i].span() <= b || b + items[j].span() <= a);
                }
            }
        }
    }

    #[test]
    fn lower_bound_takes_any_operator_numbers() {
        let items = [
            PlanItem {
                bytes: 1,
                first_op: usize::MAX - 1,
                last_op: usize::MAX,
            },
            PlanItem {
                bytes: 20,
                first_op: usize::MAX,
                last_op: usize::MAX,
            },
            PlanItem {
                bytes: 100,
                first_op: 0,
                last_op: 5,
            },
        ];
        assert_eq!(items_lower_bound(&items[..2]), 16 + 32);
        assert_eq!(items_lower_bound(&items), 112);
        let p = plan_items(&items, &PlanOptions::default());
        assert_eq!((p.region_size, p.lower_bound), (112, 112));
    }

    /// `check` is the core's `Plan::validate`, and refuses what the core's format cannot hold.
    #[test]
    fn check_is_the_core_validation() {
        let items = [
            PlanItem {
                bytes: 100,
                first_op: 0,
                last_op: 1,
            },
            PlanItem {
                bytes: 40,
                first_op: 1,
                last_op: 2,
            },
        ];
        let p = plan_items(&items, &PlanOptions::default());
        p.check().unwrap();
        let overlap = MemoryPlan {
            offsets: vec![0, 96],
            ..p.clone()
        };
        assert_eq!(
            overlap.check().unwrap_err(),
            "slots 0 and 1 are live together and overlap in memory"
        );
        let far = MemoryPlan {
            offsets: vec![0, 1 << 32],
            region_size: (1 << 32) + 48,
            ..p.clone()
        };
        assert!(far.check().unwrap_err().contains("beyond the plan format"));
        assert!(far.core_plan().validate().is_err());
        let big_region = MemoryPlan {
            region_size: 1 << 32,
            ..p.clone()
        };
        assert!(big_region.check().unwrap_err().contains("region"));
        let late = plan_items(
            &[PlanItem {
                bytes: 16,
                first_op: 70_000,
                last_op: 70_000,
            }],
            &PlanOptions::default(),
        );
        assert!(late.check().unwrap_err().contains("u16 operators"));
    }
}
