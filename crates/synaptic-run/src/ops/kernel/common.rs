//! What every kernel shares: shapes ([`Dims`], [`size`]: the one size rule), row-major
//! offsets, and the element traits that let a kernel read int8 weights in place from the model
//! bytes ([`Int8`] over `u8`), int32 biases from little-endian bytes ([`LeI32`]) and write int8
//! outputs into a buffer an overlapped kernel shares ([`Int8Out`]).

use crate::error::{KernelError, Operand, ShapeFault, Unsupported};
pub use crate::limits::{size, MAX_DIMS};

/// A tensor shape of up to [`MAX_DIMS`] dimensions, stored inline (no allocation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dims {
    len: usize,
    dims: [usize; MAX_DIMS],
}

impl Dims {
    /// The shape `shape`; more than [`MAX_DIMS`] dimensions is an error of operator `op`.
    pub fn new(op: &'static str, shape: &[usize]) -> Result<Self, KernelError> {
        if shape.len() > MAX_DIMS {
            return Err(KernelError::unsupported(op, Unsupported::Rank));
        }
        size(op, shape)?;
        let mut dims = [1; MAX_DIMS];
        dims[..shape.len()].copy_from_slice(shape);
        Ok(Dims {
            len: shape.len(),
            dims,
        })
    }

    /// The dimensions.
    pub fn as_slice(&self) -> &[usize] {
        &self.dims[..self.len]
    }

    /// The rank.
    pub fn rank(&self) -> usize {
        self.len
    }

    /// The number of elements (1 for a scalar; [`Dims::new`] checked it fits).
    pub fn flat_size(&self) -> usize {
        self.as_slice().iter().product()
    }

    /// Dimension `i`.
    pub fn dim(&self, i: usize) -> usize {
        self.dims[i]
    }
}

/// A 4-D shape `[batch, height, width, channels]` from a slice, or a shape error.
// Load-time code called from many operators: one copy (flash), not one per caller.
#[inline(never)]
pub(crate) fn nhwc(
    op: &'static str,
    operand: Operand,
    shape: &[usize],
) -> Result<[usize; 4], KernelError> {
    match shape {
        [n, h, w, c] => Ok([*n, *h, *w, *c]),
        _ => Err(KernelError::shape(op, ShapeFault::Not4d(operand))),
    }
}

/// Checks the input and output slices of a 4-D kernel (convolution, pooling) against their
/// shapes.
pub(crate) fn check_nhwc_io(
    op: &'static str,
    (input_shape, input): (&[usize; 4], usize),
    (output_shape, output): (&[usize; 4], usize),
) -> Result<(), KernelError> {
    let elems = |s: &[usize; 4]| s.iter().product();
    KernelError::check_len(op, Operand::Input(0), elems(input_shape), input)?;
    KernelError::check_len(op, Operand::Output, elems(output_shape), output)
}

/// `Offset(shape, i0, i1, i2, i3)` of a 4-D row-major tensor.
#[inline]
pub(crate) fn offset4(shape: &[usize; 4], i0: usize, i1: usize, i2: usize, i3: usize) -> usize {
    ((i0 * shape[1] + i1) * shape[2] + i2) * shape[3] + i3
}

/// An int8 value as stored: an `i8` (an activation in the arena) or a raw byte of the model
/// (`u8`, two's complement), so weights and constant operands are read in place from the model
/// bytes (flash), with no copy and no `unsafe` cast. Both compile to the same sign-extending
/// load. Sealed: only `i8` and `u8`, one byte each (the DSP loops read slices of them as
/// bytes).
pub trait Int8: Copy + sealed::Sealed {
    /// The value, sign-extended.
    fn value(self) -> i32;
    /// The stored byte (two's complement).
    fn byte(self) -> u8;
}

/// Four int8 values as one little-endian word (one load where the target allows unaligned
/// words: the DSP kernels' SIMD lanes, the depthwise row kernel's gathered windows).
#[inline(always)]
pub(crate) fn word<X: Int8>(v: &[X; 4]) -> u32 {
    u32::from_le_bytes([v[0].byte(), v[1].byte(), v[2].byte(), v[3].byte()])
}

