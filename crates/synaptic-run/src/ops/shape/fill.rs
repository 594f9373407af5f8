//! FILL (float32, int32, int8, as TFLM): `fill.cc` — every element of the output the scalar
//! `value` (input 1, an activation or a constant). `dims` (input 0) must be a constant of
//! an integer type equal to the output's shape (TFLM's `EnsureEq`); it is never read after
//! the load.

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::prep::{element_bytes, int_values};
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::FILL];

/// A prepared FILL: the element size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FillParams {
    /// Bytes of the value (one element).
    pub(crate) elem: usize,
}

/// Prepares FILL.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, 2)?;
    let (dims, value, out) = (cx.input(0)?, cx.input(1)?, cx.output()?);
    if !matches!(
        value.ty,
        TensorType::Float32 | TensorType::Int32 | TensorType::Int8
    ) {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Input(1),
            expected: TensorTypes::OutputType,
        }));
    }
    let elem = element_bytes(value.ty);
    if value.ty != out.ty || value.rank != 0 || value.bytes != elem {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    cx.constant(&dims, Operand::Input(0))?;
    if !value.data.is_empty() {
        cx.constant(&value, Operand::Input(1))?;
    }
    // `dims` equal to the output's shape, whatever its integer type.
    let data = dims.data.get(..dims.bytes).unwrap_or(&[]);
    let same = dims.rank == 1
        && data.len() == out.rank * element_bytes(dims.ty)
        && int_values(dims.ty, data)
            .is_some_and(|mut v| out.shape().iter().all(|&d| v.next() == Some(d as i64)));
    if !same {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    // `dims` is never read by the kernel: no location in the record.
    Ok(Prepared::of::<Fill>(cx, FillParams { elem })?.unread(0))
}

/// The FILL kernel (any element type, moved as bytes).
pub struct Fill;

impl Kernel for Fill {
    const NAME: &'static str = "FILL";
    const MAX_INPUTS: usize = 2;
    type Params = FillParams;

    #[inline]
    fn run(p: &FillParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let value = io.bytes(1);
        KernelError::check_len(Self::NAME, Operand::Input(1), p.elem, value.len())?;
        let out = io.out_bytes();
        if value.is_empty() || out.len() % value.len() != 0 {
            return Err(KernelError::unsupported(
                Self::NAME,
                Unsupported::ProgramMismatch,
            ));
        }
        for o in out.chunks_exact_mut(value.len()) {
            o.copy_from_slice(value);
        }
        Ok(())
    }
}

crate::format::codec::words!(FillParams { elem: usize });
