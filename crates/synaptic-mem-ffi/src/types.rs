//! The C types of `syn_mem.h`, with compile-time checks that they match the core.

use core::ffi::{c_char, c_void};
use core::mem::{align_of, offset_of, size_of};

use synaptic_mem::plan::{PlanSlot, SlotType};
use synaptic_mem::{DType, Lifetime, PlanRun, Stats, TensorDesc, TypedPlan, DESC_SPAN};

/// Every allocation (descriptor and data) is aligned to this many bytes (NPU DMA alignment).
pub const SYN_MEM_ALIGN: usize = 16;
/// Maximum number of tensor dimensions (batch, height, width, channels).
pub const SYN_MEM_MAX_DIMS: usize = 4;
/// Bytes from a tensor's descriptor to its data (the descriptor rounded up to 16).
pub const SYN_MEM_DESC_SPAN: usize = 32;

const _: () = assert!(SYN_MEM_ALIGN == synaptic_mem::ALIGN);
const _: () = assert!(SYN_MEM_DESC_SPAN == DESC_SPAN);

/// Memory lifetime classification
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SynMemLifetime {
    /// Lives across inference calls (weights, biases)
    SYN_MEM_PERSISTENT = 0,
    /// Freed after each inference (activations)
    SYN_MEM_EPHEMERAL = 1,
    /// In shared IPC region (input/output tensors)
    SYN_MEM_SHARED = 2,
}

/// NPU tensor element data type
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SynNpuDtype {
    /// Signed 8-bit integer
    SYN_NPU_DTYPE_INT8 = 0,
    /// Unsigned 8-bit integer
    SYN_NPU_DTYPE_UINT8 = 1,
    /// Signed 16-bit integer
    SYN_NPU_DTYPE_INT16 = 2,
    /// Signed 32-bit integer
    SYN_NPU_DTYPE_INT32 = 3,
    /// IEEE 754 half precision
    SYN_NPU_DTYPE_FLOAT16 = 4,
    /// IEEE 754 single precision
    SYN_NPU_DTYPE_FLOAT32 = 5,
    /// bfloat16
    SYN_NPU_DTYPE_BFLOAT16 = 6,
    /// Signed 4-bit integer, two per byte (size rounded up)
    SYN_NPU_DTYPE_INT4 = 7,
}

const _: () = {
    use SynMemLifetime as L;
    use SynNpuDtype as D;
    assert!(L::SYN_MEM_PERSISTENT as u8 == Lifetime::Persistent as u8);
    assert!(L::SYN_MEM_EPHEMERAL as u8 == Lifetime::Ephemeral as u8);
    assert!(L::SYN_MEM_SHARED as u8 == Lifetime::Shared as u8);
    assert!(D::SYN_NPU_DTYPE_INT8 as u8 == DType::Int8 as u8);
    assert!(D::SYN_NPU_DTYPE_UINT8 as u8 == DType::UInt8 as u8);
    assert!(D::SYN_NPU_DTYPE_INT16 as u8 == DType::Int16 as u8);
    assert!(D::SYN_NPU_DTYPE_INT32 as u8 == DType::Int32 as u8);
    assert!(D::SYN_NPU_DTYPE_FLOAT16 as u8 == DType::Float16 as u8);
    assert!(D::SYN_NPU_DTYPE_FLOAT32 as u8 == DType::Float32 as u8);
    assert!(D::SYN_NPU_DTYPE_BFLOAT16 as u8 == DType::BFloat16 as u8);
    assert!(D::SYN_NPU_DTYPE_INT4 as u8 == DType::Int4 as u8);
    assert!(DType::ALL.len() == 8);
};

/// A `syn_npu_dtype_t` argument as C passes it: any integer, checked before use (an unknown
/// value such as 99 is an error, never undefined behaviour). Shown as `syn_npu_dtype_t` in
/// the header.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawDtype(pub u32);

