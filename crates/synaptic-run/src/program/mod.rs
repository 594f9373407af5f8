//! The compiled program: everything an inference needs, prepared once, in RAM or in flash.
//!
//! ## Why a program
//!
//! Parsing the flatbuffer and preparing every operator again at each inference (software
//! `f64` on a Cortex-M3) cost hello_world_int8 41,214 instructions per inference against
//! TFLM's 5,450, and keeping the prepared data in the arena cost RAM (person_detect: 21,936
//! bytes of requantization tables). The program holds, for one model and one I/O placement,
//! every operator's prepared parameters, where each of its tensors lives and its
//! requantization table, so that an inference reads only the program, the arena and the weights
//! (in place in the model bytes). It is plain `u32` words: [`compile`] writes it on the host
//! (`synmem emit`, firmware `build.rs`), where it goes into flash as a `static [u32; N]`
//! beside the model ([`crate::Interpreter::with_program`]: no per-operator RAM), or at load
//! into one PERSISTENT tensor ([`crate::Interpreter::new`]).
//!
//! ## Trust
//!
//! A program given by the user is verified at load against the model: [`verify`] compiles the
//! model again word by word and compares (no buffer: each word is compared as it is produced),
//! so a program that loaded is exactly what [`compile`] makes of that model, and nothing in it
//! can disagree with the model. The inference path still decodes every word with checked
//! reads: a program that is somehow wrong is an error there, never a panic or undefined
//! behaviour (there is no `unsafe` in this crate).
//!
//! ## Format (version [`VERSION`])
//!
//! Little-endian `u32` words (a `[u32]` in memory; a file holds them little-endian). All values
//! fit 32 bits on every target (the compiler refuses a model where one would not), so the
//! program compiled on a 64-bit host is the one the 32-bit target runs.
//!
//! | words | content |
//! |---|---|
//! | header, [`HEADER_WORDS`] | [`MAGIC`], [`VERSION`], total words, model length in bytes, [`fingerprint`] of the model bytes, I/O placement (0 SHARED, 1 plan), operators, planned slots, graph inputs, graph outputs, input bytes, output bytes, word index of the first operator record |
//! | slot table, [`SLOT_WORDS`] per planned activation (slot order: ascending tensor index) | tensor index, the core allocation request of `PlannedInference::alloc`: shape (4 words), `ndim \| dtype << 8` |
//! | I/O table, [`IO_WORDS`] per graph input then output | tensor index, location (3 words), bytes |
//! | one record per operator, in execution order | `kind \| inputs << 8 \| builtin code << 16`, record words, output tensor index, output location (3 words), table entries `n`, each input's location (3 words), the kernel's parameters (a fixed count per kind: the `*Params` struct's words, one codec per struct), `n` multipliers, `n` shifts, then the record's remaining words: per-output-channel accumulator constants (FULLY_CONNECTED without a filter offset: `bias + input_offset · Σ filter row`, one per output channel, so that its inner loop is a plain dot product; none for the other kinds) |
//!
//! A location is 3 words `tag, a, b`: 0 absent (an optional input), 1 plan slot `a`, 2 graph
//! I/O tensor `a` in the SHARED region, 3 model constant: `b` bytes at byte offset `a` of the
//! model (weights stay in the model, read in place).

pub(crate) mod codec;
mod compile;
pub(crate) mod prepare;

pub use compile::{compile, compiled_len, fingerprint, verify};

use synaptic_mem::DType;

use crate::interpreter::IoPlacement;
use crate::kernels::{
    activations, conv, elementwise, fully_connected, layout, pooling, quantize, reduce,
};
use crate::math::QuantParams;
use codec::Words;
use prepare::Prepared;

/// First word of every program: `"SYNP"` little-endian.
pub const MAGIC: u32 = u32::from_le_bytes(*b"SYNP");
/// The format version this runtime reads and writes.
pub const VERSION: u32 = 2;
/// Words of the header.
pub const HEADER_WORDS: usize = 13;
/// Words per entry of the I/O table.
pub const IO_WORDS: usize = 5;
/// Words per entry of the slot table.
pub const SLOT_WORDS: usize = 6;
/// Words of a location.
pub(crate) const LOC_WORDS: usize = 3;
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
}

impl Loc {
    pub(crate) fn words(self) -> Option<[u32; LOC_WORDS]> {
        let w = |v: usize| u32::try_from(v).ok();
        Some(match self {
            Loc::Absent => [0, 0, 0],
            Loc::Slot(s) => [1, w(s)?, 0],
            Loc::Shared(k) => [2, w(k)?, 0],
            Loc::Model { offset, len } => [3, w(offset)?, w(len)?],
        })
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
            _ => None,
        }
    }
}

