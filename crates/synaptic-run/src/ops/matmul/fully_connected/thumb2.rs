//! FULLY_CONNECTED's variant for the Thumb-2 cores (`cfg(synaptic_dsp)`: Cortex-M4, M7, M33,
//! M55; `cfg(synaptic_mla)`: the Cortex-M3) of the usual per-tensor layer (no filter offset, a
//! right-shift requantizer, the whole int8 range, its biases words in memory — the program's
//! folded constants): the requantization in assembly, its constants in registers, the bias
//! read in place (the compiler's loop spilled them: some 22 instructions an output on the M4,
//! here 14; `SMMULR` there, `SMULL` and a carry on the M3), fused with the product for a row of
//! one input (15 an output); otherwise the dot products of a block of output channels first,
//! into accumulators on the stack: on the DSP extension four filters a pass over the input
//! (its words split once for the four: CONV_2D's `dot4_quads` for rows of at most [`CHUNK`],
//! [`quad_dot`] for longer ones), on the M3 two. One block of outputs in place
//! ([`one_block_in_place`]) reads its row where it lies: every product is made before any
//! output is written, so no copy of the row is needed whatever the overlap.
//!
//! ## Guarantees
//!
//! Every function here is safe to call with any arguments. The assembly loops check the
//! lengths they read and write against their slices first and touch no stack; [`rows_right`]
//! returns early, writing what it wrote, on slices too short for the parameters (never:
//! [`super::run`] checked every length). The results are the portable kernel's
//! (`RightRequantizer::try_apply`'s arithmetic; an accumulator whose double does not fit in
//! 32 bits takes the general requantization).

use core::arch::asm;

use super::{dot, dot2, requantize_wide, FullyConnectedParams};
use crate::math::RightRequantizer;
use crate::ops::common::{Int8, Int8Out};
#[cfg(synaptic_dsp)]
use crate::{
    dsp::{sxtab16, sxtab16_ror8},
    ops::common::{dot1, word},
    ops::conv::conv_2d::dsp::dot4_quads,
};

/// The output channels a block: their accumulators on the stack (64 bytes).
pub(super) const BLOCK: usize = 16;
/// The accumulators' first value (see [`rows_right`]).
const ACC_INIT: i32 = 0x0102_0304;
/// The longest row whose filters [`dots`] takes four at a time, its values split into words
/// on the stack (two words per four values: 32 bytes); the longest row the variant takes
/// ([`super::dsp_rows`]).
pub(super) const CHUNK: usize = 16;

/// The layer's outputs, the activation range all of int8: for each row of `input` (`p.batches`
/// rows of `p.accum_depth`) and each output channel `oc`, `Σ_i w[oc][i] · (x[i] + io) +
/// bias[oc]` requantized by `f` (by `requantize_wide(·, m, s)` when its double does not fit
/// in 32 bits), plus the output offset, saturated to int8: [`row_right`] a row.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn rows_right<W: Int8, O: Int8Out>(
    p: &FullyConnectedParams,
    filter: &[W],
    input: &[i8],
    io: i32,
    bias: &[u32],
    f: RightRequantizer,
    (m, s): (i32, i32),
    output: &mut [O],
) {
    let (depth, od) = (p.accum_depth, p.output_depth);
    for b in 0..p.batches {
        let (Some(row), Some(orow)) = (
            input.get(b * depth..(b + 1) * depth),
            output.get_mut(b * od..(b + 1) * od),
        ) else {
            return;
        };
        row_right(filter, row, io, bias, f, (m, s), p.output_offset, orow);
    }
}

