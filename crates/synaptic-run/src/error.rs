//! The runtime's errors: the kernels' and their parameter constructors' ([`KernelError`],
//! with the typed reasons [`Unsupported`] and [`ShapeFault`] and the slices [`Operand`]),
//! the loader's ([`LoadError`], with [`TensorFault`] and [`GraphFault`]) and an inference's
//! ([`RunError`]). No allocation; every `Display` is one line, such as
//! `operator 1 (DEPTHWISE_CONV_2D): tensor 2: zero point 128 outside its type's range
//! -128..=127`.

use core::fmt;

use synaptic_mem::{AllocError, PlanLoadError};

/// What went wrong when preparing or running a kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelError {
    /// An operator option, tensor type or quantization that is not supported (TFLM refuses it
    /// at prepare time too, or this crate does not implement it).
    Unsupported {
        /// The operator, as TFLite names it (`"CONV_2D"`).
        op: &'static str,
        /// What is missing or not allowed.
        reason: Unsupported,
    },
    /// Shapes that do not fit together (rank, matching dimensions).
    Shape {
        /// The operator.
        op: &'static str,
        /// Which shapes disagree.
        reason: ShapeFault,
    },
    /// A slice whose length does not match its shape.
    Length {
        /// The operator.
        op: &'static str,
        /// Which slice.
        operand: Operand,
        /// Elements the shape calls for.
        expected: usize,
        /// Elements given.
        got: usize,
    },
    /// Not an error: the kernel ran and stops the inference after it (TFLM's
    /// `kTfLiteAbort`: CIRCULAR_BUFFER on an invocation it is not due). The interpreter
    /// returns [`RunError::Aborted`].
    Abort {
        /// The operator.
        op: &'static str,
    },
}

impl KernelError {
    /// Shorthand for [`KernelError::Unsupported`].
    pub const fn unsupported(op: &'static str, reason: Unsupported) -> Self {
        KernelError::Unsupported { op, reason }
    }

    /// Shorthand for [`KernelError::Shape`].
    pub const fn shape(op: &'static str, reason: ShapeFault) -> Self {
        KernelError::Shape { op, reason }
    }

    /// Checks that a slice has `expected` elements.
    pub fn check_len(
        op: &'static str,
        operand: Operand,
        expected: usize,
        got: usize,
    ) -> Result<(), Self> {
        if expected == got {
            Ok(())
        } else {
            Err(KernelError::Length {
                op,
                operand,
                expected,
                got,
            })
        }
    }

    /// The message without the operator (`unsupported: ...`, `shape mismatch: ...`, `filter
    /// has ...`).
    fn fmt_reason(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KernelError::Unsupported { reason, .. } => {
                f.write_str("unsupported: ")?;
                fmt::Display::fmt(reason, f)
            }
            KernelError::Shape { reason, .. } => {
                f.write_str("shape mismatch: ")?;
                fmt::Display::fmt(reason, f)
            }
            KernelError::Length {
                operand,
                expected,
                got,
                ..
            } => write!(
                f,
                "{operand} has {got} elements, its shape needs {expected}"
            ),
            KernelError::Abort { .. } => f.write_str("stops the inference after it"),
        }
    }
}

impl fmt::Display for KernelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (KernelError::Unsupported { op, .. }
        | KernelError::Shape { op, .. }
        | KernelError::Length { op, .. }
        | KernelError::Abort { op }) = self;
        f.write_str(op)?;
        f.write_str(": ")?;
        self.fmt_reason(f)
    }
}

/// The value a reason's message carries (see [`message`]).
#[derive(Clone, Copy)]
enum Value {
    Int(i32),
    Operand(Operand),
}

/// Writes `pre`, `value` and `post`: the messages of the reasons that carry a value. One call
/// per part, never inlined, rather than a `fmt::Arguments` per message; the reasons without a
/// value are one table of strings (`text`): a device's image stays small.
#[inline(never)]
fn message(f: &mut fmt::Formatter<'_>, pre: &str, value: Value, post: &str) -> fmt::Result {
    f.write_str(pre)?;
    match value {
        Value::Int(v) => fmt::Display::fmt(&v, f)?,
        Value::Operand(o) => fmt::Display::fmt(&o, f)?,
    }
    f.write_str(post)
}

/// A tensor or slice of an operator that an error names ([`KernelError::Length`], and the
/// reasons of [`Unsupported`] and [`ShapeFault`] that concern one operand).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operand {
    /// The operator's input at this position (TFLite's order, from 0; a role below names the
    /// filter, bias, axes, paddings and permutation where the error is about their role).
    Input(u8),
    /// The output.
    Output,
    /// A convolution's or FULLY_CONNECTED's filter (weights).
    Filter,
    /// The bias.
    Bias,
    /// MEAN's axes.
    Axes,
    /// PAD's paddings.
    Paddings,
    /// TRANSPOSE's permutation.
    Permutation,
    /// CONCATENATION's axis sizes (one per input).
    AxisSizes,
    /// The requantization multipliers (one per output channel, or one).
    Multipliers,
    /// The requantization shifts.
    Shifts,
    /// FULLY_CONNECTED's folded biases (one per output channel).
    FoldedBiases,
    /// An in-place kernel's buffer, too short for its input.
    BufferInputEnd,
    /// An in-place kernel's buffer, too short for its output.
    BufferOutputEnd,
    /// An in-place kernel's buffer, too short for its input or its output.
    BufferEnds,
}

