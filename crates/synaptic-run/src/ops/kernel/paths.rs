//! Paths: the variants of a kernel a model's operators take, so an image links only those
//! (issue 40), as [`crate::ops::OpSet::KINDS`] links only the model's kernels.
//!
//! Guarantees:
//! - A kernel chooses among its paths from its parameters and its program record alone
//!   (each kernel's `paths`), never from the data: a program's paths
//!   ([`crate::program::paths`]) are every path its inferences take.
//! - A path bit describes the parameters, not the instruction set: the same program's mask
//!   serves every target (each target's code for those parameters is linked under the bit).
//! - An image whose [`crate::ops::OpSet::PATHS`] leaves a record's path out refuses the program at
//!   load ([`crate::Unsupported::NotLinked`], naming the operator), and a kernel given such
//!   parameters anyway refuses them with that error itself: a path not linked is never
//!   taken by another, and nothing runs wrong.
//! - [`crate::ops::AllOps`], and an [`crate::ops::OpSet`] that does not name its paths, link every one.
//!
//! The bits, one list (a program's mask is their union over its records):

/// FULLY_CONNECTED with its bias read from the model (no folded constants in the record).
pub const FC_BIAS: u64 = 1 << 0;
/// FULLY_CONNECTED with the program's folded constants (input offset and bias in one).
pub const FC_FOLDED: u64 = 1 << 1;
/// FULLY_CONNECTED whose rows are too long for the row buffer
/// ([`crate::ops::matmul::fully_connected::FC_ROW_BUFFER`]): in place, re-read at every output.
pub const FC_LONG_ROWS: u64 = 1 << 2;
/// CONV_2D, a 1×1 filter without groups over at most 320 input channels (the gathered
/// window's bound: two pixels at a time where the ISA pairs them).
pub const CONV_POINTWISE: u64 = 1 << 3;
/// CONV_2D, a 1×1 filter without groups over more input channels.
pub const CONV_POINTWISE_DEEP: u64 = 1 << 4;
/// CONV_2D, another filter without groups of at most 320 weights (its windows gathered, two
/// pixels at a time where the ISA pairs them).
pub const CONV_GATHERED: u64 = 1 << 5;
/// CONV_2D, any other filter (grouped, or more weights): four filters of a group at a time.
pub const CONV_GENERAL: u64 = 1 << 6;

/// DEPTHWISE_CONV_2D by its row kernel (a multiplier of 1 or of fours, channels a multiple
/// of four, a window of at most 25 taps, no dilation across).
pub const DW_ROWS: u64 = 1 << 7;
/// DEPTHWISE_CONV_2D otherwise, a multiplier over 1 (each input channel's window gathered
/// once for its outputs).
pub const DW_MULTIPLIER: u64 = 1 << 8;
/// DEPTHWISE_CONV_2D otherwise, a multiplier of 1 (channels four or a block at a time).
pub const DW_CHANNELS: u64 = 1 << 9;

/// Every path bit above (an [`crate::ops::OpSet::PATHS`] of exactly these links every path; the
/// rest of the word is for paths to come).
pub const ALL: u64 = (1 << 10) - 1;

/// Whether `L` leaves out one of the paths `needs()` gives (the one rule; `needs` not called
/// where `L` links every path).
#[inline(always)]
pub(crate) fn refused<L: crate::ops::OpSet>(needs: impl FnOnce() -> u64) -> bool {
    L::PATHS != u64::MAX && needs() & !L::PATHS != 0
}

/// Refuses parameters whose paths `needs` ([`crate::ops::Kernel::paths`]) `L` does not link
/// ([`refused`]); nothing where `L` links every path.
#[inline(always)]
pub(crate) fn linked<L: crate::ops::OpSet>(
    op: &'static str,
    needs: u64,
) -> Result<(), crate::error::KernelError> {
    if refused::<L>(|| needs) {
        return Err(crate::error::KernelError::unsupported(
            op,
            crate::error::Unsupported::NotLinked,
        ));
    }
    Ok(())
}

/// Whether the image links any of the paths `bits` (`L::PATHS`: a constant).
#[inline(always)]
pub(crate) fn has<L: crate::ops::OpSet>(bits: u64) -> bool {
    L::PATHS & bits != 0
}

/// `flag`, which is true for the paths `yes` and false for `no` (the only ones that come
/// where it is asked): a constant where the image links only one side's (a kernel refuses
/// another path's parameters at entry, [`linked`]), so the other side's code is not linked.
#[inline(always)]
pub(crate) fn pick<L: crate::ops::OpSet>(flag: bool, yes: u64, no: u64) -> bool {
    if !has::<L>(yes) {
        false
    } else if !has::<L>(no) {
        true
    } else {
        flag
    }
}

/// Every path's name (its constant's), as `SYNAPTIC_RUN_PATHS` and `synmem emit` spell it.
pub const NAMES: [(&str, u64); 10] = [
    ("FC_BIAS", FC_BIAS),
    ("FC_FOLDED", FC_FOLDED),
    ("FC_LONG_ROWS", FC_LONG_ROWS),
    ("CONV_POINTWISE", CONV_POINTWISE),
    ("CONV_POINTWISE_DEEP", CONV_POINTWISE_DEEP),
    ("CONV_GATHERED", CONV_GATHERED),
    ("CONV_GENERAL", CONV_GENERAL),
    ("DW_ROWS", DW_ROWS),
    ("DW_MULTIPLIER", DW_MULTIPLIER),
    ("DW_CHANNELS", DW_CHANNELS),
];

/// The path named `name` (one of [`NAMES`]), or `None`.
///
/// ```
/// use synaptic_run::ops::paths;
/// assert_eq!(paths::of_name("FC_FOLDED"), Some(paths::FC_FOLDED));
/// assert_eq!(paths::of_name("FC"), None);
/// ```
pub fn of_name(name: &str) -> Option<u64> {
    NAMES.iter().find(|(n, _)| *n == name).map(|&(_, bit)| bit)
}

/// The names of the paths in `mask`, in [`NAMES`] order.
///
/// ```
/// use synaptic_run::ops::paths;
/// let m = paths::CONV_POINTWISE | paths::DW_ROWS;
/// assert!(paths::names(m).eq(["CONV_POINTWISE", "DW_ROWS"]));
/// ```
pub fn names(mask: u64) -> impl Iterator<Item = &'static str> {
    NAMES
        .iter()
        .filter(move |(_, bit)| mask & bit != 0)
        .map(|&(n, _)| n)
}

const _: () = {
    let mut all = 0;
    let mut i = 0;
    while i < NAMES.len() {
        assert!(all & NAMES[i].1 == 0, "one bit a path");
        all |= NAMES[i].1;
        i += 1;
    }
    assert!(all == ALL, "every path named");
};
