//! SysTick as an exact instruction counter under QEMU `-icount shift=10`.
//!
//! QEMU does not model the DWT cycle counter (`CYCCNT` reads 0). Instead:
//!
//! 1. [`init`] clears the lm3s6965 RCC `SYSDIV` field, so QEMU's system clock (which drives
//!    SysTick with `CLKSOURCE` = core clock) runs at 200 MHz: one tick every 5 ns of virtual
//!    time.
//! 2. `-icount shift=10` makes every executed instruction advance virtual time by 1024 ns, so
//!    SysTick advances 1024 / 5 = 204.8 ticks per instruction, and `ticks * 5 / 1024` is the
//!    number of instructions executed between two reads. Runs are bit-for-bit repeatable.
//! 3. The 24-bit counter wraps after 2^24 / 204.8 ≈ 81 920 instructions, so every timed batch
//!    stays below [`MAX_BATCH_INSTRUCTIONS`].
//!
//! (With `-icount shift=0` the same set-up gives one tick per 5 instructions.)

use core::sync::atomic::{compiler_fence, Ordering};

/// lm3s6965 System Control RCC (run-mode clock configuration).
const RCC: *mut u32 = 0x400F_E060 as *mut u32;
/// RCC `SYSDIV` field, bits 26:23 (QEMU: period = 5 ns × (SYSDIV + 1)).
const RCC_SYSDIV_MASK: u32 = 0xF << 23;
/// SysTick control and status.
const SYST_CSR: *mut u32 = 0xE000_E010 as *mut u32;
/// SysTick reload value.
const SYST_RVR: *mut u32 = 0xE000_E014 as *mut u32;
/// SysTick current value (counts down).
const SYST_CVR: *mut u32 = 0xE000_E018 as *mut u32;
/// SysTick counter mask (24 bits).
const MASK: u32 = 0x00FF_FFFF;

/// Largest number of instructions a timed region may span before SysTick wraps.
pub const MAX_BATCH_INSTRUCTIONS: u32 = 80_000;

/// Clears RCC `SYSDIV` and starts SysTick free-running on the core clock, reload 2^24 - 1,
/// no interrupt.
pub fn init() {
    // SAFETY: RCC, SYST_RVR, SYST_CVR and SYST_CSR are the lm3s6965's always-mapped System
    // Control and SysTick registers; volatile accesses are how they are meant to be used, and
    // nothing else in the firmware programs them.
    unsafe {
        RCC.write_volatile(RCC.read_volatile() & !RCC_SYSDIV_MASK);
        SYST_CSR.write_volatile(0);
        SYST_RVR.write_volatile(MASK);
        SYST_CVR.write_volatile(0);
        // ENABLE | CLKSOURCE = processor clock, no TICKINT.
        SYST_CSR.write_volatile(0b101);
    }
}

/// The current SysTick count (counts down). One `ldr` from SYST_CVR.
#[inline(always)]
pub fn now() -> u32 {
    compiler_fence(Ordering::SeqCst);
    // SAFETY: SYST_CVR is the always-mapped, read-only-for-us SysTick current value register.
    let v = unsafe { SYST_CVR.read_volatile() };
    compiler_fence(Ordering::SeqCst);
    v
}

/// Ticks from `start` to `end` (two [`now`] readings), across at most one wrap.
#[inline(always)]
pub fn ticks_between(start: u32, end: u32) -> u32 {
    start.wrapping_sub(end) & MASK
}

/// Converts ticks into instructions × 1000 (exact under `-icount shift=10`, ±0.005
/// instruction of tick quantisation).
pub fn ticks_to_milli_instructions(ticks: u64) -> u64 {
    // ticks * 5 / 1024 instructions, rounded to the nearest thousandth.
    (ticks * 5 * 1000 + 512) / 1024
}

/// Instruction count of `ticks`, rounded to the nearest whole instruction.
pub fn ticks_to_instructions(ticks: u64) -> u64 {
    (ticks * 5 + 512) / 1024
}
