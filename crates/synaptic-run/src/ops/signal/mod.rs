//! TFLM's signal library, the audio front end's custom operators (`signal/src/`,
//! `signal/micro/kernels/`): its integer arithmetic ([`math`], and kissfft's real FFTs,
//! fixed point and float, in [`kissfft`]) and what the operators' preparations share (their
//! FlexBuffer options, their int16 tables). Each operator is its own module here
//! ([`window`], [`rfft`], [`irfft`], …), matched by its custom code ([`super::CUSTOM_OPS`]).

pub mod delay;
pub mod energy;
pub mod fft_auto_scale;
pub mod filter_bank;
pub mod filter_bank_log;
pub mod filter_bank_square_root;
pub mod framer;
pub mod irfft;
pub mod kissfft;
pub mod math;
pub mod overlap_add;
pub mod pcan;
pub mod rfft;
pub mod spectral_subtraction;
pub mod stacker;
pub mod window;

use synaptic_mem::Scratch;
use synaptic_tflite::flexbuffers::{FlexMap, FlexValue};

use super::Prep;
use crate::error::{KernelError, LoadError, Operand, Unsupported};

/// The operator's options: a FlexBuffer map (TFLM's `FlexbufferWrapper`).
pub(crate) fn options<'m>(cx: &Prep<'_, 'm>) -> Result<FlexMap<'m>, LoadError> {
    FlexMap::root(cx.op().custom_options()?).ok_or(cx.unsupported(Unsupported::CustomOptions))
}

/// Entry `index` of the options, which must be `key`: TFLM reads its options by position in
/// the key-sorted map (`ElementAsInt32(index)`), so the key there is checked to be the one it
/// means (a map with other keys is refused, never read differently).
pub(crate) fn entry<'m>(
    cx: &Prep<'_, '_>,
    m: &FlexMap<'m>,
    index: usize,
    key: &str,
) -> Result<FlexValue<'m>, LoadError> {
    match (m.key(index), m.value(index)) {
        (Some(k), Some(v)) if k == key.as_bytes() => Ok(v),
        _ => Err(cx.unsupported(Unsupported::CustomOptions)),
    }
}

/// Integer entry `index` (`key`) of the options, as `ElementAsInt32`: only an integer or a
/// bool is taken (TFLM reads the raw bytes whatever the type; anything else is refused).
pub(crate) fn int(
    cx: &Prep<'_, '_>,
    m: &FlexMap<'_>,
    index: usize,
    key: &str,
) -> Result<i32, LoadError> {
    match entry(cx, m, index, key)? {
        v @ (FlexValue::Int(_) | FlexValue::UInt(_) | FlexValue::Bool(_)) => Ok(v.as_i32()),
        _ => Err(cx.unsupported(Unsupported::CustomOptions)),
    }
}

/// A count or length entry `index` (`key`) of the options ([`int`]), not negative: refused
/// as the kernel's parameters otherwise (TFLM's would size or index its buffers by it).
pub(crate) fn count(
    cx: &Prep<'_, '_>,
    m: &FlexMap<'_>,
    index: usize,
    key: &str,
) -> Result<usize, LoadError> {
    usize::try_from(int(cx, m, index, key)?).map_err(|_| cx.unsupported(Unsupported::SignalParams))
}

/// A parameter check of the kernel's ([`math`]'s `*_check`): refused unless it holds.
pub(crate) fn param(cx: &Prep<'_, '_>, ok: bool) -> Result<(), LoadError> {
    if ok {
        Ok(())
    } else {
        Err(cx.unsupported(Unsupported::SignalParams))
    }
}

/// An int16 constant read in place (`bytes`, little-endian as the model stores it) as a slice
/// of `scratch` (the model's bytes need not be 2-byte aligned). `n` elements.
pub(crate) fn i16s<'s>(
    op: &'static str,
    operand: Operand,
    bytes: &[u8],
    n: usize,
    scratch: &mut Scratch<'s>,
) -> Result<&'s mut [i16], KernelError> {
    let out = scratch
        .take::<i16>(n)
        .ok_or(KernelError::unsupported(op, Unsupported::Scratch))?;
    KernelError::check_len(op, operand, n, bytes.len() / 2)?;
    for (o, b) in out.iter_mut().zip(bytes.chunks_exact(2)) {
        *o = i16::from_le_bytes([b[0], b[1]]);
    }
    Ok(out)
}

/// A uint32 state or tensor held as bytes (`bytes`, native-endian) as a slice of `scratch`.
pub(crate) fn u32s<'s>(
    op: &'static str,
    bytes: &[u8],
    scratch: &mut Scratch<'s>,
) -> Result<&'s mut [u32], KernelError> {
    let n = bytes.len() / 4;
    let out = scratch
        .take::<u32>(n)
        .ok_or(KernelError::unsupported(op, Unsupported::Scratch))?;
    for (o, b) in out.iter_mut().zip(bytes.chunks_exact(4)) {
        *o = u32::from_ne_bytes([b[0], b[1], b[2], b[3]]);
    }
    Ok(out)
}

/// A kernel's arithmetic refused its operands (lengths or parameters: cannot happen for a
/// program that loaded, whose preparation checked them).
pub(crate) fn failed(op: &'static str) -> KernelError {
    KernelError::unsupported(op, Unsupported::SignalParams)
}

/// Word `k` of a kernel's private state (`state`, native-endian `u32`s first): a count or a
/// flag the kernel keeps there (0 when the state is fresh or reset); 0 past its end.
pub(crate) fn word(state: &[u8], k: usize) -> u32 {
    state
        .get(4 * k..4 * k + 4)
        .map_or(0, |b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
}

/// Sets word `k` of a kernel's private state ([`word`]; nothing past its end).
pub(crate) fn set_word(state: &mut [u8], k: usize, v: u32) {
    if let Some(b) = state.get_mut(4 * k..4 * k + 4) {
        b.copy_from_slice(&v.to_ne_bytes());
    }
}

/// The bytes of a kernel's private state of `words` words then `samples` samples of
/// `sample` bytes each, if within the runtime's size bound (no product wraps on 32 bits).
pub(crate) fn state_bytes(words: usize, samples: &[usize], sample: usize) -> Option<usize> {
    samples
        .iter()
        .try_fold(sample, |n, &s| n.checked_mul(s))?
        .checked_add(4 * words)
        .filter(|&n| n <= crate::limits::MAX_TENSOR_SIZE)
}
