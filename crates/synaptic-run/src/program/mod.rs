//! The compiled program: everything an inference needs, prepared once, in RAM or in flash.
//!
//! ## Why a program
//!
//! Parsing the flatbuffer and preparing every operator again at each inference (software
//! `f64` on a Cortex-M3) cost hello_world_int8 41,214 instructions per inference against
//! TFLM's 5,450, and keeping the prepared data in the arena cost RAM (person_detect: 21,936
//! bytes of requantization tables). The program holds, for one model and one I/O placement,
//! every operator's prepared parameters, where each of its tensors lives and its
//! requantization table, so that an inference reads only the program, the arena and the weights
//! (in place in the model bytes). It is plain `u32` words: [`compile`] writes it on the host
//! (`synmem emit`, firmware `build.rs`), where it goes into flash as a `static [u32; N]`
//! beside the model ([`crate::Interpreter::with_program`]: no per-operator RAM), or at load
//! into one PERSISTENT tensor ([`crate::Interpreter::new`]).
//!
//! ## Trust
//!
//! A program given by the user is verified at load against the model: [`verify`] compiles the
//! model again word by word and compares (no buffer: each word is compared as it is produced),
//! so a program that loaded is exactly what [`compile`] makes of that model, and nothing in it
//! can disagree with the model. The inference path still decodes every word with checked
//! reads: a program that is somehow wrong is an error there, never a panic or undefined
//! behaviour (there is no `unsafe` in this crate).
//!
//!
//! The format is [`crate::format`]'s; this module is its one compiler ([`compile`],
//! [`compiled_len`], [`verify`]).

mod compile;

pub use crate::format::{Isa, HEADER_WORDS, IO_WORDS, MAGIC, SLOT_WORDS, VERSION};
pub use crate::model::core_request_of;
pub use compile::{
    compile, compile_for, compiled_len, compiled_len_for, fingerprint, kinds, verify,
    FINGERPRINT_WORDS,
};
pub(crate) use compile::{compile_in, compiled_len_in, verify_in};
