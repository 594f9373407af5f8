//! The C types of `syn_run.h`.

use core::ffi::c_void;

use synaptic_mem::plan::PlanSlot;
use synaptic_run::{IoPlacement, Memory};

/// Where a model's graph input and output tensors live.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SynRunIo {
    /// In the model's shared (IPC) region (syn_run_config_t.shared): allocated once at load,
    /// they survive every inference, so the CPU, a DMA or another core fills the input in place
    /// (syn_run_input) and reads the output there (syn_run_output). The plan must leave them
    /// out (synmem emit --io shared).
    SYN_RUN_IO_SHARED = 0,
    /// Inside the plan, sharing memory with activations not live with them (least RAM): the
    /// input is copied in and the output out by syn_run_invoke_copy. The plan must hold them
    /// (synmem emit --io ephemeral).
    SYN_RUN_IO_PLAN = 1,
}

impl SynRunIo {
    /// The placement a `uint32_t` from C names, if it names one.
    pub const fn from_raw(v: u32) -> Option<IoPlacement> {
        match v {
            0 => Some(IoPlacement::Shared),
            1 => Some(IoPlacement::Plan),
            _ => None,
        }
    }

    /// The C value of a placement.
    pub const fn to_raw(io: IoPlacement) -> u32 {
        match io {
            IoPlacement::Shared => SynRunIo::SYN_RUN_IO_SHARED as u32,
            IoPlacement::Plan => SynRunIo::SYN_RUN_IO_PLAN as u32,
        }
    }
}

/// Size of syn_run_model_t in 64-bit words on targets with 32-bit pointers (Cortex-M).
pub const SYN_RUN_MODEL_WORDS_32: usize = 45;
/// Size of syn_run_model_t in 64-bit words on targets with 64-bit pointers (hosts).
pub const SYN_RUN_MODEL_WORDS_64: usize = 84;

/// Size of syn_run_model_t in 64-bit words on this target.
#[cfg(target_pointer_width = "32")]
pub const SYN_RUN_MODEL_WORDS: usize = 45;
/// Size of syn_run_model_t in 64-bit words on this target.
#[cfg(not(target_pointer_width = "32"))]
pub const SYN_RUN_MODEL_WORDS: usize = 84;

const _: () = assert!(
    SYN_RUN_MODEL_WORDS
        == if cfg!(target_pointer_width = "32") {
            SYN_RUN_MODEL_WORDS_32
        } else {
            SYN_RUN_MODEL_WORDS_64
        }
);

/// Storage of one loaded model: the runtime's state (interpreter, arena bookkeeping, a busy
/// flag). Opaque: declare one per model (e.g. `static syn_run_model_t net;`, zero-initialised);
/// only syn_run_load() fills it. A loaded model must not be moved or copied (the runtime keeps
/// pointers into it; a copy is refused with -EINVAL) and must be unloaded with
/// syn_run_unload() before its storage, its arena or its shared region is reused or goes out of
/// scope.
///
/// Not `Clone`, `Copy` or `Debug` in Rust: a loaded object holds padding bytes that are not
/// initialised integers, so it is only ever read through its header.
#[repr(C)]
pub struct SynRunModel {
    /// Private
    pub opaque_: [u64; SYN_RUN_MODEL_WORDS],
}

impl SynRunModel {
    /// Zeroed storage (no model loaded).
    pub const ZEROED: SynRunModel = SynRunModel {
        opaque_: [0; SYN_RUN_MODEL_WORDS],
    };
}

/// One declared overlap of a plan (`syn_plan_overlap_t` of the headers synmem emit --lang c
/// writes): operator `op` reads slot `input` (dying there) and writes slot `output` over it
/// in `direction` (0 forward, 1 backward) within the safe delta `bound`. The layout of
/// [`synaptic_mem::plan::OverlapPair`], with the direction as a plain byte (checked at load).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SynPlanOverlap {
    /// The operator (0-based).
    pub op: u16,
    /// The input slot (dies at `op`).
    pub input: u16,
    /// The output slot (born at `op`).
    pub output: u16,
    /// 0 forward, 1 backward.
    pub direction: u8,
    /// The safe delta `output.offset - input.offset` (forward: at most, backward: at least).
    pub bound: i32,
}

