//! What the binary operators share — ADD ([`crate::ops::elementwise::add`]), SUB, MUL
//! ([`crate::ops::elementwise::mul`]), SQUARED_DIFFERENCE, DIV, MINIMUM, MAXIMUM: NumPy-style
//! broadcasting up to 6 dimensions ([`Broadcast`]: the same element pairs as TFLM's
//! `BroadcastBinaryOpSimple`), the kernel written once over the operator's element function
//! (int8: [`Elementwise`], [`Binary`], plain and in place; float32: [`OpF32`], [`BinaryF32`];
//! int32: [`OpI32`], [`BinaryI32`]), and the preparation. Either operand may be an activation
//! or a model constant; the kernels read both as bytes (`Int8` for `u8`: one instantiation,
//! sign-extending loads).

use synaptic_tflite::TensorType;

use core::cell::Cell;
use core::marker::PhantomData;

use crate::contract::{Contract, Direction};
use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::format::codec::Words;
use crate::math::{Activation, QuantParams};
use crate::model::TInfo;
use crate::ops::common::{Int8, MAX_DIMS};
use crate::ops::float::{F32s, FloatRange, LeF32};
use crate::ops::in_place::{check, drive, x8, InPlace};
use crate::ops::{Geometry, InPlaceOperands, Kernel, Operands, Prep};

/// The element pairing of a (possibly broadcast) binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Broadcast {
    /// Output dimensions, left-padded with 1 to [`MAX_DIMS`].
    out: [usize; MAX_DIMS],
    /// Element strides of input 1 per output dimension (0 where it is broadcast).
    stride1: [usize; MAX_DIMS],
    /// Element strides of input 2 per output dimension (0 where it is broadcast).
    stride2: [usize; MAX_DIMS],
    /// Elements of input 1, input 2, output.
    sizes: [usize; 3],
    /// Whether the shapes are equal (a plain element-wise loop).
    same: bool,
}

/// `s` (at most [`MAX_DIMS`] dimensions) left-padded with 1.
fn padded(s: &[usize]) -> [usize; MAX_DIMS] {
    // Element by element (six at most): no `memcpy` call, and its frames, at load.
    let pad = MAX_DIMS - s.len();
    core::array::from_fn(|i| if i < pad { 1 } else { s[i - pad] })
}

fn strides(dims: &[usize; MAX_DIMS], out: &[usize; MAX_DIMS]) -> [usize; MAX_DIMS] {
    let mut st = [0; MAX_DIMS];
    let mut acc = 1;
    for i in (0..MAX_DIMS).rev() {
        st[i] = if dims[i] == 1 && out[i] != 1 { 0 } else { acc };
        acc *= dims[i];
    }
    st
}

impl Broadcast {
    /// The pairing for inputs of shapes `a` and `b` into `out` (checked against NumPy rules).
    /// Built in place (a load's stack holds one pairing, not its parts as well).
    pub fn new(
        op: &'static str,
        a: &[usize],
        b: &[usize],
        out: &[usize],
    ) -> Result<Self, KernelError> {
        let mut bc = Broadcast {
            out: [1; MAX_DIMS],
            stride1: [0; MAX_DIMS],
            stride2: [0; MAX_DIMS],
            sizes: [0; 3],
            same: false,
        };
        // Each shape's rank and size, as `Dims::new` checks them.
        for (k, s) in [a, b, out].into_iter().enumerate() {
            if s.len() > MAX_DIMS {
                return Err(KernelError::unsupported(op, Unsupported::Rank));
            }
            bc.sizes[k] = crate::ops::common::size(op, s)?;
        }
        let (pa, pb) = (padded(a), padded(b));
        bc.out = padded(out);
        for i in 0..MAX_DIMS {
            let want = if pa[i] == 1 {
                pb[i]
            } else if pb[i] == 1 || pb[i] == pa[i] {
                pa[i]
            } else {
                return Err(KernelError::shape(op, ShapeFault::NotBroadcastable));
            };
            if want != bc.out[i] {
                return Err(KernelError::shape(op, ShapeFault::BroadcastShape));
            }
        }
        bc.stride1 = strides(&pa, &bc.out);
        bc.stride2 = strides(&pb, &bc.out);
        // Element by element (an array `==` calls `memcmp`: one more frame under the load).
        bc.same = pa.iter().zip(&pb).all(|(x, y)| x == y);
        Ok(bc)
    }

