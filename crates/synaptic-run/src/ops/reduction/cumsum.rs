//! CUMSUM (int8, float32, as TFLM's `micro/kernels/cumsum.cc`): `reference_ops::CumSum`
//! (`cumsum.h`), the running sum along one axis, `exclusive` (each output the sum before its
//! element) and `reverse` (summed from the axis' end). float32: one single-precision
//! accumulator from 0 per line, added in TFLM's order. int8: TFLM's fixed-point path — each
//! input `y = q − zp_in` shifted left by 20 and halved (the input multiplier 0.5, exactly
//! `y · 2^19`), summed in a 32-bit accumulator (wrapping, as TFLM's `int32_t` does on every
//! target) that starts, as TFLM's does, at the scaled `−zp_in` (not 0), then requantized by
//! `2·s_in / (2^20·s_out)` (`MultiplyByQuantizedMultiplierSmallerThanOneExp`), offset by the
//! output zero point and clamped to int8. A multiplier TFLM's
//! `QuantizeMultiplierSmallerThanOneExp` refuses (not below 1 once quantized) is refused at
//! load. The axis must be a constant int32 scalar inside the rank (TFLM reads it at each
//! invocation and fails an invalid one).

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::math::{
    multiply_by_quantized_multiplier_smaller_than_one_exp, quantize_multiplier_smaller_than_one_exp,
};
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::CUMSUM];

const OP: &str = "CUMSUM";

/// TFLM's `kCumSumIntegerShift`.
const LEFT_SHIFT: i32 = 20;

/// The lines of a prepared CUMSUM: made only by its module's preparation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CumsumParams {
    /// Elements before the axis (TFLM's `inner`).
    before: usize,
    /// The axis' length.
    depth: usize,
    /// Elements after the axis (TFLM's `outer`).
    after: usize,
    exclusive: bool,
    reverse: bool,
}

impl CumsumParams {
    /// Every line along the axis, as the element indices in summation order, to `f` (one call
    /// per line, its indices in order).
    fn lines(&self, mut f: impl FnMut(&mut dyn Iterator<Item = usize>)) {
        let (before, depth, after, rev) = (self.before, self.depth, self.after, self.reverse);
        let adj = |i: usize, n: usize| if rev { n - 1 - i } else { i };
        for o in 0..after {
            let o = adj(o, after);
            for b in 0..before {
                let b = adj(b, before);
                f(&mut (0..depth).map(|d| o + b * depth * after + adj(d, depth) * after));
            }
        }
    }

    /// Elements of the input (and output); `usize::MAX` if the product overflows (no tensor
    /// has that many: refused by the length checks).
    fn elems(&self) -> usize {
        self.before
            .checked_mul(self.depth)
            .and_then(|n| n.checked_mul(self.after))
            .unwrap_or(usize::MAX)
    }
}

/// A prepared int8 CUMSUM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CumsumI8Params {
    lines: CumsumParams,
    /// `−zp_in`.
    input_offset: i32,
    input_multiplier: i32,
    input_shift: i32,
    output_multiplier: i32,
    output_shift: i32,
    output_offset: i32,
}

/// The CUMSUM kernel, int8.
pub struct CumsumI8;

impl Kernel for CumsumI8 {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 2;
    type Params = CumsumI8Params;

    fn run(p: &CumsumI8Params, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.i8(0)?;
        let out = io.out_i8()?;
        let n = p.lines.elems();
        KernelError::check_len(OP, Operand::Input(0), n, x.len())?;
        KernelError::check_len(OP, Operand::Output, n, out.len())?;
        if !(-31..=0).contains(&p.input_shift) || !(-31..=0).contains(&p.output_shift) {
            return Err(KernelError::unsupported(OP, Unsupported::ProgramMismatch));
        }
        let scale_in = |y: i32| {
            multiply_by_quantized_multiplier_smaller_than_one_exp(
                y.wrapping_mul(1 << LEFT_SHIFT),
                p.input_multiplier,
                p.input_shift,
            )
        };
        let first = scale_in(p.input_offset);
        p.lines.lines(|line| {
            let mut acc = first;
            for i in line {
                let scaled = scale_in(p.input_offset + i32::from(x[i]));
                let sum = if p.lines.exclusive {
                    let before = acc;
                    acc = acc.wrapping_add(scaled);
                    before
                } else {
                    acc = acc.wrapping_add(scaled);
                    acc
                };
                let raw = multiply_by_quantized_multiplier_smaller_than_one_exp(
                    sum,
                    p.output_multiplier,
                    p.output_shift,
                )
                .wrapping_add(p.output_offset);
                out[i] = raw.clamp(-128, 127) as i8;
            }
        });
        Ok(())
    }
}