/// [`rows_right`] of one row `row` into `out` (one output a filter of `filter`, rows of
/// `row.len()` weights; output offset `zp`); nothing past the shortest of `out`, the filter's
/// rows and `bias`. Not inlined: its loops' registers are their own.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub(super) fn row_right<W: Int8, O: Int8Out>(
    filter: &[W],
    row: &[i8],
    io: i32,
    bias: &[u32],
    f: RightRequantizer,
    (m, s): (i32, i32),
    zp: i32,
    out: &mut [O],
) {
    let depth = row.len();
    let od = out.len();
    let parts = f.parts();
    // The one accumulator the short sequence cannot take, by the general requantization.
    let wide =
        |a: i32| O::from_i8(requantize_wide(a, m, s).wrapping_add(zp).clamp(-128, 127) as i8);
    let (Some(filter), Some(bias)) = (filter.get(..od * depth), bias.get(..od)) else {
        return;
    };
    if let [x] = *row {
        let x = i32::from(x) + io;
        let mut done = 0;
        while done < od {
            done += one_input(
                &filter[done..],
                x,
                &bias[done..],
                &mut out[done..],
                parts,
                zp,
            );
            if let (Some(w), Some(&b), Some(o)) =
                (filter.get(done), bias.get(done), out.get_mut(done))
            {
                *o = wide(w.value().wrapping_mul(x).wrapping_add(b as i32));
                done += 1;
            }
        }
        return;
    }
    // Every accumulator a block uses is written before it is read ([`dots`]); the array's
    // first value is not a repeated byte, so it is stored in place rather than by a call
    // to `memset` (some 40 instructions for the 64 bytes).
    let mut acc = [ACC_INIT; BLOCK];
    let mut at = 0;
    while at < od {
        let n = (od - at).min(BLOCK);
        let (acc, o, b) = (&mut acc[..n], &mut out[at..at + n], &bias[at..at + n]);
        dots(&filter[at * depth..(at + n) * depth], row, io, acc);
        block_out(acc, b, o, f, (m, s), zp);
        at += n;
    }
}

/// `out[j] = requantize(acc[j] + bias[j])` plus `zp`, saturated to int8, for the shortest's
/// length: [`with_bias`], and the general requantization for an accumulator whose double
/// does not fit in 32 bits.
#[inline(always)]
fn block_out<O: Int8Out>(
    acc: &[i32],
    bias: &[u32],
    out: &mut [O],
    f: RightRequantizer,
    (m, s): (i32, i32),
    zp: i32,
) {
    let n = acc.len().min(bias.len()).min(out.len());
    let parts = f.parts();
    let mut done = 0;
    while done < n {
        done += with_bias(&acc[done..], &bias[done..], &mut out[done..], parts, zp);
        if let (Some(&a), Some(&b), Some(o)) = (acc.get(done), bias.get(done), out.get_mut(done)) {
            let v = requantize_wide(a.wrapping_add(b as i32), m, s).wrapping_add(zp);
            *o = O::from_i8(v.clamp(-128, 127) as i8);
            done += 1;
        }
    }
}

/// [`row_right`] of the one row of `buf[input..]` (`depth` values, at least two, offset by
/// `io`) into
/// `buf[output..]` (`bias.len()` values, at most [`BLOCK`]: one block), wherever the two lie in
/// `buf`: every accumulator is made ([`dots`]) before any output is written, so the row is
/// read in place, not copied first; `None` (nothing written) where the bounds or the shape
/// do not hold.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub(super) fn one_block_in_place<W: Int8>(
    filter: &[W],
    buf: &mut [u8],
    (input, output): (usize, usize),
    depth: usize,
    io: i32,
    bias: &[u32],
    f: RightRequantizer,
    (m, s): (i32, i32),
    zp: i32,
) -> Option<usize> {
    let od = bias.len();
    if depth < 2 || od == 0 || od > BLOCK {
        return None;
    }
    let filter = filter.get(..od.checked_mul(depth)?)?;
    let mut acc = [ACC_INIT; BLOCK];
    let row = buf.get(input..input.checked_add(depth)?)?;
    dots(filter, signed(row), io, &mut acc[..od]);
    let out = buf.get_mut(output..output.checked_add(od)?)?;
    block_out(&acc[..od], bias, out, f, (m, s), zp);
    Some(od)
}

