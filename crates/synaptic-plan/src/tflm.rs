//! TensorFlow Lite Micro's offline memory plans: the `OfflineMemoryAllocation` metadata.
//!
//! TFLM reads an offline tensor plan from a model's metadata (TFLM's
//! `docs/memory_management.md`): a `Metadata` entry named `"OfflineMemoryAllocation"` whose
//! buffer holds little-endian `int32` values — a format version, the number of subgraphs, the
//! number of offsets *n*, then one byte offset per tensor of all subgraphs concatenated,
//! relative to the start of TFLM's head (the non-persistent section of its arena), or −1 for
//! "plan at runtime" (its `GreedyMemoryPlanner`).
//!
//! * [`plan_for_tflm`] plans the model **in TFLM's semantics** with this crate's planner
//!   ([`plan_items`]) and gives the offsets; [`with_offline_plan`] writes them into the model.
//! * [`read_offline_plan`] reads an existing plan (Arm's Vela writes one);
//!   [`check_offline_plan`] names every two tensors it overlaps while TFLM keeps both live.
//!
//! # TFLM's semantics (tflite-micro `micro_allocation_info.cc`, `micro_allocator.cc`,
//! `memory_planner/greedy_memory_planner.cc`)
//!
//! * **Which tensors the head holds**: those whose data is not in the model (no buffer data),
//!   that are not variables, and whose byte length is non-zero (`needs_allocating` in
//!   `AllocationInfoBuilder::InitializeAllocationInfo`); kernel scratch buffers
//!   (`RequestScratchBufferInArena`) are always planned at runtime. A *variable* tensor with an
//!   offline offset is put in the head too; with −1 it is allocated in the persistent tail
//!   (`MicroAllocator::AllocateVariables`).
//! * **Lifetimes** ([`tflm_lifetimes`], `AllocationInfoBuilder::MarkAllocationLifetimes`), in
//!   allocation scopes: scope 0 is the start of the invocation and operator *i* is scope
//!   *i* + 1. A graph input is created at 0 (and used at 0); an operator's output is created at
//!   its scope if not created yet; every input *and output* of an operator is used at its
//!   scope; a graph output is used at the last scope and created there only if nothing created
//!   it before. So graph **outputs live from their producer, not from the start** (the greedy
//!   planner's `UpdateFirstCreated` keeps the first creation), and to the end. Two buffers are
//!   live together when their inclusive scope intervals meet (`DoesEntryOverlapInTime`): an
//!   operator's output never shares memory with its inputs.
//! * **Sizes and alignment**: every buffer takes its byte length rounded up to
//!   `MicroArenaBufferAlignment()` = 16 (`CreatePlan`'s `AlignSizeUp`), the core's
//!   [`synaptic_mem::data_span`]; offsets are multiples of 16 from the 16-byte-aligned head.
//! * **Offline offsets are trusted**: TFLM places them as given, without checking them against
//!   each other, then fits the runtime-planned buffers (kernel scratch, −1 tensors) around them
//!   by its greedy first fit. The head it reports is the highest end of both.
//!
//! What [`plan_for_tflm`] plans, therefore: every tensor the head holds (TFLM's rule above),
//! with TFLM's lifetimes, sizes rounded to 16, pairwise disjoint whenever TFLM's intervals meet
//! — no in-place or partial-overlap tricks, so any kernel library (reference, CMSIS-NN, …) is
//! safe. Variables stay at −1: TFLM's lifetime of an offline-planned variable ends at its last
//! use in an invocation, so its online planner may put a kernel scratch buffer over the state
//! that must survive to the next invocation; in the tail (as without a plan) the state is
//! never touched. Tensors no operator uses (TFLM's scope −1) are left to TFLM too.
//!
//! # Writing the metadata: a new root table in front of the original bytes
//!
//! [`with_offline_plan`] does not re-serialise the model. FlatBuffer references are relative
//! (an unsigned offset from where it is stored, pointing forward), so the original file is kept
//! byte for byte after a new prefix that holds: a new `Model` root table copying every original
//! root field (its scalar `version` by value, every other field by a reference into the
//! original bytes), a new `buffers` vector (every original buffer, by reference, then the plan's
//! buffer), a new `metadata` vector (every original entry but an earlier
//! `OfflineMemoryAllocation`, then the new one), and the new `Metadata` and `Buffer` tables
//! with the plan's data. The prefix is a multiple of 16 bytes long, so every original object
//! keeps its alignment (`Buffer.data` is `force_align: 16` in the schema). Nothing of the
//! original can be damaged by a misunderstanding of its schema, all metadata (and every field
//! this crate does not know, such as `signature_defs`) survives, and the cost is the prefix
//! (about 150 bytes plus the offsets) and 8 dead bytes (the original's root offset and
//! identifier). Refused: models with buffers stored outside the FlatBuffer (`Buffer.offset`,
//! an absolute file position that a prefix would shift), root fields newer than this schema
//! (unknown, so they could not be relocated), and files over 2 GiB.

