//! Access contracts: in which order a kernel writes its output and which input bytes each output
//! element reads, and from that the **safe overlap** of an output with an input that dies at the
//! operator (issue 12).
//!
//! # The model of a kernel
//!
//! Every kernel with a contract is a loop over its output elements `j = 0 … n−1` (int8 elements
//! of the output, in row-major order) in one of two [`Direction`]s: forward (`0, 1, …, n−1`, what
//! the kernels of [`crate::ops`] do) or backward (`n−1, …, 0`). Step `j` first reads input
//! elements inside the inclusive range `[lo(j), hi(j)]` ([`Contract::reads`]; possibly none) and
//! then writes output element `j`; nothing else touches the input or the output. This is what the
//! kernels actually do, read off their loops:
//!
//! * CONV_2D ([`crate::ops::conv::conv_2d::conv2d`]) loops `b, oy, ox, oc` and computes *one output
//!   channel at a time*, re-reading the whole input window for each `oc`: output `(b, oy, ox, oc)`
//!   reads rows `oy·s_h − p_h … oy·s_h − p_h + (k_h−1)·d_h` (clipped to the input), columns
//!   likewise, channels `g·f_d … g·f_d + f_d − 1` of its group `g`. So the output pixel `p` must
//!   not overwrite input bytes still to be read **including the input pixel `p` itself** while
//!   later channels of `p` are pending — the contract says exactly that, since step `(p, oc+1)`
//!   reads the window again after step `(p, oc)` wrote.
//! * DEPTHWISE_CONV_2D loops `b, oy, ox, ic, m` writing channel `oc = ic·dm + m`, which is
//!   row-major order again; it reads input channel `ic = oc / dm` over the window.
//! * AVERAGE/MAX_POOL_2D loop `b, oy, ox, c`: channel `c` over the (clipped) window, dilation 1.
//! * FULLY_CONNECTED loops `b, oc`; output `(b, oc)` reads the whole input row `b`. The
//!   overlapped kernel copies rows of at most [`crate::ops::matmul::fully_connected::FC_ROW_BUFFER`] bytes to the stack at the row's
//!   first step (in its direction), so the row's other steps read nothing from the buffer.
//! * SOFTMAX reads its row `r` (two passes: maximum, sum of exponentials) before writing any of
//!   it, then element `(r, k)` reads `x[r, k]` again: element `(r, 0)` reads the row, `(r, k)`
//!   reads `(r, k)`. Only the forward direction exists (`D_f = 0`: in place).
//! * LOGISTIC, QUANTIZE (int8 → int8 and float32 → int8), DEQUANTIZE (int8 → float32) and ADD /
//!   MUL for an input of exactly the output's shape (no broadcasting on that input): element `j`
//!   reads input element `j`. Element sizes may differ (4-byte floats), so everything below is in
//!   bytes.
//! * RESHAPE / SQUEEZE: a byte copy (`j` reads `j`); at delta 0 the runtime may skip it (alias).
//!
//! Any other kernel (PAD fills its whole output before reading, CONCATENATION, TRANSPOSE, MEAN,
//! broadcast inputs of ADD/MUL) has **no contract** and gets no overlap.
//!
//! # The derivation
//!
//! Put the input at byte offset `I` and the output at `O` of one buffer, `d = O − I`. Writing
//! output element `j` (bytes `j·s_o … (j+1)·s_o − 1` of the output) overwrites input bytes
//! `j·s_o + d … (j+1)·s_o − 1 + d`. The input dies at this operator, so overwriting it is harmless
//! unless some **later step** still reads those bytes. The steps after `j` read input bytes
//! within `[L(j)·s_i, (H(j)+1)·s_i − 1]`, with, forward, `L(j) = min_{j' > j} lo(j')`, and,
//! backward, `H(j) = max_{j' < j} hi(j')`. So:
//!
//! * **forward** is safe if every write lands below every later read:
//!   `(j+1)·s_o + d ≤ L(j)·s_i` for all `j`, i.e. `d ≤ D_f = min_j (L(j)·s_i − (j+1)·s_o)`;
//! * **backward** is safe if every write lands above every later read:
//!   `j·s_o + d ≥ (H(j)+1)·s_i` for all `j`, i.e. `d ≥ D_b = max_j ((H(j)+1)·s_i − j·s_o)`.
//!
//! Both conditions are monotone in `d` (a smaller `d` keeps forward safe, a larger keeps backward
//! safe), so the safe deltas are `d ≤ D_f` (run forward) or `d ≥ D_b` (run backward), besides
//! full disjointness (`d ≤ −output bytes` or `d ≥ input bytes`). [`SafeOverlap`] holds `D_f` and
//! `D_b`; they are derived from the contract's read ranges ([`Contract::reads`]), never from a
//! hand table. The read ranges are bounding ranges (a window's first to last byte), a superset
//! of what is read, so the bounds are conservative.
//!
//! # Closed form
//!
//! A load derives the bound of every declared overlap, so the derivation must cost the
//! model's structure, not its elements (walking person_detect's elements took 86 M
//! instructions on a Cortex-M4). Since `s_o ≥ 0`, the pair `(j, j')` that matters for a
//! later step `j'` is the step right before it, which gives
//!
//! * `D_f = min { s_i·lo(j') − s_o·j' : 1 ≤ j' < n, j' reads }`, and
//! * `D_b = max { s_i·hi(j') − s_o·j' : 0 ≤ j' < n − 1, j' reads } + s_i − s_o`,
//!
//! no running minimum or maximum any more. Each term is a sum of one term per digit of `j` in
//! a mixed radix — a window's `j = ((b·oh + oy)·ow + ox)·oc + c` reads from
//! `lo = ((b·ih + y0(oy))·iw + x0(ox))·ic + c0(c)`, a row kernel's `j = r·out_row + k` from
//! `r·in_row` — so the best over a product of digit ranges is the sum of each digit's best,
//! and `1 ≤ j' < n` is a union of a few such products (the usual split of a range by its
//! digits). A digit's best is at the ends of its range where its term is affine (batches,
//! rows of a row kernel, element-wise kernels), else a scan of its values (a window's rows,
//! columns and channels, clipped by the padding): O(rows + columns + channels) a window,
//! O(1) otherwise ([`Contract::safe_overlap`]). The walk itself stays as the definition
//! ([`Contract::safe_overlap_by_walk`]) and a property test holds the two equal on random
//! contracts of every family, consistent or not (`tests/contract_props.rs`).
//!
//! Example (the issue's): person_detect's 1×1 CONV_2D from 48×48×8 to 48×48×16. Backward,
//! step `(p, c)` for `c ≥ 1` must write above input pixel `p` (still read by `(p, c−1)`):
//! `d ≥ 8p + 8 − (16p + c)`, largest at `p = 0, c = 1`: `D_b = 7`, so with 16-byte aligned
//! offsets the output starts 16 bytes after the input and the pair spans 36,880 B instead of
//! 55,296 B. Forward, `D_f = −18,439`: an expanding layer cannot overlap its input forward.

