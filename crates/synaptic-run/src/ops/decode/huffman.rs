//! TFLM_DECODE's Huffman decoder (int8, int16 as TFLM): `decode_state_huffman.cc` — each
//! output element a symbol found by walking Xtensa-format decode tables with the codewords'
//! bits.
//!
//! The format TFLM reads (its decoder's and `decode_state_huffman_test.cc`; TFLM's compressor
//! has no Huffman yet, `compression/huffman.py` a stub):
//!
//! - the ancillary tensor: the 16-byte DCM (byte 0 the decode type, 1; byte 1 the DCM version,
//!   1; byte 4 the Huffman version, 1; byte 5: bit 0 set for 32-bit table elements, else
//!   16-bit, int8 outputs only; its top 4 bits the first lookup's bits less one), then the
//!   tables' elements, little-endian: a symbol (its top bit set; the next 4 bits the bits of
//!   its last lookup it used; its low bits the value, the output element its low byte or two)
//!   or a link (top bit clear; the next 4 bits the next lookup's bits less one; its low 11 or
//!   27 bits the next table's offset from this element, the lookup's bits added);
//! - the encoded tensor: the codewords, most significant bit first, read 32 bits at a time
//!   (a big-endian word each, as TFLM swaps its little-endian loads); the bits of a lookup a
//!   symbol did not use are read again for the next one.
//!
//! The encoded and ancillary tensors are constants: the load decodes the whole output once
//! (the same walk as the kernel) and refuses the model if any read falls outside the tables
//! or past the encoded tensor's words (TFLM would read past them; a link looping on itself
//! reads on until it does). Outputs other than int8 and int16 (TFLM's Decode fails) and a
//! 16-bit table for int16 (TFLM's Setup refuses it) are refused. Every element is the low
//! byte(s) of a table element, so the outputs are TFLM's bit for bit.

use synaptic_tflite::TensorType;

use crate::error::{KernelError, LoadError, Operand, TensorTypes, Unsupported};
use crate::ops::decode::tflm_decode::{Pair, DCM_BYTES};
use crate::ops::operands::differs;
use crate::ops::{Kernel, Operands, Prepared};

/// A prepared Huffman TFLM_DECODE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeHuffmanParams {
    /// Whether the table elements are 32-bit (else 16-bit).
    pub(crate) wide: bool,
    /// Bits of the first lookup, 1 to 16.
    pub(crate) first: u32,
    /// Bytes of one output element (1 or 2).
    pub(crate) element: u32,
}

/// Prepares the Huffman decoder of `pair`.
pub(crate) fn prepare<'m>(pair: &Pair<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    let cx = pair.cx;
    let size = pair.anc[5];
    let wide = size & 0x01 != 0;
    let element = match pair.out.ty {
        TensorType::Int8 => 1,
        TensorType::Int16 if wide => 2,
        _ => {
            return Err(cx.unsupported(Unsupported::TensorType {
                operand: Operand::Output,
                expected: if wide {
                    TensorTypes::Int8OrInt16
                } else {
                    TensorTypes::Int8
                },
            }))
        }
    };
    let p = DecodeHuffmanParams {
        wide,
        first: u32::from(size >> 4) + 1,
        element,
    };
    // The whole decode, every read checked.
    let tables = &pair.anc[DCM_BYTES..];
    if walk(&p, pair.enc, tables, pair.count, |_| true).is_none() {
        return Err(cx.unsupported(Unsupported::DecodeData));
    }
    Prepared::of::<DecodeHuffman>(cx, p)
}

/// The codewords' bits as TFLM reads them: 32-bit big-endian words, a position in bits.
struct Bits<'a> {
    words: &'a [u8],
    pos: usize,
}

impl Bits<'_> {
    /// The next `n` bits (1 to 16), most significant first; `None` past the last whole word.
    #[inline]
    fn get(&mut self, n: usize) -> Option<u32> {
        let end = self.pos + n;
        // TFLM loads whole words: the one holding the last bit must be there.
        if end.div_ceil(32) * 4 > self.words.len() {
            return None;
        }
        let mut v = 0u32;
        for b in self.pos..end {
            let byte = *self.words.get(b / 8)?;
            v = (v << 1) | u32::from((byte >> (7 - b % 8)) & 1);
        }
        self.pos = end;
        Some(v)
    }
}

