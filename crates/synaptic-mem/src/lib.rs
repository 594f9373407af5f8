//! # synaptic-mem
//!
//! The tensor memory model of SynapticOS: one fixed arena split into a **persistent** region
//! (weights; grows up from the base), an **ephemeral** region (activations; right after the
//! persistent one, reclaimed wholesale between inferences) and an isolated **scratch pool** at
//! the top (per-layer intermediates), plus a separately registered **shared** (IPC) region for
//! model inputs and outputs.
//!
//! ```text
//! [base ... persistent → ... ephemeral → ...      | scratch pool ...]
//! ```
//!
//! * Every allocation is 16-byte aligned: the [`TensorDesc`] at an aligned offset, its data at
//!   the next 16-byte boundary ([`DESC_SPAN`] = 32 bytes later).
//! * Allocation is a bump (align, check, advance): constant cost whatever the size. `free` and
//!   scratch `release` are deliberate no-ops; `reset_ephemeral` is O(1); only re-initialising
//!   reclaims persistent memory.
//! * A failed allocation returns an [`AllocError`] saying why and how many bytes were needed and
//!   free, and changes nothing but the failure count.
//!
//! Two layers: [`raw::RawArena`] (pointers and offsets, the C API's base; the crate's only
//! `unsafe` code lives in [`raw`]) and the safe scoped API in [`arena`], where using an
//! activation after the reset that reclaimed it does not compile.
//!
//! ```
//! use synaptic_mem::{Arena, ArenaBuffer, DType, ErrorKind};
//! let mut buf = ArenaBuffer::<131072>::new();
//! let mut arena = Arena::new(buf.as_mut_slice()).unwrap();
//! let (loader, mut runner) = arena.split();
//! let w = loader.persistent(&[16, 16], DType::Int8).unwrap();
//! runner.inference(|inf| {
//!     let a = inf.ephemeral(&[1, 16], DType::Int8).unwrap();
//!     assert_eq!(a.as_ptr() as usize % 16, 0);
//!     // weights can't grow while activations are live:
//!     assert_eq!(loader.persistent(&[4], DType::Int8).unwrap_err().kind, ErrorKind::EphemeralLive);
//! });
//! assert_eq!(runner.stats().persistent_used, 32 + 256);
//! println!("{}", runner.stats());
//! # drop(w);
//! ```
#![no_std]
#![deny(missing_docs)]
#![deny(unsafe_code)]
#![warn(clippy::undocumented_unsafe_blocks)]

pub mod arena;
pub mod config;
pub mod dtype;
pub mod error;
pub mod plan;
#[allow(unsafe_code)]
pub mod raw;
pub mod stats;
pub mod tensor;

pub use arena::{Arena, ArenaBuffer, Inference, Loader, PlanHandle, PlannedInference, Runner};
pub use config::{
    ArenaConfig, ArenaLayout, ConfigError, Floors, ALIGN, DEFAULT_ARENA_SIZE, DEFAULT_SCRATCH_SIZE,
    MAX_ARENA_SIZE, MAX_SCRATCH_SIZE, MAX_SHARED_SIZE, MIN_ARENA_SIZE, MIN_EXACT_ARENA_SIZE,
    MIN_SCRATCH_SIZE, MIN_SHARED_SIZE,
};
pub use dtype::{shape_bytes, DType, Element, Lifetime, MAX_TENSOR_BYTES};
pub use error::{AllocError, ErrorKind, Region};
pub use plan::{
    LoadedPlan, OverlapDirection, OverlapPair, OverlapSpan, Plan, PlanError, PlanLoadError,
    PlanRegion, PlanRun, PlanSlot, SlotType, TypedPlan,
};
#[cfg(target_has_atomic = "8")]
pub use raw::StaticArenaBuffer;
pub use raw::{DTypeMismatch, RawArena, Scratch, Tensor};
pub use stats::Stats;
/// The README's Rust code, compiled and run as doctests so it cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

pub use tensor::{block_span, data_span, TensorDesc, TensorRequest, DESC_SPAN};
