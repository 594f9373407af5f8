//! ADD, int8, with broadcasting ([`crate::ops::elementwise::binary`]): `reference_integer_ops::AddFunc`
//! prepared by `CalculateOpDataAdd` (`micro/kernels/add_common.cc`): both inputs are shifted
//! left by 20 bits, scaled by `input_scale / (2 * max_input_scale)` (multipliers smaller than
//! one), summed, and scaled by `2 * max_input_scale / (2^20 * output_scale)`, all with the
//! `SmallerThanOneExp` multiply. Float32: [`AddF32`] (`x + y`, clamped). int32 (unquantized):
//! [`AddI32`] (wrapping, no clamp, as TFLM). int16 (16x8 quantization): [`AddI16`], the same
//! arithmetic with a left shift of 15 and the int16 clamp ([`AddI16Params`]), its own kernel
//! (element-wise, in place where an input has the output's shape).

use core::cell::Cell;

use synaptic_tflite::code;

use crate::error::{KernelError, LoadError};
use crate::math::{
    activation_range, activation_range_i8, int8_zero_point,
    quantize_multiplier_smaller_than_one_exp, zero_point_in, Activation, Doubled, QuantParams,
    Requantizer,
};
use crate::ops::common::Int8;
use crate::ops::elementwise::binary::I32Params;
use crate::ops::elementwise::binary::{
    Binary, BinaryF32, BinaryI16, Broadcast, Elementwise, ElementwiseI16,
};
use crate::ops::{Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::ADD];

/// A prepared int8 ADD: made only by [`AddParams::new`] (shapes broadcast and within
/// [`crate::limits::MAX_TENSOR_SIZE`], zero points in int8's range, a non-empty activation range).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AddParams {
    /// The element pairing.
    pub(crate) broadcast: Broadcast,
    /// `-input1_zero_point`.
    pub(crate) input1_offset: i32,
    /// `-input2_zero_point`.
    pub(crate) input2_offset: i32,
    /// `output_zero_point`.
    pub(crate) output_offset: i32,
    /// 20 for int8.
    pub(crate) left_shift: i32,
    /// Input 1 multiplier and shift.
    pub(crate) input1: (i32, i32),
    /// Input 2 multiplier and shift.
    pub(crate) input2: (i32, i32),
    /// Output multiplier and shift.
    pub(crate) output: (i32, i32),
    /// Activation clamp minimum.
    pub(crate) act_min: i32,
    /// Activation clamp maximum.
    pub(crate) act_max: i32,
}

impl AddParams {
    /// Prepares an int8 ADD.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        activation: Activation,
        input1_shape: &[usize],
        input2_shape: &[usize],
        output_shape: &[usize],
        input1: QuantParams,
        input2: QuantParams,
        output: QuantParams,
    ) -> Result<Self, KernelError> {
        // `CalculateOpDataAdd`: the multipliers in double.
        let twice_max_input_scale = 2.0 * f64::from(input1.scale.max(input2.scale));
        let real1 = f64::from(input1.scale) / twice_max_input_scale;
        let real2 = f64::from(input2.scale) / twice_max_input_scale;
        let real_out =
            twice_max_input_scale / (f64::from(1i32 << LEFT_SHIFT) * f64::from(output.scale));
        let shapes = [input1_shape, input2_shape, output_shape];
        let q = [input1, input2, output];
        Self::with_multipliers("ADD", activation, shapes, q, [real1, real2, real_out])
    }

    /// The parameters of ADD or SUB (operator `op`) from the three real multipliers (inputs
    /// 1 and 2, output), each operator computing them its own way.
    pub(crate) fn with_multipliers(
        op: &'static str,
        activation: Activation,
        [input1_shape, input2_shape, output_shape]: [&[usize]; 3],
        [input1, input2, output]: [QuantParams; 3],
        [real1, real2, real_out]: [f64; 3],
    ) -> Result<Self, KernelError> {
        let broadcast = Broadcast::new(op, input1_shape, input2_shape, output_shape)?;
        let (act_min, act_max) = activation_range_i8(op, activation, output)?;
        Ok(AddParams {
            broadcast,
            input1_offset: -int8_zero_point(op, input1)?,
            input2_offset: -int8_zero_point(op, input2)?,
            output_offset: int8_zero_point(op, output)?,
            left_shift: LEFT_SHIFT,
            input1: quantize_multiplier_smaller_than_one_exp(op, real1)?,
            input2: quantize_multiplier_smaller_than_one_exp(op, real2)?,
            output: quantize_multiplier_smaller_than_one_exp(op, real_out)?,
            act_min,
            act_max,
        })
    }
}

