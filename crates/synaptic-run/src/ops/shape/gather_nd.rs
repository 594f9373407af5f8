//! GATHER_ND (int8, float32 params; int32 indices, as TFLM's `micro/kernels/gather_nd.cc`;
//! moved as bytes): the last dimension of the indices (`nd`, at most 5 and at most the
//! params' rank) addresses a slice of the params — the elements of their dimensions after the
//! first `nd` — and output slice `i` is the one index tuple `i` addresses. As TFLM, a tuple
//! addresses the flat position `Σ index[j] · count[j]` (`count[j]` the elements under one step
//! of dimension `j`), and only that position is checked: one whose slice would lie outside the
//! params fails the operator ([`Unsupported::IndexOutOfRange`]; a constant tuple at load), one
//! inside them is read, even where a coordinate alone is outside its dimension (TFLM's read).
//! The output has the shape TFLM sets (the indices' dimensions but the last, then the params'
//! after the first `nd`), or the model is refused.

use synaptic_tflite::code;

use crate::error::{KernelError, LoadError, Operand, ShapeFault, Unsupported};
use crate::ops::common::MAX_DIMS;
use crate::ops::prep::element_bytes;
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::GATHER_ND];

const OP: &str = "GATHER_ND";

/// Most index dimensions TFLM's kernel takes (`MAX_INDICES_ND`).
const MAX_ND: usize = 5;

/// A prepared GATHER_ND: made only by its module's preparation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GatherNdParams {
    /// The index tuples (slices gathered).
    slices: usize,
    /// Coordinates per tuple.
    nd: usize,
    /// Elements per step of each of the first `nd` dimensions.
    counts: [usize; MAX_ND],
    /// Elements of a slice.
    slice: usize,
    /// Elements of the params.
    params: usize,
    /// Bytes of an element.
    elem: usize,
}

impl GatherNdParams {
    /// The flat element position index tuple `t` addresses, if its slice lies inside the
    /// params (TFLM's check).
    fn position(&self, t: &[i32]) -> Option<usize> {
        let pos: i64 = t
            .iter()
            .zip(&self.counts)
            .map(|(&i, &c)| i64::from(i) * c as i64)
            .sum();
        let pos = usize::try_from(pos).ok()?;
        (pos.checked_add(self.slice)? <= self.params).then_some(pos)
    }
}

/// The int32 values of little-endian bytes `b`.
fn i32s(b: &[u8]) -> impl Iterator<Item = i32> + '_ {
    b.chunks_exact(4)
        .map(|w| i32::from_le_bytes([w[0], w[1], w[2], w[3]]))
}

/// The GATHER_ND kernel (bytes: int8, float32).
pub struct GatherNd;

impl Kernel for GatherNd {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 2;
    type Params = GatherNdParams;

    fn run(p: &GatherNdParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let (x, idx) = (io.bytes(0), io.bytes(1));
        let out = io.out_bytes();
        let w = p.slice * p.elem;
        KernelError::check_len(OP, Operand::Input(0), p.params * p.elem, x.len())?;
        KernelError::check_len(OP, Operand::Input(1), p.slices * p.nd * 4, idx.len())?;
        KernelError::check_len(OP, Operand::Output, p.slices * w, out.len())?;
        if p.nd == 0 || p.nd > MAX_ND {
            return Err(KernelError::unsupported(OP, Unsupported::ProgramMismatch));
        }
        let mut t = [0i32; MAX_ND];
        // Every tuple first: nothing written when one is out of range.
        for tuple in idx.chunks_exact(4 * p.nd) {
            for (v, i) in t.iter_mut().zip(i32s(tuple)) {
                *v = i;
            }
            if p.position(&t[..p.nd]).is_none() {
                return Err(KernelError::unsupported(OP, Unsupported::IndexOutOfRange));
            }
        }
        for (tuple, dst) in idx
            .chunks_exact(4 * p.nd)
            .zip(out.chunks_exact_mut(w.max(1)))
        {
            for (v, i) in t.iter_mut().zip(i32s(tuple)) {
                *v = i;
            }
            let from = p
                .position(&t[..p.nd])
                .and_then(|pos| x.get(pos * p.elem..pos * p.elem + w))
                .ok_or(KernelError::unsupported(OP, Unsupported::IndexOutOfRange))?;
            dst.copy_from_slice(from);
        }
        Ok(())
    }
}

/// Prepares GATHER_ND (`GatherNdPrepare`).
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    let (x, idx, out, ty) = super::gather::gathering(cx)?;
    let (xs, is) = (x.shape(), idx.shape());
    let Some((&nd, lead)) = is.split_last() else {
        return Err(cx.shape(ShapeFault::TooFewDimensions {
            operand: Operand::Input(1),
            min: 1,
        }));
    };
    if xs.is_empty() {
        return Err(cx.shape(ShapeFault::TooFewDimensions {
            operand: Operand::Input(0),
            min: 1,
        }));
    }
    if nd > xs.len() || nd > MAX_ND {
        return Err(cx.unsupported(Unsupported::IndexDepth));
    }
    // The output's shape as TFLM sets it.
    let mut want = [0usize; 2 * MAX_DIMS];
    let mut n = 0;
    for &d in lead.iter().chain(&xs[nd..]) {
        match want.get_mut(n) {
            Some(w) => *w = d,
            None => return Err(cx.unsupported(Unsupported::Rank)),
        }
        n += 1;
    }
    if want[..n] != *out.shape() {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let params: usize = xs.iter().product();
    let mut counts = [0usize; MAX_ND];
    let mut remain = params;
    for (c, &d) in counts.iter_mut().zip(&xs[..nd]) {
        remain /= d;
        *c = remain;
    }
    let p = GatherNdParams {
        slices: lead.iter().product(),
        nd,
        counts,
        slice: xs[nd..].iter().product(),
        params,
        elem: element_bytes(ty),
    };
    // Constant indices: checked once, here.
    let data = idx.data.get(..idx.bytes).unwrap_or(&[]);
    let mut t = [0i32; MAX_ND];
    for tuple in data.chunks_exact(4 * nd) {
        for (v, i) in t.iter_mut().zip(i32s(tuple)) {
            *v = i;
        }
        if p.position(&t[..nd]).is_none() {
            return Err(cx.unsupported(Unsupported::IndexOutOfRange));
        }
    }
    Prepared::of::<GatherNd>(cx, p)
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(GatherNdParams {
    slices: usize,
    nd: usize,
    counts: [usize; MAX_ND],
    slice: usize,
    params: usize,
    elem: usize,
});
