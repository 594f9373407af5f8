//! The emitted Rust plan compiles against the core and validates: `golden/kws_ref_model_plan.rs`
//! is `synmem emit kws_ref_model.tflite --lang rust` output, included here as code, and the
//! test checks the generator still produces exactly it (and `golden/kws_ref_model_plan.h`, the
//! `--lang c` output, which the C API's tests compile and load). Those two are the plain plan
//! (`--no-overlap`: the C API's typed plans take plain plans);
//! `golden/kws_ref_model_overlapped_plan.rs` is the default (overlapped) output, whose
//! `OVERLAPS` validate the plan by the core's one rule. After a deliberate format change,
//! regenerate with `UPDATE_GOLDEN=1 cargo test -p synaptic-plan --test emit_golden`.

mod common;

#[allow(dead_code)]
mod golden {
    include!("golden/kws_ref_model_plan.rs");
}

#[allow(dead_code)]
mod overlapped {
    include!("golden/kws_ref_model_overlapped_plan.rs");
}

/// Plain sizing options (`--no-overlap`).
fn plain() -> SizingOptions {
    SizingOptions {
        overlap: false,
        ..SizingOptions::default()
    }
}

#[test]
fn emitted_overlapped_plan_declares_its_pairs() {
    assert!(golden::OVERLAPS.is_empty());
    assert!(!overlapped::OVERLAPS.is_empty());
    assert_eq!(
        overlapped::PLAN.validate_overlapped(&overlapped::OVERLAPS),
        Ok(())
    );
    // Without its declarations the plan shares bytes between tensors live together.
    assert!(overlapped::PLAN.validate().is_err());
    const { assert!(overlapped::REGION_SIZE < golden::REGION_SIZE) };
}

use synaptic_mem::{ArenaBuffer, RawArena};
use synaptic_plan::emit::{emit, slot_types, Lang};
use synaptic_plan::{Analysis, Model, SizingOptions};

#[test]
fn emitted_rust_plan_compiles_and_validates() {
    assert_eq!(golden::PLAN.validate(), Ok(()));
    assert_eq!(golden::SLOTS.len(), golden::SLOT_TENSORS.len());
    assert_eq!(golden::PLAN.region_size, golden::REGION_SIZE);
    let parts =
        golden::ALLOCATOR_PERSISTENT_BYTES + golden::REGION_SIZE + golden::ALLOCATOR_SCRATCH_BYTES;
    assert_eq!(golden::ALLOCATOR_ARENA_BYTES, parts);
    // The runtime's arena: the plan's descriptors, its region and the kernels' scratch pool
    // (program in flash, I/O shared): the depthwise row kernel's row of 5 pixels × 64
    // channels and its 21 gathered words; a 1×1 CONV_2D's over 64 channels (a chunk's 64
    // values, two windows of 64 inputs: 16 B per four) is smaller.
    assert_eq!(golden::SCRATCH_BYTES, 320 + 96);
    const { assert!(64 + 256 < golden::SCRATCH_BYTES) };
    let runtime = synaptic_mem::DESC_SPAN * golden::SLOTS.len()
        + golden::REGION_SIZE as usize
        + golden::SCRATCH_BYTES;
    assert_eq!(golden::ARENA_BYTES, runtime);
    assert_eq!(
        golden::RAM_BYTES,
        golden::ARENA_BYTES + golden::SHARED_BYTES
    );
    // The slot types are the descriptor templates of a typed plan: they load and fill every
    // slot's descriptor.
    let mut buf = Box::new(ArenaBuffer::<65536>::new());
    let arena = RawArena::new(buf.as_mut_slice(), 16384).unwrap();
    let plan = arena
        .load_typed_plan(golden::PLAN, &golden::SLOT_TYPES)
        .unwrap();
    let run = arena.begin_typed_plan(&plan).unwrap();
    for (k, (slot, ty)) in golden::SLOTS.iter().zip(golden::SLOT_TYPES).enumerate() {
        // SAFETY (test): a descriptor of the arena's table, written at load.
        let d = unsafe { arena.planned_tensor(&run, k).unwrap().as_ref() };
        assert_eq!(d.size(), slot.size as usize);
        assert_eq!(d.shape(), &ty.shape[..ty.ndim as usize]);
    }
}

/// Every shared model's emitted slot types are exact (the slot's size, no fallback) and load
/// as a typed plan on an arena of the reported size.
#[test]
fn every_models_slot_types_load_as_a_typed_plan() {
    let Some(dir) = common::models_dir() else {
        return;
    };
    let mut buf = Box::new(ArenaBuffer::<524288>::new());
    for path in common::model_paths(&dir) {
        let a = Analysis::new(Model::from_file(&path).unwrap(), &plain()).unwrap();
        let slots = a.ephemeral_plan.slots();
        let types: Vec<_> = slot_types(&a)
            .into_iter()
            .map(|(t, fallback)| {
                assert!(!fallback, "{}", path.display());
                t
            })
            .collect();
        for (s, t) in slots.iter().zip(&types) {
            assert_eq!(t.request().unwrap().bytes(), s.size, "{}", path.display());
        }
        let plan = synaptic_mem::Plan {
            region_size: a.ephemeral_plan.region_size as u32,
            slots,
        };
        let arena = RawArena::new(buf.as_mut_slice(), 16384).unwrap();
        let loaded = arena.load_typed_plan(plan, &types).unwrap();
        arena.begin_typed_plan(&loaded).unwrap();
    }
}

#[test]
fn generator_reproduces_the_golden_file() {
    let Some(dir) = common::models_dir() else {
        return;
    };
    let model = Model::from_file(dir.join("kws_ref_model.tflite")).unwrap();
    let a = Analysis::new(model.clone(), &plain()).unwrap();
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
    let c = emit(&a, Lang::C);
    let c_path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/kws_ref_model_plan.h");
    if std::env::var("UPDATE_GOLDEN").as_deref() == Ok("1") {
        std::fs::write(&c_path, &c).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&c_path).unwrap(),
        c,
        "emit --lang c output changed; see the module docs"
    );
    let ov = Analysis::new(model, &SizingOptions::default()).unwrap();
    let text = emit(&ov, Lang::Rust);
    let ov_path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/kws_ref_model_overlapped_plan.rs");
    if std::env::var("UPDATE_GOLDEN").as_deref() == Ok("1") {
        std::fs::write(&ov_path, &text).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&ov_path).unwrap(),
        text,
        "emit output (overlapped) changed; see the module docs"
    );
    assert_eq!(overlapped::OVERLAPS.len(), ov.ephemeral_plan.overlaps.len());
    // The C header declares the same pairs.
    let c = emit(&ov, Lang::C);
    assert!(c.contains(&format!(
        "_OVERLAP_COUNT {}u",
        ov.ephemeral_plan.overlaps.len()
    )));
}
