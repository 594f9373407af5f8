//! # A FlexBuffers reader for TFLite custom operator options
//!
//! TFLite stores the options of a custom operator (TFLM's audio signal library: `SignalWindow`,
//! `SignalRfft`, `SignalEnergy`, `SignalFilterBank`, …) as a FlexBuffer whose root is a map
//! from option names to scalars. This module reads such a buffer in place, from a `&[u8]`:
//! the root map ([`FlexMap::root`]), its sorted keys ([`FlexMap::key`]), its values by index
//! ([`FlexMap::value`], what TFLM's `FlexbufferWrapper` indexes) or by key ([`FlexMap::get`],
//! what `flexbuffers::GetRoot(buf, len).AsMap()["key"]` does), and the conversions of
//! `flexbuffers.h`'s `AsInt64`, `AsInt32`, `AsBool` and `AsUInt64` ([`FlexValue`]).
//!
//! What is decoded: inline and indirect ints, uints and floats of every width, bools and nulls.
//! Strings, keys, blobs, maps, untyped, typed and fixed-size typed vectors are located and
//! checked but not decoded: they come back as [`FlexValue::Other`] with their bytes.
//!
//! ## Guarantees
//!
//! * **Bounds-checked, no panic.** Every read goes through checked arithmetic and
//!   `slice::get`; any byte string, however hostile (offsets pointing anywhere, huge lengths,
//!   byte widths other than 1, 2, 4 and 8, keys without their NUL), yields `None` or a
//!   converted value, never a panic or an out-of-bounds read. No `unsafe`, no `alloc`.
//! * **Bounded work, no recursion.** A FlexBuffer offset only points backwards, and a lookup
//!   follows at most three of them (root → map → keys vector → key, or value → its data):
//!   there is no loop over offsets, so a cycle cannot make one. [`FlexMap::get`] is a binary
//!   search: O(log n) key comparisons, each of at most `key.len() + 1` bytes.
//!   [`FlexMap::key`] scans for the key's NUL, at most to the end of the buffer.
//!
//! ## Where this is stricter than `flexbuffers.h`
//!
//! The C++ reader trusts its input; where it would read out of bounds (or misread a byte
//! width it does not expect) this reader returns `None` instead. [`FlexMap::root`] also
//! requires the keys vector to have as many entries as the values vector, as every writer
//! produces. TFLM's `FlexbufferWrapper::ElementAsInt64(i)` reads value `i`'s bytes as an
//! integer whatever its type: it equals `value(i).as_i64()` for inline ints, uints and bools
//! (what the TFLite converter writes), not for floats or indirect values, which
//! [`FlexValue`] converts properly.
//!
//! ```
//! use synaptic_tflite::flexbuffers::FlexMap;
//! // {"T": 7, "fft_length": 512} as the FlexBuffers builder writes it.
//! let buf = [
//!     b'T', 0, b'f', b'f', b't', b'_', b'l', b'e', b'n', b'g', b't', b'h', 0, // keys
//!     2, 14, 13, // keys vector: length 2, offsets to "T" and "fft_length" (width 1)
//!     2, 0, 1, 0, 2, 0, // map (width 2): keys vector offset, keys width, length
//!     7, 0, 0, 2, 5, 5, // values 7 and 512, packed types int16 int16
//!     6, 37, 1, // root: offset 6, packed type map16, root width 1
//! ];
//! let m = FlexMap::root(&buf).unwrap();
//! assert_eq!(m.len(), 2);
//! assert_eq!(m.key(1), Some(&b"fft_length"[..]));
//! assert_eq!(m.get("T").unwrap().as_i32(), 7);
//! assert_eq!(m.value(1).unwrap().as_i64(), 512);
//! ```

use core::cmp::Ordering;

// FlexBuffers type codes (the upper 6 bits of a packed type byte), as in `flexbuffers.h`.
const FBT_NULL: u8 = 0;
const FBT_INT: u8 = 1;
const FBT_UINT: u8 = 2;
const FBT_FLOAT: u8 = 3;
const FBT_KEY: u8 = 4;
const FBT_STRING: u8 = 5;
const FBT_INDIRECT_INT: u8 = 6;
const FBT_INDIRECT_UINT: u8 = 7;
const FBT_INDIRECT_FLOAT: u8 = 8;
const FBT_MAP: u8 = 9;
const FBT_VECTOR: u8 = 10;
const FBT_VECTOR_INT: u8 = 11;
const FBT_VECTOR_STRING_DEPRECATED: u8 = 15;
const FBT_VECTOR_INT2: u8 = 16;
const FBT_VECTOR_FLOAT4: u8 = 24;
const FBT_BLOB: u8 = 25;
const FBT_BOOL: u8 = 26;
const FBT_VECTOR_BOOL: u8 = 36;