/// The order in which a kernel steps through its output elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// First element to last (row-major order): what the plain kernels do.
    Forward,
    /// Last element to first.
    Backward,
}

impl From<synaptic_mem::plan::OverlapDirection> for Direction {
    fn from(d: synaptic_mem::plan::OverlapDirection) -> Self {
        match d {
            synaptic_mem::plan::OverlapDirection::Forward => Direction::Forward,
            synaptic_mem::plan::OverlapDirection::Backward => Direction::Backward,
        }
    }
}

impl Direction {
    /// `"forward"` or `"backward"`.
    pub fn name(self) -> &'static str {
        match self {
            Direction::Forward => "forward",
            Direction::Backward => "backward",
        }
    }
}

/// Which input channels an output channel of a window kernel reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Channels {
    /// CONV_2D: output channel `oc` reads input channels `g·depth … g·depth + depth − 1`,
    /// `g = oc / filters_per_group`.
    Group {
        /// Filter depth (input channels per group).
        depth: usize,
        /// Output channels per group.
        filters_per_group: usize,
    },
    /// DEPTHWISE_CONV_2D: output channel `oc` reads input channel `oc / multiplier`.
    Depthwise {
        /// Depth multiplier.
        multiplier: usize,
    },
    /// Pooling: output channel `c` reads input channel `c`.
    Same,
}

/// A sliding-window kernel over NHWC tensors (convolutions, pooling).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Window {
    /// Input `[n, h, w, c]`.
    pub input: [usize; 4],
    /// Output `[n, oh, ow, oc]`.
    pub output: [usize; 4],
    /// Window `(height, width)`.
    pub kernel: (usize, usize),
    /// Strides `(h, w)`.
    pub stride: (usize, usize),
    /// Dilations `(h, w)`.
    pub dilation: (usize, usize),
    /// Padding before the input `(rows, columns)`.
    pub pad: (usize, usize),
    /// The channel map.
    pub channels: Channels,
}

impl Window {
    /// Inclusive range of input indices `[first, last]` read along one spatial axis by output
    /// position `o`, clipped to `0..size`; `None` if the window lies in the padding.
    fn axis(
        o: usize,
        stride: usize,
        pad: usize,
        k: usize,
        dil: usize,
        size: usize,
    ) -> Option<(usize, usize)> {
        // In 32-bit steps when every operand is below 2^15 (every model's: the products and
        // sums below then stay within 2^31), the same values as the 64-bit steps after.
        const SMALL: usize = 1 << 15;
        if o < SMALL && stride < SMALL && pad < SMALL && k < SMALL && dil < SMALL && size < SMALL {
            let [o, s, p, k, d, n] = [o, stride, pad, k, dil, size].map(|v| v as i32);
            let start = o * s - p;
            let over = |x: i32| if d == 1 { x } else { x / d };
            let f_first = if start >= 0 { 0 } else { over(-start + d - 1) };
            let last_in = n - 1 - start;
            if last_in < 0 {
                return None;
            }
            let f_last = over(last_in).min(k - 1);
            if f_first > f_last {
                return None;
            }
            return Some((
                (start + f_first * d) as usize,
                (start + f_last * d) as usize,
            ));
        }
        // (Armv6-M divides in calls either way, and its images keep the 64-bit division for
        // other uses: the 64-bit steps are smaller there.)
        #[cfg(synaptic_v6m)]
        return Self::axis_i64(o, stride, pad, k, dil, size);
        #[cfg(not(synaptic_v6m))]
        Self::axis_wide(o, stride, pad, k, dil, size)
    }

    /// [`Self::axis`] for any operands: 64-bit sums and products, but no 64-bit division
    /// (a call into a 64-bit division routine on a 32-bit core, linked for this path alone):
    /// every quotient is one of values that fit `usize`. The same values as the 64-bit
    /// steps ([`Self::axis_i64`], the tests).
    #[cfg_attr(synaptic_v6m, allow(dead_code))]
    fn axis_wide(
        o: usize,
        stride: usize,
        pad: usize,
        k: usize,
        dil: usize,
        size: usize,
    ) -> Option<(usize, usize)> {
        let os = o * stride;
        let start = os as i64 - pad as i64;
        // (A dilation of 1, the common one, divides by nothing.)
        let over = |x: usize| if dil == 1 { x } else { x / dil };
        // The tap range [f_first, f_last] inside the input, f_last first bounded by what
        // the input holds past the window's start (`size - 1 - start`), then by `k - 1`.
        let (f_first, reach) = match os.checked_sub(pad) {
            // The window starts inside: its last tap inside at `size - 1` at most.
            Some(s) => (0, over(size.checked_sub(s)?.checked_sub(1)?)),
            // It starts `neg` before the input: its first tap inside is the smallest f
            // with f·dil ≥ neg; it reaches `neg - 1 + size` past that start.
            None => {
                let neg = pad - os;
                let first = if dil == 1 { neg } else { neg.div_ceil(dil) };
                let (a, b) = (neg - 1, size);
                let reach = if dil == 1 {
                    a.saturating_add(b)
                } else {
                    // floor((a + b) / dil) without the sum (which may not fit).
                    a / dil + b / dil + usize::from(a % dil >= dil - b % dil)
                };
                (first, reach)
            }
        };
        let f_last = reach.min(k.checked_sub(1)?);
        if f_first > f_last {
            return None;
        }
        let at = |f: usize| (start + f as i64 * dil as i64) as usize;
        Some((at(f_first), at(f_last)))
    }

