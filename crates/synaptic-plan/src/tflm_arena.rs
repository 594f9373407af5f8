//! TensorFlow Lite Micro's whole arena: `kTensorArenaSize`, per kernel set and target.
//!
//! TFLM's arena is one buffer with two ends (`SingleArenaBufferAllocator`): the **head**
//! (non-persistent: the tensor plan and the kernels' scratch, planned by its
//! `GreedyMemoryPlanner` around any offline offsets) grows up from the start, the **tail**
//! (persistent: TFLM's own bookkeeping and the kernels' data) grows down from the end, and
//! temporary allocations during `AllocateTensors` sit just above the head. The smallest arena
//! `MicroInterpreter::AllocateTensors` accepts is not a sum of struct sizes but the result of
//! that sequence of allocations, each of which must fit when it is made. [`tflm_arena`]
//! replays it allocation by allocation, as TFLM's sources at tflite-micro
//! `90b983c2b3f1480642e040bbd2ddb37b998f3424` make them (with CMSIS-NN
//! `4ab83cc3cc98fb85ed6dafb55e8ca02f1628dcae` for the CMSIS-NN kernels), on an arena of a
//! given length, and bisects the length in 4-byte steps as the QEMU harness's `bisect.sh`
//! does:
//!
//! 1. `MicroAllocator::Create` (tail): `SingleArenaBufferAllocator`, `GreedyMemoryPlanner`,
//!    `MicroAllocator` (each `sizeof`, `alignof`).
//! 2. `StartModelAllocation`: `MicroBuiltinDataAllocator` (tail); the scratch-request buffer
//!    `ScratchBufferRequest × kMaxScratchBuffersPerOp` (12) at the head;
//!    `SubgraphAllocations × subgraphs`, `TfLiteEvalTensor × tensors`, `NodeAndRegistration ×
//!    operators` (tail).
//! 3. Every operator's builtin options struct (`TfLiteConvParams`, …: the parser's
//!    `SafeBuiltinDataAllocator`, tail, its own alignment).
//! 4. Every kernel's `Init`: its OpData (`AllocatePersistentBuffer`, tail, 16-aligned).
//! 5. Every kernel's `Prepare`, in order: temporary `TfLiteTensor`s (with a temporary
//!    `TfLiteAffineQuantization` and zero-point `TfLiteIntArray` for a quantized tensor) above
//!    the head, which are only released when the operator is done; the per-channel
//!    multiplier/shift arrays (tail, 16-aligned); scratch requests. After each operator the
//!    request buffer is resized to `(requests + 12)` entries.
//! 6. `FinishModelAllocation`: `ScratchBufferHandle × requests` (tail); temporary
//!    `size_t × subgraphs` and `AllocationInfo × (tensors + requests)`; variables left to TFLM
//!    (tail, 16-aligned); the greedy planner's working memory (40 B per planned buffer, in
//!    what is left between the temporaries and the tail); then the head itself — the plan's
//!    highest end ([`tflm_head`]) — must fit below the tail.
//! 7. `AllocateTensors` ends with `TfLiteTensor* × inputs` (16-aligned), one persistent
//!    `TfLiteTensor` (and its quantization) per graph input, then the same for the outputs.
//!
//! The sizes of TFLM's structs differ between targets: [`Abi::ARM32`] holds
//! `arm-none-eabi-gcc`'s (Cortex-M, 32-bit pointers, the bare-metal EABI's short enums, so
//! `TfLiteFullyConnectedParams` is 5 bytes), [`Abi::X86_64`] a 64-bit host's (TFLM's Python
//! wheel). Each figure is `sizeof`/`alignof` read from TFLM's headers and checked by compiling
//! them with both compilers (`docs/tflm.md`).
//!
//! The kernels' data and scratch requests come from each kernel set's `Init`/`Prepare`
//! ([`Kernels`]): TFLM's reference kernels (`tensorflow/lite/micro/kernels/*.cc`), or TFLM's
//! CMSIS-NN glue (`kernels/cmsis_nn/*.cc`) with CMSIS-NN's buffer-size functions for the
//! Cortex-M4 DSP path ([`cmsis_nn`]: `ARM_MATH_DSP` without `ARM_MATH_MVEI`, built with GCC).
//! Operators outside the list [`tflm_arena`] documents are refused with their name, never
//! guessed.

use crate::error::ImportError;
use crate::model::Model;
use serde::Serialize;

/// Which kernels TFLM is built with: they decide the per-operator data (`Init`/`Prepare`) and
/// the scratch buffers each operator asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kernels {
    /// TFLM's reference kernels (`tensorflow/lite/micro/kernels/*.cc`).
    Reference,
    /// TFLM's CMSIS-NN kernels (`kernels/cmsis_nn/*.cc`) on CMSIS-NN's Cortex-M4 DSP path
    /// (`ARM_MATH_DSP`, no MVE), compiled with GCC.
    CmsisNn,
}

impl Kernels {
    /// The name on the command line (`reference`, `cmsis-nn`).
    pub fn name(self) -> &'static str {
        match self {
            Kernels::Reference => "reference",
            Kernels::CmsisNn => "cmsis-nn",
        }
    }
}

/// `sizeof` and `alignof` of one C++ type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Layout {
    /// `sizeof`.
    pub size: u64,
    /// `alignof`.
    pub align: u64,
}

const fn l(size: u64, align: u64) -> Layout {
    Layout { size, align }
}

