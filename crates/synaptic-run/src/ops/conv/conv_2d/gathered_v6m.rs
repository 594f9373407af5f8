//! CONV_2D's gathered filter windows on Armv6-M (`cfg(synaptic_v6m)`, no DSP extension): 16
//! bits a value (its multiply is `MULS`; no `SMLAL` to pack two pixels a tap).

use super::*;

/// A filter window's input values, offset (`x + input_offset`, within ±255), in the filter's
/// order, 16 bits each (portable): one window at `v[..k]`, or a pair of windows, the first
/// at `v[..k]` and the second at `v[cap..][..k]`.
pub(crate) struct Gathered<'s> {
    /// Two windows of `cap` values each.
    pub(super) v: &'s mut [i16],
    pub(super) cap: usize,
    pub(super) k: usize,
}

impl<'s> Gathered<'s> {
    /// Windows of up to `k` values from `scratch` (zeroed), or `None`.
    #[inline(always)]
    pub(super) fn take(scratch: &mut Scratch<'s>, k: usize) -> Option<Self> {
        let v = zeroed(scratch.take::<i16>(k.checked_mul(2)?)?);
        Some(Gathered { v, cap: k, k: 0 })
    }

    /// The next pair of windows, `k` (at most the capacity taken) values each, all 0 unless
    /// `whole` (every value of both about to be set).
    #[inline(always)]
    pub(super) fn begin_pair(&mut self, k: usize, whole: bool) {
        self.k = k.min(self.cap);
        if !whole {
            self.v[..self.k].fill(0);
            self.v[self.cap..][..self.k].fill(0);
        }
    }

    /// Values `at ..` of window `p` (0 or 1) of the pair are `xs`, offset.
    #[inline(always)]
    pub(super) fn set_pair_run<X: Int8>(&mut self, p: usize, at: usize, xs: &[X], offset: i32) {
        let w = &mut self.v[(p & 1) * self.cap..][at..][..xs.len()];
        for (v, x) in w.iter_mut().zip(xs) {
            *v = (x.value() + offset) as i16;
        }
    }

    /// One filter's weights `w` (at least `k`) over both windows of the pair:
    /// `(a + Σ va·w, b + Σ vb·w)`, wrapping.
    #[inline(always)]
    pub(super) fn pair_dot1<W: Int8>(&self, (mut a, mut b): (i32, i32), w: &[W]) -> (i32, i32) {
        let (va, vb) = self.v.split_at(self.cap);
        for ((&x, &y), w) in va[..self.k].iter().zip(&vb[..self.k]).zip(w) {
            let u = w.value();
            a = a.wrapping_add(u.wrapping_mul(i32::from(x)));
            b = b.wrapping_add(u.wrapping_mul(i32::from(y)));
        }
        (a, b)
    }

    /// Two filters' weights `w0`, `w1` (each at least `k`) over both windows of the pair:
    /// [`Gathered::pair_dot1`] of each, `[a0, b0, a1, b1]` from `acc` in that order; each
    /// value of both windows and each weight read once for four products.
    #[inline(always)]
    pub(super) fn pair_dot2<W: Int8>(&self, acc: [i32; 4], w0: &[W], w1: &[W]) -> [i32; 4] {
        let [mut a0, mut b0, mut a1, mut b1] = acc;
        let (va, vb) = self.v.split_at(self.cap);
        // One index over four slices of one length (no bounds checks, no iterator per slice:
        // M3's loop is its loads and four `MLA`s).
        let n = self
            .k
            .min(va.len())
            .min(vb.len())
            .min(w0.len())
            .min(w1.len());
        let (va, vb, w0, w1) = (&va[..n], &vb[..n], &w0[..n], &w1[..n]);
        for i in 0..n {
            let (x, y, u0, u1) = (
                i32::from(va[i]),
                i32::from(vb[i]),
                w0[i].value(),
                w1[i].value(),
            );
            a0 = a0.wrapping_add(u0.wrapping_mul(x));
            b0 = b0.wrapping_add(u0.wrapping_mul(y));
            a1 = a1.wrapping_add(u1.wrapping_mul(x));
            b1 = b1.wrapping_add(u1.wrapping_mul(y));
        }
        [a0, b0, a1, b1]
    }
}
