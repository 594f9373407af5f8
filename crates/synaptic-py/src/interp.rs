//! `Interpreter`: synaptic-run's interpreter on an arena the Python object owns
//! ([`crate::owned`]), sized and laid out exactly as `synmem run` does it
//! (`crates/synmem/src/run.rs`): the plan of `Analysis::new` with the run's I/O placement and
//! overlap, the program compiled here (in "flash", outside the arena) or at load (`op_data=
//! "ram"`), an exact arena of the plan's `arena_bytes` and a SHARED region beside it.
//!
//! Every intermediate tensor (`preserve_all_tensors=True`, TFLM's `kPreserveAllTensors`): the
//! per-operator hook `Interpreter::invoke_observed` that synaptic-run's oracle tests use, each
//! operator's output copied out while it is live in the arena.

use crate::options::{self, flag, OpData, Source};
use crate::owned::{Loaded, MakeError, Observer, Parts};
use crate::{error, LoadError, PlanError, RunError};
use numpy::{Element, PyArrayDyn, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use synaptic_plan::{Analysis, IoPlacement, SizingOptions, TensorType};

/// A graph tensor's description: `index` (in the model), `name`, `shape`, `dtype` (a
/// `numpy.dtype`), `nbytes`, and its quantization: `scale` / `zero_point` (the first entry, or
/// None for an unquantized tensor), `scales` / `zero_points` (every entry: one per channel
/// along `quantized_dimension` for per-channel quantization).
#[pyclass(
    module = "synaptic_mem._native",
    name = "TensorDetails",
    frozen,
    get_all
)]
pub(crate) struct TensorDetails {
    index: usize,
    name: String,
    shape: Py<PyTuple>,
    dtype: PyObject,
    nbytes: usize,
    scale: Option<f64>,
    zero_point: Option<i64>,
    scales: Vec<f64>,
    zero_points: Vec<i64>,
    quantized_dimension: i32,
}

#[pymethods]
impl TensorDetails {
    fn __repr__(&self, py: Python<'_>) -> String {
        let shape = self.shape.bind(py).repr().map(|r| r.to_string());
        let dtype = self.dtype.bind(py).str().map(|r| r.to_string());
        format!(
            "TensorDetails(index={}, name={:?}, shape={}, dtype={}, scale={}, zero_point={})",
            self.index,
            self.name,
            shape.unwrap_or_default(),
            dtype.unwrap_or_default(),
            self.scale.map_or("None".into(), |s| format!("{s:e}")),
            self.zero_point.map_or("None".into(), |z| z.to_string()),
        )
    }
}

/// What the interpreter knows of one tensor of the model.
#[derive(Clone)]
struct Meta {
    name: String,
    dtype: TensorType,
    shape: Vec<usize>,
    bytes: usize,
    /// Whether it has constant data in the model.
    constant: bool,
}

/// numpy's name of `t` (None: no numpy dtype; its bytes are given as uint8).
fn numpy_name(t: TensorType) -> Option<&'static str> {
    use TensorType as T;
    Some(match t {
        T::Float32 => "float32",
        T::Float16 => "float16",
        T::Float64 => "float64",
        T::Int8 => "int8",
        T::Int16 => "int16",
        T::Int32 => "int32",
        T::Int64 => "int64",
        T::UInt8 => "uint8",
        T::UInt16 => "uint16",
        T::UInt32 => "uint32",
        T::UInt64 => "uint64",
        T::Bool => "bool",
        T::Complex64 => "complex64",
        T::Complex128 => "complex128",
        _ => return None,
    })
}

/// Calls `$body` with `$T` the Rust element type of `$dt`, or evaluates `$other`.
macro_rules! typed {
    ($dt:expr, $T:ident => $body:expr, _ => $other:expr) => {
        match $dt {
            TensorType::Int8 => {
                type $T = i8;
                $body
            }
            TensorType::UInt8 => {
                type $T = u8;
                $body
            }
            TensorType::Int16 => {
                type $T = i16;
                $body
            }
            TensorType::UInt16 => {
                type $T = u16;
                $body
            }
            TensorType::Int32 => {
                type $T = i32;
                $body
            }
            TensorType::UInt32 => {
                type $T = u32;
                $body
            }
            TensorType::Int64 => {
                type $T = i64;
                $body
            }
            TensorType::UInt64 => {
                type $T = u64;
                $body
            }
            TensorType::Float32 => {
                type $T = f32;
                $body
            }
            TensorType::Float64 => {
                type $T = f64;
                $body
            }
            _ => $other,
        }
    };
}