/// The left shift of int8 ADD and SUB's inputs (TFLM's `left_shift`, 15 for int16).
pub(crate) const LEFT_SHIFT: i32 = 20;

impl AddParams {
    /// The three `SmallerThanOneExp` multiplies (inputs 1 and 2, output) as [`Requantizer`]s.
    #[inline(always)]
    fn requantizers(&self) -> [Requantizer; 3] {
        [self.input1, self.input2, self.output].map(|(m, s)| Requantizer::new(m, s))
    }

    /// Whether `r` (of [`Self::requantizers`]) take the doubled arithmetic: the doubled
    /// products fit in 32 bits (`Requantizer::apply_doubled`): an offset input is within
    /// ±255, so `2 · v · 2^20` is below 2^29 and each scaled input below 2^28 (a multiplier
    /// is below 2^31); their sum, doubled, below 2^30. Checked, not assumed: otherwise the
    /// general path.
    #[inline(always)]
    fn doubled(&self, r: &[Requantizer; 3]) -> bool {
        (0..=20).contains(&self.left_shift)
            && r.iter().all(|r| !r.can_saturate() && r.left() == 1)
            && [self.input1_offset, self.input2_offset]
                .iter()
                .all(|o| (-256..=256).contains(o))
    }
}

/// ADD's usual int8 case as one loop of its own ([`Elementwise::same`]): operands of one
/// shape, the doubled arithmetic of [`AddParams::values`] (`left_shift` 20, offsets within
/// ±256, no multiplier that saturates) with every constant made once and input `which`'s
/// first: no branch an element (M4 pretrainedResnet_quant: 66 instructions an element in
/// runs of 16 copied through the stack, 51 as one loop, 36 in blocks: [`DoubledAdd::run`]).
#[derive(Debug, Clone, Copy)]
struct DoubledAdd {
    /// `offset · 2^21` and the requantizer of the operand read from the buffer (`mine`),
    /// then of the other.
    mine: (i32, Doubled),
    theirs: (i32, Doubled),
    /// The output's requantizer with its zero point in its rounding constant
    /// ([`Doubled::plus`]).
    out: Doubled,
    lo: i32,
    hi: i32,
}

impl DoubledAdd {
    /// `p`'s loop with input `which` (0 or 1) in the buffer, when the doubled arithmetic
    /// applies (the conditions [`AddParams::values`] checks, the shift exactly 20, the
    /// output zero point foldable). SUB (`SUB`): input 1 in the buffer only (its operands
    /// do not commute).
    fn new<const SUB: bool>(p: &AddParams, which: usize) -> Option<Self> {
        let r = p.requantizers();
        if p.left_shift != 20 || !p.doubled(&r) || which > 1 || (SUB && which != 0) {
            return None;
        }
        let one = (p.input1_offset << 21, r[0].doubled());
        let two = (p.input2_offset << 21, r[1].doubled());
        let (mine, theirs) = if which == 0 { (one, two) } else { (two, one) };
        Some(DoubledAdd {
            mine,
            theirs,
            out: r[2].doubled().plus(p.output_offset)?,
            lo: p.act_min,
            hi: p.act_max,
        })
    }

