//! TFLM_DECODE's pruning decoder (bool, int8, int16, int32, int64, float32 as TFLM):
//! `decode_state_prune.cc` — a bitmap of the output's elements, the ones kept taken in order
//! from a table of their values, the others the output's zero point.
//!
//! The format TFLM reads (its decoder's, `decode_state_prune.cc`; TFLM's compressor has no
//! pruning yet, `compression/pruning.py` a stub): the ancillary tensor's 16-byte DCM (byte
//! 0 the decode type, 2; byte 1 the DCM version, 1; byte 4 the prune version, 1), then the
//! kept values, one after another, of the output's type (little-endian as the model stores
//! them); the encoded tensor: one bit an output element, most significant bit first, 1 for a
//! value of the table (the next one), 0 for the zero point. The zero point: the output's (its
//! first, as TFLM's `single_zero_point_`), 0 without quantization; every type but int8 must
//! have zero points of 0 (TFLM's `Setup` fails otherwise: refused here too). Every element is a
//! copy of a value's bytes or the zero point's (sign-extended), so the outputs are TFLM's bit
//! for bit.
//!
//! Refused at load besides TFLM_DECODE's common checks ([`super::tflm_decode`]): an encoded
//! tensor shorter than a bit an element, an ancillary tensor shorter than its kept values
//! (TFLM reads past either); zero points not one per scale (TFLM reads as many as scales).
//! Not implemented: an int8 output of several channels with zero points that differ (TFLM's
//! per-channel path, each channel its own zero point); zero points all equal decode as one.

use crate::error::{KernelError, LoadError, Unsupported};
use crate::ops::decode::tflm_decode::{Pair, DCM_BYTES};
use crate::ops::operands::differs;
use crate::ops::{Kernel, Operands, Prepared};
use synaptic_tflite::TensorType;

/// A prepared pruning TFLM_DECODE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodePruneParams {
    /// Bytes of one output element.
    pub(crate) element: u32,
    /// The zero point the pruned elements take (int8's; 0 for the other types).
    pub(crate) zero_point: i8,
}

/// Prepares the pruning decoder of `pair`.
pub(crate) fn prepare<'m>(pair: &Pair<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    let cx = pair.cx;
    let bad = || cx.unsupported(Unsupported::DecodeData);
    let mut zero_point = 0i8;
    if pair.out.quantized {
        let t = cx.sg.tensor(cx.v.output)?;
        let zps = match t.quantization()? {
            Some(q) => q.zero_points()?,
            None => return Err(bad()),
        };
        if zps.len() != pair.channels {
            return Err(bad());
        }
        let first = zps.get(0).ok_or_else(bad)?;
        if pair.out.ty != TensorType::Int8 {
            // TFLM: "All zero-points must be zero".
            if zps.iter().any(|z| z != 0) {
                return Err(bad());
            }
        } else if zps.iter().any(|z| z != first) {
            return Err(cx.unsupported(Unsupported::DecodePerChannelZeroPoints));
        }
        zero_point = i8::try_from(first).map_err(|_| bad())?;
    }
    let (count, element) = (pair.count, pair.element);
    if pair.enc.len() < count.div_ceil(8) {
        return Err(bad());
    }
    let kept = kept(pair.enc, count).ok_or_else(bad)?;
    if kept
        .checked_mul(element)
        .and_then(|n| n.checked_add(DCM_BYTES))
        .is_none_or(|n| pair.anc.len() < n)
    {
        return Err(bad());
    }
    let p = DecodePruneParams {
        element: element as u32,
        zero_point,
    };
    Prepared::of::<DecodePrune>(cx, p)
}

/// The elements of `count` that the bitmap `enc` keeps (its 1 bits among the first `count`);
/// `None` if it is shorter.
fn kept(enc: &[u8], count: usize) -> Option<usize> {
    let bytes = enc.get(..count.div_ceil(8))?;
    let mut n = 0usize;
    for (k, &b) in bytes.iter().enumerate() {
        let bits = (count - k * 8).min(8);
        // The first `bits` bits, from the top.
        let b = b & (0xffu8 << (8 - bits));
        n += b.count_ones() as usize;
    }
    Some(n)
}

/// The pruning TFLM_DECODE kernel (every output type: a value's bytes or the zero point's).
pub struct DecodePrune;

impl Kernel for DecodePrune {
    const NAME: &'static str = "TFLM_DECODE";
    const MAX_INPUTS: usize = 2;
    type Params = DecodePruneParams;

    fn run(p: &DecodePruneParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let (enc, anc) = (io.bytes(0), io.bytes(1));
        let mut values = anc.get(DCM_BYTES..).ok_or_else(|| differs(Self::NAME))?;
        let out = io.out_bytes();
        let e = p.element as usize;
        if e == 0 || out.len() % e != 0 || enc.len() < (out.len() / e).div_ceil(8) {
            return Err(differs(Self::NAME));
        }
        // The zero point as an element of `e` bytes (sign-extended, little-endian).
        let fill = if p.zero_point < 0 { 0xff } else { 0 };
        for (j, o) in out.chunks_exact_mut(e).enumerate() {
            let bit = (enc[j / 8] >> (7 - j % 8)) & 1;
            if bit == 1 {
                let (v, rest) = values
                    .split_at_checked(e)
                    .ok_or_else(|| differs(Self::NAME))?;
                o.copy_from_slice(v);
                values = rest;
            } else {
                o.fill(fill);
                o[0] = p.zero_point as u8;
            }
        }
        Ok(())
    }
}

crate::format::codec::words!(DecodePruneParams {
    element: u32,
    zero_point: i8
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_counts_the_first_bits() {
        assert_eq!(kept(&[0b1010_0000, 0b1111_1111], 9), Some(3));
        assert_eq!(kept(&[0b1010_0001], 7), Some(2));
        assert_eq!(kept(&[0b1010_0001], 8), Some(3));
        assert_eq!(kept(&[0xff], 9), None);
        assert_eq!(kept(&[], 0), Some(0));
    }
}
