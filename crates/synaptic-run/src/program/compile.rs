//! The one compiler of programs: a model and an I/O placement in, the program's words out.
//!
//! Why one function for three jobs: sizing a program ([`compiled_len`]), writing it
//! ([`compile`]) and checking one given by the user ([`verify`]) differ only in what happens
//! to each word produced (counted, stored, or compared with the given word), so they share
//! every line that decides what a word is; a verified program is therefore, word for word,
//! what [`compile`] makes of the model. Verifying needs no buffer: each word is compared as it
//! is produced, and a requantization entry (multiplier and shift) is derived once and checked
//! at both of its places.

use crate::error::{CustomCode, GraphFault, KernelError, LoadError, ShapeFault, Unsupported};
use crate::format::{
    h, placement_code, IoPlacement, Isa, Loc, Program, HEADER_WORDS, IO_WORDS, LOC_WORDS, MAGIC,
    OP_HEAD_WORDS, OUT_WORDS, REQUEST_WORDS, SLOT_WORDS, VERSION,
};
use crate::limits::{MAX_IO, MAX_OP_ACTIVATIONS};
use crate::model::{
    add_io_bytes, core_request, large_windows, op_code, op_view, tinfo, CoreRequest, Graph,
    TensorWindow, KNOWN_TENSORS, WINDOW_TENSORS,
};
use crate::ops::{self, AllOps, OpSet, Prep, Seen};

/// A cheap fingerprint of the model bytes: their length mixed with at most [`FINGERPRINT_WORDS`]
/// of their 32-bit words, evenly spaced (all of them in a model of at most that many), the
/// last word and the trailing bytes. A program records the fingerprint of the model it was
/// compiled from, so a program of another model is refused with a clear error before anything
/// else is compared; it need not read every byte: the program's [`seal`](super::seal) reads
/// them all (a load's check), and [`verify`] compares every word of the program with what the
/// model gives, so a model that differs only where the fingerprint does not look either gets a
/// program refused at the first word that differs or has that very program (its words depend
/// on no other byte).
pub fn fingerprint(model: &[u8]) -> u32 {
    use super::seal::mix;
    let word = |c: &[u8]| u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    let mut h = mix(0x811C_9DC5, model.len() as u32);
    let words = model.len() / 4;
    let step = words.div_ceil(FINGERPRINT_WORDS).max(1);
    // Words 0, step, 2·step, …: the first word of each run of `step` (one slice walk, no
    // bounds check a word), and of the last, shorter run.
    let mut runs = model[..4 * words].chunks_exact(4 * step);
    for c in runs.by_ref() {
        h = mix(h, word(c));
    }
    if runs.remainder().len() >= 4 {
        h = mix(h, word(runs.remainder()));
    }
    if let Some(last) = words
        .checked_sub(1)
        .and_then(|i| model.get(4 * i..4 * i + 4))
    {
        h = mix(h, word(last));
    }
    for &b in model.chunks_exact(4).remainder() {
        h = mix(h, u32::from(b));
    }
    h ^ (h >> 16)
}

/// The most words of a model [`fingerprint`] reads.
pub const FINGERPRINT_WORDS: usize = 16;

/// What happens to each word: written ([`Write`]; with no buffer, only counted) or compared
/// with a given program ([`Check`]). The compiler is generic over it, each instantiated apart:
/// no word pays for choosing, and a load that verifies a program links no writing (with the
/// feature `one-compiler`, one instance for both: [`Either`]).
trait Sink {
    /// Word `v` at index `at`: `Err(true)` if it differs from the given one, `Err(false)` if
    /// the given program ends before it.
    fn set(&mut self, at: usize, v: u32) -> Result<(), bool>;
    /// Words `ws` from index `at`: whether all are the given ones (always when writing).
    fn set_all(&mut self, at: usize, ws: &[u32]) -> bool;
    /// Word `at` reserved, produced later (zero until then when writing).
    fn reserve(&mut self, at: usize);
    /// Words `..end`, when they can be read back (not when counting, nor past a buffer that
    /// is too small).
    fn words(&self, end: usize) -> Option<&[u32]>;
    /// The given program's length (`None`: writing).
    fn given_len(&self) -> Option<usize>;
}

/// The words written to a buffer (past its end: only counted; the program is then refused as
/// too long for it).
struct Write<'o>(&'o mut [u32]);

impl Sink for Write<'_> {
    #[inline(always)]
    fn set(&mut self, at: usize, v: u32) -> Result<(), bool> {
        if let Some(x) = self.0.get_mut(at) {
            *x = v;
        }
        Ok(())
    }
    #[inline(always)]
    fn set_all(&mut self, at: usize, ws: &[u32]) -> bool {
        if let Some(to) = at
            .checked_add(ws.len())
            .and_then(|end| self.0.get_mut(at..end))
        {
            to.copy_from_slice(ws);
        }
        true
    }
    #[inline(always)]
    fn reserve(&mut self, at: usize) {
        if let Some(x) = self.0.get_mut(at) {
            *x = 0;
        }
    }
    #[inline(always)]
    fn words(&self, end: usize) -> Option<&[u32]> {
        self.0.get(..end)
    }
    #[inline(always)]
    fn given_len(&self) -> Option<usize> {
        None
    }
}

/// The words compared with a given program.
struct Check<'o>(&'o [u32]);

