//! TFLM's DECODE custom operator (`TFLM_DECODE`): the decompression of a compressed model's
//! tensors (`tensorflow/lite/micro/kernels/decode.cc`), one module per decode type TFLM runs.
//!
//! Its inputs come in pairs, an encoded tensor and its ancillary tensor, both constants; each
//! pair decodes into one output (usually a weight of a later operator, planned here as an
//! activation). The ancillary tensor opens with TFLM's 16-byte DECODE Common Metadata
//! (`decode_state.h`, `compression/decode.py`):
//!
//! | byte | what |
//! |---|---|
//! | 0 | the decode type: 0 LUT ([`tflm_decode::DecodeLut`]), 1 Huffman ([`huffman::DecodeHuffman`]), 2 Prune ([`prune::DecodePrune`]), 127 custom |
//! | 1 | the DCM version (1) |
//! | 2–3 | reserved |
//! | 4–15 | the decode type's own (LUT: its version, bit width, value table stride; Prune: its version; Huffman: its version, table element size, first lookup) |
//!
//! the decode type's data after it.

pub mod huffman;
pub mod prune;
pub mod tflm_decode;
