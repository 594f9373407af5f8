//! `synmem emit`: the plan for firmware — a Rust const table or a C header (`--lang rust|c`),
//! with synaptic-run's compiled program beside it unless `--op-data ram` (and with
//! `--with-model` the model's bytes, C) (or, when not asked
//! for, when synaptic-run cannot compile the model), or (`--lang tflite`) a copy of the model
//! carrying TFLM's offline memory plan.

use crate::args::{LangArg, OpDataArg, SizingArgs};
use crate::common::{analyse, compile_program, write_file, Failure};
use std::path::Path;
use synaptic_plan::emit::{emit_with_program, with_model_c, Lang};
use synaptic_plan::{read_file_limited, tflm, Analysis, IoPlacement, Model};

/// Runs `synmem emit MODEL --lang rust|c|tflite -o FILE [--op-data ram|flash] [sizing
/// options]`, reading files of at most `max` bytes.
pub(crate) fn run(
    model: &Path,
    lang: LangArg,
    output: &Path,
    op_data: Option<OpDataArg>,
    with_model: bool,
    sizing: &SizingArgs,
    max: u64,
) -> Result<u8, Failure> {
    let lang = match lang {
        LangArg::Rust if with_model => {
            return Err(Failure(
                "--with-model is for --lang c (Rust firmware: include_bytes! the .tflite)".into(),
                2,
            ))
        }
        LangArg::Tflite if with_model => {
            return Err(Failure("--with-model is for --lang c".into(), 2))
        }
        LangArg::Rust => Lang::Rust,
        LangArg::C => Lang::C,
        LangArg::Tflite => return emit_tflite(model, output, sizing, max),
    };
    let a = analyse(model, sizing, max)?;
    let program = match op_data {
        Some(OpDataArg::Ram) => None,
        _ => match program_for(model, &a, max) {
            Ok(w) => Some(w),
            Err(e) if op_data.is_none() => {
                eprintln!(
                    "note: no program emitted (synaptic-run cannot compile the model: {}); \
                     the plan alone",
                    e.0
                );
                None
            }
            Err(e) => return Err(e),
        },
    };
    let mut text = emit_with_program(&a, lang, program.as_deref());
    if with_model {
        let bytes = read_file_limited(model, max)?;
        text = with_model_c(&text, &a.report.model, &bytes).ok_or_else(|| {
            Failure(
                "internal: the emitted C header has no closing #endif".into(),
                1,
            )
        })?;
        eprintln!(
            "wrote the model ({} B of flash, 16-byte aligned)",
            bytes.len()
        );
    }
    write_file(output, text)?;
    if let Some(w) = &program {
        eprintln!(
            "wrote the compiled program ({} words, {} B of flash)",
            w.len(),
            4 * w.len()
        );
    }
    eprintln!(
        "wrote {} slots ({} B ephemeral region) to {}",
        a.ephemeral_plan.items.len(),
        a.ephemeral_plan.region_size,
        output.display()
    );
    Ok(0)
}

/// synaptic-run's compiled program of `path` for the analysis's I/O placement.
fn program_for(path: &Path, a: &Analysis, max: u64) -> Result<Vec<u32>, Failure> {
    use synaptic_run::IoPlacement as RunIo;
    let bytes = read_file_limited(path, max)?;
    let io = match a.options.io {
        IoPlacement::Shared => RunIo::Shared,
        IoPlacement::Ephemeral => RunIo::Plan,
    };
    compile_program(path, &bytes, io)
}

/// `emit --lang tflite`: the model with TFLM's offline memory plan (`synaptic_plan::tflm`).
fn emit_tflite(model: &Path, output: &Path, sizing: &SizingArgs, max: u64) -> Result<u8, Failure> {
    let bytes = read_file_limited(model, max)?;
    let m = Model::from_bytes(&bytes)?;
    let options = sizing.options(max)?;
    let plan = tflm::plan_for_tflm(&m, &options.plan, options.scratch_per_op.as_deref())?;
    let out = tflm::with_offline_plan(&bytes, &plan)?;
    write_file(output, &out)?;
    eprintln!(
        "wrote OfflineMemoryAllocation ({} of {} tensors planned, {} B of TFLM head{}, live bound {} B{}) to {}",
        plan.tensors.len(),
        plan.offsets.len(),
        plan.head_bytes(),
        match plan.kernel_scratch {
            Some(b) => format!(" with {b} B of kernel scratch"),
            None => " (kernel scratch not included: --scratch-table)".into(),
        },
        plan.plan.lower_bound,
        if plan.plan.proven_optimal { ", optimal" } else { "" },
        output.display()
    );
    Ok(0)
}