impl Sink for Check<'_> {
    #[inline(always)]
    fn set(&mut self, at: usize, v: u32) -> Result<(), bool> {
        match self.0.get(at) {
            Some(&g) if g == v => Ok(()),
            Some(_) => Err(true),
            None => Err(false),
        }
    }
    #[inline(always)]
    fn set_all(&mut self, at: usize, ws: &[u32]) -> bool {
        at.checked_add(ws.len())
            .and_then(|end| self.0.get(at..end))
            // Every word compared (no early exit: a program that loads is all equal).
            .is_some_and(|g| g.iter().zip(ws).fold(0, |d, (g, w)| d | (g ^ w)) == 0)
    }
    #[inline(always)]
    fn reserve(&mut self, _at: usize) {}
    #[inline(always)]
    fn words(&self, end: usize) -> Option<&[u32]> {
        self.0.get(..end)
    }
    #[inline(always)]
    fn given_len(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// The one sink of a library that links both loads (feature `one-compiler`): [`Write`] or
/// [`Check`], chosen at each word, so that the compiler is instantiated once (one for each
/// sink is some 8 KB more of flash where both are linked: a Cortex-M0's C kit did not fit).
#[cfg(feature = "one-compiler")]
enum Either<'o> {
    Write(Write<'o>),
    Check(Check<'o>),
}

#[cfg(feature = "one-compiler")]
impl Sink for Either<'_> {
    #[inline(always)]
    fn set(&mut self, at: usize, v: u32) -> Result<(), bool> {
        match self {
            Either::Write(w) => w.set(at, v),
            Either::Check(c) => c.set(at, v),
        }
    }
    #[inline(always)]
    fn set_all(&mut self, at: usize, ws: &[u32]) -> bool {
        match self {
            Either::Write(w) => w.set_all(at, ws),
            Either::Check(c) => c.set_all(at, ws),
        }
    }
    #[inline(always)]
    fn reserve(&mut self, at: usize) {
        match self {
            Either::Write(w) => w.reserve(at),
            Either::Check(c) => c.reserve(at),
        }
    }
    #[inline(always)]
    fn words(&self, end: usize) -> Option<&[u32]> {
        match self {
            Either::Write(w) => w.words(end),
            Either::Check(c) => c.words(end),
        }
    }
    #[inline(always)]
    fn given_len(&self) -> Option<usize> {
        match self {
            Either::Write(w) => w.given_len(),
            Either::Check(c) => c.given_len(),
        }
    }
}

/// The sink that writes (or counts, with no buffer): [`Write`], or [`Either`] with the feature
/// `one-compiler`.
#[cfg(not(feature = "one-compiler"))]
fn writer(out: &mut [u32]) -> Write<'_> {
    Write(out)
}

/// [`writer`] with the feature `one-compiler`.
#[cfg(feature = "one-compiler")]
fn writer(out: &mut [u32]) -> Either<'_> {
    Either::Write(Write(out))
}

/// The sink that compares with a given program: [`Check`], or [`Either`] with the feature
/// `one-compiler`.
#[cfg(not(feature = "one-compiler"))]
fn checker(program: &[u32]) -> Check<'_> {
    Check(program)
}

/// [`checker`] with the feature `one-compiler`.
#[cfg(feature = "one-compiler")]
fn checker(program: &[u32]) -> Either<'_> {
    Either::Check(Check(program))
}

/// What the compiler is producing, named by a word's mismatch (a byte in [`Emit`], not a
/// string's two words: the load's frame holds it).
#[derive(Clone, Copy)]
enum What {
    Header,
    SlotTable,
    IoTable,
    Record,
    Params,
    Multipliers,
    Shifts,
    FoldedBiases,
    Tail,
}

impl What {
    fn name(self) -> &'static str {
        match self {
            What::Header => "header",
            What::SlotTable => "slot table",
            What::IoTable => "I/O table",
            What::Record => "operator kind, inputs or output",
            What::Params => "operator parameters",
            What::Multipliers => "requantization multipliers",
            What::Shifts => "requantization shifts",
            What::FoldedBiases => "folded biases",
            What::Tail => "tensor requests",
        }
    }
}

/// The word sink, with what it is producing (for the error of a mismatch).
struct Emit<S> {
    sink: S,
    pos: usize,
    what: What,
    op: usize,
    name: &'static str,
    /// Slot table entries whose shape words were produced ([`fill_slot`]): each slot's, once,
    /// by the end.
    slots_filled: usize,
    /// The graph outputs' bytes so far (the header's [`h::OUTPUT_BYTES`] word), and the
    /// outputs whose bytes were produced ([`fill_io_output`]): each, once, by the end.
    out_bytes: usize,
    outputs_filled: u8,
}

impl<S: Sink> Emit<S> {
    fn new(sink: S) -> Self {
        Emit {
            sink,
            pos: 0,
            what: What::Header,
            op: usize::MAX,
            name: "",
            slots_filled: 0,
            out_bytes: 0,
            outputs_filled: 0,
        }
    }

    fn mismatch(&self, what: &'static str, word: usize) -> LoadError {
        LoadError::Program {
            what,
            op: self.op,
            name: self.name,
            word,
        }
    }

    /// Word `v` at index `at` (at or after `pos`; `pos` is not moved).
    #[inline(always)]
    fn set(&mut self, at: usize, v: u32, what: What) -> Result<(), LoadError> {
        match self.sink.set(at, v) {
            Ok(()) => Ok(()),
            Err(differs) => Err(self.missed(differs, what, at)),
        }
    }

    /// The error of word `at` different from the given one (`differs`) or past its end.
    #[cold]
    #[inline(never)]
    fn missed(&self, differs: bool, what: What, at: usize) -> LoadError {
        if differs {
            self.mismatch(what.name(), at)
        } else {
            self.mismatch("the program is shorter than the model's (truncated)", at)
        }
    }

    /// [`Emit::set`] of a word of the header's tables (the slot or I/O table) produced by an
    /// operator's record: a difference is named as the table's (no operator).
    #[inline(always)]
    fn set_table(&mut self, at: usize, v: u32, what: What) -> Result<(), LoadError> {
        match self.sink.set(at, v) {
            Ok(()) => Ok(()),
            Err(differs) => Err(self.table_missed(differs, what, at)),
        }
    }

    /// [`Emit::missed`] naming no operator.
    #[cold]
    #[inline(never)]
    fn table_missed(&self, differs: bool, what: What, at: usize) -> LoadError {
        let mut err = self.missed(differs, what, at);
        if let LoadError::Program { op, name, .. } = &mut err {
            (*op, *name) = (usize::MAX, "");
        }
        err
    }

    fn push(&mut self, v: u32) -> Result<(), LoadError> {
        self.set(self.pos, v, self.what)?;
        self.pos += 1;
        Ok(())
    }

    /// Words `ws` in order, as [`Emit::push`] each (the same error at the same word), in one
    /// copy or comparison.
    fn push_all(&mut self, ws: &[u32]) -> Result<(), LoadError> {
        let at = self.pos;
        if !self.sink.set_all(at, ws) {
            // The first difference, named as one word at a time would.
            for (k, &w) in ws.iter().enumerate() {
                self.set(at + k, w, self.what)?;
            }
        }
        self.pos = at.saturating_add(ws.len());
        Ok(())
    }

    fn push_usize(&mut self, v: usize) -> Result<(), LoadError> {
        let v = u32::try_from(v).map_err(|_| LoadError::Unsupported {
            what: "a value over 32 bits in the program",
        })?;
        self.push(v)
    }

    /// Reserves a word written by [`Emit::patch`] at the end (a checked program is compared
    /// there).
    fn later(&mut self) -> usize {
        self.sink.reserve(self.pos);
        self.pos += 1;
        self.pos - 1
    }

