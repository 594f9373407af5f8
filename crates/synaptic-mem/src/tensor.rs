//! The tensor descriptor, laid out for C (`syn_tensor_t`).

use crate::config::{align_up, ALIGN};
use crate::dtype::{shape_bytes, DType, Lifetime};
use crate::error::ErrorKind;

/// Tensor descriptor, `#[repr(C)]`, identical to the C API's `syn_tensor_t`.
///
/// The arena places it at a 16-byte aligned offset and the data at the next 16-byte boundary
/// after it ([`DESC_SPAN`] bytes later). 28 bytes on 32-bit targets, 32 on 64-bit ones.
///
/// | field      | C type        | meaning                                              |
/// |------------|---------------|------------------------------------------------------|
/// | `data`     | `void *`      | 16-byte aligned data buffer                          |
/// | `shape`    | `uint32_t[4]` | dimensions; unused trailing ones are 1               |
/// | `ndim`     | `uint8_t`     | 1..=4                                                |
/// | `dtype`    | `uint8_t`     | [`DType`] as its C value                             |
/// | `lifetime` | `uint8_t`     | [`Lifetime`] as its C value                          |
/// | `reserved` | `uint8_t`     | 0                                                    |
/// | `size`     | `uint32_t`    | bytes of data (INT4 rounded up to whole bytes)       |
#[repr(C)]
#[derive(Debug)]
pub struct TensorDesc {
    /// 16-byte aligned data buffer.
    pub data: *mut u8,
    /// Dimensions; unused trailing ones are 1.
    pub shape: [u32; 4],
    /// Number of dimensions, 1..=4.
    pub ndim: u8,
    /// Element type.
    pub dtype: DType,
    /// Lifetime class.
    pub lifetime: Lifetime,
    /// Always 0.
    pub reserved: u8,
    /// Bytes of data (INT4 rounded up to whole bytes).
    pub size: u32,
}

/// Bytes from a descriptor's start to its data: the descriptor size rounded up to 16 (32).
pub const DESC_SPAN: usize = align_up(core::mem::size_of::<TensorDesc>());

/// The block rule's data part: `bytes` rounded up to the 16-byte alignment, in `u64` (saturating
/// at the largest multiple of 16, so it never wraps). Every crate that sizes arena memory calls
/// this (or [`block_span`]) instead of re-deriving the rule.
///
/// ```
/// use synaptic_mem::data_span;
/// assert_eq!((data_span(0), data_span(1), data_span(16), data_span(17)), (0, 16, 16, 32));
/// assert_eq!(data_span(u64::MAX), u64::MAX & !15);
/// ```
#[inline(always)]
pub const fn data_span(bytes: u64) -> u64 {
    bytes.saturating_add(ALIGN as u64 - 1) & !(ALIGN as u64 - 1)
}

/// The block rule: the bytes one tensor of `data_bytes` takes in a bump region — its descriptor
/// ([`DESC_SPAN`]) and then its data from the next 16-byte boundary, rounded up to 16. In `u64`,
/// saturating at the largest multiple of 16 (never wraps, on 32 or 64 bits). The arena's own allocation path uses the same
/// rule ([`TensorRequest::span`]).
///
/// ```
/// use synaptic_mem::{block_span, DESC_SPAN};
/// assert_eq!(block_span(1), DESC_SPAN as u64 + 16);
/// assert_eq!(block_span(55_296), 32 + 55_296);
/// assert_eq!(block_span(u64::MAX), u64::MAX & !15);
/// ```
#[inline(always)]
pub const fn block_span(data_bytes: u64) -> u64 {
    data_span(data_bytes).saturating_add(DESC_SPAN as u64) & !(ALIGN as u64 - 1)
}

const _: () = assert!(DESC_SPAN == 32);
#[cfg(target_pointer_width = "32")]
const _: () = assert!(core::mem::size_of::<TensorDesc>() == 28);

impl TensorDesc {
    /// A descriptor with no data (null pointer, size 0), e.g. for a plan's unused table entry.
    pub const EMPTY: TensorDesc = TensorDesc {
        data: core::ptr::null_mut(),
        shape: [1; 4],
        ndim: 1,
        dtype: DType::Int8,
        lifetime: Lifetime::Ephemeral,
        reserved: 0,
        size: 0,
    };