/// Kind codes of operator records: which kernel, hence which parameter struct.
pub(crate) const KIND_CONV: u32 = 1;
pub(crate) const KIND_DEPTHWISE: u32 = 2;
pub(crate) const KIND_FULLY_CONNECTED: u32 = 3;
pub(crate) const KIND_AVERAGE_POOL: u32 = 4;
pub(crate) const KIND_MAX_POOL: u32 = 5;
pub(crate) const KIND_SOFTMAX: u32 = 6;
pub(crate) const KIND_LOGISTIC: u32 = 7;
pub(crate) const KIND_ADD: u32 = 8;
pub(crate) const KIND_MUL: u32 = 9;
pub(crate) const KIND_MEAN: u32 = 10;
pub(crate) const KIND_PAD: u32 = 11;
pub(crate) const KIND_CONCAT: u32 = 12;
pub(crate) const KIND_TRANSPOSE: u32 = 13;
pub(crate) const KIND_COPY: u32 = 14;
pub(crate) const KIND_QUANTIZE: u32 = 15;
pub(crate) const KIND_REQUANTIZE: u32 = 16;
pub(crate) const KIND_DEQUANTIZE: u32 = 17;

impl Prepared {
    /// The record's kind code.
    pub(crate) fn kind(&self) -> u32 {
        match self {
            Prepared::Conv(_) => KIND_CONV,
            Prepared::Depthwise(_) => KIND_DEPTHWISE,
            Prepared::FullyConnected(_) => KIND_FULLY_CONNECTED,
            Prepared::AveragePool(_) => KIND_AVERAGE_POOL,
            Prepared::MaxPool(_) => KIND_MAX_POOL,
            Prepared::Softmax(_) => KIND_SOFTMAX,
            Prepared::Logistic(_) => KIND_LOGISTIC,
            Prepared::Add(_) => KIND_ADD,
            Prepared::Mul(_) => KIND_MUL,
            Prepared::Mean(_) => KIND_MEAN,
            Prepared::Pad(..) => KIND_PAD,
            Prepared::Concat(_) => KIND_CONCAT,
            Prepared::Transpose(_) => KIND_TRANSPOSE,
            Prepared::Copy => KIND_COPY,
            Prepared::Quantize(_) => KIND_QUANTIZE,
            Prepared::Requantize(_) => KIND_REQUANTIZE,
            Prepared::Dequantize(_) => KIND_DEQUANTIZE,
        }
    }

    /// Parameter words of kind `kind` (a table lookup: the interpreter asks once per
    /// operator).
    #[inline]
    pub(crate) fn param_words(kind: u32) -> Option<usize> {
        /// Index: kind; `usize::MAX`: no such kind.
        const WORDS: [usize; 18] = [
            usize::MAX,
            conv::ConvParams::N,
            conv::ConvParams::N,
            fully_connected::FullyConnectedParams::N,
            pooling::PoolParams::N,
            pooling::PoolParams::N,
            activations::SoftmaxParams::N,
            activations::LogisticParams::N,
            elementwise::AddParams::N,
            elementwise::MulParams::N,
            reduce::MeanParams::N,
            <(layout::PadParams, i8)>::N,
            layout::ConcatParams::N,
            layout::TransposeParams::N,
            0,
            QuantParams::N,
            quantize::RequantizeParams::N,
            QuantParams::N,
        ];
        WORDS
            .get(kind as usize)
            .copied()
            .filter(|&n| n != usize::MAX)
    }

    /// Writes the parameters into `w` (exactly [`Prepared::param_words`] words); `false` if a
    /// value does not fit 32 bits.
    pub(crate) fn put(&self, w: &mut [u32]) -> bool {
        match self {
            Prepared::Conv(p) | Prepared::Depthwise(p) => p.put(w),
            Prepared::FullyConnected(p) => p.put(w),
            Prepared::AveragePool(p) | Prepared::MaxPool(p) => p.put(w),
            Prepared::Softmax(p) => p.put(w),
            Prepared::Logistic(p) => p.put(w),
            Prepared::Add(p) => p.put(w),
            Prepared::Mul(p) => p.put(w),
            Prepared::Mean(p) => p.put(w),
            Prepared::Pad(p, v) => (*p, *v).put(w),
            Prepared::Concat(p) => p.put(w),
            Prepared::Transpose(p) => p.put(w),
            Prepared::Copy => w.is_empty(),
            Prepared::Quantize(q) | Prepared::Dequantize(q) => q.put(w),
            Prepared::Requantize(p) => p.put(w),
        }
    }