    /// The loop (ADD is symmetric but for its constants: `mine`'s are input `which`'s; SUB's
    /// `mine` is input 1), in blocks of [`BLOCK`] elements, each block in three passes over a
    /// buffer of its scaled sums on the stack ([`BLOCK`] words): input `mine` scaled, input
    /// `theirs` scaled and combined, the output requantized and clamped. A pass keeps its
    /// few constants in registers (one loop of all three spilled them: M4
    /// pretrainedResnet_quant 51 instructions an element), and the input of the larger
    /// scale (its multiplier one half, [`Doubled::quarter`]) is a shift. Every read of a
    /// block comes before its first write, and the blocks go in the caller's direction: an
    /// in-place run whose element order is safe (each element read before its write) stays
    /// so.
    #[inline(never)]
    fn run<T: Int8, const SUB: bool>(
        self,
        mine: &[Cell<u8>],
        out: &[Cell<u8>],
        theirs: &[T],
        backward: bool,
    ) {
        let n = mine.len().min(out.len()).min(theirs.len());
        let (whole, rest) = (n / BLOCK, n % BLOCK);
        let mut sums = [0i32; BLOCK];
        let mut block = |at: usize, len: usize| {
            if let (Some(sums), Some(mine), Some(out), Some(theirs)) = (
                sums.get_mut(..len),
                mine.get(at..at + len),
                out.get(at..at + len),
                theirs.get(at..at + len),
            ) {
                let byte = |x: &Cell<u8>| i32::from(x.get() as i8);
                scale(sums, mine, byte, self.mine, |_, a| a);
                scale(sums, theirs, |t: &T| t.value(), self.theirs, combine::<SUB>);
                let (d, lo, hi) = (self.out, self.lo, self.hi);
                for (s, o) in sums.iter().zip(out) {
                    o.set(d.apply(*s << 1).max(lo).min(hi) as u8);
                }
            }
        };
        if backward {
            (0..whole)
                .rev()
                .for_each(|b| block(rest + b * BLOCK, BLOCK));
            block(0, rest);
        } else {
            block(0, rest);
            (0..whole).for_each(|b| block(rest + b * BLOCK, BLOCK));
        }
    }
}

/// One pass of [`DoubledAdd::run`]: `sums[j] = with(sums[j], scaled(value(xs[j])))`, the
/// operand's offset (`off`, times 2^21) and requantizer `d` as locals (a shift when
/// [`Doubled::quarter`]).
#[inline(always)]
fn scale<X>(
    sums: &mut [i32],
    xs: &[X],
    value: impl Fn(&X) -> i32,
    (off, d): (i32, Doubled),
    with: impl Fn(i32, i32) -> i32,
) {
    let each = sums.iter_mut().zip(xs);
    if d.quarter() {
        each.for_each(|(s, x)| *s = with(*s, (off + (value(x) << 21)) >> 2));
    } else {
        each.for_each(|(s, x)| *s = with(*s, d.apply(off + (value(x) << 21))));
    }
}

/// The elements of a block of [`DoubledAdd::run`].
const BLOCK: usize = 32;

/// ADD, int8 ([`crate::ops::elementwise::binary::run`]).
pub fn add<A: Int8, B: Int8>(
    p: &AddParams,
    in1: &[A],
    in2: &[B],
    output: &mut [i8],
) -> Result<(), KernelError> {
    crate::ops::elementwise::binary::run(p, in1, in2, output)
}

impl Elementwise for AddParams {
    const NAME: &'static str = "ADD";

    fn broadcast(&self) -> &Broadcast {
        &self.broadcast
    }

    #[inline]
    fn value(&self, x: i32, y: i32) -> i8 {
        (self.values())(x, y)
    }

    #[inline(always)]
    fn same<T: Int8>(
        &self,
        which: usize,
        mine: &[Cell<u8>],
        out: &[Cell<u8>],
        theirs: &[T],
        backward: bool,
    ) -> bool {
        self.same_of::<T, false>(which, mine, out, theirs, backward)
    }

    #[inline(always)]
    fn values(&self) -> impl Fn(i32, i32) -> i8 + '_ {
        self.values_of::<false>()
    }
}

