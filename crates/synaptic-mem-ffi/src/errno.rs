//! The negative errnos the C API returns, and how core errors map to them.
//!
//! | errno        | when                                                                      |
//! |--------------|---------------------------------------------------------------------------|
//! | `-EINVAL`    | NULL pointer, arena/scratch/shared size out of range, ndim 0 or > 4, a zero dimension, unknown dtype or lifetime value, 0-byte scratch request |
//! | `-EOVERFLOW` | element count or byte size of the tensor overflows                        |
//! | `-ENOMEM`    | does not fit: more than what is left of the region, or than the region    |
//! | `-EBUSY`     | `SYN_MEM_PERSISTENT` while ephemeral tensors or scratch are live          |
//! | `-ENODEV`    | not initialised; `SYN_MEM_SHARED` before `syn_mem_shared_init`            |
//! | `-EALREADY`  | `syn_mem_shared_init` while a shared region is registered                 |
//! | `-ENOTSUP`   | (the runtime's C API, `syn_run_*`) a model, operator or option not supported |
//! | `-EAGAIN`    | (`syn_run_invoke*`) an operator stopped the inference: not due this time    |
//!
//! The values are those of the target's C library: EINVAL, ENOMEM, EBUSY and ENODEV are the
//! same everywhere, EAGAIN everywhere but Apple and the BSDs; EOVERFLOW, EALREADY and ENOTSUP follow Linux on Linux/Android, the BSD numbering on
//! Apple and BSD targets, the MSVC CRT on Windows, and newlib/picolibc/Zephyr elsewhere (bare
//! metal `*-none-*` targets).

use core::ffi::c_int;
use synaptic_mem::{ConfigError, ErrorKind};

/// Out of memory (`ENOMEM`).
pub const ENOMEM: c_int = 12;
/// Device or resource busy (`EBUSY`).
pub const EBUSY: c_int = 16;
/// No such device (`ENODEV`).
pub const ENODEV: c_int = 19;
/// Invalid argument (`EINVAL`).
pub const EINVAL: c_int = 22;
/// Resource temporarily unavailable (`EAGAIN`: 35 on Apple and the BSDs, 11 elsewhere).
#[cfg(any(
    target_vendor = "apple",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "openbsd",
    target_os = "dragonfly"
))]
pub const EAGAIN: c_int = 35;
/// Resource temporarily unavailable (`EAGAIN`: 35 on Apple and the BSDs, 11 elsewhere).
#[cfg(not(any(
    target_vendor = "apple",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "openbsd",
    target_os = "dragonfly"
)))]
pub const EAGAIN: c_int = 11;

/// Value too large for defined data type (`EOVERFLOW`).
#[cfg(any(target_os = "linux", target_os = "android", target_os = "emscripten"))]
pub const EOVERFLOW: c_int = 75;
/// Operation already in progress (`EALREADY`).
#[cfg(any(target_os = "linux", target_os = "android", target_os = "emscripten"))]
pub const EALREADY: c_int = 114;
/// Operation not supported (`ENOTSUP`).
#[cfg(any(target_os = "linux", target_os = "android", target_os = "emscripten"))]
pub const ENOTSUP: c_int = 95;

/// Value too large for defined data type (`EOVERFLOW`).
#[cfg(any(
    target_vendor = "apple",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "openbsd",
    target_os = "dragonfly"
))]
pub const EOVERFLOW: c_int = 84;
/// Operation already in progress (`EALREADY`).
#[cfg(any(
    target_vendor = "apple",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "openbsd",
    target_os = "dragonfly"
))]
pub const EALREADY: c_int = 37;
/// Operation not supported (`ENOTSUP`).
#[cfg(any(
    target_vendor = "apple",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "openbsd",
    target_os = "dragonfly"
))]
pub const ENOTSUP: c_int = 45;

/// Value too large for defined data type (`EOVERFLOW`).
#[cfg(windows)]
pub const EOVERFLOW: c_int = 132;
/// Operation already in progress (`EALREADY`).
#[cfg(windows)]
pub const EALREADY: c_int = 103;
/// Operation not supported (`ENOTSUP`).
#[cfg(windows)]
pub const ENOTSUP: c_int = 129;

/// Value too large for defined data type (`EOVERFLOW`, newlib/picolibc/Zephyr numbering).
#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_os = "emscripten",
    target_vendor = "apple",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "openbsd",
    target_os = "dragonfly",
    windows
)))]
pub const EOVERFLOW: c_int = 139;
/// Operation already in progress (`EALREADY`, newlib/picolibc/Zephyr numbering).
#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_os = "emscripten",
    target_vendor = "apple",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "openbsd",
    target_os = "dragonfly",
    windows
)))]
pub const EALREADY: c_int = 120;
/// Operation not supported (`ENOTSUP`, newlib/picolibc/Zephyr numbering).
#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_os = "emscripten",
    target_vendor = "apple",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "openbsd",
    target_os = "dragonfly",
    windows
)))]
pub const ENOTSUP: c_int = 134;

/// The negative errno for an allocation failure.
///
/// ```
/// use synaptic_mem::ErrorKind;
/// use synaptic_mem_ffi::errno::{from_kind, EBUSY, EINVAL};
/// assert_eq!(from_kind(ErrorKind::EphemeralLive), -EBUSY);
/// assert_eq!(from_kind(ErrorKind::InvalidDtype), -EINVAL);
/// ```
pub const fn from_kind(kind: ErrorKind) -> c_int {
    -match kind {
        ErrorKind::InvalidNdim
        | ErrorKind::ZeroDimension
        | ErrorKind::InvalidDtype
        | ErrorKind::InvalidLifetime
        | ErrorKind::ZeroSize
        | ErrorKind::PlanMismatch
        | ErrorKind::InvalidArgument => EINVAL,
        ErrorKind::SizeOverflow => EOVERFLOW,
        ErrorKind::TooLarge | ErrorKind::OutOfMemory => ENOMEM,
        ErrorKind::EphemeralLive => EBUSY,
        ErrorKind::NoSharedRegion | ErrorKind::NotInitialized => ENODEV,
    }
}

/// The negative errno for an arena or shared-region set-up failure: always `-EINVAL` (a NULL
/// base, a size out of range / leaving no tensor space, or a shared region overlapping the
/// arena).
pub const fn from_config(err: ConfigError) -> c_int {
    match err {
        ConfigError::ArenaSizeOutOfRange { .. }
        | ConfigError::ScratchSizeOutOfRange { .. }
        | ConfigError::ScratchNotSmallerThanArena { .. }
        | ConfigError::NoTensorSpace { .. }
        | ConfigError::NullBase
        | ConfigError::SharedSizeOutOfRange { .. }
        | ConfigError::SharedOverlapsArena => -EINVAL,
    }
}
