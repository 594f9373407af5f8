//! `synmem`: how big must my tensor arena be?
//!
//! ```text
//! synmem inspect MODEL [--json]
//! synmem plan MODEL [--arena N] [--scratch N] [--weights sram|flash] [--strategy bump|greedy|best]
//!                   [--io shared|ephemeral] [--scratch-table FILE] [--json] [--svg FILE] [--check]
//!                   [--no-overlap] [--op-data flash|ram]
//! synmem emit MODEL --lang rust|c -o FILE [--with-model] [--json] [sizing options]
//! synmem emit MODEL --lang tflite -o OUT.tflite [--strategy …]   # TFLM's offline plan
//! synmem trace MODEL [sizing options]        # the allocation sequence, as JSON
//! synmem survey DIR [--strategy …] [--json]  # planner table over a directory of models
//! synmem ops [--json | --markdown]           # TFLM's operators, the data types we run
//! synmem run MODEL (--input IN.raw | --random SEED) --output OUT.raw [--io shared|plan]
//!                  [--arena N] [--scratch N] [--op-data ram|flash] [--no-overlap]
//!                  [--poison SEED] [--json]   # one inference on the arena
//! (plan, emit, trace, survey and run overlap outputs with dying inputs unless --no-overlap)
//! (every subcommand: [--max-file-bytes N], default 64 MiB; [--json], errors too)
//! ```
//!
//! Every subcommand reads model files of at most 64 MiB, and only regular files
//! (`--max-file-bytes N` raises the limit).
//!
//! Errors print one line (`synmem: error: …`) on stderr (with `--json` also
//! `{"error": {"message", "exit_code", "kind"}}` on stdout) and exit non-zero: 1 for a bad model
//! or file (for `survey`: when any model failed; its row says why and the others are still
//! planned), 2 for bad options, 3 for `plan --check` when the model does not fit.
//!
//! The text, JSON and SVG forms all come from `synaptic-plan` (`render`, `Report`, `svg`). This
//! file only parses the command line (clap: `Cli`, `Cmd`; the option types in `args.rs`)
//! and dispatches to one module per subcommand — `inspect.rs`, `plan.rs`, `emit.rs`,
//! `trace.rs`, `run.rs`, `survey.rs`, `ops.rs` — which share `common.rs` (the failure type, sizing
//! options, reading and analysing a model file under the size limit, writing files, printing
//! JSON, compiling synaptic-run's program).
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod args;
mod common;
mod emit;
mod inspect;
mod ops;
mod plan;
mod run;
mod survey;
mod trace;

use args::{parse_size, parse_u64_size, KernelsArg, LangArg, OpDataArg, RunIoArg, SizingArgs};
use clap::{Parser, Subcommand};
use common::Failure;
use std::path::PathBuf;
use std::process::ExitCode;
use synaptic_plan::DEFAULT_MAX_FILE_BYTES;

