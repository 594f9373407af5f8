//! Typed views of the schema tables: [`Model`], [`SubGraph`], [`Tensor`], [`Quantization`],
//! [`Operator`], [`OperatorCode`], [`Buffer`], [`Metadata`] and the builtin option tables.
//! Every view is a `Copy` handle into the model bytes; reading a field is a few checked loads.

use crate::fb::{Table, Vector};
use crate::Error;

fn invalid(what: &'static str, index: impl TryInto<i64>) -> Error {
    Error::Invalid {
        what,
        index: index.try_into().unwrap_or(i64::MAX),
    }
}

/// Element type of a tensor (`TensorType` in TFLite's schema, same numeric values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum TensorType {
    Float32 = 0,
    Float16 = 1,
    Int32 = 2,
    UInt8 = 3,
    Int64 = 4,
    String = 5,
    Bool = 6,
    Int16 = 7,
    Complex64 = 8,
    Int8 = 9,
    Float64 = 10,
    Complex128 = 11,
    UInt64 = 12,
    Resource = 13,
    Variant = 14,
    UInt32 = 15,
    UInt16 = 16,
    Int4 = 17,
    BFloat16 = 18,
}

impl TensorType {
    /// The type with schema value `v`, or `None` for a value this schema does not define.
    pub fn from_code(v: u8) -> Option<Self> {
        use TensorType::*;
        Some(match v {
            0 => Float32,
            1 => Float16,
            2 => Int32,
            3 => UInt8,
            4 => Int64,
            5 => String,
            6 => Bool,
            7 => Int16,
            8 => Complex64,
            9 => Int8,
            10 => Float64,
            11 => Complex128,
            12 => UInt64,
            13 => Resource,
            14 => Variant,
            15 => UInt32,
            16 => UInt16,
            17 => Int4,
            18 => BFloat16,
            _ => return None,
        })
    }

    /// Bits per element, or `None` for types without a fixed size (string, resource, variant).
    pub fn bits(self) -> Option<u64> {
        use TensorType::*;
        Some(match self {
            Int4 => 4,
            Bool | Int8 | UInt8 => 8,
            Int16 | UInt16 | Float16 | BFloat16 => 16,
            Int32 | UInt32 | Float32 => 32,
            Int64 | UInt64 | Float64 | Complex64 => 64,
            Complex128 => 128,
            String | Resource | Variant => return None,
        })
    }

    /// Bytes of a tensor of this type and `shape`: elements × bits per element, rounded up to
    /// whole bytes (INT4: two per byte). The one TFLite byte-size rule of SynapticOS. `None`
    /// for types without a fixed size or when the count overflows `u64`.
    ///
    /// ```
    /// use synaptic_tflite::TensorType;
    /// assert_eq!(TensorType::Int4.bytes_of(&[3, 3]), Some(5));
    /// assert_eq!(TensorType::Float32.bytes_of(&[]), Some(4)); // a scalar
    /// assert_eq!(TensorType::String.bytes_of(&[2]), None);
    /// ```
    pub fn bytes_of(self, shape: &[u32]) -> Option<u64> {
        let bits = self.bits()?;
        shape
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d as u64))?
            .checked_mul(bits)
            .map(|b| b.div_ceil(8))
    }

    /// Short name, as in the reference lifetime tables (`i8`, `f32`, `u64`, …).
    pub fn short_name(self) -> &'static str {
        use TensorType::*;
        match self {
            Float32 => "f32",
            Float16 => "f16",
            Int32 => "i32",
            UInt8 => "u8",
            Int64 => "i64",
            String => "string",
            Bool => "bool",
            Int16 => "i16",
            Complex64 => "c64",
            Int8 => "i8",
            Float64 => "f64",
            Complex128 => "c128",
            UInt64 => "u64",
            Resource => "resource",
            Variant => "variant",
            UInt32 => "u32",
            UInt16 => "u16",
            Int4 => "i4",
            BFloat16 => "bf16",
        }
    }
}

/// A verified `.tflite` model over its bytes.
#[derive(Clone, Copy, Debug)]
pub struct Model<'m> {
    buf: &'m [u8],
    root: Table<'m>,
    // The root's vectors, found once (each accessor of an element would find them again).
    operator_codes: Vector<'m>,
    subgraphs: Vector<'m>,
    buffers: Vector<'m>,
}

impl<'m> Model<'m> {
    /// Opens a model: checks the `TFL3` identifier, then verifies every table, vector and
    /// string the accessors of this crate read. Never panics, on any bytes.
    ///
    /// ```
    /// use synaptic_tflite::{Error, Model};
    /// assert_eq!(Model::new(b"abc").unwrap_err(), Error::Truncated { len: 3 });
    /// assert!(matches!(Model::new(&[0u8; 64]), Err(Error::NotTflite { .. })));
    /// ```
    pub fn new(buf: &'m [u8]) -> Result<Self, Error> {
        let m = Model::open(buf)?;
        m.verify()?;
        Ok(m)
    }

