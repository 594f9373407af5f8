//! Polled UART0 of the lm3s6965 (a PL011): QEMU connects it to `-serial stdio`.
//!
//! QEMU's model needs no baud-rate or enable set-up to pass bytes, but [`Uart0::init`] still
//! enables the UART, its transmitter and receiver the way real firmware would.

use core::fmt;

/// UART0 base address.
const BASE: usize = 0x4000_C000;
/// Data register.
const DR: *mut u32 = BASE as *mut u32;
/// Flag register.
const FR: *const u32 = (BASE + 0x018) as *const u32;
/// Control register.
const CR: *mut u32 = (BASE + 0x030) as *mut u32;
/// FR: receive FIFO empty.
const FR_RXFE: u32 = 1 << 4;
/// FR: transmit FIFO full.
const FR_TXFF: u32 = 1 << 5;

/// The UART0 peripheral (zero-sized; all access is polled).
pub struct Uart0;

impl Uart0 {
    /// Enables UART0 (UARTEN, TXE, RXE).
    pub fn init() -> Self {
        // SAFETY: CR is UART0's always-mapped control register; this firmware is its only user.
        unsafe { CR.write_volatile((1 << 0) | (1 << 8) | (1 << 9)) };
        Uart0
    }

    /// Sends one byte, waiting while the transmit FIFO is full.
    pub fn write_byte(&mut self, b: u8) {
        // SAFETY: FR and DR are UART0's always-mapped registers; polled access only.
        unsafe {
            while FR.read_volatile() & FR_TXFF != 0 {}
            DR.write_volatile(b as u32);
        }
    }

    /// A received byte, if one is waiting.
    pub fn try_read_byte(&mut self) -> Option<u8> {
        // SAFETY: FR and DR are UART0's always-mapped registers; polled access only.
        unsafe {
            if FR.read_volatile() & FR_RXFE != 0 {
                None
            } else {
                Some((DR.read_volatile() & 0xFF) as u8)
            }
        }
    }
}

impl fmt::Write for Uart0 {
    /// Writes `s`, turning `\n` into `\r\n` for terminals.
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for b in s.bytes() {
            if b == b'\n' {
                self.write_byte(b'\r');
            }
            self.write_byte(b);
        }
        Ok(())
    }
}
