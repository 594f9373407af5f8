//! LEAKY_RELU (int8, int16, float32): TFLM's `micro/kernels/leaky_relu.cc`.
//!
//! - float32 (`reference_ops::LeakyRelu`): `x > 0 ? x : x · alpha` (single precision).
//! - int8, int16 (`QuantizeLeakyRelu`): `v = x − input_zero_point`; `v ≥ 0` requantized by
//!   `QuantizeMultiplier(double(input_scale / output_scale))`, `v < 0` by
//!   `QuantizeMultiplier(double(input_scale · alpha / output_scale))` (each product and quotient
//!   in single precision first, as TFLM), plus the output zero point, clamped to the type. A
//!   negative `alpha` is refused for these (TFLM's multiplier of a negative real can be
//!   `-2^31`, whose negation overflows); float32 takes any.
//!
//! Every kernel is element-wise: its output may overlap its dying input (in place).

use synaptic_tflite::{code, TensorType};

use crate::contract::Contract;
use crate::error::{KernelError, LoadError, Operand, ShapeFault, Unsupported};
use crate::math::{
    multiply_by_quantized_multiplier, quantize_multiplier, zero_point_in, QuantParams,
};
use crate::ops::float::{F32s, LeF32};
use crate::ops::in_place::{check, drive, x8};
use crate::ops::{Geometry, InPlaceOperands, Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::LEAKY_RELU];

const OP: &str = "LEAKY_RELU";

/// A prepared quantized LEAKY_RELU (int8 or int16): made only by [`LeakyReluParams::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeakyReluParams {
    /// Input zero point.
    pub(crate) input_offset: i32,
    /// Output zero point.
    pub(crate) output_offset: i32,
    /// The multiplier and shift of the values at or above the zero point.
    pub(crate) identity: [i32; 2],
    /// Those of the values below it.
    pub(crate) alpha: [i32; 2],
    /// The output type's range.
    pub(crate) range: [i32; 2],
}

impl LeakyReluParams {
    /// `CalculateOpDataLeakyRelu` for an output of range `range` (int8's or int16's).
    pub fn new(
        input: QuantParams,
        output: QuantParams,
        alpha: f32,
        range: [i32; 2],
    ) -> Result<Self, KernelError> {
        let input_offset = zero_point_in(OP, input, range[0], range[1])?;
        let output_offset = zero_point_in(OP, output, range[0], range[1])?;
        let reals = [
            f64::from(input.scale / output.scale),
            f64::from(input.scale * alpha / output.scale),
        ];
        if reals.iter().any(|r| !r.is_finite() || *r < 0.0) || reals[0] <= 0.0 {
            return Err(KernelError::unsupported(OP, Unsupported::Multiplier));
        }
        let q = |r: f64| {
            let (m, s) = quantize_multiplier(r);
            [m, s]
        };
        Ok(LeakyReluParams {
            input_offset,
            output_offset,
            identity: q(reals[0]),
            alpha: q(reals[1]),
            range,
        })
    }

    /// One output value.
    #[inline]
    fn of(&self, x: i32) -> i32 {
        let v = x - self.input_offset;
        let [m, s] = if v >= 0 { self.identity } else { self.alpha };
        self.output_offset
            .wrapping_add(multiply_by_quantized_multiplier(v, m, s))
            .clamp(self.range[0], self.range[1])
    }

    /// One int8 output value.
    #[inline]
    fn value(&self, x: i8) -> i8 {
        self.of(i32::from(x)) as i8
    }

    /// One int16 output value.
    #[inline]
    fn value_i16(&self, x: i16) -> i16 {
        self.of(i32::from(x)) as i16
    }
}

i8_unary_kernel!("LEAKY_RELU", LeakyRelu, LeakyReluParams);

i16_unary_kernel!("LEAKY_RELU", LeakyReluI16, LeakyReluParams);

/// The float32 LEAKY_RELU's parameter: `alpha`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LeakyReluF32Params {
    /// The slope below zero.
    pub(crate) alpha: f32,
}

impl LeakyReluF32Params {
    /// One output value (`LeakyRelu`: `val > 0 ? val : val * alpha`).
    #[inline]
    fn value(&self, x: f32) -> f32 {
        if x > 0.0 {
            x
        } else {
            x * self.alpha
        }
    }
}

/// The LEAKY_RELU kernel, float32.
pub struct LeakyReluF32;

impl Kernel for LeakyReluF32 {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 1;
    type Params = LeakyReluF32Params;

    fn run(p: &LeakyReluF32Params, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.f32(0)?;
        let out = io.out_f32()?;
        KernelError::check_len(OP, Operand::Output, x.len(), out.len())?;
        for (o, &v) in out.iter_mut().zip(x) {
            *o = p.value(v);
        }
        Ok(())
    }

    fn contract(_p: &LeakyReluF32Params, k: usize, out: Geometry) -> Option<Contract> {
        (k == 0).then(|| Contract::elementwise(out.elems, 4, 4))
    }

    fn run_in_place(
        p: &LeakyReluF32Params,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        let n = io.out()?.elems;
        let at = io.at;
        check(OP, || Contract::elementwise(n, 4, 4), io.buf, &at)?;
        drive::<4>(io.buf, at.output, n, at.direction, |buf, j| {
            Ok(p.value(LeF32(&buf[at.input..]).at(j)).to_le_bytes())
        })?;
        Ok(4 * n)
    }
}

/// Prepares LEAKY_RELU: input and output of one type (int8, int16 or float32) and size.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, 1)?;
    let (x, out) = (cx.input(0)?, cx.output()?);
    let ty = match x.ty {
        TensorType::Float32 if crate::ops::float::BUILT => TensorType::Float32,
        TensorType::Int16 => TensorType::Int16,
        _ => TensorType::Int8,
    };
    cx.activation_of(&x, Operand::Input(0), ty)?;
    cx.activation_of(&out, Operand::Output, ty)?;
    if x.bytes != out.bytes {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let alpha = cx.op().leaky_relu_alpha()?;
    if ty == TensorType::Float32 {
        return Prepared::of::<LeakyReluF32>(cx, LeakyReluF32Params { alpha });
    }
    cx.quantized(&[&x, &out])?;
    let range = if ty == TensorType::Int16 {
        [i32::from(i16::MIN), i32::from(i16::MAX)]
    } else {
        [-128, 127]
    };
    let p = LeakyReluParams::new(x.q, out.q, alpha, range).map_err(|e| cx.err(e))?;
    if ty == TensorType::Int16 {
        Prepared::of::<LeakyReluI16>(cx, p)
    } else {
        Prepared::of::<LeakyRelu>(cx, p)
    }
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(LeakyReluParams {
    input_offset: i32,
    output_offset: i32,
    identity: [i32; 2],
    alpha: [i32; 2],
    range: [i32; 2],
});
crate::format::codec::words!(LeakyReluF32Params { alpha: f32 });