use crate::error::ImportError;
use crate::lifetime::{live_together, Lifetime};
use crate::model::{Model, TensorKind};
use crate::planner::{plan_items, MemoryPlan, PlanItem, PlanOptions};
use crate::text::printable;
use serde::Serialize;
use synaptic_mem::data_span;

/// The metadata name TFLM looks for.
pub const OFFLINE_METADATA_NAME: &str = "OfflineMemoryAllocation";

/// Format version written in the first `int32` (TFLM ignores it; its tests and Vela use 1).
pub const OFFLINE_FORMAT_VERSION: i32 = 1;

/// "Plan this tensor at runtime" (TFLM's `kOnlinePlannedBuffer`).
pub const ONLINE: i32 = -1;

/// TFLM's `MicroArenaBufferAlignment()`: buffer sizes and offsets in the head are multiples.
pub const TFLM_BUFFER_ALIGNMENT: u64 = 16;

// TFLM's size rounding is the core's data_span.
const _: () = assert!(TFLM_BUFFER_ALIGNMENT == synaptic_mem::config::ALIGN as u64);
const _: () = assert!(data_span(1) == TFLM_BUFFER_ALIGNMENT);

// Model root field numbers (schema.fbs).
const MODEL_BUFFERS: u16 = 4;
const MODEL_METADATA: u16 = 6;
/// Model root fields known to this module: 0 `version` (a `uint`) and 1..=9 (all offsets:
/// operator_codes, subgraphs, description, buffers, metadata_buffer, metadata,
/// signature_defs, external_buffer_groups, external_buffers).
const MODEL_FIELDS: u16 = 10;

/// One tensor TFLM would hold in its head under an offline plan, with TFLM's lifetime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct HeadTensor {
    /// Tensor index in subgraph 0.
    pub tensor: usize,
    /// Bytes of data (TFLM reserves them rounded up to 16).
    pub bytes: u64,
    /// TFLM's lifetime in allocation scopes (0 = invocation start, operator `i` = `i + 1`),
    /// inclusive; scope −1 ("never created") is given as 0, which meets exactly the same
    /// intervals of scopes ≥ 0.
    pub lifetime: Lifetime,
    /// A variable tensor: its state must survive between invocations, so for checking a plan
    /// it is taken as live at every scope.
    pub variable: bool,
}

/// TFLM's lifetimes (`AllocationInfoBuilder::MarkAllocationLifetimes`, subgraph 0) of every
/// tensor of `model`, indexed by tensor: `None` for a tensor no input, output or operator
/// touches (TFLM's scope −1 to −1). First scopes of −1 (read but never created, e.g. a
/// variable) are given as 0.
pub fn tflm_lifetimes(model: &Model) -> Vec<Option<Lifetime>> {
    let n = model.tensors.len();
    let mut first: Vec<Option<usize>> = vec![None; n];
    let mut last: Vec<Option<usize>> = vec![None; n];
    for &t in &model.inputs {
        first[t].get_or_insert(0);
        last[t] = Some(0);
    }
    for op in &model.operators {
        let scope = op.index + 1;
        for &t in &op.outputs {
            first[t].get_or_insert(scope);
        }
        for &t in op.inputs.iter().chain(&op.outputs) {
            last[t] = Some(scope);
        }
    }
    let end = model.operators.len();
    for &t in &model.outputs {
        first[t].get_or_insert(end);
        last[t] = Some(end);
    }
    (0..n)
        .map(|t| {
            last[t].map(|l| Lifetime {
                tensor: t,
                first_scope: first[t].unwrap_or(0),
                last_scope: l,
            })
        })
        .collect()
}

