//! Overlapped execution (issue 12): every kernel with an access contract
//! ([`crate::contract`]) run on **one** `&mut [u8]` buffer that holds both the input and the
//! output, at byte offsets [`InPlace::input`] and [`InPlace::output`], stepping through the
//! output in [`InPlace::direction`]. No aliasing `&`/`&mut` pair exists (the buffer is the only
//! borrow) and no `unsafe`: each step reads what it needs through `&buf`, computes the output
//! element, and only then writes it — exactly the model the contract describes ("step `j` reads
//! `[lo(j), hi(j)]`, then writes element `j`").
//!
//! Every entry point first checks that both tensors lie inside the buffer and that the delta
//! `output − input` is safe in the requested direction by the kernel's contract
//! ([`crate::contract::SafeOverlap::safe`], derived in O(n)); anything else is a
//! [`KernelError`], never a wrong answer. Disjoint placements are always accepted.
//!
//! The arithmetic is the plain kernels' own (`requantize`, `add_value`, `softmax_row`, …, shared
//! with [`super::conv`], [`super::elementwise`], [`super::activations`], [`super::quantize`]);
//! the accumulation loops of the convolutions, pooling and FULLY_CONNECTED are written per
//! output element here, in the plain kernels' order (the convolutions and pooling as loops over
//! the output pixels, the window clipped to the input once per pixel, the channels innermost,
//! each element read, computed and written before the next), and the property tests
//! (`overlapped_tests.rs`) check every entry point bit-identical to its plain kernel on random
//! geometries and safe deltas — and that deltas just outside the safe range do break.

use super::activations::{
    logistic_value, softmax_row, softmax_value, LogisticParams, SoftmaxParams,
};
use super::conv::{dot, requantize, ConvParams};
use super::elementwise::{add_value, mul_value, AddParams, Broadcast, MulParams};
use super::fully_connected::FullyConnectedParams;
use super::pooling::{average, clamp_max, PoolParams, EMPTY_WINDOW};
use super::quantize::{dequantize_value, quantize_value, requantize_value, RequantizeParams};
use super::{offset4, Int32s, Int8};
use crate::contract::{Access, Contract, Direction, FC_ROW_BUFFER};
use crate::error::KernelError;
use crate::math::{multiply_by_quantized_multiplier, QuantParams};

/// Where the input and the output lie in the one buffer, and the direction to run in
/// ([`InPlace::new`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InPlace {
    /// Byte offset of the input.
    pub input: usize,
    /// Byte offset of the output.
    pub output: usize,
    /// The order of the output elements.
    pub direction: Direction,
    /// Whether the entry point checks the delta against the contract: always, outside this
    /// module's tests (which turn it off to show that unsafe deltas really break).
    verify: bool,
}

impl InPlace {
    /// Input at byte `input`, output at byte `output`, run in `direction`.
    pub const fn new(input: usize, output: usize, direction: Direction) -> InPlace {
        InPlace {
            input,
            output,
            direction,
            verify: true,
        }
    }

    /// Input at byte `input`, output at byte `output`, run in `direction`, the delta already
    /// checked against the kernel's contract (by the interpreter at load: its offsets come from
    /// the plan it checked, so the O(n) derivation is not repeated at every inference). The
    /// placement is still checked against the buffer.
    pub(crate) const fn checked_at_load(
        input: usize,
        output: usize,
        direction: Direction,
    ) -> InPlace {
        InPlace {
            input,
            output,
            direction,
            verify: false,
        }
    }

    /// `output − input` in bytes.
    pub fn delta(&self) -> i64 {
        self.output as i64 - self.input as i64
    }
}

/// Checks the placement against the buffer and the contract.
fn check(op: &'static str, c: &Contract, buf: &[u8], at: &InPlace) -> Result<(), KernelError> {
    let fits =
        |start: usize, bytes: usize| start.checked_add(bytes).is_some_and(|e| e <= buf.len());
    let in_bytes = c.in_elems.saturating_mul(c.in_elem_bytes);
    let out_bytes = c.out_elems.saturating_mul(c.out_elem_bytes);
    if !fits(at.input, in_bytes) {
        return Err(KernelError::Length {
            op,
            what: "buffer (input end)",
            expected: at.input.saturating_add(in_bytes),
            got: buf.len(),
        });
    }
    if !fits(at.output, out_bytes) {
        return Err(KernelError::Length {
            op,
            what: "buffer (output end)",
            expected: at.output.saturating_add(out_bytes),
            got: buf.len(),
        });
    }
    if !at.verify {
        return Ok(());
    }
    let safe = c.safe_overlap().ok_or(KernelError::unsupported(
        op,
        "a tensor too large for an overlap contract",
    ))?;
    if !safe.safe(at.delta(), at.direction) {
        return Err(KernelError::unsupported(
            op,
            "output/input delta outside the kernel's safe overlap in this direction",
        ));
    }
    Ok(())
}

