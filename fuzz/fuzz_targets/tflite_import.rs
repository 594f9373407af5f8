//! Fuzz target `tflite_import`: `synaptic-plan`'s `.tflite` import, lifetime analysis, sizing
//! and planner on arbitrary bytes (seeded with the shared models by `scripts/fuzz-smoke.sh`).
//! Malformed input must give an error, never a panic; whatever imports must plan into a
//! valid plan by the core's one rule (aligned, in its region, no two simultaneously live
//! tensors sharing bytes unless they are a declared overlap pair inside its contract's bound)
//! that is never below the overlap lower bound (itself never above the live-set bound), and its
//! allocation sequence must be consistent.
#![no_main]

use libfuzzer_sys::fuzz_target;
use synaptic_plan::{sequence_of, Analysis, Model, PlanOptions, SizingOptions};

fuzz_target!(|data: &[u8]| {
    let Ok(model) = Model::from_bytes(data) else {
        return;
    };
    // Small search budgets: the fuzzer wants many executions, not optimal plans.
    let options = SizingOptions {
        plan: PlanOptions::small_budget(),
        ..SizingOptions::default()
    };
    let Ok(analysis) = Analysis::new(model, &options) else {
        return;
    };
    let plan = analysis.ephemeral_plan.core_plan();
    if let Err(e) = plan.validate_overlapped(&analysis.ephemeral_plan.overlaps) {
        panic!("planner produced an invalid plan: {e}");
    }
    let r = &analysis.report;
    assert!(
        r.overlap_lower_bound_bytes <= r.live_lower_bound_bytes,
        "overlap bound above the live-set bound"
    );
    assert!(
        r.planned_activation_bytes >= r.overlap_lower_bound_bytes,
        "plan below the overlap lower bound"
    );
    let _ = analysis.verdict();
    if let Ok(seq) = sequence_of(&analysis) {
        assert_eq!(seq.activations.len(), seq.plan_slots.len());
        for a in &seq.activations {
            assert!(a.first_op <= a.last_op);
            assert_eq!(seq.plan_slots[a.slot].size, a.request.bytes);
            let (_, bytes) = synaptic_mem::shape_bytes(&a.request.shape, a.request.dtype)
                .expect("sequence request the core rejects");
            assert_eq!(bytes, a.request.bytes);
        }
    }
});