    /// The parameters of kind `kind` from `w` (exactly its words); the interpreter decodes
    /// each kind's struct in its kernel's arm instead, this is the codec's whole-enum inverse of
    /// [`Prepared::put`] (tests).
    #[cfg(test)]
    pub(crate) fn get(kind: u32, w: &[u32]) -> Option<Prepared> {
        if Prepared::param_words(kind)? != w.len() {
            return None;
        }
        Some(match kind {
            1 => Prepared::Conv(Words::get(w)?),
            2 => Prepared::Depthwise(Words::get(w)?),
            3 => Prepared::FullyConnected(Words::get(w)?),
            4 => Prepared::AveragePool(Words::get(w)?),
            5 => Prepared::MaxPool(Words::get(w)?),
            6 => Prepared::Softmax(Words::get(w)?),
            7 => Prepared::Logistic(Words::get(w)?),
            8 => Prepared::Add(Words::get(w)?),
            9 => Prepared::Mul(Words::get(w)?),
            10 => Prepared::Mean(Words::get(w)?),
            11 => {
                let (p, v) = <(layout::PadParams, i8)>::get(w)?;
                Prepared::Pad(p, v)
            }
            12 => Prepared::Concat(Words::get(w)?),
            13 => Prepared::Transpose(Words::get(w)?),
            14 => Prepared::Copy,
            15 => Prepared::Quantize(Words::get(w)?),
            16 => Prepared::Requantize(Words::get(w)?),
            17 => Prepared::Dequantize(Words::get(w)?),
            _ => return None,
        })
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
    /// Builtin operator code.
    pub builtin: i32,
    /// Kind code ([`KIND_CONV`], ...).
    pub kind: u32,
    /// The kernel's parameters ([`Prepared::param_words`] words).
    pub params: &'w [u32],
    /// Output tensor index (for observers).
    pub output: usize,
    /// Output location.
    pub out_loc: Loc,
    /// Input locations, [`LOC_WORDS`] each.
    pub inputs: &'w [u32],
    /// Multipliers.
    pub multipliers: &'w [u32],
    /// Shifts.
    pub shifts: &'w [u32],
    /// Per-output-channel accumulator constants (folded FULLY_CONNECTED biases; empty for the
    /// other kinds).
    pub constants: &'w [u32],
}

impl<'w> Program<'w> {
    /// No program: every count 0.
    pub(crate) const EMPTY: Program<'static> = Program { w: &[] };

