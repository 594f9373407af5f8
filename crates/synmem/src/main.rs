//! `synmem`: how big must my tensor arena be?
//!
//! ```text
//! synmem inspect MODEL [--json]
//! synmem plan MODEL [--arena N] [--scratch N] [--weights sram|flash] [--strategy bump|greedy|best]
//!                   [--io shared|ephemeral] [--scratch-table FILE] [--json] [--svg FILE] [--check]
//!                   [--no-overlap]
//! synmem emit MODEL --lang rust|c -o FILE [sizing options]
//! synmem emit MODEL --lang tflite -o OUT.tflite [--strategy …]   # TFLM's offline plan
//! synmem trace MODEL [sizing options]        # the allocation sequence, as JSON
//! synmem survey DIR [--strategy …]           # planner table over a directory of models
//! synmem run MODEL (--input IN.raw | --random SEED) --output OUT.raw [--io shared|plan]
//!                  [--arena N] [--scratch N] [--op-data ram|flash] [--no-overlap]
//!                  [--poison SEED] [--json]   # one inference on the arena
//! (plan, emit, trace, survey and run overlap outputs with dying inputs unless --no-overlap)
//! (every subcommand: [--max-file-bytes N], default 64 MiB)
//! ```
//!
//! Every subcommand reads model files of at most 64 MiB, and only regular files
//! (`--max-file-bytes N` raises the limit).
//!
//! Errors print one line (`synmem: error: …`) on stderr and exit non-zero: 1 for a bad model
//! or file (for `survey`: when any model failed; its row says why and the others are still
//! planned), 2 for bad options, 3 for `plan --check` when the model does not fit.
//!
//! The text, JSON and SVG forms all come from `synaptic-plan` (`render`, `Report`, `svg`); this
//! file only parses the command line and writes files.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use synaptic_plan::emit::{emit_with_program, Lang};
use synaptic_plan::render::{inspect_text, plan_text, InspectReport};
use synaptic_plan::{
    read_file_limited, reference, tflm, Analysis, ImportError, IoPlacement, Model, PlanOptions,
    SizingOptions, Strategy, WeightsPlacement, DEFAULT_MAX_FILE_BYTES,
};

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
    /// Size every region, plan the activations and check an arena configuration.
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
        /// Exit with status 3 if the model does not fit.
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
        /// Per-operator data for --lang rust|c: flash writes synaptic-run's compiled program
        /// beside the plan (a static u32 array, 4-byte aligned, for
        /// `Interpreter::with_program`); ram omits it (the program is compiled at load).
        /// Default: flash when synaptic-run supports the model, else the plan alone (with a
        /// note on stderr); an explicit flash fails for a model it does not support.
        #[arg(long, value_enum)]
        op_data: Option<OpDataArg>,
        #[command(flatten)]
        sizing: SizingArgs,
    },
    /// Print the model's full allocation sequence (load, shared, per-inference) as JSON.
    Trace {
        /// The .tflite model.
        model: PathBuf,
        #[command(flatten)]
        sizing: SizingArgs,
    },
    /// Run one inference on an arena of the planned size (synaptic-run's interpreter) and
    /// write the output bytes; print the arena figures.
    #[command(long_about = RUN_LONG_ABOUT)]
    Run {
        /// The .tflite model.
        model: PathBuf,
        /// Raw bytes of input tensor 0 in its dtype and shape, row-major (a model with several
        /// inputs: every input's bytes, concatenated in input order).
        #[arg(long, value_name = "IN.raw", required_unless_present = "random")]
        input: Option<PathBuf>,
        /// Seeded random input bytes instead of --input.
        #[arg(long, value_name = "SEED", conflicts_with = "input")]
        random: Option<u64>,
        /// Receives the raw bytes of every graph output, concatenated in output order.
        #[arg(long, value_name = "OUT.raw")]
        output: PathBuf,
        /// Where graph inputs/outputs live: the SHARED region, or inside the plan.
        #[arg(long, value_enum, default_value_t = RunIoArg::Shared)]
        io: RunIoArg,
        /// Arena size in bytes (default: exactly what the model needs, at least 4096).
        #[arg(long, value_parser = parse_size, allow_hyphen_values = true)]
        arena: Option<usize>,
        /// Scratch pool size in bytes (1024..=65536; the kernels need none).
        #[arg(long, default_value = "1024", value_parser = parse_size, allow_hyphen_values = true)]
        scratch: usize,
        /// Per-operator data: compiled at load into the arena (ram), or compiled here first and
        /// loaded from outside the arena (flash: what an emitted firmware gets).
        #[arg(long, value_enum, default_value_t = OpDataArg::Ram)]
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
    },
    /// Plan every .tflite in a directory; print act sum, live bound, planned, TFLM head,
    /// proven optimal and time per model.
    Survey {
        /// Directory of .tflite models (with the reference README.md, if any).
        dir: PathBuf,
        #[command(flatten)]
        sizing: SizingArgs,
    },
}