/// `bytes` as the int8 values they hold.
#[inline(always)]
fn signed(bytes: &[u8]) -> &[i8] {
    // SAFETY: `i8` has `u8`'s size and alignment and every byte is an `i8`; the slice borrows
    // `bytes` for its lifetime, shared, its length the same.
    unsafe { core::slice::from_raw_parts(bytes.as_ptr().cast::<i8>(), bytes.len()) }
}

/// Values `x` (at most [`CHUNK`]) offset by `io`, split as [`dot4_quads`] takes them: per
/// four the words `(v0, v2)`, `(v1, v3)`; the last values (fewer than four) and the rest of
/// the array 0.
#[cfg(synaptic_dsp)]
#[inline(always)]
fn chunk_words(x: &[i8], io: i32) -> [u32; CHUNK / 2] {
    let pair = (io as u32 & 0xffff) * 0x1_0001;
    // Made as the array is, not over a zeroed one (measured: the zeroing and a second pass
    // cost more than the per-word test).
    core::array::from_fn(|i| match x.get(i / 2 * 4..i / 2 * 4 + 4) {
        Some(q) if i % 2 == 0 => sxtab16(pair, word(&[q[0], q[1], q[2], q[3]])),
        Some(q) => sxtab16_ror8(pair, word(&[q[0], q[1], q[2], q[3]])),
        None => 0,
    })
}

/// `acc[j] = Σ_i w[j][i] · (row[i] + io)` for the `acc.len()` filters of `filter` (rows of
/// `row.len()` ≥ 2 weights; nothing if it holds fewer): a row of at most [`CHUNK`] inputs four
/// filters a pass, its words split once ([`chunk_words`], [`dot4_quads`]), its last values
/// (fewer than four) one at a time; the block's last filters, and every filter of a longer
/// row, in pairs ([`dot2`]) or alone ([`dot1`]). Not inlined: its setup (the steps of the four
/// filters) made only where it runs.
#[inline(never)]
fn dots<W: Int8>(filter: &[W], row: &[i8], io: i32, acc: &mut [i32]) {
    let depth = row.len();
    let n = acc.len();
    if depth == 0 || filter.len() < n * depth {
        return;
    }
    // The filters four at a time on the DSP extension (`SMLAD`); the Cortex-M3's pairs.
    let quads = if cfg!(synaptic_dsp) && (4..=CHUNK).contains(&depth) {
        n / 4 * 4
    } else {
        0
    };
    #[cfg(synaptic_dsp)]
    if quads > 0 {
        let words = chunk_words(row, io);
        let whole = depth / 4 * 4;
        for (k, a) in acc[..quads].chunks_exact_mut(4).enumerate() {
            let w = &filter[4 * k * depth..];
            a.copy_from_slice(&dot4_quads([0; 4], &words, w, depth, depth / 4));
        }
        // The last values of every row (fewer than four).
        if whole < depth {
            for (k, a) in acc[..quads].iter_mut().enumerate() {
                let w = &filter[k * depth + whole..(k + 1) * depth];
                *a = a.wrapping_add(dot(w, &row[whole..], io));
            }
        }
    }
    let mut k = quads;
    // A longer row whose length is whole pairs of words: four filters a pass
    // ([`quad_dot`]), its input words split once for the four.
    #[cfg(synaptic_dsp)]
    if depth > CHUNK {
        for (a, w) in acc.chunks_exact_mut(4).zip(filter.chunks_exact(4 * depth)) {
            let Some(sums) = quad_dot(row, w, io) else {
                break;
            };
            a.copy_from_slice(&sums);
            k += 4;
        }
    }
    // On the M3, a row of at most `CHUNK` values: offset once, each filter a word at a time.
    #[cfg(not(synaptic_dsp))]
    if depth <= CHUNK {
        dots_m3(&filter[..n * depth], row, io, acc);
        return;
    }
    while k + 2 <= n {
        let (w0, w1) = filter[k * depth..(k + 2) * depth].split_at(depth);
        (acc[k], acc[k + 1]) = dot2(0, 0, row, w0, w1, io);
        k += 2;
    }
    if k < n {
        let w = &filter[k * depth..(k + 1) * depth];
        #[cfg(synaptic_dsp)]
        let a = dot1(0, row, w, io);
        #[cfg(not(synaptic_dsp))]
        let a = dot(w, row, io);
        acc[k] = a;
    }
}

