//! BROADCAST_ARGS (int32, int64, as TFLM's `micro/kernels/broadcast_args.cc`):
//! `reference_ops::BroadcastArgs`, the broadcast shape of two shape vectors (constants or
//! activations, read at each invocation), aligned on the right, a missing dimension 1. As
//! TFLM, each dimension is taken through a C `int` (an int64 value truncated to its low 32
//! bits, then widened back): `s1 == 1` gives `s2`, `s2 == 1` gives `s1`, else they must be
//! equal — where TFLM aborts (`TFLITE_CHECK_EQ`), the operator fails here
//! ([`ShapeFault::NotBroadcastable`]; two constants at load). The output is a vector of the
//! longer input's length (the converter's shape).

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::prep::element_bytes;
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::BROADCAST_ARGS];

const OP: &str = "BROADCAST_ARGS";

/// A prepared BROADCAST_ARGS: made only by its module's preparation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BroadcastArgsParams {
    /// The first shape's length.
    n1: usize,
    /// The second shape's length.
    n2: usize,
    /// The output's length.
    n: usize,
    /// Bytes of an element (4: int32, 8: int64).
    elem: usize,
}

impl BroadcastArgsParams {
    /// Dimension `i` from the right of shape bytes `s` of `n` elements, as TFLM's `int`
    /// (1 past its left end).
    fn dim(&self, s: &[u8], n: usize, i: usize) -> i32 {
        let Some(k) = n.checked_sub(1 + i) else {
            return 1;
        };
        let b = &s[k * self.elem..];
        // The low 32 bits, little-endian, of either width.
        i32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }

    /// The broadcast shape of `s1` and `s2` into `out`; `Err` where two dimensions differ and
    /// neither is 1.
    fn broadcast(&self, s1: &[u8], s2: &[u8], out: &mut [u8]) -> Result<(), KernelError> {
        for i in 0..self.n {
            let (a, b) = (self.dim(s1, self.n1, i), self.dim(s2, self.n2, i));
            let d = if a == 1 {
                b
            } else if b == 1 || a == b {
                a
            } else {
                return Err(KernelError::shape(OP, ShapeFault::NotBroadcastable));
            };
            let k = self.n - 1 - i;
            let o = &mut out[k * self.elem..(k + 1) * self.elem];
            if self.elem == 4 {
                o.copy_from_slice(&d.to_le_bytes());
            } else {
                o.copy_from_slice(&i64::from(d).to_le_bytes());
            }
        }
        Ok(())
    }
}

/// The BROADCAST_ARGS kernel (int32, int64).
pub struct BroadcastArgs;

impl Kernel for BroadcastArgs {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 2;
    type Params = BroadcastArgsParams;

    fn run(p: &BroadcastArgsParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let (s1, s2) = (io.bytes(0), io.bytes(1));
        let out = io.out_bytes();
        KernelError::check_len(OP, Operand::Input(0), p.n1 * p.elem, s1.len())?;
        KernelError::check_len(OP, Operand::Input(1), p.n2 * p.elem, s2.len())?;
        KernelError::check_len(OP, Operand::Output, p.n * p.elem, out.len())?;
        if !matches!(p.elem, 4 | 8) {
            return Err(KernelError::unsupported(OP, Unsupported::ProgramMismatch));
        }
        p.broadcast(s1, s2, out)
    }
}

/// Prepares BROADCAST_ARGS (`BroadcastArgsPrepare`).
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, 2)?;
    let (s1, s2, out) = (cx.input(0)?, cx.input(1)?, cx.output()?);
    let ty = s1.ty;
    if !matches!(ty, TensorType::Int32 | TensorType::Int64) {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Input(0),
            expected: TensorTypes::Int32OrInt64,
        }));
    }
    for (t, operand) in [(&s2, Operand::Input(1)), (&out, Operand::Output)] {
        if t.ty != ty {
            return Err(cx.unsupported(Unsupported::TensorType {
                operand,
                expected: TensorTypes::FirstInputType,
            }));
        }
    }
    for (t, k) in [(&s1, 0u8), (&s2, 1)] {
        if !t.data.is_empty() {
            cx.constant(t, Operand::Input(k))?;
        }
    }
    if s1.rank != 1 || s2.rank != 1 || out.rank != 1 {
        return Err(cx.shape(ShapeFault::RankDiffers));
    }
    let (n1, n2, n) = (s1.shape()[0], s2.shape()[0], out.shape()[0]);
    if n != n1.max(n2) {
        return Err(cx.shape(ShapeFault::BroadcastShape));
    }
    let p = BroadcastArgsParams {
        n1,
        n2,
        n,
        elem: element_bytes(ty),
    };
    // Two constants: their shapes must broadcast (checked once, here).
    if !s1.data.is_empty() && !s2.data.is_empty() {
        let mut scratch = [0u8; 8 * crate::limits::MAX_DIMS];
        if let Some(o) = scratch.get_mut(..n * p.elem) {
            p.broadcast(&s1.data[..s1.bytes], &s2.data[..s2.bytes], o)
                .map_err(|e| cx.err(e))?;
        }
    }
    Prepared::of::<BroadcastArgs>(cx, p)
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(BroadcastArgsParams {
    n1: usize,
    n2: usize,
    n: usize,
    elem: usize,
});