/// `synmem run --help`: the interface other tools parse (issue 11), fields included.
const RUN_LONG_ABOUT: &str = "\
Run one inference on an arena of the planned size (synaptic-run's interpreter, bit-exact with
TFLM) and write the output bytes; print the arena figures.

IN.raw holds the raw bytes of input tensor 0 in its dtype and shape, row-major (for a model
with several inputs, every input concatenated in input order); its length must be exactly
that. OUT.raw receives the raw bytes of every output tensor, concatenated in output order.

--json prints one object (byte counts in the core's block accounting: each tensor's
32-byte descriptor included, data rounded up to 16):
  model                    model name (file stem)
  io                       \"shared\" or \"plan\": where graph input/output lived
  op_data                  \"ram\" or \"flash\" (--op-data): where the per-operator data lived
  program_bytes            bytes of synaptic-run's compiled program (per-operator
                           parameters, requantization tables, tensor locations)
  program_flash_bytes      of which outside the arena (flash): program_bytes with
                           --op-data flash, else 0; in no RAM figure
  persistent_bytes         all persistent bytes = tables + locations + plan descriptors
  tables_bytes             per-operator data in the arena: the program compiled at load
                           (persistent; 0 with --op-data flash)
  locations_bytes          a separate tensor -> location map: 0 (the locations are part
                           of the program)
  plan_descriptors_bytes   the plan's descriptor table (persistent)
  planned_ephemeral_bytes  the plan's ephemeral region (activations)
  scratch_peak_bytes       scratch pool peak during the inference
  shared_bytes             SHARED region bytes of the graph I/O (0 with --io plan)
  descriptors_bytes        descriptor bytes included in the figures above
  total_bytes              persistent + planned ephemeral + scratch peak + shared
  overlap                  whether the plan overlaps outputs with dying inputs (false
                           with --no-overlap)
  overlap_pairs            the plan's declared overlaps, each run by its overlapped kernel
  poison                   the --poison seed, or null
  arena_bytes              the arena given to the core: persistent + planned ephemeral +
                           the scratch pool, at least 4096 (or --arena)
  scratch_pool_bytes       the arena's scratch pool (--scratch rounded up to 16)
  shared_region_bytes      the SHARED region registered (shared_bytes, at least the
                           core's 48-byte minimum)
  inputs, outputs          one object per graph tensor, in order: index, tensor, name,
                           dtype (i8, u8, i16, i32, f32, ...), shape, bytes, offset (in
                           IN.raw / OUT.raw); outputs also carry values: the elements decoded
                           from their dtype (i8, u8, i16, i32, f32; null for other dtypes)";

#[derive(Args, Debug)]
struct SizingArgs {
    /// Arena size in bytes (4096..=524288; suffix k for KiB).
    #[arg(long, default_value = "131072", value_parser = parse_size, allow_hyphen_values = true)]
    arena: usize,
    /// Scratch pool size in bytes (1024..=65536; suffix k for KiB).
    #[arg(long, default_value = "16384", value_parser = parse_size, allow_hyphen_values = true)]
    scratch: usize,
    /// Where weights live: copied to SRAM (persistent region) or left in flash.
    #[arg(long, value_enum, default_value_t = WeightsArg::Sram)]
    weights: WeightsArg,
    /// Planner strategy.
    #[arg(long, value_enum, default_value_t = StrategyArg::Best)]
    strategy: StrategyArg,
    /// Where graph inputs/outputs live: the shared IPC region, or the ephemeral region.
    #[arg(long, value_enum, default_value_t = IoArg::Shared)]
    io: IoArg,
    /// Per-operator kernel scratch: a file with one byte count per operator (execution order,
    /// separated by whitespace or commas). Each operator acquires its entry from the pool and
    /// the core frees scratch only at the reset, so the pool must hold the sum of the entries
    /// (each rounded up to 16; at least 1024, at most 65536), checked against the --scratch pool.
    #[arg(long, value_name = "FILE")]
    scratch_table: Option<PathBuf>,
    /// Plan without output/input overlaps (the plain plan, no declared overlap: for the C
    /// API's typed plans and runtimes that do not run overlapped operators). By default
    /// outputs overlap dying inputs as synaptic-run's access contracts allow, and the plan
    /// declares each pair (synaptic-run runs them overlapped).
    #[arg(long)]
    no_overlap: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum WeightsArg {
    Sram,
    Flash,
}
#[derive(ValueEnum, Clone, Copy, Debug)]
enum StrategyArg {
    Bump,
    Greedy,
    Best,
}
#[derive(ValueEnum, Clone, Copy, Debug)]
enum IoArg {
    Shared,
    Ephemeral,
}
#[derive(ValueEnum, Clone, Copy, Debug)]
enum RunIoArg {
    Shared,
    Plan,
}
/// Where the per-operator data (synaptic-run's compiled program) lives.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum OpDataArg {
    /// Compiled at load into the arena's persistent region (`Interpreter::new`).
    Ram,
    /// Compiled beforehand, outside the arena (flash on a device; `Interpreter::with_program`).
    Flash,
}
impl OpDataArg {
    fn name(self) -> &'static str {
        match self {
            OpDataArg::Ram => "ram",
            OpDataArg::Flash => "flash",
        }
    }
}
#[derive(ValueEnum, Clone, Copy, Debug)]
enum LangArg {
    Rust,
    C,
    Tflite,
}

