//! SELECT_V2 (int8, int16, float32): TFLM's `micro/kernels/select.cc`,
//! `reference_ops::Select` and `BroadcastSelect5DSlow`: `output[i] = condition[i] ? x[i] :
//! y[i]`, the bool condition and the two value inputs broadcast together NumPy-style
//! ([`Select3`], at most [`MAX_DIMS`] dimensions: TFLM takes 8, more than 6 is refused at load).
//! The values are copied as they are (no requantization: TFLM neither checks nor reads the
//! quantizations).
//!
//! As TFLM's `SelectPrepare`: the output's rank is the largest input rank and each of its
//! dimensions the inputs' (each 1 or that size), except that three one-element inputs and a
//! one-element output select that element whatever their ranks. Inputs of one shape with an
//! output of another size are refused (TFLM would read past them). The output may overlap
//! `x` or `y` where it has their shape and at most one other input is an activation (in
//! place).

use synaptic_tflite::{code, TensorType};

use crate::contract::Contract;
use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::common::MAX_DIMS;
use crate::ops::in_place::{check, drive};
use crate::ops::{Geometry, InPlaceOperands, Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::SELECT_V2];

const OP: &str = "SELECT_V2";

/// The element pairing of the condition and the two value inputs with the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Select3 {
    /// Output dimensions, left-padded with 1.
    out: [usize; MAX_DIMS],
    /// Element strides of the condition, `x` and `y` per output dimension (0: broadcast).
    strides: [[usize; MAX_DIMS]; 3],
    /// Elements of the condition, `x`, `y` and the output.
    sizes: [usize; 4],
}

impl Select3 {
    /// The pairing of shapes `ins` (condition, x, y) into `out`, as `SelectPrepare` checks it.
    pub fn new(ins: [&[usize]; 3], out: &[usize]) -> Result<Self, KernelError> {
        let mut s = Select3 {
            out: [1; MAX_DIMS],
            strides: [[0; MAX_DIMS]; 3],
            sizes: [0; 4],
        };
        for (k, sh) in ins.iter().chain(core::iter::once(&out)).enumerate() {
            if sh.len() > MAX_DIMS {
                return Err(KernelError::unsupported(OP, Unsupported::Rank));
            }
            s.sizes[k] = crate::ops::common::size(OP, sh)?;
        }
        // Three one-element inputs and a one-element output: that element (any ranks).
        if s.sizes == [1; 4] {
            return Ok(s);
        }
        let pad = |sh: &[usize]| -> [usize; MAX_DIMS] {
            let p = MAX_DIMS - sh.len();
            core::array::from_fn(|i| if i < p { 1 } else { sh[i - p] })
        };
        let padded = ins.map(pad);
        let same = ins[0] == ins[1] && ins[1] == ins[2];
        if same {
            // TFLM's element-wise `Select` (its output's shape unchecked, its size read).
            if s.sizes[3] != s.sizes[0] {
                return Err(KernelError::shape(OP, ShapeFault::SizeDiffers));
            }
            s.out = padded[0];
        } else {
            let rank = ins.iter().map(|sh| sh.len()).max().unwrap_or(0);
            if out.len() != rank {
                return Err(KernelError::shape(OP, ShapeFault::BroadcastShape));
            }
            s.out = pad(out);
            for i in 0..MAX_DIMS {
                let m = padded.iter().map(|p| p[i]).max().unwrap_or(1);
                if padded.iter().any(|p| p[i] != 1 && p[i] != m) {
                    return Err(KernelError::shape(OP, ShapeFault::NotBroadcastable));
                }
                if s.out[i] != m {
                    return Err(KernelError::shape(OP, ShapeFault::BroadcastShape));
                }
            }
        }
        for (k, p) in padded.iter().enumerate() {
            let mut acc = 1;
            for i in (0..MAX_DIMS).rev() {
                s.strides[k][i] = if p[i] == 1 && s.out[i] != 1 { 0 } else { acc };
                acc *= p[i];
            }
        }
        Ok(s)
    }

