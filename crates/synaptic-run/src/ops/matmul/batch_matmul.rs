//! BATCH_MATMUL (int8, int16, float32): TFLM's `micro/kernels/batch_matmul.cc` (its
//! `batch_matmul_common.cc`) and `reference_ops::BatchMatMul`. `out[..., a, c] =
//! Σ_k lhs[..., a, k] · rhs[..., k, c]` over inputs of 2 to 5 dimensions, `adj_x` / `adj_y`
//! reading the lhs / rhs with its last two dimensions swapped, the batch dimensions (all but
//! the last two, right-aligned) broadcast where one side's is 1.
//!
//! TFLM transposes the operands into persistent buffers first (and collapses the lhs batch
//! into the columns when the rhs batch is 1); neither changes a sum's terms or their order
//! (`k` ascending), so this kernel reads the operands where they lie, with no scratch.
//!
//! - float32: `total = 0; total += rhs · lhs` in single precision, `k` ascending.
//! - int8: `Σ (rhs − rhs_zero_point) · (lhs − lhs_zero_point)` in `int32` (wrapping, as the
//!   x86-64 build does), `MultiplyByQuantizedMultiplier` by
//!   `double(float(lhs_scale · rhs_scale)) / output_scale` (TFLM's
//!   `GetQuantizedConvolutionMultipler` without bias: the scales' product in single
//!   precision), plus the output zero point, clamped to int8.
//! - int16: the same in `int64` with the 64-bit `MultiplyByQuantizedMultiplier` (every zero
//!   point 0, as TFLM checks), clamped to int16.
//!
//! Refused at load as TFLM refuses: inputs of different types or an output of another type,
//! a rank outside 2..=5, batch dimensions that do not broadcast, depths that differ, an output
//! of another element count or of fewer dimensions. Beyond TFLM: a per-channel quantization
//! (TFLM would read its first scale only), a multiplier TFLM's arithmetic cannot apply
//! (negative, not finite, a shift over 31; int16: over 14).

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::math::{
    multiply_by_quantized_multiplier_i64, ratio_requantization_multiplier, Requantizer,
};
use crate::ops::float::{F32s, LeF32};
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::BATCH_MATMUL];

const OP: &str = "BATCH_MATMUL";

/// The data type of a BATCH_MATMUL ([`BatchMatMulParams::ty`]).
const INT8: u32 = 0;
const INT16: u32 = 1;
const FLOAT32: u32 = 2;

/// A prepared BATCH_MATMUL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchMatMulParams {
    /// The output's batch dimensions, extended to 3 with leading 1s.
    pub(crate) batch: [usize; 3],
    /// The lhs elements to step per index of each batch dimension (0: broadcast).
    pub(crate) lhs_step: [usize; 3],
    /// The rhs elements to step per index of each batch dimension (0: broadcast).
    pub(crate) rhs_step: [usize; 3],
    /// Output rows (the lhs's rows, its columns if `adj_x`).
    pub(crate) rows: usize,
    /// The depth summed over.
    pub(crate) depth: usize,
    /// Output columns (the rhs's columns, its rows if `adj_y`).
    pub(crate) cols: usize,
    /// The lhs's and the rhs's elements.
    pub(crate) elems: [usize; 2],
    /// The lhs is stored `[depth, rows]` (else `[rows, depth]`).
    pub(crate) adj_x: bool,
    /// The rhs is stored `[cols, depth]` (else `[depth, cols]`).
    pub(crate) adj_y: bool,
    /// [`INT8`], [`INT16`] or [`FLOAT32`].
    pub(crate) ty: u32,
    /// `-lhs_zero_point`, `-rhs_zero_point` (int8).
    pub(crate) offsets: [i32; 2],
    /// The output zero point (int8).
    pub(crate) output_offset: i32,
    /// The output multiplier and shift (integer types).
    pub(crate) multiplier: [i32; 2],
}

impl BatchMatMulParams {
    /// Bytes of one element.
    fn elem_bytes(&self) -> usize {
        match self.ty {
            INT8 => 1,
            INT16 => 2,
            _ => 4,
        }
    }

    /// The output's elements.
    fn out_elems(&self) -> Option<usize> {
        self.batch
            .iter()
            .try_fold(1usize, |n, &b| n.checked_mul(b))?
            .checked_mul(self.rows)?
            .checked_mul(self.cols)
    }

    /// Whether every index the loops make lies within the operands (the parameters as the
    /// load made them; a program that does not hold is refused, never read out of bounds).
    fn fits(&self) -> bool {
        let last = |step: &[usize; 3], matrix: usize, elems: usize| {
            let mut end = Some(matrix);
            for (b, s) in self.batch.iter().zip(step) {
                end = end.and_then(|e| e.checked_add(b.saturating_sub(1).checked_mul(*s)?));
            }
            end.is_some_and(|e| e <= elems)
        };
        let lhs = self.rows.checked_mul(self.depth);
        let rhs = self.depth.checked_mul(self.cols);
        self.ty <= FLOAT32
            && lhs.is_some_and(|m| last(&self.lhs_step, m, self.elems[0]))
            && rhs.is_some_and(|m| last(&self.rhs_step, m, self.elems[1]))
            && self.out_elems().is_some()
    }

