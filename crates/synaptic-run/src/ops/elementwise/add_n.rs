//! ADD_N (int8, float32): TFLM's `micro/kernels/add_n.cc`, `reference_ops::AddN`; two or
//! more inputs of one shape and type (int8: one zero point and one scale, as TFLM checks),
//! summed element by element into an output of that shape.
//!
//! - float32: `x = 0; x += input_j[i]` for each input in order (single precision).
//! - int8: TFLM's rescaled sum with `left_shift` 20: each value `(input_zero_point` removed,
//!   `· 2^20)` scaled by `QuantizeMultiplierSmallerThanOneExp(0.5)`, summed in `int32` over
//!   the inputs, **plus the same scaling of `−input_zero_point` once more** (TFLM starts the
//!   sum from `input_offset`, not from 0: reproduced), then scaled by
//!   `2·input_scale / (2^20 · output_scale)` (`QuantizeMultiplierSmallerThanOneExp`, refused
//!   at load unless in `(0, 1)`: TFLM's `TFLITE_CHECK`), plus the output zero point, clamped to
//!   int8.
//!
//! TFLM iterates over the output's size and reads each input as long: an output whose size
//! is not the inputs' is refused at load. The output may overlap an input (in place) where at
//! most one other input is an activation (the runtime's overlapped path views one beside it).

use synaptic_tflite::{code, TensorType};

use crate::contract::Contract;
use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::limits::MAX_OP_INPUTS;
use crate::math::{
    multiply_by_quantized_multiplier_smaller_than_one_exp as scale,
    quantize_multiplier_smaller_than_one_exp, zero_point_in,
};
use crate::ops::float::{F32s, LeF32};
use crate::ops::in_place::{check, drive};
use crate::ops::{Geometry, InPlaceOperands, Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::ADD_N];

const OP: &str = "ADD_N";

/// TFLM's `kAddNIntegerShift`.
const LEFT_SHIFT: i32 = 20;

/// A prepared ADD_N.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AddNParams {
    /// Elements of each input and of the output.
    pub(crate) elems: usize,
    /// Inputs.
    pub(crate) inputs: usize,
    /// float32 (else int8).
    pub(crate) float: bool,
    /// Whether the output may overlap an input (at most two inputs are activations).
    pub(crate) in_place: bool,
    /// `-input_zero_point` (int8).
    pub(crate) input_offset: i32,
    /// The inputs' multiplier and shift (int8).
    pub(crate) input: [i32; 2],
    /// The output zero point (int8).
    pub(crate) output_offset: i32,
    /// The output's multiplier and shift (int8).
    pub(crate) output: [i32; 2],
}

impl AddNParams {
    /// One input value rescaled (TFLM's `scaled_y`).
    #[inline(always)]
    fn scaled(&self, v: i32) -> i32 {
        let y = self.input_offset.wrapping_add(v);
        scale(
            y.wrapping_mul(1 << LEFT_SHIFT),
            self.input[0],
            self.input[1],
        )
    }

    /// One int8 output from its inputs' values (`values(j)`: input `j`'s).
    #[inline(always)]
    fn value_i8(&self, values: impl Fn(usize) -> i8) -> i8 {
        let mut sum = self.scaled(0);
        for j in 0..self.inputs {
            sum = sum.wrapping_add(self.scaled(i32::from(values(j))));
        }
        scale(sum, self.output[0], self.output[1])
            .wrapping_add(self.output_offset)
            .clamp(-128, 127) as i8
    }

    /// One float32 output from its inputs' values.
    #[inline(always)]
    fn value_f32(&self, values: impl Fn(usize) -> f32) -> f32 {
        let mut x = 0.0f32;
        for j in 0..self.inputs {
            x += values(j);
        }
        x
    }

    /// The element size in bytes.
    fn elem_bytes(&self) -> usize {
        if self.float {
            4
        } else {
            1
        }
    }
}

/// The operator's inputs' bytes (`skip`: the one in the overlapped buffer, left empty),
/// each checked to hold `p.elems` elements.
fn inputs<'x>(
    p: &AddNParams,
    n_inputs: usize,
    bytes: impl Fn(usize) -> &'x [u8],
    skip: Option<usize>,
) -> Result<[&'x [u8]; MAX_OP_INPUTS], KernelError> {
    let mut ins: [&[u8]; MAX_OP_INPUTS] = [&[]; MAX_OP_INPUTS];
    if n_inputs != p.inputs || p.inputs > MAX_OP_INPUTS {
        return Err(KernelError::unsupported(OP, Unsupported::ProgramMismatch));
    }
    let want = p.elems.saturating_mul(p.elem_bytes());
    for (j, slot) in ins.iter_mut().enumerate().take(p.inputs) {
        if Some(j) == skip {
            continue;
        }
        let b = bytes(j);
        KernelError::check_len(OP, Operand::Input(j as u8), want, b.len())?;
        *slot = &b[..want];
    }
    Ok(ins)
}

