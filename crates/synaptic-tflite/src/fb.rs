//! The FlatBuffer layer: tables and vectors over a byte slice, every read bounds-checked.
//!
//! A FlatBuffer is a graph of offsets; a hostile file can point anywhere. Nothing here indexes
//! a slice without `get`, every offset addition is checked, and every failure is an
//! [`Error::Malformed`] naming what was being read and where: no panic, no wrong read, on any
//! bytes. A [`Vector`] is checked to lie inside the buffer when it is made, so its element
//! reads cannot fail afterwards (they return `Option` only for an index past its length).
//!
//! Field numbers are those of TensorFlow Lite's `schema.fbs` (field `n` has vtable slot
//! `4 + 2n`).

use crate::Error;

fn bad(what: &'static str, pos: usize) -> Error {
    Error::Malformed { what, pos }
}

fn read<const N: usize>(buf: &[u8], pos: usize, what: &'static str) -> Result<[u8; N], Error> {
    // A fixed-size copy (loads, no `memcpy` call): every field read of the reader passes here.
    match buf.get(pos..).and_then(<[u8]>::first_chunk::<N>) {
        Some(b) => Ok(*b),
        None => Err(bad(what, pos)),
    }
}

fn u32_at(buf: &[u8], pos: usize, what: &'static str) -> Result<u32, Error> {
    read::<4>(buf, pos, what).map(u32::from_le_bytes)
}

/// Follows the unsigned 32-bit offset stored at `pos` (relative to `pos`).
fn follow(buf: &[u8], pos: usize) -> Result<usize, Error> {
    jump(buf, pos, u32_at(buf, pos, "offset out of bounds")?)
}

/// The target of offset `off` read at `pos` (relative to `pos`), checked to lie in `buf`.
fn jump(buf: &[u8], pos: usize, off: u32) -> Result<usize, Error> {
    let target = pos
        .checked_add(off as usize)
        .ok_or(bad("offset overflows", pos))?;
    if target >= buf.len() {
        return Err(bad("offset points past the end", pos));
    }
    Ok(target)
}

/// A FlatBuffer table: its position in the buffer, with a checked vtable.
#[derive(Clone, Copy, Debug)]
pub struct Table<'m> {
    buf: &'m [u8],
    pos: usize,
    /// The vtable's bytes (checked to lie in the buffer when the table is made, so a field's
    /// entry is one bounds check).
    vtable: &'m [u8],
    /// The table's inline bytes (likewise: a field's value is one bounds check).
    inline: &'m [u8],
}

impl<'m> Table<'m> {
    /// The table at `pos`: checks that its vtable lies in the buffer and is well formed.
    pub(crate) fn at(buf: &'m [u8], pos: usize) -> Result<Self, Error> {
        let soff = read::<4>(buf, pos, "table out of bounds").map(i32::from_le_bytes)?;
        // `pos − soff`: `pos` is below `buf.len() ≤ isize::MAX`, so a negative difference
        // wraps past every index and a positive one does not wrap (`|soff| < 2^31`).
        let vt = pos.wrapping_sub(soff as isize as usize);
        // The vtable's two lengths, then its entries and the table's inline bytes, each one
        // slice check (the same errors at the same places as the checks one at a time).
        let Some(head) = buf.get(vt..).and_then(<[u8]>::first_chunk::<4>) else {
            return Err(if vt >= buf.len() {
                bad("vtable out of bounds", pos)
            } else {
                bad(
                    "vtable out of bounds",
                    if vt + 2 > buf.len() { vt } else { vt + 2 },
                )
            });
        };
        let vtable_len = u16::from_le_bytes([head[0], head[1]]) as usize;
        let inline_len = u16::from_le_bytes([head[2], head[3]]) as usize;
        let vtable = match buf.get(vt..vt + vtable_len) {
            Some(v) if vtable_len >= 4 && vtable_len % 2 == 0 => v,
            _ => return Err(bad("malformed vtable", vt)),
        };
        match buf.get(pos..pos + inline_len) {
            Some(inline) if inline_len >= 4 => Ok(Table {
                buf,
                pos,
                vtable,
                inline,
            }),
            _ => Err(bad("table runs past the end", pos)),
        }
    }

