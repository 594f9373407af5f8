//! The emitted Rust plan compiles against the core and validates: `golden/kws_ref_model_plan.rs`
//! is `synmem emit kws_ref_model.tflite --lang rust` output, included here as code, and the
//! test checks the generator still produces exactly it. After a deliberate format change,
//! regenerate with `UPDATE_GOLDEN=1 cargo test -p synaptic-plan --test emit_golden`.

mod common;

#[allow(dead_code)]
mod golden {
    include!("golden/kws_ref_model_plan.rs");
}

use synaptic_plan::emit::{emit, Lang};
use synaptic_plan::{Analysis, Model, SizingOptions};

#[test]
fn emitted_rust_plan_compiles_and_validates() {
    assert_eq!(golden::PLAN.validate(), Ok(()));
    assert_eq!(golden::SLOTS.len(), golden::SLOT_TENSORS.len());
    assert_eq!(golden::PLAN.region_size, golden::REGION_SIZE);
    let parts = golden::PERSISTENT_BYTES + golden::REGION_SIZE + golden::SCRATCH_BYTES;
    assert_eq!(golden::ARENA_BYTES_REQUIRED, parts);
}

#[test]
fn generator_reproduces_the_golden_file() {
    let Some(dir) = common::models_dir() else {
        return;
    };
    let model = Model::from_file(dir.join("kws_ref_model.tflite")).unwrap();
    let a = Analysis::new(model, &SizingOptions::default()).unwrap();
    let text = emit(&a, Lang::Rust);
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/kws_ref_model_plan.rs");
    if std::env::var("UPDATE_GOLDEN").as_deref() == Ok("1") {
        std::fs::write(&path, &text).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        text,
        "emit output changed; see the module docs"
    );
    assert_eq!(golden::REGION_SIZE as u64, a.ephemeral_plan.region_size);
}
