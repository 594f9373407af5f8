//! The real FFTs of TFLM's signal library, bit-exact: kissfft v130 (`kiss_fftr_alloc`,
//! `kiss_fftr`, `kiss_fftri`, `kiss_fft_alloc`, `kf_work`, `kf_factor`, `kf_bfly2/3/4/5`, with
//! TFLM's `third_party/kissfft/kissfft.patch`) in the three builds TFLM makes of it
//! (`signal/src/kiss_fft_wrappers/`): `FIXED_POINT=16` (int16), `FIXED_POINT=32` (int32) and
//! float. One algorithm over a [`Scalar`] whose arithmetic is each build's macros
//! (`S_MUL`, `C_MUL`, `C_FIXDIV`, `HALF_OF`, `kf_cexp`). Called the way `signal/src/rfft_*.cc`
//! and `irfft_*.cc` call it (a forward `kiss_fftr` writing `fft_length / 2 + 1` complex
//! values; an inverse `kiss_fftri` writing `fft_length` samples, divided by `fft_length` in
//! float only, `IrfftFloatApply`) and looped over rows the way `signal/micro/kernels/rfft.cc`
//! and `irfft.cc` do (`RfftEval`: copy a row into the work area, zero-pad to `fft_length`,
//! transform; `IrfftEval`: transform each row in place of the output's).
//!
//! The arithmetic is the C arithmetic spelled out. Fixed point: sums computed in `int` and
//! truncated on store (wrapping operations; an `int32_t` sum's overflow wraps as the wheel's
//! x86-64 code does), products in `SAMPPROD` (`int32_t`, `int64_t`), `sround` (add half of
//! `2^FRACBITS`, arithmetic shift by `FRACBITS`, truncate), `HALF_OF` an arithmetic shift of
//! the `int` value. Float: IEEE single precision, one rounding per operation in kissfft's
//! order (left to right as C groups it, `a += b + c` as `a + (b + c)`), no fused
//! multiply-add, `HALF_OF(x)` as `x * 0.5f`. The twiddles (`kf_cexp`: `floor(.5 + SAMP_MAX *
//! cos(phase))` in fixed point, `(float) cos(phase)` in float, the same with `sin`; the
//! inverse's phases negated) are computed once into a table of `u32` words with IEEE `f64`
//! operations only, in kissfft's order of operations, by a port of musl's `cos`/`sin` (its
//! `__rem_pio2` medium path and its `__cos`/`__sin` kernels), so that every target produces
//! the same words (those of glibc).
//!
//! Supported lengths: `fft_length` even, `4..=4096`, with `fft_length / 2` factoring (as
//! `kf_factor` factors it) into radices 4, 2, 3 and 5 only; kissfft's generic butterfly
//! allocates a heap buffer, which TFLM's patched kissfft does not have (TFLM's build
//! dereferences a null buffer there, `fft_length == 2` included: refused here, never
//! answered differently).
//!
//! Table layout (`u32` words): word 0 the number of stages `S`; words `1..=S` the stages of
//! `kf_factor` (radix `p` in bits 0..8, remaining length `m` in bits 8..32); then the
//! `fft_length / 2` twiddles of `kiss_fft_alloc`, then the `fft_length / 4` super twiddles of
//! `kiss_fftr_alloc`, each complex value in [`Scalar::WORDS`] words: int16's `re` in the low
//! half-word and `im` in the high half-word (two's complement), int32's and float32's `re`
//! then `im`, a word each (two's complement, IEEE bits).

/// The largest supported `fft_length`.
const MAX_FFT_LENGTH: usize = 4096;

/// kissfft's `MAXFACTORS`: the most stages a factorization can have.
const MAX_STAGES: usize = 32;

/// A complex value (kissfft's `kiss_fft_cpx`).
#[derive(Clone, Copy, Default, Debug, PartialEq)]
pub struct Cpx<S> {
    /// Real part.
    pub r: S,
    /// Imaginary part.
    pub i: S,
}

/// A `kiss_fft_scalar`: the arithmetic of one of kissfft's builds (its macros of
/// `_kiss_fft_guts.h`), and the conversions of its twiddles to and from table words.
pub trait Scalar: Copy + Default + 'static {
    /// Table words per complex value.
    const WORDS: usize;
    /// `a + b` (fixed point: computed in `int`, truncated).
    fn add(self, b: Self) -> Self;
    /// `a - b` (fixed point: computed in `int`, truncated).
    fn sub(self, b: Self) -> Self;
    /// `-a` (fixed point: computed in `int`, truncated).
    fn neg(self) -> Self;
    /// `DIVSCALAR(x, k)`: fixed point `sround(smul(x, SAMP_MAX / k))`; float: `x` (a no-op).
    fn fixdiv(self, k: i32) -> Self;
    /// `S_MUL(a, b)`: fixed point `sround(smul(a, b))`; float `a * b`.
    fn s_mul(self, b: Self) -> Self;
    /// `C_MUL`'s real part, `a * b - c * d` (fixed point: both products in `SAMPPROD`, one
    /// `sround` of their difference).
    fn mul_sub(a: Self, b: Self, c: Self, d: Self) -> Self;
    /// `C_MUL`'s imaginary part, `a * b + c * d` (as [`Scalar::mul_sub`]).
    fn mul_add(a: Self, b: Self, c: Self, d: Self) -> Self;
    /// `HALF_OF(x)`.
    fn half(self) -> Self;
    /// `HALF_OF(a + b)` (int16: the sum in `int`, never overflowing).
    fn half_sum(a: Self, b: Self) -> Self;
    /// `HALF_OF(a - b)` (int16: the difference in `int`).
    fn half_diff(a: Self, b: Self) -> Self;
    /// `KISS_FFT_COS`/`KISS_FFT_SIN` of a phase whose `cos` or `sin` is `v`.
    fn from_trig(v: f64) -> Self;
    /// Table word `k` (`< WORDS`) of a complex value.
    fn word(c: Cpx<Self>, k: usize) -> u32;
    /// The complex value of its [`Scalar::WORDS`] table words.
    fn from_words(w: &[u32]) -> Cpx<Self>;
    /// What TFLM's inverse wrapper does to each output sample after `kiss_fftri`: float
    /// divides by `fft_length` (`IrfftFloatApply`); the fixed-point builds leave it.
    fn inverse_scale(self, _fft_length: usize) -> Self {
        self
    }
}

/// `sround` of `FIXED_POINT=16`: `(int16_t)((x + (1 << 14)) >> 15)`.
fn sround16(x: i32) -> i16 {
    (x.wrapping_add(1 << 14) >> 15) as i16
}

/// `sround` of `FIXED_POINT=32`: `(int32_t)((x + (1 << 30)) >> 31)`.
fn sround32(x: i64) -> i32 {
    (x.wrapping_add(1 << 30) >> 31) as i32
}