impl Operand {
    /// The name of an operand other than an input.
    #[inline(never)] // One table of strings (see `message`).
    const fn text(self) -> &'static str {
        match self {
            Operand::Input(_) => "input",
            Operand::Output => "output",
            Operand::Filter => "filter",
            Operand::Bias => "bias",
            Operand::Axes => "axes",
            Operand::Paddings => "paddings",
            Operand::Permutation => "permutation",
            Operand::AxisSizes => "axis sizes",
            Operand::Multipliers => "multiplier table",
            Operand::Shifts => "shift table",
            Operand::FoldedBiases => "folded biases",
            Operand::BufferInputEnd => "buffer (input end)",
            Operand::BufferOutputEnd => "buffer (output end)",
            Operand::BufferEnds => "buffer (input or output end)",
        }
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Operand::Input(k) => message(f, "input ", Value::Int(k.into()), ""),
            o => f.write_str(o.text()),
        }
    }
}

/// The tensor types an operand may have ([`Unsupported::TensorType`]).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TensorTypes {
    /// `INT8` only.
    Int8,
    /// `INT32` only.
    Int32,
    /// `FLOAT32` only.
    Float32,
    /// `INT8` or `FLOAT32`.
    Int8OrFloat32,
    /// `INT8`, `INT32` or `FLOAT32`.
    Int8Int32OrFloat32,
    /// The output's type.
    OutputType,
    /// `INT16` only.
    Int16,
    /// `INT8` or `INT16`.
    Int8OrInt16,
    /// `UINT32` only.
    UInt32,
    /// `UINT64` only.
    UInt64,
    /// `INT32` or `FLOAT32`.
    Int32OrFloat32,
    /// What the comparisons take: `INT8`, `INT32`, `INT64`, `FLOAT32` (and `BOOL` for EQUAL
    /// and NOT_EQUAL).
    Comparable,
    /// The first input's type.
    FirstInputType,
    /// `BOOL` only.
    Bool,
    /// What MINIMUM and MAXIMUM take: `INT8`, `INT16`, `INT32`, `INT64`, `FLOAT32`.
    MinMax,
    /// `INT8`, `INT16` or `FLOAT32`.
    Int8Int16OrFloat32,
    /// `INT8`, `INT16`, `INT32` or `FLOAT32`.
    Int8Int16Int32OrFloat32,
    /// `INT32` or `INT64`.
    Int32OrInt64,
    /// What CONCATENATION takes: `BOOL`, `INT8`, `INT16`, `INT32`, `INT64`, `FLOAT32`.
    Concatenable,
    /// What QUANTIZE takes: `FLOAT32`, `INT8`, `UINT8`, `INT16`, `INT32`.
    Quantizable,
    /// An output type QUANTIZE makes of its input's: from `FLOAT32` `INT8` or `INT16`;
    /// from `INT8` `INT8`, `UINT8`, `INT16` or `INT32`; from `INT16` `INT8`, `INT16` or
    /// `INT32`; from `INT32` `INT8` or `INT16`; from `UINT8` `INT8`.
    QuantizePair,
    /// `INT64` only.
    Int64,
}

impl TensorTypes {
    /// The types, in words.
    #[inline(never)] // One table of strings (see `message`).
    const fn text(self) -> &'static str {
        match self {
            TensorTypes::Int8 => "int8",
            TensorTypes::Int32 => "int32",
            TensorTypes::Float32 => "float32",
            TensorTypes::Int8OrFloat32 => "int8 or float32",
            TensorTypes::Int8Int32OrFloat32 => "int8, int32 or float32",
            TensorTypes::OutputType => "the output's type",
            TensorTypes::Int16 => "int16",
            TensorTypes::Int8OrInt16 => "int8 or int16",
            TensorTypes::UInt32 => "uint32",
            TensorTypes::UInt64 => "uint64",
            TensorTypes::Int32OrFloat32 => "int32 or float32",
            TensorTypes::Comparable => "int8, int32, int64, float32 (or bool: EQUAL, NOT_EQUAL)",
            TensorTypes::FirstInputType => "the first input's type",
            TensorTypes::Bool => "bool",
            TensorTypes::MinMax => "int8, int16, int32, int64 or float32",
            TensorTypes::Int8Int16OrFloat32 => "int8, int16 or float32",
            TensorTypes::Int8Int16Int32OrFloat32 => "int8, int16, int32 or float32",
            TensorTypes::Int32OrInt64 => "int32 or int64",
            TensorTypes::Concatenable => "bool, int8, int16, int32, int64 or float32",
            TensorTypes::Quantizable => "float32, int8, uint8, int16 or int32",
            TensorTypes::Int64 => "int64",
            TensorTypes::QuantizePair => {
                "a QUANTIZE pair (float32 to int8, int16; int8 to int8, uint8, int16, int32; \
                 int16 to int8, int16, int32; int32 to int8, int16; uint8 to int8)"
            }
        }
    }
}

impl fmt::Display for TensorTypes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

