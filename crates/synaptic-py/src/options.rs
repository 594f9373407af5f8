//! The model argument (a path, `bytes` or `bytearray`) and the sizing options, with the CLI's
//! names and values (`io="shared"|"ephemeral"|"plan"`, `op_data="flash"|"ram"`,
//! `overlap=True`, `strategy="best"|"greedy"|"bump"`, `arena=`, `scratch=`,
//! `weights="sram"|"flash"`, `scratch_table=[...]`), and the analysis made from them exactly
//! as `synmem` makes it (`crates/synmem/src/common.rs`, `analyse_with_program`).

use crate::{error, LoadError, PlanError};
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyMemoryView};
use synaptic_plan::{
    read_file_limited, Analysis, ImportError, IoPlacement, Model, PlanOptions, SizingOptions,
    Strategy, WeightsPlacement, DEFAULT_MAX_FILE_BYTES,
};

/// A model as given: its bytes and its name (the file stem for a path, like `synmem`; else
/// the `name=` option, else the subgraph's name or "model").
pub(crate) struct Source {
    /// The `.tflite` bytes.
    pub(crate) bytes: Vec<u8>,
    /// The file stem, for a path.
    pub(crate) stem: Option<String>,
    /// The path as given, for messages.
    pub(crate) shown: String,
}