    /// Opens a model without [`Model::new`]'s walk over all of it: checks the `TFL3`
    /// identifier, the root table and its vectors of operator codes, subgraphs and buffers.
    /// Every accessor still checks what it reads, so a malformed part is an error when it is
    /// read (never a panic, never a read outside `buf`); a part never read is never checked.
    /// For a reader that visits what it needs once (a device loading a model at boot).
    ///
    /// ```
    /// use synaptic_tflite::Model;
    /// let bytes = synaptic_tflite::tests_support::tiny_model();
    /// let m = Model::open(bytes).unwrap();
    /// assert_eq!(m.subgraph(0).unwrap().operators_len().unwrap(), 1);
    /// ```
    pub fn open(buf: &'m [u8]) -> Result<Self, Error> {
        if buf.len() < 8 {
            return Err(Error::Truncated { len: buf.len() });
        }
        if &buf[4..8] != b"TFL3" {
            let mut found = [0u8; 4];
            found.copy_from_slice(&buf[4..8]);
            return Err(Error::NotTflite { found });
        }
        let root = Table::root(buf)?;
        let m = Model {
            buf,
            root,
            operator_codes: root.vector(1, 4)?,
            subgraphs: root.vector(2, 4)?,
            buffers: root.vector(4, 4)?,
        };
        Ok(m)
    }

    /// Visits everything the accessors read (see the crate docs).
    fn verify(&self) -> Result<(), Error> {
        self.version()?;
        self.description()?;
        for i in 0..self.operator_codes_len()? {
            self.operator_code(i)?;
        }
        let buffers = self.buffers_len()?;
        for i in 0..buffers {
            let b = self.buffer(i)?;
            b.data()?;
            b.offset()?;
            b.size()?;
        }
        for i in 0..self.metadata_len()? {
            let m = self.metadata(i)?;
            m.name()?;
            m.buffer()?;
        }
        for s in 0..self.subgraphs_len()? {
            let sg = self.subgraph(s)?;
            sg.inputs()?;
            sg.outputs()?;
            sg.name()?;
            for t in 0..sg.tensors_len()? {
                let t = sg.tensor(t)?;
                t.shape()?;
                t.type_code()?;
                t.buffer()?;
                t.name()?;
                t.is_variable()?;
                if let Some(q) = t.quantization()? {
                    q.scales()?;
                    q.zero_points()?;
                    q.quantized_dimension()?;
                }
            }
            for o in 0..sg.operators_len()? {
                let op = sg.operator(o)?;
                op.opcode_index()?;
                op.inputs()?;
                op.outputs()?;
                op.intermediates()?;
                op.builtin_options_type()?;
                op.builtin_options()?;
                op.custom_options()?;
            }
        }
        Ok(())
    }

    /// The model bytes.
    pub fn bytes(&self) -> &'m [u8] {
        self.buf
    }

    /// The root `Model` table, for reading fields this crate has no accessor for and for
    /// raw positions ([`Table::position`], [`Table::offset_target`]).
    pub fn root(&self) -> Table<'m> {
        self.root
    }

    /// Schema version (field `version`).
    pub fn version(&self) -> Result<u32, Error> {
        self.root.u32_or(0, 0)
    }

    /// The description string, if any (raw bytes).
    pub fn description(&self) -> Result<Option<&'m [u8]>, Error> {
        self.root.string(3)
    }

    /// Number of operator codes.
    pub fn operator_codes_len(&self) -> Result<usize, Error> {
        Ok(self.operator_codes.len())
    }

    /// Operator code `i`.
    pub fn operator_code(&self, i: usize) -> Result<OperatorCode<'m>, Error> {
        let v = self.operator_codes;
        if i >= v.len() {
            return Err(invalid("operator code index out of range", i));
        }
        let t = v.table(i)?;
        let deprecated = t.i8_or(0, 0)? as i32;
        let builtin = t.i32_or(3, 0)?;
        Ok(OperatorCode {
            builtin: builtin.max(deprecated),
            custom: t.string(1)?,
            version: t.i32_or(2, 1)?,
        })
    }

    /// Number of subgraphs.
    pub fn subgraphs_len(&self) -> Result<usize, Error> {
        Ok(self.subgraphs.len())
    }

    /// Subgraph `i` (0 is the main one).
    pub fn subgraph(&self, i: usize) -> Result<SubGraph<'m>, Error> {
        let v = self.subgraphs;
        if i >= v.len() {
            return Err(invalid("subgraph index out of range", i));
        }
        let table = v.table(i)?;
        Ok(SubGraph {
            table,
            tensors: table.vector(0, 4)?,
            operators: table.vector(3, 4)?,
        })
    }

    /// Number of buffers.
    pub fn buffers_len(&self) -> Result<usize, Error> {
        Ok(self.buffers.len())
    }

    /// Buffer `i`.
    pub fn buffer(&self, i: usize) -> Result<Buffer<'m>, Error> {
        let v = self.buffers;
        if i >= v.len() {
            return Err(invalid("buffer index out of range", i));
        }
        Ok(Buffer(v.table(i)?))
    }

    /// Number of metadata entries.
    pub fn metadata_len(&self) -> Result<usize, Error> {
        Ok(self.root.vector(6, 4)?.len())
    }

    /// Metadata entry `i`.
    pub fn metadata(&self, i: usize) -> Result<Metadata<'m>, Error> {
        let v = self.root.vector(6, 4)?;
        if i >= v.len() {
            return Err(invalid("metadata index out of range", i));
        }
        Ok(Metadata(v.table(i)?))
    }

    /// The constant data of tensor `t`: its buffer's bytes, borrowed from the model (empty
    /// for buffer 0 or an empty buffer). Data stored outside the FlatBuffer (models over
    /// 2 GB: `offset`/`size`) is reported as an error.
    pub fn tensor_data(&self, t: &Tensor<'m>) -> Result<&'m [u8], Error> {
        let b = t.buffer()?;
        if b == 0 {
            return Ok(&[]);
        }
        let buf = self.buffer(b as usize)?;
        let data = buf.data()?;
        if data.is_empty() && buf.offset()? > 1 {
            return Err(invalid(
                "buffer stored outside the flatbuffer (offset/size) is not supported",
                b,
            ));
        }
        Ok(data)
    }
}