/// A byte count: digits with an optional suffix k (KiB) or m (MiB).
fn parse_u64_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, mul) = if let Some(n) = t.strip_suffix(['k', 'K']) {
        (n, 1u64 << 10)
    } else if let Some(n) = t.strip_suffix(['m', 'M']) {
        (n, 1 << 20)
    } else {
        (t, 1)
    };
    num.parse::<u64>()
        .ok()
        .filter(|_| num.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|n| n.checked_mul(mul))
        .ok_or_else(|| {
            format!(
                "'{s}' is not a byte count: give a positive number of bytes, e.g. 131072 or 128k"
            )
        })
}

fn parse_size(s: &str) -> Result<usize, String> {
    parse_u64_size(s)
        .and_then(|n| usize::try_from(n).map_err(|_| format!("'{s}' is too large a byte count")))
}

fn read_scratch_table(path: &PathBuf, max_file_bytes: u64) -> Result<Vec<u64>, Failure> {
    let bytes = read_file_limited(path, max_file_bytes)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Failure(format!("{}: not a text file", path.display()), 2))?;
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .map(|w| {
            w.parse::<u64>().map_err(|_| {
                Failure(
                    format!(
                        "{}: '{}' is not a byte count",
                        path.display(),
                        synaptic_plan::render::printable(w)
                    ),
                    2,
                )
            })
        })
        .collect()
}

