//! ZEROS_LIKE (int8, int32, int64, float32, as TFLM): `zeros_like.cc` — an output of the
//! input's shape and type, every byte zero. The input's bytes are never read.

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::ZEROS_LIKE];

/// Prepares ZEROS_LIKE.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, 1)?;
    let (x, out) = (cx.input(0)?, cx.output()?);
    if !matches!(
        x.ty,
        TensorType::Int8 | TensorType::Int32 | TensorType::Int64 | TensorType::Float32
    ) {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Input(0),
            expected: TensorTypes::OutputType,
        }));
    }
    if x.ty != out.ty || x.shape() != out.shape() || x.bytes != out.bytes {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    // The input's bytes are never read: no location in the record.
    Ok(Prepared::of::<ZerosLike>(cx, ())?.unread(0))
}

/// The ZEROS_LIKE kernel (any element type: zero bytes).
pub struct ZerosLike;

impl Kernel for ZerosLike {
    const NAME: &'static str = "ZEROS_LIKE";
    const MAX_INPUTS: usize = 1;
    type Params = ();

    #[inline]
    fn run(_: &(), io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        io.out_bytes().fill(0);
        Ok(())
    }
}
