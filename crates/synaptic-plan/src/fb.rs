//! The `.tflite` FlatBuffer layer: verification with the `flatbuffers` runtime crate, then a
//! tiny set of hand-written, bounds-checked accessors for the fields this crate reads.
//!
//! Why two layers: the `flatbuffers` crate's verifier ([`flatbuffers::Verifier`]) is safe and is
//! run on every file first, through the [`flatbuffers::Verifiable`] implementations below (one
//! per schema table we read, listing exactly the fields we use). The crate's *reading* API
//! (`Follow::follow`, `Table::get`) is `unsafe` to call, and this crate has no `unsafe` code, so
//! the reads go through [`Table`], which checks every offset against the buffer and returns an
//! [`ImportError`] instead of panicking. A file that passes the verifier therefore reads without
//! error, and even a file that somehow did not would still give an error, never a panic.
//!
//! Field numbers follow TensorFlow Lite's `schema.fbs` (field `n` has vtable slot `4 + 2n`).

use crate::error::ImportError;
use flatbuffers::{
    ForwardsUOffset, InvalidFlatbuffer, Vector, Verifiable, Verifier, VerifierOptions,
};

/// Vtable slot of schema field number `n`.
const fn slot(n: u16) -> u16 {
    4 + 2 * n
}

// Schema field numbers (tensorflow/lite/schema/schema.fbs).
pub(crate) mod field {
    use super::slot;
    pub const MODEL_OPERATOR_CODES: u16 = slot(1);
    pub const MODEL_SUBGRAPHS: u16 = slot(2);
    pub const MODEL_DESCRIPTION: u16 = slot(3);
    pub const MODEL_BUFFERS: u16 = slot(4);
    pub const SUBGRAPH_TENSORS: u16 = slot(0);
    pub const SUBGRAPH_INPUTS: u16 = slot(1);
    pub const SUBGRAPH_OUTPUTS: u16 = slot(2);
    pub const SUBGRAPH_OPERATORS: u16 = slot(3);
    pub const SUBGRAPH_NAME: u16 = slot(4);
    pub const TENSOR_SHAPE: u16 = slot(0);
    pub const TENSOR_TYPE: u16 = slot(1);
    pub const TENSOR_BUFFER: u16 = slot(2);
    pub const TENSOR_NAME: u16 = slot(3);
    pub const TENSOR_IS_VARIABLE: u16 = slot(5);
    pub const OP_OPCODE_INDEX: u16 = slot(0);
    pub const OP_INPUTS: u16 = slot(1);
    pub const OP_OUTPUTS: u16 = slot(2);
    pub const OP_INTERMEDIATES: u16 = slot(8);
    pub const OPCODE_DEPRECATED_BUILTIN: u16 = slot(0);
    pub const OPCODE_CUSTOM_CODE: u16 = slot(1);
    pub const OPCODE_BUILTIN: u16 = slot(3);
    pub const BUFFER_DATA: u16 = slot(0);
    pub const BUFFER_OFFSET: u16 = slot(1);
    pub const BUFFER_SIZE: u16 = slot(2);
}
use field::*;

// Marker types for the verifier: one per schema table we read.
struct ModelV;
struct SubGraphV;
struct TensorV;
struct OperatorV;
struct OperatorCodeV;
struct BufferV;

impl Verifiable for ModelV {
    fn run_verifier(v: &mut Verifier, pos: usize) -> Result<(), InvalidFlatbuffer> {
        v.visit_table(pos)?
            .visit_field::<ForwardsUOffset<Vector<'_, ForwardsUOffset<OperatorCodeV>>>>(
                "operator_codes",
                MODEL_OPERATOR_CODES,
                false,
            )?
            .visit_field::<ForwardsUOffset<Vector<'_, ForwardsUOffset<SubGraphV>>>>(
                "subgraphs",
                MODEL_SUBGRAPHS,
                false,
            )?
            .visit_field::<ForwardsUOffset<&str>>("description", MODEL_DESCRIPTION, false)?
            .visit_field::<ForwardsUOffset<Vector<'_, ForwardsUOffset<BufferV>>>>(
                "buffers",
                MODEL_BUFFERS,
                false,
            )?
            .finish();
        Ok(())
    }
}