impl Meta {
    /// The numpy dtype and shape its bytes are given as (raw uint8 bytes when numpy has no
    /// dtype for it or the sizes disagree).
    fn numpy<'py>(&self, np: &Bound<'py, PyModule>) -> PyResult<(Bound<'py, PyAny>, Vec<usize>)> {
        if let Some(n) = numpy_name(self.dtype) {
            let dt = np.getattr("dtype")?.call1((n,))?;
            let item: usize = dt.getattr("itemsize")?.extract()?;
            if self.shape.iter().product::<usize>() * item == self.bytes {
                return Ok((dt, self.shape.clone()));
            }
        }
        Ok((np.getattr("dtype")?.call1(("uint8",))?, vec![self.bytes]))
    }

    /// A new numpy array holding `bytes` (this tensor's, little-endian row-major).
    fn array(&self, py: Python<'_>, bytes: &[u8]) -> PyResult<PyObject> {
        let shape = &self.shape;
        typed!(self.dtype, T => {
            if shape.iter().product::<usize>() * std::mem::size_of::<T>() == bytes.len() {
                return new_array::<T>(py, shape, bytes);
            }
        }, _ => {});
        let np = py.import("numpy")?;
        let (dt, shape) = self.numpy(&np)?;
        let b = pyo3::types::PyBytes::new(py, bytes);
        Ok(np
            .call_method1("frombuffer", (b, dt))?
            .call_method1("reshape", (PyTuple::new(py, shape)?,))?
            .call_method0("copy")?
            .unbind())
    }
}

/// A new `T` array of `shape` filled with `bytes` (no intermediate copy: written in place).
fn new_array<T: Element + bytemuck::Pod>(
    py: Python<'_>,
    shape: &[usize],
    bytes: &[u8],
) -> PyResult<PyObject> {
    let a = PyArrayDyn::<T>::zeros(py, shape, false);
    {
        let mut rw = a
            .try_readwrite()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let dst = rw
            .as_slice_mut()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        bytemuck::cast_slice_mut::<T, u8>(dst).copy_from_slice(bytes);
    }
    Ok(a.into_any().unbind())
}

/// Copies the elements of `arr` (already checked: dtype `T`, the tensor's shape) into `dst`:
/// one copy straight from numpy's buffer when it is contiguous, element by element otherwise.
fn copy_in<T: Element + bytemuck::Pod>(arr: &Bound<'_, PyAny>, dst: &mut [u8]) -> PyResult<()> {
    let a = arr.downcast::<PyArrayDyn<T>>()?;
    let ro = a
        .try_readonly()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    match ro.as_slice() {
        Ok(s) => dst.copy_from_slice(bytemuck::cast_slice(s)),
        Err(_) => {
            let size = std::mem::size_of::<T>();
            for (d, v) in dst.chunks_exact_mut(size).zip(ro.as_array().iter()) {
                d.copy_from_slice(bytemuck::bytes_of(v));
            }
        }
    }
    Ok(())
}

/// Checks `arr` against graph input `k` (`m`: an ndarray, its dtype, its shape) and copies
/// it into `dst`.
fn put_input(
    py: Python<'_>,
    k: usize,
    m: &Meta,
    (want_dt, want_shape): &(PyObject, Vec<usize>),
    arr: &Bound<'_, PyAny>,
    dst: &mut [u8],
) -> PyResult<()> {
    let want_dt = want_dt.bind(py);
    let what = format!("input {k} ({:?})", m.name);
    let run_err = |msg: String| error::<RunError>(py, msg, &"Input");
    let Ok(a) = arr.downcast::<PyUntypedArray>() else {
        return Err(run_err(format!(
            "{what}: expected a numpy.ndarray of {} with shape {:?}, got {}",
            want_dt.str()?,
            want_shape,
            arr.get_type().name()?
        )));
    };
    let dt = a.dtype();
    if !dt.as_any().eq(want_dt)? {
        return Err(run_err(format!(
            "{what}: dtype {} given, the model's tensor is {} (quantize the values first: \
             see inputs[{k}].scale and zero_point)",
            dt.str()?,
            want_dt.str()?
        )));
    }
    if a.shape() != want_shape.as_slice() {
        return Err(run_err(format!(
            "{what}: shape {:?} given, the model's tensor is {:?}",
            a.shape(),
            want_shape
        )));
    }
    if dst.len() != m.bytes {
        return Err(run_err(format!(
            "{what}: the runtime's buffer is {} bytes, the tensor {}",
            dst.len(),
            m.bytes
        )));
    }
    typed!(m.dtype, T => copy_in::<T>(arr, dst), _ => {
        let b: Vec<u8> = arr.call_method0("tobytes")?.extract()?;
        dst.copy_from_slice(&b);
        Ok(())
    })
}

