//! The program format: every word an inference reads, prepared once — the header, the slot
//! and I/O tables, one record per operator — and its reader (`Program`, every read
//! bounds-checked) and word codec (`codec`). The compiler that writes it is
//! [`crate::program`]; this module names no operator (a record's kind is a code of the
//! operator list, [`crate::ops`]).
//!
//! ## Format (version [`VERSION`])
//!
//! Little-endian `u32` words (a `[u32]` in memory; a file holds them little-endian). All values
//! fit 32 bits on every target (the compiler refuses a model where one would not), so the
//! program compiled on a 64-bit host is the one the 32-bit target runs.
//!
//! | words | content |
//! |---|---|
//! | header, [`HEADER_WORDS`] | [`MAGIC`], [`VERSION`], total words, model length in bytes, [`fingerprint`](crate::program::fingerprint) of the model bytes, I/O placement (0 SHARED, 1 plan) `|` [`Isa`] `<< 8` (0 portable, 1 DSP), operators, planned slots, graph inputs, graph outputs, input bytes, output bytes, word index of the first operator record, variable tensors (state), word index of the tail, the [`seal`](crate::program::seal) (a hash of every model byte and every other program word) |
//! | slot table, [`SLOT_WORDS`] per planned activation (slot order: ascending tensor index) | tensor index, the core allocation request of `PlannedInference::alloc`: shape (4 words), `ndim \| dtype << 8` |
//! | I/O table, [`IO_WORDS`] per graph input then output | tensor index, location (3 words), bytes |
//! | one record per operator, in execution order | `kind \| inputs << 8 \| operator code << 16 \| second outputs << 28` (the code: a builtin's, or a custom operator's of [`crate::ops::CUSTOM_OPS`]; 12 bits), record words, output tensor index, output location (3 words), table entries `n`, each input's location (3 words), each further output's tensor index and location (4 words), the kernel's parameters (a fixed count per kind: the `*Params` struct's words, one codec per struct), `n` multipliers, `n` shifts, then the record's remaining words: its constants (a kernel that folds its bias and input offset: `bias + input_offset · Σ filter row`, one per output channel, so that its inner loop is a plain dot product; a depthwise multiplier's filter in tap pairs for the DSP extension's `SMLAD`; see [`crate::ops`]) |
//! | tail: the I/O requests, [`REQUEST_WORDS`] per graph input then output | the core allocation request of each (shape, 4 words; `ndim \| dtype << 8`; all 0 for one the arena cannot hold), what a load in the SHARED region allocates |
//! | tail: the state table, [`STATE_WORDS`] per variable tensor (tensor order) | tensor index, the byte it is reset to (an int8 tensor's zero point, else 0), its core allocation request |
//!
//! A location is 3 words `tag, a, b`: 0 absent (an optional input), 1 plan slot `a`, 2 graph
//! I/O tensor `a` in the SHARED region, 3 model constant: `b` bytes at byte offset `a` of the
//! model (weights stay in the model, read in place), 4 state `a` (a variable tensor, or an
//! output holding a kernel's own state: persistent, kept across inferences).

pub(crate) mod codec;

use synaptic_mem::DType;

/// The instructions a program's kernels multiply with, which decide what the program carries:
/// a FULLY_CONNECTED's folded constants (`bias + input_offset · Σ filter row`) pay where a row's
/// dot product adds the input offset to every input on its own, not where two rows share
/// the input and the DSP extension adds the offset in the same instruction that widens it
/// (`SXTAB16`). Both forms give the same outputs on every target (the kernel runs whichever
/// the program holds); the ISA only decides which the compiler writes, so the load does not
/// sum a filter the inference never needed summed.
///
/// A program records its ISA ([`crate::program::verify`] checks the program against the model
/// with the ISA it names), so a program compiled for either loads on any target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isa {
    /// Scalar multiply-accumulates (Cortex-M0/M0+/M3, Armv8-M Baseline and Mainline
    /// without the DSP extension, hosts).
    Portable,
    /// The DSP extension's SIMD multiply-accumulates (Armv7E-M: Cortex-M4, M7; Armv8-M
    /// Mainline with it: Cortex-M33, M35P, M55, M85).
    Dsp,
}

