//! TFLite_Detection_PostProcess (float32): TFLM's `micro/kernels/detection_postprocess.cc`,
//! the SSD post-processing custom operator. Inputs: the box encodings `[1, boxes, ≥4]`
//! (`y, x, h, w` relative to an anchor), the class predictions `[1, boxes, classes (+1 for a
//! background class)]` and the anchors `[boxes, 4]` (`y, x, h, w`, a constant). Outputs: the
//! detected boxes `[1, max_detections, 4]` (`ymin, xmin, ymax, xmax`), their classes and
//! scores `[1, max_detections]`, and their number `[1]`, all float32.
//!
//! - **Decoding**, in double precision as TFLM: `ycenter = y / y_scale · anchor.h + anchor.y`,
//!   `half_h = 0.5 · exp(h / h_scale) · anchor.h` (glibc's `exp`, [`crate::ops::float::exp`]),
//!   each rounded to float, then `ymin = ycenter − half_h`, `ymax = ycenter + half_h` in
//!   single precision (`x`, `w` likewise). A decoded box with `ymin ≥ ymax` or `xmin ≥ xmax`
//!   fails the run, as TFLM's `ValidateBoxes` fails `Eval`
//!   ([`Unsupported::InvalidBoxes`]).
//! - **Non-maximum suppression of one class** (`NonMaxSuppressionSingleClassHelper`): the
//!   scores at or above `nms_score_threshold`, sorted decreasing by TFLM's stable merge sort
//!   (insertion sort below 20 elements, ties in input order); each kept box in turn, while
//!   fewer than the limit are selected, suppresses every later one whose intersection over
//!   union with it exceeds `nms_iou_threshold` (single precision, TFLM's order).
//! - **Regular** (`use_regular_nms`): per class the above, at most `detections_per_class`;
//!   the selections merged with the best so far and the best `max_detections` kept by
//!   libstdc++'s `std::partial_sort` (its heap select, ported as is) on `(score, index)`, ties
//!   to the earlier. **Fast** (default): each box's best class by the same partial sort, the
//!   boxes suppressed on it, at most `max_detections`.
//!
//! Detections are written in order; the rows after the last (fast: `max_detections` less
//! the number found) are written 0 here, where TFLM leaves whatever its arena held there (the
//! oracle compares the rows TFLM writes, and the count).
//!
//! The kernel has four outputs and the runtime writes one per run (`Kernel::PER_OUTPUT`, in
//! output order): the first run computes the detection from the inputs in its scratch (the
//! decoded boxes, the kept scores and their orders, the candidates), writes the boxes and
//! keeps the count, classes and scores in its private state (`Kernel::PRIVATE_STATE`,
//! `4 + 8 · max_detections` bytes); the three others copy them out of it.
//!
//! Refused at load, where TFLM asserts at `Eval` or computes with undefined behaviour: box or
//! class inputs of another type than float32 (TFLM's `Eval` fails on them), anchors that are
//! not a float32 constant `[boxes, 4]`, class predictions of another box count or more than
//! one extra (background) class, no class, no box, `max_detections < 1` (TFLM's sort buffer
//! then has no room), an IoU threshold outside `(0, 1]`, `detections_per_class < 1` (regular)
//! or `max_classes_per_detection < 1` (fast), more than one class per detection (fast: TFLM's
//! output offsets then step past its outputs), a regular suppression whose candidates
//! outgrow TFLM's scratch buffers (`max_detections · boxes` below `max_detections +
//! min(boxes, detections_per_class)`: one box or one detection), outputs of other shapes or
//! types. Options are read by key (`m["max_detections"]`), integers from an integer or bool,
//! floats from a float, integer or bool, a missing key as TFLM's null (0, `false`; 100
//! detections per class).

use synaptic_mem::Scratch;
use synaptic_tflite::flexbuffers::{FlexMap, FlexValue};
use synaptic_tflite::TensorType;

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::float::{exp, F32s, LeF32};
use crate::ops::{custom_code, Kernel, Operands, Prep, Prepared};

/// The custom operator this module prepares.
pub const BUILTINS: &[i32] = &[custom_code("TFLite_Detection_PostProcess")];

const OP: &str = "TFLite_Detection_PostProcess";

/// TFLM's default `detections_per_class` (`kNumDetectionsPerClass`).
const DETECTIONS_PER_CLASS: i32 = 100;