/// The root map of a FlexBuffer (None: not a map, or malformed at the root).
///
/// Built by [`FlexMap::root`], which checks that the values, their packed types and the keys
/// vector lie inside the buffer; each key and value is checked again when it is read.
#[derive(Clone, Copy, Debug)]
pub struct FlexMap<'a> {
    buf: &'a [u8],
    /// Position of value 0; the packed types follow the `len` values.
    values: usize,
    /// Byte width of the values (and of the map's size and keys fields).
    width: usize,
    len: usize,
    /// Position of key offset 0.
    keys: usize,
    /// Byte width of the key offsets.
    keys_width: usize,
}

/// A decoded FlexBuffers value: scalars decoded (indirect ones followed), anything else
/// [`Other`](FlexValue::Other).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FlexValue<'a> {
    /// `FBT_NULL`.
    Null,
    /// `FBT_INT` or `FBT_INDIRECT_INT`, sign-extended from its width.
    Int(i64),
    /// `FBT_UINT` or `FBT_INDIRECT_UINT`, zero-extended from its width.
    UInt(u64),
    /// `FBT_FLOAT` or `FBT_INDIRECT_FLOAT`. Widths 4 and 8 are IEEE `f32`/`f64`; widths 1 and
    /// 2 (which no writer produces) are read as `flexbuffers.h` reads them, as an `i8`/`i16`
    /// integer converted to `f64`.
    Float(f64),
    /// `FBT_BOOL`: its stored integer is not zero. (Writers store 0 or 1; for any other stored
    /// integer `flexbuffers.h`'s `AsInt64` returns that integer, [`FlexValue::as_i64`] 1.)
    Bool(bool),
    /// Any other type: its type code (`packed_type >> 2`) and bytes. For a string, key or
    /// blob, its contents (without the NUL); for an untyped vector (`FBT_VECTOR`) or a map
    /// (`FBT_MAP`), its packed-type table, one byte per element (so `len()` is the element
    /// count); for a typed or fixed-size typed vector, its elements' bytes; for a type code
    /// `flexbuffers.h` does not define, no bytes.
    Other(u8, &'a [u8]),
}

impl<'a> FlexMap<'a> {
    /// Reads the root of `buf` as a map: the last byte is the root's byte width, the one
    /// before its packed type, and the root itself (an offset to the map) precedes them.
    /// `None` if the root is not a map or its map, packed types or keys vector do not lie
    /// inside `buf`, or a byte width is not 1, 2, 4 or 8.
    pub fn root(buf: &'a [u8]) -> Option<FlexMap<'a>> {
        let n = buf.len();
        let root_width = width(u64::from(*buf.get(n.checked_sub(1)?)?))?;
        let packed = *buf.get(n.checked_sub(2)?)?;
        if packed >> 2 != FBT_MAP {
            return None;
        }
        let root = n.checked_sub(2)?.checked_sub(root_width)?;
        let w = packed_width(packed);
        let values = indirect(buf, root, root_width)?;
        // Before the values: keys offset, keys byte width, length; each `w` bytes.
        let len_pos = values.checked_sub(w)?;
        let len = usize::try_from(read_u(buf, len_pos, w)?).ok()?;
        let types = len.checked_mul(w)?.checked_add(values)?;
        buf.get(types..types.checked_add(len)?)?;
        let keys_width = width(read_u(buf, len_pos.checked_sub(w)?, w)?)?;
        let keys_field = len_pos.checked_sub(w.checked_mul(2)?)?;
        let keys = indirect(buf, keys_field, w)?;
        let keys_len = read_u(buf, keys.checked_sub(keys_width)?, keys_width)?;
        if usize::try_from(keys_len).ok()? != len {
            return None;
        }
        buf.get(keys..len.checked_mul(keys_width)?.checked_add(keys)?)?;
        Some(FlexMap {
            buf,
            values,
            width: w,
            len,
            keys,
            keys_width,
        })
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the map has no entries.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The key at index i (as bytes, without the NUL). `None` if `i` is out of range, the
    /// key's offset points outside the buffer, or no NUL ends it inside the buffer.
    pub fn key(&self, i: usize) -> Option<&'a [u8]> {
        let start = self.key_pos(i)?;
        let rest = self.buf.get(start..)?;
        let end = rest.iter().position(|&b| b == 0)?;
        rest.get(..end)
    }

    /// The value at index i (what `FlexbufferWrapper` and `Map::Values()[i]` index). `None`
    /// if `i` is out of range or the value's data lies outside the buffer.
    pub fn value(&self, i: usize) -> Option<FlexValue<'a>> {
        if i >= self.len {
            return None;
        }
        let slot = i.checked_mul(self.width)?.checked_add(self.values)?;
        let types = self.len.checked_mul(self.width)?.checked_add(self.values)?;
        let packed = *self.buf.get(types.checked_add(i)?)?;
        decode(self.buf, slot, self.width, packed)
    }

