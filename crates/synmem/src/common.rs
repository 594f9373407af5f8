//! What the subcommands share: the failure type (message and exit status) and its mapping from
//! import errors, the sizing options from the command line (with the scratch table read under
//! the file size limit), the analysis of a model file, file writing, JSON printing and
//! synaptic-run's compiled program.

use crate::args::{IoArg, SizingArgs, StrategyArg, WeightsArg};
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
    /// The sizing options these arguments give (reading the scratch table, if any).
    pub(crate) fn options(&self, max_file_bytes: u64) -> Result<SizingOptions, Failure> {
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
pub(crate) fn analyse(
    path: &Path,
    sizing: &SizingArgs,
    max_file_bytes: u64,
) -> Result<Analysis, Failure> {
    let options = sizing.options(max_file_bytes)?;
    let model = Model::from_file_limited(path, max_file_bytes)?;
    Ok(Analysis::new(model, &options)?)
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
/// placement `io`: what `emit` writes beside the plan and `run --op-data flash` loads.
pub(crate) fn compile_program(
    path: &Path,
    bytes: &[u8],
    io: synaptic_run::IoPlacement,
) -> Result<Vec<u32>, Failure> {
    use synaptic_run::program;
    let err = |e: synaptic_run::LoadError| Failure(format!("{}: {e}", path.display()), 1);
    let mut w = vec![0u32; program::compiled_len(bytes, io).map_err(err)?];
    program::compile(bytes, io, &mut w).map_err(err)?;
    Ok(w)
}
