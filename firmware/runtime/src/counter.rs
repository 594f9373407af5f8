//! SysTick as an exact instruction counter under QEMU `-icount shift=10`, for runs of any
//! length.
//!
//! Under `-icount shift=10` every instruction advances QEMU's virtual clock by 1024 ns, so a
//! clock of period `P` ns advances `1024 / P` ticks per instruction and
//! `instructions = ticks × P / 1024`, exactly (`firmware/src/timer.rs` explains the method):
//!
//! | board | SysTick clock (`CLKSOURCE` = core) | `P` | ticks per instruction | 24-bit wrap every |
//! |---|---|---:|---:|---:|
//! | lm3s6965evb | 200 MHz (RCC `SYSDIV` cleared, as `firmware/src/timer.rs`) | 5 ns | 204.8 | 81,920 instructions |
//! | mps2-an385, mps2-an386, mps2-an500 | the 25 MHz system clock QEMU gives the CPU (`cpuclk`) | 40 ns | 25.6 | 655,360 instructions |
//! | mps2-an505 | the 20 MHz clock of QEMU's AN505 (SSE-200) | 50 ns | 20.48 | 819,200 instructions |
//!
//! An inference spans many wraps, so the SysTick interrupt counts them ([`SysTick`] adds one
//! to a counter: a few instructions each, which [`calibrate`] measures and [`Counter::instructions`]
//! subtracts). [`calibrate`] also checks the clock: two busy loops of known length (2
//! instructions per iteration) must differ by exactly their instruction difference.

use core::arch::asm;
use core::sync::atomic::{AtomicU32, Ordering};
use cortex_m_rt::exception;

/// SysTick control and status.
const SYST_CSR: *mut u32 = 0xE000_E010 as *mut u32;
/// SysTick reload value.
const SYST_RVR: *mut u32 = 0xE000_E014 as *mut u32;
/// SysTick current value (counts down).
const SYST_CVR: *mut u32 = 0xE000_E018 as *mut u32;
/// Interrupt control and state (`PENDSTSET`, bit 26).
const ICSR: *const u32 = 0xE000_ED04 as *const u32;
const PENDSTSET: u32 = 1 << 26;
/// The 24-bit reload value.
const RELOAD: u32 = 0x00FF_FFFF;
/// Ticks per wrap.
const WRAP: u64 = RELOAD as u64 + 1;

/// The SysTick clock period in ns.
#[cfg(feature = "mps2")]
pub const PERIOD_NS: u64 = 40;
/// The SysTick clock period in ns.
#[cfg(feature = "mps2-an505")]
pub const PERIOD_NS: u64 = 50;
/// The SysTick clock period in ns.
#[cfg(not(any(feature = "mps2", feature = "mps2-an505")))]
pub const PERIOD_NS: u64 = 5;

/// Wraps counted by the SysTick interrupt.
static WRAPS: AtomicU32 = AtomicU32::new(0);

#[exception]
fn SysTick() {
    WRAPS.fetch_add(1, Ordering::Relaxed);
}

/// Sets the board's clock up and starts SysTick free-running with its wrap interrupt.
pub fn init() {
    // SAFETY: the lm3s6965 RCC and the SysTick registers are always mapped; volatile accesses
    // are how they are used, and nothing else in the image programs them.
    unsafe {
        #[cfg(not(any(feature = "mps2", feature = "mps2-an505")))]
        {
            /// lm3s6965 RCC; SYSDIV is bits 26:23 (QEMU: period = 5 ns × (SYSDIV + 1)).
            const RCC: *mut u32 = 0x400F_E060 as *mut u32;
            RCC.write_volatile(RCC.read_volatile() & !(0xF << 23));
        }
        SYST_CSR.write_volatile(0);
        SYST_RVR.write_volatile(RELOAD);
        SYST_CVR.write_volatile(0);
        // ENABLE | TICKINT | CLKSOURCE = processor clock.
        SYST_CSR.write_volatile(0b111);
    }
    spin(100);
}

/// Runs `f` with SysTick's wrap interrupt off (the counter runs on; the wraps in between are
/// not counted, so no measurement may span this call): a stack measurement without the
/// timer's exception frame (32 B, 104 B with the FPU's context) at its deepest point.
pub fn quiet<R>(f: impl FnOnce() -> R) -> R {
    // SAFETY: the SysTick control register, always mapped; only TICKINT changes.
    unsafe { SYST_CSR.write_volatile(0b101) };
    let r = f();
    // SAFETY: as above, TICKINT back on.
    unsafe { SYST_CSR.write_volatile(0b111) };
    r
}

