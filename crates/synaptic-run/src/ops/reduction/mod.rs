//! The reduction family: operators whose outputs each read a whole axis of the input —
//! MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_ALL ([`reduce`]), SOFTMAX ([`softmax`], its
//! maximum and sum along the last axis), LOG_SOFTMAX ([`log_softmax`], the same and a
//! logarithm), ARG_MAX and ARG_MIN ([`arg_min_max`]), CUMSUM ([`cumsum`], the running sum along
//! an axis), L2_NORMALIZATION ([`l2_normalization`], its sum of squares along the last axis).

pub mod arg_min_max;
pub mod cumsum;
pub mod l2_normalization;
pub mod log_softmax;
pub mod reduce;
pub mod softmax;
