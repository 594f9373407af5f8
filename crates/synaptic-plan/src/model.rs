//! The imported model: the main subgraph's tensors and operators.

use crate::error::ImportError;
use crate::text::printable;
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::Path;
use synaptic_run::contract::SafeOverlap;

/// Element type of a TFLite tensor (`TensorType` in TFLite's schema, same numeric values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[allow(missing_docs)]
pub enum TensorType {
    Float32,
    Float16,
    Int32,
    UInt8,
    Int64,
    String,
    Bool,
    Int16,
    Complex64,
    Int8,
    Float64,
    Complex128,
    UInt64,
    Resource,
    Variant,
    UInt32,
    UInt16,
    Int4,
    BFloat16,
}

impl TensorType {
    /// Every type, in schema order: `ALL[v]` has schema value `v` (the discriminants).
    const ALL: [TensorType; 19] = {
        use TensorType::*;
        [
            Float32, Float16, Int32, UInt8, Int64, String, Bool, Int16, Complex64, Int8, Float64,
            Complex128, UInt64, Resource, Variant, UInt32, UInt16, Int4, BFloat16,
        ]
    };

    /// The type with TFLite schema value `v` (the values are the reader's,
    /// [`synaptic_tflite::TensorType::from_code`]; this enum only adds serde).
    pub fn from_schema(v: u8) -> Option<Self> {
        let code = synaptic_tflite::TensorType::from_code(v)? as usize;
        Self::ALL.get(code).copied()
    }

    /// Bits per element, or `None` for types without a fixed size (string, resource, variant).
    pub fn bits(self) -> Option<u64> {
        self.schema().bits()
    }

    /// The same type in the shared reader, [`synaptic_tflite::TensorType`] (same schema
    /// values; this enum adds `serde`).
    ///
    /// ```
    /// use synaptic_plan::TensorType;
    /// for v in 0..=18u8 {
    ///     let t = TensorType::from_schema(v).unwrap();
    ///     assert_eq!(t.schema() as u8, v);
    /// }
    /// ```
    pub fn schema(self) -> synaptic_tflite::TensorType {
        // The discriminants are the schema values (declared in schema order, 0..=18).
        synaptic_tflite::TensorType::from_code(self as u8)
            .unwrap_or(synaptic_tflite::TensorType::String)
    }

    /// Bytes of a tensor of this type and `shape`: elements × bits per element, rounded up to
    /// whole bytes (INT4: two per byte). The one TFLite byte-size rule of this crate. `None` for
    /// types without a fixed size or when the count overflows `u64`.
    ///
    /// ```
    /// use synaptic_plan::TensorType;
    /// assert_eq!(TensorType::Int4.bytes_of(&[3, 3]), Some(5));
    /// assert_eq!(TensorType::Float32.bytes_of(&[]), Some(4)); // a scalar
    /// assert_eq!(TensorType::String.bytes_of(&[2]), None);
    /// ```
    pub fn bytes_of(self, shape: &[u32]) -> Option<u64> {
        self.schema().bytes_of(shape)
    }

    /// Short name, as in the reference lifetime tables (`i8`, `f32`, `u64`, …).
    pub fn short_name(self) -> &'static str {
        self.schema().short_name()
    }
}

/// What role a tensor plays in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TensorKind {
    /// Constant data (weights, biases) in model buffer `buffer`.
    Constant {
        /// Index of the model buffer holding the data.
        buffer: u32,
    },
    /// A variable tensor (LSTM/SVDF state): persistent, mutable, survives inferences.
    Variable,
    /// An activation: produced or consumed by an operator, or a graph input/output.
    Activation,
    /// Referenced by no operator input/output and not a graph input/output (for example an
    /// operator's `intermediates`): never allocated.
    Unused,
}

/// One tensor of the main subgraph.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TensorInfo {
    /// Index in the subgraph's tensor list.
    pub index: usize,
    /// Name (may be empty).
    pub name: String,
    /// Element type.
    pub dtype: TensorType,
    /// Dimensions (empty for a scalar).
    pub shape: Vec<u32>,
    /// Bytes of data: elements × element size (INT4 rounded up to whole bytes).
    pub bytes: u64,
    /// Memory role.
    pub kind: TensorKind,
    /// Whether it is a graph input.
    pub is_input: bool,
    /// Whether it is a graph output.
    pub is_output: bool,
    /// An output holding a kernel's own state (synaptic-run's rule,
    /// `synaptic_run::ops::state_output_of`: the spectral subtraction's noise estimate):
    /// [`TensorKind::Variable`] here, an activation in TFLM's plan (TFLM keeps the state in a
    /// persistent buffer and copies it there).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub kernel_state: bool,
}

