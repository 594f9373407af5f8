//! TFLM_DECODE's lookup-table decoder (bool, int8, int16, int32, int64, float32 as TFLM):
//! `decode.cc` and `decode_state_lut.cc` — each output element is a value of its channel's
//! table, picked by the next index of the encoded tensor.
//!
//! The format TFLM reads (`decode_state_lut.h`, `compression/lut.py`, `docs/compression.md`):
//!
//! - the ancillary tensor: the 16-byte DCM (byte 0 the decode type, 0; byte 1 the DCM version,
//!   1; byte 4 the LUT version, 1; byte 5's low 3 bits the index bit width, 1 to 7, its other
//!   bits ignored as TFLM masks them; byte 6 the value table stride, the elements of one
//!   channel's table), then the value tables, one per channel, `stride` elements each of the
//!   output's type, little-endian as the model stores every tensor;
//! - the encoded tensor: the indices, `width` bits each, most significant bit first, packed
//!   one after another from the first byte's top bit (zero bits pad the last byte), one per
//!   output element in the output's order;
//! - the channels: one, or the output's per-channel scales' count when it has them; along
//!   its first dimension (each run of `elements / channels` consecutive elements one channel)
//!   or, with more than one channel along its last dimension, interleaved (element `i` of
//!   channel `i % channels`).
//!
//! TFLM's int8 paths for widths 2, 3 and 4 read the same bits as its generic one (they unpack
//! 16 or 32 indices a word); every type is a copy of a table element's bytes, so the outputs
//! are TFLM's bit for bit (a float32's NaN payload, a bool's byte, included).
//!
//! Refused at load, where TFLM would read outside a tensor, write outside the output, loop
//! without end, or decode a model its compressor never writes: an ancillary tensor shorter
//! than the DCM or than its tables (`channels × stride` elements); a DCM or LUT version other
//! than 1; a bit width of 0 (TFLM only asserts it); an encoded tensor shorter than its
//! indices' bits; an index at or past the stride (TFLM would read the next channel's table, or
//! past the last); elements not a multiple of the channels (TFLM leaves the rest unwritten,
//! or along the last axis never ends); a per-channel axis other than the first or the last
//! (TFLM refuses it); encoded or ancillary tensors that are not constants (TFLM refuses them).
//! TFLM's other decoders are modules beside this one (Huffman, 1: [`super::huffman`]; Prune,
//! 2: [`super::prune`]); its custom types are not decoded (TFLM refuses them too), nor a
//! DECODE of more than one pair of inputs.

use synaptic_tflite::TensorType;

use crate::error::{KernelError, LoadError, Operand, TensorTypes, Unsupported};
use crate::ops::operands::differs;
use crate::ops::prep::element_bytes;
use crate::ops::{custom_code, Kernel, Operands, Prep, Prepared};

pub use super::huffman::DecodeHuffman;
pub use super::prune::DecodePrune;

/// The custom operator this module prepares.
pub const BUILTINS: &[i32] = &[custom_code("TFLM_DECODE")];

/// Bytes of the DECODE Common Metadata, before a TFLM decode type's data (`kDcmSizeInBytes`).
pub(crate) const DCM_BYTES: usize = 16;

/// The DCM's decode type of the lookup-table decoder (`kDcmTypeLUT`).
const TYPE_LUT: u8 = 0;

/// A prepared lookup-table TFLM_DECODE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeLutParams {
    /// Bits per index, 1 to 7.
    pub(crate) width: u32,
    /// Elements of one channel's value table.
    pub(crate) stride: u32,
    /// Number of channels (value tables), at least 1.
    pub(crate) channels: u32,
    /// Whether the channels run along the last dimension (interleaved), else the first.
    pub(crate) last_axis: bool,
    /// Bytes of one output element.
    pub(crate) element: u32,
}

/// The DCM's decode type of the pruning decoder (`kDcmTypePrune`).
const TYPE_PRUNE: u8 = 2;

/// The DCM's decode type of the Huffman decoder (`kDcmTypeHuffman`).
const TYPE_HUFFMAN: u8 = 1;

/// One pair of TFLM_DECODE as its decoders read it, checked as TFLM's `Prepare` and the
/// decoders' `Setup` check it in common.
pub(crate) struct Pair<'a, 'm> {
    /// The encoded tensor's bytes.
    pub(crate) enc: &'m [u8],
    /// The ancillary tensor's bytes (at least the DCM).
    pub(crate) anc: &'m [u8],
    /// The output.
    pub(crate) out: crate::model::TInfo<'m>,
    /// Its elements.
    pub(crate) count: usize,
    /// Bytes of one of them.
    pub(crate) element: usize,
    /// Its channels (the per-channel scales' count, else 1).
    pub(crate) channels: usize,
    /// Whether they run along the last dimension (more than one there), else the first.
    pub(crate) last_axis: bool,
    /// The operator.
    pub(crate) cx: &'a Prep<'a, 'm>,
}