/// The tensors TFLM holds in its head if a plan gives them an offset: activations, and
/// (with `variables`) variable tensors, each with TFLM's lifetime; ascending tensor order.
pub fn head_tensors(model: &Model, variables: bool) -> Vec<HeadTensor> {
    let end = model.operators.len();
    tflm_lifetimes(model)
        .into_iter()
        .zip(&model.tensors)
        .filter_map(|(l, t)| {
            // A kernel's state output is an activation to TFLM.
            let variable = t.kind == TensorKind::Variable && !t.kernel_state;
            let wanted =
                t.kind == TensorKind::Activation || t.kernel_state || (variables && variable);
            let l = l?;
            (wanted && t.bytes > 0).then_some(HeadTensor {
                tensor: t.index,
                bytes: t.bytes,
                lifetime: if variable {
                    Lifetime {
                        tensor: t.index,
                        first_scope: 0,
                        last_scope: end,
                    }
                } else {
                    l
                },
                variable,
            })
        })
        .collect()
}

/// A plan for TFLM: one offset (or [`ONLINE`]) per tensor of all subgraphs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TflmPlan {
    /// Subgraphs of the model (written in the header; TFLM ignores it).
    pub subgraphs: usize,
    /// One entry per tensor of all subgraphs concatenated: byte offset from the head's start,
    /// or −1.
    pub offsets: Vec<i32>,
    /// The tensors planned, in the order of `plan.items`.
    pub tensors: Vec<HeadTensor>,
    /// The planner's result: items in scopes (the tensors, in the order of `tensors`, then
    /// one kernel-scratch block per operator that has one), offsets, size, bound.
    pub plan: MemoryPlan,
    /// Bytes of kernel scratch planned (the sum of the table, each entry rounded up to 16),
    /// if a table was given.
    pub kernel_scratch: Option<u64>,
}

impl TflmPlan {
    /// Bytes of head the plan takes: the offline tensors and, if a kernel-scratch table was
    /// given, the holes left for the scratch (TFLM's head is then exactly this or less).
    pub fn head_bytes(&self) -> u64 {
        self.plan.region_size
    }

    /// The metadata buffer's contents: version, subgraphs, n, then the offsets.
    pub fn metadata_values(&self) -> Vec<i32> {
        let mut v = vec![
            OFFLINE_FORMAT_VERSION,
            i32::try_from(self.subgraphs).unwrap_or(i32::MAX),
            i32::try_from(self.offsets.len()).unwrap_or(i32::MAX),
        ];
        v.extend_from_slice(&self.offsets);
        v
    }
}