/// What an operator option, tensor or quantization has that the runtime does not support
/// ([`KernelError::Unsupported`]).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unsupported {
    /// A builtin operator this runtime does not implement.
    NotImplemented,
    /// More inputs than the runtime's limit ([`crate::limits::MAX_OP_INPUTS`], 24: LSTM's),
    /// or more than 16 of them activations.
    TooManyInputs,
    /// A number of inputs the operator does not take (an extra one is refused, never
    /// ignored).
    InputCount,
    /// A required input (at this position) is absent.
    MissingInput(u8),
    /// Other than one output.
    OutputCount,
    /// A tensor index out of range.
    TensorIndex(Operand),
    /// An output that is also an input.
    OutputIsInput,
    /// A constant where the operator takes an activation.
    Constant(Operand),
    /// Not a constant where the operator takes one.
    NotConstant(Operand),
    /// A constant whose buffer is shorter than its tensor.
    ShortConstant(Operand),
    /// A tensor type the operator does not take.
    TensorType {
        /// The tensor.
        operand: Operand,
        /// The types it may have.
        expected: TensorTypes,
    },
    /// A tensor of more than 6 dimensions.
    Rank,
    /// A constant operand with more values than 6 dimensions take (or not whole `int32`s).
    TooManyValues(Operand),
    /// A fused activation the operator does not take (TFLite's `ActivationFunctionType`
    /// value: `TANH` (4) and `SIGN_BIT` (5) never, others where the operator takes none).
    FusedActivation(i8),
    /// An unknown padding (TFLite's `Padding` value).
    Padding(i8),
    /// A FULLY_CONNECTED weights format other than `DEFAULT` (0), such as
    /// `SHUFFLED4x16INT8` (1).
    WeightsFormat(i8),
    /// A negative padding (PAD).
    NegativePadding,
    /// PAD's `constant_values` input.
    ConstantValues,
    /// A stride, dilation or filter size of 0.
    WindowNotPositive,
    /// A stride, dilation or filter size so large that the window extent overflows `int32`.
    WindowExtent,
    /// A pooling window of more than 2^23 inputs.
    PoolingWindow,
    /// A filter without quantization.
    FilterNotQuantized,
    /// Filter scales that are neither one nor one per output channel.
    FilterScales,
    /// A zero point (this value) outside the range of its tensor's type.
    ZeroPoint(i32),
    /// An int8 output zero point (this value) other than -128 (SOFTMAX, LOGISTIC).
    OutputZeroPoint(i32),
    /// An int8 output scale other than 1/256 (SOFTMAX).
    OutputScale,
    /// An input scale (times SOFTMAX's beta) outside what the fixed-point kernel takes.
    InputScale,
    /// A requantization multiplier (from the operands' scales) that is not finite, negative,
    /// too large, or outside the range the kernel takes.
    Multiplier,
    /// A fused activation's bound that overflows `int32` at the output's scale.
    ActivationOverflow,
    /// An empty activation range (the output's zero point or scale is out of range).
    EmptyActivationRange,
    /// Inputs and output quantized differently where the kernel does not requantize.
    QuantizationDiffers,
    /// Folded biases for a FULLY_CONNECTED with a filter offset.
    FoldedBiasFilterOffset,
    /// Parameters that do not fit the program format (more words than it allows, or a value
    /// over 32 bits).
    ParamsTooLarge,
    /// A tensor type or program that differs from the one loaded.
    ProgramMismatch,
    /// Overlapped (in-place) execution of a kernel that has none.
    InPlace,
    /// Backward in-place execution of a kernel that runs only forward.
    BackwardExecution,
    /// A tensor too large for an overlap contract.
    OverlapTooLarge,
    /// An output/input delta outside the kernel's safe overlap in the given direction.
    UnsafeOverlap,
    /// An overlap with an input that is broadcast (it has no contract).
    BroadcastOverlap,
    /// Row-wise overlapped execution of rows longer than the row buffer.
    RowBuffer,
    /// Float activations with int8 weights: TFLM refuses hybrid models ("Hybrid models are
    /// not supported on TFLite Micro.").
    Hybrid,
    /// A kernel this build leaves out (the float32 kernels without the cargo feature
    /// `float32`).
    NotBuilt,
    /// A kernel, or a kernel's path, the interpreter's operator set leaves out
    /// ([`crate::ops::OpSet`], [`crate::ops::paths`]).
    NotLinked,
    /// A scratch block smaller than the kernel's buffer-size function asks (a kernel called
    /// directly with too little; the interpreter opens what the kernel asks).
    Scratch,
    /// A state input (SVDF's activation state) that is not a variable tensor.
    NotVariable,
    /// A runtime scale (SignalFilterBankSquareRoot's input 1) that is neither a constant in
    /// range nor written by the operator whose kernel bounds it (SignalFftAutoScale's second
    /// output): its value would be known only at invoke.
    ScaleSource,
    /// A bias whose scale is not the product of the scales it adds to (SVDF: TFLM's 1e-5
    /// check).
    BiasScale,
    /// An LSTM variant TFLM's kernel does not run: peephole, projection or layer-norm
    /// tensors, or one of the four gates' weights or biases absent (CIFG).
    LstmVariant,
    /// Weights with a zero point (this value) other than 0 (TFLM's integer LSTM assumes
    /// symmetric weights).
    WeightZeroPoint(i32),
    /// An LSTM whose hidden and cell state are one tensor.
    SharedState,
    /// A custom operator's options (a FlexBuffer map) missing, malformed, or without a key
    /// its kernel reads.
    CustomOptions,
    /// A custom operator parameter outside the range its kernel computes with (a shift past
    /// the word, a channel count or index beyond the tensors, an FFT length kissfft's
    /// fixed-point code does not take).
    SignalParams,
    /// An integer division by zero (DIV int32: TFLM's kernel would trap).
    DivisionByZero,
    /// A block size below 1 (SPACE_TO_DEPTH, DEPTH_TO_SPACE).
    BlockSize,
    /// An index outside its axis (GATHER: TFLM's kernel would read outside its input).
    IndexOutOfRange,
    /// An input value below the input's zero point where the operator is defined for none
    /// (RSQRT int8: TFLM's kernel fails, "Rsqrt is only defined for positive values").
    NegativeInput,
    /// A CAST between types TFLM's kernel does not convert.
    CastTypes,
    /// RESIZE_BILINEAR's `align_corners` with `half_pixel_centers` (TFLM's `Prepare` fails).
    AlignCornersHalfPixel,
    /// A STRIDED_SLICE variant the kernel does not take (ellipsis, new or shrunk axes, or
    /// strides that are not constants).
    StridedSlice,
    /// A SLICE whose `begin` and `size` are not int32 or int64 constants, one per input
    /// dimension, giving a box inside the input.
    Slice,
    /// A MIRROR_PAD left padding wider than its dimension allows (REFLECT: the dimension less
    /// one; SYMMETRIC: the dimension): TFLM's kernel would read outside the input.
    MirrorPadding,
    /// A SPACE_TO_BATCH_ND padding: TFLM pads with a value its `Prepare` never sets.
    SpaceToBatchPadding,
    /// A GATHER_ND index depth (the indices' last dimension) over the params' rank or 5.
    IndexDepth,
    /// TFLite_Detection_PostProcess options or shapes TFLM's kernel does not compute with (no
    /// class or box, `max_detections` below 1, an IoU threshold outside `(0, 1]`, more than
    /// one class per fast detection, buffers TFLM's candidates outgrow).
    DetectionParams,
    /// A decoded box with `ymin ≥ ymax` or `xmin ≥ xmax` (TFLite_Detection_PostProcess: TFLM's
    /// kernel fails the run).
    InvalidBoxes,
    /// A TFLM_DECODE encoded or ancillary tensor that is malformed or that TFLM's decoder would
    /// read past (a short DCM or value table, a version other than 1, a bit width of 0, an
    /// index at or past its table's stride, indices short of the output's elements, channels
    /// that do not divide them or along a middle axis).
    DecodeData,
    /// A TFLM_DECODE decode type (this DCM byte 0) the runtime does not decode (TFLM's
    /// custom types and unknown ones, which TFLM refuses too).
    DecodeType(u8),
    /// A TFLM_DECODE of other than one pair of inputs (an encoded and an ancillary tensor) and
    /// one output.
    DecodePairs,
    /// A pruned int8 TFLM_DECODE output whose channels' zero points differ (TFLM's per-channel
    /// path, not implemented).
    DecodePerChannelZeroPoints,
}