impl SizingArgs {
    fn options(&self, max_file_bytes: u64) -> Result<SizingOptions, Failure> {
        let scratch_per_op = match &self.scratch_table {
            Some(p) => Some(read_scratch_table(p, max_file_bytes)?),
            None => None,
        };
        Ok(SizingOptions {
            arena_bytes: self.arena,
            scratch_bytes: self.scratch,
            scratch_per_op,
            weights: match self.weights {
                WeightsArg::Sram => WeightsPlacement::Sram,
                WeightsArg::Flash => WeightsPlacement::Flash,
            },
            io: match self.io {
                IoArg::Shared => IoPlacement::Shared,
                IoArg::Ephemeral => IoPlacement::Ephemeral,
            },
            plan: PlanOptions {
                strategy: match self.strategy {
                    StrategyArg::Bump => Strategy::Bump,
                    StrategyArg::Greedy => Strategy::Greedy,
                    StrategyArg::Best => Strategy::Best,
                },
                ..PlanOptions::default()
            },
            overlap: !self.no_overlap,
        })
    }
}

/// Imports `path` and analyses it (the scratch table's length is checked by `Analysis::new`),
/// with overlaps unless `--no-overlap`.
fn analyse(path: &PathBuf, sizing: &SizingArgs, max_file_bytes: u64) -> Result<Analysis, Failure> {
    let options = sizing.options(max_file_bytes)?;
    let model = Model::from_file_limited(path, max_file_bytes)?;
    Ok(Analysis::new(model, &options)?)
}

/// A failure: message and exit status.
struct Failure(String, u8);

impl From<ImportError> for Failure {
    fn from(e: ImportError) -> Self {
        match e {
            ImportError::Config { .. } | ImportError::ScratchTable { .. } => {
                Failure(e.to_string(), 2)
            }
            ImportError::FileTooLarge { .. } => {
                Failure(format!("{e} (raise it with --max-file-bytes)"), 1)
            }
            _ => Failure(e.to_string(), 1),
        }
    }
}

fn one_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("For more information"))
        .collect::<Vec<_>>()
        .join(" ")
        .trim_start_matches("error: ")
        .to_string()
}

fn main() -> ExitCode {
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
            eprintln!(
                "synmem: error: {} (see synmem --help)",
                one_line(&e.to_string())
            );
            return ExitCode::from(2);
        }
    };
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(Failure(msg, code)) => {
            eprintln!("synmem: error: {}", one_line(&msg));
            ExitCode::from(code)
        }
    }
}

fn write_file(path: &PathBuf, text: &str) -> Result<(), Failure> {
    std::fs::write(path, text)
        .map_err(|e| Failure(format!("cannot write {}: {e}", path.display()), 1))
}

fn to_json<T: serde::Serialize>(v: &T) -> Result<String, Failure> {
    serde_json::to_string_pretty(v).map_err(|e| Failure(format!("JSON: {e}"), 1))
}

