//! ARG_MAX and ARG_MIN (int8, float32 input; int32 axis and output, as TFLM's
//! `micro/kernels/arg_min_max.cc`): `reference_ops::ArgMinMax` with `GreaterFn` / `LessFn`,
//! the index of the first largest (smallest) value along the axis — a later value replaces the
//! kept one only when strictly greater (less), so ties keep the first, and a NaN never wins
//! against a number after it (`NaN > x` is false) but stays when it comes first. The axis must
//! be a constant here (TFLM reads it at every invocation); the output has the input's shape
//! without it, or the model is refused.

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::prep::int_values;
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::ARG_MAX, code::ARG_MIN];

/// A prepared ARG_MAX or ARG_MIN: made only by its module's preparation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArgParams {
    /// The dimensions before the axis.
    pub(crate) outer: usize,
    /// The axis' length (at least 1).
    pub(crate) axis_size: usize,
    /// The dimensions after it.
    pub(crate) inner: usize,
    /// ARG_MAX (else ARG_MIN).
    pub(crate) max: bool,
}

/// The kernel's loop over values `at(i)` of the input.
fn arg<V: PartialOrd + Copy>(
    op: &'static str,
    p: &ArgParams,
    n: usize,
    at: impl Fn(usize) -> V,
    out: &mut [i32],
) -> Result<(), KernelError> {
    KernelError::check_len(op, Operand::Input(0), p.outer * p.axis_size * p.inner, n)?;
    KernelError::check_len(op, Operand::Output, p.outer * p.inner, out.len())?;
    for o in 0..p.outer {
        for i in 0..p.inner {
            let mut best = at(o * p.axis_size * p.inner + i);
            let mut best_at = 0;
            for k in 1..p.axis_size {
                let v = at((o * p.axis_size + k) * p.inner + i);
                if (p.max && v > best) || (!p.max && v < best) {
                    best = v;
                    best_at = k as i32;
                }
            }
            out[o * p.inner + i] = best_at;
        }
    }
    Ok(())
}

/// The ARG_MAX and ARG_MIN kernel, int8.
pub struct ArgMinMaxI8;

impl Kernel for ArgMinMaxI8 {
    // One kernel for both: named by the first (a run-time error names it).
    const NAME: &'static str = "ARG_MAX";
    const MAX_INPUTS: usize = 2;
    type Params = ArgParams;

    fn run(p: &ArgParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.bytes(0);
        arg(Self::NAME, p, x.len(), |i| x[i] as i8, io.out_i32()?)
    }
}

/// The ARG_MAX and ARG_MIN kernel, float32.
pub struct ArgMinMaxF32;

impl Kernel for ArgMinMaxF32 {
    const NAME: &'static str = "ARG_MAX";
    const MAX_INPUTS: usize = 2;
    type Params = ArgParams;

    fn run(p: &ArgParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.bytes(0);
        let at =
            |i: usize| f32::from_le_bytes([x[4 * i], x[4 * i + 1], x[4 * i + 2], x[4 * i + 3]]);
        arg(Self::NAME, p, x.len() / 4, at, io.out_i32()?)
    }
}

/// Prepares ARG_MAX or ARG_MIN: an int8 or float32 input, a constant int32 axis, an int32
/// output of the input's shape without the axis.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, 2)?;
    let (x, axis, out) = (cx.input(0)?, cx.input(1)?, cx.output()?);
    let ty = match x.ty {
        TensorType::Float32 if crate::ops::float::BUILT => TensorType::Float32,
        _ => TensorType::Int8,
    };
    cx.type_of(&x, Operand::Input(0), ty, TensorTypes::Int8OrFloat32)?;
    if !x.data.is_empty() {
        cx.constant(&x, Operand::Input(0))?;
    }
    cx.type_of(
        &axis,
        Operand::Input(1),
        TensorType::Int32,
        TensorTypes::Int32,
    )?;
    cx.constant(&axis, Operand::Input(1))?;
    cx.activation_of(&out, Operand::Output, TensorType::Int32)?;
    let a = int_values(axis.ty, axis.data)
        .and_then(|mut v| v.next())
        .ok_or(cx.unsupported(Unsupported::NotConstant(Operand::Input(1))))?;
    let xs = x.shape();
    let rank = xs.len() as i64;
    let a = if a < 0 { a + rank } else { a };
    if !(0 <= a && a < rank) {
        return Err(cx.shape(ShapeFault::AxisOutOfRange(a as i32)));
    }
    let a = a as usize;
    let os = out.shape();
    if os.len() + 1 != xs.len() || os[..a] != xs[..a] || os[a..] != xs[a + 1..] || xs[a] == 0 {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let p = ArgParams {
        outer: xs[..a].iter().product(),
        axis_size: xs[a],
        inner: xs[a + 1..].iter().product(),
        max: cx.code() == code::ARG_MAX,
    };
    if ty == TensorType::Float32 {
        Prepared::of::<ArgMinMaxF32>(cx, p)
    } else {
        Prepared::of::<ArgMinMaxI8>(cx, p)
    }
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(ArgParams {
    outer: usize,
    axis_size: usize,
    inner: usize,
    max: bool,
});