impl TensorInfo {
    /// Shape in the reference tables' format: dimensions joined by `x` (`1x49x10x1`), empty
    /// for a scalar.
    pub fn shape_string(&self) -> String {
        self.shape
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("x")
    }
    /// Whether the tensor is an activation (non-constant, non-variable, used).
    pub fn is_activation(&self) -> bool {
        self.kind == TensorKind::Activation
    }
}

/// One operator, in execution order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Operator {
    /// Position in execution order (0-based).
    pub index: usize,
    /// Builtin operator name (`CONV_2D`) or custom code.
    pub opcode: String,
    /// Input tensor indices (optional inputs, `-1` in the file, are left out).
    pub inputs: Vec<usize>,
    /// Output tensor indices.
    pub outputs: Vec<usize>,
    /// Intermediate tensor indices (not allocated).
    pub intermediates: Vec<usize>,
    /// The safe overlaps of the output with each input that has an access contract
    /// ([`synaptic_run::ops::contract_of`]: the runtime's own derivation), derived at import: `(input tensor, safe
    /// overlap)`. Empty for kernels without a contract. Not serialized.
    #[serde(skip)]
    pub overlaps: Vec<(usize, SafeOverlap)>,
    /// The block of the scratch pool synaptic-run's kernel for this operator takes per call
    /// ([`synaptic_run::ops::scratch_of`]: the runtime's own buffer-size function), 0 if it
    /// takes none or does not load. Not serialized.
    #[serde(skip)]
    pub kernel_scratch: usize,
    /// The bytes of the private state synaptic-run's kernel for this operator keeps across
    /// invocations ([`synaptic_run::ops::private_state_of`]: a signal library delay line's),
    /// 0 if it keeps none or does not load: persistent, as a variable tensor. Not serialized.
    #[serde(skip)]
    pub kernel_state: usize,
}

/// Output elements whose contracts one import may derive in total (each derivation is O(n) in
/// its output elements): beyond it, operators get no contract, so a hostile model cannot make
/// the import slow (the shared models need under 10⁶).
pub const CONTRACT_WORK_BUDGET: u64 = 1 << 26;

/// A `.tflite` model's main subgraph (subgraph 0), as needed for memory planning.
///
/// ```no_run
/// use synaptic_plan::Model;
/// let model = Model::from_file("person_detect.tflite")?;
/// println!("{} tensors, {} operators, {} weight bytes",
///          model.tensors.len(), model.operators.len(), model.weights_bytes);
/// # Ok::<(), synaptic_plan::ImportError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Model {
    /// Model name (file stem when read from a file, otherwise the subgraph name or "model").
    pub name: String,
    /// All tensors of the main subgraph.
    pub tensors: Vec<TensorInfo>,
    /// Operators in execution order.
    pub operators: Vec<Operator>,
    /// Graph input tensor indices.
    pub inputs: Vec<usize>,
    /// Graph output tensor indices.
    pub outputs: Vec<usize>,
    /// Number of subgraphs in the file. Only the first is planned; a file whose other
    /// subgraphs hold tensors or operators is refused ([`ImportError::UnsizedSubgraph`]).
    pub subgraphs: usize,
    /// Bytes of constant data: each distinct buffer used by a constant tensor counted once.
    pub weights_bytes: u64,
}

/// Largest model file [`Model::from_file`] reads (64 MiB); [`Model::from_file_limited`] takes
/// another limit (`synmem --max-file-bytes`).
pub const DEFAULT_MAX_FILE_BYTES: u64 = 64 << 20;

/// Largest number of tensors or operators accepted (hostile-file guard).
pub const MAX_ITEMS: usize = 1 << 20;

fn builtin_name(code: i32) -> String {
    synaptic_tflite::builtin_name(code)
        .map(|s| s.to_string())
        .unwrap_or_else(|| format!("BUILTIN_{code}"))
}

/// The reader's error in this crate's terms.
impl From<synaptic_tflite::Error> for ImportError {
    fn from(e: synaptic_tflite::Error) -> Self {
        use synaptic_tflite::Error as E;
        match e {
            E::Truncated { len } => ImportError::Truncated { len },
            E::NotTflite { found } => ImportError::NotTflite {
                found: String::from_utf8_lossy(&found).into_owned(),
            },
            E::Malformed { what, pos } => ImportError::Verifier {
                detail: format!("{what} at byte {pos}"),
            },
            E::Invalid { what, index } => ImportError::invalid(format!("{what} ({index})")),
        }
    }
}

