//! Overlapped execution (issue 12): a kernel with an access contract ([`crate::contract`])
//! run on **one** `&mut [u8]` buffer that holds both its input and its output, at byte offsets
//! [`InPlace::input`] and [`InPlace::output`], stepping through the output in
//! [`InPlace::direction`]. No aliasing `&`/`&mut` pair exists (the buffer is the only borrow)
//! and no `unsafe`: each step reads what it needs through `&buf`, computes the output element,
//! and only then writes it — exactly the model the contract describes ("step `j` reads
//! `[lo(j), hi(j)]`, then writes element `j`").
//!
//! Every in-place entry point (`Kernel::run_in_place` of the operators) first checks that both
//! tensors lie inside the buffer and that the delta `output − input` is safe in the requested
//! direction by the kernel's contract (`check`, [`crate::contract::SafeOverlap::safe`],
//! derived in O(n)); anything else is a [`KernelError`], never a wrong answer. Disjoint
//! placements are always accepted. The property tests (`in_place_tests.rs`) check every
//! entry point bit-identical to its plain kernel on random geometries and safe deltas — and
//! that deltas just outside the range do break.

use crate::contract::{Contract, Direction};
use crate::error::{KernelError, Operand, Unsupported};
use crate::ops::common::offset4;

/// Where the input and the output lie in the one buffer, and the direction to run in
/// ([`InPlace::new`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InPlace {
    /// Byte offset of the input.
    pub input: usize,
    /// Byte offset of the output.
    pub output: usize,
    /// The order of the output elements.
    pub direction: Direction,
    /// Whether the entry point checks the delta against the contract: always, outside this
    /// module's tests (which turn it off to show that unsafe deltas really break).
    verify: bool,
}

impl InPlace {
    /// Input at byte `input`, output at byte `output`, run in `direction`.
    pub const fn new(input: usize, output: usize, direction: Direction) -> InPlace {
        InPlace {
            input,
            output,
            direction,
            verify: true,
        }
    }

    /// Input at byte `input`, output at byte `output`, run in `direction`, the delta already
    /// checked against the kernel's contract (by the interpreter at load: its offsets come from
    /// the plan it checked, so the O(n) derivation is not repeated at every inference). The
    /// placement is still checked against the buffer.
    pub(crate) const fn checked_at_load(
        input: usize,
        output: usize,
        direction: Direction,
    ) -> InPlace {
        InPlace {
            input,
            output,
            direction,
            verify: false,
        }
    }

    /// `output − input` in bytes.
    pub fn delta(&self) -> i64 {
        self.output as i64 - self.input as i64
    }
}

/// Checks the placement against the buffer and the contract `c` makes, a contract that is
/// never a window (rows or elements: [`check_window`] for the convolutions and poolings; a
/// window here would be refused, [`Unsupported::OverlapTooLarge`]). Not inlined: the
/// contract lives in this frame only, never under the kernel that runs after it (on Armv6-M,
/// whose parts have the least flash, inlined: no copy per caller).
#[cfg_attr(not(synaptic_v6m), inline(never))]
pub(crate) fn check(
    op: &'static str,
    c: impl FnOnce() -> Contract,
    buf: &[u8],
    at: &InPlace,
) -> Result<(), KernelError> {
    check_with::<false>(op, c, buf, at)
}

/// [`check`] for a kernel whose contract is a window (the convolutions and poolings): an
/// image without such a kernel does not link the window's derivation.
#[cfg_attr(not(synaptic_v6m), inline(never))]
pub(crate) fn check_window(
    op: &'static str,
    c: impl FnOnce() -> Contract,
    buf: &[u8],
    at: &InPlace,
) -> Result<(), KernelError> {
    check_with::<true>(op, c, buf, at)
}

