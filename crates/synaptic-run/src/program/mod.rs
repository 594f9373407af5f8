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
//! A program is build output, like the firmware's code: [`compile`] validates the model and
//! seals the program to it ([`seal`]: a hash of every model byte and every program word, the
//! header's last word). A load of a program given in flash checks its header, its seal and its
//! data flow (no operator reads a slot nothing wrote) and nothing else, so an image that loads
//! from flash links no compiler: a program damaged anywhere, or given with other model bytes
//! (a retrained weight included), is refused. The seal is a hash, not a signature: for a device
//! that takes programs from a source it does not trust, [`verify`] compiles the model again
//! word by word and compares (no buffer: each word is compared as it is produced; the feature
//! `verify-program` runs it at every such load), so a program that passes is exactly what
//! [`compile`] makes of that model. The inference path decodes every word with checked reads
//! and every kernel checks its slices against its parameters: a program forged to pass the
//! seal can make a kernel fail or panic, never read bytes nothing wrote nor cause undefined
//! behaviour.
//!
//! The format is [`crate::format`]'s; this module is its one compiler ([`compile`],
//! [`compiled_len`], [`verify`]).

mod compile;
mod seal;

pub use crate::format::{Isa, HEADER_WORDS, IO_WORDS, MAGIC, SLOT_WORDS, VERSION};
pub use crate::model::core_request_of;
#[cfg(feature = "verify-program")]
pub(crate) use compile::verify_in;
pub use compile::{
    compile, compile_for, compiled_len, compiled_len_for, fingerprint, kinds, paths, verify,
    FINGERPRINT_WORDS,
};
pub(crate) use compile::{compile_in, compiled_len_in};
pub(crate) use seal::check_sealed;
pub use seal::seal;