/// An operator code: which operator an [`Operator`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperatorCode<'m> {
    /// The builtin code: `max(deprecated_builtin_code, builtin_code)`, as TFLite reads it.
    pub builtin: i32,
    /// The custom code (raw bytes), for `CUSTOM` operators.
    pub custom: Option<&'m [u8]>,
    /// The operator version.
    pub version: i32,
}

/// `StridedSliceOptions`: bit `i` of a mask applies to dimension `i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StridedSliceOptions {
    /// Dimensions whose begin index is ignored (the start of the dimension).
    pub begin_mask: i32,
    /// Dimensions whose end index is ignored (the end of the dimension).
    pub end_mask: i32,
    /// Dimensions standing for an ellipsis.
    pub ellipsis_mask: i32,
    /// Dimensions inserted with size 1.
    pub new_axis_mask: i32,
    /// Dimensions removed from the output (one index taken).
    pub shrink_axis_mask: i32,
    /// Whether `end` is an offset from `begin`.
    pub offset: bool,
}

/// A buffer of constant data.
#[derive(Clone, Copy, Debug)]
pub struct Buffer<'m>(Table<'m>);

impl<'m> Buffer<'m> {
    /// The data bytes, borrowed from the model (no copy; empty if absent).
    pub fn data(&self) -> Result<&'m [u8], Error> {
        Ok(self.0.vector(0, 1)?.bytes())
    }
    /// Offset of data stored outside the FlatBuffer (models over 2 GB), 0 or 1 if none.
    pub fn offset(&self) -> Result<u64, Error> {
        self.0.u64_or(1, 0)
    }
    /// Size of data stored outside the FlatBuffer.
    pub fn size(&self) -> Result<u64, Error> {
        self.0.u64_or(2, 0)
    }
    /// The buffer's table (its byte position: [`Table::position`]).
    pub fn table(&self) -> Table<'m> {
        self.0
    }
}

/// A metadata entry: a name and a buffer index.
#[derive(Clone, Copy, Debug)]
pub struct Metadata<'m>(Table<'m>);

impl<'m> Metadata<'m> {
    /// The name (raw bytes), if any.
    pub fn name(&self) -> Result<Option<&'m [u8]>, Error> {
        self.0.string(0)
    }
    /// The buffer holding the metadata.
    pub fn buffer(&self) -> Result<u32, Error> {
        self.0.u32_or(1, 0)
    }
    /// The entry's table (its byte position: [`Table::position`]).
    pub fn table(&self) -> Table<'m> {
        self.0
    }
}

/// A vector of `int` (tensor indices, shapes); `-1` marks an absent optional tensor.
#[derive(Clone, Copy, Debug)]
pub struct Ints<'m>(Vector<'m>);

impl<'m> Ints<'m> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// Element `i`, or `None` past the end.
    pub fn get(&self, i: usize) -> Option<i32> {
        self.0.i32(i)
    }
    /// The elements.
    pub fn iter(&self) -> impl Iterator<Item = i32> + 'm {
        self.0.iter_i32()
    }
    /// The raw little-endian bytes.
    pub fn bytes(&self) -> &'m [u8] {
        self.0.bytes()
    }
}

/// A subgraph: tensors, operators in execution order, graph inputs and outputs.
#[derive(Clone, Copy, Debug)]
pub struct SubGraph<'m> {
    pub(crate) table: Table<'m>,
    // Its vectors of tensors and operators, found once.
    tensors: Vector<'m>,
    operators: Vector<'m>,
}