/// The scaled inputs combined: ADD's sum, SUB's difference (`SUB`), wrapping as C's.
#[inline(always)]
fn combine<const SUB: bool>(a: i32, b: i32) -> i32 {
    if SUB {
        a.wrapping_sub(b)
    } else {
        a.wrapping_add(b)
    }
}

impl AddParams {
    /// [`Elementwise::same`] of ADD or SUB (`SUB`).
    #[inline(always)]
    pub(crate) fn same_of<T: Int8, const SUB: bool>(
        &self,
        which: usize,
        mine: &[Cell<u8>],
        out: &[Cell<u8>],
        theirs: &[T],
        backward: bool,
    ) -> bool {
        // Not on Armv6-M: its flash (the micro:bit's all-operator image) keeps the
        // general loop alone.
        if cfg!(synaptic_v6m) {
            return false;
        }
        match DoubledAdd::new::<SUB>(self, which) {
            Some(k) => {
                k.run::<T, SUB>(mine, out, theirs, backward);
                true
            }
            None => false,
        }
    }

    /// [`Elementwise::values`] of ADD or SUB (`SUB`: the scaled inputs subtracted, as
    /// `SubElementwise`): the three `SmallerThanOneExp` multiplies as [`Requantizer`]s (a
    /// shift of at most 0: the same arithmetic), made once: per element two shifts, three
    /// high multiplies and three rounding shifts. The shifted inputs (`±255 · 2^20`) and
    /// their sum or difference never reach `i32::MIN`, so no multiply saturates unless a
    /// multiplier is `i32::MIN` (then the saturating form, decided once).
    #[inline(always)]
    pub(crate) fn values_of<const SUB: bool>(&self) -> impl Fn(i32, i32) -> i8 + '_ {
        let r = self.requantizers();
        let plain = !r.iter().any(Requantizer::can_saturate);
        let doubled = self.doubled(&r);
        let shift = |v: i32| v.wrapping_mul(1i32.wrapping_shl(self.left_shift as u32));
        let (l2, off1, off2) = (self.left_shift + 1, self.input1_offset, self.input2_offset);
        // Their rounding constants made once ([`crate::math::Doubled`]; made for every path,
        // used by the doubled one: the same values).
        // (Armv6-M: `apply_doubled`, the same values in less flash.)
        #[cfg(not(synaptic_v6m))]
        let d = r.map(|r| r.doubled());
        #[cfg(synaptic_v6m)]
        let d = r;
        #[inline(always)]
        move |x, y| {
            if doubled {
                #[cfg(not(synaptic_v6m))]
                let apply = |d: &crate::math::Doubled, v| d.apply(v);
                #[cfg(synaptic_v6m)]
                let apply = |d: &Requantizer, v| d.apply_doubled(v);
                let a = apply(&d[0], (off1 + x) << l2);
                let b = apply(&d[1], (off2 + y) << l2);
                let raw = apply(&d[2], combine::<SUB>(a, b) << 1).wrapping_add(self.output_offset);
                return raw.max(self.act_min).min(self.act_max) as i8;
            }
            let (a, b) = (shift(self.input1_offset + x), shift(self.input2_offset + y));
            let apply = |r: &Requantizer, v| {
                if plain {
                    r.apply_unsaturated(v)
                } else {
                    r.apply(v)
                }
            };
            let sum = combine::<SUB>(apply(&r[0], a), apply(&r[1], b));
            let raw = apply(&r[2], sum).wrapping_add(self.output_offset);
            raw.max(self.act_min).min(self.act_max) as i8
        }
    }
}

pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    if crate::ops::elementwise::binary::is_i16(cx) {
        return prepare_i16(cx);
    }
    let i32 = crate::ops::elementwise::binary::is_i32(cx);
    if i32 || crate::ops::elementwise::binary::is_float(cx) {
        return prepare_wide(cx, i32);
    }
    let (ac, a, b, out) = crate::ops::elementwise::binary::prepare(cx)?;
    // Read where it was returned (not moved out).
    match &AddParams::new(ac, a.shape(), b.shape(), out.shape(), a.q, b.q, out.q) {
        Ok(p) => Prepared::of::<Add>(cx, *p),
        Err(e) => Err(cx.err(*e)),
    }
}

