//! STRIDED_SLICE (any element type, moved as bytes): `reference_ops::StridedSlice` with
//! `strided_slice::StartForAxis` / `StopForAxis` (begin and end masks, negative indices and
//! strides, `offset`, shrunk axes), the indices padded to 5 dimensions as TFLM pads them.
//! `begin`, `end` and `strides` must be constants (TFLM reads them in `Prepare`); ellipsis
//! and new axes are refused. The output's shape must be the one the slice gives.

use synaptic_tflite::code;

use crate::error::{KernelError, LoadError, Operand, ShapeFault, Unsupported};
use crate::ops::prep::{element_bytes, small_i32s};
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::STRIDED_SLICE];

/// Dimensions of the padded slice.
pub(crate) const DIMS: usize = 5;

/// A prepared STRIDED_SLICE: per padded dimension the first index, the count and the
/// step, in elements of the input; made only by its `prepare` (every index in range).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StridedSliceParams {
    /// The input's padded dimensions.
    pub(crate) dims: [usize; DIMS],
    /// First index per dimension.
    pub(crate) start: [usize; DIMS],
    /// Indices taken per dimension.
    pub(crate) count: [usize; DIMS],
    /// Step per dimension (negative: backwards).
    pub(crate) stride: [i32; DIMS],
    /// Bytes per element.
    pub(crate) elem: usize,
}

/// TFLM's `StartForAxis` (`strided_slice_logic.h`), in `i64` (no overflow).
fn start_for_axis(begin: i32, masked: bool, stride: i32, size: i64) -> i64 {
    if size == 0 {
        return 0;
    }
    let mut start = if masked {
        if stride > 0 {
            i64::from(i32::MIN)
        } else {
            i64::from(i32::MAX)
        }
    } else {
        i64::from(begin)
    };
    if start < 0 {
        start += size;
    }
    if stride > 0 {
        start.clamp(0, size)
    } else {
        start.clamp(-1, size - 1)
    }
}

/// TFLM's `StopForAxis`.
fn stop_for_axis(
    end: i32,
    masked: bool,
    shrink: bool,
    offset: bool,
    stride: i32,
    size: i64,
    start: i64,
) -> i64 {
    if size == 0 {
        return 0;
    }
    if shrink {
        return start + 1;
    }
    let mut stop = i64::from(end);
    if offset {
        stop += start;
    }
    if masked {
        stop = if stride > 0 {
            i64::from(i32::MAX)
        } else {
            i64::from(i32::MIN)
        };
    }
    if stop < 0 {
        stop += size;
    }
    if stride > 0 {
        stop.clamp(0, size)
    } else {
        stop.clamp(-1, size - 1)
    }
}

/// STRIDED_SLICE of `input`'s bytes into `output`'s.
pub fn strided_slice(
    p: &StridedSliceParams,
    input: &[u8],
    output: &mut [u8],
) -> Result<(), KernelError> {
    copy_box("STRIDED_SLICE", p, input, output)
}

