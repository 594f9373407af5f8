//! `crates/synaptic-py/src/owned.rs` compiled alone (it names no PyO3 item), so that Miri can
//! check its `unsafe`: the self-owning loaded model, its `Drop` and its `'static` borrows.
#![allow(dead_code)]

#[path = "../src/owned.rs"]
pub mod owned;

#[cfg(test)]
#[path = "src/tests.rs"]
mod tests;
