//! The option types the command line is parsed into, shared by `main.rs` (which parses) and
//! the subcommands (which read them): the sizing options, the enumerated option values and the
//! byte-count parser. Nothing here reads a file or prints.
//!
//! The `///` comments on fields and variants are `synmem`'s `--help` text: changing one
//! changes the help.

use clap::{Args, ValueEnum};
use std::path::PathBuf;

// The sizing options of plan, emit, trace and survey (flattened into each). No `///` on the
// types below: clap would take it for help text. `arena`, `scratch` and `weights` configure the
// bare allocator's figures (`None`: the spec's defaults); naming one makes `plan --check` check
// that configuration too (`SizingArgs::names_allocator`).
#[derive(Args, Debug)]
pub(crate) struct SizingArgs {
    /// Bare allocator: arena size in bytes (4096..=524288; suffix k for KiB; default 131072).
    /// The runtime's arena is sized exactly (the RAM figure) whatever this says.
    #[arg(long, value_parser = parse_size, allow_hyphen_values = true)]
    pub(crate) arena: Option<usize>,
    /// Bare allocator: scratch pool size in bytes (1024..=65536; suffix k for KiB; default
    /// 16384).
    #[arg(long, value_parser = parse_size, allow_hyphen_values = true)]
    pub(crate) scratch: Option<usize>,
    /// Bare allocator: where weights live, copied to SRAM (persistent region; the default) or
    /// left in flash. synaptic-run always reads them in place.
    #[arg(long, value_enum)]
    pub(crate) weights: Option<WeightsArg>,
    /// Planner strategy.
    #[arg(long, value_enum, default_value_t = StrategyArg::Best)]
    pub(crate) strategy: StrategyArg,
    /// Where graph inputs/outputs live: the shared IPC region, or the ephemeral region.
    #[arg(long, value_enum, default_value_t = IoArg::Shared)]
    pub(crate) io: IoArg,
    /// Per-operator kernel scratch: a file with one byte count per operator (execution order,
    /// separated by whitespace or commas). Each operator acquires its entry from the pool and
    /// the core frees scratch only at the reset, so the pool must hold the sum of the entries
    /// (each rounded up to 16; at least 1024, at most 65536), checked against the --scratch pool.
    #[arg(long, value_name = "FILE")]
    pub(crate) scratch_table: Option<PathBuf>,
    /// Plan without output/input overlaps (the plain plan, no declared overlap: for the C
    /// API's typed plans and runtimes that do not run overlapped operators). By default
    /// outputs overlap dying inputs as synaptic-run's access contracts allow, and the plan
    /// declares each pair (synaptic-run runs them overlapped).
    #[arg(long)]
    pub(crate) no_overlap: bool,
    /// Where synaptic-run's compiled program (per-operator data) lives: flash (read in place,
    /// `Interpreter::with_program`; the default, what `emit` writes) or ram (compiled at load
    /// into the arena: its bytes count in the RAM figure).
    #[arg(long, value_enum)]
    pub(crate) op_data: Option<OpDataArg>,
    /// The kernels the device runs, which decide what the program carries: portable (Cortex-M0,
    /// M3, M33/M55 builds without the DSP extension; the default) or dsp (Cortex-M4, M7:
    /// the runtime built for thumbv7em). A program for either loads on any device with the
    /// same outputs; one for its own kernels loads fastest and, with --op-data ram, is the
    /// RAM figure the device takes.
    #[arg(long, value_enum, default_value_t = IsaArg::Portable)]
    pub(crate) isa: IsaArg,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub(crate) enum IsaArg {
    Portable,
    Dsp,
}

impl From<IsaArg> for synaptic_run::Isa {
    fn from(a: IsaArg) -> Self {
        match a {
            IsaArg::Portable => synaptic_run::Isa::Portable,
            IsaArg::Dsp => synaptic_run::Isa::Dsp,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub(crate) enum WeightsArg {
    Sram,
    Flash,
}
#[derive(ValueEnum, Clone, Copy, Debug)]
pub(crate) enum StrategyArg {
    Bump,
    Greedy,
    Best,
}
/// Where graph I/O lives (`plan`, `emit`, `trace`, `survey`): `ephemeral` (alias `plan`, the
/// word `run` uses) or `shared`. Every subcommand takes both words.
#[derive(ValueEnum, Clone, Copy, Debug)]
pub(crate) enum IoArg {
    Shared,
    #[value(alias = "plan")]
    Ephemeral,
}
/// Where graph I/O lives (`run`): `plan` (alias `ephemeral`, the word of the other
/// subcommands) or `shared`.
#[derive(ValueEnum, Clone, Copy, Debug)]
pub(crate) enum RunIoArg {
    Shared,
    #[value(alias = "ephemeral")]
    Plan,
}
/// Where the per-operator data (synaptic-run's compiled program) lives.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OpDataArg {
    /// Compiled at load into the arena's persistent region (`Interpreter::new`).
    Ram,
    /// Compiled beforehand, outside the arena (flash on a device; `Interpreter::with_program`).
    Flash,
}
impl OpDataArg {
    /// The value as written on the command line.
    pub(crate) fn name(self) -> &'static str {
        match self {
            OpDataArg::Ram => "ram",
            OpDataArg::Flash => "flash",
        }
    }
}
#[derive(ValueEnum, Clone, Copy, Debug)]
pub(crate) enum LangArg {
    Rust,
    C,
    Tflite,
}
/// Which TFLM kernels `emit --lang tflite` sizes for (`synaptic_plan::tflm_arena::Kernels`):
/// their scratch buffers and per-operator data.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KernelsArg {
    /// TFLM's reference kernels.
    Reference,
    /// TFLM's CMSIS-NN kernels (Cortex-M4 DSP path, GCC).
    CmsisNn,
}
impl KernelsArg {
    /// The planner crate's kernel set.
    pub(crate) fn kernels(self) -> synaptic_plan::tflm_arena::Kernels {
        match self {
            KernelsArg::Reference => synaptic_plan::tflm_arena::Kernels::Reference,
            KernelsArg::CmsisNn => synaptic_plan::tflm_arena::Kernels::CmsisNn,
        }
    }
}

/// A byte count: digits with an optional suffix k (KiB) or m (MiB).
pub(crate) fn parse_u64_size(s: &str) -> Result<u64, String> {
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

/// [`parse_u64_size`] as a `usize` (too large a count is an error).
pub(crate) fn parse_size(s: &str) -> Result<usize, String> {
    parse_u64_size(s)
        .and_then(|n| usize::try_from(n).map_err(|_| format!("'{s}' is too large a byte count")))
}
