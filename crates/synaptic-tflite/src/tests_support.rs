//! A small committed model for the examples (not part of the API).

/// A one-operator int8 ADD model (`crates/synaptic-run/tests/models/add_same_relu.tflite`).
pub fn tiny_model() -> &'static [u8] {
    include_bytes!("../../synaptic-run/tests/models/add_same_relu.tflite")
}
