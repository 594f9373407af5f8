//! PRELU (int8, int16, float32): TFLM's `micro/kernels/prelu.cc` and `prelu_common.cc`,
//! the input and `alpha` broadcast against each other ([`Broadcast`]: the pairs of TFLM's
//! `BroadcastBinaryOpSimple` and `BroadcastPrelu4DSlowFloat`).
//!
//! - float32 (`BroadcastPrelu4DSlowFloat`): `x >= 0 ? x : x · alpha`; at most 4 dimensions
//!   (TFLM's 4-D loop; more is refused at load).
//! - int8, and int16 with an int8 `alpha` (`reference_ops::BroadcastPrelu4DSlow`,
//!   `CalculatePreluParams`): `v = x − input_zero_point`; `v >= 0` requantized by
//!   `QuantizeMultiplier(double(input_scale) / double(output_scale))`, else
//!   `v · (alpha − alpha_zero_point)` by `QuantizeMultiplier(double(input_scale) ·
//!   double(alpha_scale) / double(output_scale))`; plus the output zero point, clamped to the
//!   type. A multiplier that is not finite and non-negative, or of 2^31 or more, is refused
//!   at load (TFLM's shift would be undefined), as are zero points outside their type.
//!
//! Either operand may be a constant (`alpha` usually is). The output may overlap the input
//! (in place) where the input has the output's shape.

use synaptic_tflite::{code, TensorType};

use crate::contract::Contract;
use crate::error::{KernelError, LoadError, Operand, TensorTypes, Unsupported};
use crate::math::{multiply_by_quantized_multiplier, requantization_multiplier, zero_point_in};
use crate::ops::elementwise::binary::Broadcast;
use crate::ops::float::{F32s, LeF32};
use crate::ops::in_place::{check, drive};
use crate::ops::{Geometry, InPlaceOperands, Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::PRELU];

const OP: &str = "PRELU";

/// A prepared quantized PRELU (int8, or int16 with int8 `alpha`; TFLM's `PreluParams`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PreluParams {
    /// The element pairing of input and alpha.
    pub(crate) broadcast: Broadcast,
    /// `-input_zero_point`.
    pub(crate) input_offset: i32,
    /// `-alpha_zero_point`.
    pub(crate) alpha_offset: i32,
    /// The output zero point.
    pub(crate) output_offset: i32,
    /// The multiplier and shift of values at or above the zero point.
    pub(crate) identity: [i32; 2],
    /// Those of the values below it (times alpha).
    pub(crate) alpha: [i32; 2],
    /// The output type's range.
    pub(crate) range: [i32; 2],
}

impl PreluParams {
    /// One output value from input value `x` and alpha value `a`.
    #[inline]
    fn of(&self, x: i32, a: i32) -> i32 {
        let v = self.input_offset.wrapping_add(x);
        let out = if v >= 0 {
            multiply_by_quantized_multiplier(v, self.identity[0], self.identity[1])
        } else {
            let av = self.alpha_offset.wrapping_add(a);
            multiply_by_quantized_multiplier(v.wrapping_mul(av), self.alpha[0], self.alpha[1])
        };
        out.wrapping_add(self.output_offset)
            .clamp(self.range[0], self.range[1])
    }
}

/// The bytes of element `i` of `N`-byte elements at `at` in `buf`.
#[inline(always)]
fn elem<const N: usize>(buf: &[u8], at: usize, i: usize) -> [u8; N] {
    let mut b = [0u8; N];
    b.copy_from_slice(&buf[at + N * i..at + N * i + N]);
    b
}