/// ADD of int32 (`i32`) or float32 tensors, in a frame of its own: their parameters are not
/// on the stack under the int8 kernel's (the load's deepest chain).
#[cold]
#[inline(never)]
fn prepare_wide<'m>(cx: &Prep<'_, 'm>, i32: bool) -> Result<Prepared<'m>, LoadError> {
    if i32 {
        // TFLM's int32 ADD clamps to the full range whatever the fused activation.
        let bc = crate::ops::elementwise::binary::prepare_i32(cx)?;
        return Prepared::of::<AddI32>(cx, I32Params::new(bc, None));
    }
    Prepared::of::<AddF32>(cx, crate::ops::elementwise::binary::prepare_f32(cx)?)
}

/// The ADD kernel, int8.
pub type Add = Binary<AddParams>;

crate::format::codec::words!(AddParams {
    broadcast: Broadcast,
    input1_offset: i32,
    input2_offset: i32,
    output_offset: i32,
    left_shift: i32,
    input1: (i32, i32),
    input2: (i32, i32),
    output: (i32, i32),
    act_min: i32,
    act_max: i32,
});

impl crate::ops::elementwise::binary::OpF32 for AddOp {
    const NAME: &'static str = "ADD";
    /// `x + y` (TFLM's reference float ADD; then the clamp).
    #[inline]
    fn value(x: f32, y: f32) -> f32 {
        x + y
    }
}

/// The ADD kernel, float32.
pub type AddF32 = BinaryF32<AddOp>;

/// ADD int32 (unquantized): `reference_ops::Add` on `int32_t`, wrapping.
pub struct AddOp;

impl crate::ops::elementwise::binary::OpI32 for AddOp {
    const NAME: &'static str = "ADD";
    #[inline]
    fn value(x: i32, y: i32) -> Option<i32> {
        Some(x.wrapping_add(y))
    }
}

/// The ADD kernel, int32.
pub type AddI32 = crate::ops::elementwise::binary::BinaryI32<AddOp>;

/// A prepared int16 ADD or SUB (TFLM's 16x8 quantization): the int8 arithmetic with a left
/// shift of 15 (`CalculateOpDataAdd`, `CalculateOpDataSub`: `left_shift` 15 for an int16
/// output) and the int16 clamp, the general path (`AddGeneralParamScale`, `SubElementwise`,
/// `BroadcastAdd6DSlow`, `BroadcastQuantSubSlow`; TFLM micro never takes the power-of-two
/// path `pot_scale`). Made only by [`AddI16Params::new`] and [`SubI16Params::new`](crate::ops::elementwise::sub::SubI16Params::new).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AddI16Params {
    /// The element pairing.
    pub(crate) broadcast: Broadcast,
    /// `-input1_zero_point`.
    pub(crate) input1_offset: i32,
    /// `-input2_zero_point`.
    pub(crate) input2_offset: i32,
    /// `output_zero_point`.
    pub(crate) output_offset: i32,
    /// Input 1 multiplier and shift.
    pub(crate) input1: (i32, i32),
    /// Input 2 multiplier and shift.
    pub(crate) input2: (i32, i32),
    /// Output multiplier and shift.
    pub(crate) output: (i32, i32),
    /// Activation clamp minimum.
    pub(crate) act_min: i32,
    /// Activation clamp maximum.
    pub(crate) act_max: i32,
}

/// The left shift of int16 ADD and SUB's inputs: `65535 · 2^15` fits an `int32`.
pub(crate) const LEFT_SHIFT_I16: i32 = 15;

