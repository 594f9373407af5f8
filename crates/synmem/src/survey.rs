//! `synmem survey`: plan every `.tflite` in a directory and print one table row per model; a
//! model that cannot be planned gets a row saying why, the others are still planned, and the
//! command then fails (exit 1) naming every failure.

use crate::args::SizingArgs;
use crate::common::{print_json, Failure};
use std::path::Path;
use synaptic_plan::reference;

/// Runs `synmem survey DIR [sizing options]`, reading files of at most `max` bytes.
pub(crate) fn run(dir: &Path, sizing: &SizingArgs, json: bool, max: u64) -> Result<u8, Failure> {
    if sizing.scratch_table.is_some() {
        return Err(Failure("survey takes no --scratch-table".into(), 2));
    }
    if sizing.op_data == Some(crate::args::OpDataArg::Ram) {
        return Err(Failure(
            "survey sizes the program in flash; --op-data ram is for plan and emit".into(),
            2,
        ));
    }
    let rows = reference::survey_limited(dir, &sizing.options(max)?, max)?;
    if rows.is_empty() {
        return Err(Failure(
            format!("no .tflite models in {}", dir.display()),
            1,
        ));
    }
    if json {
        let v: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| match &r.analysis {
                Ok(a) => {
                    let rep = &a.report;
                    serde_json::json!({
                        "model": rep.model,
                        "ram_bytes": rep.ram_bytes,
                        "activation_sum_bytes": rep.activation_sum_bytes,
                        "live_lower_bound_bytes": rep.live_lower_bound_bytes,
                        "greedy_bytes": a.activation_plan.stats.greedy_bytes,
                        "planned_activation_bytes": rep.planned_activation_bytes,
                        "tflm_head_bytes": r.reference.as_ref().and_then(|f| f.tflm_head),
                        "ratio_to_lower_bound": rep.ratio_to_lower_bound,
                        "proven_optimal": rep.proven_optimal,
                        "planning_micros": a.activation_plan.stats.micros,
                        "error": null,
                    })
                }
                Err(e) => serde_json::json!({ "model": r.model, "error": e.to_string() }),
            })
            .collect();
        print_json(&v)?;
    } else {
        print!("{}", reference::survey_table(&rows));
    }
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