    /// Elements of input 1, input 2 and the output.
    pub(crate) fn sizes(&self) -> [usize; 3] {
        self.sizes
    }

    /// Whether input `which` (0 or 1) has the output's (padded) shape: its element `j` is the
    /// one output element `j` reads.
    pub(crate) fn full(&self, which: usize) -> bool {
        let st = if which == 0 {
            &self.stride1
        } else {
            &self.stride2
        };
        strides(&self.out, &self.out) == *st
    }

    /// The element of input `which` (0 or 1) that output element `j` reads (the pairing of
    /// [`Self::run`]'s odometer, computed directly).
    pub(crate) fn index(&self, which: usize, mut j: usize) -> usize {
        let st = if which == 0 {
            &self.stride1
        } else {
            &self.stride2
        };
        let mut i = 0;
        for d in (0..MAX_DIMS).rev() {
            let n = self.out[d].max(1);
            i += (j % n) * st[d];
            j /= n;
        }
        i
    }

    /// Calls `f(j, i1, i2)` for every output element `j` in order with the elements of the
    /// two inputs it pairs (the float kernels, which read their operands as bytes).
    #[inline]
    pub(crate) fn for_each_pair(&self, mut f: impl FnMut(usize, usize, usize)) {
        let n = self.sizes[2];
        if self.same {
            (0..n).for_each(|j| f(j, j, j));
            return;
        }
        // One operand a single element, the other the output's shape (a constant operand,
        // the usual broadcast): the same pairs without the odometer.
        if self.sizes[1] == 1 && self.sizes[0] == n && self.full(0) {
            (0..n).for_each(|j| f(j, j, 0));
            return;
        }
        if self.sizes[0] == 1 && self.sizes[1] == n && self.full(1) {
            (0..n).for_each(|j| f(j, 0, j));
            return;
        }
        let mut idx = [0usize; MAX_DIMS];
        let (mut i1, mut i2) = (0usize, 0usize);
        for j in 0..n {
            f(j, i1, i2);
            for d in (0..MAX_DIMS).rev() {
                idx[d] += 1;
                i1 += self.stride1[d];
                i2 += self.stride2[d];
                if idx[d] < self.out[d] {
                    break;
                }
                i1 -= self.stride1[d] * idx[d];
                i2 -= self.stride2[d] * idx[d];
                idx[d] = 0;
            }
        }
    }

    pub(crate) fn run<T: Copy, T2: Copy, U>(
        &self,
        op: &'static str,
        in1: &[T],
        in2: &[T2],
        output: &mut [U],
        f: impl Fn(T, T2) -> U,
    ) -> Result<(), KernelError> {
        KernelError::check_len(op, Operand::Input(0), self.sizes[0], in1.len())?;
        KernelError::check_len(op, Operand::Input(1), self.sizes[1], in2.len())?;
        KernelError::check_len(op, Operand::Output, self.sizes[2], output.len())?;
        if self.same {
            for ((o, &a), &b) in output.iter_mut().zip(in1).zip(in2) {
                *o = f(a, b);
            }
            return Ok(());
        }
        let mut idx = [0usize; MAX_DIMS];
        let (mut i1, mut i2) = (0usize, 0usize);
        for o in output.iter_mut() {
            *o = f(in1[i1], in2[i2]);
            // Odometer increment over the output dimensions, innermost last.
            for d in (0..MAX_DIMS).rev() {
                idx[d] += 1;
                i1 += self.stride1[d];
                i2 += self.stride2[d];
                if idx[d] < self.out[d] {
                    break;
                }
                i1 -= self.stride1[d] * idx[d];
                i2 -= self.stride2[d] * idx[d];
                idx[d] = 0;
            }
        }
        Ok(())
    }
}

