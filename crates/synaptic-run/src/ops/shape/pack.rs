//! PACK (int8, int16, int32, int64, float32, as TFLM: moved as bytes): `reference_ops::Pack`,
//! the `values_count` inputs of one shape stacked along a new dimension `axis` of the
//! output. The copy is CONCATENATION's ([`concatenation`](super::concatenation)) with every
//! input one slice of the new dimension and the element size folded in at load; any input
//! may be a constant. (TFLM copies int8 bytes whatever their quantizations: so does this.)

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::limits::MAX_OP_ACTIVATIONS;
use crate::ops::prep::element_bytes;
use crate::ops::shape::concatenation::{concatenate, ConcatParams};
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::PACK];

/// Prepares PACK.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, MAX_OP_ACTIVATIONS)?;
    let out = cx.output()?;
    let (values_count, axis) = cx.op().pack_options()?;
    let n = cx.n_inputs();
    if usize::try_from(values_count) != Ok(n) {
        return Err(cx.shape(ShapeFault::AxisSum));
    }
    if !matches!(
        out.ty,
        TensorType::Int8
            | TensorType::Int16
            | TensorType::Int32
            | TensorType::Int64
            | TensorType::Float32
    ) {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Output,
            expected: TensorTypes::OutputType,
        }));
    }
    let first = cx.input(0)?;
    for k in 0..n {
        let t = cx.input(k)?;
        if t.ty != out.ty {
            return Err(cx.unsupported(Unsupported::TensorType {
                operand: Operand::Input(k as u8),
                expected: TensorTypes::OutputType,
            }));
        }
        if t.shape() != first.shape() {
            return Err(cx.shape(ShapeFault::OffAxis));
        }
        if !t.data.is_empty() {
            cx.constant(&t, Operand::Input(k as u8))?;
        }
    }
    // `axis` of the output (rank + 1 dimensions), negative from its end.
    let rank = out.rank;
    let at = if axis < 0 { axis + rank as i32 } else { axis };
    if rank != first.rank + 1 || at < 0 || at >= rank as i32 {
        return Err(cx.shape(ShapeFault::AxisOutOfRange(axis)));
    }
    let at = at as usize;
    let s = first.shape();
    let o = out.shape();
    if o[at] != n || o[..at] != s[..at] || o[at + 1..] != s[at..] {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let elem = element_bytes(out.ty);
    let inner = s[at..].iter().product::<usize>() * elem;
    let p = ConcatParams {
        axis: at,
        outer: s[..at].iter().product(),
        inner,
        output_len: out.bytes,
    };
    if p.outer.checked_mul(n).and_then(|v| v.checked_mul(inner)) != Some(out.bytes) {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    Prepared::of::<Pack>(cx, p)
}

/// The PACK kernel (its parameters CONCATENATION's, over bytes).
pub struct Pack;

impl Kernel for Pack {
    const NAME: &'static str = "PACK";
    type Params = ConcatParams;

    fn run(p: &ConcatParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let mut refs: [&[u8]; MAX_OP_ACTIVATIONS] = [&[]; MAX_OP_ACTIVATIONS];
        let n = io.n_inputs().min(MAX_OP_ACTIVATIONS);
        for (k, r) in refs.iter_mut().enumerate().take(n) {
            *r = io.bytes(k);
        }
        // Each input one slice of the new dimension.
        concatenate(
            Self::NAME,
            p,
            &refs[..n],
            &[1; MAX_OP_ACTIVATIONS][..n],
            io.out_bytes(),
        )
    }
}