/// `emit --lang tflite`: the model with TFLM's offline memory plan (`synaptic_plan::tflm`).
fn emit_tflite(
    model: &PathBuf,
    output: &PathBuf,
    sizing: &SizingArgs,
    max: u64,
) -> Result<u8, Failure> {
    let bytes = read_file_limited(model, max)?;
    let m = Model::from_bytes(&bytes)?;
    let options = sizing.options(max)?;
    let plan = tflm::plan_for_tflm(&m, &options.plan, options.scratch_per_op.as_deref())?;
    let out = tflm::with_offline_plan(&bytes, &plan)?;
    std::fs::write(output, &out)
        .map_err(|e| Failure(format!("cannot write {}: {e}", output.display()), 1))?;
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

fn run(cli: Cli) -> Result<u8, Failure> {
    let max = cli.max_file_bytes;
    match cli.cmd {
        Cmd::Inspect { model, json } => {
            let bytes = read_file_limited(&model, max)?;
            let m = Model::from_file_limited(&model, max)?;
            let offline = match tflm::read_offline_plan(&bytes)? {
                Some(p) => {
                    let check = tflm::check_offline_plan(&m, &p.offsets)?;
                    Some((p, check))
                }
                None => None,
            };
            if json {
                let mut v = serde_json::to_value(InspectReport::new(&m))
                    .map_err(|e| Failure(format!("JSON: {e}"), 1))?;
                if let (Some((p, check)), Some(obj)) = (&offline, v.as_object_mut()) {
                    obj.insert(
                        "offline_plan".into(),
                        serde_json::json!({ "plan": p, "check": check }),
                    );
                }
                println!("{}", to_json(&v)?);
            } else {
                print!("{}", inspect_text(&m));
                if let Some((p, check)) = &offline {
                    print!("{}", tflm::check_text(p, check));
                }
            }
            match &offline {
                Some((_, check)) if !check.conflicts.is_empty() => Err(Failure(
                    format!(
                        "{}: the offline memory plan overlaps {} pair(s) of tensors that TFLM keeps live together{}",
                        model.display(),
                        check.conflicts.len(),
                        if check.incomplete { " (search stopped early)" } else { "" }
                    ),
                    1,
                )),
                _ => Ok(0),
            }
        }
        Cmd::Plan {
            model,
            sizing,
            json,
            svg,
            check,
        } => {
            let a = analyse(&model, &sizing, max)?;
            if let Some(path) = &svg {
                write_file(path, &synaptic_plan::svg::render(&a))?;
            }
            if json {
                println!("{}", to_json(&a.report)?);
            } else {
                print!("{}", plan_text(&a));
                if let Some(path) = &svg {
                    println!("plan drawn to {}", path.display());
                }
            }
            Ok(if check && !a.report.fits { 3 } else { 0 })
        }
        Cmd::Emit {
            model,
            lang,
            output,
            op_data,
            sizing,
        } => {
            let lang = match lang {
                LangArg::Rust => Lang::Rust,
                LangArg::C => Lang::C,
                LangArg::Tflite => return emit_tflite(&model, &output, &sizing, max),
            };
            let a = analyse(&model, &sizing, max)?;
            let program = match op_data {
                Some(OpDataArg::Ram) => None,
                _ => match compile_program(&model, &a, max) {
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
            write_file(&output, &emit_with_program(&a, lang, program.as_deref()))?;
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
        Cmd::Trace { model, sizing } => {
            let seq = synaptic_plan::sequence_of(&analyse(&model, &sizing, max)?)?;
            println!("{}", to_json(&seq)?);
            Ok(0)
        }
        Cmd::Run {
            model,
            input,
            random,
            output,
            io,
            arena,
            scratch,
            op_data,
            no_overlap,
            poison,
            json,
        } => run_model(
            &model,
            RunArgs {
                input: input.as_ref(),
                random,
                output: &output,
                io,
                arena,
                scratch,
                op_data,
                overlap: !no_overlap,
                poison,
                json,
            },
            max,
        ),
        Cmd::Survey { dir, sizing } => {
            if sizing.scratch_table.is_some() {
                return Err(Failure("survey takes no --scratch-table".into(), 2));
            }
            let rows = reference::survey_limited(&dir, &sizing.options(max)?, max)?;
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
    }
}

/// synaptic-run's compiled program of `path` for the analysis's I/O placement.
fn compile_program(path: &PathBuf, a: &Analysis, max: u64) -> Result<Vec<u32>, Failure> {
    use synaptic_run::{program, IoPlacement as RunIo};
    let bytes = read_file_limited(path, max)?;
    let io = match a.options.io {
        IoPlacement::Shared => RunIo::Shared,
        IoPlacement::Ephemeral => RunIo::Plan,
    };
    let err = |e: synaptic_run::LoadError| Failure(format!("{}: {e}", path.display()), 1);
    let mut w = vec![0u32; program::compiled_len(&bytes, io).map_err(err)?];
    program::compile(&bytes, io, &mut w).map_err(err)?;
    Ok(w)
}

/// The largest arena the core accepts; model runs slice theirs from a buffer of this size.
const RUN_MAX_ARENA: usize = synaptic_mem::MAX_ARENA_SIZE;

/// The options of `synmem run`.
struct RunArgs<'x> {
    input: Option<&'x PathBuf>,
    random: Option<u64>,
    output: &'x PathBuf,
    io: RunIoArg,
    arena: Option<usize>,
    scratch: usize,
    op_data: OpDataArg,
    overlap: bool,
    poison: Option<u64>,
    json: bool,
}

/// `n` bytes of splitmix64 from `seed` (`--random`, `--poison`).
fn seeded_bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) as u8
        })
        .collect()
}

