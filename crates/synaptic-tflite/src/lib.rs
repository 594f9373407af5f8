//! # synaptic-tflite: the one `.tflite` reader of SynapticOS
//!
//! A TensorFlow Lite model is a FlatBuffer. This crate reads one in place, from a `&'m [u8]`
//! (flash on a device), with no copy: `#![no_std]`, no `alloc`, no dependencies, no `unsafe`.
//! It is shared by the host tools (`synaptic-plan`, `synmem`) and the runtime
//! (`synaptic-run`), so both see the same model through the same checks.
//!
//! ## Why hand-written, and how it stays safe
//!
//! The `flatbuffers` crate needs `std`-side code generation and its reading API is `unsafe` to
//! call; a device runtime wants neither. The part of the schema SynapticOS needs is small
//! (models, subgraphs, tensors, quantization, operators, operator codes, buffers, metadata and
//! a dozen builtin option tables), so it is read by hand with two layers of defence:
//!
//! 1. **Every access is bounds-checked** ([`fb`]): offsets are followed with checked
//!    arithmetic, vtables and vectors are checked to lie inside the buffer, a field must lie
//!    inside its table. Any failure is an [`Error`], never a panic or a wrong read.
//! 2. **The structure is verified once at open** ([`Model::new`]): every table, vector and
//!    string the accessors below read is visited, so a model that opens reads without
//!    structural errors afterwards. (Accessors still return `Result`: a reader that cannot
//!    fail by construction is worth the few compares.) Semantic checks — a tensor index past
//!    the subgraph, an unknown type — are the user's, and the accessors report them as errors
//!    ([`Error::Invalid`]). A reader that visits what it needs once (a device loading a
//!    model at boot) opens with [`Model::open`] instead and relies on the first layer alone:
//!    a malformed part is an error where it is read, and a part never read is never checked.
//!
//! Field numbers are TFLite's `schema.fbs`; [`builtin_name`] has the operator names.
//!
//! ```
//! # fn main() -> Result<(), synaptic_tflite::Error> {
//! # let bytes = synaptic_tflite::tests_support::tiny_model();
//! use synaptic_tflite::Model;
//! let model = Model::new(bytes)?;                 // verified once
//! let sg = model.subgraph(0)?;
//! for i in 0..sg.operators_len()? {
//!     let op = sg.operator(i)?;
//!     let code = model.operator_code(op.opcode_index()? as usize)?;
//!     println!("op {i}: {}", synaptic_tflite::builtin_name(code.builtin).unwrap_or("?"));
//! }
//! let t = sg.tensor(0)?;
//! assert_eq!(t.tensor_type()?, synaptic_tflite::TensorType::Int8);
//! # Ok(()) }
//! ```
#![no_std]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod fb;
pub mod fields;
mod ops;
mod schema;
#[doc(hidden)]
pub mod tests_support;

pub mod flexbuffers;
pub use fb::{Table, Vector};
pub use ops::{builtin_name, code, BUILTIN_NAMES};
pub use schema::*;

use core::fmt;

/// Why a model could not be read. Every variant prints as one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// Fewer than 8 bytes: not even a root offset and a file identifier.
    Truncated {
        /// Bytes given.
        len: usize,
    },
    /// The file identifier (bytes 4..8) is not `TFL3`.
    NotTflite {
        /// The four bytes found.
        found: [u8; 4],
    },
    /// The FlatBuffer structure is broken (an offset, vtable, vector or field out of bounds).
    Malformed {
        /// What was being read.
        what: &'static str,
        /// Byte position in the model.
        pos: usize,
    },
    /// The structure is sound but refers to something that does not exist or is out of range.
    Invalid {
        /// What is wrong.
        what: &'static str,
        /// The offending index or value.
        index: i64,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Truncated { len } => {
                write!(f, "not a .tflite model: only {len} bytes (truncated?)")
            }
            Error::NotTflite { found } => {
                f.write_str("not a .tflite model: file identifier is \"")?;
                for &b in found {
                    if b.is_ascii_graphic() {
                        write!(f, "{}", b as char)?;
                    } else {
                        write!(f, "\\x{b:02x}")?;
                    }
                }
                f.write_str("\", expected \"TFL3\"")
            }
            Error::Malformed { what, pos } => {
                write!(
                    f,
                    "invalid .tflite flatbuffer (truncated or corrupt): {what} at byte {pos}"
                )
            }
            Error::Invalid { what, index } => {
                write!(f, "invalid .tflite model: {what} ({index})")
            }
        }
    }
}

impl core::error::Error for Error {}
