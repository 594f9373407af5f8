//! Loops of the Thumb-2 cores without the DSP extension (Armv7-M: the Cortex-M3; Armv8-M
//! Mainline built without it), written as `MLA` assembly where the compiler's own loop costs
//! a third more: `cfg(synaptic_mla)`, set by the build script (`src/isa_rule.rs` decides the
//! DSP extension; these cores are the Thumb-2 ones it leaves out).
//!
//! Guarantees: every function here is safe to call with any arguments. Each checks the
//! lengths its loop reads against its slices first and, where they fall short, returns the
//! portable sums of what the slices hold instead (never, for a kernel's own slices); the
//! assembly only reads, within those bounds, and touches no stack. The results equal the
//! portable kernels' (wrapping `i32` sums: the products' order does not change them).

use crate::ops::common::Int8;
use core::arch::asm;

/// One tap of [`window4`]: its input byte at `{xp}` (advanced one) offset by `{off}`, times
/// its four weights at `{wp}` (advanced `{step}`) into `{a0}` .. `{a3}`: 11 instructions.
macro_rules! tap {
    () => {
        concat!(
            "ldrsb {v}, [{xp}], #1\n",
            "ldrsb {w}, [{wp}]\n",
            "add {v}, {v}, {off}\n",
            "mla {a0}, {v}, {w}, {a0}\n",
            "ldrsb {w}, [{wp}, #1]\n",
            "mla {a1}, {v}, {w}, {a1}\n",
            "ldrsb {w}, [{wp}, #2]\n",
            "mla {a2}, {v}, {w}, {a2}\n",
            "ldrsb {w}, [{wp}, #3]\n",
            "add {wp}, {wp}, {step}\n",
            "mla {a3}, {v}, {w}, {a3}\n",
        )
    };
}

/// The accumulators of four output channels over a window of an int8 input with one
/// channel, `rows` rows of `n` taps: `acc[j] + Σ_{r, t} (x[r · x_step + t] + offset) ·
/// w[r · w_step + t · step + j]`, wrapping (a depthwise convolution with a multiplier and
/// one input channel, micro_speech's: each tap's input read and offset where it lies, no
/// window gathered). One `LDRSB` and one `MLA` a product, two taps a step (an odd row enters
/// the step at its second tap): 24 instructions for eight multiply-accumulates, 12 a row
/// (the compiler's eight-output loop: some 34 a tap). Slices shorter than the window needs,
/// or `n` or `rows` 0: the portable sums of what they hold.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn window4<X: Int8, W: Int8>(
    acc: [i32; 4],
    x: &[X],
    offset: i32,
    w: &[W],
    step: usize,
    (n, rows): (usize, usize),
    (x_step, w_step): (usize, usize),
) -> [i32; 4] {
    // The last input byte and the last weight the window reads.
    let last = |len: usize, row: usize, tap: usize, width: usize| {
        let at = (rows.checked_sub(1)?.checked_mul(row)?)
            .checked_add(n.checked_sub(1)?.checked_mul(tap)?)?
            .checked_add(width)?;
        (at <= len).then_some(())
    };
    let bytes = core::mem::size_of::<X>() == 1 && core::mem::size_of::<W>() == 1;
    let fits = last(x.len(), x_step, 1, 1).is_some() && last(w.len(), w_step, step, 4).is_some();
    if !fits || !bytes || x_step < n || w_step < n.saturating_mul(step) || w_step == 0 {
        let mut acc = acc;
        for r in 0..rows {
            for t in 0..n {
                let xv = x.get(r * x_step + t).map_or(0, |x| x.value() + offset);
                for (j, a) in acc.iter_mut().enumerate() {
                    let wv = w.get(r * w_step + t * step + j).map_or(0, |w| w.value());
                    *a = a.wrapping_add(xv.wrapping_mul(wv));
                }
            }
        }
        return acc;
    }
    let [mut a0, mut a1, mut a2, mut a3] = acc;
    let xp = x.as_ptr().cast::<u8>();
    let wp = w.as_ptr().cast::<u8>();
    // Per row: the input's and the weights' steps from a row's end to the next row's start,
    // the taps, and where the weights stand after the last row.
    let prm: [usize; 4] = [
        x_step - n,
        w_step - n * step,
        n,
        (wp as usize).wrapping_add(rows * w_step),
    ];
    // SAFETY: reads only. Row `r < rows` reads bytes `r·x_step + t`, `t < n`, of `x` and
    // bytes `r·w_step + t·step + j`, `j < 4`, of `w` (`X` and `W` one byte, `Int8` being
    // sealed to `i8` and `u8`), the last of each within the slice (`fits`, checked above),
    // and the four words of `prm`. `xp` and `wp` step a byte and `step` a tap, and by
    // `prm[0]`, `prm[1]` (not negative: checked above) from a row's end to the next row's
    // start, so row `r` starts at byte `r·x_step` and `r·w_step`; `end` is the row's
    // `xp + n` (an odd `n` enters the two-tap step at its second tap, so `xp` meets it
    // exactly); the loop ends when `wp` reaches `prm[3]` (`wp` grows by `w_step > 0` a row,
    // wrapping as `prm[3]` was computed, so it meets it after row `rows − 1`, `rows ≥ 1`, and
    // not before). No stack, no memory written; the flags are clobbered.
    unsafe {
        asm!(
            // Row start: `end` = `xp + n`; an odd `n` enters at the second tap.
            "1:",
            "ldr {v}, [{prm}, #8]",
            "add {end}, {xp}, {v}",
            "tst {v}, #1",
            "bne 3f",
            "2:",
            tap!(),
            "3:",
            tap!(),
            "cmp {xp}, {end}",
            "bne 2b",
            // Row end: on to the next row's start, unless that was the last.
            "ldr {v}, [{prm}]",
            "add {xp}, {xp}, {v}",
            "ldr {v}, [{prm}, #4]",
            "add {wp}, {wp}, {v}",
            "ldr {v}, [{prm}, #12]",
            "cmp {wp}, {v}",
            "bne 1b",
            a0 = inout(reg) a0,
            a1 = inout(reg) a1,
            a2 = inout(reg) a2,
            a3 = inout(reg) a3,
            xp = inout(reg) xp => _,
            wp = inout(reg) wp => _,
            end = out(reg) _,
            step = in(reg) step,
            off = in(reg) offset,
            prm = in(reg) prm.as_ptr(),
            v = out(reg) _,
            w = out(reg) _,
            options(nostack, readonly),
        );
    }
    [a0, a1, a2, a3]
}
