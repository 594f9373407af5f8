//! DIV int32 (unquantized): `reference_ops::Div` / `BroadcastDivSlow` on `int32_t`, C's
//! truncating division then the fused activation's clamp (`CalculateActivationRange`). A
//! division by zero is a kernel error here (TFLM's would trap), a constant divisor holding a
//! zero refused at load; `i32::MIN / -1` wraps.
//! TFLM's float32 and int8 DIV are not built: such a model is refused at load.

use synaptic_tflite::code;

use crate::error::{LoadError, Operand, TensorTypes, Unsupported};
use crate::ops::elementwise::binary::{is_i32, prepare_i32, BinaryI32, I32Params, OpI32};
use crate::ops::{Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::DIV];

/// Prepares DIV.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    if !is_i32(cx) {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Output,
            expected: TensorTypes::Int32,
        }));
    }
    let bc = prepare_i32(cx)?;
    // A constant divisor with a zero: every invocation would fail (TFLM's would trap), so it
    // is refused here. (An activation's zero is known only at its invocation, which it fails.)
    let divisor = cx.input(1)?;
    if divisor
        .data
        .chunks_exact(4)
        .take(divisor.bytes / 4)
        .any(|w| w == [0; 4])
    {
        return Err(cx.unsupported(Unsupported::DivisionByZero));
    }
    let ac = cx.activation(cx.op().arithmetic_activation(cx.code())?)?;
    Prepared::of::<DivI32>(cx, I32Params::new(bc, Some(ac)))
}

/// DIV on int32.
pub struct DivOp;

impl OpI32 for DivOp {
    const NAME: &'static str = "DIV";
    #[inline]
    fn value(x: i32, y: i32) -> Option<i32> {
        (y != 0).then(|| x.wrapping_div(y))
    }
}

/// The DIV kernel, int32.
pub type DivI32 = BinaryI32<DivOp>;