impl RawDtype {
    /// The data type, if the value is one.
    #[inline(always)]
    pub const fn get(self) -> Option<DType> {
        // A match (not a table) so the conversion compiles to a range check only.
        match self.0 {
            0 => Some(DType::Int8),
            1 => Some(DType::UInt8),
            2 => Some(DType::Int16),
            3 => Some(DType::Int32),
            4 => Some(DType::Float16),
            5 => Some(DType::Float32),
            6 => Some(DType::BFloat16),
            7 => Some(DType::Int4),
            _ => None,
        }
    }
}

impl From<SynNpuDtype> for RawDtype {
    fn from(d: SynNpuDtype) -> Self {
        RawDtype(d as u32)
    }
}

/// A `syn_mem_lifetime_t` argument as C passes it, checked before use. Shown as
/// `syn_mem_lifetime_t` in the header.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawLifetime(pub u32);

impl RawLifetime {
    /// The lifetime, if the value is one.
    #[inline(always)]
    pub const fn get(self) -> Option<Lifetime> {
        match self.0 {
            0 => Some(Lifetime::Persistent),
            1 => Some(Lifetime::Ephemeral),
            2 => Some(Lifetime::Shared),
            _ => None,
        }
    }
}

impl From<SynMemLifetime> for RawLifetime {
    fn from(l: SynMemLifetime) -> Self {
        RawLifetime(l as u32)
    }
}

/// Tensor descriptor. Placed at a 16-byte aligned offset in its region; `data` starts at the
/// next 16-byte boundary after it (SYN_MEM_DESC_SPAN bytes later). 28 bytes on 32-bit
/// targets, 32 on 64-bit ones; same layout as the Rust core's `TensorDesc`. Read-only for
/// the application.
#[repr(C)]
#[derive(Debug)]
pub struct SynTensor {
    /// Data buffer, 16-byte aligned (directly usable as a DMA target)
    pub data: *mut c_void,
    /// Dimensions (batch, height, width, channels); unused trailing ones are 1
    pub shape: [u32; 4],
    /// Number of dimensions, 1..4
    pub ndim: u8,
    /// Element type, a syn_npu_dtype_t value
    pub dtype: u8,
    /// Lifetime class, a syn_mem_lifetime_t value
    pub lifetime: u8,
    /// Always 0
    pub reserved: u8,
    /// Bytes of data (INT4 rounded up to whole bytes)
    pub size: u32,
}

const PTR: usize = size_of::<*mut u8>();
const _: () = {
    assert!(size_of::<SynTensor>() == size_of::<TensorDesc>());
    assert!(align_of::<SynTensor>() == align_of::<TensorDesc>());
    assert!(size_of::<SynTensor>() <= SYN_MEM_DESC_SPAN);
    assert!(size_of::<SynTensor>() == if PTR == 4 { 28 } else { 32 });
    // Field by field at the core's own offsets (`offset_of!` on `TensorDesc`), so a change
    // to either layout breaks the build.
    assert!(offset_of!(SynTensor, data) == offset_of!(TensorDesc, data));
    assert!(offset_of!(SynTensor, shape) == offset_of!(TensorDesc, shape));
    assert!(offset_of!(SynTensor, ndim) == offset_of!(TensorDesc, ndim));
    assert!(offset_of!(SynTensor, dtype) == offset_of!(TensorDesc, dtype));
    assert!(offset_of!(SynTensor, lifetime) == offset_of!(TensorDesc, lifetime));
    assert!(offset_of!(SynTensor, reserved) == offset_of!(TensorDesc, reserved));
    assert!(offset_of!(SynTensor, size) == offset_of!(TensorDesc, size));
    // And at the layout the header documents (pointer, 4 × u32, 4 bytes, u32).
    assert!(offset_of!(SynTensor, ndim) == PTR + 16 && offset_of!(SynTensor, size) == PTR + 20);
    assert!(size_of::<DType>() == 1 && size_of::<Lifetime>() == 1);
};

