//! `synmem trace`: the model's whole allocation sequence (load, shared, per-inference) as JSON
//! (`synaptic_plan::sequence_of`).

use crate::args::SizingArgs;
use crate::common::{analyse, print_json, Failure};
use std::path::Path;

/// Runs `synmem trace MODEL [sizing options]`, reading files of at most `max` bytes.
pub(crate) fn run(model: &Path, sizing: &SizingArgs, max: u64) -> Result<u8, Failure> {
    let seq = synaptic_plan::sequence_of(&analyse(model, sizing, max)?)?;
    print_json(&seq)?;
    Ok(0)
}
