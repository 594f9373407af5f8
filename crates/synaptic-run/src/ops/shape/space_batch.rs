//! SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND (int8, float32, as TFLM's
//! `micro/kernels/space_to_batch_nd.cc` and `batch_to_space_nd.cc`; moved as bytes):
//! `reference_ops::SpaceToBatchND` and `BatchToSpaceND` on 4-D NHWC tensors (a 3-D NHC one
//! as NH1C, its block width 1). SPACE_TO_BATCH_ND: output batch `b` is input batch
//! `b % batches` at shift `(b / batches) / block_w, (b / batches) % block_w`.
//! BATCH_TO_SPACE_ND: the inverse, input pixels in the crops dropped.
//!
//! TFLM reads the block shape and the paddings (crops) at each invocation and checks nothing
//! but ranks and types; here they must be int32 constants (`[spatial]` and `[spatial, 2]`),
//! the block positive, the paddings and crops not negative, and the output of the shape they
//! give (TFLM writes outside its output, or leaves part of it unwritten, otherwise).
//! SPACE_TO_BATCH_ND with a padding is refused ([`Unsupported::SpaceToBatchPadding`]): TFLM
//! fills it with its parameters' `output_offset`, which its `Prepare` never sets (the bytes
//! its persistent buffer happens to hold: the wheel gives a different value per model), so
//! its output there is undefined; the kernel itself writes zero bytes there.

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::prep::{element_bytes, small_i32s};
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::SPACE_TO_BATCH_ND, code::BATCH_TO_SPACE_ND];

/// A prepared SPACE_TO_BATCH_ND or BATCH_TO_SPACE_ND: made only by its module's preparation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpaceBatchParams {
    /// BATCH_TO_SPACE_ND (else SPACE_TO_BATCH_ND).
    to_space: bool,
    /// The input's shape, NHWC.
    input: [usize; 4],
    /// The output's shape, NHWC.
    output: [usize; 4],
    /// Block height and width.
    block: [usize; 2],
    /// The top and left padding (crops).
    before: [usize; 2],
    /// Bytes of an element.
    elem: usize,
}

/// The SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND kernel (bytes: int8, float32).
pub struct SpaceBatch;

impl Kernel for SpaceBatch {
    const NAME: &'static str = "SPACE_TO_BATCH_ND";
    const MAX_INPUTS: usize = 3;
    type Params = SpaceBatchParams;

