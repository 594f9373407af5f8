//! MIRROR_PAD (int8, float32, as TFLM's `micro/kernels/mirror_pad.cc`; moved as bytes): each
//! output element is the input element TFLM's `GetFlatIndex` maps it to, dimension by
//! dimension: inside the input, itself; in the left padding of width `L`, the mirror
//! `L + offset - 1 - min(c, L - 1)`; in the right padding, `n - 1 - offset - min(q, n - 1 -
//! offset)` (`q` the distance past the input's end, `n` the input's dimension), with `offset`
//! 1 for REFLECT (the edge not repeated) and 0 for SYMMETRIC — and for a mode TFLM's parser
//! does not know, or no options at all (TFLM's mode is then unknown, its offset 0). No
//! arithmetic: bit-exactness is the element order.
//!
//! The paddings must be a constant int32 or int64 `[rank, 2]` tensor, none negative, and the
//! output the padded input (TFLM computes with the output's shape unchecked). A left padding
//! wider than `n - offset`, where TFLM's map reads outside the input, is refused at load
//! ([`Unsupported::MirrorPadding`]); a right padding of any width maps inside the input (the
//! minimum clamps it), as TFLM computes it.

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::common::{Dims, MAX_DIMS};
use crate::ops::prep::{element_bytes, int_values};
use crate::ops::shape::pad::row_major_strides;
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::MIRROR_PAD];

const OP: &str = "MIRROR_PAD";

/// A prepared MIRROR_PAD: made only by its module's preparation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MirrorPadParams {
    input: Dims,
    output: Dims,
    /// The left padding of each dimension.
    before: [usize; MAX_DIMS],
    /// 1: REFLECT; 0: SYMMETRIC (or TFLM's unknown mode).
    offset: usize,
    /// Bytes of an element.
    elem: usize,
}

/// The input coordinate TFLM's `GetInputDimension` maps output coordinate `c` of a dimension
/// of `n` input elements, left padding `left`, to (in `0 .. n` for the paddings preparation
/// accepts).
fn input_coordinate(c: usize, left: usize, n: usize, offset: usize) -> usize {
    if c < left {
        // original = left + offset - 1; original - min(c, original - offset).
        return left + offset - 1 - c.min(left - 1);
    }
    let c = c - left;
    if c >= n {
        // original = n - (1 + offset), -1 for a REFLECT dimension of 1: then 0.
        let q = c - n;
        return match (n - 1).checked_sub(offset) {
            Some(original) => original - q.min(original),
            None => 0,
        };
    }
    c
}

/// The MIRROR_PAD kernel (bytes: int8, float32).
pub struct MirrorPad;

impl Kernel for MirrorPad {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 2;
    type Params = MirrorPadParams;

    fn run(p: &MirrorPadParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.bytes(0);
        let out = io.out_bytes();
        let w = p.elem;
        let (rank, n_out) = (p.output.rank(), p.output.flat_size());
        KernelError::check_len(OP, Operand::Input(0), p.input.flat_size() * w, x.len())?;
        KernelError::check_len(OP, Operand::Output, n_out * w, out.len())?;
        if rank != p.input.rank() || w == 0 {
            return Err(KernelError::unsupported(OP, Unsupported::ProgramMismatch));
        }
        let in_strides = row_major_strides(&p.input);
        let mut c = [0usize; MAX_DIMS];
        for dst in out.chunks_exact_mut(w) {
            let mut src = 0;
            for d in 0..rank {
                src +=
                    input_coordinate(c[d], p.before[d], p.input.dim(d), p.offset) * in_strides[d];
            }
            let from = x
                .get(src * w..src * w + w)
                .ok_or(KernelError::unsupported(OP, Unsupported::ProgramMismatch))?;
            dst.copy_from_slice(from);
            // Next output element: odometer over the dimensions, the last fastest.
            for d in (0..rank).rev() {
                c[d] += 1;
                if c[d] < p.output.dim(d) {
                    break;
                }
                c[d] = 0;
            }
        }
        Ok(())
    }
}

/// Prepares MIRROR_PAD (`MirrorPadPrepare`).
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, 2)?;
    let (x, pads, out) = (cx.input(0)?, cx.input(1)?, cx.output()?);
    let ty = match x.ty {
        TensorType::Float32 if crate::ops::float::BUILT => TensorType::Float32,
        _ => TensorType::Int8,
    };
    cx.activation_of(&x, Operand::Input(0), ty)?;
    cx.activation_of(&out, Operand::Output, ty)?;
    cx.constant(&pads, Operand::Paddings)?;
    let rank = x.rank;
    if !matches!(pads.ty, TensorType::Int32 | TensorType::Int64) {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Paddings,
            expected: TensorTypes::Int32OrInt64,
        }));
    }
    if pads.shape() != [rank, 2] || out.rank != rank {
        return Err(cx.shape(ShapeFault::PaddingsRows));
    }
    let offset = usize::from(cx.op().mirror_pad_mode()? == Some(0));
    let data = &pads.data[..pads.bytes];
    let values = int_values(pads.ty, data).into_iter().flatten();
    let mut raw = [0i64; 2 * MAX_DIMS];
    for (r, v) in raw.iter_mut().zip(values) {
        *r = v;
    }
    let mut before = [0usize; MAX_DIMS];
    for d in 0..rank {
        let (l, r, n) = (raw[2 * d], raw[2 * d + 1], x.shape()[d] as i64);
        if l < 0 || r < 0 {
            return Err(cx.unsupported(Unsupported::NegativePadding));
        }
        if l > n - offset as i64 {
            return Err(cx.unsupported(Unsupported::MirrorPadding));
        }
        if l.checked_add(n).and_then(|s| s.checked_add(r)) != Some(out.shape()[d] as i64) {
            return Err(cx.shape(ShapeFault::NotPadded));
        }
        before[d] = l as usize;
    }
    let p = MirrorPadParams {
        input: Dims::new(OP, x.shape()).map_err(|e| cx.err(e))?,
        output: Dims::new(OP, out.shape()).map_err(|e| cx.err(e))?,
        before,
        offset,
        elem: element_bytes(ty),
    };
    Prepared::of::<MirrorPad>(cx, p)
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(MirrorPadParams {
    input: Dims,
    output: Dims,
    before: [usize; MAX_DIMS],
    offset: usize,
    elem: usize,
});

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::input_coordinate;

    /// TFLM's map of a dimension of 3 padded by 2 on each side: REFLECT `c b | a b c | b a`,
    /// SYMMETRIC `b a | a b c | c b`.
    #[test]
    fn mirrors_as_tflm() {
        let map = |offset| {
            (0..7)
                .map(|c| input_coordinate(c, 2, 3, offset))
                .collect::<Vec<_>>()
        };
        assert_eq!(map(1), [2, 1, 0, 1, 2, 1, 0]);
        assert_eq!(map(0), [1, 0, 0, 1, 2, 2, 1]);
        // A right padding past the mirror clamps to the edge; REFLECT of one element: itself.
        assert_eq!(input_coordinate(9, 0, 3, 1), 0);
        assert_eq!(input_coordinate(3, 0, 1, 1), 0);
    }
}
