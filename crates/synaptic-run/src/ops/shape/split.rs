//! SPLIT, SPLIT_V and UNPACK (int8, int16, int32, float32, as TFLM's `split.cc`, `split_v.cc`
//! and `unpack.cc`; moved as bytes): the input cut along one axis into consecutive parts, one
//! an output — SPLIT's equal, SPLIT_V's of the outputs' sizes along the axis, UNPACK's of one
//! index each with the axis dropped. For each outer index (the dimensions before the axis) an
//! output's block of `length · inner` elements is copied from its offset along the axis, as
//! TFLM's loops do.
//!
//! Each output is computed by a run of its own (`Kernel::PER_OUTPUT`): the interpreter gives
//! each run the input and one output, so an operator may have up to
//! [`crate::limits::MAX_OP_OUTPUTS`] outputs, each planned or graph I/O. The axis is a
//! constant (TFLM requires it for SPLIT and SPLIT_V; UNPACK's is an option); every output's
//! shape is the one TFLM's `Prepare` (in the converter) derives, or the model is refused.

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::limits::MAX_OP_OUTPUTS;
use crate::ops::prep::{element_bytes, int_values};
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::SPLIT, code::SPLIT_V, code::UNPACK];

const OP: &str = "SPLIT";

/// A prepared SPLIT, SPLIT_V or UNPACK: made only by its module's preparation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitParams {
    /// The dimensions before the axis.
    pub(crate) outer: usize,
    /// The axis' length in the input.
    pub(crate) axis: usize,
    /// Bytes of one index along the axis (the dimensions after it).
    pub(crate) inner_bytes: usize,
    /// Output `k`'s part of the axis: `bounds[k] .. bounds[k + 1]`.
    pub(crate) bounds: [usize; MAX_OP_OUTPUTS + 1],
    /// The outputs.
    pub(crate) parts: usize,
    /// The data's input position (SPLIT's 1, SPLIT_V's and UNPACK's 0).
    pub(crate) data: usize,
}

/// Output `part` of `input` cut as `p` says, into `out`.
pub fn split_part(
    p: &SplitParams,
    part: usize,
    input: &[u8],
    out: &mut [u8],
) -> Result<(), KernelError> {
    if part >= p.parts || part + 1 >= p.bounds.len() {
        return Err(KernelError::unsupported(OP, Unsupported::OutputCount));
    }
    let (start, end) = (p.bounds[part], p.bounds[part + 1]);
    let (row, block) = (p.axis * p.inner_bytes, (end - start) * p.inner_bytes);
    KernelError::check_len(OP, Operand::Input(0), p.outer * row, input.len())?;
    KernelError::check_len(OP, Operand::Output, p.outer * block, out.len())?;
    if block == 0 {
        return Ok(());
    }
    let at = start * p.inner_bytes;
    for (k, o) in out.chunks_exact_mut(block).enumerate() {
        let src = k * row + at;
        o.copy_from_slice(&input[src..src + block]);
    }
    Ok(())
}

/// The SPLIT, SPLIT_V and UNPACK kernel (bytes), run once per output.
pub struct Split;

impl Kernel for Split {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 3;
    const PER_OUTPUT: bool = true;
    type Params = SplitParams;

    fn run(p: &SplitParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let (part, x) = (io.part(), io.bytes(p.data));
        split_part(p, part, x, io.out_bytes())
    }
}

/// The single constant integer of `t` (an axis), if it has one value.
fn scalar(t: &crate::model::TInfo<'_>) -> Option<i64> {
    let mut v = int_values(t.ty, t.data)?;
    let a = v.next()?;
    v.next().is_none().then_some(a)
}