/// The sizes of TFLM's structs on one target (see the module docs for how they were read).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Abi {
    /// The target's name.
    pub name: &'static str,
    /// `sizeof(void*)` (also `sizeof(size_t)`).
    pub pointer: u64,
    /// `SingleArenaBufferAllocator`.
    pub single_arena_buffer_allocator: Layout,
    /// `GreedyMemoryPlanner`.
    pub greedy_memory_planner: Layout,
    /// `MicroAllocator`.
    pub micro_allocator: Layout,
    /// `MicroBuiltinDataAllocator` (micro_allocator.cc).
    pub builtin_data_allocator: Layout,
    /// `SubgraphAllocations`.
    pub subgraph_allocations: Layout,
    /// `TfLiteEvalTensor`.
    pub eval_tensor: Layout,
    /// `NodeAndRegistration`.
    pub node_and_registration: Layout,
    /// `internal::ScratchBufferRequest`.
    pub scratch_buffer_request: Layout,
    /// `ScratchBufferHandle`.
    pub scratch_buffer_handle: Layout,
    /// `AllocationInfo`.
    pub allocation_info: Layout,
    /// `TfLiteTensor` (with `TF_LITE_STATIC_MEMORY`).
    pub tflite_tensor: Layout,
    /// `TfLiteAffineQuantization`.
    pub affine_quantization: Layout,
    /// `TfLiteConvParams`.
    pub conv_params: Layout,
    /// `TfLiteDepthwiseConvParams`.
    pub depthwise_conv_params: Layout,
    /// `TfLiteFullyConnectedParams`.
    pub fully_connected_params: Layout,
    /// `TfLitePoolParams`.
    pub pool_params: Layout,
    /// `TfLiteSoftmaxParams`.
    pub softmax_params: Layout,
    /// `TfLiteAddParams`.
    pub add_params: Layout,
    /// `TfLiteReshapeParams`.
    pub reshape_params: Layout,
    /// Reference OpData: `OpDataConv` (conv and depthwise conv).
    pub op_data_conv: u64,
    /// Reference OpData: `OpDataFullyConnected`.
    pub op_data_fully_connected: u64,
    /// Reference OpData: `OpDataPooling`.
    pub op_data_pooling: u64,
    /// Reference OpData: `SoftmaxParams`.
    pub op_data_softmax: u64,
    /// Reference OpData: `OpDataAdd`.
    pub op_data_add: u64,
    /// CMSIS-NN OpData of conv and depthwise conv (`OpDataConv` + `int buffer_idx`).
    pub cmsis_op_data_conv: u64,
    /// CMSIS-NN OpData of fully connected (`OpDataFullyConnected` + two indices, a pointer,
    /// three `int32_t`).
    pub cmsis_op_data_fully_connected: u64,
    /// CMSIS-NN OpData of pooling (`OpDataPooling` + `int buffer_idx`).
    pub cmsis_op_data_pooling: u64,
    /// CMSIS-NN `CMSISNNSoftmaxParams` (`SoftmaxParams` + two `int32_t`).
    pub cmsis_op_data_softmax: u64,
    /// CMSIS-NN add's `OpData`.
    pub cmsis_op_data_add: u64,
}

impl Abi {
    /// Cortex-M with `arm-none-eabi-gcc` (12.2, `-mcpu=cortex-m4 -mthumb -mfloat-abi=hard`,
    /// `TF_LITE_STATIC_MEMORY`): 32-bit pointers, short enums.
    pub const ARM32: Abi = Abi {
        name: "32-bit Arm (arm-none-eabi)",
        pointer: 4,
        single_arena_buffer_allocator: l(36, 4),
        greedy_memory_planner: l(44, 4),
        micro_allocator: l(36, 4),
        builtin_data_allocator: l(8, 4),
        subgraph_allocations: l(8, 4),
        eval_tensor: l(12, 4),
        node_and_registration: l(32, 4),
        scratch_buffer_request: l(12, 4),
        scratch_buffer_handle: l(4, 4),
        allocation_info: l(24, 4),
        tflite_tensor: l(32, 4),
        affine_quantization: l(12, 4),
        conv_params: l(28, 4),
        depthwise_conv_params: l(28, 4),
        fully_connected_params: l(5, 1),
        pool_params: l(40, 4),
        softmax_params: l(4, 4),
        add_params: l(2, 1),
        reshape_params: l(36, 4),
        op_data_conv: 56,
        op_data_fully_connected: 48,
        op_data_pooling: 32,
        op_data_softmax: 56,
        op_data_add: 60,
        cmsis_op_data_conv: 60,
        cmsis_op_data_fully_connected: 72,
        cmsis_op_data_pooling: 36,
        cmsis_op_data_softmax: 64,
        cmsis_op_data_add: 60,
    };

    /// A 64-bit host with g++ (x86-64 Linux, plain `MicroAllocator`): 64-bit pointers,
    /// int-sized enums.
    pub const X86_64: Abi = Abi {
        name: "64-bit host (x86-64)",
        pointer: 8,
        single_arena_buffer_allocator: l(72, 8),
        greedy_memory_planner: l(72, 8),
        micro_allocator: l(72, 8),
        builtin_data_allocator: l(16, 8),
        subgraph_allocations: l(16, 8),
        eval_tensor: l(24, 8),
        node_and_registration: l(64, 8),
        scratch_buffer_request: l(16, 8),
        scratch_buffer_handle: l(8, 8),
        allocation_info: l(32, 8),
        tflite_tensor: l(64, 8),
        affine_quantization: l(24, 8),
        conv_params: l(28, 4),
        depthwise_conv_params: l(28, 4),
        fully_connected_params: l(16, 4),
        pool_params: l(40, 4),
        softmax_params: l(4, 4),
        add_params: l(8, 4),
        reshape_params: l(36, 4),
        op_data_conv: 72,
        op_data_fully_connected: 64,
        op_data_pooling: 32,
        op_data_softmax: 80,
        op_data_add: 60,
        cmsis_op_data_conv: 80,
        cmsis_op_data_fully_connected: 96,
        cmsis_op_data_pooling: 36,
        cmsis_op_data_softmax: 88,
        cmsis_op_data_add: 60,
    };

    /// TFLM's Python wheel on x86-64: [`Abi::X86_64`] with the allocators it creates
    /// (`RecordingMicroAllocator::Create`: a `RecordingSingleArenaBufferAllocator`, 104 B,
    /// and a `RecordingMicroAllocator`, 248 B, in place of the plain ones).
    pub const X86_64_WHEEL: Abi = Abi {
        name: "64-bit host, TFLM's Python wheel (recording allocators)",
        single_arena_buffer_allocator: l(104, 8),
        micro_allocator: l(248, 8),
        ..Abi::X86_64
    };
}

/// TFLM's `kMaxScratchBuffersPerOp`.
pub const MAX_SCRATCH_BUFFERS_PER_OP: u64 = 12;
/// `GreedyMemoryPlanner::per_buffer_size()`: its working memory per planned buffer
/// (`BufferRequirements` 16 + two `int` + `ListEntry` 12 + `int`), on every target.
pub const GREEDY_BYTES_PER_BUFFER: u64 = 40;
/// `MicroArenaBufferAlignment()`.
pub const ARENA_ALIGNMENT: u64 = 16;