/// The run's configuration, kept to re-load (`reset_state`).
struct Config {
    program: Vec<u32>,
    op_data: OpData,
    io: IoPlacement,
    overlap: bool,
    poison: Option<u64>,
    slots: Vec<synaptic_mem::plan::PlanSlot>,
    region_size: u32,
    overlaps: Vec<synaptic_mem::plan::OverlapPair>,
    arena_size: usize,
    scratch: usize,
    shared_size: usize,
    shown: String,
}

impl Config {
    /// The parts of a load of `model` (the bytes live in the [`Loaded`], once).
    fn parts(&self, model: Vec<u8>) -> Parts {
        Parts {
            model,
            program: (self.op_data == OpData::Flash).then(|| self.program.clone()),
            slots: self.slots.clone(),
            region_size: self.region_size,
            overlaps: self.overlaps.clone(),
            arena_size: self.arena_size,
            scratch: self.scratch,
            shared_size: self.shared_size,
            io: options::run_io(self.io),
            poison: self.poison.map(|seed| {
                let mut x = seed;
                (0..self.arena_size + self.shared_size)
                    .map(|_| synaptic_run::seeded::splitmix64(&mut x) as u8)
                    .collect()
            }),
        }
    }

    fn load(&self, py: Python<'_>, model: Vec<u8>) -> PyResult<Loaded> {
        Loaded::new(self.parts(model)).map_err(|e| match e {
            MakeError::Config(m) => error::<LoadError>(
                py,
                format!("{}: bad arena configuration: {m}", self.shown),
                &m,
            ),
            MakeError::Load(e) => error::<LoadError>(py, format!("{}: {e}", self.shown), &e),
        })
    }
}

/// Interpreter(model, io="shared", overlap=True, op_data="flash", poison=None,
/// preserve_all_tensors=False)
///
/// Loads `model` (a path, bytes or bytearray) into an arena of exactly the size `plan()`
/// reports (`memory()["arena_bytes"]`), as `synmem run` does: graph I/O in the SHARED region
/// (`io="shared"`) or in the plan (`io="plan"`), outputs overlapping dying inputs unless
/// `overlap=False`, synaptic-run's program compiled beforehand outside the arena
/// (`op_data="flash"`) or at load into it (`"ram"`). `poison=SEED` fills the arena and the
/// SHARED region with seeded bytes before loading (the outputs must not change).
/// `preserve_all_tensors=True` keeps every operator's output of the last `invoke()`
/// (`get_tensor()`, `intermediates()`), as TFLM's kPreserveAllTensors.
///
/// Raises `LoadError` for a model the runtime refuses, `PlanError` for one the planner
/// refuses. An Interpreter may move between threads; using one from two threads at once
/// raises RuntimeError ("Already borrowed") in the second, never a race.
#[pyclass(module = "synaptic_mem._native", name = "Interpreter")]
pub(crate) struct Interpreter {
    loaded: Loaded,
    config: Config,
    name: String,
    tensors: Vec<Meta>,
    inputs: Vec<usize>,
    outputs: Vec<usize>,
    /// Each graph input's numpy dtype and shape (made once: checked at every invoke).
    input_types: Vec<(PyObject, Vec<usize>)>,
    preserve: bool,
    /// Every tensor's bytes of the last inference (`preserve_all_tensors`).
    recorded: Vec<Option<Vec<u8>>>,
    /// Staging for I/O in the plan: every input, then every output, concatenated.
    in_buf: Vec<u8>,
    out_buf: Vec<u8>,
    overlap_pairs: usize,
    invocations: u64,
}