/// Plans `model` for TFLM (see the module docs for the semantics): every activation TFLM
/// holds in its head, with TFLM's lifetimes and 16-byte rounding, planned by [`plan_items`];
/// variables and untouched tensors left to TFLM (−1). The model must be the whole file's
/// tensors: [`Model`] refuses files whose other subgraphs hold tensors, so the offsets of
/// subgraph 0 are all of them.
///
/// `kernel_scratch`, if given, holds one byte count per operator: the kernel scratch buffers
/// (`RequestScratchBufferInArena`) TFLM's kernels ask for at that operator, each rounded up to
/// 16 and summed. TFLM plans them at runtime, around the offline tensors; each operator's
/// count is planned here as one more block live at that operator only, so that the plan
/// leaves a hole where they fit. TFLM's greedy first fit then never places them above the
/// hole (it puts each, largest first, in the lowest gap free at that operator that holds it,
/// and the hole stays one gap as large as what is left to place), so TFLM's head is at most
/// [`TflmPlan::head_bytes`]. Without it the scratch goes wherever TFLM finds room, possibly
/// above the plan. The counts depend on the kernels (reference, CMSIS-NN, …).
pub fn plan_for_tflm(
    model: &Model,
    opts: &PlanOptions,
    kernel_scratch: Option<&[u64]>,
) -> Result<TflmPlan, ImportError> {
    let tensors = head_tensors(model, false);
    let mut items: Vec<PlanItem> = tensors
        .iter()
        .map(|h| PlanItem {
            bytes: h.bytes,
            first_op: h.lifetime.first_scope,
            last_op: h.lifetime.last_scope,
        })
        .collect();
    if let Some(table) = kernel_scratch {
        if table.len() != model.operators.len() {
            return Err(ImportError::ScratchTable {
                detail: format!(
                    "scratch table has {} entries, the model has {} operators",
                    table.len(),
                    model.operators.len()
                ),
            });
        }
        items.extend(
            table
                .iter()
                .enumerate()
                .filter(|&(_, &b)| b > 0)
                .map(|(op, &b)| PlanItem {
                    bytes: b,
                    first_op: op + 1,
                    last_op: op + 1,
                }),
        );
    }
    let plan = plan_items(&items, opts);
    let mut offsets = vec![ONLINE; model.tensors.len()];
    for (h, &off) in tensors.iter().zip(&plan.offsets) {
        offsets[h.tensor] = i32::try_from(off).map_err(|_| {
            ImportError::unsupported(format!(
                "tensor {} at offset {off}: TFLM's offline offsets are int32",
                h.tensor
            ))
        })?;
    }
    if i32::try_from(plan.region_size).is_err() {
        return Err(ImportError::unsupported(format!(
            "a head of {} B: TFLM's offline offsets are int32",
            plan.region_size
        )));
    }
    let p = TflmPlan {
        subgraphs: model.subgraphs,
        offsets,
        tensors,
        kernel_scratch: kernel_scratch.map(|t| t.iter().map(|&b| data_span(b)).sum()),
        plan,
    };
    // The plan keeps every pair TFLM keeps live together disjoint (the planner's own check,
    // and TFLM's view of it).
    let conflicts = check_offline_plan(model, &p.offsets)?;
    if let Some(c) = conflicts.conflicts.first() {
        return Err(ImportError::invalid(format!("planner bug: {c}")));
    }
    Ok(p)
}

/// An offline plan read from a model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OfflinePlan {
    /// Format version (first value).
    pub version: i32,
    /// Subgraphs (second value).
    pub subgraphs: i32,
    /// The offsets (the third value says how many; TFLM requires it to equal the tensors of
    /// all subgraphs).
    pub offsets: Vec<i32>,
    /// Index of the model buffer holding it.
    pub buffer: u32,
}

/// The model's `metadata` entries, in order: name (lossy UTF-8; empty if absent) and buffer
/// index.
pub fn metadata(bytes: &[u8]) -> Result<Vec<(String, u32)>, ImportError> {
    // `Model::new` verifies the metadata entries (name, buffer) with the rest.
    let fbm = synaptic_tflite::Model::new(bytes)?;
    (0..fbm.metadata_len()?)
        .map(|i| {
            let m = fbm.metadata(i)?;
            let name = m.name()?.unwrap_or_default();
            Ok((String::from_utf8_lossy(name).into_owned(), m.buffer()?))
        })
        .collect()
}

