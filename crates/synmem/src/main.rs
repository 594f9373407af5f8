//! `synmem`: how big must my tensor arena be?
//!
//! ```text
//! synmem inspect MODEL [--json]
//! synmem plan MODEL [--arena N] [--scratch N] [--weights sram|flash] [--strategy bump|greedy|best]
//!                   [--io shared|ephemeral] [--json] [--svg FILE] [--check]
//! synmem emit MODEL --lang rust|c -o FILE [sizing options]
//! synmem trace MODEL [sizing options]        # the allocation sequence, as JSON
//! synmem survey DIR [--strategy …]           # planner table over a directory of models
//! ```
//!
//! Errors print one line (`synmem: error: …`) on stderr and exit non-zero: 1 for a bad model
//! or file, 2 for bad options, 3 for `plan --check` when the model does not fit.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use synaptic_plan::emit::{emit, Lang};
use synaptic_plan::{
    reference, Analysis, ImportError, IoPlacement, Model, PlanOptions, SizingOptions, Strategy,
    TensorKind, WeightsPlacement,
};

/// Size, plan and emit tensor-arena memory for TensorFlow Lite models (SynapticOS syn_mem).
#[derive(Parser, Debug)]
#[command(name = "synmem", version, about)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Show a model's tensors, operators and activation lifetimes.
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
    /// Write the plan as a Rust const table or a C header for firmware.
    Emit {
        /// The .tflite model.
        model: PathBuf,
        /// Output language.
        #[arg(long, value_enum)]
        lang: LangArg,
        /// Output file.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: PathBuf,
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
    /// Plan every .tflite in a directory; print act sum, live bound, planned, TFLM head,
    /// proven optimal and time per model.
    Survey {
        /// Directory of .tflite models (with the reference README.md, if any).
        dir: PathBuf,
        #[command(flatten)]
        sizing: SizingArgs,
    },
}

#[derive(Args, Debug)]
struct SizingArgs {
    /// Arena size in bytes (4096..=524288; suffix k for KiB).
    #[arg(long, default_value = "131072", value_parser = parse_size)]
    arena: usize,
    /// Scratch pool size in bytes (1024..=65536; suffix k for KiB).
    #[arg(long, default_value = "16384", value_parser = parse_size)]
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
    /// separated by whitespace or commas). The scratch need is then its largest entry, checked
    /// against the --scratch pool.
    #[arg(long, value_name = "FILE")]
    scratch_table: Option<PathBuf>,
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
enum LangArg {
    Rust,
    C,
}

fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let (num, mul) = match t.strip_suffix(['k', 'K']) {
        Some(n) => (n, 1024usize),
        None => (t, 1),
    };
    num.parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(mul))
        .ok_or_else(|| format!("'{s}' is not a byte count"))
}

fn read_scratch_table(path: &PathBuf) -> Result<Vec<u64>, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure(format!("cannot read {}: {e}", path.display()), 1))?;
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .map(|w| {
            w.parse::<u64>()
                .map_err(|_| Failure(format!("{}: '{w}' is not a byte count", path.display()), 2))
        })
        .collect()
}

impl SizingArgs {
    fn options(&self) -> Result<SizingOptions, Failure> {
        let scratch_per_op = match &self.scratch_table {
            Some(p) => Some(read_scratch_table(p)?),
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
        })
    }
}

/// Imports `path` and analyses it; checks a scratch table's length against the operators.
fn analyse(path: &PathBuf, sizing: &SizingArgs) -> Result<Analysis, Failure> {
    let options = sizing.options()?;
    let model = Model::from_file(path)?;
    if let Some(t) = &options.scratch_per_op {
        if t.len() != model.operators.len() {
            return Err(Failure(
                format!(
                    "scratch table has {} entries, the model has {} operators",
                    t.len(),
                    model.operators.len()
                ),
                2,
            ));
        }
    }
    Ok(Analysis::new(model, &options)?)
}

/// A failure: message and exit status.
struct Failure(String, u8);

impl From<ImportError> for Failure {
    fn from(e: ImportError) -> Self {
        let code = if matches!(e, ImportError::Config { .. }) {
            2
        } else {
            1
        };
        Failure(e.to_string(), code)
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

fn run(cli: Cli) -> Result<u8, Failure> {
    match cli.cmd {
        Cmd::Inspect { model, json } => {
            let m = Model::from_file(&model)?;
            if json {
                #[derive(serde::Serialize)]
                struct Inspect<'a> {
                    model: &'a Model,
                    lifetimes: Vec<synaptic_plan::Lifetime>,
                }
                let lifetimes = synaptic_plan::lifetimes(&m);
                println!(
                    "{}",
                    to_json(&Inspect {
                        model: &m,
                        lifetimes
                    })?
                );
            } else {
                print!("{}", inspect_text(&m));
            }
            Ok(0)
        }
        Cmd::Plan {
            model,
            sizing,
            json,
            svg,
            check,
        } => {
            let a = analyse(&model, &sizing)?;
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
            sizing,
        } => {
            let a = analyse(&model, &sizing)?;
            let lang = match lang {
                LangArg::Rust => Lang::Rust,
                LangArg::C => Lang::C,
            };
            write_file(&output, &emit(&a, lang))?;
            eprintln!(
                "wrote {} slots ({} B ephemeral region) to {}",
                a.ephemeral_plan.items.len(),
                a.ephemeral_plan.region_size,
                output.display()
            );
            Ok(0)
        }
        Cmd::Trace { model, sizing } => {
            let seq = synaptic_plan::sequence_of(&analyse(&model, &sizing)?)?;
            println!("{}", to_json(&seq)?);
            Ok(0)
        }
        Cmd::Survey { dir, sizing } => {
            if sizing.scratch_table.is_some() {
                return Err(Failure("survey takes no --scratch-table".into(), 2));
            }
            let rows = reference::survey(&dir, &sizing.options()?)?;
            if rows.is_empty() {
                return Err(Failure(
                    format!("no .tflite models in {}", dir.display()),
                    1,
                ));
            }
            print!("{}", reference::survey_table(&rows));
            Ok(0)
        }
    }
}

fn kind_name(k: TensorKind) -> &'static str {
    match k {
        TensorKind::Constant { .. } => "constant",
        TensorKind::Variable => "variable",
        TensorKind::Activation => "activation",
        TensorKind::Unused => "unused",
    }
}

