//! What the subcommands share: the failure type (message and exit status) and its mapping from
//! import errors, the sizing options from the command line (with the scratch table read under
//! the file size limit), the analysis of a model file, file writing, JSON printing and
//! synaptic-run's compiled program.

use crate::args::{IoArg, OpDataArg, SizingArgs, StrategyArg, WeightsArg};
use std::path::Path;
use synaptic_plan::render::printable;
use synaptic_plan::{
    read_file_limited, Analysis, ImportError, IoPlacement, Model, PlanOptions, SizingOptions,
    Strategy, WeightsPlacement,
};

/// A failure: message and exit status.
pub(crate) struct Failure(pub(crate) String, pub(crate) u8);

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

/// The per-operator scratch table at `path` (`--scratch-table`): byte counts separated by
/// whitespace or commas.
fn read_scratch_table(path: &Path, max_file_bytes: u64) -> Result<Vec<u64>, Failure> {
    let bytes = read_file_limited(path, max_file_bytes)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Failure(format!("{}: not a text file", path.display()), 2))?;
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .map(|w| {
            w.parse::<u64>().map_err(|_| {
                Failure(
                    format!("{}: '{}' is not a byte count", path.display(), printable(w)),
                    2,
                )
            })
        })
        .collect()
}

impl SizingArgs {
    /// Whether the command line names a bare-allocator configuration (`--arena`, `--scratch`,
    /// `--weights` or `--scratch-table`): `plan --check` then checks it as well as the runtime.
    pub(crate) fn names_allocator(&self) -> bool {
        self.arena.is_some()
            || self.scratch.is_some()
            || self.weights.is_some()
            || self.scratch_table.is_some()
    }

    /// The sizing options these arguments give (reading the scratch table, if any).
    pub(crate) fn options(&self, max_file_bytes: u64) -> Result<SizingOptions, Failure> {
        let scratch_per_op = match &self.scratch_table {
            Some(p) => Some(read_scratch_table(p, max_file_bytes)?),
            None => None,
        };
        Ok(SizingOptions {
            arena_bytes: self.arena.unwrap_or(synaptic_mem::DEFAULT_ARENA_SIZE),
            scratch_bytes: self.scratch.unwrap_or(synaptic_mem::DEFAULT_SCRATCH_SIZE),
            scratch_per_op,
            weights: match self.weights {
                None | Some(WeightsArg::Sram) => WeightsPlacement::Sram,
                Some(WeightsArg::Flash) => WeightsPlacement::Flash,
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
            program_in_ram_bytes: None,
        })
    }
}

/// Imports `path` and analyses it (the scratch table's length is checked by `Analysis::new`),
/// with overlaps unless `--no-overlap`, and asks synaptic-run whether it runs the model (its
/// program compiled for the I/O placement): with `--op-data ram` the program's size is part of
/// the RAM figure; `report.ram.supported` / `unsupported` say what the runtime said.
pub(crate) fn analyse(
    path: &Path,
    sizing: &SizingArgs,
    max_file_bytes: u64,
) -> Result<Analysis, Failure> {
    Ok(analyse_with_program(path, sizing, max_file_bytes)?.0)
}

/// [`analyse`], with synaptic-run's compiled program (or why it cannot be compiled).
pub(crate) fn analyse_with_program(
    path: &Path,
    sizing: &SizingArgs,
    max_file_bytes: u64,
) -> Result<(Analysis, Result<Vec<u32>, Failure>), Failure> {
    let options = sizing.options(max_file_bytes)?;
    let bytes = read_file_limited(path, max_file_bytes)?;
    let mut model = Model::from_bytes(&bytes)?;
    if let Some(stem) = path.file_stem() {
        model.name = stem.to_string_lossy().into_owned();
    }
    let run_io = match options.io {
        IoPlacement::Shared => synaptic_run::IoPlacement::Shared,
        IoPlacement::Ephemeral => synaptic_run::IoPlacement::Plan,
    };
    let program = compile_program(path, &bytes, run_io, sizing.isa.into());
    let said = match &program {
        Ok(w) => Ok(w.len()),
        Err(e) => Err(e
            .0
            .strip_prefix(&format!("{}: ", path.display()))
            .unwrap_or(&e.0)
            .to_string()),
    };
    let in_ram = sizing.op_data == Some(OpDataArg::Ram);
    let a = Analysis::for_runtime(model, &options, in_ram, said)?;
    Ok((a, program))
}

/// The failure of a model whose arena is over the core's limit ([`synaptic_plan::RuntimeNeed`]
/// `fits` false): the need, the limit and what would help, on one line.
pub(crate) fn too_big(path: &Path, need: &synaptic_plan::RuntimeNeed) -> Failure {
    Failure(need.over_limit(&path.display().to_string()), 1)
}

/// Writes `contents` to `path` (a failure names the file).
pub(crate) fn write_file(path: &Path, contents: impl AsRef<[u8]>) -> Result<(), Failure> {
    std::fs::write(path, contents)
        .map_err(|e| Failure(format!("cannot write {}: {e}", path.display()), 1))
}

/// A JSON error as a failure.
fn json_failure(e: serde_json::Error) -> Failure {
    Failure(format!("JSON: {e}"), 1)
}

/// `v` as a JSON value (to add fields to before printing).
pub(crate) fn to_json_value<T: serde::Serialize>(v: &T) -> Result<serde_json::Value, Failure> {
    serde_json::to_value(v).map_err(json_failure)
}

/// Prints `v` as pretty JSON, one line break at the end.
pub(crate) fn print_json<T: serde::Serialize>(v: &T) -> Result<(), Failure> {
    let text = serde_json::to_string_pretty(v).map_err(json_failure)?;
    println!("{text}");
    Ok(())
}

/// synaptic-run's compiled program of the model `bytes` (read from `path`) for the I/O
/// placement `io` and the device's kernels `isa`: what `emit` writes beside the plan and
/// `run --op-data flash` loads.
pub(crate) fn compile_program(
    path: &Path,
    bytes: &[u8],
    io: synaptic_run::IoPlacement,
    isa: synaptic_run::Isa,
) -> Result<Vec<u32>, Failure> {
    use synaptic_run::program;
    let err = |e: synaptic_run::LoadError| {
        Failure(
            format!(
                "{}: {}",
                path.display(),
                synaptic_plan::runtime_refusal(bytes, &e)
            ),
            1,
        )
    };
    let mut w = vec![0u32; program::compiled_len_for(bytes, io, isa).map_err(err)?];
    program::compile_for(bytes, io, isa, &mut w).map_err(err)?;
    Ok(w)
}