/// Output channel `oc`'s folded constant `bias[oc] + input_offset · Σ_i filter[oc][i]` of a
/// filter of `rows` rows of `depth` weights (wrapping, as a kernel's `int32` accumulator: the
/// same sum modulo 2^32, so the same outputs), or `None` if `oc` is past the rows or the
/// filter or bias is too short: what an operator without a filter offset folds its input
/// offset and bias into (FULLY_CONNECTED's `FullyConnectedParams::folded_bias`, the program's
/// `Constants::FoldedBiases`).
pub fn folded_bias<W: Int8, B: Int32s + ?Sized>(
    filter: &[W],
    bias: Option<&B>,
    rows: usize,
    depth: usize,
    input_offset: i32,
    oc: usize,
) -> Option<i32> {
    if oc >= rows {
        return None;
    }
    let at = oc.checked_mul(depth)?;
    let row = filter.get(at..at.checked_add(depth)?)?;
    let sum = int8_sum(row);
    let b = match bias {
        Some(b) if oc < b.count() => b.at(oc),
        Some(_) => return None,
        None => 0,
    };
    Some(b.wrapping_add(input_offset.wrapping_mul(sum)))
}

/// The sum of `row`'s values, wrapping: `row.iter().fold(0, |a, v| a.wrapping_add(v.value()))`,
/// four values a word (a FULLY_CONNECTED's folded bias sums each row of its filter at load:
/// 16,000 weights in micro_speech). On the DSP extension two `SXTAB16` add a word's four
/// bytes into two signed halfword lanes; elsewhere the word's bytes, offset by 128 to be
/// unsigned, are added pairwise into two unsigned halfword lanes. A block of at most
/// [`SUM_BLOCK`] words cannot overflow a lane either way.
pub(crate) fn int8_sum<X: Int8>(row: &[X]) -> i32 {
    if row.len() < 4 * SHORT_SUM {
        // A short row (hello_world_int8's 16 weights): a word at a time, no block set up.
        let mut words = row.chunks_exact(4);
        let mut lanes = Lanes::default();
        for w in words.by_ref() {
            if let Ok(v) = <&[X; 4]>::try_from(w) {
                lanes.add(word(v));
            }
        }
        let total = lanes.total(row.len() / 4);
        return words
            .remainder()
            .iter()
            .fold(total, |a, v| a.wrapping_add(v.value()));
    }
    let mut blocks = row.chunks_exact(4 * SUM_BLOCK);
    let mut sum = 0i32;
    for b in blocks.by_ref() {
        sum = sum.wrapping_add(block_sum(b));
    }
    let rest = blocks.remainder();
    let (words, bytes) = rest.split_at(rest.len() / 4 * 4);
    sum = sum.wrapping_add(block_sum(words));
    bytes.iter().fold(sum, |a, v| a.wrapping_add(v.value()))
}

/// [`int8_sum`] of a block of whole words, at most [`SUM_BLOCK`] of them; eight words an
/// iteration (unrolled: the loop's own three instructions over 32 bytes).
#[inline(always)]
fn block_sum<X: Int8>(b: &[X]) -> i32 {
    let mut lanes = Lanes::default();
    let mut quads = b.chunks_exact(32);
    for q in quads.by_ref() {
        for w in q.chunks_exact(4) {
            if let Ok(v) = <&[X; 4]>::try_from(w) {
                lanes.add(word(v));
            }
        }
    }
    for w in quads.remainder().chunks_exact(4) {
        if let Ok(v) = <&[X; 4]>::try_from(w) {
            lanes.add(word(v));
        }
    }
    lanes.total(b.len() / 4)
}

/// Words in a row [`int8_sum`] adds one at a time (fewer than this: no block of eight).
const SHORT_SUM: usize = 16;

/// Words [`int8_sum`] adds into its lanes before it folds them (each lane takes at most
/// `2 · 128` a word in magnitude: 128 words stay within 16 bits).
const SUM_BLOCK: usize = 128;

/// Two halfword lanes of byte sums ([`int8_sum`]).
#[derive(Default)]
struct Lanes(u32, u32);

impl Lanes {
    /// Adds the four signed bytes of `w`.
    #[cfg(synaptic_dsp)]
    #[inline(always)]
    fn add(&mut self, w: u32) {
        self.0 = crate::dsp::sxtab16(self.0, w);
        self.1 = crate::dsp::sxtab16_ror8(self.1, w);
    }

    /// The sum of the bytes added, `n` words of them.
    #[cfg(synaptic_dsp)]
    #[inline(always)]
    fn total(&self, _n: usize) -> i32 {
        let half = |x: u32| i32::from(x as u16 as i16) + i32::from((x >> 16) as u16 as i16);
        half(self.0) + half(self.1)
    }

    /// Adds the four bytes of `w`, each plus 128 (unsigned).
    #[cfg(not(synaptic_dsp))]
    #[inline(always)]
    fn add(&mut self, w: u32) {
        let u = w ^ 0x8080_8080;
        self.0 += u & 0x00FF_00FF;
        self.1 += (u >> 8) & 0x00FF_00FF;
    }