    /// The program in `w` if its header is this format's and its length is the header's.
    pub(crate) fn new(w: &'w [u32]) -> Option<Self> {
        let hd = w.get(..HEADER_WORDS)?;
        (hd[h::MAGIC] == MAGIC && hd[h::VERSION] == VERSION && hd[h::WORDS] as usize == w.len())
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

    /// I/O entry `k` (inputs then outputs): tensor, location, bytes.
    #[inline]
    pub(crate) fn io(&self, k: usize) -> Option<(usize, Loc, usize)> {
        let at = HEADER_WORDS + self.slots() * SLOT_WORDS + k * IO_WORDS;
        let e = self.w.get(at..at + IO_WORDS)?;
        Some((e[0] as usize, Loc::get(&e[1..4])?, e[4] as usize))
    }

    /// Word index of the slot table.
    pub(crate) fn slots_at(&self) -> usize {
        HEADER_WORDS
    }

    /// Slot `s`'s allocation request: shape, dimensions, dtype.
    #[inline]
    pub(crate) fn slot(&self, s: usize) -> Option<([u32; 4], usize, DType)> {
        let at = self.slots_at() + s * SLOT_WORDS;
        let e = self.w.get(at..at + SLOT_WORDS)?;
        let nd = (e[5] & 0xff) as usize;
        let dtype = DType::from_u8((e[5] >> 8) as u8)?;
        (1..=4).contains(&nd).then_some(())?;
        Some(([e[1], e[2], e[3], e[4]], nd, dtype))
    }

    /// Slot `s`'s tensor index.
    pub(crate) fn slot_tensor(&self, s: usize) -> Option<usize> {
        self.w
            .get(self.slots_at() + s * SLOT_WORDS)
            .map(|&t| t as usize)
    }

    /// The operator record at word `at` and the word after it.
    #[inline]
    pub(crate) fn op(&self, at: usize) -> Option<(OpRecord<'w>, usize)> {
        let rest = self.w.get(at..)?;
        let &[head, len, output, t, a, b, n, ..] = rest else {
            return None;
        };
        let kind = head & 0xff;
        let n_in = ((head >> 8) & 0xff) as usize;
        let len = len as usize;
        let rec = rest.get(..len)?;
        // Each part in turn: the header, the input locations, the parameters, `n`
        // multipliers, `n` shifts, the constants (the rest).
        let (_, body) = rec.split_at_checked(OP_HEAD_WORDS)?;
        let (inputs, body) = body.split_at_checked(n_in * LOC_WORDS)?;
        let (params, body) = body.split_at_checked(Prepared::param_words(kind)?)?;
        let (multipliers, body) = body.split_at_checked(n as usize)?;
        let (shifts, constants) = body.split_at_checked(n as usize)?;
        Some((
            OpRecord {
                builtin: (head >> 16) as i32,
                kind,
                params,
                output: output as usize,
                out_loc: Loc::get(&[t, a, b])?,
                inputs,
                multipliers,
                shifts,
                constants,
            },
            at + len,
        ))
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::codec::Words;
    use super::*;
    use crate::kernels::Dims;

    /// Every operator record of every committed single-operator model and shared model:
    /// its parameters decode ([`Prepared::get`]) and encode back to the same words, and every
    /// kind (so every `*Params` struct) is among them.
    #[test]
    fn every_params_struct_round_trips() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files: Vec<_> = std::fs::read_dir(root.join("tests/models"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        for m in [
            "person_detect",
            "micro_speech_quantized",
            "kws_ref_model",
            "hello_world_int8",
        ] {
            let p = root
                .join("../../../shared/models")
                .join(std::format!("{m}.tflite"));
            if p.is_file() {
                files.push(p);
            }
        }
        let mut seen = [false; 18];
        for f in files {
            let bytes = std::fs::read(&f).unwrap();
            let n = compiled_len(&bytes, IoPlacement::Plan).unwrap();
            let mut w = std::vec![0u32; n];
            compile(&bytes, IoPlacement::Plan, &mut w).unwrap();
            let p = Program::new(&w).unwrap();
            let mut at = p.header(h::OPS_AT);
            for _ in 0..p.ops() {
                let (rec, next) = p.op(at).unwrap();
                let prep = Prepared::get(rec.kind, rec.params).unwrap_or_else(|| {
                    panic!("{}: kind {} does not decode", f.display(), rec.kind)
                });
                assert_eq!(prep.kind(), rec.kind);
                let mut again = std::vec![0u32; rec.params.len()];
                assert!(prep.put(&mut again));
                assert_eq!(again, rec.params, "{}: kind {}", f.display(), rec.kind);
                // One word short or long is refused, never read past.
                assert!(
                    Prepared::get(rec.kind, &rec.params[..rec.params.len().saturating_sub(1)])
                        .is_none()
                        || rec.params.is_empty()
                );
                seen[rec.kind as usize] = true;
                at = next;
            }
            assert_eq!(at, w.len());
        }
        for (k, seen) in seen.iter().enumerate().skip(1) {
            assert!(seen, "kind {k} is in no test model");
        }
    }

    #[test]
    fn words_refuse_what_no_value_encodes() {
        assert_eq!(bool::get(&[2]), None);
        assert_eq!(bool::get(&[1]), Some(true));
        assert_eq!(i8::get(&[200]), None);
        assert_eq!(i8::get(&[(-5i32) as u32]), Some(-5));
        assert_eq!(u32::get(&[]), None);
        let mut w = [0u32; 1];
        assert!(!usize::MAX.put(&mut w) || usize::BITS == 32);
        let d = Dims::new("T", &[2, 3]).unwrap();
        let mut w = [0u32; Dims::N];
        assert!(d.put(&mut w));
        assert_eq!(Dims::get(&w), Some(d));
        w[0] = 7; // rank over MAX_DIMS
        assert_eq!(Dims::get(&w), None);
        assert_eq!(<[i32; 2]>::get(&[1]), None);
        assert_eq!(<(i32, i32)>::get(&[1, 2]), Some((1, 2)));
        assert_eq!(Loc::get(&[4, 0, 0]), None);
        assert_eq!(
            Loc::get(&[3, 10, 20]),
            Some(Loc::Model {
                offset: 10,
                len: 20
            })
        );
        assert!(Prepared::get(99, &[]).is_none());
        assert_eq!(
            Prepared::get(KIND_COPY, &[]).map(|p| p.kind()),
            Some(KIND_COPY)
        );
    }
}
