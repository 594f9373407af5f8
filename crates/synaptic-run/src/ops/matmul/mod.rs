//! The matrix-product family: FULLY_CONNECTED ([`fully_connected`]), int8 (per-tensor and
//! per-channel) and float32, its input offset and bias folded into the program's constants.

pub mod fully_connected;