/// Runs `n` steps in `dir`: step `j` computes output element `j` (`N` bytes) from `&buf`, then
/// writes it at `out + j·N`.
fn drive<const N: usize>(
    buf: &mut [u8],
    out: usize,
    n: usize,
    dir: Direction,
    mut f: impl FnMut(&[u8], usize) -> Result<[u8; N], KernelError>,
) -> Result<(), KernelError> {
    let mut step = |buf: &mut [u8], j: usize| -> Result<(), KernelError> {
        let v = f(buf, j)?;
        buf[out + j * N..out + (j + 1) * N].copy_from_slice(&v);
        Ok(())
    };
    match dir {
        Direction::Forward => (0..n).try_for_each(|j| step(buf, j)),
        Direction::Backward => (0..n).rev().try_for_each(|j| step(buf, j)),
    }
}

/// Input element `i` (int8) of the input at `at`.
#[inline(always)]
fn x8(buf: &[u8], at: usize, i: usize) -> i8 {
    buf[at + i] as i8
}

#[allow(clippy::too_many_arguments)]
fn check_tables<W: Int8, B: Int32s + ?Sized, T: Int32s + ?Sized>(
    op: &'static str,
    p: &ConvParams,
    multipliers: &T,
    shifts: &T,
    filter: &[W],
    bias: Option<&B>,
) -> Result<(), KernelError> {
    let channels = p.output_shape[3];
    KernelError::check_len(op, "multiplier table", channels, multipliers.count())?;
    KernelError::check_len(op, "shift table", channels, shifts.count())?;
    KernelError::check_len(op, "filter", p.filter_shape.iter().product(), filter.len())?;
    if let Some(b) = bias {
        KernelError::check_len(op, "bias", channels, b.count())?;
    }
    Ok(())
}

/// The order of `0..n` in `dir`: ascending (Forward) or descending (Backward).
#[inline(always)]
fn ordered(n: usize, dir: Direction) -> impl Iterator<Item = usize> {
    let back = dir == Direction::Backward;
    (0..n).map(move |i| if back { n - 1 - i } else { i })
}

/// Calls `f(b, oy, ox, first)` for every pixel of the NHWC output `shape` in `dir` (batches,
/// rows and columns all ascending, or all descending), `first` the offset of the pixel's first
/// channel: with the channels in `dir` inside, the elements in `dir` order.
#[inline(always)]
fn for_each_pixel(
    shape: &[usize; 4],
    dir: Direction,
    mut f: impl FnMut(usize, usize, usize, usize) -> Result<(), KernelError>,
) -> Result<(), KernelError> {
    let [batches, out_h, out_w, _] = *shape;
    for b in ordered(batches, dir) {
        for oy in ordered(out_h, dir) {
            for ox in ordered(out_w, dir) {
                f(b, oy, ox, offset4(shape, b, oy, ox, 0))?;
            }
        }
    }
    Ok(())
}

