//! EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL: TFLM's
//! `micro/kernels/comparisons.cc` over `reference_ops`' comparisons, a bool output of the
//! inputs' (possibly broadcast) element pairs ([`Broadcast`], NumPy's rules).
//!
//! - float32, int32, int64 (and bool, EQUAL and NOT_EQUAL only): the values compared as they
//!   are (`NoScaling`; a NaN is equal to nothing, not equal to everything, as in C).
//! - int8 (`WithScaling`): each input's `x − zero_point`, shifted left 8 bits, then
//!   `MultiplyByQuantizedMultiplierSmallerThanOneExp` by its own scale's multiplier
//!   (`QuantizeMultiplierSmallerThanOneExp(double(scale))`), and those compared — inputs of
//!   different quantizations compare by value. A scale of 1 or more is refused (TFLM's
//!   multiplier needs it below 1).
//!
//! Both inputs of one type (TFLM reads the second as the first's type: refused here when they
//! differ), either a constant; the output bool. TFLM broadcasts over at most 4 dimensions
//! (`Broadcast4DSlow`): inputs of different shapes of more are refused. No overlap: the output's
//! elements are a byte, the inputs' up to eight.

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, TensorTypes, Unsupported};
use crate::math::quantize_multiplier_smaller_than_one_exp;
use crate::math::{multiply_by_quantized_multiplier_smaller_than_one_exp, zero_point_in};
use crate::ops::elementwise::binary::{prepare_pairing, Broadcast};
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[
    code::EQUAL,
    code::NOT_EQUAL,
    code::GREATER,
    code::GREATER_EQUAL,
    code::LESS,
    code::LESS_EQUAL,
];

/// A prepared comparison: made only by its module's preparation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompareParams {
    /// The element pairing.
    pub(crate) broadcast: Broadcast,
    /// The result for each ordering of a pair: bit 0 less, bit 1 equal, bit 2 greater; bit 3
    /// for an unordered pair (a NaN: NOT_EQUAL's only).
    pub(crate) truth: u32,
    /// int8: input 1's offset (`-zero_point`), multiplier and shift.
    pub(crate) a: [i32; 3],
    /// int8: input 2's.
    pub(crate) b: [i32; 3],
}

impl CompareParams {
    /// The result for a pair ordered `o` (`None`: unordered).
    #[inline]
    fn of(&self, o: Option<core::cmp::Ordering>) -> u8 {
        let bit = match o {
            Some(o) => (o as i32 + 1) as u32,
            None => 3,
        };
        ((self.truth >> bit) & 1) as u8
    }
}

/// The truth bits of comparison `code` ([`CompareParams::truth`]).
fn truth(code: i32) -> u32 {
    match code {
        code::EQUAL => 0b0010,
        code::NOT_EQUAL => 0b1101,
        code::GREATER => 0b0100,
        code::GREATER_EQUAL => 0b0110,
        code::LESS => 0b0001,
        _ => 0b0011, // LESS_EQUAL
    }
}

/// `(x + offset) · 2^8` by `MultiplyByQuantizedMultiplierSmallerThanOneExp` (`WithScaling`).
#[inline]
fn scaled(x: i8, [offset, multiplier, shift]: [i32; 3]) -> i32 {
    multiply_by_quantized_multiplier_smaller_than_one_exp(
        (i32::from(x) + offset) * (1 << 8),
        multiplier,
        shift,
    )
}

/// An element type the comparisons read from little-endian bytes.
trait Elem {
    const BYTES: usize;
    type V: PartialOrd + Copy;
    fn at(b: &[u8], p: &CompareParams, first: bool) -> Self::V;
}

macro_rules! elem {
    ($t:ident, $v:ty, $n:literal, |$b:ident| $read:expr) => {
        struct $t;
        impl Elem for $t {
            const BYTES: usize = $n;
            type V = $v;
            #[inline(always)]
            fn at($b: &[u8], _p: &CompareParams, _first: bool) -> $v {
                $read
            }
        }
    };
}

elem!(F32, f32, 4, |b| f32::from_le_bytes([
    b[0], b[1], b[2], b[3]
]));
elem!(I32, i32, 4, |b| i32::from_le_bytes([
    b[0], b[1], b[2], b[3]
]));
elem!(I64, i64, 8, |b| i64::from_le_bytes([
    b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]
]));
elem!(Bool, bool, 1, |b| b[0] != 0);

/// int8: the scaled value.
struct I8;
impl Elem for I8 {
    const BYTES: usize = 1;
    type V = i32;
    #[inline(always)]
    fn at(b: &[u8], p: &CompareParams, first: bool) -> i32 {
        scaled(b[0] as i8, if first { p.a } else { p.b })
    }
}

