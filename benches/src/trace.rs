//! Allocation traces derived from real models.
//!
//! A [`ModelTrace`] is everything an allocator sees when a runtime loads a model and runs it:
//! persistent loads (weights, one per unique constant buffer, and variable tensors), the shared
//! I/O tensors (graph inputs and outputs), and per inference the activations in execution order,
//! each freed right after its last reader (for heaps), then the ephemeral reset.
//!
//! Source: `synaptic_plan::allocation_sequence` (the planner's import, lifetimes and plan),
//! mapped onto the plain structs below so the replay loop touches no `Vec`s of strings.

use std::path::PathBuf;

use synaptic_mem::plan::PlanSlot;
use synaptic_mem::{block_span, shape_bytes, DType};
use synaptic_plan::{allocation_sequence, CoreRequest, Model, SizingOptions};

/// The four traces every benchmark replays.
pub const DEFAULT_TRACES: [&str; 4] = [
    "person_detect",
    "kws_ref_model",
    "micro_speech_quantized",
    "pretrainedResnet_quant",
];

/// Shape (padded to 4-D), data type and byte size of one tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorSpec {
    /// Dimensions; only the first `ndim` are used.
    pub shape: [u32; 4],
    /// Number of used dimensions (1..=4).
    pub ndim: u8,
    /// Element type.
    pub dtype: DType,
    /// Bytes of data (as `synaptic_mem::shape_bytes` computes them).
    pub bytes: u32,
}

impl TensorSpec {
    /// The used dimensions.
    #[inline(always)]
    pub fn dims(&self) -> &[u32] {
        &self.shape[..self.ndim as usize]
    }
}

/// One activation: its tensor and the operators (0-based, execution order) it is live at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Activation {
    /// The tensor.
    pub spec: TensorSpec,
    /// Operator that produces it.
    pub first_op: u32,
    /// Last operator that reads it (inclusive).
    pub last_op: u32,
    /// Its slot in [`ModelTrace::plan_slots`] (for the planned path).
    pub slot: u32,
}

/// One step of an inference, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Allocate activation `.0` (index into [`ModelTrace::activations`]).
    Alloc(u32),
    /// Activation `.0` is past its last use (heaps free it; bump allocators ignore it).
    Free(u32),
    /// Acquire `.0` bytes of per-operator scratch (released right after the operator).
    Scratch(u32),
    /// Release the scratch buffer acquired by the previous `Scratch` event.
    ScratchRelease,
}

/// A model's whole allocation sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelTrace {
    /// Model name (file stem).
    pub name: String,
    /// Operators in the main subgraph.
    pub n_ops: u32,
    /// Persistent loads: weights (one per unique constant buffer) and variable tensors.
    pub persistent: Vec<TensorSpec>,
    /// Shared I/O: graph inputs and outputs.
    pub shared: Vec<TensorSpec>,
    /// Activations in execution order.
    pub activations: Vec<Activation>,
    /// Per-operator scratch requests `(operator, bytes)`; empty when the source gives none.
    pub scratch: Vec<(u32, u32)>,
    /// One inference: allocations in execution order, frees at end of life, scratch.
    pub events: Vec<Event>,
    /// The planner's ephemeral plan (slot per activation), for the planned path.
    pub plan_slots: Vec<PlanSlot>,
    /// Size of the planned ephemeral region.
    pub plan_region_size: u64,
}

/// Where the shared models live: `<project root>/../shared/models`.
pub fn models_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/models")
}

impl TensorSpec {
    /// The spec of a core request (1..=4 dimensions, core dtype, exact bytes).
    pub fn of(r: &CoreRequest) -> Result<Self, String> {
        let mut s = TensorSpec {
            shape: [1; 4],
            ndim: r.shape.len() as u8,
            dtype: r.dtype,
            bytes: r.bytes,
        };
        if !(1..=4).contains(&r.shape.len()) {
            return Err(format!("request with {} dimensions", r.shape.len()));
        }
        s.shape[..r.shape.len()].copy_from_slice(&r.shape);
        match shape_bytes(s.dims(), s.dtype) {
            Ok((_, b)) if b == r.bytes => Ok(s),
            _ => Err(format!("request {r:?} is not a valid core allocation")),
        }
    }
}

