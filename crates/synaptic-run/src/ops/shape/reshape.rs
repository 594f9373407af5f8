//! RESHAPE and SQUEEZE (any element type): a copy of the bytes (in place at delta 0, the alias,
//! when the plan overlaps the output with its input). RESHAPE's shape input is accepted and
//! never read: TFLM takes the output tensor's shape.

use synaptic_tflite::code;

use crate::contract::Contract;
use crate::error::{KernelError, LoadError, Operand, ShapeFault, Unsupported};
use crate::ops::in_place::{check, drive, InPlace};
use crate::ops::{Geometry, InPlaceOperands, Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::RESHAPE, code::SQUEEZE];

/// RESHAPE / SQUEEZE: copies `input` to `output` (equal lengths).
pub fn copy<T: Copy>(op: &'static str, input: &[T], output: &mut [T]) -> Result<(), KernelError> {
    KernelError::check_len(op, Operand::Output, input.len(), output.len())?;
    output.copy_from_slice(input);
    Ok(())
}

/// RESHAPE / SQUEEZE ([`copy`]) of `bytes` bytes in `buf`: nothing to do at delta 0 (the
/// alias), else a byte copy in the contract's direction.
pub fn copy_in_place(
    op: &'static str,
    bytes: usize,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    check(op, || Contract::elementwise(bytes, 1, 1), buf, &at)?;
    if at.delta() == 0 {
        return Ok(());
    }
    drive::<1>(buf, at.output, bytes, at.direction, |buf, j| {
        Ok([buf[at.input + j]])
    })
}

/// Prepares RESHAPE or SQUEEZE.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    if cx.code() == code::RESHAPE {
        cx.inputs(1, 2)?;
    } else {
        cx.inputs(1, 1)?;
    }
    let (x, out) = (cx.input(0)?, cx.output()?);
    if !x.data.is_empty() {
        return Err(cx.unsupported(Unsupported::Constant(Operand::Input(0))));
    }
    if x.ty != out.ty || x.bytes != out.bytes {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    // RESHAPE's shape (input 1) is never read: it gets no location in the record, so no view
    // of it is taken, beside a declared overlap or otherwise.
    Ok(Prepared::of::<ByteCopy>(cx, ())?.unread(1))
}

/// A byte-copy kernel `$kernel` named `$name` with at most `$inputs` inputs (the others never
/// read): [`copy`], in place at delta 0 ([`copy_in_place`]).
macro_rules! byte_copy_kernel {
    ($(#[$doc:meta])* $kernel:ident, $name:literal, $inputs:literal) => {
        $(#[$doc])*
        pub struct $kernel;

        impl Kernel for $kernel {
            const NAME: &'static str = $name;
            const MAX_INPUTS: usize = $inputs;
            type Params = ();

            #[inline]
            fn run(_p: &(), io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
                let x = io.bytes(0);
                $crate::ops::shape::reshape::copy(io.name, x, io.out_bytes())
            }

            fn contract(_p: &(), k: usize, out: Geometry) -> Option<Contract> {
                // A byte copy: the contract is in bytes.
                (k == 0).then(|| Contract::elementwise(out.bytes, 1, 1))
            }

            fn run_in_place(
                _p: &(),
                io: &mut InPlaceOperands<'_, '_>,
            ) -> Result<usize, KernelError> {
                let n = io.out()?.bytes;
                $crate::ops::shape::reshape::copy_in_place(io.name, n, io.buf, io.at)?;
                Ok(n)
            }
        }
    };
}
pub(crate) use byte_copy_kernel;

byte_copy_kernel!(
    /// The copy kernel of RESHAPE and SQUEEZE (bytes).
    ByteCopy,
    "RESHAPE",
    2
);
