//! SignalFilterBankSquareRoot (uint64 → uint32): TFLM's `filter_bank_square_root.cc` over
//! [`signal::math::filter_bank_square_root_from`]:
//! each channel's integer square root shifted right by the scale bits (input 1: the int32
//! scalar SignalFftAutoScale wrote).

use synaptic_tflite::TensorType;

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::signal::{self, math};
use crate::ops::{custom_code, Kernel, Operands, Prep, Prepared};

/// The custom operator this module prepares.
pub const BUILTINS: &[i32] = &[custom_code("SignalFilterBankSquareRoot")];

/// A prepared SignalFilterBankSquareRoot: its channel count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SquareRootParams {
    /// Channels.
    pub(crate) channels: usize,
}

/// Prepares SignalFilterBankSquareRoot.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, 2)?;
    let (x, s, out) = (cx.input(0)?, cx.input(1)?, cx.output()?);
    cx.type_of(
        &x,
        Operand::Input(0),
        TensorType::UInt64,
        TensorTypes::UInt64,
    )?;
    cx.type_of(&s, Operand::Input(1), TensorType::Int32, TensorTypes::Int32)?;
    cx.type_of(
        &out,
        Operand::Output,
        TensorType::UInt32,
        TensorTypes::UInt32,
    )?;
    if !x.data.is_empty() {
        return Err(cx.unsupported(Unsupported::Constant(Operand::Input(0))));
    }
    if s.bytes != 4 || x.bytes / 8 != out.bytes / 4 {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    if !s.data.is_empty() {
        cx.constant(&s, Operand::Input(1))?;
        // A constant scale: the one value every invocation shifts by, checked here.
        let v = s
            .data
            .first_chunk::<4>()
            .map_or(-1, |b| i32::from_le_bytes(*b));
        if !math::filter_bank_square_root_check(v) {
            return Err(cx.unsupported(Unsupported::SignalParams));
        }
    } else if !from_auto_scale(cx, s.index)? {
        // Any other activation's value is known only at invoke (one outside 0..=31 would fail
        // every invocation): refused here.
        return Err(cx.unsupported(Unsupported::ScaleSource));
    }
    Prepared::of::<SquareRoot>(
        cx,
        SquareRootParams {
            channels: out.bytes / 4,
        },
    )
}

/// Whether tensor `t` is the scale output (output 1) of a SignalFftAutoScale operator before
/// this one: its kernel writes a scale in `0..=14`, always one this kernel takes.
fn from_auto_scale(cx: &Prep<'_, '_>, t: usize) -> Result<bool, LoadError> {
    for i in 0..cx.index {
        let op = cx.sg.operator(i)?;
        if op.outputs()?.get(1) == Some(t as i32) {
            let (code, _) = crate::model::op_code(cx.model, cx.sg, i)?;
            return Ok(code == custom_code("SignalFftAutoScale"));
        }
    }
    Ok(false)
}

/// The SignalFilterBankSquareRoot kernel.
pub struct SquareRoot;

impl Kernel for SquareRoot {
    const NAME: &'static str = "SignalFilterBankSquareRoot";
    type Params = SquareRootParams;

    fn run(p: &SquareRootParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let (x, s) = (io.bytes(0), io.bytes(1));
        let (&[a, b, c, d], true) = (s, x.len() == 8 * p.channels) else {
            return Err(signal::failed(Self::NAME));
        };
        let scale = i32::from_ne_bytes([a, b, c, d]);
        let get = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&x[8 * i..8 * i + 8]);
            u64::from_ne_bytes(w)
        };
        math::filter_bank_square_root_from(p.channels, get, scale, io.out_u32()?)
            .map_err(|()| signal::failed(Self::NAME))
    }
}

crate::format::codec::words!(SquareRootParams { channels: usize });