    /// The sum of the bytes added, `n` words of them (128 taken off each byte).
    #[cfg(not(synaptic_dsp))]
    #[inline(always)]
    fn total(&self, n: usize) -> i32 {
        let l = self.0 + self.1;
        ((l & 0xFFFF) + (l >> 16)) as i32 - 512 * n as i32
    }
}

/// Keeps [`Int8`] and [`Int8Out`] to the two one-byte types.
mod sealed {
    /// Implemented by `i8` and `u8` only.
    pub trait Sealed {}
    impl Sealed for i8 {}
    impl Sealed for u8 {}
}

impl Int8 for i8 {
    #[inline(always)]
    fn value(self) -> i32 {
        i32::from(self)
    }
    #[inline(always)]
    fn byte(self) -> u8 {
        self as u8
    }
}

impl Int8 for u8 {
    #[inline(always)]
    fn value(self) -> i32 {
        i32::from(self as i8)
    }
    #[inline(always)]
    fn byte(self) -> u8 {
        self
    }
}

/// An int8 output element: `i8`, or its byte (`u8`) in a buffer an overlapped kernel shares
/// with its input ([`crate::ops::matmul::fully_connected::fully_connected_rows`]): the same value either way.
/// Sealed: only `i8` and `u8`, one byte each, `from_i8` the byte itself (the DSP copies write
/// slices of them as bytes).
pub trait Int8Out: Copy + sealed::Sealed {
    /// The element holding `v`.
    fn from_i8(v: i8) -> Self;
}

impl Int8Out for i8 {
    #[inline(always)]
    fn from_i8(v: i8) -> i8 {
        v
    }
}

impl Int8Out for u8 {
    #[inline(always)]
    fn from_i8(v: i8) -> u8 {
        v as u8
    }
}

/// A vector of `int32` (biases): a `[i32]` slice, or the little-endian bytes of a model buffer
/// read in place ([`LeI32`]).
pub trait Int32s {
    /// Number of elements.
    fn count(&self) -> usize;
    /// Element `i` (`i < count()`; the kernels check the count first).
    fn at(&self, i: usize) -> i32;
    /// Elements `i .. i + 4` (`i + 4 <= count()`): one bounds check for the four.
    fn at4(&self, i: usize) -> [i32; 4];
    /// Elements `i`, `i + 1` (`i + 2 <= count()`): one bounds check for the two.
    fn at2(&self, i: usize) -> [i32; 2];
    /// The elements as words in memory (two's complement), if they are: a program's
    /// constants (`[u32]`), for a loop in assembly that reads them in place.
    #[inline(always)]
    fn words(&self) -> Option<&[u32]> {
        None
    }
}

impl Int32s for [i32] {
    #[inline(always)]
    fn count(&self) -> usize {
        self.len()
    }
    #[inline(always)]
    fn at(&self, i: usize) -> i32 {
        self[i]
    }
    #[inline(always)]
    fn at4(&self, i: usize) -> [i32; 4] {
        let v = &self[i..][..4];
        [v[0], v[1], v[2], v[3]]
    }
    #[inline(always)]
    fn at2(&self, i: usize) -> [i32; 2] {
        let v = &self[i..][..2];
        [v[0], v[1]]
    }
}

/// Little-endian `int32` data of a model buffer, read in place (a trailing partial element is
/// not counted).
#[derive(Debug, Clone, Copy)]
pub struct LeI32<'a>(pub &'a [u8]);

impl Int32s for LeI32<'_> {
    #[inline(always)]
    fn count(&self) -> usize {
        self.0.len() / 4
    }
    #[inline(always)]
    fn at(&self, i: usize) -> i32 {
        let b = &self.0[4 * i..4 * i + 4];
        i32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
    #[inline(always)]
    fn at4(&self, i: usize) -> [i32; 4] {
        let b = &self.0[4 * i..][..16];
        core::array::from_fn(|j| {
            i32::from_le_bytes([b[4 * j], b[4 * j + 1], b[4 * j + 2], b[4 * j + 3]])
        })
    }
    #[inline(always)]
    fn at2(&self, i: usize) -> [i32; 2] {
        let b = &self.0[4 * i..][..8];
        [
            i32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            i32::from_le_bytes([b[4], b[5], b[6], b[7]]),
        ]
    }
}

/// Integer element types the quantized kernels read and write.
pub trait QInt: Copy {
    /// The type's smallest value, as `i32`.
    const MIN: i32;
    /// The type's largest value, as `i32`.
    const MAX: i32;
    /// Widens to `i32`.
    fn to_i32(self) -> i32;
    /// Narrows from `i32` (the value is already clamped to `MIN..=MAX`).
    fn from_i32(v: i32) -> Self;
}

