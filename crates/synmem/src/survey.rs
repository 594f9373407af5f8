//! `synmem survey`: plan every `.tflite` in a directory and print one table row per model; a
//! model that cannot be planned gets a row saying why, the others are still planned, and the
//! command then fails (exit 1) naming every failure.

use crate::args::SizingArgs;
use crate::common::Failure;
use std::path::Path;
use synaptic_plan::reference;

/// Runs `synmem survey DIR [sizing options]`, reading files of at most `max` bytes.
pub(crate) fn run(dir: &Path, sizing: &SizingArgs, max: u64) -> Result<u8, Failure> {
    if sizing.scratch_table.is_some() {
        return Err(Failure("survey takes no --scratch-table".into(), 2));
    }
    let rows = reference::survey_limited(dir, &sizing.options(max)?, max)?;
    if rows.is_empty() {
        return Err(Failure(
            format!("no .tflite models in {}", dir.display()),
            1,
        ));
    }
    print!("{}", reference::survey_table(&rows));
    let failed: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            r.analysis
                .as_ref()
                .err()
                .map(|e| format!("{}: {e}", r.path.display()))
        })
        .collect();
    if failed.is_empty() {
        Ok(0)
    } else {
        Err(Failure(
            format!(
                "{} of {} models could not be planned: {}",
                failed.len(),
                rows.len(),
                failed.join("; ")
            ),
            1,
        ))
    }
}