/// A prepared TFLite_Detection_PostProcess: made only by its module's preparation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DetectionParams {
    /// The boxes (anchors).
    pub(crate) boxes: usize,
    /// Values of one box encoding (at least 4: `y, x, h, w` first).
    pub(crate) box_stride: usize,
    /// The classes (`num_classes`).
    pub(crate) classes: usize,
    /// Values of one box's class predictions: the classes, and a background class first if
    /// one more.
    pub(crate) row: usize,
    /// `max_detections`.
    pub(crate) max_detections: usize,
    /// `detections_per_class` (regular suppression).
    pub(crate) per_class: usize,
    /// `use_regular_nms`.
    pub(crate) regular: bool,
    /// `nms_score_threshold`.
    pub(crate) score_threshold: f32,
    /// `nms_iou_threshold`.
    pub(crate) iou_threshold: f32,
    /// `y_scale, x_scale, h_scale, w_scale`.
    pub(crate) scale: [f32; 4],
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(DetectionParams {
    boxes: usize,
    box_stride: usize,
    classes: usize,
    row: usize,
    max_detections: usize,
    per_class: usize,
    regular: bool,
    score_threshold: f32,
    iou_threshold: f32,
    scale: [f32; 4],
});

impl DetectionParams {
    /// The most boxes one suppression selects (its limit: `detections_per_class` regular,
    /// `max_detections` fast, and the boxes).
    fn selections(&self) -> usize {
        let limit = if self.regular {
            self.per_class
        } else {
            self.max_detections
        };
        limit.min(self.boxes)
    }

    /// Regular suppression's candidates: the best so far and one class's selections.
    fn candidates(&self) -> usize {
        if self.regular {
            self.max_detections.saturating_add(self.selections())
        } else {
            0
        }
    }

    /// Element counts of the scratch buffers, in [`Buffers::take`]'s order: `f32` decoded
    /// boxes, `f32` scores of one suppression, `f32` kept scores, `u32` kept indices, `u32`
    /// sort order, `u8` active flags, `u32` selected, `u32` best class per box (fast), `u32`
    /// class order of one box (fast), `u32` and `f32` candidates (regular), `f32` sorted
    /// values (regular), `u32` detection anchors, `u32` detection classes, `f32` scores.
    fn counts(&self) -> [usize; 15] {
        let (b, d) = (self.boxes, self.max_detections);
        let fast = |n: usize| if self.regular { 0 } else { n };
        let regular = |n: usize| if self.regular { n } else { 0 };
        [
            b.saturating_mul(4),
            b,
            b,
            b,
            b.max(self.candidates()),
            b,
            self.selections(),
            fast(b),
            fast(self.row),
            self.candidates(),
            self.candidates(),
            regular(d),
            d,
            d,
            d,
        ]
    }
}

/// The kernel's scratch buffers ([`DetectionParams::counts`]).
struct Buffers<'s> {
    decoded: &'s mut [f32],
    scores: &'s mut [f32],
    keep_scores: &'s mut [f32],
    keep_indices: &'s mut [u32],
    order: &'s mut [u32],
    active: &'s mut [u8],
    selected: &'s mut [u32],
    best_class: &'s mut [u32],
    class_order: &'s mut [u32],
    cand_index: &'s mut [u32],
    cand_score: &'s mut [f32],
    sorted_values: &'s mut [f32],
    det_anchor: &'s mut [u32],
    det_class: &'s mut [u32],
    det_score: &'s mut [f32],
}

impl<'s> Buffers<'s> {
    /// The buffers of `p` from `s` (`None`: too little scratch).
    fn take(p: &DetectionParams, s: &mut Scratch<'s>) -> Option<Self> {
        let c = p.counts();
        Some(Buffers {
            decoded: s.take(c[0])?,
            scores: s.take(c[1])?,
            keep_scores: s.take(c[2])?,
            keep_indices: s.take(c[3])?,
            order: s.take(c[4])?,
            active: s.take(c[5])?,
            selected: s.take(c[6])?,
            best_class: s.take(c[7])?,
            class_order: s.take(c[8])?,
            cand_index: s.take(c[9])?,
            cand_score: s.take(c[10])?,
            sorted_values: s.take(c[11])?,
            det_anchor: s.take(c[12])?,
            det_class: s.take(c[13])?,
            det_score: s.take(c[14])?,
        })
    }
}

/// The scratch bytes of `p`'s buffers (16-byte aligned takes).
fn scratch_of(p: &DetectionParams) -> usize {
    let c = p.counts();
    let f = |n: usize| Scratch::span::<f32>(n);
    let u = |n: usize| Scratch::span::<u32>(n);
    [
        f(c[0]),
        f(c[1]),
        f(c[2]),
        u(c[3]),
        u(c[4]),
        Scratch::span::<u8>(c[5]),
        u(c[6]),
        u(c[7]),
        u(c[8]),
        u(c[9]),
        f(c[10]),
        f(c[11]),
        u(c[12]),
        u(c[13]),
        f(c[14]),
    ]
    .iter()
    .fold(0usize, |a, &b| a.saturating_add(b))
}