/// Reads `model`: `bytes`, `bytearray`, `memoryview` or a path (`str`, `os.PathLike`), read
/// as `synmem` reads files (regular files of at most 64 MiB).
pub(crate) fn source(model: &Bound<'_, PyAny>) -> PyResult<Source> {
    let py = model.py();
    if let Ok(b) = model.downcast::<PyBytes>() {
        return Ok(Source {
            bytes: b.as_bytes().to_vec(),
            stem: None,
            shown: "<bytes>".into(),
        });
    }
    if let Ok(b) = model.downcast::<PyByteArray>() {
        return Ok(Source {
            bytes: b.to_vec(),
            stem: None,
            shown: "<bytearray>".into(),
        });
    }
    if model.downcast::<PyMemoryView>().is_ok() {
        let b: Vec<u8> = model.call_method0("tobytes")?.extract()?;
        return Ok(Source {
            bytes: b,
            stem: None,
            shown: "<memoryview>".into(),
        });
    }
    let os = py.import("os")?;
    let path = os.call_method1("fspath", (model,)).map_err(|_| {
        PyTypeError::new_err(format!(
            "model must be a path (str or os.PathLike), bytes or bytearray, not {}",
            model
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    let path: std::path::PathBuf = path.extract()?;
    let bytes = read_file_limited(&path, DEFAULT_MAX_FILE_BYTES).map_err(|e| match &e {
        ImportError::Io { .. } => PyOSError::new_err(e.to_string()),
        _ => error::<PlanError>(py, e.to_string(), &e),
    })?;
    Ok(Source {
        bytes,
        stem: path.file_stem().map(|s| s.to_string_lossy().into_owned()),
        shown: path.display().to_string(),
    })
}

/// Where synaptic-run's compiled program lives (`op_data=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OpData {
    /// Compiled beforehand, outside the arena (`Interpreter::with_program`).
    Flash,
    /// Compiled at load into the arena (`Interpreter::new`).
    Ram,
}

impl OpData {
    /// The value as the CLI writes it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            OpData::Flash => "flash",
            OpData::Ram => "ram",
        }
    }
}

/// The options of `plan()` / `emit()`: the CLI's sizing options.
#[derive(Clone, Debug, Default)]
pub(crate) struct Options {
    pub(crate) arena: Option<usize>,
    pub(crate) scratch: Option<usize>,
    pub(crate) weights: Option<WeightsPlacement>,
    pub(crate) strategy: Strategy,
    pub(crate) io: IoPlacement,
    pub(crate) scratch_table: Option<Vec<u64>>,
    pub(crate) no_overlap: bool,
    pub(crate) op_data: Option<OpData>,
    /// The device's kernels (`isa="portable"|"dsp"`, the CLI's `--isa`; default portable).
    pub(crate) isa: Option<synaptic_run::Isa>,
    pub(crate) name: Option<String>,
}

/// `v` as one of `choices` (case-insensitive), for the option `what`.
pub(crate) fn choice<T: Copy>(
    v: &Bound<'_, PyAny>,
    what: &str,
    choices: &[(&str, T)],
) -> PyResult<T> {
    let bad = || {
        let names: Vec<String> = choices.iter().map(|(n, _)| format!("{n:?}")).collect();
        PyValueError::new_err(format!(
            "{what}= must be one of {}, not {}",
            names.join(", "),
            v.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    };
    let s: String = v.extract().map_err(|_| bad())?;
    let s = s.to_ascii_lowercase();
    choices
        .iter()
        .find(|(n, _)| *n == s)
        .map(|(_, t)| *t)
        .ok_or_else(bad)
}

/// A byte count (a non-negative int; `bool` refused).
fn byte_count(v: &Bound<'_, PyAny>, what: &str) -> PyResult<usize> {
    if v.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(format!("{what}= must be an int")));
    }
    v.extract::<usize>().map_err(|_| {
        PyValueError::new_err(format!(
            "{what}= must be a non-negative number of bytes, not {}",
            v.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    })
}

/// A boolean option (`True`/`False` only).
pub(crate) fn flag(v: &Bound<'_, PyAny>, what: &str) -> PyResult<bool> {
    v.downcast::<pyo3::types::PyBool>()
        .map(|b| b.is_true())
        .map_err(|_| PyTypeError::new_err(format!("{what}= must be True or False")))
}

/// `io=` values.
pub(crate) const IO: &[(&str, IoPlacement)] = &[
    ("shared", IoPlacement::Shared),
    ("ephemeral", IoPlacement::Ephemeral),
    ("plan", IoPlacement::Ephemeral),
];
/// `op_data=` values.
pub(crate) const OP_DATA: &[(&str, OpData)] = &[("flash", OpData::Flash), ("ram", OpData::Ram)];

impl Options {
    /// The options in `kwargs` (unknown names are a `TypeError`, like Python's own).
    pub(crate) fn from_kwargs(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Options> {
        let mut o = Options::default();
        let Some(kw) = kwargs else { return Ok(o) };
        for (k, v) in kw.iter() {
            let key: String = k.extract()?;
            if v.is_none() {
                continue; // None: the default, as if not given
            }
            match key.as_str() {
                "arena" => o.arena = Some(byte_count(&v, "arena")?),
                "scratch" => o.scratch = Some(byte_count(&v, "scratch")?),
                "weights" => {
                    o.weights = Some(choice(
                        &v,
                        "weights",
                        &[
                            ("sram", WeightsPlacement::Sram),
                            ("flash", WeightsPlacement::Flash),
                        ],
                    )?)
                }
                "strategy" => {
                    o.strategy = choice(
                        &v,
                        "strategy",
                        &[
                            ("best", Strategy::Best),
                            ("greedy", Strategy::Greedy),
                            ("bump", Strategy::Bump),
                        ],
                    )?
                }
                "io" => o.io = choice(&v, "io", IO)?,
                "op_data" => o.op_data = Some(choice(&v, "op_data", OP_DATA)?),
                "isa" => {
                    o.isa = Some(choice(
                        &v,
                        "isa",
                        &[
                            ("portable", synaptic_run::Isa::Portable),
                            ("dsp", synaptic_run::Isa::Dsp),
                        ],
                    )?)
                }
                "overlap" => o.no_overlap = !flag(&v, "overlap")?,
                "scratch_table" => {
                    let t: Vec<u64> = v.extract().map_err(|_| {
                        PyTypeError::new_err(
                            "scratch_table= must be a sequence of byte counts, one per operator",
                        )
                    })?;
                    o.scratch_table = Some(t);
                }
                "name" => o.name = Some(v.extract()?),
                _ => {
                    return Err(PyTypeError::new_err(format!(
                        "unexpected option {key:?} (options: arena, scratch, weights, strategy, \
                         io, op_data, isa, overlap, scratch_table, name)"
                    )))
                }
            }
        }
        Ok(o)
    }

    /// The planner's sizing options, as `synmem`'s `SizingArgs::options`.
    pub(crate) fn sizing(&self) -> SizingOptions {
        SizingOptions {
            arena_bytes: self.arena.unwrap_or(synaptic_mem::DEFAULT_ARENA_SIZE),
            scratch_bytes: self.scratch.unwrap_or(synaptic_mem::DEFAULT_SCRATCH_SIZE),
            scratch_per_op: self.scratch_table.clone(),
            weights: self.weights.unwrap_or(WeightsPlacement::Sram),
            io: self.io,
            plan: PlanOptions {
                strategy: self.strategy,
                ..PlanOptions::default()
            },
            overlap: !self.no_overlap,
            program_in_ram_bytes: None,
        }
    }
}

/// The runtime's I/O placement for the planner's.
pub(crate) fn run_io(io: IoPlacement) -> synaptic_run::IoPlacement {
    match io {
        IoPlacement::Shared => synaptic_run::IoPlacement::Shared,
        IoPlacement::Ephemeral => synaptic_run::IoPlacement::Plan,
    }
}

/// synaptic-run's compiled program of `bytes` for `io` and the device's kernels `isa`, or its
/// load error.
pub(crate) fn compile(
    bytes: &[u8],
    io: synaptic_run::IoPlacement,
    isa: synaptic_run::Isa,
) -> Result<Vec<u32>, synaptic_run::LoadError> {
    use synaptic_run::program;
    let mut w = vec![0u32; program::compiled_len_for(bytes, io, isa)?];
    program::compile_for(bytes, io, isa, &mut w)?;
    Ok(w)
}

/// The model of `src`, named as `synmem` names it (file stem) or by `name`.
pub(crate) fn model(py: Python<'_>, src: &Source, name: Option<&str>) -> PyResult<Model> {
    let mut m = Model::from_bytes(&src.bytes).map_err(|e| plan_error(py, src, e))?;
    if let Some(n) = name.map(str::to_string).or_else(|| src.stem.clone()) {
        m.name = n;
    }
    Ok(m)
}

/// `e` about `src` as a [`PlanError`].
pub(crate) fn plan_error(py: Python<'_>, src: &Source, e: ImportError) -> PyErr {
    error::<PlanError>(py, format!("{}: {e}", src.shown), &e)
}

/// `e` about `src` as a [`LoadError`] (for a refused operator, with its tensor and data type, as
/// `synmem` says it: `synaptic_plan::runtime_refusal`).
pub(crate) fn load_error(py: Python<'_>, src: &Source, e: synaptic_run::LoadError) -> PyErr {
    let why = synaptic_plan::runtime_refusal(&src.bytes, &e);
    error::<LoadError>(py, format!("{}: {why}", src.shown), &e)
}

/// The analysis `synmem plan` reports for `src` with `o` (`Analysis::for_runtime` with
/// synaptic-run's answer: the program's length, or why it cannot compile the model), and the
/// compiled program (or the runtime's refusal).
pub(crate) fn analyse(
    py: Python<'_>,
    src: &Source,
    o: &Options,
) -> PyResult<(Analysis, Result<Vec<u32>, synaptic_run::LoadError>)> {
    let m = model(py, src, o.name.as_deref())?;
    let isa = o.isa.unwrap_or(synaptic_run::Isa::Portable);
    let program = compile(&src.bytes, run_io(o.io), isa);
    // synmem strips its "<path>: " prefix: the reason alone, the runtime's Display text.
    let said = match &program {
        Ok(w) => Ok(w.len()),
        Err(e) => Err(synaptic_plan::runtime_refusal(&src.bytes, e)),
    };
    let a = Analysis::for_runtime(m, &o.sizing(), o.op_data == Some(OpData::Ram), said)
        .map_err(|e| plan_error(py, src, e))?;
    Ok((a, program))
}
