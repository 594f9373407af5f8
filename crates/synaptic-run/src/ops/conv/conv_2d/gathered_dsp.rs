//! CONV_2D's gathered filter windows on the DSP extension (`cfg(synaptic_dsp)`): the words
//! `SMLAD` takes against a filter word split by `SXTB16`.

use super::*;

/// A filter window's input values, offset, on the DSP extension, in the order `SMLAD` takes
/// them against a word of four weights split by `SXTB16` (even lanes, then odd): one window,
/// per four values the words `(v0, v2)`, `(v1, v3)`; or a pair of windows `a` and `b`, per
/// four values `(a0, a2)`, `(a1, a3)`, `(b0, b2)`, `(b1, b3)`, a last part-quad padded with 0.
pub(crate) struct Gathered<'s> {
    /// `⌈cap/4⌉` quads of four words (a pair's, or two of one window's).
    pub(super) v: &'s mut [u32],
    pub(super) k: usize,
    /// A filter whose taps are not whole words of input ([`staged`]): both windows' input
    /// bytes in the filter's order, `⌈cap/4⌉·4` each ([`Filters::staged2`]); else empty.
    pub(super) stage: &'s mut [u8],
}

impl<'s> Gathered<'s> {
    /// One window of `k` values (a multiple of four) from `scratch`, zeroed
    /// ([`one_window`]'s: per four values two words), or `None`.
    #[inline(always)]
    pub(super) fn take_one(scratch: &mut Scratch<'s>, k: usize) -> Option<Self> {
        let v = zeroed(scratch.take::<u32>(k / 2)?);
        Some(Gathered {
            v,
            k: 0,
            stage: &mut [],
        })
    }

    /// Windows of up to `k` values from `scratch` (zeroed), with their staging bytes if
    /// `staged`, or `None`.
    #[inline(always)]
    pub(super) fn take(scratch: &mut Scratch<'s>, k: usize, staged: bool) -> Option<Self> {
        let kq = k.div_ceil(4).checked_mul(4)?;
        let v = zeroed(scratch.take::<u32>(kq)?);
        let stage = if staged {
            scratch.take::<u8>(kq.checked_mul(2)?)?
        } else {
            &mut []
        };
        Some(Gathered { v, k: 0, stage })
    }

    /// The word and bit of value `i` of window `p` when a quad takes `q` words (2: one
    /// window; 4: a pair).
    #[inline(always)]
    pub(super) fn at(q: usize, p: usize, i: usize) -> (usize, u32) {
        (i / 4 * q + 2 * p + (i & 1), 16 * ((i as u32 >> 1) & 1))
    }

    /// Values `at ..` of window `p` of windows whose quads take `q` words are `xs`, offset:
    /// from a multiple of four, four a step (`SXTAB16` of a word of inputs gives both words),
    /// the rest one at a time.
    #[inline(always)]
    pub(super) fn set_words<X: Int8>(
        &mut self,
        q: usize,
        p: usize,
        at: usize,
        xs: &[X],
        offset: i32,
    ) {
        use crate::dsp::{sxtab16, sxtab16_ror8};
        use crate::ops::common::word;
        let mut done = 0;
        if at % 4 == 0 {
            let pair = (offset as u32 & 0xffff) * 0x1_0001;
            let quads = xs.chunks_exact(4);
            done = quads.len() * 4;
            for (j, x) in quads.enumerate() {
                let w0 = (at / 4 + j) * q + 2 * p;
                if let (Ok(x), Some(w)) = (<&[X; 4]>::try_from(x), self.v.get_mut(w0..w0 + 2)) {
                    let xw = word(x);
                    w[0] = sxtab16(pair, xw);
                    w[1] = sxtab16_ror8(pair, xw);
                }
            }
        }
        for (j, x) in xs.iter().enumerate().skip(done) {
            let (w, bit) = Self::at(q, p, at + j);
            let v = (x.value() + offset) as u32 & 0xffff;
            if let Some(slot) = self.v.get_mut(w) {
                *slot = (*slot & !(0xffff << bit)) | v << bit;
            }
        }
    }

    /// The next pair of windows, `k` (at most the capacity taken) values each, all 0 unless
    /// `whole` (every value of both about to be set); a last part-quad's other values 0.
    #[inline(always)]
    pub(super) fn begin_pair(&mut self, k: usize, whole: bool) {
        self.k = k.min(self.v.len() / 4 * 4);
        let quads = if whole { self.k / 4 } else { 0 };
        self.v[quads * 4..self.k.div_ceil(4) * 4].fill(0);
    }

    /// Values `at ..` of window `p` (0 or 1) of the pair are `xs`, offset.
    #[inline(always)]
    pub(super) fn set_pair_run<X: Int8>(&mut self, p: usize, at: usize, xs: &[X], offset: i32) {
        self.set_words(4, p & 1, at, xs, offset);
    }