/// CMSIS-NN's buffer-size functions (`*_get_buffer_size*`) on the Cortex-M4 path: CMSIS-NN
/// `4ab83cc3`, `ARM_MATH_DSP` defined, `ARM_MATH_MVEI` not, compiled with GCC (so
/// `arm_convolve_1x1_s8_fast_get_buffer_size` is 0: only Arm Compiler 6 ≥ 6.10 gets a
/// buffer there). Sizes in bytes, as `int32_t` like CMSIS-NN's.
pub mod cmsis_nn {
    /// `cmsis_nn_dims`: batch, height, width, channels.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Dims {
        /// Batches (for a filter: 1, or output channels).
        pub n: i32,
        /// Height.
        pub h: i32,
        /// Width.
        pub w: i32,
        /// Channels.
        pub c: i32,
    }

    /// The fields of `cmsis_nn_conv_params` / `cmsis_nn_dw_conv_params` the size functions read:
    /// stride, padding, dilation as (h, w).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct ConvParams {
        /// Stride (h, w).
        pub stride: (i32, i32),
        /// Padding (h, w).
        pub padding: (i32, i32),
        /// Dilation (h, w).
        pub dilation: (i32, i32),
    }

    /// `arm_nn_is_convolve_1x1`.
    fn is_1x1(p: &ConvParams, input: &Dims, filter: &Dims) -> bool {
        p.padding == (0, 0)
            && filter.w == 1
            && filter.h == 1
            && p.dilation == (1, 1)
            && input.c == filter.c
    }

    /// `arm_nn_is_convolve_1_x_n`.
    fn is_1_x_n(p: &ConvParams, input: &Dims, filter: &Dims) -> bool {
        input.h == 1
            && p.dilation.1 == 1
            && filter.h == 1
            && (p.stride.1 * input.c) % 4 == 0
            && input.c == filter.c
    }

    /// `arm_convolve_s8_get_buffer_size` (non-MVE): the im2col buffer of two columns of
    /// `int16_t`, `filter.w × filter.h × input.c` rounded up to 4.
    pub fn convolve_s8_buffer_size(input: &Dims, filter: &Dims) -> i32 {
        let rhs_cols = filter.w * filter.h * input.c;
        let aligned = (rhs_cols + 3) / 4 * 4;
        2 * aligned * 2
    }

    /// `arm_convolve_1x1_s8_fast_get_buffer_size` on the DSP path with GCC: 0.
    pub fn convolve_1x1_s8_fast_buffer_size(_input: &Dims) -> i32 {
        0
    }

    /// `arm_convolve_wrapper_s8_get_buffer_size` (its `_dsp` variant): 1×1 kernels none
    /// (stride 1: the fast 1×1, 0 with GCC), 1×N on a one-row input and everything else the
    /// im2col buffer of [`convolve_s8_buffer_size`].
    pub fn convolve_wrapper_s8_buffer_size(
        p: &ConvParams,
        input: &Dims,
        filter: &Dims,
        _output: &Dims,
    ) -> i32 {
        if is_1x1(p, input, filter) {
            if p.stride == (1, 1) {
                convolve_1x1_s8_fast_buffer_size(input)
            } else {
                0
            }
        } else {
            // 1×N (arm_convolve_1_x_n_s8_get_buffer_size) is the general size off MVE.
            let _ = is_1_x_n(p, input, filter);
            convolve_s8_buffer_size(input, filter)
        }
    }

    /// `arm_depthwise_conv_s8_opt_get_buffer_size` (DSP): `input.c × filter.w × filter.h`
    /// `int16_t`.
    pub fn depthwise_conv_s8_opt_buffer_size(input: &Dims, filter: &Dims) -> i32 {
        input.c * filter.w * filter.h * 2
    }

    /// `arm_depthwise_conv_wrapper_s8_get_buffer_size` (DSP): only the optimised path
    /// (channel multiplier 1, one batch, no dilation) has a buffer, and none for a 3×3 kernel
    /// with padding ≤ 1 (`arm_depthwise_conv_3x3_s8`).
    pub fn depthwise_conv_wrapper_s8_buffer_size(
        p: &ConvParams,
        input: &Dims,
        filter: &Dims,
        output: &Dims,
    ) -> i32 {
        if input.c == output.c && input.n == 1 && p.dilation == (1, 1) {
            if filter.w == 3 && filter.h == 3 && p.padding.0 <= 1 && p.padding.1 <= 1 {
                return 0;
            }
            return depthwise_conv_s8_opt_buffer_size(input, filter);
        }
        0
    }

    /// `arm_fully_connected_s8_get_buffer_size` (non-MVE): 0.
    pub fn fully_connected_s8_buffer_size(_filter: &Dims) -> i32 {
        0
    }

    /// `arm_avgpool_s8_get_buffer_size` (DSP): one `int32_t` per channel.
    pub fn avgpool_s8_buffer_size(_output_w: i32, channels: i32) -> i32 {
        channels * 4
    }
}