/// The error of a run whose decoded boxes TFLM's `ValidateBoxes` refuses.
fn invalid_boxes() -> KernelError {
    KernelError::unsupported(OP, Unsupported::InvalidBoxes)
}

/// The error of buffers shorter than the parameters (cannot happen for a program that loaded).
fn mismatch() -> KernelError {
    KernelError::unsupported(OP, Unsupported::ProgramMismatch)
}

/// C++'s `std::max(a, b)` (`a < b ? b : a`).
#[inline(always)]
fn max(a: f32, b: f32) -> f32 {
    if a < b {
        b
    } else {
        a
    }
}

/// C++'s `std::min(a, b)` (`b < a ? b : a`).
#[inline(always)]
fn min(a: f32, b: f32) -> f32 {
    if b < a {
        b
    } else {
        a
    }
}

/// Box `i` of the decoded boxes (`ymin, xmin, ymax, xmax`).
#[inline(always)]
fn corners(decoded: &[f32], i: usize) -> [f32; 4] {
    [
        decoded[4 * i],
        decoded[4 * i + 1],
        decoded[4 * i + 2],
        decoded[4 * i + 3],
    ]
}

/// `ComputeIntersectionOverUnion` of decoded boxes `i` and `j`.
fn iou(decoded: &[f32], i: usize, j: usize) -> f32 {
    let (a, b) = (corners(decoded, i), corners(decoded, j));
    let area_a = (a[2] - a[0]) * (a[3] - a[1]);
    let area_b = (b[2] - b[0]) * (b[3] - b[1]);
    if area_a <= 0.0 || area_b <= 0.0 {
        return 0.0;
    }
    let ymin = max(a[0], b[0]);
    let xmin = max(a[1], b[1]);
    let ymax = min(a[2], b[2]);
    let xmax = min(a[3], b[3]);
    let inter = max(ymax - ymin, 0.0) * max(xmax - xmin, 0.0);
    inter / (area_a + area_b - inter)
}

/// `DecodeCenterSizeBoxes`: every box's corners into `decoded`, in TFLM's double precision.
fn decode(
    p: &DetectionParams,
    enc: &impl F32s,
    anchors: &impl F32s,
    decoded: &mut [f32],
) -> Result<(), KernelError> {
    if enc.count() < p.boxes * p.box_stride || anchors.count() < 4 * p.boxes {
        return Err(mismatch());
    }
    let [sy, sx, sh, sw] = p.scale.map(f64::from);
    for (i, o) in decoded.chunks_exact_mut(4).take(p.boxes).enumerate() {
        let e = |k: usize| f64::from(enc.at(i * p.box_stride + k));
        let a = |k: usize| f64::from(anchors.at(4 * i + k));
        let ycenter = (e(0) / sy * a(2) + a(0)) as f32;
        let xcenter = (e(1) / sx * a(3) + a(1)) as f32;
        let half_h = (0.5 * exp(e(2) / sh) * a(2)) as f32;
        let half_w = (0.5 * exp(e(3) / sw) * a(3)) as f32;
        o[0] = ycenter - half_h;
        o[1] = xcenter - half_w;
        o[2] = ycenter + half_h;
        o[3] = xcenter + half_w;
    }
    Ok(())
}

/// libstdc++'s `std::upper_bound` of `v` under `less`: the first position whose element
/// `x` does not follow (`less(x, v[k])`), by its halving search.
fn upper_bound(v: &[u32], x: u32, less: &impl Fn(u32, u32) -> bool) -> usize {
    let (mut first, mut len) = (0usize, v.len());
    while len > 0 {
        let half = len >> 1;
        let middle = first + half;
        if less(x, v[middle]) {
            len = half;
        } else {
            first = middle + 1;
            len = len - half - 1;
        }
    }
    first
}