/// [`dots`] on the M3 (no `SMLAD`) for a row of at most [`CHUNK`] values: the row offset once
/// onto the stack, then each pair of filters in assembly ([`pair_m3`]), the last values (fewer
/// than four) and an odd last filter by the compiler's loop (one value a step took ~4.3
/// instructions a multiply-accumulate, [`pair_m3`] 2.75: M3 hello_world_int8 4,184 → 3,848
/// instructions with the in-place entry's own short-row body).
#[cfg(not(synaptic_dsp))]
#[inline(always)]
fn dots_m3<W: Int8>(filter: &[W], row: &[i8], io: i32, acc: &mut [i32]) {
    let depth = row.len().min(CHUNK);
    // Made as the array is (no `memset` call first).
    let xs: [i32; CHUNK] = core::array::from_fn(|i| row.get(i).map_or(0, |&v| i32::from(v) + io));
    let whole = depth / 4 * 4;
    let (xs, tail) = xs.split_at(whole);
    let tail = &tail[..depth - whole];
    // Σ over four weights of weight · value.
    let quad = |a: i32, w: &[W], x: &[i32]| -> i32 {
        a.wrapping_add(w[0].value().wrapping_mul(x[0]))
            .wrapping_add(w[1].value().wrapping_mul(x[1]))
            .wrapping_add(w[2].value().wrapping_mul(x[2]))
            .wrapping_add(w[3].value().wrapping_mul(x[3]))
    };
    let rest = |a: i32, w: &[W]| -> i32 {
        tail.iter()
            .zip(&w[whole..])
            .fold(a, |a, (&x, w)| a.wrapping_add(w.value().wrapping_mul(x)))
    };
    let mut pairs = filter.chunks_exact(2 * depth);
    let mut out = acc.chunks_exact_mut(2);
    for (w, a) in (&mut pairs).zip(&mut out) {
        let (a0, a1) = pair_m3(xs, w, depth);
        a[0] = rest(a0, &w[..depth]);
        a[1] = rest(a1, &w[depth..]);
    }
    if let ([a], Some(w)) = (out.into_remainder(), pairs.remainder().get(..depth)) {
        let mut a0 = 0i32;
        for (q, x) in w.chunks_exact(4).zip(xs.chunks_exact(4)) {
            a0 = quad(a0, q, x);
        }
        *a = rest(a0, w);
    }
}

