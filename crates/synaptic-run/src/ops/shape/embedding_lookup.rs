//! EMBEDDING_LOOKUP (float32 and int8 tables, as TFLM's `micro/kernels/embedding_lookup.cc`):
//! output row `i` is the table's row `ids[i]` (input 0, int32, 1-D; the table, input 1, of
//! at least 2 dimensions, a row its elements after the first). A float32 or int8 table into
//! an output of its type is moved as bytes; an int8 table into a float32 output (TFLM's
//! hybrid path) is dequantized as TFLM's `Dequantize` does, `(float)q * scale` in single
//! precision, its zero point 0 (TFLM's check). An id outside the table's rows fails the
//! operator ([`Unsupported::IndexOutOfRange`], as TFLM fails it; a constant one at load). The
//! output has the shape TFLM sets (the ids', then the table's rows'), or the model is
//! refused.

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::common::MAX_DIMS;
use crate::ops::prep::element_bytes;
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::EMBEDDING_LOOKUP];

const OP: &str = "EMBEDDING_LOOKUP";

/// A prepared EMBEDDING_LOOKUP: made only by its module's preparation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EmbeddingLookupParams {
    /// The ids (output rows).
    ids: usize,
    /// The table's rows.
    rows: usize,
    /// Elements of a row.
    columns: usize,
    /// Bytes of a table element.
    elem: usize,
    /// Dequantize an int8 table into float32 with this scale (TFLM's hybrid path).
    hybrid: bool,
    /// The table's scale (hybrid).
    scale: f32,
}

/// The EMBEDDING_LOOKUP kernel (float32 and int8 tables: bytes, or int8 dequantized).
pub struct EmbeddingLookup;

impl Kernel for EmbeddingLookup {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 2;
    type Params = EmbeddingLookupParams;

    fn run(p: &EmbeddingLookupParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let (ids, table) = (io.bytes(0), io.bytes(1));
        let out = io.out_bytes();
        let row = p.columns * p.elem;
        let out_row = if p.hybrid { p.columns * 4 } else { row };
        KernelError::check_len(OP, Operand::Input(0), p.ids * 4, ids.len())?;
        KernelError::check_len(OP, Operand::Input(1), p.rows * row, table.len())?;
        KernelError::check_len(OP, Operand::Output, p.ids * out_row, out.len())?;
        let id = |w: &[u8]| i32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        // Every id first: nothing written when one is out of range.
        if ids
            .chunks_exact(4)
            .any(|w| !(0..p.rows as i64).contains(&i64::from(id(w))))
        {
            return Err(KernelError::unsupported(OP, Unsupported::IndexOutOfRange));
        }
        for (w, dst) in ids
            .chunks_exact(4)
            .zip(out.chunks_exact_mut(out_row.max(1)))
        {
            let r = id(w) as usize;
            let src = table
                .get(r * row..(r + 1) * row)
                .ok_or(KernelError::unsupported(OP, Unsupported::IndexOutOfRange))?;
            if p.hybrid {
                for (o, &q) in dst.chunks_exact_mut(4).zip(src) {
                    o.copy_from_slice(&(f32::from(q as i8) * p.scale).to_le_bytes());
                }
            } else {
                dst.copy_from_slice(src);
            }
        }
        Ok(())
    }
}

/// Prepares EMBEDDING_LOOKUP (`EmbeddingLookUpPrepare`).
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, 2)?;
    let (ids, table, out) = (cx.input(0)?, cx.input(1)?, cx.output()?);
    cx.type_of(
        &ids,
        Operand::Input(0),
        TensorType::Int32,
        TensorTypes::Int32,
    )?;
    if !ids.data.is_empty() {
        cx.constant(&ids, Operand::Input(0))?;
    }
    let float = crate::ops::float::BUILT;
    let hybrid = match (table.ty, out.ty) {
        (TensorType::Float32, TensorType::Float32) if float => false,
        (TensorType::Int8, TensorType::Int8) => false,
        (TensorType::Int8, TensorType::Float32) if float => true,
        (TensorType::Int8 | TensorType::Float32, _) => {
            return Err(cx.unsupported(Unsupported::TensorType {
                operand: Operand::Output,
                expected: TensorTypes::Int8OrFloat32,
            }))
        }
        _ => {
            return Err(cx.unsupported(Unsupported::TensorType {
                operand: Operand::Input(1),
                expected: TensorTypes::Int8OrFloat32,
            }))
        }
    };
    if !table.data.is_empty() {
        cx.constant(&table, Operand::Input(1))?;
    }
    if ids.rank != 1 {
        return Err(cx.shape(ShapeFault::RankDiffers));
    }
    let ts = table.shape();
    if ts.len() < 2 {
        return Err(cx.shape(ShapeFault::TooFewDimensions {
            operand: Operand::Input(1),
            min: 2,
        }));
    }
    // The output's shape as TFLM sets it: the ids', then a row's.
    let mut want = [0usize; MAX_DIMS];
    want[..ts.len()].copy_from_slice(ts);
    want[0] = ids.shape()[0];
    if want[..ts.len()] != *out.shape() {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let mut scale = 0.0;
    if hybrid {
        cx.quantized(&[&table])?;
        if table.q.zero_point != 0 {
            return Err(cx.unsupported(Unsupported::ZeroPoint(table.q.zero_point)));
        }
        scale = table.q.scale;
    }
    let p = EmbeddingLookupParams {
        ids: ids.shape()[0],
        rows: ts[0],
        columns: ts[1..].iter().product(),
        elem: element_bytes(table.ty),
        hybrid,
        scale,
    };
    // Constant ids: checked once, here.
    let data = ids.data.get(..ids.bytes).unwrap_or(&[]);
    if data.chunks_exact(4).any(|w| {
        !(0..p.rows as i64).contains(&i64::from(i32::from_le_bytes([w[0], w[1], w[2], w[3]])))
    }) {
        return Err(cx.unsupported(Unsupported::IndexOutOfRange));
    }
    Prepared::of::<EmbeddingLookup>(cx, p)
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(EmbeddingLookupParams {
    ids: usize,
    rows: usize,
    columns: usize,
    elem: usize,
    hybrid: bool,
    scale: f32,
});
