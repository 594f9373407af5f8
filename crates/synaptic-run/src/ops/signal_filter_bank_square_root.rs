//! SignalFilterBankSquareRoot (uint64 → uint32): TFLM's `filter_bank_square_root.cc` over
//! [`signal::math::filter_bank_square_root_from`]:
//! each channel's integer square root shifted right by the scale bits (input 1: the int32
//! scalar SignalFftAutoScale wrote).

use synaptic_tflite::TensorType;

use super::signal::{self, math};
use super::{custom_code, Kernel, Operands, Prep, Prepared};
use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};

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
    }
    Prepared::of::<SquareRoot>(
        cx,
        SquareRootParams {
            channels: out.bytes / 4,
        },
    )
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