/// An element-wise int8 operator of two (possibly broadcast) operands, by its parameters:
/// how one output comes from two input values. ADD, SUB, MUL and SQUARED_DIFFERENCE are this
/// and nothing else.
pub trait Elementwise: Copy {
    /// The operator, as TFLite names it.
    const NAME: &'static str;
    /// The element pairing.
    fn broadcast(&self) -> &Broadcast;
    /// One output from the two input values (input 1's, input 2's).
    fn value(&self, x: i32, y: i32) -> i8;
    /// [`Self::value`] for a whole run: what depends only on the parameters made once (the
    /// kernels call this, then the function per element).
    #[inline(always)]
    fn values(&self) -> impl Fn(i32, i32) -> i8 + '_ {
        move |x, y| self.value(x, y)
    }
    /// Runs the operator on operands of one shape when it has a loop of its own for its
    /// parameters (ADD's usual case): output `out[j]` from `mine[j]` (input `which`, 0 or 1)
    /// and `theirs[j]`, one element a step, descending if `backward`. `false`, nothing
    /// written, otherwise (the general loop runs).
    #[inline(always)]
    fn same<T: Int8>(
        &self,
        _which: usize,
        _mine: &[Cell<u8>],
        _out: &[Cell<u8>],
        _theirs: &[T],
        _backward: bool,
    ) -> bool {
        false
    }
}

/// Runs element-wise operator `p` on its two operands (activations or constants).
pub fn run<P: Elementwise, A: Int8, B: Int8>(
    p: &P,
    in1: &[A],
    in2: &[B],
    output: &mut [i8],
) -> Result<(), KernelError> {
    let f = p.values();
    p.broadcast()
        .run(P::NAME, in1, in2, output, |x, y| f(x.value(), y.value()))
}

/// Runs element-wise operator `p` with its input `which` (0 or 1, of the output's shape) and
/// its output in `buf`; the other input (possibly broadcast) is `other`.
pub fn run_in_place<P: Elementwise, T: Int8>(
    p: &P,
    which: usize,
    other: &[T],
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    let (op, bc) = (P::NAME, p.broadcast());
    if which > 1 || !bc.full(which) {
        return Err(KernelError::unsupported(op, Unsupported::BroadcastOverlap));
    }
    let [n1, n2, n] = bc.sizes();
    let o = 1 - which;
    KernelError::check_len(
        op,
        Operand::Input(o as u8),
        if which == 0 { n2 } else { n1 },
        other.len(),
    )?;
    check(op, || Contract::elementwise(n, 1, 1), buf, &at)?;
    let f = p.values();
    if bc.same {
        // No broadcast: element `j` of both inputs, one element a step in `at.direction`
        // (the contract's order: each read before its write), within the span the contract
        // check bounded (one bounds check for it, none an element: no copies either).
        // The buffer as cells: the input and output spans, which may overlap, side by side.
        let cells = core::cell::Cell::from_mut(buf).as_slice_of_cells();
        let (Some(mine), Some(out)) = (
            cells.get(at.input..at.input + n),
            cells.get(at.output..at.output + n),
        ) else {
            return Err(KernelError::unsupported(op, Unsupported::ProgramMismatch));
        };
        let backward = at.direction == Direction::Backward;
        if p.same(which, mine, out, &other[..n], backward) {
            return Ok(());
        }
        let each = mine.iter().zip(out).zip(&other[..n]);
        let step = |((x, o), t): ((&Cell<u8>, &Cell<u8>), &T)| {
            let (x, t) = (i32::from(x.get() as i8), t.value());
            o.set(if which == 0 { f(x, t) } else { f(t, x) } as u8);
        };
        match at.direction {
            Direction::Forward => each.for_each(step),
            Direction::Backward => each.rev().for_each(step),
        }
        return Ok(());
    }
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

/// The kernel of element-wise operator `P` (ADD is `Binary<AddParams>`).
pub struct Binary<P>(PhantomData<P>);

impl<P: Elementwise + Words> Kernel for Binary<P> {
    const NAME: &'static str = P::NAME;
    const MAX_INPUTS: usize = 2;
    type Params = P;
    // Either operand may be the pair's input; the other is read beside it.
    const PAIR_INPUT: Option<usize> = None;

    #[inline]
    fn run(p: &P, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        // Both operands as bytes (an activation's or a constant's): one instantiation of the
        // kernel, the same sign-extending loads.
        let (a, b) = (io.bytes(0), io.bytes(1));
        run(p, a, b, io.out_i8()?)
    }

    fn contract(p: &P, k: usize, _out: Geometry) -> Option<Contract> {
        contract(p.broadcast(), k)
    }

    fn run_in_place(p: &P, io: &mut InPlaceOperands<'_, '_>) -> Result<usize, KernelError> {
        let k = io.k;
        // The other operand as bytes (an activation's or a constant's), as in `run`.
        let theirs = io.bytes(1 - k.min(1));
        run_in_place(p, k, theirs, io.buf, io.at)?;
        Ok(p.broadcast().sizes()[2])
    }
}

/// An element-wise float32 operator of two (possibly broadcast) operands: TFLM's reference
/// float ADD, SUB, MUL (`Add`, `BroadcastAdd6DSlow`, ...), its one float operation, then the
/// fused activation's clamp ([`F32Params`]).
pub trait OpF32 {
    /// The operator, as TFLite names it.
    const NAME: &'static str;
    /// The operation on the two input values (input 1's, input 2's), before the clamp.
    fn value(x: f32, y: f32) -> f32;
}

/// A prepared float32 element-wise operator: the pairing and the fused activation's range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct F32Params {
    /// The element pairing.
    pub(crate) broadcast: Broadcast,
    /// The fused activation's output range.
    pub(crate) range: FloatRange,
}

