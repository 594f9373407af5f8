//! Test helpers shared by the planner's unit tests: item builders, random and arbitrary item
//! lists, and the brute-force optimum the searches are checked against.

use super::best::Rng;
use super::fit::Ctx;
use super::PlanItem;
use proptest::strategy::Strategy as PropStrategy;

/// An item of `units` × 16 bytes live over `first_op..=last_op`.
pub(super) fn item(units: u64, first_op: usize, last_op: usize) -> PlanItem {
    PlanItem {
        bytes: units * 16,
        first_op,
        last_op,
    }
}

/// Smallest first-fit region over all orders (the true optimum, by the completeness
/// argument in the docs of [`super::exact`]).
pub(super) fn brute_force(items: &[PlanItem]) -> u64 {
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

/// Up to 6 items of 1 to 5 blocks (sizes not all multiples of 16), live 1 to 3 operators
/// from one of the first 5.
pub(super) fn arb_items() -> impl PropStrategy<Value = Vec<PlanItem>> {
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

/// `n` items of 1 to 5000 bytes, live up to 6 operators from one of the first `n / 4 + 1`,
/// from `seed` (the planner's own generator: the same lists everywhere).
pub(super) fn random_items(n: usize, seed: u64) -> Vec<PlanItem> {
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
