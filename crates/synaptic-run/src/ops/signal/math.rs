//! Bit-exact integer arithmetic of TFLM's signal library (`signal/src/`) and of the `Eval` loops
//! of its kernels (`signal/micro/kernels/`): the audio front end's `SignalWindow`,
//! `SignalFftAutoScale`, `SignalEnergy`, `SignalFilterBank`, `SignalFilterBankSquareRoot`,
//! `SignalFilterBankSpectralSubtraction`, `SignalPCAN` and `SignalFilterBankLog`.
//!
//! Every function works on whole tensors (slices) the way the kernel's `Eval` does, checks the
//! lengths and parameters it relies on up front and returns `Err(())` instead of reading or
//! writing out of bounds, and never panics. C's integer semantics are reproduced explicitly:
//! unsigned arithmetic wraps, signed right shifts are arithmetic (as GCC/Clang do), narrowing
//! conversions truncate modulo 2^n, and where the C has signed overflow (undefined behaviour)
//! the port wraps, as the generated code does on the targets TFLM builds for. Shift amounts are
//! validated: a shift that would be undefined in C (negative, or not less than the width of the
//! shifted type) makes the function return `Err(())`.
//!
//! `MostSignificantBit32` is ported as TFLM builds it with GCC/Clang (`32 - __builtin_clz(x)`,
//! and 32 for `x == 0`), which only matters for an all-zero `SignalFftAutoScale` input.

/// `kPcanSnrBits` (`pcan_argc_fixed.h`).
const PCAN_SNR_BITS: u32 = 12;
/// `kPcanOutputBits` (`pcan_argc_fixed.h`).
const PCAN_OUTPUT_BITS: u32 = 6;

/// Entries of the PCAN gain look-up table that `WideDynamicFunction` can read: indices
/// `0..=2` for inputs up to 2, and `4 * interval - 6 + {0, 1, 2}` for `interval` (the most
/// significant bit of the input) up to 32, so up to index 124.
pub const PCAN_GAIN_LUT_LEN: usize = 125;

/// `kLogLut` of `signal/src/log.cc`, copied as it is in TFLM's source.
const LOG_LUT: [u16; 130] = [
    0, 224, 442, 654, 861, 1063, 1259, 1450, 1636, 1817, 1992, 2163, 2329, 2490, 2646, 2797, 2944,
    3087, 3224, 3358, 3487, 3611, 3732, 3848, 3960, 4068, 4172, 4272, 4368, 4460, 4549, 4633, 4714,
    4791, 4864, 4934, 5001, 5063, 5123, 5178, 5231, 5280, 5326, 5368, 5408, 5444, 5477, 5507, 5533,
    5557, 5578, 5595, 5610, 5622, 5631, 5637, 5640, 5641, 5638, 5633, 5626, 5615, 5602, 5586, 5568,
    5547, 5524, 5498, 5470, 5439, 5406, 5370, 5332, 5291, 5249, 5203, 5156, 5106, 5054, 5000, 4944,
    4885, 4825, 4762, 4697, 4630, 4561, 4490, 4416, 4341, 4264, 4184, 4103, 4020, 3935, 3848, 3759,
    3668, 3575, 3481, 3384, 3286, 3186, 3084, 2981, 2875, 2768, 2659, 2549, 2437, 2323, 2207, 2090,
    1971, 1851, 1729, 1605, 1480, 1353, 1224, 1094, 963, 830, 695, 559, 421, 282, 142, 0, 0,
];
/// `kLogSegmentsLog2` (`log.cc`).
const LOG_SEGMENTS_LOG2: u32 = 7;
/// `kLogScale` (`log.cc`).
const LOG_SCALE: u32 = 65536;
/// `kLogScaleLog2` (`log.cc`).
const LOG_SCALE_LOG2: u32 = 16;
/// `kLogCoeff` (`log.cc`).
const LOG_COEFF: u64 = 45426;

/// `MostSignificantBit32` (`msb_32.cc`, the `__GNUC__` branch): the 1-based index of the
/// highest set bit, and 32 (not 0) for `x == 0`.
fn most_significant_bit_32(x: u32) -> u32 {
    if x != 0 {
        32 - x.leading_zeros()
    } else {
        32
    }
}

/// `MostSignificantBit64` (`msb_64.cc`, the `__GNUC__` branch): 64 for `x == 0`.
fn most_significant_bit_64(x: u64) -> u32 {
    if x != 0 {
        64 - x.leading_zeros()
    } else {
        64
    }
}

/// `MaxAbs16` (`max_abs.cc`, the portable branch), including its quirk: `-value` of -32768 is
/// stored back into an `int16_t` as -32768, after which any later value greater than -32768
/// replaces the "maximum".
fn max_abs_16(input: &[i16]) -> i16 {
    let mut max: i16 = 0;
    for &value in input {
        if value > max {
            max = value;
        } else if -i32::from(value) > i32::from(max) {
            // C: `max = -value;` converts the int 32768 to int16_t: -32768.
            max = (-i32::from(value)) as i16;
        }
    }
    max
}

