//! The hostile planner shapes of issue 10 (item 8) give valid plans, as planner items and as
//! real `.tflite` models. Their times are in the `plan_bench` example, not here.

mod shapes;

use synaptic_plan::{
    plan_items, Analysis, MemoryPlan, Model, PlanOptions, SizingOptions, Strategy,
};

fn valid(name: &str, plan: &MemoryPlan) {
    plan.check().unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(plan.core_plan().validate(), Ok(()), "{name}");
    assert!(plan.region_size >= plan.lower_bound, "{name}");
}

#[test]
fn hostile_item_shapes_give_valid_plans() {
    for (name, items) in [
        ("chain500_d100", shapes::chain_items(500, 100)),
        ("chain2040_d1000", shapes::chain_items(2040, 1000)),
        ("chain5000_d1000", shapes::chain_items(5000, 1000)),
        ("split20000_concat", shapes::split_concat_items(20_000)),
        ("above_bound48", shapes::above_bound_items(6)),
    ] {
        for strategy in [Strategy::Best, Strategy::Greedy] {
            let plan = plan_items(
                &items,
                &PlanOptions {
                    strategy,
                    ..PlanOptions::default()
                },
            );
            valid(name, &plan);
        }
    }
    // Everything live together: stacked exactly at the bound.
    let plan = plan_items(&shapes::split_concat_items(20_000), &PlanOptions::default());
    assert_eq!(plan.region_size, plan.lower_bound);
}

#[test]
fn hostile_models_give_valid_plans() {
    for (name, bytes) in [
        ("chain500_d100", shapes::chain_tflite(500, 100)),
        ("chain2040_d1000", shapes::chain_tflite(2040, 1000)),
        ("split20000_concat", shapes::split_concat_tflite(20_000)),
    ] {
        let model = Model::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let analysis = Analysis::new(model, &SizingOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        valid(name, &analysis.activation_plan);
        valid(name, &analysis.ephemeral_plan);
        assert_eq!(
            analysis.report.live_lower_bound_bytes, analysis.activation_plan.lower_bound,
            "{name}"
        );
    }
}