#[inline(always)]
fn check_with<const WINDOW: bool>(
    op: &'static str,
    c: impl FnOnce() -> Contract,
    buf: &[u8],
    at: &InPlace,
) -> Result<(), KernelError> {
    let c = &c();
    let fits =
        |start: usize, bytes: usize| start.checked_add(bytes).is_some_and(|e| e <= buf.len());
    let in_bytes = c.in_elems.saturating_mul(c.in_elem_bytes);
    let out_bytes = c.out_elems.saturating_mul(c.out_elem_bytes);
    if !fits(at.input, in_bytes) {
        return Err(KernelError::Length {
            op,
            operand: Operand::BufferInputEnd,
            expected: at.input.saturating_add(in_bytes),
            got: buf.len(),
        });
    }
    if !fits(at.output, out_bytes) {
        return Err(KernelError::Length {
            op,
            operand: Operand::BufferOutputEnd,
            expected: at.output.saturating_add(out_bytes),
            got: buf.len(),
        });
    }
    if !at.verify {
        return Ok(());
    }
    let safe = c
        .safe_overlap_in_kinds(at.direction, WINDOW)
        .ok_or(KernelError::unsupported(op, Unsupported::OverlapTooLarge))?;
    if !safe.safe(at.delta(), at.direction) {
        return Err(KernelError::unsupported(op, Unsupported::UnsafeOverlap));
    }
    Ok(())
}

/// Runs `n` steps in `dir`: step `j` computes output element `j` (`N` bytes) from `&buf`, then
/// writes it at `out + j·N`.
pub(crate) fn drive<const N: usize>(
    buf: &mut [u8],
    out: usize,
    n: usize,
    dir: Direction,
    mut f: impl FnMut(&[u8], usize) -> Result<[u8; N], KernelError>,
) -> Result<(), KernelError> {
    let mut step = |buf: &mut [u8], j: usize| -> Result<(), KernelError> {
        let v = f(buf, j)?;
        buf[out + j * N..out + (j + 1) * N].copy_from_slice(&v);
        Ok(())
    };
    match dir {
        Direction::Forward => (0..n).try_for_each(|j| step(buf, j)),
        Direction::Backward => (0..n).rev().try_for_each(|j| step(buf, j)),
    }
}

/// Input element `i` (int8) of the input at `at`.
#[inline(always)]
pub(crate) fn x8(buf: &[u8], at: usize, i: usize) -> i8 {
    buf[at + i] as i8
}

/// Input element `i` (float32, little-endian) of the input at `at`.
#[inline(always)]
pub(crate) fn x32(buf: &[u8], at: usize, i: usize) -> f32 {
    let b = &buf[at + 4 * i..at + 4 * i + 4];
    f32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// Writes output element `i` (float32, little-endian) of the output at `at`.
#[inline(always)]
pub(crate) fn put32(buf: &mut [u8], at: usize, i: usize, v: f32) {
    buf[at + 4 * i..at + 4 * i + 4].copy_from_slice(&v.to_le_bytes());
}

/// The order of `0..n` in `dir`: ascending (Forward) or descending (Backward).
#[inline(always)]
pub(crate) fn ordered(n: usize, dir: Direction) -> impl Iterator<Item = usize> {
    let back = dir == Direction::Backward;
    (0..n).map(move |i| if back { n - 1 - i } else { i })
}

/// Calls `f(b, oy, ox, first)` for every pixel of the NHWC output `shape` in `dir` (batches,
/// rows and columns all ascending, or all descending), `first` the offset of the pixel's first
/// channel: with the channels in `dir` inside, the elements in `dir` order.
#[inline(always)]
pub(crate) fn for_each_pixel(
    shape: &[usize; 4],
    dir: Direction,
    mut f: impl FnMut(usize, usize, usize, usize) -> Result<(), KernelError>,
) -> Result<(), KernelError> {
    let [batches, out_h, out_w, _] = *shape;
    for b in ordered(batches, dir) {
        for oy in ordered(out_h, dir) {
            for ox in ordered(out_w, dir) {
                f(b, oy, ox, offset4(shape, b, oy, ox, 0))?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "in_place_tests.rs"]
mod tests;