/// CONV_2D ([`super::conv::conv2d`]) with input and output in `buf`.
#[allow(clippy::too_many_arguments)]
pub fn conv2d<W: Int8, B: Int32s + ?Sized, T: Int32s + ?Sized>(
    p: &ConvParams,
    multipliers: &T,
    shifts: &T,
    filter: &[W],
    bias: Option<&B>,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    const OP: &str = "CONV_2D";
    check_tables(OP, p, multipliers, shifts, filter, bias)?;
    check(OP, &Contract::conv(p, false), buf, &at)?;
    let [_, _, _, in_d] = p.input_shape;
    let f_d = p.filter_shape[3];
    let out_d = p.output_shape[3];
    let filters_per_group = out_d / (in_d / f_d);
    // Without groups or dilation across, a filter row's taps are one run of input bytes.
    let rows = f_d == in_d && p.dilation_w == 1;
    for_each_pixel(&p.output_shape, at.direction, |b, oy, ox, first| {
        let (ys, xs) = p.taps_at(oy, ox);
        for oc in ordered(out_d, at.direction) {
            let group_base = (oc / filters_per_group) * f_d;
            let mut acc: i32 = 0;
            for (fy, in_y) in ys.iter() {
                let f_row = offset4(&p.filter_shape, oc, fy, 0, 0);
                let in_row = at.input + offset4(&p.input_shape, b, in_y, 0, group_base);
                if rows {
                    let (f0, x0, n) = (xs.taps.start, xs.first, xs.taps.len() * f_d);
                    let xr = &buf[in_row + x0 * in_d..][..n];
                    acc = dot(acc, xr, &filter[f_row + f0 * f_d..][..n], p.input_offset);
                    continue;
                }
                for (fx, in_x) in xs.iter() {
                    let xr = &buf[in_row + in_x * in_d..][..f_d];
                    acc = dot(acc, xr, &filter[f_row + fx * f_d..][..f_d], p.input_offset);
                }
            }
            if let Some(bias) = bias {
                acc = acc.wrapping_add(bias.at(oc));
            }
            buf[at.output + first + oc] =
                requantize(acc, multipliers.at(oc), shifts.at(oc), p) as u8;
        }
        Ok(())
    })
}

/// DEPTHWISE_CONV_2D ([`super::conv::depthwise_conv2d`]) with input and output in `buf`.
#[allow(clippy::too_many_arguments)]
pub fn depthwise_conv2d<W: Int8, B: Int32s + ?Sized, T: Int32s + ?Sized>(
    p: &ConvParams,
    multipliers: &T,
    shifts: &T,
    filter: &[W],
    bias: Option<&B>,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    const OP: &str = "DEPTHWISE_CONV_2D";
    check_tables(OP, p, multipliers, shifts, filter, bias)?;
    check(OP, &Contract::conv(p, true), buf, &at)?;
    let [_, _, _, in_d] = p.input_shape;
    let out_d = p.output_shape[3];
    let dm = p.depth_multiplier;
    let x_step = in_d * p.dilation_w;
    for_each_pixel(&p.output_shape, at.direction, |b, oy, ox, first| {
        let (ys, xs) = p.taps_at(oy, ox);
        for oc in ordered(out_d, at.direction) {
            let ic = oc / dm;
            let mut acc: i32 = 0;
            for (fy, in_y) in ys.iter() {
                // The row's taps: input bytes `x_step` apart, weights `out_d` apart.
                let mut xi = at.input + offset4(&p.input_shape, b, in_y, xs.first, ic);
                let mut wi = offset4(&p.filter_shape, 0, fy, xs.taps.start, oc);
                for _ in xs.taps.clone() {
                    let x = buf[xi] as i8;
                    acc = acc.wrapping_add(
                        filter[wi]
                            .value()
                            .wrapping_mul(i32::from(x) + p.input_offset),
                    );
                    xi += x_step;
                    wi += out_d;
                }
            }
            if let Some(bias) = bias {
                acc = acc.wrapping_add(bias.at(oc));
            }
            buf[at.output + first + oc] =
                requantize(acc, multipliers.at(oc), shifts.at(oc), p) as u8;
        }
        Ok(())
    })
}

/// AVERAGE_POOL_2D ([`super::pooling::average_pool`]) with input and output in `buf`.
pub fn average_pool(p: &PoolParams, buf: &mut [u8], at: InPlace) -> Result<(), KernelError> {
    const OP: &str = "AVERAGE_POOL_2D";
    check(OP, &Contract::pool(p), buf, &at)?;
    let depth = p.output_shape[3];
    for_each_pixel(&p.output_shape, at.direction, |b, oy, ox, first| {
        let (ys, xs) = p.window_at(oy, ox);
        let count = (ys.len() * xs.len()) as i32;
        if count == 0 && depth > 0 {
            return Err(KernelError::shape(OP, EMPTY_WINDOW));
        }
        for c in ordered(depth, at.direction) {
            let mut acc: i32 = 0;
            for y in ys.clone() {
                let row = at.input + offset4(&p.input_shape, b, y, 0, c);
                for x in xs.clone() {
                    acc += i32::from(buf[row + x * depth] as i8);
                }
            }
            buf[at.output + first + c] = average(acc, count, p) as u8;
        }
        Ok(())
    })
}