impl Unsupported {
    /// The message of a reason without a value (empty for the others).
    #[inline(never)] // One table of strings (see `message`).
    const fn text(self) -> &'static str {
        match self {
            Unsupported::NotImplemented => "operator not implemented",
            Unsupported::TooManyInputs => "more than 24 inputs, or more than 16 activations",
            Unsupported::InputCount => "a number of inputs the operator does not take",
            Unsupported::OutputCount => "no output, or more than two",
            Unsupported::OutputIsInput => "an output that is also an input, or named twice",
            Unsupported::Rank => "a tensor of more than 6 dimensions",
            Unsupported::NegativePadding => "negative padding",
            Unsupported::ConstantValues => "a constant_values input",
            Unsupported::WindowNotPositive => "stride, dilation and filter size must be positive",
            Unsupported::WindowExtent => {
                "stride, dilation or filter size too large (the window extent overflows int32)"
            }
            Unsupported::PoolingWindow => "a pooling window of more than 2^23 inputs",
            Unsupported::FilterNotQuantized => "filter is not quantized",
            Unsupported::FilterScales => "filter scales neither one nor one per output channel",
            Unsupported::OutputScale => "int8 output scale must be 1/256",
            Unsupported::InputScale => "input scale out of the fixed-point kernel's range",
            Unsupported::Multiplier => {
                "requantization multiplier (from the scales) out of the kernel's range"
            }
            Unsupported::ActivationOverflow => {
                "activation bound overflows int32 at this output scale"
            }
            Unsupported::EmptyActivationRange => {
                "empty activation range (the output zero point or scale is out of range)"
            }
            Unsupported::QuantizationDiffers => {
                "inputs and output quantized differently (the kernel does not requantize)"
            }
            Unsupported::FoldedBiasFilterOffset => "folded biases with a filter offset",
            Unsupported::ParamsTooLarge => "parameters larger than the program format allows",
            Unsupported::ProgramMismatch => "tensor type or program differs from load",
            Unsupported::InPlace => "overlapped execution",
            Unsupported::BackwardExecution => "backward execution",
            Unsupported::OverlapTooLarge => "a tensor too large for an overlap contract",
            Unsupported::UnsafeOverlap => {
                "output/input delta outside the kernel's safe overlap in this direction"
            }
            Unsupported::BroadcastOverlap => {
                "overlap with an input that is broadcast (no contract)"
            }
            Unsupported::RowBuffer => {
                "row-wise overlapped execution of rows longer than the row buffer"
            }
            Unsupported::Hybrid => {
                "hybrid model (float activations, int8 weights): TFLM does not support hybrid models"
            }
            Unsupported::NotBuilt => {
                "a kernel this build leaves out (cargo feature float32, lstm or signal)"
            }
            Unsupported::NotLinked => {
                "a kernel or path this image's operator set leaves out (its OpSet: add it)"
            }
            Unsupported::Scratch => "a scratch block smaller than the kernel's buffer size",
            Unsupported::NotVariable => "a state input that is not a variable tensor",
            Unsupported::ScaleSource => {
                "a scale input that is neither a constant nor SignalFftAutoScale's scale output"
            }
            Unsupported::BiasScale => "a bias scale other than the product of its operands' scales",
            Unsupported::LstmVariant => {
                "an LSTM variant TFLM does not run (peephole, projection, layer norm or CIFG tensors)"
            }
            Unsupported::SharedState => "hidden and cell state are one tensor",
            Unsupported::CustomOptions => {
                "custom options missing or malformed (a FlexBuffer map with the kernel's keys)"
            }
            Unsupported::SignalParams => "a parameter outside the range the kernel computes with",
            Unsupported::DivisionByZero => "integer division by zero",
            Unsupported::BlockSize => "block size must be positive",
            Unsupported::IndexOutOfRange => "an index outside its axis",
            Unsupported::NegativeInput => "an input below zero (defined for none)",
            Unsupported::CastTypes => "a CAST between types TFLM does not convert",
            Unsupported::AlignCornersHalfPixel => {
                "align_corners with half_pixel_centers (TFLM refuses the pair)"
            }
            Unsupported::StridedSlice => {
                "a STRIDED_SLICE with ellipsis, new or shrunk axes, or non-constant indices"
            }
            Unsupported::Slice => {
                "a SLICE whose begin and size are not constants giving a box inside the input"
            }
            Unsupported::MirrorPadding => {
                "a mirror padding wider than its dimension (TFLM reads outside the input)"
            }
            Unsupported::SpaceToBatchPadding => {
                "a SPACE_TO_BATCH_ND padding (TFLM pads with a value it never sets)"
            }
            Unsupported::IndexDepth => "an index depth over the params' rank or 5",
            Unsupported::DetectionParams => {
                "detection options or shapes outside what TFLM's kernel computes with"
            }
            Unsupported::InvalidBoxes => {
                "a decoded box with ymin >= ymax or xmin >= xmax (TFLM fails the run)"
            }
            Unsupported::DecodeData => {
                "a TFLM_DECODE encoded or ancillary tensor malformed or that TFLM would read past"
            }
            Unsupported::DecodePairs => "a TFLM_DECODE of other than one input pair and output",
            Unsupported::DecodePerChannelZeroPoints => {
                "a pruned TFLM_DECODE output whose channels' zero points differ"
            }
            _ => "",
        }
    }
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Value::{Int, Operand as Of};
        let (pre, value, post) = match *self {
            Unsupported::MissingInput(k) => ("required input ", Int(k.into()), " is missing"),
            Unsupported::TensorIndex(o) => ("", Of(o), ": tensor index out of range"),
            Unsupported::Constant(o) => (
                "",
                Of(o),
                " is a constant where the operator takes an activation",
            ),
            Unsupported::NotConstant(o) => ("", Of(o), " is not a constant"),
            Unsupported::ShortConstant(o) => {
                ("", Of(o), ": constant buffer shorter than its tensor")
            }
            Unsupported::TensorType { operand, expected } => {
                message(f, "", Of(operand), " of a type other than ")?;
                return f.write_str(expected.text());
            }
            Unsupported::TooManyValues(o) => {
                ("", Of(o), ": more int32 values than 6 dimensions take")
            }
            Unsupported::FusedActivation(a @ 0..=5) => {
                f.write_str("fused activation ")?;
                let names = ["NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT"];
                return f.write_str(names[a as usize]);
            }
            Unsupported::FusedActivation(a) => ("fused activation ", Int(a.into()), " (unknown)"),
            Unsupported::Padding(p) => ("padding ", Int(p.into()), " (unknown)"),
            Unsupported::WeightsFormat(1) => {
                return f.write_str("shuffled weights format (SHUFFLED4x16INT8)")
            }
            Unsupported::WeightsFormat(w) => ("weights format ", Int(w.into()), " (unknown)"),
            Unsupported::DecodeType(t) => (
                "TFLM_DECODE decode type ",
                Int(t.into()),
                " (decoded: 0 lookup table, 1 Huffman, 2 prune)",
            ),
            Unsupported::ZeroPoint(z) => (
                "zero point ",
                Int(z),
                " outside the range of the tensor's type",
            ),
            Unsupported::OutputZeroPoint(z) => {
                ("int8 output zero point ", Int(z), ", must be -128")
            }
            Unsupported::WeightZeroPoint(z) => ("weight zero point ", Int(z), ", must be 0"),
            _ => return f.write_str(self.text()),
        };
        message(f, pre, value, post)
    }
}