crate::format::codec::words!(F32Params {
    broadcast: Broadcast,
    range: FloatRange,
});

/// Runs float element-wise operator `O` on its operands' little-endian float bytes.
pub fn run_f32<O: OpF32>(
    p: &F32Params,
    in1: &[u8],
    in2: &[u8],
    output: &mut [f32],
) -> Result<(), KernelError> {
    let bc = &p.broadcast;
    let [n1, n2, n] = bc.sizes();
    KernelError::check_len(O::NAME, Operand::Input(0), n1, in1.len() / 4)?;
    KernelError::check_len(O::NAME, Operand::Input(1), n2, in2.len() / 4)?;
    KernelError::check_len(O::NAME, Operand::Output, n, output.len())?;
    let (a, b) = (LeF32(in1), LeF32(in2));
    bc.for_each_pair(|j, i1, i2| output[j] = p.range.apply(O::value(a.at(i1), b.at(i2))));
    Ok(())
}

/// The kernel of float element-wise operator `O` (float ADD is `BinaryF32<AddOp>`): either
/// operand may be overlapped by the output where it has the output's shape.
pub struct BinaryF32<O>(PhantomData<O>);

impl<O: OpF32> Kernel for BinaryF32<O> {
    const NAME: &'static str = O::NAME;
    const MAX_INPUTS: usize = 2;
    type Params = F32Params;
    const PAIR_INPUT: Option<usize> = None;

    #[inline]
    fn run(p: &F32Params, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let (a, b) = (io.bytes(0), io.bytes(1));
        run_f32::<O>(p, a, b, io.out_f32()?)
    }

    fn contract(p: &F32Params, k: usize, _out: Geometry) -> Option<Contract> {
        let bc = &p.broadcast;
        (k < 2 && bc.full(k)).then(|| Contract::elementwise(bc.sizes()[2], 4, 4))
    }

    fn run_in_place(p: &F32Params, io: &mut InPlaceOperands<'_, '_>) -> Result<usize, KernelError> {
        let (k, bc) = (io.k, &p.broadcast);
        if k > 1 || !bc.full(k) {
            return Err(KernelError::unsupported(
                O::NAME,
                Unsupported::BroadcastOverlap,
            ));
        }
        let theirs = LeF32(io.bytes(1 - k));
        let [n1, n2, n] = bc.sizes();
        KernelError::check_len(
            O::NAME,
            Operand::Input(1 - k as u8),
            if k == 0 { n2 } else { n1 },
            theirs.count(),
        )?;
        let at = io.at;
        check(O::NAME, || Contract::elementwise(n, 4, 4), io.buf, &at)?;
        drive::<4>(io.buf, at.output, n, at.direction, |buf, j| {
            let mine = LeF32(&buf[at.input..]).at(j);
            let other = theirs.at(bc.index(1 - k, j));
            let v = if k == 0 {
                O::value(mine, other)
            } else {
                O::value(other, mine)
            };
            Ok(p.range.apply(v).to_le_bytes())
        })?;
        Ok(4 * n)
    }
}