impl Verifiable for SubGraphV {
    fn run_verifier(v: &mut Verifier, pos: usize) -> Result<(), InvalidFlatbuffer> {
        v.visit_table(pos)?
            .visit_field::<ForwardsUOffset<Vector<'_, ForwardsUOffset<TensorV>>>>(
                "tensors",
                SUBGRAPH_TENSORS,
                false,
            )?
            .visit_field::<ForwardsUOffset<Vector<'_, i32>>>("inputs", SUBGRAPH_INPUTS, false)?
            .visit_field::<ForwardsUOffset<Vector<'_, i32>>>("outputs", SUBGRAPH_OUTPUTS, false)?
            .visit_field::<ForwardsUOffset<Vector<'_, ForwardsUOffset<OperatorV>>>>(
                "operators",
                SUBGRAPH_OPERATORS,
                false,
            )?
            .visit_field::<ForwardsUOffset<&str>>("name", SUBGRAPH_NAME, false)?
            .finish();
        Ok(())
    }
}

impl Verifiable for TensorV {
    fn run_verifier(v: &mut Verifier, pos: usize) -> Result<(), InvalidFlatbuffer> {
        v.visit_table(pos)?
            .visit_field::<ForwardsUOffset<Vector<'_, i32>>>("shape", TENSOR_SHAPE, false)?
            .visit_field::<i8>("type", TENSOR_TYPE, false)?
            .visit_field::<u32>("buffer", TENSOR_BUFFER, false)?
            .visit_field::<ForwardsUOffset<&str>>("name", TENSOR_NAME, false)?
            .visit_field::<bool>("is_variable", TENSOR_IS_VARIABLE, false)?
            .finish();
        Ok(())
    }
}

impl Verifiable for OperatorV {
    fn run_verifier(v: &mut Verifier, pos: usize) -> Result<(), InvalidFlatbuffer> {
        v.visit_table(pos)?
            .visit_field::<u32>("opcode_index", OP_OPCODE_INDEX, false)?
            .visit_field::<ForwardsUOffset<Vector<'_, i32>>>("inputs", OP_INPUTS, false)?
            .visit_field::<ForwardsUOffset<Vector<'_, i32>>>("outputs", OP_OUTPUTS, false)?
            .visit_field::<ForwardsUOffset<Vector<'_, i32>>>(
                "intermediates",
                OP_INTERMEDIATES,
                false,
            )?
            .finish();
        Ok(())
    }
}

impl Verifiable for OperatorCodeV {
    fn run_verifier(v: &mut Verifier, pos: usize) -> Result<(), InvalidFlatbuffer> {
        v.visit_table(pos)?
            .visit_field::<i8>("deprecated_builtin_code", OPCODE_DEPRECATED_BUILTIN, false)?
            .visit_field::<ForwardsUOffset<&str>>("custom_code", OPCODE_CUSTOM_CODE, false)?
            .visit_field::<i32>("builtin_code", OPCODE_BUILTIN, false)?
            .finish();
        Ok(())
    }
}

impl Verifiable for BufferV {
    fn run_verifier(v: &mut Verifier, pos: usize) -> Result<(), InvalidFlatbuffer> {
        v.visit_table(pos)?
            .visit_field::<ForwardsUOffset<Vector<'_, u8>>>("data", BUFFER_DATA, false)?
            .visit_field::<u64>("offset", BUFFER_OFFSET, false)?
            .visit_field::<u64>("size", BUFFER_SIZE, false)?
            .finish();
        Ok(())
    }
}

/// Runs the `flatbuffers` crate's verifier over `buf` as a TFLite `Model` root, checking every
/// table, vector and string this crate reads.
pub(crate) fn verify(buf: &[u8]) -> Result<(), ImportError> {
    if buf.len() < 8 {
        return Err(ImportError::Truncated { len: buf.len() });
    }
    verify_root::<ModelV>(buf)
}

