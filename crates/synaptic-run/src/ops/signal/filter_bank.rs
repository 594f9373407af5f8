//! SignalFilterBank (uint32 → uint64): TFLM's `filter_bank.cc` over
//! [`signal::math::filter_bank_to`]: triangular mel
//! channels accumulated from the spectrum with the int16 weight and unweight tables and the
//! channels' frequency starts, weight starts and widths (inputs 1–5, constants). The uint64
//! output is held as bytes (the core has no 64-bit type).

use synaptic_mem::Scratch;
use synaptic_tflite::TensorType;

use crate::error::{KernelError, LoadError, Operand, TensorTypes, Unsupported};
use crate::ops::signal::{self, math};
use crate::ops::{custom_code, Kernel, Operands, Prep, Prepared};

/// The custom operator this module prepares.
pub const BUILTINS: &[i32] = &[custom_code("SignalFilterBank")];

/// A prepared SignalFilterBank: the channel count and the tables' lengths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FilterBankParams {
    /// `num_channels`.
    pub(crate) channels: i32,
    /// Elements of the weights, unweights, frequency starts, weight starts, widths.
    pub(crate) tables: [usize; 5],
    /// Output values.
    pub(crate) outputs: usize,
}

/// Prepares SignalFilterBank.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(6, 6)?;
    let (x, out) = (cx.input(0)?, cx.output()?);
    cx.type_of(
        &x,
        Operand::Input(0),
        TensorType::UInt32,
        TensorTypes::UInt32,
    )?;
    cx.type_of(
        &out,
        Operand::Output,
        TensorType::UInt64,
        TensorTypes::UInt64,
    )?;
    if !x.data.is_empty() {
        return Err(cx.unsupported(Unsupported::Constant(Operand::Input(0))));
    }
    if x.rank != 1 || out.rank != 1 {
        return Err(cx.unsupported(Unsupported::Rank));
    }
    let mut tables = [0usize; 5];
    let mut data: [&[u8]; 5] = [&[]; 5];
    for k in 1..6 {
        let t = cx.input(k)?;
        let o = Operand::Input(k as u8);
        cx.type_of(&t, o, TensorType::Int16, TensorTypes::Int16)?;
        cx.constant(&t, o)?;
        if t.rank != 1 {
            return Err(cx.unsupported(Unsupported::Rank));
        }
        tables[k - 1] = t.bytes / 2;
        data[k - 1] = &t.data[..t.bytes];
    }
    let channels = signal::int(cx, &signal::options(cx)?, 0, "num_channels")?;
    let le = |b: &[u8], i: usize| i16::from_le_bytes([b[2 * i], b[2 * i + 1]]);
    // The check reads the channel tables: decode them (at most a few KB, at load only).
    let n = tables[2].min(tables[3]).min(tables[4]);
    let ok = usize::try_from(channels)
        .ok()
        .and_then(|c| c.checked_add(1))
        .is_some_and(|c| c <= n)
        && (0..=channels as usize).all(|i| {
            let (f, w, d) = (le(data[2], i), le(data[3], i), le(data[4], i));
            math::filter_bank_check(x.bytes / 4, tables[0], tables[1], &[f], &[w], &[d], 0)
        });
    signal::param(cx, ok && out.bytes / 8 <= channels.max(0) as usize)?;
    Prepared::of::<FilterBank>(
        cx,
        FilterBankParams {
            channels,
            tables,
            outputs: out.bytes / 8,
        },
    )
}

/// The SignalFilterBank kernel.
pub struct FilterBank;

impl Kernel for FilterBank {
    const NAME: &'static str = "SignalFilterBank";
    type Params = FilterBankParams;
    const SCRATCH: bool = true;

    fn scratch_bytes(p: &FilterBankParams) -> usize {
        p.tables.iter().map(|&n| Scratch::span::<i16>(n)).sum()
    }

    fn run(p: &FilterBankParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        const OP: &str = "SignalFilterBank";
        let mut t: [&[i16]; 5] = [&[]; 5];
        for (k, n) in p.tables.iter().enumerate() {
            let b = io.bytes(k + 1);
            t[k] = signal::i16s(OP, Operand::Input(k as u8 + 1), b, *n, &mut io.scratch)?;
        }
        let x = io.u32s(0)?;
        let out = io.out_bytes();
        if out.len() != 8 * p.outputs {
            return Err(signal::failed(OP));
        }
        math::filter_bank_to(
            x,
            [t[0], t[1]],
            [t[2], t[3], t[4]],
            p.channels,
            p.outputs,
            |i, v| out[8 * i..8 * i + 8].copy_from_slice(&v.to_ne_bytes()),
        )
        .map_err(|()| signal::failed(OP))
    }
}

crate::format::codec::words!(FilterBankParams {
    channels: i32,
    tables: [usize; 5],
    outputs: usize,
});
