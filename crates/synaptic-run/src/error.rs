//! The runtime's errors: the kernels' and their parameter constructors' ([`KernelError`]),
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
        what: &'static str,
    },
    /// Shapes that do not fit together (rank, matching dimensions).
    Shape {
        /// The operator.
        op: &'static str,
        /// Which shapes disagree.
        what: &'static str,
    },
    /// A slice whose length does not match its shape.
    Length {
        /// The operator.
        op: &'static str,
        /// Which slice.
        what: &'static str,
        /// Elements the shape calls for.
        expected: usize,
        /// Elements given.
        got: usize,
    },
}

impl KernelError {
    /// Shorthand for [`KernelError::Unsupported`].
    pub const fn unsupported(op: &'static str, what: &'static str) -> Self {
        KernelError::Unsupported { op, what }
    }

    /// Shorthand for [`KernelError::Shape`].
    pub const fn shape(op: &'static str, what: &'static str) -> Self {
        KernelError::Shape { op, what }
    }

    /// Checks that a slice has `expected` elements.
    pub fn check_len(
        op: &'static str,
        what: &'static str,
        expected: usize,
        got: usize,
    ) -> Result<(), Self> {
        if expected == got {
            Ok(())
        } else {
            Err(KernelError::Length {
                op,
                what,
                expected,
                got,
            })
        }
    }
}

impl fmt::Display for KernelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KernelError::Unsupported { op, what } => write!(f, "{op}: unsupported: {what}"),
            KernelError::Shape { op, what } => write!(f, "{op}: shape mismatch: {what}"),
            KernelError::Length {
                op,
                what,
                expected,
                got,
            } => write!(
                f,
                "{op}: {what} has {got} elements, its shape needs {expected}"
            ),
        }
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
    /// the one this model compiles to.
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
                match error {
                    KernelError::Unsupported { what, .. } => write!(f, "unsupported: {what}"),
                    KernelError::Shape { what, .. } => write!(f, "shape mismatch: {what}"),
                    e => write!(f, "{e}"),
                }
            }
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
    /// loaded: it was compiled or verified against the model).
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
            RunError::Io {
                what,
                expected,
                got,
            } => write!(f, "{what}: {got} bytes given, the model needs {expected}"),
        }
    }
}

impl core::error::Error for RunError {}
