//! Issue 10, item 7: subgraphs other than the main one are never silently ignored. A model
//! whose main graph is one WHILE operator, with a 200,000-byte activation in the loop body, used
//! to "fit" a 4096-byte arena; it is now refused with an error naming the operator, its opcode
//! and the subgraph.

mod common;

use common::tflite::{build, one_add, one_op_graph, while_with_big_body, Subgraph, ADD};
use synaptic_plan::{Analysis, ImportError, Model, SizingOptions};

#[test]
fn a_while_body_is_refused_naming_the_operator_and_subgraph() {
    let err = Model::from_bytes(&while_with_big_body()).unwrap_err();
    match &err {
        ImportError::UnsizedSubgraph {
            subgraph,
            name,
            operators,
            tensors,
            caller,
        } => {
            assert_eq!((*subgraph, name.as_str()), (1, "body"));
            assert_eq!((*operators, *tensors), (1, 2));
            assert_eq!(caller, &Some((0, "WHILE".to_string())));
        }
        other => panic!("expected UnsizedSubgraph, got {other:?}"),
    }
    let msg = err.to_string();
    assert!(
        msg.contains("operator 0 (WHILE)") && msg.contains("subgraph 1 (\"body\""),
        "{msg}"
    );
    assert!(!msg.contains('\n'));
}

#[test]
fn the_old_under_report_is_gone() {
    // Before: imported, and "fits" a 4096-byte arena although the body needs 200,000 bytes.
    let fits = Model::from_bytes(&while_with_big_body()).and_then(|m| {
        Analysis::new(
            m,
            &SizingOptions {
                arena_bytes: 4096,
                scratch_bytes: 1024,
                ..SizingOptions::default()
            },
        )
    });
    assert!(fits.is_err(), "a 200,000-byte body must not fit 4096 bytes");
}

#[test]
fn empty_extra_subgraphs_and_single_graphs_still_import() {
    let m = Model::from_bytes(&one_add(["a", "b"])).unwrap();
    assert_eq!((m.subgraphs, m.operators.len()), (1, 1));
    let two = build(
        &[ADD],
        &[
            one_op_graph("main", 0, ["a", "b"], [&[1, 16], &[1, 16]], 2),
            Subgraph {
                name: "empty".into(),
                tensors: vec![],
                inputs: vec![],
                outputs: vec![],
                ops: vec![],
            },
        ],
        &[vec![]],
    );
    let m = Model::from_bytes(&two).unwrap();
    assert_eq!(m.subgraphs, 2);
}
