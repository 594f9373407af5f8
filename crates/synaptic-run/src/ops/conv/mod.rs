//! The convolution family: CONV_2D ([`conv_2d`]) and DEPTHWISE_CONV_2D ([`depthwise_conv_2d`]),
//! int8 (per-channel) and float32, with their windowed access contracts (so an output may
//! overlap its dying input) and the row kernels' scratch.

pub mod conv_2d;
pub mod depthwise_conv_2d;