macro_rules! qint {
    ($t:ty) => {
        impl QInt for $t {
            const MIN: i32 = <$t>::MIN as i32;
            const MAX: i32 = <$t>::MAX as i32;
            #[inline]
            fn to_i32(self) -> i32 {
                self as i32
            }
            #[inline]
            fn from_i32(v: i32) -> Self {
                v as $t
            }
        }
    };
}
qint!(i8);
qint!(u8);
qint!(i16);
qint!(i32);

impl Int32s for [u32] {
    #[inline(always)]
    fn count(&self) -> usize {
        self.len()
    }
    #[inline(always)]
    fn words(&self) -> Option<&[u32]> {
        Some(self)
    }
    #[inline(always)]
    fn at(&self, i: usize) -> i32 {
        self[i] as i32
    }
    #[inline(always)]
    fn at4(&self, i: usize) -> [i32; 4] {
        let v = &self[i..][..4];
        [v[0] as i32, v[1] as i32, v[2] as i32, v[3] as i32]
    }
    #[inline(always)]
    fn at2(&self, i: usize) -> [i32; 2] {
        let v = &self[i..][..2];
        [v[0] as i32, v[1] as i32]
    }
}

// The program's word codec of a shape (`crate::format::codec`): the rank, then the
// dimensions; a rank over `MAX_DIMS` decodes to nothing.
impl crate::format::codec::Words for Dims {
    const N: usize = 1 + MAX_DIMS;
    fn put(&self, w: &mut [u32]) -> bool {
        w.len() == Self::N && self.len.put(&mut w[..1]) && self.dims.put(&mut w[1..])
    }
    fn get(w: &[u32]) -> Option<Self> {
        let len = usize::get(w.get(..1)?)?;
        (len <= MAX_DIMS).then_some(())?;
        Some(Dims {
            len,
            dims: <[usize; MAX_DIMS]>::get(w.get(1..)?)?,
        })
    }
}

/// Two dot products sharing their input: `a_k += Σ (x[c] + offset) · w_k[c]` (portable).
#[cfg(not(synaptic_dsp))]
#[inline(always)]
pub(crate) fn dot2<X: Int8, W: Int8>(
    a0: i32,
    a1: i32,
    x: &[X],
    w0: &[W],
    w1: &[W],
    offset: i32,
) -> (i32, i32) {
    dot2_scalar(a0, a1, x, w0, w1, offset)
}

/// [`dot2`] one input at a time, each read and offset once for both filters (the portable
/// path; on the DSP extension, the last `n mod 4` inputs).
#[inline(always)]
fn dot2_scalar<X: Int8, W: Int8>(
    mut a0: i32,
    mut a1: i32,
    x: &[X],
    w0: &[W],
    w1: &[W],
    offset: i32,
) -> (i32, i32) {
    let n = x.len();
    let (w0, w1) = (&w0[..n], &w1[..n]);
    for c in 0..n {
        let v = x[c].value() + offset;
        a0 = a0.wrapping_add(w0[c].value().wrapping_mul(v));
        a1 = a1.wrapping_add(w1[c].value().wrapping_mul(v));
    }
    (a0, a1)
}

/// Two dot products sharing their input on the DSP extension: four inputs at a time as one
/// word, split into even and odd signed halfwords with the input offset added (`SXTAB16`:
/// `x + offset` is within ±255, exact in 16 bits), each filter's word likewise (`SXTB16`),
/// two `SMLAD`s per filter (two multiply-accumulates each); the last `n mod 4` inputs one at a
/// time. The same wrapping sums as the portable path.
#[cfg(synaptic_dsp)]
#[inline(always)]
pub(crate) fn dot2<X: Int8, W: Int8>(
    mut a0: i32,
    mut a1: i32,
    x: &[X],
    w0: &[W],
    w1: &[W],
    offset: i32,
) -> (i32, i32) {
    use crate::dsp::{smlad, sxtab16, sxtab16_ror8, sxtb16, sxtb16_ror8};
    let n = x.len();
    let (w0, w1) = (&w0[..n], &w1[..n]);
    let pair = (offset as u32 & 0xffff) * 0x1_0001;
    let quads = x
        .chunks_exact(4)
        .zip(w0.chunks_exact(4))
        .zip(w1.chunks_exact(4));
    for ((xq, q0), q1) in quads {
        let xw = word(&[xq[0], xq[1], xq[2], xq[3]]);
        let (x02, x13) = (sxtab16(pair, xw), sxtab16_ror8(pair, xw));
        let v0 = word(&[q0[0], q0[1], q0[2], q0[3]]);
        let v1 = word(&[q1[0], q1[1], q1[2], q1[3]]);
        a0 = smlad(x13, sxtb16_ror8(v0), smlad(x02, sxtb16(v0), a0));
        a1 = smlad(x13, sxtb16_ror8(v1), smlad(x02, sxtb16(v1), a1));
    }
    let t = n / 4 * 4;
    dot2_scalar(a0, a1, &x[t..], &w0[t..], &w1[t..], offset)
}