impl Isa {
    /// The ISA of this build of the runtime (`Dsp` on `thumbv7em-*` and a DSP `thumbv8m.main-*`): what
    /// [`crate::program::compile`] and a program compiled at load use.
    pub const NATIVE: Isa = if cfg!(synaptic_dsp) {
        Isa::Dsp
    } else {
        Isa::Portable
    };

    /// The ISA of a Rust target triple built with no rustc flags (`thumbv7em-none-eabihf`:
    /// `Dsp`; `thumbv8m.main-none-eabihf`: `Portable`, the DSP extension being optional
    /// there): [`Isa::of_build`] with no flags.
    pub fn of_target(triple: &str) -> Isa {
        Isa::of_build(triple, "")
    }

    /// The ISA of a build for Rust target `triple` with rustc flags `rustflags` (Cargo's
    /// `CARGO_ENCODED_RUSTFLAGS`), as this crate's build script decides it for its own build
    /// (one rule, `src/isa_rule.rs`): `Dsp` on `thumbv7em-*`, and on `thumbv8m.main-*` for a
    /// core with the DSP extension (`target-cpu=cortex-m33`, `cortex-m35p`, `cortex-m55`,
    /// `cortex-m85`, or `target-feature=+dsp`). For a build script compiling a program for the
    /// firmware it builds.
    ///
    /// ```
    /// use synaptic_run::Isa;
    /// assert_eq!(Isa::of_build("thumbv7em-none-eabihf", ""), Isa::Dsp);
    /// assert_eq!(Isa::of_build("thumbv8m.main-none-eabihf", ""), Isa::Portable);
    /// let m33 = "-C\x1ftarget-cpu=cortex-m33";
    /// assert_eq!(Isa::of_build("thumbv8m.main-none-eabihf", m33), Isa::Dsp);
    /// assert_eq!(Isa::of_build("thumbv7m-none-eabi", m33), Isa::Portable);
    /// ```
    pub fn of_build(triple: &str, rustflags: &str) -> Isa {
        if crate::isa_rule::has_dsp(triple, rustflags) {
            Isa::Dsp
        } else {
            Isa::Portable
        }
    }

    /// The header's code (bits 8.. of its placement word).
    pub(crate) fn code(self) -> u32 {
        match self {
            Isa::Portable => 0,
            Isa::Dsp => 1,
        }
    }

    /// The ISA of header code `c`, if it is one.
    pub(crate) fn from_code(c: u32) -> Option<Isa> {
        match c {
            0 => Some(Isa::Portable),
            1 => Some(Isa::Dsp),
            _ => None,
        }
    }
}

/// Where the graph's input and output tensors live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoPlacement {
    /// In the arena's SHARED region (the spec's IPC lifetime): allocated once at load, they
    /// survive every reset, so a DMA or another core can fill the next input between
    /// inferences. The plan must leave them out (`synaptic-plan`'s `IoPlacement::Shared`).
    Shared,
    /// Inside the plan, sharing memory with activations not live with them (least RAM). The
    /// input is copied in at the start of an inference and the output out at its end.
    Plan,
}

/// A tensor's size as a contract or an in-place kernel sees it (an operator's output).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Elements.
    pub elems: usize,
    /// Bytes.
    pub bytes: usize,
}

/// First word of every program: `"SYNP"` little-endian.
pub const MAGIC: u32 = u32::from_le_bytes(*b"SYNP");
/// The format version this runtime reads and writes (8: the header's last word is the
/// program's [`seal`](crate::program::seal); 7: the model's fingerprint reads at
/// most [`FINGERPRINT_WORDS`](crate::program::FINGERPRINT_WORDS) = 16 of its words; 6: the
/// header names the [`Isa`] the program was compiled for; 5: 64 words; 4: 1024).
pub const VERSION: u32 = 8;
/// Words of the header.
pub const HEADER_WORDS: usize = 16;
/// Words per entry of the I/O table.
pub const IO_WORDS: usize = 5;
/// Words per tensor request (shape, `ndim | dtype << 8`) of the tail's I/O table.
pub const REQUEST_WORDS: usize = 5;
/// Words per entry of the tail's state table: tensor index, reset byte, its request.
pub const STATE_WORDS: usize = 2 + REQUEST_WORDS;
/// Words per entry of the slot table.
pub const SLOT_WORDS: usize = 6;
/// Words of a location.
pub(crate) const LOC_WORDS: usize = 3;
/// Words of each output after an operator's first: its tensor index and location.
pub(crate) const OUT_WORDS: usize = 1 + LOC_WORDS;
/// Words of an operator record before its input locations.
pub(crate) const OP_HEAD_WORDS: usize = 4 + LOC_WORDS;