/// The comparison of every output element's pair of `E` values from `in1` and `in2` (their
/// bytes) into `out` (bools). One loop for the six comparisons (their truth bits).
fn compare<E: Elem>(
    op: &'static str,
    p: &CompareParams,
    in1: &[u8],
    in2: &[u8],
    out: &mut [u8],
) -> Result<(), KernelError> {
    let bc = &p.broadcast;
    let [n1, n2, n] = bc.sizes();
    KernelError::check_len(op, Operand::Input(0), n1, in1.len() / E::BYTES)?;
    KernelError::check_len(op, Operand::Input(1), n2, in2.len() / E::BYTES)?;
    KernelError::check_len(op, Operand::Output, n, out.len())?;
    let (w, a, b) = (E::BYTES, &in1[..n1 * E::BYTES], &in2[..n2 * E::BYTES]);
    bc.for_each_pair(|j, i1, i2| {
        let (x, y) = (E::at(&a[i1 * w..], p, true), E::at(&b[i2 * w..], p, false));
        out[j] = p.of(x.partial_cmp(&y));
    });
    Ok(())
}

macro_rules! compare_kernel {
    ($kernel:ident, $elem:ident, $doc:literal, $only:expr) => {
        #[doc = $doc]
        pub struct $kernel;

        impl Kernel for $kernel {
            // One kernel for the six: named by the first (a run-time error names it; the
            // load's name the operator).
            const NAME: &'static str = "EQUAL";
            const ONLY: &'static [i32] = $only;
            const MAX_INPUTS: usize = 2;
            type Params = CompareParams;

            fn run(p: &CompareParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
                let (a, b, name) = (io.bytes(0), io.bytes(1), io.name);
                compare::<$elem>(name, p, a, b, io.out_bytes())
            }
        }
    };
}

compare_kernel!(CompareI8, I8, "The comparisons, int8 (scaled).", &[]);
compare_kernel!(CompareF32, F32, "The comparisons, float32.", &[]);
compare_kernel!(CompareI32, I32, "The comparisons, int32.", &[]);
compare_kernel!(CompareI64, I64, "The comparisons, int64.", &[]);
compare_kernel!(
    CompareBool,
    Bool,
    "EQUAL and NOT_EQUAL, bool.",
    &[code::EQUAL, code::NOT_EQUAL]
);

/// Prepares a comparison (`ComparisonsPrepare`): two inputs of one type TFLM compares, either
/// a constant, a bool output of the broadcast shape.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, 2)?;
    let (a, b) = (cx.input_ref(0)?, cx.input_ref(1)?);
    let equality = matches!(cx.code(), code::EQUAL | code::NOT_EQUAL);
    let ty = a.ty;
    let ok = match ty {
        TensorType::Int8 | TensorType::Int32 | TensorType::Int64 => true,
        TensorType::Float32 => crate::ops::float::BUILT,
        TensorType::Bool => equality,
        _ => false,
    };
    if !ok {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Input(0),
            expected: TensorTypes::Comparable,
        }));
    }
    let broadcast = prepare_pairing(
        cx,
        ty,
        TensorTypes::FirstInputType,
        TensorType::Bool,
        Some(4),
    )?;
    let mut p = CompareParams {
        broadcast,
        truth: truth(cx.code()),
        a: [0; 3],
        b: [0; 3],
    };
    match ty {
        TensorType::Int8 => {
            cx.quantized(&[a, b])?;
            let name = cx.name();
            let side = |q: crate::math::QuantParams| -> Result<[i32; 3], KernelError> {
                let zp = zero_point_in(name, q, -128, 127)?;
                let (m, s) = quantize_multiplier_smaller_than_one_exp(name, f64::from(q.scale))?;
                Ok([-zp, m, s])
            };
            p.a = side(a.q).map_err(|e| cx.err(e))?;
            p.b = side(b.q).map_err(|e| cx.err(e))?;
            Prepared::of::<CompareI8>(cx, p)
        }
        TensorType::Float32 => Prepared::of::<CompareF32>(cx, p),
        TensorType::Int32 => Prepared::of::<CompareI32>(cx, p),
        TensorType::Int64 => Prepared::of::<CompareI64>(cx, p),
        _ => Prepared::of::<CompareBool>(cx, p),
    }
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(CompareParams {
    broadcast: Broadcast,
    truth: u32,
    a: [i32; 3],
    b: [i32; 3],
});

#[cfg(test)]
mod tests {
    use super::*;

    /// Each comparison's truth for less, equal, greater and unordered pairs.
    #[test]
    fn truths() {
        use core::cmp::Ordering::*;
        let row = |c| {
            let p = CompareParams {
                broadcast: Broadcast::new("t", &[1], &[1], &[1]).unwrap(),
                truth: truth(c),
                a: [0; 3],
                b: [0; 3],
            };
            [
                p.of(Some(Less)),
                p.of(Some(Equal)),
                p.of(Some(Greater)),
                p.of(None),
            ]
        };
        assert_eq!(row(code::EQUAL), [0, 1, 0, 0]);
        assert_eq!(row(code::NOT_EQUAL), [1, 0, 1, 1]);
        assert_eq!(row(code::GREATER), [0, 0, 1, 0]);
        assert_eq!(row(code::GREATER_EQUAL), [0, 1, 1, 0]);
        assert_eq!(row(code::LESS), [1, 0, 0, 0]);
        assert_eq!(row(code::LESS_EQUAL), [1, 1, 0, 0]);
    }
}