    /// The root table of `buf` (the offset in its first four bytes).
    pub(crate) fn root(buf: &'m [u8]) -> Result<Self, Error> {
        Table::at(buf, follow(buf, 0)?)
    }

    /// Byte position of the table in the buffer.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Whether schema field `n` is present (its vtable entry is non-zero; a field the vtable
    /// is too short to hold is absent). Reads only the vtable, checked at [`Table`] creation.
    ///
    /// ```
    /// # let bytes = synaptic_tflite::tests_support::tiny_model();
    /// let root = synaptic_tflite::Model::new(bytes).unwrap().root();
    /// assert!(root.has_field(2).unwrap()); // subgraphs
    /// assert!(!root.has_field(1000).unwrap());
    /// ```
    pub fn has_field(&self, n: u16) -> Result<bool, Error> {
        Ok(self.raw_field(n).is_some())
    }

    /// Byte position of the object that offset field `n` (a table, vector or string) points
    /// to, if the field is present; the target is checked to lie in the buffer, not to be
    /// well formed. For rewriting a model around its original bytes (references to it
    /// are relative, so they can be re-made from a new prefix).
    pub fn offset_target(&self, n: u16) -> Result<Option<usize>, Error> {
        self.target(n)
    }

    /// Number of field slots of the table's vtable: fields `0..field_slots()` may be
    /// present, higher ones are absent (a writer newer than the schema may have more).
    pub fn field_slots(&self) -> usize {
        (self.vtable.len() - 4) / 2
    }

    /// The vtable entry of field `n`: its offset in the table, `None` if absent (a field the
    /// vtable is too short to hold included).
    fn raw_field(&self, n: u16) -> Option<usize> {
        let slot = 4 + 2 * n as usize;
        let e = self.vtable.get(slot..)?.first_chunk::<2>()?;
        let off = u16::from_le_bytes(*e) as usize;
        (off != 0).then_some(off)
    }

    /// Schema field `n`'s value of `N` bytes and its position, if the field is present; a
    /// value that does not lie inside the table is an error.
    fn field<const N: usize>(&self, n: u16) -> Result<Option<(usize, [u8; N])>, Error> {
        let Some(off) = self.raw_field(n) else {
            return Ok(None);
        };
        match self.inline.get(off..).and_then(<[u8]>::first_chunk::<N>) {
            Some(v) if off >= 4 => Ok(Some((self.pos + off, *v))),
            _ => Err(bad("field outside its table", self.pos)),
        }
    }

    /// The target of offset field `n` (relative to the field), checked to lie in the buffer.
    fn target(&self, n: u16) -> Result<Option<usize>, Error> {
        match self.field::<4>(n)? {
            Some((p, off)) => jump(self.buf, p, u32::from_le_bytes(off)).map(Some),
            None => Ok(None),
        }
    }

    /// Byte position of scalar field `n` of `size` bytes, if present (checked to lie inside
    /// the table): where an in-place edit of the field writes ([`crate::fields`]).
    pub fn field_position(&self, n: u16, size: usize) -> Result<Option<usize>, Error> {
        let Some(off) = self.raw_field(n) else {
            return Ok(None);
        };
        if off < 4 || off + size > self.inline.len() {
            return Err(bad("field outside its table", self.pos));
        }
        Ok(Some(self.pos + off))
    }

    /// The vector that field `n` points to, as `(position of its length word, length)`, if
    /// present (elements of `elem` bytes, checked to lie in the buffer).
    pub fn vector_position(&self, n: u16, elem: usize) -> Result<Option<(usize, usize)>, Error> {
        match self.target(n)? {
            Some(t) => {
                let v = Vector::at(self.buf, t, elem)?;
                // (The length word as stored: any `elem`, 0 included.)
                let len = u32_at(self.buf, v.pos, "vector length out of bounds")? as usize;
                Ok(Some((v.pos, len)))
            }
            None => Ok(None),
        }
    }

    fn scalar<const N: usize>(&self, n: u16) -> Result<Option<[u8; N]>, Error> {
        Ok(self.field::<N>(n)?.map(|(_, v)| v))
    }

    /// Field `n` as `u8` (`ubyte`, `bool` and enums of byte width), or `default` if absent.
    pub fn u8_or(&self, n: u16, default: u8) -> Result<u8, Error> {
        Ok(self.scalar::<1>(n)?.map_or(default, |b| b[0]))
    }