/// The dot products of the values `xs` (a multiple of four) with the first `xs.len()`
/// weights of the two filters `w[..depth]` and `w[depth..]` in assembly: per value one load,
/// per weight one sign-extending load and one `MLA` (22 instructions for 8 multiply-accumulates,
/// where the compiler's loop took 33). `(0, 0)` for `w` shorter than the two rows or rows
/// shorter than `xs`.
#[cfg(not(synaptic_dsp))]
#[inline(always)]
fn pair_m3<W: Int8>(xs: &[i32], w: &[W], depth: usize) -> (i32, i32) {
    let q = xs.len() / 4 * 4;
    let (mut a0, mut a1) = (0i32, 0i32);
    if core::mem::size_of::<W>() != 1 || q == 0 || depth < q || w.len() < 2 * depth {
        return (a0, a1);
    }
    let xp = xs.as_ptr();
    let end = xp.wrapping_add(q);
    // SAFETY: reads only: values `0 .. q` of `xs` (`xp` advanced one a step to `end` = `xp +
    // q`, `q ≤ xs.len()`), bytes `0 .. q` of the first row (`wp`, advanced with it: `q ≤
    // depth`) and of the second (at `wp + depth`: `depth + q ≤ 2·depth ≤ w.len()`); `W` is
    // one byte (checked; `Int8` is sealed to `i8` and `u8`). `q ≥ 4`, a multiple of four: the
    // loop runs until `xp` is `end`, reached exactly. No stack, no memory written; the flags
    // are set (the compare).
    unsafe {
        asm!(
            "2:",
            "ldr {x}, [{xp}], #4",
            "ldrsb {t}, [{wp}, {d}]",
            "mla {a1}, {t}, {x}, {a1}",
            "ldrsb {t}, [{wp}], #1",
            "mla {a0}, {t}, {x}, {a0}",
            "ldr {x}, [{xp}], #4",
            "ldrsb {t}, [{wp}, {d}]",
            "mla {a1}, {t}, {x}, {a1}",
            "ldrsb {t}, [{wp}], #1",
            "mla {a0}, {t}, {x}, {a0}",
            "ldr {x}, [{xp}], #4",
            "ldrsb {t}, [{wp}, {d}]",
            "mla {a1}, {t}, {x}, {a1}",
            "ldrsb {t}, [{wp}], #1",
            "mla {a0}, {t}, {x}, {a0}",
            "ldr {x}, [{xp}], #4",
            "ldrsb {t}, [{wp}, {d}]",
            "mla {a1}, {t}, {x}, {a1}",
            "ldrsb {t}, [{wp}], #1",
            "mla {a0}, {t}, {x}, {a0}",
            "cmp {xp}, {end}",
            "bne 2b",
            a0 = inout(reg) a0,
            a1 = inout(reg) a1,
            xp = inout(reg) xp => _,
            wp = inout(reg) w.as_ptr() => _,
            d = in(reg) depth,
            end = in(reg) end,
            x = out(reg) _,
            t = out(reg) _,
            options(nostack, readonly),
        );
    }
    (a0, a1)
}

/// One output's requantization, after its accumulator's double in `{a}` (`ADDS`: V set if it
/// does not fit in 32 bits, then the branch out to `3f`): `RightRequantizer::of_double` (the
/// rounded high word of the product with `{m}`, plus `{half}` and its sign, shifted right by
/// `{right}`), plus `{zp}`, saturated to int8, stored at `{op}` (advanced one): 9 instructions.
#[cfg(synaptic_dsp)]
macro_rules! requantize_store {
    () => {
        concat!(
            "bvs 3f\n",
            "smmulr {a}, {a}, {m}\n",
            "add {t}, {half}, {a}, asr #31\n",
            "add {a}, {a}, {t}\n",
            "asr {a}, {a}, {right}\n",
            "add {a}, {a}, {zp}\n",
            "ssat {a}, #8, {a}\n",
            "strb {a}, [{op}], #1\n",
        )
    };
}

/// [`requantize_store`] without the DSP extension (the Cortex-M3): the rounded high word by
/// `SMULL` and the carry of `2^31` into it (`{t}` the low word): 11 instructions.
#[cfg(not(synaptic_dsp))]
macro_rules! requantize_store {
    () => {
        concat!(
            "bvs 3f\n",
            "smull {t}, {a}, {a}, {m}\n",
            "adds {t}, {t}, #0x80000000\n",
            "adc {a}, {a}, #0\n",
            "add {t}, {half}, {a}, asr #31\n",
            "add {a}, {a}, {t}\n",
            "asr {a}, {a}, {right}\n",
            "add {a}, {a}, {zp}\n",
            "ssat {a}, #8, {a}\n",
            "strb {a}, [{op}], #1\n",
        )
    };
}