/// TFLM's `MergeSort` of `v` under `less` (stable): an insertion sort (by `upper_bound` and
/// a rotation) below 20 elements, else both halves then a merge through `scratch`.
fn merge_sort(v: &mut [u32], scratch: &mut [u32], less: &impl Fn(u32, u32) -> bool) {
    let n = v.len();
    if n < 20 {
        for i in 0..n {
            let at = upper_bound(&v[..i], v[i], less);
            v[at..=i].rotate_right(1);
        }
        return;
    }
    let half = n / 2;
    merge_sort(&mut v[..half], scratch, less);
    merge_sort(&mut v[half..], scratch, less);
    let (mut left, mut right) = (0usize, half);
    for s in scratch[..n].iter_mut() {
        if left >= half || (right < n && less(v[right], v[left])) {
            *s = v[right];
            right += 1;
        } else {
            *s = v[left];
            left += 1;
        }
    }
    v.copy_from_slice(&scratch[..n]);
}

/// libstdc++'s `__adjust_heap` of the heap `v[..len]` (a hole at `hole`, `value` to place)
/// under `less`, then its `__push_heap`; in C++'s signed arithmetic (`(len - 2) / 2` is -1
/// for an empty heap).
fn adjust_heap(
    v: &mut [u32],
    hole: isize,
    len: isize,
    value: u32,
    less: &impl Fn(u32, u32) -> bool,
) {
    let at = |k: isize| k as usize;
    let top = hole;
    let (mut hole, mut child) = (hole, hole);
    while child < (len - 1) / 2 {
        child = 2 * (child + 1);
        if less(v[at(child)], v[at(child - 1)]) {
            child -= 1;
        }
        v[at(hole)] = v[at(child)];
        hole = child;
    }
    if len & 1 == 0 && child == (len - 2) / 2 {
        child = 2 * (child + 1);
        v[at(hole)] = v[at(child - 1)];
        hole = child - 1;
    }
    let mut parent = (hole - 1) / 2;
    while hole > top && less(v[at(parent)], value) {
        v[at(hole)] = v[at(parent)];
        hole = parent;
        parent = (hole - 1) / 2;
    }
    v[at(hole)] = value;
}

/// `DecreasingPartialArgSort` of `len` values (`at(i)`): `indices[..len]` set to `0, 1, …`,
/// then the first `n` put in order by libstdc++'s `std::partial_sort` (`__heap_select`:
/// `__make_heap` of the first `n`, each later element that precedes the top replacing it by
/// `__pop_heap`, even for `n = 0`; then `__sort_heap`) under TFLM's `std::tie(values[i], j) >
/// std::tie(values[j], i)`: greater values first, equal ones by index (a NaN compares as
/// equal, as the C++17 tuple comparison has it). Equal to libstdc++'s on every position,
/// the unsorted rest included.
fn partial_arg_sort(len: usize, n: usize, at: impl Fn(u32) -> f32, indices: &mut [u32]) {
    for (k, i) in indices[..len].iter_mut().enumerate() {
        *i = k as u32;
    }
    // `!(values[i] < values[j])`: true for a NaN.
    let not_below = |i: u32, j: u32| at(i).partial_cmp(&at(j)) != Some(core::cmp::Ordering::Less);
    let less = |i: u32, j: u32| at(j) < at(i) || (not_below(i, j) && i < j);
    let v = &mut indices[..len];
    let n = n.min(len);
    // Heap sizes are at most a tensor's elements (below 2^31).
    let heap = n as isize;
    if n >= 2 {
        let mut parent = (heap - 2) / 2;
        loop {
            let value = v[parent as usize];
            adjust_heap(v, parent, heap, value, &less);
            if parent == 0 {
                break;
            }
            parent -= 1;
        }
    }
    for i in n..len {
        if less(v[i], v[0]) {
            let value = v[i];
            v[i] = v[0];
            adjust_heap(v, 0, heap, value, &less);
        }
    }
    let mut last = heap;
    while last > 1 {
        last -= 1;
        let value = v[last as usize];
        v[last as usize] = v[0];
        adjust_heap(v, 0, last, value, &less);
    }
}

