//! Data types, lifetimes and the shape → byte-size rule.

use crate::error::ErrorKind;

/// Element type of a tensor. Values match the C enum `syn_npu_dtype_t` (0..=7).
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// Signed 8-bit integer.
    Int8 = 0,
    /// Unsigned 8-bit integer.
    UInt8 = 1,
    /// Signed 16-bit integer.
    Int16 = 2,
    /// Signed 32-bit integer.
    Int32 = 3,
    /// IEEE 754 half precision (stored as raw `u16` bits).
    Float16 = 4,
    /// IEEE 754 single precision.
    Float32 = 5,
    /// bfloat16 (stored as raw `u16` bits).
    BFloat16 = 6,
    /// Signed 4-bit integer, two values per byte; the byte size is rounded up.
    Int4 = 7,
}

impl DType {
    /// All data types, in C enum order.
    pub const ALL: [DType; 8] = [
        DType::Int8,
        DType::UInt8,
        DType::Int16,
        DType::Int32,
        DType::Float16,
        DType::Float32,
        DType::BFloat16,
        DType::Int4,
    ];

    /// Bits per element (4 for [`DType::Int4`]).
    #[inline(always)]
    pub const fn bits(self) -> u32 {
        match self {
            DType::Int4 => 4,
            DType::Int8 | DType::UInt8 => 8,
            DType::Int16 | DType::Float16 | DType::BFloat16 => 16,
            DType::Int32 | DType::Float32 => 32,
        }
    }

    /// The data type with C enum value `v`, if there is one.
    #[inline]
    pub const fn from_u8(v: u8) -> Option<DType> {
        if (v as usize) < Self::ALL.len() {
            Some(Self::ALL[v as usize])
        } else {
            None
        }
    }

    /// Short lower-case name (`"int8"`, `"float32"`, …).
    pub const fn name(self) -> &'static str {
        match self {
            DType::Int8 => "int8",
            DType::UInt8 => "uint8",
            DType::Int16 => "int16",
            DType::Int32 => "int32",
            DType::Float16 => "float16",
            DType::Float32 => "float32",
            DType::BFloat16 => "bfloat16",
            DType::Int4 => "int4",
        }
    }
}

/// How long a tensor lives. Values match the C enum `syn_mem_lifetime_t` (0, 1, 2).
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lifetime {
    /// Lives across inference calls (weights, biases); reclaimed only by re-initialising.
    Persistent = 0,
    /// Freed after each inference (activations) by `reset_ephemeral`.
    Ephemeral = 1,
    /// In the shared IPC region (input/output tensors); survives resets.
    Shared = 2,
}

impl Lifetime {
    /// The region a tensor of this lifetime is allocated in.
    #[inline(always)]
    pub const fn region(self) -> crate::Region {
        match self {
            Lifetime::Persistent => crate::Region::Persistent,
            Lifetime::Ephemeral => crate::Region::Ephemeral,
            Lifetime::Shared => crate::Region::Shared,
        }
    }

    /// The lifetime with C enum value `v`, if there is one.
    #[inline]
    pub const fn from_u8(v: u8) -> Option<Lifetime> {
        match v {
            0 => Some(Lifetime::Persistent),
            1 => Some(Lifetime::Ephemeral),
            2 => Some(Lifetime::Shared),
            _ => None,
        }
    }
}

/// Largest data size of one tensor, in bytes (2^30): a tensor of `n` elements of `b` bits is a
/// size overflow when `n * b > 2^33`.
pub const MAX_TENSOR_BYTES: u32 = 1 << 30;

impl DType {
    /// log2(bits / 4): 0 for INT4, 1 for 8-bit, 2 for 16-bit, 3 for 32-bit types.
    #[inline(always)]
    const fn quarter_shift(self) -> u32 {
        match self {
            DType::Int4 => 0,
            DType::Int8 | DType::UInt8 => 1,
            DType::Int16 | DType::Float16 | DType::BFloat16 => 2,
            DType::Int32 | DType::Float32 => 3,
        }
    }
}