/// Size, plan and emit tensor-arena memory for TensorFlow Lite models (SynapticOS syn_mem).
#[derive(Parser, Debug)]
#[command(name = "synmem", version, about)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
    /// Largest model (or scratch table) file read, in bytes (suffix k for KiB, m for MiB);
    /// anything that is not a regular file is refused too.
    #[arg(long, global = true, value_name = "N", default_value_t = DEFAULT_MAX_FILE_BYTES,
          value_parser = parse_u64_size, allow_hyphen_values = true)]
    max_file_bytes: u64,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Show a model's tensors, operators and activation lifetimes; a TFLM offline memory plan
    /// (OfflineMemoryAllocation metadata) is checked against TFLM's lifetimes, and any two
    /// tensors it overlaps while both live are named (exit 1).
    Inspect {
        /// The .tflite model.
        model: PathBuf,
        /// Print JSON instead of tables.
        #[arg(long)]
        json: bool,
    },
    /// The RAM synaptic-run needs (arena + shared region, first), then the bare allocator's
    /// regions, the plan and the check of an arena configuration.
    Plan {
        /// The .tflite model.
        model: PathBuf,
        #[command(flatten)]
        sizing: SizingArgs,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Draw the plan as SVG into FILE.
        #[arg(long, value_name = "FILE")]
        svg: Option<PathBuf>,
        /// Exit with status 3 if the model does not fit: the runtime's arena over the core's
        /// 524288 B, or a bare-allocator configuration named with --arena, --scratch,
        /// --weights or --scratch-table too small.
        #[arg(long)]
        check: bool,
    },
    /// Write the plan as a Rust const table or a C header for firmware, or (--lang tflite)
    /// into a copy of the model as TFLM's OfflineMemoryAllocation metadata.
    Emit {
        /// The .tflite model.
        model: PathBuf,
        /// Output language.
        #[arg(long, value_enum)]
        lang: LangArg,
        /// Output file.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: PathBuf,
        /// --lang c: also write the model's bytes as a 16-byte aligned const array
        /// (`<model>_model[]`, `<MODEL>_MODEL_BYTES`), so the header is all a C firmware
        /// needs (Rust firmware: `include_bytes!`).
        #[arg(long)]
        with_model: bool,
        /// Print what was written (file, sizes, the RAM figure) as JSON on stdout.
        #[arg(long)]
        json: bool,
        /// --lang tflite: the TFLM kernels the firmware is built with; their scratch buffers
        /// are planned (no --scratch-table needed; one still overrides the plan's) and
        /// kTensorArenaSize is computed for them (default: reference).
        #[arg(long, value_enum)]
        kernels: Option<KernelsArg>,
        #[command(flatten)]
        sizing: SizingArgs,
    },
    /// Print the model's full allocation sequence (load, shared, per-inference) as JSON.
    Trace {
        /// The .tflite model.
        model: PathBuf,
        /// Accepted for uniformity: trace always prints JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        sizing: SizingArgs,
    },
    /// Run one inference on an arena of the planned size (synaptic-run's interpreter) and
    /// write the output bytes; print the arena figures.
    #[command(long_about = run::LONG_ABOUT)]
    Run {
        /// The .tflite model.
        model: PathBuf,
        /// Raw bytes of input tensor 0 in its dtype and shape, row-major (a model with several
        /// inputs: every input's bytes, concatenated in input order); a `.bmp` (8-bit
        /// grayscale, e.g. person_detect's frames) is decoded as TFLM's person_detection test
        /// feeds it (`synaptic_run::bmp::gray8`).
        #[arg(long, value_name = "IN.raw", required_unless_present = "random")]
        input: Option<PathBuf>,
        /// Also write the input bytes the inference ran on (from --random or a .bmp) to this
        /// file: what a firmware feeds to get the same OUT.raw.
        #[arg(long, value_name = "IN.raw")]
        save_input: Option<PathBuf>,
        /// Seeded random input bytes instead of --input.
        #[arg(long, value_name = "SEED", conflicts_with = "input")]
        random: Option<u64>,
        /// Receives the raw bytes of every graph output, concatenated in output order.
        #[arg(long, value_name = "OUT.raw")]
        output: PathBuf,
        /// Where graph inputs/outputs live: the SHARED region, or inside the plan.
        #[arg(long, value_enum, default_value_t = RunIoArg::Shared)]
        io: RunIoArg,
        /// Arena size in bytes, laid out as the Kconfig arena (4096..=524288, with a --scratch
        /// pool, default 1024). Default: exactly what the model needs (`synmem plan`'s
        /// arena, what `synmem emit` writes as ARENA_BYTES), laid out as syn_run_load does.
        #[arg(long, value_parser = parse_size, allow_hyphen_values = true)]
        arena: Option<usize>,
        /// Scratch pool size in bytes for a Kconfig arena (1024..=65536; the kernels need none).
        #[arg(long, value_parser = parse_size, allow_hyphen_values = true)]
        scratch: Option<usize>,
        /// Per-operator data: compiled here first and loaded from outside the arena (flash:
        /// what an emitted firmware gets; the default), or compiled at load into the arena
        /// (ram).
        #[arg(long, value_enum, default_value_t = OpDataArg::Flash)]
        op_data: OpDataArg,
        /// Run the plain plan (no output/input overlap); by default the plan overlaps outputs
        /// with dying inputs and those operators run overlapped.
        #[arg(long)]
        no_overlap: bool,
        /// Fill the whole arena and the shared region with bytes of this seed (splitmix64)
        /// before loading and running: the output must not change (nothing reads memory it did
        /// not write).
        #[arg(long, value_name = "SEED")]
        poison: Option<u64>,
        /// Print the memory breakdown and the outputs as JSON (fields: see above).
        #[arg(long)]
        json: bool,
        /// Run N consecutive inferences on one load, the model's state (SVDF, LSTM variable
        /// tensors) carried from one to the next as TFLM carries it: IN.raw holds N inputs
        /// back to back (--random: seeds SEED, SEED+1, ...), OUT.raw receives N outputs.
        #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
        invocations: u32,
    },
    /// Every operator TFLM's op resolver registers: the data types TFLM runs, the ones
    /// synaptic-run runs, and TFLM's it does not (one line each, then a summary).
    Ops {
        /// Print the table as JSON.
        #[arg(long, conflicts_with = "markdown")]
        json: bool,
        /// Print the table as Markdown (docs/operators.md).
        #[arg(long)]
        markdown: bool,
    },
    /// Plan every .tflite in a directory; print act sum, live bound, planned, TFLM head,
    /// proven optimal and time per model.
    Survey {
        /// Directory of .tflite models (with the reference README.md, if any).
        dir: PathBuf,
        /// Print one JSON object per model (an array) instead of the table.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        sizing: SizingArgs,
    },
}