/// `FIXED_POINT=16`: `SAMPPROD` `int32_t`, `FRACBITS` 15, `SAMP_MAX` 32767.
impl Scalar for i16 {
    const WORDS: usize = 1;
    fn add(self, b: i16) -> i16 {
        self.wrapping_add(b)
    }
    fn sub(self, b: i16) -> i16 {
        self.wrapping_sub(b)
    }
    fn neg(self) -> i16 {
        self.wrapping_neg()
    }
    fn fixdiv(self, k: i32) -> i16 {
        // SAMP_MAX / k for k in 2..=5: at most 16383.
        self.s_mul((32767 / k) as i16)
    }
    fn s_mul(self, b: i16) -> i16 {
        // The int32_t product is at most 2^30 in magnitude: never overflows.
        sround16(i32::from(self) * i32::from(b))
    }
    fn mul_sub(a: i16, b: i16, c: i16, d: i16) -> i16 {
        sround16((i32::from(a) * i32::from(b)).wrapping_sub(i32::from(c) * i32::from(d)))
    }
    fn mul_add(a: i16, b: i16, c: i16, d: i16) -> i16 {
        sround16((i32::from(a) * i32::from(b)).wrapping_add(i32::from(c) * i32::from(d)))
    }
    fn half(self) -> i16 {
        self >> 1
    }
    fn half_sum(a: i16, b: i16) -> i16 {
        ((i32::from(a) + i32::from(b)) >> 1) as i16
    }
    fn half_diff(a: i16, b: i16) -> i16 {
        ((i32::from(a) - i32::from(b)) >> 1) as i16
    }
    fn from_trig(v: f64) -> i16 {
        // |v| <= 32767.5: in range.
        floor_to_i32(0.5 + 32767.0 * v) as i16
    }
    fn word(c: Cpx<i16>, _k: usize) -> u32 {
        u32::from(c.r as u16) | (u32::from(c.i as u16) << 16)
    }
    fn from_words(w: &[u32]) -> Cpx<i16> {
        let w = w.first().copied().unwrap_or(0);
        Cpx {
            r: w as u16 as i16,
            i: (w >> 16) as u16 as i16,
        }
    }
}

/// `FIXED_POINT=32`: `SAMPPROD` `int64_t`, `FRACBITS` 31, `SAMP_MAX` 2147483647.
impl Scalar for i32 {
    const WORDS: usize = 2;
    fn add(self, b: i32) -> i32 {
        self.wrapping_add(b)
    }
    fn sub(self, b: i32) -> i32 {
        self.wrapping_sub(b)
    }
    fn neg(self) -> i32 {
        self.wrapping_neg()
    }
    fn fixdiv(self, k: i32) -> i32 {
        self.s_mul(i32::MAX / k)
    }
    fn s_mul(self, b: i32) -> i32 {
        sround32(i64::from(self) * i64::from(b))
    }
    fn mul_sub(a: i32, b: i32, c: i32, d: i32) -> i32 {
        sround32((i64::from(a) * i64::from(b)).wrapping_sub(i64::from(c) * i64::from(d)))
    }
    fn mul_add(a: i32, b: i32, c: i32, d: i32) -> i32 {
        sround32((i64::from(a) * i64::from(b)).wrapping_add(i64::from(c) * i64::from(d)))
    }
    fn half(self) -> i32 {
        self >> 1
    }
    fn half_sum(a: i32, b: i32) -> i32 {
        a.wrapping_add(b) >> 1
    }
    fn half_diff(a: i32, b: i32) -> i32 {
        a.wrapping_sub(b) >> 1
    }
    fn from_trig(v: f64) -> i32 {
        // |v| <= 2147483647.5: in range (floor(.5 + SAMP_MAX) is SAMP_MAX).
        floor_to_i32(0.5 + 2_147_483_647.0 * v)
    }
    fn word(c: Cpx<i32>, k: usize) -> u32 {
        if k == 0 {
            c.r as u32
        } else {
            c.i as u32
        }
    }
    fn from_words(w: &[u32]) -> Cpx<i32> {
        match *w {
            [r, i] => Cpx {
                r: r as i32,
                i: i as i32,
            },
            _ => Cpx::default(),
        }
    }
}

/// The float build: `S_MUL` and `C_MUL` plain products, `C_FIXDIV` a no-op, `HALF_OF(x)`
/// `x * (float) .5` (TFLM's patch).
impl Scalar for f32 {
    const WORDS: usize = 2;
    fn add(self, b: f32) -> f32 {
        self + b
    }
    fn sub(self, b: f32) -> f32 {
        self - b
    }
    fn neg(self) -> f32 {
        -self
    }
    fn fixdiv(self, _k: i32) -> f32 {
        self
    }
    fn s_mul(self, b: f32) -> f32 {
        self * b
    }
    fn mul_sub(a: f32, b: f32, c: f32, d: f32) -> f32 {
        a * b - c * d
    }
    fn mul_add(a: f32, b: f32, c: f32, d: f32) -> f32 {
        a * b + c * d
    }
    fn half(self) -> f32 {
        self * 0.5
    }
    fn half_sum(a: f32, b: f32) -> f32 {
        (a + b) * 0.5
    }
    fn half_diff(a: f32, b: f32) -> f32 {
        (a - b) * 0.5
    }
    fn from_trig(v: f64) -> f32 {
        v as f32
    }
    fn word(c: Cpx<f32>, k: usize) -> u32 {
        if k == 0 {
            c.r.to_bits()
        } else {
            c.i.to_bits()
        }
    }
    fn from_words(w: &[u32]) -> Cpx<f32> {
        match *w {
            [r, i] => Cpx {
                r: f32::from_bits(r),
                i: f32::from_bits(i),
            },
            _ => Cpx::default(),
        }
    }
    fn inverse_scale(self, fft_length: usize) -> f32 {
        // `output[i] /= fft_length`: the int converted to float (exact below 2^24).
        self / fft_length as f32
    }
}

/// One stage of `kf_factor`: radix `p` and remaining length `m`.
type Stage = (usize, usize);

/// `kf_factor(n, facbuf)`: factors `n` (powers of 4, then 2, then odd numbers; once the
/// candidate exceeds `floor(sqrt(n))` of the original `n` the rest is one factor) into
/// `stages`; returns how many stages, or `None` if `n == 0` or there are more than
/// `MAX_STAGES`.
fn kf_factor(n: usize, stages: &mut [Stage; MAX_STAGES]) -> Option<usize> {
    if n == 0 {
        return None;
    }
    let mut n = n;
    let mut p = 4;
    // floor(sqrt((double)n)) equals the integer square root for every n below 2^52.
    let floor_sqrt = n.isqrt();
    let mut count = 0;
    loop {
        while n % p != 0 {
            p = match p {
                4 => 2,
                2 => 3,
                _ => p + 2,
            };
            if p > floor_sqrt {
                p = n;
            }
        }
        n /= p;
        *stages.get_mut(count)? = (p, n);
        count += 1;
        if n <= 1 {
            return Some(count);
        }
    }
}

/// The stages of `kf_factor(fft_length / 2)` and their count, if `fft_length` is supported.
fn supported_stages(fft_length: usize) -> Option<([Stage; MAX_STAGES], usize)> {
    if fft_length < 2 || fft_length % 2 != 0 || fft_length > MAX_FFT_LENGTH {
        return None;
    }
    let nfft = fft_length / 2;
    let mut stages = [(0, 0); MAX_STAGES];
    let count = kf_factor(nfft, &mut stages)?;
    let radices_ok = stages
        .get(..count)?
        .iter()
        .all(|&(p, _)| matches!(p, 2..=5));
    radices_ok.then_some((stages, count))
}

/// The table word of one stage.
fn stage_word((p, m): Stage) -> u32 {
    // p <= 5 and m <= 2048 for every supported length.
    (p as u32) | ((m as u32) << 8)
}

/// Whether a real FFT of `fft_length` is supported (every type, both directions): even, at
/// least 4, `fft_length / 2` factoring only into 4, 2, 3 and 5 (kissfft's generic butterfly
/// needs a heap buffer, which TFLM's patched kissfft does not have), at most 4096.
pub fn rfft_supported(fft_length: usize) -> bool {
    supported_stages(fft_length).is_some()
}

/// u32 words of the precomputed int16 tables for `fft_length` (twiddles, super twiddles,
/// factors; the layout is in the module documentation); None if unsupported.
pub fn rfft_table_words(fft_length: usize) -> Option<usize> {
    table_words::<i16>(fft_length)
}

/// u32 words of the tables of scalar `S` for `fft_length` (either direction); None if
/// unsupported.
pub fn table_words<S: Scalar>(fft_length: usize) -> Option<usize> {
    let (_, count) = supported_stages(fft_length)?;
    let nfft = fft_length / 2;
    Some(1 + count + S::WORDS * (nfft + nfft / 2))
}