/// MAX_POOL_2D ([`super::pooling::max_pool`]) with input and output in `buf`.
pub fn max_pool(p: &PoolParams, buf: &mut [u8], at: InPlace) -> Result<(), KernelError> {
    check("MAX_POOL_2D", &Contract::pool(p), buf, &at)?;
    let depth = p.output_shape[3];
    for_each_pixel(&p.output_shape, at.direction, |b, oy, ox, first| {
        let (ys, xs) = p.window_at(oy, ox);
        for c in ordered(depth, at.direction) {
            let mut max = i8::MIN;
            for y in ys.clone() {
                let row = at.input + offset4(&p.input_shape, b, y, 0, c);
                for x in xs.clone() {
                    max = max.max(buf[row + x * depth] as i8);
                }
            }
            buf[at.output + first + c] = clamp_max(max, p) as u8;
        }
        Ok(())
    })
}

/// FULLY_CONNECTED ([`super::fully_connected::fully_connected`]) with input and output in
/// `buf`.
#[allow(clippy::too_many_arguments)]
pub fn fully_connected<W: Int8, B: Int32s + ?Sized, T: Int32s + ?Sized>(
    p: &FullyConnectedParams,
    multipliers: &T,
    shifts: &T,
    filter: &[W],
    bias: Option<&B>,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    const OP: &str = "FULLY_CONNECTED";
    KernelError::check_len(OP, "multiplier table", p.table_len(), multipliers.count())?;
    KernelError::check_len(OP, "shift table", p.table_len(), shifts.count())?;
    if filter.len() < p.output_depth * p.accum_depth {
        return Err(KernelError::Length {
            op: OP,
            what: "filter",
            expected: p.output_depth * p.accum_depth,
            got: filter.len(),
        });
    }
    if let Some(b) = bias {
        if b.count() < p.output_depth {
            return Err(KernelError::Length {
                op: OP,
                what: "bias",
                expected: p.output_depth,
                got: b.count(),
            });
        }
    }
    let contract = Contract::fully_connected(p);
    check(OP, &contract, buf, &at)?;
    let filter_offset = if p.per_channel { 0 } else { p.filter_offset };
    let n = p.batches * p.output_depth;
    // Short rows are copied to the stack at the row's first step (the contract's
    // `RowsBuffered`); longer ones are read from the buffer at every step (`Rows`).
    let buffered = matches!(contract.access, Access::RowsBuffered { .. });
    let mut row_copy = [0u8; FC_ROW_BUFFER];
    drive::<1>(buf, at.output, n, at.direction, |buf, j| {
        let (b, oc) = (j / p.output_depth, j % p.output_depth);
        let row_start = at.input + b * p.accum_depth;
        let first = match at.direction {
            Direction::Forward => oc == 0,
            Direction::Backward => oc + 1 == p.output_depth,
        };
        if buffered && first {
            row_copy[..p.accum_depth].copy_from_slice(&buf[row_start..row_start + p.accum_depth]);
        }
        let row: &[u8] = if buffered {
            &row_copy[..p.accum_depth]
        } else {
            &buf[row_start..row_start + p.accum_depth]
        };
        let weights = &filter[oc * p.accum_depth..(oc + 1) * p.accum_depth];
        let mut acc: i32 = 0;
        for (k, &w) in weights.iter().enumerate() {
            let x = row[k] as i8;
            acc = acc.wrapping_add(
                (w.value() + filter_offset).wrapping_mul(i32::from(x) + p.input_offset),
            );
        }
        if let Some(bias) = bias {
            acc = acc.wrapping_add(bias.at(oc));
        }
        let (m, s) = if p.per_channel {
            (multipliers.at(oc), shifts.at(oc))
        } else {
            (multipliers.at(0), shifts.at(0))
        };
        let v = multiply_by_quantized_multiplier(acc, m, s).wrapping_add(p.output_offset);
        Ok([v.clamp(p.act_min, p.act_max) as i8 as u8])
    })
}

