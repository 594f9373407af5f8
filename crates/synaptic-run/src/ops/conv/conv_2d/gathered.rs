//! CONV_2D's gathered filter windows on the portable path of the Thumb-2 cores and the host
//! (neither the DSP extension nor Armv6-M): a pixel pair packed one word a tap, two products
//! a `SMLAL`.

use super::*;
use crate::ops::conv::unpack23;

/// Taps a packed accumulator of [`Gathered`] takes before it is split (portable, not Armv6-M):
/// a window value `|x + offset| ≤ 255` times a weight `|w| ≤ 128` is at most 32,640, so
/// 128 of them sum to at most 4,177,920 < 2²² in magnitude, which the low 23 bits of the
/// packed sum hold exactly (sign-extended).
pub(super) const PACKED_TAPS: usize = 128;

/// A pair of filter windows' input values, offset (`x + input_offset`, within ±255), in the
/// filter's order, packed one word a tap (portable, not Armv6-M): `a + b · 2²³` for window
/// `a`'s value and window `b`'s (an exact integer within `i32`). One `SMLAL` of a packed
/// word and a weight multiply-accumulates both pixels into a 64-bit sum `A + B · 2²³`,
/// split every [`PACKED_TAPS`] taps ([`unpack23`]): two products an instruction where `MLA`
/// takes one.
pub(crate) struct Gathered<'s> {
    /// `cap` packed words.
    pub(super) v: &'s mut [i32],
    pub(super) cap: usize,
    pub(super) k: usize,
    /// The taps a packed sum takes before it is split: [`PACKED_TAPS`], or a whole filter
    /// whose weights are small enough ([`Filters::span`]).
    pub(super) span: usize,
}

impl<'s> Gathered<'s> {
    /// Windows of up to `k` values from `scratch` (zeroed), or `None`.
    #[inline(always)]
    pub(super) fn take(scratch: &mut Scratch<'s>, k: usize) -> Option<Self> {
        let v = zeroed(scratch.take::<i32>(k)?);
        Some(Gathered {
            v,
            cap: k,
            k: 0,
            span: PACKED_TAPS,
        })
    }

    /// The next pair of windows, `k` (at most the capacity taken) values each, all 0 unless
    /// `whole` (every value of both about to be set).
    #[inline(always)]
    pub(super) fn begin_pair(&mut self, k: usize, whole: bool) {
        self.k = k.min(self.cap);
        if !whole {
            self.v[..self.k].fill(0);
        }
    }

    /// Values `at ..` of window `p` (0 or 1) of the pair are `xs`, offset: window 0's set
    /// (before window 1's), window 1's added at bit 23.
    #[inline(always)]
    pub(super) fn set_pair_run<X: Int8>(&mut self, p: usize, at: usize, xs: &[X], offset: i32) {
        let w = &mut self.v[at..][..xs.len()];
        if p & 1 == 0 {
            for (v, x) in w.iter_mut().zip(xs) {
                *v = x.value() + offset;
            }
        } else {
            for (v, x) in w.iter_mut().zip(xs) {
                *v = v.wrapping_add((x.value() + offset).wrapping_mul(1 << 23));
            }
        }
    }

    /// Values `at ..` of both windows of the pair are `xa` and `xb` (one length), offset:
    /// [`Gathered::set_pair_run`] of each in one pass.
    #[inline(always)]
    pub(super) fn set_both_runs<X: Int8>(&mut self, at: usize, xa: &[X], xb: &[X], offset: i32) {
        let w = &mut self.v[at..][..xa.len().min(xb.len())];
        for ((v, a), b) in w.iter_mut().zip(xa).zip(xb) {
            *v = (a.value() + offset).wrapping_add((b.value() + offset).wrapping_mul(1 << 23));
        }
    }

