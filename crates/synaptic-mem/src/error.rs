//! Allocation errors: what went wrong, where, and how many bytes were needed and free.

use core::fmt;

/// Which part of memory an allocation was aimed at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Region {
    /// Persistent region (weights, biases), growing up from the arena base.
    Persistent,
    /// Ephemeral region (activations), right after the persistent region.
    Ephemeral,
    /// Scratch pool at the top of the arena.
    Scratch,
    /// Separately registered shared (IPC) region.
    Shared,
}

impl Region {
    /// Lower-case name, as printed in the stats table.
    pub const fn name(self) -> &'static str {
        match self {
            Region::Persistent => "persistent",
            Region::Ephemeral => "ephemeral",
            Region::Scratch => "scratch",
            Region::Shared => "shared",
        }
    }
}

/// Why an allocation failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The shape has 0 or more than 4 dimensions.
    InvalidNdim,
    /// A dimension is 0.
    ZeroDimension,
    /// The element count or byte size does not fit the arena's integer range.
    SizeOverflow,
    /// A data type value outside `syn_npu_dtype_t` (C API), or one a call does not take (INT4,
    /// not byte-addressable, for `Loader::persistent_filled`).
    InvalidDtype,
    /// A lifetime value outside `syn_mem_lifetime_t` (C API only).
    InvalidLifetime,
    /// A scratch request of 0 bytes.
    ZeroSize,
    /// The request is larger than the whole region (e.g. scratch larger than the pool).
    TooLarge,
    /// The request fits the region but not what is left of it.
    OutOfMemory,
    /// A persistent allocation while ephemeral tensors or scratch buffers are live: it would
    /// overlap the ephemeral region, which starts right after the persistent one.
    EphemeralLive,
    /// A SHARED allocation before a shared region was registered.
    NoSharedRegion,
    /// The arena has not been initialised (C API only).
    NotInitialized,
    /// A planned allocation that does not match the plan (unknown slot, wrong size, no plan).
    PlanMismatch,
    /// A NULL pointer or other malformed argument (C API only).
    InvalidArgument,
}

impl ErrorKind {
    /// A short description.
    pub const fn describe(self) -> &'static str {
        match self {
            ErrorKind::InvalidNdim => "shape must have 1 to 4 dimensions",
            ErrorKind::ZeroDimension => "shape has a zero dimension",
            ErrorKind::SizeOverflow => "tensor size overflows",
            ErrorKind::InvalidDtype => "unknown data type",
            ErrorKind::InvalidLifetime => "unknown lifetime",
            ErrorKind::ZeroSize => "zero-byte request",
            ErrorKind::TooLarge => "request larger than the whole region",
            ErrorKind::OutOfMemory => "out of memory",
            ErrorKind::EphemeralLive => {
                "persistent allocation refused while ephemeral tensors or scratch are live"
            }
            ErrorKind::NoSharedRegion => "no shared region registered",
            ErrorKind::NotInitialized => "arena not initialised",
            ErrorKind::PlanMismatch => "allocation does not match the plan",
            ErrorKind::InvalidArgument => "invalid argument",
        }
    }
}

/// A failed allocation. Nothing changed in the arena except its failed-allocation count.
///
/// ```
/// use synaptic_mem::{AllocError, ErrorKind, Region};
/// let e = AllocError { kind: ErrorKind::OutOfMemory, region: Region::Ephemeral, needed: 1056, available: 512 };
/// assert_eq!(e.to_string(), "ephemeral: out of memory (needed 1056 B, 512 B free)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AllocError {
    /// What went wrong.
    pub kind: ErrorKind,
    /// The region the allocation was aimed at.
    pub region: Region,
    /// Bytes the allocation needed in the region (descriptor + aligned data), 0 if unknown.
    pub needed: usize,
    /// Bytes free in the region at the time.
    pub available: usize,
}

impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} (needed {} B, {} B free)",
            self.region.name(),
            self.kind.describe(),
            self.needed,
            self.available
        )
    }
}

impl core::error::Error for AllocError {}