/// `NonMaxSuppressionSingleClassHelper` of `b.scores` (one per box): the selected boxes in
/// `b.selected`, at most `limit`; returns how many. Fails where TFLM's `ValidateBoxes` does.
fn suppress(p: &DetectionParams, b: &mut Buffers<'_>, limit: usize) -> Result<usize, KernelError> {
    let n_boxes = p.boxes;
    let invalid = b
        .decoded
        .chunks_exact(4)
        .take(n_boxes)
        .any(|c| c[0] >= c[2] || c[1] >= c[3]);
    if invalid {
        return Err(invalid_boxes());
    }
    let threshold = p.score_threshold;
    let mut kept = 0usize;
    for &s in b.scores[..n_boxes].iter() {
        if s >= threshold {
            b.keep_scores[kept] = s;
            kept += 1;
        }
    }
    // `DecreasingArgSort` (the kept indices its scratch, then written again).
    for (k, o) in b.order[..kept].iter_mut().enumerate() {
        *o = k as u32;
    }
    let keep_scores = &b.keep_scores[..kept];
    let less = |i: u32, j: u32| keep_scores[i as usize] > keep_scores[j as usize];
    merge_sort(&mut b.order[..kept], b.keep_indices, &less);
    let mut counter = 0usize;
    for (i, &s) in b.scores[..n_boxes].iter().enumerate() {
        if s >= threshold {
            b.keep_indices[counter] = i as u32;
            counter += 1;
        }
    }
    let output_size = kept.min(limit);
    let mut selected = 0usize;
    let mut active_count = kept;
    b.active[..kept].fill(1);
    for i in 0..kept {
        if active_count == 0 || selected >= output_size {
            break;
        }
        if b.active[i] != 1 {
            continue;
        }
        let box_i = b.keep_indices[b.order[i] as usize] as usize;
        b.selected[selected] = box_i as u32;
        selected += 1;
        b.active[i] = 0;
        active_count -= 1;
        for j in i + 1..kept {
            if b.active[j] == 1 {
                let box_j = b.keep_indices[b.order[j] as usize] as usize;
                if iou(b.decoded, box_i, box_j) > p.iou_threshold {
                    b.active[j] = 0;
                    active_count -= 1;
                }
            }
        }
    }
    Ok(selected)
}

/// `NonMaxSuppressionMultiClassRegularHelper`: the detections in `b.det_*`; returns how many.
fn regular(
    p: &DetectionParams,
    scores: &impl F32s,
    b: &mut Buffers<'_>,
) -> Result<usize, KernelError> {
    let offset = p.row - p.classes;
    let mut sorted = 0usize;
    for col in 0..p.classes {
        for (row, s) in b.scores[..p.boxes].iter_mut().enumerate() {
            *s = scores.at(row * p.row + col + offset);
        }
        let selected = suppress(p, b, p.per_class)?;
        let mut at = sorted;
        for k in 0..selected {
            let box_i = b.selected[k] as usize;
            b.cand_index[at] = (box_i * p.row + col + offset) as u32;
            b.cand_score[at] = b.scores[box_i];
            at += 1;
        }
        let n = at.min(p.max_detections);
        let cand = &b.cand_score[..at];
        partial_arg_sort(at, n, |i| cand[i as usize], b.order);
        for row in 0..n {
            let t = b.order[row] as usize;
            b.order[row] = b.cand_index[t];
            b.sorted_values[row] = b.cand_score[t];
        }
        b.cand_index[..n].copy_from_slice(&b.order[..n]);
        b.cand_score[..n].copy_from_slice(&b.sorted_values[..n]);
        sorted = n;
    }
    for r in 0..sorted {
        let index = b.cand_index[r] as usize;
        let anchor = index / p.row;
        b.det_anchor[r] = anchor as u32;
        b.det_class[r] = (index - anchor * p.row - offset) as u32;
        b.det_score[r] = b.cand_score[r];
    }
    Ok(sorted)
}

/// `NonMaxSuppressionMultiClassFastHelper` (one class per detection): each box's best class
/// (the partial sort of its class scores), the boxes suppressed on it; the detections in
/// `b.det_*`; returns how many.
fn fast(
    p: &DetectionParams,
    scores: &impl F32s,
    b: &mut Buffers<'_>,
) -> Result<usize, KernelError> {
    let offset = p.row - p.classes;
    for row in 0..p.boxes {
        let base = row * p.row + offset;
        partial_arg_sort(
            p.classes,
            1,
            |c| scores.at(base + c as usize),
            b.class_order,
        );
        let best = b.class_order[0];
        b.best_class[row] = best;
        b.scores[row] = scores.at(base + best as usize);
    }
    let selected = suppress(p, b, p.max_detections)?;
    for i in 0..selected {
        let anchor = b.selected[i];
        let class = b.best_class[anchor as usize];
        b.det_anchor[i] = anchor;
        b.det_class[i] = class;
        b.det_score[i] = scores.at(anchor as usize * p.row + offset + class as usize);
    }
    Ok(selected)
}

/// Runs the detection into `b` (the decoded boxes and the detections); returns their number.
fn detect(
    p: &DetectionParams,
    enc: &impl F32s,
    scores: &impl F32s,
    anchors: &impl F32s,
    b: &mut Buffers<'_>,
) -> Result<usize, KernelError> {
    if scores.count() < p.boxes * p.row {
        return Err(mismatch());
    }
    decode(p, enc, anchors, b.decoded)?;
    if p.regular {
        regular(p, scores, b)
    } else {
        fast(p, scores, b)
    }
}

