//! A program's header and its seal: what a load checks of a program given in flash.
//!
//! The seal ([`seal`], header word `SEAL`) is a hash of every byte of the model and every word
//! of the program but itself, written by [`super::compile`] on the host. A load
//! ([`crate::Interpreter::with_program`]) recomputes it: a program altered anywhere, or given
//! with a model other than the one it was compiled from (a retrained weight included), is
//! refused with no compiler linked. [`super::verify`] checks a program against the model word
//! by word instead (and names the first word that differs), which needs the whole compiler.

use crate::error::LoadError;
use crate::format::{h, placement_code, IoPlacement, Isa, HEADER_WORDS, MAGIC, VERSION};

/// One step of [`seal`] and of [`super::fingerprint`]: the hash so far and the next word.
#[inline(always)]
pub(super) fn mix(h: u32, w: u32) -> u32 {
    (h.rotate_left(5) ^ w).wrapping_mul(0x9E37_79B1)
}

/// The seal of `program` for `model`: every model byte (its 32-bit words, then its trailing
/// bytes) and every program word but the seal's own (header word `SEAL`, taken as 0), with
/// both lengths. About four instructions a model word on a Cortex-M4 (person_detect's
/// 300 KB: some 0.3 M instructions, a tenth of what TFLM's `AllocateTensors` takes).
///
/// ```
/// use synaptic_run::{program, IoPlacement};
/// let model = synaptic_tflite::tests_support::tiny_model();
/// let mut words = vec![0u32; program::compiled_len(model, IoPlacement::Plan).unwrap()];
/// program::compile(model, IoPlacement::Plan, &mut words).unwrap();
/// assert_eq!(words[program::HEADER_WORDS - 1], program::seal(model, &words));
/// ```
// Not inlined: its loop's registers its own (the load's frame around it made the compiler
// load the multiplier again at every word).
#[inline(never)]
pub fn seal(model: &[u8], program: &[u32]) -> u32 {
    let mut hash = mix(0x811C_9DC5, model.len() as u32);
    let words = model.chunks_exact(4);
    let tail = words.remainder();
    for c in words {
        hash = mix(hash, u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
    }
    for &b in tail {
        hash = mix(hash, u32::from(b));
    }
    hash = mix(hash, program.len() as u32);
    for (i, &w) in program.iter().enumerate() {
        hash = mix(hash, if i == h::SEAL { 0 } else { w });
    }
    hash ^ (hash >> 16)
}

/// The refusal of a program for `what`, found at header word `word`.
fn bad(what: &'static str, word: usize) -> LoadError {
    LoadError::Program {
        what,
        op: usize::MAX,
        name: "",
        word,
    }
}

/// Checks `program`'s header for `model` and `placement` (magic, version, length, the model's
/// length and fingerprint, the placement, a known ISA) and returns the ISA it names: the first
/// checks of both [`super::verify`] and [`check_sealed`], in that order.
pub(super) fn check_header(
    model: &[u8],
    placement: IoPlacement,
    program: &[u32],
) -> Result<Isa, LoadError> {
    let Some(hd) = program.get(..HEADER_WORDS) else {
        return Err(bad(
            "shorter than a program header (truncated)",
            program.len(),
        ));
    };
    if hd[h::MAGIC] != MAGIC {
        return Err(bad("not a synaptic-run program (magic)", h::MAGIC));
    }
    if hd[h::VERSION] != VERSION {
        return Err(bad(
            "a format version this runtime does not read",
            h::VERSION,
        ));
    }
    if hd[h::WORDS] as usize != program.len() {
        return Err(bad(
            "its length word differs from its size (truncated or extended)",
            h::WORDS,
        ));
    }
    if hd[h::MODEL_LEN] as usize != model.len() || hd[h::FINGERPRINT] != super::fingerprint(model) {
        return Err(bad(
            "compiled for another model (model length or fingerprint differs)",
            h::FINGERPRINT,
        ));
    }
    if hd[h::PLACEMENT] & 0xFF != placement_code(placement) {
        return Err(bad("compiled for the other I/O placement", h::PLACEMENT));
    }
    Isa::from_code(hd[h::PLACEMENT] >> 8).ok_or(bad(
        "compiled for an instruction set this runtime does not know",
        h::PLACEMENT,
    ))
}

/// What a load checks of a program given in flash: its header ([`check_header`]), then its
/// seal ([`seal`]).
pub(crate) fn check_sealed(
    model: &[u8],
    placement: IoPlacement,
    program: &[u32],
) -> Result<(), LoadError> {
    check_header(model, placement, program)?;
    if program[h::SEAL] != seal(model, program) {
        return Err(bad(
            "its seal differs (altered, or compiled from other model bytes)",
            h::SEAL,
        ));
    }
    Ok(())
}