impl<'m> SubGraph<'m> {
    /// Number of tensors.
    pub fn tensors_len(&self) -> Result<usize, Error> {
        Ok(self.tensors.len())
    }
    /// Tensor `i`.
    pub fn tensor(&self, i: usize) -> Result<Tensor<'m>, Error> {
        let v = self.tensors;
        if i >= v.len() {
            return Err(invalid("tensor index out of range", i));
        }
        Ok(Tensor(v.table(i)?))
    }
    /// Graph input tensor indices.
    pub fn inputs(&self) -> Result<Ints<'m>, Error> {
        Ok(Ints(self.table.vector(1, 4)?))
    }
    /// Graph output tensor indices.
    pub fn outputs(&self) -> Result<Ints<'m>, Error> {
        Ok(Ints(self.table.vector(2, 4)?))
    }
    /// Number of operators.
    pub fn operators_len(&self) -> Result<usize, Error> {
        Ok(self.operators.len())
    }
    /// Operator `i` (execution order).
    pub fn operator(&self, i: usize) -> Result<Operator<'m>, Error> {
        let v = self.operators;
        if i >= v.len() {
            return Err(invalid("operator index out of range", i));
        }
        Ok(Operator(v.table(i)?))
    }
    /// The name (raw bytes), if any.
    pub fn name(&self) -> Result<Option<&'m [u8]>, Error> {
        self.table.string(4)
    }
}

/// A tensor of a subgraph.
#[derive(Clone, Copy, Debug)]
pub struct Tensor<'m>(pub(crate) Table<'m>);

impl<'m> Tensor<'m> {
    /// The dimensions (empty for a scalar; `-1` marks a dynamic dimension).
    pub fn shape(&self) -> Result<Ints<'m>, Error> {
        Ok(Ints(self.0.vector(0, 4)?))
    }
    /// The schema's type code (may be a value this crate does not know).
    pub fn type_code(&self) -> Result<u8, Error> {
        self.0.u8_or(1, 0)
    }
    /// The element type; an unknown code is [`Error::Invalid`].
    pub fn tensor_type(&self) -> Result<TensorType, Error> {
        let c = self.type_code()?;
        TensorType::from_code(c).ok_or(invalid("unknown tensor type", c))
    }
    /// Index of the buffer holding its constant data (0: none).
    pub fn buffer(&self) -> Result<u32, Error> {
        self.0.u32_or(2, 0)
    }
    /// The name (raw bytes), if any.
    pub fn name(&self) -> Result<Option<&'m [u8]>, Error> {
        self.0.string(3)
    }
    /// Whether it is a variable tensor (state kept across inferences).
    pub fn is_variable(&self) -> Result<bool, Error> {
        self.0.bool_or(5, false)
    }
    /// The quantization parameters, if any.
    pub fn quantization(&self) -> Result<Option<Quantization<'m>>, Error> {
        Ok(self.0.table(4)?.map(Quantization))
    }
}

/// Affine quantization of a tensor: `real = scale[c] * (q - zero_point[c])`, per tensor (one
/// entry) or per channel along [`Quantization::quantized_dimension`].
#[derive(Clone, Copy, Debug)]
pub struct Quantization<'m>(pub(crate) Table<'m>);

/// A vector of `float` (scales).
#[derive(Clone, Copy, Debug)]
pub struct Floats<'m>(Vector<'m>);

impl Floats<'_> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// Element `i`, or `None` past the end.
    pub fn get(&self, i: usize) -> Option<f32> {
        self.0.f32(i)
    }
    /// Every element in order (one bounds check for the whole vector, not one an element).
    pub fn iter(&self) -> impl Iterator<Item = f32> + '_ {
        self.0
            .bytes()
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

/// A vector of `long` (zero points).
#[derive(Clone, Copy, Debug)]
pub struct Longs<'m>(Vector<'m>);

impl Longs<'_> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// Element `i`, or `None` past the end.
    pub fn get(&self, i: usize) -> Option<i64> {
        self.0.i64(i)
    }
    /// Every element in order (one bounds check for the whole vector, not one an element).
    pub fn iter(&self) -> impl Iterator<Item = i64> + '_ {
        self.0
            .bytes()
            .chunks_exact(8)
            .map(|b| i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
    }
}

impl<'m> Quantization<'m> {
    /// The scales.
    pub fn scales(&self) -> Result<Floats<'m>, Error> {
        Ok(Floats(self.0.vector(2, 4)?))
    }
    /// The zero points.
    pub fn zero_points(&self) -> Result<Longs<'m>, Error> {
        Ok(Longs(self.0.vector(3, 8)?))
    }
    /// The dimension the per-channel entries run along.
    pub fn quantized_dimension(&self) -> Result<i32, Error> {
        self.0.i32_or(6, 0)
    }
}

