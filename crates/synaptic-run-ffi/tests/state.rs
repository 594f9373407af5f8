//! The C API's state (issue 20): a streaming model (`keyword_scrambled`, seven SVDF memories)
//! loaded by `syn_run_load` on exactly the emitted arena carries its state from one
//! `syn_run_invoke_copy` to the next, `syn_run_memory` reports it, and `syn_run_reset_state`
//! sets it back: the next inferences equal the first ones and the Rust interpreter's.

// Every unsafe call is a C entry point called with valid pointers to live buffers.
#![allow(clippy::undocumented_unsafe_blocks)]

use std::path::PathBuf;

use synaptic_mem_ffi::errno::{EINVAL, ENODEV};
use synaptic_plan::{Analysis, IoPlacement, Model, SizingOptions};
use synaptic_run::program;
use synaptic_run_ffi::*;

fn model_bytes(name: &str) -> Option<Vec<u8>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/models");
    if !dir.join("README.md").is_file() {
        assert_eq!(
            std::env::var("SYNMEM_SKIP_MODELS").as_deref(),
            Ok("1"),
            "shared models not found at {} (set SYNMEM_SKIP_MODELS=1 to skip)",
            dir.display()
        );
        return None;
    }
    Some(std::fs::read(dir.join(format!("{name}.tflite"))).unwrap())
}

#[test]
fn reset_state_gives_a_fresh_models_outputs() {
    for name in ["keyword_scrambled", "keyword_scrambled_8bit"] {
        let Some(bytes) = model_bytes(name) else {
            return;
        };
        let a = Analysis::new(
            Model::from_bytes(&bytes).unwrap(),
            &SizingOptions {
                io: IoPlacement::Ephemeral,
                ..SizingOptions::default()
            },
        )
        .unwrap();
        let io = synaptic_run::IoPlacement::Plan;
        let mut words = vec![0u32; program::compiled_len(&bytes, io).unwrap()];
        program::compile(&bytes, io, &mut words).unwrap();
        let plan = a.ephemeral_plan.core_plan();
        let overlaps: Vec<SynPlanOverlap> = a
            .ephemeral_plan
            .overlaps
            .iter()
            .map(SynPlanOverlap::from)
            .collect();
        let arena_size = a.report.ram.arena_bytes as usize;
        let mut arena = vec![0u128; arena_size.div_ceil(16)];
        let mut net = Box::new(SynRunModel::ZEROED);
        assert_eq!(unsafe { syn_run_reset_state(&mut *net) }, -ENODEV);
        assert_eq!(
            unsafe { syn_run_reset_state(std::ptr::null_mut()) },
            -EINVAL
        );
        let config = SynRunConfig {
            model: bytes.as_ptr().cast(),
            model_size: bytes.len(),
            slots: plan.slots.as_ptr(),
            slot_count: plan.slots.len() as u32,
            overlaps: if overlaps.is_empty() {
                std::ptr::null()
            } else {
                overlaps.as_ptr()
            },
            overlap_count: overlaps.len() as u32,
            region_size: plan.region_size,
            io: SynRunIo::SYN_RUN_IO_PLAN as u32,
            arena: arena.as_mut_ptr().cast(),
            arena_size,
            shared: std::ptr::null_mut(),
            shared_size: 0,
            program: words.as_ptr(),
            program_words: words.len(),
        };
        assert_eq!(unsafe { syn_run_load(&mut *net, &config) }, 0, "{name}");
        let mut mem = SynRunMemory::default();
        assert_eq!(unsafe { syn_run_memory(&mut *net, &mut mem) }, 0);
        assert_eq!(mem.state as u64, a.report.ram.state_bytes, "{name}");
        assert_eq!(mem.scratch as u64, a.report.ram.scratch_bytes, "{name}");
        assert_eq!(mem.arena, arena_size, "{name}");
        let mut info: SynRunIoInfo = unsafe { std::mem::zeroed() };
        assert_eq!(unsafe { syn_run_io_info(&mut *net, &mut info) }, 0);
        let inputs: Vec<Vec<u8>> = (0..10u32)
            .map(|k| {
                (0..info.input_bytes)
                    .map(|i| (i as u32).wrapping_mul(2_654_435_761).wrapping_add(k * 97) as u8)
                    .collect()
            })
            .collect();
        let run = |net: &mut SynRunModel| -> Vec<Vec<u8>> {
            inputs
                .iter()
                .map(|x| {
                    let mut out = vec![0u8; info.output_bytes];
                    let rc = unsafe {
                        syn_run_invoke_copy(
                            net,
                            x.as_ptr().cast(),
                            x.len(),
                            out.as_mut_ptr().cast(),
                            out.len(),
                        )
                    };
                    assert_eq!(rc, 0);
                    out
                })
                .collect()
        };
        let first = run(&mut net);
        assert_eq!(unsafe { syn_run_reset_state(&mut *net) }, 0);
        assert_eq!(run(&mut net), first, "{name}: after syn_run_reset_state");
        assert_eq!(unsafe { syn_run_unload(&mut *net) }, 0);
        // The Rust interpreter, freshly loaded, agrees.
        let mut buf = vec![0u128; arena_size.div_ceil(16)];
        let bytes_buf: &mut [u8] =
            unsafe { std::slice::from_raw_parts_mut(buf.as_mut_ptr().cast::<u8>(), arena_size) };
        let mut arena = synaptic_mem::Arena::exact(bytes_buf, 0).unwrap();
        let (loader, mut runner) = arena.split();
        let run_plan = synaptic_run::RunPlan::overlapped(plan, &a.ephemeral_plan.overlaps);
        let mut rust =
            synaptic_run::Interpreter::with_program(&bytes, &words, loader, run_plan, io).unwrap();
        for (x, want) in inputs.iter().zip(&first) {
            let mut out = vec![0u8; info.output_bytes];
            rust.invoke(&mut runner, x, &mut out).unwrap();
            assert_eq!(&out, want, "{name}: C API against the interpreter");
        }
    }
}
