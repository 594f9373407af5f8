//! The activation memory planner: offsets in one region so that tensors live at the same
//! operator never share a byte.
//!
//! Three strategies ([`Strategy`]):
//! * **bump**: every tensor after the previous one (no reuse), the spec's plain bump layout.
//! * **greedy**: greedy-by-size (largest first, each at the lowest offset free of the tensors
//!   already placed that are live at the same time), like TFLM's planner.
//! * **best**: greedy, then several ordering heuristics, then hill-climbing over the placement
//!   order with randomised moves (deterministic seed), as Arm's Vela does, then — for graphs of
//!   at most [`PlanOptions::exact_max_items`] tensors — an exact branch-and-bound that either
//!   finds a better plan or proves the best one optimal.
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
//!
//! Why the exact search is complete: given an optimal placement, re-placing its tensors in order
//! of increasing offset, each at the lowest free offset ("first fit"), never puts one higher
//! than it was; repeating this reaches a placement that first fit reproduces from its own
//! offset order. So searching the orders whose first-fit offsets are non-decreasing (ties by
//! tensor index) is enough, and bounding each partial placement by
//! `offset + occupied-above(t) + remaining(t)` at every operator `t` keeps it small.

use crate::lifetime::{live_together, max_live_sum};
use serde::Serialize;
use std::cell::Cell;
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

/// Work (see [`Ctx::work`]) the heuristic orders and the hill-climbing may do together, after
/// the greedy placement: the search stops, deterministically, once it is spent (about 0.15 s
/// here; the real models need a thousandth of it).
const SEARCH_WORK_BUDGET: u64 = 40_000_000;

/// Work the exact branch-and-bound may do (it gives up, unproven, beyond it; about 0.15 s).
const EXACT_WORK_BUDGET: u64 = 30_000_000;

/// Work the large greedy may spend on exact first-fit placements (conflicts gathered, plus
/// `k·⌈log₂ k⌉` for sorting `k` of them), largest items first; once it is spent, each item goes
/// on top of the items placed and live with it (about 0.1 s here).
const LARGE_WORK_BUDGET: u64 = 30_000_000;