    /// Field `n` as `i8` (`byte`), or `default` if absent.
    pub fn i8_or(&self, n: u16, default: i8) -> Result<i8, Error> {
        Ok(self.scalar::<1>(n)?.map_or(default, |b| b[0] as i8))
    }

    /// Field `n` as `bool`, or `default` if absent.
    pub fn bool_or(&self, n: u16, default: bool) -> Result<bool, Error> {
        Ok(self.scalar::<1>(n)?.map_or(default, |b| b[0] != 0))
    }

    /// Field `n` as `i32`, or `default` if absent.
    pub fn i32_or(&self, n: u16, default: i32) -> Result<i32, Error> {
        Ok(self.scalar::<4>(n)?.map_or(default, i32::from_le_bytes))
    }

    /// Field `n` as `u32`, or `default` if absent.
    pub fn u32_or(&self, n: u16, default: u32) -> Result<u32, Error> {
        Ok(self.scalar::<4>(n)?.map_or(default, u32::from_le_bytes))
    }

    /// Field `n` as `u64`, or `default` if absent.
    pub fn u64_or(&self, n: u16, default: u64) -> Result<u64, Error> {
        Ok(self.scalar::<8>(n)?.map_or(default, u64::from_le_bytes))
    }

    /// Field `n` as `f32`, or `default` if absent.
    pub fn f32_or(&self, n: u16, default: f32) -> Result<f32, Error> {
        Ok(self
            .scalar::<4>(n)?
            .map_or(default, |b| f32::from_bits(u32::from_le_bytes(b))))
    }

    /// Sub-table field `n`, if present.
    pub fn table(&self, n: u16) -> Result<Option<Table<'m>>, Error> {
        match self.target(n)? {
            Some(t) => Table::at(self.buf, t).map(Some),
            None => Ok(None),
        }
    }

    /// Vector field `n` of elements of `elem` bytes (absent reads as empty).
    pub fn vector(&self, n: u16, elem: usize) -> Result<Vector<'m>, Error> {
        match self.target(n)? {
            Some(t) => Vector::at(self.buf, t, elem),
            None => Ok(Vector::empty(self.buf)),
        }
    }

    /// String field `n` as raw bytes (no terminator, not checked as UTF-8), if present.
    pub fn string(&self, n: u16) -> Result<Option<&'m [u8]>, Error> {
        match self.target(n)? {
            Some(t) => Ok(Some(Vector::at(self.buf, t, 1)?.bytes())),
            None => Ok(None),
        }
    }
}

/// A FlatBuffer vector of fixed-size elements, checked to lie inside the buffer.
#[derive(Clone, Copy, Debug)]
pub struct Vector<'m> {
    buf: &'m [u8],
    pos: usize,
    /// The elements' bytes (from `pos + 4`), sliced once when the vector is made: `len`
    /// elements of `data.len() / len` bytes each (an element's size is checked against it).
    data: &'m [u8],
    len: usize,
}

impl<'m> Vector<'m> {
    /// An empty vector (an absent field).
    pub(crate) fn default_empty() -> Self {
        Vector::empty(&[])
    }

    fn empty(buf: &'m [u8]) -> Self {
        Vector {
            buf,
            pos: 0,
            data: &[],
            len: 0,
        }
    }