    /// Whether input `k` (1: x, 2: y) has the output's shape (its element `j` is output
    /// element `j`'s).
    fn full(&self, k: usize) -> bool {
        k < 3 && self.sizes[k] == self.sizes[3] && {
            let mut acc = 1;
            (0..MAX_DIMS).rev().all(|i| {
                let ok = self.out[i] == 1 || self.strides[k][i] == acc;
                acc *= self.out[i];
                ok
            })
        }
    }

    /// Calls `f(j, [c, x, y])` for every output element `j` in order with the elements of
    /// the three inputs it reads.
    fn for_each(&self, mut f: impl FnMut(usize, [usize; 3])) {
        let mut idx = [0usize; MAX_DIMS];
        let mut at = [0usize; 3];
        for j in 0..self.sizes[3] {
            f(j, at);
            for d in (0..MAX_DIMS).rev() {
                idx[d] += 1;
                for (a, st) in at.iter_mut().zip(&self.strides) {
                    *a += st[d];
                }
                if idx[d] < self.out[d] {
                    break;
                }
                for (a, st) in at.iter_mut().zip(&self.strides) {
                    *a -= st[d] * idx[d];
                }
                idx[d] = 0;
            }
        }
    }

    /// The element of input `k` output element `j` reads.
    fn index(&self, k: usize, mut j: usize) -> usize {
        let mut i = 0;
        for d in (0..MAX_DIMS).rev() {
            let n = self.out[d].max(1);
            i += (j % n) * self.strides[k][d];
            j /= n;
        }
        i
    }
}

/// A prepared SELECT_V2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SelectParams {
    /// The pairing.
    pub(crate) pairing: Select3,
    /// Bytes of a value element (1, 2 or 4).
    pub(crate) width: usize,
    /// Whether the output may overlap `x` or `y` (at most two inputs are activations).
    pub(crate) in_place: bool,
}

/// The SELECT_V2 kernel: int8, int16 and float32 values, copied by their bytes.
pub struct SelectV2;

impl Kernel for SelectV2 {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 3;
    type Params = SelectParams;
    const PAIR_INPUT: Option<usize> = None;

    fn run(p: &SelectParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let (s, w) = (&p.pairing, p.width);
        let (c, x, y) = (io.bytes(0), io.bytes(1), io.bytes(2));
        KernelError::check_len(OP, Operand::Input(0), s.sizes[0], c.len())?;
        KernelError::check_len(OP, Operand::Input(1), s.sizes[1] * w, x.len())?;
        KernelError::check_len(OP, Operand::Input(2), s.sizes[2] * w, y.len())?;
        let out = io.out_bytes();
        KernelError::check_len(OP, Operand::Output, s.sizes[3] * w, out.len())?;
        s.for_each(|j, [ic, ix, iy]| {
            let src = if c[ic] != 0 {
                &x[w * ix..w * ix + w]
            } else {
                &y[w * iy..w * iy + w]
            };
            out[w * j..w * j + w].copy_from_slice(src);
        });
        Ok(())
    }

    fn contract(p: &SelectParams, k: usize, _out: Geometry) -> Option<Contract> {
        let s = &p.pairing;
        (p.in_place && (k == 1 || k == 2) && s.full(k))
            .then(|| Contract::elementwise(s.sizes[3], p.width, p.width))
    }