/// The elements `p` takes of `input`'s bytes into `output`'s, for operator `op` (STRIDED_SLICE,
/// SLICE).
pub(crate) fn copy_box(
    op: &'static str,
    p: &StridedSliceParams,
    input: &[u8],
    output: &mut [u8],
) -> Result<(), KernelError> {
    let n_in = p.dims.iter().product::<usize>() * p.elem;
    let n_out = p.count.iter().product::<usize>() * p.elem;
    KernelError::check_len(op, Operand::Input(0), n_in, input.len())?;
    KernelError::check_len(op, Operand::Output, n_out, output.len())?;
    // Element strides of the input per dimension.
    let mut step = [1usize; DIMS];
    for d in (0..DIMS - 1).rev() {
        step[d] = step[d + 1] * p.dims[d + 1];
    }
    let e = p.elem;
    let mut o = 0;
    let mut idx = [0usize; DIMS];
    if n_out == 0 {
        return Ok(());
    }
    // A forward innermost dimension is one contiguous run per row: copied at once.
    let (run, last) = if p.stride[DIMS - 1] == 1 {
        (p.count[DIMS - 1], DIMS - 1)
    } else {
        (1, DIMS)
    };
    let bad = || KernelError::unsupported(op, Unsupported::ProgramMismatch);
    loop {
        let mut at = 0usize;
        for d in 0..DIMS {
            // In range: the prepared start, count and stride keep every index inside.
            let i = p.start[d] as i64 + idx[d] as i64 * i64::from(p.stride[d]);
            at += i as usize * step[d];
        }
        let src = input.get(at * e..(at + run) * e).ok_or_else(bad)?;
        output
            .get_mut(o..o + run * e)
            .ok_or_else(bad)?
            .copy_from_slice(src);
        o += run * e;
        let mut d = last;
        loop {
            if d == 0 {
                return Ok(());
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < p.count[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// Prepares STRIDED_SLICE.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(4, 4)?;
    let (x, out) = (cx.input(0)?, cx.output()?);
    if !x.data.is_empty() {
        return Err(cx.unsupported(Unsupported::Constant(Operand::Input(0))));
    }
    if x.ty != out.ty {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let o = cx.op().strided_slice_options()?;
    if o.ellipsis_mask != 0 || o.new_axis_mask != 0 {
        return Err(cx.unsupported(Unsupported::StridedSlice));
    }
    let rank = x.rank;
    if rank > DIMS {
        return Err(cx.unsupported(Unsupported::Rank));
    }
    let mut vals = [[0i32; DIMS]; 3];
    for (k, v) in vals.iter_mut().enumerate() {
        let t = cx.input(k + 1)?;
        cx.constant(&t, Operand::Input(k as u8 + 1))?;
        let (a, n) = small_i32s::<DIMS>(&t.data[..t.bytes])
            .ok_or(cx.unsupported(Unsupported::TooManyValues(Operand::Input(k as u8 + 1))))?;
        if n != rank || t.ty != synaptic_tflite::TensorType::Int32 {
            return Err(cx.unsupported(Unsupported::StridedSlice));
        }
        *v = a;
    }
    let [begin, end, strides] = vals;
    // Pad to 5 dimensions at the front, as `StridedSlicePadIndices`: begin 0, end 1,
    // stride 1, the masks shifted.
    let pad = DIMS - rank;
    let mut p = StridedSliceParams {
        dims: [1; DIMS],
        start: [0; DIMS],
        count: [1; DIMS],
        stride: [1; DIMS],
        elem: element_bytes(x.ty),
    };
    let mut out_elems = 1usize;
    let mut kept = 0usize;
    for d in 0..rank {
        let size = x.shape()[d];
        let s = strides[d];
        if s == 0 {
            return Err(cx.unsupported(Unsupported::StridedSlice));
        }
        let bit = |m: i32| m >> d & 1 == 1;
        let sz = size as i64;
        let start = start_for_axis(begin[d], bit(o.begin_mask), s, sz);
        let stop = stop_for_axis(
            end[d],
            bit(o.end_mask),
            bit(o.shrink_axis_mask),
            o.offset,
            s,
            sz,
            start,
        );
        // The loop `for (i = start; stride > 0 ? i < stop : i > stop; i += stride)`.
        let n = if s > 0 {
            if stop > start {
                (stop - start + i64::from(s) - 1) / i64::from(s)
            } else {
                0
            }
        } else if start > stop {
            // (Negated in 64 bits: a stride of −2^31 has no 32-bit negation.)
            (start - stop - i64::from(s) - 1) / -i64::from(s)
        } else {
            0
        };
        let last = start + (n - 1).max(0) * i64::from(s);
        if n > 0 && (start < 0 || start >= sz || last < 0 || last >= sz) {
            return Err(cx.unsupported(Unsupported::StridedSlice));
        }
        let n = n as usize;
        p.dims[pad + d] = size;
        p.start[pad + d] = start.max(0) as usize;
        p.count[pad + d] = n;
        p.stride[pad + d] = s;
        out_elems *= n;
        if !bit(o.shrink_axis_mask) {
            // The output keeps this dimension: its size must be the count.
            if out.shape().get(kept) != Some(&n) {
                return Err(cx.shape(ShapeFault::SizeDiffers));
            }
            kept += 1;
        }
    }
    if kept != out.rank || out_elems.checked_mul(p.elem) != Some(out.bytes) {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    Prepared::of::<StridedSlice>(cx, p)
}

/// The STRIDED_SLICE kernel (any element type).
pub struct StridedSlice;

impl Kernel for StridedSlice {
    const NAME: &'static str = "STRIDED_SLICE";
    const MAX_INPUTS: usize = 4;
    type Params = StridedSliceParams;

    fn run(p: &StridedSliceParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.bytes(0);
        strided_slice(p, x, io.out_bytes())
    }
}

crate::format::codec::words!(StridedSliceParams {
    dims: [usize; DIMS],
    start: [usize; DIMS],
    count: [usize; DIMS],
    stride: [i32; DIMS],
    elem: usize,
});

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::*;

    /// The slice element by element, the definition (`reference_ops::StridedSlice`'s loops).
    fn naive(p: &StridedSliceParams, input: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut step = [1usize; DIMS];
        for d in (0..DIMS - 1).rev() {
            step[d] = step[d + 1] * p.dims[d + 1];
        }
        let total: usize = p.count.iter().product();
        for k in 0..total {
            let (mut rest, mut at) = (k, 0i64);
            for d in (0..DIMS).rev() {
                let i = (rest % p.count[d]) as i64;
                rest /= p.count[d];
                at += (p.start[d] as i64 + i * i64::from(p.stride[d])) * step[d] as i64;
            }
            let at = at as usize * p.elem;
            out.extend_from_slice(&input[at..at + p.elem]);
        }
        out
    }

    #[test]
    fn slices_equal_the_definition() {
        let mut s = 0x1234_5678u64;
        let mut next = |n: u64| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s % n
        };
        for _ in 0..2000 {
            let elem = [1, 2, 4][next(3) as usize];
            let mut p = StridedSliceParams {
                dims: [1; DIMS],
                start: [0; DIMS],
                count: [1; DIMS],
                stride: [1; DIMS],
                elem,
            };
            for d in 0..DIMS {
                let size = 1 + next(5) as usize;
                let stride = [1, 1, 2, 3, -1, -2][next(6) as usize];
                let start = next(size as u64) as usize;
                // As many indices as stay inside.
                let room = if stride > 0 {
                    (size - 1 - start) / stride as usize + 1
                } else {
                    start / (-stride) as usize + 1
                };
                p.dims[d] = size;
                p.start[d] = start;
                p.stride[d] = stride;
                p.count[d] = next(room as u64 + 1) as usize;
            }
            let n_in = p.dims.iter().product::<usize>() * elem;
            let input: Vec<u8> = (0..n_in).map(|i| i as u8 ^ 0x5a).collect();
            let mut out = std::vec![0u8; p.count.iter().product::<usize>() * elem];
            strided_slice(&p, &input, &mut out).unwrap();
            assert_eq!(out, naive(&p, &input), "{p:?}");
        }
    }
}