impl From<&synaptic_mem::plan::OverlapPair> for SynPlanOverlap {
    /// The C form of a core pair (what `synmem emit --lang c` writes).
    fn from(p: &synaptic_mem::plan::OverlapPair) -> Self {
        SynPlanOverlap {
            op: p.op,
            input: p.input,
            output: p.output,
            direction: p.direction as u8,
            bound: p.bound,
        }
    }
}

// The same layout as the core's pair, so that a checked array is read as one in place.
const _: () = {
    use core::mem::{align_of, offset_of, size_of};
    use synaptic_mem::plan::OverlapPair;
    assert!(size_of::<SynPlanOverlap>() == size_of::<OverlapPair>());
    assert!(align_of::<SynPlanOverlap>() == align_of::<OverlapPair>());
    assert!(offset_of!(SynPlanOverlap, op) == offset_of!(OverlapPair, op));
    assert!(offset_of!(SynPlanOverlap, input) == offset_of!(OverlapPair, input));
    assert!(offset_of!(SynPlanOverlap, output) == offset_of!(OverlapPair, output));
    assert!(offset_of!(SynPlanOverlap, direction) == offset_of!(OverlapPair, direction));
    assert!(offset_of!(SynPlanOverlap, bound) == offset_of!(OverlapPair, bound));
    assert!(size_of::<SynPlanOverlap>() == 12);
};

/// What syn_run_load() loads, and where. Every buffer must stay valid and unchanged (model,
/// slots, overlaps, program) or reserved for the model (arena, shared) until syn_run_unload();
/// none may overlap another or the syn_run_model_t.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SynRunConfig {
    /// The .tflite model bytes (flash is fine: read in place, never written or copied).
    pub model: *const c_void,
    /// Bytes of the model.
    pub model_size: usize,
    /// The plan's slots (`<prefix>_slots` of a header written by synmem emit --lang c, emitted
    /// with --io shared for SYN_RUN_IO_SHARED, --io ephemeral for SYN_RUN_IO_PLAN); NULL only
    /// when slot_count is 0.
    pub slots: *const PlanSlot,
    /// Number of slots (`<PREFIX>_SLOT_COUNT`).
    pub slot_count: u32,
    /// The plan's declared output/input overlaps (`<prefix>_overlaps` of the same header: an
    /// overlapped plan, synmem emit's default), each checked at load against the runtime's own
    /// access contract of its operator; NULL only when overlap_count is 0 (a plain plan, emitted
    /// with --no-overlap).
    pub overlaps: *const SynPlanOverlap,
    /// Number of declared overlaps (`<PREFIX>_OVERLAP_COUNT`).
    pub overlap_count: u32,
    /// The plan's ephemeral region in bytes (`<PREFIX>_REGION_SIZE`).
    pub region_size: u32,
    /// Where graph I/O lives: a syn_run_io_t value.
    pub io: u32,
    /// The arena: the program when `program` is NULL, the plan's descriptors and its
    /// activations. Exactly sized, it is syn_run_memory_t.arena bytes (persistent_bytes +
    /// planned_ephemeral_bytes + scratch_peak_bytes of `synmem run MODEL --json`, with
    /// --op-data flash for a program given in `program`, --op-data ram without); 16-byte
    /// aligned, or it loses the bytes up to the next boundary.
    pub arena: *mut c_void,
    /// Bytes of the arena (at most 524288).
    pub arena_size: usize,
    /// SYN_RUN_IO_SHARED: the shared (IPC) region holding graph I/O (syn_run_memory_t.shared
    /// bytes, at least 48). SYN_RUN_IO_PLAN: NULL.
    pub shared: *mut c_void,
    /// Bytes of the shared region (0 with SYN_RUN_IO_PLAN).
    pub shared_size: usize,
    /// The model's compiled program (every operator's prepared parameters, requantization
    /// tables and tensor locations), read in place, e.g. from flash: `<prefix>_program` of the
    /// header synmem emit --lang c writes (--op-data flash, the default) for this model and
    /// placement; 4-byte aligned. The load checks its header and its seal, a hash of every
    /// model byte and every program word (a program of another model or placement, truncated or
    /// altered anywhere, is -EINVAL naming what differs; built with the feature
    /// verify-program, it is also compared word by word with what the model compiles to), and
    /// it takes no arena byte. NULL: the program is compiled at load into the arena's persistent
    /// region (synmem run --op-data ram figures).
    pub program: *const u32,
    /// 32-bit words of `program` (`<PREFIX>_PROGRAM_WORDS`; 0 when NULL).
    pub program_words: usize,
}