/// Writes the int16 forward tables into `out` (exactly rfft_table_words long); None if
/// unsupported or wrong length. Computed with IEEE f64 arithmetic only (kissfft's phases in
/// its order of operations, `floor(.5 + 32767 * cos(phase))` and the same for `sin`), so the
/// same words come out on every target.
pub fn rfft_tables(fft_length: usize, out: &mut [u32]) -> Option<()> {
    tables::<i16>(fft_length, false, out)
}

/// Writes the tables of scalar `S` for `fft_length` into `out` (exactly [`table_words`]
/// long), the inverse's if `inverse`; None if unsupported or wrong length.
pub fn tables<S: Scalar>(fft_length: usize, inverse: bool, out: &mut [u32]) -> Option<()> {
    if out.len() != table_words::<S>(fft_length)? {
        return None;
    }
    // One rule: each word as the program compiler computes it alone.
    for (c, w) in out.iter_mut().enumerate() {
        *w = table_word::<S>(fft_length, inverse, c)?;
    }
    Some(())
}

/// Word `c` of [`rfft_tables`]'s tables for `fft_length`, computed alone (the program
/// compiler writes a record's constants one at a time); `None` if unsupported or past the end.
pub fn rfft_table_word(fft_length: usize, c: usize) -> Option<u32> {
    table_word::<i16>(fft_length, false, c)
}

/// Word `c` of [`tables`]'s tables of scalar `S` for `fft_length` (the inverse's if
/// `inverse`), computed alone; `None` if unsupported or past the end.
pub fn table_word<S: Scalar>(fft_length: usize, inverse: bool, c: usize) -> Option<u32> {
    let (stages, count) = supported_stages(fft_length)?;
    let nfft = fft_length / 2;
    let pi = core::f64::consts::PI;
    let n = nfft as f64;
    if c == 0 {
        return Some(count as u32);
    }
    if c <= count {
        return Some(stage_word(stages[c - 1]));
    }
    let (i, part) = ((c - 1 - count) / S::WORDS, (c - 1 - count) % S::WORDS);
    // `phase *= -1` of the inverse: an exact negation.
    let sign = if inverse { -1.0 } else { 1.0 };
    if i < nfft {
        // kiss_fft_alloc's twiddles.
        let phase = -2.0 * pi * (i as f64) / n;
        return Some(S::word(kf_cexp(phase * sign), part));
    }
    let i = i - nfft;
    (i < nfft / 2).then(|| {
        // kiss_fftr_alloc's super twiddles.
        let phase = -pi * (((i + 1) as f64) / n + 0.5);
        S::word(kf_cexp(phase * sign), part)
    })
}

/// Scratch i16 elements rfft_i16 needs (work area of fft_length zero-padded input +
/// kissfft's tmpbuf of fft_length/2 complex), for `fft_length`: `2 * fft_length`, or 0 if
/// unsupported. The same count of scalars for [`rfft`] of every type.
pub fn rfft_scratch_elems(fft_length: usize) -> usize {
    if rfft_supported(fft_length) {
        2 * fft_length
    } else {
        0
    }
}

/// Scratch scalars [`irfft`] needs (kissfft's tmpbuf of fft_length/2 complex):
/// `fft_length`, or 0 if unsupported.
pub fn irfft_scratch_elems(fft_length: usize) -> usize {
    if rfft_supported(fft_length) {
        fft_length
    } else {
        0
    }
}

/// The stages, twiddles and super twiddles of `tables` for `fft_length`, if it is exactly
/// what [`tables`] writes for `S` (its stages are checked; its twiddles are used as they
/// are).
#[allow(clippy::type_complexity)]
fn split_tables<S: Scalar>(
    fft_length: usize,
    tables: &[u32],
) -> Result<([Stage; MAX_STAGES], usize, &[u32], &[u32]), ()> {
    let (stages, count) = supported_stages(fft_length).ok_or(())?;
    let nfft = fft_length / 2;
    if Some(tables.len()) != table_words::<S>(fft_length) {
        return Err(());
    }
    let (head, rest) = tables.split_at_checked(1 + count).ok_or(())?;
    let (&count_word, stage_words) = head.split_first().ok_or(())?;
    if count_word != count as u32
        || stage_words
            .iter()
            .zip(stages.get(..count).ok_or(())?.iter())
            .any(|(&word, &stage)| word != stage_word(stage))
    {
        return Err(());
    }
    let (twiddles, supers) = rest.split_at_checked(S::WORDS * nfft).ok_or(())?;
    Ok((stages, count, twiddles, supers))
}

/// TFLM's SignalRfft int16 Eval ([`rfft`] of int16).
///
/// `tables` must be exactly what [`rfft_tables`] wrote for `fft_length`.
// The signature is fixed by the callers: an error carries no detail.
#[allow(clippy::result_unit_err)]
pub fn rfft_i16(
    fft_length: usize,
    tables: &[u32],
    input_length: usize,
    input: &[i16],
    output: &mut [i16],
    scratch: &mut [i16],
) -> Result<(), ()> {
    rfft(fft_length, tables, input_length, input, output, scratch)
}

/// TFLM's SignalRfft Eval: for each row of `input_length` samples of `input`
/// (input.len() a multiple of input_length), copy into the work area, zero-pad to
/// fft_length, run kiss_fftr, write fft_length/2+1 complex values (re, im interleaved) to
/// the output row (output row length = output_length complex values as TFLM computes it:
/// `output last dim / 2`). Err(()) on any inconsistent length.
///
/// The output's last dimension is taken as `output.len() / rows` (rows =
/// `input.len() / input_length`, which must divide `output.len()`); row `r` starts at
/// element `2 * output_length * r` as in TFLM, and `output_length` must be at least
/// `fft_length / 2 + 1`; elements past the `fft_length / 2 + 1` values of a row are left
/// untouched. `tables` must be exactly what [`tables`] wrote for `S`, `fft_length` and the
/// forward direction (its stages are checked; its twiddles are used as they are), `scratch`
/// at least [`rfft_scratch_elems`] long, `input_length` in `1..=fft_length`. An empty input
/// needs an empty output and transforms nothing.
// The signature is fixed by the callers: an error carries no detail.
#[allow(clippy::result_unit_err)]
pub fn rfft<S: Scalar>(
    fft_length: usize,
    tables: &[u32],
    input_length: usize,
    input: &[S],
    output: &mut [S],
    scratch: &mut [S],
) -> Result<(), ()> {
    let (stages, count, twiddles, supers) = split_tables::<S>(fft_length, tables)?;
    let stages = stages.get(..count).ok_or(())?;
    let nfft = fft_length / 2;
    if input_length == 0 || input_length > fft_length || input.len() % input_length != 0 {
        return Err(());
    }
    let (work, rest) = scratch.split_at_mut_checked(fft_length).ok_or(())?;
    let tmpbuf = rest.get_mut(..fft_length).ok_or(())?;
    let rows = input.len() / input_length;
    if rows == 0 {
        return if output.is_empty() { Ok(()) } else { Err(()) };
    }
    if output.len() % rows != 0 {
        return Err(());
    }
    let output_length = output.len() / rows / 2;
    let bins = nfft + 1;
    if output_length < bins {
        return Err(());
    }
    for (row_in, row_out) in input
        .chunks_exact(input_length)
        .zip(output.chunks_mut(2 * output_length))
    {
        let (copied, padding) = work.split_at_mut_checked(input_length).ok_or(())?;
        copied.copy_from_slice(row_in);
        padding.fill(S::default());
        let freqdata = row_out.get_mut(..2 * bins).ok_or(())?;
        kiss_fftr(nfft, stages, twiddles, supers, work, tmpbuf, freqdata);
    }
    Ok(())
}