/// Which shapes of an operator disagree ([`KernelError::Shape`]).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShapeFault {
    /// A tensor that must be 4-D (`[batch, height, width, channels]`) is not.
    Not4d(Operand),
    /// A tensor with fewer dimensions than the operator needs.
    TooFewDimensions {
        /// The tensor.
        operand: Operand,
        /// Dimensions it needs at least.
        min: u8,
    },
    /// A tensor size that overflows (over 2^31 − 1 elements).
    Overflow,
    /// Input and output of different sizes (or types) where they must be equal.
    SizeDiffers,
    /// Input and output that differ in batch (pooling: or depth).
    BatchOrDepth,
    /// An output height or width other than the window, padding, stride and dilation give.
    OutputSpatial,
    /// A filter larger than the input (VALID padding).
    FilterLargerThanInput,
    /// Filter channels (CONV_2D: filter count) other than the output channels.
    FilterChannels,
    /// An input depth that is not a multiple of the filter depth.
    FilterDepth,
    /// Output channels not divisible into the groups.
    Groups,
    /// A DEPTHWISE_CONV_2D filter whose first dimension is not 1.
    FilterFirstDim,
    /// Output channels other than input channels times `depth_multiplier`.
    DepthMultiplier,
    /// A FULLY_CONNECTED output depth over the filter's rows.
    OutputDepth,
    /// A FULLY_CONNECTED input whose size is not batches × accumulation depth.
    Batches,
    /// A bias (or the filter) whose length is not one entry per output channel.
    Channels,
    /// An axis (this value, as given) out of range.
    AxisOutOfRange(i32),
    /// Inputs and output of different ranks.
    RankDiffers,
    /// Inputs that differ off the concatenation axis.
    OffAxis,
    /// An output axis that is not the sum of the inputs'.
    AxisSum,
    /// Input shapes that do not broadcast.
    NotBroadcastable,
    /// An output shape other than the broadcast shape.
    BroadcastShape,
    /// A MEAN output whose size is not the kept dimensions'.
    KeptDimensions,
    /// Paddings that are not one row per input dimension.
    PaddingsRows,
    /// An output that is not the padded input.
    NotPadded,
    /// A permutation whose length differs from the rank.
    PermutationLength,
    /// A permutation that is not one (a value repeated or out of range).
    NotPermutation,
    /// An output that is not the permuted input.
    NotPermuted,
    /// A pooling window that lies entirely in the padding (AVERAGE_POOL_2D: nothing to
    /// average).
    EmptyWindow,
    /// A SOFTMAX sum of exponentials out of range.
    ExpSum,
    /// An SVDF rank that is not a positive divisor of its filter count.
    SvdfRank,
    /// A value that must be a single element (a pad value) is not.
    NotScalar,
}

