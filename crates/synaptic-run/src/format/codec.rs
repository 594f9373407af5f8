//! The word codec of the prepared parameters: every `*Params` struct as a fixed number of
//! `u32` words, one place per struct.
//!
//! Why a trait with a fixed word count and not a serializer: the program is read at every
//! inference on a microcontroller, so a struct decodes from a slice of known length with no
//! tags, no lengths and no loops beyond its arrays; `get` never panics (every read is
//! `slice::get`) and refuses a value the struct could not hold (a `bool` other than 0/1, a
//! `usize` that does not fit). `put` refuses a value over 32 bits, so a program means the same
//! on a 64-bit host that compiled it and on the 32-bit target that runs it.
//!
//! [`words!`](crate::format::codec::words) implements [`Words`] for a struct from its field
//! list; it is invoked beside each struct (in its kernel module), so private fields stay private
//! and a field added to a struct but not to its list does not compile (the decoder builds the
//! struct literal from the list).

/// A value stored as exactly [`Words::N`] `u32` words.
pub trait Words: Sized {
    /// Words of one value.
    const N: usize;
    /// Writes the value into `w` (`w.len() == N`); `false` if a field does not fit 32 bits.
    fn put(&self, w: &mut [u32]) -> bool;
    /// Reads a value from `w` (`w.len() == N`); `None` for a word no value encodes.
    fn get(w: &[u32]) -> Option<Self>;
}

impl Words for u32 {
    const N: usize = 1;
    #[inline]
    fn put(&self, w: &mut [u32]) -> bool {
        match w.first_mut() {
            Some(x) => {
                *x = *self;
                true
            }
            None => false,
        }
    }
    #[inline]
    fn get(w: &[u32]) -> Option<Self> {
        w.first().copied()
    }
}

impl Words for usize {
    const N: usize = 1;
    #[inline]
    fn put(&self, w: &mut [u32]) -> bool {
        u32::try_from(*self).is_ok_and(|v| v.put(w))
    }
    #[inline]
    fn get(w: &[u32]) -> Option<Self> {
        usize::try_from(u32::get(w)?).ok()
    }
}

impl Words for i32 {
    const N: usize = 1;
    #[inline]
    fn put(&self, w: &mut [u32]) -> bool {
        (*self as u32).put(w)
    }
    #[inline]
    fn get(w: &[u32]) -> Option<Self> {
        Some(u32::get(w)? as i32)
    }
}

impl Words for i8 {
    const N: usize = 1;
    #[inline]
    fn put(&self, w: &mut [u32]) -> bool {
        i32::from(*self).put(w)
    }
    #[inline]
    fn get(w: &[u32]) -> Option<Self> {
        i8::try_from(i32::get(w)?).ok()
    }
}

impl Words for f32 {
    const N: usize = 1;
    #[inline]
    fn put(&self, w: &mut [u32]) -> bool {
        self.to_bits().put(w)
    }
    #[inline]
    fn get(w: &[u32]) -> Option<Self> {
        Some(f32::from_bits(u32::get(w)?))
    }
}

impl Words for bool {
    const N: usize = 1;
    #[inline]
    fn put(&self, w: &mut [u32]) -> bool {
        u32::from(*self).put(w)
    }
    #[inline]
    fn get(w: &[u32]) -> Option<Self> {
        match u32::get(w)? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
}

impl<T: Words + Copy + Default, const K: usize> Words for [T; K] {
    const N: usize = T::N * K;
    #[inline]
    fn put(&self, w: &mut [u32]) -> bool {
        self.iter().enumerate().all(|(i, v)| {
            w.get_mut(i * T::N..(i + 1) * T::N)
                .is_some_and(|s| v.put(s))
        })
    }
    #[inline]
    fn get(w: &[u32]) -> Option<Self> {
        let mut out = [T::default(); K];
        for (i, o) in out.iter_mut().enumerate() {
            *o = T::get(w.get(i * T::N..(i + 1) * T::N)?)?;
        }
        Some(out)
    }
}

impl Words for () {
    const N: usize = 0;
    #[inline]
    fn put(&self, w: &mut [u32]) -> bool {
        w.is_empty()
    }
    #[inline]
    fn get(w: &[u32]) -> Option<Self> {
        w.is_empty().then_some(())
    }
}

impl<A: Words, B: Words> Words for (A, B) {
    const N: usize = A::N + B::N;
    #[inline]
    fn put(&self, w: &mut [u32]) -> bool {
        if w.len() != Self::N {
            return false;
        }
        let (a, b) = w.split_at_mut(A::N);
        self.0.put(a) && self.1.put(b)
    }
    #[inline]
    fn get(w: &[u32]) -> Option<Self> {
        Some((A::get(w.get(..A::N)?)?, B::get(w.get(A::N..A::N + B::N)?)?))
    }
}

/// Implements [`Words`] for a struct from its fields, in order:
/// `words!(Type { field: FieldType, ... })`. The struct literal the decoder builds lists every
/// field, so the list cannot miss one.
macro_rules! words {
    ($t:ty { $($f:ident : $ft:ty),* $(,)? }) => {
        impl $crate::format::codec::Words for $t {
            const N: usize = 0 $(+ <$ft as $crate::format::codec::Words>::N)*;
            #[inline]
            #[allow(unused_assignments)]
            fn put(&self, w: &mut [u32]) -> bool {
                let mut at = 0usize;
                $(
                    let n = <$ft as $crate::format::codec::Words>::N;
                    match w.get_mut(at..at + n) {
                        Some(s) => {
                            if !<$ft as $crate::format::codec::Words>::put(&self.$f, s) {
                                return false;
                            }
                        }
                        None => return false,
                    }
                    at += n;
                )*
                true
            }
            #[inline]
            #[allow(unused_assignments)]
            fn get(w: &[u32]) -> Option<Self> {
                let mut at = 0usize;
                Some(Self {
                    $($f: {
                        let n = <$ft as $crate::format::codec::Words>::N;
                        let v = <$ft as $crate::format::codec::Words>::get(w.get(at..at + n)?)?;
                        at += n;
                        v
                    },)*
                })
            }
        }
    };
}
pub(crate) use words;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Loc;
    use crate::ops::common::Dims;

    #[test]
    fn words_refuse_what_no_value_encodes() {
        assert_eq!(bool::get(&[2]), None);
        assert_eq!(bool::get(&[1]), Some(true));
        assert_eq!(i8::get(&[200]), None);
        assert_eq!(i8::get(&[(-5i32) as u32]), Some(-5));
        assert_eq!(u32::get(&[]), None);
        let mut w = [0u32; 1];
        assert!(!usize::MAX.put(&mut w) || usize::BITS == 32);
        let d = Dims::new("T", &[2, 3]).unwrap();
        let mut w = [0u32; Dims::N];
        assert!(d.put(&mut w));
        assert_eq!(Dims::get(&w), Some(d));
        w[0] = 7; // rank over MAX_DIMS
        assert_eq!(Dims::get(&w), None);
        assert_eq!(<[i32; 2]>::get(&[1]), None);
        assert_eq!(<(i32, i32)>::get(&[1, 2]), Some((1, 2)));
        assert_eq!(Loc::get(&[4, 3, 0]), Some(Loc::State(3)));
        assert_eq!(Loc::get(&[5, 0, 0]), None);
        assert_eq!(
            Loc::get(&[3, 10, 20]),
            Some(Loc::Model {
                offset: 10,
                len: 20
            })
        );
    }
}