/// Header word indices.
pub(crate) mod h {
    pub const MAGIC: usize = 0;
    pub const VERSION: usize = 1;
    pub const WORDS: usize = 2;
    pub const MODEL_LEN: usize = 3;
    pub const FINGERPRINT: usize = 4;
    pub const PLACEMENT: usize = 5;
    pub const OPS: usize = 6;
    pub const SLOTS: usize = 7;
    pub const INPUTS: usize = 8;
    pub const OUTPUTS: usize = 9;
    pub const INPUT_BYTES: usize = 10;
    pub const OUTPUT_BYTES: usize = 11;
    pub const OPS_AT: usize = 12;
    pub const STATES: usize = 13;
    pub const TAIL_AT: usize = 14;
    pub const SEAL: usize = 15;
}

/// The header code of an I/O placement.
pub(crate) fn placement_code(p: IoPlacement) -> u32 {
    match p {
        IoPlacement::Shared => 0,
        IoPlacement::Plan => 1,
    }
}

/// Where an operator's tensor lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Loc {
    /// An optional input that is absent (or a tensor with no location).
    Absent,
    /// A planned activation: plan slot.
    Slot(usize),
    /// A graph input or output in the SHARED region: its index among inputs then outputs.
    Shared(usize),
    /// A model constant: byte range of the model.
    Model { offset: usize, len: usize },
    /// A variable tensor (state kept across invocations): its index among the model's
    /// variable tensors, in tensor order.
    State(usize),
}

impl Loc {
    pub(crate) fn words(self) -> Option<[u32; LOC_WORDS]> {
        let w = |v: usize| u32::try_from(v).ok();
        Some(match self {
            Loc::Absent => [0, 0, 0],
            Loc::Slot(s) => [1, w(s)?, 0],
            Loc::Shared(k) => [2, w(k)?, 0],
            Loc::Model { offset, len } => [3, w(offset)?, w(len)?],
            Loc::State(k) => [4, w(k)?, 0],
        })
    }

    /// The state index of a location's words if it is [`Loc::State`] (no other decoding: the
    /// interpreter's per-operator look for state inputs).
    #[inline]
    pub(crate) fn state_of(w: &[u32]) -> Option<usize> {
        match *w {
            [4, k, _] => Some(k as usize),
            _ => None,
        }
    }

    #[inline]
    pub(crate) fn get(w: &[u32]) -> Option<Loc> {
        let [tag, a, b] = *w else { return None };
        let (a, b) = (usize::try_from(a).ok()?, usize::try_from(b).ok()?);
        match tag {
            0 => Some(Loc::Absent),
            1 => Some(Loc::Slot(a)),
            2 => Some(Loc::Shared(a)),
            3 => Some(Loc::Model { offset: a, len: b }),
            4 => Some(Loc::State(a)),
            _ => None,
        }
    }
}

impl OpRecord<'_> {
    /// Number of inputs.
    #[inline]
    pub(crate) fn n_inputs(&self) -> usize {
        self.inputs.len() / LOC_WORDS
    }

    /// Location of input `k`.
    #[inline]
    pub(crate) fn input(&self, k: usize) -> Option<Loc> {
        Loc::get(self.inputs.get(k * LOC_WORDS..(k + 1) * LOC_WORDS)?)
    }

    /// Number of outputs after the first.
    #[inline]
    pub(crate) fn n_extra(&self) -> usize {
        self.extra.len() / OUT_WORDS
    }

    /// Output `1 + k`: its tensor index and location.
    #[inline]
    pub(crate) fn extra_output(&self, k: usize) -> Option<(usize, Loc)> {
        let w = self.extra.get(k * OUT_WORDS..(k + 1) * OUT_WORDS)?;
        Some((w[0] as usize, Loc::get(&w[1..])?))
    }

    /// The locations of the inputs, in order (`None`: a location that does not decode).
    #[inline]
    pub(crate) fn input_locs(&self) -> impl Iterator<Item = Option<Loc>> + '_ {
        self.inputs.chunks_exact(LOC_WORDS).map(Loc::get)
    }
}

