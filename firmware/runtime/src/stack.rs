//! The stack high-water mark of a call, by painting: [`paint`] fills the free stack below the
//! caller's frame with a pattern, the measured call runs, [`used`] finds the lowest word no
//! longer holding the pattern. The figure is the bytes from the caller's frame down to that
//! word: the call's own frames and everything it called. The firmware measures in a run of its
//! own with SysTick's interrupt off ([`crate::counter::quiet`]): the timer's exception frame
//! (32 B, 104 B with the FPU's context, + its handler's words) is the counter's, not the
//! runtime's, and would land on the figure whenever the interrupt came at the deepest point.
//!
//! The painted region is the free RAM between the end of the statics (`__sheap`, cortex-m-rt's
//! heap start: nothing here uses a heap) and a guard below the caller's frame, at most
//! [`DEPTH`] bytes: a call deeper than that reads as `DEPTH` (and would be a failure on the
//! 64 KB LM3S6965 anyway).

use core::hint::black_box;

/// The pattern.
const PAINT: u32 = 0x5AA5_C33C;
/// Bytes left unpainted below the stack pointer (the frames of [`paint`] and [`used`]).
const GUARD: usize = 256;
/// The most bytes painted and measured.
pub const DEPTH: usize = 32 * 1024;

extern "C" {
    /// cortex-m-rt: the first address after `.bss` and `.uninit`, 4-byte aligned.
    static mut __sheap: u32;
}

/// The stack pointer, in a function of its own: every byte of its caller's frame lies above it.
#[inline(never)]
fn here() -> usize {
    let sp: usize;
    // SAFETY: reads the stack pointer into a register; no memory is touched.
    unsafe {
        core::arch::asm!("mov {}, sp", out(reg) sp, options(nomem, nostack, preserves_flags))
    };
    black_box(sp)
}

/// The painted region `[lo, hi)` below `top`.
fn region(top: usize) -> (usize, usize) {
    // Only the address of the linker symbol is taken, never a reference to it.
    let end = core::ptr::addr_of_mut!(__sheap) as usize;
    let hi = top.saturating_sub(GUARD) & !3;
    let lo = end.max(hi.saturating_sub(DEPTH));
    (lo, hi.max(lo))
}

/// Paints the free stack below the caller's frame; returns the stack pointer below that frame
/// for [`used`].
#[inline(never)]
pub fn paint() -> usize {
    let top = here();
    let (lo, hi) = region(top);
    let mut a = lo;
    while a < hi {
        // SAFETY: `[lo, hi)` is RAM between the statics and GUARD bytes below the stack pointer:
        // no object lives there (no heap), so writing it clobbers nothing; volatile so that
        // the writes happen.
        unsafe { (a as *mut u32).write_volatile(PAINT) };
        a += 4;
    }
    top
}

/// The bytes of stack used below `top` (from [`paint`]) since it was painted.
#[inline(never)]
pub fn used(top: usize) -> usize {
    let (lo, hi) = region(top);
    let mut a = lo;
    // SAFETY: the same region [`paint`] wrote, read back volatile, 4-byte aligned.
    while a < hi && unsafe { (a as *const u32).read_volatile() } == PAINT {
        a += 4;
    }
    top - a
}