/// What TFLM's reference kernels ask for as scratch (`RequestScratchBufferInArena`): only
/// CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED with int4 filters (a buffer to unpack the
/// filter into, one byte per element); nothing for every other operator this module knows.
pub mod reference {
    /// The unpacking buffer of an int4 filter of `filter_elements` elements (conv,
    /// depthwise conv, fully connected), none for other filters.
    pub fn int4_filter_buffer_size(filter_is_int4: bool, filter_elements: u64) -> u64 {
        if filter_is_int4 {
            filter_elements
        } else {
            0
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The model, as TFLM's allocator sees it.

#[derive(Clone, Debug)]
struct FbTensor {
    type_code: u8,
    shape: Vec<i32>,
    has_data: bool,
    variable: bool,
    bytes: u64,
    /// Channels of the quantization TFLM copies (scale and zero point both non-empty), or 0.
    quant_channels: u64,
}

#[derive(Clone, Debug)]
struct FbOp {
    code: i32,
    name: String,
    /// Raw inputs (−1 for an absent optional one).
    inputs: Vec<i32>,
    outputs: Vec<i32>,
    conv: Option<synaptic_tflite::Conv2DOptions>,
    dw: Option<synaptic_tflite::DepthwiseConv2DOptions>,
}

struct Graph {
    subgraphs: usize,
    tensors: Vec<FbTensor>,
    ops: Vec<FbOp>,
    inputs: Vec<usize>,
    outputs: Vec<usize>,
}

const TYPE_INT4: u8 = 17;
const TYPE_INT8: u8 = 9;

fn graph(bytes: &[u8]) -> Result<Graph, ImportError> {
    let model = Model::from_bytes(bytes)?;
    let fbm = synaptic_tflite::Model::new(bytes)?;
    let sg = fbm.subgraph(0)?;
    let mut tensors = Vec::with_capacity(model.tensors.len());
    for (i, info) in model.tensors.iter().enumerate() {
        let t = sg.tensor(i)?;
        let quant_channels = match t.quantization()? {
            Some(q) => {
                let (s, z) = (q.scales()?.len(), q.zero_points()?.len());
                if s > 0 && z > 0 {
                    s as u64
                } else {
                    0
                }
            }
            None => 0,
        };
        tensors.push(FbTensor {
            type_code: t.type_code()?,
            shape: t.shape()?.iter().collect(),
            has_data: !fbm.tensor_data(&t)?.is_empty(),
            variable: t.is_variable()?,
            bytes: info.bytes,
            quant_channels,
        });
    }
    let mut ops = Vec::with_capacity(model.operators.len());
    for (i, mop) in model.operators.iter().enumerate() {
        let op = sg.operator(i)?;
        let code = fbm.operator_code(op.opcode_index()? as usize)?.builtin;
        use synaptic_tflite::code as c;
        ops.push(FbOp {
            code,
            name: mop.opcode.clone(),
            inputs: op.inputs()?.iter().collect(),
            outputs: op.outputs()?.iter().collect(),
            conv: (code == c::CONV_2D)
                .then(|| op.conv2d_options())
                .transpose()?,
            dw: (code == c::DEPTHWISE_CONV_2D)
                .then(|| op.depthwise_conv2d_options())
                .transpose()?,
        });
    }
    Ok(Graph {
        subgraphs: model.subgraphs,
        tensors,
        ops,
        inputs: model.inputs.clone(),
        outputs: model.outputs.clone(),
    })
}

impl Graph {
    fn tensor(&self, ix: i32) -> Option<&FbTensor> {
        usize::try_from(ix).ok().and_then(|i| self.tensors.get(i))
    }
    fn dim(&self, ix: i32, d: usize) -> i32 {
        self.tensor(ix)
            .and_then(|t| t.shape.get(d).copied())
            .unwrap_or(0)
    }
    fn dims4(&self, ix: i32) -> cmsis_nn::Dims {
        cmsis_nn::Dims {
            n: self.dim(ix, 0),
            h: self.dim(ix, 1),
            w: self.dim(ix, 2),
            c: self.dim(ix, 3),
        }
    }
    fn elements(&self, ix: i32) -> u64 {
        self.tensor(ix)
            .map(|t| t.shape.iter().map(|&d| d.max(0) as u64).product())
            .unwrap_or(0)
    }
}

/// TFLM's `ComputePaddingHeightWidth` for one dimension: the padding before the data
/// (`padding`: the schema's 0 SAME, 1 VALID).
fn tflm_padding(padding: i8, stride: i32, dilation: i32, input: i32, filter: i32) -> i32 {
    let effective = (filter - 1) * dilation + 1;
    if stride <= 0 {
        return 0;
    }
    let out = match padding {
        0 => (input + stride - 1) / stride,
        1 => (input + stride - effective) / stride,
        _ => 0,
    };
    let total = ((out - 1) * stride + effective - input).max(0);
    total / 2
}

/// One step of a kernel's `Prepare`.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// A temporary `TfLiteTensor` of this tensor (−1: absent, nothing allocated).
    Temp(i32),
    /// `AllocatePersistentBuffer(bytes)`.
    Persist(u64),
    /// `RequestScratchBufferInArena(bytes)`.
    Scratch(u64),
}

/// What one operator allocates: its builtin options struct, its OpData, its `Prepare`.
struct OpAlloc {
    params: Option<Layout>,
    op_data: Option<u64>,
    prepare: Vec<Step>,
}

/// Operators [`tflm_arena`] and [`kernel_scratch`] model.
pub const SUPPORTED_OPERATORS: &[&str] = &[
    "ADD",
    "AVERAGE_POOL_2D",
    "CONV_2D",
    "DEPTHWISE_CONV_2D",
    "FULLY_CONNECTED",
    "MAX_POOL_2D",
    "RESHAPE",
    "SOFTMAX",
];

fn op_alloc(g: &Graph, op: &FbOp, kernels: Kernels, abi: &Abi) -> Result<OpAlloc, ImportError> {
    use synaptic_tflite::code as c;
    use Step::{Persist, Scratch, Temp};
    let input = |k: usize| op.inputs.get(k).copied().unwrap_or(-1);
    let output = |k: usize| op.outputs.get(k).copied().unwrap_or(-1);
    let cmsis = kernels == Kernels::CmsisNn;
    let in_type = g.tensor(input(0)).map_or(0, |t| t.type_code);
    let filter_int4 = g.tensor(input(1)).is_some_and(|t| t.type_code == TYPE_INT4);
    let unsupported = |why: &str| {
        Err(ImportError::unsupported(format!(
            "operator {} ({}): {why}, so TFLM's arena cannot be computed (modelled: {})",
            op.name,
            op.code,
            SUPPORTED_OPERATORS.join(", ")
        )))
    };
    let weighted = matches!(
        op.code,
        c::CONV_2D | c::DEPTHWISE_CONV_2D | c::FULLY_CONNECTED
    );
    let filter_type = g.tensor(input(1)).map_or(0, |t| t.type_code);
    if weighted && in_type == 0 && filter_type != 0 {
        // "Hybrid models are not supported on TFLite Micro." (every kernel set's Prepare).
        return unsupported("a hybrid model (float input, integer weights): TFLM refuses it");
    }
    let a = match op.code {
        c::CONV_2D => {
            let o = op.conv.unwrap_or_default();
            let channels = g.dim(input(1), 0).max(0) as u64 * 4;
            let mut p = Vec::new();
            if cmsis {
                // Input, filter, output; the "bias" is read as output 2 (absent).
                p.extend([Temp(input(0)), Temp(input(1)), Temp(output(0))]);
                if in_type == TYPE_INT8 || in_type == 7 {
                    p.extend([Persist(channels), Persist(channels)]);
                }
            } else {
                p.extend([Temp(output(0)), Temp(input(0)), Temp(input(1))]);
                p.extend([Persist(channels), Persist(channels)]);
            }
            // CalculateOpDataConv.
            p.extend([
                Temp(input(0)),
                Temp(input(1)),
                Temp(input(2)),
                Temp(output(0)),
            ]);
            if cmsis {
                if in_type == TYPE_INT8 {
                    let (i, f) = (g.dims4(input(0)), g.dims4(input(1)));
                    let pad = (
                        tflm_padding(o.padding, o.stride_h, o.dilation_h, i.h, f.h),
                        tflm_padding(o.padding, o.stride_w, o.dilation_w, i.w, f.w),
                    );
                    let params = cmsis_nn::ConvParams {
                        stride: (o.stride_h, o.stride_w),
                        padding: pad,
                        dilation: (o.dilation_h, o.dilation_w),
                    };
                    let filter = cmsis_nn::Dims { n: 1, ..f };
                    let b = cmsis_nn::convolve_wrapper_s8_buffer_size(
                        &params,
                        &i,
                        &filter,
                        &g.dims4(output(0)),
                    );
                    if b > 0 {
                        p.push(Scratch(b as u64));
                    }
                } else if in_type != 0 {
                    return unsupported("CMSIS-NN conv of a type other than int8/float32");
                }
            } else if filter_int4 {
                p.push(Scratch(reference::int4_filter_buffer_size(
                    true,
                    g.elements(input(1)),
                )));
            }
            OpAlloc {
                params: Some(abi.conv_params),
                op_data: Some(if cmsis {
                    abi.cmsis_op_data_conv
                } else {
                    abi.op_data_conv
                }),
                prepare: p,
            }
        }
        c::DEPTHWISE_CONV_2D => {
            let o = op.dw.unwrap_or_default();
            let channels = g.dim(input(1), 3).max(0) as u64 * 4;
            let mut p = Vec::new();
            if cmsis {
                p.extend([Temp(input(0)), Temp(input(1)), Temp(output(0))]);
                if in_type == TYPE_INT8 || in_type == 7 {
                    p.extend([Persist(channels), Persist(channels)]);
                }
            } else {
                p.extend([Temp(output(0)), Temp(input(0)), Temp(input(1))]);
                p.extend([Persist(channels), Persist(channels)]);
            }
            p.extend([
                Temp(input(0)),
                Temp(input(1)),
                Temp(input(2)),
                Temp(output(0)),
            ]);
            if cmsis {
                if in_type == TYPE_INT8 {
                    let (i, f, out) = (g.dims4(input(0)), g.dims4(input(1)), g.dims4(output(0)));
                    let params = cmsis_nn::ConvParams {
                        stride: (o.stride_h, o.stride_w),
                        padding: (
                            tflm_padding(o.padding, o.stride_h, o.dilation_h, i.h, f.h),
                            tflm_padding(o.padding, o.stride_w, o.dilation_w, i.w, f.w),
                        ),
                        dilation: (o.dilation_h, o.dilation_w),
                    };
                    let filter = cmsis_nn::Dims {
                        n: 1,
                        h: f.h,
                        w: f.w,
                        c: out.c,
                    };
                    let input = cmsis_nn::Dims { n: out.n, ..i };
                    let b = cmsis_nn::depthwise_conv_wrapper_s8_buffer_size(
                        &params, &input, &filter, &out,
                    );
                    if b > 0 {
                        p.push(Scratch(b as u64));
                    }
                }
            } else if filter_int4 {
                p.push(Scratch(g.elements(input(1))));
            }
            OpAlloc {
                params: Some(abi.depthwise_conv_params),
                op_data: Some(if cmsis {
                    abi.cmsis_op_data_conv
                } else {
                    abi.op_data_conv
                }),
                prepare: p,
            }
        }
        c::FULLY_CONNECTED => {
            let filter = g.tensor(input(1));
            let per_channel = filter.is_some_and(|t| t.quant_channels > 1);
            let mut p = vec![
                Temp(input(0)),
                Temp(input(1)),
                Temp(input(2)),
                Temp(output(0)),
            ];
            if !cmsis && filter_int4 {
                p.push(Scratch(g.elements(input(1))));
            }
            if per_channel && in_type != 1 && in_type != 0 {
                let n = filter.map_or(0, |t| t.quant_channels) * 4;
                p.extend([Persist(n), Persist(n)]);
            }
            if cmsis && in_type == TYPE_INT8 && !filter_int4 {
                let out = g
                    .tensor(output(0))
                    .map(|t| t.shape.clone())
                    .unwrap_or_default();
                let accum = filter.and_then(|t| t.shape.last().copied()).unwrap_or(0);
                if out.len() > 2 && accum % 4 == 0 {
                    if !per_channel {
                        let depth = out.last().copied().unwrap_or(0).max(0) as u64;
                        p.push(Scratch(depth * 4 * 2));
                    }
                    // arm_convolve_1x1_s8_fast_get_buffer_size: 0 with GCC.
                } else {
                    // arm_fully_connected_s8_get_buffer_size: 0 off MVE, so no kernel sums.
                    debug_assert_eq!(
                        cmsis_nn::fully_connected_s8_buffer_size(&cmsis_nn::Dims {
                            n: 0,
                            h: 1,
                            w: 1,
                            c: 0
                        }),
                        0
                    );
                }
            } else if cmsis && in_type != 0 && in_type != TYPE_INT8 {
                return unsupported("CMSIS-NN fully connected of a type other than int8/float32");
            }
            OpAlloc {
                params: Some(abi.fully_connected_params),
                op_data: Some(if cmsis {
                    abi.cmsis_op_data_fully_connected
                } else {
                    abi.op_data_fully_connected
                }),
                prepare: p,
            }
        }
        c::AVERAGE_POOL_2D | c::MAX_POOL_2D => {
            let mut p = vec![Temp(input(0)), Temp(output(0))];
            if cmsis && op.code == c::AVERAGE_POOL_2D {
                p.extend([Temp(input(0)), Temp(output(0))]);
                if in_type == TYPE_INT8 {
                    let out = g.dims4(output(0));
                    let b = cmsis_nn::avgpool_s8_buffer_size(out.w, out.c);
                    if b > 0 {
                        p.push(Scratch(b as u64));
                    }
                } else if in_type == 7 {
                    return unsupported("CMSIS-NN int16 average pooling");
                }
            }
            OpAlloc {
                params: Some(abi.pool_params),
                op_data: Some(if cmsis {
                    abi.cmsis_op_data_pooling
                } else {
                    abi.op_data_pooling
                }),
                prepare: p,
            }
        }
        c::SOFTMAX => {
            if in_type == 7 {
                return unsupported("int16 softmax (its lookup tables)");
            }
            OpAlloc {
                params: Some(abi.softmax_params),
                op_data: Some(if cmsis {
                    abi.cmsis_op_data_softmax
                } else {
                    abi.op_data_softmax
                }),
                prepare: vec![Temp(input(0)), Temp(output(0))],
            }
        }
        c::ADD => OpAlloc {
            params: Some(abi.add_params),
            op_data: Some(if cmsis {
                abi.cmsis_op_data_add
            } else {
                abi.op_data_add
            }),
            prepare: vec![Temp(input(0)), Temp(input(1)), Temp(output(0))],
        },
        c::RESHAPE => {
            let mut p = vec![Temp(input(0)), Temp(output(0))];
            // A -1 in the output's shape: CreateWritableTensorDimsWithCopy.
            if let Some(t) = g.tensor(output(0)) {
                if t.shape.contains(&-1) {
                    p.push(Persist(4 + 4 * t.shape.len() as u64));
                }
            }
            OpAlloc {
                params: Some(abi.reshape_params),
                op_data: None,
                prepare: p,
            }
        }
        _ => return unsupported("not modelled"),
    };
    Ok(a)
}

/// The scratch buffers (`RequestScratchBufferInArena`, bytes as requested, in request order)
/// each operator's kernel asks for in `Prepare`, per kernel set: `result[op]`.
pub fn kernel_scratch(bytes: &[u8], kernels: Kernels) -> Result<Vec<Vec<u64>>, ImportError> {
    let g = graph(bytes)?;
    g.ops
        .iter()
        .map(|op| {
            Ok(op_alloc(&g, op, kernels, &Abi::ARM32)?
                .prepare
                .iter()
                .filter_map(|s| match s {
                    Step::Scratch(b) => Some(*b),
                    _ => None,
                })
                .collect())
        })
        .collect()
}

/// [`kernel_scratch`] as `plan_for_tflm`'s table: per operator, the sum of its requests each
/// rounded up to 16 (how TFLM's `CreatePlan` sizes them).
pub fn scratch_table(bytes: &[u8], kernels: Kernels) -> Result<Vec<u64>, ImportError> {
    Ok(kernel_scratch(bytes, kernels)?
        .iter()
        .map(|r| r.iter().map(|&b| synaptic_mem::data_span(b)).sum())
        .collect())
}

// ---------------------------------------------------------------------------------------------
// TFLM's greedy planner.

/// One buffer as TFLM's `GreedyMemoryPlanner` gets it: size (rounded to 16), lifetime in
/// allocation scopes (−1 for never), offline offset or −1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GreedyBuffer {
    /// Bytes (a multiple of 16).
    pub size: u64,
    /// First scope.
    pub first: i64,
    /// Last scope.
    pub last: i64,
    /// Offline offset, or −1 to plan.
    pub offline: i64,
}

/// TFLM's `GreedyMemoryPlanner::CalculateOffsetsIfNeeded` and `GetMaximumMemorySize`:
/// offline buffers at their offsets first (in order), then the others by decreasing size
/// (ties: the reverse of the order they were added, as TFLM fills its sort array from the
/// back and bubble-sorts stably), each at the lowest offset where it fits between the placed
/// buffers live at the same time, walked in offset order. Returns the offsets and the head.
pub fn greedy_plan(buffers: &[GreedyBuffer]) -> (Vec<u64>, u64) {
    let n = buffers.len();
    if n == 0 {
        return (Vec::new(), 0);
    }
    let mut order: Vec<usize> = (0..n).filter(|&i| buffers[i].offline >= 0).collect();
    let mut online: Vec<usize> = (0..n).rev().filter(|&i| buffers[i].offline < 0).collect();
    online.sort_by(|&a, &b| buffers[b].size.cmp(&buffers[a].size)); // stable
    order.extend(online);
    let mut offsets = vec![0u64; n];
    // Placed buffers in offset order, ties in placement order.
    let mut placed: Vec<usize> = Vec::with_capacity(n);
    for &id in &order {
        let want = buffers[id];
        let off = if want.offline >= 0 {
            want.offline as u64
        } else {
            let mut candidate = 0u64;
            for &p in &placed {
                let b = buffers[p];
                if b.first > want.last || want.first > b.last {
                    continue;
                }
                if offsets[p] >= candidate && offsets[p] - candidate >= want.size {
                    break;
                }
                candidate = candidate.max(offsets[p] + b.size);
            }
            candidate
        };
        offsets[id] = off;
        let at = placed.partition_point(|&p| offsets[p] <= off);
        placed.insert(at, id);
    }
    let head = (0..n)
        .map(|i| offsets[i] + buffers[i].size)
        .max()
        .unwrap_or(0);
    (offsets, head)
}

/// TFLM's lifetimes of subgraph 0 in allocation scopes, −1 for never
/// (`MarkAllocationLifetimes`).
fn scopes(g: &Graph) -> Vec<(i64, i64)> {
    let mut s = vec![(-1i64, -1i64); g.tensors.len()];
    for &t in &g.inputs {
        if s[t].0 < 0 {
            s[t].0 = 0;
        }
        s[t].1 = 0;
    }
    for (i, op) in g.ops.iter().enumerate() {
        let scope = i as i64 + 1;
        for &t in &op.outputs {
            if let Ok(t) = usize::try_from(t) {
                if t < s.len() && s[t].0 < 0 {
                    s[t].0 = scope;
                }
            }
        }
        for &t in op.inputs.iter().chain(&op.outputs) {
            if let Ok(t) = usize::try_from(t) {
                if t < s.len() {
                    s[t].1 = scope;
                }
            }
        }
    }
    let end = g.ops.len() as i64;
    for &t in &g.outputs {
        if s[t].0 < 0 {
            s[t].0 = end;
        }
        s[t].1 = end;
    }
    s
}

/// The buffers TFLM's `CreatePlan` gives its planner: every tensor that needs allocating
/// (no data, non-zero bytes, not a variable unless it has an offline offset), in tensor order,
/// then every scratch request in request order, live at its operator's scope.
fn greedy_buffers(g: &Graph, offsets: Option<&[i32]>, scratch: &[Vec<u64>]) -> Vec<GreedyBuffer> {
    let sc = scopes(g);
    let mut v = Vec::new();
    for (i, t) in g.tensors.iter().enumerate() {
        let off = offsets.map_or(-1, |o| o.get(i).copied().unwrap_or(-1) as i64);
        let needs = !t.has_data && t.bytes != 0 && (!t.variable || off >= 0);
        if needs {
            v.push(GreedyBuffer {
                size: synaptic_mem::data_span(t.bytes),
                first: sc[i].0,
                last: sc[i].1,
                offline: off,
            });
        }
    }
    for (op, reqs) in scratch.iter().enumerate() {
        for &b in reqs {
            v.push(GreedyBuffer {
                size: synaptic_mem::data_span(b),
                first: op as i64 + 1,
                last: op as i64 + 1,
                offline: -1,
            });
        }
    }
    v
}

/// TFLM's head (the non-persistent section: tensors and kernel scratch) for the model with
/// `offsets` as its offline plan (`None`: TFLM's own greedy plan) and the kernel set's scratch.
pub fn tflm_head(
    bytes: &[u8],
    offsets: Option<&[i32]>,
    kernels: Kernels,
) -> Result<u64, ImportError> {
    let g = graph(bytes)?;
    let scratch = kernel_scratch(bytes, kernels)?;
    Ok(greedy_plan(&greedy_buffers(&g, offsets, &scratch)).1)
}

// ---------------------------------------------------------------------------------------------
// The replay.

/// TFLM's arena for one model, kernel set and target (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TflmArena {
    /// The kernel set.
    pub kernels: Kernels,
    /// The target's name ([`Abi::name`]).
    pub target: &'static str,
    /// The head: the plan's highest end (tensors and kernel scratch).
    pub head: u64,
    /// The persistent tail at the end of `AllocateTensors` in the smallest arena.
    pub tail: u64,
    /// Scratch requests (all operators).
    pub scratch_requests: usize,
    /// Bytes of kernel scratch (each request rounded up to 16, summed).
    pub scratch_bytes: u64,
    /// The smallest arena `AllocateTensors` accepts, in 4-byte steps (the harness's
    /// bisection): `kTensorArenaSize` for a 16-byte aligned arena.
    pub arena: u64,
    /// `arena_used_bytes()` in that arena: head (or the temporaries' high mark) + tail.
    pub used: u64,
    /// The allocation that decides the smallest arena (the first to fail 4 bytes below it).
    pub binding: String,
}