    /// The value of `key` (keys are sorted: binary search, as `flexbuffers.h`'s `bsearch`
    /// with `strcmp`, comparing bytes as unsigned). `None` if the key is absent (the C++
    /// returns a null, which converts to 0 and `false`), contains a NUL (no stored key can),
    /// or a key compared on the way or the value is malformed.
    pub fn get(&self, key: &str) -> Option<FlexValue<'a>> {
        let key = key.as_bytes();
        if key.contains(&0) {
            return None;
        }
        let (mut lo, mut hi) = (0usize, self.len);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.compare(mid, key)? {
                Ordering::Equal => return self.value(mid),
                Ordering::Less => hi = mid,
                Ordering::Greater => lo = mid + 1,
            }
        }
        None
    }

    /// Position of key `i`'s first byte.
    fn key_pos(&self, i: usize) -> Option<usize> {
        if i >= self.len {
            return None;
        }
        let slot = i.checked_mul(self.keys_width)?.checked_add(self.keys)?;
        indirect(self.buf, slot, self.keys_width)
    }

    /// `strcmp(key, stored key i)`: reads at most `key.len() + 1` bytes of the stored key.
    fn compare(&self, i: usize, key: &[u8]) -> Option<Ordering> {
        let start = self.key_pos(i)?;
        let mut j = 0usize;
        loop {
            let stored = *self.buf.get(start.checked_add(j)?)?;
            let wanted = key.get(j).copied().unwrap_or(0);
            if wanted != stored || wanted == 0 {
                return Some(wanted.cmp(&stored));
            }
            j += 1;
        }
    }
}

impl FlexValue<'_> {
    /// As flexbuffers.h's AsInt64 (conversions exactly as C++: float truncation, bool 0/1,
    /// others 0).
    ///
    /// Int: itself; UInt: reinterpreted (`u as i64`); Float: truncated towards zero (an
    /// out-of-range value or NaN is undefined behaviour in C++: here it saturates, NaN is 0,
    /// as Arm's conversion instructions do); Bool: 0 or 1; Null: 0; a string
    /// (`Other(FBT_STRING)`): parsed as `flatbuffers::StringToInt` does (`strtoll` base 10:
    /// leading whitespace, a sign, digits and nothing after; otherwise, or on overflow, 0);
    /// an untyped vector: its length; anything else (maps, keys, blobs, typed vectors): 0.
    pub fn as_i64(&self) -> i64 {
        match *self {
            FlexValue::Null => 0,
            FlexValue::Int(i) => i,
            FlexValue::UInt(u) => u as i64,
            FlexValue::Float(f) => f as i64,
            FlexValue::Bool(b) => i64::from(b),
            FlexValue::Other(FBT_STRING, s) => match parse_c_integer(s) {
                Some((false, m)) => i64::try_from(m).unwrap_or(0),
                Some((true, m)) if m <= 1 << 63 => (m as i64).wrapping_neg(),
                _ => 0,
            },
            FlexValue::Other(FBT_VECTOR, types) => types.len() as i64,
            FlexValue::Other(..) => 0,
        }
    }

    /// As AsInt32: the C++ static_cast of AsInt64 (truncating two's complement).
    pub fn as_i32(&self) -> i32 {
        self.as_i64() as i32
    }

    /// As flexbuffers.h's AsBool: a Bool itself, anything else `as_u64() != 0` (so a float
    /// in (-1, 1) is `false`; a negative one too, see [`as_u64`](Self::as_u64)).
    pub fn as_bool(&self) -> bool {
        match *self {
            FlexValue::Bool(b) => b,
            _ => self.as_u64() != 0,
        }
    }

    /// As flexbuffers.h's AsUInt64.
    ///
    /// UInt: itself; Int: reinterpreted (`i as u64`); Float: truncated towards zero (a
    /// negative, out-of-range or NaN value is undefined behaviour in C++: here it saturates,
    /// negatives and NaN to 0, as Arm's conversion instructions do); Bool: 0 or 1; Null: 0;
    /// a string: parsed as `flatbuffers::StringToUInt` (`strtoull` base 10, so `"-1"` is
    /// `u64::MAX`; malformed or overflowing: 0); an untyped vector: its length; anything
    /// else: 0.
    pub fn as_u64(&self) -> u64 {
        match *self {
            FlexValue::Null => 0,
            FlexValue::Int(i) => i as u64,
            FlexValue::UInt(u) => u,
            FlexValue::Float(f) => f as u64,
            FlexValue::Bool(b) => u64::from(b),
            FlexValue::Other(FBT_STRING, s) => match parse_c_integer(s) {
                Some((true, m)) => m.wrapping_neg(),
                Some((false, m)) => m,
                None => 0,
            },
            FlexValue::Other(FBT_VECTOR, types) => types.len() as u64,
            FlexValue::Other(..) => 0,
        }
    }
}

