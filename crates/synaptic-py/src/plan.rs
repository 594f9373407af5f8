//! `plan()` → [`Plan`] (the fields of `synmem plan --json`) and `emit()` (what `synmem emit`
//! writes), made as `crates/synmem/src/plan.rs` and `emit.rs` make them.

use crate::options::{self, analyse, OpData, Options, Source};
use crate::{error, json_to_py, PlanError};
use pyo3::exceptions::{PyAttributeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use synaptic_plan::emit::{emit_with_program, with_model_c, Lang};
use synaptic_plan::tflm_arena::{self, Kernels};
use synaptic_plan::{render, svg, tflm, Analysis};

/// The sizing report of a model: every field of `synmem plan --json`, as attributes
/// (`plan.ram_bytes`, `plan.ram["arena_bytes"]`, …), `.to_dict()` or `.json()`.
///
/// `ram_bytes` is the one RAM figure: what synaptic-run needs for this configuration (arena +
/// SHARED region; `ram` is its breakdown, `ram["supported"]` whether the runtime runs the
/// model at all). The fields after `ram` are the bare allocator's figures.
#[pyclass(module = "synaptic_mem._native", name = "Plan")]
pub(crate) struct Plan {
    analysis: Analysis,
    /// `analysis.report` as JSON, in field order.
    report: serde_json::Value,
}

#[pymethods]
impl Plan {
    /// A field of the report (the names of `synmem plan --json`).
    fn __getattr__(&self, py: Python<'_>, name: &str) -> PyResult<PyObject> {
        match self.report.get(name) {
            Some(v) => json_to_py(py, v),
            None => Err(PyAttributeError::new_err(format!(
                "'Plan' object has no attribute {name:?}"
            ))),
        }
    }

    fn __dir__(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .report
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        names.extend(
            ["to_dict", "json", "to_svg", "text", "keys"]
                .iter()
                .map(|s| s.to_string()),
        );
        names
    }

    /// The report's field names, in the CLI's order.
    fn keys(&self) -> Vec<String> {
        self.report
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// The report as a dict: `json.loads` of `synmem plan --json`'s output (only
    /// `planning_micros`, the planner's own time, differs from run to run).
    fn to_dict(&self, py: Python<'_>) -> PyResult<PyObject> {
        json_to_py(py, &self.report)
    }

    /// The report as JSON text, pretty-printed as `synmem plan --json` prints it (without the
    /// final line break); `indent=None` gives one line.
    #[pyo3(signature = (indent = Some(2)))]
    fn json(&self, indent: Option<usize>) -> PyResult<String> {
        let r = &self.analysis.report;
        let text = match indent {
            Some(2) => serde_json::to_string_pretty(r),
            None => serde_json::to_string(r),
            Some(n) => {
                let mut out = Vec::new();
                let ind = " ".repeat(n);
                let f = serde_json::ser::PrettyFormatter::with_indent(ind.as_bytes());
                let mut ser = serde_json::Serializer::with_formatter(&mut out, f);
                serde::Serialize::serialize(r, &mut ser)
                    .map(|_| String::from_utf8_lossy(&out).into_owned())
                    .map_err(|e| PyValueError::new_err(e.to_string()))
                    .map(Ok)?
            }
        };
        text.map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// The plan drawn as a standalone SVG document (`synmem plan --svg FILE`).
    fn to_svg(&self) -> String {
        svg::render(&self.analysis)
    }

    /// The report as `synmem plan` prints it without `--json`.
    fn text(&self) -> String {
        render::plan_text(&self.analysis)
    }

    fn __repr__(&self) -> String {
        let r = &self.analysis.report;
        format!(
            "Plan(ram_bytes={}, model={:?}, arena_bytes={}, shared_bytes={}, supported={})",
            r.ram_bytes,
            r.model,
            r.ram.arena_bytes,
            r.ram.shared_bytes,
            match r.ram.supported {
                Some(true) => "True",
                Some(false) => "False",
                None => "None",
            }
        )
    }
}

/// plan(model, **options) -> Plan
///
/// Sizes `model` (a path, bytes or bytearray) as `synmem plan MODEL --json` does, with the
/// CLI's options: `io="shared"|"ephemeral"|"plan"`, `op_data="flash"|"ram"`,
/// `isa="portable"|"dsp"` (the device's kernels: what the program carries), `overlap=True`,
/// `strategy="best"|"greedy"|"bump"`, `arena=`, `scratch=`, `weights="sram"|"flash"`,
/// `scratch_table=[bytes per operator]`, and `name=` (the model's name; default: the file
/// stem, as the CLI). Raises `PlanError` for a model the planner refuses; a model synaptic-run
/// cannot run still plans (`plan.ram["supported"]` is False, `ram["unsupported"]` says why).
#[pyfunction]
#[pyo3(signature = (model, **options))]
pub(crate) fn plan(
    py: Python<'_>,
    model: &Bound<'_, PyAny>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Plan> {
    let o = Options::from_kwargs(options)?;
    let src = options::source(model)?;
    let (analysis, _) = analyse(py, &src, &o)?;
    let report = serde_json::to_value(&analysis.report)
        .map_err(|e| PyValueError::new_err(format!("JSON: {e}")))?;
    Ok(Plan { analysis, report })
}

/// emit(model, lang="c", with_model=False, kernels=None, **options) -> str | bytes
///
/// What `synmem emit MODEL --lang LANG -o FILE` writes: the plan as a C header (`lang="c"`,
/// with the model's bytes too if `with_model`) or a Rust source file (`lang="rust"`), as
/// text, with synaptic-run's compiled program unless `op_data="ram"` (left out, as the CLI
/// does, when the runtime cannot compile the model and `op_data` is not given); or
/// (`lang="tflite"`) the model's bytes with TFLM's offline memory plan, the scratch of
/// `kernels="reference"|"cmsis-nn"` planned. The sizing options are `plan()`'s.
#[pyfunction]
#[pyo3(signature = (model, lang = "c", with_model = false, kernels = None, **options))]
pub(crate) fn emit(
    py: Python<'_>,
    model: &Bound<'_, PyAny>,
    lang: &str,
    with_model: bool,
    kernels: Option<&Bound<'_, PyAny>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyObject> {
    let o = Options::from_kwargs(options)?;
    let lang = match lang.to_ascii_lowercase().as_str() {
        "c" => Some(Lang::C),
        "rust" => Some(Lang::Rust),
        "tflite" => None,
        other => {
            return Err(PyValueError::new_err(format!(
                "lang= must be \"c\", \"rust\" or \"tflite\", not {other:?}"
            )))
        }
    };
    let kernels = match kernels {
        Some(k) if !k.is_none() => Some(options::choice(
            k,
            "kernels",
            &[
                ("reference", Kernels::Reference),
                ("cmsis-nn", Kernels::CmsisNn),
                ("cmsis_nn", Kernels::CmsisNn),
            ],
        )?),
        _ => None,
    };
    if kernels.is_some() && lang.is_some() {
        return Err(PyValueError::new_err("kernels= is for lang=\"tflite\""));
    }
    let src = options::source(model)?;
    let Some(lang) = lang else {
        if with_model {
            return Err(PyValueError::new_err("with_model= is for lang=\"c\""));
        }
        let out = emit_tflite(py, &src, &o, kernels.unwrap_or(Kernels::Reference))?;
        return Ok(PyBytes::new(py, &out).into_any().unbind());
    };
    if with_model && lang == Lang::Rust {
        return Err(PyValueError::new_err(
            "with_model= is for lang=\"c\" (Rust firmware: include_bytes! the .tflite)",
        ));
    }
    let (a, compiled) = analyse(py, &src, &o)?;
    let need = &a.report.ram;
    if !need.fits {
        // As `synmem emit` (crates/synmem/src/common.rs `too_big`): no table for an arena
        // the core cannot take.
        return Err(error::<PlanError>(
            py,
            need.over_limit(&src.shown),
            &"ArenaTooLarge",
        ));
    }
    let program = match o.op_data {
        Some(OpData::Ram) => None,
        _ => match compiled {
            Ok(w) => Some(w),
            Err(e) if o.op_data.is_none() => {
                // The CLI's note on stderr, as a Python warning.
                let msg = format!(
                    "no program emitted (synaptic-run cannot compile the model: {e}); the plan alone"
                );
                let cat = py.get_type::<pyo3::exceptions::PyUserWarning>();
                PyErr::warn(
                    py,
                    &cat,
                    &std::ffi::CString::new(msg).unwrap_or_default(),
                    1,
                )?;
                None
            }
            Err(e) => return Err(options::load_error(py, &src, e)),
        },
    };
    let mut text = emit_with_program(&a, lang, program.as_deref());
    if with_model {
        text = with_model_c(&text, &a.report.model, &src.bytes).ok_or_else(|| {
            error::<PlanError>(
                py,
                "internal: the emitted C header has no closing #endif".into(),
                &"Internal",
            )
        })?;
    }
    Ok(text.into_pyobject(py)?.into_any().unbind())
}

/// `emit --lang tflite` (crates/synmem/src/emit.rs `emit_tflite`): the kernel set's scratch
/// table (a `scratch_table=` overrides it; none when an operator is not modelled), TFLM's
/// offline plan, the model with it.
fn emit_tflite(py: Python<'_>, src: &Source, o: &Options, kernels: Kernels) -> PyResult<Vec<u8>> {
    let m = options::model(py, src, None)?;
    let options = o.sizing();
    let computed = tflm_arena::scratch_table(&src.bytes, kernels);
    let table = match (&options.scratch_per_op, &computed) {
        (Some(t), _) => Some(t.clone()),
        (None, Ok(t)) => Some(t.clone()),
        (None, Err(_)) => None,
    };
    let plan = tflm::plan_for_tflm(&m, &options.plan, table.as_deref())
        .map_err(|e| options::plan_error(py, src, e))?;
    tflm::with_offline_plan(&src.bytes, &plan).map_err(|e| options::plan_error(py, src, e))
}