/// `synmem run`: plan with synaptic-plan, load and run with synaptic-run.
fn run_model(path: &PathBuf, args: RunArgs<'_>, max: u64) -> Result<u8, Failure> {
    use synaptic_mem::{Arena, ArenaBuffer};
    use synaptic_run::{Interpreter, IoPlacement as RunIo, RunPlan};
    let RunArgs {
        input,
        random,
        output,
        io,
        arena,
        scratch,
        op_data,
        overlap,
        poison,
        json,
    } = args;
    let bytes = read_file_limited(path, max)?;
    let mut model = Model::from_bytes(&bytes)?;
    if let Some(stem) = path.file_stem() {
        model.name = stem.to_string_lossy().into_owned();
    }
    let (plan_io, run_io) = match io {
        RunIoArg::Shared => (IoPlacement::Shared, RunIo::Shared),
        RunIoArg::Plan => (IoPlacement::Ephemeral, RunIo::Plan),
    };
    let a = Analysis::new(
        model,
        &SizingOptions {
            io: plan_io,
            overlap,
            ..SizingOptions::default()
        },
    )?;
    let plan = RunPlan::overlapped(a.ephemeral_plan.core_plan(), &a.ephemeral_plan.overlaps);
    let config = |arena: usize| {
        synaptic_mem::ArenaConfig {
            arena_size: arena,
            scratch_size: scratch,
        }
        .layout()
        .map_err(|e| Failure(format!("bad arena configuration: {e}"), 2))
    };
    config(RUN_MAX_ARENA)?;
    let load_err = |e: synaptic_run::LoadError| Failure(format!("{}: {e}", path.display()), 1);
    // --op-data flash: the program compiled here, as `synmem emit` writes it for firmware.
    let program = match op_data {
        OpDataArg::Flash => {
            let mut w =
                vec![0u32; synaptic_run::program::compiled_len(&bytes, run_io).map_err(load_err)?];
            synaptic_run::program::compile(&bytes, run_io, &mut w).map_err(load_err)?;
            Some(w)
        }
        OpDataArg::Ram => None,
    };
    fn load<'m, 'a, 'p>(
        bytes: &'m [u8],
        program: Option<&'m [u32]>,
        loader: synaptic_mem::Loader<'a>,
        plan: RunPlan<'p>,
        io: RunIo,
    ) -> Result<Interpreter<'m, 'a, 'p>, synaptic_run::LoadError> {
        match program {
            Some(w) => Interpreter::with_program(bytes, w, loader, plan, io),
            None => Interpreter::new(bytes, loader, plan, io),
        }
    }
    let mut buf = Box::new(ArenaBuffer::<RUN_MAX_ARENA>::new());
    let mut shared = vec![0u8; 1 << 20];
    // The figures, from a load on the largest arena; then the run on the planned size.
    let need = {
        let mut arena = Arena::with_scratch(buf.as_mut_slice(), scratch)
            .map_err(|e| Failure(format!("bad arena configuration: {e}"), 2))?;
        arena
            .set_shared_region(&mut shared)
            .map_err(|e| Failure(e.to_string(), 1))?;
        let (loader, _) = arena.split();
        load(&bytes, program.as_deref(), loader, plan, run_io)
            .map_err(load_err)?
            .memory()
    };
    let pool = config(RUN_MAX_ARENA)?.scratch_capacity;
    let size = arena.unwrap_or(need.kconfig_arena_bytes(pool));
    config(size)?;
    let shared_size = need.shared.max(synaptic_mem::config::MIN_SHARED_SIZE);
    if let Some(seed) = poison {
        // The whole arena and shared region, before the arena is made and the model loaded.
        let junk = seeded_bytes(seed, size + shared_size);
        buf.as_mut_slice()[..size].copy_from_slice(&junk[..size]);
        shared[..shared_size].copy_from_slice(&junk[size..]);
    }
    let mut arena = Arena::with_scratch(&mut buf.as_mut_slice()[..size], scratch)
        .map_err(|e| Failure(format!("bad arena configuration: {e}"), 2))?;
    arena
        .set_shared_region(&mut shared[..shared_size])
        .map_err(|e| Failure(e.to_string(), 1))?;
    let (loader, mut runner) = arena.split();
    let mut net = load(&bytes, program.as_deref(), loader, plan, run_io).map_err(load_err)?;
    let in_bytes = match (input, random) {
        (Some(p), _) => read_file_limited(p, max)?,
        (None, Some(seed)) => seeded_bytes(seed, net.input_bytes()),
        (None, None) => return Err(Failure("give --input or --random".into(), 2)),
    };
    let inputs = io_tensors(&a.model, &a.model.inputs);
    if in_bytes.len() != net.input_bytes() {
        let source = input.map_or("random input".into(), |p| p.display().to_string());
        let Some(t) = inputs.first() else {
            return Err(Failure(
                format!(
                    "{source}: IN.raw holds {} bytes; the model has no graph inputs (give an \
                     empty file)",
                    in_bytes.len()
                ),
                1,
            ));
        };
        return Err(Failure(
            format!(
                "{source}: IN.raw holds {} bytes; input tensor 0 ({} {}) takes {}{}",
                in_bytes.len(),
                t.dtype.short_name(),
                t.shape_text(),
                t.bytes,
                if inputs.len() > 1 {
                    format!(
                        " (all {} inputs, concatenated: {})",
                        inputs.len(),
                        net.input_bytes()
                    )
                } else {
                    String::new()
                }
            ),
            1,
        ));
    }
    let mut out = vec![0u8; net.output_bytes()];
    net.invoke(&mut runner, &in_bytes, &mut out)
        .map_err(|e| Failure(format!("{}: {e}", path.display()), 1))?;
    std::fs::write(output, &out)
        .map_err(|e| Failure(format!("cannot write {}: {e}", output.display()), 1))?;
    let m = net.memory();
    let stats = runner.stats();
    let ram = m.total();
    if json {
        let outputs: Vec<serde_json::Value> = io_tensors(&a.model, &a.model.outputs)
            .into_iter()
            .map(|t| {
                let values = t.values(out.get(t.offset..t.offset + t.bytes).unwrap_or(&[]));
                let mut v = t.json();
                v["values"] = values;
                v
            })
            .collect();
        let v = serde_json::json!({
            "model": a.report.model,
            "io": match io { RunIoArg::Shared => "shared", RunIoArg::Plan => "plan" },
            "op_data": op_data.name(),
            "program_bytes": m.program_bytes,
            "program_flash_bytes": m.program_flash,
            "persistent_bytes": m.persistent,
            "tables_bytes": m.tables,
            "locations_bytes": m.locations,
            "plan_descriptors_bytes": m.plan_descriptors,
            "planned_ephemeral_bytes": m.planned,
            "scratch_peak_bytes": stats.scratch_peak,
            "shared_bytes": m.shared,
            "descriptors_bytes": m.descriptors,
            "total_bytes": ram,
            "overlap": overlap,
            "overlap_pairs": a.ephemeral_plan.overlaps.len(),
            "poison": poison,
            "arena_bytes": size,
            "scratch_pool_bytes": pool,
            "shared_region_bytes": shared_size,
            "inputs": inputs.iter().map(IoTensor::json).collect::<Vec<_>>(),
            "outputs": outputs,
        });
        println!("{}", to_json(&v)?);
    } else {
        println!(
            "{}: {} input bytes -> {} output bytes written to {} (I/O in {})",
            a.report.model,
            in_bytes.len(),
            out.len(),
            output.display(),
            match io {
                RunIoArg::Shared => "the shared region",
                RunIoArg::Plan => "the plan",
            }
        );
        println!("syn mem run");
        println!("region                     bytes");
        println!("persistent          {:>13}", m.persistent);
        println!("  per-op data       {:>13}", m.tables);
        println!("  tensor locations  {:>13}", m.locations);
        println!("  plan descriptors  {:>13}", m.plan_descriptors);
        println!("planned activations {:>13}", m.planned);
        println!("scratch (peak)      {:>13}", stats.scratch_peak);
        println!("shared              {:>13}", m.shared);
        println!("total RAM           {:>13}", ram);
        println!("arena {size} B (scratch pool {pool} B), shared region {shared_size} B");
        println!(
            "program {} B ({})",
            m.program_bytes,
            match op_data {
                OpDataArg::Ram => "in the persistent region",
                OpDataArg::Flash => "outside the arena: flash",
            }
        );
        println!("{stats}");
    }
    Ok(0)
}

