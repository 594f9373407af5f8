//! The Cortex-M DSP extension's SIMD multiply-accumulates (Armv7E-M: Cortex-M4, M7; Armv8-M
//! Mainline with DSP: M33, M55), as safe functions over registers. This module is compiled
//! only where `cfg(synaptic_dsp)` is set (build.rs: the `thumbv7em-*` targets, and
//! `thumbv8m.main-*` built for a core with the extension): every other target runs the
//! kernels' portable paths, whose integer results are the same (the QEMU Cortex-M4 images
//! check the outputs of every model against the host's). The kernels' own loops in assembly
//! are their ISA variants, beside them (`ops/conv/conv_2d/dsp.rs`,
//! `ops/conv/depthwise_conv_2d/dsp.rs`).
//!
//! ## Guarantees
//!
//! - Every block is one instruction on registers only: no memory access, no stack, no
//!   control flow (`options(pure, nomem, nostack)`); the only state it may change besides
//!   its output register is the sticky Q flag (saturation), which nothing here reads, so the
//!   condition flags are declared preserved only where the instruction leaves Q alone too.
//! - The arithmetic is the architecture's, fixed by the Arm ARM: halfword lanes are signed
//!   16-bit, sums wrap modulo 2^32 (exactly `i32::wrapping_add` of the products).

use core::arch::asm;

/// `SXTB16 rd, rm`: bytes 0 and 2 of `x`, sign-extended to the two halfwords.
#[inline(always)]
pub(crate) fn sxtb16(x: u32) -> u32 {
    let r: u32;
    // SAFETY: one register-to-register instruction of the DSP extension (this module exists
    // only where the target has it); no memory, stack or flags touched.
    unsafe {
        asm!("sxtb16 {r}, {x}", r = lateout(reg) r, x = in(reg) x,
             options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// `SXTB16 rd, rm, ROR #8`: bytes 1 and 3 of `x`, sign-extended to the two halfwords.
#[inline(always)]
pub(crate) fn sxtb16_ror8(x: u32) -> u32 {
    let r: u32;
    // SAFETY: as `sxtb16`.
    unsafe {
        asm!("sxtb16 {r}, {x}, ror #8", r = lateout(reg) r, x = in(reg) x,
             options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// `SXTAB16 rd, rn, rm`: the halfwords of `a` plus bytes 0 and 2 of `x` sign-extended (each
/// lane modulo 2^16).
#[inline(always)]
pub(crate) fn sxtab16(a: u32, x: u32) -> u32 {
    let r: u32;
    // SAFETY: as `sxtb16`.
    unsafe {
        asm!("sxtab16 {r}, {a}, {x}", r = lateout(reg) r, a = in(reg) a, x = in(reg) x,
             options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// `SXTAB16 rd, rn, rm, ROR #8`: the halfwords of `a` plus bytes 1 and 3 of `x`.
#[inline(always)]
pub(crate) fn sxtab16_ror8(a: u32, x: u32) -> u32 {
    let r: u32;
    // SAFETY: as `sxtb16`.
    unsafe {
        asm!("sxtab16 {r}, {a}, {x}, ror #8", r = lateout(reg) r, a = in(reg) a, x = in(reg) x,
             options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// `SMLABB rd, rn, rm, ra`: `acc` plus the product of the bottom halfwords of `a` and `b`.
#[inline(always)]
pub(crate) fn smlabb(a: u32, b: u32, acc: i32) -> i32 {
    let r: i32;
    // SAFETY: one register instruction of the DSP extension; it may set the sticky Q flag
    // (signed overflow of the sum, whose result wraps as `wrapping_add`), so flags are not
    // declared preserved; no memory or stack touched.
    unsafe {
        asm!("smlabb {r}, {a}, {b}, {c}", r = lateout(reg) r, a = in(reg) a, b = in(reg) b,
             c = in(reg) acc, options(pure, nomem, nostack));
    }
    r
}

/// `SMLABT rd, rn, rm, ra`: `acc` plus the product of the bottom halfword of `a` and the top
/// halfword of `b`.
#[inline(always)]
pub(crate) fn smlabt(a: u32, b: u32, acc: i32) -> i32 {
    let r: i32;
    // SAFETY: as `smlabb`.
    unsafe {
        asm!("smlabt {r}, {a}, {b}, {c}", r = lateout(reg) r, a = in(reg) a, b = in(reg) b,
             c = in(reg) acc, options(pure, nomem, nostack));
    }
    r
}

/// `SMLATT rd, rn, rm, ra`: `acc` plus the product of the top halfwords of `a` and `b`.
#[inline(always)]
pub(crate) fn smlatt(a: u32, b: u32, acc: i32) -> i32 {
    let r: i32;
    // SAFETY: as `smlabb`.
    unsafe {
        asm!("smlatt {r}, {a}, {b}, {c}", r = lateout(reg) r, a = in(reg) a, b = in(reg) b,
             c = in(reg) acc, options(pure, nomem, nostack));
    }
    r
}

/// `SMLAD rd, rn, rm, ra`: `acc` plus the products of the bottom halfwords and of the top
/// halfwords of `a` and `b` (two multiply-accumulates).
#[inline(always)]
pub(crate) fn smlad(a: u32, b: u32, acc: i32) -> i32 {
    let r: i32;
    // SAFETY: as `smlabb`.
    unsafe {
        asm!("smlad {r}, {a}, {b}, {c}", r = lateout(reg) r, a = in(reg) a, b = in(reg) b,
             c = in(reg) acc, options(pure, nomem, nostack));
    }
    r
}

/// `SMMULR rd, rn, rm`: the high word of the product of `a` and `b`, rounded:
/// `(a · b + 2^31) >> 32` (arithmetic, exact in 64 bits).
#[inline(always)]
pub(crate) fn smmulr(a: i32, b: i32) -> i32 {
    let r: i32;
    // SAFETY: one register-to-register instruction of the DSP extension; no memory, stack
    // or flags touched (it never saturates).
    unsafe {
        asm!("smmulr {r}, {a}, {b}", r = lateout(reg) r, a = in(reg) a, b = in(reg) b,
             options(pure, nomem, nostack, preserves_flags));
    }
    r
}
