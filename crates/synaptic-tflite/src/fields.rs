//! Every scalar a model stores, with its byte position: what an in-place edit changes.
//!
//! A hostile model is a real model with a few fields changed. Tests and fuzzers
//! (`fuzz/fuzz_targets/run_model.rs`) make such models by overwriting a field where it lies,
//! which keeps the FlatBuffer well formed: [`for_each_field`] lists the fields the runtime
//! reads (operator codes, graph inputs and outputs, tensor shapes, types, buffers and
//! quantization, operator inputs, outputs and builtin options, buffer lengths) as [`Field`]s,
//! and [`Field::write`] stores a value of the field's [`Kind`] there. A vector's length word is
//! listed too ([`Kind::Len`]): writing a smaller length is an in-place edit that stays inside
//! the buffer. Fields absent from the model (left at their schema default) have no position
//! and are not listed.
//!
//! ```
//! use synaptic_tflite::fields::{for_each_field, Kind};
//! use synaptic_tflite::Model;
//! let mut bytes = synaptic_tflite::tests_support::tiny_model().to_vec();
//! // The output tensor's zero point (the graph's third tensor in this model).
//! let mut zp = None;
//! for_each_field(&Model::new(&bytes).unwrap(), |f| {
//!     if f.what == "quantization.zero_point" && f.owner == 2 {
//!         zp = Some(f);
//!     }
//! })
//! .unwrap();
//! let zp = zp.unwrap();
//! assert_eq!(zp.kind, Kind::Long);
//! zp.write(&mut bytes, 128);
//! let m = Model::new(&bytes).unwrap();
//! let t = m.subgraph(0).unwrap().tensor(2).unwrap();
//! assert_eq!(t.quantization().unwrap().unwrap().zero_points().unwrap().get(0), Some(128));
//! ```

use crate::fb::Table;
use crate::{Error, Model};

/// The type of a field's value, hence its width.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `byte`, `ubyte`, `bool` or a byte-wide enum: 1 byte.
    Byte,
    /// `int` or `uint`: 4 bytes.
    Int,
    /// `float`: 4 bytes.
    Float,
    /// `long`: 8 bytes.
    Long,
    /// A vector's element count (`uint`, 4 bytes); only a smaller count keeps the vector
    /// inside the buffer.
    Len,
}

impl Kind {
    /// Bytes of a value of this kind.
    pub const fn width(self) -> usize {
        match self {
            Kind::Byte => 1,
            Kind::Int | Kind::Float | Kind::Len => 4,
            Kind::Long => 8,
        }
    }
}

/// One field of the model, where it lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// Byte position of the value in the model.
    pub at: usize,
    /// The value's type.
    pub kind: Kind,
    /// Which field: `"<table>.<field>"` as in TFLite's `schema.fbs` (`"tensor.shape"`,
    /// `"quantization.zero_point"`, `"Conv2DOptions.stride_w"`, ...); a vector's length is
    /// `"<table>.<field>.len"`.
    pub what: &'static str,
    /// Index of the table it belongs to in the main subgraph: the tensor (tensor and
    /// quantization fields), the operator (operator and option fields), the operator code,
    /// the buffer; 0 for the subgraph's own inputs and outputs.
    pub owner: usize,
    /// Element index inside a vector (0 for a scalar or a length).
    pub item: usize,
}

impl Field {
    /// Writes `value` (truncated to the field's width, little-endian; a float takes the
    /// `f32` nearest to `value as f32` only through [`Field::write_f32`]) into `model`. Does
    /// nothing if the field does not lie in `model` (another model's field).
    pub fn write(&self, model: &mut [u8], value: i64) {
        let bytes = value.to_le_bytes();
        let w = self.kind.width();
        if let Some(dst) = model.get_mut(self.at..self.at + w) {
            dst.copy_from_slice(&bytes[..w]);
        }
    }

    /// Writes the float `value` into a [`Kind::Float`] field (any other kind: its bits as an
    /// integer, as [`Field::write`]).
    pub fn write_f32(&self, model: &mut [u8], value: f32) {
        self.write(model, i64::from(value.to_bits()));
    }

