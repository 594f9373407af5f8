//! Object detection's post-processing: TFLM's `TFLite_Detection_PostProcess` custom operator
//! ([`postprocess`]), matched by its custom code ([`super::CUSTOM_OPS`]).

pub mod postprocess;
