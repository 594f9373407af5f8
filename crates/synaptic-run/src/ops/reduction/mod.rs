//! The reduction family: operators whose outputs each read a whole axis of the input —
//! MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_ALL ([`reduce`]), SOFTMAX ([`softmax`], its
//! maximum and sum along the last axis), ARG_MAX and ARG_MIN ([`arg_min_max`]), CUMSUM
//! ([`cumsum`], the running sum along an axis).

pub mod arg_min_max;
pub mod cumsum;
pub mod reduce;
pub mod softmax;
