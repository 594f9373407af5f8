//! DEPTHWISE_CONV_2D's multiply-accumulate primitives on the portable path (no DSP
//! extension): a product an input value and weight, wrapping `i32` sums.

use super::*;

/// `acc[j] += (x[j] + offset) · w[j]` for every `j`, wrapping (portable).
#[inline(always)]
pub(super) fn mac_run<X: Int8, W: Int8>(acc: &mut [i32], x: &[X], w: &[W], offset: i32) {
    for ((a, x), w) in acc.iter_mut().zip(x).zip(w) {
        *a = a.wrapping_add(w.value().wrapping_mul(x.value() + offset));
    }
}

/// `dst[i] = src[i] + offset` (within ±255), the window row of one input channel.
#[inline(always)]
pub(super) fn offset_row<X: Int8>(dst: &mut [i16], src: &[X], offset: i32) {
    for (d, x) in dst.iter_mut().zip(src) {
        *d = (x.value() + offset) as i16;
    }
}

/// The accumulators of the four outputs `oc ..` over the taps of a window whose values are
/// `v` (offset), the weights of tap `t` at `filter[t · out_d + oc ..]`: `Σ_t v[t] · w` each,
/// wrapping: a tap at a time, its four weights one word ([`mac4_value`]).
#[inline(always)]
pub(super) fn taps4<W: Int8>(v: &[i16], filter: &[W], out_d: usize, oc: usize) -> [i32; LANES] {
    let mut acc = [0i32; LANES];
    for (&v, row) in v.iter().zip(filter.chunks_exact(out_d.max(1))) {
        if let Ok(w) = <&[W; LANES]>::try_from(&row[oc..oc + LANES]) {
            mac4_value(&mut acc, i32::from(v), w);
        }
    }
    acc
}

/// `acc[j] += (x[j·SPREAD] + offset)·w[j]` for the four lanes, wrapping (portable).
#[inline(always)]
pub(super) fn mac4<const SPREAD: usize, X: Int8, W: Int8>(
    acc: &mut [i32; LANES],
    x: &[X],
    w: &[W; LANES],
    offset: i32,
) {
    for j in 0..LANES {
        let xj = x[j * SPREAD].value() + offset;
        acc[j] = acc[j].wrapping_add(w[j].value().wrapping_mul(xj));
    }
}

/// `acc[j] += v · w[j]` for the four lanes, wrapping, `v` an input value already offset
/// (portable).
#[inline(always)]
pub(super) fn mac4_value<W: Int8>(acc: &mut [i32; LANES], v: i32, w: &[W; LANES]) {
    for j in 0..LANES {
        acc[j] = acc[j].wrapping_add(w[j].value().wrapping_mul(v));
    }
}

/// One tap's four weights as the row kernel multiplies them.
pub(super) type Tap = [i8; LANES];

/// The [`Tap`] of four weights.
#[inline(always)]
pub(super) fn tap<W: Int8>(w: &[W; LANES]) -> Tap {
    [0, 1, 2, 3].map(|j| w[j].value() as i8)
}

/// `acc[j] += (x_j + offset) · w_j` for the four lanes of the input word `x` (bytes, lane
/// `j` at bits `8j`) and the tap `t`, wrapping. `pair` is the offset in both halfwords.
#[inline(always)]
pub(super) fn mac_word(acc: &mut [i32; LANES], x: u32, t: &Tap, pair: u32) {
    let off = i32::from(pair as u16 as i16);
    for j in 0..LANES {
        let xj = i32::from((x >> (8 * j)) as u8 as i8) + off;
        acc[j] = acc[j].wrapping_add(xj.wrapping_mul(i32::from(t[j])));
    }
}
