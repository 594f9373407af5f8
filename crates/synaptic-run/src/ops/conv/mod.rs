//! The convolution family: CONV_2D ([`conv_2d`]) and DEPTHWISE_CONV_2D ([`depthwise_conv_2d`]),
//! int8 (per-channel) and float32, with their windowed access contracts (so an output may
//! overlap its dying input) and the row kernels' scratch, and int16 ([`conv_i16`]: 16x8, no
//! overlap), and int8 with a packed INT4 filter ([`conv_i4`]: unpacked to scratch, no
//! overlap); TRANSPOSE_CONV ([`transpose_conv`]), int8 (per-channel), int16 and float32, TFLM's
//! scatter (no overlap).

pub mod conv_2d;
pub mod conv_i16;
pub mod conv_i4;
pub mod depthwise_conv_2d;
pub mod transpose_conv;

// The requantization of the whole int8 range in assembly, one file per Thumb-2 ISA (the same
// names in each; their `unsafe` there).
#[cfg(synaptic_dsp)]
#[allow(unsafe_code)]
pub(crate) mod requant_dsp;
#[cfg(synaptic_dsp)]
pub(crate) use requant_dsp as requant;
#[cfg(synaptic_mla)]
#[allow(unsafe_code)]
pub(crate) mod requant_mla;
#[cfg(synaptic_mla)]
pub(crate) use requant_mla as requant;

/// The two sums `(A, B)` of a packed sum `s = A + B · 2²³` (two pixels' products summed by
/// one `SMLAL` a pair on the Thumb-2 cores without the DSP extension: CONV_2D's pair windows,
/// DEPTHWISE_CONV_2D's pixel pairs), `|A| < 2²²`: `A` the low 23 bits sign-extended, `B` the
/// rest.
#[cfg(not(any(synaptic_dsp, synaptic_v6m)))]
#[inline(always)]
pub(crate) fn unpack23(s: i64) -> (i32, i32) {
    let a = ((s as i32) << 9) >> 9;
    let b = (s.wrapping_sub(i64::from(a)) >> 23) as i32;
    (a, b)
}
