//! DEPTHWISE_CONV_2D's loops shared by the Thumb-2 cores with and without the DSP extension
//! (`cfg(any(synaptic_dsp, synaptic_mla))`): plain loads and stores, no DSP instruction.
//!
//! Guarantees: every function here is safe to call with any arguments. Each checks the
//! lengths its loop reads and writes against its slices first and, where they fall short,
//! does nothing and says so; the assembly touches no stack.

use core::arch::asm;

// The bounds here (and `row_block_fits`'s) are computed in 64 bits from 32-bit `usize`s: no
// product of two plus a small sum overflows.
const _: () = assert!(usize::BITS == 32);

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

/// [`gather_words`] of `rows` rows at once: `dst[r·d_step + j]` = the word at byte `r·s_step
/// + j·c` of `src`, for `r < rows`, `j < n` (a depthwise row kernel's gather of one group's
/// words of the window rows inside the input, one call a group). Five instructions a word,
/// five a row. Returns `false`, writing nothing, when a slice is too short for that, a row
/// longer than its step, or `rows` or `n` is 0.
#[inline(always)]
pub(crate) fn gather_rows<X: crate::ops::common::Int8>(
    dst: &mut [u32],
    src: &[X],
    (rows, n): (usize, usize),
    (s_step, d_step): (usize, usize),
    c: usize,
) -> bool {
    // In 64 bits (no product of two 32-bit `usize`s plus a small sum overflows): one
    // multiply a bound, not a checked chain.
    let (r, n64, c64) = (rows as u64, n as u64, c as u64);
    let wide = |v: usize| v as u64;
    if rows == 0
        || n == 0
        || n > d_step
        || n64 * c64 > wide(s_step)
        || (r - 1) * wide(s_step) + (n64 - 1) * c64 + 4 > wide(src.len())
        || (r - 1) * wide(d_step) + n64 > wide(dst.len())
        || core::mem::size_of::<X>() != 1
    {
        return false;
    }
    let s_skip = s_step - n * c;
    let d_skip = 4 * (d_step - n);
    // SAFETY: row `r < rows`, word `j < n`: reads the 4 bytes at `r·s_step + j·c` of `src`
    // (`sp` advanced by `c` a word, then `s_skip` to the next row's start: `s_step` a row; an
    // unaligned load, which every Armv7-M and Armv8-M Mainline core makes) and writes word
    // `r·d_step + j` of `dst` (`dp` advanced a word, then `d_skip` bytes: `d_step` words a
    // row; `dst` is a `&mut [u32]`, word-aligned); the last of each within its slice (checked
    // above without overflow; `X` is one byte, `Int8` being sealed to `i8` and `u8`). `n ≥ 1`
    // words a row counted down to 0, `rows ≥ 1` rows likewise. No other memory, no stack; the
    // condition flags are set (the counts).
    unsafe {
        asm!(
            "1:",
            "mov {k}, {n}",
            "2:",
            "ldr {v}, [{sp}]",
            "add {sp}, {sp}, {c}",
            "str {v}, [{dp}], #4",
            "subs {k}, {k}, #1",
            "bne 2b",
            "add {sp}, {sp}, {s_skip}",
            "add {dp}, {dp}, {d_skip}",
            "subs {rows}, {rows}, #1",
            "bne 1b",
            sp = inout(reg) src.as_ptr().cast::<u8>() => _,
            dp = inout(reg) dst.as_mut_ptr() => _,
            rows = inout(reg) rows => _,
            n = in(reg) n,
            c = in(reg) c,
            s_skip = in(reg) s_skip,
            d_skip = in(reg) d_skip,
            k = out(reg) _,
            v = out(reg) _,
            options(nostack),
        );
    }
    true
}