    /// The index of lhs element `(a, k)` of a matrix.
    #[inline(always)]
    fn lhs_at(&self, a: usize, k: usize) -> usize {
        if self.adj_x {
            k * self.rows + a
        } else {
            a * self.depth + k
        }
    }

    /// The index of rhs element `(k, c)` of a matrix.
    #[inline(always)]
    fn rhs_at(&self, k: usize, c: usize) -> usize {
        if self.adj_y {
            c * self.depth + k
        } else {
            k * self.cols + c
        }
    }

    /// Calls `f(lhs_start, rhs_start, out_start)` for each batch, in the output's order.
    #[inline(always)]
    fn batches(&self, mut f: impl FnMut(usize, usize, usize)) {
        let matrix = self.rows * self.cols;
        let mut out = 0;
        for b0 in 0..self.batch[0] {
            for b1 in 0..self.batch[1] {
                for b2 in 0..self.batch[2] {
                    let l = b0 * self.lhs_step[0] + b1 * self.lhs_step[1] + b2 * self.lhs_step[2];
                    let r = b0 * self.rhs_step[0] + b1 * self.rhs_step[1] + b2 * self.rhs_step[2];
                    f(l, r, out);
                    out += matrix;
                }
            }
        }
    }
}

/// The BATCH_MATMUL kernel, int8, int16 and float32.
pub struct BatchMatMul;

impl Kernel for BatchMatMul {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 2;
    type Params = BatchMatMulParams;

    fn run(p: &BatchMatMulParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        if !p.fits() {
            return Err(KernelError::unsupported(OP, Unsupported::ProgramMismatch));
        }
        let n = p.elem_bytes();
        let (lhs, rhs) = (io.bytes(0), io.bytes(1));
        KernelError::check_len(OP, Operand::Input(0), p.elems[0] * n, lhs.len())?;
        KernelError::check_len(OP, Operand::Input(1), p.elems[1] * n, rhs.len())?;
        let out_elems = p.out_elems().unwrap_or(0);
        let (rows, cols, depth) = (p.rows, p.cols, p.depth);
        match p.ty {
            FLOAT32 if crate::ops::float::BUILT => {
                let (lhs, rhs) = (LeF32(lhs), LeF32(rhs));
                let out = io.out_f32()?;
                KernelError::check_len(OP, Operand::Output, out_elems, out.len())?;
                p.batches(|l, r, o| {
                    for a in 0..rows {
                        for c in 0..cols {
                            let mut total = 0.0f32;
                            for k in 0..depth {
                                total += rhs.at(r + p.rhs_at(k, c)) * lhs.at(l + p.lhs_at(a, k));
                            }
                            out[o + a * cols + c] = total;
                        }
                    }
                });
            }
            INT8 => {
                let [lo, ro] = p.offsets;
                let q = Requantizer::new(p.multiplier[0], p.multiplier[1]);
                let out = io.out_i8()?;
                KernelError::check_len(OP, Operand::Output, out_elems, out.len())?;
                p.batches(|l, r, o| {
                    for a in 0..rows {
                        for c in 0..cols {
                            let mut total = 0i32;
                            for k in 0..depth {
                                let x = i32::from(lhs[l + p.lhs_at(a, k)] as i8);
                                let y = i32::from(rhs[r + p.rhs_at(k, c)] as i8);
                                total = total.wrapping_add(
                                    y.wrapping_add(ro).wrapping_mul(x.wrapping_add(lo)),
                                );
                            }
                            let v = q.apply(total).wrapping_add(p.output_offset);
                            out[o + a * cols + c] = v.clamp(-128, 127) as i8;
                        }
                    }
                });
            }
            INT16 => {
                let at =
                    |b: &[u8], i: usize| i64::from(i16::from_le_bytes([b[2 * i], b[2 * i + 1]]));
                let [m, s] = p.multiplier;
                let out = io.out_i16()?;
                KernelError::check_len(OP, Operand::Output, out_elems, out.len())?;
                p.batches(|l, r, o| {
                    for a in 0..rows {
                        for c in 0..cols {
                            let mut total = 0i64;
                            for k in 0..depth {
                                let x = at(lhs, l + p.lhs_at(a, k));
                                let y = at(rhs, r + p.rhs_at(k, c));
                                total = total.wrapping_add(y * x);
                            }
                            let v = multiply_by_quantized_multiplier_i64(total, m, s);
                            out[o + a * cols + c] = v.clamp(-32768, 32767) as i16;
                        }
                    }
                });
            }
            _ => return Err(KernelError::unsupported(OP, Unsupported::ProgramMismatch)),
        }
        Ok(())
    }
}