    fn run(p: &SpaceBatchParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let op = if p.to_space {
            "BATCH_TO_SPACE_ND"
        } else {
            Self::NAME
        };
        let x = io.bytes(0);
        let out = io.out_bytes();
        let [ib, ih, iw, depth] = p.input;
        let [ob, oh, ow, od] = p.output;
        let [bh, bw] = p.block;
        let [top, left] = p.before;
        let pixel = depth * p.elem;
        KernelError::check_len(op, Operand::Input(0), ib * ih * iw * pixel, x.len())?;
        KernelError::check_len(op, Operand::Output, ob * oh * ow * od * p.elem, out.len())?;
        let mismatch = || KernelError::unsupported(op, Unsupported::ProgramMismatch);
        if od != depth || bh == 0 || bw == 0 || ib == 0 || ob == 0 {
            return Err(mismatch());
        }
        let mut copy = |dst: usize, src: Option<usize>| -> Result<(), KernelError> {
            let to = out
                .get_mut(dst * pixel..(dst + 1) * pixel)
                .ok_or_else(mismatch)?;
            match src {
                Some(s) => {
                    to.copy_from_slice(x.get(s * pixel..(s + 1) * pixel).ok_or_else(mismatch)?)
                }
                None => to.fill(0),
            }
            Ok(())
        };
        if p.to_space {
            // BatchToSpaceND: every input pixel to its output pixel, the crops dropped.
            for b in 0..ib {
                let (out_b, spatial) = (b % ob, b / ob);
                for h in 0..ih {
                    let Some(y) = (h * bh + spatial / bw).checked_sub(top).filter(|&y| y < oh)
                    else {
                        continue;
                    };
                    for w in 0..iw {
                        let Some(col) = (w * bw + spatial % bw)
                            .checked_sub(left)
                            .filter(|&c| c < ow)
                        else {
                            continue;
                        };
                        copy((out_b * oh + y) * ow + col, Some((b * ih + h) * iw + w))?;
                    }
                }
            }
        } else {
            // SpaceToBatchND: every output pixel from its input pixel, or the padding.
            for b in 0..ob {
                let in_b = b % ib;
                let (shift_h, shift_w) = ((b / ib) / bw, (b / ib) % bw);
                for h in 0..oh {
                    let y = (h * bh + shift_h).checked_sub(top).filter(|&y| y < ih);
                    for w in 0..ow {
                        let col = (w * bw + shift_w).checked_sub(left).filter(|&c| c < iw);
                        let src = match (y, col) {
                            (Some(y), Some(c)) => Some((in_b * ih + y) * iw + c),
                            _ => None,
                        };
                        copy((b * oh + h) * ow + w, src)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// The values of constant int32 input `k`, a tensor of shape `shape` (at most 4 values).
fn constant_i32s(cx: &Prep<'_, '_>, k: usize, shape: &[usize]) -> Result<[i32; 4], LoadError> {
    let t = cx.input(k)?;
    let operand = Operand::Input(k as u8);
    cx.constant(&t, operand)?;
    cx.type_of(&t, operand, TensorType::Int32, TensorTypes::Int32)?;
    if t.shape() != shape {
        return Err(cx.shape(ShapeFault::PaddingsRows));
    }
    let (v, _) = small_i32s::<4>(&t.data[..t.bytes])
        .ok_or(cx.unsupported(Unsupported::TooManyValues(operand)))?;
    Ok(v)
}

/// A 3-D NHC shape as NH1C, a 4-D one as it is.
fn nhwc(s: &[usize]) -> [usize; 4] {
    match *s {
        [n, h, c] => [n, h, 1, c],
        [n, h, w, c] => [n, h, w, c],
        _ => [0; 4],
    }
}

/// Prepares SPACE_TO_BATCH_ND or BATCH_TO_SPACE_ND.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(3, 3)?;
    let to_space = cx.code() == code::BATCH_TO_SPACE_ND;
    let (x, out) = (cx.input(0)?, cx.output()?);
    let ty = match x.ty {
        TensorType::Float32 if crate::ops::float::BUILT => TensorType::Float32,
        _ => TensorType::Int8,
    };
    cx.activation_of(&x, Operand::Input(0), ty)?;
    cx.activation_of(&out, Operand::Output, ty)?;
    let rank = x.rank;
    if !(3..=4).contains(&rank) || out.rank != rank {
        return Err(cx.unsupported(Unsupported::Rank));
    }
    let spatial = rank - 2;
    let block = constant_i32s(cx, 1, &[spatial])?;
    let pads = constant_i32s(cx, 2, &[spatial, 2])?;
    // The block and paddings of the height and, 4-D, the width (NH1C: 1 and none).
    let (bh, bw) = (block[0], if rank == 4 { block[1] } else { 1 });
    let [t, b, l, r] = if rank == 4 {
        pads
    } else {
        [pads[0], pads[1], 0, 0]
    };
    if bh < 1 || bw < 1 {
        return Err(cx.unsupported(Unsupported::BlockSize));
    }
    if [t, b, l, r].iter().any(|&v| v < 0) {
        return Err(cx.unsupported(Unsupported::NegativePadding));
    }
    if !to_space && [t, b, l, r].iter().any(|&v| v != 0) {
        return Err(cx.unsupported(Unsupported::SpaceToBatchPadding));
    }
    let (input, output) = (nhwc(x.shape()), nhwc(out.shape()));
    let [bh, bw, t, b, l, r] = [bh, bw, t, b, l, r].map(|v| v as usize);
    // The shape TF gives the output (the space side padded, or cropped, by whole blocks).
    let (space, batch) = if to_space {
        (output, input)
    } else {
        (input, output)
    };
    let padded = |n: usize, a: usize, c: usize, k: usize| -> Option<usize> {
        if to_space {
            // Output = input·block − crops.
            n.checked_mul(k)?.checked_sub(a)?.checked_sub(c)
        } else {
            let s = n.checked_add(a)?.checked_add(c)?;
            (s % k == 0).then_some(s / k)
        }
    };
    let want_batch = space[0].checked_mul(bh).and_then(|v| v.checked_mul(bw));
    let (want_h, want_w) = if to_space {
        (padded(batch[1], t, b, bh), padded(batch[2], l, r, bw))
    } else {
        (padded(space[1], t, b, bh), padded(space[2], l, r, bw))
    };
    let (got_h, got_w) = if to_space {
        (space[1], space[2])
    } else {
        (batch[1], batch[2])
    };
    if want_batch != Some(batch[0])
        || want_h != Some(got_h)
        || want_w != Some(got_w)
        || space[3] != batch[3]
    {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let p = SpaceBatchParams {
        to_space,
        input,
        output,
        block: [bh, bw],
        before: [t, l],
        elem: element_bytes(ty),
    };
    Prepared::of::<SpaceBatch>(cx, p)
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(SpaceBatchParams {
    to_space: bool,
    input: [usize; 4],
    output: [usize; 4],
    block: [usize; 2],
    before: [usize; 2],
    elem: usize,
});
