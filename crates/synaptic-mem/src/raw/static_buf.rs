//! [`StaticArenaBuffer`]: a `'static` arena buffer for firmware, handed out at most once.

/// A `'static`, 16-byte aligned arena buffer that can be handed out once, for firmware that keeps
/// its arena in a `static`.
///
/// ```
/// use synaptic_mem::{Arena, StaticArenaBuffer};
/// static BUF: StaticArenaBuffer<8192> = StaticArenaBuffer::new();
/// let buf: &'static mut [u8] = BUF.take().unwrap();
/// assert!(BUF.take().is_none()); // only once
/// assert_eq!(buf.as_ptr() as usize % 16, 0);
/// let arena = Arena::with_scratch(buf, 1024).unwrap();
/// assert_eq!(arena.stats().usable_size, 8192);
/// ```
#[cfg(target_has_atomic = "8")]
#[repr(C, align(16))]
pub struct StaticArenaBuffer<const N: usize> {
    bytes: core::cell::UnsafeCell<[u8; N]>,
    taken: core::sync::atomic::AtomicBool,
}

// SAFETY: the bytes are only reachable through `take`, which hands out the one `&mut` at most
// once (atomic swap), so sharing the buffer between threads cannot create aliasing access.
#[cfg(target_has_atomic = "8")]
unsafe impl<const N: usize> Sync for StaticArenaBuffer<N> {}

#[cfg(target_has_atomic = "8")]
impl<const N: usize> StaticArenaBuffer<N> {
    /// A zeroed buffer, usable as a `static` initialiser.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        Self {
            bytes: core::cell::UnsafeCell::new([0; N]),
            taken: core::sync::atomic::AtomicBool::new(false),
        }
    }

    /// The buffer as `&'static mut [u8]`, the first time only; `None` afterwards.
    #[allow(clippy::mut_from_ref)] // exclusive by the one-shot flag, like a singleton
    pub fn take(&'static self) -> Option<&'static mut [u8]> {
        if self.taken.swap(true, core::sync::atomic::Ordering::AcqRel) {
            return None;
        }
        // SAFETY: the swap above returns `false` exactly once, so this is the only `&mut` to the
        // bytes ever created; they live for 'static.
        Some(unsafe { &mut *self.bytes.get() })
    }
}
