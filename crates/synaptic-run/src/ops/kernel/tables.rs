//! The parts of a program record derived one entry at a time, so that compiling or verifying
//! a program needs no buffer for them: requantization tables ([`Table`]) and per-channel
//! accumulator constants ([`Constants`]).

use crate::error::{KernelError, Unsupported};
use crate::math::channel_multiplier;
use crate::ops::common::{folded_bias, LeI32};
use synaptic_tflite::Floats;

/// An operator's requantization table, derived one entry at a time ([`Table::entry`]) so that
/// compiling or verifying a program needs no buffer for it.
#[derive(Clone, Copy)]
pub(crate) enum Table<'m> {
    /// No table.
    None,
    /// One multiplier and shift per output channel (`PopulateConvolutionQuantizationParams`):
    /// CONV_2D, DEPTHWISE_CONV_2D, per-channel FULLY_CONNECTED.
    PerChannel {
        name: &'static str,
        channels: usize,
        input: f32,
        filter: Floats<'m>,
        output: f32,
    },
    /// One entry: a per-tensor FULLY_CONNECTED (the product of the scales in `double`, as the
    /// oracle wheel's `GetQuantizedConvolutionMultipler`).
    PerTensor {
        name: &'static str,
        input: f32,
        filter: f32,
        output: f32,
    },
}

impl Table<'_> {
    /// Entries (multipliers; as many shifts).
    pub(crate) fn len(&self) -> usize {
        match self {
            Table::None => 0,
            Table::PerChannel { channels, .. } => *channels,
            Table::PerTensor { .. } => 1,
        }
    }

    /// Multiplier and shift of entry `c` (`c < len()`).
    pub(crate) fn entry(&self, c: usize) -> Result<(i32, i32), KernelError> {
        match self {
            Table::None => Err(KernelError::unsupported("", Unsupported::ProgramMismatch)),
            Table::PerChannel {
                name,
                input,
                filter,
                output,
                ..
            } => {
                let sc = if filter.len() == 1 {
                    filter.get(0)
                } else {
                    filter.get(c)
                };
                let sc = sc.ok_or(KernelError::unsupported(name, Unsupported::FilterScales))?;
                channel_multiplier(name, *input, sc, *output)
            }
            Table::PerTensor {
                name,
                input,
                filter,
                output,
            } => channel_multiplier(name, *input, *filter, *output),
        }
    }
}

/// An operator's per-output-channel accumulator constants (the tail of its program record),
/// derived one entry at a time like [`Table`].
#[derive(Clone, Copy)]
pub(crate) enum Constants<'m> {
    /// None.
    None,
    /// A foldable FULLY_CONNECTED's folded biases ([`folded_bias`] of each of its `rows`):
    /// its filter (`rows × depth` int8) and bias (empty: none) read in place in the model.
    FoldedBiases {
        /// Output channels.
        rows: usize,
        /// Weights a row.
        depth: usize,
        /// `-input_zero_point`.
        input_offset: i32,
        filter: &'m [u8],
        bias: &'m [u8],
    },
    /// A DEPTHWISE_CONV_2D's filter in tap pairs for the DSP extension's multiplier path
    /// (`depthwise_conv_2d::tap_pair_word`): its filter read in place in the model. Not in
    /// an Armv6-M build (its flash: the micro:bit's all-operator image), which therefore
    /// refuses a DSP program that carries tap pairs (a program mismatch).
    #[cfg(not(synaptic_v6m))]
    DepthwisePairs {
        /// The filter's bytes.
        filter: &'m [u8],
        /// The window's taps.
        taps: usize,
        /// Output channels.
        out_d: usize,
        /// Entries.
        len: usize,
    },
    /// Words computed one at a time by the kernel's own function (SignalRfft's and
    /// SignalIrfft's kissfft tables: `word(arg, c)` is `kissfft::table_word` of the sample
    /// type for `fft_length` and the direction; ELU's int8
    /// lookup table from its tensors' quantizations). A function pointer set by the
    /// operator's `prepare`, so that an image without that kernel links none of its code.
    Computed {
        /// Entries.
        len: usize,
        /// Entry `c` of the table for `arg`.
        word: fn([u32; 4], usize) -> Option<u32>,
        /// The table's parameters (up to four words, the function's to read).
        arg: [u32; 4],
    },
}