/// Reads the model's `OfflineMemoryAllocation` metadata, as TFLM does
/// (`AllocationInfoBuilder::GetOfflinePlannedOffsets`: the name must match exactly; of several,
/// the last wins). `Ok(None)` when there is none. The buffer must hold the three header values
/// and as many offsets as the header says.
pub fn read_offline_plan(bytes: &[u8]) -> Result<Option<OfflinePlan>, ImportError> {
    let Some(buffer) = metadata(bytes)?
        .into_iter()
        .filter(|(name, _)| name == OFFLINE_METADATA_NAME)
        .map(|(_, b)| b)
        .next_back()
    else {
        return Ok(None);
    };
    let fbm = synaptic_tflite::Model::new(bytes)?;
    let buffers = fbm.buffers_len()?;
    if buffer as usize >= buffers {
        return Err(ImportError::invalid(format!(
            "{OFFLINE_METADATA_NAME} uses buffer {buffer}, but the model has {buffers} buffers"
        )));
    }
    let data = fbm.buffer(buffer as usize)?.data()?;
    let values: Vec<i32> = data
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if values.len() < 3 {
        return Err(ImportError::invalid(format!(
            "{OFFLINE_METADATA_NAME}: buffer {buffer} holds {} bytes, fewer than its 12-byte header",
            data.len()
        )));
    }
    let n = usize::try_from(values[2]).map_err(|_| {
        ImportError::invalid(format!(
            "{OFFLINE_METADATA_NAME}: negative offset count {}",
            values[2]
        ))
    })?;
    if values.len() - 3 < n {
        return Err(ImportError::invalid(format!(
            "{OFFLINE_METADATA_NAME}: header says {n} offsets, buffer {buffer} holds {}",
            values.len() - 3
        )));
    }
    Ok(Some(OfflinePlan {
        version: values[0],
        subgraphs: values[1],
        offsets: values[3..3 + n].to_vec(),
        buffer,
    }))
}

/// Two offline-planned tensors that share bytes while TFLM keeps both live.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Conflict {
    /// The lower tensor index.
    pub a: usize,
    /// Its name.
    pub a_name: String,
    /// Its bytes `[offset, offset + bytes)` in the head.
    pub a_range: (u64, u64),
    /// Its scopes (inclusive).
    pub a_scopes: (usize, usize),
    /// The other tensor.
    pub b: usize,
    /// Its name.
    pub b_name: String,
    /// Its bytes.
    pub b_range: (u64, u64),
    /// Its scopes.
    pub b_scopes: (usize, usize),
}

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let p = printable;
        write!(
            f,
            "tensor {} ({}) bytes {}..{} live at scopes {}..={} overlaps tensor {} ({}) bytes {}..{} live at scopes {}..={}",
            self.a,
            p(&self.a_name),
            self.a_range.0,
            self.a_range.1,
            self.a_scopes.0,
            self.a_scopes.1,
            self.b,
            p(&self.b_name),
            self.b_range.0,
            self.b_range.1,
            self.b_scopes.0,
            self.b_scopes.1
        )
    }
}

/// The result of checking an offline plan against TFLM's lifetimes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlanCheck {
    /// Tensors with an offline offset that TFLM places in the head.
    pub planned: usize,
    /// Tensors TFLM places in the head (activations) left to its runtime planner.
    pub online: usize,
    /// The highest end (offset + bytes rounded to 16) of the offline tensors: TFLM's head is at
    /// least this.
    pub offline_end: u64,
    /// Offline offsets that are not multiples of 16 (tensor indices).
    pub unaligned: Vec<usize>,
    /// Offsets given to tensors that never share a scope with the planned ones: constants
    /// (TFLM ignores the offset) and tensors no operator touches (tensor indices).
    pub ignored: Vec<usize>,
    /// Every pair overlapping while both live (at most [`MAX_CONFLICTS`]).
    pub conflicts: Vec<Conflict>,
    /// Whether the pair search stopped on its work budget (a hostile plan).
    pub incomplete: bool,
}

/// Most conflicts [`check_offline_plan`] lists.
pub const MAX_CONFLICTS: usize = 1000;

/// Pairs of byte ranges examined before [`check_offline_plan`] gives up (hostile plans).
const CHECK_BUDGET: u64 = 50_000_000;