/// Prepares TFLM_DECODE: the lookup table here, the pruning decoder in [`super::prune`].
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    // TFLM: at least one output and two inputs an output; one pair here.
    if cx.v.n_out != 1 || cx.n_inputs() != 2 {
        return Err(cx.unsupported(Unsupported::DecodePairs));
    }
    let (enc, anc, out) = (cx.input(0)?, cx.input(1)?, cx.output()?);
    cx.constant(&enc, Operand::Input(0))?;
    cx.constant(&anc, Operand::Input(1))?;
    let element = match out.ty {
        TensorType::Bool
        | TensorType::Int8
        | TensorType::Int16
        | TensorType::Int32
        | TensorType::Int64
        | TensorType::Float32 => element_bytes(out.ty),
        _ => {
            return Err(cx.unsupported(Unsupported::TensorType {
                operand: Operand::Output,
                expected: TensorTypes::Concatenable,
            }))
        }
    };
    let bad = || cx.unsupported(Unsupported::DecodeData);
    let (enc, anc) = (&enc.data[..enc.bytes], &anc.data[..anc.bytes]);
    let dcm = anc.get(..DCM_BYTES).ok_or_else(bad)?;
    if dcm[1] != 1 {
        return Err(bad());
    }
    if !matches!(dcm[0], TYPE_LUT | TYPE_HUFFMAN | TYPE_PRUNE) {
        return Err(cx.unsupported(Unsupported::DecodeType(dcm[0])));
    }
    // The decoder's own version (byte 4), then the channels as both decoders' Setup resolve
    // them from the output's quantization.
    if dcm[4] != 1 {
        return Err(bad());
    }
    let (mut channels, mut last_axis) = (1usize, false);
    if out.quantized {
        channels = out.scale_count;
        if out.quantized_dimension == out.rank as i32 - 1 && channels > 1 {
            last_axis = true;
        } else if out.quantized_dimension != 0 {
            return Err(bad());
        }
    }
    let count: usize = out.shape().iter().product();
    if channels == 0 || count.checked_mul(element) != Some(out.bytes) {
        return Err(bad());
    }
    let pair = Pair {
        enc,
        anc,
        out,
        count,
        element,
        channels,
        last_axis,
        cx,
    };
    if dcm[0] == TYPE_PRUNE {
        return super::prune::prepare(&pair);
    }
    if dcm[0] == TYPE_HUFFMAN {
        return super::huffman::prepare(&pair);
    }
    prepare_lut(&pair)
}

/// Prepares the lookup-table decoder of `pair`.
fn prepare_lut<'m>(pair: &Pair<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    let cx = pair.cx;
    let bad = || cx.unsupported(Unsupported::DecodeData);
    let (width, stride) = (u32::from(pair.anc[5] & 0x07), usize::from(pair.anc[6]));
    let (count, channels, element) = (pair.count, pair.channels, pair.element);
    if width == 0 || count % channels != 0 {
        return Err(bad());
    }
    let tables = channels
        .checked_mul(stride)
        .and_then(|n| n.checked_mul(element))
        .and_then(|n| n.checked_add(DCM_BYTES));
    if tables.is_none_or(|n| pair.anc.len() < n) {
        return Err(bad());
    }
    let p = DecodeLutParams {
        width,
        stride: stride as u32,
        channels: channels as u32,
        last_axis: pair.last_axis,
        element: element as u32,
    };
    // Every index in its bits and below the stride (no read past a table).
    if indices(&p, pair.enc, count, |_, i| i < stride).is_none() {
        return Err(bad());
    }
    Prepared::of::<DecodeLut>(cx, p)
}

/// Calls `f(channel, index)` for the `count` indices of `enc` in order (their channels as
/// `p` lays them out); `None` if `enc` is shorter than their bits or `f` returns false.
#[inline]
fn indices(
    p: &DecodeLutParams,
    enc: &[u8],
    count: usize,
    mut f: impl FnMut(usize, usize) -> bool,
) -> Option<()> {
    let (w, channels) = (p.width as usize, p.channels as usize);
    if !(1..=7).contains(&w) || channels == 0 || count % channels != 0 {
        return None;
    }
    if count.checked_mul(w)?.div_ceil(8) > enc.len() {
        return None;
    }
    let per_channel = if p.last_axis { 1 } else { count / channels };
    let mask = (1usize << w) - 1;
    let (mut channel, mut left) = (0usize, per_channel);
    for j in 0..count {
        let bit = j * w;
        let (at, off) = (bit / 8, bit % 8);
        // The index's bits in a 16-bit window from its first byte (the next one only if it
        // has bits there: in bounds by the length check).
        let hi = usize::from(*enc.get(at)?);
        let lo = if off + w > 8 {
            usize::from(*enc.get(at + 1)?)
        } else {
            0
        };
        let index = (((hi << 8) | lo) >> (16 - w - off)) & mask;
        if !f(channel, index) {
            return None;
        }
        left -= 1;
        if left == 0 {
            left = per_channel;
            channel += 1;
            if channel == channels {
                channel = 0;
            }
        }
    }
    Some(())
}

