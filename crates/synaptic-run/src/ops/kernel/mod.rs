//! The kernel plumbing every operator family builds on, and nothing operator-specific: the
//! element traits and shape rules ([`common`]), the float32 arithmetic TFLM's reference kernels
//! use ([`float`]), overlapped execution on one buffer ([`in_place`]), what a kernel is handed
//! (`operands`), what a preparation works with and returns (`prep`), the program's
//! per-entry tables (`tables`) and the kernels' paths ([`paths`]). The operator list and its
//! dispatch are `ops/mod.rs`; the operators are the family folders beside this one.

pub mod common;
pub mod float;
pub mod in_place;
pub(crate) mod operands;
pub mod paths;
pub(crate) mod prep;
pub(crate) mod tables;
