//! [`Kinds`]: a set of kernel kinds, what an [`super::OpSet`] links.
//!
//! Guarantees: every operation is a `const fn` (an image's set is a constant, and every
//! dispatch arm's `contains` test folds to true or false at compile time); a kind at or past
//! [`Kinds::BITS`] is in no set ([`Kinds::contains`] is false, [`Kinds::checked_one`] is
//! `None`, [`Kinds::of`] fails to compile in a constant).

use core::fmt;

/// Words of the set (each 128 kinds).
const WORDS: usize = 2;

/// A set of kernel kinds ([`super::OpSet::KINDS`]): kind `k` of the operator list is in it or
/// not. Written in code as the list of its kinds:
///
/// ```
/// use synaptic_run::ops::Kinds;
/// const MINE: Kinds = Kinds::of(&[1, 2, 140]);
/// assert!(MINE.contains(140) && !MINE.contains(3));
/// assert_eq!(MINE.count(), 3);
/// assert_eq!(MINE.to_string(), "Kinds::of(&[1, 2, 140])");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Kinds([u128; WORDS]);

impl Kinds {
    /// Kinds are below this.
    pub const BITS: u32 = 128 * WORDS as u32;
    /// No kind.
    pub const NONE: Kinds = Kinds([0; WORDS]);
    /// Every kind.
    pub const ALL: Kinds = Kinds([u128::MAX; WORDS]);

    /// The set of `kinds` (each below [`Kinds::BITS`]: another panics, at compile time in a
    /// constant).
    pub const fn of(kinds: &[u32]) -> Kinds {
        let mut s = Kinds::NONE;
        let mut i = 0;
        while i < kinds.len() {
            assert!(kinds[i] < Self::BITS, "a kernel kind is below Kinds::BITS");
            s = s.with(kinds[i]);
            i += 1;
        }
        s
    }

    /// The set of `kind` alone; `None` past [`Kinds::BITS`].
    pub const fn checked_one(kind: u32) -> Option<Kinds> {
        if kind < Self::BITS {
            Some(Kinds::NONE.with(kind))
        } else {
            None
        }
    }

    /// This set and `kind` (unchanged past [`Kinds::BITS`]).
    #[must_use]
    pub const fn with(self, kind: u32) -> Kinds {
        let mut w = self.0;
        if kind < Self::BITS {
            w[(kind / 128) as usize] |= 1 << (kind % 128);
        }
        Kinds(w)
    }

    /// Whether `kind` is in the set.
    #[inline(always)]
    pub const fn contains(self, kind: u32) -> bool {
        kind < Self::BITS && (self.0[(kind / 128) as usize] >> (kind % 128)) & 1 == 1
    }

    /// The kinds of either set.
    #[must_use]
    pub const fn union(self, other: Kinds) -> Kinds {
        let mut w = self.0;
        let mut i = 0;
        while i < WORDS {
            w[i] |= other.0[i];
            i += 1;
        }
        Kinds(w)
    }

    /// The kinds of this set not in `other`.
    #[must_use]
    pub const fn without(self, other: Kinds) -> Kinds {
        let mut w = self.0;
        let mut i = 0;
        while i < WORDS {
            w[i] &= !other.0[i];
            i += 1;
        }
        Kinds(w)
    }

    /// Whether a kind is in both sets.
    pub const fn intersects(self, other: Kinds) -> bool {
        let mut i = 0;
        while i < WORDS {
            if self.0[i] & other.0[i] != 0 {
                return true;
            }
            i += 1;
        }
        false
    }

    /// Whether the set has no kind.
    pub const fn is_empty(self) -> bool {
        !self.intersects(Kinds::ALL)
    }

    /// How many kinds the set has.
    pub const fn count(self) -> u32 {
        let mut n = 0;
        let mut i = 0;
        while i < WORDS {
            n += self.0[i].count_ones();
            i += 1;
        }
        n
    }

    /// The set's kinds, in increasing order.
    pub fn iter(self) -> impl Iterator<Item = u32> {
        (0..Self::BITS).filter(move |&k| self.contains(k))
    }
}

impl core::ops::BitOr for Kinds {
    type Output = Kinds;
    fn bitor(self, other: Kinds) -> Kinds {
        self.union(other)
    }
}

impl core::ops::BitOrAssign for Kinds {
    fn bitor_assign(&mut self, other: Kinds) {
        *self = self.union(other);
    }
}

/// As Rust source: `Kinds::of(&[…])` (what `synmem emit` and the build scripts write; the
/// whole set as `Kinds::ALL`).
impl fmt::Display for Kinds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == Kinds::ALL {
            return f.write_str("Kinds::ALL");
        }
        f.write_str("Kinds::of(&[")?;
        for (i, k) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{k}")?;
        }
        f.write_str("])")
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::Kinds;
    use std::string::ToString;

    #[test]
    fn set_operations() {
        let a = Kinds::of(&[0, 127, 128, 255]);
        assert_eq!(a.count(), 4);
        assert!(a.contains(127) && a.contains(128) && a.contains(255) && !a.contains(1));
        assert!(!a.contains(256) && !Kinds::ALL.contains(u32::MAX));
        assert_eq!(Kinds::checked_one(256), None);
        assert_eq!(Kinds::checked_one(200), Some(Kinds::of(&[200])));
        assert_eq!(Kinds::NONE.with(300), Kinds::NONE);
        let b = Kinds::of(&[1, 128]);
        assert_eq!(a | b, Kinds::of(&[0, 1, 127, 128, 255]));
        assert_eq!(a.without(b), Kinds::of(&[0, 127, 255]));
        assert!(a.intersects(b) && !a.intersects(Kinds::of(&[2])));
        assert!(Kinds::NONE.is_empty() && !b.is_empty());
        assert!(a.iter().eq([0, 127, 128, 255]));
        assert_eq!(Kinds::ALL.count(), Kinds::BITS);
        assert_eq!(Kinds::ALL.to_string(), "Kinds::ALL");
        assert_eq!(Kinds::NONE.to_string(), "Kinds::of(&[])");
    }
}