/// The lookup-table TFLM_DECODE kernel (every output type: a table element's bytes).
pub struct DecodeLut;

impl Kernel for DecodeLut {
    const NAME: &'static str = "TFLM_DECODE";
    const MAX_INPUTS: usize = 2;
    type Params = DecodeLutParams;

    fn run(p: &DecodeLutParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let (enc, anc) = (io.bytes(0), io.bytes(1));
        let tables = anc.get(DCM_BYTES..).ok_or_else(|| differs(Self::NAME))?;
        let out = io.out_bytes();
        let e = p.element as usize;
        if e == 0 || out.len() % e != 0 {
            return Err(differs(Self::NAME));
        }
        let (count, stride) = (out.len() / e, p.stride as usize);
        let mut chunks = out.chunks_exact_mut(e);
        indices(p, enc, count, |channel, index| {
            let at = channel
                .checked_mul(stride)
                .and_then(|n| n.checked_add(index))
                .and_then(|n| n.checked_mul(e))
                .unwrap_or(usize::MAX);
            match (tables.get(at..at.saturating_add(e)), chunks.next()) {
                (Some(v), Some(o)) if index < stride => {
                    o.copy_from_slice(v);
                    true
                }
                _ => false,
            }
        })
        .ok_or_else(|| differs(Self::NAME))
    }
}

crate::format::codec::words!(DecodeLutParams {
    width: u32,
    stride: u32,
    channels: u32,
    last_axis: bool,
    element: u32
});

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    fn collect(p: &DecodeLutParams, enc: &[u8], count: usize) -> Option<Vec<(usize, usize)>> {
        let mut v = Vec::new();
        indices(p, enc, count, |c, i| {
            v.push((c, i));
            true
        })?;
        Some(v)
    }

    fn params(width: u32, channels: u32, last_axis: bool) -> DecodeLutParams {
        DecodeLutParams {
            width,
            stride: 128,
            channels,
            last_axis,
            element: 1,
        }
    }

    #[test]
    fn width_3_as_tflm_docs() {
        // docs/compression.md: 0b001_011_011_010_100_101_000_010_001_011_00 is 1 3 3 2 4 5 0 2 1 3.
        let enc = [0b0010_1101, 0b1010_1001, 0b0100_0010, 0b0010_1100];
        let got: Vec<usize> = collect(&params(3, 1, false), &enc, 10)
            .unwrap()
            .into_iter()
            .map(|(_, i)| i)
            .collect();
        assert_eq!(got, [1, 3, 3, 2, 4, 5, 0, 2, 1, 3]);
    }

    #[test]
    fn every_width_reads_msb_first() {
        for w in 1..=7u32 {
            // Indices 0, 1, 2, … (mod 2^w) packed most significant bit first.
            let n = 40usize;
            let mut bits = Vec::new();
            for j in 0..n {
                for b in (0..w).rev() {
                    bits.push(((j % (1 << w)) >> b) & 1);
                }
            }
            let enc: Vec<u8> = bits
                .chunks(8)
                .map(|c| {
                    c.iter()
                        .enumerate()
                        .fold(0u8, |a, (k, &b)| a | ((b as u8) << (7 - k)))
                })
                .collect();
            let got = collect(&params(w, 1, false), &enc, n).unwrap();
            for (j, &(c, i)) in got.iter().enumerate() {
                assert_eq!((c, i), (0, j % (1 << w)), "width {w}");
            }
            // One byte short: refused.
            assert!(collect(&params(w, 1, false), &enc[..enc.len() - 1], n).is_none());
        }
    }

    #[test]
    fn channels_first_and_last_axis() {
        let enc = [0u8; 3];
        let first: Vec<usize> = collect(&params(1, 3, false), &enc, 6)
            .unwrap()
            .into_iter()
            .map(|(c, _)| c)
            .collect();
        assert_eq!(first, [0, 0, 1, 1, 2, 2]);
        let last: Vec<usize> = collect(&params(1, 3, true), &enc, 6)
            .unwrap()
            .into_iter()
            .map(|(c, _)| c)
            .collect();
        assert_eq!(last, [0, 1, 2, 0, 1, 2]);
        assert!(collect(&params(1, 4, true), &enc, 6).is_none());
        assert!(collect(&params(0, 1, false), &enc, 6).is_none());
        assert!(collect(&params(8, 1, false), &enc, 1).is_none());
    }
}