    /// The next pair of windows is `xa` and `xb`, offset, whole ([`Gathered::begin_pair`]
    /// then [`Gathered::set_pair_run`] of each) when they are one length, a multiple of four
    /// within the capacity: one block ([`dsp::pair_quads`]). `false`, nothing set,
    /// otherwise.
    #[inline(always)]
    pub(super) fn set_both_quads<X: Int8>(&mut self, xa: &[X], xb: &[X], offset: i32) -> bool {
        let pair = (offset as u32 & 0xffff) * 0x1_0001;
        let k = xa.len();
        if k > self.v.len() / 4 * 4 || !dsp::pair_quads(&mut self.v[..k], xa, xb, pair) {
            return false;
        }
        self.k = k;
        true
    }

    /// One filter's weights `w` (at least `k`) over both windows of the pair:
    /// `(a + Σ va·w, b + Σ vb·w)`, four values a step, the word of weights split once
    /// (`SXTB16`) for both windows, two `SMLAD`s a window; a last part-quad's weights one word
    /// padded with 0. The same wrapping sums as the portable path.
    #[inline(always)]
    pub(super) fn pair_dot1<W: Int8>(&self, (mut a, mut b): (i32, i32), w: &[W]) -> (i32, i32) {
        use crate::dsp::{smlad, sxtb16, sxtb16_ror8};
        use crate::ops::common::word;
        let k = self.k.min(w.len());
        let n = k / 4 * 4;
        let mut step = |x: &[u32; 4], u: u32| {
            let (u02, u13) = (sxtb16(u), sxtb16_ror8(u));
            a = smlad(x[1], u13, smlad(x[0], u02, a));
            b = smlad(x[3], u13, smlad(x[2], u02, b));
        };
        for (x, q) in self.v[..n].chunks_exact(4).zip(w[..n].chunks_exact(4)) {
            if let (Ok(x), Ok(q)) = (<&[u32; 4]>::try_from(x), <&[W; 4]>::try_from(q)) {
                step(x, word(q));
            }
        }
        if k > n {
            let u = w[n..k]
                .iter()
                .enumerate()
                .fold(0u32, |u, (j, w)| u | u32::from(w.byte()) << (8 * j));
            if let Some(Ok(x)) = self.v.get(n..n + 4).map(<&[u32; 4]>::try_from) {
                step(x, u);
            }
        }
        (a, b)
    }

    /// [`Gathered::pair_dot2`] when `k` and the weights' length are multiples of four: no
    /// part-quad to pad (the caller checked).
    #[inline(always)]
    pub(super) fn pair_dot2_quads<W: Int8>(&self, acc: [i32; 4], w0: &[W], w1: &[W]) -> [i32; 4] {
        let quads = self.k.min(w0.len()).min(w1.len()) / 4;
        dsp::dot2x2_quads(acc, self.v, w0, w1, quads)
    }

    /// Two filters' weights `w0`, `w1` (each at least `k`) over both windows of the pair:
    /// `[a0, b0, a1, b1]` from `acc` as [`Gathered::pair_dot1`] of each, four values a step,
    /// each quad of both windows read once for both filters (16 MACs: four words of inputs,
    /// two of weights split by `SXTB16`, eight `SMLAD`s).
    #[inline(always)]
    pub(super) fn pair_dot2<W: Int8>(&self, acc: [i32; 4], w0: &[W], w1: &[W]) -> [i32; 4] {
        use crate::dsp::{smlad, sxtb16, sxtb16_ror8};
        use crate::ops::common::word;
        let [mut a0, mut b0, mut a1, mut b1] = acc;
        let k = self.k.min(w0.len()).min(w1.len());
        let n = k / 4 * 4;
        let mut step = |x: &[u32; 4], u0: u32, u1: u32| {
            let (u02, u13) = (sxtb16(u0), sxtb16_ror8(u0));
            a0 = smlad(x[1], u13, smlad(x[0], u02, a0));
            b0 = smlad(x[3], u13, smlad(x[2], u02, b0));
            let (u02, u13) = (sxtb16(u1), sxtb16_ror8(u1));
            a1 = smlad(x[1], u13, smlad(x[0], u02, a1));
            b1 = smlad(x[3], u13, smlad(x[2], u02, b1));
        };
        let quads = self.v[..n]
            .chunks_exact(4)
            .zip(w0[..n].chunks_exact(4))
            .zip(w1[..n].chunks_exact(4));
        for ((x, q0), q1) in quads {
            if let (Ok(x), Ok(q0), Ok(q1)) = (
                <&[u32; 4]>::try_from(x),
                <&[W; 4]>::try_from(q0),
                <&[W; 4]>::try_from(q1),
            ) {
                step(x, word(q0), word(q1));
            }
        }
        if k > n {
            let last = |w: &[W]| {
                w[n..k]
                    .iter()
                    .enumerate()
                    .fold(0u32, |u, (j, w)| u | u32::from(w.byte()) << (8 * j))
            };
            if let Some(Ok(x)) = self.v.get(n..n + 4).map(<&[u32; 4]>::try_from) {
                step(x, last(w0), last(w1));
            }
        }
        [a0, b0, a1, b1]
    }
}