/// A program as the interpreter reads it: the header checked once ([`Program::new`]), every
/// other read bounds-checked.
#[derive(Clone, Copy)]
pub(crate) struct Program<'w> {
    w: &'w [u32],
}

/// One operator record, decoded (its parameters stay words, decoded by the kernel's arm).
pub(crate) struct OpRecord<'w> {
    /// Kind code: which kernel of the operator list ([`crate::ops`]).
    pub kind: u32,
    /// The kernel's parameters (`param_words(kind)` words).
    pub params: &'w [u32],
    /// Output tensor index (for observers).
    pub output: usize,
    /// Output location.
    pub out_loc: Loc,
    /// Input locations, [`LOC_WORDS`] each.
    pub inputs: &'w [u32],
    /// The outputs after the first, [`OUT_WORDS`] each (tensor index, location).
    pub extra: &'w [u32],
    /// The output a run writes: 0 as read; output `k` of a kernel run once per output
    /// (`Kernel::PER_OUTPUT`: the interpreter's record of that run has `output`, `out_loc`
    /// of output `k`, no `extra`).
    pub part: usize,
    /// Multipliers.
    pub multipliers: &'w [u32],
    /// Shifts.
    pub shifts: &'w [u32],
    /// The record's constants: per-output-channel accumulator constants (a kernel's folded
    /// biases), a depthwise multiplier's filter in tap pairs for the DSP extension, the FFT's
    /// tables; empty for the kinds that have none.
    pub constants: &'w [u32],
}

impl<'w> Program<'w> {
    /// No program: every count 0.
    pub(crate) const EMPTY: Program<'static> = Program { w: &[] };

    /// The program in `w` if its header is this format's, its length is the header's and its
    /// graph inputs and outputs are at most [`crate::limits::MAX_IO`] (what the compiler
    /// writes: every sum of I/O counts below is then small, whatever the words).
    pub(crate) fn new(w: &'w [u32]) -> Option<Self> {
        let hd = w.get(..HEADER_WORDS)?;
        let io = hd[h::INPUTS].checked_add(hd[h::OUTPUTS]);
        (hd[h::MAGIC] == MAGIC
            && hd[h::VERSION] == VERSION
            && hd[h::WORDS] as usize == w.len()
            && io.is_some_and(|n| n as usize <= crate::limits::MAX_IO))
        .then_some(Program { w })
    }

    #[inline]
    pub(crate) fn header(&self, i: usize) -> usize {
        self.w.get(i).map_or(0, |&v| v as usize)
    }

    /// Operators.
    pub(crate) fn ops(&self) -> usize {
        self.header(h::OPS)
    }

    /// Planned slots.
    pub(crate) fn slots(&self) -> usize {
        self.header(h::SLOTS)
    }

    /// Graph inputs.
    pub(crate) fn inputs(&self) -> usize {
        self.header(h::INPUTS)
    }

    /// Graph outputs.
    pub(crate) fn outputs(&self) -> usize {
        self.header(h::OUTPUTS)
    }

    /// Variable tensors (state).
    pub(crate) fn states(&self) -> usize {
        self.header(h::STATES)
    }

    /// A core allocation request (shape, dimensions, dtype) of 5 words at `at`.
    // Inlined (M4 hello_world_int8: its inference's registers); one copy on Armv6-M (flash).
    #[cfg_attr(not(synaptic_v6m), inline(always))]
    #[cfg_attr(synaptic_v6m, inline(never))]
    fn request(&self, at: usize) -> Option<crate::model::CoreRequest> {
        let e = self.w.get(at..)?.get(..REQUEST_WORDS)?;
        let nd = (e[4] & 0xff) as usize;
        let dtype = DType::from_u8((e[4] >> 8) as u8)?;
        (1..=4).contains(&nd).then_some(())?;
        Some(([e[0], e[1], e[2], e[3]], nd, dtype))
    }

    /// I/O tensor `k`'s core allocation request (`None`: one the arena cannot hold).
    pub(crate) fn io_request(&self, k: usize) -> Option<crate::model::CoreRequest> {
        self.request(
            self.header(h::TAIL_AT)
                .wrapping_add(k.wrapping_mul(REQUEST_WORDS)),
        )
    }

