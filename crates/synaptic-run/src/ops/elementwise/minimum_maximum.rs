//! MINIMUM and MAXIMUM: TFLM's `micro/kernels/maximum_minimum.cc`,
//! `reference_ops::MaximumMinimumBroadcastSlow` of `el1 > el2 ? el1 : el2` (MAXIMUM) or
//! `el1 < el2 ? el1 : el2` (MINIMUM) on the output's type — int8, int16, int32, int64,
//! float32 — over the inputs' (possibly broadcast) element pairs, no activation. int8 and int16
//! compare the stored values: TFLM neither rescales nor checks the quantizations. A float NaN
//! goes C's way (`max(NaN, x)` is `x`, `max(x, NaN)` is NaN). TFLM has no `Prepare` (its kernel
//! reads both inputs as the output's type): inputs of another type are refused here.

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, TensorTypes, Unsupported};
use crate::ops::elementwise::binary::{
    is_i32, prepare_i32, prepare_pairing, BinaryI32, Broadcast, I32Params, OpI32,
};
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::MINIMUM, code::MAXIMUM];

/// Prepares MINIMUM or MAXIMUM.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    if is_i32(cx) {
        let p = I32Params::new(prepare_i32(cx)?, None);
        return if cx.code() == code::MINIMUM {
            Prepared::of::<MinimumI32>(cx, p)
        } else {
            Prepared::of::<MaximumI32>(cx, p)
        };
    }
    let ty = cx.output_ty();
    let ty = match ty {
        Some(TensorType::Float32) if crate::ops::float::BUILT => TensorType::Float32,
        Some(t @ (TensorType::Int8 | TensorType::Int16 | TensorType::Int64)) => t,
        _ => {
            return Err(cx.unsupported(Unsupported::TensorType {
                operand: Operand::Output,
                expected: TensorTypes::MinMax,
            }))
        }
    };
    let broadcast = prepare_pairing(cx, ty, TensorTypes::OutputType, ty, None)?;
    let p = MinMaxParams {
        broadcast,
        max: cx.code() == code::MAXIMUM,
    };
    match ty {
        TensorType::Int8 => Prepared::of::<MinMaxI8>(cx, p),
        TensorType::Int16 => Prepared::of::<MinMaxI16>(cx, p),
        TensorType::Int64 => Prepared::of::<MinMaxI64>(cx, p),
        _ => Prepared::of::<MinMaxF32>(cx, p),
    }
}

/// MINIMUM on int32.
pub struct MinOp;

impl OpI32 for MinOp {
    const NAME: &'static str = "MINIMUM";
    #[inline]
    fn value(x: i32, y: i32) -> Option<i32> {
        Some(if x < y { x } else { y })
    }
}

/// MAXIMUM on int32.
pub struct MaxOp;

impl OpI32 for MaxOp {
    const NAME: &'static str = "MAXIMUM";
    #[inline]
    fn value(x: i32, y: i32) -> Option<i32> {
        Some(if x > y { x } else { y })
    }
}

/// The MINIMUM kernel, int32.
pub type MinimumI32 = BinaryI32<MinOp>;
/// The MAXIMUM kernel, int32.
pub type MaximumI32 = BinaryI32<MaxOp>;

/// A prepared MINIMUM or MAXIMUM of another type than int32.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MinMaxParams {
    /// The element pairing.
    pub(crate) broadcast: Broadcast,
    /// MAXIMUM (else MINIMUM).
    pub(crate) max: bool,
}

/// An element type of [`MinMaxParams`]' kernels, read and written as little-endian bytes.
trait Elem {
    const BYTES: usize;
    type V: PartialOrd + Copy;
    fn get(b: &[u8]) -> Self::V;
    fn put(v: Self::V, b: &mut [u8]);
}

macro_rules! minmax_kernel {
    ($kernel:ident, $elem:ident, $t:ty, $doc:literal) => {
        struct $elem;
        impl Elem for $elem {
            const BYTES: usize = core::mem::size_of::<$t>();
            type V = $t;
            #[inline(always)]
            fn get(b: &[u8]) -> $t {
                let mut w = [0u8; core::mem::size_of::<$t>()];
                w.copy_from_slice(&b[..core::mem::size_of::<$t>()]);
                <$t>::from_le_bytes(w)
            }
            #[inline(always)]
            fn put(v: $t, b: &mut [u8]) {
                b[..core::mem::size_of::<$t>()].copy_from_slice(&v.to_le_bytes());
            }
        }

        #[doc = $doc]
        pub struct $kernel;

        impl Kernel for $kernel {
            // One kernel for both: named by the first (a run-time error names it).
            const NAME: &'static str = "MINIMUM";
            const MAX_INPUTS: usize = 2;
            type Params = MinMaxParams;

            fn run(p: &MinMaxParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
                let (a, b, op) = (io.bytes(0), io.bytes(1), io.name);
                min_max::<$elem>(op, p, a, b, io.out_bytes())
            }
        }
    };
}

minmax_kernel!(MinMaxI8, I8, i8, "MINIMUM and MAXIMUM, int8.");
minmax_kernel!(MinMaxI16, I16, i16, "MINIMUM and MAXIMUM, int16.");
minmax_kernel!(MinMaxI64, I64, i64, "MINIMUM and MAXIMUM, int64.");
minmax_kernel!(MinMaxF32, F32, f32, "MINIMUM and MAXIMUM, float32.");

/// The kernel's loop: every output element from its pair (`el1 > el2 ? el1 : el2` or `<`).
fn min_max<E: Elem>(
    op: &'static str,
    p: &MinMaxParams,
    in1: &[u8],
    in2: &[u8],
    out: &mut [u8],
) -> Result<(), KernelError> {
    let (bc, w) = (&p.broadcast, E::BYTES);
    let [n1, n2, n] = bc.sizes();
    KernelError::check_len(op, Operand::Input(0), n1, in1.len() / w)?;
    KernelError::check_len(op, Operand::Input(1), n2, in2.len() / w)?;
    KernelError::check_len(op, Operand::Output, n, out.len() / w)?;
    bc.for_each_pair(|j, i1, i2| {
        let (x, y) = (E::get(&in1[i1 * w..]), E::get(&in2[i2 * w..]));
        let v = if p.max {
            if x > y {
                x
            } else {
                y
            }
        } else if x < y {
            x
        } else {
            y
        };
        E::put(v, &mut out[j * w..]);
    });
    Ok(())
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(MinMaxParams {
    broadcast: Broadcast,
    max: bool,
});
