//! A minimal, bounds-checked `.tflite` reader for the oracle tests.
//!
//! The tests need what `synaptic-plan` does not expose yet: quantization parameters, constant
//! buffers and builtin options. This reader walks the flatbuffer by hand (every read is a
//! checked slice access, so a bad file panics instead of misreading), with the field numbers of
//! TFLite's `schema.fbs`. It is also the sketch of the accessors the loader will need.

#![allow(dead_code)]

/// A position in the buffer of a flatbuffer table.
#[derive(Clone, Copy)]
pub struct Table<'a> {
    buf: &'a [u8],
    pos: usize,
}

fn u16_at(buf: &[u8], pos: usize) -> u16 {
    u16::from_le_bytes(buf[pos..pos + 2].try_into().unwrap())
}
fn u32_at(buf: &[u8], pos: usize) -> u32 {
    u32::from_le_bytes(buf[pos..pos + 4].try_into().unwrap())
}

impl<'a> Table<'a> {
    /// The root table of a flatbuffer.
    pub fn root(buf: &'a [u8]) -> Self {
        Table {
            buf,
            pos: u32_at(buf, 0) as usize,
        }
    }

    /// The position of field `i`, if present.
    fn field(&self, i: usize) -> Option<usize> {
        let vt = (self.pos as i64
            - i64::from(i32::from_le_bytes(
                self.buf[self.pos..self.pos + 4].try_into().unwrap(),
            ))) as usize;
        let vt_len = u16_at(self.buf, vt) as usize;
        let slot = 4 + 2 * i;
        if slot + 2 > vt_len {
            return None;
        }
        match u16_at(self.buf, vt + slot) {
            0 => None,
            off => Some(self.pos + off as usize),
        }
    }

    fn deref(&self, i: usize) -> Option<usize> {
        self.field(i).map(|p| p + u32_at(self.buf, p) as usize)
    }

    pub fn u8(&self, i: usize, default: u8) -> u8 {
        self.field(i).map_or(default, |p| self.buf[p])
    }
    pub fn i8(&self, i: usize, default: i8) -> i8 {
        self.field(i).map_or(default, |p| self.buf[p] as i8)
    }
    pub fn bool(&self, i: usize, default: bool) -> bool {
        self.field(i).map_or(default, |p| self.buf[p] != 0)
    }
    pub fn i32(&self, i: usize, default: i32) -> i32 {
        self.field(i)
            .map_or(default, |p| u32_at(self.buf, p) as i32)
    }
    pub fn u32(&self, i: usize, default: u32) -> u32 {
        self.field(i).map_or(default, |p| u32_at(self.buf, p))
    }
    pub fn f32(&self, i: usize, default: f32) -> f32 {
        self.field(i)
            .map_or(default, |p| f32::from_bits(u32_at(self.buf, p)))
    }

    pub fn table(&self, i: usize) -> Option<Table<'a>> {
        self.deref(i).map(|pos| Table { buf: self.buf, pos })
    }

    /// A vector field: (position of element 0, length).
    fn vector(&self, i: usize) -> Option<(usize, usize)> {
        self.deref(i).map(|p| (p + 4, u32_at(self.buf, p) as usize))
    }

    pub fn tables(&self, i: usize) -> Vec<Table<'a>> {
        self.vector(i).map_or_else(Vec::new, |(p, n)| {
            (0..n)
                .map(|k| {
                    let e = p + 4 * k;
                    Table {
                        buf: self.buf,
                        pos: e + u32_at(self.buf, e) as usize,
                    }
                })
                .collect()
        })
    }

    pub fn bytes(&self, i: usize) -> &'a [u8] {
        self.vector(i).map_or(&[], |(p, n)| &self.buf[p..p + n])
    }

    pub fn i32s(&self, i: usize) -> Vec<i32> {
        self.bytes_of(i, 4)
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }
    pub fn f32s(&self, i: usize) -> Vec<f32> {
        self.bytes_of(i, 4)
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }
    pub fn i64s(&self, i: usize) -> Vec<i64> {
        self.bytes_of(i, 8)
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }
    fn bytes_of(&self, i: usize, width: usize) -> &'a [u8] {
        self.vector(i)
            .map_or(&[], |(p, n)| &self.buf[p..p + n * width])
    }
    pub fn string(&self, i: usize) -> String {
        String::from_utf8_lossy(self.bytes(i)).into_owned()
    }
}