    fn run_in_place(
        p: &SelectParams,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        let (s, w, k) = (&p.pairing, p.width, io.k);
        if !p.in_place || !(k == 1 || k == 2) || !s.full(k) {
            return Err(KernelError::unsupported(OP, Unsupported::BroadcastOverlap));
        }
        let (c, other) = (io.bytes(0), io.bytes(3 - k));
        let o = 3 - k;
        KernelError::check_len(OP, Operand::Input(0), s.sizes[0], c.len())?;
        KernelError::check_len(OP, Operand::Input(o as u8), s.sizes[o] * w, other.len())?;
        let (at, n) = (io.at, s.sizes[3]);
        check(OP, || Contract::elementwise(n, w, w), io.buf, &at)?;
        // One element of `w` bytes a step (the widths the kernel takes: 1, 2, 4).
        let pick = |buf: &[u8], j: usize, dst: &mut [u8]| {
            let take_mine = (c[s.index(0, j)] != 0) == (k == 1);
            if take_mine {
                dst.copy_from_slice(&buf[at.input + w * j..at.input + w * j + w]);
            } else {
                let i = s.index(o, j);
                dst.copy_from_slice(&other[w * i..w * i + w]);
            }
        };
        match w {
            1 => drive::<1>(io.buf, at.output, n, at.direction, |buf, j| {
                let mut b = [0u8; 1];
                pick(buf, j, &mut b);
                Ok(b)
            })?,
            2 => drive::<2>(io.buf, at.output, n, at.direction, |buf, j| {
                let mut b = [0u8; 2];
                pick(buf, j, &mut b);
                Ok(b)
            })?,
            _ => drive::<4>(io.buf, at.output, n, at.direction, |buf, j| {
                let mut b = [0u8; 4];
                pick(buf, j, &mut b);
                Ok(b)
            })?,
        }
        Ok(w * n)
    }
}

/// Prepares SELECT_V2: a bool condition, `x` and `y` of one type (int8, int16 or float32) and
/// the output of theirs, any of the inputs a constant, their shapes broadcast together.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(3, 3)?;
    let (c, x, y, out) = (cx.input(0)?, cx.input(1)?, cx.input(2)?, cx.output()?);
    cx.type_of(&c, Operand::Input(0), TensorType::Bool, TensorTypes::Bool)?;
    let width = match x.ty {
        TensorType::Int8 => 1,
        TensorType::Int16 => 2,
        TensorType::Float32 => 4,
        _ => {
            return Err(cx.unsupported(Unsupported::TensorType {
                operand: Operand::Input(1),
                expected: TensorTypes::Int8Int16OrFloat32,
            }))
        }
    };
    cx.type_of(&y, Operand::Input(2), x.ty, TensorTypes::FirstInputType)?;
    cx.activation_of(&out, Operand::Output, x.ty)?;
    let mut activations = 0;
    for (k, t) in [&c, &x, &y].into_iter().enumerate() {
        if t.data.is_empty() {
            activations += 1;
        } else {
            cx.constant(t, Operand::Input(k as u8))?;
        }
    }
    let pairing =
        Select3::new([c.shape(), x.shape(), y.shape()], out.shape()).map_err(|e| cx.err(e))?;
    let p = SelectParams {
        pairing,
        width,
        in_place: activations <= 2,
    };
    Prepared::of::<SelectV2>(cx, p)
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(Select3 {
    out: [usize; MAX_DIMS],
    strides: [[usize; MAX_DIMS]; 3],
    sizes: [usize; 4],
});
crate::format::codec::words!(SelectParams {
    pairing: Select3,
    width: usize,
    in_place: bool,
});

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// The pairs of a three-way broadcast, against the index rule; refusals.
    #[test]
    fn pairing() {
        let s = Select3::new([&[2, 1, 4], &[3, 1], &[1]], &[2, 3, 4]).unwrap();
        let mut got = Vec::new();
        s.for_each(|j, at| got.push((j, at)));
        assert_eq!(got.len(), 24);
        for &(j, [c, x, y]) in &got {
            let (a, b, d) = (j / 12, (j / 4) % 3, j % 4);
            assert_eq!((c, x, y), (a * 4 + d, b, 0), "{j}");
            assert_eq!([s.index(0, j), s.index(1, j), s.index(2, j)], [c, x, y]);
        }
        assert!(!s.full(1) && !s.full(2));
        assert!(Select3::new([&[2, 3], &[2, 3], &[3]], &[2, 3])
            .unwrap()
            .full(1));
        assert!(Select3::new([&[2, 3], &[4, 3], &[3]], &[4, 3]).is_err());
        assert!(Select3::new([&[2, 3], &[2, 3], &[3]], &[1, 2, 3]).is_err());
        assert!(Select3::new([&[2, 3], &[2, 3], &[2, 3]], &[5]).is_err());
        // One-element inputs of any ranks.
        assert!(Select3::new([&[1, 1], &[1], &[]], &[]).is_ok());
    }
}
