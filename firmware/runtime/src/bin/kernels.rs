//! `kernels`: the kernels' ISA variants against the arithmetic they must equal, on the target
//! (the DSP extension's loops are compiled only for it: `cfg(synaptic_dsp)`), over shapes and
//! values no shared model has — every loop's edges (one input, fewer than four filters or
//! inputs, more inputs than a chunk, several rows) and the rare values (an accumulator whose
//! double does not fit in 32 bits, a scale at or above one half, a clamped activation).
//!
//! FULLY_CONNECTED with folded constants (what a program gives the DSP variant's loops,
//! `ops/matmul/fully_connected/dsp.rs`): each output against `MultiplyByQuantizedMultiplier`
//! of `Σ w·x + folded` (`Requantizer::apply`) plus the output zero point, clamped. Prints
//! `kernels <kernel> <cases> cases ok` per kernel, or the first output that differs and exits
//! 1.
#![no_std]
#![no_main]

use cortex_m_semihosting::{debug, hprintln};
use synaptic_fw_runtime as _;
use synaptic_run::math::{Activation, QuantParams, Requantizer};
use synaptic_run::ops::matmul::fully_connected::{
    fully_connected as fully_connected_plain, fully_connected_folded, FullyConnectedOptions,
    FullyConnectedParams,
};
use synaptic_run::seeded::splitmix64;

/// The largest filter a case takes (`od · depth`), its input (`batches · depth`) and output.
const MAX_FILTER: usize = 40 * 100;
const MAX_INPUT: usize = 3 * 100;
const MAX_OUTPUT: usize = 3 * 40;

#[cortex_m_rt::entry]
fn main() -> ! {
    let cases = fully_connected();
    hprintln!("kernels fully_connected {} cases ok", cases);
    debug::exit(debug::EXIT_SUCCESS);
    #[allow(clippy::empty_loop)]
    loop {}
}

fn fail(what: core::fmt::Arguments<'_>) -> ! {
    hprintln!("kernels: FAIL {}", what);
    debug::exit(debug::EXIT_FAILURE);
    #[allow(clippy::empty_loop)]
    loop {}
}

/// Every case of FULLY_CONNECTED with folded constants; returns their number.
fn fully_connected() -> usize {
    let mut state = 0x5eed_f00d_u64;
    let mut next = move || splitmix64(&mut state);
    let mut cases = 0;
    let mut filter = [0i8; MAX_FILTER];
    let mut input = [0i8; MAX_INPUT];
    let mut folded = [0u32; 40];
    let mut out = [0i8; MAX_OUTPUT];
    for depth in [
        1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 36, 39, 63, 64, 65, 100,
    ] {
        for od in (1..=20).chain([23, 32, 40]) {
            let batches = 1 + (next() % 3) as usize;
            let (nf, ni, no) = (od * depth, batches * depth, batches * od);
            for w in filter[..nf].iter_mut() {
                *w = next() as i8;
            }
            for x in input[..ni].iter_mut() {
                *x = next() as i8;
            }
            // Biases mostly in an int8 layer's range, some whose sums overflow the double.
            for b in folded[..od].iter_mut() {
                let r = next();
                *b = match r % 8 {
                    0 => (r >> 32) as u32 | 0x4000_0000,
                    1 => ((r >> 32) as u32 | 0x4000_0000).wrapping_neg(),
                    _ => ((r >> 32) as i32 >> 14) as u32,
                };
            }
            let r = next();
            let zp = (r >> 8) as i8 as i32;
            let activation = if r % 4 == 0 {
                Activation::Relu
            } else {
                Activation::None
            };
            // Multipliers as QuantizeMultiplier makes them; shifts mostly right, some not.
            let m = (0x4000_0000 | (r >> 33) as u32 & 0x3fff_ffff) as i32;
            let s = match (r >> 16) % 8 {
                0 => 0,
                1 => 1,
                k => -(k as i32) - (r >> 24) as i32 % 6,
            };
            let opts = FullyConnectedOptions {
                activation,
                weights_format: 0,
            };
            let p = FullyConnectedParams::new(
                &opts,
                &[batches, depth],
                &[od, depth],
                &[batches, od],
                QuantParams::new(0.5, 0),
                &[0.25],
                0,
                QuantParams::new(1.0, zp),
            )
            .unwrap_or_else(|e| fail(format_args!("params: {}", e)));
            let (lo, hi) = match activation {
                Activation::Relu => (zp, 127),
                _ => (-128, 127),
            };
            let (mw, sw) = ([m as u32], [s as u32]);
            fully_connected_folded(
                &p,
                &mw[..],
                &sw[..],
                &input[..ni],
                &filter[..nf],
                &folded[..od],
                &mut out[..no],
            )
            .unwrap_or_else(|e| fail(format_args!("kernel: {}", e)));
            let req = Requantizer::new(m, s);
            for b in 0..batches {
                for oc in 0..od {
                    let x = &input[b * depth..(b + 1) * depth];
                    let w = &filter[oc * depth..(oc + 1) * depth];
                    let acc = x.iter().zip(w).fold(folded[oc] as i32, |a, (&x, &w)| {
                        a.wrapping_add(i32::from(x) * i32::from(w))
                    });
                    let want = req.apply(acc).wrapping_add(zp).max(lo).min(hi) as i8;
                    let got = out[b * od + oc];
                    if got != want {
                        fail(format_args!(
                            "fully_connected depth {} od {} batches {} row {} oc {}: {} (want {}; acc {}, m {}, s {}, zp {})",
                            depth, od, batches, b, oc, got, want, acc, m, s, zp
                        ));
                    }
                }
            }
            cases += 1;
            // The same layer unfolded, with an input zero point (the DSP loops' offset input
            // words, `SXTAB16`): the bias the folded words, the accumulator
            // `bias + Σ w·(x − izp)`.
            let izp = (r >> 40) as i8 as i32;
            let p = FullyConnectedParams::new(
                &opts,
                &[batches, depth],
                &[od, depth],
                &[batches, od],
                QuantParams::new(0.5, izp),
                &[0.25],
                0,
                QuantParams::new(1.0, zp),
            )
            .unwrap_or_else(|e| fail(format_args!("params: {}", e)));
            let bias = folded.map(|b| b as i32);
            fully_connected_plain(
                &p,
                &mw[..],
                &sw[..],
                &input[..ni],
                &filter[..nf],
                Some(&bias[..od]),
                &mut out[..no],
            )
            .unwrap_or_else(|e| fail(format_args!("kernel: {}", e)));
            for b in 0..batches {
                for oc in 0..od {
                    let x = &input[b * depth..(b + 1) * depth];
                    let w = &filter[oc * depth..(oc + 1) * depth];
                    let acc = x.iter().zip(w).fold(bias[oc], |a, (&x, &w)| {
                        a.wrapping_add((i32::from(x) - izp) * i32::from(w))
                    });
                    let want = req.apply(acc).wrapping_add(zp).max(lo).min(hi) as i8;
                    let got = out[b * od + oc];
                    if got != want {
                        fail(format_args!(
                            "fully_connected (input zero point {}) depth {} od {} batches {} row {} oc {}: {} (want {}; acc {})",
                            izp, depth, od, batches, b, oc, got, want, acc
                        ));
                    }
                }
            }
            cases += 1;
        }
    }
    cases
}
