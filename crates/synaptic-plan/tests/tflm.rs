//! TFLM offline memory plans (`synaptic_plan::tflm`) on every shared model, without TFLM: the
//! rewritten file reads back as the same model with the plan and every original metadata entry,
//! its original bytes are kept verbatim, the plan is conflict-free in TFLM's lifetimes and
//! reaches the live-set bound, and a deliberately bad plan is caught. (`tflm_oracle.rs` runs
//! the emitted models in TFLM itself.)

use std::path::PathBuf;
use synaptic_plan::tflm::{
    check_offline_plan, head_tensors, metadata, plan_for_tflm, read_offline_plan, tflm_lifetimes,
    with_offline_plan, OFFLINE_METADATA_NAME, ONLINE,
};
use synaptic_plan::{lifetimes, Model, PlanOptions, TensorKind};

fn models() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/models");
    assert!(
        dir.join("README.md").is_file(),
        "shared models not found at {}",
        dir.display()
    );
    let mut v: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tflite"))
        .collect();
    v.sort();
    assert!(v.len() >= 19);
    v
}

#[test]
fn emitted_models_read_back_unchanged_with_the_plan() {
    for path in models() {
        let bytes = std::fs::read(&path).unwrap();
        let model = Model::from_bytes(&bytes).unwrap();
        let plan = plan_for_tflm(&model, &PlanOptions::default(), None).unwrap();
        let out = with_offline_plan(&bytes, &plan).unwrap();
        let name = path.display();
        // The original bytes follow a prefix that keeps 16-byte alignment.
        let prefix = out.len() - bytes.len();
        assert_eq!(&out[prefix..], &bytes[..], "{name}");
        assert_eq!(prefix % 16, 0, "{name}");
        assert_eq!(&out[4..8], b"TFL3");
        // Same model, same metadata plus the plan (appended last, pointing at a new buffer).
        assert_eq!(Model::from_bytes(&out).unwrap(), model, "{name}");
        let (before, after) = (metadata(&bytes).unwrap(), metadata(&out).unwrap());
        assert_eq!(after.len(), before.len() + 1, "{name}");
        assert_eq!(&after[..before.len()], &before[..], "{name}");
        assert_eq!(after.last().unwrap().0, OFFLINE_METADATA_NAME);
        let read = read_offline_plan(&out).unwrap().unwrap();
        assert_eq!(read.offsets, plan.offsets, "{name}");
        assert_eq!((read.version, read.subgraphs), (1, model.subgraphs as i32));
        assert!(read_offline_plan(&bytes).unwrap().is_none());
        // Every activation planned (to TFLM a kernel's state output is one), nothing else; no
        // conflict; the live-set bound reached.
        for t in &model.tensors {
            let planned = plan.offsets[t.index] != ONLINE;
            assert_eq!(
                planned,
                t.kind == TensorKind::Activation || t.kernel_state,
                "{name} tensor {}",
                t.index
            );
        }
        let check = check_offline_plan(&model, &plan.offsets).unwrap();
        assert!(check.conflicts.is_empty() && !check.incomplete, "{name}");
        assert!(check.unaligned.is_empty() && check.ignored.is_empty());
        assert_eq!(check.offline_end, plan.head_bytes());
        assert_eq!(plan.head_bytes(), plan.plan.lower_bound, "{name}");
        // Emitting again replaces the plan: one entry, the newest.
        let again = with_offline_plan(&out, &plan).unwrap();
        let names = metadata(&again).unwrap();
        let n = names
            .iter()
            .filter(|(n, _)| n == OFFLINE_METADATA_NAME)
            .count();
        assert_eq!(n, 1, "{name}");
        assert_eq!(
            read_offline_plan(&again).unwrap().unwrap().offsets,
            plan.offsets
        );
    }
}

/// TFLM's lifetimes equal this crate's on every activation of the shared models (graph
/// outputs included: in TFLM they live from their producer, not from the start).
#[test]
fn tflm_lifetimes_match_the_crate_lifetimes() {
    for path in models() {
        let model = Model::from_file(&path).unwrap();
        let tflm = tflm_lifetimes(&model);
        for l in lifetimes(&model) {
            assert_eq!(
                tflm[l.tensor],
                Some(l),
                "{} tensor {}",
                path.display(),
                l.tensor
            );
        }
        for &o in &model.outputs {
            let produced = model.operators.iter().any(|op| op.outputs.contains(&o));
            if produced && !model.inputs.contains(&o) {
                assert!(tflm[o].unwrap().first_scope > 0, "{}", path.display());
            }
        }
    }
}

/// The kernel-scratch table leaves one hole per operator: the plan grows by at most the
/// table, and equals the bound of tensors and scratch.
#[test]
fn scratch_table_is_planned_as_holes() {
    for path in models() {
        let model = Model::from_file(&path).unwrap();
        let table: Vec<u64> = (0..model.operators.len())
            .map(|i| [0, 100, 512][i % 3])
            .collect();
        let opts = PlanOptions::default();
        let only = plan_for_tflm(&model, &opts, None).unwrap();
        let with = plan_for_tflm(&model, &opts, Some(&table)).unwrap();
        assert_eq!(with.offsets.len(), only.offsets.len());
        assert!(with.head_bytes() >= only.head_bytes());
        assert!(with.head_bytes() <= only.head_bytes() + 512);
        assert_eq!(
            with.kernel_scratch,
            Some(table.iter().map(|&b| b.div_ceil(16) * 16).sum())
        );
        assert!(check_offline_plan(&model, &with.offsets)
            .unwrap()
            .conflicts
            .is_empty());
        assert!(plan_for_tflm(&model, &opts, Some(&table[1..])).is_err());
    }
}

#[test]
fn a_bad_plan_is_named() {
    let path = models()
        .into_iter()
        .find(|p| p.file_stem().unwrap() == "person_detect")
        .unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let mut plan = plan_for_tflm(&model, &PlanOptions::default(), None).unwrap();
    // An operator's input and output at the same offset: live together at that operator.
    let op = &model.operators[1];
    let (i, o) = (op.inputs[0], op.outputs[0]);
    plan.offsets[o] = plan.offsets[i];
    let bad = with_offline_plan(&bytes, &plan).unwrap();
    let read = read_offline_plan(&bad).unwrap().unwrap();
    let check = check_offline_plan(&model, &read.offsets).unwrap();
    assert!(!check.conflicts.is_empty());
    assert!(check
        .conflicts
        .iter()
        .any(|c| (c.a, c.b) == (i.min(o), i.max(o))));
    let text = check.conflicts[0].to_string();
    assert!(text.contains("overlaps tensor"), "{text}");
    // Wrong count: TFLM refuses it, so does the check.
    assert!(check_offline_plan(&model, &read.offsets[1..]).is_err());
    // Variables offline are live at every scope.
    let lstm = models()
        .into_iter()
        .find(|p| p.file_stem().unwrap() == "trained_lstm")
        .unwrap();
    let m = Model::from_file(&lstm).unwrap();
    let vars: Vec<_> = head_tensors(&m, true)
        .into_iter()
        .filter(|h| h.variable)
        .collect();
    assert!(!vars.is_empty());
    assert!(vars
        .iter()
        .all(|h| h.lifetime.first_scope == 0 && h.lifetime.last_scope == m.operators.len()));
}