/// An operator: which code it runs, its input and output tensors, its options.
#[derive(Clone, Copy, Debug)]
pub struct Operator<'m>(pub(crate) Table<'m>);

/// `BuiltinOptions` union type values of the option tables this crate reads.
#[allow(missing_docs)]
pub mod options_type {
    pub const CONV_2D: u8 = 1;
    pub const DEPTHWISE_CONV_2D: u8 = 2;
    pub const POOL_2D: u8 = 5;
    pub const SVDF: u8 = 6;
    pub const FULLY_CONNECTED: u8 = 8;
    pub const SOFTMAX: u8 = 9;
    pub const CONCATENATION: u8 = 10;
    pub const ADD: u8 = 11;
    pub const RESHAPE: u8 = 17;
    pub const MUL: u8 = 21;
    pub const REDUCER: u8 = 27;
    pub const SUB: u8 = 28;
    pub const DIV: u8 = 29;
    pub const SQUEEZE: u8 = 30;
    pub const STRIDED_SLICE: u8 = 32;
    pub const SPACE_TO_DEPTH: u8 = 19;
    pub const GATHER: u8 = 23;
    pub const ARG_MAX: u8 = 40;
    pub const ARG_MIN: u8 = 57;
    pub const PACK: u8 = 59;
    pub const UNPACK: u8 = 64;
    pub const RESIZE_NEAREST_NEIGHBOR: u8 = 74;
    pub const RESIZE_BILINEAR: u8 = 15;
    pub const LEAKY_RELU: u8 = 75;
    pub const L2_NORM: u8 = 12;
    pub const DEPTH_TO_SPACE: u8 = 94;
    pub const UNIDIRECTIONAL_SEQUENCE_LSTM: u8 = 71;
    pub const MIRROR_PAD: u8 = 77;
    pub const CUMSUM: u8 = 102;
    pub const BATCH_MATMUL: u8 = 101;
    pub const TRANSPOSE_CONV: u8 = 49;
}