    /// One filter's weights `w` (at least `k`) over both windows of the pair:
    /// `(a + Σ va·w, b + Σ vb·w)`, wrapping.
    #[inline(always)]
    pub(super) fn pair_dot1<W: Int8>(&self, (mut a, mut b): (i32, i32), w: &[W]) -> (i32, i32) {
        let n = self.k.min(self.v.len()).min(w.len());
        for (v, w) in self.v[..n]
            .chunks(PACKED_TAPS)
            .zip(w[..n].chunks(PACKED_TAPS))
        {
            let mut s = 0i64;
            for (&x, w) in v.iter().zip(w) {
                s = s.wrapping_add(i64::from(x).wrapping_mul(i64::from(w.value())));
            }
            let (p, q) = unpack23(s);
            a = a.wrapping_add(p);
            b = b.wrapping_add(q);
        }
        (a, b)
    }

    /// [`Gathered::pair_dot2`] under the DSP layout's name ([`Filters::outputs2_right`] on the
    /// Cortex-M3: any `k`, not only whole quads).
    #[cfg(synaptic_mla)]
    #[inline(always)]
    pub(super) fn pair_dot2_quads<W: Int8>(&self, acc: [i32; 4], w0: &[W], w1: &[W]) -> [i32; 4] {
        self.pair_dot2(acc, w0, w1)
    }

    /// Two filters' weights `w0`, `w1` (each at least `k`) over both windows of the pair:
    /// [`Gathered::pair_dot1`] of each, `[a0, b0, a1, b1]` from `acc` in that order; each
    /// packed word read once for both filters (two `SMLAL`s: four products).
    #[inline(always)]
    pub(super) fn pair_dot2<W: Int8>(&self, acc: [i32; 4], w0: &[W], w1: &[W]) -> [i32; 4] {
        let [mut a0, mut b0, mut a1, mut b1] = acc;
        let n = self.k.min(self.v.len()).min(w0.len()).min(w1.len());
        let (v, w0, w1) = (&self.v[..n], &w0[..n], &w1[..n]);
        let sums = |v: &[i32], w0: &[W], w1: &[W]| {
            let (mut s0, mut s1) = (0i64, 0i64);
            let m = v.len().min(w0.len()).min(w1.len());
            let (v, w0, w1) = (&v[..m], &w0[..m], &w1[..m]);
            // The Cortex-M3: the whole quads in assembly, the rest (fewer than four) below.
            #[cfg(synaptic_mla)]
            let (v, w0, w1) = {
                let done;
                (s0, s1, done) = super::mla::pair_quads(v, w0, w1, (s0, s1));
                (&v[done..], &w0[done..], &w1[done..])
            };
            let mut mac = |x: i32, a: W, b: W| {
                let x = i64::from(x);
                s0 = s0.wrapping_add(x.wrapping_mul(i64::from(a.value())));
                s1 = s1.wrapping_add(x.wrapping_mul(i64::from(b.value())));
            };
            // Four taps a step, the step kept rolled: the M3's registers hold its eight
            // products' operands (LLVM unrolled the plain loop eight taps deep with spills
            // once the kernels had paths: kws_ref_model 9.81 → 10.53 M instructions).
            let (v4, a4, b4) = (v.chunks_exact(4), w0.chunks_exact(4), w1.chunks_exact(4));
            let (vr, ar, br) = (v4.remainder(), a4.remainder(), b4.remainder());
            for ((v, a), b) in v4.zip(a4).zip(b4) {
                crate::hint::no_unroll();
                for j in 0..4 {
                    mac(v[j], a[j], b[j]);
                }
            }
            for ((&x, &a), &b) in vr.iter().zip(ar).zip(br) {
                mac(x, a, b);
            }
            (unpack23(s0), unpack23(s1))
        };
        if n <= self.span {
            let ((p0, q0), (p1, q1)) = sums(v, w0, w1);
            return [
                a0.wrapping_add(p0),
                b0.wrapping_add(q0),
                a1.wrapping_add(p1),
                b1.wrapping_add(q1),
            ];
        }
        for ((v, w0), w1) in v
            .chunks(PACKED_TAPS)
            .zip(w0.chunks(PACKED_TAPS))
            .zip(w1.chunks(PACKED_TAPS))
        {
            let ((p0, q0), (p1, q1)) = sums(v, w0, w1);
            a0 = a0.wrapping_add(p0);
            b0 = b0.wrapping_add(q0);
            a1 = a1.wrapping_add(p1);
            b1 = b1.wrapping_add(q1);
        }
        [a0, b0, a1, b1]
    }
}