/// A consistent (wraps, current value) reading: retried while a wrap is pending or the
/// interrupt counted one in between.
#[inline(never)]
fn snapshot() -> (u32, u32) {
    loop {
        let w = WRAPS.load(Ordering::SeqCst);
        // SAFETY: always-mapped SysTick current value and ICSR registers, read only.
        let (c, pending) = unsafe {
            (
                SYST_CVR.read_volatile(),
                ICSR.read_volatile() & PENDSTSET != 0,
            )
        };
        if !pending && WRAPS.load(Ordering::SeqCst) == w {
            return (w, c);
        }
    }
}

/// A start reading.
#[derive(Clone, Copy)]
pub struct Mark(u32, u32);

/// Starts a measurement.
#[inline(never)]
pub fn start() -> Mark {
    let (w, c) = snapshot();
    Mark(w, c)
}

/// Ticks since `m`, and wraps since `m`.
#[inline(never)]
pub fn stop(m: Mark) -> (u64, u32) {
    let (w, c) = snapshot();
    let wraps = w.wrapping_sub(m.0);
    let ticks = wraps as u64 * WRAP + m.1 as u64 - c as u64;
    (ticks, wraps)
}

/// Ticks and wraps between two [`start`] readings.
pub fn stop_at(m: Mark, end: Mark) -> (u64, u32) {
    let wraps = end.0.wrapping_sub(m.0);
    let ticks = wraps as u64 * WRAP + m.1 as u64 - end.1 as u64;
    (ticks, wraps)
}

/// Exact integer division of ticks into instructions.
pub fn ticks_to_instructions(ticks: u64) -> u64 {
    (ticks * PERIOD_NS + 512) / 1024
}

/// `n` iterations of `subs; bne`: exactly `2n` instructions.
#[inline(always)]
pub fn spin(n: u32) {
    // SAFETY: a register-only countdown loop.
    unsafe {
        asm!("1:", "subs {0}, {0}, #1", "bne 1b", inout(reg) n => _, options(nomem, nostack));
    }
}

/// What [`calibrate`] found.
#[derive(Clone, Copy, Debug)]
pub struct Counter {
    /// Instructions a [`start`]/[`stop`] pair adds to an empty region.
    pub fixed: u64,
    /// Instructions of one wrap interrupt (entry to return).
    pub per_wrap: u64,
}

impl Counter {
    /// Instructions executed in a region measured as `(ticks, wraps)` by [`start`]/[`stop`],
    /// without the timer reads and the wrap interrupts.
    pub fn instructions(&self, (ticks, wraps): (u64, u32)) -> u64 {
        ticks_to_instructions(ticks) - self.fixed - wraps as u64 * self.per_wrap
    }

    /// Measures `f` in instructions.
    pub fn measure<R>(&self, f: impl FnOnce() -> R) -> (u64, R) {
        let m = start();
        let r = f();
        let t = stop(m);
        (self.instructions(t), r)
    }
}

fn measure_spin(n: u32) -> (u64, u32) {
    let m = start();
    spin(n);
    stop(m)
}

/// Measures the timer-read overhead and the cost of a wrap interrupt with busy loops of known
/// length; `Err` with the figures if the clock is not what [`PERIOD_NS`] says.
pub fn calibrate() -> Result<Counter, (u64, u64)> {
    let (a, b) = (1000u32, 3000u32);
    let (ta, wa) = measure_spin(a);
    let (tb, wb) = measure_spin(b);
    if wa != 0 || wb != 0 {
        // Retry once: a wrap fell inside a short loop.
        return calibrate_retry();
    }
    let (ia, ib) = (ticks_to_instructions(ta), ticks_to_instructions(tb));
    if ib - ia != 2 * (b - a) as u64 || ia < 2 * a as u64 {
        return Err((ia, ib));
    }
    let fixed = ia - 2 * a as u64;
    // A loop over ~8 wraps.
    let n = (8 * WRAP * PERIOD_NS / 1024 / 2) as u32;
    let (t, w) = measure_spin(n);
    let extra = ticks_to_instructions(t) - 2 * n as u64 - fixed;
    if w == 0 {
        return Err((extra, 0));
    }
    Ok(Counter {
        fixed,
        per_wrap: (extra + w as u64 / 2) / w as u64,
    })
}

fn calibrate_retry() -> Result<Counter, (u64, u64)> {
    spin(4000);
    calibrate()
}