impl ShapeFault {
    /// The message of a fault without a value (empty for the others).
    #[inline(never)] // One table of strings (see `message`).
    const fn text(self) -> &'static str {
        match self {
            ShapeFault::Overflow => "a tensor size overflows (over 2^31 - 1)",
            ShapeFault::SizeDiffers => "input and output differ in size (or type)",
            ShapeFault::BatchOrDepth => "input and output batch (or depth) differ",
            ShapeFault::OutputSpatial => {
                "output height/width differ from what the window, padding, stride and dilation give"
            }
            ShapeFault::FilterLargerThanInput => "filter larger than the input",
            ShapeFault::FilterChannels => "filter channels (or count) differ from output channels",
            ShapeFault::FilterDepth => "input depth is not a multiple of the filter depth",
            ShapeFault::Groups => "output channels not divisible into groups",
            ShapeFault::FilterFirstDim => "filter's first dimension must be 1",
            ShapeFault::DepthMultiplier => {
                "output channels differ from input channels times depth_multiplier"
            }
            ShapeFault::OutputDepth => "output depth exceeds the filter's rows",
            ShapeFault::Batches => "input size is not batches x accum depth",
            ShapeFault::Channels => "bias (or filter) length differs from the output channels",
            ShapeFault::RankDiffers => "inputs and output differ in rank",
            ShapeFault::OffAxis => "inputs differ off the axis",
            ShapeFault::AxisSum => "output axis is not the sum of the inputs'",
            ShapeFault::NotBroadcastable => "input shapes do not broadcast",
            ShapeFault::BroadcastShape => "output shape is not the broadcast shape",
            ShapeFault::KeptDimensions => "output size is not the kept dimensions' size",
            ShapeFault::PaddingsRows => "paddings must have one row per input dimension",
            ShapeFault::NotPadded => "output is not the padded input",
            ShapeFault::PermutationLength => "permutation length differs from the rank",
            ShapeFault::NotPermutation => "not a permutation",
            ShapeFault::NotPermuted => "output is not the permuted input",
            ShapeFault::EmptyWindow => "a pooling window lies entirely in the padding",
            ShapeFault::ExpSum => "sum of exponentials out of range",
            ShapeFault::SvdfRank => "rank is not a positive divisor of the filter count",
            ShapeFault::NotScalar => "a value that must be a single element is not",
            _ => "",
        }
    }
}

impl fmt::Display for ShapeFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ShapeFault::Not4d(o) => message(f, "", Value::Operand(o), " must be 4-D"),
            ShapeFault::TooFewDimensions { operand, min } => {
                message(f, "", Value::Operand(operand), " must have at least ")?;
                let s = if min == 1 {
                    " dimension"
                } else {
                    " dimensions"
                };
                message(f, "", Value::Int(min.into()), s)
            }
            ShapeFault::AxisOutOfRange(a) => message(f, "axis ", Value::Int(a), " out of range"),
            _ => f.write_str(self.text()),
        }
    }
}

/// A custom operator's code as the model names it (its first [`CustomCode::MAX`] bytes):
/// what an unknown custom operator's error shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CustomCode {
    bytes: [u8; CustomCode::MAX],
    len: u8,
}

impl CustomCode {
    /// Bytes kept of a custom code.
    pub const MAX: usize = 32;

    /// The first [`CustomCode::MAX`] bytes of `code`.
    ///
    /// ```
    /// let c = synaptic_run::CustomCode::new(b"MyOp");
    /// assert_eq!(c.as_bytes(), b"MyOp");
    /// assert_eq!(c.to_string(), "\"MyOp\"");
    /// ```
    pub fn new(code: &[u8]) -> Self {
        let n = code.len().min(Self::MAX);
        let mut bytes = [0u8; Self::MAX];
        bytes[..n].copy_from_slice(&code[..n]);
        CustomCode {
            bytes,
            len: n as u8,
        }
    }

    /// The bytes kept.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

impl fmt::Display for CustomCode {
    /// Quoted, printable ASCII as is, any other byte as `\xNN`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"")?;
        for &b in self.as_bytes() {
            if b.is_ascii_graphic() || b == b' ' {
                write!(f, "{}", b as char)?;
            } else {
                write!(f, "\\x{b:02x}")?;
            }
        }
        f.write_str("\"")
    }
}