impl<'m> Constants<'m> {
    /// Entries.
    pub(crate) fn len(&self) -> usize {
        match self {
            Constants::None => 0,
            Constants::FoldedBiases { rows, .. } => *rows,
            Constants::Computed { len, .. } => *len,
            #[cfg(not(synaptic_v6m))]
            Constants::DepthwisePairs { len, .. } => *len,
        }
    }

    /// Each entry in order, given to `f` (`None`: an entry that cannot be derived), up to
    /// the first error `f` returns. One loop over the entries, not a call an entry: a folded
    /// bias of a short row costs its few bytes, not the entry's setup again.
    pub(crate) fn each<E>(&self, mut f: impl FnMut(Option<i32>) -> Result<(), E>) -> Result<(), E> {
        match self {
            Constants::None => Ok(()),
            Constants::FoldedBiases {
                rows: od,
                depth: d,
                input_offset: io,
                filter,
                bias,
            } => {
                let (od, d, io) = (*od, *d, *io);
                let rows = od.checked_mul(d).and_then(|n| filter.get(..n));
                match rows {
                    // The usual operator, its filter and bias whole: one pass over the rows,
                    // the checks of `folded_bias` made once for all of them (a short row
                    // costs its bytes, not its checks: hello_world_int8's 16 rows of one).
                    Some(rows) if d > 0 && (bias.is_empty() || bias.len() / 4 >= od) => {
                        let sum = |row: &[u8]| {
                            if d < 8 {
                                row.iter()
                                    .fold(0i32, |a, &v| a.wrapping_add(i32::from(v as i8)))
                            } else {
                                crate::ops::common::int8_sum(row)
                            }
                        };
                        if bias.is_empty() {
                            for row in rows.chunks_exact(d) {
                                f(Some(io.wrapping_mul(sum(row))))?;
                            }
                        } else {
                            // (At least `od` words of bias: checked above.)
                            for (row, w) in rows.chunks_exact(d).zip(bias.chunks_exact(4)) {
                                let k = i32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                                f(Some(k.wrapping_add(io.wrapping_mul(sum(row)))))?;
                            }
                        }
                        Ok(())
                    }
                    _ => {
                        let bias = (!bias.is_empty()).then_some(LeI32(bias));
                        (0..od)
                            .try_for_each(|c| f(folded_bias(filter, bias.as_ref(), od, d, io, c)))
                    }
                }
            }
            Constants::Computed { word, arg, len } => {
                (0..*len).try_for_each(|c| f(word(*arg, c).map(|w| w as i32)))
            }
            #[cfg(not(synaptic_v6m))]
            Constants::DepthwisePairs {
                filter,
                taps,
                out_d,
                len,
            } => depthwise_pairs(filter, *taps, *out_d, *len, f),
        }
    }
}

