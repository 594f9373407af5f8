//! The full allocation sequence of a model, for replaying it on the core arena (the planned
//! runtime's "a size you can trust" test) or on other allocators (the benchmarks).
//!
//! A replay does, in order:
//!
//! 1. **Load** — for each entry of [`AllocationSequence::persistent`], allocate a PERSISTENT
//!    tensor of [`CoreRequest::shape`] / [`CoreRequest::dtype`] (weights first, in tensor
//!    order, one per distinct buffer — skipped when weights stay in flash, see
//!    [`PersistentEntry::data_in_flash`] — then variable tensors). With a planned strategy the
//!    runtime also needs one descriptor per plan slot in the persistent region
//!    ([`AllocationSequence::activation_descriptor_bytes`]).
//! 2. **Shared** — register a shared region of [`AllocationSequence::shared_bytes`] and allocate
//!    each of [`AllocationSequence::shared`] as SHARED (graph inputs, then outputs).
//! 3. **Each inference** — for each of [`AllocationSequence::activations`] (execution order:
//!    by the operator that produces it, then by output position), allocate an EPHEMERAL tensor;
//!    with a plan, at slot [`ActivationEntry::slot`] of [`AllocationSequence::plan_slots`].
//!    Before operator `op` runs, the activations with `first_op == op` exist; after operator
//!    `last_op` a heap-based allocator may free the tensor ([`ActivationEntry::last_op`]).
//!    Acquire scratch per [`AllocationSequence::scratch_per_op`] if given, then reset.
//!
//! Every size is the core's: [`CoreRequest`] gives a shape of at most four dimensions and a
//! [`synaptic_mem::DType`] whose byte size (`synaptic_mem::shape_bytes`) equals the TFLite
//! tensor's exactly, so `arena_peak` after a replay equals the report's figures.

use crate::analysis::{Analysis, SizingOptions, WeightsPlacement};
use crate::error::ImportError;
use crate::model::{Model, TensorInfo, TensorKind, TensorType};
use serde::Serialize;
use synaptic_mem::plan::PlanSlot;
use synaptic_mem::{block_span, shape_bytes, DType};

/// A request the core's `alloc(shape, dtype, lifetime)` accepts, with exactly the tensor's bytes.
///
/// Element types the core does not have are stored as a core type of the same width
/// (`u16`→`Int16`, `u32`→`Int32`, `bool`→`UInt8`) or, for 64/128-bit types, as `Int32` with
/// the last dimension multiplied by 2 or 4. Shapes of more than four dimensions are folded
/// into their leading dimension; a scalar becomes `[1]`.
///
/// ```
/// use synaptic_plan::{CoreRequest, TensorType};
/// let r = CoreRequest::new(&[2, 3, 4, 5, 6], TensorType::UInt64).unwrap();
/// assert_eq!(r.shape, vec![6, 4, 5, 12]);
/// assert_eq!(r.dtype, synaptic_mem::DType::Int32);
/// assert_eq!(r.bytes, 2 * 3 * 4 * 5 * 6 * 8);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CoreRequest {
    /// 1 to 4 dimensions, none zero.
    pub shape: Vec<u32>,
    /// Core element type.
    #[serde(serialize_with = "ser_dtype")]
    pub dtype: DType,
    /// Data bytes (`shape_bytes(shape, dtype)`, equal to the TFLite tensor's bytes).
    pub bytes: u32,
}

fn ser_dtype<S: serde::Serializer>(d: &DType, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(d.name())
}

fn ser_slots<S: serde::Serializer>(v: &[PlanSlot], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(v.len()))?;
    for p in v {
        seq.serialize_element(&[p.offset, p.size, p.first_op as u32, p.last_op as u32])?;
    }
    seq.end()
}