/// Prepares BATCH_MATMUL: two inputs (activations or constants) and an output of one type
/// (int8, int16 or float32), `BatchMatMulOptions`' `adj_x` and `adj_y`, TFLM's shape checks.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, 2)?;
    let (lhs, rhs, out) = (cx.input(0)?, cx.input(1)?, cx.output()?);
    let ty = match lhs.ty {
        TensorType::Int8 => INT8,
        TensorType::Int16 => INT16,
        TensorType::Float32 if crate::ops::float::BUILT => FLOAT32,
        _ => {
            return Err(cx.unsupported(Unsupported::TensorType {
                operand: Operand::Input(0),
                expected: TensorTypes::Int8Int16OrFloat32,
            }))
        }
    };
    cx.type_of(&rhs, Operand::Input(1), lhs.ty, TensorTypes::FirstInputType)?;
    cx.type_of(&out, Operand::Output, lhs.ty, TensorTypes::FirstInputType)?;
    for (k, t) in [(0u8, &lhs), (1, &rhs)] {
        if !t.data.is_empty() {
            cx.constant(t, Operand::Input(k))?;
        }
    }
    let (lr, rr) = (lhs.rank, rhs.rank);
    if !(2..=5).contains(&lr) || !(2..=5).contains(&rr) {
        return Err(cx.unsupported(Unsupported::Rank));
    }
    let (adj_x, adj_y) = cx.op().batch_matmul_options()?;
    let rank = lr.max(rr);
    // The shapes extended to the output's rank (leading 1s).
    let ext = |t: &crate::model::TInfo<'_>| {
        let mut d = [1usize; 5];
        d[rank - t.rank..rank].copy_from_slice(t.shape());
        d
    };
    let (ld, rd) = (ext(&lhs), ext(&rhs));
    let (rows, depth) = if adj_x {
        (ld[rank - 1], ld[rank - 2])
    } else {
        (ld[rank - 2], ld[rank - 1])
    };
    let (rhs_depth, cols) = if adj_y {
        (rd[rank - 1], rd[rank - 2])
    } else {
        (rd[rank - 2], rd[rank - 1])
    };
    if depth != rhs_depth {
        return Err(cx.shape(ShapeFault::FilterDepth));
    }
    let mut p = BatchMatMulParams {
        batch: [1; 3],
        lhs_step: [0; 3],
        rhs_step: [0; 3],
        rows,
        depth,
        cols,
        elems: [lhs.shape().iter().product(), rhs.shape().iter().product()],
        adj_x,
        adj_y,
        ty,
        offsets: [0; 2],
        output_offset: 0,
        multiplier: [0; 2],
    };
    // The batch dimensions, right-aligned in 3; a side's step 0 where its dimension is 1.
    let nb = rank - 2;
    let (mut lstep, mut rstep) = (rows * depth, depth * cols);
    for i in (0..nb).rev() {
        let (l, r) = (ld[i], rd[i]);
        if l != r && l != 1 && r != 1 {
            return Err(cx.shape(ShapeFault::NotBroadcastable));
        }
        let j = 3 - nb + i;
        p.batch[j] = l.max(r);
        p.lhs_step[j] = if l == 1 { 0 } else { lstep };
        p.rhs_step[j] = if r == 1 { 0 } else { rstep };
        lstep *= l;
        rstep *= r;
    }
    // TFLM rewrites the output's dimensions: no more than it has, the same element count.
    if out.rank < rank || p.out_elems() != Some(out.shape().iter().product()) {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    if ty != FLOAT32 {
        cx.quantized(&[&lhs, &rhs, &out])?;
        for t in [&lhs, &rhs, &out] {
            if t.scale_count > 1 {
                return Err(cx.unsupported(Unsupported::FilterScales));
            }
        }
        // `static_cast<double>(lhs_scale * rhs_scale) / output_scale`.
        let product = lhs.q.scale * rhs.q.scale;
        let (m, s) = ratio_requantization_multiplier(OP, product, 1.0, out.q.scale)
            .map_err(|e| cx.err(e))?;
        p.multiplier = [m, s];
        if ty == INT16 {
            for t in [&lhs, &rhs, &out] {
                if t.q.zero_point != 0 {
                    return Err(cx.unsupported(Unsupported::ZeroPoint(t.q.zero_point)));
                }
            }
            // The 64-bit form's `15 - shift` right shift must be positive.
            if s > 14 {
                return Err(cx.unsupported(Unsupported::Multiplier));
            }
        }
        p.offsets = [
            lhs.q.zero_point.wrapping_neg(),
            rhs.q.zero_point.wrapping_neg(),
        ];
        p.output_offset = out.q.zero_point;
    }
    if !p.fits() {
        return Err(cx.shape(ShapeFault::Overflow));
    }
    Prepared::of::<BatchMatMul>(cx, p)
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(BatchMatMulParams {
    batch: [usize; 3],
    lhs_step: [usize; 3],
    rhs_step: [usize; 3],
    rows: usize,
    depth: usize,
    cols: usize,
    elems: [usize; 2],
    adj_x: bool,
    adj_y: bool,
    ty: u32,
    offsets: [i32; 2],
    output_offset: i32,
    multiplier: [i32; 2],
});