/// [`Constants::each`] of a depthwise filter's tap pairs: the words in order
/// (`depthwise_conv_2d::tap_pair_word`'s, the tests' definition), the filter's rows sliced
/// once a pair. Apart (not inlined): the
/// folded biases' loop in `each` keeps its sink inlined (hello_world_int8's load +700
/// instructions with this arm in the same frame).
#[cfg(not(synaptic_v6m))]
#[cold]
#[inline(never)]
fn depthwise_pairs<E>(
    filter: &[u8],
    taps: usize,
    out_d: usize,
    len: usize,
    mut f: impl FnMut(Option<i32>) -> Result<(), E>,
) -> Result<(), E> {
    let whole = taps.checked_mul(out_d).and_then(|n| filter.get(..n));
    // A filter shorter than its shape or a length not its pairs' (never, for a prepared
    // operator): no word can be derived.
    let (Some(filter), true) = (whole, len == (out_d / 4) * taps.div_ceil(2) * 4) else {
        return (0..len).try_for_each(|_| f(None));
    };
    let half = |b: u8| u32::from(b as i8 as i16 as u16);
    for q in 0..out_d / 4 {
        let mut rows = filter.chunks_exact(out_d);
        while let Some(r0) = rows.next() {
            let r0 = &r0[4 * q..4 * q + 4];
            let r1 = rows.next().map(|r| &r[4 * q..4 * q + 4]);
            for j in 0..4 {
                let top = r1.map_or(0, |r| half(r[j]) << 16);
                f(Some((half(r0[j]) | top) as i32))?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::Constants;
    use crate::ops::common::LeI32;
    use crate::ops::matmul::fully_connected::FullyConnectedParams;
    use std::vec::Vec;

    /// The one-pass fold equals `folded_bias` row by row, whatever the filter, the bias
    /// (none, short, long) and the row length.
    #[test]
    fn each_folds_as_folded_bias() {
        let mut x = 0x9E37_79B9u32;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        for od in [0usize, 1, 2, 3, 16] {
            for d in [0usize, 1, 3, 7, 8, 9, 16, 600] {
                for bias_len in [0usize, od.saturating_sub(1), od, od + 2] {
                    for short_filter in [false, true] {
                        let n = (od * d).saturating_sub(short_filter as usize);
                        let filter: Vec<u8> = (0..n).map(|_| next() as u8).collect();
                        let bias: Vec<u8> = (0..4 * bias_len).map(|_| next() as u8).collect();
                        let params = FullyConnectedParams {
                            batches: 1,
                            accum_depth: d,
                            output_depth: od,
                            input_offset: (next() % 256) as i32 - 127,
                            filter_offset: 0,
                            output_offset: 0,
                            per_channel: false,
                            act_min: -128,
                            act_max: 127,
                        };
                        let c = Constants::FoldedBiases {
                            rows: od,
                            depth: d,
                            input_offset: params.input_offset,
                            filter: &filter,
                            bias: &bias,
                        };
                        let mut got = Vec::new();
                        let _ = c.each(|k| {
                            got.push(k);
                            k.map(drop).ok_or(())
                        });
                        let b = (!bias.is_empty()).then_some(LeI32(&bias[..]));
                        let mut want = Vec::new();
                        for oc in 0..od {
                            let k = params.folded_bias(&filter[..], b.as_ref(), oc);
                            want.push(k);
                            if k.is_none() {
                                break;
                            }
                        }
                        assert_eq!(
                            got, want,
                            "od {od} d {d} bias {bias_len} short {short_filter}"
                        );
                    }
                }
            }
        }
    }

    /// A depthwise filter's tap pairs, one pass, equal `tap_pair_word` word by word (odd and
    /// even windows; a short filter refused), and multiplied pairwise give each channel's
    /// window sum.
    #[test]
    fn depthwise_pairs_are_the_filter() {
        use crate::ops::conv::depthwise_conv_2d::tap_pair_word;
        let mut x = 0x2545_F491u32;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        for taps in [1usize, 2, 9, 80] {
            for out_d in [4usize, 8, 16] {
                for short in [false, true] {
                    let n = taps * out_d - usize::from(short);
                    let filter: Vec<u8> = (0..n).map(|_| next() as u8).collect();
                    let len = (out_d / 4) * taps.div_ceil(2) * 4;
                    let c = Constants::DepthwisePairs {
                        filter: &filter,
                        taps,
                        out_d,
                        len,
                    };
                    assert_eq!(c.len(), len);
                    let mut got = Vec::new();
                    let _ = c.each(|k| {
                        got.push(k);
                        k.map(drop).ok_or(())
                    });
                    if short {
                        // A filter shorter than its shape: no word (the first refused).
                        assert_eq!(got, [None], "taps {taps} out_d {out_d} short");
                        continue;
                    }
                    let want: Vec<_> = (0..len)
                        .map(|i| tap_pair_word(&filter, taps, out_d, i).map(|w| w as i32))
                        .collect();
                    assert_eq!(got, want, "taps {taps} out_d {out_d}");
                    // Σ_t v[t]·w[t][c] by the pairs, for window values within ±255.
                    let v: Vec<i32> = (0..taps).map(|_| (next() % 511) as i32 - 255).collect();
                    let pairs = taps.div_ceil(2);
                    for c in 0..out_d {
                        let want: i32 = (0..taps)
                            .map(|t| v[t] * i32::from(filter[t * out_d + c] as i8))
                            .sum();
                        let (q, j) = (c / 4, c % 4);
                        let got: i32 = (0..pairs)
                            .map(|k| {
                                let w = got[(q * pairs + k) * 4 + j].unwrap() as u32;
                                let (lo, hi) = (w as u16 as i16, (w >> 16) as u16 as i16);
                                let v1 = v.get(2 * k + 1).copied().unwrap_or(0);
                                v[2 * k] * i32::from(lo) + v1 * i32::from(hi)
                            })
                            .sum();
                        assert_eq!(got, want, "taps {taps} out_d {out_d} channel {c}");
                    }
                }
            }
        }
    }
}
