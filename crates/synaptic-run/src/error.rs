//! The one error type of the kernels and their parameter constructors.
//!
//! Errors carry `&'static str` descriptions (no allocation); the loader adds the operator index
//! when it reports one. `Display` writes a complete sentence such as
//! `SOFTMAX: unsupported: output zero point must be -128 (int8 output)`.

use core::fmt;

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