impl<'m> Operator<'m> {
    /// Index into the model's operator codes.
    pub fn opcode_index(&self) -> Result<u32, Error> {
        self.0.u32_or(0, 0)
    }
    /// Input tensor indices (`-1`: absent optional input).
    pub fn inputs(&self) -> Result<Ints<'m>, Error> {
        Ok(Ints(self.0.vector(1, 4)?))
    }
    /// Output tensor indices.
    pub fn outputs(&self) -> Result<Ints<'m>, Error> {
        Ok(Ints(self.0.vector(2, 4)?))
    }
    /// Intermediate tensor indices (LSTM-style; not allocated by SynapticOS).
    pub fn intermediates(&self) -> Result<Ints<'m>, Error> {
        Ok(Ints(self.0.vector(8, 4)?))
    }
    /// The `BuiltinOptions` union type (0: none).
    pub fn builtin_options_type(&self) -> Result<u8, Error> {
        self.0.u8_or(3, 0)
    }
    /// The builtin options table, if any.
    pub fn builtin_options(&self) -> Result<Option<Table<'m>>, Error> {
        self.0.table(4)
    }
    /// The custom options bytes (empty if none).
    pub fn custom_options(&self) -> Result<&'m [u8], Error> {
        Ok(self.0.vector(5, 1)?.bytes())
    }

    /// The options table if it is of type `ty`; `None` if the operator has none (defaults
    /// apply); an error if it has options of another type.
    fn options(&self, ty: u8) -> Result<Option<Table<'m>>, Error> {
        match self.builtin_options()? {
            None => Ok(None),
            Some(t) => {
                let found = self.builtin_options_type()?;
                if found == ty {
                    Ok(Some(t))
                } else {
                    Err(invalid("builtin options of an unexpected type", found))
                }
            }
        }
    }

    /// `Conv2DOptions` (defaults if absent).
    pub fn conv2d_options(&self) -> Result<Conv2DOptions, Error> {
        let Some(t) = self.options(options_type::CONV_2D)? else {
            return Ok(Conv2DOptions::default());
        };
        Ok(Conv2DOptions {
            padding: t.i8_or(0, 0)?,
            stride_w: t.i32_or(1, 0)?,
            stride_h: t.i32_or(2, 0)?,
            fused_activation: t.i8_or(3, 0)?,
            dilation_w: t.i32_or(4, 1)?,
            dilation_h: t.i32_or(5, 1)?,
        })
    }

    /// `DepthwiseConv2DOptions` (defaults if absent).
    pub fn depthwise_conv2d_options(&self) -> Result<DepthwiseConv2DOptions, Error> {
        let Some(t) = self.options(options_type::DEPTHWISE_CONV_2D)? else {
            return Ok(DepthwiseConv2DOptions::default());
        };
        Ok(DepthwiseConv2DOptions {
            padding: t.i8_or(0, 0)?,
            stride_w: t.i32_or(1, 0)?,
            stride_h: t.i32_or(2, 0)?,
            depth_multiplier: t.i32_or(3, 0)?,
            fused_activation: t.i8_or(4, 0)?,
            dilation_w: t.i32_or(5, 1)?,
            dilation_h: t.i32_or(6, 1)?,
        })
    }

    /// `FullyConnectedOptions` (defaults if absent).
    pub fn fully_connected_options(&self) -> Result<FullyConnectedOptions, Error> {
        let Some(t) = self.options(options_type::FULLY_CONNECTED)? else {
            return Ok(FullyConnectedOptions::default());
        };
        Ok(FullyConnectedOptions {
            fused_activation: t.i8_or(0, 0)?,
            weights_format: t.i8_or(1, 0)?,
            keep_num_dims: t.bool_or(2, false)?,
            asymmetric_quantize_inputs: t.bool_or(3, false)?,
        })
    }

    /// `Pool2DOptions` (defaults if absent).
    pub fn pool2d_options(&self) -> Result<Pool2DOptions, Error> {
        let Some(t) = self.options(options_type::POOL_2D)? else {
            return Ok(Pool2DOptions::default());
        };
        Ok(Pool2DOptions {
            padding: t.i8_or(0, 0)?,
            stride_w: t.i32_or(1, 0)?,
            stride_h: t.i32_or(2, 0)?,
            filter_w: t.i32_or(3, 0)?,
            filter_h: t.i32_or(4, 0)?,
            fused_activation: t.i8_or(5, 0)?,
        })
    }

    /// `SVDFOptions` as (rank, fused activation); `None` if the operator has none (TFLM's
    /// parser then leaves both 0).
    pub fn svdf_options(&self) -> Result<Option<(i32, i8)>, Error> {
        match self.options(options_type::SVDF)? {
            Some(t) => Ok(Some((t.i32_or(0, 0)?, t.i8_or(1, 0)?))),
            None => Ok(None),
        }
    }

    /// `UnidirectionalSequenceLSTMOptions`; `None` if the operator has none (TFLM's parser
    /// then leaves every field 0).
    pub fn unidirectional_sequence_lstm_options(
        &self,
    ) -> Result<Option<SequenceLstmOptions>, Error> {
        let Some(t) = self.options(options_type::UNIDIRECTIONAL_SEQUENCE_LSTM)? else {
            return Ok(None);
        };
        Ok(Some(SequenceLstmOptions {
            fused_activation: t.i8_or(0, 0)?,
            cell_clip: t.f32_or(1, 0.0)?,
            proj_clip: t.f32_or(2, 0.0)?,
            time_major: t.bool_or(3, false)?,
            asymmetric_quantize_inputs: t.bool_or(4, false)?,
            diagonal_recurrent_tensors: t.bool_or(5, false)?,
        }))
    }

    /// `SoftmaxOptions.beta` (0.0 as the schema's default if the table is present without
    /// it; 1.0 if the operator has no options at all, as TFLM's parser).
    pub fn softmax_beta(&self) -> Result<f32, Error> {
        match self.options(options_type::SOFTMAX)? {
            Some(t) => t.f32_or(0, 0.0),
            None => Ok(1.0),
        }
    }

    /// The fused activation of an arithmetic operator's options (`AddOptions`, `SubOptions`,
    /// `MulOptions`, `DivOptions`: field 0 of each) for builtin `code` (0 if absent; 0 for
    /// any other code).
    pub fn arithmetic_activation(&self, code: i32) -> Result<i8, Error> {
        let ty = match code {
            crate::code::ADD => options_type::ADD,
            crate::code::SUB => options_type::SUB,
            crate::code::MUL => options_type::MUL,
            crate::code::DIV => options_type::DIV,
            crate::code::L2_NORMALIZATION => options_type::L2_NORM,
            _ => return Ok(0),
        };
        match self.options(ty)? {
            Some(t) => t.i8_or(0, 0),
            None => Ok(0),
        }
    }

    /// `StridedSliceOptions` (all masks 0 and `offset` false if absent).
    pub fn strided_slice_options(&self) -> Result<StridedSliceOptions, Error> {
        match self.options(options_type::STRIDED_SLICE)? {
            Some(t) => Ok(StridedSliceOptions {
                begin_mask: t.i32_or(0, 0)?,
                end_mask: t.i32_or(1, 0)?,
                ellipsis_mask: t.i32_or(2, 0)?,
                new_axis_mask: t.i32_or(3, 0)?,
                shrink_axis_mask: t.i32_or(4, 0)?,
                offset: t.bool_or(5, false)?,
            }),
            None => Ok(StridedSliceOptions::default()),
        }
    }

    /// `ConcatenationOptions` as (axis, fused activation).
    pub fn concatenation_options(&self) -> Result<(i32, i8), Error> {
        match self.options(options_type::CONCATENATION)? {
            Some(t) => Ok((t.i32_or(0, 0)?, t.i8_or(1, 0)?)),
            None => Ok((0, 0)),
        }
    }

    /// `PackOptions` as (values_count, axis) ((0, 0) if absent).
    pub fn pack_options(&self) -> Result<(i32, i32), Error> {
        match self.options(options_type::PACK)? {
            Some(t) => Ok((t.i32_or(0, 0)?, t.i32_or(1, 0)?)),
            None => Ok((0, 0)),
        }
    }

    /// `UnpackOptions` as (num, axis) ((0, 0) if absent).
    pub fn unpack_options(&self) -> Result<(i32, i32), Error> {
        match self.options(options_type::UNPACK)? {
            Some(t) => Ok((t.i32_or(0, 0)?, t.i32_or(1, 0)?)),
            None => Ok((0, 0)),
        }
    }

    /// `SpaceToDepthOptions.block_size` or `DepthToSpaceOptions.block_size` (`depth`: the
    /// latter), 0 if absent.
    pub fn block_size(&self, depth: bool) -> Result<i32, Error> {
        let ty = if depth {
            options_type::DEPTH_TO_SPACE
        } else {
            options_type::SPACE_TO_DEPTH
        };
        match self.options(ty)? {
            Some(t) => t.i32_or(0, 0),
            None => Ok(0),
        }
    }

    /// `GatherOptions` as (axis, batch_dims) ((0, 0) if absent).
    pub fn gather_options(&self) -> Result<(i32, i32), Error> {
        match self.options(options_type::GATHER)? {
            Some(t) => Ok((t.i32_or(0, 0)?, t.i32_or(1, 0)?)),
            None => Ok((0, 0)),
        }
    }

    /// `ResizeNearestNeighborOptions` as (align_corners, half_pixel_centers) (both false if
    /// absent).
    pub fn resize_nearest_options(&self) -> Result<(bool, bool), Error> {
        match self.options(options_type::RESIZE_NEAREST_NEIGHBOR)? {
            Some(t) => Ok((t.bool_or(0, false)?, t.bool_or(1, false)?)),
            None => Ok((false, false)),
        }
    }

    /// `ResizeBilinearOptions` as (align_corners, half_pixel_centers) (both false if absent;
    /// fields 0 and 1 are the deprecated sizes).
    pub fn resize_bilinear_options(&self) -> Result<(bool, bool), Error> {
        match self.options(options_type::RESIZE_BILINEAR)? {
            Some(t) => Ok((t.bool_or(2, false)?, t.bool_or(3, false)?)),
            None => Ok((false, false)),
        }
    }

    /// `LeakyReluOptions.alpha` (0 if absent).
    pub fn leaky_relu_alpha(&self) -> Result<f32, Error> {
        match self.options(options_type::LEAKY_RELU)? {
            Some(t) => t.f32_or(0, 0.0),
            None => Ok(0.0),
        }
    }

    /// `MirrorPadOptions.mode` (0 REFLECT, the field's default; 1 SYMMETRIC); `None` if the
    /// operator has no options (TFLM's parser then leaves the mode unknown).
    pub fn mirror_pad_mode(&self) -> Result<Option<i8>, Error> {
        match self.options(options_type::MIRROR_PAD)? {
            Some(t) => Ok(Some(t.i8_or(0, 0)?)),
            None => Ok(None),
        }
    }

    /// `CumsumOptions` as (exclusive, reverse) (both false if absent).
    pub fn cumsum_options(&self) -> Result<(bool, bool), Error> {
        match self.options(options_type::CUMSUM)? {
            Some(t) => Ok((t.bool_or(0, false)?, t.bool_or(1, false)?)),
            None => Ok((false, false)),
        }
    }

    /// `BatchMatMulOptions` as (adj_x, adj_y) (both false if absent; field 2,
    /// `asymmetric_quantize_inputs`, is the hybrid kernels' only).
    pub fn batch_matmul_options(&self) -> Result<(bool, bool), Error> {
        match self.options(options_type::BATCH_MATMUL)? {
            Some(t) => Ok((t.bool_or(0, false)?, t.bool_or(1, false)?)),
            None => Ok((false, false)),
        }
    }

    /// `TransposeConvOptions` as (padding, stride_w, stride_h, fused_activation_function)
    /// (all 0 if absent; field 4, `quantized_bias_type`, is not read).
    pub fn transpose_conv_options(&self) -> Result<(i8, i32, i32, i8), Error> {
        match self.options(options_type::TRANSPOSE_CONV)? {
            Some(t) => Ok((
                t.i8_or(0, 0)?,
                t.i32_or(1, 0)?,
                t.i32_or(2, 0)?,
                t.i8_or(3, 0)?,
            )),
            None => Ok((0, 0, 0, 0)),
        }
    }

    /// The `quantized_bias_type` of a CONV_2D's `Conv2DOptions` (field 6) or a
    /// FULLY_CONNECTED's `FullyConnectedOptions` (field 4), a `TensorType` (0, `FLOAT32`, if
    /// absent): TFLM's 16x8 kernels accumulate in 32 bits when it is `INT32` and the operator
    /// has no bias. 0 for an operator with other options.
    pub fn quantized_bias_type(&self) -> Result<i8, Error> {
        let field = match self.builtin_options_type()? {
            options_type::CONV_2D => 6,
            options_type::FULLY_CONNECTED => 4,
            _ => return Ok(0),
        };
        match self.builtin_options()? {
            Some(t) => t.i8_or(field, 0),
            None => Ok(0),
        }
    }

    /// `ReducerOptions.keep_dims`.
    pub fn reducer_keep_dims(&self) -> Result<bool, Error> {
        match self.options(options_type::REDUCER)? {
            Some(t) => t.bool_or(0, false),
            None => Ok(false),
        }
    }

    /// `ReshapeOptions.new_shape` (empty if absent).
    pub fn reshape_new_shape(&self) -> Result<Ints<'m>, Error> {
        match self.options(options_type::RESHAPE)? {
            Some(t) => Ok(Ints(t.vector(0, 4)?)),
            None => Ok(Ints(Vector::default_empty())),
        }
    }

    /// `SqueezeOptions.squeeze_dims` (empty if absent).
    pub fn squeeze_dims(&self) -> Result<Ints<'m>, Error> {
        match self.options(options_type::SQUEEZE)? {
            Some(t) => Ok(Ints(t.vector(0, 4)?)),
            None => Ok(Ints(Vector::default_empty())),
        }
    }
}