    /// [`Self::axis`] in 64-bit steps (any operands): the reference of the tests.
    #[cfg(any(test, synaptic_v6m))]
    fn axis_i64(
        o: usize,
        stride: usize,
        pad: usize,
        k: usize,
        dil: usize,
        size: usize,
    ) -> Option<(usize, usize)> {
        let start = (o * stride) as i64 - pad as i64;
        let dil = dil as i64;
        // (A dilation of 1, the common one, divides by nothing: 64-bit divisions are calls
        // on a 32-bit core.)
        let over = |x: i64| if dil == 1 { x } else { x / dil };
        // First tap inside the input: the smallest f with start + f·dil ≥ 0.
        let f_first = if start >= 0 {
            0
        } else {
            over(-start + dil - 1)
        };
        // Last tap inside: the largest f < k with start + f·dil ≤ size − 1.
        let last_in = size as i64 - 1 - start;
        if last_in < 0 {
            return None;
        }
        let f_last = over(last_in).min(k as i64 - 1);
        if f_first > f_last {
            return None;
        }
        Some((
            (start + f_first * dil) as usize,
            (start + f_last * dil) as usize,
        ))
    }

    /// The inclusive range of input channels output channel `oc` reads.
    fn channels(&self, oc: usize) -> (usize, usize) {
        match self.channels {
            Channels::Group {
                depth,
                filters_per_group,
            } => {
                let g = oc / filters_per_group.max(1);
                (g * depth, g * depth + depth.max(1) - 1)
            }
            Channels::Depthwise { multiplier } => (oc / multiplier.max(1), oc / multiplier.max(1)),
            Channels::Same => (oc, oc),
        }
    }

    /// The range of input rows (`y`: true) or columns output row or column `o` reads.
    fn axis_of(&self, y: bool, o: usize) -> Option<(usize, usize)> {
        let (s, p, k, d, size) = self.along(y);
        Self::axis(o, s, p, k, d, size)
    }

    /// Stride, padding before, taps, dilation and input size along the rows (`y`: true) or
    /// the columns.
    fn along(&self, y: bool) -> (usize, usize, usize, usize, usize) {
        match y {
            true => (
                self.stride.0,
                self.pad.0,
                self.kernel.0,
                self.dilation.0,
                self.input[1],
            ),
            false => (
                self.stride.1,
                self.pad.1,
                self.kernel.1,
                self.dilation.1,
                self.input[2],
            ),
        }
    }

    /// The rows (`y`: true) or columns `[i, j)` whose window lies wholly inside the input,
    /// `i` the first past the padding before: from `i` on the window starts inside the
    /// input, so [`Self::axis_of`] is `(o·s − p, o·s − p + (k−1)·d)`, affine, up to `j`, and
    /// past `j` it reads nothing from the first position that reads nothing on. `None` for
    /// a stride of 0 (no such structure).
    fn inside(&self, y: bool) -> Option<(usize, usize)> {
        let (s, p, k, d, size) = self.along(y);
        if s == 0 {
            return None;
        }
        let i = p.div_ceil(s);
        // The last o with o·s − p + (k − 1)·d ≤ size − 1.
        let reach = (k.max(1) - 1).saturating_mul(d);
        let j = (size + p)
            .checked_sub(1 + reach)
            .map_or(0, |top| top / s + 1);
        Some((i, j.max(i)))
    }

    fn reads(&self, j: usize) -> Option<(usize, usize)> {
        let [_, oh, ow, oc_n] = self.output;
        let [_, ih, iw, ic_n] = self.input;
        let oc = j % oc_n;
        let ox = (j / oc_n) % ow;
        let oy = (j / (oc_n * ow)) % oh;
        let b = j / (oc_n * ow * oh);
        let (y0, y1) = self.axis_of(true, oy)?;
        let (x0, x1) = self.axis_of(false, ox)?;
        let (c0, c1) = self.channels(oc);
        let at = |y: usize, x: usize, c: usize| ((b * ih + y) * iw + x) * ic_n + c;
        Some((at(y0, x0, c0), at(y1, x1, c1)))
    }
}

/// What output element `j` reads, by kernel family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// Element `j` reads input element `j` (same element count).
    Elementwise,
    /// A sliding window over NHWC tensors.
    Window(Window),
    /// SOFTMAX: the first element of row `r` (rows of `depth`) reads the whole row (the
    /// maximum and the sum of exponentials are taken before any output of the row), every other
    /// element `(r, k)` reads input `(r, k)` only.
    RowThenElement {
        /// Row length.
        depth: usize,
    },
    /// FULLY_CONNECTED with a short input row ([`crate::ops::matmul::fully_connected::FC_ROW_BUFFER`]
    /// bytes at most), run by its in-place kernel: the first step of row `r` in the
    /// direction of execution copies input row `r` (of `in_row`) to the stack, the row's other
    /// steps read nothing from the buffer.
    RowsBuffered {
        /// Input elements per row.
        in_row: usize,
        /// Output elements per row.
        out_row: usize,
    },
    /// Output row `r` (of `out_row` elements) reads the whole input row `r` (of `in_row`).
    Rows {
        /// Input elements per row.
        in_row: usize,
        /// Output elements per row.
        out_row: usize,
    },
}

/// The access contract of one kernel for one of its inputs (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Contract {
    /// What each output element reads.
    pub access: Access,
    /// Input elements.
    pub in_elems: usize,
    /// Output elements.
    pub out_elems: usize,
    /// Bytes per input element.
    pub in_elem_bytes: usize,
    /// Bytes per output element.
    pub out_elem_bytes: usize,
    /// Whether the kernel has a backward entry point (every kernel runs forward).
    pub backward: bool,
}

/// Largest output (in elements) whose safe overlap is derived; larger outputs get no overlap
/// (a bound from when the derivation was O(n), kept: the same contracts get an overlap).
pub const MAX_CONTRACT_ELEMS: usize = 1 << 24;

/// The safe overlap of a kernel's output with one input, as deltas `d = output offset − input
/// offset` in bytes (see the module documentation): forward is safe for `d ≤ forward_max`,
/// backward for `d ≥ backward_min` (if the kernel runs backward), and any `d` with disjoint
/// bytes is always safe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SafeOverlap {
    /// `D_f`.
    pub forward_max: i64,
    /// `D_b`, or `None` without a backward entry point.
    pub backward_min: Option<i64>,
    /// Input bytes.
    pub in_bytes: i64,
    /// Output bytes.
    pub out_bytes: i64,
}

impl SafeOverlap {
    /// Whether input and output bytes are disjoint at delta `d`.
    pub fn disjoint(&self, d: i64) -> bool {
        d <= -self.out_bytes || d >= self.in_bytes
    }

