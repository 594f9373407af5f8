//! SHAPE (any input type, int32 output; `shape_of`, its family being `shape`): TFLM's
//! `micro/kernels/shape.cc` — the input's dimensions, as int32. They are known at load (every tensor's shape is static), so the
//! parameters hold them and the kernel never reads the input's bytes.

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::common::Dims;
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::SHAPE];

/// A prepared SHAPE: the input's dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShapeParams {
    /// The input's shape.
    pub(crate) input: Dims,
}

/// Prepares SHAPE.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, 1)?;
    let (x, out) = (cx.input(0)?, cx.output()?);
    // TFLM's Eval writes int32 only.
    if out.ty != TensorType::Int32 {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Output,
            expected: TensorTypes::Int32,
        }));
    }
    let input = Dims::new("SHAPE", x.shape()).map_err(|e| cx.err(e))?;
    if out.bytes != 4 * input.rank() || input.as_slice().iter().any(|&d| d > i32::MAX as usize) {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    // The input's bytes are never read: no location in the record.
    Ok(Prepared::of::<Shape>(cx, ShapeParams { input })?.unread(0))
}

/// The SHAPE kernel.
pub struct Shape;

impl Kernel for Shape {
    const NAME: &'static str = "SHAPE";
    const MAX_INPUTS: usize = 1;
    type Params = ShapeParams;

    #[inline]
    fn run(p: &ShapeParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let out = io.out_i32()?;
        let dims = p.input.as_slice();
        KernelError::check_len("SHAPE", Operand::Output, dims.len(), out.len())?;
        for (o, &d) in out.iter_mut().zip(dims) {
            *o = d as i32;
        }
        Ok(())
    }
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(ShapeParams { input: Dims });