/// Prepares a float32 ADD, SUB, MUL or DIV: two float operands (activations or constants), a
/// float output; returns the pairing and the fused activation's range.
pub(crate) fn prepare_f32(cx: &Prep<'_, '_>) -> Result<F32Params, LoadError> {
    let ty = TensorType::Float32;
    let bc = prepare_pairing(cx, ty, TensorTypes::Float32, ty, None)?;
    let ac = cx.activation(cx.op().arithmetic_activation(cx.code())?)?;
    Ok(F32Params {
        broadcast: bc,
        range: FloatRange::new(ac),
    })
}

/// Whether the operator's first input is float32 and this build has the float kernels (the
/// float kernel then prepares it).
pub(crate) fn is_float(cx: &Prep<'_, '_>) -> bool {
    crate::ops::float::BUILT && cx.input_ty(0) == Some(TensorType::Float32)
}

/// The access contract of a binary operator for its input `k`: element-wise when that input
/// has the output's shape (no broadcasting on it).
pub(crate) fn contract(bc: &Broadcast, k: usize) -> Option<Contract> {
    (k < 2 && bc.full(k)).then(|| Contract::elementwise(bc.sizes()[2], 1, 1))
}

/// Prepares an int8 binary operator (ADD, SUB, MUL, SQUARED_DIFFERENCE): two int8 operands
/// (activations or constants), an int8 output, all quantized; returns the fused activation
/// and the three tensors.
pub(crate) fn prepare<'a, 'm>(
    cx: &Prep<'a, 'm>,
) -> Result<(Activation, &'a TInfo<'m>, &'a TInfo<'m>, &'a TInfo<'m>), LoadError> {
    cx.inputs(2, 2)?;
    let (a, b, out) = (cx.input_ref(0)?, cx.input_ref(1)?, cx.output_ref()?);
    for (k, t) in [a, b].into_iter().enumerate() {
        if t.ty != TensorType::Int8 {
            return Err(cx.unsupported(Unsupported::TensorType {
                operand: Operand::Input(k as u8),
                expected: TensorTypes::Int8,
            }));
        }
        if !t.data.is_empty() {
            cx.constant(t, Operand::Input(k as u8))?;
        }
    }
    cx.int8_activation(out, Operand::Output)?;
    cx.quantized(&[a, b, out])?;
    let ac = cx.activation(cx.op().arithmetic_activation(cx.code())?)?;
    Ok((ac, a, b, out))
}

// The program's word codec of the pairing (`crate::format::codec`).
crate::format::codec::words!(Broadcast {
    out: [usize; MAX_DIMS],
    stride1: [usize; MAX_DIMS],
    stride2: [usize; MAX_DIMS],
    sizes: [usize; 3],
    same: bool,
});

/// An element-wise int32 operator of two (possibly broadcast) operands, unquantized: TFLM's
/// reference `Add`, `Mul`, `Div`, `Maximum`, `Minimum` on `int32_t` (one integer operation, then
/// the activation's clamp). C's signed overflow wraps here (TFLM's is undefined; the
/// two's-complement result every compiler gives).
pub trait OpI32 {
    /// The operator, as TFLite names it.
    const NAME: &'static str;
    /// One output from the two input values (`None`: a division by zero).
    fn value(x: i32, y: i32) -> Option<i32>;
}

/// A prepared int32 element-wise operator: the pairing and the clamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct I32Params {
    /// The element pairing.
    pub(crate) broadcast: Broadcast,
    /// The lowest output.
    pub(crate) min: i32,
    /// The highest output.
    pub(crate) max: i32,
}

impl I32Params {
    /// The range of `activation` for int32 (TFLM's `CalculateActivationRange<int32_t>`);
    /// `None`: the full range (ADD int32, MINIMUM, MAXIMUM: no activation).
    pub fn new(broadcast: Broadcast, activation: Option<Activation>) -> Self {
        let (min, max) = match activation {
            None | Some(Activation::None) => (i32::MIN, i32::MAX),
            Some(Activation::Relu) => (0, i32::MAX),
            Some(Activation::Relu6) => (0, 6),
            Some(Activation::ReluN1To1) => (-1, 1),
        };
        I32Params {
            broadcast,
            min,
            max,
        }
    }
}