/// TFLM's SignalIrfft Eval: for each row of `input_length` complex values of `input` (re, im
/// interleaved; `input.len()` a multiple of `2 * input_length`), run kiss_fftri on its first
/// `fft_length / 2 + 1` values into the output row of `fft_length` samples, then (float)
/// divide each by `fft_length`. Err(()) on any inconsistent length: `input_length` must be
/// at least `fft_length / 2 + 1`, the output exactly `fft_length` samples a row. `tables`
/// must be exactly what [`tables`] wrote for `S`, `fft_length` and the inverse direction,
/// `scratch` at least [`irfft_scratch_elems`] long.
// The signature is fixed by the callers: an error carries no detail.
#[allow(clippy::result_unit_err)]
pub fn irfft<S: Scalar>(
    fft_length: usize,
    tables: &[u32],
    input_length: usize,
    input: &[S],
    output: &mut [S],
    scratch: &mut [S],
) -> Result<(), ()> {
    let (stages, count, twiddles, supers) = split_tables::<S>(fft_length, tables)?;
    let stages = stages.get(..count).ok_or(())?;
    let nfft = fft_length / 2;
    let row = input_length.checked_mul(2).ok_or(())?;
    if input_length < nfft + 1 || input.len() % row != 0 {
        return Err(());
    }
    let rows = input.len() / row;
    if rows.checked_mul(fft_length) != Some(output.len()) {
        return Err(());
    }
    let tmpbuf = scratch.get_mut(..fft_length).ok_or(())?;
    for (row_in, row_out) in input
        .chunks_exact(row)
        .zip(output.chunks_exact_mut(fft_length))
    {
        let freqdata = row_in.get(..2 * (nfft + 1)).ok_or(())?;
        kiss_fftri(nfft, stages, twiddles, supers, freqdata, tmpbuf, row_out);
        for o in row_out.iter_mut() {
            *o = o.inverse_scale(fft_length);
        }
    }
    Ok(())
}

/// `kiss_fftr` (forward): the complex FFT of the `nfft` pairs of `timedata` into `tmpbuf`,
/// then the split into `nfft + 1` bins of `freqdata`.
fn kiss_fftr<S: Scalar>(
    nfft: usize,
    stages: &[Stage],
    twiddles: &[u32],
    supers: &[u32],
    timedata: &[S],
    tmpbuf: &mut [S],
    freqdata: &mut [S],
) {
    kf_work(tmpbuf, 0, timedata, 0, 1, stages, twiddles, false);
    let ncfft = nfft;
    let tdc = c_fixdiv(load(tmpbuf, 0), 2);
    store(
        freqdata,
        0,
        Cpx {
            r: tdc.r.add(tdc.i),
            i: S::default(),
        },
    );
    store(
        freqdata,
        ncfft,
        Cpx {
            r: tdc.r.sub(tdc.i),
            i: S::default(),
        },
    );
    for k in 1..=ncfft / 2 {
        let fpk = c_fixdiv(load(tmpbuf, k), 2);
        let nk = load(tmpbuf, ncfft - k);
        let fpnk = c_fixdiv(
            Cpx {
                r: nk.r,
                i: nk.i.neg(),
            },
            2,
        );
        let f1k = c_add(fpk, fpnk);
        let f2k = c_sub(fpk, fpnk);
        let tw = c_mul(f2k, twiddle(supers, k - 1));
        store(
            freqdata,
            k,
            Cpx {
                r: S::half_sum(f1k.r, tw.r),
                i: S::half_sum(f1k.i, tw.i),
            },
        );
        store(
            freqdata,
            ncfft - k,
            Cpx {
                r: S::half_diff(f1k.r, tw.r),
                i: S::half_diff(tw.i, f1k.i),
            },
        );
    }
}

/// `kiss_fftri` (inverse): the `nfft + 1` bins of `freqdata` recombined into the `nfft`
/// complex values of `tmpbuf`, then their complex inverse FFT into the `nfft` pairs of
/// `timedata`.
fn kiss_fftri<S: Scalar>(
    nfft: usize,
    stages: &[Stage],
    twiddles: &[u32],
    supers: &[u32],
    freqdata: &[S],
    tmpbuf: &mut [S],
    timedata: &mut [S],
) {
    let ncfft = nfft;
    let (f0, fn_) = (load(freqdata, 0), load(freqdata, ncfft));
    let t0 = Cpx {
        r: f0.r.add(fn_.r),
        i: f0.r.sub(fn_.r),
    };
    store(tmpbuf, 0, c_fixdiv(t0, 2));
    for k in 1..=ncfft / 2 {
        let fk = c_fixdiv(load(freqdata, k), 2);
        let nk = load(freqdata, ncfft - k);
        let fnkc = c_fixdiv(
            Cpx {
                r: nk.r,
                i: nk.i.neg(),
            },
            2,
        );
        let fek = c_add(fk, fnkc);
        let tmp = c_sub(fk, fnkc);
        let fok = c_mul(tmp, twiddle(supers, k - 1));
        store(tmpbuf, k, c_add(fek, fok));
        let d = c_sub(fek, fok);
        // `tmpbuf[ncfft - k].i *= -1`.
        store(
            tmpbuf,
            ncfft - k,
            Cpx {
                r: d.r,
                i: d.i.neg(),
            },
        );
    }
    kf_work(timedata, 0, tmpbuf, 0, 1, stages, twiddles, true);
}

/// `kf_work`: the mixed-radix decimation in time. Writes the `p * m` outputs at complex index
/// `out_at` of `out` from the inputs at complex indices `in_at + j * fstride` of `input`, then
/// recombines them with the stage's butterfly (`inverse`: `st->inverse`, which only
/// `kf_bfly4` reads; the twiddles are the inverse's). The stages come from `kf_factor` of the
/// transform length, so every index stays below it (out-of-range accesses would read zeros
/// and be dropped, never panic).
#[allow(clippy::too_many_arguments)]
fn kf_work<S: Scalar>(
    out: &mut [S],
    out_at: usize,
    input: &[S],
    in_at: usize,
    fstride: usize,
    stages: &[Stage],
    twiddles: &[u32],
    inverse: bool,
) {
    let Some((&(p, m), rest)) = stages.split_first() else {
        return;
    };
    if m == 1 {
        for j in 0..p {
            store(out, out_at + j, load(input, in_at + j * fstride));
        }
    } else {
        for j in 0..p {
            kf_work(
                out,
                out_at + j * m,
                input,
                in_at + j * fstride,
                fstride * p,
                rest,
                twiddles,
                inverse,
            );
        }
    }
    match p {
        2 => kf_bfly2(out, out_at, fstride, twiddles, m),
        3 => kf_bfly3(out, out_at, fstride, twiddles, m),
        4 => kf_bfly4(out, out_at, fstride, twiddles, m, inverse),
        5 => kf_bfly5(out, out_at, fstride, twiddles, m),
        // Never: the stages were checked against `kf_factor` (radices 2 to 5 only).
        _ => {}
    }
}

/// `kf_bfly2`.
fn kf_bfly2<S: Scalar>(out: &mut [S], at: usize, fstride: usize, tw: &[u32], m: usize) {
    let Some([l0, l1]) = legs::<S, 2>(out, at, m) else {
        return;
    };
    let legs = l0.chunks_exact_mut(2).zip(l1.chunks_exact_mut(2));
    for (k, (x0, x1)) in legs.enumerate() {
        let f0 = c_fixdiv(get(x0), 2);
        let f1 = c_fixdiv(get(x1), 2);
        let t = c_mul(f1, twiddle(tw, k * fstride));
        put(x1, c_sub(f0, t));
        put(x0, c_add(f0, t));
    }
}

