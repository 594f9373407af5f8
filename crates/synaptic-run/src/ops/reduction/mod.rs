//! The reduction family: operators whose outputs each read a whole axis of the input —
//! MEAN ([`mean`]) and SOFTMAX ([`softmax`], its maximum and sum along the last axis).

pub mod mean;
pub mod softmax;
