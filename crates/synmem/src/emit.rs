//! `synmem emit`: the plan for firmware — a Rust const table or a C header (`--lang rust|c`),
//! with synaptic-run's compiled program beside it unless `--op-data ram` (and with
//! `--with-model` the model's bytes, C) (or, when not asked
//! for, when synaptic-run cannot compile the model), or (`--lang tflite`) a copy of the model
//! carrying TFLM's offline memory plan.

use crate::args::{KernelsArg, LangArg, OpDataArg, SizingArgs};
use crate::common::{
    analyse_with_program, print_json, to_json_value, too_big, write_file, Failure,
};
use std::path::Path;
use synaptic_plan::emit::{emit_with_program, with_model_c, Lang};
use synaptic_plan::tflm_arena::{self, Kernels};
use synaptic_plan::{read_file_limited, tflm, Model};

/// Runs `synmem emit MODEL --lang rust|c|tflite -o FILE [--op-data ram|flash] [sizing
/// options]`, reading files of at most `max` bytes.
#[allow(clippy::too_many_arguments)] // one per option of `Cmd::Emit`
pub(crate) fn run(
    model: &Path,
    lang: LangArg,
    output: &Path,
    with_model: bool,
    json: bool,
    kernels: Option<KernelsArg>,
    sizing: &SizingArgs,
    max: u64,
) -> Result<u8, Failure> {
    if kernels.is_some() && !matches!(lang, LangArg::Tflite) {
        return Err(Failure("--kernels is for --lang tflite".into(), 2));
    }
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
        LangArg::Tflite => {
            let kernels = kernels.unwrap_or(KernelsArg::Reference).kernels();
            return emit_tflite(model, output, sizing, kernels, json, max);
        }
    };
    // --op-data for --lang rust|c: flash writes synaptic-run's compiled program beside the plan
    // (a static u32 array, 4-byte aligned, for `Interpreter::with_program`); ram omits it (the
    // program is compiled at load, its bytes in ARENA_BYTES). Default: flash when synaptic-run
    // supports the model, else the plan alone (with a note on stderr); an explicit flash fails
    // for a model it does not support.
    let op_data = sizing.op_data;
    let (a, compiled) = analyse_with_program(model, sizing, max)?;
    if !a.report.ram.fits {
        return Err(too_big(model, &a.report.ram));
    }
    let program = match op_data {
        Some(OpDataArg::Ram) => None,
        _ => match compiled {
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
    let mut model_bytes = None;
    if with_model {
        let bytes = read_file_limited(model, max)?;
        model_bytes = Some(bytes.len());
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
        "wrote {} slots ({} B ephemeral region) to {}: RAM {} B (arena {} B + shared region {} B)",
        a.ephemeral_plan.items.len(),
        a.ephemeral_plan.region_size,
        output.display(),
        a.report.ram_bytes,
        a.report.ram.arena_bytes,
        a.report.ram.shared_bytes
    );
    if json {
        print_json(&serde_json::json!({
            "output": output.display().to_string(),
            "lang": match lang { Lang::Rust => "rust", Lang::C => "c" },
            "model": a.report.model,
            "ram_bytes": a.report.ram_bytes,
            "arena_bytes": a.report.ram.arena_bytes,
            "shared_bytes": a.report.ram.shared_bytes,
            "io": a.report.io_in.name(),
            "op_data": a.report.ram.op_data,
            "slots": a.ephemeral_plan.items.len(),
            "region_bytes": a.ephemeral_plan.region_size,
            "overlaps": a.ephemeral_plan.overlaps.len(),
            "program_words": program.as_ref().map(Vec::len),
            "model_bytes": model_bytes,
        }))?;
    }
    Ok(0)
}

/// `emit --lang tflite`: the model with TFLM's offline memory plan (`synaptic_plan::tflm`),
/// the kernel set's scratch planned (`synaptic_plan::tflm_arena`; `--scratch-table` overrides
/// it), and `kTensorArenaSize` for a 32-bit TFLM build with that plan and kernel set (stderr;
/// with `json`, the same on stdout with TFLM's own plan beside it and the 64-bit figure).
fn emit_tflite(
    model: &Path,
    output: &Path,
    sizing: &SizingArgs,
    kernels: Kernels,
    json: bool,
    max: u64,
) -> Result<u8, Failure> {
    let bytes = read_file_limited(model, max)?;
    let m = Model::from_bytes(&bytes)?;
    let options = sizing.options(max)?;
    // The scratch table: the file's if given, else the kernel set's (None if an operator is
    // not modelled: the plan is then of the tensors alone, as before).
    let computed = tflm_arena::scratch_table(&bytes, kernels);
    let (table, table_source) = match (&options.scratch_per_op, &computed) {
        (Some(t), _) => (Some(t.clone()), "--scratch-table".to_string()),
        (None, Ok(t)) => (Some(t.clone()), format!("{} kernels", kernels.name())),
        (None, Err(e)) => {
            eprintln!(
                "note: the {} kernels' scratch is not known ({e}): the plan holds the tensors only",
                kernels.name()
            );
            (None, String::new())
        }
    };
    let plan = tflm::plan_for_tflm(&m, &options.plan, table.as_deref())?;
    let out = tflm::with_offline_plan(&bytes, &plan)?;
    write_file(output, &out)?;
    eprintln!(
        "wrote OfflineMemoryAllocation ({} of {} tensors planned, {} B of TFLM head{}, live bound {} B{}) to {}",
        plan.tensors.len(),
        plan.offsets.len(),
        plan.head_bytes(),
        match plan.kernel_scratch {
            Some(b) => format!(" with {b} B of kernel scratch ({table_source})"),
            None => " (kernel scratch not included)".into(),
        },
        plan.plan.lower_bound,
        if plan.plan.proven_optimal { ", optimal" } else { "" },
        output.display()
    );
    let arena = |offsets: Option<&[i32]>, abi: &tflm_arena::Abi| {
        tflm_arena::tflm_arena(&bytes, offsets, kernels, abi)
    };
    let ours = arena(Some(&plan.offsets), &tflm_arena::Abi::ARM32);
    let own = arena(None, &tflm_arena::Abi::ARM32);
    match (&ours, &own) {
        (Ok(a), Ok(o)) => eprintln!(
            "kTensorArenaSize {} for a 32-bit TFLM build with {} kernels (head {} + persistent tail {}{}; TFLM's own plan: head {}, arena {}){}",
            a.arena,
            kernels.name(),
            a.head,
            a.tail,
            match a.arena - a.used {
                0 => String::new(),
                d if a.binding.starts_with("tail") => format!(" + {d} of alignment"),
                d => format!(
                    " + {d} needed only while AllocateTensors runs ({})",
                    a.binding
                ),
            },
            o.head,
            o.arena,
            if options.scratch_per_op.is_some() {
                " (sized with the kernel set's scratch, not the --scratch-table's)"
            } else {
                ""
            }
        ),
        (Err(e), _) | (_, Err(e)) => eprintln!("note: kTensorArenaSize not computed: {e}"),
    }
    if json {
        let ok = |r: Result<tflm_arena::TflmArena, synaptic_plan::ImportError>| match r {
            Ok(a) => to_json_value(&a),
            Err(e) => Ok(serde_json::json!({ "error": e.to_string() })),
        };
        print_json(&serde_json::json!({
            "output": output.display().to_string(),
            "lang": "tflite",
            "kernels": kernels.name(),
            "tensors_planned": plan.tensors.len(),
            "offsets": plan.offsets.len(),
            "head_bytes": plan.head_bytes(),
            "kernel_scratch_bytes": plan.kernel_scratch,
            "scratch_table": table_source,
            "live_bound_bytes": plan.plan.lower_bound,
            "proven_optimal": plan.plan.proven_optimal,
            "k_tensor_arena_size": ours.as_ref().ok().map(|a| a.arena),
            "arena_32bit": ok(ours)?,
            "arena_32bit_tflm_own_plan": ok(own)?,
            "arena_64bit": ok(arena(Some(&plan.offsets), &tflm_arena::Abi::X86_64))?,
        }))?;
    }
    Ok(0)
}