/// `s` (an error message, possibly clap's several lines) on one line, without clap's
/// "For more information" hint and "error: " prefix.
fn one_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("For more information"))
        .collect::<Vec<_>>()
        .join(" ")
        .trim_start_matches("error: ")
        .to_string()
}

/// With `--json` anywhere on the command line a failure is also printed on stdout as
/// `{"error": {"message": …, "exit_code": …, "kind": …}}` (kind: `usage` for exit 2, `model` for
/// exit 1), so a tool that parses stdout sees it; the one-line message stays on stderr.
fn fail(msg: &str, code: u8, json: bool) -> ExitCode {
    eprintln!("synmem: error: {msg}");
    if json {
        let v = serde_json::json!({
            "error": {
                "message": msg,
                "exit_code": code,
                "kind": if code == 2 { "usage" } else { "model" },
            }
        });
        println!("{v}");
    }
    ExitCode::from(code)
}

fn main() -> ExitCode {
    let json = std::env::args_os().any(|a| a == "--json");
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind as K;
            if matches!(e.kind(), K::DisplayHelp | K::DisplayVersion) {
                print!("{e}");
                return ExitCode::SUCCESS;
            }
            if e.kind() == K::DisplayHelpOnMissingArgumentOrSubcommand {
                eprint!("{e}");
                return ExitCode::from(2);
            }
            let msg = format!("{} (see synmem --help)", one_line(&e.to_string()));
            return fail(&msg, 2, json);
        }
    };
    match dispatch(cli) {
        Ok(code) => ExitCode::from(code),
        Err(Failure(msg, code)) => fail(&one_line(&msg), code, json),
    }
}

/// Runs the subcommand `cli` names: its exit status, or the failure to report.
fn dispatch(cli: Cli) -> Result<u8, Failure> {
    let max = cli.max_file_bytes;
    match cli.cmd {
        Cmd::Inspect { model, json } => inspect::run(&model, json, max),
        Cmd::Plan {
            model,
            sizing,
            json,
            svg,
            check,
        } => plan::run(&model, &sizing, json, svg.as_deref(), check, max),
        Cmd::Emit {
            model,
            lang,
            output,
            with_model,
            json,
            kernels,
            sizing,
        } => emit::run(
            &model, lang, &output, with_model, json, kernels, &sizing, max,
        ),
        Cmd::Trace { model, sizing, .. } => trace::run(&model, &sizing, max),
        Cmd::Run {
            model,
            input,
            save_input,
            random,
            output,
            io,
            arena,
            scratch,
            op_data,
            no_overlap,
            poison,
            json,
            invocations,
        } => run::run(
            &model,
            run::RunArgs {
                input: input.as_deref(),
                save_input: save_input.as_deref(),
                random,
                output: &output,
                io,
                arena,
                scratch,
                op_data,
                overlap: !no_overlap,
                poison,
                json,
                invocations: invocations as usize,
            },
            max,
        ),
        Cmd::Survey { dir, json, sizing } => survey::run(&dir, &sizing, json, max),
        Cmd::Ops { json, markdown } => ops::run(json, markdown),
    }
}
