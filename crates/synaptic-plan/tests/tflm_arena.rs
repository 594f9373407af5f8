//! `synaptic_plan::tflm_arena` against TFLM measured on a 32-bit Cortex-M4
//! (`tests/tflm/m4_arena.txt`: the QEMU anchor's smallest arenas with TFLM's own plan, and the
//! same harness's bisections of models carrying our offline plan), and TFLM's own head
//! against the models README (TFLM's wheel, reference kernels; the head does not depend on
//! the pointer size).

mod common;

use synaptic_plan::reference::parse_readme_table;
use synaptic_plan::tflm::plan_for_tflm;
use synaptic_plan::tflm_arena::{
    kernel_scratch, scratch_table, tflm_arena, tflm_head, Abi, Kernels,
};
use synaptic_plan::{Model, PlanOptions};

fn kernels(name: &str) -> Kernels {
    match name {
        "reference" => Kernels::Reference,
        "cmsis-nn" => Kernels::CmsisNn,
        _ => panic!("kernels {name}"),
    }
}

/// The offsets `synmem emit --lang tflite --kernels K` writes (the kernel set's scratch table).
fn our_offsets(bytes: &[u8], k: Kernels) -> Vec<i32> {
    let model = Model::from_bytes(bytes).unwrap();
    let table = scratch_table(bytes, k).unwrap();
    plan_for_tflm(&model, &PlanOptions::default(), Some(&table))
        .unwrap()
        .offsets
}

#[test]
fn arena_matches_tflm_on_cortex_m4() {
    let Some(dir) = common::models_dir() else {
        return;
    };
    let text = include_str!("tflm/m4_arena.txt");
    let mut checked = 0;
    let mut failures = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let f: Vec<&str> = line.split_whitespace().collect();
        let (name, k, plan, arena, used) = (f[0], kernels(f[1]), f[2], f[3], f[4]);
        let bytes = std::fs::read(dir.join(format!("{name}.tflite"))).unwrap();
        let offsets = match plan {
            "tflm" => None,
            "ours" => Some(our_offsets(&bytes, k)),
            "tensors-only" => {
                let model = Model::from_bytes(&bytes).unwrap();
                Some(
                    plan_for_tflm(&model, &PlanOptions::default(), None)
                        .unwrap()
                        .offsets,
                )
            }
            _ => panic!("plan {plan}"),
        };
        let a = tflm_arena(&bytes, offsets.as_deref(), k, &Abi::ARM32).unwrap();
        let want: u64 = arena.parse().unwrap();
        let want_used: Option<u64> = used.parse().ok();
        println!(
            "tflm-arena | {name} | {} | {plan} | head {} | tail {} | formula {} | measured {want} | used {} (measured {used})",
            k.name(),
            a.head,
            a.tail,
            a.arena,
            a.used
        );
        if a.arena != want || want_used.is_some_and(|u| u != a.used) {
            failures.push(format!("{line}: formula arena {} used {}", a.arena, a.used));
        }
        checked += 1;
    }
    assert_eq!(checked, 22);
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn own_head_matches_the_wheel_with_reference_kernels() {
    let Some(dir) = common::models_dir() else {
        return;
    };
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let mut checked = Vec::new();
    for row in parse_readme_table(&readme) {
        let Some(want) = row.tflm_head else { continue };
        let bytes = std::fs::read(dir.join(format!("{}.tflite", row.model))).unwrap();
        // Models with operators the module does not model are refused, never guessed.
        match tflm_head(&bytes, None, Kernels::Reference) {
            Ok(h) => {
                assert_eq!(h, want, "{}: TFLM head", row.model);
                checked.push(row.model);
            }
            Err(e) => assert!(e.to_string().contains("not modelled"), "{}: {e}", row.model),
        }
    }
    assert!(checked.len() >= 9, "{checked:?}");
}

#[test]
fn cmsis_nn_scratch_of_the_anchor_models() {
    let Some(dir) = common::models_dir() else {
        return;
    };
    let read = |m: &str| std::fs::read(dir.join(format!("{m}.tflite"))).unwrap();
    // person_detect: its first layer is a depthwise conv with channel multiplier 8 (not the
    // optimised path), every other depthwise conv 3x3 with padding <= 1
    // (arm_depthwise_conv_3x3_s8) and every conv 1x1 stride 1 (the fast 1x1, none with GCC):
    // only the average pool asks, one int32 per channel (256).
    let pd: Vec<(usize, Vec<u64>)> = kernel_scratch(&read("person_detect"), Kernels::CmsisNn)
        .unwrap()
        .into_iter()
        .enumerate()
        .filter(|(_, r)| !r.is_empty())
        .collect();
    assert_eq!(pd, vec![(27, vec![1024])]);
    // Reference kernels ask for nothing on int8 models.
    for m in ["person_detect", "kws_ref_model", "pretrainedResnet_quant"] {
        let r = kernel_scratch(&read(m), Kernels::Reference).unwrap();
        assert!(r.iter().all(Vec::is_empty), "{m}");
    }
    // kws: the 10x4 first conv (im2col 40 columns: 160 B) and the average pool (64 channels).
    let kws = kernel_scratch(&read("kws_ref_model"), Kernels::CmsisNn).unwrap();
    assert_eq!(
        kws.iter().flatten().copied().collect::<Vec<_>>(),
        vec![160, 256]
    );
}
