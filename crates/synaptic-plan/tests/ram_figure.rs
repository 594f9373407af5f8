//! The one RAM figure (`Report::ram_bytes`, `RuntimeNeed`): its parts add up, it leads the
//! text, and a model over the core's largest arena says so with the limit and what would help.
//! (That it is exactly what synaptic-run needs is checked by loading: synaptic-run-ffi's
//! `tests/arena_figure.rs`, and every `synmem run`.)

mod common;

use common::tflite::{act, build, Op, Subgraph, ADD};
use synaptic_plan::render::plan_text;
use synaptic_plan::{Analysis, IoPlacement, Model, SizingOptions};

/// `in -> ADD -> mid -> ADD -> out`, every tensor `[1, n]` int8.
fn chain(n: i32) -> Model {
    let g = Subgraph {
        name: "main".into(),
        tensors: vec![act("in", &[1, n]), act("mid", &[1, n]), act("out", &[1, n])],
        inputs: vec![0],
        outputs: vec![2],
        ops: vec![
            Op {
                opcode: 0,
                inputs: vec![0, 0],
                outputs: vec![1],
            },
            Op {
                opcode: 0,
                inputs: vec![1, 1],
                outputs: vec![2],
            },
        ],
    };
    let mut m = Model::from_bytes(&build(&[ADD], &[g], &[vec![]])).unwrap();
    m.name = "chain".into();
    m
}

#[test]
fn parts_add_up_and_lead_the_text() {
    for io in [IoPlacement::Shared, IoPlacement::Ephemeral] {
        for in_ram in [None, Some(1000)] {
            let o = SizingOptions {
                io,
                program_in_ram_bytes: in_ram,
                ..SizingOptions::default()
            };
            let a = Analysis::new(chain(1000), &o).unwrap();
            let r = &a.report;
            let n = &r.ram;
            assert_eq!(r.ram_bytes, n.arena_bytes + n.shared_bytes);
            assert_eq!(
                n.arena_bytes,
                n.plan_descriptors_bytes
                    + n.activation_bytes
                    + n.state_bytes
                    + n.scratch_bytes
                    + n.program_bytes
            );
            assert_eq!(
                n.plan_descriptors_bytes,
                32 * a.ephemeral_plan.items.len() as u64
            );
            assert_eq!(n.activation_bytes, a.ephemeral_plan.region_size);
            assert_eq!(n.program_bytes, in_ram.map_or(0, |_| 32 + 1008));
            assert_eq!(n.op_data, if in_ram.is_some() { "ram" } else { "flash" });
            assert_eq!(n.shared_bytes == 0, io == IoPlacement::Ephemeral);
            assert!(n.fits && n.help.is_empty());
            // Weights never count: the runtime reads them in place.
            let text = plan_text(&a);
            let first = text.lines().nth(2).unwrap();
            assert!(
                first.starts_with(&format!("RAM {} B for synaptic-run", r.ram_bytes)),
                "{text}"
            );
        }
    }
}

#[test]
fn over_the_core_limit_says_so_and_what_would_help() {
    let o = SizingOptions {
        io: IoPlacement::Ephemeral,
        overlap: false,
        program_in_ram_bytes: Some(4000),
        ..SizingOptions::default()
    };
    let a = Analysis::new(chain(300_000), &o).unwrap();
    let n = &a.report.ram;
    assert!(!n.fits);
    assert_eq!(n.limit_bytes, 524_288);
    assert!(n.arena_bytes > 524_288);
    let help = n.help.join("\n");
    for want in ["--op-data flash", "--io shared", "the activations alone"] {
        assert!(help.contains(want), "{help}");
    }
    let text = plan_text(&a);
    assert!(
        text.contains(&format!(
            "does not fit: the arena would be {} B, over the core's limit of 524288 B",
            n.arena_bytes
        )),
        "{text}"
    );
    // Fitting models have no advice.
    let small = Analysis::new(chain(100), &o).unwrap();
    assert!(small.report.ram.fits && small.report.ram.help.is_empty());
}