/// `Sqrt32` (`square_root_32.cc`): rounded integer square root, saturated to `u16`.
fn sqrt_32(mut num: u32) -> u16 {
    if num == 0 {
        return 0;
    }
    let mut res: u32 = 0;
    // num != 0, so the MSB is 1..=32 and max_bit_number is odd in 1..=31.
    let max_bit_number = (32 - most_significant_bit_32(num)) | 1;
    let mut bit: u32 = 1u32.wrapping_shl(31 - max_bit_number);
    let mut iterations = (31 - max_bit_number) / 2 + 1;
    while iterations > 0 {
        iterations -= 1;
        if num >= res.wrapping_add(bit) {
            num = num.wrapping_sub(res.wrapping_add(bit));
            res = (res >> 1).wrapping_add(bit);
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    if num > res && res != 0xFFFF {
        res = res.wrapping_add(1);
    }
    // C: `return res;` converts to uint16_t.
    res as u16
}

/// `Sqrt64` (`square_root_64.cc`): rounded integer square root, saturated to `u32`.
fn sqrt_64(mut num: u64) -> u32 {
    if (num >> 32) == 0 {
        return u32::from(sqrt_32(num as u32));
    }
    let mut res: u64 = 0;
    // num >= 2^32, so the MSB is 33..=64 and max_bit_number is odd in 1..=31.
    let max_bit_number = (64 - most_significant_bit_64(num)) | 1;
    let mut bit: u64 = 1u64.wrapping_shl(63 - max_bit_number);
    let mut iterations = (63 - max_bit_number) / 2 + 1;
    while iterations > 0 {
        iterations -= 1;
        if num >= res.wrapping_add(bit) {
            num = num.wrapping_sub(res.wrapping_add(bit));
            res = (res >> 1).wrapping_add(bit);
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    if num > res && res != 0xFFFF_FFFF {
        res = res.wrapping_add(1);
    }
    // C: `return res;` converts to uint32_t.
    res as u32
}

/// `Log2FractionPart32` (`log.cc`) for `x > 1` and `log2x = MostSignificantBit32(x) - 1`.
fn log2_fraction_part_32(x: u32, log2x: u32) -> u32 {
    // C: `int32_t frac = x - (1LL << log2x);` in [0, 2^31).
    let mut frac: i32 = (i64::from(x) - (1i64 << (log2x & 31))) as i32;
    if log2x < LOG_SCALE_LOG2 {
        frac = frac.wrapping_shl(LOG_SCALE_LOG2 - log2x);
    } else {
        frac = frac.wrapping_shr(log2x - LOG_SCALE_LOG2);
    }
    // frac < 2^16 here, so base_seg <= 127 and both table reads are in bounds; the mask only
    // makes that evident.
    let base_seg = ((frac >> (LOG_SCALE_LOG2 - LOG_SEGMENTS_LOG2)) as u32) & 0x7F;
    let seg_unit = (1u32 << LOG_SCALE_LOG2) >> LOG_SEGMENTS_LOG2;
    let c0 = i32::from(LOG_LUT[base_seg as usize]);
    let c1 = i32::from(LOG_LUT[base_seg as usize + 1]);
    let seg_base = seg_unit.wrapping_mul(base_seg) as i32;
    let rel_pos = (c1 - c0).wrapping_mul(frac.wrapping_sub(seg_base)) >> LOG_SCALE_LOG2;
    frac.wrapping_add(c0).wrapping_add(rel_pos) as u32
}

/// `Log32` (`log.cc`): `out_scale * ln(x)` in Q16 rounding, for `x > 1`.
fn log_32(x: u32, out_scale: u32) -> u32 {
    let integer = most_significant_bit_32(x).wrapping_sub(1);
    let fraction = log2_fraction_part_32(x, integer);
    let log2 = (integer << (LOG_SCALE_LOG2 & 31)).wrapping_add(fraction);
    let round = LOG_SCALE / 2;
    let loge = (LOG_COEFF
        .wrapping_mul(u64::from(log2))
        .wrapping_add(u64::from(round))
        >> LOG_SCALE_LOG2) as u32;
    out_scale.wrapping_mul(loge).wrapping_add(round) >> LOG_SCALE_LOG2
}

/// `WideDynamicFunction` (`pcan_argc_fixed.cc`); `lut` has at least [`PCAN_GAIN_LUT_LEN`]
/// entries (checked by the caller), so the reads succeed; a miss would read 0.
fn wide_dynamic_function(x: u32, lut: &[i16]) -> i16 {
    let at = |i: usize| lut.get(i).copied().unwrap_or(0);
    if x <= 2 {
        return at(x as usize);
    }
    // x > 2: interval in 2..=32.
    let interval = most_significant_bit_32(x);
    let base = (4 * interval - 6) as usize;
    let frac_bits = if interval < 11 {
        x.wrapping_shl(11 - interval)
    } else {
        x.wrapping_shr(interval - 11)
    };
    let frac = i32::from((frac_bits & 0x3FF) as i16);
    let mut result: i32 = i32::from(at(base + 2)).wrapping_mul(frac) >> 5;
    // C: `(int32_t)((uint32_t)lut[1] << 5)`.
    result = result.wrapping_add(((i32::from(at(base + 1)) as u32) << 5) as i32);
    // Cannot overflow for int16 table values (|result| < 2^31 / 1023), wrapping regardless.
    result = result.wrapping_mul(frac);
    result = result.wrapping_add(1 << 14) >> 15;
    result = result.wrapping_add(i32::from(at(base)));
    // C: `return (int16_t)result;` truncates.
    result as i16
}

/// `PcanShrink` (`pcan_argc_fixed.cc`).
fn pcan_shrink(x: u32) -> u32 {
    if x < (2 << PCAN_SNR_BITS) {
        x.wrapping_mul(x) >> (2 + 2 * PCAN_SNR_BITS - PCAN_OUTPUT_BITS)
    } else {
        (x >> (PCAN_SNR_BITS - PCAN_OUTPUT_BITS)).wrapping_sub(1 << PCAN_OUTPUT_BITS)
    }
}

/// Whether `shift` is a valid `SignalWindow` `shift` option: `0..=31` (the C shifts an
/// `int32_t` by it). `SignalWindow`'s Init/Prepare check nothing about it.
pub fn window_check(shift: i32) -> bool {
    (0..=31).contains(&shift)
}

/// `SignalWindow` (`WindowEval` over `ApplyWindow`): for each row of `weights.len()` values of
/// `input`, `output = clamp_i16((input * weight) >> shift)` (arithmetic shift of the `int32`
/// product).
///
/// Writes `output[..input.len()]`; a longer `output` keeps its tail untouched (TFLM sizes the
/// loop by the input).
///
/// # Errors
///
/// `Err(())` if `shift` is outside `0..=31`, `weights` is empty (TFLM would loop forever), the
/// input length is not a multiple of `weights.len()` (TFLM would read past the input), or
/// `output` is shorter than `input`.
// `Err(())` carries no detail: the caller maps it to its own kernel error.
#[allow(clippy::result_unit_err)]
pub fn window_i16(
    input: &[i16],
    weights: &[i16],
    shift: i32,
    output: &mut [i16],
) -> Result<(), ()> {
    if !window_check(shift)
        || weights.is_empty()
        || input.len() % weights.len() != 0
        || output.len() < input.len()
    {
        return Err(());
    }
    let shift = shift as u32;
    for (in_row, out_row) in input
        .chunks_exact(weights.len())
        .zip(output.chunks_exact_mut(weights.len()))
    {
        for ((&x, &w), out) in in_row.iter().zip(weights).zip(out_row.iter_mut()) {
            // |x * w| <= 2^30: no overflow.
            let raw = (i32::from(x) * i32::from(w)) >> shift;
            *out = raw.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
        }
    }
    Ok(())
}

/// `SignalFftAutoScale` (`FftAutoScaleEval` over `FftAutoScale`): the largest left shift that
/// keeps `MaxAbs16(input)` within `int16`, applied to every element; returns the shift (the
/// kernel's second output, `int32` scalar).
///
/// The size is the output's length (`output->dims->data[0]`, as in TFLM); `output` is fully
/// written. Reproduces TFLM exactly, quirks included: an all-zero input returns 0 (GCC/Clang
/// `MostSignificantBit32(0) == 32`), and because `MaxAbs16` stores `-(-32768)` as -32768, an
/// input containing -32768 may yield a "maximum" smaller than the true one and a shift that
/// makes some elements wrap (the products are truncated to `int16`, as in C).
///
/// # Errors
///
/// `Err(())` if `input` is shorter than `output`.
// `Err(())` carries no detail: the caller maps it to its own kernel error.
#[allow(clippy::result_unit_err)]
pub fn fft_auto_scale_i16(input: &[i16], output: &mut [i16]) -> Result<i32, ()> {
    let input = input.get(..output.len()).ok_or(())?;
    let max = max_abs_16(input);
    // C: `MostSignificantBit32(max)` converts the int16_t to uint32_t (sign-extending).
    let msb = most_significant_bit_32(i32::from(max) as u32) as i32;
    let scale_bits = (16 - msb - 1).max(0);
    // scale_bits is in 0..=14 here.
    for (out, &x) in output.iter_mut().zip(input) {
        // C: `input[i] * (1 << scale_bits)` as int, then converted to int16_t; |x| * 2^14 fits.
        *out = (i32::from(x) << (scale_bits as u32 & 31)) as i16;
    }
    Ok(scale_bits)
}

/// Whether `start_index`/`end_index` are valid `SignalEnergy` options for an input of
/// `input_len` `int16` values (`input_len / 2` complex bins) and an output of `output_len`
/// values: either the range is empty (`start_index >= end_index`, nothing is written), or
/// `0 <= start_index < end_index <= min(input_len / 2, output_len)`. TFLM's Prepare checks none
/// of this.
pub fn energy_check(start_index: i32, end_index: i32, input_len: usize, output_len: usize) -> bool {
    if start_index >= end_index {
        return true;
    }
    let (Ok(start), Ok(end)) = (usize::try_from(start_index), usize::try_from(end_index)) else {
        return false;
    };
    start < end && end <= input_len / 2 && end <= output_len
}

/// `SignalEnergy` (`EnergyEval` over `SpectrumToEnergy`): for `i` in
/// `start_index..end_index`, `output[i] = re^2 + im^2` of the complex bin
/// `(input[2 * i], input[2 * i + 1])`.
///
/// **Only `output[start_index..end_index]` is written**: TFLM leaves every other element of the
/// output tensor unwritten (whatever the arena held), and so does this function. The sum is
/// computed in `int32` in C and overflows (undefined behaviour) only for
/// `re = im = -32768`; this port wraps, giving `2^31`, as the generated code does.
///
/// # Errors
///
/// `Err(())` if [`energy_check`] fails.
// `Err(())` carries no detail: the caller maps it to its own kernel error.
#[allow(clippy::result_unit_err)]
pub fn energy(
    input: &[i16],
    start_index: i32,
    end_index: i32,
    output: &mut [u32],
) -> Result<(), ()> {
    if !energy_check(start_index, end_index, input.len(), output.len()) {
        return Err(());
    }
    if start_index >= end_index {
        return Ok(());
    }
    let (start, end) = (start_index as usize, end_index as usize);
    let bins = input.get(2 * start..2 * end).ok_or(())?;
    let out = output.get_mut(start..end).ok_or(())?;
    for (o, c) in out.iter_mut().zip(bins.chunks_exact(2)) {
        let (re, im) = match c {
            [re, im] => (i32::from(*re), i32::from(*im)),
            _ => (0, 0),
        };
        // Signed overflow in C (UB) only for re = im = -32768: wraps.
        *o = re.wrapping_mul(re).wrapping_add(im.wrapping_mul(im)) as u32;
    }
    Ok(())
}

/// Whether a `SignalFilterBank` configuration is one TFLM evaluates without reading out of
/// bounds: `num_channels >= 0`; `channel_frequency_starts`, `channel_weight_starts` and
/// `channel_widths` have at least `num_channels + 1` entries; and for each of those channels
/// with a positive width, the start indices are non-negative and
/// `frequency_start + width <= input_len`, `weight_start + width <= weights_len` and
/// `<= unweights_len`. TFLM's Prepare checks none of this (only ranks and types).
pub fn filter_bank_check(
    input_len: usize,
    weights_len: usize,
    unweights_len: usize,
    channel_frequency_starts: &[i16],
    channel_weight_starts: &[i16],
    channel_widths: &[i16],
    num_channels: i32,
) -> bool {
    let Ok(n) = usize::try_from(num_channels) else {
        return false;
    };
    let Some(channels) = n.checked_add(1) else {
        return false;
    };
    if channel_frequency_starts.len() < channels
        || channel_weight_starts.len() < channels
        || channel_widths.len() < channels
    {
        return false;
    }
    channel_frequency_starts
        .iter()
        .zip(channel_weight_starts)
        .zip(channel_widths)
        .take(channels)
        .all(|((&freq, &weight), &width)| {
            if width <= 0 {
                return true;
            }
            let (Ok(freq), Ok(weight)) = (usize::try_from(freq), usize::try_from(weight)) else {
                return false;
            };
            let width = width as usize;
            freq + width <= input_len
                && weight + width <= weights_len
                && weight + width <= unweights_len
        })
}

/// `SignalFilterBank` (`FilterBankEval` over `FilterbankAccumulateChannels`): triangular mel
/// filter bank accumulation into `u64`.
///
/// As in the classic microfrontend, `num_channels + 1` channels are accumulated (channel `i`
/// gets the weighted sum of its bins plus the unweighted sum of channel `i - 1`'s bins), and
/// channel 0 is scratch: the kernel copies `work_area[1..]` into the output, as many values as
/// the output has. So `output[k]` is channel `k + 1`, for `k < output.len()`, and `output` must
/// not be longer than `num_channels` (TFLM would copy past its work area). Products are C's
/// `int16_t * uint64_t` (the weight sign-extended to `uint64_t`), wrapping, and so are the
/// accumulators.
///
/// # Errors
///
/// `Err(())` if [`filter_bank_check`] fails or `output.len() > num_channels`.
// `Err(())` carries no detail: the caller maps it to its own kernel error.
#[allow(clippy::too_many_arguments, clippy::result_unit_err)]
pub fn filter_bank(
    input: &[u32],
    weights: &[i16],
    unweights: &[i16],
    channel_frequency_starts: &[i16],
    channel_weight_starts: &[i16],
    channel_widths: &[i16],
    num_channels: i32,
    output: &mut [u64],
) -> Result<(), ()> {
    let n = output.len();
    filter_bank_to(
        input,
        [weights, unweights],
        [
            channel_frequency_starts,
            channel_weight_starts,
            channel_widths,
        ],
        num_channels,
        n,
        |i, v| output[i] = v,
    )
}

/// [`filter_bank`] writing output `i` (`i < outputs`) through `put(i, value)` (a tensor of
/// 64-bit values held as bytes): `weights` are the weights and unweights, `channels` the
/// channel frequency starts, weight starts and widths.
#[allow(clippy::result_unit_err)]
pub fn filter_bank_to(
    input: &[u32],
    [weights, unweights]: [&[i16]; 2],
    [channel_frequency_starts, channel_weight_starts, channel_widths]: [&[i16]; 3],
    num_channels: i32,
    outputs: usize,
    mut put: impl FnMut(usize, u64),
) -> Result<(), ()> {
    if !filter_bank_check(
        input.len(),
        weights.len(),
        unweights.len(),
        channel_frequency_starts,
        channel_weight_starts,
        channel_widths,
        num_channels,
    ) || outputs > num_channels as usize
    {
        return Err(());
    }
    let mut weight_accumulator: u64 = 0;
    let mut unweight_accumulator: u64 = 0;
    let mut out = 0..outputs;
    let channels = channel_frequency_starts
        .iter()
        .zip(channel_weight_starts)
        .zip(channel_widths)
        .take(num_channels as usize + 1);
    for (i, ((&freq, &weight), &width)) in channels.enumerate() {
        if width > 0 {
            let (freq, weight, width) = (freq as usize, weight as usize, width as usize);
            let x = input.get(freq..freq + width).ok_or(())?;
            let w = weights.get(weight..weight + width).ok_or(())?;
            let u = unweights.get(weight..weight + width).ok_or(())?;
            for ((&x, &w), &u) in x.iter().zip(w).zip(u) {
                let x = u64::from(x);
                weight_accumulator =
                    weight_accumulator.wrapping_add((i64::from(w) as u64).wrapping_mul(x));
                unweight_accumulator =
                    unweight_accumulator.wrapping_add((i64::from(u) as u64).wrapping_mul(x));
            }
        }
        if i > 0 {
            match out.next() {
                Some(o) => put(o, weight_accumulator),
                None => break,
            }
        }
        weight_accumulator = unweight_accumulator;
        unweight_accumulator = 0;
    }
    Ok(())
}

/// Whether `scale_bits` is a valid `SignalFilterBankSquareRoot` scale (its second input, a
/// runtime `int32` scalar, normally `SignalFftAutoScale`'s output, 0..=14): `0..=31` (the C
/// shifts a `uint32_t` by it).
pub fn filter_bank_square_root_check(scale_bits: i32) -> bool {
    (0..=31).contains(&scale_bits)
}

/// `SignalFilterBankSquareRoot` (`FilterBankSquareRootEval` over `FilterbankSqrt`):
/// `output[i] = Sqrt64(input[i]) >> scale_bits` (rounded square root saturated to `u32`).
///
/// Writes `output[..input.len()]` (TFLM sizes the loop by the input); a longer output keeps its
/// tail untouched.
///
/// # Errors
///
/// `Err(())` if `scale_bits` is outside `0..=31` or `output` is shorter than `input`.
// `Err(())` carries no detail: the caller maps it to its own kernel error.
#[allow(clippy::result_unit_err)]
pub fn filter_bank_square_root(
    input: &[u64],
    scale_bits: i32,
    output: &mut [u32],
) -> Result<(), ()> {
    filter_bank_square_root_from(input.len(), |i| input[i], scale_bits, output)
}

/// [`filter_bank_square_root`] of `n` inputs read through `get(i)` (a tensor of 64-bit
/// values held as bytes).
#[allow(clippy::result_unit_err)]
pub fn filter_bank_square_root_from(
    n: usize,
    get: impl Fn(usize) -> u64,
    scale_bits: i32,
    output: &mut [u32],
) -> Result<(), ()> {
    if !filter_bank_square_root_check(scale_bits) || output.len() < n {
        return Err(());
    }
    let shift = scale_bits as u32;
    for (i, o) in output.iter_mut().enumerate().take(n) {
        *o = sqrt_64(get(i)).wrapping_shr(shift);
    }
    Ok(())
}

/// `SignalFilterBankSpectralSubtraction`'s options as its Init stores them in
/// `SpectralSubtractionConfig` (each read with `ElementAsInt32`, then converted to the field's
/// type; `clamping` with `ElementAsBool`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpectralSubtractionParams {
    /// `num_channels`: channels processed (and the noise estimate's length).
    pub num_channels: i32,
    /// `smoothing`: coefficient of the new signal on even channels.
    pub smoothing: u32,
    /// `one_minus_smoothing`: coefficient of the old estimate on even channels.
    pub one_minus_smoothing: u32,
    /// `min_signal_remaining`: floor of the output, relative to the input.
    pub min_signal_remaining: u32,
    /// `alternate_smoothing`: coefficient of the new signal on odd channels.
    pub alternate_smoothing: u32,
    /// `alternate_one_minus_smoothing`: coefficient of the old estimate on odd channels.
    pub alternate_one_minus_smoothing: u32,
    /// `smoothing_bits`: left shift of the input before smoothing (`0..=31`).
    pub smoothing_bits: u32,
    /// `spectral_subtraction_bits`: right shift after the coefficient products (`0..=63`).
    pub spectral_subtraction_bits: u32,
    /// `clamping`: whether the estimate is clamped to the scaled signal.
    pub clamping: bool,
}

/// Whether `params` are ones TFLM evaluates without undefined behaviour: `num_channels >= 0`,
/// `smoothing_bits <= 31` (it shifts a `uint32_t`), `spectral_subtraction_bits <= 63` (it
/// shifts a `uint64_t`). TFLM's Init/Prepare check none of this.
pub fn filter_bank_spectral_subtraction_check(params: &SpectralSubtractionParams) -> bool {
    params.num_channels >= 0
        && params.smoothing_bits <= 31
        && params.spectral_subtraction_bits <= 63
}

/// `SignalFilterBankSpectralSubtraction` (`FilterBankSpectralSubtractionEval` over
/// `FilterbankSpectralSubtraction`): updates the smoothed noise estimate of each of the
/// `num_channels` channels and writes the noise-subtracted signal, floored at
/// `input * min_signal_remaining >> spectral_subtraction_bits`.
///
/// `noise_estimate` is the kernel's persistent state (its first `num_channels` values are
/// read and updated); TFLM zeroes it in Prepare and in Reset, so the caller must zero it
/// before the first call and on reset. After each Eval, the kernel also copies the estimate
/// into its second output tensor (`noise_estimate` output, as many bytes as that tensor has,
/// from a `num_channels`-long buffer): this function does not, the caller does. Writes
/// `output[..num_channels]`; a longer output keeps its tail untouched. Arithmetic is
/// `uint32_t`/`uint64_t`, wrapping (the sum of the two `u64` products can wrap).
///
/// # Errors
///
/// `Err(())` if [`filter_bank_spectral_subtraction_check`] fails or `input`, `output` or
/// `noise_estimate` is shorter than `num_channels`.
// `Err(())` carries no detail: the caller maps it to its own kernel error.
#[allow(clippy::result_unit_err)]
pub fn filter_bank_spectral_subtraction(
    params: &SpectralSubtractionParams,
    input: &[u32],
    noise_estimate: &mut [u32],
    output: &mut [u32],
) -> Result<(), ()> {
    if !filter_bank_spectral_subtraction_check(params) {
        return Err(());
    }
    let n = params.num_channels as usize;
    if input.len() < n || output.len() < n || noise_estimate.len() < n {
        return Err(());
    }
    let smoothing_bits = params.smoothing_bits;
    let ss_bits = params.spectral_subtraction_bits;
    let channels = input
        .iter()
        .zip(noise_estimate.iter_mut())
        .zip(output.iter_mut())
        .take(n);
    for (i, ((&x, estimate), out)) in channels.enumerate() {
        let (smoothing, one_minus_smoothing) = if i & 1 == 0 {
            (params.smoothing, params.one_minus_smoothing)
        } else {
            (
                params.alternate_smoothing,
                params.alternate_one_minus_smoothing,
            )
        };
        let signal_scaled_up = x.wrapping_shl(smoothing_bits);
        *estimate = (u64::from(signal_scaled_up)
            .wrapping_mul(u64::from(smoothing))
            .wrapping_add(u64::from(*estimate).wrapping_mul(u64::from(one_minus_smoothing)))
            .wrapping_shr(ss_bits)) as u32;
        let mut estimate_scaled_up = *estimate;
        if estimate_scaled_up > signal_scaled_up {
            estimate_scaled_up = signal_scaled_up;
            if params.clamping {
                *estimate = estimate_scaled_up;
            }
        }
        let floor = (u64::from(x)
            .wrapping_mul(u64::from(params.min_signal_remaining))
            .wrapping_shr(ss_bits)) as u32;
        let subtracted = signal_scaled_up
            .wrapping_sub(estimate_scaled_up)
            .wrapping_shr(smoothing_bits);
        *out = subtracted.max(floor);
    }
    Ok(())
}

/// Whether `snr_shift` and a gain table of `gain_lut_len` entries are valid `SignalPCAN`
/// parameters: `snr_shift` in `0..=63` (the C shifts a `uint64_t` by it) and at least
/// [`PCAN_GAIN_LUT_LEN`] table entries (TFLM reads up to index 124 for inputs with the top bit
/// set). TFLM's Prepare checks neither.
pub fn pcan_check(snr_shift: i32, gain_lut_len: usize) -> bool {
    (0..=63).contains(&snr_shift) && gain_lut_len >= PCAN_GAIN_LUT_LEN
}

/// `SignalPCAN` (`PcanEval` over `ApplyPcanAutoGainControlFixed`): per-channel automatic gain
/// control, `output[i] = PcanShrink((input[i] * gain(noise_estimate[i])) >> snr_shift)`.
///
/// TFLM copies the input into the output (as many bytes as the output has) and then applies
/// the gain in place on `input.len()` channels; with equal lengths (required here) that is
/// exactly computing each output from the input. The `int16` gain from `WideDynamicFunction`
/// is converted to `uint32_t` as in C (a negative gain sign-extends), and the
/// `uint64_t` product shifted by `snr_shift` is truncated to `uint32_t`.
///
/// # Errors
///
/// `Err(())` if [`pcan_check`] fails, `output.len() != input.len()` (TFLM would read or write
/// out of bounds), or `noise_estimate` is shorter than `input`.
// `Err(())` carries no detail: the caller maps it to its own kernel error.
#[allow(clippy::result_unit_err)]
pub fn pcan(
    input: &[u32],
    noise_estimate: &[u32],
    gain_lut: &[i16],
    snr_shift: i32,
    output: &mut [u32],
) -> Result<(), ()> {
    if !pcan_check(snr_shift, gain_lut.len())
        || output.len() != input.len()
        || noise_estimate.len() < input.len()
    {
        return Err(());
    }
    let shift = snr_shift as u32;
    for ((o, &x), &noise) in output.iter_mut().zip(input).zip(noise_estimate) {
        let gain = i32::from(wide_dynamic_function(noise, gain_lut)) as u32;
        let snr = (u64::from(x)
            .wrapping_mul(u64::from(gain))
            .wrapping_shr(shift)) as u32;
        *o = pcan_shrink(snr);
    }
    Ok(())
}

/// Whether `input_correction_bits` is a valid `SignalFilterBankLog` option: `0..=31` (the C
/// shifts a `uint32_t` by it). Any `output_scale` is valid (it is used as `uint32_t`,
/// multiplying with wrap-around). TFLM's Init/Prepare check nothing.
pub fn filter_bank_log_check(input_correction_bits: i32) -> bool {
    (0..=31).contains(&input_correction_bits)
}

/// `SignalFilterBankLog` (`FilterBankLogEval` over `FilterbankLog` and `Log32`):
/// `output[i] = min(Log32(input[i] << input_correction_bits, output_scale), 32767)`, and 0 where
/// the shifted input (wrapping, `uint32_t`) is 0 or 1.
///
/// Writes `output[..input.len()]` (TFLM sizes the loop by the input); a longer output keeps its
/// tail untouched.
///
/// # Errors
///
/// `Err(())` if `input_correction_bits` is outside `0..=31` or `output` is shorter than `input`.
// `Err(())` carries no detail: the caller maps it to its own kernel error.
#[allow(clippy::result_unit_err)]
pub fn filter_bank_log(
    input: &[u32],
    output_scale: i32,
    input_correction_bits: i32,
    output: &mut [i16],
) -> Result<(), ()> {
    if !filter_bank_log_check(input_correction_bits) || output.len() < input.len() {
        return Err(());
    }
    let bits = input_correction_bits as u32;
    let out_scale = output_scale as u32;
    for (o, &x) in output.iter_mut().zip(input) {
        let scaled = x.wrapping_shl(bits);
        *o = if scaled > 1 {
            log_32(scaled, out_scale).min(i16::MAX as u32) as i16
        } else {
            0
        };
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    //! Golden cases captured from TFLM's C++ (`signal/src/*.cc` compiled with g++, driven by
    //! the kernels' Eval loops) on inputs from the xorshift generators below, plus length and
    //! parameter errors.
    extern crate std;
    use super::*;
    use std::vec;
    use std::vec::Vec;

    /// xorshift64 (13, 7, 17).
    struct X(u64);
    impl X {
        fn next(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x
        }
        /// A value of random bit width.
        fn narrow(&mut self) -> u64 {
            let s = self.next() % 64;
            self.next() >> s
        }
    }

    /// FNV-1a 64 over little-endian bytes.
    fn fnv(bytes: impl Iterator<Item = u8>) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        h
    }

    fn gen_window() -> (Vec<i16>, Vec<i16>) {
        let mut r = X(1);
        let input = (0..960).map(|_| r.next() as i16).collect();
        let weights = (0..480).map(|_| (r.next() >> 52) as i16).collect();
        (input, weights)
    }

    fn gen_fft_auto_scale() -> Vec<i16> {
        let mut r = X(2);
        (0..480).map(|_| (r.next() as i16) >> 4).collect()
    }

    fn gen_energy() -> Vec<i16> {
        let mut r = X(3);
        (0..514).map(|_| r.next() as i16).collect()
    }

    /// Input, weights, unweights, frequency starts, weight starts, widths (8 channels + 1).
    fn gen_filter_bank() -> [Vec<i16>; 5] {
        let mut r = X(4);
        let weights = (0..40).map(|_| r.next() as i16).collect();
        let unweights = (0..40).map(|_| (r.next() >> 52) as i16).collect();
        let freq = (0..9).map(|i| 2 * i + 1).collect();
        let wstart = (0..9).map(|i| 4 * i).collect();
        let widths = (0..9).map(|i| (i % 5) as i16).collect();
        [weights, unweights, freq, wstart, widths]
    }

    fn gen_filter_bank_input() -> Vec<u32> {
        let mut r = X(44);
        (0..32).map(|_| r.next() as u32).collect()
    }

    fn gen_sqrt() -> Vec<u64> {
        let mut r = X(5);
        (0..40).map(|_| r.narrow()).collect()
    }

    fn gen_spectral_frames() -> Vec<Vec<u32>> {
        let mut r = X(6);
        (0..3)
            .map(|_| (0..40).map(|_| (r.next() >> 48) as u32).collect())
            .collect()
    }

    fn gen_pcan() -> (Vec<u32>, Vec<u32>, Vec<i16>) {
        let mut r = X(7);
        let input = (0..40).map(|_| r.narrow() as u32).collect();
        let noise = (0..40).map(|_| r.narrow() as u32).collect();
        let lut = (0..125).map(|_| r.next() as i16).collect();
        (input, noise, lut)
    }

    fn gen_log() -> Vec<u32> {
        let mut r = X(8);
        (0..40).map(|_| r.narrow() as u32).collect()
    }

    fn h16(v: &[i16]) -> u64 {
        fnv(v.iter().flat_map(|x| x.to_le_bytes()))
    }
    fn h32(v: &[u32]) -> u64 {
        fnv(v.iter().flat_map(|x| x.to_le_bytes()))
    }
    fn h64(v: &[u64]) -> u64 {
        fnv(v.iter().flat_map(|x| x.to_le_bytes()))
    }

    #[test]
    fn window_golden() {
        let (input, weights) = gen_window();
        let mut out = vec![0i16; 960];
        window_i16(&input, &weights, 12, &mut out).unwrap();
        assert_eq!(out[..6], [380, 3241, 2218, -22599, -19113, 1465]);
        assert_eq!(h16(&out), 0xf8bd_f0b8_a175_085e);
        window_i16(&input, &weights, 3, &mut out).unwrap();
        assert_eq!(out[..6], [32767, 32767, 32767, -32768, -32768, 32767]);
        assert_eq!(h16(&out), 0xbc71_da6d_b714_31ac);
    }

    #[test]
    fn window_errors() {
        let mut out = [0i16; 4];
        assert!(window_i16(&[1; 4], &[], 0, &mut out).is_err());
        assert!(window_i16(&[1; 4], &[1; 3], 0, &mut out).is_err());
        assert!(window_i16(&[1; 4], &[1; 2], 0, &mut out[..3]).is_err());
        assert!(window_i16(&[1; 4], &[1; 2], 32, &mut out).is_err());
        assert!(window_i16(&[1; 4], &[1; 2], -1, &mut out).is_err());
        assert!(window_i16(&[1; 4], &[1; 2], 31, &mut out).is_ok());
    }

    #[test]
    fn fft_auto_scale_golden() {
        let input = gen_fft_auto_scale();
        let mut out = vec![0i16; 480];
        assert_eq!(fft_auto_scale_i16(&input, &mut out), Ok(4));
        assert_eq!(out[..6], [16512, 10368, 26640, 12352, 4256, -19968]);
        assert_eq!(h16(&out), 0x3ed5_4734_f6bf_d947);
        // MaxAbs16's -32768 quirk: the "maximum" ends as 7, the shift wraps elements.
        let mut out = [0i16; 4];
        assert_eq!(fft_auto_scale_i16(&[100, -32768, 5, -7], &mut out), Ok(12));
        assert_eq!(out, [16384, 0, 20480, -28672]);
        let mut out = [0i16; 3];
        assert_eq!(fft_auto_scale_i16(&[-32768, 1, -2], &mut out), Ok(13));
        assert_eq!(out, [0, 8192, -16384]);
        let mut out = [9i16; 3];
        assert_eq!(fft_auto_scale_i16(&[0; 3], &mut out), Ok(0));
        assert_eq!(out, [0; 3]);
        assert!(fft_auto_scale_i16(&[1; 2], &mut out).is_err());
    }

    #[test]
    fn energy_golden() {
        let input = gen_energy();
        let mut out = vec![0xDEAD_BEEFu32; 257];
        energy(&input, 5, 241, &mut out).unwrap();
        // Outside 5..241 the output is left as it was.
        assert!(out[..5]
            .iter()
            .chain(&out[241..])
            .all(|&x| x == 0xDEAD_BEEF));
        assert_eq!(out[5..9], [766231306, 543668680, 1246081444, 378514420]);
        assert_eq!(h32(&out), 0x6e07_968d_1abc_ba42);
        let mut out = [0u32; 1];
        energy(&[-32768, -32768], 0, 1, &mut out).unwrap();
        assert_eq!(out, [2147483648]);
    }

    #[test]
    fn energy_errors() {
        let mut out = [0u32; 4];
        assert!(energy(&[0; 8], 0, 5, &mut out).is_err());
        assert!(energy(&[0; 6], 0, 4, &mut out).is_err());
        assert!(energy(&[0; 8], -1, 2, &mut out).is_err());
        assert!(energy(&[0; 8], 0, 4, &mut out[..3]).is_err());
        assert!(energy(&[0; 8], 3, 1, &mut out).is_ok());
        assert!(energy(&[0; 8], -7, -9, &mut out).is_ok());
    }

    #[test]
    fn filter_bank_golden() {
        let [weights, unweights, freq, wstart, widths] = gen_filter_bank();
        let input = gen_filter_bank_input();
        let mut out = vec![0u64; 8];
        filter_bank(
            &input, &weights, &unweights, &freq, &wstart, &widths, 8, &mut out,
        )
        .unwrap();
        assert_eq!(
            out[..6],
            [
                29163075081702,
                18446682564333028484,
                33398769110546,
                140800049468563,
                17905722117098,
                18446639161374321199
            ]
        );
        assert_eq!(h64(&out), 0xab3a_7b8d_11b2_8e9d);
        // A shorter output gets the first channels.
        let mut short = vec![0u64; 3];
        filter_bank(
            &input, &weights, &unweights, &freq, &wstart, &widths, 8, &mut short,
        )
        .unwrap();
        assert_eq!(short[..], out[..3]);
    }

    #[test]
    fn filter_bank_errors() {
        let [weights, unweights, freq, wstart, widths] = gen_filter_bank();
        let input = gen_filter_bank_input();
        let mut out = vec![0u64; 9];
        let (w, u, f, s, d) = (&weights, &unweights, &freq, &wstart, &widths);
        assert!(filter_bank(&input, w, u, f, s, d, 8, &mut out).is_err());
        assert!(filter_bank(&input, w, u, f, s, d, 9, &mut out).is_err());
        assert!(filter_bank(&input, w, u, f, s, d, -1, &mut out[..0]).is_err());
        assert!(filter_bank(&input[..10], w, u, f, s, d, 8, &mut out[..8]).is_err());
        assert!(filter_bank(&input, &w[..20], u, f, s, d, 8, &mut out[..8]).is_err());
        assert!(filter_bank(&input, w, &u[..20], f, s, d, 8, &mut out[..8]).is_err());
        let mut neg = freq.clone();
        neg[1] = -1;
        assert!(filter_bank(&input, w, u, &neg, s, d, 8, &mut out[..8]).is_err());
    }

    #[test]
    fn filter_bank_square_root_golden() {
        let input = gen_sqrt();
        let mut out = vec![0u32; 40];
        filter_bank_square_root(&input, 3, &mut out).unwrap();
        assert_eq!(out[..6], [53055860, 535780, 8080, 1, 36889652, 1]);
        assert_eq!(h32(&out), 0x8f69_7b33_5117_a8ad);
        let mut out = [0u32; 7];
        let edge = [u64::MAX, (1 << 32) - 1, 0, 1, 2, 3, 4];
        filter_bank_square_root(&edge, 0, &mut out).unwrap();
        assert_eq!(out, [4294967295, 65535, 0, 1, 1, 2, 2]);
        assert!(filter_bank_square_root(&edge, 32, &mut out).is_err());
        assert!(filter_bank_square_root(&edge, -1, &mut out).is_err());
        assert!(filter_bank_square_root(&edge, 0, &mut out[..6]).is_err());
    }

    const MODEL_SS: SpectralSubtractionParams = SpectralSubtractionParams {
        num_channels: 40,
        smoothing: 409,
        one_minus_smoothing: 15975,
        min_signal_remaining: 819,
        alternate_smoothing: 983,
        alternate_one_minus_smoothing: 15401,
        smoothing_bits: 10,
        spectral_subtraction_bits: 14,
        clamping: false,
    };

    fn run_spectral(params: &SpectralSubtractionParams) -> (Vec<u32>, Vec<u32>) {
        let mut noise = vec![0u32; 40];
        let mut outs = Vec::new();
        for frame in gen_spectral_frames() {
            let mut out = vec![0u32; 40];
            filter_bank_spectral_subtraction(params, &frame, &mut noise, &mut out).unwrap();
            outs.extend(out);
        }
        (outs, noise)
    }

    #[test]
    fn spectral_subtraction_golden() {
        let (outs, noise) = run_spectral(&MODEL_SS);
        assert_eq!(outs[..6], [0, 23102, 22533, 34143, 60800, 15627]);
        assert_eq!(h32(&outs), 0x735e_1cb9_31d6_97fc);
        assert_eq!(
            noise[..6],
            [2300688, 7608106, 2339612, 7390892, 2660567, 2825505]
        );
        assert_eq!(h32(&noise), 0xd01a_db6c_cb75_08a4);
        let clamping = SpectralSubtractionParams {
            clamping: true,
            ..MODEL_SS
        };
        let (outs, noise) = run_spectral(&clamping);
        assert_eq!(h32(&outs), 0x735e_1cb9_31d6_97fc);
        assert_eq!(
            noise[..6],
            [2300688, 7608106, 2339612, 7390892, 891904, 1231872]
        );
        assert_eq!(h32(&noise), 0x8032_7b3c_91bf_f1e1);
    }

    #[test]
    fn spectral_subtraction_errors() {
        let (input, mut noise, mut out) = ([1u32; 40], [0u32; 40], [0u32; 40]);
        let p = MODEL_SS;
        assert!(filter_bank_spectral_subtraction(&p, &input[..39], &mut noise, &mut out).is_err());
        assert!(filter_bank_spectral_subtraction(&p, &input, &mut noise[..39], &mut out).is_err());
        assert!(filter_bank_spectral_subtraction(&p, &input, &mut noise, &mut out[..39]).is_err());
        for bad in [
            SpectralSubtractionParams {
                num_channels: -1,
                ..p
            },
            SpectralSubtractionParams {
                smoothing_bits: 32,
                ..p
            },
            SpectralSubtractionParams {
                spectral_subtraction_bits: 64,
                ..p
            },
        ] {
            assert!(filter_bank_spectral_subtraction(&bad, &input, &mut noise, &mut out).is_err());
        }
    }

    #[test]
    fn pcan_golden() {
        let (input, noise, lut) = gen_pcan();
        let mut out = vec![0u32; 40];
        pcan(&input, &noise, &lut, 6, &mut out).unwrap();
        assert_eq!(
            out[..6],
            [50360321, 5401461, 1777810, 66492609, 59099689, 10998]
        );
        assert_eq!(h32(&out), 0xdf45_15b7_c18a_b219);
        assert!(pcan(&input, &noise, &lut[..124], 6, &mut out).is_err());
        assert!(pcan(&input, &noise[..39], &lut, 6, &mut out).is_err());
        assert!(pcan(&input, &noise, &lut, 6, &mut out[..39]).is_err());
        assert!(pcan(&input[..39], &noise, &lut, 6, &mut out).is_err());
        assert!(pcan(&input, &noise, &lut, 64, &mut out).is_err());
        assert!(pcan(&input, &noise, &lut, -1, &mut out).is_err());
    }

    #[test]
    fn filter_bank_log_golden() {
        let input = gen_log();
        let mut out = vec![0i16; 40];
        filter_bank_log(&input, 64, 3, &mut out).unwrap();
        assert_eq!(out[..6], [1377, 1383, 1308, 1419, 1361, 526]);
        assert_eq!(h16(&out), 0xfb4e_3cf2_d110_09b4);
        filter_bank_log(&input, 1 << 20, 0, &mut out).unwrap();
        assert_eq!(out[..6], [15296, 32767, 32767, 32767, 19408, 15600]);
        assert_eq!(h16(&out), 0x88c6_b053_020e_5cd4);
        assert!(filter_bank_log(&input, 64, 32, &mut out).is_err());
        assert!(filter_bank_log(&input, 64, -1, &mut out).is_err());
        assert!(filter_bank_log(&input, 64, 3, &mut out[..39]).is_err());
    }
}