    fn patch(&mut self, at: usize, v: usize) -> Result<(), LoadError> {
        let v = u32::try_from(v).map_err(|_| LoadError::Unsupported {
            what: "a program of more than 2^32 words",
        })?;
        self.set(at, v, What::Header)
    }

    /// The words produced so far, when they can be read back (not when counting, nor past a
    /// buffer that is too small).
    fn emitted(&self) -> Option<&[u32]> {
        self.sink.words(self.pos)
    }
}

/// The words of a program of `model` with graph I/O placed as `placement`; `Err` with
/// [`LoadError::ProgramBuffer`] if `out` is too small (nothing useful is left in it then).
///
/// ```
/// use synaptic_run::{program, IoPlacement};
/// let model = synaptic_tflite::tests_support::tiny_model();
/// let n = program::compiled_len(model, IoPlacement::Shared).unwrap();
/// let mut words = vec![0u32; n];
/// assert_eq!(program::compile(model, IoPlacement::Shared, &mut words).unwrap(), n);
/// program::verify(model, IoPlacement::Shared, &words).unwrap();
/// ```
///
/// For this build's kernels ([`Isa::NATIVE`]); [`compile_for`] compiles for another target's.
pub fn compile(model: &[u8], placement: IoPlacement, out: &mut [u32]) -> Result<usize, LoadError> {
    compile_for(model, placement, Isa::NATIVE, out)
}

/// [`compile`] for the kernels of `isa` (a host compiling the program a Cortex-M4 will load:
/// [`Isa::Dsp`]). A program for either ISA loads on any target with the same outputs; one for
/// the target's own loads fastest and, compiled at load, takes the least RAM.
///
/// ```
/// use synaptic_run::{program, IoPlacement, Isa};
/// let model = synaptic_tflite::tests_support::tiny_model();
/// let n = program::compiled_len_for(model, IoPlacement::Plan, Isa::Dsp).unwrap();
/// let mut words = vec![0u32; n];
/// program::compile_for(model, IoPlacement::Plan, Isa::Dsp, &mut words).unwrap();
/// program::verify(model, IoPlacement::Plan, &words).unwrap();
/// ```
pub fn compile_for(
    model: &[u8],
    placement: IoPlacement,
    isa: Isa,
    out: &mut [u32],
) -> Result<usize, LoadError> {
    let n = compile_in::<AllOps>(model, &Graph::open(model)?, placement, isa, out)?;
    // The seal last, over every other word (a program compiled at load is not sealed: only
    // a program given to a load is checked by its seal).
    out[h::SEAL] = super::seal::seal(model, &out[..n]);
    Ok(n)
}

/// [`compile_for`] with only the kernels of `O` (the others refused: [`Unsupported::NotLinked`]).
pub(crate) fn compile_in<O: OpSet>(
    model: &[u8],
    g: &Graph<'_>,
    placement: IoPlacement,
    isa: Isa,
    out: &mut [u32],
) -> Result<usize, LoadError> {
    let got = out.len();
    let mut e = Emit::new(writer(out));
    run::<O, _>(model, fingerprint(model), g, placement, isa, &mut e)?;
    if e.pos > got {
        return Err(LoadError::ProgramBuffer { needed: e.pos, got });
    }
    Ok(e.pos)
}

/// The kernels `program` runs, as an [`OpSet::KINDS`] mask: the operator set of an image for
/// its model (`None`: not a readable program).
///
/// ```
/// use synaptic_run::{program, IoPlacement};
/// let model = synaptic_tflite::tests_support::tiny_model();
/// let mut words = vec![0u32; program::compiled_len(model, IoPlacement::Plan).unwrap()];
/// program::compile(model, IoPlacement::Plan, &mut words).unwrap();
/// // The tiny model is one ADD: one kernel.
/// assert_eq!(program::kinds(&words).unwrap().count(), 1);
/// ```
pub fn kinds(program: &[u32]) -> Option<ops::Kinds> {
    union_over_records(program, |rec| ops::Kinds::checked_one(rec.kind))
}

