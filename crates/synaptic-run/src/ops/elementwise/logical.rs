//! LOGICAL_AND, LOGICAL_OR (TFLM's `micro/kernels/logical_common.cc`: `BinaryFunction`, or
//! `BroadcastBinaryFunction4DSlow` for inputs of different shapes, of `x && y`, `x || y`) and
//! LOGICAL_NOT (`elementwise.cc`'s `LogicalNotEval`, `!x`), bool in and out. A bool byte
//! other than 0 reads as true (C++'s would be undefined). LOGICAL_AND and LOGICAL_OR broadcast
//! over at most 4 dimensions, as TFLM's: inputs of different shapes of more are refused.
//! LOGICAL_NOT is element-wise: in place where the plan overlaps it.

use synaptic_tflite::{code, TensorType};

use crate::contract::Contract;
use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes};
use crate::ops::elementwise::binary::{prepare_pairing, Broadcast};
use crate::ops::in_place::{check, drive};
use crate::ops::{Geometry, InPlaceOperands, Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::LOGICAL_AND, code::LOGICAL_OR, code::LOGICAL_NOT];

/// A prepared LOGICAL_AND or LOGICAL_OR: made only by its module's preparation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogicalParams {
    /// The element pairing.
    pub(crate) broadcast: Broadcast,
    /// The result for inputs `(x, y)` at bit `2x + y`.
    pub(crate) truth: u32,
}

/// The LOGICAL_AND and LOGICAL_OR kernel.
pub struct Logical;

impl Kernel for Logical {
    // One kernel for both: named by the first (a run-time error names it).
    const NAME: &'static str = "LOGICAL_AND";
    const ONLY: &'static [i32] = &[code::LOGICAL_AND, code::LOGICAL_OR];
    const MAX_INPUTS: usize = 2;
    type Params = LogicalParams;

    fn run(p: &LogicalParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let (a, b, op) = (io.bytes(0), io.bytes(1), io.name);
        let out = io.out_bytes();
        let bc = &p.broadcast;
        let [n1, n2, n] = bc.sizes();
        KernelError::check_len(op, Operand::Input(0), n1, a.len())?;
        KernelError::check_len(op, Operand::Input(1), n2, b.len())?;
        KernelError::check_len(op, Operand::Output, n, out.len())?;
        bc.for_each_pair(|j, i1, i2| {
            let bit = 2 * u32::from(a[i1] != 0) + u32::from(b[i2] != 0);
            out[j] = ((p.truth >> bit) & 1) as u8;
        });
        Ok(())
    }
}

/// The LOGICAL_NOT kernel.
pub struct LogicalNot;

impl Kernel for LogicalNot {
    const NAME: &'static str = "LOGICAL_NOT";
    const ONLY: &'static [i32] = &[code::LOGICAL_NOT];
    const MAX_INPUTS: usize = 1;
    type Params = ();

    fn run(_: &(), io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.bytes(0);
        let out = io.out_bytes();
        KernelError::check_len(Self::NAME, Operand::Output, x.len(), out.len())?;
        for (o, &v) in out.iter_mut().zip(x) {
            *o = u8::from(v == 0);
        }
        Ok(())
    }

    fn contract(_: &(), k: usize, out: Geometry) -> Option<Contract> {
        (k == 0).then(|| Contract::elementwise(out.elems, 1, 1))
    }

    fn run_in_place(_: &(), io: &mut InPlaceOperands<'_, '_>) -> Result<usize, KernelError> {
        let n = io.out()?.elems;
        let at = io.at;
        check(Self::NAME, || Contract::elementwise(n, 1, 1), io.buf, &at)?;
        drive::<1>(io.buf, at.output, n, at.direction, |buf, j| {
            Ok([u8::from(buf[at.input + j] == 0)])
        })?;
        Ok(n)
    }
}

/// Prepares LOGICAL_AND, LOGICAL_OR (two bool inputs, either a constant, broadcast) or
/// LOGICAL_NOT (one bool input of the output's size).
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    if cx.code() == code::LOGICAL_NOT {
        cx.inputs(1, 1)?;
        let (x, out) = (cx.input(0)?, cx.output()?);
        cx.activation_of(&x, Operand::Input(0), TensorType::Bool)?;
        cx.activation_of(&out, Operand::Output, TensorType::Bool)?;
        if x.bytes != out.bytes {
            return Err(cx.shape(ShapeFault::SizeDiffers));
        }
        return Prepared::of::<LogicalNot>(cx, ());
    }
    let broadcast = prepare_pairing(
        cx,
        TensorType::Bool,
        TensorTypes::Bool,
        TensorType::Bool,
        Some(4),
    )?;
    // Bits (x, y) = (0,0), (0,1), (1,0), (1,1): AND 1000, OR 1110.
    let truth = if cx.code() == code::LOGICAL_AND {
        0b1000
    } else {
        0b1110
    };
    Prepared::of::<Logical>(cx, LogicalParams { broadcast, truth })
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(LogicalParams {
    broadcast: Broadcast,
    truth: u32,
});