/// Why a model could not be loaded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LoadError {
    /// The model bytes could not be read.
    Model(synaptic_tflite::Error),
    /// The model as a whole is not supported (no subgraph, too many inputs, other subgraphs).
    Unsupported {
        /// What is missing.
        what: &'static str,
    },
    /// An operator is not supported or its tensors do not fit it.
    Operator {
        /// Operator index (execution order).
        op: usize,
        /// The operator, as TFLite names it.
        name: &'static str,
        /// What is missing or wrong.
        error: KernelError,
    },
    /// A custom operator this runtime does not implement (only TFLM's signal library is:
    /// [`crate::ops::CUSTOM_OPS`]).
    CustomOperator {
        /// Operator index (execution order).
        op: usize,
        /// Its custom code.
        code: CustomCode,
    },
    /// The plan does not fit the model.
    Plan {
        /// What is wrong.
        what: &'static str,
        /// The slot (or slot count) concerned.
        slot: usize,
        /// The tensor concerned (`usize::MAX`: none).
        tensor: usize,
    },
    /// The arena could not hold the persistent or shared data.
    Alloc(AllocError),
    /// The arena refused the plan.
    PlanLoad(PlanLoadError),
    /// A compiled program ([`crate::Interpreter::with_program`], [`crate::program::verify`]) is not
    /// the one this model compiles to (its header or seal differs, or a word).
    Program {
        /// What differs (a header field, or part of an operator's record).
        what: &'static str,
        /// The operator whose record differs (`usize::MAX`: none).
        op: usize,
        /// Its name, as TFLite names it (empty: none).
        name: &'static str,
        /// Index of the first word that differs.
        word: usize,
    },
    /// The arena is too small for the model: its tensor space lacks `short` bytes for the
    /// program (when compiled at load), the plan's descriptors and its activations. `arena`
    /// is the arena size that holds them, laid out as the one given (what `synmem plan` and
    /// `synmem emit`'s `ARENA_BYTES` say for an arena of its own).
    ArenaTooSmall {
        /// Bytes missing.
        short: usize,
        /// The arena to give instead: the one given plus `short`.
        arena: usize,
    },
    /// The buffer given to [`crate::program::compile`] is too small.
    ProgramBuffer {
        /// Words the program needs.
        needed: usize,
        /// Words given.
        got: usize,
    },
    /// A tensor holds a value the runtime refuses: one TFLM's kernels would compute
    /// nonsense, overflow or undefined behaviour from (a zero point outside its type, a scale
    /// that is not finite and positive, a size that overflows).
    Tensor {
        /// The operator that uses it (execution order); `None`: the graph's own I/O, or a
        /// tensor the loader reads before any operator.
        op: Option<usize>,
        /// The operator, as TFLite names it (empty: none).
        name: &'static str,
        /// The tensor.
        tensor: usize,
        /// What is wrong with it.
        fault: TensorFault,
    },
    /// The graph's data flow is not one an inference can run deterministically: an operator
    /// reads a tensor nothing wrote before it, a graph output nothing writes, a tensor
    /// written twice.
    Graph {
        /// The operator concerned (`None`: the graph's own inputs or outputs).
        op: Option<usize>,
        /// The tensor concerned.
        tensor: usize,
        /// What is wrong.
        fault: GraphFault,
    },
}

/// What is wrong with one tensor of a model ([`LoadError::Tensor`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TensorFault {
    /// A zero point outside the range of the tensor's type (the kernels negate it and clamp
    /// with it in `int32`).
    ZeroPoint {
        /// The value in the model.
        value: i64,
        /// The type's smallest value.
        min: i32,
        /// The type's largest value.
        max: i32,
    },
    /// A scale that is not finite and positive.
    Scale {
        /// The value in the model.
        value: f32,
    },
    /// Zero points that are neither one nor one per scale.
    ZeroPointCount {
        /// Zero points in the model.
        got: usize,
        /// Scales in the model.
        scales: usize,
    },
    /// A filter's per-channel scales that are neither one nor one per output channel.
    ScaleCount {
        /// Scales in the model.
        got: usize,
        /// Output channels.
        channels: usize,
    },
    /// A filter's per-channel quantization along a dimension that does not hold one entry
    /// per output channel (or is not one of its dimensions).
    QuantizedDimension {
        /// The dimension in the model.
        got: i32,
        /// Output channels (and scales).
        channels: usize,
    },
    /// A quantized operator's tensor without quantization (scale and zero point).
    NotQuantized,
    /// A dimension of 0 in a tensor an operator reads or writes.
    EmptyDimension,
    /// A negative (dynamic) dimension.
    DynamicDimension,
    /// More than 6 dimensions.
    Rank,
    /// Elements or bytes beyond 2^31 − 1 (TFLM's `int` sizes; the products would overflow).
    TooLarge,
}

impl fmt::Display for TensorFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TensorFault::ZeroPoint { value, min, max } => {
                write!(
                    f,
                    "zero point {value} outside its type's range {min}..={max}"
                )
            }
            // The bits, not the float: a device's image then needs no float formatting.
            TensorFault::Scale { value } => write!(
                f,
                "quantization scale (f32 bits {:#010x}) is not finite and positive",
                value.to_bits()
            ),
            TensorFault::ZeroPointCount { got, scales } => write!(
                f,
                "{got} zero points for {scales} scales (one, or one per scale)"
            ),
            TensorFault::ScaleCount { got, channels } => write!(
                f,
                "{got} filter scales for {channels} output channels (one, or one per channel)"
            ),
            TensorFault::QuantizedDimension { got, channels } => write!(
                f,
                "per-channel quantization along dimension {got}, which does not hold the \
                 {channels} output channels"
            ),
            TensorFault::NotQuantized => f.write_str("no quantization (scale and zero point)"),
            TensorFault::EmptyDimension => f.write_str("a dimension of 0 (an empty tensor)"),
            TensorFault::DynamicDimension => f.write_str("a negative (dynamic) dimension"),
            TensorFault::Rank => f.write_str("more than 6 dimensions"),
            TensorFault::TooLarge => {
                f.write_str("more than 2^31 - 1 elements or bytes (the size overflows)")
            }
        }
    }
}

/// What is wrong with a graph's data flow ([`LoadError::Graph`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphFault {
    /// An operator reads a tensor that is neither a graph input, a constant nor the output of
    /// an earlier operator: it would read whatever the arena held before.
    ReadBeforeWrite,
    /// A graph output that no operator writes and that is not a graph input.
    OutputNotWritten,
    /// A graph input or output that is a constant.
    ConstantIo,
    /// A tensor written by a second operator (or by an operator while being a graph input).
    WrittenTwice,
    /// An operator reads a variable tensor (state: TFLM zeroes it at load and by a reset,
    /// whatever data it names) or another kernel's own state, where its kernel takes no state:
    /// refused rather than run on the tensor's data.
    StateNotRead,
}

