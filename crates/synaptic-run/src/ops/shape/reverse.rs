//! REVERSE_V2 (bool, int8, uint8, int16, int32, int64, float32, as TFLM: moved as bytes):
//! `reference_ops::Reverse`, the input with a contiguous run of axes reversed (their
//! flattened index counted backwards: each of them reversed). The axes are a constant here
//! (TFLM reads them at every invocation and fails when they are not contiguous or repeat:
//! refused at load); negative ones count from the last.

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::prep::{element_bytes, int_values};
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::REVERSE_V2];

const OP: &str = "REVERSE_V2";

/// A prepared REVERSE_V2: made only by its module's preparation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReverseParams {
    /// The dimensions before the reversed ones.
    pub(crate) upper: usize,
    /// The reversed dimensions' size.
    pub(crate) middle: usize,
    /// Bytes of the dimensions after them (a block).
    pub(crate) lower_bytes: usize,
}

/// The REVERSE_V2 kernel (bytes).
pub struct Reverse;

impl Kernel for Reverse {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 2;
    type Params = ReverseParams;

    fn run(p: &ReverseParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.bytes(0);
        let out = io.out_bytes();
        let (m, w) = (p.middle, p.lower_bytes);
        let n = p.upper * m * w;
        KernelError::check_len(OP, Operand::Input(0), n, x.len())?;
        KernelError::check_len(OP, Operand::Output, n, out.len())?;
        for i in 0..p.upper {
            for j in 0..m {
                let (src, dst) = ((i * m + j) * w, (i * m + m - 1 - j) * w);
                out[dst..dst + w].copy_from_slice(&x[src..src + w]);
            }
        }
        Ok(())
    }
}

/// Prepares REVERSE_V2: an input of a type TFLM reverses, a constant int32 list of distinct,
/// contiguous axes, an output of the input's type and shape.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, 2)?;
    let (x, axes, out) = (cx.input(0)?, cx.input(1)?, cx.output()?);
    if !matches!(
        x.ty,
        TensorType::Bool
            | TensorType::Int8
            | TensorType::UInt8
            | TensorType::Int16
            | TensorType::Int32
            | TensorType::Int64
            | TensorType::Float32
    ) || (x.ty == TensorType::Float32 && !crate::ops::float::BUILT)
    {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Input(0),
            expected: TensorTypes::OutputType,
        }));
    }
    if !x.data.is_empty() {
        cx.constant(&x, Operand::Input(0))?;
    }
    cx.type_of(
        &axes,
        Operand::Input(1),
        TensorType::Int32,
        TensorTypes::Int32,
    )?;
    cx.constant(&axes, Operand::Input(1))?;
    cx.activation_of(&out, Operand::Output, x.ty)?;
    if out.shape() != x.shape() || axes.rank != 1 {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let xs = x.shape();
    let rank = xs.len() as i64;
    // The axes, from the last, sorted (TFLM's `qsort`), at most 8 (its array).
    let mut a = [0i64; 8];
    let mut n = 0;
    for v in int_values(axes.ty, axes.data)
        .into_iter()
        .flatten()
        .take(axes.bytes / 4)
    {
        let v = if v < 0 { v + rank } else { v };
        if !(0..rank).contains(&v) || n == a.len() {
            return Err(cx.shape(ShapeFault::AxisOutOfRange(v as i32)));
        }
        a[n] = v;
        n += 1;
    }
    let a = &mut a[..n];
    a.sort_unstable();
    if n == 0 || a.windows(2).any(|w| w[0] + 1 != w[1]) {
        return Err(cx.shape(ShapeFault::AxisOutOfRange(
            a.first().copied().unwrap_or(-1) as i32
        )));
    }
    let (lo, hi) = (a[0] as usize, a[n - 1] as usize);
    let p = ReverseParams {
        upper: xs[..lo].iter().product(),
        middle: xs[lo..=hi].iter().product(),
        lower_bytes: xs[hi + 1..].iter().product::<usize>() * element_bytes(x.ty),
    };
    Prepared::of::<Reverse>(cx, p)
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(ReverseParams {
    upper: usize,
    middle: usize,
    lower_bytes: usize,
});