/// The union of `bits(record)` over `program`'s records (`None`: not a readable program, or
/// `bits` gave `None`).
fn union_over_records<T: Copy + Default + core::ops::BitOr<Output = T>>(
    program: &[u32],
    bits: impl Fn(&crate::format::OpRecord<'_>) -> Option<T>,
) -> Option<T> {
    let p = Program::new(program)?;
    let mut at = p.header(h::OPS_AT);
    let mut all = T::default();
    for _ in 0..p.ops() {
        let (rec, next) = p.op(at, ops::param_words)?;
        all = all | bits(&rec)?;
        at = next;
    }
    Some(all)
}

/// The kernels' paths `program` takes ([`crate::ops::paths`]), as an [`OpSet::PATHS`] mask:
/// with [`kinds`], what an image for its model links (`None`: not a readable program).
///
/// ```
/// use synaptic_run::{ops, program, IoPlacement};
/// let model = synaptic_tflite::tests_support::tiny_model();
/// let mut words = vec![0u32; program::compiled_len(model, IoPlacement::Plan).unwrap()];
/// program::compile(model, IoPlacement::Plan, &mut words).unwrap();
/// // ADD has one path: no bit.
/// assert_eq!(program::paths(&words), Some(0));
/// ```
pub fn paths(program: &[u32]) -> Option<u64> {
    union_over_records(program, |rec| {
        Some(ops::paths_of::<AllOps>(
            rec.kind,
            rec.params,
            !rec.constants.is_empty(),
        ))
    })
}

/// The words [`compile`] needs for `model` with graph I/O placed as `placement` (for this
/// build's kernels, [`Isa::NATIVE`]).
pub fn compiled_len(model: &[u8], placement: IoPlacement) -> Result<usize, LoadError> {
    compiled_len_for(model, placement, Isa::NATIVE)
}

/// The words [`compile_for`] needs for `model`, `placement` and `isa`.
pub fn compiled_len_for(
    model: &[u8],
    placement: IoPlacement,
    isa: Isa,
) -> Result<usize, LoadError> {
    compiled_len_in::<AllOps>(model, &Graph::open(model)?, placement, isa)
}

/// [`compiled_len_for`] with only the kernels of `O`.
pub(crate) fn compiled_len_in<O: OpSet>(
    model: &[u8],
    g: &Graph<'_>,
    placement: IoPlacement,
    isa: Isa,
) -> Result<usize, LoadError> {
    let mut e = Emit::new(writer(&mut []));
    run::<O, _>(model, fingerprint(model), g, placement, isa, &mut e)?;
    Ok(e.pos)
}

/// Checks that `program` is exactly what [`compile_for`] makes of `model`, `placement` and the
/// ISA the program names (either loads on any target):
/// [`LoadError::Program`] names the first difference (the header field, or the operator and
/// whether its kind and locations, parameters, multipliers or shifts differ).
pub fn verify(model: &[u8], placement: IoPlacement, program: &[u32]) -> Result<(), LoadError> {
    verify_in::<AllOps>(model, &Graph::open(model)?, placement, program)
}

/// [`verify`] with only the kernels of `O`: a program that needs another kernel is refused
/// ([`Unsupported::NotLinked`], naming the operator).
pub(crate) fn verify_in<O: OpSet>(
    model: &[u8],
    g: &Graph<'_>,
    placement: IoPlacement,
    program: &[u32],
) -> Result<(), LoadError> {
    let isa = super::seal::check_header(model, placement, program)?;
    let fp = fingerprint(model);
    let mut e = Emit::new(checker(program));
    run::<O, _>(model, fp, g, placement, isa, &mut e)
}

/// Slot of tensor `t` by binary search in the slot table already produced (ascending tensor
/// order); `Some(0)` when the words cannot be read back (counting: only the length matters).
fn slot_of(words: Option<&[u32]>, n_slots: usize, t: usize) -> Option<usize> {
    let Some(w) = words else {
        return Some(0);
    };
    let Some(table) = w.get(HEADER_WORDS..HEADER_WORDS + n_slots * SLOT_WORDS) else {
        return Some(0);
    };
    let (mut lo, mut hi) = (0usize, n_slots);
    while lo < hi {
        let mid = (lo + hi) / 2;
        let tm = table[mid * SLOT_WORDS] as usize;
        match tm.cmp(&t) {
            core::cmp::Ordering::Equal => return Some(mid),
            core::cmp::Ordering::Less => lo = mid + 1,
            core::cmp::Ordering::Greater => hi = mid,
        }
    }
    None
}

/// Where tensor `t` lives for an operator: a model constant, a graph I/O tensor in the SHARED
/// region, or its plan slot. Not inlined: the I/O table and every record call it.
#[inline(never)]
fn loc_of(
    g: &Graph<'_>,
    placement: IoPlacement,
    words: Option<&[u32]>,
    n_slots: usize,
    t: usize,
    data: &[u8],
    bytes: usize,
) -> Result<Loc, LoadError> {
    // State first: TFLM allocates and resets a variable tensor whatever buffer it names.
    if let Some(k) = g.state_index(t) {
        return Ok(Loc::State(k));
    }
    if !data.is_empty() {
        let model = g.model.bytes();
        let offset = (data.as_ptr() as usize).wrapping_sub(model.as_ptr() as usize);
        return match model.get(offset..offset.wrapping_add(data.len())) {
            // The tensor's bytes of its buffer, as TFLM reads them (a longer buffer's tail is
            // not the tensor's; a shorter one was refused by the operator's prepare).
            Some(s) if core::ptr::eq(s, data) => Ok(Loc::Model {
                offset,
                len: data.len().min(bytes),
            }),
            _ => Err(LoadError::Unsupported {
                what: "constant data outside the model bytes",
            }),
        };
    }
    if placement == IoPlacement::Shared {
        if let Some(k) = g.io_index(t) {
            return Ok(Loc::Shared(k));
        }
    }
    slot_of(words, n_slots, t)
        .map(Loc::Slot)
        .ok_or(LoadError::Unsupported {
            what: "a tensor with no location (not a constant, not planned)",
        })
}

/// The error of an activation the arena cannot hold ([`core_request`] is `None`).
fn cannot_hold() -> LoadError {
    LoadError::Unsupported {
        what: "an activation of a type or shape the arena cannot hold",
    }
}

/// Graph input `t`'s core allocation ([`core_request`]), from [`Seen`] where the header put
/// it, else read again (more inputs than it keeps). Not inlined: a tensor read is not in the
/// header's frame.
#[inline(never)]
fn input_request(
    g: &Graph<'_>,
    seen: &Seen<'_>,
    t: usize,
) -> Result<Option<CoreRequest>, LoadError> {
    Ok(match seen.get(t) {
        Some(i) => core_request(i),
        None => core_request(&tinfo(&g.model, &g.sg, t)?),
    })
}

/// Slot `k`'s shape and type words (reserved by [`slots_of`]) from its tensor's core
/// allocation (`None`: one the arena cannot hold, refused), produced once for each slot: by the header for a graph input, by its
/// writer's record for any other ([`run_checked`] counts them). Not inlined: one copy, and
/// not in the frame of a record.
#[inline(never)]
fn fill_slot<S: Sink>(
    e: &mut Emit<S>,
    k: usize,
    request: Option<CoreRequest>,
) -> Result<(), LoadError> {
    let (shape, ndim, dtype) = request.ok_or_else(cannot_hold)?;
    let at = HEADER_WORDS + k * SLOT_WORDS + 1;
    let words = [
        shape[0],
        shape[1],
        shape[2],
        shape[3],
        ndim as u32 | (dtype as u32) << 8,
    ];
    for (j, &w) in words.iter().enumerate() {
        e.set_table(at + j, w, What::SlotTable)?;
    }
    e.slots_filled += 1;
    Ok(())
}

#[inline(always)]
fn push_loc<S: Sink>(e: &mut Emit<S>, l: Loc) -> Result<(), LoadError> {
    let w = l.words().ok_or(LoadError::Unsupported {
        what: "a value over 32 bits in the program",
    })?;
    for v in w {
        e.push(v)?;
    }
    Ok(())
}

/// The compiler: every word of the program, in order, into `e` (`fp`: the model's
/// [`fingerprint`], found once by the caller).
fn run<O: OpSet, S: Sink>(
    model: &[u8],
    fp: u32,
    g: &Graph<'_>,
    placement: IoPlacement,
    isa: Isa,
    e: &mut Emit<S>,
) -> Result<(), LoadError> {
    let r = run_checked::<O, _>(model, fp, g, placement, isa, e);
    if r.is_err() {
        // The first operator not implemented, then the first tensor fault in operator order,
        // come before any other error ([`check_ops`], [`first_tensor_fault`]).
        check_ops(g)?;
        first_tensor_fault(g)?;
    }
    r
}

/// [`run`] but for the order of its errors: an operator not implemented is refused by its
/// record (its kernel's `prepare`), after any earlier fault.
fn run_checked<'m, O: OpSet, S: Sink>(
    model: &[u8],
    fp: u32,
    g: &Graph<'m>,
    placement: IoPlacement,
    isa: Isa,
    e: &mut Emit<S>,
) -> Result<(), LoadError> {
    // The tensors read last, kept across the records (the graph inputs read by the header:
    // the first operator's). The header's locals are in a frame of their own: only
    // this one is on the stack under the records' kernels.
    let mut seen = Seen::default();
    let (words_at, n_slots) = header(model, fp, g, placement, isa, e, &mut seen)?;
    // Operator records.
    for i in 0..g.n_ops {
        op_record::<O, _>(g, placement, isa, e, n_slots, i, &mut seen)?;
    }
    e.op = usize::MAX;
    e.name = "";
    // (Not when the words cannot be read back: counting, or a buffer too small, refused as
    // such by the caller; slots were not found then.)
    if e.emitted().is_some() && e.slots_filled != n_slots {
        return Err(LoadError::Unsupported {
            what: "a planned activation neither a graph input nor written by an operator",
        });
    }
    if usize::from(e.outputs_filled) != g.n_outputs {
        return Err(LoadError::Unsupported {
            what: "a graph output neither a graph input nor written by an operator",
        });
    }
    tail::<O, _>(g, e)?;
    e.patch(h::OUTPUT_BYTES, e.out_bytes)?;
    if let Some(given) = e.sink.given_len() {
        if given != e.pos {
            return Err(e.mismatch("longer than the model's program (extra words)", e.pos));
        }
    }
    e.patch(words_at, e.pos)
}