impl ModelTrace {
    /// Loads `<models_dir>/<name>.tflite` and derives its trace. Fails with a clear message if
    /// the shared models are missing.
    pub fn load(name: &str) -> Result<Self, String> {
        let path = models_dir().join(format!("{name}.tflite"));
        let bytes = std::fs::read(&path).map_err(|e| {
            format!(
                "cannot read model {} ({e}); the benchmarks need the shared models in \
                 ../shared/models next to the project root",
                path.display()
            )
        })?;
        Self::from_tflite(name, &bytes).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Loads every trace in [`DEFAULT_TRACES`], exiting with a clear message on error.
    pub fn load_defaults() -> Vec<Self> {
        DEFAULT_TRACES
            .iter()
            .map(|n| Self::load(n).unwrap_or_else(|e| panic!("{e}")))
            .collect()
    }

    /// Derives a trace from `.tflite` bytes through `synaptic-plan`'s import and planner.
    pub fn from_tflite(name: &str, bytes: &[u8]) -> Result<Self, String> {
        let model = Model::from_bytes(bytes).map_err(|e| e.to_string())?;
        let seq = allocation_sequence(
            model,
            // The peers replay plain plans (no declared overlap).
            &SizingOptions {
                overlap: false,
                ..SizingOptions::default()
            },
        )
        .map_err(|e| e.to_string())?;
        let persistent = seq
            .persistent
            .iter()
            .map(|p| TensorSpec::of(&p.request))
            .collect::<Result<_, _>>()?;
        let shared = seq
            .shared
            .iter()
            .map(|p| TensorSpec::of(&p.request))
            .collect::<Result<_, _>>()?;
        let activations = seq
            .activations
            .iter()
            .map(|a| {
                Ok(Activation {
                    spec: TensorSpec::of(&a.request)?,
                    first_op: a.first_op as u32,
                    last_op: a.last_op as u32,
                    slot: a.slot as u32,
                })
            })
            .collect::<Result<_, String>>()?;
        let scratch = seq
            .scratch_per_op
            .iter()
            .flatten()
            .enumerate()
            .filter(|(_, &b)| b > 0)
            .map(|(op, &b)| (op as u32, b.min(u32::MAX as u64) as u32))
            .collect();
        let mut t = ModelTrace {
            name: name.to_string(),
            n_ops: seq.operators as u32,
            persistent,
            shared,
            activations,
            scratch,
            events: Vec::new(),
            plan_slots: seq.plan_slots,
            plan_region_size: seq.plan_region_size,
        };
        t.build_events();
        Ok(t)
    }

    /// (Re)builds [`ModelTrace::events`] from the activations and scratch requests.
    pub fn build_events(&mut self) {
        let mut ev = Vec::new();
        let mut next = 0usize;
        for k in 0..self.n_ops {
            while next < self.activations.len() && self.activations[next].first_op == k {
                ev.push(Event::Alloc(next as u32));
                next += 1;
            }
            for &(op, bytes) in &self.scratch {
                if op == k {
                    ev.push(Event::Scratch(bytes));
                    ev.push(Event::ScratchRelease);
                }
            }
            for (i, a) in self.activations.iter().enumerate().take(next) {
                if a.last_op == k {
                    ev.push(Event::Free(i as u32));
                }
            }
        }
        self.events = ev;
    }

    /// Allocations in one inference (activations and scratch buffers).
    pub fn allocs_per_inference(&self) -> usize {
        self.events
            .iter()
            .filter(|e| matches!(e, Event::Alloc(_) | Event::Scratch(_)))
            .count()
    }

    /// Bytes a bump allocator needs for one inference's activations (descriptor + data each).
    pub fn bump_activation_bytes(&self) -> usize {
        self.activations
            .iter()
            .map(|a| block_span(a.spec.bytes as u64) as usize)
            .sum()
    }

    /// Bytes a bump allocator needs for the persistent loads.
    pub fn bump_persistent_bytes(&self) -> usize {
        self.persistent
            .iter()
            .map(|s| block_span(s.bytes as u64) as usize)
            .sum()
    }

    /// Bytes a bump allocator needs for the shared I/O tensors.
    pub fn bump_shared_bytes(&self) -> usize {
        self.shared
            .iter()
            .map(|s| block_span(s.bytes as u64) as usize)
            .sum()
    }
}