/// The CUMSUM kernel, float32.
pub struct CumsumF32;

impl Kernel for CumsumF32 {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 2;
    type Params = CumsumParams;

    fn run(p: &CumsumParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.f32(0)?;
        let out = io.out_f32()?;
        KernelError::check_len(OP, Operand::Input(0), p.elems(), x.len())?;
        KernelError::check_len(OP, Operand::Output, p.elems(), out.len())?;
        p.lines(|line| {
            let mut acc = 0.0f32;
            for i in line {
                if p.exclusive {
                    out[i] = acc;
                    acc += x[i];
                } else {
                    acc += x[i];
                    out[i] = acc;
                }
            }
        });
        Ok(())
    }
}

/// Prepares CUMSUM (`CalculateOpData`).
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, 2)?;
    let (x, axis, out) = (cx.input(0)?, cx.input(1)?, cx.output()?);
    let ty = match x.ty {
        TensorType::Float32 if crate::ops::float::BUILT => TensorType::Float32,
        _ => TensorType::Int8,
    };
    cx.activation_of(&x, Operand::Input(0), ty)?;
    cx.activation_of(&out, Operand::Output, ty)?;
    cx.type_of(&axis, Operand::Axes, TensorType::Int32, TensorTypes::Int32)?;
    cx.constant(&axis, Operand::Axes)?;
    if axis.bytes != 4 {
        return Err(cx.shape(ShapeFault::NotScalar));
    }
    let xs = x.shape();
    if out.shape() != xs {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let rank = xs.len() as i32;
    let a = &axis.data[..4];
    let raw = i32::from_le_bytes([a[0], a[1], a[2], a[3]]);
    let ax = if raw < 0 { raw + rank } else { raw };
    if !(0..rank).contains(&ax) {
        return Err(cx.shape(ShapeFault::AxisOutOfRange(raw)));
    }
    let ax = ax as usize;
    let (exclusive, reverse) = cx.op().cumsum_options()?;
    let lines = CumsumParams {
        before: xs[..ax].iter().product(),
        depth: xs[ax],
        after: xs[ax + 1..].iter().product(),
        exclusive,
        reverse,
    };
    if ty == TensorType::Float32 {
        return Prepared::of::<CumsumF32>(cx, lines);
    }
    cx.quantized(&[&x, &out])?;
    let (s_in, s_out) = (f64::from(x.q.scale), f64::from(out.q.scale));
    let twice = 2.0 * s_in;
    let multiplier = |real: f64| -> Result<(i32, i32), LoadError> {
        let (m, s) = quantize_multiplier_smaller_than_one_exp(OP, real).map_err(|e| cx.err(e))?;
        // TFLM's `TFLITE_CHECK_LE(shift, 0)`: a multiplier that rounds up to 1.
        if s > 0 {
            return Err(cx.unsupported(Unsupported::Multiplier));
        }
        Ok((m, s))
    };
    let (input_multiplier, input_shift) = multiplier(s_in / twice)?;
    let (output_multiplier, output_shift) =
        multiplier(twice / (f64::from(1 << LEFT_SHIFT) * s_out))?;
    let p = CumsumI8Params {
        lines,
        input_offset: -x.q.zero_point,
        input_multiplier,
        input_shift,
        output_multiplier,
        output_shift,
        output_offset: out.q.zero_point,
    };
    Prepared::of::<CumsumI8>(cx, p)
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(CumsumParams {
    before: usize,
    depth: usize,
    after: usize,
    exclusive: bool,
    reverse: bool,
});

crate::format::codec::words!(CumsumI8Params {
    lines: CumsumParams,
    input_offset: i32,
    input_multiplier: i32,
    input_shift: i32,
    output_multiplier: i32,
    output_shift: i32,
    output_offset: i32,
});
