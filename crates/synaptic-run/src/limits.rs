//! The runtime's limits and its one size rule, below everything that uses them.

use crate::error::{KernelError, ShapeFault};

/// Most graph inputs plus outputs a model may have.
pub const MAX_IO: usize = 8;
/// Most variable tensors (state kept across invocations: SVDF, LSTM) a model may have.
pub const MAX_STATE: usize = 8;
/// Most outputs an operator may have: two for a kernel that writes both in one run
/// (SignalFftAutoScale's output and scale, the spectral subtraction's output and noise
/// estimate), this many for one that runs once per output (SPLIT, SPLIT_V, UNPACK:
/// `Kernel::PER_OUTPUT`), the program record's bound.
pub const MAX_OP_OUTPUTS: usize = 16;
/// Most outputs a kernel writes in one run (its views).
pub const MAX_RUN_OUTPUTS: usize = 2;
/// Most inputs an operator may have (UNIDIRECTIONAL_SEQUENCE_LSTM's 24).
pub const MAX_OP_INPUTS: usize = 24;
/// Most of an operator's inputs that may be activations (planned tensors, or graph I/O in
/// the SHARED region): CONCATENATION's limit here. The others are constants, state or absent.
pub const MAX_OP_ACTIVATIONS: usize = 16;
/// Most distinct planned tensors one kernel run may touch (inputs and outputs).
pub const MAX_OP_TENSORS: usize = MAX_OP_ACTIVATIONS + MAX_RUN_OUTPUTS;
/// The largest tensor rank the kernels accept (TFLM's broadcast and transpose limit).
pub const MAX_DIMS: usize = 6;

/// The largest element (and byte) count of a tensor the runtime accepts: TFLM's sizes are
/// `int`. The loader refuses a tensor and every parameter constructor a shape whose dimensions
/// multiply (zeros counted as 1) beyond it ([`extent`], [`size`]), so no product of a
/// kernel's dimensions or loop indices can overflow `usize` on a 32-bit target.
pub const MAX_TENSOR_SIZE: usize = i32::MAX as usize;

/// The product of `shape`'s dimensions with zeros counted as 1 (the largest any partial product
/// of them reaches), if it is at most [`MAX_TENSOR_SIZE`].
///
/// ```
/// use synaptic_run::limits::extent;
/// assert_eq!(extent(&[2, 0, 3]), Some(6));
/// assert_eq!(extent(&[1 << 16, 1 << 16]), None);
/// ```
pub fn extent(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |acc, &d| {
        acc.checked_mul(d.max(1)).filter(|&e| e <= MAX_TENSOR_SIZE)
    })
}

/// Elements of a tensor of `shape`, or a shape error of `op` if its [`extent`] is beyond
/// [`MAX_TENSOR_SIZE`] (the one size rule of every parameter constructor).
// Load-time code called from many operators: one copy (flash), not one per caller.
#[inline(never)]
pub fn size(op: &'static str, shape: &[usize]) -> Result<usize, KernelError> {
    extent(shape).ok_or(KernelError::shape(op, ShapeFault::Overflow))?;
    Ok(shape.iter().product())
}