/// The TFLite_Detection_PostProcess kernel (float32), run once per output.
pub struct DetectionPostProcess;

impl Kernel for DetectionPostProcess {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 3;
    const PER_OUTPUT: bool = true;
    const STATE: bool = true;
    const PRIVATE_STATE: bool = true;
    type Params = DetectionParams;

    /// The count, then each detection's class (`u32`) and score (`f32`), native-endian.
    fn private_state_bytes(p: &DetectionParams) -> usize {
        4 + 8 * p.max_detections
    }

    fn run(p: &DetectionParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let part = io.part();
        let d = p.max_detections;
        let want = match part {
            0 => 4 * d,
            1 | 2 => d,
            3 => 1,
            _ => return Err(KernelError::unsupported(OP, Unsupported::OutputCount)),
        };
        let (enc, scores, anchors) = (LeF32(io.bytes(0)), LeF32(io.bytes(1)), LeF32(io.bytes(2)));
        let mut scratch = core::mem::replace(&mut io.scratch, Scratch::empty());
        let Operands { states, out, .. } = io;
        let kept = states[0]
            .as_deref_mut()
            .filter(|s| s.len() == 4 + 8 * d)
            .ok_or(KernelError::unsupported(OP, Unsupported::ProgramMismatch))?;
        let out = out
            .as_mut_slice::<f32>()
            .map_err(|_| KernelError::unsupported(OP, Unsupported::ProgramMismatch))?;
        KernelError::check_len(OP, Operand::Output, want, out.len())?;
        out.fill(0.0);
        let (count, rows) = kept.split_at_mut(4);
        let (classes, kept_scores) = rows.split_at_mut(4 * d);
        if part == 0 {
            let mut b = Buffers::take(p, &mut scratch)
                .ok_or(KernelError::unsupported(OP, Unsupported::Scratch))?;
            let n = detect(p, &enc, &scores, &anchors, &mut b)?;
            for (o, &a) in out.chunks_exact_mut(4).zip(&b.det_anchor[..n]) {
                o.copy_from_slice(&corners(b.decoded, a as usize));
            }
            count.copy_from_slice(&(n as u32).to_ne_bytes());
            for (c, &v) in classes.chunks_exact_mut(4).zip(&b.det_class[..n]) {
                c.copy_from_slice(&v.to_ne_bytes());
            }
            for (c, &v) in kept_scores.chunks_exact_mut(4).zip(&b.det_score[..n]) {
                c.copy_from_slice(&v.to_ne_bytes());
            }
            return Ok(());
        }
        // The first run's (the runs go in output order).
        let word = |b: &[u8]| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]);
        let n = (word(count) as usize).min(d);
        match part {
            1 => {
                for (o, c) in out.iter_mut().zip(classes.chunks_exact(4)).take(n) {
                    *o = word(c) as f32;
                }
            }
            2 => {
                for (o, c) in out.iter_mut().zip(kept_scores.chunks_exact(4)).take(n) {
                    *o = f32::from_bits(word(c));
                }
            }
            _ => out[0] = n as f32,
        }
        Ok(())
    }

    const SCRATCH: bool = true;

    fn scratch_bytes(p: &DetectionParams) -> usize {
        scratch_of(p)
    }
}

/// An integer option (`AsInt32`): `None` where TFLM reads a null (the key missing).
fn int_option(cx: &Prep<'_, '_>, m: &FlexMap<'_>, key: &str) -> Result<Option<i32>, LoadError> {
    match m.get(key) {
        None | Some(FlexValue::Null) => Ok(None),
        Some(v @ (FlexValue::Int(_) | FlexValue::UInt(_) | FlexValue::Bool(_))) => {
            Ok(Some(v.as_i32()))
        }
        Some(_) => Err(cx.unsupported(Unsupported::CustomOptions)),
    }
}

/// A float option (`AsFloat`: the double `AsDouble` reads, rounded to float); 0 where TFLM
/// reads a null.
fn float_option(cx: &Prep<'_, '_>, m: &FlexMap<'_>, key: &str) -> Result<f32, LoadError> {
    match m.get(key) {
        None | Some(FlexValue::Null) => Ok(0.0),
        Some(FlexValue::Float(f)) => Ok(f as f32),
        Some(FlexValue::Int(i)) => Ok(i as f64 as f32),
        Some(FlexValue::UInt(u)) => Ok(u as f64 as f32),
        Some(FlexValue::Bool(b)) => Ok(f32::from(u8::from(b))),
        Some(_) => Err(cx.unsupported(Unsupported::CustomOptions)),
    }
}