fn lossy(b: Option<&[u8]>) -> Option<String> {
    b.map(|b| String::from_utf8_lossy(b).into_owned())
}

fn tensor_index(v: i32, n: usize, what: &str) -> Result<Option<usize>, ImportError> {
    if v == -1 {
        return Ok(None);
    }
    match usize::try_from(v) {
        Ok(i) if i < n => Ok(Some(i)),
        _ => Err(ImportError::invalid(format!(
            "{what} refers to tensor {v}, but the subgraph has {n} tensors"
        ))),
    }
}

/// Opcodes that run other subgraphs.
const CONTROL_FLOW: &[&str] = &["IF", "WHILE", "CALL_ONCE", "CALL"];

/// Refuses a file whose subgraphs other than the main one hold tensors or operators: TFLM
/// allocates them all, and only the main one is planned, so sizing the main one alone could
/// under-report the arena. The error names the first such subgraph and the main subgraph's
/// first control-flow operator.
fn check_other_subgraphs(
    model: &synaptic_tflite::Model<'_>,
    main_ops: &[Operator],
) -> Result<(), ImportError> {
    for i in 1..model.subgraphs_len()? {
        let sg = model.subgraph(i)?;
        let tensors = sg.tensors_len()?;
        let operators = sg.operators_len()?;
        if tensors == 0 && operators == 0 {
            continue;
        }
        return Err(ImportError::UnsizedSubgraph {
            subgraph: i,
            name: lossy(sg.name()?).unwrap_or_default(),
            operators,
            tensors,
            caller: main_ops
                .iter()
                .find(|op| CONTROL_FLOW.contains(&op.opcode.as_str()))
                .map(|op| (op.index, op.opcode.clone())),
        });
    }
    Ok(())
}

