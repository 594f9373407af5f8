//! The elementwise family: one output element from the inputs' elements at its position —
//! the broadcasting binary operators ADD, MUL, DIV, MINIMUM, MAXIMUM over what they share
//! ([`binary`]), the activations LOGISTIC, RELU and RELU6, and the conversions QUANTIZE,
//! DEQUANTIZE and CAST.

pub mod add;
pub mod binary;
pub mod cast;
pub mod dequantize;
pub mod div;
pub mod logistic;
pub mod minimum_maximum;
pub mod mul;
pub mod quantize;
pub mod relu;