/// `out[j] = requantize(acc[j] + bias[j])` for the shorter's length, by `parts` (multiplier,
/// `2^(right − 1)`, right: `RightRequantizer::parts`), plus `zp`, saturated to int8, until the
/// first sum whose double does not fit in 32 bits; returns how many it wrote. 14
/// instructions an output (16 on the Cortex-M3).
#[inline(always)]
fn with_bias<O: Int8Out>(
    acc: &[i32],
    bias: &[u32],
    out: &mut [O],
    [m, half, right]: [i32; 3],
    zp: i32,
) -> usize {
    let n = acc.len().min(bias.len()).min(out.len());
    if n == 0 || core::mem::size_of::<O>() != 1 {
        return 0;
    }
    let ap = acc.as_ptr();
    let end = ap.wrapping_add(n);
    let op = out.as_mut_ptr().cast::<u8>();
    let stop: *const i32;
    // SAFETY: reads words `0 .. k` of `acc` and of `bias` and writes bytes `0 .. k` of `out`,
    // `k ≤ n`, the shortest's length: `ap`, `bp` advance a word and `op` a byte a step until
    // `ap` is `end` (`n ≥ 1` steps), or a step whose doubled sum overflows, which writes
    // nothing and backs `ap` up to it. `O` is one byte (`Int8Out` is sealed to `i8` and `u8`,
    // for which every byte is a value); the slices do not overlap (`&` and `&mut`). No stack;
    // the flags are set (the double, the compare), the Q flag may be (`SSAT`).
    unsafe {
        asm!(
            "2:",
            "ldr {a}, [{ap}], #4",
            "ldr {t}, [{bp}], #4",
            "add {a}, {a}, {t}",
            "adds {a}, {a}, {a}",
            requantize_store!(),
            "cmp {ap}, {end}",
            "bne 2b",
            "b 4f",
            "3:",
            "sub {ap}, {ap}, #4",
            "4:",
            ap = inout(reg) ap => stop,
            bp = inout(reg) bias.as_ptr() => _,
            op = inout(reg) op => _,
            end = in(reg) end,
            m = in(reg) m,
            half = in(reg) half,
            right = in(reg) right,
            zp = in(reg) zp,
            a = out(reg) _,
            t = out(reg) _,
            options(nostack),
        );
    }
    (stop as usize - ap as usize) / 4
}

/// `out[j] = requantize(w[j] · x + bias[j])` for the shortest's length (a layer of one input,
/// `x` offset), as [`with_bias`]; returns how many it wrote. 15 instructions an output (17 on
/// the Cortex-M3).
#[inline(always)]
fn one_input<W: Int8, O: Int8Out>(
    w: &[W],
    x: i32,
    bias: &[u32],
    out: &mut [O],
    [m, half, right]: [i32; 3],
    zp: i32,
) -> usize {
    let n = w.len().min(bias.len()).min(out.len());
    if n == 0 || core::mem::size_of::<O>() != 1 || core::mem::size_of::<W>() != 1 {
        return 0;
    }
    let wp = w.as_ptr().cast::<u8>();
    let end = wp.wrapping_add(n);
    let op = out.as_mut_ptr().cast::<u8>();
    let stop: *const u8;
    // SAFETY: reads bytes `0 .. k` of `w`, words `0 .. k` of `bias` and writes bytes `0 .. k`
    // of `out`, `k ≤ n`, the shortest's length: `wp`, `op` advance a byte and `bp` a word a
    // step until `wp` is `end` (`n ≥ 1` steps), or a step whose doubled sum overflows, which
    // writes nothing and backs `wp` up to it. `W` and `O` are one byte (`Int8`, `Int8Out`
    // are sealed to `i8` and `u8`, whose `value` is the byte sign-extended either way: what
    // `LDRSB` loads). The slices do not overlap. No stack; the flags are set, the Q flag may
    // be.
    unsafe {
        asm!(
            "2:",
            "ldrsb {a}, [{wp}], #1",
            "ldr {t}, [{bp}], #4",
            "mla {a}, {a}, {x}, {t}",
            "adds {a}, {a}, {a}",
            requantize_store!(),
            "cmp {wp}, {end}",
            "bne 2b",
            "b 4f",
            "3:",
            "sub {wp}, {wp}, #1",
            "4:",
            wp = inout(reg) wp => stop,
            bp = inout(reg) bias.as_ptr() => _,
            op = inout(reg) op => _,
            end = in(reg) end,
            x = in(reg) x,
            m = in(reg) m,
            half = in(reg) half,
            right = in(reg) right,
            zp = in(reg) zp,
            a = out(reg) _,
            t = out(reg) _,
            options(nostack),
        );
    }
    stop as usize - wp as usize
}