/// Decodes the element at `pos` of a vector of width `parent_width`, with packed type
/// `packed` (type code in the upper 6 bits, log2 of its own byte width in the lower 2).
fn decode(buf: &[u8], pos: usize, parent_width: usize, packed: u8) -> Option<FlexValue<'_>> {
    let ty = packed >> 2;
    let w = packed_width(packed);
    Some(match ty {
        FBT_NULL => FlexValue::Null,
        FBT_INT => FlexValue::Int(read_i(buf, pos, parent_width)?),
        FBT_UINT => FlexValue::UInt(read_u(buf, pos, parent_width)?),
        FBT_FLOAT => FlexValue::Float(read_f(buf, pos, parent_width)?),
        FBT_BOOL => FlexValue::Bool(read_u(buf, pos, parent_width)? != 0),
        FBT_INDIRECT_INT => FlexValue::Int(read_i(buf, indirect(buf, pos, parent_width)?, w)?),
        FBT_INDIRECT_UINT => FlexValue::UInt(read_u(buf, indirect(buf, pos, parent_width)?, w)?),
        FBT_INDIRECT_FLOAT => FlexValue::Float(read_f(buf, indirect(buf, pos, parent_width)?, w)?),
        FBT_KEY => {
            let rest = buf.get(indirect(buf, pos, parent_width)?..)?;
            let end = rest.iter().position(|&b| b == 0)?;
            FlexValue::Other(ty, rest.get(..end)?)
        }
        FBT_STRING | FBT_BLOB => {
            let data = indirect(buf, pos, parent_width)?;
            let size = sized_len(buf, data, w)?;
            FlexValue::Other(ty, buf.get(data..data.checked_add(size)?)?)
        }
        FBT_MAP | FBT_VECTOR => {
            let data = indirect(buf, pos, parent_width)?;
            let len = sized_len(buf, data, w)?;
            let types = len.checked_mul(w)?.checked_add(data)?;
            FlexValue::Other(ty, buf.get(types..types.checked_add(len)?)?)
        }
        FBT_VECTOR_INT..=FBT_VECTOR_STRING_DEPRECATED | FBT_VECTOR_BOOL => {
            let data = indirect(buf, pos, parent_width)?;
            let bytes = sized_len(buf, data, w)?.checked_mul(w)?;
            FlexValue::Other(ty, buf.get(data..data.checked_add(bytes)?)?)
        }
        FBT_VECTOR_INT2..=FBT_VECTOR_FLOAT4 => {
            let data = indirect(buf, pos, parent_width)?;
            let count = usize::from((ty - FBT_VECTOR_INT2) / 3 + 2);
            FlexValue::Other(ty, buf.get(data..data.checked_add(count * w)?)?)
        }
        _ => FlexValue::Other(ty, &[]),
    })
}

/// The byte width `1 << (packed & 3)` of a packed type.
fn packed_width(packed: u8) -> usize {
    1usize << (packed & 3)
}

/// A byte width read from the buffer: 1, 2, 4 or 8, else `None`.
fn width(w: u64) -> Option<usize> {
    match w {
        1 | 2 | 4 | 8 => Some(w as usize),
        _ => None,
    }
}

/// The `w` bytes at `pos` (`w` is 1, 2, 4 or 8), zero-padded little-endian into 8 bytes.
fn read_bytes(buf: &[u8], pos: usize, w: usize) -> Option<[u8; 8]> {
    let src = buf.get(pos..pos.checked_add(w)?)?;
    let mut out = [0u8; 8];
    out.get_mut(..src.len())?.copy_from_slice(src);
    Some(out)
}

/// An unsigned little-endian integer of width `w` at `pos`.
fn read_u(buf: &[u8], pos: usize, w: usize) -> Option<u64> {
    read_bytes(buf, pos, w).map(u64::from_le_bytes)
}

/// A signed little-endian integer of width `w` at `pos`, sign-extended.
fn read_i(buf: &[u8], pos: usize, w: usize) -> Option<i64> {
    let u = read_u(buf, pos, w)?;
    let shift = 64 - 8 * (w as u32).min(8);
    Some(((u << shift) as i64) >> shift)
}

/// A float of width `w` at `pos`, as `flexbuffers::ReadDouble`: widths 1 and 2 are its
/// `quarter`/`half` typedefs, `int8_t`/`int16_t`, converted to double.
fn read_f(buf: &[u8], pos: usize, w: usize) -> Option<f64> {
    let u = read_u(buf, pos, w)?;
    Some(match w {
        4 => f64::from(f32::from_bits(u as u32)),
        8 => f64::from_bits(u),
        _ => read_i(buf, pos, w)? as f64,
    })
}

/// Follows the offset of width `w` at `pos`: offsets point backwards, `pos - offset`.
fn indirect(buf: &[u8], pos: usize, w: usize) -> Option<usize> {
    let off = usize::try_from(read_u(buf, pos, w)?).ok()?;
    pos.checked_sub(off)
}

/// The size field of width `w` just before `data` (strings, blobs, vectors).
fn sized_len(buf: &[u8], data: usize, w: usize) -> Option<usize> {
    usize::try_from(read_u(buf, data.checked_sub(w)?, w)?).ok()
}