/// Arena statistics: the numbers the `syn mem stats` shell command prints. Sizes in bytes;
/// region usage includes the 32-byte tensor descriptors.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SynMemStats {
    /// Arena size given to syn_mem_init
    pub arena_size: usize,
    /// Bytes left after aligning the base up to 16 (and the end down to 16)
    pub usable_size: usize,
    /// Tensor space: persistent + ephemeral capacity, below the scratch pool
    pub tensor_capacity: usize,
    /// Bytes used by persistent tensors
    pub persistent_used: usize,
    /// Bytes used by live ephemeral tensors
    pub ephemeral_used: usize,
    /// Largest ephemeral_used seen
    pub ephemeral_peak: usize,
    /// Bytes of the scratch pool in use
    pub scratch_used: usize,
    /// Capacity of the scratch pool
    pub scratch_size: usize,
    /// Largest scratch_used seen
    pub scratch_peak: usize,
    /// Bytes used in the shared (IPC) region
    pub shared_used: usize,
    /// Capacity of the shared region (0 if none is registered)
    pub shared_size: usize,
    /// High-water mark of tensor space (persistent + ephemeral)
    pub arena_peak: usize,
    /// Successful allocations (tensors of every lifetime and scratch buffers)
    pub alloc_count: u32,
    /// Ephemeral resets
    pub reset_count: u32,
    /// Failed allocations
    pub failed_count: u32,
}

impl From<Stats> for SynMemStats {
    fn from(s: Stats) -> Self {
        // Exhaustive destructuring: a new `Stats` field breaks the build until it is mapped.
        let Stats {
            arena_size,
            usable_size,
            tensor_capacity,
            persistent_used,
            ephemeral_used,
            ephemeral_peak,
            scratch_used,
            scratch_size,
            scratch_peak,
            shared_used,
            shared_size,
            arena_peak,
            alloc_count,
            reset_count,
            failed_count,
        } = s;
        SynMemStats {
            arena_size,
            usable_size,
            tensor_capacity,
            persistent_used,
            ephemeral_used,
            ephemeral_peak,
            scratch_used,
            scratch_size,
            scratch_peak,
            shared_used,
            shared_size,
            arena_peak,
            alloc_count,
            reset_count,
            failed_count,
        }
    }
}

/// EXTENSION. Output callback for syn_mem_print_stats: receives `len` bytes of the table at
/// `buf` (not NUL-terminated; one call or several, concatenated they are the whole text) and
/// the `ctx` given to syn_mem_set_print_fn.
pub type SynMemPrintFn =
    Option<unsafe extern "C" fn(buf: *const c_char, len: usize, ctx: *mut c_void)>;

/// EXTENSION. Size of a syn_mem_plan_t in `size_t` words.
pub const SYN_MEM_PLAN_WORDS: usize = 12;

/// EXTENSION. A plan loaded into the arena by syn_mem_plan_load(): where its descriptor table
/// is, in which arena and initialisation, and the inference it was last begun for. Opaque: only
/// syn_mem_plan_load() fills it and syn_mem_plan_begin() updates it; copies of it are fine
/// (it holds no pointer to the slot tables it was loaded from), changes by the application are
/// not. Declare one per loaded model, e.g. `static syn_mem_plan_t model_plan;`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SynMemPlan {
    /// Private
    pub opaque_: [usize; SYN_MEM_PLAN_WORDS],
}

/// What a [`SynMemPlan`] holds: the core's plan handle and its current run.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct PlanState {
    /// The inference begun last (`PlanRun::NOT_BEGUN` after load).
    pub(crate) run: PlanRun,
    /// The loaded plan.
    pub(crate) plan: TypedPlan,
}

const _: () = {
    assert!(size_of::<PlanState>() <= size_of::<SynMemPlan>());
    assert!(align_of::<PlanState>() <= align_of::<SynMemPlan>());
    // The emitted headers' syn_plan_slot_t and syn_plan_type_t (written by hand in the
    // header, checked there with the same numbers) are the core's types.
    assert!(size_of::<PlanSlot>() == 12 && align_of::<PlanSlot>() == 4);
    assert!(offset_of!(PlanSlot, offset) == 0 && offset_of!(PlanSlot, size) == 4);
    assert!(offset_of!(PlanSlot, first_op) == 8 && offset_of!(PlanSlot, last_op) == 10);
    assert!(size_of::<SlotType>() == 20 && align_of::<SlotType>() == 4);
    assert!(offset_of!(SlotType, shape) == 0);
    assert!(offset_of!(SlotType, ndim) == 16 && offset_of!(SlotType, dtype) == 17);
};