/// A quantized PRELU kernel on `N`-byte input elements (`N` 1: int8, 2: int16), `alpha` int8.
macro_rules! prelu_kernel {
    ($kernel:ident, $ty:ty, $n:literal, $doc:literal) => {
        #[doc = $doc]
        pub struct $kernel;

        impl Kernel for $kernel {
            const NAME: &'static str = OP;
            const MAX_INPUTS: usize = 2;
            type Params = PreluParams;
            // `alpha` may be a planned input beside the pair's.
            const PAIR_INPUT: Option<usize> = None;

            fn run(p: &PreluParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
                let (x, a) = (io.bytes(0), io.bytes(1));
                let [n1, n2, n] = p.broadcast.sizes();
                KernelError::check_len(OP, Operand::Input(0), n1, x.len() / $n)?;
                KernelError::check_len(OP, Operand::Input(1), n2, a.len())?;
                let out = io.out_bytes();
                KernelError::check_len(OP, Operand::Output, n, out.len() / $n)?;
                p.broadcast.for_each_pair(|j, i1, i2| {
                    let x = i32::from(<$ty>::from_le_bytes(elem::<$n>(x, 0, i1)));
                    let v = p.of(x, i32::from(a[i2] as i8)) as $ty;
                    out[$n * j..$n * j + $n].copy_from_slice(&v.to_le_bytes());
                });
                Ok(())
            }

            fn contract(p: &PreluParams, k: usize, _out: Geometry) -> Option<Contract> {
                let bc = &p.broadcast;
                (k == 0 && bc.full(0)).then(|| Contract::elementwise(bc.sizes()[2], $n, $n))
            }

            fn run_in_place(
                p: &PreluParams,
                io: &mut InPlaceOperands<'_, '_>,
            ) -> Result<usize, KernelError> {
                let bc = &p.broadcast;
                if io.k != 0 || !bc.full(0) {
                    return Err(KernelError::unsupported(OP, Unsupported::BroadcastOverlap));
                }
                let a = io.bytes(1);
                let [_, n2, n] = bc.sizes();
                KernelError::check_len(OP, Operand::Input(1), n2, a.len())?;
                let at = io.at;
                check(OP, || Contract::elementwise(n, $n, $n), io.buf, &at)?;
                drive::<$n>(io.buf, at.output, n, at.direction, |buf, j| {
                    let x = i32::from(<$ty>::from_le_bytes(elem::<$n>(buf, at.input, j)));
                    let v = p.of(x, i32::from(a[bc.index(1, j)] as i8)) as $ty;
                    Ok(v.to_le_bytes())
                })?;
                Ok($n * n)
            }
        }
    };
}

prelu_kernel!(Prelu, i8, 1, "The PRELU kernel, int8.");
prelu_kernel!(
    PreluI16,
    i16,
    2,
    "The PRELU kernel, int16 (its `alpha` int8)."
);

/// The float32 PRELU's parameters: the pairing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PreluF32Params {
    /// The element pairing of input and alpha.
    pub(crate) broadcast: Broadcast,
}

/// One float32 PRELU output.
#[inline]
fn prelu_f32(x: f32, a: f32) -> f32 {
    if x >= 0.0 {
        x
    } else {
        x * a
    }
}

/// The PRELU kernel, float32.
pub struct PreluF32;

impl Kernel for PreluF32 {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 2;
    type Params = PreluF32Params;
    const PAIR_INPUT: Option<usize> = None;

    fn run(p: &PreluF32Params, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let (x, a) = (LeF32(io.bytes(0)), LeF32(io.bytes(1)));
        let [n1, n2, n] = p.broadcast.sizes();
        KernelError::check_len(OP, Operand::Input(0), n1, x.count())?;
        KernelError::check_len(OP, Operand::Input(1), n2, a.count())?;
        let out = io.out_f32()?;
        KernelError::check_len(OP, Operand::Output, n, out.len())?;
        p.broadcast
            .for_each_pair(|j, i1, i2| out[j] = prelu_f32(x.at(i1), a.at(i2)));
        Ok(())
    }

    fn contract(p: &PreluF32Params, k: usize, _out: Geometry) -> Option<Contract> {
        let bc = &p.broadcast;
        (k == 0 && bc.full(0)).then(|| Contract::elementwise(bc.sizes()[2], 4, 4))
    }