fn ser_overlaps<S: serde::Serializer>(
    v: &[synaptic_mem::plan::OverlapPair],
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(v.len()))?;
    for p in v {
        seq.serialize_element(&[
            i64::from(p.op),
            i64::from(p.input),
            i64::from(p.output),
            p.direction as i64,
            i64::from(p.bound),
        ])?;
    }
    seq.end()
}

impl CoreRequest {
    /// The core request for a TFLite tensor of `shape` and `dtype`; its byte size (the core's
    /// `shape_bytes`) is checked to equal the TFLite size ([`TensorType::bytes_of`]).
    pub fn new(shape: &[u32], dtype: TensorType) -> Result<CoreRequest, ImportError> {
        let tflite_bytes = dtype.bytes_of(shape);
        use TensorType as T;
        let (core, widen) = match dtype {
            T::Int8 => (DType::Int8, 1),
            T::UInt8 | T::Bool => (DType::UInt8, 1),
            T::Int16 | T::UInt16 => (DType::Int16, 1),
            T::Float16 => (DType::Float16, 1),
            T::BFloat16 => (DType::BFloat16, 1),
            T::Int32 | T::UInt32 => (DType::Int32, 1),
            T::Float32 => (DType::Float32, 1),
            T::Int4 => (DType::Int4, 1),
            T::Int64 | T::UInt64 | T::Float64 | T::Complex64 => (DType::Int32, 2),
            T::Complex128 => (DType::Int32, 4),
            T::String | T::Resource | T::Variant => {
                return Err(ImportError::unsupported(format!(
                    "{dtype:?} tensors have no fixed size"
                )))
            }
        };
        let mut dims: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
        if dims.is_empty() {
            dims.push(1);
        }
        while dims.len() > 4 {
            let d1 = dims.remove(1);
            dims[0] = dims[0].saturating_mul(d1);
        }
        if let Some(last) = dims.last_mut() {
            *last = last.saturating_mul(widen);
        }
        let shape: Vec<u32> = dims
            .into_iter()
            .map(u32::try_from)
            .collect::<Result<_, _>>()
            .map_err(|_| ImportError::unsupported("a dimension does not fit the core's u32"))?;
        let (_, bytes) = shape_bytes(&shape, core).map_err(|e| {
            ImportError::unsupported(format!("the core cannot allocate shape {shape:?}: {e:?}"))
        })?;
        if tflite_bytes != Some(bytes as u64) {
            return Err(ImportError::unsupported(format!(
                "{dtype:?} tensor of shape {shape:?}: the core request has {bytes} bytes, the \
                 TFLite tensor {tflite_bytes:?}"
            )));
        }
        Ok(CoreRequest {
            shape,
            dtype: core,
            bytes,
        })
    }

    /// Bytes one core allocation of this request takes: the core's [`block_span`] (descriptor,
    /// then data rounded up to 16).
    pub fn block_bytes(&self) -> u64 {
        block_span(self.bytes as u64)
    }
}

/// Identity of a tensor in the model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TensorRef {
    /// Tensor index in the main subgraph.
    pub tensor: usize,
    /// Tensor name.
    pub name: String,
    /// TFLite element type.
    pub tflite_dtype: TensorType,
    /// TFLite shape (empty for a scalar).
    pub tflite_shape: Vec<u32>,
}

impl TensorRef {
    fn of(t: &TensorInfo) -> TensorRef {
        TensorRef {
            tensor: t.index,
            name: t.name.clone(),
            tflite_dtype: t.dtype,
            tflite_shape: t.shape.clone(),
        }
    }
}

/// What a persistent entry holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PersistentKind {
    /// Constant data (weights, biases) of model buffer `buffer`.
    Weights {
        /// Model buffer index.
        buffer: u32,
    },
    /// A variable tensor (LSTM/SVDF state).
    Variable,
}

