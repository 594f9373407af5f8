//! The bump strategy ([`Strategy::Bump`](super::Strategy::Bump)): every tensor after the
//! previous one, in the given order, with no reuse — the spec's plain bump layout.
//!
//! Guarantees: valid for any input (no two items ever share a byte, whatever their lifetimes),
//! offsets multiples of 16, the region the sum of the spans; O(n), so it is also the fallback
//! of every strategy above [`GREEDY_MAX_ITEMS`](super::GREEDY_MAX_ITEMS) items.

use super::PlanItem;

/// Offsets of `items` one after the other, and the region size (the sum of their spans).
pub(super) fn plan(items: &[PlanItem]) -> (Vec<u64>, u64) {
    let mut offs = Vec::with_capacity(items.len());
    let mut top = 0;
    for it in items {
        offs.push(top);
        top += it.span();
    }
    (offs, top)
}

#[cfg(test)]
mod tests {
    use crate::planner::test_support::item;
    use crate::planner::{plan_items, PlanItem, PlanOptions, Strategy};

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
}