    /// The value stored in `model` (sign-extended; a float's bits), if the field lies in it.
    pub fn read(&self, model: &[u8]) -> Option<i64> {
        let w = self.kind.width();
        let b = model.get(self.at..self.at + w)?;
        Some(match self.kind {
            Kind::Byte => i64::from(b[0] as i8),
            Kind::Int | Kind::Float | Kind::Len => {
                i64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            }
            Kind::Long => i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
        })
    }
}

/// A scalar field of an option table: field number, kind, name.
type OptionField = (u16, Kind, &'static str);

/// The builtin option tables whose fields are listed: union type, then its fields.
const OPTIONS: &[(u8, &[OptionField])] = &[
    (
        1,
        &[
            (0, Kind::Byte, "Conv2DOptions.padding"),
            (1, Kind::Int, "Conv2DOptions.stride_w"),
            (2, Kind::Int, "Conv2DOptions.stride_h"),
            (3, Kind::Byte, "Conv2DOptions.fused_activation_function"),
            (4, Kind::Int, "Conv2DOptions.dilation_w_factor"),
            (5, Kind::Int, "Conv2DOptions.dilation_h_factor"),
        ],
    ),
    (
        2,
        &[
            (0, Kind::Byte, "DepthwiseConv2DOptions.padding"),
            (1, Kind::Int, "DepthwiseConv2DOptions.stride_w"),
            (2, Kind::Int, "DepthwiseConv2DOptions.stride_h"),
            (3, Kind::Int, "DepthwiseConv2DOptions.depth_multiplier"),
            (
                4,
                Kind::Byte,
                "DepthwiseConv2DOptions.fused_activation_function",
            ),
            (5, Kind::Int, "DepthwiseConv2DOptions.dilation_w_factor"),
            (6, Kind::Int, "DepthwiseConv2DOptions.dilation_h_factor"),
        ],
    ),
    (
        5,
        &[
            (0, Kind::Byte, "Pool2DOptions.padding"),
            (1, Kind::Int, "Pool2DOptions.stride_w"),
            (2, Kind::Int, "Pool2DOptions.stride_h"),
            (3, Kind::Int, "Pool2DOptions.filter_width"),
            (4, Kind::Int, "Pool2DOptions.filter_height"),
            (5, Kind::Byte, "Pool2DOptions.fused_activation_function"),
        ],
    ),
    (
        8,
        &[
            (
                0,
                Kind::Byte,
                "FullyConnectedOptions.fused_activation_function",
            ),
            (1, Kind::Byte, "FullyConnectedOptions.weights_format"),
            (2, Kind::Byte, "FullyConnectedOptions.keep_num_dims"),
        ],
    ),
    (9, &[(0, Kind::Float, "SoftmaxOptions.beta")]),
    (
        10,
        &[
            (0, Kind::Int, "ConcatenationOptions.axis"),
            (
                1,
                Kind::Byte,
                "ConcatenationOptions.fused_activation_function",
            ),
        ],
    ),
    (
        11,
        &[(0, Kind::Byte, "AddOptions.fused_activation_function")],
    ),
    (
        21,
        &[(0, Kind::Byte, "MulOptions.fused_activation_function")],
    ),
    (27, &[(0, Kind::Byte, "ReducerOptions.keep_dims")]),
];

/// Lists a scalar field `n` of `t` if present.
fn scalar(
    t: &Table<'_>,
    n: u16,
    kind: Kind,
    what: &'static str,
    owner: usize,
    f: &mut impl FnMut(Field),
) -> Result<(), Error> {
    if let Some(at) = t.field_position(n, kind.width())? {
        f(Field {
            at,
            kind,
            what,
            owner,
            item: 0,
        });
    }
    Ok(())
}

/// Lists vector field `n` of `t` (elements of `kind`): its length (`len`) and every element
/// (`what`).
#[allow(clippy::too_many_arguments)]
fn vector(
    t: &Table<'_>,
    n: u16,
    kind: Kind,
    what: &'static str,
    len: &'static str,
    owner: usize,
    f: &mut impl FnMut(Field),
) -> Result<(), Error> {
    if let Some((pos, count)) = t.vector_position(n, kind.width())? {
        f(Field {
            at: pos,
            kind: Kind::Len,
            what: len,
            owner,
            item: 0,
        });
        for item in 0..count {
            f(Field {
                at: pos + 4 + item * kind.width(),
                kind,
                what,
                owner,
                item,
            });
        }
    }
    Ok(())
}

/// Calls `f` with every field of `model` listed in the [module docs](self), in file order of
/// their tables: operator codes, buffers' data lengths, then the main subgraph's inputs,
/// outputs, tensors and operators.
pub fn for_each_field(model: &Model<'_>, mut f: impl FnMut(Field)) -> Result<(), Error> {
    let f = &mut f;
    let root = model.root();
    let codes = root.vector(1, 4)?;
    for i in 0..codes.len() {
        let t = codes.table(i)?;
        scalar(
            &t,
            0,
            Kind::Byte,
            "operator_code.deprecated_builtin_code",
            i,
            f,
        )?;
        scalar(&t, 2, Kind::Int, "operator_code.version", i, f)?;
        scalar(&t, 3, Kind::Int, "operator_code.builtin_code", i, f)?;
    }
    for i in 0..model.buffers_len()? {
        let t = model.buffer(i)?.table();
        if let Some((at, _)) = t.vector_position(0, 1)? {
            f(Field {
                at,
                kind: Kind::Len,
                what: "buffer.data.len",
                owner: i,
                item: 0,
            });
        }
    }
    if model.subgraphs_len()? == 0 {
        return Ok(());
    }
    let sg = model.subgraph(0)?;
    vector(
        &sg.table,
        1,
        Kind::Int,
        "subgraph.inputs",
        "subgraph.inputs.len",
        0,
        f,
    )?;
    vector(
        &sg.table,
        2,
        Kind::Int,
        "subgraph.outputs",
        "subgraph.outputs.len",
        0,
        f,
    )?;
    for i in 0..sg.tensors_len()? {
        let t = sg.tensor(i)?;
        vector(&t.0, 0, Kind::Int, "tensor.shape", "tensor.shape.len", i, f)?;
        scalar(&t.0, 1, Kind::Byte, "tensor.type", i, f)?;
        scalar(&t.0, 2, Kind::Int, "tensor.buffer", i, f)?;
        scalar(&t.0, 5, Kind::Byte, "tensor.is_variable", i, f)?;
        if let Some(q) = t.quantization()? {
            let q = q.0;
            vector(
                &q,
                2,
                Kind::Float,
                "quantization.scale",
                "quantization.scale.len",
                i,
                f,
            )?;
            vector(
                &q,
                3,
                Kind::Long,
                "quantization.zero_point",
                "quantization.zero_point.len",
                i,
                f,
            )?;
            scalar(&q, 6, Kind::Int, "quantization.quantized_dimension", i, f)?;
        }
    }
    for i in 0..sg.operators_len()? {
        let op = sg.operator(i)?;
        scalar(&op.0, 0, Kind::Int, "operator.opcode_index", i, f)?;
        vector(
            &op.0,
            1,
            Kind::Int,
            "operator.inputs",
            "operator.inputs.len",
            i,
            f,
        )?;
        vector(
            &op.0,
            2,
            Kind::Int,
            "operator.outputs",
            "operator.outputs.len",
            i,
            f,
        )?;
        scalar(&op.0, 3, Kind::Byte, "operator.builtin_options_type", i, f)?;
        let ty = op.builtin_options_type()?;
        if let (Some(opts), Some((_, fields))) = (
            op.builtin_options()?,
            OPTIONS.iter().find(|(t, _)| *t == ty),
        ) {
            for &(n, kind, what) in fields.iter() {
                scalar(&opts, n, kind, what, i, f)?;
            }
        }
    }
    Ok(())
}
