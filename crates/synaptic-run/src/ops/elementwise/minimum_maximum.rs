//! MINIMUM and MAXIMUM int32: `reference_ops::MaximumMinimumBroadcastSlow` on `int32_t` (no
//! activation). The other types TFLM takes (int8, int16, float32) are not built here: such a
//! model is refused at load.

use synaptic_tflite::code;

use crate::error::{LoadError, Operand, TensorTypes, Unsupported};
use crate::ops::elementwise::binary::{is_i32, prepare_i32, BinaryI32, I32Params, OpI32};
use crate::ops::{Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::MINIMUM, code::MAXIMUM];

/// Prepares MINIMUM or MAXIMUM.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    if !is_i32(cx) {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Output,
            expected: TensorTypes::Int32,
        }));
    }
    let p = I32Params::new(prepare_i32(cx)?, None);
    if cx.code() == code::MINIMUM {
        Prepared::of::<MinimumI32>(cx, p)
    } else {
        Prepared::of::<MaximumI32>(cx, p)
    }
}

/// MINIMUM on int32.
pub struct MinOp;

impl OpI32 for MinOp {
    const NAME: &'static str = "MINIMUM";
    #[inline]
    fn value(x: i32, y: i32) -> Option<i32> {
        Some(x.min(y))
    }
}

/// MAXIMUM on int32.
pub struct MaxOp;

impl OpI32 for MaxOp {
    const NAME: &'static str = "MAXIMUM";
    #[inline]
    fn value(x: i32, y: i32) -> Option<i32> {
        Some(x.max(y))
    }
}

/// The MINIMUM kernel, int32.
pub type MinimumI32 = BinaryI32<MinOp>;
/// The MAXIMUM kernel, int32.
pub type MaximumI32 = BinaryI32<MaxOp>;
