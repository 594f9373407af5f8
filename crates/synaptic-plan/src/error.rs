//! Errors of model import and planning.

use crate::text::printable;
use std::fmt;

/// Why a model could not be imported (or planned). Every variant prints as one line.
///
/// ```
/// use synaptic_plan::{Model, ImportError};
/// let err = Model::from_bytes(b"not a model").unwrap_err();
/// assert!(matches!(err, ImportError::NotTflite { .. }));
/// assert!(!err.to_string().contains('\n'));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ImportError {
    /// The file could not be read.
    Io {
        /// The path.
        path: String,
        /// The operating system's message.
        detail: String,
    },
    /// The input is too short to be a FlatBuffer.
    Truncated {
        /// Bytes given.
        len: usize,
    },
    /// The file identifier is not `TFL3`.
    NotTflite {
        /// The four identifier bytes found (lossy).
        found: String,
    },
    /// The reader's structure check ([`synaptic_tflite::Model::new`]) rejected the buffer.
    Verifier {
        /// The verifier's message.
        detail: String,
    },
    /// A bounds-checked read failed (kept for compatibility; the reader reports structural
    /// errors as [`ImportError::Verifier`]).
    Malformed {
        /// What was being read.
        what: &'static str,
        /// Byte position in the file.
        pos: usize,
    },
    /// The model has no subgraph.
    NoSubgraph,
    /// The model refers to something that does not exist or is inconsistent.
    Invalid {
        /// What is wrong.
        detail: String,
    },
    /// The arena configuration (arena / scratch sizes) is outside the spec's ranges.
    Config {
        /// What is wrong.
        detail: String,
    },
    /// The model uses something this importer does not support.
    Unsupported {
        /// What is not supported.
        detail: String,
    },
    /// A subgraph other than the main one holds tensors or operators. TFLM allocates every
    /// subgraph, but only the main one is planned here, so the model is refused rather than
    /// under-reported.
    UnsizedSubgraph {
        /// Index of the first such subgraph (1 or more).
        subgraph: usize,
        /// Its name (may be empty).
        name: String,
        /// Its operators.
        operators: usize,
        /// Its tensors.
        tensors: usize,
        /// The first control-flow operator of the main subgraph (`IF`, `WHILE`, `CALL_ONCE`,
        /// `CALL`), as (operator index, opcode), if there is one.
        caller: Option<(usize, String)>,
    },
    /// The per-operator scratch table does not fit the model or the core's scratch pool.
    ScratchTable {
        /// What is wrong.
        detail: String,
    },
    /// The file is larger than the limit it was read with.
    FileTooLarge {
        /// The path.
        path: String,
        /// Its size in bytes (at least `limit + 1` when it grew while being read).
        bytes: u64,
        /// The limit in bytes.
        limit: u64,
    },
}

impl ImportError {
    pub(crate) fn invalid(detail: impl Into<String>) -> Self {
        ImportError::Invalid {
            detail: detail.into(),
        }
    }
    pub(crate) fn unsupported(detail: impl Into<String>) -> Self {
        ImportError::Unsupported {
            detail: detail.into(),
        }
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::Io { path, detail } => write!(f, "cannot read {path}: {detail}"),
            ImportError::Truncated { len } => {
                write!(f, "not a .tflite model: only {len} bytes (truncated?)")
            }
            ImportError::NotTflite { found } => write!(
                f,
                "not a .tflite model: file identifier is {found:?}, expected \"TFL3\""
            ),
            ImportError::Verifier { detail } => {
                write!(
                    f,
                    "invalid .tflite flatbuffer (truncated or corrupt): {detail}"
                )
            }
            ImportError::Malformed { what, pos } => {
                write!(f, "malformed .tflite flatbuffer: {what} at byte {pos}")
            }
            ImportError::NoSubgraph => f.write_str("invalid .tflite model: no subgraph"),
            ImportError::Invalid { detail } => write!(f, "invalid .tflite model: {detail}"),
            ImportError::Config { detail } => write!(f, "bad arena configuration: {detail}"),
            ImportError::Unsupported { detail } => write!(f, "unsupported .tflite model: {detail}"),
            ImportError::UnsizedSubgraph {
                subgraph,
                name,
                operators,
                tensors,
                caller,
            } => {
                f.write_str("unsupported .tflite model: ")?;
                if let Some((op, opcode)) = caller {
                    write!(
                        f,
                        "operator {op} ({}) of the main subgraph runs other subgraphs; ",
                        printable(opcode)
                    )?;
                }
                write!(
                    f,
                    "subgraph {subgraph} ({name:?}: {operators} operators, {tensors} tensors) would \
                     take arena memory too, but only the main subgraph is sized; refusing \
                     rather than under-reporting the arena"
                )
            }
            ImportError::ScratchTable { detail } => write!(f, "bad scratch table: {detail}"),
            ImportError::FileTooLarge { path, bytes, limit } => write!(
                f,
                "cannot read {path}: {bytes} bytes is over the {limit}-byte limit for model files"
            ),
        }
    }
}

impl std::error::Error for ImportError {}