/// The program's tail, after the records: each graph input's and output's core allocation
/// request (what a load in the SHARED region allocates; zeros for one the arena cannot hold),
/// then each variable tensor's index, reset byte and request, so that a load of a program
/// given reads no part of the model's flatbuffer; a kernel's private state
/// ([`crate::ops::private_state`]) is no tensor ([`crate::model::PRIVATE_STATE`]), reset to 0,
/// a request of its bytes. Not inlined: its locals are its own.
#[inline(never)]
fn tail<O: OpSet, S: Sink>(g: &Graph<'_>, e: &mut Emit<S>) -> Result<(), LoadError> {
    e.op = usize::MAX;
    e.name = "";
    e.what = What::Tail;
    e.patch(h::TAIL_AT, e.pos)?;
    // The I/O tensors, then the variable tensors: one loop, one read of each.
    let n_io = g.n_inputs + g.n_outputs;
    for k in 0..n_io + g.n_states {
        let t = if k < n_io {
            g.io_tensor[k]
        } else {
            g.states[k - n_io]
        };
        if k >= n_io && t == crate::model::PRIVATE_STATE {
            let op = usize::from(g.state_owner[k - n_io]);
            let bytes = crate::ops::private_state_in::<O>(&g.model, &g.sg, op);
            let bytes = u32::try_from(bytes.max(1)).map_err(|_| LoadError::Unsupported {
                what: "a kernel's private state over 32 bits",
            })?;
            e.push_all(&[
                u32::from(t),
                0,
                bytes,
                1,
                1,
                1,
                1 | (synaptic_mem::DType::UInt8 as u32) << 8,
            ])?;
            continue;
        }
        let info = tinfo(&g.model, &g.sg, usize::from(t))?;
        let r = core_request(&info);
        if k >= n_io {
            if r.is_none() {
                return Err(LoadError::Unsupported {
                    what: "a variable tensor of a type or shape the arena cannot hold",
                });
            }
            // TFLM's `ResetVariableTensors`: an int8 tensor's zero point, 0 otherwise.
            let int8 = info.ty == synaptic_tflite::TensorType::Int8;
            e.push_usize(usize::from(t))?;
            e.push(if int8 {
                info.q.zero_point as u8 as u32
            } else {
                0
            })?;
        }
        let w = r.map_or([0; REQUEST_WORDS], |(shape, n, dtype)| {
            [
                shape[0],
                shape[1],
                shape[2],
                shape[3],
                n as u32 | (dtype as u32) << 8,
            ]
        });
        e.push_all(&w)?;
    }
    Ok(())
}

/// The program's header, slot table and I/O table (each I/O tensor read once, kept in
/// `seen`); returns the index of the header's word count (patched last) and the number of
/// slots.
#[inline(never)]
fn header<'m, S: Sink>(
    model: &[u8],
    fp: u32,
    g: &Graph<'m>,
    placement: IoPlacement,
    isa: Isa,
    e: &mut Emit<S>,
    seen: &mut Seen<'m>,
) -> Result<(usize, usize), LoadError> {
    let n_io = g.n_inputs + g.n_outputs;
    let written = g.check_dataflow()?;

    // Header.
    e.push(MAGIC)?;
    e.push(VERSION)?;
    let words_at = e.later();
    e.push_usize(model.len())?;
    e.push(fp)?;
    e.push(placement_code(placement) | isa.code() << 8)?;
    e.push_usize(g.n_ops)?;
    let slots_at = e.later();
    e.push_usize(g.n_inputs)?;
    e.push_usize(g.n_outputs)?;
    // Each graph input read once, whole: its bytes and whether it is a constant (refused by
    // the data flow check; absent from the table all the same) for the table below; it stays
    // for the records (the first operator's input). A graph output is not read here: its
    // bytes are produced by the record of the operator that writes it, which reads it whole
    // ([`fill_io_output`]; those of an output that is a graph input, here).
    // Bit `k`: I/O tensor `k` is one the arena can hold ([`core_request`]; in the plan, each
    // is a slot, whose words are refused then: [`fill_slot`]; an output's, by its writer).
    let (mut io, mut holds) = ([(0usize, false); MAX_IO], 0u8);
    let shared = placement == IoPlacement::Shared;
    e.push_usize(g.io_infos(0, g.n_inputs, true, |k, i| {
        io[k] = (i.bytes, !i.data.is_empty());
        holds |= u8::from(!shared || core_request(i).is_some()) << k;
        seen.put(*i);
    })?)?;
    e.later();
    debug_assert_eq!(e.pos, h::OUTPUT_BYTES + 1);
    for k in g.n_inputs..n_io {
        let t = g.io_tensor[k];
        io[k].1 = g.constants.get(usize::from(t)) == Some(true);
        holds |= 1 << k;
        if let Some(j) = g.io_tensor[..g.n_inputs].iter().position(|&x| x == t) {
            io[k] = io[j];
            holds = holds & !(1 << k) | (holds >> j & 1) << k;
            e.out_bytes += io[j].0;
            e.outputs_filled = e.outputs_filled.wrapping_add(1);
        }
    }
    let ops_at = e.later();
    e.push_usize(g.n_states)?;
    // Where the tail begins, after the records.
    e.later();
    // The seal: written by `compile_for` once every word is (never compared by `verify`).
    e.later();
    debug_assert_eq!(e.pos, HEADER_WORDS);

    let n_slots = slot_table(g, placement, &written, e)?;
    e.patch(slots_at, n_slots)?;

    io_table(g, placement, e, n_slots, seen, &io[..n_io], holds)?;
    debug_assert_eq!(e.pos, HEADER_WORDS + n_slots * SLOT_WORDS + n_io * IO_WORDS);
    e.patch(ops_at, e.pos)?;
    Ok((words_at, n_slots))
}