/// Runs the verifier over `buf` with root table `V` (the limits of [`verify`]).
pub(crate) fn verify_root<V: Verifiable>(buf: &[u8]) -> Result<(), ImportError> {
    let opts = VerifierOptions {
        max_depth: 64,
        max_tables: 1_000_000,
        max_apparent_size: 1 << 31,
        ignore_missing_null_terminator: true,
    };
    let mut v = Verifier::new(&opts, buf);
    <ForwardsUOffset<V>>::run_verifier(&mut v, 0).map_err(|e| ImportError::Verifier {
        detail: one_line(&e.to_string()),
    })
}

/// Collapses whitespace runs (including newlines) so an error prints on one line.
pub(crate) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

// ---------------------------------------------------------------------------------------------
// Safe, bounds-checked reading.

fn bad(what: &'static str, pos: usize) -> ImportError {
    ImportError::Malformed { what, pos }
}

fn read_u8(buf: &[u8], pos: usize) -> Result<u8, ImportError> {
    buf.get(pos)
        .copied()
        .ok_or_else(|| bad("byte out of bounds", pos))
}

fn read_u16(buf: &[u8], pos: usize) -> Result<u16, ImportError> {
    let b = buf
        .get(
            pos..pos
                .checked_add(2)
                .ok_or_else(|| bad("offset overflow", pos))?,
        )
        .ok_or_else(|| bad("u16 out of bounds", pos))?;
    Ok(u16::from_le_bytes([b[0], b[1]]))
}

fn read_u32(buf: &[u8], pos: usize) -> Result<u32, ImportError> {
    let b = buf
        .get(
            pos..pos
                .checked_add(4)
                .ok_or_else(|| bad("offset overflow", pos))?,
        )
        .ok_or_else(|| bad("u32 out of bounds", pos))?;
    Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn read_u64(buf: &[u8], pos: usize) -> Result<u64, ImportError> {
    let lo = read_u32(buf, pos)? as u64;
    let hi = read_u32(
        buf,
        pos.checked_add(4)
            .ok_or_else(|| bad("offset overflow", pos))?,
    )? as u64;
    Ok(lo | (hi << 32))
}

/// Follows the unsigned offset stored at `pos`.
fn follow(buf: &[u8], pos: usize) -> Result<usize, ImportError> {
    let off = read_u32(buf, pos)? as usize;
    let target = pos
        .checked_add(off)
        .ok_or_else(|| bad("offset overflow", pos))?;
    if target >= buf.len() {
        return Err(bad("offset points past the end", pos));
    }
    Ok(target)
}

/// A FlatBuffer table at a position in a buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Table<'a> {
    buf: &'a [u8],
    pos: usize,
}

/// A FlatBuffer vector: `len` elements of `elem` bytes starting at `start`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Vec32<'a> {
    buf: &'a [u8],
    start: usize,
    len: usize,
}

impl<'a> Table<'a> {
    /// The root table of `buf`.
    pub(crate) fn root(buf: &'a [u8]) -> Result<Self, ImportError> {
        Ok(Table {
            buf,
            pos: follow(buf, 0)?,
        })
    }

    /// Absolute position of field `slot`'s value, if present.
    fn field_pos(&self, slot: u16) -> Result<Option<usize>, ImportError> {
        let soff = read_u32(self.buf, self.pos)? as i32 as i64;
        let vt = self.pos as i64 - soff;
        if vt < 0 || vt as usize >= self.buf.len() {
            return Err(bad("vtable out of bounds", self.pos));
        }
        let vt = vt as usize;
        let vt_len = read_u16(self.buf, vt)? as usize;
        if (slot as usize) + 2 > vt_len {
            return Ok(None);
        }
        let off = read_u16(self.buf, vt + slot as usize)? as usize;
        if off == 0 {
            Ok(None)
        } else {
            Ok(Some(self.pos + off))
        }
    }

    pub(crate) fn u8_or(&self, slot: u16, default: u8) -> Result<u8, ImportError> {
        match self.field_pos(slot)? {
            Some(p) => read_u8(self.buf, p),
            None => Ok(default),
        }
    }

    pub(crate) fn u32_or(&self, slot: u16, default: u32) -> Result<u32, ImportError> {
        match self.field_pos(slot)? {
            Some(p) => read_u32(self.buf, p),
            None => Ok(default),
        }
    }

