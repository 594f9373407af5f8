//! DEPTHWISE_CONV_2D's loops shared by the Thumb-2 cores with and without the DSP extension
//! (`cfg(any(synaptic_dsp, synaptic_mla))`): plain loads and stores, no DSP instruction.
//!
//! Guarantees: every function here is safe to call with any arguments. Each checks the
//! lengths its loop reads and writes against its slices first and, where they fall short,
//! does nothing and says so; the assembly touches no stack.

use core::arch::asm;

/// `dst[j]` = the word at byte `j·c` of `src` (little-endian, as `common::word`), for every
/// `j`: a depthwise row kernel's gather of one group's four channels along an input row.
/// Five instructions a word (the compiler's loop: about ten). Returns `false`, writing
/// nothing, when `src` is shorter than `(dst.len() − 1)·c + 4` bytes or `dst` is empty.
#[inline(always)]
pub(crate) fn gather_words<X: crate::ops::common::Int8>(
    dst: &mut [u32],
    src: &[X],
    c: usize,
) -> bool {
    let n = dst.len();
    let need = n
        .checked_sub(1)
        .and_then(|k| k.checked_mul(c))
        .and_then(|k| k.checked_add(4));
    if need.is_none_or(|k| k > src.len()) || core::mem::size_of::<X>() != 1 {
        return false;
    }
    let sp = src.as_ptr().cast::<u8>();
    let dp = dst.as_mut_ptr();
    // SAFETY: word `j < n` of `dst` is written (`dp` advanced a word a step; `dst` is a
    // `&mut [u32]`, word-aligned) from the 4 bytes at `j·c` of `src` (`sp` advanced by `c`;
    // an unaligned load, which every Armv7-M and Armv8-M Mainline core makes), the last at most
    // `(n − 1)·c + 3 < src.len()` (checked above without overflow; `X` is one byte, `Int8`
    // being sealed to `i8` and `u8`). The loop runs `n ≥ 1` times. No other memory, no
    // stack; the condition flags are set (the count).
    unsafe {
        asm!(
            "2:",
            "ldr {v}, [{sp}]",
            "add {sp}, {sp}, {c}",
            "str {v}, [{dp}], #4",
            "subs {n}, {n}, #1",
            "bne 2b",
            sp = inout(reg) sp => _,
            dp = inout(reg) dp => _,
            n = inout(reg) n => _,
            c = in(reg) c,
            v = out(reg) _,
            options(nostack),
        );
    }
    true
}