    /// Variable tensor `k`: its tensor index, the byte it is reset to, its request.
    pub(crate) fn state(&self, k: usize) -> Option<(usize, u8, crate::model::CoreRequest)> {
        // After the I/O requests (at most `MAX_IO`: `Program::new`).
        let io = (self.inputs() + self.outputs()) * REQUEST_WORDS;
        let at = self
            .header(h::TAIL_AT)
            .wrapping_add(io)
            .wrapping_add(k.wrapping_mul(STATE_WORDS));
        let e = self.w.get(at..)?;
        Some((
            *e.first()? as usize,
            *e.get(1)? as u8,
            self.request(at + 2)?,
        ))
    }

    /// I/O entry `k` (inputs then outputs): tensor, location, bytes.
    #[inline]
    pub(crate) fn io(&self, k: usize) -> Option<(usize, Loc, usize)> {
        // Checked: the counts are the program's words (a forged count must not wrap on 32 bits).
        let at = self
            .slot_at(self.slots())
            .wrapping_add(k.wrapping_mul(IO_WORDS));
        let e = self.w.get(at..)?.get(..IO_WORDS)?;
        Some((e[0] as usize, Loc::get(&e[1..4])?, e[4] as usize))
    }

    /// Word index of slot `s`'s entry (`s` = the slot count: the word after the table).
    /// Wrapping, not checked: a forged count past the address space gives an index the read
    /// then refuses or reads consistently wherever it is used, never a panic (and no 64-bit
    /// multiply on Armv6-M).
    #[inline]
    fn slot_at(&self, s: usize) -> usize {
        self.slots_at().wrapping_add(s.wrapping_mul(SLOT_WORDS))
    }

    /// Word index of the slot table.
    pub(crate) fn slots_at(&self) -> usize {
        HEADER_WORDS
    }

    /// Slot `s`'s allocation request: shape, dimensions, dtype.
    #[inline]
    pub(crate) fn slot(&self, s: usize) -> Option<([u32; 4], usize, DType)> {
        // After its tensor index.
        self.request(self.slot_at(s).checked_add(1)?)
    }

    /// Elements and bytes of slot `s`'s tensor (`None`: no such slot, or a size that does not
    /// fit `usize`).
    pub(crate) fn slot_geometry(&self, s: usize) -> Option<Geometry> {
        let (shape, n, dtype) = self.slot(s)?;
        let mut elems = 1usize;
        for &d in &shape[..n] {
            elems = elems.checked_mul(usize::try_from(d).ok()?)?;
        }
        let bytes = synaptic_mem::shape_bytes(&shape[..n], dtype).ok()?.1;
        Some(Geometry {
            elems,
            bytes: usize::try_from(bytes).ok()?,
        })
    }

    /// Slot `s`'s tensor index.
    pub(crate) fn slot_tensor(&self, s: usize) -> Option<usize> {
        self.w.get(self.slot_at(s)).map(|&t| t as usize)
    }

    /// The operator record at word `at` and the word after it; `param_words(kind)` is the
    /// parameter word count of a kind (the operator list's, [`crate::ops::param_words`]: this
    /// format names no operator).
    #[inline]
    pub(crate) fn op(
        &self,
        at: usize,
        param_words: impl Fn(u32) -> Option<usize>,
    ) -> Option<(OpRecord<'w>, usize)> {
        let rest = self.w.get(at..)?;
        let &[head, len, output, t, a, b, n, ..] = rest else {
            return None;
        };
        let kind = head & 0xff;
        let n_in = ((head >> 8) & 0xff) as usize;
        let n_extra = (head >> 28) as usize;
        let len = len as usize;
        let rec = rest.get(..len)?;
        // Each part in turn: the header, the input locations, the further outputs, the parameters, `n`
        // multipliers, `n` shifts, the constants (the rest).
        let (_, body) = rec.split_at_checked(OP_HEAD_WORDS)?;
        let (inputs, body) = body.split_at_checked(n_in * LOC_WORDS)?;
        let (extra, body) = body.split_at_checked(n_extra * OUT_WORDS)?;
        let (params, body) = body.split_at_checked(param_words(kind)?)?;
        let (multipliers, body) = body.split_at_checked(n as usize)?;
        let (shifts, constants) = body.split_at_checked(n as usize)?;
        Some((
            OpRecord {
                kind,
                params,
                output: output as usize,
                out_loc: Loc::get(&[t, a, b])?,
                inputs,
                extra,
                part: 0,
                multipliers,
                shifts,
                constants,
            },
            at + len,
        ))
    }
}