/// Checks `offsets` (one per tensor, as in the metadata) against TFLM's lifetimes: every two
/// offline tensors TFLM places in the head whose bytes overlap while both are live (variables:
/// live at every scope, their state survives between invocations). Errors as TFLM does when
/// the count differs from the model's tensors, or on an offset below −1.
pub fn check_offline_plan(model: &Model, offsets: &[i32]) -> Result<PlanCheck, ImportError> {
    if offsets.len() != model.tensors.len() {
        return Err(ImportError::invalid(format!(
            "{OFFLINE_METADATA_NAME} has {} offsets, the model has {} tensors (TFLM refuses it)",
            offsets.len(),
            model.tensors.len()
        )));
    }
    if let Some((t, &o)) = offsets.iter().enumerate().find(|(_, &o)| o < ONLINE) {
        return Err(ImportError::invalid(format!(
            "{OFFLINE_METADATA_NAME}: tensor {t} has offset {o}"
        )));
    }
    let head = head_tensors(model, true);
    let mut check = PlanCheck {
        planned: 0,
        online: 0,
        offline_end: 0,
        unaligned: Vec::new(),
        ignored: Vec::new(),
        conflicts: Vec::new(),
        incomplete: false,
    };
    let mut in_head = vec![false; model.tensors.len()];
    // (offset, end, head tensor)
    let mut placed: Vec<(u64, u64, &HeadTensor)> = Vec::new();
    for h in &head {
        in_head[h.tensor] = true;
        let o = offsets[h.tensor];
        if o == ONLINE {
            check.online += usize::from(!h.variable);
            continue;
        }
        let o = o as u64;
        check.planned += 1;
        if o % TFLM_BUFFER_ALIGNMENT != 0 {
            check.unaligned.push(h.tensor);
        }
        check.offline_end = check.offline_end.max(o + data_span(h.bytes));
        placed.push((o, o + h.bytes, h));
    }
    check.ignored = offsets
        .iter()
        .enumerate()
        .filter(|&(t, &o)| o != ONLINE && !in_head[t])
        .map(|(t, _)| t)
        .collect();
    placed.sort_unstable_by_key(|&(o, end, h)| (o, end, h.tensor));
    let mut work = 0u64;
    'outer: for (i, &(oa, ea, a)) in placed.iter().enumerate() {
        for &(ob, eb, b) in &placed[i + 1..] {
            if ob >= ea {
                break;
            }
            work += 1;
            if work > CHECK_BUDGET {
                check.incomplete = true;
                break 'outer;
            }
            let (la, lb) = (a.lifetime, b.lifetime);
            if live_together(
                (la.first_scope, la.last_scope),
                (lb.first_scope, lb.last_scope),
            ) {
                let ((x, rx), (y, ry)) = if a.tensor < b.tensor {
                    ((a, (oa, ea)), (b, (ob, eb)))
                } else {
                    ((b, (ob, eb)), (a, (oa, ea)))
                };
                check.conflicts.push(Conflict {
                    a: x.tensor,
                    a_name: model.tensors[x.tensor].name.clone(),
                    a_range: rx,
                    a_scopes: (x.lifetime.first_scope, x.lifetime.last_scope),
                    b: y.tensor,
                    b_name: model.tensors[y.tensor].name.clone(),
                    b_range: ry,
                    b_scopes: (y.lifetime.first_scope, y.lifetime.last_scope),
                });
                if check.conflicts.len() >= MAX_CONFLICTS {
                    check.incomplete = true;
                    break 'outer;
                }
            }
        }
    }
    check.conflicts.sort_by_key(|c| (c.a, c.b));
    Ok(check)
}

/// The text `synmem inspect` prints for a model's offline plan: a summary line, the tensors
/// whose offsets TFLM ignores or that are not 16-byte aligned, then every conflict (one line
/// each) or a line saying there is none.
pub fn check_text(plan: &OfflinePlan, check: &PlanCheck) -> String {
    use std::fmt::Write;
    let list = |v: &[usize]| {
        v.iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\noffline memory plan ({OFFLINE_METADATA_NAME} in buffer {}, version {}, {} subgraph(s), {} offsets): {} tensors offline (end {} B), {} left to TFLM's planner",
        plan.buffer,
        plan.version,
        plan.subgraphs,
        plan.offsets.len(),
        check.planned,
        check.offline_end,
        check.online
    );
    if !check.ignored.is_empty() {
        let _ = writeln!(
            s,
            "  offsets of tensors never live (constants, untouched tensors): {}",
            list(&check.ignored)
        );
    }
    if !check.unaligned.is_empty() {
        let _ = writeln!(
            s,
            "  offsets not multiples of {TFLM_BUFFER_ALIGNMENT}: tensors {}",
            list(&check.unaligned)
        );
    }
    for c in &check.conflicts {
        let _ = writeln!(s, "  CONFLICT {c}");
    }
    if check.incomplete {
        let _ = writeln!(
            s,
            "  (the pair search stopped early: more conflicts may exist)"
        );
    } else if check.conflicts.is_empty() {
        let _ = writeln!(s, "  ok: no two tensors overlap while TFLM keeps both live");
    }
    s
}

