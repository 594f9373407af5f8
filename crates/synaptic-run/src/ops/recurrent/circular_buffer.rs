//! CIRCULAR_BUFFER (int8): TFLM's `kernels/circular_buffer.cc` (`circular_buffer_common.cc`),
//! the custom operator of strided streaming convolutions: each invocation its input (one
//! `depth` row) joins the end of a window of `num_slots` rows, the oldest leaving, and the
//! window is the output; then, unless this is every `cycles_max`-th invocation, it stops the
//! inference ([`KernelError::Abort`]: TFLM's `kTfLiteAbort`, the later operators not run).
//!
//! TFLM keeps the window in the output tensor itself (its bytes across invocations) and the
//! countdown in its operator data; here both are the private state (`Kernel::PRIVATE_STATE`:
//! the invocations since the last complete one, then the window), zeroed at load and by a
//! state reset, and the output a copy of the window. The window's rows before the first
//! `num_slots` invocations are zeros (TFLM's: whatever its arena held there).
//!
//! Without options (or `cycles_max` ≤ 0) TFLM picks `cycles_max` from the output's shape: 1
//! for 5, 13 or 25 slots, else 2 — except for a `[., ., 2, 96]` output, where it also counts
//! the operators it prepared before in the process (a static counter): refused, undefined.
//!
//! Guarantees: refused at load unless input and output are rank-4 int8, the input `[1, 1, h,
//! w]` and the output `[1, num_slots, h, w]` with `num_slots` ≥ 1 (TFLM shifts only the first
//! batch, and a window of no slot moves a negative length).

use synaptic_tflite::flexbuffers::FlexMap;
use synaptic_tflite::TensorType;

use crate::error::{KernelError, LoadError, Operand, ShapeFault, Unsupported};
use crate::ops::signal;
use crate::ops::{custom_code, Kernel, Operands, Prep, Prepared};

/// The custom operator this module prepares.
pub const BUILTINS: &[i32] = &[CODE];

/// Its operator code.
pub(crate) const CODE: i32 = custom_code("CIRCULAR_BUFFER");

/// A prepared CIRCULAR_BUFFER.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CircularBufferParams {
    /// Bytes a row (`h · w`).
    pub(crate) depth: usize,
    /// Rows of the window (`num_slots`).
    pub(crate) slots: usize,
    /// Every `cycles` invocations the inference goes on (`cycles_max`, ≥ 1).
    pub(crate) cycles: u32,
}

/// Prepares CIRCULAR_BUFFER.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, 1)?;
    let (x, out) = (cx.input(0)?, cx.output()?);
    cx.activation_of(&x, Operand::Input(0), TensorType::Int8)?;
    cx.activation_of(&out, Operand::Output, TensorType::Int8)?;
    if x.rank != 4 || out.rank != 4 {
        return Err(cx.unsupported(Unsupported::Rank));
    }
    let (xs, os) = (x.shape(), out.shape());
    if xs[0] != 1 || os[0] != 1 || xs[1] != 1 || os[1] == 0 || xs[2..] != os[2..] {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let (depth, slots) = (xs[2] * xs[3], os[1]);
    // `cycles_max`: the options' (TFLM reads entry 0 of a map given), else from the shape.
    let options = cx.op().custom_options()?;
    let given = if options.is_empty() {
        0
    } else {
        let m = FlexMap::root(options).ok_or(cx.unsupported(Unsupported::CustomOptions))?;
        signal::int(cx, &m, 0, "cycles_max")?
    };
    let cycles = match given {
        c if c > 0 => c as u32,
        _ if os[2] == 2 && os[3] == 96 => return Err(cx.unsupported(Unsupported::CustomOptions)),
        _ if matches!(slots, 5 | 13 | 25) => 1,
        _ => 2,
    };
    signal::state_bytes(1, &[slots, depth], 1).ok_or_else(|| cx.shape(ShapeFault::SizeDiffers))?;
    Prepared::of::<CircularBuffer>(
        cx,
        CircularBufferParams {
            depth,
            slots,
            cycles,
        },
    )
}

/// The CIRCULAR_BUFFER kernel.
pub struct CircularBuffer;

impl Kernel for CircularBuffer {
    const NAME: &'static str = "CIRCULAR_BUFFER";
    type Params = CircularBufferParams;
    const MAX_INPUTS: usize = 1;
    const STATE: bool = true;
    const PRIVATE_STATE: bool = true;
    const ABORTS: bool = true;

    fn private_state_bytes(p: &CircularBufferParams) -> usize {
        4 + p.slots * p.depth
    }

    fn run(p: &CircularBufferParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.bytes(0);
        let Operands { states, out, .. } = io;
        let failed = || signal::failed(Self::NAME);
        let state = states[0].as_deref_mut().ok_or_else(failed)?;
        let out = out.bytes_mut();
        let (count, window) = state.split_at_mut_checked(4).ok_or_else(failed)?;
        let n = p.slots * p.depth;
        if x.len() != p.depth || out.len() != n || window.len() != n {
            return Err(failed());
        }
        window.copy_within(p.depth.., 0);
        window[n - p.depth..].copy_from_slice(x);
        out.copy_from_slice(window);
        // TFLM's countdown from `cycles_max`: the invocations since the last complete one.
        let done = signal::word(count, 0).wrapping_add(1);
        if done >= p.cycles {
            signal::set_word(count, 0, 0);
            Ok(())
        } else {
            signal::set_word(count, 0, done);
            Err(KernelError::Abort { op: Self::NAME })
        }
    }
}

crate::format::codec::words!(CircularBufferParams {
    depth: usize,
    slots: usize,
    cycles: u32,
});