/// The ADD_N kernel, int8 and float32.
pub struct AddN;

impl Kernel for AddN {
    const NAME: &'static str = OP;
    type Params = AddNParams;
    const PAIR_INPUT: Option<usize> = None;

    fn run(p: &AddNParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let ins = inputs(p, io.n_inputs(), |j| io.bytes(j), None)?;
        let ins = &ins[..p.inputs];
        if crate::ops::float::BUILT && p.float {
            let out = io.out_f32()?;
            KernelError::check_len(OP, Operand::Output, p.elems, out.len())?;
            for (i, o) in out.iter_mut().enumerate() {
                *o = p.value_f32(|j| LeF32(ins[j]).at(i));
            }
        } else {
            let out = io.out_i8()?;
            KernelError::check_len(OP, Operand::Output, p.elems, out.len())?;
            for (i, o) in out.iter_mut().enumerate() {
                *o = p.value_i8(|j| ins[j][i] as i8);
            }
        }
        Ok(())
    }

    fn contract(p: &AddNParams, k: usize, _out: Geometry) -> Option<Contract> {
        let n = p.elem_bytes();
        (p.in_place && k < p.inputs).then(|| Contract::elementwise(p.elems, n, n))
    }

    fn run_in_place(
        p: &AddNParams,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        let k = io.k;
        if !p.in_place || k >= p.inputs {
            return Err(KernelError::unsupported(OP, Unsupported::InPlace));
        }
        let ins = inputs(p, io.n_inputs(), |j| io.bytes(j), Some(k))?;
        let ins = &ins[..p.inputs];
        let (at, n) = (io.at, p.elems);
        if crate::ops::float::BUILT && p.float {
            check(OP, || Contract::elementwise(n, 4, 4), io.buf, &at)?;
            drive::<4>(io.buf, at.output, n, at.direction, |buf, i| {
                let mine = LeF32(&buf[at.input..]).at(i);
                let v = p.value_f32(|j| if j == k { mine } else { LeF32(ins[j]).at(i) });
                Ok(v.to_le_bytes())
            })?;
            Ok(4 * n)
        } else {
            check(OP, || Contract::elementwise(n, 1, 1), io.buf, &at)?;
            drive::<1>(io.buf, at.output, n, at.direction, |buf, i| {
                let mine = buf[at.input + i] as i8;
                Ok([p.value_i8(|j| if j == k { mine } else { ins[j][i] as i8 }) as u8])
            })?;
            Ok(n)
        }
    }
}

/// Prepares ADD_N: at least two inputs of the output's type (int8 or float32) and shape,
/// either of them constants; int8 ones of one quantization.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, MAX_OP_INPUTS)?;
    let out = cx.output()?;
    let float = crate::ops::float::BUILT && out.ty == TensorType::Float32;
    let (ty, expected) = if float {
        (TensorType::Float32, TensorTypes::Float32)
    } else {
        (TensorType::Int8, TensorTypes::Int8)
    };
    cx.activation_of(&out, Operand::Output, ty)?;
    let first = cx.input(0)?;
    let mut activations = 0;
    for j in 0..cx.n_inputs() {
        let t = cx.input(j)?;
        cx.type_of(&t, Operand::Input(j as u8), ty, expected)?;
        if t.data.is_empty() {
            activations += 1;
        } else {
            cx.constant(&t, Operand::Input(j as u8))?;
        }
        if t.shape() != first.shape() {
            return Err(cx.shape(ShapeFault::SizeDiffers));
        }
        if !float {
            cx.quantized(&[&t])?;
            if t.q != first.q {
                return Err(cx.unsupported(Unsupported::QuantizationDiffers));
            }
        }
    }
    if out.bytes != first.bytes {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let mut p = AddNParams {
        elems: out.shape().iter().product(),
        inputs: cx.n_inputs(),
        float,
        in_place: activations <= 2,
        input_offset: 0,
        input: [0; 2],
        output_offset: 0,
        output: [0; 2],
    };
    if !float {
        cx.quantized(&[&out])?;
        let zp = |q| zero_point_in(OP, q, -128, 127).map_err(|e| cx.err(e));
        p.input_offset = -zp(first.q)?;
        p.output_offset = zp(out.q)?;
        let twice = 2.0 * f64::from(first.q.scale);
        let m = |r: f64| {
            quantize_multiplier_smaller_than_one_exp(OP, r)
                .ok()
                .filter(|&(_, s)| s <= 0)
                .map(|(m, s)| [m, s])
                .ok_or(cx.unsupported(Unsupported::Multiplier))
        };
        p.input = m(f64::from(first.q.scale) / twice)?;
        p.output = m(twice / (f64::from(1 << LEFT_SHIFT) * f64::from(out.q.scale)))?;
    }
    Prepared::of::<AddN>(cx, p)
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(AddNParams {
    elems: usize,
    inputs: usize,
    float: bool,
    in_place: bool,
    input_offset: i32,
    input: [i32; 2],
    output_offset: i32,
    output: [i32; 2],
});