/// One persistent allocation of the load phase.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PersistentEntry {
    /// The tensor.
    pub tensor: TensorRef,
    /// Weights or variable.
    pub kind: PersistentKind,
    /// The core request.
    pub request: CoreRequest,
    /// Other constant tensors sharing this buffer (no allocation of their own).
    pub aliases: Vec<usize>,
    /// With weights in flash: the data stays in flash and only a 32-byte descriptor is
    /// counted (the core has no descriptor-only allocation; a replay skips the entry and
    /// allocates [`AllocationSequence::flash_descriptor_bytes`] as one block instead, or ignores it).
    pub data_in_flash: bool,
}

/// One graph input/output in the shared region.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SharedEntry {
    /// The tensor.
    pub tensor: TensorRef,
    /// Graph input.
    pub is_input: bool,
    /// Graph output.
    pub is_output: bool,
    /// The core request.
    pub request: CoreRequest,
}

/// One per-inference activation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ActivationEntry {
    /// The tensor.
    pub tensor: TensorRef,
    /// The core request (`request.bytes` = `plan_slots[slot].size`).
    pub request: CoreRequest,
    /// Index into [`AllocationSequence::plan_slots`].
    pub slot: usize,
    /// First operator (0-based) at which it is live: allocate before this operator runs.
    pub first_op: usize,
    /// Last operator at which it is live: a heap may free it after this operator.
    pub last_op: usize,
}

/// A model's complete allocation sequence. See the [module docs](self) for the replay order.
///
/// ```no_run
/// use synaptic_plan::{allocation_sequence, Model, SizingOptions};
/// let model = Model::from_file("../../../shared/models/person_detect.tflite")?;
/// let seq = allocation_sequence(model, &SizingOptions::default())?;
/// for p in &seq.persistent { /* loader.persistent(&p.request.shape, p.request.dtype) */ }
/// for a in &seq.activations {
///     let slot = seq.plan_slots[a.slot];
///     assert_eq!(slot.size, a.request.bytes);
/// }
/// # Ok::<(), synaptic_plan::ImportError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AllocationSequence {
    /// Model name.
    pub model: String,
    /// Operators per inference.
    pub operators: usize,
    /// Load phase, in order: weights (one per distinct buffer, tensor order), then variables.
    pub persistent: Vec<PersistentEntry>,
    /// Shared region: graph inputs, then outputs (each once). Empty with `--io ephemeral`.
    pub shared: Vec<SharedEntry>,
    /// Per-inference activations in execution order.
    pub activations: Vec<ActivationEntry>,
    /// The plan of the ephemeral region, slot `k` for the `k`-th planned activation.
    #[serde(serialize_with = "ser_slots")]
    pub plan_slots: Vec<PlanSlot>,
    /// Size of the planned ephemeral region (data only).
    pub plan_region_size: u64,
    /// The plan's declared output/input overlaps (`[op, input slot, output slot, direction
    /// (0 forward, 1 backward), bound]` each; empty for a plain plan): load the plan with them
    /// (`Loader::load_overlapped_plan`).
    #[serde(serialize_with = "ser_overlaps")]
    pub plan_overlaps: Vec<synaptic_mem::plan::OverlapPair>,
    /// Per-operator scratch, if a table was given in the options.
    pub scratch_per_op: Option<Vec<u64>>,
    /// Persistent bytes of one descriptor per plan slot (planned runtime).
    pub activation_descriptor_bytes: u64,
    /// Persistent bytes of weight descriptors when weights stay in flash (0 otherwise).
    pub flash_descriptor_bytes: u64,
    /// Bytes the persistent load takes on the core (sum of `block_bytes`, plus descriptors).
    pub persistent_bytes: u64,
    /// Bytes the shared region needs.
    pub shared_bytes: u64,
    /// Bytes the bump path takes per inference (sum of activation `block_bytes`).
    pub bump_ephemeral_bytes: u64,
}