/// FULLY_CONNECTED with short rows ([`Access::RowsBuffered`]: at most [`FC_ROW_BUFFER`]
/// bytes) in `buf`, a row at a time in `at.direction`: the input row is copied to the stack,
/// then `row(x, out)` computes the row's outputs from the copy straight into the buffer (a
/// plain kernel with one batch, e.g. [`super::fully_connected::fully_connected_folded`] with
/// `u8` outputs). The same reads and writes as [`fully_connected`]'s steps up to their order
/// inside a row, which the contract does not constrain: only a row's first step reads, so
/// every write of row `r` must land outside the rows still to be read whatever the element —
/// the contract's bound at the row's extreme element says so for all of them.
pub fn fully_connected_rows(
    p: &FullyConnectedParams,
    buf: &mut [u8],
    at: InPlace,
    mut row: impl FnMut(&[i8], &mut [u8]) -> Result<(), KernelError>,
) -> Result<(), KernelError> {
    const OP: &str = "FULLY_CONNECTED";
    if p.batches == 1 && p.accum_depth <= SHORT_ROW {
        // One short row (every FULLY_CONNECTED of a vector): it is copied before any output is
        // written, so every placement of the two in `buf` is safe — what the contract of
        // `Access::RowsBuffered` with one row says — and only the bounds are checked.
        let (ad, od) = (p.accum_depth, p.output_depth);
        let fits = |start: usize, n: usize| start.checked_add(n).filter(|&e| e <= buf.len());
        let (Some(in_end), Some(out_end)) = (fits(at.input, ad), fits(at.output, od)) else {
            return Err(KernelError::Length {
                op: OP,
                what: "buffer (input or output end)",
                expected: at.input.max(at.output).saturating_add(ad.max(od)),
                got: buf.len(),
            });
        };
        let mut x = [0i8; SHORT_ROW];
        for (d, &v) in x.iter_mut().zip(&buf[at.input..in_end]) {
            *d = v as i8;
        }
        return row(&x[..ad], &mut buf[at.output..out_end]);
    }
    let contract = Contract::fully_connected(p);
    if !matches!(contract.access, Access::RowsBuffered { .. }) {
        return Err(KernelError::unsupported(
            OP,
            "row-wise overlapped execution of rows longer than the row buffer",
        ));
    }
    check(OP, &contract, buf, &at)?;
    // The row copy is zeroed first (safe Rust): a short row takes a short buffer.
    if p.accum_depth <= SHORT_ROW {
        rows_through::<SHORT_ROW>(p, buf, at, &mut row)
    } else {
        rows_through::<FC_ROW_BUFFER>(p, buf, at, &mut row)
    }
}

/// Rows of at most this many bytes are copied through a buffer of this size.
const SHORT_ROW: usize = 16;

/// [`fully_connected_rows`]' loop, with a row buffer of `N >= accum_depth` bytes.
#[inline(always)]
fn rows_through<const N: usize>(
    p: &FullyConnectedParams,
    buf: &mut [u8],
    at: InPlace,
    row: &mut impl FnMut(&[i8], &mut [u8]) -> Result<(), KernelError>,
) -> Result<(), KernelError> {
    let (ad, od) = (p.accum_depth, p.output_depth);
    let mut x = [0i8; N];
    for r in 0..p.batches {
        let b = match at.direction {
            Direction::Forward => r,
            Direction::Backward => p.batches - 1 - r,
        };
        let src = at.input + b * ad;
        for (d, &v) in x[..ad].iter_mut().zip(&buf[src..src + ad]) {
            *d = v as i8;
        }
        let dst = at.output + b * od;
        row(&x[..ad], &mut buf[dst..dst + od])?;
    }
    Ok(())
}

/// SOFTMAX ([`super::activations::softmax`]) with input and output in `buf`: forward only (a
/// row is read twice before its first output is written).
pub fn softmax(p: &SoftmaxParams, buf: &mut [u8], at: InPlace) -> Result<(), KernelError> {
    if at.direction == Direction::Backward {
        return Err(KernelError::unsupported("SOFTMAX", "backward execution"));
    }
    check("SOFTMAX", &Contract::softmax(p), buf, &at)?;
    let depth = p.depth.max(1);
    let mut row = None;
    drive::<1>(buf, at.output, p.outer * p.depth, at.direction, |buf, j| {
        if j % depth == 0 {
            let start = at.input + j;
            row = Some(softmax_row(
                p,
                buf[start..start + depth].iter().map(|&b| b as i8),
            )?);
        }
        // Forward (checked above): the row was prepared at its first element.
        let r = row
            .as_ref()
            .ok_or(KernelError::unsupported("SOFTMAX", "backward execution"))?;
        Ok([softmax_value(p, r, x8(buf, at.input, j)) as u8])
    })
}

/// LOGISTIC ([`super::activations::logistic`]) of `elems` elements with input and output in
/// `buf`.
pub fn logistic(
    p: &LogisticParams,
    elems: usize,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    check("LOGISTIC", &Contract::elementwise(elems, 1, 1), buf, &at)?;
    drive::<1>(buf, at.output, elems, at.direction, |buf, j| {
        Ok([logistic_value(p, x8(buf, at.input, j)) as u8])
    })
}

