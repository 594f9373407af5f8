//! Load, invoke (plain, in place, observed), poison and drop a self-owning model many ways:
//! under Miri any dangling borrow, double free, leak or aliasing violation in `owned.rs` fails.

use crate::owned::{Loaded, MakeError, Parts};
use synaptic_plan::{Analysis, IoPlacement as PlanIo, Model, SizingOptions};
use synaptic_run::{program, IoPlacement};

fn parts(io: IoPlacement, in_flash: bool, poison: bool) -> Parts {
    let bytes = synaptic_tflite::tests_support::tiny_model().to_vec();
    let a = Analysis::new(
        Model::from_bytes(&bytes).unwrap(),
        &SizingOptions {
            io: match io {
                IoPlacement::Shared => PlanIo::Shared,
                IoPlacement::Plan => PlanIo::Ephemeral,
            },
            ..SizingOptions::default()
        },
    )
    .unwrap();
    let mut words = vec![0u32; program::compiled_len(&bytes, io).unwrap()];
    program::compile(&bytes, io, &mut words).unwrap();
    let plan = a.ephemeral_plan.core_plan();
    let program_ram = if in_flash {
        0
    } else {
        synaptic_mem::block_span(4 * words.len() as u64) as usize
    };
    let arena_size = synaptic_mem::config::exact_arena_size(
        program_ram + synaptic_mem::DESC_SPAN * plan.slots.len(),
        plan.region_size as usize,
        0,
    );
    let shared_size = 512;
    Parts {
        model: bytes,
        program: in_flash.then_some(words),
        slots: plan.slots.to_vec(),
        region_size: plan.region_size,
        overlaps: a.ephemeral_plan.overlaps.clone(),
        arena_size,
        scratch: 0,
        shared_size,
        io,
        poison: poison.then(|| vec![0xa5; arena_size + shared_size]),
    }
}

#[test]
fn load_invoke_drop_in_every_configuration() {
    for io in [IoPlacement::Shared, IoPlacement::Plan] {
        for in_flash in [true, false] {
            for poison in [false, true] {
                let mut m = match Loaded::new(parts(io, in_flash, poison)) {
                    Ok(m) => m,
                    Err(MakeError::Config(e)) => panic!("config: {e}"),
                    Err(MakeError::Load(e)) => panic!("load: {e}"),
                };
                let input = vec![3u8; m.input_bytes()];
                let mut out = vec![0u8; m.output_bytes()];
                m.invoke(Some(&input), Some(&mut out), None).unwrap();
                let mut seen = 0;
                let mut count = |_: usize, _: usize, b: &[u8]| seen += b.len();
                let mut out2 = vec![0u8; m.output_bytes()];
                m.invoke(Some(&input), Some(&mut out2), Some(&mut count))
                    .unwrap();
                assert_eq!(out, out2);
                assert!(seen > 0);
                if io == IoPlacement::Shared {
                    m.input_mut(0).unwrap().fill(3);
                    m.input_mut(1).unwrap().fill(3);
                    m.invoke(None, None, None).unwrap();
                    assert_eq!(m.output(0).unwrap(), &out[..]);
                }
                assert!(!m.model().is_empty());
                let _ = (m.memory(), m.stats());
                // Moved, then dropped: the heap blocks it owns do not move.
                let moved = Box::new(m);
                drop(moved);
            }
        }
    }
}

#[test]
fn a_failed_load_frees_everything() {
    let mut p = parts(IoPlacement::Plan, true, false);
    p.arena_size -= 16;
    assert!(matches!(Loaded::new(p), Err(MakeError::Load(_))));
}
