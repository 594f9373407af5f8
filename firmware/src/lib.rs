//! Support code shared by the firmware images (`tests`, `bench`, `shell`) that run the
//! `synaptic-mem` tensor arena on the Cortex-M3 of QEMU's `lm3s6965evb` board.
//!
//! * [`timer`]: SysTick on the core clock as an exact instruction counter under `-icount`.
//! * [`harness`]: a tiny on-target test harness printing `N passed, N failed` over semihosting.
//! * [`uart`]: polled UART0 (PL011-like) for the `syn mem stats` shell.
//! * [`StaticMem`]: a 16-byte aligned `static` buffer for arenas and shared regions.
#![no_std]
#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

use core::cell::UnsafeCell;

pub mod harness;
pub mod timer;
pub mod uart;

/// A 16-byte aligned, zero-initialised `static` byte buffer (placed in `.bss`).
///
/// Unlike `StaticArenaBuffer` it can be borrowed again after the previous borrow ended, so the
/// tests can re-initialise arenas over the same 32 KB (the board has 64 KB of SRAM in all).
#[repr(C, align(16))]
pub struct StaticMem<const N: usize>(UnsafeCell<[u8; N]>);

// SAFETY: the bytes are only reachable through `StaticMem::get`, whose caller promises
// exclusive use; the firmware is single-threaded and never touches them from interrupts.
unsafe impl<const N: usize> Sync for StaticMem<N> {}

impl<const N: usize> StaticMem<N> {
    /// A zeroed buffer.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        Self(UnsafeCell::new([0; N]))
    }

    /// The whole buffer.
    ///
    /// # Safety
    /// No other reference to (or pointer derived from) this buffer may be used while the
    /// returned slice, or anything derived from it, is in use.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn get(&'static self) -> &'static mut [u8] {
        // SAFETY: the caller guarantees exclusive use; the bytes live for 'static.
        unsafe { &mut *self.0.get() }
    }

    /// The buffer's address (for the C API, which takes a raw `void *`).
    pub fn as_mut_ptr(&'static self) -> *mut u8 {
        self.0.get().cast()
    }
}

/// Stops QEMU through semihosting with exit status 0 (`ok`) or 1.
pub fn exit(ok: bool) -> ! {
    use cortex_m_semihosting::debug;
    debug::exit(if ok {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    // Only reached when not running under a semihosting host.
    loop {
        cortex_m::asm::wfi();
    }
}

/// The C API crate's panic hook (`synaptic-mem-ffi` feature `panic-hook`): images that link the
/// C API get its `#[panic_handler]`, which forwards here. Prints the panic over semihosting and
/// exits QEMU with a failure status.
#[cfg(feature = "capi")]
#[no_mangle]
pub fn synaptic_mem_ffi_panic(info: &core::panic::PanicInfo) -> ! {
    cortex_m_semihosting::hprintln!("panic: {}", info);
    exit(false)
}