/// The program's I/O table: each I/O tensor's location and bytes (`io`, as the header read
/// them; bit `k` of `holds`: I/O tensor `k` is one the arena can hold), and the slot words of
/// the graph inputs. Not inlined: its locals are not in the header's frame.
#[inline(never)]
fn io_table<S: Sink>(
    g: &Graph<'_>,
    placement: IoPlacement,
    e: &mut Emit<S>,
    n_slots: usize,
    seen: &Seen<'_>,
    io: &[(usize, bool)],
    holds: u8,
) -> Result<(), LoadError> {
    e.what = What::IoTable;
    for (k, &(bytes, constant)) in io.iter().enumerate() {
        let t = usize::from(g.io_tensor[k]);
        let l = if constant {
            Loc::Absent
        } else {
            if holds & 1 << k == 0 {
                return Err(cannot_hold());
            }
            let l = loc_of(g, placement, e.emitted(), n_slots, t, &[], bytes)?;
            // A graph input's slot (named once): its words here, from the input as read
            // above (still kept, unless there are more inputs than [`Seen`] keeps); any other
            // slot's in the record of the operator that writes it.
            if let Loc::Slot(s) = l {
                if k < g.n_inputs && !g.io_tensor[..k].contains(&g.io_tensor[k]) {
                    fill_slot(e, s, input_request(g, seen, t)?)?;
                }
            }
            l
        };
        e.push_usize(t)?;
        push_loc(e, l)?;
        // A graph output's bytes by its writer's record (one that is a graph input: here).
        if k >= g.n_inputs && !g.io_tensor[..g.n_inputs].contains(&g.io_tensor[k]) {
            e.later();
        } else {
            e.push_usize(bytes)?;
        }
    }
    Ok(())
}

/// The error of a model with an operator not implemented (a custom one, or one with no
/// kernel), naming its first such operator, before any other error; or of an operator whose
/// tensor indices are malformed ([`op_view`]). Only on a failure path: every operator record
/// reads its operator with the same checks (its `prepare` refuses an operator not
/// implemented), so such a model always fails, and this finds which error to report.
#[cold]
#[inline(never)]
fn check_ops(g: &Graph<'_>) -> Result<(), LoadError> {
    for i in 0..g.n_ops {
        let (code, name) = op_code(&g.model, &g.sg, i)?;
        if code == synaptic_tflite::code::CUSTOM {
            let c = g
                .model
                .operator_code(g.sg.operator(i)?.opcode_index()? as usize)?;
            return Err(LoadError::CustomOperator {
                op: i,
                code: CustomCode::new(c.custom.unwrap_or(&[])),
            });
        }
        if !ops::supported(code) {
            return Err(LoadError::Operator {
                op: i,
                name,
                error: KernelError::unsupported(name, Unsupported::NotImplemented),
            });
        }
        op_view(&g.model, &g.sg, i, g.n_tensors)?;
    }
    Ok(())
}

/// The first fault of an operator's tensor ([`tinfo`]), in operator order then the operator's
/// inputs then outputs, naming that operator: the error of a model whose operators are all
/// implemented, before any other. Only on a failure path: the operator records read every
/// tensor their operator names with the same check ([`tinfo`], through [`Prep::info`]), so a
/// model with such a fault always fails there or earlier, and this finds which fault to
/// report.
#[cold]
#[inline(never)]
fn first_tensor_fault(g: &Graph<'_>) -> Result<(), LoadError> {
    for i in 0..g.n_ops {
        let v = op_view(&g.model, &g.sg, i, g.n_tensors)?;
        let ins = v.inputs[..v.n_in]
            .iter()
            .filter_map(|&t| usize::try_from(t).ok());
        for t in ins.chain(v.outputs[..v.n_out].iter().copied()) {
            tinfo(&g.model, &g.sg, t).map_err(|e| e.at_op(i, v.name))?;
        }
    }
    Ok(())
}

/// The slot table: the planned activations in ascending tensor order (synaptic-plan's slot
/// numbering, `Analysis::ephemeral_tensors`); returns their number. The tensors an operator
/// uses: in a graph of at most [`KNOWN_TENSORS`] tensors, those the data-flow check found
/// written (`written`: every other one an operator uses is a constant), else a pass over the
/// operators a window of tensors at a time.
#[inline(never)]
fn slot_table<S: Sink>(
    g: &Graph<'_>,
    placement: IoPlacement,
    written: &[u32; KNOWN_TENSORS / 32],
    e: &mut Emit<S>,
) -> Result<usize, LoadError> {
    e.what = What::SlotTable;
    // (The window only for a larger graph: 512 bytes neither cleared nor on the stack for
    // nothing.)
    if g.n_tensors <= KNOWN_TENSORS && !large_windows() {
        slots_of(g, placement, written, None, e)
    } else {
        slots_windowed(g, placement, written, e)
    }
}

/// [`slot_table`] of a larger graph: the tensors an operator uses, a window at a time.
#[inline(never)]
fn slots_windowed<S: Sink>(
    g: &Graph<'_>,
    placement: IoPlacement,
    written: &[u32; KNOWN_TENSORS / 32],
    e: &mut Emit<S>,
) -> Result<usize, LoadError> {
    let mut large = [0u32; WINDOW_TENSORS / 32];
    slots_of(
        g,
        placement,
        written,
        Some(TensorWindow::new(0, &mut large)),
        e,
    )
}