/// `kf_bfly3`.
fn kf_bfly3<S: Scalar>(out: &mut [S], at: usize, fstride: usize, tw: &[u32], m: usize) {
    let epi3: Cpx<S> = twiddle(tw, fstride * m);
    let Some([l0, l1, l2]) = legs::<S, 3>(out, at, m) else {
        return;
    };
    let legs = l0
        .chunks_exact_mut(2)
        .zip(l1.chunks_exact_mut(2))
        .zip(l2.chunks_exact_mut(2));
    for (k, ((x0, x1), x2)) in legs.enumerate() {
        let mut f0 = c_fixdiv(get(x0), 3);
        let f1 = c_fixdiv(get(x1), 3);
        let f2 = c_fixdiv(get(x2), 3);
        let s1 = c_mul(f1, twiddle(tw, k * fstride));
        let s2 = c_mul(f2, twiddle(tw, 2 * k * fstride));
        let s3 = c_add(s1, s2);
        let s0 = c_sub(s1, s2);
        let mut fm = Cpx {
            r: f0.r.sub(s3.r.half()),
            i: f0.i.sub(s3.i.half()),
        };
        // C_MULBYSCALAR(scratch[0], epi3.i).
        let s0 = Cpx {
            r: s0.r.s_mul(epi3.i),
            i: s0.i.s_mul(epi3.i),
        };
        f0 = c_add(f0, s3);
        let fm2 = Cpx {
            r: fm.r.add(s0.i),
            i: fm.i.sub(s0.r),
        };
        fm.r = fm.r.sub(s0.i);
        fm.i = fm.i.add(s0.r);
        put(x0, f0);
        put(x1, fm);
        put(x2, fm2);
    }
}

/// `kf_bfly4` (`inverse`: its `st->inverse` branch).
fn kf_bfly4<S: Scalar>(
    out: &mut [S],
    at: usize,
    fstride: usize,
    tw: &[u32],
    m: usize,
    inverse: bool,
) {
    let Some([l0, l1, l2, l3]) = legs::<S, 4>(out, at, m) else {
        return;
    };
    let legs = l0
        .chunks_exact_mut(2)
        .zip(l1.chunks_exact_mut(2))
        .zip(l2.chunks_exact_mut(2))
        .zip(l3.chunks_exact_mut(2));
    for (k, (((x0, x1), x2), x3)) in legs.enumerate() {
        let mut f0 = c_fixdiv(get(x0), 4);
        let f1 = c_fixdiv(get(x1), 4);
        let f2 = c_fixdiv(get(x2), 4);
        let f3 = c_fixdiv(get(x3), 4);
        let s0 = c_mul(f1, twiddle(tw, k * fstride));
        let s1 = c_mul(f2, twiddle(tw, 2 * k * fstride));
        let s2 = c_mul(f3, twiddle(tw, 3 * k * fstride));
        let s5 = c_sub(f0, s1);
        f0 = c_add(f0, s1);
        let s3 = c_add(s0, s2);
        let s4 = c_sub(s0, s2);
        put(x2, c_sub(f0, s3));
        f0 = c_add(f0, s3);
        let (y1, y3) = if inverse {
            (
                Cpx {
                    r: s5.r.sub(s4.i),
                    i: s5.i.add(s4.r),
                },
                Cpx {
                    r: s5.r.add(s4.i),
                    i: s5.i.sub(s4.r),
                },
            )
        } else {
            (
                Cpx {
                    r: s5.r.add(s4.i),
                    i: s5.i.sub(s4.r),
                },
                Cpx {
                    r: s5.r.sub(s4.i),
                    i: s5.i.add(s4.r),
                },
            )
        };
        put(x1, y1);
        put(x3, y3);
        put(x0, f0);
    }
}

/// The `P` legs of a butterfly: the `P` runs of `m` complex values from complex index `at`
/// (`None` if out of range, which a valid factorization never is).
fn legs<S, const P: usize>(out: &mut [S], at: usize, m: usize) -> Option<[&mut [S]; P]> {
    if m == 0 {
        return None;
    }
    let region = out.get_mut(2 * at..2 * (at + P * m))?;
    let mut runs = region.chunks_exact_mut(2 * m);
    Some(core::array::from_fn(|_| runs.next().unwrap_or_default()))
}

/// The complex value in a two-element chunk.
fn get<S: Scalar>(x: &[S]) -> Cpx<S> {
    match *x {
        [r, i] => Cpx { r, i },
        _ => Cpx::default(),
    }
}

/// Stores a complex value into a two-element chunk.
fn put<S: Scalar>(x: &mut [S], v: Cpx<S>) {
    if let [r, i] = x {
        *r = v.r;
        *i = v.i;
    }
}

/// `kf_bfly5`.
fn kf_bfly5<S: Scalar>(out: &mut [S], at: usize, fstride: usize, tw: &[u32], m: usize) {
    let ya: Cpx<S> = twiddle(tw, fstride * m);
    let yb: Cpx<S> = twiddle(tw, fstride * 2 * m);
    let Some([l0, l1, l2, l3, l4]) = legs::<S, 5>(out, at, m) else {
        return;
    };
    let legs = l0
        .chunks_exact_mut(2)
        .zip(l1.chunks_exact_mut(2))
        .zip(l2.chunks_exact_mut(2))
        .zip(l3.chunks_exact_mut(2))
        .zip(l4.chunks_exact_mut(2));
    for (u, ((((x0, x1), x2), x3), x4)) in legs.enumerate() {
        let s0 = c_fixdiv(get(x0), 5);
        let f1 = c_fixdiv(get(x1), 5);
        let f2 = c_fixdiv(get(x2), 5);
        let f3 = c_fixdiv(get(x3), 5);
        let f4 = c_fixdiv(get(x4), 5);
        let s1 = c_mul(f1, twiddle(tw, u * fstride));
        let s2 = c_mul(f2, twiddle(tw, 2 * u * fstride));
        let s3 = c_mul(f3, twiddle(tw, 3 * u * fstride));
        let s4 = c_mul(f4, twiddle(tw, 4 * u * fstride));
        let s7 = c_add(s1, s4);
        let s10 = c_sub(s1, s4);
        let s8 = c_add(s2, s3);
        let s9 = c_sub(s2, s3);
        // `Fout0->r += scratch[7].r + scratch[8].r`.
        let f0 = Cpx {
            r: s0.r.add(s7.r.add(s8.r)),
            i: s0.i.add(s7.i.add(s8.i)),
        };
        let s5 = Cpx {
            r: s0.r.add(s7.r.s_mul(ya.r)).add(s8.r.s_mul(yb.r)),
            i: s0.i.add(s7.i.s_mul(ya.r)).add(s8.i.s_mul(yb.r)),
        };
        let s6 = Cpx {
            r: s10.i.s_mul(ya.i).add(s9.i.s_mul(yb.i)),
            i: s10.r.s_mul(ya.i).neg().sub(s9.r.s_mul(yb.i)),
        };
        let s11 = Cpx {
            r: s0.r.add(s7.r.s_mul(yb.r)).add(s8.r.s_mul(ya.r)),
            i: s0.i.add(s7.i.s_mul(yb.r)).add(s8.i.s_mul(ya.r)),
        };
        let s12 = Cpx {
            r: s10.i.s_mul(yb.i).neg().add(s9.i.s_mul(ya.i)),
            i: s10.r.s_mul(yb.i).sub(s9.r.s_mul(ya.i)),
        };
        put(x0, f0);
        put(x1, c_sub(s5, s6));
        put(x4, c_add(s5, s6));
        put(x2, c_add(s11, s12));
        put(x3, c_sub(s11, s12));
    }
}

/// The complex value at complex index `c` of an interleaved buffer (zero if out of range,
/// which a valid factorization never is).
fn load<S: Scalar>(buf: &[S], c: usize) -> Cpx<S> {
    match buf.get(2 * c..2 * c + 2) {
        Some(&[r, i]) => Cpx { r, i },
        _ => Cpx::default(),
    }
}