/// `strtoll`/`strtoull` base 10 on a C string (up to its first NUL), as
/// `flatbuffers::StringToIntegerImpl` accepts it: leading C-locale whitespace, an optional
/// sign, at least one digit, nothing after. Returns (negative, magnitude); `None` if
/// malformed or the magnitude exceeds `u64::MAX` (`ERANGE`).
fn parse_c_integer(s: &[u8]) -> Option<(bool, u64)> {
    let end = s.iter().position(|&b| b == 0).unwrap_or(s.len());
    let s = s.get(..end)?;
    let mut i = 0;
    while matches!(s.get(i), Some(b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')) {
        i += 1;
    }
    let negative = match s.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let digits = s.get(i..)?;
    if digits.is_empty() {
        return None;
    }
    let mut m = 0u64;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        m = m.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
    }
    Some((negative, m))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Real custom options of `audio_preprocessor_int8.tflite` (TFLM signal library ops).
    // SignalRfft: {"T": 7, "fft_length": 512}.
    // SignalFilterBankSpectralSubtraction: 9 entries, one of them a bool.
    // SignalFftAutoScale: the empty map.
    // Written by flexbuffers.h's Builder (the expected values are its AsInt64 etc.):
    // INDIRECT_INTS: {"x": IndirectInt(40000), "y": IndirectInt(-40000), "z": IndirectUInt(120000)}.
    // FLOATS_2_9: {"f": Double(2.9), "g": Float(2.9f), "h": IndirectDouble(2.9),
    //              "i": IndirectFloat(2.9f), "w": Int(INT64_MAX)}.
    // STR_MINUS_17: {"pad": 1, "s": String(" -17")}.
    // MIXED: {"big": 1 << 40, "blob": Blob(1,2,3,4), "bv": [true, false] (typed), "f": false,
    //         "fx": int32[3] (fixed), "m": {"q": 1, "r": 2}, "null": null, "t": true,
    //         "tv": [1, 2, 300] (typed), "v": [1, "two", 3.0], "v0": []}.
    const INDIRECT_INTS: [u8; 40] = [
        120, 0, 0, 0, 64, 156, 0, 0, 121, 0, 0, 0, 192, 99, 255, 255, 122, 0, 0, 0, 192, 212, 1, 0,
        3, 25, 18, 11, 3, 1, 3, 27, 20, 13, 26, 26, 30, 6, 36, 1,
    ];
    const FLOATS_2_9: [u8; 104] = [
        102, 0, 103, 0, 104, 0, 0, 0, 51, 51, 51, 51, 51, 51, 7, 64, 105, 0, 0, 0, 154, 153, 57,
        64, 119, 0, 5, 27, 26, 25, 14, 7, 5, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0,
        0, 0, 0, 0, 0, 51, 51, 51, 51, 51, 51, 7, 64, 0, 0, 0, 64, 51, 51, 7, 64, 64, 0, 0, 0, 0,
        0, 0, 0, 60, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 127, 15, 15, 35, 34,
        7, 45, 39, 1,
    ];
    const MIXED: [u8; 246] = [
        118, 0, 3, 116, 119, 111, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 13, 0, 0, 0, 0, 0, 64, 64, 6, 20,
        14, 118, 48, 0, 0, 116, 118, 0, 3, 0, 1, 0, 2, 0, 44, 1, 102, 120, 0, 0, 0, 0, 1, 0, 0, 0,
        2, 0, 0, 0, 3, 0, 0, 0, 109, 0, 113, 0, 114, 0, 2, 5, 4, 2, 1, 2, 1, 2, 4, 4, 98, 108, 111,
        98, 0, 4, 1, 2, 3, 4, 110, 117, 108, 108, 0, 116, 0, 102, 0, 98, 105, 103, 0, 98, 118, 0,
        2, 1, 0, 11, 11, 31, 9, 16, 68, 51, 26, 22, 83, 115, 89, 0, 0, 0, 14, 0, 0, 0, 0, 0, 0, 0,
        1, 0, 0, 0, 0, 0, 0, 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 70, 0, 0, 0, 0, 0,
        0, 0, 57, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 128, 0, 0, 0, 0, 0, 0, 0, 112, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 172, 0, 0, 0, 0, 0, 0, 0,
        204, 0, 0, 0, 0, 0, 0, 0, 193, 0, 0, 0, 0, 0, 0, 0, 7, 100, 144, 107, 78, 36, 3, 107, 45,
        42, 40, 99, 39, 1,
    ];
    const STR_MINUS_17: [u8; 25] = [
        115, 0, 4, 32, 45, 49, 55, 0, 112, 97, 100, 0, 2, 5, 14, 2, 1, 2, 1, 16, 4, 20, 4, 36, 1,
    ];
    const RFFT: [u8; 31] = [
        84, 0, 102, 102, 116, 95, 108, 101, 110, 103, 116, 104, 0, 2, 14, 13, 2, 0, 1, 0, 2, 0, 7,
        0, 0, 2, 5, 5, 6, 37, 1,
    ];
    const SPECTRAL_SUBTRACTION: [u8; 210] = [
        97, 108, 116, 101, 114, 110, 97, 116, 101, 95, 111, 110, 101, 95, 109, 105, 110, 117, 115,
        95, 115, 109, 111, 111, 116, 104, 105, 110, 103, 0, 97, 108, 116, 101, 114, 110, 97, 116,
        101, 95, 115, 109, 111, 111, 116, 104, 105, 110, 103, 0, 99, 108, 97, 109, 112, 105, 110,
        103, 0, 109, 105, 110, 95, 115, 105, 103, 110, 97, 108, 95, 114, 101, 109, 97, 105, 110,
        105, 110, 103, 0, 110, 117, 109, 95, 99, 104, 97, 110, 110, 101, 108, 115, 0, 111, 110,
        101, 95, 109, 105, 110, 117, 115, 95, 115, 109, 111, 111, 116, 104, 105, 110, 103, 0, 115,
        109, 111, 111, 116, 104, 105, 110, 103, 0, 115, 109, 111, 111, 116, 104, 105, 110, 103, 95,
        98, 105, 116, 115, 0, 115, 112, 101, 99, 116, 114, 97, 108, 95, 115, 117, 98, 116, 114, 97,
        99, 116, 105, 111, 110, 95, 98, 105, 116, 115, 0, 9, 165, 136, 117, 109, 89, 77, 58, 49,
        35, 9, 0, 1, 0, 9, 0, 41, 60, 215, 3, 0, 0, 51, 3, 40, 0, 103, 62, 153, 1, 10, 0, 14, 0, 5,
        5, 105, 5, 5, 5, 5, 5, 5, 27, 37, 1,
    ];
    const FFT_AUTO_SCALE: [u8; 7] = [0, 0, 1, 0, 0, 36, 1];

    #[test]
    fn real_rfft() {
        let m = FlexMap::root(&RFFT).unwrap();
        assert_eq!((m.len(), m.is_empty()), (2, false));
        assert_eq!(m.key(0), Some(&b"T"[..]));
        assert_eq!(m.key(1), Some(&b"fft_length"[..]));
        assert_eq!(m.key(2), None);
        assert_eq!(m.value(0), Some(FlexValue::Int(7)));
        // TFLM: `fbw.ElementAsInt32(kFftLengthIndex)` with kFftLengthIndex = 1.
        assert_eq!(m.value(1).unwrap().as_i32(), 512);
        assert_eq!(m.get("T").unwrap().as_i32(), 7);
        assert_eq!(m.get("fft_length").unwrap().as_i64(), 512);
        assert_eq!(m.get("fft"), None);
        assert_eq!(m.get("fft_lengths"), None);
        assert_eq!(m.get(""), None);
        assert_eq!(m.get("T\0"), None);
        assert_eq!(m.value(2), None);
    }

    #[test]
    fn real_spectral_subtraction() {
        let m = FlexMap::root(&SPECTRAL_SUBTRACTION).unwrap();
        let expect: [(&str, FlexValue); 9] = [
            ("alternate_one_minus_smoothing", FlexValue::Int(15401)),
            ("alternate_smoothing", FlexValue::Int(983)),
            ("clamping", FlexValue::Bool(false)),
            ("min_signal_remaining", FlexValue::Int(819)),
            ("num_channels", FlexValue::Int(40)),
            ("one_minus_smoothing", FlexValue::Int(15975)),
            ("smoothing", FlexValue::Int(409)),
            ("smoothing_bits", FlexValue::Int(10)),
            ("spectral_subtraction_bits", FlexValue::Int(14)),
        ];
        assert_eq!(m.len(), expect.len());
        for (i, (k, v)) in expect.iter().enumerate() {
            assert_eq!(m.key(i), Some(k.as_bytes()));
            assert_eq!(m.value(i), Some(*v));
            assert_eq!(m.get(k), Some(*v));
        }
        assert!(!m.get("clamping").unwrap().as_bool());
        assert!(m.get("num_channels").unwrap().as_bool());
        assert_eq!(m.get("clamping").unwrap().as_i32(), 0);
        assert_eq!(m.get("zzz"), None);
        assert_eq!(m.get("a"), None);
    }

    #[test]
    fn real_empty_map() {
        let m = FlexMap::root(&FFT_AUTO_SCALE).unwrap();
        assert_eq!((m.len(), m.is_empty()), (0, true));
        assert_eq!((m.key(0), m.value(0), m.get("T")), (None, None, None));
    }

    #[test]
    fn indirect_and_float_values() {
        let m = FlexMap::root(&INDIRECT_INTS).unwrap();
        assert_eq!(m.get("x"), Some(FlexValue::Int(40000)));
        assert_eq!(m.get("y"), Some(FlexValue::Int(-40000)));
        assert_eq!(m.get("z"), Some(FlexValue::UInt(120000)));
        assert_eq!(m.get("y").unwrap().as_u64(), (-40000i64) as u64);
        let m = FlexMap::root(&FLOATS_2_9).unwrap();
        let f32_2_9 = f64::from(2.9f32);
        assert_eq!(m.get("f"), Some(FlexValue::Float(2.9)));
        assert_eq!(m.get("g"), Some(FlexValue::Float(f32_2_9)));
        assert_eq!(m.get("h"), Some(FlexValue::Float(2.9)));
        assert_eq!(m.get("i"), Some(FlexValue::Float(f32_2_9)));
        for k in ["f", "g", "h", "i"] {
            let v = m.get(k).unwrap();
            assert_eq!(
                (v.as_i64(), v.as_i32(), v.as_u64(), v.as_bool()),
                (2, 2, 2, true)
            );
        }
        let w = m.get("w").unwrap();
        assert_eq!(
            (w.as_i64(), w.as_i32(), w.as_u64()),
            (i64::MAX, -1, i64::MAX as u64)
        );
    }

    #[test]
    fn strings_vectors_and_others() {
        let m = FlexMap::root(&STR_MINUS_17).unwrap();
        let s = m.get("s").unwrap();
        assert_eq!(s, FlexValue::Other(FBT_STRING, b" -17"));
        assert_eq!(
            (s.as_i64(), s.as_i32(), s.as_u64()),
            (-17, -17, (-17i64) as u64)
        );
        assert!(s.as_bool());
        let m = FlexMap::root(&MIXED).unwrap();
        assert_eq!(m.len(), 11);
        let get = |k: &str| m.get(k).unwrap();
        assert_eq!(get("big"), FlexValue::Int(1 << 40));
        assert_eq!(get("big").as_i32(), 0);
        assert_eq!(get("blob"), FlexValue::Other(FBT_BLOB, &[1, 2, 3, 4]));
        assert!(matches!(get("bv"), FlexValue::Other(FBT_VECTOR_BOOL, b) if b == [1, 0]));
        assert_eq!(get("f"), FlexValue::Bool(false));
        assert!(matches!(get("fx"), FlexValue::Other(19, b) if b.len() == 12));
        assert!(matches!(get("m"), FlexValue::Other(FBT_MAP, b) if b.len() == 2));
        assert_eq!(get("null"), FlexValue::Null);
        assert_eq!(get("t"), FlexValue::Bool(true));
        assert!(matches!(get("tv"), FlexValue::Other(FBT_VECTOR_INT, b) if b.len() == 6));
        assert!(matches!(get("v"), FlexValue::Other(FBT_VECTOR, b) if b.len() == 3));
        assert_eq!(get("v0"), FlexValue::Other(FBT_VECTOR, &[]));
        // flexbuffers.h: an untyped vector converts to its size, every other non-scalar to 0.
        let conv = |k: &str| {
            let v = get(k);
            (v.as_i64(), v.as_u64(), v.as_bool())
        };
        assert_eq!(conv("v"), (3, 3, true));
        assert_eq!(conv("v0"), (0, 0, false));
        for k in ["blob", "bv", "fx", "m", "null", "tv", "f"] {
            assert_eq!(conv(k), (0, 0, false), "{k}");
        }
        assert_eq!(conv("t"), (1, 1, true));
    }

    #[test]
    fn conversions_as_cpp() {
        use FlexValue::*;
        assert_eq!(Float(2.9).as_i64(), 2);
        assert_eq!(Float(-2.9).as_i64(), -2);
        assert_eq!(Float(0.5).as_u64(), 0);
        assert!(!Float(0.5).as_bool());
        assert!(Float(1.5).as_bool());
        assert_eq!(Float(f64::NAN).as_i64(), 0);
        assert_eq!(UInt(u64::MAX).as_i64(), -1);
        assert_eq!(Int(-1).as_u64(), u64::MAX);
        assert_eq!(Int((1 << 32) + 5).as_i32(), 5);
        assert_eq!(Int(0x8000_0000).as_i32(), i32::MIN);
        assert_eq!((Bool(true).as_i64(), Bool(true).as_u64()), (1, 1));
        assert_eq!(
            (Null.as_i64(), Null.as_u64(), Null.as_bool()),
            (0, 0, false)
        );
        // flatbuffers::StringToInt / StringToUInt (strtoll / strtoull, base 10, whole string).
        let s = |t: &'static [u8]| Other(FBT_STRING, t);
        assert_eq!(s(b"42").as_i64(), 42);
        assert_eq!(s(b"\t\n+8").as_i64(), 8);
        assert_eq!(s(b"-5").as_u64(), u64::MAX - 4);
        for bad in [&b""[..], b"12x", b"1 ", b"+", b"-", b"  ", b"0x10", b"abc"] {
            assert_eq!((s(bad).as_i64(), s(bad).as_u64()), (0, 0));
        }
        assert_eq!(s(b"9223372036854775808").as_i64(), 0);
        assert_eq!(s(b"9223372036854775808").as_u64(), 1 << 63);
        assert_eq!(s(b"-9223372036854775808").as_i64(), i64::MIN);
        assert_eq!(s(b"18446744073709551615").as_u64(), u64::MAX);
        assert_eq!(s(b"18446744073709551616").as_u64(), 0);
        assert_eq!(s(b"7\0junk").as_i64(), 7);
        assert_eq!(Other(FBT_KEY, b"42").as_i64(), 0);
        assert_eq!(Other(FBT_VECTOR, &[4, 4]).as_u64(), 2);
        assert_eq!(Other(FBT_MAP, &[4, 4]).as_u64(), 0);
    }

    #[test]
    fn malformed_is_none() {
        assert!(FlexMap::root(&[]).is_none());
        assert!(FlexMap::root(&[1]).is_none());
        assert!(FlexMap::root(&[36, 1]).is_none());
        // Root byte width 3, 0, 16: not 1/2/4/8.
        for w in [0u8, 3, 16, 255] {
            let mut b = RFFT;
            b[30] = w;
            assert!(FlexMap::root(&b).is_none());
        }
        // Root not a map: an int, a vector.
        assert!(FlexMap::root(&[7, 4, 1]).is_none());
        let mut b = RFFT;
        b[29] = (FBT_VECTOR << 2) | 1;
        assert!(FlexMap::root(&b).is_none());
        // Root offset past the start, length huge, keys width 3, keys count mismatch.
        let mut b = RFFT;
        b[28] = 200;
        assert!(FlexMap::root(&b).is_none());
        let mut b = RFFT;
        b[20..22].copy_from_slice(&[0xff, 0xff]);
        assert!(FlexMap::root(&b).is_none());
        let mut b = RFFT;
        b[18] = 3;
        assert!(FlexMap::root(&b).is_none());
        let mut b = RFFT;
        b[13] = 3;
        assert!(FlexMap::root(&b).is_none());
        // A key offset out of the buffer, a key without NUL: that key is None, the rest reads.
        let mut b = RFFT;
        b[15] = 100;
        let m = FlexMap::root(&b).unwrap();
        assert_eq!((m.key(0), m.key(1)), (Some(&b"T"[..]), None));
        assert_eq!(m.get("fft_length"), None);
        // The NUL after "fft_length" overwritten: key 1 runs on to the next NUL, no longer
        // matches, and the binary search does not find it.
        let mut b = RFFT;
        b[12] = b'!';
        let m = FlexMap::root(&b).unwrap();
        assert_eq!(m.key(1), Some(&b"fft_length!\x02\x0e\x0d\x02"[..]));
        assert_eq!(m.get("fft_length"), None);
        assert_eq!(m.get("T"), Some(FlexValue::Int(7)));
        // A hand-made {"a": 7}, then the same with the key's NUL gone (no zero byte anywhere):
        // the key is None and `get` does not find it, the value still reads.
        let m = FlexMap::root(&[97, 0, 1, 3, 1, 1, 1, 7, 4, 2, 36, 1]).unwrap();
        assert_eq!(
            (m.key(0), m.get("a")),
            (Some(&b"a"[..]), Some(FlexValue::Int(7)))
        );
        let m = FlexMap::root(&[97, 1, 2, 1, 1, 1, 7, 4, 2, 36, 1]).unwrap();
        assert_eq!((m.key(0), m.get("a")), (None, None));
        assert_eq!(m.value(0), Some(FlexValue::Int(7)));
        // An indirect value pointing before the buffer; an unknown type code.
        let mut b = RFFT;
        b[26] = (FBT_INDIRECT_INT << 2) | 1;
        b[22] = 100;
        let m = FlexMap::root(&b).unwrap();
        assert_eq!(m.value(0), None);
        b[26] = 50 << 2;
        assert_eq!(
            FlexMap::root(&b).unwrap().value(0),
            Some(FlexValue::Other(50, &[]))
        );
        // Every truncation and every single-byte corruption: no panic.
        for n in 0..RFFT.len() {
            let _ = FlexMap::root(&RFFT[..n]).map(|m| m.get("T"));
            let _ = FlexMap::root(&RFFT[n..]).map(|m| m.get("T"));
        }
        for i in 0..MIXED.len() {
            for x in [0u8, 1, 0x7f, 0x80, 0xff] {
                let mut b = MIXED;
                b[i] = x;
                if let Some(m) = FlexMap::root(&b) {
                    for j in 0..m.len() + 1 {
                        let _ = (m.key(j), m.value(j).map(|v| (v.as_i64(), v.as_bool())));
                    }
                    let _ = (m.get("v"), m.get("tv"), m.get("zz"));
                }
            }
        }
    }
}