// ---------------------------------------------------------------------------------------------
// Writing: a new root in front of the original bytes (see the module docs).

/// A little-endian byte writer with absolute positions.
struct Prefix(Vec<u8>);

impl Prefix {
    fn pos(&self) -> usize {
        self.0.len()
    }
    fn align(&mut self, to: usize, phase: usize) {
        while self.0.len() % to != phase {
            self.0.push(0);
        }
    }
    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn set_u32(&mut self, at: usize, v: u32) {
        self.0[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }
    /// Writes a vtable for a table of `fields` 4-byte fields, `present` marking which are
    /// set; returns its position.
    fn vtable(&mut self, present: &[bool]) -> usize {
        self.align(2, 0);
        let at = self.pos();
        self.u16(4 + 2 * present.len() as u16);
        self.u16(4 + 4 * present.len() as u16);
        for (k, &p) in present.iter().enumerate() {
            self.u16(if p { 4 + 4 * k as u16 } else { 0 });
        }
        at
    }
    /// Starts a table whose vtable is at `vt` (placed before it); returns the table's
    /// position. Its fields follow, 4 bytes each.
    fn table(&mut self, vt: usize) -> usize {
        self.align(4, 0);
        let at = self.pos();
        self.u32((at - vt) as u32); // soffset: vtable = table - soffset
        at
    }
}

/// A reference to patch once the prefix length is known: `(slot position, target)`.
enum Target {
    /// A position in the original bytes.
    Original(usize),
    /// A position in the prefix.
    Prefix(usize),
}

/// `original` with `plan` written as its `OfflineMemoryAllocation` metadata (replacing an
/// existing one), the rest of the model unchanged (see the module docs for how). The result
/// reads back with [`Model::from_bytes`] as the same model and with [`read_offline_plan`] as
/// `plan`'s offsets.
pub fn with_offline_plan(original: &[u8], plan: &TflmPlan) -> Result<Vec<u8>, ImportError> {
    let model = Model::from_bytes(original)?;
    if plan.offsets.len() != model.tensors.len() {
        return Err(ImportError::invalid(format!(
            "plan of {} offsets for a model of {} tensors",
            plan.offsets.len(),
            model.tensors.len()
        )));
    }
    let fbm = synaptic_tflite::Model::new(original)?;
    let root = fbm.root();
    let slots = u16::try_from(root.field_slots()).unwrap_or(u16::MAX);
    for s in MODEL_FIELDS..slots {
        if root.has_field(s)? {
            return Err(ImportError::unsupported(format!(
                "the model's root table has field {s}, newer than this schema: it cannot be kept"
            )));
        }
    }
    let buffers = fbm.buffers_len()?;
    if buffers == 0 {
        return Err(ImportError::invalid(
            "the model has no buffers (not even the empty buffer 0)",
        ));
    }
    for i in 0..buffers {
        if fbm.buffer(i)?.offset()? > 1 {
            return Err(ImportError::unsupported(format!(
                "buffer {i} is stored outside the FlatBuffer (Buffer.offset, an absolute file position): rewriting would move it"
            )));
        }
    }
    let mut kept_metadata = Vec::new();
    for i in 0..fbm.metadata_len()? {
        let m = fbm.metadata(i)?;
        if m.name()? != Some(OFFLINE_METADATA_NAME.as_bytes()) {
            kept_metadata.push(m.table().position());
        }
    }
    let plan_buffer =
        u32::try_from(buffers).map_err(|_| ImportError::unsupported("too many buffers"))?;

    let mut p = Prefix(Vec::with_capacity(256 + 4 * plan.offsets.len()));
    let mut refs: Vec<(usize, Target)> = Vec::new();
    p.u32(0); // root offset, patched below
    p.0.extend_from_slice(b"TFL3");

    // Root table: field 0 `version` by value, 1..=9 by reference.
    let mut present = vec![false; MODEL_FIELDS as usize];
    let mut targets = vec![None; MODEL_FIELDS as usize];
    for k in 0..MODEL_FIELDS {
        present[k as usize] = root.has_field(k)?;
        if k > 0 && present[k as usize] {
            targets[k as usize] = root.offset_target(k)?;
        }
    }
    let (buffers_k, metadata_k) = (MODEL_BUFFERS as usize, MODEL_METADATA as usize);
    present[buffers_k] = true;
    present[metadata_k] = true;
    let vt = p.vtable(&present);
    let root_at = p.table(vt);
    p.set_u32(0, root_at as u32);
    let mut new_vectors = Vec::new(); // (field position, which)
    for (k, target) in targets.iter().enumerate() {
        let at = p.pos();
        if k == 0 {
            p.u32(fbm.version()?);
        } else if k == buffers_k || k == metadata_k {
            p.u32(0);
            new_vectors.push((at, k));
        } else {
            p.u32(0);
            if let Some(t) = *target {
                refs.push((at, Target::Original(t)));
            }
        }
    }

    // The metadata vector: kept entries, then the new one.
    let metadata_vec = p.pos();
    p.u32(kept_metadata.len() as u32 + 1);
    for &m in &kept_metadata {
        refs.push((p.pos(), Target::Original(m)));
        p.u32(0);
    }
    let new_metadata_slot = p.pos();
    p.u32(0);

    // The buffers vector: every original buffer, then the plan's.
    let buffers_vec = p.pos();
    p.u32(plan_buffer + 1);
    for i in 0..buffers {
        refs.push((p.pos(), Target::Original(fbm.buffer(i)?.table().position())));
        p.u32(0);
    }
    let new_buffer_slot = p.pos();
    p.u32(0);

    // Metadata { name, buffer }.
    let vt = p.vtable(&[true, true]);
    let metadata_at = p.table(vt);
    let name_slot = p.pos();
    p.u32(0);
    p.u32(plan_buffer);
    p.align(4, 0);
    let name_at = p.pos();
    p.u32(OFFLINE_METADATA_NAME.len() as u32);
    p.0.extend_from_slice(OFFLINE_METADATA_NAME.as_bytes());
    p.0.push(0);

    // Buffer { data } with the data 16-byte aligned (force_align: 16).
    let vt = p.vtable(&[true]);
    let buffer_at = p.table(vt);
    let data_slot = p.pos();
    p.u32(0);
    p.align(16, 12);
    let data_at = p.pos();
    let values = plan.metadata_values();
    p.u32((values.len() * 4) as u32);
    for v in values {
        p.u32(v as u32);
    }
    p.align(16, 0);

    refs.push((new_metadata_slot, Target::Prefix(metadata_at)));
    refs.push((new_buffer_slot, Target::Prefix(buffer_at)));
    refs.push((name_slot, Target::Prefix(name_at)));
    refs.push((data_slot, Target::Prefix(data_at)));
    for (at, k) in new_vectors {
        let t = if k == buffers_k {
            buffers_vec
        } else {
            metadata_vec
        };
        refs.push((at, Target::Prefix(t)));
    }
    let shift = p.pos();
    if (shift + original.len()) as u64 >= 1 << 31 {
        return Err(ImportError::unsupported(
            "the rewritten model would exceed 2 GiB",
        ));
    }
    for (at, target) in refs {
        let abs = match target {
            Target::Original(t) => t + shift,
            Target::Prefix(t) => t,
        };
        debug_assert!(abs > at);
        p.set_u32(at, (abs - at) as u32);
    }
    let mut out = p.0;
    out.extend_from_slice(original);
    // Parse the result back with the shared reader (structure verified at open): it must read
    // as the same model, with `plan`'s offsets as its offline plan.
    let reread = Model::from_bytes(&out)?;
    let offsets = read_offline_plan(&out)?.map(|o| o.offsets);
    if reread != model || offsets.as_deref() != Some(&plan.offsets[..]) {
        return Err(ImportError::invalid(
            "the rewritten model does not read back as the original with the plan (a bug)",
        ));
    }
    Ok(out)
}
