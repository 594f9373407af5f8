//! CAST: TFLM's `CastEval`, `static_cast<To>(from)` per element, from int8, int16, int32,
//! uint32, float32 or bool to int8, int16, int32, uint32 or float32. Integer to integer keeps
//! the low bits (two's complement, as C++ converts); integer to float rounds to nearest; float
//! to integer truncates toward zero and saturates (C++ leaves out-of-range values undefined;
//! NaN gives 0 here).

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, Unsupported};
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::CAST];

/// An element type CAST reads or writes (its code in the parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum CastType {
    /// int8.
    I8 = 0,
    /// int16.
    I16 = 1,
    /// int32.
    I32 = 2,
    /// uint32.
    U32 = 3,
    /// float32.
    F32 = 4,
    /// bool (one byte, 0 or 1; input only).
    Bool = 5,
}

impl CastType {
    fn of(t: TensorType) -> Option<Self> {
        Some(match t {
            TensorType::Int8 => CastType::I8,
            TensorType::Int16 => CastType::I16,
            TensorType::Int32 => CastType::I32,
            TensorType::UInt32 => CastType::U32,
            TensorType::Float32 => CastType::F32,
            TensorType::Bool => CastType::Bool,
            _ => return None,
        })
    }

    fn from_code(c: u32) -> Option<Self> {
        [
            CastType::I8,
            CastType::I16,
            CastType::I32,
            CastType::U32,
            CastType::F32,
            CastType::Bool,
        ]
        .get(c as usize)
        .copied()
    }

    /// Bytes per element.
    fn bytes(self) -> usize {
        match self {
            CastType::I8 | CastType::Bool => 1,
            CastType::I16 => 2,
            _ => 4,
        }
    }
}

/// A prepared CAST: made only by its `prepare` (types TFLM converts, equal element counts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CastParams {
    /// The input's [`CastType`] code.
    pub(crate) from: u32,
    /// The output's [`CastType`] code.
    pub(crate) to: u32,
    /// Elements.
    pub(crate) elems: usize,
}

/// A value on its way through CAST.
#[derive(Clone, Copy)]
enum Value {
    Int(i64),
    Float(f32),
}

fn read(ty: CastType, b: &[u8]) -> Value {
    match (ty, b) {
        (CastType::I8, &[x, ..]) => Value::Int(i64::from(x as i8)),
        (CastType::Bool, &[x, ..]) => Value::Int(i64::from(x != 0)),
        (CastType::I16, &[x, y, ..]) => Value::Int(i64::from(i16::from_ne_bytes([x, y]))),
        (CastType::I32, &[a, b2, c, d, ..]) => {
            Value::Int(i64::from(i32::from_ne_bytes([a, b2, c, d])))
        }
        (CastType::U32, &[a, b2, c, d, ..]) => {
            Value::Int(i64::from(u32::from_ne_bytes([a, b2, c, d])))
        }
        (CastType::F32, &[a, b2, c, d, ..]) => Value::Float(f32::from_ne_bytes([a, b2, c, d])),
        _ => Value::Int(0),
    }
}

fn write(ty: CastType, v: Value, out: &mut [u8]) {
    // Integer targets: the low bits of the integer (a float truncated first, saturating).
    let int = match v {
        Value::Int(i) => i,
        Value::Float(f) => f as i64,
    };
    match ty {
        CastType::I8 | CastType::Bool => out[0] = int as u8,
        CastType::I16 => out[..2].copy_from_slice(&(int as i16).to_ne_bytes()),
        CastType::I32 | CastType::U32 => {
            let w = match v {
                // C++'s float → int32 / uint32 conversions, saturating here.
                Value::Float(f) if ty == CastType::I32 => f as i32 as u32,
                Value::Float(f) => f as u32,
                Value::Int(_) => int as u32,
            };
            out[..4].copy_from_slice(&w.to_ne_bytes())
        }
        CastType::F32 => {
            let f = match v {
                Value::Int(i) => i as f32,
                Value::Float(f) => f,
            };
            out[..4].copy_from_slice(&f.to_ne_bytes())
        }
    }
}

/// CAST of `p.elems` elements from `input`'s bytes to `output`'s.
pub fn cast(p: &CastParams, input: &[u8], output: &mut [u8]) -> Result<(), KernelError> {
    const OP: &str = "CAST";
    let bad = || KernelError::unsupported(OP, Unsupported::ProgramMismatch);
    let (from, to) = (
        CastType::from_code(p.from).ok_or_else(bad)?,
        CastType::from_code(p.to).ok_or_else(bad)?,
    );
    let (fb, tb) = (from.bytes(), to.bytes());
    KernelError::check_len(
        OP,
        Operand::Input(0),
        p.elems.saturating_mul(fb),
        input.len(),
    )?;
    KernelError::check_len(
        OP,
        Operand::Output,
        p.elems.saturating_mul(tb),
        output.len(),
    )?;
    for (x, o) in input.chunks_exact(fb).zip(output.chunks_exact_mut(tb)) {
        write(to, read(from, x), o);
    }
    Ok(())
}

/// Prepares CAST.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, 1)?;
    let (x, out) = (cx.input(0)?, cx.output()?);
    if !x.data.is_empty() {
        return Err(cx.unsupported(Unsupported::Constant(Operand::Input(0))));
    }
    let (Some(from), Some(to)) = (CastType::of(x.ty), CastType::of(out.ty)) else {
        return Err(cx.unsupported(Unsupported::CastTypes));
    };
    if to == CastType::Bool {
        return Err(cx.unsupported(Unsupported::CastTypes));
    }
    let elems = x.bytes / from.bytes();
    if out.bytes / to.bytes() != elems || x.shape().iter().product::<usize>() != elems {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    Prepared::of::<Cast>(
        cx,
        CastParams {
            from: from as u32,
            to: to as u32,
            elems,
        },
    )
}

/// The CAST kernel (every pair of types, moved through bytes).
pub struct Cast;

impl Kernel for Cast {
    const NAME: &'static str = "CAST";
    const MAX_INPUTS: usize = 1;
    type Params = CastParams;

    fn run(p: &CastParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.bytes(0);
        cast(p, x, io.out_bytes())
    }
}

crate::format::codec::words!(CastParams {
    from: u32,
    to: u32,
    elems: usize,
});