impl Interpreter {
    fn details(&self, py: Python<'_>, ids: &[usize]) -> PyResult<Vec<TensorDetails>> {
        let np = py.import("numpy")?;
        let fbm = synaptic_tflite::Model::new(self.loaded.model()).ok();
        let sg = fbm.as_ref().and_then(|m| m.subgraph(0).ok());
        ids.iter()
            .map(|&t| {
                let m = &self.tensors[t];
                let (dt, _) = m.numpy(&np)?;
                let q = sg
                    .as_ref()
                    .and_then(|sg| sg.tensor(t).ok())
                    .and_then(|x| x.quantization().ok().flatten());
                let (mut scales, mut zps, mut qdim) = (Vec::new(), Vec::new(), 0);
                if let Some(q) = q {
                    if let Ok(s) = q.scales() {
                        scales = (0..s.len())
                            .filter_map(|i| s.get(i))
                            .map(f64::from)
                            .collect();
                    }
                    if let Ok(z) = q.zero_points() {
                        zps = (0..z.len()).filter_map(|i| z.get(i)).collect();
                    }
                    qdim = q.quantized_dimension().unwrap_or(0);
                }
                Ok(TensorDetails {
                    index: t,
                    name: m.name.clone(),
                    shape: PyTuple::new(py, &m.shape)?.unbind(),
                    dtype: dt.unbind(),
                    nbytes: m.bytes,
                    scale: scales.first().copied(),
                    zero_point: scales.first().map(|_| zps.first().copied().unwrap_or(0)),
                    scales,
                    zero_points: zps,
                    quantized_dimension: qdim,
                })
            })
            .collect()
    }
}