fn inspect_text(m: &Model) -> String {
    use std::fmt::Write;
    let lts = synaptic_plan::lifetimes(m);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "model {}: {} tensors, {} operators, {} subgraph(s); weights {} B, activations {} ({} B)",
        m.name,
        m.tensors.len(),
        m.operators.len(),
        m.subgraphs,
        m.weights_bytes,
        lts.len(),
        m.activation_sum_bytes()
    );
    let _ = writeln!(s, "inputs {:?}, outputs {:?}\n", m.inputs, m.outputs);
    let _ = writeln!(
        s,
        "{:>5}  {:<10} {:<5} {:<16} {:>9}  {:<9}  name",
        "index", "kind", "dtype", "shape", "bytes", "scopes"
    );
    for t in &m.tensors {
        let scopes = lts
            .iter()
            .find(|l| l.tensor == t.index)
            .map_or(String::new(), |l| {
                format!("{}..={}", l.first_scope, l.last_scope)
            });
        let mut kind = kind_name(t.kind).to_string();
        if t.is_input {
            kind.push_str(" in");
        }
        if t.is_output {
            kind.push_str(" out");
        }
        let name: String = t.name.chars().take(60).collect();
        let _ = writeln!(
            s,
            "{:>5}  {:<10} {:<5} {:<16} {:>9}  {:<9}  {}",
            t.index,
            kind,
            t.dtype.short_name(),
            if t.shape.is_empty() {
                "scalar".into()
            } else {
                t.shape_string()
            },
            t.bytes,
            scopes,
            name
        );
    }
    let _ = writeln!(
        s,
        "\n{:>5}  {:<30} {:<24} outputs",
        "op", "opcode", "inputs"
    );
    for op in &m.operators {
        let _ = writeln!(
            s,
            "{:>5}  {:<30} {:<24} {:?}",
            op.index,
            op.opcode,
            format!("{:?}", op.inputs),
            op.outputs
        );
    }
    s
}

fn plan_text(a: &Analysis) -> String {
    use std::fmt::Write;
    let r = &a.report;
    let p = &r.persistent;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "model {}: {} tensors, {} operators, {} activations; strategy {}, weights in {}, inputs/outputs in {}\n",
        r.model,
        r.tensors,
        r.operators,
        r.activations,
        r.strategy.name(),
        r.weights_in.name(),
        r.io_in.name()
    );
    let _ = writeln!(s, "{:<12} {:>10}  contents", "region", "bytes");
    let _ = writeln!(
        s,
        "{:<12} {:>10}  weights {} B data + {} B descriptors, variables {} B, activation descriptors {} B",
        "persistent", r.persistent_bytes, p.weights_data, p.weights_descriptors, p.variables, p.activation_descriptors
    );
    let eph_note = if r.strategy == Strategy::Bump {
        "plain bump: descriptor + data per activation".to_string()
    } else {
        format!(
            "planned (data only; bump would need {} B; bound {} B)",
            r.bump_ephemeral_bytes, r.ephemeral_lower_bound_bytes
        )
    };
    let _ = writeln!(
        s,
        "{:<12} {:>10}  {}",
        "ephemeral", r.ephemeral_bytes, eph_note
    );
    let _ = writeln!(
        s,
        "{:<12} {:>10}  kernel scratch pool",
        "scratch", r.scratch_bytes
    );
    let _ = writeln!(
        s,
        "{:<12} {:>10}  = persistent + ephemeral + scratch",
        "arena", r.arena_bytes_required
    );
    let _ = writeln!(
        s,
        "{:<12} {:>10}  graph inputs/outputs (separate IPC region, not in the arena)\n",
        "shared", r.shared_bytes
    );
    let _ = writeln!(
        s,
        "activations: sum {} B, live lower bound {} B, planned {} B (ratio {:.3}, {})",
        r.activation_sum_bytes,
        r.live_lower_bound_bytes,
        r.planned_activation_bytes,
        r.ratio_to_lower_bound,
        if r.proven_optimal {
            "proven optimal"
        } else {
            "not proven optimal"
        }
    );
    let _ = writeln!(
        s,
        "configuration: arena {} B, scratch pool {} B, tensor space {} B",
        r.arena_bytes, r.scratch_pool_bytes, r.tensor_space_bytes
    );
    let _ = writeln!(s, "verdict: {}", a.verdict());
    s
}