/// The shared body of ADD and MUL: input `which` (0 or 1) in `buf`, the other in `other`.
fn binary<T: Int8>(
    op: &'static str,
    bc: &Broadcast,
    which: usize,
    other: &[T],
    buf: &mut [u8],
    at: InPlace,
    f: impl Fn(i32, i32) -> i8,
) -> Result<(), KernelError> {
    if which > 1 || !bc.full(which) {
        return Err(KernelError::unsupported(
            op,
            "overlap with an input that is broadcast (no contract)",
        ));
    }
    let [n1, n2, n] = bc.sizes();
    KernelError::check_len(
        op,
        "other input",
        if which == 0 { n2 } else { n1 },
        other.len(),
    )?;
    check(op, &Contract::elementwise(n, 1, 1), buf, &at)?;
    let o = 1 - which;
    drive::<1>(buf, at.output, n, at.direction, |buf, j| {
        let mine = i32::from(x8(buf, at.input, j));
        let theirs = other[bc.index(o, j)].value();
        let v = if which == 0 {
            f(mine, theirs)
        } else {
            f(theirs, mine)
        };
        Ok([v as u8])
    })
}

/// ADD ([`super::elementwise::add`]) with input `which` (0 or 1, of the output's shape) and the
/// output in `buf`; the other input (possibly broadcast) is `other`.
pub fn add<T: Int8>(
    p: &AddParams,
    which: usize,
    other: &[T],
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    binary("ADD", &p.broadcast, which, other, buf, at, |x, y| {
        add_value(p, x, y)
    })
}

/// MUL ([`super::elementwise::mul`]), as [`add`].
pub fn mul<T: Int8>(
    p: &MulParams,
    which: usize,
    other: &[T],
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    binary("MUL", &p.broadcast, which, other, buf, at, |x, y| {
        mul_value(p, x, y)
    })
}

/// QUANTIZE int8 → int8 ([`super::quantize::requantize`]) of `elems` elements in `buf`.
pub fn requantize_i8(
    p: &RequantizeParams,
    elems: usize,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    check("QUANTIZE", &Contract::elementwise(elems, 1, 1), buf, &at)?;
    drive::<1>(buf, at.output, elems, at.direction, |buf, j| {
        Ok([requantize_value::<i8, i8>(p, x8(buf, at.input, j)) as u8])
    })
}

/// QUANTIZE float32 → int8 ([`super::quantize::quantize_f32`]) of `elems` elements in `buf`
/// (the floats in native byte order, as in the arena).
pub fn quantize_f32_i8(
    output_q: QuantParams,
    elems: usize,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    check("QUANTIZE", &Contract::elementwise(elems, 4, 1), buf, &at)?;
    drive::<1>(buf, at.output, elems, at.direction, |buf, j| {
        let s = at.input + 4 * j;
        let x = f32::from_ne_bytes([buf[s], buf[s + 1], buf[s + 2], buf[s + 3]]);
        Ok([quantize_value::<i8>(output_q, x) as u8])
    })
}

/// DEQUANTIZE int8 → float32 ([`super::quantize::dequantize`]) of `elems` elements in `buf`
/// (the floats written in native byte order).
pub fn dequantize_i8(
    input_q: QuantParams,
    elems: usize,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    check("DEQUANTIZE", &Contract::elementwise(elems, 1, 4), buf, &at)?;
    let scale = f64::from(input_q.scale);
    drive::<4>(buf, at.output, elems, at.direction, |buf, j| {
        Ok(dequantize_value(scale, input_q.zero_point, x8(buf, at.input, j)).to_ne_bytes())
    })
}

/// RESHAPE / SQUEEZE ([`super::layout::copy`]) of `bytes` bytes in `buf`: nothing to do at
/// delta 0 (the alias), else a byte copy in the contract's direction.
pub fn copy(
    op: &'static str,
    bytes: usize,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    check(op, &Contract::elementwise(bytes, 1, 1), buf, &at)?;
    if at.delta() == 0 {
        return Ok(());
    }
    drive::<1>(buf, at.output, bytes, at.direction, |buf, j| {
        Ok([buf[at.input + j]])
    })
}

#[cfg(test)]
#[path = "overlapped_tests.rs"]
mod tests;
