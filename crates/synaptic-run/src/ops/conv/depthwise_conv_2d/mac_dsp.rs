//! DEPTHWISE_CONV_2D's multiply-accumulate primitives on the DSP extension
//! (`cfg(synaptic_dsp)`): `SXTAB16`/`SXTB16` lanes and one `SMLAxy` a product (or `SMLAD` a
//! pair), the same wrapping sums as the portable path's (`mac.rs`).

use super::*;

/// [`mac_run`] on the DSP extension: four channels a step ([`mac4`]), the rest one at a time.
#[inline(always)]
pub(super) fn mac_run<X: Int8, W: Int8>(acc: &mut [i32], x: &[X], w: &[W], offset: i32) {
    let n = acc.len() / LANES * LANES;
    let (a4, x4, w4) = (
        acc[..n].chunks_exact_mut(LANES),
        x[..n].chunks_exact(LANES),
        w[..n].chunks_exact(LANES),
    );
    for ((a, x), w) in a4.zip(x4).zip(w4) {
        if let (Ok(a), Ok(w)) = (<&mut [i32; LANES]>::try_from(a), <&[W; LANES]>::try_from(w)) {
            mac4::<1, X, W>(a, x, w, offset);
        }
    }
    for ((a, x), w) in acc[n..].iter_mut().zip(&x[n..]).zip(&w[n..]) {
        *a = a.wrapping_add(w.value().wrapping_mul(x.value() + offset));
    }
}

/// [`offset_row`] on the DSP extension: four values a word, offset in two halfword lanes
/// (`SXTAB16`, values 0 and 2, 1 and 3), repacked in order (`PKHBT`/`PKHTB`).
#[inline(always)]
pub(super) fn offset_row<X: Int8>(dst: &mut [i16], src: &[X], offset: i32) {
    use crate::dsp::{sxtab16, sxtab16_ror8};
    let pair = (offset as u32 & 0xffff) * 0x1_0001;
    let mut d4 = dst.chunks_exact_mut(4);
    let mut s4 = src.chunks_exact(4);
    for (d, s) in (&mut d4).zip(&mut s4) {
        if let Ok(s) = <&[X; 4]>::try_from(s) {
            let xw = crate::ops::common::word(s);
            let (e, o) = (sxtab16(pair, xw), sxtab16_ror8(pair, xw));
            let (p01, p23) = ((e & 0xffff) | (o << 16), (o & 0xffff_0000) | (e >> 16));
            d[0] = p01 as i16;
            d[1] = (p01 >> 16) as i16;
            d[2] = p23 as i16;
            d[3] = (p23 >> 16) as i16;
        }
    }
    for (d, x) in d4.into_remainder().iter_mut().zip(s4.remainder()) {
        *d = (x.value() + offset) as i16;
    }
}

/// [`taps4`] on the DSP extension: two taps a step in registers ([`dsp::taps4_pairs`]).
#[inline(always)]
pub(super) fn taps4<W: Int8>(v: &[i16], filter: &[W], out_d: usize, oc: usize) -> [i32; LANES] {
    dsp::taps4_pairs([0; LANES], v, filter.get(oc..).unwrap_or(&[]), out_d)
}

/// [`mac4`] on the DSP extension: the four weights (and, with `SPREAD` 1, the four inputs)
/// as one word each, split into even and odd lanes of signed halfwords (`SXTB16`, the input
/// offset added by `SXTAB16`: `x + offset` is within ±255, exact in 16 bits), then one
/// `SMLABB`/`SMLATT` per lane: the same wrapping sums as the portable path.
#[inline(always)]
pub(super) fn mac4<const SPREAD: usize, X: Int8, W: Int8>(
    acc: &mut [i32; LANES],
    x: &[X],
    w: &[W; LANES],
    offset: i32,
) {
    if SPREAD == 0 {
        // One input value for the four lanes.
        return mac4_value(acc, x[0].value() + offset, w);
    }
    let pair = (offset as u32 & 0xffff) * 0x1_0001;
    let xw = crate::ops::common::word(&[x[0], x[1], x[2], x[3]]);
    mac_word(acc, xw, &tap(w), pair);
}

/// [`mac4_value`] on the DSP extension: the weights' word split into even and odd lanes
/// (`SXTB16`), `v` (within ±32,767) in the bottom halfword against each lane's
/// (`SMLABB`/`SMLABT`): no packing of `v`.
#[inline(always)]
pub(super) fn mac4_value<W: Int8>(acc: &mut [i32; LANES], v: i32, w: &[W; LANES]) {
    use crate::dsp::{smlabb, smlabt, sxtb16, sxtb16_ror8};
    let ww = crate::ops::common::word(w);
    let (w02, w13) = (sxtb16(ww), sxtb16_ror8(ww));
    let v = v as u32;
    acc[0] = smlabb(v, w02, acc[0]);
    acc[1] = smlabb(v, w13, acc[1]);
    acc[2] = smlabt(v, w02, acc[2]);
    acc[3] = smlabt(v, w13, acc[3]);
}

/// One tap's four weights as the row kernel multiplies them: the word split into even and
/// odd lanes of signed halfwords (`SXTB16`).
pub(super) type Tap = [u32; 2];

/// `v` (an activation bound, within int8) in each byte of a word.
pub(super) fn lanes(v: i32) -> u32 {
    u32::from(v.clamp(-128, 127) as i8 as u8) * 0x0101_0101
}

/// The [`Tap`] of four weights.
#[inline(always)]
pub(super) fn tap<W: Int8>(w: &[W; LANES]) -> Tap {
    let ww = crate::ops::common::word(w);
    [crate::dsp::sxtb16(ww), crate::dsp::sxtb16_ror8(ww)]
}

/// `acc[j] += (x_j + offset) · w_j` for the four lanes of the input word `x` (bytes, lane
/// `j` at bits `8j`) and the tap `t`, wrapping. `pair` is the offset in both halfwords: added
/// by `SXTAB16` (`x + offset` is within ±255, exact in 16 bits), then one `SMLABB`/`SMLATT`
/// per lane ([`mac4`] is this on four inputs).
#[inline(always)]
pub(super) fn mac_word(acc: &mut [i32; LANES], x: u32, t: &Tap, pair: u32) {
    use crate::dsp::{smlabb, smlatt, sxtab16, sxtab16_ror8};
    let (x02, x13) = (sxtab16(pair, x), sxtab16_ror8(pair, x));
    acc[0] = smlabb(x02, t[0], acc[0]);
    acc[1] = smlabb(x13, t[1], acc[1]);
    acc[2] = smlatt(x02, t[0], acc[2]);
    acc[3] = smlatt(x13, t[1], acc[3]);
}