struct Sim<'a> {
    abi: &'a Abi,
    len: u64,
    head: u64,
    temp: u64,
    tail: u64,
}

fn down(x: u64, a: u64) -> u64 {
    x / a * a
}
fn up(x: u64, a: u64) -> u64 {
    x.div_ceil(a) * a
}

impl Sim<'_> {
    fn persist(&mut self, size: u64, align: u64, what: &str) -> Result<(), String> {
        let r = self
            .tail
            .checked_sub(size)
            .map(|x| down(x, align))
            .filter(|&r| r >= self.head)
            .ok_or_else(|| format!("tail: {what}"))?;
        self.tail = r;
        Ok(())
    }
    fn temp(&mut self, size: u64, align: u64, what: &str) -> Result<(), String> {
        let r = up(self.temp, align);
        if r > self.tail || self.tail - r < size {
            return Err(format!("temporary: {what}"));
        }
        self.temp = r + size;
        Ok(())
    }
    fn resize(&mut self, size: u64, what: &str) -> Result<(), String> {
        if self.tail < size {
            return Err(format!("head: {what}"));
        }
        self.head = size;
        self.temp = size;
        Ok(())
    }
    fn temp_tensor(&mut self, t: &FbTensor) -> Result<(), String> {
        let a = self.abi;
        self.temp(a.tflite_tensor.size, a.tflite_tensor.align, "TfLiteTensor")?;
        if t.quant_channels > 0 {
            self.temp(
                a.affine_quantization.size,
                a.affine_quantization.align,
                "quantization",
            )?;
            self.temp(4 + 4 * t.quant_channels, 4, "zero points")?;
        }
        Ok(())
    }
    fn persistent_tensor(&mut self, t: &FbTensor) -> Result<(), String> {
        let a = self.abi;
        self.persist(
            a.tflite_tensor.size,
            a.tflite_tensor.align,
            "I/O TfLiteTensor",
        )?;
        if t.quant_channels > 0 {
            self.persist(
                a.affine_quantization.size,
                a.affine_quantization.align,
                "I/O quantization",
            )?;
            self.persist(4 + 4 * t.quant_channels, 4, "I/O zero points")?;
        }
        Ok(())
    }
}