/// Prepares SPLIT (axis, data), SPLIT_V (data, size_splits, axis) or UNPACK (data; `num` and
/// `axis` options): the data of a type TFLM splits, a constant axis in range, outputs of the
/// data's type and the shapes TFLM derives.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    let c = cx.code();
    let (data_at, axis) = match c {
        code::SPLIT => {
            cx.inputs(2, 2)?;
            let a = cx.input(0)?;
            cx.constant(&a, Operand::Axes)?;
            cx.type_of(&a, Operand::Axes, TensorType::Int32, TensorTypes::Int32)?;
            (1, scalar(&a))
        }
        code::SPLIT_V => {
            cx.inputs(3, 3)?;
            let a = cx.input(2)?;
            cx.constant(&a, Operand::Axes)?;
            cx.type_of(&a, Operand::Axes, TensorType::Int32, TensorTypes::Int32)?;
            (0, scalar(&a))
        }
        _ => {
            cx.inputs(1, 1)?;
            let (num, axis) = cx.op().unpack_options()?;
            if usize::try_from(num).ok() != Some(cx.v.n_out) {
                return Err(cx.unsupported(Unsupported::OutputCount));
            }
            (0, Some(i64::from(axis)))
        }
    };
    let x = cx.input(data_at)?;
    if !matches!(
        x.ty,
        TensorType::Int8 | TensorType::Int16 | TensorType::Int32 | TensorType::Float32
    ) || (x.ty == TensorType::Float32 && !crate::ops::float::BUILT)
    {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Input(data_at as u8),
            expected: TensorTypes::Int8Int16Int32OrFloat32,
        }));
    }
    if !x.data.is_empty() {
        cx.constant(&x, Operand::Input(data_at as u8))?;
    }
    let xs = x.shape();
    let rank = xs.len() as i64;
    let a = axis.ok_or(cx.unsupported(Unsupported::NotConstant(Operand::Axes)))?;
    let a = if a < 0 { a + rank } else { a };
    if !(0..rank).contains(&a) {
        return Err(cx.shape(ShapeFault::AxisOutOfRange(a as i32)));
    }
    let a = a as usize;
    let n = cx.v.n_out;
    let mut bounds = [0usize; MAX_OP_OUTPUTS + 1];
    for k in 0..n {
        let o = cx.output_at(k)?;
        cx.activation_of(&o, Operand::Output, x.ty)?;
        let os = o.shape();
        // UNPACK drops the axis (one index an output); SPLIT and SPLIT_V keep it.
        let (len, same) = if c == code::UNPACK {
            (
                1,
                os.len() + 1 == xs.len() && os[..a] == xs[..a] && os[a..] == xs[a + 1..],
            )
        } else {
            let len = os.get(a).copied().unwrap_or(0);
            let same = os.len() == xs.len() && os[..a] == xs[..a] && os[a + 1..] == xs[a + 1..];
            (len, same)
        };
        if !same || (c == code::SPLIT && len * n != xs[a]) {
            return Err(cx.shape(ShapeFault::SizeDiffers));
        }
        bounds[k + 1] = bounds[k] + len;
    }
    if bounds[n] != xs[a] {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    if c == code::SPLIT_V {
        // The sizes: a constant of the outputs' lengths (one `-1` TFLM's converter infers).
        let s = cx.input(1)?;
        cx.constant(&s, Operand::Input(1))?;
        let mut given = int_values(s.ty, s.data).into_iter().flatten().take(n + 1);
        for k in 0..n {
            match given.next() {
                Some(v)
                    if v == -1 || usize::try_from(v).ok() == Some(bounds[k + 1] - bounds[k]) => {}
                _ => return Err(cx.shape(ShapeFault::SizeDiffers)),
            }
        }
        if given.next().is_some() {
            return Err(cx.shape(ShapeFault::SizeDiffers));
        }
    }
    let p = SplitParams {
        outer: xs[..a].iter().product(),
        axis: xs[a],
        inner_bytes: xs[a + 1..].iter().product::<usize>() * element_bytes(x.ty),
        bounds,
        parts: n,
        data: data_at,
    };
    Prepared::of::<Split>(cx, p)
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(SplitParams {
    outer: usize,
    axis: usize,
    inner_bytes: usize,
    bounds: [usize; MAX_OP_OUTPUTS + 1],
    parts: usize,
    data: usize,
});
