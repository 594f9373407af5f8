//! # synaptic-mem-ffi
//!
//! The C API of the SynapticOS tensor arena: `libsynaptic_mem_ffi.a` plus
//! `include/synaptic/syn_mem.h` (generated from this crate by cbindgen and committed), exactly
//! the spec's `syn_mem_*` surface over one global [`synaptic_mem::RawArena`], with a few
//! extensions (`syn_mem_init_ex`, `syn_mem_shared_init`, `syn_mem_last_error`,
//! `syn_mem_set_print_fn`, and the planned path `syn_mem_plan_load`, `syn_mem_plan_begin`,
//! `syn_mem_tensor_alloc_planned` for plans emitted by `synmem emit --lang c`).
//!
//! * State (the arena, the last error and the print callback) lives in one
//!   `critical_section::Mutex`, so every entry point is safe from several threads (host, `std`
//!   feature: the `critical-section` std implementation) or from interrupt handlers (Cortex-M:
//!   the `cortex-m-single-core` feature links `cortex-m`'s single-core implementation into the
//!   library; a Rust firmware may link its own; an RTOS defines `_critical_section_1_0_acquire`
//!   and `_critical_section_1_0_release`, as the Zephyr module does with `irq_lock`).
//! * Without the default `std` feature the crate is `#![no_std]` (e.g.
//!   `cargo build -p synaptic-mem-ffi --no-default-features --target thumbv7m-none-eabi`); it
//!   then provides the `#[panic_handler]` its staticlib needs (a trap, or with the `panic-hook`
//!   feature a call to the firmware's `synaptic_mem_ffi_panic`).
//! * Errors are negative errnos, see [`errno`]; the Kconfig values in force are in [`config`].
//!
//! All `unsafe` code lives in the `ffi` module; the Rust-visible items here are the C types.
#![cfg_attr(not(any(feature = "std", test)), no_std)]
#![deny(missing_docs)]
#![deny(unsafe_code)]
#![warn(clippy::undocumented_unsafe_blocks)]

// The single-core critical section (`cortex-m-single-core`): linked for its
// `_critical_section_1_0_*` symbols, named nowhere else.
#[cfg(all(
    feature = "cortex-m-single-core",
    target_arch = "arm",
    target_os = "none"
))]
use cortex_m as _;

pub mod config;
pub mod errno;
#[allow(unsafe_code)]
mod ffi;
mod print;
mod types;

pub use ffi::{
    syn_mem_get_stats, syn_mem_init, syn_mem_init_ex, syn_mem_last_error, syn_mem_plan_begin,
    syn_mem_plan_load, syn_mem_print_stats, syn_mem_reset_ephemeral, syn_mem_scratch_acquire,
    syn_mem_scratch_release, syn_mem_set_print_fn, syn_mem_shared_init, syn_mem_tensor_alloc,
    syn_mem_tensor_alloc_planned, syn_mem_tensor_free,
};
pub use types::{
    RawDtype, RawLifetime, SynMemLifetime, SynMemPlan, SynMemPrintFn, SynMemStats, SynNpuDtype,
    SynTensor, SYN_MEM_ALIGN, SYN_MEM_DESC_SPAN, SYN_MEM_MAX_DIMS, SYN_MEM_PLAN_WORDS,
};

#[cfg(test)]
#[allow(unsafe_code)]
mod tests;