/// A graph input or output as `synmem run` reports it.
struct IoTensor {
    index: usize,
    tensor: usize,
    name: String,
    dtype: synaptic_plan::TensorType,
    shape: Vec<u32>,
    bytes: usize,
    /// Byte offset in IN.raw / OUT.raw.
    offset: usize,
}

/// The tensors `ids` (graph inputs or outputs, in order) with their offsets in the
/// concatenated bytes.
fn io_tensors(model: &Model, ids: &[usize]) -> Vec<IoTensor> {
    let mut offset = 0;
    ids.iter()
        .enumerate()
        .map(|(index, &t)| {
            let info = &model.tensors[t];
            let bytes = info.bytes as usize;
            let r = IoTensor {
                index,
                tensor: t,
                name: info.name.clone(),
                dtype: info.dtype,
                shape: info.shape.clone(),
                bytes,
                offset,
            };
            offset += bytes;
            r
        })
        .collect()
}

impl IoTensor {
    fn shape_text(&self) -> String {
        let dims: Vec<String> = self.shape.iter().map(u32::to_string).collect();
        if dims.is_empty() {
            "scalar".into()
        } else {
            dims.join("x")
        }
    }

    fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "index": self.index,
            "tensor": self.tensor,
            "name": self.name,
            "dtype": self.dtype.short_name(),
            "shape": self.shape,
            "bytes": self.bytes,
            "offset": self.offset,
        })
    }

    /// The elements of `raw` (this tensor's bytes, little-endian) as JSON numbers; `null` for
    /// dtypes other than i8, u8, i16, i32 and f32 (a non-finite f32 is `null` too).
    fn values(&self, raw: &[u8]) -> serde_json::Value {
        use serde_json::Value;
        use synaptic_plan::TensorType as T;
        let v: Vec<Value> = match self.dtype {
            T::Int8 => raw.iter().map(|&b| (b as i8).into()).collect(),
            T::UInt8 => raw.iter().map(|&b| b.into()).collect(),
            T::Int16 => raw
                .chunks_exact(2)
                .map(|c| i16::from_le_bytes([c[0], c[1]]).into())
                .collect(),
            T::Int32 => raw
                .chunks_exact(4)
                .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]).into())
                .collect(),
            T::Float32 => raw
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]).into())
                .collect(),
            _ => return Value::Null,
        };
        Value::Array(v)
    }
}