    /// The direction to run in at delta `d`, if it is safe: `Some(Forward)` for disjoint
    /// tensors (the plain kernel), else the direction whose bound admits `d`.
    pub fn direction(&self, d: i64) -> Option<Direction> {
        if self.disjoint(d) || d <= self.forward_max {
            Some(Direction::Forward)
        } else if self.backward_min.is_some_and(|b| d >= b) {
            Some(Direction::Backward)
        } else {
            None
        }
    }

    /// Whether delta `d` is safe when run in `dir`.
    pub fn safe(&self, d: i64, dir: Direction) -> bool {
        self.disjoint(d)
            || match dir {
                Direction::Forward => d <= self.forward_max,
                Direction::Backward => self.backward_min.is_some_and(|b| d >= b),
            }
    }
}

impl Contract {
    /// An element-wise kernel of `elems` elements, `in_bytes` / `out_bytes` each (LOGISTIC,
    /// QUANTIZE, DEQUANTIZE, RESHAPE / SQUEEZE as a byte copy, ADD / MUL for an input of the
    /// output's shape).
    pub fn elementwise(elems: usize, in_bytes: usize, out_bytes: usize) -> Contract {
        Contract {
            access: Access::Elementwise,
            in_elems: elems,
            out_elems: elems,
            in_elem_bytes: in_bytes,
            out_elem_bytes: out_bytes,
            backward: true,
        }
    }

    /// A kernel over `rows` rows of `depth` elements, `bytes` each, in and out, whose first
    /// element of a row reads the whole row and the others their own element, forward only
    /// (SOFTMAX, LOG_SOFTMAX, L2_NORMALIZATION).
    pub fn row_then_element(rows: usize, depth: usize, bytes: usize) -> Contract {
        Contract {
            access: Access::RowThenElement { depth },
            in_elems: rows * depth,
            out_elems: rows * depth,
            in_elem_bytes: bytes,
            out_elem_bytes: bytes,
            backward: false,
        }
    }

    /// The same access over elements of another size: a float32 kernel whose loops are its
    /// int8 twin's (same window, same order) has the int8 contract over 4-byte elements.
    pub fn with_elem_bytes(self, in_elem_bytes: usize, out_elem_bytes: usize) -> Contract {
        Contract {
            in_elem_bytes,
            out_elem_bytes,
            ..self
        }
    }

    /// The inclusive range of input elements the step writing output element `j` reads when
    /// the kernel runs in `dir`, `None` if it reads none.
    pub fn reads(&self, j: usize, dir: Direction) -> Option<(usize, usize)> {
        match self.access {
            Access::RowsBuffered { in_row, out_row } => {
                let (r, k) = (j / out_row.max(1), j % out_row.max(1));
                let first = match dir {
                    Direction::Forward => k == 0,
                    Direction::Backward => k + 1 == out_row,
                };
                (first && in_row > 0).then(|| (r * in_row, r * in_row + in_row - 1))
            }
            Access::Elementwise => Some((j, j)),
            Access::Window(w) => w.reads(j),
            Access::RowThenElement { depth } => {
                if depth > 0 && j % depth == 0 {
                    Some((j, j + depth - 1))
                } else {
                    Some((j, j))
                }
            }
            Access::Rows { in_row, out_row } => {
                let r = j / out_row.max(1);
                (in_row > 0).then(|| (r * in_row, r * in_row + in_row - 1))
            }
        }
    }

    /// Derives `D_f` and `D_b` from [`Self::reads`] in time proportional to the contract's
    /// structure, not its elements (O(1) for element-wise and row kernels, O(rows + columns +
    /// channels) for a window): what [`Self::safe_overlap_by_walk`] computes by walking every
    /// element, the same bounds for every contract (see "Closed form" in the [module
    /// docs](self)). `None` above [`MAX_CONTRACT_ELEMS`], as the walk, and for a window with
    /// an empty axis but output elements (a contract no kernel makes; the walk divides by
    /// zero there).
    pub fn safe_overlap(&self) -> Option<SafeOverlap> {
        self.bounds(true, true)
    }

    /// [`Self::safe_overlap`] with only `dir`'s bound derived (what a load checks a declared
    /// overlap of that direction against: half the work of both where the kernel runs both
    /// ways). The other direction's is left at what admits no overlap but disjoint bytes
    /// (`forward_max = i64::MIN`, `backward_min = None`); `dir`'s is the bound
    /// [`Self::safe_overlap`] gives (a property test holds them equal).
    pub fn safe_overlap_in(&self, dir: Direction) -> Option<SafeOverlap> {
        self.bounds(dir == Direction::Forward, dir == Direction::Backward)
    }

    /// [`Self::safe_overlap_in`] where no kernel that could have made this contract reads a
    /// window (`windows` false: an interpreter whose [`crate::ops::OpSet`] links none, or a
    /// kernel whose contract is never one): `None` for a window, so that the window's
    /// derivation ([`Digits`]) is not linked there. The same bound for every other contract.
    #[inline(always)]
    pub(crate) fn safe_overlap_in_kinds(
        &self,
        dir: Direction,
        windows: bool,
    ) -> Option<SafeOverlap> {
        let (forward, backward) = (dir == Direction::Forward, dir == Direction::Backward);
        match self.access {
            Access::Window(_) if windows => self.window_bounds(forward, backward),
            Access::Window(_) => None,
            _ => self.row_bounds(forward, backward),
        }
    }

    /// The closed form of [`Self::safe_overlap`], for the directions asked.
    fn bounds(&self, forward: bool, backward: bool) -> Option<SafeOverlap> {
        match self.access {
            Access::Window(_) => self.window_bounds(forward, backward),
            _ => self.row_bounds(forward, backward),
        }
    }

    /// The output elements if a bound is derived for them ([`MAX_CONTRACT_ELEMS`]), and the
    /// element sizes.
    #[inline(always)]
    fn sized(&self) -> Option<(usize, i64, i64)> {
        let n = self.out_elems;
        if n > MAX_CONTRACT_ELEMS || self.in_elems > MAX_CONTRACT_ELEMS * 4 {
            return None;
        }
        Some((n, self.in_elem_bytes as i64, self.out_elem_bytes as i64))
    }

    /// The bounds of a window contract ([`Self::bounds`]).
    #[inline(never)]
    fn window_bounds(&self, forward: bool, backward: bool) -> Option<SafeOverlap> {
        let (n, si, so) = self.sized()?;
        let digits = Digits::of(self)?;
        let forward_max = match n {
            _ if !forward => Some(i64::MIN),
            0 | 1 => None,
            _ => digits.best_but_one(Direction::Forward, n),
        };
        let backward_min = (backward && self.backward).then(|| match n {
            0 | 1 => None,
            _ => digits.best_but_one(Direction::Backward, n),
        });
        // G's constant: `s_i − s_o`.
        Some(self.overlap(
            forward_max.unwrap_or(i64::MAX),
            backward_min.map(|b| b.map_or(i64::MIN, |b| b.saturating_add(si - so))),
        ))
    }

