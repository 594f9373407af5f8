//! SPACE_TO_DEPTH and DEPTH_TO_SPACE (int8, float32, as TFLM: moved as bytes):
//! `reference_ops::SpaceToDepth` and `DepthToSpace` over 4-D NHWC tensors with a block of
//! `block_size` × `block_size` pixels. SPACE_TO_DEPTH: input pixel `(h, w)`, channel `d` goes
//! to output pixel `(h / b, w / b)`, channel `d + ((h % b)·b + w % b)·depth`; DEPTH_TO_SPACE is
//! its inverse. TFLM computes the output's shape from the input's (SPACE_TO_DEPTH requires the
//! height and width to be multiples of the block, DEPTH_TO_SPACE the depth a multiple of its
//! square); a model whose output has another shape is refused here, never written past. No
//! overlap: every output element reads another input element.

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::prep::element_bytes;
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::SPACE_TO_DEPTH, code::DEPTH_TO_SPACE];

/// A prepared SPACE_TO_DEPTH or DEPTH_TO_SPACE: made only by its module's preparation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpaceDepthParams {
    /// The input's batches, height, width and depth.
    pub(crate) input: [usize; 4],
    /// The block's side.
    pub(crate) block: usize,
    /// Bytes an element.
    pub(crate) elem: usize,
    /// DEPTH_TO_SPACE (else SPACE_TO_DEPTH).
    pub(crate) to_space: bool,
}

/// The SPACE_TO_DEPTH and DEPTH_TO_SPACE kernel.
pub struct SpaceDepth;

impl Kernel for SpaceDepth {
    // One kernel for both: named by the first (a run-time error names it).
    const NAME: &'static str = "SPACE_TO_DEPTH";
    const MAX_INPUTS: usize = 1;
    type Params = SpaceDepthParams;

    fn run(p: &SpaceDepthParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.bytes(0);
        let out = io.out_bytes();
        let [batches, height, width, depth] = p.input;
        let (b, e) = (p.block, p.elem);
        let n = batches * height * width * depth * e;
        KernelError::check_len(Self::NAME, Operand::Input(0), n, x.len())?;
        KernelError::check_len(Self::NAME, Operand::Output, n, out.len())?;
        // The output's height, width and depth (SPACE_TO_DEPTH's; DEPTH_TO_SPACE's the
        // input's seen the other way).
        let (oh, ow, od) = if p.to_space {
            (height * b, width * b, depth / (b * b))
        } else {
            (height / b, width / b, depth * b * b)
        };
        // Each element of the space side (height·b × width·b × depth/b² for DEPTH_TO_SPACE's
        // output, the input for SPACE_TO_DEPTH) against its place on the depth side.
        let (sh, sw, sd, dh, dw, dd) = if p.to_space {
            (oh, ow, od, height, width, depth)
        } else {
            (height, width, depth, oh, ow, od)
        };
        let mut s_at = 0;
        for bi in 0..batches {
            for h in 0..sh {
                for w in 0..sw {
                    let base = ((bi * dh + h / b) * dw + w / b) * dd + ((h % b) * b + w % b) * sd;
                    for d in 0..sd {
                        let (si, di) = (s_at * e, (base + d) * e);
                        if p.to_space {
                            out[si..si + e].copy_from_slice(&x[di..di + e]);
                        } else {
                            out[di..di + e].copy_from_slice(&x[si..si + e]);
                        }
                        s_at += 1;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Prepares SPACE_TO_DEPTH or DEPTH_TO_SPACE: a 4-D int8 or float32 input, a positive
/// block, the output of the shape TFLM computes.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, 1)?;
    let (x, out) = (cx.input(0)?, cx.output()?);
    let to_space = cx.code() == code::DEPTH_TO_SPACE;
    let ty = match x.ty {
        TensorType::Float32 if crate::ops::float::BUILT => TensorType::Float32,
        _ => TensorType::Int8,
    };
    cx.activation_of(&x, Operand::Input(0), ty)?;
    if out.ty != ty {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Output,
            expected: TensorTypes::FirstInputType,
        }));
    }
    cx.activation_of(&out, Operand::Output, ty)?;
    let &[batches, height, width, depth] = x.shape() else {
        return Err(cx.shape(ShapeFault::Not4d(Operand::Input(0))));
    };
    let block = cx.op().block_size(to_space)?;
    let Ok(b) = usize::try_from(block) else {
        return Err(cx.unsupported(Unsupported::BlockSize));
    };
    if b == 0 {
        return Err(cx.unsupported(Unsupported::BlockSize));
    }
    let want = if to_space {
        // TFLM: input_channels == output_channels · b² (the depth a multiple of b²).
        let od = depth / b / b;
        (od * b * b == depth).then(|| [batches, height * b, width * b, od])
    } else {
        // TFLM: the height and width multiples of b.
        (height % b == 0 && width % b == 0).then(|| [batches, height / b, width / b, depth * b * b])
    };
    if want.as_ref().map(|w| &w[..]) != Some(out.shape()) {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    Prepared::of::<SpaceDepth>(
        cx,
        SpaceDepthParams {
            input: [batches, height, width, depth],
            block: b,
            elem: element_bytes(ty),
            to_space,
        },
    )
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(SpaceDepthParams {
    input: [usize; 4],
    block: usize,
    elem: usize,
    to_space: bool,
});