    /// Address of the 16-byte aligned data buffer.
    #[inline]
    pub fn data_ptr(&self) -> *mut u8 {
        self.data
    }
    /// The shape's used dimensions (`ndim` of them).
    #[inline]
    pub fn shape(&self) -> &[u32] {
        &self.shape[..self.ndim as usize]
    }
    /// All four dimension slots (unused trailing ones are 1).
    #[inline]
    pub fn dims(&self) -> [u32; 4] {
        self.shape
    }
    /// Number of dimensions, 1..=4.
    #[inline]
    pub fn ndim(&self) -> u8 {
        self.ndim
    }
    /// Element type.
    #[inline]
    pub fn dtype(&self) -> DType {
        self.dtype
    }
    /// Lifetime class.
    #[inline]
    pub fn lifetime(&self) -> Lifetime {
        self.lifetime
    }
    /// Bytes of data.
    #[inline]
    pub fn size(&self) -> usize {
        self.size as usize
    }
}

// `RawArena` writes `ndim, dtype, lifetime, reserved` as one aligned `u32`.
const _: () = assert!(
    core::mem::offset_of!(TensorDesc, dtype) == core::mem::offset_of!(TensorDesc, ndim) + 1
);
const _: () = assert!(
    core::mem::offset_of!(TensorDesc, lifetime) == core::mem::offset_of!(TensorDesc, ndim) + 2
);
const _: () = assert!(
    core::mem::offset_of!(TensorDesc, reserved) == core::mem::offset_of!(TensorDesc, ndim) + 3
);
const _: () = assert!(core::mem::offset_of!(TensorDesc, ndim) % 4 == 0);

/// A validated allocation request: the shape padded to four dimensions and the data size in
/// bytes. Making one touches no arena state, so the C API does it before taking its lock and
/// keeps the critical section to the bump itself.
///
/// ```
/// use synaptic_mem::{DType, ErrorKind, TensorRequest};
/// let r = TensorRequest::new(&[2, 3], DType::Float32).unwrap();
/// assert_eq!((r.dims(), r.ndim(), r.bytes()), ([2, 3, 1, 1], 2, 24));
/// assert_eq!(TensorRequest::new(&[2, 0], DType::Int8), Err(ErrorKind::ZeroDimension));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorRequest {
    pub(crate) dims: [u32; 4],
    /// The descriptor's `ndim, dtype, lifetime, reserved` bytes as one native-endian word,
    /// lifetime 0 (filled in at allocation): one register instead of two on the hot path.
    pub(crate) meta: u32,
    pub(crate) bytes: u32,
}

impl TensorRequest {
    /// Validates `shape` (1..=4 dimensions, none zero, size in range) for `dtype`.
    #[inline(always)]
    pub fn new(shape: &[u32], dtype: DType) -> Result<TensorRequest, ErrorKind> {
        let (dims, bytes) = shape_bytes(shape, dtype)?;
        Ok(TensorRequest {
            dims,
            meta: u32::from_ne_bytes([shape.len() as u8, dtype as u8, 0, 0]),
            bytes,
        })
    }
    /// The four dimension slots (unused trailing ones are 1).
    pub fn dims(&self) -> [u32; 4] {
        self.dims
    }
    /// Number of dimensions, 1..=4.
    pub fn ndim(&self) -> u8 {
        self.meta.to_ne_bytes()[0]
    }
    /// Element type.
    pub fn dtype(&self) -> DType {
        match DType::from_u8(self.meta.to_ne_bytes()[1]) {
            Some(d) => d,
            None => unreachable!(),
        }
    }
    /// Bytes of data.
    pub fn bytes(&self) -> u32 {
        self.bytes
    }
    /// Bytes the tensor's block takes in a bump region: [`block_span`] of its data size.
    /// Never overflows: the data size is at most [`MAX_TENSOR_BYTES`](crate::MAX_TENSOR_BYTES)
    /// (2^30), so the span is at most 2^30 + 32, on 32 and 64 bits.
    ///
    /// ```
    /// use synaptic_mem::{DType, TensorRequest};
    /// assert_eq!(TensorRequest::new(&[3], DType::Int8).unwrap().span(), 32 + 16);
    /// ```
    #[inline(always)]
    pub const fn span(&self) -> usize {
        DESC_SPAN + align_up(self.bytes as usize)
    }
}