/// An int32 operator as [`run_i32`] takes it: its name and [`OpI32::value`].
pub type I32Op = (&'static str, fn(i32, i32) -> Option<i32>);

/// Runs int32 operator `op` (`value`: [`OpI32::value`]) on its operands' native-endian int32
/// bytes: one loop for every int32 operator (not inlined: one copy in an image).
#[inline(never)]
pub fn run_i32(
    (op, value): I32Op,
    p: &I32Params,
    in1: &[u8],
    in2: &[u8],
    output: &mut [i32],
) -> Result<(), KernelError> {
    let bc = &p.broadcast;
    let [n1, n2, n] = bc.sizes();
    KernelError::check_len(op, Operand::Input(0), n1, in1.len() / 4)?;
    KernelError::check_len(op, Operand::Input(1), n2, in2.len() / 4)?;
    KernelError::check_len(op, Operand::Output, n, output.len())?;
    // In range: the lengths were checked above (one bounds check per read).
    let at = |b: &[u8], i: usize| match b.get(4 * i..4 * i + 4) {
        Some(&[a, b, c, d]) => i32::from_ne_bytes([a, b, c, d]),
        _ => 0,
    };
    let mut zero = false;
    bc.for_each_pair(|j, i1, i2| match value(at(in1, i1), at(in2, i2)) {
        Some(v) => output[j] = v.clamp(p.min, p.max),
        None => zero = true,
    });
    if zero {
        return Err(KernelError::unsupported(op, Unsupported::DivisionByZero));
    }
    Ok(())
}

/// The kernel of int32 element-wise operator `P` (`BinaryI32<AddOp>` is ADD int32).
pub struct BinaryI32<P>(PhantomData<P>);

impl<P: OpI32> Kernel for BinaryI32<P> {
    const NAME: &'static str = P::NAME;
    const MAX_INPUTS: usize = 2;
    type Params = I32Params;

    #[inline]
    fn run(p: &I32Params, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let (a, b) = (io.bytes(0), io.bytes(1));
        run_i32((P::NAME, P::value), p, a, b, io.out_i32()?)
    }
}

/// Prepares an int32 element-wise operator: two int32 operands (activations or constants,
/// unquantized as TFLM requires), an int32 output; returns the pairing.
pub(crate) fn prepare_i32(cx: &Prep<'_, '_>) -> Result<Broadcast, LoadError> {
    prepare_pairing(
        cx,
        TensorType::Int32,
        TensorTypes::Int32,
        TensorType::Int32,
        None,
    )
}

/// Prepares a binary operator of two inputs of type `ty` (`expected`, in a refusal), either
/// a constant, and an output of type `out`: their pairing. `max_rank`: the most dimensions a
/// broadcast (inputs of different shapes) takes where TFLM's kernel has a fixed-rank slow path
/// (4 for the comparisons and logical operators); `None`: [`Broadcast`]'s own bound.
pub(crate) fn prepare_pairing(
    cx: &Prep<'_, '_>,
    ty: TensorType,
    expected: TensorTypes,
    out: TensorType,
    max_rank: Option<usize>,
) -> Result<Broadcast, LoadError> {
    cx.inputs(2, 2)?;
    let (a, b, o) = (cx.input_ref(0)?, cx.input_ref(1)?, cx.output_ref()?);
    for (k, t) in [a, b].into_iter().enumerate() {
        if t.ty != ty {
            return Err(cx.unsupported(Unsupported::TensorType {
                operand: Operand::Input(k as u8),
                expected,
            }));
        }
        if !t.data.is_empty() {
            cx.constant(t, Operand::Input(k as u8))?;
        }
    }
    cx.activation_of(o, Operand::Output, out)?;
    if let Some(most) = max_rank {
        if a.shape() != b.shape() && a.shape().len().max(b.shape().len()) > most {
            return Err(cx.unsupported(Unsupported::Rank));
        }
    }
    Broadcast::new(cx.name(), a.shape(), b.shape(), o.shape()).map_err(|e| cx.err(e))
}

/// Whether the operator's output is int32 (the int32 kernel then prepares it).
pub(crate) fn is_i32(cx: &Prep<'_, '_>) -> bool {
    cx.output_ty() == Some(TensorType::Int32)
}

// The program's word codec of the int32 parameters.
crate::format::codec::words!(I32Params {
    broadcast: Broadcast,
    min: i32,
    max: i32,
});

/// An element-wise int16 operator of two (possibly broadcast) operands (ADD, SUB, MUL,
/// SQUARED_DIFFERENCE of TFLM's 16x8 quantization): how one output comes from two input
/// values. Its kernel is [`BinaryI16`]; the int8 kernels ([`Elementwise`]) are apart.
pub trait ElementwiseI16: Copy {
    /// The operator, as TFLite names it.
    const NAME: &'static str;
    /// The element pairing.
    fn broadcast(&self) -> &Broadcast;
    /// One output from the two input values (input 1's, input 2's), what depends only on the
    /// parameters made once (the kernels call this, then the function per element).
    fn values(&self) -> impl Fn(i32, i32) -> i16 + '_;
}

/// Element `i` of little-endian int16 bytes `b` (0 past their end: the lengths are checked
/// before).
#[inline(always)]
fn le16(b: &[u8], i: usize) -> i32 {
    match b.get(2 * i..2 * i + 2) {
        Some(&[x, y]) => i32::from(i16::from_le_bytes([x, y])),
        _ => 0,
    }
}

/// Runs int16 element-wise operator `p` on its operands' little-endian int16 bytes
/// (activations or constants) into `output`.
pub fn run_i16<P: ElementwiseI16>(
    p: &P,
    in1: &[u8],
    in2: &[u8],
    output: &mut [i16],
) -> Result<(), KernelError> {
    let bc = p.broadcast();
    let [n1, n2, n] = bc.sizes();
    KernelError::check_len(P::NAME, Operand::Input(0), n1, in1.len() / 2)?;
    KernelError::check_len(P::NAME, Operand::Input(1), n2, in2.len() / 2)?;
    KernelError::check_len(P::NAME, Operand::Output, n, output.len())?;
    let f = p.values();
    bc.for_each_pair(|j, i1, i2| output[j] = f(le16(in1, i1), le16(in2, i2)));
    Ok(())
}

/// The kernel of int16 element-wise operator `P` (int16 ADD is `BinaryI16<AddI16Params>`):
/// either operand may be overlapped by the output where it has the output's shape.
pub struct BinaryI16<P>(PhantomData<P>);

impl<P: ElementwiseI16 + Words> Kernel for BinaryI16<P> {
    const NAME: &'static str = P::NAME;
    const MAX_INPUTS: usize = 2;
    type Params = P;
    const PAIR_INPUT: Option<usize> = None;

    fn run(p: &P, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let (a, b) = (io.bytes(0), io.bytes(1));
        run_i16(p, a, b, io.out_i16()?)
    }

    fn contract(p: &P, k: usize, _out: Geometry) -> Option<Contract> {
        let bc = p.broadcast();
        (k < 2 && bc.full(k)).then(|| Contract::elementwise(bc.sizes()[2], 2, 2))
    }

    fn run_in_place(p: &P, io: &mut InPlaceOperands<'_, '_>) -> Result<usize, KernelError> {
        let (k, bc) = (io.k, p.broadcast());
        if k > 1 || !bc.full(k) {
            return Err(KernelError::unsupported(
                P::NAME,
                Unsupported::BroadcastOverlap,
            ));
        }
        let theirs = io.bytes(1 - k);
        let [n1, n2, n] = bc.sizes();
        KernelError::check_len(
            P::NAME,
            Operand::Input(1 - k as u8),
            if k == 0 { n2 } else { n1 },
            theirs.len() / 2,
        )?;
        let at = io.at;
        check(P::NAME, || Contract::elementwise(n, 2, 2), io.buf, &at)?;
        let f = p.values();
        drive::<2>(io.buf, at.output, n, at.direction, |buf, j| {
            let mine = le16(&buf[at.input..], j);
            let other = le16(theirs, bc.index(1 - k, j));
            let v = if k == 0 {
                f(mine, other)
            } else {
                f(other, mine)
            };
            Ok(v.to_le_bytes())
        })?;
        Ok(2 * n)
    }
}

/// Prepares an int16 binary operator (ADD, SUB, MUL, SQUARED_DIFFERENCE): two int16 operands
/// (activations or constants), an int16 output, all quantized; returns the fused activation
/// (`None` without options: SQUARED_DIFFERENCE), the pairing and the three quantizations.
pub(crate) fn prepare_i16(
    cx: &Prep<'_, '_>,
    with_activation: bool,
) -> Result<(Activation, Broadcast, [QuantParams; 3]), LoadError> {
    let ty = TensorType::Int16;
    let bc = prepare_pairing(cx, ty, TensorTypes::Int16, ty, None)?;
    let (a, b, o) = (cx.input_ref(0)?, cx.input_ref(1)?, cx.output_ref()?);
    cx.quantized(&[a, b, o])?;
    let ac = if with_activation {
        cx.activation(cx.op().arithmetic_activation(cx.code())?)?
    } else {
        Activation::None
    };
    Ok((ac, bc, [a.q, b.q, o.q]))
}

/// Whether the operator's first input is int16 (the int16 kernel then prepares it).
pub(crate) fn is_i16(cx: &Prep<'_, '_>) -> bool {
    cx.input_ty(0) == Some(TensorType::Int16)
}

#[cfg(test)]
mod i16_tests {
    use super::*;
    use crate::ops::elementwise::add::AddI16Params;
    use crate::ops::elementwise::mul::MulI16Params;
    use crate::ops::elementwise::squared_difference::SquaredDifferenceI16Params;
    use crate::ops::elementwise::sub::SubI16Params;

    fn bc(a: &[usize], b: &[usize], out: &[usize]) -> Broadcast {
        Broadcast::new("ADD", a, b, out).unwrap()
    }

    fn le(v: &[i16]) -> std::vec::Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    extern crate std;

    /// What TFLM's int16 kernels only assert (ADD's input offsets strictly within ±32767,
    /// SUB's input zero points 0) or refuse (MUL's and SQUARED_DIFFERENCE's zero points 0)
    /// is refused here.
    #[test]
    fn int16_zero_points_as_tflm() {
        let q = |zp| QuantParams::new(0.001, zp);
        let b = bc(&[4], &[4], &[4]);
        let none = Activation::None;
        assert!(AddI16Params::new(none, b, [q(-32766), q(32766), q(-32768)]).is_ok());
        assert!(AddI16Params::new(none, b, [q(32767), q(0), q(0)]).is_err());
        assert!(AddI16Params::new(none, b, [q(0), q(-32767), q(0)]).is_err());
        assert!(SubI16Params::new(none, b, [q(0), q(0), q(7)]).is_ok());
        assert!(SubI16Params::new(none, b, [q(1), q(0), q(0)]).is_err());
        assert!(MulI16Params::new(none, b, [q(0), q(0), q(1)]).is_err());
        assert!(SquaredDifferenceI16Params::new(b, [q(0), q(3), q(0)]).is_err());
    }

    /// int16 ADD and SUB of one scale, the output's twice it: `(x ± y) / 2` rounded, the
    /// extremes clamped; MUL of scales whose product is the output's: `x · y` saturated.
    #[test]
    fn int16_values() {
        let b = bc(&[5], &[1], &[5]);
        let (q, q2) = (QuantParams::new(0.001, 0), QuantParams::new(0.002, 0));
        let add = AddI16Params::new(Activation::None, b, [q, q, q2]).unwrap();
        let sub = SubI16Params::new(Activation::None, b, [q, q, q2]).unwrap();
        let x = le(&[-32768, -3, 0, 10, 32767]);
        let y = le(&[32767]);
        let mut o = [0i16; 5];
        run_i16(&add, &x, &y, &mut o).unwrap();
        assert_eq!(o, [-1, 16382, 16384, 16389, 32767]); // -0.5: away from zero
        run_i16(&sub, &x, &y, &mut o).unwrap();
        assert_eq!(o, [-32768, -16385, -16384, -16379, 0]);
        let m = QuantParams::new(0.5, 0);
        let mul = MulI16Params::new(Activation::Relu, b, [m, m, QuantParams::new(0.25, 0)]);
        run_i16(
            &mul.unwrap(),
            &le(&[-2, 3, 200, 0, 181]),
            &le(&[181]),
            &mut o,
        )
        .unwrap();
        assert_eq!(o, [0, 543, 32767, 0, 32761]);
    }
}
