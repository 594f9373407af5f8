//! The importer, lifetimes, sizes and planner against every shared model.

mod common;

use synaptic_plan::reference::{
    lifetime_rows, parse_lifetimes_csv, parse_readme_table, survey, survey_table,
};
use synaptic_plan::{
    lifetimes, live_lower_bound, Analysis, Model, PlanOptions, SizingOptions, Strategy,
};

/// The tensors of `model` that hold a kernel's own state (the spectral subtraction's noise
/// estimate: TFLM keeps it in a persistent buffer and copies it to that output; the runtime
/// makes the output itself the state): activations in the references, state here.
fn kernel_state(path: &std::path::Path) -> Vec<usize> {
    let bytes = std::fs::read(path).unwrap();
    let m = synaptic_tflite::Model::new(&bytes).unwrap();
    let n = m.subgraph(0).unwrap().operators_len().unwrap();
    (0..n)
        .filter_map(|op| synaptic_run::ops::state_output_of(&m, op))
        .collect()
}

#[test]
fn lifetimes_equal_reference_csv() {
    let Some(dir) = common::models_dir() else {
        return;
    };
    let mut checked = 0;
    for path in common::model_paths(&dir) {
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        let csv = dir.join("lifetimes").join(format!("{stem}.csv"));
        let text =
            std::fs::read_to_string(&csv).unwrap_or_else(|e| panic!("{}: {e}", csv.display()));
        let state = kernel_state(&path);
        let mut want = parse_lifetimes_csv(&text).unwrap();
        want.retain(|w| !state.contains(&w.tensor));
        let model = Model::from_file(&path).unwrap_or_else(|e| panic!("{stem}: {e}"));
        let lts = lifetimes(&model);
        let got = lifetime_rows(&model, &lts);
        assert_eq!(got.len(), want.len(), "{stem}: activation count");
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g, w, "{stem}: tensor {}", w.tensor);
        }
        checked += 1;
    }
    assert_eq!(checked, 19, "expected the 19 shared models");
}

#[test]
fn figures_equal_readme() {
    let Some(dir) = common::models_dir() else {
        return;
    };
    let refs = parse_readme_table(&std::fs::read_to_string(dir.join("README.md")).unwrap());
    assert_eq!(refs.len(), 19);
    for r in &refs {
        let path = dir.join(format!("{}.tflite", r.model));
        let model = Model::from_file(&path).unwrap();
        let lts = lifetimes(&model);
        assert_eq!(model.weights_bytes, r.weights, "{}: weights", r.model);
        // The reference counts a kernel's state output as an activation.
        let state: u64 = kernel_state(&path)
            .iter()
            .map(|&t| model.tensors[t].bytes)
            .sum();
        assert_eq!(
            model.activation_sum_bytes() + state,
            r.act_sum,
            "{}: act sum",
            r.model
        );
        assert_eq!(
            live_lower_bound(&model, &lts),
            r.live_lb,
            "{}: live LB",
            r.model
        );
    }
}

/// Quality targets: ≤ TFLM head for models without kernel scratch (head == bound), = bound on
/// chain-shaped graphs, Σ planned ≤ 1.02 × Σ bounds; every plan valid for the core.
#[test]
fn planner_quality_and_core_plans() {
    let Some(dir) = common::models_dir() else {
        return;
    };
    // The plain planner (overlapped plans: tests/overlap.rs).
    let plain = SizingOptions {
        overlap: false,
        ..SizingOptions::default()
    };
    let rows = survey(&dir, &plain).unwrap();
    println!("{}", survey_table(&rows));
    let (mut sp, mut sb, mut chains) = (0u64, 0u64, 0);
    for row in &rows {
        let a = row.analysis.as_ref().unwrap();
        let r = &a.report;
        let f = row.reference.as_ref().expect("model listed in README");
        sp += r.planned_activation_bytes;
        sb += r.live_lower_bound_bytes;
        assert!(
            r.planned_activation_bytes >= r.live_lower_bound_bytes,
            "{}",
            r.model
        );
        if let Some(head) = f.tflm_head {
            if head == f.live_lb {
                assert!(
                    r.planned_activation_bytes <= head,
                    "{}: planned {} > TFLM head {head}",
                    r.model,
                    r.planned_activation_bytes
                );
            }
        }
        if is_chain(&a.model) {
            chains += 1;
            assert_eq!(
                r.planned_activation_bytes, r.live_lower_bound_bytes,
                "{}: chain",
                r.model
            );
        }
        for plan in [&a.activation_plan, &a.ephemeral_plan] {
            plan.check().unwrap_or_else(|e| panic!("{}: {e}", r.model));
            assert_eq!(plan.core_plan().validate(), Ok(()), "{}", r.model);
        }
    }
    assert!(
        sp as f64 <= 1.02 * sb as f64,
        "Σ planned {sp} > 1.02 × Σ bounds {sb}"
    );
    println!("{chains} chain-shaped models, all planned at their bound");
    assert!(chains >= 8, "only {chains} chain-shaped models");
    // Planning person_detect takes well under a second (microseconds in practice).
    let pd = rows.iter().find(|r| r.model == "person_detect").unwrap();
    let micros = pd.analysis.as_ref().unwrap().activation_plan.stats.micros;
    assert!(micros < 1_000_000, "person_detect took {micros} µs to plan");
}

/// A chain: every operator reads at most one activation, and each activation is read by at
/// most one operator.
fn is_chain(m: &Model) -> bool {
    let mut readers = vec![0usize; m.tensors.len()];
    for op in &m.operators {
        let acts = op
            .inputs
            .iter()
            .filter(|&&t| m.tensors[t].is_activation())
            .count();
        if acts > 1 {
            return false;
        }
        for &t in &op.inputs {
            readers[t] += 1;
        }
    }
    m.activations().all(|t| readers[t.index] <= 1)
}

#[test]
fn every_strategy_gives_valid_core_plans() {
    let Some(dir) = common::models_dir() else {
        return;
    };
    for path in common::model_paths(&dir) {
        for strategy in [Strategy::Bump, Strategy::Greedy, Strategy::Best] {
            let opts = SizingOptions {
                plan: PlanOptions {
                    strategy,
                    ..PlanOptions::default()
                },
                ..SizingOptions::default()
            };
            let a = Analysis::new(Model::from_file(&path).unwrap(), &opts).unwrap();
            for plan in [&a.activation_plan, &a.ephemeral_plan] {
                plan.check().unwrap();
                assert_eq!(
                    plan.core_plan().validate_overlapped(&plan.overlaps),
                    Ok(()),
                    "{} {strategy:?}",
                    path.display()
                );
            }
            if strategy == Strategy::Greedy {
                // Overlapped (the default): at or above the overlap bound.
                assert!(a.report.planned_activation_bytes >= a.report.overlap_lower_bound_bytes);
            }
        }
    }
}
