//! A tiny `.tflite` writer for tests (the `flatbuffers` crate's `FlatBufferBuilder`, fields
//! numbered as in TensorFlow Lite's `schema.fbs`): just the tables the importer reads.
#![allow(dead_code)]

use flatbuffers::FlatBufferBuilder;

/// TFLite `TensorType` INT8.
pub const INT8: i8 = 9;
/// TFLite builtin `ADD`.
pub const ADD: i32 = 0;
/// TFLite builtin `WHILE`.
pub const WHILE: i32 = 119;

/// One tensor.
pub struct Tensor {
    pub name: String,
    pub shape: Vec<i32>,
    pub dtype: i8,
    /// Model buffer index (0: no data, an activation).
    pub buffer: u32,
    /// Per-tensor quantization (scale, zero point), if any.
    pub quant: Option<(f32, i64)>,
}

/// An INT8 activation tensor.
pub fn act(name: &str, shape: &[i32]) -> Tensor {
    Tensor {
        name: name.to_string(),
        shape: shape.to_vec(),
        dtype: INT8,
        buffer: 0,
        quant: None,
    }
}

/// An INT8 tensor quantized with `scale` and `zero_point`, its data in model buffer `buffer`
/// (0: an activation).
pub fn quantized(name: &str, shape: &[i32], buffer: u32, scale: f32, zero_point: i64) -> Tensor {
    Tensor {
        buffer,
        quant: Some((scale, zero_point)),
        ..act(name, shape)
    }
}

/// One operator: index into the model's opcodes, input and output tensor indices.
pub struct Op {
    pub opcode: usize,
    pub inputs: Vec<i32>,
    pub outputs: Vec<i32>,
}

/// One subgraph.
pub struct Subgraph {
    pub name: String,
    pub tensors: Vec<Tensor>,
    pub inputs: Vec<i32>,
    pub outputs: Vec<i32>,
    pub ops: Vec<Op>,
}

const fn slot(n: u16) -> u16 {
    4 + 2 * n
}

/// The model's bytes: `opcodes` are builtin codes, `buffers[0]` should be empty.
pub fn build(opcodes: &[i32], subgraphs: &[Subgraph], buffers: &[Vec<u8>]) -> Vec<u8> {
    let mut b = FlatBufferBuilder::new();
    let mut codes = Vec::new();
    for &c in opcodes {
        let t = b.start_table();
        b.push_slot_always::<i8>(slot(0), c.min(127) as i8);
        b.push_slot_always::<i32>(slot(3), c);
        codes.push(b.end_table(t));
    }
    let mut sgs = Vec::new();
    for sg in subgraphs {
        let mut ts = Vec::new();
        for t in &sg.tensors {
            let shape = b.create_vector(&t.shape);
            let name = b.create_string(&t.name);
            let quant = t.quant.map(|(scale, zp)| {
                let scales = b.create_vector(&[scale]);
                let zps = b.create_vector(&[zp]);
                let w = b.start_table();
                b.push_slot_always(slot(2), scales);
                b.push_slot_always(slot(3), zps);
                b.end_table(w)
            });
            let w = b.start_table();
            b.push_slot_always(slot(0), shape);
            b.push_slot_always::<i8>(slot(1), t.dtype);
            b.push_slot_always::<u32>(slot(2), t.buffer);
            b.push_slot_always(slot(3), name);
            if let Some(q) = quant {
                b.push_slot_always(slot(4), q);
            }
            ts.push(b.end_table(w));
        }
        let mut ops = Vec::new();
        for op in &sg.ops {
            let ins = b.create_vector(&op.inputs);
            let outs = b.create_vector(&op.outputs);
            let w = b.start_table();
            b.push_slot_always::<u32>(slot(0), op.opcode as u32);
            b.push_slot_always(slot(1), ins);
            b.push_slot_always(slot(2), outs);
            ops.push(b.end_table(w));
        }
        let ts = b.create_vector(&ts);
        let ins = b.create_vector(&sg.inputs);
        let outs = b.create_vector(&sg.outputs);
        let ops = b.create_vector(&ops);
        let name = b.create_string(&sg.name);
        let w = b.start_table();
        b.push_slot_always(slot(0), ts);
        b.push_slot_always(slot(1), ins);
        b.push_slot_always(slot(2), outs);
        b.push_slot_always(slot(3), ops);
        b.push_slot_always(slot(4), name);
        sgs.push(b.end_table(w));
    }
    let mut bufs = Vec::new();
    for data in buffers {
        let v = (!data.is_empty()).then(|| b.create_vector(data));
        let w = b.start_table();
        if let Some(v) = v {
            b.push_slot_always(slot(0), v);
        }
        bufs.push(b.end_table(w));
    }
    let codes = b.create_vector(&codes);
    let sgs = b.create_vector(&sgs);
    let bufs = b.create_vector(&bufs);
    let w = b.start_table();
    b.push_slot_always::<u32>(slot(0), 3);
    b.push_slot_always(slot(1), codes);
    b.push_slot_always(slot(2), sgs);
    b.push_slot_always(slot(4), bufs);
    let root = b.end_table(w);
    b.finish(root, Some("TFL3"));
    b.finished_data().to_vec()
}

/// A one-operator subgraph `opcode(t0[, t0]) -> t1` over INT8 tensors `names` of `shapes`.
pub fn one_op_graph(
    name: &str,
    opcode: usize,
    names: [&str; 2],
    shapes: [&[i32]; 2],
    inputs: usize,
) -> Subgraph {
    Subgraph {
        name: name.into(),
        tensors: vec![act(names[0], shapes[0]), act(names[1], shapes[1])],
        inputs: vec![0],
        outputs: vec![1],
        ops: vec![Op {
            opcode,
            inputs: vec![0; inputs],
            outputs: vec![1],
        }],
    }
}

/// A one-operator (ADD) model: input `[1, 16]` → output `[1, 16]`, tensors named `names`.
pub fn one_add(names: [&str; 2]) -> Vec<u8> {
    build(
        &[ADD],
        &[one_op_graph("main", 0, names, [&[1, 16], &[1, 16]], 2)],
        &[vec![]],
    )
}

/// Issue 10's item 7 model: the main subgraph is `WHILE(in) -> out`; subgraph 1 ("body") is
/// `ADD(x, x) -> big` with `big` an activation of 200,000 bytes.
pub fn while_with_big_body() -> Vec<u8> {
    build(
        &[WHILE, ADD],
        &[
            one_op_graph("main", 0, ["in", "out"], [&[1, 16], &[1, 16]], 1),
            one_op_graph("body", 1, ["x", "big"], [&[1, 16], &[200_000]], 2),
        ],
        &[vec![]],
    )
}