/// The memory a loaded model takes: the arena bytes by region (the core's block accounting:
/// each tensor's descriptor included, data rounded up to 16), as `synmem run --json` prints
/// them, and the program's bytes outside the arena (flash), in no RAM figure.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SynRunMemory {
    /// All persistent bytes: tables + locations + plan_descriptors.
    pub persistent: usize,
    /// The program compiled at load into the persistent region (per-operator parameters,
    /// requantization tables, tensor locations; descriptor included); 0 with a program given
    /// in syn_run_config_t.program.
    pub tables: usize,
    /// A separate tensor -> location map (persistent): 0, the locations are part of the
    /// program.
    pub locations: usize,
    /// The plan's descriptor table (persistent).
    pub plan_descriptors: usize,
    /// The plan's ephemeral region (activations).
    pub planned: usize,
    /// Scratch bytes the kernels take per inference.
    pub scratch: usize,
    /// Shared-region bytes of the graph I/O (0 with SYN_RUN_IO_PLAN).
    pub shared: usize,
    /// Descriptor bytes included in the figures above.
    pub descriptors: usize,
    /// persistent + planned + scratch + shared: the RAM the model needs.
    pub total: usize,
    /// persistent + planned + scratch (at least 48): the arena that holds exactly this model.
    pub arena: usize,
    /// Bytes of the program (4 per word), wherever it lives (`program_bytes` of
    /// `synmem run --json`).
    pub program: usize,
    /// Bytes of the program outside the arena (syn_run_config_t.program, e.g. flash): `program`
    /// with a program given, 0 with one compiled at load (`program_flash_bytes`); counted in no
    /// RAM figure above.
    pub program_flash: usize,
    /// Of `persistent`: the variable tensors (the model's state across invocations, SVDF and
    /// LSTM memories; descriptors included), reset by syn_run_reset_state().
    pub state: usize,
}

impl From<Memory> for SynRunMemory {
    fn from(m: Memory) -> Self {
        SynRunMemory {
            persistent: m.persistent,
            tables: m.tables,
            locations: m.locations,
            plan_descriptors: m.plan_descriptors,
            planned: m.planned,
            scratch: m.scratch,
            shared: m.shared,
            descriptors: m.descriptors,
            total: m.total(),
            arena: m.arena_bytes(),
            program: m.program_bytes,
            program_flash: m.program_flash,
            state: m.state,
        }
    }
}

/// A loaded model's graph inputs and outputs.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SynRunIoInfo {
    /// Where they live: a syn_run_io_t value.
    pub io: u32,
    /// Number of graph inputs.
    pub inputs: u32,
    /// Number of graph outputs.
    pub outputs: u32,
    /// Bytes of all inputs, concatenated in input order (syn_run_invoke_copy's input_size).
    pub input_bytes: usize,
    /// Bytes of all outputs, concatenated in output order (syn_run_invoke_copy's output_size).
    pub output_bytes: usize,
}

/// Bytes of the longest message syn_run_last_error_message() returns (without the NUL).
pub const SYN_RUN_MESSAGE_MAX: usize = 159;