    pub(crate) fn u64_or(&self, slot: u16, default: u64) -> Result<u64, ImportError> {
        match self.field_pos(slot)? {
            Some(p) => read_u64(self.buf, p),
            None => Ok(default),
        }
    }

    /// A vector field (absent reads as empty).
    pub(crate) fn vector(&self, slot: u16, elem: usize) -> Result<Vec32<'a>, ImportError> {
        let Some(p) = self.field_pos(slot)? else {
            return Ok(Vec32 {
                buf: self.buf,
                start: 0,
                len: 0,
            });
        };
        let at = follow(self.buf, p)?;
        let len = read_u32(self.buf, at)? as usize;
        let start = at + 4;
        let bytes = len
            .checked_mul(elem)
            .ok_or_else(|| bad("vector length overflow", at))?;
        match start.checked_add(bytes) {
            Some(end) if end <= self.buf.len() => {}
            _ => return Err(bad("vector runs past the end", at)),
        }
        Ok(Vec32 {
            buf: self.buf,
            start,
            len,
        })
    }

    /// A string field (absent reads as `None`); invalid UTF-8 is replaced.
    pub(crate) fn string(&self, slot: u16) -> Result<Option<String>, ImportError> {
        if self.field_pos(slot)?.is_none() {
            return Ok(None);
        }
        let v = self.vector(slot, 1)?;
        let bytes = &v.buf[v.start..v.start + v.len];
        Ok(Some(String::from_utf8_lossy(bytes).into_owned()))
    }

    /// A vector-of-tables field.
    pub(crate) fn tables(&self, slot: u16) -> Result<Tables<'a>, ImportError> {
        Ok(Tables(self.vector(slot, 4)?))
    }
}

impl<'a> Vec32<'a> {
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Element `i` of a vector of 32-bit integers.
    pub(crate) fn i32_at(&self, i: usize) -> Result<i32, ImportError> {
        if i >= self.len {
            return Err(bad("vector index out of range", self.start));
        }
        Ok(read_u32(self.buf, self.start + 4 * i)? as i32)
    }

    /// All elements of a vector of 32-bit integers.
    pub(crate) fn i32s(&self) -> Result<Vec<i32>, ImportError> {
        (0..self.len).map(|i| self.i32_at(i)).collect()
    }
}

/// A vector of tables.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tables<'a>(Vec32<'a>);

impl<'a> Tables<'a> {
    pub(crate) fn len(&self) -> usize {
        self.0.len
    }

    pub(crate) fn get(&self, i: usize) -> Result<Table<'a>, ImportError> {
        if i >= self.0.len {
            return Err(bad("table index out of range", self.0.start));
        }
        Ok(Table {
            buf: self.0.buf,
            pos: follow(self.0.buf, self.0.start + 4 * i)?,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Raw positions, for rewriting a model around its original bytes (`crate::tflm`).

impl<'a> Table<'a> {
    /// Absolute position of the table in the buffer.
    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    /// Absolute position of the object that offset field `slot` points to, if present.
    pub(crate) fn offset_target(&self, slot: u16) -> Result<Option<usize>, ImportError> {
        match self.field_pos(slot)? {
            Some(p) => follow(self.buf, p).map(Some),
            None => Ok(None),
        }
    }

    /// Whether field `slot` is present (its vtable entry is non-zero).
    pub(crate) fn has_field(&self, slot: u16) -> Result<bool, ImportError> {
        Ok(self.field_pos(slot)?.is_some())
    }

    /// Number of field slots the table's vtable holds.
    pub(crate) fn field_slots(&self) -> Result<u16, ImportError> {
        let soff = read_u32(self.buf, self.pos)? as i32 as i64;
        let vt = usize::try_from(self.pos as i64 - soff)
            .map_err(|_| bad("vtable out of bounds", self.pos))?;
        Ok(read_u16(self.buf, vt)?.saturating_sub(4) / 2)
    }
}

impl<'a> Vec32<'a> {
    /// The elements of a vector of bytes (read with element size 1).
    pub(crate) fn u8s(&self) -> &'a [u8] {
        &self.buf[self.start..self.start + self.len]
    }
}