impl AddI16Params {
    /// Prepares an int16 ADD: the multipliers in double, as [`AddParams::new`]. Refused: an
    /// input zero point outside `-32766..=32766` (TFLM asserts `input_offset` strictly within
    /// ±32767), an output zero point outside int16.
    pub fn new(
        activation: Activation,
        broadcast: Broadcast,
        [input1, input2, output]: [QuantParams; 3],
    ) -> Result<Self, KernelError> {
        let twice_max_input_scale = 2.0 * f64::from(input1.scale.max(input2.scale));
        let real1 = f64::from(input1.scale) / twice_max_input_scale;
        let real2 = f64::from(input2.scale) / twice_max_input_scale;
        let real_out =
            twice_max_input_scale / (f64::from(1i32 << LEFT_SHIFT_I16) * f64::from(output.scale));
        let zp = |q| zero_point_in("ADD", q, -32766, 32766);
        let offsets = [-zp(input1)?, -zp(input2)?];
        Self::with_multipliers(
            "ADD",
            activation,
            broadcast,
            offsets,
            output,
            [real1, real2, real_out],
        )
    }

    /// The parameters of int16 ADD or SUB (operator `op`) from the input offsets, the output
    /// quantization and the three real multipliers (inputs 1 and 2, output).
    pub(crate) fn with_multipliers(
        op: &'static str,
        activation: Activation,
        broadcast: Broadcast,
        [input1_offset, input2_offset]: [i32; 2],
        output: QuantParams,
        [real1, real2, real_out]: [f64; 3],
    ) -> Result<Self, KernelError> {
        let (lo, hi) = (i32::from(i16::MIN), i32::from(i16::MAX));
        let output_offset = zero_point_in(op, output, lo, hi)?;
        let (act_min, act_max) = activation_range(op, activation, output, lo, hi)?;
        Ok(AddI16Params {
            broadcast,
            input1_offset,
            input2_offset,
            output_offset,
            input1: quantize_multiplier_smaller_than_one_exp(op, real1)?,
            input2: quantize_multiplier_smaller_than_one_exp(op, real2)?,
            output: quantize_multiplier_smaller_than_one_exp(op, real_out)?,
            act_min,
            act_max,
        })
    }

    /// One output of ADD or SUB (`SUB`) as a function of the two input values: each offset
    /// input shifted left by 15 and scaled (`MultiplyByQuantizedMultiplierSmallerThanOneExp`),
    /// summed or subtracted (wrapping, as C's), scaled to the output, offset and clamped.
    #[inline(always)]
    pub(crate) fn values_of<const SUB: bool>(&self) -> impl Fn(i32, i32) -> i16 + '_ {
        let r = [self.input1, self.input2, self.output].map(|(m, s)| Requantizer::new(m, s));
        move |x, y| {
            let shift = |v: i32| v.wrapping_mul(1 << LEFT_SHIFT_I16);
            let a = r[0].apply(shift(self.input1_offset + x));
            let b = r[1].apply(shift(self.input2_offset + y));
            let raw = r[2]
                .apply(combine::<SUB>(a, b))
                .wrapping_add(self.output_offset);
            raw.clamp(self.act_min, self.act_max) as i16
        }
    }
}

impl ElementwiseI16 for AddI16Params {
    const NAME: &'static str = "ADD";

    fn broadcast(&self) -> &Broadcast {
        &self.broadcast
    }

    fn values(&self) -> impl Fn(i32, i32) -> i16 + '_ {
        self.values_of::<false>()
    }
}

/// Prepares an int16 ADD, in a frame of its own (as the wide types').
#[cold]
#[inline(never)]
fn prepare_i16<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    let (ac, bc, q) = crate::ops::elementwise::binary::prepare_i16(cx, true)?;
    Prepared::of::<AddI16>(cx, AddI16Params::new(ac, bc, q).map_err(|e| cx.err(e))?)
}

/// The ADD kernel, int16.
pub type AddI16 = BinaryI16<AddI16Params>;

crate::format::codec::words!(AddI16Params {
    broadcast: Broadcast,
    input1_offset: i32,
    input2_offset: i32,
    output_offset: i32,
    input1: (i32, i32),
    input2: (i32, i32),
    output: (i32, i32),
    act_min: i32,
    act_max: i32,
});