/// Everything the replay needs, computed once per model.
struct Prepared {
    g: Graph,
    ops: Vec<OpAlloc>,
    buffers: Vec<GreedyBuffer>,
    head: u64,
    requests: usize,
    offline_vars_online: Vec<u64>,
}

fn run(p: &Prepared, abi: &Abi, len: u64) -> Result<(u64, u64), String> {
    let mut s = Sim {
        abi,
        len,
        head: 0,
        temp: 0,
        tail: len,
    };
    let a = abi;
    let g = &p.g;
    // 1. MicroAllocator::Create.
    s.persist(
        a.single_arena_buffer_allocator.size,
        a.single_arena_buffer_allocator.align,
        "SingleArenaBufferAllocator",
    )?;
    s.persist(
        a.greedy_memory_planner.size,
        a.greedy_memory_planner.align,
        "GreedyMemoryPlanner",
    )?;
    s.persist(
        a.micro_allocator.size,
        a.micro_allocator.align,
        "MicroAllocator",
    )?;
    // 2. StartModelAllocation.
    s.persist(
        a.builtin_data_allocator.size,
        a.builtin_data_allocator.align,
        "MicroBuiltinDataAllocator",
    )?;
    let req = a.scratch_buffer_request;
    s.resize(req.size * MAX_SCRATCH_BUFFERS_PER_OP, "scratch requests")?;
    s.persist(
        a.subgraph_allocations.size * g.subgraphs as u64,
        a.subgraph_allocations.align,
        "SubgraphAllocations",
    )?;
    // Subgraph 0 holds every tensor and operator (Model refuses the rest); others are empty.
    for sg in 0..g.subgraphs {
        let n = if sg == 0 { g.tensors.len() as u64 } else { 0 };
        s.persist(
            a.eval_tensor.size * n,
            a.eval_tensor.align,
            "TfLiteEvalTensor array",
        )?;
    }
    for sg in 0..g.subgraphs {
        let n = if sg == 0 { g.ops.len() as u64 } else { 0 };
        s.persist(
            a.node_and_registration.size * n,
            a.node_and_registration.align,
            "NodeAndRegistration array",
        )?;
    }
    // 3. Builtin options.
    for o in &p.ops {
        if let Some(l) = o.params {
            s.persist(l.size, l.align, "builtin options")?;
        }
    }
    // 4. Init.
    for o in &p.ops {
        if let Some(b) = o.op_data {
            s.persist(b, ARENA_ALIGNMENT, "OpData")?;
        }
    }
    // 5. Prepare.
    let mut requests = 0u64;
    for o in &p.ops {
        for step in &o.prepare {
            match *step {
                Step::Temp(t) => {
                    if let Some(t) = g.tensor(t) {
                        s.temp_tensor(t)?;
                    }
                }
                Step::Persist(b) => s.persist(b, ARENA_ALIGNMENT, "kernel data")?,
                Step::Scratch(_) => requests += 1,
            }
        }
        s.temp = s.head;
        s.resize(
            req.size * (requests + MAX_SCRATCH_BUFFERS_PER_OP),
            "scratch requests",
        )?;
    }
    // 6. FinishModelAllocation.
    if requests > 0 {
        s.persist(
            a.scratch_buffer_handle.size * requests,
            a.scratch_buffer_handle.align,
            "ScratchBufferHandle array",
        )?;
    }
    s.temp(
        a.pointer * g.subgraphs as u64,
        a.pointer,
        "subgraph offsets",
    )?;
    let infos = g.tensors.len() as u64 + requests;
    s.temp(
        a.allocation_info.size * infos,
        a.allocation_info.align,
        "AllocationInfo array",
    )?;
    for &b in &p.offline_vars_online {
        s.persist(b, ARENA_ALIGNMENT, "variable tensor")?;
    }
    let (lo, hi) = (up(s.temp, ARENA_ALIGNMENT), down(s.tail, ARENA_ALIGNMENT));
    if lo > hi || (hi - lo) / GREEDY_BYTES_PER_BUFFER < p.buffers.len() as u64 {
        return Err("temporary: the greedy planner's working memory".into());
    }
    s.temp = s.head;
    s.resize(0, "scratch requests")?;
    s.resize(p.head, "the head (tensor plan and scratch)")?;
    // 7. Graph inputs and outputs.
    for list in [&g.inputs, &g.outputs] {
        s.persist(
            a.pointer * list.len() as u64,
            ARENA_ALIGNMENT,
            "TfLiteTensor* array",
        )?;
        for &t in list.iter() {
            s.persistent_tensor(&g.tensors[t])?;
        }
    }
    let _ = s.len;
    Ok((len - s.tail, s.head.max(s.temp)))
}