/// Stores `v` at complex index `c` of an interleaved buffer (dropped if out of range, which
/// a valid factorization never is).
fn store<S: Scalar>(buf: &mut [S], c: usize, v: Cpx<S>) {
    if let Some([r, i]) = buf.get_mut(2 * c..2 * c + 2) {
        *r = v.r;
        *i = v.i;
    }
}

/// Twiddle `k` of a table section (zero if out of range, which a valid factorization never
/// is).
fn twiddle<S: Scalar>(tw: &[u32], k: usize) -> Cpx<S> {
    k.checked_mul(S::WORDS)
        .and_then(|at| tw.get(at..at + S::WORDS))
        .map_or(Cpx::default(), S::from_words)
}

/// `C_MUL(m, a, b)`.
fn c_mul<S: Scalar>(a: Cpx<S>, b: Cpx<S>) -> Cpx<S> {
    Cpx {
        r: S::mul_sub(a.r, b.r, a.i, b.i),
        i: S::mul_add(a.r, b.i, a.i, b.r),
    }
}

/// `C_FIXDIV(c, div)`: each part `DIVSCALAR`.
fn c_fixdiv<S: Scalar>(c: Cpx<S>, div: i32) -> Cpx<S> {
    Cpx {
        r: c.r.fixdiv(div),
        i: c.i.fixdiv(div),
    }
}

/// `C_ADD(res, a, b)`.
fn c_add<S: Scalar>(a: Cpx<S>, b: Cpx<S>) -> Cpx<S> {
    Cpx {
        r: a.r.add(b.r),
        i: a.i.add(b.i),
    }
}

/// `C_SUB(res, a, b)`.
fn c_sub<S: Scalar>(a: Cpx<S>, b: Cpx<S>) -> Cpx<S> {
    Cpx {
        r: a.r.sub(b.r),
        i: a.i.sub(b.i),
    }
}

/// `kf_cexp(x, phase)`: `KISS_FFT_COS(phase)` and `KISS_FFT_SIN(phase)`.
fn kf_cexp<S: Scalar>(phase: f64) -> Cpx<S> {
    Cpx {
        r: S::from_trig(cos_f64(phase)),
        i: S::from_trig(sin_f64(phase)),
    }
}

/// `(int32_t) floor(v)` for `v` in `[-2^31, 2^31)` (every fixed-point twiddle:
/// `|v| <= SAMP_MAX + 0.5`).
fn floor_to_i32(v: f64) -> i32 {
    let t = v as i64;
    let t = if (t as f64) > v { t - 1 } else { t };
    t as i32
}

/// `1.5 / DBL_EPSILON`: adding and subtracting it rounds to an integer.
const TOINT: f64 = 6_755_399_441_055_744.0;
/// `pi/4`.
const PIO4: f64 = f64::from_bits(0x3FE9_21FB_5444_2D18);
/// `2/pi`.
const INVPIO2: f64 = f64::from_bits(0x3FE4_5F30_6DC9_C883);
/// First 33 bits of `pi/2`.
const PIO2_1: f64 = f64::from_bits(0x3FF9_21FB_5440_0000);
/// `pi/2 - PIO2_1`.
const PIO2_1T: f64 = f64::from_bits(0x3DD0_B461_1A62_6331);
/// Second 33 bits of `pi/2`.
const PIO2_2: f64 = f64::from_bits(0x3DD0_B461_1A60_0000);
/// `pi/2 - (PIO2_1 + PIO2_2)`.
const PIO2_2T: f64 = f64::from_bits(0x3BA3_198A_2E03_7073);
/// Third 33 bits of `pi/2`.
const PIO2_3: f64 = f64::from_bits(0x3BA3_198A_2E00_0000);
/// `pi/2 - (PIO2_1 + PIO2_2 + PIO2_3)`.
const PIO2_3T: f64 = f64::from_bits(0x397B_839A_2520_49C1);

/// The high 32 bits of `x`'s representation without the sign.
fn high_word_abs(x: f64) -> u32 {
    ((x.to_bits() >> 32) as u32) & 0x7FFF_FFFF
}

/// musl's `__rem_pio2` (its medium path, exact for `|x| < 2^20 * pi/2`: every kissfft phase
/// is below 2*pi): `x = n * pi/2 + (y0 + y1)` with `|y0 + y1| <= pi/4`; returns
/// `(n, y0, y1)`.
fn rem_pio2(x: f64) -> (i32, f64, f64) {
    let ex = (high_word_abs(x) >> 20) as i32;
    let mut fnv = x * INVPIO2 + TOINT - TOINT;
    let mut n = fnv as i32;
    let mut r = x - fnv * PIO2_1;
    let mut w = fnv * PIO2_1T;
    if r - w < -PIO4 {
        n -= 1;
        fnv -= 1.0;
        r = x - fnv * PIO2_1;
        w = fnv * PIO2_1T;
    } else if r - w > PIO4 {
        n += 1;
        fnv += 1.0;
        r = x - fnv * PIO2_1;
        w = fnv * PIO2_1T;
    }
    let mut y0 = r - w;
    let ey = ((y0.to_bits() >> 52) & 0x7FF) as i32;
    if ex - ey > 16 {
        let t = r;
        w = fnv * PIO2_2;
        r = t - w;
        w = fnv * PIO2_2T - ((t - r) - w);
        y0 = r - w;
        let ey = ((y0.to_bits() >> 52) & 0x7FF) as i32;
        if ex - ey > 49 {
            let t = r;
            w = fnv * PIO2_3;
            r = t - w;
            w = fnv * PIO2_3T - ((t - r) - w);
            y0 = r - w;
        }
    }
    let y1 = (r - y0) - w;
    (n, y0, y1)
}

/// musl's `__cos(x, y)`: `cos(x + y)` for `|x + y| <= pi/4`, `|y|` tiny.
fn k_cos(x: f64, y: f64) -> f64 {
    const C1: f64 = f64::from_bits(0x3FA5_5555_5555_554C);
    const C2: f64 = f64::from_bits(0xBF56_C16C_16C1_5177);
    const C3: f64 = f64::from_bits(0x3EFA_01A0_19CB_1590);
    const C4: f64 = f64::from_bits(0xBE92_7E4F_809C_52AD);
    const C5: f64 = f64::from_bits(0x3E21_EE9E_BDB4_B1C4);
    const C6: f64 = f64::from_bits(0xBDA8_FAE9_BE88_38D4);
    let z = x * x;
    let w = z * z;
    let r = z * (C1 + z * (C2 + z * C3)) + w * w * (C4 + z * (C5 + z * C6));
    let hz = 0.5 * z;
    let w = 1.0 - hz;
    w + (((1.0 - w) - hz) + (z * r - x * y))
}

/// musl's `__sin(x, y, iy)`: `sin(x + y)` for `|x + y| <= pi/4`, `y` used if `iy`.
fn k_sin(x: f64, y: f64, iy: bool) -> f64 {
    const S1: f64 = f64::from_bits(0xBFC5_5555_5555_5549);
    const S2: f64 = f64::from_bits(0x3F81_1111_1110_F8A6);
    const S3: f64 = f64::from_bits(0xBF2A_01A0_19C1_61D5);
    const S4: f64 = f64::from_bits(0x3EC7_1DE3_57B1_FE7D);
    const S5: f64 = f64::from_bits(0xBE5A_E5E6_8A2B_9CEB);
    const S6: f64 = f64::from_bits(0x3DE5_D93A_5ACF_D57C);
    let z = x * x;
    let w = z * z;
    let r = S2 + z * (S3 + z * S4) + z * w * (S5 + z * S6);
    let v = z * x;
    if iy {
        x - ((z * (0.5 * y - v * r) - y) - v * S1)
    } else {
        x + v * (S1 + z * r)
    }
}