impl Model {
    /// Reads and imports a `.tflite` file of at most [`DEFAULT_MAX_FILE_BYTES`]. The model's
    /// name is the file stem.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Model, ImportError> {
        Self::from_file_limited(path, DEFAULT_MAX_FILE_BYTES)
    }

    /// Reads ([`read_file_limited`]: regular files of at most `max_bytes` only) and imports a
    /// `.tflite` file. The model's name is the file stem.
    pub fn from_file_limited(path: impl AsRef<Path>, max_bytes: u64) -> Result<Model, ImportError> {
        let path = path.as_ref();
        let bytes = read_file_limited(path, max_bytes)?;
        let mut m = Model::from_bytes(&bytes)?;
        if let Some(stem) = path.file_stem() {
            m.name = stem.to_string_lossy().into_owned();
        }
        Ok(m)
    }

    /// Imports a `.tflite` model from its bytes: opens it with the shared reader
    /// ([`synaptic_tflite::Model::new`]: `TFL3` identifier, then the structure verified once,
    /// every access bounds-checked), then reads the main subgraph. Never panics.
    ///
    /// ```
    /// use synaptic_plan::Model;
    /// assert!(Model::from_bytes(&[]).is_err());
    /// assert!(Model::from_bytes(&[0xff; 64]).is_err());
    /// ```
    pub fn from_bytes(buf: &[u8]) -> Result<Model, ImportError> {
        let fbm = synaptic_tflite::Model::new(buf)?;
        Self::read(&fbm)
    }

    fn read(fbm: &synaptic_tflite::Model<'_>) -> Result<Model, ImportError> {
        if fbm.subgraphs_len()? == 0 {
            return Err(ImportError::NoSubgraph);
        }
        let sg = fbm.subgraph(0)?;
        let n = sg.tensors_len()?;
        let n_ops = sg.operators_len()?;
        if n > MAX_ITEMS || n_ops > MAX_ITEMS {
            return Err(ImportError::unsupported(format!(
                "{n} tensors / {n_ops} operators (limit {MAX_ITEMS})"
            )));
        }

        let mut inputs = Vec::new();
        for v in sg.inputs()?.iter() {
            if let Some(i) = tensor_index(v, n, "graph input")? {
                inputs.push(i);
            }
        }
        let mut outputs = Vec::new();
        for v in sg.outputs()?.iter() {
            if let Some(i) = tensor_index(v, n, "graph output")? {
                outputs.push(i);
            }
        }

        // Opcode names.
        let n_codes = fbm.operator_codes_len()?;
        let mut opcode_names = Vec::with_capacity(n_codes);
        for i in 0..n_codes {
            let c = fbm.operator_code(i)?;
            let name = if c.builtin == synaptic_tflite::code::CUSTOM {
                lossy(c.custom).unwrap_or_else(|| "CUSTOM".to_string())
            } else {
                builtin_name(c.builtin)
            };
            opcode_names.push(name);
        }

        // Operators.
        let mut operators = Vec::with_capacity(n_ops);
        let mut is_input = vec![false; n];
        let mut is_output = vec![false; n];
        for &i in &inputs {
            is_input[i] = true;
        }
        for &o in &outputs {
            is_output[o] = true;
        }
        let mut referenced: Vec<bool> = (0..n).map(|i| is_input[i] || is_output[i]).collect();
        let mut contract_budget = CONTRACT_WORK_BUDGET;
        // Outputs holding a kernel's own state (the runtime's rule): state like variables.
        let mut kernel_state = vec![false; n];
        for o in 0..n_ops {
            if let Some(t) = synaptic_run::ops::state_output_of(fbm, o) {
                if let Some(k) = kernel_state.get_mut(t) {
                    *k = true;
                }
            }
        }
        for o in 0..n_ops {
            let op = sg.operator(o)?;
            let code_index = op.opcode_index()? as usize;
            let opcode = opcode_names.get(code_index).cloned().ok_or_else(|| {
                ImportError::invalid(format!(
                    "operator {o} uses opcode {code_index}, but the model has {} opcodes",
                    opcode_names.len()
                ))
            })?;
            let mut oi = Vec::new();
            for v in op.inputs()?.iter() {
                if let Some(i) = tensor_index(v, n, &format!("operator {o} input"))? {
                    oi.push(i);
                    referenced[i] = true;
                }
            }
            let mut oo = Vec::new();
            for v in op.outputs()?.iter() {
                if let Some(i) = tensor_index(v, n, &format!("operator {o} output"))? {
                    oo.push(i);
                    referenced[i] = true;
                }
            }
            let mut inter = Vec::new();
            for v in op.intermediates()?.iter() {
                if let Some(i) = tensor_index(v, n, &format!("operator {o} intermediate"))? {
                    inter.push(i);
                }
            }
            let mut overlaps = Vec::new();
            if oo.len() == 1 {
                for (k, v) in op.inputs()?.iter().enumerate() {
                    let Some(t) = usize::try_from(v).ok() else {
                        continue;
                    };
                    let Some(c) = synaptic_run::ops::contract_of(fbm, o, k) else {
                        continue;
                    };
                    let work = c.out_elems as u64;
                    if work > contract_budget {
                        break;
                    }
                    contract_budget -= work;
                    if let Some(safe) = c.safe_overlap() {
                        overlaps.push((t, safe));
                    }
                }
            }
            operators.push(Operator {
                index: o,
                opcode,
                inputs: oi,
                outputs: oo,
                intermediates: inter,
                overlaps,
                kernel_scratch: synaptic_run::ops::scratch_of(fbm, o),
                kernel_state: synaptic_run::ops::private_state_of(fbm, o),
            });
        }

        // Tensors.
        let n_buffers = fbm.buffers_len()?;
        let mut tensors = Vec::with_capacity(n);
        let mut weight_buffers = BTreeSet::new();
        let mut weights_bytes = 0u64;
        for (t, &is_referenced) in referenced.iter().enumerate() {
            let tt = sg.tensor(t)?;
            let name = lossy(tt.name()?).unwrap_or_default();
            let type_code = tt.type_code()?;
            let dtype = TensorType::from_schema(type_code).ok_or_else(|| {
                ImportError::unsupported(format!("tensor {t}: unknown tensor type {type_code}"))
            })?;
            let raw_shape = tt.shape()?;
            if raw_shape.len() > 16 {
                return Err(ImportError::unsupported(format!(
                    "tensor {t}: {} dimensions",
                    raw_shape.len()
                )));
            }
            let mut shape = Vec::with_capacity(raw_shape.len());
            for d in raw_shape.iter() {
                let d = u32::try_from(d).map_err(|_| {
                    ImportError::unsupported(format!(
                        "tensor {t} ({}): negative (dynamic) dimension {d}",
                        printable(&name)
                    ))
                })?;
                shape.push(d);
            }
            let is_variable = tt.is_variable()? || kernel_state[t];
            let buffer = tt.buffer()?;
            let (has_data, data_len) = if buffer == 0 {
                (false, 0)
            } else {
                if buffer as usize >= n_buffers {
                    return Err(ImportError::invalid(format!(
                        "tensor {t} uses buffer {buffer}, but the model has {n_buffers} buffers"
                    )));
                }
                let b = fbm.buffer(buffer as usize)?;
                let data = b.data()?.len() as u64;
                // Models over 2 GB keep data outside the flatbuffer (offset > 1, size).
                let offset = b.offset()?;
                let size = b.size()?;
                if data > 0 {
                    (true, data)
                } else if offset > 1 {
                    (true, size)
                } else {
                    (false, 0)
                }
            };
            let kind = if is_variable {
                TensorKind::Variable
            } else if has_data {
                if weight_buffers.insert(buffer) {
                    weights_bytes += data_len;
                }
                TensorKind::Constant { buffer }
            } else if is_referenced {
                TensorKind::Activation
            } else {
                TensorKind::Unused
            };
            let bytes = tensor_bytes(&shape, dtype, kind, t)?;
            tensors.push(TensorInfo {
                index: t,
                name,
                dtype,
                shape,
                bytes,
                kind,
                is_input: is_input[t],
                is_output: is_output[t],
                kernel_state: kernel_state[t],
            });
        }

        check_other_subgraphs(fbm, &operators)?;

        let name = lossy(sg.name()?)
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "model".to_string());
        Ok(Model {
            name,
            tensors,
            operators,
            inputs,
            outputs,
            subgraphs: fbm.subgraphs_len()?,
            weights_bytes,
        })
    }

    /// Indices of the activation tensors, ascending.
    pub fn activations(&self) -> impl Iterator<Item = &TensorInfo> {
        self.tensors.iter().filter(|t| t.is_activation())
    }

    /// Bytes of all activations, unrounded (the "act sum" of the models README).
    pub fn activation_sum_bytes(&self) -> u64 {
        self.activations().map(|t| t.bytes).sum()
    }
}