/// One word of inputs for [`quad_dot`]'s four filters: split once (`SXTAB16` with the
/// offset), each filter's word by `SXTB16`, two `SMLAD`s a filter. `{end}` is a scratch
/// register here (the end itself is on the stack, [`quad_dot`]).
#[cfg(synaptic_dsp)]
macro_rules! quad_word {
    () => {
        concat!(
            "ldr {v}, [{xp}], #4\n",
            "sxtab16 {x02}, {pair}, {v}\n",
            "sxtab16 {x13}, {pair}, {v}, ror #8\n",
            "ldr {v}, [{wp}, {n}]\n",
            "sxtb16 {end}, {v}\n",
            "smlad {a1}, {x02}, {end}, {a1}\n",
            "sxtb16 {v}, {v}, ror #8\n",
            "smlad {a1}, {x13}, {v}, {a1}\n",
            "ldr {v}, [{wp}], #4\n",
            "sxtb16 {end}, {v}\n",
            "smlad {a0}, {x02}, {end}, {a0}\n",
            "sxtb16 {v}, {v}, ror #8\n",
            "smlad {a0}, {x13}, {v}, {a0}\n",
            "ldr {v}, [{wp2}, {n}]\n",
            "sxtb16 {end}, {v}\n",
            "smlad {a3}, {x02}, {end}, {a3}\n",
            "sxtb16 {v}, {v}, ror #8\n",
            "smlad {a3}, {x13}, {v}, {a3}\n",
            "ldr {v}, [{wp2}], #4\n",
            "sxtb16 {end}, {v}\n",
            "smlad {a2}, {x02}, {end}, {a2}\n",
            "sxtb16 {v}, {v}, ror #8\n",
            "smlad {a2}, {x13}, {v}, {a2}\n",
        )
    };
}

/// `Σ (x[c] + io) · w_k[c]` of four filters `w` (rows of `x.len()` weights, one after the
/// other) when `x` is whole pairs of words; `None` for a shorter `w`, one other than bytes,
/// or another `x` (the caller's pairs take it: no tail loop here, its flash in every image
/// that links FULLY_CONNECTED). On the DSP extension
/// ([`quad_word`]): 49 instructions for 32 multiply-accumulates (two [`pair_dot`]s, 60).
/// Thirteen registers hold the loop; the end of `x` is read from the stack.
#[cfg(synaptic_dsp)]
#[inline(never)]
pub(super) fn quad_dot<W: Int8>(x: &[i8], w: &[W], io: i32) -> Option<[i32; 4]> {
    let n = x.len();
    if core::mem::size_of::<W>() != 1 || w.len() / 4 < n || n < 8 || n % 8 != 0 {
        return None;
    }
    let pair = (io as u32 & 0xffff) * 0x1_0001;
    let xp = x.as_ptr();
    let end = xp.wrapping_add(n);
    let wp = w.as_ptr();
    let mut a = [0i32; 4];
    // SAFETY: reads: words `0 .. n/4` of `x` (`xp` advanced 4 a word, two words a step, to
    // `end` = `xp + n`, `n = x.len()`) and of the four rows of `w` (`wp` and `wp + n` for
    // rows 0 and 1, `wp2 = wp + 2n` and `wp2 + n` for rows 2 and 3, all advanced with `xp`:
    // the last read ends at `4n ≤ w.len()`); `W` is one byte (checked; `Int8` is sealed to
    // `i8` and `u8`); unaligned loads, which every core with this extension makes. `n ≥ 8`,
    // a multiple of 8: the loop runs until `xp` is `end`, reached exactly. Writes: the word
    // below the stack pointer (the end, pushed with 8 bytes reserved to keep the stack's
    // alignment; popped before the block ends). The flags are set (the compare), the Q flag
    // may be.
    unsafe {
        asm!(
            "str {end}, [sp, #-8]!",
            "2:",
            quad_word!(),
            quad_word!(),
            "ldr {end}, [sp]",
            "cmp {xp}, {end}",
            "bne 2b",
            "add sp, sp, #8",
            a0 = inout(reg) a[0],
            a1 = inout(reg) a[1],
            a2 = inout(reg) a[2],
            a3 = inout(reg) a[3],
            xp = inout(reg) xp => _,
            wp = inout(reg) wp => _,
            wp2 = inout(reg) wp.wrapping_add(2 * n) => _,
            n = in(reg) n,
            end = inout(reg) end => _,
            pair = in(reg) pair,
            x02 = out(reg) _,
            x13 = out(reg) _,
            v = out(reg) _,
        );
    }
    Some(a)
}