/// `Conv2DOptions` of `schema.fbs`, raw values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conv2DOptions {
    /// `Padding`: 0 SAME, 1 VALID.
    pub padding: i8,
    /// Stride along the width.
    pub stride_w: i32,
    /// Stride along the height.
    pub stride_h: i32,
    /// `ActivationFunctionType`.
    pub fused_activation: i8,
    /// Dilation along the width (default 1).
    pub dilation_w: i32,
    /// Dilation along the height (default 1).
    pub dilation_h: i32,
}

impl Default for Conv2DOptions {
    fn default() -> Self {
        Conv2DOptions {
            padding: 0,
            stride_w: 0,
            stride_h: 0,
            fused_activation: 0,
            dilation_w: 1,
            dilation_h: 1,
        }
    }
}

/// `DepthwiseConv2DOptions` of `schema.fbs`, raw values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DepthwiseConv2DOptions {
    /// `Padding`: 0 SAME, 1 VALID.
    pub padding: i8,
    /// Stride along the width.
    pub stride_w: i32,
    /// Stride along the height.
    pub stride_h: i32,
    /// Output channels per input channel.
    pub depth_multiplier: i32,
    /// `ActivationFunctionType`.
    pub fused_activation: i8,
    /// Dilation along the width (default 1).
    pub dilation_w: i32,
    /// Dilation along the height (default 1).
    pub dilation_h: i32,
}