/// [`slot_table`]'s pass over the tensors, those an operator uses found in `written` or
/// (a larger graph) `used` (one copy for both).
#[inline(never)]
fn slots_of<S: Sink>(
    g: &Graph<'_>,
    placement: IoPlacement,
    written: &[u32; KNOWN_TENSORS / 32],
    mut used: Option<TensorWindow<'_>>,
    e: &mut Emit<S>,
) -> Result<usize, LoadError> {
    let mut n_slots = 0usize;
    for t in 0..g.n_tensors {
        let io_k = g.io_index(t);
        // (No window: a small graph, all of whose tensors the written set holds.)
        let uses = match &mut used {
            None => written.get(t / 32).is_some_and(|w| w & 1 << (t % 32) != 0),
            Some(u) => {
                if !u.covers(t) || t == 0 {
                    g.used_window(u, t)?;
                }
                u.has(t)
            }
        };
        if !(io_k.is_some() || uses) {
            continue;
        }
        // A constant is no slot (its operator's record checks it): found by its buffer
        // alone (as the graph's open found it), without reading the rest of the tensor.
        if g.is_constant(t)? {
            continue;
        }
        // A variable tensor is state (its own persistent tensor), not a plan slot.
        if g.state_index(t).is_some() {
            if io_k.is_some() {
                return Err(LoadError::Unsupported {
                    what: "a variable tensor as a graph input or output",
                });
            }
            continue;
        }
        if io_k.is_some() && placement == IoPlacement::Shared {
            continue;
        }
        // The slot's shape words are produced where its tensor is read whole
        // ([`fill_slot`]): by the header (a graph input) or by the record of the operator
        // that writes it (every other slot: the data-flow check found each written once).
        e.push_usize(t)?;
        for _ in 1..SLOT_WORDS {
            e.later();
        }
        n_slots += 1;
    }
    Ok(n_slots)
}

/// The record of operator `i`.
#[inline(never)]
fn op_record<'m, O: OpSet, S: Sink>(
    g: &Graph<'m>,
    placement: IoPlacement,
    isa: Isa,
    e: &mut Emit<S>,
    n_slots: usize,
    i: usize,
    seen: &mut Seen<'m>,
) -> Result<(), LoadError> {
    // Read where it was returned (an `OpView` is some 150 bytes: not moved out).
    let viewed = op_view(&g.model, &g.sg, i, g.n_tensors);
    let v = match &viewed {
        Ok(v) => v,
        Err(e) => return Err(*e),
    };
    // Its tensors read first: its kernel borrows them.
    seen.read_operands(&g.model, &g.sg, Some(&g.constants), v);
    let cx = Prep {
        model: &g.model,
        sg: &g.sg,
        v,
        index: i,
        kinds: O::KINDS,
        seen,
        constants: Some(&g.constants),
        isa,
    };
    // Read where it was returned (a `Prepared` is some 300 bytes: not moved out).
    let prepared = ops::prepare::<O>(&cx);
    let prep = match &prepared {
        Ok(p) => p,
        Err(e) => return Err(*e),
    };
    record_words(g, placement, e, n_slots, &cx, prep)
}

/// Slot `k`'s words ([`fill_slot`]) from operator `cx`'s output `t`: found in [`Seen`],
/// where the operator's first output was read, else read again ([`fill_read`]). Not inlined:
/// the request is not in the record's frame.
#[inline(never)]
fn fill_output<S: Sink>(
    e: &mut Emit<S>,
    k: usize,
    cx: &Prep<'_, '_>,
    t: usize,
) -> Result<(), LoadError> {
    match cx.seen.get(t) {
        Some(i) => fill_slot(e, k, core_request(i)),
        None => fill_read(e, k, cx, t),
    }
}

/// The bytes of graph output `t` (written by operator `cx`) in each of its I/O table entries
/// (reserved by [`io_table`]; one the arena cannot hold refused, [`core_request`]), added to
/// the header's sum of the outputs' bytes. Not inlined: a tensor read is not in the record's
/// frame.
#[inline(never)]
fn fill_io_output<S: Sink>(
    e: &mut Emit<S>,
    g: &Graph<'_>,
    placement: IoPlacement,
    n_slots: usize,
    cx: &Prep<'_, '_>,
    t: usize,
) -> Result<(), LoadError> {
    let bytes = match cx.seen.get(t) {
        Some(i) if placement == IoPlacement::Plan || core_request(i).is_some() => i.bytes,
        Some(_) => return Err(cannot_hold()),
        None => io_output_bytes(cx, placement, t)?,
    };
    let io_at = HEADER_WORDS + n_slots * SLOT_WORDS;
    for k in g.n_inputs..g.n_inputs + g.n_outputs {
        if usize::from(g.io_tensor[k]) != t {
            continue;
        }
        e.out_bytes = add_io_bytes(e.out_bytes, bytes, t)?;
        e.outputs_filled = e.outputs_filled.wrapping_add(1);
        let at = io_at + k * IO_WORDS + IO_WORDS - 1;
        e.set_table(at, u32::try_from(bytes).unwrap_or(u32::MAX), What::IoTable)?;
    }
    Ok(())
}

/// [`fill_io_output`] of an output not in [`Seen`]: its bytes read again, in a frame of its
/// own.
#[cold]
#[inline(never)]
fn io_output_bytes(
    cx: &Prep<'_, '_>,
    placement: IoPlacement,
    t: usize,
) -> Result<usize, LoadError> {
    let i = cx.info(t)?;
    if placement == IoPlacement::Shared && core_request(&i).is_none() {
        return Err(cannot_hold());
    }
    Ok(i.bytes)
}

/// [`fill_output`] of an output not in [`Seen`] (an operator's second output): read again,
/// in a frame of its own.
#[cold]
#[inline(never)]
fn fill_read<S: Sink>(
    e: &mut Emit<S>,
    k: usize,
    cx: &Prep<'_, '_>,
    t: usize,
) -> Result<(), LoadError> {
    let request = cx.core_request(t)?;
    fill_slot(e, k, request)
}

