//! # synaptic-plan
//!
//! Model-aware memory for SynapticOS: import a TensorFlow Lite (`.tflite`) model, compute every
//! activation's lifetime, size each region of the arena in the spec's terms, plan activations
//! into a reused ephemeral region, and hand the plan to the core
//! ([`synaptic_mem::plan::Plan`]) or to firmware ([`emit`]).
//!
//! * [`Model`] — the main subgraph: tensors (shape, dtype, bytes, constant / variable /
//!   activation, graph input/output) and operators in execution order. Read with
//!   [`synaptic_tflite`], the one `.tflite` reader SynapticOS shares with its no_std runtime
//!   (structure verified once at open, every access bounds-checked); malformed, truncated or
//!   hostile files give an [`ImportError`], never a panic.
//! * [`lifetimes`] / [`live_lower_bound`] — lifetimes in the models README's scopes.
//! * [`plan_items`] — the planner (bump, greedy-by-size, best = heuristics + hill-climbing +
//!   exact branch-and-bound), reporting whether each plan is proven optimal.
//! * [`overlap`] — plans below the live-set bound: outputs overlapping dying inputs as the
//!   kernels' access contracts (`synaptic_run::contract`) allow, the overlap lower bound, and
//!   the declared pairs ([`SizingOptions::overlap`], on by default; `synaptic_run::Interpreter`
//!   runs them).
//! * [`Analysis`] — sizing by region (persistent, ephemeral, scratch, shared) and the verdict
//!   against an arena configuration; [`Report`] is what `synmem plan --json` prints.
//! * [`allocation_sequence`] — the whole allocation sequence, for replays on the core and on
//!   other allocators.
//! * [`tflm`] — TensorFlow Lite Micro's offline memory plans (`OfflineMemoryAllocation`
//!   metadata): plan in TFLM's semantics, write into the model, read and check existing ones.
//! * [`render`] — the text `synmem` prints (`inspect`, `plan`), [`svg`] the plan as a picture,
//!   [`emit`] the plan as Rust or C source.
//!
//! Every block and layout figure comes from the core: [`synaptic_mem::block_span`] /
//! [`synaptic_mem::data_span`] for one tensor, [`synaptic_mem::ArenaConfig::layout`] for the
//! tensor space and scratch pool of a configuration — nothing here re-derives them.
//!
//! ```no_run
//! use synaptic_plan::{Analysis, Model, SizingOptions};
//! let model = Model::from_file("../shared/models/person_detect.tflite")?;
//! let analysis = Analysis::new(model, &SizingOptions::default())?;
//! let r = &analysis.report;
//! println!("{}: live bound {} B, planned {} B (optimal: {})",
//!          r.model, r.live_lower_bound_bytes, r.planned_activation_bytes, r.proven_optimal);
//! println!("{}", analysis.verdict());
//! let plan = analysis.ephemeral_plan.core_plan(); // synaptic_mem::Plan
//! assert!(plan.validate().is_ok());
//! # Ok::<(), synaptic_plan::ImportError>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod analysis;
pub mod emit;
mod error;
mod lifetime;
mod model;
pub mod overlap;
mod planner;
pub mod reference;
pub mod render;
pub mod svg;
mod text;
pub mod tflm;
pub mod tflm_arena;
pub mod trace;

pub use analysis::{
    runtime_refusal, runtime_types, scratch_table_pool, Analysis, IoPlacement, OverlapInfo,
    PersistentBreakdown, Report, RuntimeNeed, Shortfall, SizingOptions, WeightsPlacement,
};
pub use error::ImportError;
pub use lifetime::{lifetimes, live_lower_bound, Lifetime};
pub use model::{
    read_file_limited, Model, Operator, TensorInfo, TensorKind, TensorType, CONTRACT_WORK_BUDGET,
    DEFAULT_MAX_FILE_BYTES, MAX_ITEMS,
};
pub use planner::{
    items_lower_bound, plan_items, MemoryPlan, PlanItem, PlanOptions, SearchStats, Strategy,
    GREEDY_MAX_ITEMS, SEARCH_MAX_ITEMS,
};
pub use trace::{
    allocation_sequence, sequence_of, ActivationEntry, AllocationSequence, CoreRequest,
    PersistentEntry, PersistentKind, SharedEntry, TensorRef,
};
