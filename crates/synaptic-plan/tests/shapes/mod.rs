//! Hostile planner shapes (issue 10, item 8), as [`PlanItem`] lists and as real `.tflite`
//! bytes: shared by the `plan_bench` example (timings) and the `hostile_shapes` test (validity).
#![allow(dead_code)]

use flatbuffers::{FlatBufferBuilder, WIPOffset};
use synaptic_plan::PlanItem;

/// Bytes of the tensor made by operator `i` in the chain shapes: 16 to 1024, varied so that
/// greedy-by-size does not reach the bound at once and the search runs.
pub fn chain_bytes(i: usize) -> u64 {
    16 * (1 + (i as u64).wrapping_mul(0x9e37_79b9) % 64)
}

/// The operator graph of [`chain_tflite`] as planner items: operator `i` (of `ops`) writes
/// tensor `i` and reads tensor `i - distance` (the graph input for `i < distance`); tensors
/// nobody reads are graph outputs, live to the last operator.
pub fn chain_items(ops: usize, distance: usize) -> Vec<PlanItem> {
    let last = ops.saturating_sub(1);
    let mut items = vec![PlanItem {
        bytes: 16,
        first_op: 0,
        last_op: distance.min(ops).saturating_sub(1),
    }];
    items.extend((0..ops).map(|i| PlanItem {
        bytes: chain_bytes(i),
        first_op: i,
        last_op: if i + distance < ops {
            i + distance
        } else {
            last
        },
    }));
    items
}

/// SPLIT of one input into `k` outputs, all read by one CONCATENATION: `k` items live together.
pub fn split_concat_items(k: usize) -> Vec<PlanItem> {
    let mut items = vec![PlanItem {
        bytes: 16 * k as u64,
        first_op: 0,
        last_op: 0,
    }];
    items.extend((0..k).map(|_| PlanItem {
        bytes: 16,
        first_op: 0,
        last_op: 1,
    }));
    items.push(PlanItem {
        bytes: 16 * k as u64,
        first_op: 1,
        last_op: 1,
    });
    items
}

/// `copies` copies, ten operators apart, of an 8-item instance whose optimum (224 B) is above
/// its live-set bound (208 B): the heuristics cannot reach the bound, so the whole search and
/// the exact branch-and-bound run (48 items at most go to the exact search).
pub fn above_bound_items(copies: usize) -> Vec<PlanItem> {
    const BASE: [(u64, usize, usize); 8] = [
        (6, 4, 6),
        (5, 0, 0),
        (6, 6, 9),
        (1, 1, 3),
        (4, 1, 4),
        (8, 0, 1),
        (2, 3, 5),
        (1, 3, 5),
    ];
    (0..copies)
        .flat_map(|c| {
            BASE.iter().map(move |&(units, f, l)| PlanItem {
                bytes: 16 * units,
                first_op: f + 10 * c,
                last_op: l + 10 * c,
            })
        })
        .collect()
}

/// One operator of [`tflite`]: builtin code, input and output tensor indices.
pub struct Op {
    /// Builtin operator code (schema `BuiltinOperator`).
    pub code: i32,
    /// Input tensor indices.
    pub inputs: Vec<i32>,
    /// Output tensor indices.
    pub outputs: Vec<i32>,
}

