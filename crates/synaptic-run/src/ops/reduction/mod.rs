//! The reduction family: operators whose outputs each read a whole axis of the input —
//! MEAN ([`mean`]), SOFTMAX ([`softmax`], its maximum and sum along the last axis),
//! LOG_SOFTMAX ([`log_softmax`], the same and a logarithm), ARG_MAX and ARG_MIN
//! ([`arg_min_max`]), L2_NORMALIZATION ([`l2_normalization`], its sum of squares along the
//! last axis).

pub mod arg_min_max;
pub mod l2_normalization;
pub mod log_softmax;
pub mod mean;
pub mod softmax;