    /// The bounds of a contract that is not a window ([`Self::bounds`]): at most three
    /// candidate steps a direction.
    #[inline(never)]
    fn row_bounds(&self, forward: bool, backward: bool) -> Option<SafeOverlap> {
        self.sized()?;
        Some(
            self.overlap(
                if forward {
                    self.row_best(Direction::Forward).unwrap_or(i64::MAX)
                } else {
                    i64::MIN
                },
                (backward && self.backward)
                    .then(|| self.row_best(Direction::Backward).unwrap_or(i64::MIN)),
            ),
        )
    }

    /// The safe overlap of these bounds.
    #[inline(always)]
    fn overlap(&self, forward_max: i64, backward_min: Option<i64>) -> SafeOverlap {
        SafeOverlap {
            forward_max,
            backward_min,
            in_bytes: self.in_elems as i64 * self.in_elem_bytes as i64,
            out_bytes: self.out_elems as i64 * self.out_elem_bytes as i64,
        }
    }

    /// The walk's bound in `dir` ([`Self::safe_overlap_by_walk`]) of a contract that is not a
    /// window, from at most three elements; `None`: no element has a term. Its terms are
    /// forward `F(j) = s_i·L(j) − s_o·(j + 1)` over `j ≤ n − 2` (`L(j)`: the least input element a
    /// later step reads) and backward `G(j) = s_i·(H(j) + 1) − s_o·j` over `1 ≤ j ≤ n − 1`
    /// (`H(j)`: the greatest an earlier step reads). Every family's `L` and `H` are steps
    /// of the row (element-wise: rows of one) that `j` or its neighbour falls in, so the
    /// terms are piecewise affine: within a row the term falls as `j` grows (`s_o ≥ 0`), so
    /// its best is at the row's last `j` forward and its first backward, and those ends'
    /// terms are affine in the row number — best at the first or last row, or at the range's
    /// own end in a partial last row.
    fn row_best(&self, dir: Direction) -> Option<i64> {
        let n = self.out_elems;
        let fwd = dir == Direction::Forward;
        // Every family as rows of `r` steps reading `unit` input elements a row: every step
        // its row's (element-wise: rows of one; SOFTMAX backward: a row's first step reads
        // the row), or only a row's first step in the direction of execution (`buffered`).
        let (r, unit, buffered) = match self.access {
            Access::RowThenElement { depth } if !fwd && depth > 0 => (depth, depth, false),
            Access::Elementwise | Access::RowThenElement { .. } => (1, 1, false),
            Access::Rows { in_row, out_row } => (out_row.max(1), in_row, false),
            // Backward, a row's first step is its last: none without rows.
            Access::RowsBuffered { out_row: 0, .. } if !fwd => return None,
            Access::RowsBuffered { in_row, out_row } => (out_row.max(1), in_row, true),
            Access::Window(_) => return None,
        };
        if n < 2 || unit == 0 {
            return None;
        }
        // Three candidate steps `j` and their reach in rows (`L(j)` or `H(j) + 1`, over
        // `unit`): the first row's end (forward) or start (backward), the last whole row's,
        // and the range's own end in a partial last row.
        let rows = (n - 1) / r;
        let steps = match (buffered, fwd) {
            // L(j) is (j + 1)'s row start: with m = j + 1 in 1..n, rows m / r.
            (false, true) => {
                let first = (r - 1).max(1).min(n - 1);
                let last = (n / r * r).saturating_sub(1).max(1);
                [(first - 1, first / r), (last - 1, last / r), (n - 2, rows)]
            }
            // H(j) + 1 is the end of (j − 1)'s row.
            (false, false) => {
                let last = (n - 2) / r * r + 1;
                [(1, 1), (last, (last - 1) / r + 1), (n - 1, (n - 2) / r + 1)]
            }
            (true, _) if rows == 0 => return None,
            // Steps before a later row's start: L(j) is the next row's start.
            (true, true) => [(r - 1, 1), (rows * r - 1, rows), (rows * r - 1, rows)],
            // Steps after a row's last: H(j) + 1 is the end of the rows before j.
            (true, false) => [(r, 1), (rows * r, rows), (rows * r, rows)],
        };
        let (si, so) = (self.in_elem_bytes as i64, self.out_elem_bytes as i64);
        steps
            .iter()
            .map(|&(j, k)| {
                mul(k.saturating_mul(unit), si).saturating_sub(mul(j + usize::from(fwd), so))
            })
            .reduce(|a, b| if fwd { a.min(b) } else { a.max(b) })
    }

    /// [`Self::safe_overlap`] by its definition: a walk over every output element keeping
    /// `L(j)` and `H(j)` ([module docs](self)), O(n). The reference the closed form is tested
    /// against (`tests/contract_props.rs`); nothing on a load calls it.
    pub fn safe_overlap_by_walk(&self) -> Option<SafeOverlap> {
        let n = self.out_elems;
        if n > MAX_CONTRACT_ELEMS || self.in_elems > MAX_CONTRACT_ELEMS * 4 {
            return None;
        }
        let (si, so) = (self.in_elem_bytes as i64, self.out_elem_bytes as i64);
        // Forward: walk j from the end, keeping L = min lo(j') over j' > j.
        let mut forward_max = i64::MAX;
        let mut later_lo: Option<usize> = None;
        for j in (0..n).rev() {
            if let Some(l) = later_lo {
                forward_max = forward_max.min(l as i64 * si - (j as i64 + 1) * so);
            }
            if let Some((lo, _)) = self.reads(j, Direction::Forward) {
                later_lo = Some(later_lo.map_or(lo, |m| m.min(lo)));
            }
        }
        // Backward: walk j from the start, keeping H = max hi(j') over j' < j.
        let backward_min = self.backward.then(|| {
            let mut bound = i64::MIN;
            let mut earlier_hi: Option<usize> = None;
            for j in 0..n {
                if let Some(h) = earlier_hi {
                    bound = bound.max((h as i64 + 1) * si - j as i64 * so);
                }
                if let Some((_, hi)) = self.reads(j, Direction::Backward) {
                    earlier_hi = Some(earlier_hi.map_or(hi, |m| m.max(hi)));
                }
            }
            bound
        });
        Some(SafeOverlap {
            forward_max,
            backward_min,
            in_bytes: self.in_elems as i64 * si,
            out_bytes: n as i64 * so,
        })
    }
}

