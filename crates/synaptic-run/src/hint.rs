//! Hints to the code generator, no effect on results.
//!
//! Guarantees: nothing here reads or writes memory; on other targets than bare-metal Arm every
//! function is empty.

/// Keeps the compiler from unrolling the loop whose body calls it: LLVM's Arm cost model does
/// not unroll a loop holding a call, and an `asm!` block is one (here empty: no instruction).
/// For a loop whose unrolled body would hold more live values than the core has registers
/// (the Cortex-M3's depthwise multiplier loop: eight accumulators, unrolled four times, spilled
/// ~14 words a step).
#[inline(always)]
pub(crate) fn no_unroll() {
    #[cfg(all(target_arch = "arm", target_os = "none"))]
    // SAFETY: an empty instruction sequence: it reads and writes nothing, and keeps the stack
    // and flags (`nomem`, `nostack`, `preserves_flags`).
    unsafe {
        core::arch::asm!("", options(nomem, nostack, preserves_flags))
    }
}

/// `v`, its value hidden from the compiler (an empty `asm!` that takes it and gives it back in
/// one register: no instruction): what it computed `v` from is then not recomputed for a use
/// of `v` (the portable requantization's `v >> 31`, which LLVM otherwise takes from a second
/// 64-bit multiply-accumulate).
#[inline(always)]
pub(crate) fn opaque(v: i32) -> i32 {
    #[cfg(all(target_arch = "arm", target_os = "none"))]
    {
        let mut v = v;
        // SAFETY: an empty instruction sequence: `v` stays as it is; nothing is read or
        // written but that register.
        unsafe {
            core::arch::asm!("/* {0} */", inout(reg) v, options(pure, nomem, nostack, preserves_flags));
        }
        v
    }
    #[cfg(not(all(target_arch = "arm", target_os = "none")))]
    v
}