/// Pads a 1- to 4-D shape to four dimensions (unused trailing dimensions are 1), and returns it
/// with the data size in bytes for `dtype`. Constant work: no loop over the shape, 32-bit
/// arithmetic only (three 32×32→64 multiplies with a high-word test).
///
/// Errors: [`ErrorKind::InvalidNdim`] (0 or more than 4 dimensions), [`ErrorKind::ZeroDimension`],
/// [`ErrorKind::SizeOverflow`] (more than 2^33 bits of data, i.e. above [`MAX_TENSOR_BYTES`]).
///
/// ```
/// use synaptic_mem::{shape_bytes, DType};
/// assert_eq!(shape_bytes(&[2, 3], DType::Float32), Ok(([2, 3, 1, 1], 24)));
/// assert_eq!(shape_bytes(&[3], DType::Int4), Ok(([3, 1, 1, 1], 2)));
/// ```
#[inline(always)]
pub fn shape_bytes(shape: &[u32], dtype: DType) -> Result<([u32; 4], u32), ErrorKind> {
    let dims = match *shape {
        [a] => [a, 1, 1, 1],
        [a, b] => [a, b, 1, 1],
        [a, b, c] => [a, b, c, 1],
        [a, b, c, d] => [a, b, c, d],
        _ => return Err(ErrorKind::InvalidNdim),
    };
    // Each partial product is exact while every high word is 0.
    let p1 = dims[0] as u64 * dims[1] as u64;
    let p2 = (p1 as u32) as u64 * dims[2] as u64;
    let p3 = (p2 as u32) as u64 * dims[3] as u64;
    let count = p3 as u32;
    let shift = dtype.quarter_shift();
    // Valid iff no high word is set and 1 <= count <= 2^(31 - shift), so that count << shift
    // is at most 2^31 (at most 2^33 bits of data; count 0 wraps to a huge count - 1).
    if ((p1 | p2 | p3) >> 32) != 0 || (count.wrapping_sub(1) >> (31 - shift)) != 0 {
        return Err(size_error(dims[0], dims[1], dims[2], dims[3]));
    }
    // count × bits / 8, rounded up: ((count << shift) + 1) / 2.
    Ok((dims, ((count << shift) + 1) >> 1))
}

/// Why a shape's size is unusable: a zero dimension wins over an overflow in the others.
/// (Four scalars, not an array, so the hot path keeps the dimensions in registers.)
#[cold]
#[inline(never)]
fn size_error(a: u32, b: u32, c: u32, d: u32) -> ErrorKind {
    if a == 0 || b == 0 || c == 0 || d == 0 {
        ErrorKind::ZeroDimension
    } else {
        ErrorKind::SizeOverflow
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A plain element type that tensor data can be viewed as (`i8`, `u8`, `i16`, `i32`, `f32`,
/// `u16` for the raw bits of FLOAT16/BFLOAT16, `u8` for packed INT4 pairs, `u32` for the raw
/// words of INT32).
///
/// Sealed: every implementor is valid for every bit pattern and has alignment ≤ 16.
pub trait Element: Copy + sealed::Sealed + 'static {
    /// Whether a tensor of data type `dtype` may be viewed as a slice of `Self`.
    fn matches(dtype: DType) -> bool;
}

macro_rules! element {
    ($t:ty, $($d:pat_param)|+) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            #[inline]
            fn matches(dtype: DType) -> bool {
                matches!(dtype, $($d)|+)
            }
        }
    };
}
element!(i8, DType::Int8);
element!(u8, DType::UInt8 | DType::Int4);
element!(i16, DType::Int16);
element!(u16, DType::Float16 | DType::BFloat16);
element!(i32, DType::Int32);
element!(u32, DType::Int32);
element!(f32, DType::Float32);