/// The better of two bounds in `dir`'s sense (forward: the smaller `D_f` term, backward: the
/// larger `D_b` term); `None` is "no element", the neutral one.
fn pick(dir: Direction, x: Option<i64>, y: Option<i64>) -> Option<i64> {
    match (x, y, dir) {
        (Some(x), Some(y), Direction::Forward) => Some(x.min(y)),
        (Some(x), Some(y), Direction::Backward) => Some(x.max(y)),
        (x, None, _) => x,
        (None, y, _) => y,
    }
}

/// The sum of two digits' terms; `None` if either digit value reads nothing.
fn add(x: Option<i64>, y: Option<i64>) -> Option<i64> {
    Some(x?.saturating_add(y?))
}

/// `a · b` for the terms (sizes from the model: saturating, never a panic). A 32-bit `a` and
/// `b`, the case of every contract that loads, cannot overflow: one widening multiply
/// (a saturating 64-bit one is a call on a 32-bit core).
fn mul(a: usize, b: i64) -> i64 {
    match (u32::try_from(a), i32::try_from(b)) {
        (Ok(a), Ok(b)) => i64::from(a) * i64::from(b),
        _ => (a as i64).saturating_mul(b),
    }
}

/// An output element's index `j` as digits, most significant first: `j = (d0·r1 + d1)·r2 + …`
/// with digit 0 unbounded, such that the element's term — forward `F(j) = s_i·lo(j) − s_o·j`,
/// backward `G(j) = s_i·hi(j) − s_o·j` — is the sum of one term per digit, each depending on
/// that digit alone (`None`: the elements with that digit value read nothing). A window's `lo`
/// is `((b·ih + y0(oy))·iw + x0(ox))·ic + c0(oc)` ([`Digits::term`]); the other families'
/// bounds need no digits ([`Contract::row_best`]).
struct Digits<'c> {
    c: &'c Contract,
    /// The radices; `radix[0]` is unused (digit 0 is unbounded).
    radix: [usize; 4],
    /// The place value of each digit: the product of the radices below it (saturating: a
    /// place value past `usize::MAX` is past every index, like the true one).
    weight: [usize; 4],
    /// Per digit, the input bytes and the output bytes one unit of it spans: a digit's term is
    /// `unit_in · at − unit_out · v` for the input position `at` its value `v` reads
    /// ([`Digits::at`]).
    unit_in: [i64; 4],
    unit_out: [i64; 4],
    len: usize,
}

impl<'c> Digits<'c> {
    /// The digits of `c`'s output index; `None` for a window with an empty axis.
    fn of(c: &'c Contract) -> Option<Self> {
        let (si, so) = (c.in_elem_bytes as i64, c.out_elem_bytes as i64);
        let units = |i: [usize; 4], o: [usize; 4]| (i.map(|u| mul(u, si)), o.map(|u| mul(u, so)));
        // (The other families' bounds come from `Contract::row_best`.)
        let Access::Window(w) = c.access else {
            return None;
        };
        let [_, ih, iw, ic] = w.input;
        let [_, oh, ow, oc] = w.output;
        if oh == 0 || ow == 0 || oc == 0 {
            return None;
        }
        let m = usize::saturating_mul;
        let (radix, len) = ([0, oh, ow, oc], 4);
        let (unit_in, unit_out) = units(
            [m(m(ih, iw), ic), m(iw, ic), ic, 1],
            [m(m(oh, ow), oc), m(ow, oc), oc, 1],
        );
        let mut weight = [1usize; 4];
        for l in (0..len - 1).rev() {
            weight[l] = weight[l + 1].saturating_mul(radix[l + 1]);
        }
        Some(Digits {
            c,
            radix,
            weight,
            unit_in,
            unit_out,
            len,
        })
    }

    /// The input position (in units of digit `level`) that the elements with value `v` of it
    /// read from: their `lo` forward, their `hi` backward (a row kernel's `hi` is its `lo`
    /// plus `in_row − 1`, added by [`Contract::safe_overlap`]); `None`: they read nothing.
    fn at(&self, dir: Direction, level: usize, v: usize) -> Option<usize> {
        let fwd = dir == Direction::Forward;
        // By reference: a window is some 80 bytes, not copied a term.
        match (&self.c.access, level) {
            (Access::Window(w), 1 | 2) => {
                let (lo, hi) = w.axis_of(level == 1, v)?;
                Some(if fwd { lo } else { hi })
            }
            (Access::Window(w), 3) => {
                let (lo, hi) = w.channels(v);
                Some(if fwd { lo } else { hi })
            }
            _ => Some(v),
        }
    }

    /// The term of digit `level` at value `v` in `dir` (forward `F`, backward `G`).
    #[inline(never)]
    fn term(&self, dir: Direction, level: usize, v: usize) -> Option<i64> {
        let at = self.at(dir, level, v)?;
        Some(mul(at, self.unit_in[level]).saturating_sub(mul(v, self.unit_out[level])))
    }

    /// How digit `level`'s term varies (either direction), as `[lo, hi, i, j]`: values outside
    /// `[lo, hi)` read nothing; on `[i, j)` the term is affine (its best at an end of a
    /// range); before `i` it is anything; past `j`, once a value reads nothing, no later one
    /// reads (a window's rows and columns partly or wholly past the input).
    fn shape(&self, level: usize) -> [usize; 4] {
        const ALL: usize = usize::MAX;
        match (&self.c.access, level) {
            (_, 0) => [0, ALL, 0, ALL],
            (Access::Window(w), 1 | 2) => match w.inside(level == 1) {
                Some((i, j)) => [0, ALL, i, j],
                None => [0, ALL, ALL, ALL],
            },
            (Access::Window(w), _) => match w.channels {
                Channels::Depthwise { multiplier: 0 | 1 } | Channels::Same => [0, ALL, 0, ALL],
                Channels::Group {
                    filters_per_group, ..
                } if filters_per_group.max(1) >= w.output[3] => [0, ALL, 0, ALL],
                // Several groups: every channel.
                _ => [0, ALL, ALL, ALL],
            },
            _ => [0, ALL, 0, ALL],
        }
    }