impl fmt::Display for GraphFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GraphFault::ReadBeforeWrite => {
                "reads a tensor that is not a graph input, a constant or the output of an \
                 earlier operator"
            }
            GraphFault::OutputNotWritten => "a graph output that nothing writes",
            GraphFault::ConstantIo => "a graph input or output that is a constant",
            GraphFault::WrittenTwice => {
                "writes a tensor already written (by an earlier operator, or as a graph input)"
            }
            GraphFault::StateNotRead => {
                "reads a variable tensor or a kernel's state where its kernel takes no state"
            }
        })
    }
}

impl LoadError {
    /// The error with operator `op` (`name`) as the user of its tensor, if it is a
    /// [`LoadError::Tensor`] that names none.
    pub(crate) fn at_op(self, op: usize, name: &'static str) -> Self {
        match self {
            LoadError::Tensor {
                op: None,
                tensor,
                fault,
                ..
            } => LoadError::Tensor {
                op: Some(op),
                name,
                tensor,
                fault,
            },
            e => e,
        }
    }
}

impl From<synaptic_tflite::Error> for LoadError {
    fn from(e: synaptic_tflite::Error) -> Self {
        LoadError::Model(e)
    }
}

impl From<AllocError> for LoadError {
    fn from(e: AllocError) -> Self {
        LoadError::Alloc(e)
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Model(e) => write!(f, "{e}"),
            LoadError::Unsupported { what } => write!(f, "unsupported model: {what}"),
            LoadError::Operator { op, name, error } => {
                write!(f, "operator {op} ({name}): ")?;
                error.fmt_reason(f)
            }
            LoadError::CustomOperator { op, code } => write!(
                f,
                "operator {op} (CUSTOM {code}): custom operator not implemented (the runtime has TFLM's signal library)"
            ),
            LoadError::Plan { what, slot, tensor } => {
                write!(f, "plan does not fit the model: {what} (slot {slot}")?;
                if *tensor != usize::MAX {
                    write!(f, ", tensor {tensor}")?;
                }
                f.write_str(")")
            }
            LoadError::Alloc(e) => write!(f, "arena: {e}"),
            LoadError::PlanLoad(e) => write!(f, "arena refused the plan: {e}"),
            LoadError::Program {
                what,
                op,
                name,
                word,
            } => {
                write!(f, "program does not match the model: {what} (")?;
                if *op != usize::MAX {
                    write!(f, "operator {op} ({name}), ")?;
                }
                write!(f, "word {word})")
            }
            LoadError::ArenaTooSmall { short, arena } => write!(
                f,
                "arena too small for the model: {short} B short; give an arena of {arena} B"
            ),
            LoadError::ProgramBuffer { needed, got } => write!(
                f,
                "program buffer too small: {got} words given, the program needs {needed}"
            ),
            LoadError::Tensor {
                op,
                name,
                tensor,
                fault,
            } => {
                if let Some(op) = op {
                    write!(f, "operator {op} ({name}): ")?;
                }
                write!(f, "tensor {tensor}: {fault}")
            }
            LoadError::Graph { op, tensor, fault } => match op {
                Some(op) => write!(f, "operator {op}: tensor {tensor}: {fault}"),
                None => write!(f, "graph: tensor {tensor}: {fault}"),
            },
        }
    }
}

impl core::error::Error for LoadError {}

/// Why an inference failed (the arena or the caller's buffers; a loaded model's operators do
/// not fail).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RunError {
    /// The arena refused an allocation or a view.
    Alloc(AllocError),
    /// A kernel refused its buffers.
    Kernel {
        /// Operator index.
        op: usize,
        /// The kernel's error.
        error: KernelError,
    },
    /// The model bytes could not be read (cannot happen for a model that loaded).
    Model(synaptic_tflite::Error),
    /// The program could not be decoded at this word (cannot happen for a program that
    /// loaded: it was compiled from the model, or sealed to it).
    Program {
        /// Word index.
        at: usize,
    },
    /// The caller's input or output buffer has the wrong length.
    Io {
        /// Which buffer.
        what: &'static str,
        /// Bytes the model needs.
        expected: usize,
        /// Bytes given.
        got: usize,
    },
    /// The inference stopped after operator `op`, as its kernel asked (TFLM's
    /// `kTfLiteAbort`: a CIRCULAR_BUFFER not due this invocation). Not a failure: the
    /// operators up to `op` ran (their state moved on); the later ones did not and the graph
    /// outputs were not copied out (the caller's output buffer is as it was).
    Aborted {
        /// Operator index.
        op: usize,
    },
}

impl From<AllocError> for RunError {
    fn from(e: AllocError) -> Self {
        RunError::Alloc(e)
    }
}

impl From<synaptic_tflite::Error> for RunError {
    fn from(e: synaptic_tflite::Error) -> Self {
        RunError::Model(e)
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Alloc(e) => write!(f, "arena: {e}"),
            RunError::Kernel { op, error } => write!(f, "operator {op}: {error}"),
            RunError::Model(e) => write!(f, "{e}"),
            RunError::Program { at } => write!(f, "program: cannot decode word {at}"),
            RunError::Aborted { op } => write!(
                f,
                "operator {op} stopped the inference (not due this invocation); no output"
            ),
            RunError::Io {
                what,
                expected,
                got,
            } => write!(f, "{what}: {got} bytes given, the model needs {expected}"),
        }
    }
}

impl core::error::Error for RunError {}