/// `(Σ (x[c] + io) · w0[c], Σ (x[c] + io) · w1[c])` over the whole words of `x` when `w1`
/// follows `w0` in memory by the same distance as every step (a filter's rows: `w1` at
/// `w0 + x.len()`), the rest of `x` one value at a time; `None` for other slices (the caller's
/// portable [`dot2`]). On the DSP extension: a word of inputs split once (`SXTAB16` with the
/// offset), each filter's word by `SXTB16`, two `SMLAD`s a filter: 15 instructions for eight
/// multiply-accumulates.
#[cfg(synaptic_dsp)]
#[inline(never)]
pub(super) fn pair_dot<W: Int8>(x: &[i8], w0: &[W], w1: &[W], io: i32) -> Option<(i32, i32)> {
    let n = x.len();
    let d = (w1.as_ptr() as usize).wrapping_sub(w0.as_ptr() as usize);
    if core::mem::size_of::<W>() != 1 || w0.len() < n || w1.len() < n || d != n || n < 4 {
        return None;
    }
    let q = n / 4 * 4;
    let pair = (io as u32 & 0xffff) * 0x1_0001;
    let xp = x.as_ptr();
    let end = xp.wrapping_add(q);
    let (mut a0, mut a1) = (0i32, 0i32);
    // SAFETY: reads only: words `0 .. q/4` of `x` (`xp` advanced 4 a step to `end` = `xp + q`,
    // `q ≤ n = x.len()`), of `w0` (`wp`, advanced with it: `q ≤ w0.len()`) and of `w1` (at
    // `wp + d`, `d` = `w1 − w0` checked above: `q ≤ w1.len()`); `W` is one byte (checked;
    // `Int8` is sealed to `i8` and `u8`); unaligned loads, which every core with this
    // extension makes. `q ≥ 4`: the loop runs until `xp` is `end`, reached exactly. No stack,
    // no memory written; the flags are set (the compare), the Q flag may be.
    unsafe {
        asm!(
            "2:",
            "ldr {x}, [{xp}], #4",
            "sxtab16 {x02}, {pair}, {x}",
            "sxtab16 {x13}, {pair}, {x}, ror #8",
            "ldr {x}, [{wp}, {d}]",
            "ldr {v}, [{wp}], #4",
            "sxtb16 {t}, {v}",
            "smlad {a0}, {x02}, {t}, {a0}",
            "sxtb16 {t}, {v}, ror #8",
            "smlad {a0}, {x13}, {t}, {a0}",
            "sxtb16 {t}, {x}",
            "smlad {a1}, {x02}, {t}, {a1}",
            "sxtb16 {t}, {x}, ror #8",
            "smlad {a1}, {x13}, {t}, {a1}",
            "cmp {xp}, {end}",
            "bne 2b",
            a0 = inout(reg) a0,
            a1 = inout(reg) a1,
            xp = inout(reg) xp => _,
            wp = inout(reg) w0.as_ptr() => _,
            d = in(reg) d,
            end = in(reg) end,
            pair = in(reg) pair,
            x = out(reg) _,
            x02 = out(reg) _,
            x13 = out(reg) _,
            v = out(reg) _,
            t = out(reg) _,
            options(nostack, readonly),
        );
    }
    for c in q..n {
        let v = i32::from(x[c]) + io;
        a0 = a0.wrapping_add(w0[c].value().wrapping_mul(v));
        a1 = a1.wrapping_add(w1[c].value().wrapping_mul(v));
    }
    Some((a0, a1))
}