/// The full allocation sequence of `model` under `options` (plan with `options.plan`).
///
/// Figures agree with [`Analysis::report`]: `persistent_bytes`, `shared_bytes`,
/// `plan_region_size` (planned strategies) or `bump_ephemeral_bytes` (bump) are the report's
/// `persistent_bytes`, `shared_bytes` and `ephemeral_bytes`.
pub fn allocation_sequence(
    model: Model,
    options: &SizingOptions,
) -> Result<AllocationSequence, ImportError> {
    let a = Analysis::new(model, options)?;
    sequence_of(&a)
}

/// The allocation sequence of an existing [`Analysis`].
pub fn sequence_of(a: &Analysis) -> Result<AllocationSequence, ImportError> {
    let m = &a.model;
    let flash = a.options.weights == WeightsPlacement::Flash;
    let mut persistent: Vec<PersistentEntry> = Vec::new();
    let mut by_buffer = std::collections::HashMap::new();
    for t in &m.tensors {
        if let TensorKind::Constant { buffer } = t.kind {
            if let Some(&k) = by_buffer.get(&buffer) {
                let e: &mut PersistentEntry = &mut persistent[k];
                e.aliases.push(t.index);
                continue;
            }
            by_buffer.insert(buffer, persistent.len());
            persistent.push(PersistentEntry {
                tensor: TensorRef::of(t),
                kind: PersistentKind::Weights { buffer },
                request: CoreRequest::new(&t.shape, t.dtype)?,
                aliases: Vec::new(),
                data_in_flash: flash,
            });
        }
    }
    for t in m.tensors.iter().filter(|t| t.kind == TensorKind::Variable) {
        persistent.push(PersistentEntry {
            tensor: TensorRef::of(t),
            kind: PersistentKind::Variable,
            request: CoreRequest::new(&t.shape, t.dtype)?,
            aliases: Vec::new(),
            data_in_flash: false,
        });
    }
    let mut shared = Vec::new();
    for &t in &a.shared_tensors {
        let ti = &m.tensors[t];
        shared.push(SharedEntry {
            tensor: TensorRef::of(ti),
            is_input: ti.is_input,
            is_output: ti.is_output,
            request: CoreRequest::new(&ti.shape, ti.dtype)?,
        });
    }
    // Execution order: by producing op (first_op), then output position, then tensor index.
    let mut order: Vec<(usize, usize, usize)> = Vec::new(); // (first_op, pos, slot)
    for (slot, &t) in a.ephemeral_tensors.iter().enumerate() {
        let it = a.ephemeral_plan.items[slot];
        let pos = m
            .operators
            .get(it.first_op)
            .and_then(|op| op.outputs.iter().position(|&o| o == t))
            .unwrap_or(usize::MAX);
        order.push((it.first_op, pos, slot));
    }
    order.sort_unstable();
    let mut activations = Vec::new();
    for (_, _, slot) in order {
        let t = &m.tensors[a.ephemeral_tensors[slot]];
        let it = a.ephemeral_plan.items[slot];
        activations.push(ActivationEntry {
            tensor: TensorRef::of(t),
            request: CoreRequest::new(&t.shape, t.dtype)?,
            slot,
            first_op: it.first_op,
            last_op: it.last_op,
        });
    }
    let activation_descriptor_bytes = a.report.persistent.activation_descriptors;
    let flash_descriptor_bytes = if flash {
        a.report.persistent.weights_descriptors
    } else {
        0
    };
    Ok(AllocationSequence {
        model: m.name.clone(),
        operators: m.operators.len(),
        persistent,
        shared,
        activations,
        plan_slots: a.ephemeral_plan.slots().to_vec(),
        plan_region_size: a.ephemeral_plan.region_size,
        plan_overlaps: a.ephemeral_plan.overlaps.clone(),
        scratch_per_op: a.options.scratch_per_op.clone(),
        activation_descriptor_bytes,
        flash_descriptor_bytes,
        persistent_bytes: a.report.persistent_bytes,
        shared_bytes: a.report.shared_bytes,
        bump_ephemeral_bytes: a.report.bump_ephemeral_bytes,
    })
}