/// TFLite `TensorType` values used here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DType {
    F32,
    I32,
    U8,
    I64,
    I16,
    I8,
    U64,
    U32,
    Bool,
    Other(u8),
}

impl DType {
    fn from(v: u8) -> Self {
        match v {
            0 => DType::F32,
            2 => DType::I32,
            3 => DType::U8,
            4 => DType::I64,
            6 => DType::Bool,
            7 => DType::I16,
            9 => DType::I8,
            12 => DType::U64,
            15 => DType::U32,
            x => DType::Other(x),
        }
    }
    pub fn size(self) -> usize {
        match self {
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::I64 | DType::U64 => 8,
            DType::I16 => 2,
            DType::U8 | DType::I8 | DType::Bool => 1,
            DType::Other(_) => 0,
        }
    }
}

/// A tensor of subgraph 0.
#[derive(Debug, Clone)]
pub struct Tensor<'a> {
    pub name: String,
    pub shape: Vec<usize>,
    pub dtype: DType,
    /// The constant data (empty for activations).
    pub data: &'a [u8],
    pub scales: Vec<f32>,
    pub zero_points: Vec<i64>,
    pub quantized_dimension: i32,
    /// A variable tensor (state kept across invocations).
    pub variable: bool,
}

impl Tensor<'_> {
    pub fn elements(&self) -> usize {
        self.shape.iter().product()
    }
    pub fn bytes(&self) -> usize {
        self.elements() * self.dtype.size()
    }
    pub fn is_constant(&self) -> bool {
        !self.data.is_empty()
    }
    /// Per-tensor quantization (the first scale and zero point).
    pub fn q(&self) -> synaptic_run::QuantParams {
        synaptic_run::QuantParams::new(
            self.scales.first().copied().unwrap_or(0.0),
            self.zero_points.first().copied().unwrap_or(0) as i32,
        )
    }
}

/// An operator of subgraph 0.
#[derive(Clone)]
pub struct Operator<'a> {
    pub code: i32,
    pub inputs: Vec<i32>,
    pub outputs: Vec<i32>,
    pub options: Option<Table<'a>>,
}

/// The parts of a model the tests use.
pub struct Model<'a> {
    pub tensors: Vec<Tensor<'a>>,
    pub operators: Vec<Operator<'a>>,
    pub inputs: Vec<usize>,
    pub outputs: Vec<usize>,
}

impl<'a> Model<'a> {
    pub fn parse(buf: &'a [u8]) -> Self {
        assert_eq!(&buf[4..8], b"TFL3", "not a .tflite (no TFL3 identifier)");
        let model = Table::root(buf);
        let codes: Vec<i32> = model
            .tables(1)
            .iter()
            .map(|c| i32::from(c.i8(0, 0)).max(c.i32(3, 0)))
            .collect();
        let buffers = model.tables(4);
        let sg = model.tables(2)[0];
        let tensors = sg
            .tables(0)
            .iter()
            .map(|t| {
                let q = t.table(4);
                Tensor {
                    name: t.string(3),
                    shape: t.i32s(0).iter().map(|&d| d as usize).collect(),
                    dtype: DType::from(t.u8(1, 0)),
                    data: buffers
                        .get(t.u32(2, 0) as usize)
                        .map_or(&[][..], |b| b.bytes(0)),
                    scales: q.map_or_else(Vec::new, |q| q.f32s(2)),
                    zero_points: q.map_or_else(Vec::new, |q| q.i64s(3)),
                    quantized_dimension: q.map_or(0, |q| q.i32(6, 0)),
                    variable: t.bool(5, false),
                }
            })
            .collect();
        let operators = sg
            .tables(3)
            .iter()
            .map(|op| Operator {
                code: codes[op.u32(0, 0) as usize],
                inputs: op.i32s(1),
                outputs: op.i32s(2),
                options: op.table(4),
            })
            .collect();
        Model {
            tensors,
            operators,
            inputs: sg.i32s(1).iter().map(|&i| i as usize).collect(),
            outputs: sg.i32s(2).iter().map(|&i| i as usize).collect(),
        }
    }
}

/// TFLite `BuiltinOperator` name of `code` (the reader's one table).
pub fn op_name(code: i32) -> &'static str {
    synaptic_tflite::builtin_name(code).unwrap_or("(unknown)")
}