/// musl's `cos` for `|x| < 2^20 * pi/2`.
fn cos_f64(x: f64) -> f64 {
    let ix = high_word_abs(x);
    if ix <= 0x3FE9_21FB {
        if ix < 0x3E46_A09E {
            return 1.0;
        }
        return k_cos(x, 0.0);
    }
    let (n, y0, y1) = rem_pio2(x);
    match n & 3 {
        0 => k_cos(y0, y1),
        1 => -k_sin(y0, y1, true),
        2 => -k_cos(y0, y1),
        _ => k_sin(y0, y1, true),
    }
}

/// musl's `sin` for `|x| < 2^20 * pi/2`.
fn sin_f64(x: f64) -> f64 {
    let ix = high_word_abs(x);
    if ix <= 0x3FE9_21FB {
        if ix < 0x3E50_0000 {
            return x;
        }
        return k_sin(x, 0.0, false);
    }
    let (n, y0, y1) = rem_pio2(x);
    match n & 3 {
        0 => k_sin(y0, y1, true),
        1 => k_cos(y0, y1),
        2 => -k_sin(y0, y1, true),
        _ => -k_cos(y0, y1),
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use std::vec;
    use std::vec::Vec;

    /// xorshift32.
    fn xorshift(s: &mut u32) -> u32 {
        *s ^= *s << 13;
        *s ^= *s >> 17;
        *s ^= *s << 5;
        *s
    }

    /// The int16 forward tables of a supported length.
    fn tables16(fft_length: usize) -> Vec<u32> {
        let mut t = vec![0; rfft_table_words(fft_length).unwrap()];
        rfft_tables(fft_length, &mut t).unwrap();
        t
    }

    /// The tables of `S` of a supported length, `inverse` or forward.
    fn tables_of<S: Scalar>(fft_length: usize, inverse: bool) -> Vec<u32> {
        let mut t = vec![0; table_words::<S>(fft_length).unwrap()];
        tables::<S>(fft_length, inverse, &mut t).unwrap();
        t
    }

    /// One row of `input_length` xorshift samples through the RFFT.
    fn run(fft_length: usize, input_length: usize, seed: u32) -> Vec<i16> {
        let mut s = seed;
        let input: Vec<i16> = (0..input_length)
            .map(|_| xorshift(&mut s) as u16 as i16)
            .collect();
        let mut output = vec![0; fft_length + 2];
        let mut scratch = vec![0; rfft_scratch_elems(fft_length)];
        rfft_i16(
            fft_length,
            &tables16(fft_length),
            input_length,
            &input,
            &mut output,
            &mut scratch,
        )
        .unwrap();
        output
    }

    /// FNV-1a over the little-endian bytes of `v`.
    fn fnv1a(v: &[i16]) -> u32 {
        let mut h: u32 = 0x811C_9DC5;
        for b in v.iter().flat_map(|x| x.to_le_bytes()) {
            h ^= u32::from(b);
            h = h.wrapping_mul(0x0100_0193);
        }
        h
    }

    /// The C formula with the host's libm.
    fn cexp_std(phase: f64) -> Cpx<i16> {
        Cpx {
            r: (0.5 + 32767.0 * phase.cos()).floor() as i16,
            i: (0.5 + 32767.0 * phase.sin()).floor() as i16,
        }
    }

    #[test]
    fn twiddles_equal_libm() {
        let pi = core::f64::consts::PI;
        let mut lengths = 0;
        for fft_length in 2..=MAX_FFT_LENGTH {
            if !rfft_supported(fft_length) {
                continue;
            }
            lengths += 1;
            let t = tables16(fft_length);
            let nfft = fft_length / 2;
            let count = t[0] as usize;
            let (tw, sup) = t[1 + count..].split_at(nfft);
            assert_eq!(sup.len(), nfft / 2);
            for (i, &w) in tw.iter().enumerate() {
                let phase = -2.0 * pi * (i as f64) / (nfft as f64);
                assert_eq!(
                    w,
                    i16::word(cexp_std(phase), 0),
                    "fft {fft_length} twiddle {i}"
                );
            }
            for (i, &w) in sup.iter().enumerate() {
                let phase = -pi * (((i + 1) as f64) / (nfft as f64) + 0.5);
                assert_eq!(
                    w,
                    i16::word(cexp_std(phase), 0),
                    "fft {fft_length} super {i}"
                );
            }
        }
        assert!(lengths > 50);
    }

    #[test]
    fn table_words_one_at_a_time() {
        for fft_length in [4usize, 12, 30, 512, 4096] {
            let n = rfft_table_words(fft_length).unwrap();
            let mut all = std::vec![0u32; n];
            rfft_tables(fft_length, &mut all).unwrap();
            for (c, &w) in all.iter().enumerate() {
                assert_eq!(
                    rfft_table_word(fft_length, c),
                    Some(w),
                    "{fft_length} word {c}"
                );
            }
            assert_eq!(rfft_table_word(fft_length, n), None);
        }
        assert_eq!(rfft_table_word(2, 0), None);
    }

    #[test]
    fn supported_lengths() {
        assert!(!rfft_supported(2));
        assert!(rfft_supported(512));
        assert!(rfft_supported(4096));
        assert!(rfft_supported(30));
        assert!(!rfft_supported(0));
        assert!(!rfft_supported(1));
        assert!(!rfft_supported(14));
        assert!(!rfft_supported(8192));
        assert!(!rfft_supported(513));
        assert_eq!(rfft_table_words(512), Some(1 + 4 + 256 + 128));
        assert_eq!(rfft_scratch_elems(512), 1024);
        assert_eq!(rfft_scratch_elems(14), 0);
    }

    #[test]
    fn golden_16() {
        assert_eq!(run(16, 16, 0x1234_5678), GOLDEN_16);
        assert_eq!(run(16, 10, 0x0BAD_F00D), GOLDEN_16_PADDED);
    }

    #[test]
    fn golden_512() {
        let out = run(512, 480, 0xC0FF_EE01);
        assert_eq!(out.len(), 514);
        assert_eq!(out[..16], GOLDEN_512_HEAD);
        assert_eq!(fnv1a(&out), GOLDEN_512_FNV);
    }

    #[test]
    fn length_errors() {
        let t = tables16(16);
        let input = [1000i16; 32];
        let mut out = [0i16; 36];
        let mut scratch = [0i16; 32];
        assert!(rfft_i16(16, &t, 16, &input, &mut out, &mut scratch).is_ok());
        assert!(rfft_i16(16, &t, 16, &input, &mut out[..35], &mut scratch).is_err());
        assert!(rfft_i16(16, &t, 16, &input, &mut out[..32], &mut scratch).is_err());
        assert!(rfft_i16(16, &t, 16, &input, &mut out, &mut scratch[..31]).is_err());
        assert!(rfft_i16(16, &t[..t.len() - 1], 16, &input, &mut out, &mut scratch).is_err());
        assert!(rfft_i16(16, &tables16(32), 16, &input, &mut out, &mut scratch).is_err());
        let mut bad = t.clone();
        bad[1] ^= 1;
        assert!(rfft_i16(16, &bad, 16, &input, &mut out, &mut scratch).is_err());
        assert!(rfft_i16(16, &t, 0, &input, &mut out, &mut scratch).is_err());
        assert!(rfft_i16(16, &t, 17, &input[..17], &mut out, &mut scratch).is_err());
        assert!(rfft_i16(16, &t, 16, &input[..31], &mut out, &mut scratch).is_err());
        assert!(rfft_i16(14, &t, 14, &input[..28], &mut out, &mut scratch).is_err());
        assert!(rfft_i16(16, &t, 16, &[], &mut [], &mut scratch).is_ok());
        assert!(rfft_i16(16, &t, 16, &[], &mut out, &mut scratch).is_err());
        assert!(rfft_tables(16, &mut [0; 3]).is_none());
        assert!(rfft_tables(14, &mut [0; 3]).is_none());
        assert_eq!(rfft_table_words(14), None);
    }

    #[test]
    fn garbage_tables_never_panic() {
        let mut s = 7;
        for fft_length in [6usize, 16, 30, 100, 512] {
            let mut t = tables16(fft_length);
            let count = t[0] as usize;
            for w in &mut t[1 + count..] {
                *w = xorshift(&mut s);
            }
            let input: Vec<i16> = (0..fft_length).map(|_| xorshift(&mut s) as i16).collect();
            let mut out = vec![0; fft_length + 2];
            let mut scratch = vec![0; 2 * fft_length];
            rfft_i16(fft_length, &t, fft_length, &input, &mut out, &mut scratch).unwrap();
        }
    }

    /// Every int32 and float32 twiddle (both directions) and every inverse int16 twiddle is
    /// the C formula with the host's libm (glibc's `cos`/`sin`, the wheel's). Only on
    /// x86-64, the wheel's platform.
    #[test]
    #[cfg_attr(not(target_arch = "x86_64"), ignore)]
    fn every_type_twiddles_equal_libm() {
        let pi = core::f64::consts::PI;
        for fft_length in (4..=MAX_FFT_LENGTH).step_by(2) {
            if !rfft_supported(fft_length) {
                continue;
            }
            let nfft = fft_length / 2;
            let phases: Vec<f64> = (0..nfft)
                .map(|i| -2.0 * pi * (i as f64) / (nfft as f64))
                .chain((0..nfft / 2).map(|i| -pi * (((i + 1) as f64) / (nfft as f64) + 0.5)))
                .collect();
            for inverse in [false, true] {
                let sign = if inverse { -1.0 } else { 1.0 };
                let t16 = tables_of::<i16>(fft_length, inverse);
                let t32 = tables_of::<i32>(fft_length, inverse);
                let tf = tables_of::<f32>(fft_length, inverse);
                let count = t16[0] as usize;
                for (k, &p) in phases.iter().enumerate() {
                    let p = p * sign;
                    let w16 = t16[1 + count + k];
                    assert_eq!(w16, i16::word(cexp_std(p), 0), "{fft_length} {inverse} {k}");
                    let c32 = [
                        (0.5 + 2_147_483_647.0 * p.cos()).floor() as i32 as u32,
                        (0.5 + 2_147_483_647.0 * p.sin()).floor() as i32 as u32,
                    ];
                    assert_eq!(t32[1 + count + 2 * k..][..2], c32, "{fft_length} {k}");
                    let cf = [(p.cos() as f32).to_bits(), (p.sin() as f32).to_bits()];
                    assert_eq!(tf[1 + count + 2 * k..][..2], cf, "{fft_length} {k}");
                }
            }
        }
    }

    /// `n` xorshift values of `S`.
    fn samples<S>(n: usize, seed: u32, f: impl Fn(u32) -> S) -> Vec<S> {
        let mut s = seed;
        (0..n).map(|_| f(xorshift(&mut s))).collect()
    }

    /// Rows of `fft_length` samples through the forward then the inverse transform.
    fn round_trip<S: Scalar>(fft_length: usize, rows: usize, x: &[S]) -> Vec<S> {
        let bins = fft_length / 2 + 1;
        let mut spectrum = vec![S::default(); rows * 2 * bins];
        let mut scratch = vec![S::default(); rfft_scratch_elems(fft_length)];
        let fwd = tables_of::<S>(fft_length, false);
        rfft(fft_length, &fwd, fft_length, x, &mut spectrum, &mut scratch).unwrap();
        let inv = tables_of::<S>(fft_length, true);
        let mut y = vec![S::default(); rows * fft_length];
        irfft(fft_length, &inv, bins, &spectrum, &mut y, &mut scratch).unwrap();
        y
    }

    /// The inverse undoes the forward transform: float up to rounding; fixed point scaled by
    /// `1 / fft_length` (kissfft's fixed point scales each direction by `1 / fft_length`),
    /// up to its rounding.
    #[test]
    fn inverse_undoes_forward() {
        for fft_length in [4usize, 6, 16, 30, 40, 60, 100, 512, 4096] {
            let rows = 3;
            let n = rows * fft_length;
            let x = samples(n, 11, |v| (v as i32 as f32) / 2.0e8);
            let y = round_trip::<f32>(fft_length, rows, &x);
            for (a, b) in x.iter().zip(&y) {
                assert!((a - b).abs() < 1e-4, "{fft_length}: {a} {b}");
            }
            let x = samples(n, 12, |v| (v as i32) >> 6);
            let y = round_trip::<i32>(fft_length, rows, &x);
            for (&a, &b) in x.iter().zip(&y) {
                let want = f64::from(a) / fft_length as f64;
                assert!((want - f64::from(b)).abs() <= 4.0, "{fft_length}: {a} {b}");
            }
            let x = samples(n, 13, |v| (v as i16) >> 1);
            let y = round_trip::<i16>(fft_length, rows, &x);
            for (&a, &b) in x.iter().zip(&y) {
                let want = f64::from(a) / fft_length as f64;
                assert!((want - f64::from(b)).abs() <= 8.0, "{fft_length}: {a} {b}");
            }
        }
    }

    #[test]
    fn inverse_length_errors() {
        let t = tables_of::<f32>(16, true);
        let input = [0.5f32; 2 * 9 * 2];
        let mut out = [0f32; 32];
        let mut scratch = [0f32; 16];
        assert!(irfft(16, &t, 9, &input, &mut out, &mut scratch).is_ok());
        assert!(irfft(16, &t, 8, &input[..32], &mut out, &mut scratch).is_err());
        assert!(irfft(16, &t, 9, &input, &mut out[..31], &mut scratch).is_err());
        assert!(irfft(16, &t, 9, &input[..35], &mut out, &mut scratch).is_err());
        assert!(irfft(16, &t, 9, &input, &mut out, &mut scratch[..15]).is_err());
        assert!(irfft(16, &t[..t.len() - 1], 9, &input, &mut out, &mut scratch).is_err());
        assert!(irfft(14, &t, 9, &input, &mut out, &mut scratch).is_err());
        assert!(irfft(16, &t, 0, &input, &mut out, &mut scratch).is_err());
        assert!(irfft(16, &t, 18, &input, &mut out[..16], &mut scratch).is_ok());
        assert!(irfft(16, &t, 9, &[], &mut [], &mut scratch).is_ok());
        assert_eq!(irfft_scratch_elems(16), 16);
        assert_eq!(irfft_scratch_elems(14), 0);
        assert_eq!(table_words::<f32>(16), Some(1 + 2 + 2 * 12));
    }

    /// `kiss_fftr` of the C reference (kissfft v130, TFLM patch, `FIXED_POINT=16`) for 16
    /// xorshift samples from seed 0x12345678.
    const GOLDEN_16: [i16; 18] = [
        6723, 0, -6520, 1829, 3971, -1355, 2415, -5184, 3469, -1247, 1888, -958, -1375, -688, 1704,
        99, 5373, 0,
    ];
    /// The same for 10 samples from seed 0x0BADF00D, zero-padded to 16.
    const GOLDEN_16_PADDED: [i16; 18] = [
        986, 0, -571, 242, 4450, 3471, 937, -5481, 96, 2346, -1302, -10, 5588, 2279, -1479, -1487,
        4498, 0,
    ];
    /// The first 16 values of the C reference for 480 samples from seed 0xC0FFEE01,
    /// zero-padded to 512.
    const GOLDEN_512_HEAD: [i16; 16] = [
        -752, 0, -474, 665, 354, 317, -370, -19, -610, 519, -194, -568, -339, -578, 514, 186,
    ];
    /// FNV-1a of all 514 values of that output.
    const GOLDEN_512_FNV: u32 = 0x5DF8_E929;
}