/// One dot product on the DSP extension, `a + Σ (x[c] + offset) · w[c]`: [`dot2`]'s steps for
/// one filter (four inputs a word, two `SMLAD`s), the last `n mod 4` inputs one at a time. The
/// same wrapping sum as the portable path.
#[cfg(synaptic_dsp)]
#[inline(always)]
pub(crate) fn dot1<X: Int8, W: Int8>(mut a: i32, x: &[X], w: &[W], offset: i32) -> i32 {
    use crate::dsp::{smlad, sxtab16, sxtab16_ror8, sxtb16, sxtb16_ror8};
    let n = x.len().min(w.len());
    let (x, w) = (&x[..n], &w[..n]);
    let pair = (offset as u32 & 0xffff) * 0x1_0001;
    let t = n / 4 * 4;
    let mut c = 0;
    while c < t {
        let (xq, q) = (&x[c..c + 4], &w[c..c + 4]);
        let xw = word(&[xq[0], xq[1], xq[2], xq[3]]);
        let v = word(&[q[0], q[1], q[2], q[3]]);
        a = smlad(
            sxtab16_ror8(pair, xw),
            sxtb16_ror8(v),
            smlad(sxtab16(pair, xw), sxtb16(v), a),
        );
        c += 4;
    }
    for (x, w) in x[t..].iter().zip(&w[t..]) {
        a = a.wrapping_add(w.value().wrapping_mul(x.value() + offset));
    }
    a
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::int8_sum;

    #[test]
    fn int8_sum_is_the_fold() {
        let fold = |r: &[u8]| {
            r.iter()
                .fold(0i32, |a, &b| a.wrapping_add(i32::from(b as i8)))
        };
        // Lengths around the word, short-row and block edges, extreme and mixed bytes.
        let mut x = 0x1234_5678u32;
        for len in [
            0, 1, 3, 4, 5, 16, 63, 64, 65, 511, 512, 513, 515, 1024, 4000, 16_001,
        ] {
            for fill in [Some(0x80u8), Some(0x7F), Some(0xFF), None] {
                let row: std::vec::Vec<u8> = (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 17;
                        x ^= x << 5;
                        fill.unwrap_or(x as u8)
                    })
                    .collect();
                assert_eq!(int8_sum(&row), fold(&row), "len {len} fill {fill:?}");
                let signed: std::vec::Vec<i8> = row.iter().map(|&b| b as i8).collect();
                assert_eq!(int8_sum(&signed), fold(&row), "len {len} fill {fill:?}");
            }
        }
    }
}

/// Unpacks `out.len()` int4 values from `packed` (TFLite's INT4 tensor: two a byte, element
/// `2k` in the low nibble, `2k + 1` in the high one, each sign-extended), as TFLM's
/// `tensor_utils::UnpackDenseInt4IntoInt8`: an odd count takes the last byte's low nibble
/// only. `None` (nothing written) if `packed` holds fewer than `⌈out.len() / 2⌉` bytes.
pub(crate) fn unpack_int4(packed: &[u8], out: &mut [i8]) -> Option<()> {
    let packed = packed.get(..out.len().div_ceil(2))?;
    for (pair, &b) in out.chunks_mut(2).zip(packed) {
        // Shifted left first, so that the right shift extends the low nibble's sign.
        let low = ((b << 4) as i8) >> 4;
        let high = (b as i8) >> 4;
        if let Some(v) = pair.first_mut() {
            *v = low;
        }
        if let Some(v) = pair.get_mut(1) {
            *v = high;
        }
    }
    Some(())
}

#[cfg(test)]
mod int4_tests {
    use super::unpack_int4;

    #[test]
    fn nibble_order_and_sign() {
        let mut out = [0i8; 5];
        assert_eq!(unpack_int4(&[0x8F, 0x70, 0xF9], &mut out), Some(()));
        assert_eq!(out, [-1, -8, 0, 7, -7]);
        assert_eq!(unpack_int4(&[0x8F, 0x70], &mut out), None);
    }
}