/// TFLM's arena for the model in `bytes` with `offsets` as its offline plan (`None`: TFLM's
/// own plan), the kernel set and the target: the head, the tail and the smallest arena
/// `AllocateTensors` accepts (see the module docs for the replay). Operators outside
/// [`SUPPORTED_OPERATORS`] are refused.
pub fn tflm_arena(
    bytes: &[u8],
    offsets: Option<&[i32]>,
    kernels: Kernels,
    abi: &Abi,
) -> Result<TflmArena, ImportError> {
    let g = graph(bytes)?;
    let ops = g
        .ops
        .iter()
        .map(|op| op_alloc(&g, op, kernels, abi))
        .collect::<Result<Vec<_>, _>>()?;
    let scratch: Vec<Vec<u64>> = ops
        .iter()
        .map(|o| {
            o.prepare
                .iter()
                .filter_map(|s| match s {
                    Step::Scratch(b) => Some(*b),
                    _ => None,
                })
                .collect()
        })
        .collect();
    let buffers = greedy_buffers(&g, offsets, &scratch);
    let head = greedy_plan(&buffers).1;
    let offline_vars_online = g
        .tensors
        .iter()
        .enumerate()
        .filter(|(i, t)| t.variable && offsets.is_none_or(|o| o.get(*i).copied().unwrap_or(-1) < 0))
        .map(|(_, t)| t.bytes)
        .collect();
    let p = Prepared {
        g,
        ops,
        buffers,
        head,
        requests: scratch.iter().map(Vec::len).sum(),
        offline_vars_online,
    };
    // Bisect in 4-byte steps, as bisect.sh: the smallest accepted length.
    let mut hi = 1u64 << 20;
    while run(&p, abi, hi).is_err() {
        hi *= 2;
        if hi > 1 << 34 {
            return Err(ImportError::unsupported("TFLM's arena would exceed 16 GiB"));
        }
    }
    let mut lo = 0u64; // not accepted
    while hi - lo > 4 {
        let mid = (lo + hi) / 2 / 4 * 4;
        if run(&p, abi, mid).is_ok() {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let (tail, used_head) = run(&p, abi, hi).map_err(ImportError::invalid)?;
    let binding = run(&p, abi, hi - 4).err().unwrap_or_default();
    Ok(TflmArena {
        kernels,
        target: abi.name,
        head: p.head,
        tail,
        scratch_requests: p.requests,
        scratch_bytes: scratch
            .iter()
            .flatten()
            .map(|&b| synaptic_mem::data_span(b))
            .sum(),
        arena: hi,
        used: tail + used_head,
        binding,
    })
}

#[cfg(test)]
mod tests {
    use super::cmsis_nn::*;
    use super::*;

    #[test]
    fn cmsis_nn_buffer_sizes() {
        // person_detect's first conv: 3x3 on 96x96x1, stride 2: im2col of 9 -> 12 cols.
        let p = ConvParams {
            stride: (2, 2),
            padding: (0, 0),
            dilation: (1, 1),
        };
        let i = Dims {
            n: 1,
            h: 96,
            w: 96,
            c: 1,
        };
        let f = Dims {
            n: 1,
            h: 3,
            w: 3,
            c: 1,
        };
        assert_eq!(convolve_wrapper_s8_buffer_size(&p, &i, &f, &i), 2 * 12 * 2);
        // 1x1 stride 1: the fast path, no buffer with GCC.
        let p1 = ConvParams {
            stride: (1, 1),
            ..p
        };
        let f1 = Dims {
            n: 1,
            h: 1,
            w: 1,
            c: 8,
        };
        let i8c = Dims { c: 8, ..i };
        assert_eq!(convolve_wrapper_s8_buffer_size(&p1, &i8c, &f1, &i8c), 0);
        // kws: 10x4 conv on 49x10x1: 40 cols.
        let fk = Dims {
            n: 1,
            h: 10,
            w: 4,
            c: 1,
        };
        assert_eq!(
            convolve_s8_buffer_size(
                &Dims {
                    n: 1,
                    h: 49,
                    w: 10,
                    c: 1
                },
                &fk
            ),
            160
        );
        // depthwise 3x3, padding 1: arm_depthwise_conv_3x3_s8, no buffer; padding 2: opt.
        let d = Dims {
            n: 1,
            h: 48,
            w: 48,
            c: 8,
        };
        let f3 = Dims {
            n: 1,
            h: 3,
            w: 3,
            c: 8,
        };
        let pd = ConvParams {
            padding: (1, 1),
            ..p1
        };
        assert_eq!(depthwise_conv_wrapper_s8_buffer_size(&pd, &d, &f3, &d), 0);
        let pd2 = ConvParams {
            padding: (2, 2),
            ..p1
        };
        assert_eq!(
            depthwise_conv_wrapper_s8_buffer_size(&pd2, &d, &f3, &d),
            8 * 9 * 2
        );
        // channel multiplier 2: not the optimised path.
        let o2 = Dims { c: 16, ..d };
        assert_eq!(depthwise_conv_wrapper_s8_buffer_size(&pd2, &d, &f3, &o2), 0);
        assert_eq!(avgpool_s8_buffer_size(1, 64), 256);
        assert_eq!(fully_connected_s8_buffer_size(&f1), 0);
    }

    #[test]
    fn padding_as_tflm() {
        // SAME, stride 2, 3 on 96: out 48, total pad (47*2+3-96)=1 -> 0.
        assert_eq!(tflm_padding(0, 2, 1, 96, 3), 0);
        // SAME, stride 1, 3 on 48: total 2 -> 1.
        assert_eq!(tflm_padding(0, 1, 1, 48, 3), 1);
        assert_eq!(tflm_padding(1, 1, 1, 48, 3), 0);
        // kws: SAME 10x4 stride 2 on 49x10: out 25x5, pad h (24*2+10-49)=9 -> 4, w (4*2+4-10)=2 -> 1.
        assert_eq!(tflm_padding(0, 2, 1, 49, 10), 4);
        assert_eq!(tflm_padding(0, 2, 1, 10, 4), 1);
    }

    #[test]
    fn greedy_first_fit_in_offset_order() {
        let b = |size, first, last| GreedyBuffer {
            size,
            first,
            last,
            offline: -1,
        };
        // Largest first at 0; the second overlaps it in time and goes above; the third fits
        // under nothing live at its time: offset 0.
        let (o, h) = greedy_plan(&[b(32, 0, 1), b(64, 1, 2), b(48, 3, 3)]);
        assert_eq!((o, h), (vec![64, 0, 0], 96));
        // Offline buffers are placed as given; the online one fits in the gap below them.
        let off = GreedyBuffer {
            size: 32,
            first: 0,
            last: 2,
            offline: 64,
        };
        let (o, h) = greedy_plan(&[off, b(48, 1, 1)]);
        assert_eq!((o, h), (vec![64, 0], 96));
        // Ties in size: the later-added buffer is placed first.
        let (o, _) = greedy_plan(&[b(16, 0, 0), b(16, 0, 0)]);
        assert_eq!(o, vec![16, 0]);
    }
}