    fn at(buf: &'m [u8], pos: usize, elem: usize) -> Result<Self, Error> {
        let len = u32_at(buf, pos, "vector length out of bounds")? as usize;
        let start = pos + 4;
        let bytes = len
            .checked_mul(elem)
            .ok_or(bad("vector length overflows", pos))?;
        match start.checked_add(bytes).and_then(|end| buf.get(start..end)) {
            Some(data) => Ok(Vector {
                buf,
                pos,
                data,
                len,
            }),
            None => Err(bad("vector runs past the end", pos)),
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the vector is empty (or absent).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The elements' bytes, borrowed from the model (no copy).
    pub fn bytes(&self) -> &'m [u8] {
        self.data
    }

    /// Whether the elements are `n` bytes each (the one check of an element's size; an
    /// empty vector's elements are of any size). `n` is 1 to 8 and the data lies in memory
    /// (under `isize::MAX` bytes), so a wrapped product never equals another size's.
    fn of_size(&self, n: usize) -> bool {
        n.wrapping_mul(self.len) == self.data.len()
    }

    fn element<const N: usize>(&self, i: usize) -> Option<[u8; N]> {
        if i >= self.len || !self.of_size(N) {
            return None;
        }
        self.data.get(i * N..)?.first_chunk::<N>().copied()
    }

    /// Element `i` of a vector of `int`.
    pub fn i32(&self, i: usize) -> Option<i32> {
        self.element::<4>(i).map(i32::from_le_bytes)
    }

    /// Element `i` of a vector of `float`.
    pub fn f32(&self, i: usize) -> Option<f32> {
        self.element::<4>(i)
            .map(|b| f32::from_bits(u32::from_le_bytes(b)))
    }

    /// Element `i` of a vector of `long`.
    pub fn i64(&self, i: usize) -> Option<i64> {
        self.element::<8>(i).map(i64::from_le_bytes)
    }

    /// The elements of a vector of `int`.
    pub fn iter_i32(&self) -> impl Iterator<Item = i32> + 'm {
        // The bytes once, then four at a time (no bounds check an element).
        let words = if self.of_size(4) { self.bytes() } else { &[] };
        words
            .chunks_exact(4)
            .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Table `i` of a vector of tables.
    pub fn table(&self, i: usize) -> Result<Table<'m>, Error> {
        if i >= self.len || !self.of_size(4) {
            return Err(bad("table index out of range", self.pos));
        }
        Table::at(self.buf, follow(self.buf, self.pos + 4 + 4 * i)?)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::{bad, read, Error, Table};
    use std::vec::Vec;

    fn u16_at(buf: &[u8], pos: usize, what: &'static str) -> Result<u16, Error> {
        read::<2>(buf, pos, what).map(u16::from_le_bytes)
    }

    /// [`Table::at`]'s checks one at a time, as they were first written: the reference its
    /// one-slice-a-check form must equal, error for error.
    fn at_reference(buf: &[u8], pos: usize) -> Result<(usize, usize, usize), Error> {
        let soff =
            super::read::<4>(buf, pos, "table out of bounds").map(i32::from_le_bytes)? as i64;
        let vt = pos as i64 - soff;
        if vt < 0 || vt as u64 >= buf.len() as u64 {
            return Err(bad("vtable out of bounds", pos));
        }
        let vt = vt as usize;
        let vtable_len = u16_at(buf, vt, "vtable out of bounds")? as usize;
        let inline_len = u16_at(buf, vt + 2, "vtable out of bounds")? as usize;
        if vtable_len < 4 || vtable_len % 2 != 0 || vt + vtable_len > buf.len() {
            return Err(bad("malformed vtable", vt));
        }
        if inline_len < 4 || pos + inline_len > buf.len() {
            return Err(bad("table runs past the end", pos));
        }
        Ok((vt, vtable_len, inline_len))
    }

    #[test]
    fn table_at_equals_the_checks_one_at_a_time() {
        let mut x = 0x1234_5678u32;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        for _ in 0..200_000 {
            let len = (next() % 48) as usize;
            let mut buf: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            let pos = (next() % 52) as usize;
            // Mostly small offsets and lengths, so that every branch is reached.
            if pos + 4 <= len {
                let soff = (next() % 40) as i32 - 20;
                buf[pos..pos + 4].copy_from_slice(&soff.to_le_bytes());
                let vt = pos as i64 - soff as i64;
                if vt >= 0 && (vt as usize) + 4 <= len && next() % 2 == 0 {
                    let vt = vt as usize;
                    buf[vt..vt + 2].copy_from_slice(&((next() % 16) as u16).to_le_bytes());
                    buf[vt + 2..vt + 4].copy_from_slice(&((next() % 16) as u16).to_le_bytes());
                }
            }
            let got = Table::at(&buf, pos).map(|t| (t.vtable.len(), t.inline.len()));
            let want = at_reference(&buf, pos).map(|(_, v, i)| (v, i));
            assert_eq!(
                std::format!("{got:?}"),
                std::format!("{want:?}"),
                "{buf:?} at {pos}"
            );
        }
    }
}