impl Default for DepthwiseConv2DOptions {
    fn default() -> Self {
        DepthwiseConv2DOptions {
            padding: 0,
            stride_w: 0,
            stride_h: 0,
            depth_multiplier: 0,
            fused_activation: 0,
            dilation_w: 1,
            dilation_h: 1,
        }
    }
}

/// `FullyConnectedOptions` of `schema.fbs`, raw values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FullyConnectedOptions {
    /// `ActivationFunctionType`.
    pub fused_activation: i8,
    /// `FullyConnectedOptionsWeightsFormat` (0 DEFAULT).
    pub weights_format: i8,
    /// Keep the input's leading dimensions in the output.
    pub keep_num_dims: bool,
    /// Hybrid-kernel option (float inputs only).
    pub asymmetric_quantize_inputs: bool,
}

/// `UnidirectionalSequenceLSTMOptions` of `schema.fbs`, raw values.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SequenceLstmOptions {
    /// `ActivationFunctionType` of the cell gate (and the cell's output).
    pub fused_activation: i8,
    /// Cell state clip (0.0: none).
    pub cell_clip: f32,
    /// Projection clip (0.0: none).
    pub proj_clip: f32,
    /// Whether the first dimension is time (else batch).
    pub time_major: bool,
    /// Hybrid-kernel option (float inputs only).
    pub asymmetric_quantize_inputs: bool,
    /// Diagonal recurrent weights (version 4).
    pub diagonal_recurrent_tensors: bool,
}

/// `Pool2DOptions` of `schema.fbs`, raw values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pool2DOptions {
    /// `Padding`: 0 SAME, 1 VALID.
    pub padding: i8,
    /// Stride along the width.
    pub stride_w: i32,
    /// Stride along the height.
    pub stride_h: i32,
    /// Window width.
    pub filter_w: i32,
    /// Window height.
    pub filter_h: i32,
    /// `ActivationFunctionType`.
    pub fused_activation: i8,
}