/// Prepares TFLite_Detection_PostProcess: its options (a FlexBuffer map, read by key), three
/// float32 inputs (the box encodings and class predictions activations, the anchors a
/// constant) of consistent shapes, four float32 outputs of the shapes TFLM writes, and the
/// bounds within which TFLM's kernel computes (module docs).
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(3, 3)?;
    if cx.v.n_out != 4 {
        return Err(cx.unsupported(Unsupported::OutputCount));
    }
    let (enc, cls, anchors) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    cx.activation_of(&enc, Operand::Input(0), TensorType::Float32)?;
    cx.activation_of(&cls, Operand::Input(1), TensorType::Float32)?;
    cx.type_of(
        &anchors,
        Operand::Input(2),
        TensorType::Float32,
        TensorTypes::Float32,
    )?;
    cx.constant(&anchors, Operand::Input(2))?;
    let m = FlexMap::root(cx.op().custom_options()?)
        .ok_or(cx.unsupported(Unsupported::CustomOptions))?;
    let max_detections = int_option(cx, &m, "max_detections")?.unwrap_or(0);
    let per_detection = int_option(cx, &m, "max_classes_per_detection")?.unwrap_or(0);
    let per_class = int_option(cx, &m, "detections_per_class")?.unwrap_or(DETECTIONS_PER_CLASS);
    let regular = match m.get("use_regular_nms") {
        None | Some(FlexValue::Null) => false,
        Some(v @ (FlexValue::Int(_) | FlexValue::UInt(_) | FlexValue::Bool(_))) => v.as_bool(),
        Some(_) => return Err(cx.unsupported(Unsupported::CustomOptions)),
    };
    let score_threshold = float_option(cx, &m, "nms_score_threshold")?;
    let iou_threshold = float_option(cx, &m, "nms_iou_threshold")?;
    let classes = int_option(cx, &m, "num_classes")?.unwrap_or(0);
    let scale = [
        float_option(cx, &m, "y_scale")?,
        float_option(cx, &m, "x_scale")?,
        float_option(cx, &m, "h_scale")?,
        float_option(cx, &m, "w_scale")?,
    ];
    let (es, cs, an) = (enc.shape(), cls.shape(), anchors.shape());
    if es.len() != 3 || cs.len() != 3 || an.len() != 2 {
        return Err(cx.unsupported(Unsupported::Rank));
    }
    let (boxes, box_stride, row) = (es[1], es[2], cs[2]);
    if es[0] != 1 || cs[0] != 1 || cs[1] != boxes || box_stride < 4 || an != [boxes, 4] {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let bad = || cx.unsupported(Unsupported::DetectionParams);
    let positive = |v: i32| usize::try_from(v).ok().filter(|&v| v >= 1);
    let classes = positive(classes).ok_or(bad())?;
    let max_detections = positive(max_detections).ok_or(bad())?;
    if boxes == 0 || row < classes || row - classes > 1 {
        return Err(bad());
    }
    if !(iou_threshold > 0.0 && iou_threshold <= 1.0) {
        return Err(bad());
    }
    let per_class = if regular {
        let per_class = positive(per_class).ok_or(bad())?;
        // TFLM's candidate buffers hold `max_detections · boxes` values.
        let room = max_detections.checked_mul(boxes).ok_or(bad())?;
        if room < max_detections + per_class.min(boxes) {
            return Err(bad());
        }
        per_class
    } else {
        // One class per detection: `min(max_classes_per_detection, classes)` of 1.
        let per_detection = positive(per_detection).ok_or(bad())?;
        if per_detection.min(classes) != 1 {
            return Err(bad());
        }
        0
    };
    let shapes: [&[usize]; 4] = [
        &[1, max_detections, 4],
        &[1, max_detections],
        &[1, max_detections],
        &[1],
    ];
    for (k, want) in shapes.iter().enumerate() {
        let o = cx.output_at(k)?;
        cx.type_of(
            &o,
            Operand::Output,
            TensorType::Float32,
            TensorTypes::Float32,
        )?;
        if o.shape() != *want {
            return Err(cx.shape(ShapeFault::SizeDiffers));
        }
    }
    Prepared::of::<DetectionPostProcess>(
        cx,
        DetectionParams {
            boxes,
            box_stride,
            classes,
            row,
            max_detections,
            per_class,
            regular,
            score_threshold,
            iou_threshold,
            scale,
        },
    )
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::*;

    /// Cases of libstdc++'s `std::partial_sort` (`P`, g++ 12, `-std=c++17`) under TFLM's
    /// comparator and of TFLM's `MergeSort` (`M`): the kind, the length, `n`, the values' bits
    /// and the indices after (every position). NaNs (`7fc00000`) and ties among them.
    const CASES: &[&str] = &[
        "P 4 1 3f800000 7fc00000 c0400000 bf800000 : 0 1 2 3",
        "P 9 0 42bcdb6e 42b52492 42809249 420edb6e 419a4925 42d32492 42c84925 3f800000 42280000 : 5 1 2 3 4 0 6 7 8",
        "P 37 3 c0000000 00000000 00000000 40400000 c0400000 7fc00000 7fc00000 7fc00000 c0400000 c0400000 c0400000 bf800000 7fc00000 c0400000 40400000 bf800000 c0000000 c0400000 00000000 c0000000 40400000 bf800000 7fc00000 7fc00000 c0400000 40400000 3f800000 00000000 c0000000 3f800000 40400000 7fc00000 c0000000 7fc00000 40000000 bf800000 c0000000 : 3 14 20 0 4 5 6 7 8 9 10 11 12 13 2 15 16 17 18 19 1 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36",
        "M 24 0 42400000 43079249 42749249 42400000 430adb6e 42aa0000 42872492 4245b6db 429e9249 429b2492 42012492 412b6db7 4307db6e 425c9249 41a36db7 41500000 42820000 42624925 42092492 42140000 42e04925 42c8db6e 43050000 41549249 : 4 12 1 22 20 21 5 8 9 6 16 2 17 13 7 0 3 19 18 10 14 23 15 11",
    ];

    #[test]
    fn sorts_as_libstdcxx_and_tflm() {
        for case in CASES {
            let (head, tail) = case.split_once(" :").unwrap();
            let h: Vec<&str> = head.split_whitespace().collect();
            let (len, n): (usize, usize) = (h[1].parse().unwrap(), h[2].parse().unwrap());
            let v: Vec<f32> = h[3..]
                .iter()
                .map(|x| f32::from_bits(u32::from_str_radix(x, 16).unwrap()))
                .collect();
            let want: Vec<u32> = tail
                .split_whitespace()
                .map(|x| x.parse().unwrap())
                .collect();
            let mut idx = std::vec![0u32; len];
            if h[0] == "P" {
                partial_arg_sort(len, n, |i| v[i as usize], &mut idx);
            } else {
                for (k, o) in idx.iter_mut().enumerate() {
                    *o = k as u32;
                }
                let mut scratch = std::vec![0u32; len];
                merge_sort(&mut idx, &mut scratch, &|i: u32, j: u32| {
                    v[i as usize] > v[j as usize]
                });
            }
            assert_eq!(idx, want, "{case}");
        }
    }

    /// Intersection over union in TFLM's order: halves, a box inside another, apart, and a
    /// box of no area (0).
    #[test]
    fn intersection_over_union() {
        let boxes = [
            0.0, 0.0, 1.0, 1.0, // 0
            0.0, 0.5, 1.0, 1.5, // 1: half of 0
            0.25, 0.25, 0.75, 0.75, // 2: inside 0
            2.0, 2.0, 3.0, 3.0, // 3: apart
            0.5, 0.5, 0.5, 0.9, // 4: no area
        ];
        assert_eq!(iou(&boxes, 0, 1), 0.5 / 1.5);
        assert_eq!(iou(&boxes, 0, 2), 0.25);
        assert_eq!(iou(&boxes, 0, 3), 0.0);
        assert_eq!(iou(&boxes, 0, 4), 0.0);
    }

    /// The scratch the buffers take is what `scratch_bytes` asks, for both suppressions.
    #[test]
    fn buffers_fit_scratch_bytes() {
        for regular in [false, true] {
            let p = DetectionParams {
                boxes: 37,
                box_stride: 5,
                classes: 3,
                row: 4,
                max_detections: 9,
                per_class: 100,
                regular,
                score_threshold: 0.0,
                iou_threshold: 0.5,
                scale: [10.0, 10.0, 5.0, 5.0],
            };
            #[repr(align(16))]
            struct Block([u8; 4096]);
            let mut block = Block([0; 4096]);
            let n = scratch_of(&p);
            let mut s = Scratch::new(&mut block.0[..n]);
            assert!(Buffers::take(&p, &mut s).is_some());
            let mut s = Scratch::new(&mut block.0[..n - 16]);
            assert!(Buffers::take(&p, &mut s).is_none());
        }
    }
}
