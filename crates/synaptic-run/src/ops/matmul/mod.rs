//! The matrix-product family: FULLY_CONNECTED ([`fully_connected`]), int8 (per-tensor and
//! per-channel), int16 (16x8) and float32, its int8 input offset and bias folded into the
//! program's constants; BATCH_MATMUL ([`batch_matmul`]), int8, int16 and float32.

pub mod batch_matmul;
pub mod fully_connected;