    /// The best term of digit `level` over its values `a..b` ([`Digits::shape`]: every value
    /// before the affine part, its ends, every value after it up to the first that reads
    /// nothing).
    fn digit_best(&self, dir: Direction, level: usize, a: usize, b: usize) -> Option<i64> {
        let [lo, hi, i, j] = self.shape(level);
        let (a, b) = (a.max(lo), b.min(hi));
        let t = |v| self.term(dir, level, v);
        if let Some(m) = self.blocks(level) {
            return self.block_best(dir, level, a, b, m);
        }
        let mut best = None;
        for v in a..b.min(i) {
            best = pick(dir, best, t(v));
        }
        let (ia, jb) = (a.max(i), b.min(j));
        if ia < jb {
            best = pick(dir, best, pick(dir, t(ia), t(jb - 1)));
        }
        for v in a.max(j)..b {
            match t(v) {
                Some(x) => best = pick(dir, best, Some(x)),
                None => break,
            }
        }
        best
    }

    /// The block size `m` of a window's channel digit whose input channel is a step function
    /// of the output channel: `oc / m` (a depthwise multiplier `m` > 1) or group `oc / m`'s
    /// channels (`m` filters a group, several groups). Its term is then
    /// `unit_in · (c0 + c1 · ⌊v / m⌋) − unit_out · v` ([`Digits::block_best`]).
    fn blocks(&self, level: usize) -> Option<usize> {
        let Access::Window(w) = &self.c.access else {
            return None;
        };
        if level != 3 {
            return None;
        }
        match w.channels {
            Channels::Depthwise { multiplier } if multiplier > 1 => Some(multiplier),
            Channels::Group {
                filters_per_group, ..
            } if filters_per_group.max(1) < w.output[3] => Some(filters_per_group.max(1)),
            _ => None,
        }
    }

    /// [`Digits::digit_best`] of a blocked digit ([`Digits::blocks`], block size `m`) over
    /// `a..b`, from at most three values instead of every one. Within a block the term falls
    /// as `v` grows (`unit_out ≥ 0`), so a piece of a block is best at its last value forward
    /// (the least term) and at its first backward (the greatest); the pieces' ends are the
    /// range's own end, or the blocks' last (first) values, whose terms are affine in the
    /// block number — best at the first or the last such block.
    fn block_best(
        &self,
        dir: Direction,
        level: usize,
        a: usize,
        b: usize,
        m: usize,
    ) -> Option<i64> {
        if a >= b {
            return None;
        }
        let t = |v| self.term(dir, level, v);
        let (ka, kb) = (a / m, (b - 1) / m);
        let (x, y, z) = match dir {
            // Block ends: the first block's (or the range's end), the last whole block's.
            Direction::Forward => (
                (ka * m + m - 1).min(b - 1),
                (kb * m).checked_sub(1).filter(|&e| e >= a).unwrap_or(b - 1),
                b - 1,
            ),
            // Block starts: the range's start, the second block's, the last block's.
            Direction::Backward => (a, ((ka + 1) * m).min(b - 1), (kb * m).max(a)),
        };
        pick(dir, pick(dir, t(x), t(y)), t(z))
    }

    /// The best term over the elements `0..n` (`n ≥ 2`) but the first in `dir` (forward:
    /// `1..n`, backward: `0..n−1`): the elements split by their most significant digit that
    /// differs from the left-out element's (all 0 forward, all at their last value backward):
    /// one product of digit ranges a level, so one scan of each digit's other values and one
    /// term of its left-out value, O(levels) scans in all. [`Digits::best`] when `n` is not a
    /// whole number of top-digit values (a partial last batch or row).
    fn best_but_one(&self, dir: Direction, n: usize) -> Option<i64> {
        let w0 = self.weight[0];
        if w0 == 0 || n % w0 != 0 {
            return match dir {
                Direction::Forward => self.best(dir, 1, n),
                Direction::Backward => self.best(dir, 0, n - 1),
            };
        }
        let mut radix = self.radix;
        radix[0] = n / w0;
        let fwd = dir == Direction::Forward;
        // Per level: the left-out value's term, and the best over the digit's other values.
        let mut edge = [None; 4];
        let mut others = [None; 4];
        // whole[l]: the best over every value of the digits l.. (a sum: separable).
        let mut whole = [Some(0i64); 5];
        for l in (0..self.len).rev() {
            // Radices are at least 1 (`Digits::of`; the top one: n ≥ w0 here).
            let r = radix[l];
            let (e, a, b) = if fwd { (0, 1, r) } else { (r - 1, 0, r - 1) };
            edge[l] = self.term(dir, l, e);
            others[l] = self.digit_best(dir, l, a, b);
            whole[l] = add(pick(dir, edge[l], others[l]), whole[l + 1]);
        }
        // Level l's product: the left-out values above it, another value of it, anything
        // below it.
        let mut best = None;
        let mut above = Some(0i64);
        for l in 0..self.len {
            best = pick(dir, best, add(add(above, others[l]), whole[l + 1]));
            above = add(above, edge[l]);
            if above.is_none() {
                // Every element below reads nothing (a digit value above reads nothing).
                break;
            }
        }
        best
    }

    /// The best term over the elements `a..b` (`1 ≤ b`, `a < b`): the range split into
    /// products of digit ranges (a partial first value of the top digit, whole middle
    /// values, a partial last one, and so on down), each product's best the sum of its
    /// digits' bests.
    fn best(&self, dir: Direction, a: usize, b: usize) -> Option<i64> {
        // whole[l]: the best over every value of the digits l.. (separable: a sum).
        let mut whole = [Some(0i64); 5];
        for l in (1..self.len).rev() {
            whole[l] = add(self.digit_best(dir, l, 0, self.radix[l]), whole[l + 1]);
        }
        self.range(dir, &whole, 0, a, b)
    }

