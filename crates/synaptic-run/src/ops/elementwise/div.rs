//! DIV: `reference_ops::Div` / `BroadcastDivSlow`.
//! - int32 (unquantized): C's truncating division then the fused activation's clamp
//!   (`CalculateActivationRange`). A division by zero is a kernel error here (TFLM's would
//!   trap), a constant divisor holding a zero refused at load; `i32::MIN / -1` wraps.
//! - float32: `x / y` (IEEE: a zero divisor gives an infinity or NaN, as TFLM's), clamped to
//!   the fused activation's range.
//!
//! TFLM's int8 DIV is not built: such a model is refused at load.

use synaptic_tflite::code;

use crate::error::{LoadError, Operand, TensorTypes, Unsupported};
use crate::ops::elementwise::binary::{
    is_float, is_i32, prepare_f32, prepare_i32, BinaryF32, BinaryI32, I32Params, OpF32, OpI32,
};
use crate::ops::{Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::DIV];

/// Prepares DIV.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    if is_float(cx) {
        return Prepared::of::<DivF32>(cx, prepare_f32(cx)?);
    }
    if !is_i32(cx) {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Output,
            expected: TensorTypes::Int32OrFloat32,
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

impl OpF32 for DivOp {
    const NAME: &'static str = "DIV";
    /// `x / y` (TFLM's reference float DIV; then the clamp).
    #[inline]
    fn value(x: f32, y: f32) -> f32 {
        x / y
    }
}

/// The DIV kernel, float32.
pub type DivF32 = BinaryF32<DivOp>;