/// The words of operator record `cx` once prepared (`prep`), and the slot words of its planned
/// outputs. Not inlined: its locals are not on the stack under the kernel's `prepare`.
#[inline(never)]
fn record_words<'m, S: Sink>(
    g: &Graph<'m>,
    placement: IoPlacement,
    e: &mut Emit<S>,
    n_slots: usize,
    cx: &Prep<'_, 'm>,
    prep: &ops::Prepared<'m>,
) -> Result<(), LoadError> {
    let (v, i) = (cx.v, cx.index);
    let (table, constants) = (&prep.table, &prep.constants);
    let kerr = |error: KernelError| LoadError::Operator {
        op: i,
        name: v.name,
        error,
    };
    e.op = i;
    e.name = v.name;
    e.what = What::Record;
    let kind = prep.kind;
    let pw = prep.words().len();
    let n = table.len();
    let code =
        u32::try_from(v.code)
            .ok()
            .filter(|&c| c < 1 << 12)
            .ok_or(LoadError::Unsupported {
                what: "an operator code over 12 bits",
            })?;
    let n_extra = v.n_out - 1;
    // A kernel's private state: one more input, its location the last ([`Loc::State`]).
    let private = g.private_state(i);
    let n_in = v.n_in + usize::from(private.is_some());
    e.push(kind | (n_in as u32) << 8 | code << 16 | (n_extra as u32) << 28)?;
    e.push_usize(
        OP_HEAD_WORDS + n_in * LOC_WORDS + n_extra * OUT_WORDS + pw + 2 * n + constants.len(),
    )?;
    e.push_usize(v.output)?;
    let (out_data, out_bytes) = cx.data_of(v.output)?;
    let out_loc = loc_of(
        g,
        placement,
        e.emitted(),
        n_slots,
        v.output,
        out_data,
        out_bytes,
    )?;
    match out_loc {
        Loc::State(_) => {
            return Err(LoadError::Unsupported {
                what: "an operator output that is a variable tensor",
            })
        }
        Loc::Slot(s) => fill_output(e, s, cx, v.output)?,
        _ => {}
    }
    if g.io_index(v.output).is_some() {
        fill_io_output(e, g, placement, n_slots, cx, v.output)?;
    }
    push_loc(e, out_loc)?;
    e.push_usize(n)?;
    let mut activations = 0;
    for k in 0..v.n_in {
        let l = match usize::try_from(v.inputs[k]) {
            // An input the kernel never reads has no location: nothing views it (it is
            // checked all the same, as every tensor an operator names).
            Ok(t) if !prep.reads(k) => {
                cx.data_of(t)?;
                Loc::Absent
            }
            Ok(t) => {
                let (data, bytes) = cx.data_of(t)?;
                loc_of(g, placement, e.emitted(), n_slots, t, data, bytes)?
            }
            Err(_) => Loc::Absent,
        };
        // State (a variable tensor, a kernel's own state) only where the kernel reads state:
        // it has no view of it elsewhere.
        let as_state = || {
            1u32.checked_shl(k as u32)
                .is_some_and(|b| ops::state_inputs(prep.kind) & b != 0)
        };
        if let (Loc::State(_), Ok(t)) = (l, usize::try_from(v.inputs[k])) {
            if !as_state() {
                return Err(LoadError::Graph {
                    op: Some(i),
                    tensor: t,
                    fault: GraphFault::StateNotRead,
                });
            }
        }
        // The interpreter views at most this many activations per operator.
        if matches!(l, Loc::Slot(_) | Loc::Shared(_)) {
            activations += 1;
            if activations > MAX_OP_ACTIVATIONS {
                return Err(kerr(KernelError::unsupported(
                    v.name,
                    Unsupported::TooManyInputs,
                )));
            }
        }
        push_loc(e, l)?;
    }
    if let Some(k) = private {
        push_loc(e, Loc::State(k))?;
    }
    // The further outputs: planned, or the kernel's own state; graph I/O in the SHARED
    // region only for a kernel run once per output (the interpreter splits that region
    // around one output a run).
    let own_state = g.own_state(i);
    let per_output = ops::per_output(kind);
    for &t in &v.outputs[1..v.n_out] {
        let (data, bytes) = cx.data_of(t)?;
        let l = loc_of(g, placement, e.emitted(), n_slots, t, data, bytes)?;
        match l {
            Loc::Slot(s) => {
                fill_output(e, s, cx, t)?;
                if g.io_index(t).is_some() {
                    fill_io_output(e, g, placement, n_slots, cx, t)?;
                }
            }
            Loc::State(_) if own_state == Some(t) => {}
            Loc::Shared(_) if per_output => fill_io_output(e, g, placement, n_slots, cx, t)?,
            _ => {
                return Err(LoadError::Unsupported {
                    what: "a second output that is graph I/O in the SHARED region, a \
                           constant or a variable tensor",
                })
            }
        }
        e.push_usize(t)?;
        push_loc(e, l)?;
    }
    e.what = What::Params;
    e.push_all(prep.words())?;
    let base = e.pos;
    for c in 0..n {
        let (m, s) = table.entry(c).map_err(kerr)?;
        e.set(base + c, m as u32, What::Multipliers)?;
        e.set(base + n + c, s as u32, What::Shifts)?;
    }
    e.pos = base + 2 * n;
    e.what = What::FoldedBiases;
    // Each word straight to the sink, a fault as a byte (no error built in the loop's frame):
    // `None` an entry that cannot be derived, `Some(differs)` a word the sink refused.
    let fault = constants.each(|k| match k {
        Some(k) => match e.sink.set(e.pos, k as u32) {
            Ok(()) => {
                e.pos += 1;
                Ok(())
            }
            Err(differs) => Err(Some(differs)),
        },
        None => Err(None),
    });
    match fault {
        Ok(()) => Ok(()),
        Err(Some(differs)) => Err(e.missed(differs, e.what, e.pos)),
        Err(None) => Err(kerr(KernelError::shape(v.name, ShapeFault::Channels))),
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::{compile, compiled_len, IoPlacement};
    use crate::model::WINDOWS_ONLY;
    use core::sync::atomic::Ordering;

    /// A program's slot table (and so every word) is the same whether the used tensors come
    /// from the data-flow check's written set or from the window pass over the operators.
    #[test]
    fn the_slot_tables_two_paths_agree() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/models");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return;
        };
        let mut compared = 0;
        for f in entries.flatten() {
            if f.path().extension().is_none_or(|e| e != "tflite") {
                continue;
            }
            let bytes = std::fs::read(f.path()).unwrap();
            for io in [IoPlacement::Plan, IoPlacement::Shared] {
                let words = |windows| {
                    WINDOWS_ONLY.store(windows, Ordering::Relaxed);
                    let n = compiled_len(&bytes, io).ok()?;
                    let mut w = std::vec![0u32; n];
                    compile(&bytes, io, &mut w).ok()?;
                    Some(w)
                };
                let (a, b) = (words(false), words(true));
                WINDOWS_ONLY.store(false, Ordering::Relaxed);
                assert_eq!(a, b, "{:?} {io:?}", f.path());
                compared += usize::from(a.is_some());
            }
        }
        assert!(compared >= 20, "{compared} programs compared");
    }
}
