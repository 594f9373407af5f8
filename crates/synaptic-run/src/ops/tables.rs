//! The parts of a program record derived one entry at a time, so that compiling or verifying
//! a program needs no buffer for them: requantization tables ([`Table`]) and per-channel
//! accumulator constants ([`Constants`]).

use super::common::LeI32;
use super::fully_connected::FullyConnectedParams;
use crate::error::{KernelError, Unsupported};
use crate::math::channel_multiplier;
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
    /// One entry: a per-tensor FULLY_CONNECTED (its own derivation, the product in `float`).
    FullyConnected {
        params: FullyConnectedParams,
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
            Table::FullyConnected { .. } => 1,
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
            Table::FullyConnected {
                params,
                input,
                filter,
                output,
            } => {
                let (mut m, mut s) = ([0i32], [0i32]);
                params.multipliers(*input, &[*filter], *output, &mut m, &mut s)?;
                Ok((m[0], s[0]))
            }
        }
    }
}

/// An operator's per-output-channel accumulator constants (the tail of its program record),
/// derived one entry at a time like [`Table`].
#[derive(Clone, Copy)]
pub(crate) enum Constants<'m> {
    /// None (every kind but a foldable FULLY_CONNECTED).
    None,
    /// A FULLY_CONNECTED's folded biases ([`FullyConnectedParams::folded_bias`]):
    /// its filter and bias (empty: none) read in place in the model.
    FullyConnected {
        params: FullyConnectedParams,
        filter: &'m [u8],
        bias: &'m [u8],
    },
    /// Words computed one at a time by the kernel's own function (SignalRfft's kissfft
    /// tables: `word(arg, c)` is `kissfft::rfft_table_word(fft_length, c)`). A function
    /// pointer set by the operator's `prepare`, so that an image without that kernel links
    /// none of its code.
    Computed {
        /// Entries.
        len: usize,
        /// Entry `c` of the table for `arg`.
        word: fn(usize, usize) -> Option<u32>,
        /// The table's parameter.
        arg: usize,
    },
}

impl<'m> Constants<'m> {
    /// Entries.
    pub(crate) fn len(&self) -> usize {
        match self {
            Constants::None => 0,
            Constants::FullyConnected { params, .. } => params.output_depth,
            Constants::Computed { len, .. } => *len,
        }
    }

    /// Each entry in order, given to `f` (`None`: an entry that cannot be derived), up to
    /// the first error `f` returns. One loop over the entries, not a call an entry: a folded
    /// bias of a short row costs its few bytes, not the entry's setup again.
    pub(crate) fn each<E>(&self, mut f: impl FnMut(Option<i32>) -> Result<(), E>) -> Result<(), E> {
        match self {
            Constants::None => Ok(()),
            Constants::FullyConnected {
                params,
                filter,
                bias,
            } => {
                let bias = (!bias.is_empty()).then_some(LeI32(bias));
                (0..params.output_depth)
                    .try_for_each(|c| f(params.folded_bias(filter, bias.as_ref(), c)))
            }
            Constants::Computed { word, arg, len } => {
                (0..*len).try_for_each(|c| f(word(*arg, c).map(|w| w as i32)))
            }
        }
    }
}