/// A minimal `.tflite` flatbuffer: one subgraph of INT8 activations (no weights) with the
/// given shapes, operators in execution order, graph inputs and outputs.
pub fn tflite(shapes: &[Vec<i32>], ops: &[Op], inputs: &[i32], outputs: &[i32]) -> Vec<u8> {
    const fn slot(n: u16) -> u16 {
        4 + 2 * n
    }
    let mut b = FlatBufferBuilder::with_capacity(1 << 16);
    // Buffer 0: empty (activations use it).
    let t = b.start_table();
    let buffer0 = b.end_table(t);
    let buffers = b.create_vector(&[buffer0]);
    // Operator codes: one per distinct builtin code, in first-use order.
    let mut codes: Vec<i32> = Vec::new();
    for op in ops {
        if !codes.contains(&op.code) {
            codes.push(op.code);
        }
    }
    let code_tables: Vec<_> = codes
        .iter()
        .map(|&c| {
            let t = b.start_table();
            b.push_slot::<i8>(slot(0), c.min(127) as i8, 0);
            b.push_slot::<i32>(slot(3), c, 0);
            b.end_table(t)
        })
        .collect();
    let codes_vec = b.create_vector(&code_tables);
    // Tensors (shape vectors shared between equal shapes).
    let mut shape_vecs: Vec<(Vec<i32>, WIPOffset<_>)> = Vec::new();
    // One quantization for every tensor (scale 0.5, zero point 0): the runtime's kernels, whose
    // access contracts the planner asks for, prepare quantized int8 tensors only.
    let scale = b.create_vector(&[0.5f32]);
    let zero_point = b.create_vector(&[0i64]);
    let t = b.start_table();
    b.push_slot_always(slot(2), scale);
    b.push_slot_always(slot(3), zero_point);
    let quant = b.end_table(t);
    let mut tensors = Vec::with_capacity(shapes.len());
    for s in shapes {
        let sv = match shape_vecs.iter().find(|(k, _)| k == s) {
            Some(&(_, v)) => v,
            None => {
                let v = b.create_vector(s);
                shape_vecs.push((s.clone(), v));
                v
            }
        };
        let t = b.start_table();
        b.push_slot_always(slot(0), sv);
        b.push_slot::<i8>(slot(1), 9, 0); // INT8
        b.push_slot_always(slot(4), quant);
        tensors.push(b.end_table(t));
    }
    let tensors_vec = b.create_vector(&tensors);
    let op_tables: Vec<_> = ops
        .iter()
        .map(|op| {
            let ins = b.create_vector(&op.inputs);
            let outs = b.create_vector(&op.outputs);
            let idx = codes.iter().position(|&c| c == op.code).unwrap() as u32;
            let t = b.start_table();
            b.push_slot::<u32>(slot(0), idx, 0);
            b.push_slot_always(slot(1), ins);
            b.push_slot_always(slot(2), outs);
            b.end_table(t)
        })
        .collect();
    let ops_vec = b.create_vector(&op_tables);
    let ins = b.create_vector(inputs);
    let outs = b.create_vector(outputs);
    let t = b.start_table();
    b.push_slot_always(slot(0), tensors_vec);
    b.push_slot_always(slot(1), ins);
    b.push_slot_always(slot(2), outs);
    b.push_slot_always(slot(3), ops_vec);
    let subgraph = b.end_table(t);
    let subgraphs = b.create_vector(&[subgraph]);
    let t = b.start_table();
    b.push_slot::<u32>(slot(0), 3, 0);
    b.push_slot_always(slot(1), codes_vec);
    b.push_slot_always(slot(2), subgraphs);
    b.push_slot_always(slot(4), buffers);
    let model = b.end_table(t);
    b.finish(model, Some("TFL3"));
    b.finished_data().to_vec()
}

/// [`chain_items`] as a model: tensor 0 is the graph input, tensor `i + 1` the output of
/// operator `i` (ADD), which reads tensor `i + 1 - distance` (tensor 0 for `i < distance`).
pub fn chain_tflite(ops: usize, distance: usize) -> Vec<u8> {
    let mut shapes = vec![vec![1, 16]];
    shapes.extend((0..ops).map(|i| vec![1, chain_bytes(i) as i32]));
    let model_ops: Vec<Op> = (0..ops)
        .map(|i| Op {
            code: 0,
            inputs: vec![if i >= distance {
                (i + 1 - distance) as i32
            } else {
                0
            }],
            outputs: vec![(i + 1) as i32],
        })
        .collect();
    let outputs: Vec<i32> = (ops.saturating_sub(distance)..ops)
        .map(|i| (i + 1) as i32)
        .collect();
    tflite(&shapes, &model_ops, &[0], &outputs)
}

/// [`split_concat_items`] as a model: SPLIT (code 49) of tensor 0 into tensors `1..=k`,
/// CONCATENATION (code 2) of those into tensor `k + 1`.
pub fn split_concat_tflite(k: usize) -> Vec<u8> {
    let mut shapes = vec![vec![1, 16 * k as i32]];
    shapes.extend((0..k).map(|_| vec![1, 16]));
    shapes.push(vec![1, 16 * k as i32]);
    let parts: Vec<i32> = (1..=k as i32).collect();
    let ops = [
        Op {
            code: 49,
            inputs: vec![0],
            outputs: parts.clone(),
        },
        Op {
            code: 2,
            inputs: parts,
            outputs: vec![k as i32 + 1],
        },
    ];
    tflite(&shapes, &ops, &[0], &[k as i32 + 1])
}