/// The one first-fit scan of the planner: the lowest offset at which `size` bytes meet none of
/// the `busy` intervals `(start, end)`, which must be sorted by start (they may overlap).
fn first_fit(busy: &[(u64, u64)], size: u64) -> u64 {
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
fn sort_and_fit(busy: &mut [(u64, u64)], size: u64) -> (u64, u64) {
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
fn time_points(items: &[PlanItem]) -> (Vec<usize>, Vec<(usize, usize)>) {
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
fn greedy_large(items: &[PlanItem]) -> (Vec<u64>, u64) {
    greedy_indexed(items, LARGE_WORK_BUDGET)
}

fn greedy_indexed(items: &[PlanItem], budget: u64) -> (Vec<u64>, u64) {
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

struct Ctx<'a> {
    items: &'a [PlanItem],
    span: Vec<u64>,
    conflicts: Vec<Vec<usize>>,
    /// Work done so far by [`Ctx::first_fit`] and the searches: conflicts visited, plus
    /// `k·⌈log₂ k⌉` for sorting `k` placed ones ([`sort_and_fit`]); [`Ctx::decode`] adds one per
    /// item and the exact search its bound computations.
    work: Cell<u64>,
}

impl<'a> Ctx<'a> {
    fn new(items: &'a [PlanItem]) -> Self {
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

    fn add_work(&self, w: u64) {
        self.work.set(self.work.get().saturating_add(w));
    }

    /// Lowest offset for `i` free of the placed conflicting items ([`first_fit`]).
    fn first_fit(&self, i: usize, offsets: &[Option<u64>], scratch: &mut Vec<(u64, u64)>) -> u64 {
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
    fn decode(&self, order: &[usize], scratch: &mut Vec<(u64, u64)>) -> (Vec<u64>, u64) {
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

/// Deterministic xorshift64* generator (no dependency, same sequence everywhere).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

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
        Strategy::Greedy | Strategy::Best if n > SEARCH_MAX_ITEMS => {
            let (offs, peak) = greedy_large(items);
            stats.greedy_bytes = peak;
            stats.heuristic_bytes = peak;
            stats.orders_evaluated = 1;
            (offs, peak, peak == lower_bound)
        }
        Strategy::Bump => {
            let mut offs = Vec::with_capacity(n);
            let mut top = 0;
            for it in items {
                offs.push(top);
                top += it.span();
            }
            stats.greedy_bytes = top;
            stats.heuristic_bytes = top;
            (offs, top, top == lower_bound)
        }
        Strategy::Greedy => {
            let ctx = Ctx::new(items);
            let mut scratch = Vec::new();
            let order = order_by_size(items);
            let (offs, peak) = ctx.decode(&order, &mut scratch);
            stats.greedy_bytes = peak;
            stats.heuristic_bytes = peak;
            stats.orders_evaluated = 1;
            (offs, peak, peak == lower_bound)
        }
        Strategy::Best => best(items, opts, lower_bound, &mut stats),
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

fn order_by_size(items: &[PlanItem]) -> Vec<usize> {
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

fn best(
    items: &[PlanItem],
    opts: &PlanOptions,
    lb: u64,
    stats: &mut SearchStats,
) -> (Vec<u64>, u64, bool) {
    let n = items.len();
    let ctx = Ctx::new(items);
    let mut scratch = Vec::new();
    let greedy = order_by_size(items);
    let (mut best_offs, mut best_peak) = ctx.decode(&greedy, &mut scratch);
    stats.greedy_bytes = best_peak;
    stats.orders_evaluated = 1;
    if best_peak == lb {
        stats.heuristic_bytes = best_peak;
        return (best_offs, best_peak, best_peak == lb);
    }
    let mut best_order = greedy.clone();

    // Other ordering heuristics.
    let key_orders: Vec<Vec<usize>> = {
        let len = |i: usize| (items[i].last_op - items[i].first_op + 1) as u64;
        let mut v = Vec::new();
        let mut o: Vec<usize> = (0..n).collect();
        o.sort_by_key(|&i| {
            (
                std::cmp::Reverse(len(i)),
                std::cmp::Reverse(items[i].span()),
                i,
            )
        });
        v.push(o.clone());
        o.sort_by_key(|&i| (std::cmp::Reverse(items[i].span() * len(i)), i));
        v.push(o.clone());
        o.sort_by_key(|&i| (items[i].first_op, std::cmp::Reverse(items[i].span()), i));
        v.push(o.clone());
        o.sort_by_key(|&i| {
            (
                std::cmp::Reverse(ctx.conflicts[i].len()),
                std::cmp::Reverse(items[i].span()),
                i,
            )
        });
        v.push(o);
        v
    };
    // Everything after the greedy placement shares one budget of real work (conflicts
    // visited, sorting, probes), so dense inputs stop early, deterministically.
    let search_end = ctx.work.get().saturating_add(SEARCH_WORK_BUDGET);
    for order in key_orders {
        if ctx.work.get() >= search_end {
            break;
        }
        let (offs, peak) = ctx.decode(&order, &mut scratch);
        stats.orders_evaluated += 1;
        if peak < best_peak {
            best_peak = peak;
            best_offs = offs;
            best_order = order;
        }
    }

    // Hill-climbing over the placement order, with restarts, until the budget is spent.
    let mut rng = Rng(opts.seed | 1);
    'outer: for restart in 0..=opts.restarts {
        if best_peak == lb || n < 2 {
            break;
        }
        let mut cur = best_order.clone();
        if restart > 0 {
            // Perturb the best order: a few random swaps.
            for _ in 0..(n / 4).max(2) {
                let a = rng.below(n);
                let b = rng.below(n);
                cur.swap(a, b);
            }
        }
        if ctx.work.get() >= search_end {
            break;
        }
        let (_, mut cur_peak) = ctx.decode(&cur, &mut scratch);
        stats.orders_evaluated += 1;
        for _ in 0..opts.search_iterations {
            if ctx.work.get() >= search_end {
                break 'outer;
            }
            let mut cand = cur.clone();
            let a = rng.below(n);
            let b = rng.below(n);
            if rng.next() & 1 == 0 {
                cand.swap(a, b);
            } else {
                let x = cand.remove(a);
                cand.insert(b, x);
            }
            let (offs, peak) = ctx.decode(&cand, &mut scratch);
            stats.orders_evaluated += 1;
            if peak <= cur_peak {
                cur = cand;
                cur_peak = peak;
                if peak < best_peak {
                    best_peak = peak;
                    best_offs = offs;
                    best_order = cur.clone();
                    if best_peak == lb {
                        break 'outer;
                    }
                }
            }
        }
    }
    stats.heuristic_bytes = best_peak;
    if best_peak == lb {
        return (best_offs, best_peak, true);
    }

    // Exact branch-and-bound.
    let mut proven = false;
    if n <= opts.exact_max_items && opts.exact_node_limit > 0 {
        let mut bb = BranchAndBound::new(&ctx, best_peak, lb, opts.exact_node_limit);
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
    use super::*;
    use proptest::prelude::{prop_assert, prop_assert_eq, proptest, ProptestConfig};
    use proptest::strategy::Strategy as PropStrategy;

    fn item(units: u64, first_op: usize, last_op: usize) -> PlanItem {
        PlanItem {
            bytes: units * 16,
            first_op,
            last_op,
        }
    }

    /// Smallest first-fit region over all orders (the true optimum, by the completeness
    /// argument in the module docs).
    fn brute_force(items: &[PlanItem]) -> u64 {
        fn rec(ctx: &Ctx, order: &mut Vec<usize>, used: &mut Vec<bool>, best: &mut u64) {
            if order.len() == used.len() {
                let (_, peak) = ctx.decode(order, &mut Vec::new());
                *best = (*best).min(peak);
                return;
            }
            for i in 0..used.len() {
                if !used[i] {
                    used[i] = true;
                    order.push(i);
                    rec(ctx, order, used, best);
                    order.pop();
                    used[i] = false;
                }
            }
        }
        let ctx = Ctx::new(items);
        let mut best = u64::MAX;
        rec(
            &ctx,
            &mut Vec::new(),
            &mut vec![false; items.len()],
            &mut best,
        );
        if items.is_empty() {
            0
        } else {
            best
        }
    }

    #[test]
    fn empty_and_single() {
        let p = plan_items(&[], &PlanOptions::default());
        assert_eq!((p.region_size, p.proven_optimal), (0, true));
        let p = plan_items(&[item(3, 0, 0)], &PlanOptions::default());
        assert_eq!((p.region_size, p.proven_optimal), (48, true));
        assert_eq!(p.core_plan().validate(), Ok(()));
    }

    #[test]
    fn bump_is_the_sum_of_spans() {
        let items = [
            item(1, 0, 0),
            item(2, 1, 1),
            PlanItem {
                bytes: 5,
                first_op: 2,
                last_op: 2,
            },
        ];
        let opts = PlanOptions {
            strategy: Strategy::Bump,
            ..PlanOptions::default()
        };
        let p = plan_items(&items, &opts);
        assert_eq!(p.offsets, vec![0, 16, 48]);
        assert_eq!(p.region_size, 64);
        assert_eq!(p.slots()[2].size, 5);
    }

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

    /// Greedy by size fragments this one (144 B); the search reaches the bound (128 B).
    #[test]
    fn greedy_suboptimal_instance_is_fixed_by_search() {
        let items: Vec<PlanItem> = [
            (3, 1, 2),
            (2, 2, 3),
            (4, 3, 3),
            (1, 2, 3),
            (2, 0, 2),
            (3, 1, 1),
        ]
        .iter()
        .map(|&(u, f, l)| item(u, f, l))
        .collect();
        let greedy = plan_items(
            &items,
            &PlanOptions {
                strategy: Strategy::Greedy,
                ..PlanOptions::default()
            },
        );
        let best = plan_items(&items, &PlanOptions::default());
        best.check().unwrap();
        assert_eq!(
            (greedy.region_size, best.region_size, best.lower_bound),
            (144, 128, 128)
        );
        assert!(best.proven_optimal && !greedy.proven_optimal);
    }

    fn arb_items() -> impl PropStrategy<Value = Vec<PlanItem>> {
        proptest::collection::vec((1u64..6, 0usize..5, 0usize..3), 0..7).prop_map(|v| {
            v.into_iter()
                .map(|(u, f, len)| PlanItem {
                    bytes: u * 16 - (u % 3),
                    first_op: f,
                    last_op: f + len,
                })
                .collect()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
        /// The best strategy finds the true optimum on small instances and proves it; every
        /// strategy gives a valid plan never below the bound.
        #[test]
        fn best_is_optimal_on_small_instances(items in arb_items()) {
            let best = plan_items(&items, &PlanOptions::default());
            best.check().unwrap();
            prop_assert_eq!(best.core_plan().validate(), Ok(()));
            prop_assert_eq!(best.region_size, brute_force(&items));
            prop_assert!(best.proven_optimal);
            for strategy in [Strategy::Bump, Strategy::Greedy] {
                let p = plan_items(&items, &PlanOptions { strategy, ..PlanOptions::default() });
                p.check().unwrap();
                prop_assert!(p.region_size >= best.region_size);
            }
        }

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

#[cfg(test)]
mod large_tests {
    use super::*;

    fn random_items(n: usize, seed: u64) -> Vec<PlanItem> {
        let mut rng = Rng(seed);
        (0..n)
            .map(|_| {
                let f = rng.below(n / 4 + 1);
                PlanItem {
                    bytes: 1 + rng.below(5000) as u64,
                    first_op: f,
                    last_op: f + rng.below(6),
                }
            })
            .collect()
    }

    #[test]
    fn medium_random_graphs_are_valid_and_no_worse_than_greedy() {
        for seed in 1..20u64 {
            let items = random_items(60, seed);
            let best = plan_items(&items, &PlanOptions::default());
            let greedy = plan_items(
                &items,
                &PlanOptions {
                    strategy: Strategy::Greedy,
                    ..PlanOptions::default()
                },
            );
            best.check().unwrap();
            greedy.check().unwrap();
            assert_eq!(best.core_plan().validate(), Ok(()));
            assert!(best.region_size <= greedy.region_size);
            assert!(best.region_size >= best.lower_bound);
        }
    }

    #[test]
    fn planning_is_deterministic() {
        let items = random_items(60, 99);
        let a = plan_items(&items, &PlanOptions::default());
        let b = plan_items(&items, &PlanOptions::default());
        assert_eq!((a.offsets, a.region_size), (b.offsets, b.region_size));
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

    fn decode_greedy(items: &[PlanItem]) -> (Vec<u64>, u64) {
        Ctx::new(items).decode(&order_by_size(items), &mut Vec::new())
    }

    /// The indexed greedy places exactly as the conflict-list greedy while its budget lasts,
    /// and validly (on top) once it is spent.
    #[test]
    fn indexed_greedy_equals_conflict_list_greedy() {
        for seed in 1..40u64 {
            let items = random_items(50 + 20 * seed as usize, seed);
            assert_eq!(greedy_indexed(&items, u64::MAX), decode_greedy(&items));
            for budget in [0, 5_000] {
                let (offsets, region_size) = greedy_indexed(&items, budget);
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