#[pymethods]
impl Interpreter {
    #[new]
    #[pyo3(
        signature = (model, io = None, overlap = None, op_data = None, poison = None, preserve_all_tensors = false),
        text_signature = "(model, io='shared', overlap=True, op_data='flash', poison=None, preserve_all_tensors=False)"
    )]
    fn new(
        py: Python<'_>,
        model: &Bound<'_, PyAny>,
        io: Option<&Bound<'_, PyAny>>,
        overlap: Option<&Bound<'_, PyAny>>,
        op_data: Option<&Bound<'_, PyAny>>,
        poison: Option<u64>,
        preserve_all_tensors: bool,
    ) -> PyResult<Self> {
        let io = match io.filter(|v| !v.is_none()) {
            Some(v) => options::choice(v, "io", options::IO)?,
            None => IoPlacement::Shared,
        };
        let overlap = match overlap.filter(|v| !v.is_none()) {
            Some(v) => flag(v, "overlap")?,
            None => true,
        };
        let op_data = match op_data.filter(|v| !v.is_none()) {
            Some(v) => options::choice(v, "op_data", options::OP_DATA)?,
            None => OpData::Flash,
        };
        let src: Source = options::source(model)?;
        // As `synmem run`: the program first (the runtime's verdict on the model), then the
        // plan for this placement and overlap, with the program's bytes in RAM for "ram".
        // The program this host's runtime runs (the interpreter runs here).
        let program = options::compile(&src.bytes, options::run_io(io), synaptic_run::Isa::NATIVE)
            .map_err(|e| options::load_error(py, &src, e))?;
        let m = options::model(py, &src, None)?;
        let a = Analysis::new(
            m,
            &SizingOptions {
                io,
                overlap,
                program_in_ram_bytes: (op_data == OpData::Ram).then(|| 4 * program.len() as u64),
                ..SizingOptions::default()
            },
        )
        .map_err(|e| options::plan_error(py, &src, e))?;
        let need = &a.report.ram;
        if !need.fits {
            return Err(error::<LoadError>(
                py,
                need.over_limit(&src.shown),
                &"ArenaTooLarge",
            ));
        }
        let plan = a.ephemeral_plan.core_plan();
        let config = Config {
            program,
            op_data,
            io,
            overlap,
            poison,
            slots: plan.slots.to_vec(),
            region_size: plan.region_size,
            overlaps: a.ephemeral_plan.overlaps.clone(),
            arena_size: need.arena_bytes as usize,
            scratch: need.scratch_bytes as usize,
            shared_size: (need.shared_bytes as usize).max(synaptic_mem::MIN_SHARED_SIZE),
            shown: src.shown.clone(),
        };
        let loaded = config.load(py, src.bytes)?;
        // The planner's figure is the runtime's, byte for byte (as `synmem run` checks).
        let mem = loaded.memory();
        let shared_need = if mem.shared == 0 {
            0
        } else {
            mem.shared.max(synaptic_mem::MIN_SHARED_SIZE)
        };
        if (mem.arena_bytes() as u64, shared_need as u64) != (need.arena_bytes, need.shared_bytes) {
            return Err(error::<PlanError>(
                py,
                format!(
                    "internal: the plan says arena {} B + shared {} B, the runtime took {} B + {} B",
                    need.arena_bytes,
                    need.shared_bytes,
                    mem.arena_bytes(),
                    shared_need
                ),
                &"Internal",
            ));
        }
        let tensors: Vec<Meta> = a
            .model
            .tensors
            .iter()
            .map(|t| Meta {
                name: t.name.clone(),
                dtype: t.dtype,
                shape: t.shape.iter().map(|&d| d as usize).collect(),
                bytes: t.bytes as usize,
                constant: matches!(t.kind, synaptic_plan::TensorKind::Constant { .. }),
            })
            .collect();
        let np = py.import("numpy")?;
        let input_types = a
            .model
            .inputs
            .iter()
            .map(|&t| tensors[t].numpy(&np).map(|(d, s)| (d.unbind(), s)))
            .collect::<PyResult<Vec<_>>>()?;
        let in_bytes = loaded.input_bytes();
        let out_bytes = loaded.output_bytes();
        Ok(Interpreter {
            loaded,
            name: a.report.model.clone(),
            recorded: vec![None; tensors.len()],
            tensors,
            inputs: a.model.inputs.clone(),
            outputs: a.model.outputs.clone(),
            input_types,
            preserve: preserve_all_tensors,
            in_buf: vec![0; in_bytes],
            out_buf: vec![0; out_bytes],
            overlap_pairs: a.ephemeral_plan.overlaps.len(),
            invocations: 0,
            config,
        })
    }

    /// The graph inputs, in order (`TensorDetails`: name, shape, dtype, quantization).
    #[getter]
    fn inputs(&self, py: Python<'_>) -> PyResult<Vec<TensorDetails>> {
        self.details(py, &self.inputs)
    }

    /// The graph outputs, in order.
    #[getter]
    fn outputs(&self, py: Python<'_>) -> PyResult<Vec<TensorDetails>> {
        self.details(py, &self.outputs)
    }

    /// Every tensor of the model's main subgraph, in index order.
    #[getter]
    fn tensors(&self, py: Python<'_>) -> PyResult<Vec<TensorDetails>> {
        let ids: Vec<usize> = (0..self.tensors.len()).collect();
        self.details(py, &ids)
    }

    /// The model's name (the file stem for a path).
    #[getter]
    fn name(&self) -> String {
        self.name.clone()
    }

    /// Inferences run since the model was (re-)loaded.
    #[getter]
    fn invocations(&self) -> u64 {
        self.invocations
    }

    /// invoke(*arrays) -> list[numpy.ndarray]
    ///
    /// Runs one inference on `arrays`, one numpy array per graph input, each of exactly the
    /// input's dtype and shape (a float array for an int8 input is refused: quantize it with
    /// the input's scale and zero_point first). Returns one new array per graph output. State
    /// (the arena) is kept across calls. Raises `RunError` for inputs of the wrong number,
    /// dtype or shape, or an inference the runtime refuses; the interpreter stays usable.
    #[pyo3(signature = (*arrays))]
    fn invoke(&mut self, py: Python<'_>, arrays: &Bound<'_, PyTuple>) -> PyResult<Vec<PyObject>> {
        if arrays.len() != self.inputs.len() {
            let names: Vec<String> = self
                .inputs
                .iter()
                .map(|&t| format!("{:?}", self.tensors[t].name))
                .collect();
            return Err(error::<RunError>(
                py,
                format!(
                    "{} takes {} input array(s) ({}), {} given",
                    self.name,
                    self.inputs.len(),
                    names.join(", "),
                    arrays.len()
                ),
                &"InputCount",
            ));
        }
        let shared = self.config.io == IoPlacement::Shared;
        let mut in_buf = std::mem::take(&mut self.in_buf);
        let mut pos = 0;
        let mut filled = Ok(());
        for k in 0..self.inputs.len() {
            let arr = arrays.get_item(k)?;
            let m = &self.tensors[self.inputs[k]];
            let n = m.bytes;
            if shared {
                // Straight into the SHARED region, where the runtime reads it.
                let r = match self.loaded.input_mut(k) {
                    Some(dst) => put_input(py, k, m, &self.input_types[k], &arr, dst),
                    None => Err(error::<RunError>(
                        py,
                        format!("input {k}: not in the SHARED region"),
                        &"Input",
                    )),
                };
                if let Err(e) = r {
                    filled = Err(e);
                    break;
                }
            } else {
                let end = pos + n;
                let Some(dst) = in_buf.get_mut(pos..end) else {
                    filled = Err(error::<RunError>(
                        py,
                        format!("input {k}: past the {} input bytes", in_buf.len()),
                        &"Input",
                    ));
                    break;
                };
                if let Err(e) = put_input(py, k, m, &self.input_types[k], &arr, dst) {
                    filled = Err(e);
                    break;
                }
                pos = end;
            }
        }
        if let Err(e) = filled {
            self.in_buf = in_buf;
            return Err(e);
        }
        let mut out_buf = std::mem::take(&mut self.out_buf);
        let result = if self.preserve {
            let mut rec: Vec<Option<Vec<u8>>> = vec![None; self.tensors.len()];
            // Graph inputs as given.
            let mut at = 0;
            for (k, &t) in self.inputs.iter().enumerate() {
                let n = self.tensors[t].bytes;
                rec[t] = if shared {
                    self.loaded.input_mut(k).map(|s| s.to_vec())
                } else {
                    in_buf.get(at..at + n).map(<[u8]>::to_vec)
                };
                at += n;
            }
            let mut observe = |_op: usize, t: usize, b: &[u8]| {
                if let Some(slot) = rec.get_mut(t) {
                    *slot = Some(b.to_vec());
                }
            };
            let r = if shared {
                invoke_without_gil(py, &mut self.loaded, None, None, Some(&mut observe))
            } else {
                invoke_without_gil(
                    py,
                    &mut self.loaded,
                    Some(&in_buf),
                    Some(&mut out_buf),
                    Some(&mut observe),
                )
            };
            self.recorded = rec;
            r
        } else if shared {
            invoke_without_gil(py, &mut self.loaded, None, None, None)
        } else {
            invoke_without_gil(
                py,
                &mut self.loaded,
                Some(&in_buf),
                Some(&mut out_buf),
                None,
            )
        };
        self.in_buf = in_buf;
        if let Err(e) = result {
            self.out_buf = out_buf;
            return Err(error::<RunError>(
                py,
                format!("{}: {e}", self.config.shown),
                &e,
            ));
        }
        self.invocations += 1;
        let mut outs = Vec::with_capacity(self.outputs.len());
        let mut pos = 0;
        for (k, &t) in self.outputs.iter().enumerate() {
            let m = &self.tensors[t];
            let bytes = if shared {
                self.loaded.output(k)
            } else {
                out_buf.get(pos..pos + m.bytes)
            };
            pos += m.bytes;
            let Some(bytes) = bytes else {
                self.out_buf = out_buf;
                return Err(error::<RunError>(
                    py,
                    format!("output {k}: not where the runtime left it"),
                    &"Output",
                ));
            };
            outs.push(m.array(py, bytes)?);
        }
        self.out_buf = out_buf;
        Ok(outs)
    }

    /// get_tensor(index) -> numpy.ndarray
    ///
    /// Tensor `index` of the model: a constant's data, or (with `preserve_all_tensors=True`)
    /// the value a graph input or an operator's output had in the last inference.
    fn get_tensor(&self, py: Python<'_>, index: usize) -> PyResult<PyObject> {
        let Some(m) = self.tensors.get(index) else {
            return Err(PyIndexError::new_err(format!(
                "tensor {index}: the model has {} tensors",
                self.tensors.len()
            )));
        };
        if let Some(Some(b)) = self.recorded.get(index) {
            return m.array(py, b);
        }
        if m.constant {
            let data = synaptic_tflite::Model::new(self.loaded.model())
                .and_then(|fbm| {
                    let sg = fbm.subgraph(0)?;
                    let t = sg.tensor(index)?;
                    fbm.tensor_data(&t)
                })
                .map_err(|e| PyValueError::new_err(format!("tensor {index}: {e:?}")))?;
            return m.array(py, data);
        }
        Err(PyValueError::new_err(if self.preserve {
            format!(
                "tensor {index} ({:?}) holds no value of the last inference (none run yet, or \
                 no operator writes it)",
                m.name
            )
        } else {
            format!(
                "tensor {index} ({:?}) was not preserved: make the Interpreter with \
                 preserve_all_tensors=True",
                m.name
            )
        }))
    }

    /// intermediates() -> dict[int, numpy.ndarray]
    ///
    /// With `preserve_all_tensors=True`: every tensor the last inference gave a value (the
    /// graph inputs and every operator's outputs), by tensor index.
    fn intermediates(&self, py: Python<'_>) -> PyResult<Py<PyDict>> {
        let d = PyDict::new(py);
        for (t, b) in self.recorded.iter().enumerate() {
            if let Some(b) = b {
                d.set_item(t, self.tensors[t].array(py, b)?)?;
            }
        }
        Ok(d.unbind())
    }

    /// memory() -> dict
    ///
    /// The RAM figures, with the names of `synmem run --json`: `ram_bytes` (arena + SHARED
    /// region: `plan()`'s `ram_bytes` for the same io / op_data / overlap), `arena_bytes`,
    /// `persistent_bytes`, `planned_ephemeral_bytes`, `scratch_peak_bytes`, `shared_bytes`, …
    fn memory(&self, py: Python<'_>) -> PyResult<Py<PyDict>> {
        let m = self.loaded.memory();
        let stats = self.loaded.stats();
        let shared_region = if m.shared == 0 {
            0
        } else {
            self.config.shared_size
        };
        let d = PyDict::new(py);
        d.set_item("ram_bytes", self.config.arena_size + shared_region)?;
        d.set_item("model", &self.name)?;
        d.set_item(
            "io",
            match self.config.io {
                IoPlacement::Shared => "shared",
                IoPlacement::Ephemeral => "plan",
            },
        )?;
        d.set_item("op_data", self.config.op_data.name())?;
        d.set_item("program_bytes", m.program_bytes)?;
        d.set_item("program_flash_bytes", m.program_flash)?;
        d.set_item("persistent_bytes", m.persistent)?;
        d.set_item("tables_bytes", m.tables)?;
        d.set_item("locations_bytes", m.locations)?;
        d.set_item("plan_descriptors_bytes", m.plan_descriptors)?;
        d.set_item("state_bytes", m.state)?;
        d.set_item("planned_ephemeral_bytes", m.planned)?;
        d.set_item("scratch_peak_bytes", stats.scratch_peak)?;
        d.set_item("shared_bytes", m.shared)?;
        d.set_item("descriptors_bytes", m.descriptors)?;
        d.set_item("total_bytes", m.total())?;
        d.set_item("overlap", self.config.overlap)?;
        d.set_item("overlap_pairs", self.overlap_pairs)?;
        d.set_item("poison", self.config.poison)?;
        d.set_item("arena_bytes", self.config.arena_size)?;
        d.set_item("scratch_pool_bytes", self.config.scratch)?;
        d.set_item("shared_region_bytes", shared_region)?;
        Ok(d.unbind())
    }

    /// reset_state()
    ///
    /// Sets the model's state (its variable tensors: SVDF and LSTM memories, carried from one
    /// invoke to the next) back to its value at load, as TFLM's `ResetVariableTensors`
    /// (`Interpreter::reset_state` of synaptic-run, in place: O(state bytes)); the outputs of
    /// the next inferences are those of a new Interpreter. A model without state is left as
    /// it is.
    fn reset_state(&mut self) {
        self.loaded.reset_state();
        self.recorded = vec![None; self.tensors.len()];
        self.invocations = 0;
    }

    fn __repr__(&self) -> String {
        format!(
            "Interpreter({:?}, io={:?}, overlap={}, op_data={:?}, arena_bytes={})",
            self.name,
            match self.config.io {
                IoPlacement::Shared => "shared",
                IoPlacement::Ephemeral => "plan",
            },
            if self.config.overlap { "True" } else { "False" },
            self.config.op_data.name(),
            self.config.arena_size
        )
    }
}

/// [`Loaded::invoke`] with the GIL released (`Python::allow_threads`), so other Python
/// threads run during the inference.
fn invoke_without_gil(
    py: Python<'_>,
    loaded: &mut Loaded,
    input: Option<&[u8]>,
    output: Option<&mut [u8]>,
    observe: Option<Observer<'_>>,
) -> Result<(), synaptic_run::RunError> {
    py.allow_threads(move || loaded.invoke(input, output, observe))
}
