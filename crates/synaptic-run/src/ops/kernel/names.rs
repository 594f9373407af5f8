//! The kernels' operator names as an image links them: each distinct name once in one string,
//! a byte per kind saying which ([`NameTable`]), built at compile time from the operator list
//! (`kernel_name` in [`crate::ops`]).
//!
//! Guarantees: every function here is `const` and runs at compile time but [`NameTable::name`];
//! an image's table costs one byte a kind plus each operator's name and two bytes for it (a
//! per-kind table of `&str`, eight bytes a kind, grew every image with every kernel added);
//! a kind past the table, or without a kernel, is `"UNKNOWN"`.

/// Whether `a` and `b` are the same string.
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether entry `i` of `names` is the first with its name (and has one).
const fn first(names: &[(u32, &str)], i: usize) -> bool {
    if names[i].1.is_empty() {
        return false;
    }
    let mut j = 0;
    while j < i {
        if same(names[j].1, names[i].1) {
            return false;
        }
        j += 1;
    }
    true
}

/// The bytes and the count of the distinct names of `names` ((kind, name) pairs; `""` for a
/// kernel this build leaves out).
pub(crate) const fn sizes(names: &[(u32, &str)]) -> (usize, usize) {
    let (mut bytes, mut count) = (0, 0);
    let mut i = 0;
    while i < names.len() {
        if first(names, i) {
            bytes += names[i].1.len();
            count += 1;
        }
        i += 1;
    }
    (bytes, count)
}

/// The distinct names of `names`, one after the other (`B`: [`sizes`]' bytes).
pub(crate) const fn text<const B: usize>(names: &[(u32, &str)]) -> [u8; B] {
    let mut t = [0u8; B];
    let (mut at, mut i) = (0, 0);
    while i < names.len() {
        if first(names, i) {
            let n = names[i].1.as_bytes();
            let mut k = 0;
            while k < n.len() {
                t[at] = n[k];
                at += 1;
                k += 1;
            }
        }
        i += 1;
    }
    t
}

/// Where each distinct name of `names` starts in [`text`], and its end last (`N`: [`sizes`]'
/// count plus one).
pub(crate) const fn starts<const N: usize>(names: &[(u32, &str)]) -> [u16; N] {
    let mut s = [0u16; N];
    let (mut at, mut d, mut i) = (0usize, 0, 0);
    while i < names.len() {
        if first(names, i) {
            s[d] = at as u16;
            at += names[i].1.len();
            d += 1;
        }
        i += 1;
    }
    assert!(
        at <= u16::MAX as usize,
        "the operator names fit 16-bit offsets"
    );
    s[d] = at as u16;
    s
}

/// Which distinct name each kind below `K` has (`u8::MAX`: no kernel). One pass: each entry
/// takes the position of the first entry with its name, or the next one.
pub(crate) const fn of_kind<const K: usize>(names: &[(u32, &str)]) -> [u8; K] {
    const MAX: usize = 512;
    assert!(names.len() <= MAX, "at most 512 kernels");
    let mut pos = [u8::MAX; MAX];
    let mut t = [u8::MAX; K];
    let mut next = 0usize;
    let mut i = 0;
    while i < names.len() {
        if !names[i].1.is_empty() {
            let mut j = 0;
            while j < i && !same(names[j].1, names[i].1) {
                j += 1;
            }
            pos[i] = if j < i {
                pos[j]
            } else {
                assert!(next < u8::MAX as usize, "fewer than 255 operator names");
                next += 1;
                (next - 1) as u8
            };
            t[names[i].0 as usize] = pos[i];
        }
        i += 1;
    }
    t
}

/// The string of `bytes` (names are ASCII: a compile-time failure otherwise).
pub(crate) const fn as_str(bytes: &[u8]) -> &str {
    match core::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(_) => panic!("operator names are UTF-8"),
    }
}

/// The compact table: the names' text, their starts, each kind's name.
pub(crate) struct NameTable<'t> {
    pub(crate) text: &'t str,
    pub(crate) starts: &'t [u16],
    pub(crate) of_kind: &'t [u8],
}

impl NameTable<'_> {
    /// Kind `kind`'s operator name; `"UNKNOWN"` for a kind without a kernel.
    pub(crate) fn name(&self, kind: u32) -> &str {
        let Some(&d) = self.of_kind.get(kind as usize) else {
            return "UNKNOWN";
        };
        let d = usize::from(d);
        match (self.starts.get(d), self.starts.get(d + 1)) {
            (Some(&s), Some(&e)) => self
                .text
                .get(usize::from(s)..usize::from(e))
                .unwrap_or("UNKNOWN"),
            _ => "UNKNOWN",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: &[(u32, &str)] = &[(0, "ADD"), (3, "MUL"), (1, "ADD"), (2, "")];
    const SIZES: (usize, usize) = sizes(NAMES);
    const TEXT: [u8; SIZES.0] = text(NAMES);
    const STARTS: [u16; SIZES.1 + 1] = starts(NAMES);
    const OF_KIND: [u8; 5] = of_kind(NAMES);

    #[test]
    fn one_name_each_a_byte_a_kind() {
        assert_eq!(SIZES, (6, 2));
        assert_eq!(&TEXT, b"ADDMUL");
        assert_eq!(STARTS, [0, 3, 6]);
        assert_eq!(OF_KIND, [0, 0, u8::MAX, 1, u8::MAX]);
        let t = NameTable {
            text: as_str(&TEXT),
            starts: &STARTS,
            of_kind: &OF_KIND,
        };
        let got: [&str; 6] = core::array::from_fn(|k| t.name(k as u32));
        assert_eq!(got, ["ADD", "ADD", "UNKNOWN", "MUL", "UNKNOWN", "UNKNOWN"]);
    }
}
