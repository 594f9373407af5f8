//! # synaptic-py: the `synaptic_mem` Python package's native module
//!
//! PyO3 bindings (abi3, CPython ≥ 3.9) of the planner (`synaptic-plan`) and the bit-exact
//! runtime (`synaptic-run`), built into a wheel by maturin (`scripts/test-python.sh`,
//! `docs/python.md`). The package `synaptic_mem` (`python/synaptic_mem/__init__.py`)
//! re-exports this module, `synaptic_mem._native`:
//!
//! * [`plan()`](plan::plan) → [`Plan`](plan::Plan): the fields of `synmem plan --json`
//!   (`analysis.report`, serialised by serde exactly as the CLI prints it), `.to_svg()`;
//! * [`emit()`](plan::emit): the bytes `synmem emit` writes (`--lang c|rust|tflite`);
//! * [`Interpreter`](interp::Interpreter): `synaptic_run::Interpreter` on an arena the
//!   Python object owns ([`owned`]), numpy arrays in and out, every intermediate tensor on
//!   request (the per-operator hook `invoke_observed` the oracle tests use);
//! * the exceptions [`SynapticError`] and its subclasses [`LoadError`], [`RunError`],
//!   [`PlanError`], each carrying the typed reason (`kind`, `detail`) beside its message.
//!
//! The analysis is made as `synmem` makes it ([`options::analyse`]): the same options, the
//! same `Analysis::for_runtime` call with synaptic-run's answer, so `plan(m).to_dict()` equals
//! `synmem plan m --json` and the tests check it on every shared model.
#![deny(missing_docs)]

mod interp;
mod options;
mod owned;
mod plan;

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

create_exception!(
    _native,
    SynapticError,
    PyException,
    "Base class of every synaptic_mem error. `kind` names the typed reason (the Rust error's \
     variant, e.g. 'Operator', 'NotTflite'), `detail` is its full debug form, `args[0]` the \
     one-line message."
);
create_exception!(
    _native,
    LoadError,
    SynapticError,
    "The runtime refused the model at load (synaptic_run::LoadError: an unsupported operator, \
     type or shape, a malformed or truncated model, a plan that does not fit)."
);
create_exception!(
    _native,
    RunError,
    SynapticError,
    "An inference could not run: inputs of the wrong number, dtype or shape, or the runtime's \
     synaptic_run::RunError."
);
create_exception!(
    _native,
    PlanError,
    SynapticError,
    "The planner refused the model or the options (synaptic_plan::ImportError: not a .tflite, \
     truncated, unsupported, an arena configuration outside the spec's ranges)."
);

/// The variant name at the start of a `Debug` rendering (`Operator { .. }` → `Operator`).
fn variant(debug: &str) -> String {
    debug
        .trim_start_matches('"')
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("")
        .to_string()
}

/// A Python exception of class `E` with `message` and the typed reason `err` (its `Debug`
/// form as `detail`, its variant as `kind`).
pub(crate) fn error<E: pyo3::PyTypeInfo>(
    py: Python<'_>,
    message: String,
    err: &dyn std::fmt::Debug,
) -> PyErr {
    let detail = format!("{err:?}");
    let e = PyErr::new::<E, _>(message);
    let v = e.value(py);
    // Setting attributes on a fresh exception instance cannot fail but for memory.
    let _ = v.setattr("kind", variant(&detail));
    let _ = v.setattr("detail", detail);
    e
}

/// `v` as the Python value `json.loads` would give (objects keep their field order).
pub(crate) fn json_to_py(py: Python<'_>, v: &serde_json::Value) -> PyResult<PyObject> {
    use serde_json::Value;
    Ok(match v {
        Value::Null => py.None(),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any().unbind()
            } else if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any().unbind()
            } else {
                n.as_f64()
                    .unwrap_or(f64::NAN)
                    .into_pyobject(py)?
                    .into_any()
                    .unbind()
            }
        }
        Value::String(s) => s.into_pyobject(py)?.into_any().unbind(),
        Value::Array(a) => {
            let items = a
                .iter()
                .map(|x| json_to_py(py, x))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any().unbind()
        }
        Value::Object(m) => {
            let d = PyDict::new(py);
            for (k, x) in m {
                d.set_item(k, json_to_py(py, x)?)?;
            }
            d.into_any().unbind()
        }
    })
}

/// The `synaptic_mem._native` module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("SynapticError", py.get_type::<SynapticError>())?;
    m.add("LoadError", py.get_type::<LoadError>())?;
    m.add("RunError", py.get_type::<RunError>())?;
    m.add("PlanError", py.get_type::<PlanError>())?;
    m.add_function(wrap_pyfunction!(plan::plan, m)?)?;
    m.add_function(wrap_pyfunction!(plan::emit, m)?)?;
    m.add_class::<plan::Plan>()?;
    m.add_class::<interp::Interpreter>()?;
    m.add_class::<interp::TensorDetails>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
