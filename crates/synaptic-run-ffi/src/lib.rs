//! # synaptic-run-ffi
//!
//! The C API of the SynapticOS runtime: `libsynaptic_run_ffi.a` plus
//! `include/synaptic/syn_run.h` (generated from this crate by cbindgen and committed): load an
//! int8 `.tflite` model with its plan ([`synaptic_run::Interpreter`]) into an arena the
//! application gives, fill its input, invoke, read its output, get its memory figures. The
//! library also holds the `syn_mem_*` API of `syn_mem.h` (this crate links
//! [`synaptic_mem_ffi`]), so firmware links one library.
//!
//! * No heap and no global state but the last error: each model lives in a `syn_run_model_t`
//!   the application provides (its size is `SYN_RUN_MODEL_WORDS` 64-bit words, checked at
//!   compile time against the Rust state for 32- and 64-bit pointers) with its own arena and
//!   shared region, so several models coexist.
//! * Every entry point is sound for any arguments C can pass (NULL, misaligned or overlapping
//!   buffers, wrong sizes and indices, an object never loaded, moved or copied, a concurrent
//!   call on the same object): a negative errno ([`synaptic_mem_ffi::errno`], the same codes as
//!   `syn_mem`) and a message (`syn_run_last_error`, `syn_run_last_error_message`); a failure
//!   changes nothing.
//! * Without the default `std` feature the crate is `#![no_std]` (e.g. `cargo build -p
//!   synaptic-run-ffi --no-default-features --target thumbv7m-none-eabi`); the panic handler is
//!   synaptic-mem-ffi's.
//!
//! All `unsafe` code lives in the `ffi` module; the Rust-visible items here are the C types.
#![cfg_attr(not(any(feature = "std", test)), no_std)]
#![deny(missing_docs)]
#![deny(unsafe_code)]
#![warn(clippy::undocumented_unsafe_blocks)]

pub mod error;
// A `Failure` carries its message in a fixed buffer (no heap), so its `Result`s are large by
// design; they only travel up to the entry point that records them.
#[allow(unsafe_code, clippy::result_large_err)]
mod ffi;
pub mod types;

pub use ffi::{
    syn_run_input, syn_run_invoke, syn_run_invoke_copy, syn_run_io_info, syn_run_last_error,
    syn_run_last_error_message, syn_run_load, syn_run_memory, syn_run_output, syn_run_reset_state,
    syn_run_unload,
};
pub use types::{
    SynPlanOverlap, SynRunConfig, SynRunIo, SynRunIoInfo, SynRunMemory, SynRunModel,
    SYN_RUN_MESSAGE_MAX, SYN_RUN_MODEL_WORDS, SYN_RUN_MODEL_WORDS_32, SYN_RUN_MODEL_WORDS_64,
};
// The syn_mem C API, in the same library.
pub use synaptic_mem_ffi;

#[cfg(test)]
#[allow(unsafe_code)]
mod tests;