/// Largest tensor accepted: the core's limit ([`synaptic_mem::MAX_TENSOR_BYTES`]).
fn tensor_bytes(
    shape: &[u32],
    dtype: TensorType,
    kind: TensorKind,
    t: usize,
) -> Result<u64, ImportError> {
    if dtype.bits().is_none() {
        return match kind {
            TensorKind::Activation | TensorKind::Variable => Err(ImportError::unsupported(
                format!("tensor {t}: {dtype:?} activations have no fixed size"),
            )),
            _ => Ok(0),
        };
    }
    let bytes = dtype
        .bytes_of(shape)
        .ok_or_else(|| ImportError::unsupported(format!("tensor {t}: element count overflows")))?;
    if bytes == 0 && matches!(kind, TensorKind::Activation | TensorKind::Variable) {
        return Err(ImportError::unsupported(format!(
            "tensor {t}: zero-sized {} tensor",
            if kind == TensorKind::Variable {
                "variable"
            } else {
                "activation"
            }
        )));
    }
    let max: u64 = synaptic_mem::MAX_TENSOR_BYTES.into();
    if bytes > max && kind != TensorKind::Unused {
        return Err(ImportError::unsupported(format!(
            "tensor {t}: {bytes} bytes exceeds the arena's per-tensor limit of {max} bytes"
        )));
    }
    Ok(bytes)
}

/// Reads the file at `path`, refusing anything that is not a regular file (a directory, a
/// device such as `/dev/zero`, a pipe) and files over `max_bytes`, so a read never grows
/// without bound. Errors name the path.
///
/// ```
/// use synaptic_plan::{read_file_limited, ImportError};
/// # #[cfg(unix)] {
/// assert!(matches!(read_file_limited("/dev/zero", 1 << 20), Err(ImportError::Io { .. })));
/// # }
/// ```
pub fn read_file_limited(path: impl AsRef<Path>, max_bytes: u64) -> Result<Vec<u8>, ImportError> {
    use std::io::Read;
    let path = path.as_ref();
    let io = |detail: String| ImportError::Io {
        path: path.display().to_string(),
        detail,
    };
    let too_large = |bytes: u64| ImportError::FileTooLarge {
        path: path.display().to_string(),
        bytes,
        limit: max_bytes,
    };
    let regular = |m: &std::fs::Metadata| -> Result<(), ImportError> {
        if m.is_file() {
            Ok(())
        } else if m.is_dir() {
            Err(io("is a directory, not a model file".into()))
        } else {
            Err(io(
                "not a regular file (a device, pipe or socket); refusing to read it".into(),
            ))
        }
    };
    // Check before opening: opening a pipe would block.
    let meta = std::fs::metadata(path).map_err(|e| io(e.to_string()))?;
    regular(&meta)?;
    if meta.len() > max_bytes {
        return Err(too_large(meta.len()));
    }
    let file = std::fs::File::open(path).map_err(|e| io(e.to_string()))?;
    regular(&file.metadata().map_err(|e| io(e.to_string()))?)?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| io(e.to_string()))?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}