    /// The best over the values `a..b` of the number formed by the digits `level..`.
    fn range(
        &self,
        dir: Direction,
        whole: &[Option<i64>; 5],
        level: usize,
        a: usize,
        b: usize,
    ) -> Option<i64> {
        if level == self.len {
            return Some(0);
        }
        if level > 0 && a == 0 && b == self.weight[level - 1] {
            return whole[level];
        }
        let w = self.weight[level];
        let (da, ra) = (a / w, a % w);
        let (db, rb) = ((b - 1) / w, (b - 1) % w + 1);
        let t = |v| self.term(dir, level, v);
        if da == db {
            return add(t(da), self.range(dir, whole, level + 1, ra, rb));
        }
        let first = add(t(da), self.range(dir, whole, level + 1, ra, w));
        let middle = if da + 1 < db {
            add(self.digit_best(dir, level, da + 1, db), whole[level + 1])
        } else {
            None
        };
        let last = add(t(db), self.range(dir, whole, level + 1, 0, rb));
        pick(dir, pick(dir, first, middle), last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::matmul::fully_connected::FC_ROW_BUFFER;

    fn pointwise(h: usize, w: usize, cin: usize, cout: usize) -> Contract {
        Contract {
            access: Access::Window(Window {
                input: [1, h, w, cin],
                output: [1, h, w, cout],
                kernel: (1, 1),
                stride: (1, 1),
                dilation: (1, 1),
                pad: (0, 0),
                channels: Channels::Group {
                    depth: cin,
                    filters_per_group: cout,
                },
            }),
            in_elems: h * w * cin,
            out_elems: h * w * cout,
            in_elem_bytes: 1,
            out_elem_bytes: 1,
            backward: true,
        }
    }

    #[test]
    fn axis_in_32_bits_equals_64() {
        for o in 0..24 {
            for s in 1..5 {
                for p in 0..7 {
                    for k in 0..7 {
                        for d in 1..4 {
                            for n in 0..20 {
                                assert_eq!(
                                    Window::axis(o, s, p, k, d, n),
                                    Window::axis_wide(o, s, p, k, d, n),
                                    "{o} {s} {p} {k} {d} {n}"
                                );
                            }
                        }
                    }
                }
            }
        }
        // At the edge of the 32-bit steps, and past it.
        let e = (1 << 15) - 1;
        for (o, s, p, k, d, n) in [
            (e, e, e, e, e, e),
            (e, 1, 0, e, 1, e),
            (e + 1, 1, 0, 3, 1, e),
        ] {
            assert_eq!(
                Window::axis(o, s, p, k, d, n),
                Window::axis_wide(o, s, p, k, d, n)
            );
        }
    }

    #[test]
    fn axis_without_64_bit_division_equals_64_bit_steps() {
        for o in 0..12 {
            for s in 1..4 {
                for p in 0..9 {
                    for k in 0..6 {
                        for d in 1..5 {
                            for n in 0..14 {
                                assert_eq!(
                                    Window::axis_wide(o, s, p, k, d, n),
                                    Window::axis_i64(o, s, p, k, d, n),
                                    "{o} {s} {p} {k} {d} {n}"
                                );
                            }
                        }
                    }
                }
            }
        }
        // Operands of a 32-bit target's whole range (sums past 2^32: the split quotient).
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let edges: [usize; 8] = [
            0,
            1,
            2,
            3,
            (1 << 31) - 1,
            1 << 31,
            u32::MAX as usize - 1,
            u32::MAX as usize,
        ];
        for _ in 0..200_000 {
            let mut v = [0usize; 6];
            for e in &mut v {
                let r = next();
                *e = match r % 4 {
                    0 => edges[((r >> 8) % edges.len() as u64) as usize],
                    1 => ((r >> 8) % 64) as usize,
                    _ => ((r >> 8) as u32 >> ((r >> 40) % 32)) as usize,
                };
            }
            let [o, s, p, k, d, n] = v;
            let d = d.max(1);
            // (A 32-bit core's `o · s` fits 32 bits, or wraps into them.)
            if o.checked_mul(s).is_none_or(|os| os > u32::MAX as usize) {
                continue;
            }
            assert_eq!(
                Window::axis_wide(o, s, p, k, d, n),
                Window::axis_i64(o, s, p, k, d, n),
                "{o} {s} {p} {k} {d} {n}"
            );
        }
    }

    #[test]
    fn person_detect_peak_pointwise_conv() {
        let s = pointwise(48, 48, 8, 16).safe_overlap().unwrap();
        assert_eq!(s.backward_min, Some(7));
        assert_eq!(s.forward_max, -(8 * 2303) - 15);
        assert_eq!(s.direction(16), Some(Direction::Backward));
        assert_eq!(s.direction(0), None);
        assert_eq!(s.direction(-36864), Some(Direction::Forward));
    }

    #[test]
    fn elementwise_same_size_is_an_alias_either_way() {
        let c = Contract {
            access: Access::Elementwise,
            in_elems: 100,
            out_elems: 100,
            in_elem_bytes: 1,
            out_elem_bytes: 1,
            backward: true,
        };
        let s = c.safe_overlap().unwrap();
        assert_eq!((s.forward_max, s.backward_min), (0, Some(0)));
        // DEQUANTIZE int8 → float32: backward from 3 bytes before the input on.
        let c = Contract {
            in_elem_bytes: 1,
            out_elem_bytes: 4,
            ..c
        };
        let s = c.safe_overlap().unwrap();
        assert_eq!(s.backward_min, Some(-3));
    }

    #[test]
    fn short_fully_connected_rows_are_buffered() {
        let fc = |in_row: usize, out_row: usize, batches: usize| {
            let access = if in_row <= FC_ROW_BUFFER {
                Access::RowsBuffered { in_row, out_row }
            } else {
                Access::Rows { in_row, out_row }
            };
            Contract {
                access,
                in_elems: batches * in_row,
                out_elems: batches * out_row,
                in_elem_bytes: 1,
                out_elem_bytes: 1,
                backward: true,
            }
            .safe_overlap()
            .unwrap()
        };
        // One buffered row: nothing is read after the first step, any delta is safe.
        let s = fc(16, 16, 1);
        assert_eq!(
            (s.direction(0), s.direction(15)),
            (Some(Direction::Forward), Some(Direction::Forward))
        );
        // Two rows of 16 → 32 forward: row 0's last write (byte 31 + d) must stay below row 1
        // (byte 16), read at step 32: d ≤ −16.
        assert_eq!(fc(16, 32, 2).forward_max, -16);
        // A long row is read at every step: the output must stay below it all the way.
        assert_eq!(fc(100, 10, 1).forward_max, -9);
        assert_eq!(fc(100, 10, 1).backward_min, Some(99));
    }

    #[test]
    fn window_axis_clips_dilated_taps() {
        // start −3, dilation 2, 4 taps over 0..5: taps at −3, −1, 1, 3 → 1..=3.
        assert_eq!(Window::axis(0, 1, 3, 4, 2, 5), Some((1, 3)));
        // entirely in the padding
        assert_eq!(Window::axis(0, 1, 3, 1, 1, 5), None);
        assert_eq!(Window::axis(3, 2, 0, 3, 1, 5), None);
    }
}