/// Decodes `count` symbols of `enc` by `tables` as TFLM does, calling `f` with each table
/// element found; `None` at a read outside the tables or the encoded words, or if `f`
/// returns false.
fn walk(
    p: &DecodeHuffmanParams,
    enc: &[u8],
    tables: &[u8],
    count: usize,
    mut f: impl FnMut(u32) -> bool,
) -> Option<()> {
    let (found, count_shift, value_mask, e) = if p.wide {
        (1u32 << 31, 27, 0x07FF_FFFFu32, 4usize)
    } else {
        (1u32 << 15, 11, 0x07FFu32, 2usize)
    };
    let entry = |k: usize| -> Option<u32> {
        let b = tables.get(k.checked_mul(e)?..k.checked_mul(e)?.checked_add(e)?)?;
        Some(if p.wide {
            u32::from_le_bytes([b[0], b[1], b[2], b[3]])
        } else {
            u32::from(u16::from_le_bytes([b[0], b[1]]))
        })
    };
    if !(1..=16).contains(&p.first) {
        return None;
    }
    // TFLM loads the first word before the first symbol.
    if count > 0 && enc.len() < 4 {
        return None;
    }
    let mut bits = Bits { words: enc, pos: 0 };
    for _ in 0..count {
        let mut used = p.first as usize;
        let mut offset = bits.get(used)? as usize;
        let mut v = entry(offset)?;
        while v & found == 0 {
            used = ((v >> count_shift) & 0x0F) as usize + 1;
            let index = bits.get(used)? as usize;
            offset = offset
                .checked_add((v & value_mask) as usize)?
                .checked_add(index)?;
            v = entry(offset)?;
        }
        if !f(v) {
            return None;
        }
        let residual = ((v >> count_shift) & 0x0F) as usize;
        if used > residual {
            bits.pos -= used - residual;
        }
    }
    Some(())
}

/// The Huffman TFLM_DECODE kernel (int8, int16: a symbol's low bytes).
pub struct DecodeHuffman;

impl Kernel for DecodeHuffman {
    const NAME: &'static str = "TFLM_DECODE";
    const MAX_INPUTS: usize = 2;
    type Params = DecodeHuffmanParams;

    fn run(p: &DecodeHuffmanParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let (enc, anc) = (io.bytes(0), io.bytes(1));
        let tables = anc.get(DCM_BYTES..).ok_or_else(|| differs(Self::NAME))?;
        let out = io.out_bytes();
        let e = p.element as usize;
        if !(1..=2).contains(&e) || out.len() % e != 0 {
            return Err(differs(Self::NAME));
        }
        let count = out.len() / e;
        let mut chunks = out.chunks_exact_mut(e);
        walk(p, enc, tables, count, |v| match chunks.next() {
            Some(o) => {
                o.copy_from_slice(&v.to_le_bytes()[..o.len()]);
                true
            }
            None => false,
        })
        .ok_or_else(|| differs(Self::NAME))
    }
}

crate::format::codec::words!(DecodeHuffmanParams {
    wide: bool,
    first: u32,
    element: u32
});

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// TFLM's unit test (`decode_state_huffman_test.cc`): its codewords and 16-bit tables.
    #[test]
    fn tflm_unit_test_16_bit() {
        let enc: [u8; 32] = [
            0xF0, 0x0D, 0x79, 0xFC, 0x9C, 0x1A, 0x6E, 0x4C, 0x32, 0xAF, 0x29, 0xB3, 0x5D, 0xF6,
            0x36, 0x02, 0x50, 0x15, 0x8C, 0xA7, 0x95, 0xDB, 0x29, 0x68, 0x3F, 0xBA, 0xB7, 0xED,
            0xB1, 0x19, 0xE2, 0xE0,
        ];
        let p = DecodeHuffmanParams {
            wide: false,
            first: 3,
            element: 1,
        };
        let tables: Vec<u8> = [
            0x986Du16, 0x9861, 0x986A, 0x0005, 0x0806, 0x0809, 0x000E, 0x000F, 0x886F, 0x8868,
            0x8864, 0x8864, 0x9069, 0x9066, 0x8863, 0x8863, 0x0002, 0x906B, 0x8867, 0x886C, 0x8865,
            0x8862, 0x8870, 0x886E,
        ]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
        let mut got = Vec::new();
        walk(&p, &enc, &tables, 64, |v| {
            got.push(v as u8);
            true
        })
        .unwrap();
        // TFLM's expected output.
        assert_eq!(
            got,
            b"nmmacnanefdacopjomeckifookhbdbdmjjdmjgojfecpbiibmanbbjbnlgjafejp"
        );
        // Past the words: refused.
        assert!(walk(&p, &enc[..4], &tables, 64, |_| true).is_none());
    }
}