    fn run_in_place(
        p: &PreluF32Params,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        let bc = &p.broadcast;
        if io.k != 0 || !bc.full(0) {
            return Err(KernelError::unsupported(OP, Unsupported::BroadcastOverlap));
        }
        let a = LeF32(io.bytes(1));
        let [_, n2, n] = bc.sizes();
        KernelError::check_len(OP, Operand::Input(1), n2, a.count())?;
        let at = io.at;
        check(OP, || Contract::elementwise(n, 4, 4), io.buf, &at)?;
        drive::<4>(io.buf, at.output, n, at.direction, |buf, j| {
            let x = LeF32(&buf[at.input..]).at(j);
            Ok(prelu_f32(x, a.at(bc.index(1, j))).to_le_bytes())
        })?;
        Ok(4 * n)
    }
}

/// Prepares PRELU: input and output of one type (int8, int16 or float32), `alpha` int8 (or
/// float32 for a float input), either input possibly a constant, broadcast together.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, 2)?;
    let (x, a, out) = (cx.input_ref(0)?, cx.input_ref(1)?, cx.output_ref()?);
    let (ty, alpha_ty, expected) = match x.ty {
        TensorType::Float32 if crate::ops::float::BUILT => (
            TensorType::Float32,
            TensorType::Float32,
            TensorTypes::Float32,
        ),
        TensorType::Int16 => (TensorType::Int16, TensorType::Int8, TensorTypes::Int8),
        _ => (TensorType::Int8, TensorType::Int8, TensorTypes::Int8),
    };
    if x.ty != ty {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Input(0),
            expected: TensorTypes::Int8Int16OrFloat32,
        }));
    }
    cx.type_of(a, Operand::Input(1), alpha_ty, expected)?;
    for (k, t) in [x, a].into_iter().enumerate() {
        if !t.data.is_empty() {
            cx.constant(t, Operand::Input(k as u8))?;
        }
    }
    cx.activation_of(out, Operand::Output, ty)?;
    let broadcast = Broadcast::new(OP, x.shape(), a.shape(), out.shape()).map_err(|e| cx.err(e))?;
    if ty == TensorType::Float32 {
        // `BroadcastPrelu4DSlowFloat`: a 4-D loop.
        if [x.rank, a.rank, out.rank].iter().any(|&r| r > 4) {
            return Err(cx.unsupported(Unsupported::Rank));
        }
        return Prepared::of::<PreluF32>(cx, PreluF32Params { broadcast });
    }
    cx.quantized(&[x, a, out])?;
    let range = if ty == TensorType::Int16 {
        [i32::from(i16::MIN), i32::from(i16::MAX)]
    } else {
        [-128, 127]
    };
    let zp = |q, r: [i32; 2]| zero_point_in(OP, q, r[0], r[1]).map_err(|e| cx.err(e));
    let input_zp = zp(x.q, range)?;
    let alpha_zp = zp(a.q, [-128, 127])?;
    let output_zp = zp(out.q, range)?;
    let (si, sa, so) = (
        f64::from(x.q.scale),
        f64::from(a.q.scale),
        f64::from(out.q.scale),
    );
    let q = |r: f64| {
        requantization_multiplier(OP, r)
            .map(|(m, s)| [m, s])
            .map_err(|e| cx.err(e))
    };
    let p = PreluParams {
        broadcast,
        input_offset: -input_zp,
        alpha_offset: -alpha_zp,
        output_offset: output_zp,
        identity: q(si / so)?,
        alpha: q(si * sa / so)?,
        range,
    };
    if ty == TensorType::Int16 {
        Prepared::of::<PreluI16>(cx, p)
    } else {
        Prepared::of::<Prelu>(cx, p)
    }
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(PreluParams {
    broadcast: Broadcast,
    input_offset: i32,
    alpha_offset: i32,
    output_offset: i32,
    identity: [i32; 2],
    alpha: [i32; 2],
    range: [i32; 2],
});
crate::format::codec::words!(PreluF32Params {
    broadcast: Broadcast
});
