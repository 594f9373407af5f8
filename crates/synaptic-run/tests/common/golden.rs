//! Golden files: TFLM's bytes of every non-constant tensor, committed in `tests/golden/`, so
//! that `cargo test` checks every operator without Python (`tests/golden.rs`); the oracle step
//! (`tests/oracle.rs`) compares them with the live TFLM dump and rewrites them on request
//! (`SYNAPTIC_GOLDEN=update scripts/test-oracle.sh`). The format is in `tests/golden/README.md`.
//!
//! One file per model, `tests/golden/<model>.golden`, text, one record per line:
//!
//! ```text
//! synaptic-golden 1
//! model <file name> <length> <sha256>
//! run <k> seed <u64 hex> <input length> <input sha256>       (random_inputs, Rng::new(seed))
//! run <k> bmp <file> <input length> <input sha256>           (bmp_input of ../shared/inputs/<file>)
//! run <k> bytes <label> <input length> <input sha256> <hex>  (the input bytes themselves)
//! tensor <k> <index> <length> hex <bytes in hex>             (TFLM's bytes, in full)
//! tensor <k> <index> <length> sha256 <sha256>                (their SHA-256)
//! ```
//!
//! Lines starting with `#` are comments. The tensors recorded are the non-constant ones TFLM
//! is given or computes: the graph inputs and every operator's outputs ([`recorded`]); bytes
//! are raw (row-major, little-endian), whatever the type.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::tflite::Model;
use super::{bmp_input, random_inputs, Dump, Rng, Want};

/// The first line of every golden file.
pub const MAGIC: &str = "synaptic-golden 1";

/// The oracle's seeds for run `s` of a model: `Rng::new(SEED_BASE + s)`.
pub const SEED_BASE: u64 = 0x5EED_0000;

/// The seeded runs of every single-operator model.
pub const SINGLE_OP_SEEDS: u64 = 4;

/// The real inputs a shared model is run on, beside its seeded ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Real {
    /// Seeded inputs only.
    None,
    /// `../shared/inputs/person.bmp` and `no_person.bmp` (read in Rust, `bmp_input`).
    PersonBmps,
    /// The four WAVs of `../shared/inputs` turned into features by TFLM running
    /// `audio_preprocessor_int8.tflite` (Python: the feature bytes are stored in the file).
    SpeechWavs,
    /// Seeded runs that once found a difference from TFLM, run first (from the zero state of
    /// a streaming model), before the regular seeds: `Rng::new(seed)` for each.
    Found(&'static [u64]),
}

/// A shared model (`../shared/models/<name>.tflite`) with a golden file.
#[derive(Debug, Clone, Copy)]
pub struct SharedModel {
    pub name: &'static str,
    /// Seeded runs: seeds `SEED_BASE + 0 .. SEED_BASE + seeds`.
    pub seeds: u64,
    pub real: Real,
}

const fn shared_model(name: &'static str, seeds: u64, real: Real) -> SharedModel {
    SharedModel { name, seeds, real }
}

/// The shared models the oracle step runs and `tests/golden.rs` checks without Python: **the
/// one list**; a model is added by one line here, then `SYNAPTIC_GOLDEN=update
/// scripts/test-oracle.sh` writes its golden file. (The single-operator models are every
/// `tests/models/*.tflite`, no list.)
pub const SHARED_MODELS: &[SharedModel] = &[
    shared_model("hello_world_int8", 16, Real::None),
    shared_model("micro_speech_quantized", 4, Real::SpeechWavs),
    shared_model("kws_ref_model", 4, Real::None),
    shared_model("person_detect", 4, Real::PersonBmps),
    shared_model("pretrainedResnet_quant", 4, Real::None),
    // ad01_int8 first runs an input on which a per-tensor FULLY_CONNECTED was 1 LSB off TFLM's
    // (the scale product rounded to float: docs/runtime.md, "Scale products in double").
    shared_model("ad01_int8", 4, Real::Found(&[1039])),
    shared_model("simple_add_model", 4, Real::None),
    shared_model("hello_world_float", 16, Real::None),
    shared_model("ad01_fp32", 4, Real::None),
    shared_model("pretrainedResnet", 4, Real::None),
    // Streaming models: 30 consecutive invocations (three seeded sequences of ten), their
    // state (SVDF memories) carried from one to the next, compared after each.
    shared_model("keyword_scrambled", 30, Real::None),
    shared_model("keyword_scrambled_8bit", 30, Real::None),
    // LSTMs: hidden and cell state carried the same way. trained_lstm_int8 first runs the two
    // inputs on which its cell state was 1 LSB off TFLM's (the gates' scale products rounded
    // to float: docs/runtime.md, "Scale products in double").
    shared_model("trained_lstm_int8", 30, Real::Found(&[23550, 23551])),
    shared_model("micro_speech_lstm", 30, Real::None),
    shared_model("dtln_noise_suppression", 30, Real::None),
    shared_model("trained_lstm", 30, Real::None),
    // The audio front end (TFLM's signal library): the spectral subtraction's noise estimate
    // carried across 30 consecutive 30 ms frames.
    shared_model("audio_preprocessor_int8", 30, Real::None),
    shared_model("audio_preprocessor_float", 30, Real::None),
];

/// `tests/golden/`.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// `tests/golden/<name>.golden`.
pub fn path(name: &str) -> PathBuf {
    dir().join(format!("{name}.golden"))
}

/// [`path`] as messages show it, from the repository root.
pub fn shown(name: &str) -> String {
    format!("crates/synaptic-run/tests/golden/{name}.golden")
}

/// The committed single-operator models, `tests/models/*.tflite`, sorted: (name, path).
pub fn single_op_models() -> Vec<(String, PathBuf)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/models");
    let mut v: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tflite"))
        .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    v.sort();
    v
}

/// How a golden file keeps a tensor: in full (single-operator models, small) or as a digest
/// (shared models, whose activations are large).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Store {
    Full,
    Digest,
}

/// SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn from_hex(s: &str) -> Result<Vec<u8>, String> {
    if s.len() % 2 != 0 {
        return Err(format!("odd-length hex ({} digits)", s.len()));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|e| format!("bad hex: {e}")))
        .collect()
}

fn digest_from_hex(s: &str) -> Result<[u8; 32], String> {
    from_hex(s)?
        .try_into()
        .map_err(|_| format!("a sha256 has 64 hex digits, not {}", s.len()))
}

/// The tensors a golden file records for `model`, ascending: the non-constant graph inputs,
/// operator outputs and variable tensors (the state after the inference): what TFLM is given,
/// computes or keeps (a tensor nothing writes has no value).
pub fn recorded(model: &Model) -> Vec<usize> {
    let states = model
        .tensors
        .iter()
        .enumerate()
        .filter(|(_, t)| t.variable)
        .map(|(i, _)| i);
    let mut v: Vec<usize> = model
        .inputs
        .iter()
        .copied()
        .chain(states)
        .chain(
            model
                .operators
                .iter()
                .flat_map(|op| op.outputs.iter().filter(|&&o| o >= 0).map(|&o| o as usize)),
        )
        .filter(|&t| !model.tensors[t].is_constant())
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Where a run's input bytes come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `random_inputs(model, &mut Rng::new(seed))`.
    Seed(u64),
    /// `bmp_input(../shared/inputs/<file>)`.
    Bmp(String),
    /// The bytes themselves, labelled (micro_speech's features of a WAV, made by TFLM).
    Bytes(String, Vec<u8>),
}

impl Source {
    /// The labels of `sources`, short: "4 seeded, person.bmp, no_person.bmp".
    pub fn summary(sources: &[Source]) -> String {
        let seeds = sources
            .iter()
            .filter(|s| matches!(s, Source::Seed(_)))
            .count();
        let mut v = vec![format!("{seeds} seeded")];
        v.extend(
            sources
                .iter()
                .filter(|s| !matches!(s, Source::Seed(_)))
                .map(Source::label),
        );
        v.join(", ")
    }

    /// The run's label in messages: `seed 0x5eed0002`, `person.bmp`, `yes_1000ms.wav`.
    pub fn label(&self) -> String {
        match self {
            Source::Seed(s) => format!("seed {s:#x}"),
            Source::Bmp(f) | Source::Bytes(f, _) => f.clone(),
        }
    }

    /// The input bytes (`shared`: the shared directory, needed for `Bmp` only).
    pub fn input(&self, model: &Model, shared: Option<&Path>) -> Vec<u8> {
        match self {
            Source::Seed(s) => random_inputs(model, &mut Rng::new(*s)),
            Source::Bmp(f) => bmp_input(
                &shared
                    .expect("a bmp input needs ../shared")
                    .join("inputs")
                    .join(f),
            ),
            Source::Bytes(_, b) => b.clone(),
        }
    }
}

/// The sources of a shared model's runs: the seeds, then the real inputs (the WAVs' features
/// through TFLM's preprocessor: Python, the oracle step only).
pub fn live_sources(m: &SharedModel) -> Vec<Source> {
    let found = match m.real {
        Real::Found(seeds) => seeds,
        _ => &[],
    };
    let mut v: Vec<Source> = found.iter().map(|&s| Source::Seed(s)).collect();
    v.extend((0..m.seeds).map(|s| Source::Seed(SEED_BASE + s)));
    match m.real {
        Real::None | Real::Found(_) => {}
        Real::PersonBmps => {
            v.extend(["person.bmp", "no_person.bmp"].map(|f| Source::Bmp(f.to_string())))
        }
        Real::SpeechWavs => {
            let inputs = super::shared().join("inputs");
            for w in ["yes", "no", "silence", "noise"] {
                let f = format!("{w}_1000ms.wav");
                let b = super::speech_features(&inputs.join(&f));
                v.push(Source::Bytes(f, b));
            }
        }
    }
    v
}

/// A tensor's value in a golden file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Bytes(Vec<u8>),
    Sha256(usize, [u8; 32]),
}

impl Value {
    pub fn of(bytes: &[u8], store: Store) -> Self {
        match store {
            Store::Full => Value::Bytes(bytes.to_vec()),
            Store::Digest => Value::Sha256(bytes.len(), sha256(bytes)),
        }
    }
    /// "N B, sha256 X".
    pub fn describe(&self) -> String {
        match self {
            Value::Bytes(b) => format!("{} B, sha256 {}", b.len(), to_hex(&sha256(b))),
            Value::Sha256(n, d) => format!("{n} B, sha256 {}", to_hex(d)),
        }
    }

    pub fn want(&self) -> Want<'_> {
        match self {
            Value::Bytes(b) => Want::Bytes(b),
            Value::Sha256(len, d) => Want::Sha256(*len, *d),
        }
    }
}

/// One run of a golden file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    pub source: Source,
    pub input_len: usize,
    pub input_sha256: [u8; 32],
    /// Tensor index → TFLM's value.
    pub tensors: BTreeMap<usize, Value>,
}

/// A golden file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Golden {
    pub model: String,
    pub model_len: usize,
    pub model_sha256: [u8; 32],
    pub runs: Vec<Run>,
}

impl Golden {
    /// The golden file of a live TFLM dump: `sources[r]` gave `inputs[r]`, which gave `dump[r]`.
    pub fn from_dump(
        file: &str,
        model_bytes: &[u8],
        sources: &[Source],
        inputs: &[Vec<u8>],
        dump: &Dump,
        store: Store,
    ) -> Self {
        let model = Model::parse(model_bytes);
        let keep = recorded(&model);
        assert_eq!(sources.len(), dump.len());
        let runs = sources
            .iter()
            .zip(inputs)
            .zip(dump)
            .map(|((source, input), tensors)| Run {
                source: source.clone(),
                input_len: input.len(),
                input_sha256: sha256(input),
                tensors: keep
                    .iter()
                    .map(|&t| (t, Value::of(&tensors[t], store)))
                    .collect(),
            })
            .collect();
        Golden {
            model: file.to_string(),
            model_len: model_bytes.len(),
            model_sha256: sha256(model_bytes),
            runs,
        }
    }

    pub fn to_text(&self) -> String {
        let mut s = String::new();
        s.push_str(MAGIC);
        s.push('\n');
        s.push_str(
            "# TFLM's bytes of every non-constant tensor of this model (tests/golden/README.md);\n\
             # written by `SYNAPTIC_GOLDEN=update scripts/test-oracle.sh`, do not edit.\n",
        );
        s.push_str(&format!(
            "model {} {} {}\n",
            self.model,
            self.model_len,
            to_hex(&self.model_sha256)
        ));
        for (k, r) in self.runs.iter().enumerate() {
            let (len, d) = (r.input_len, to_hex(&r.input_sha256));
            match &r.source {
                Source::Seed(seed) => s.push_str(&format!("run {k} seed {seed:#x} {len} {d}\n")),
                Source::Bmp(f) => s.push_str(&format!("run {k} bmp {f} {len} {d}\n")),
                Source::Bytes(l, b) => {
                    s.push_str(&format!("run {k} bytes {l} {len} {d} {}\n", to_hex(b)))
                }
            }
            for (t, v) in &r.tensors {
                match v {
                    Value::Bytes(b) => {
                        s.push_str(&format!("tensor {k} {t} {} hex {}\n", b.len(), to_hex(b)))
                    }
                    Value::Sha256(len, d) => {
                        s.push_str(&format!("tensor {k} {t} {len} sha256 {}\n", to_hex(d)))
                    }
                }
            }
        }
        s
    }

    pub fn parse(text: &str) -> Result<Self, String> {
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'));
        let bad = |n: usize, what: &str| format!("line {}: {what}", n + 1);
        match lines.next() {
            Some((_, l)) if l == MAGIC => {}
            _ => return Err(format!("the first line is not `{MAGIC}`")),
        }
        let (n, l) = lines.next().ok_or("no model line")?;
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() != 4 || f[0] != "model" {
            return Err(bad(n, "want `model <file> <length> <sha256>`"));
        }
        let num = |n: usize, s: &str| s.parse::<usize>().map_err(|e| bad(n, &format!("{s}: {e}")));
        let mut g = Golden {
            model: f[1].to_string(),
            model_len: num(n, f[2])?,
            model_sha256: digest_from_hex(f[3]).map_err(|e| bad(n, &e))?,
            runs: Vec::new(),
        };
        for (n, l) in lines {
            let f: Vec<&str> = l.split_whitespace().collect();
            match f.first().copied() {
                Some("run") if f.len() >= 6 => {
                    if num(n, f[1])? != g.runs.len() {
                        return Err(bad(n, "runs out of order"));
                    }
                    let (source, rest) = match f[2] {
                        "seed" => {
                            let hex = f[3].trim_start_matches("0x");
                            let seed = u64::from_str_radix(hex, 16)
                                .map_err(|e| bad(n, &format!("seed {}: {e}", f[3])))?;
                            (Source::Seed(seed), &f[4..])
                        }
                        "bmp" => (Source::Bmp(f[3].to_string()), &f[4..]),
                        "bytes" if f.len() <= 7 => {
                            let b = from_hex(f.get(6).copied().unwrap_or(""))
                                .map_err(|e| bad(n, &e))?;
                            (Source::Bytes(f[3].to_string(), b), &f[4..6])
                        }
                        _ => return Err(bad(n, "unknown run source")),
                    };
                    if rest.len() != 2 {
                        return Err(bad(n, "want `<input length> <input sha256>`"));
                    }
                    g.runs.push(Run {
                        source,
                        input_len: num(n, rest[0])?,
                        input_sha256: digest_from_hex(rest[1]).map_err(|e| bad(n, &e))?,
                        tensors: BTreeMap::new(),
                    });
                }
                Some("tensor") if f.len() == 5 || f.len() == 6 => {
                    let k = num(n, f[1])?;
                    let t = num(n, f[2])?;
                    let len = num(n, f[3])?;
                    let payload = f.get(5).copied().unwrap_or("");
                    let v = match f[4] {
                        "hex" => Value::Bytes(from_hex(payload).map_err(|e| bad(n, &e))?),
                        "sha256" => {
                            Value::Sha256(len, digest_from_hex(payload).map_err(|e| bad(n, &e))?)
                        }
                        _ => return Err(bad(n, "want `hex` or `sha256`")),
                    };
                    if let Value::Bytes(b) = &v {
                        if b.len() != len {
                            return Err(bad(n, &format!("{} bytes, the line says {len}", b.len())));
                        }
                    }
                    if k + 1 != g.runs.len() {
                        return Err(bad(n, "a tensor outside its run"));
                    }
                    let run = g.runs.last_mut().unwrap();
                    if run.tensors.insert(t, v).is_some() {
                        return Err(bad(n, &format!("tensor {t} twice")));
                    }
                }
                _ => return Err(bad(n, "unknown record")),
            }
        }
        Ok(g)
    }

    /// Reads `tests/golden/<name>.golden`; `Err` says what is wrong (missing, unreadable).
    pub fn load(name: &str) -> Result<Self, String> {
        let p = path(name);
        let text = std::fs::read_to_string(&p).map_err(|e| {
            format!(
                "{}: {e} (`SYNAPTIC_GOLDEN=update scripts/test-oracle.sh` writes it)",
                shown(name)
            )
        })?;
        Golden::parse(&text).map_err(|e| format!("{}: {e}", shown(name)))
    }

    /// `Err` unless this file was made from `model_bytes`.
    pub fn check_model(&self, name: &str, model_bytes: &[u8]) -> Result<(), String> {
        if self.model_len == model_bytes.len() && self.model_sha256 == sha256(model_bytes) {
            return Ok(());
        }
        Err(format!(
            "{}: made from another {} ({} B, sha256 {}) than this one ({} B, sha256 {}); \
             regenerate it: SYNAPTIC_GOLDEN=update scripts/test-oracle.sh",
            shown(name),
            self.model,
            self.model_len,
            to_hex(&self.model_sha256),
            model_bytes.len(),
            to_hex(&sha256(model_bytes))
        ))
    }

    /// Every run's input bytes, from its source; `Err` if one's length or digest is not the
    /// file's (the input generator, the bmp reader or the image changed).
    pub fn inputs(
        &self,
        name: &str,
        model: &Model,
        shared: Option<&Path>,
    ) -> Result<Vec<Vec<u8>>, String> {
        self.runs
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let input = r.source.input(model, shared);
                if input.len() != r.input_len || sha256(&input) != r.input_sha256 {
                    return Err(format!(
                        "{name} run {k} ({}): the input made from its source ({} B, sha256 {}) is not \
                         the golden file's ({} B, sha256 {}): the seeded generator or the input changed",
                        r.source.label(),
                        input.len(),
                        to_hex(&sha256(&input)),
                        r.input_len,
                        to_hex(&r.input_sha256)
                    ));
                }
                Ok(input)
            })
            .collect()
    }

    /// `Err` naming the first disagreement of this (committed) file with `live` (the same
    /// model's file made from a live TFLM dump): model, run, tensor, the operator that wrote it.
    pub fn diff(&self, name: &str, model: &Model, live: &Golden) -> Result<(), String> {
        let file = shown(name);
        if (self.model_len, self.model_sha256) != (live.model_len, live.model_sha256) {
            return Err(format!(
                "{}: made from another {} than the live one (sha256 {} vs {})",
                file,
                self.model,
                to_hex(&self.model_sha256),
                to_hex(&live.model_sha256)
            ));
        }
        if self.runs.len() != live.runs.len() {
            return Err(format!(
                "{}: {} runs, the oracle ran {}",
                file,
                self.runs.len(),
                live.runs.len()
            ));
        }
        for (k, (g, l)) in self.runs.iter().zip(&live.runs).enumerate() {
            let run = format!("{name} run {k} ({})", l.source.label());
            if g.source != l.source
                || (g.input_len, g.input_sha256) != (l.input_len, l.input_sha256)
            {
                return Err(format!(
                    "{run}: the golden file's input ({}, {} B, sha256 {}) is not the live one ({} B, sha256 {})",
                    g.source.label(),
                    g.input_len,
                    to_hex(&g.input_sha256),
                    l.input_len,
                    to_hex(&l.input_sha256)
                ));
            }
            let keys = |r: &Run| r.tensors.keys().copied().collect::<Vec<_>>();
            if keys(g) != keys(l) {
                return Err(format!(
                    "{run}: the golden file records tensors {:?}, the live dump {:?}",
                    keys(g),
                    keys(l)
                ));
            }
            for (t, gv) in &g.tensors {
                let lv = &l.tensors[t];
                let how = match (gv, lv) {
                    (Value::Bytes(a), Value::Bytes(b)) if a.len() == b.len() => {
                        match (0..a.len()).find(|&i| a[i] != b[i]) {
                            None => continue,
                            Some(i) => format!(
                                "in {} of {} bytes, first at byte {i}: file {:#04x}, live {:#04x}",
                                (0..a.len()).filter(|&i| a[i] != b[i]).count(),
                                a.len(),
                                a[i],
                                b[i]
                            ),
                        }
                    }
                    (Value::Sha256(n, d), Value::Bytes(b))
                    | (Value::Bytes(b), Value::Sha256(n, d))
                        if b.len() == *n && sha256(b) == *d =>
                    {
                        continue
                    }
                    _ if gv == lv => continue,
                    _ => format!("(file {}, live {})", gv.describe(), lv.describe()),
                };
                return Err(format!(
                    "{run}: tensor {t} \"{}\" ({}) differs between {file} and the live TFLM dump {how}",
                    model.tensors[*t].name,
                    writer(model, *t),
                ));
            }
        }
        Ok(())
    }
}

/// "operator K (NAME)" that writes tensor `t`, or "graph input".
pub fn writer(model: &Model, t: usize) -> String {
    model
        .operators
        .iter()
        .position(|op| op.outputs.contains(&(t as i32)))
        .map_or_else(
            || match model.tensors[t].variable {
                true => "state (a variable tensor)".to_string(),
                false => "graph input".to_string(),
            },
            |k| {
                format!(
                    "written by operator {k} ({})",
                    super::tflite::op_name(model.operators[k].code)
                )
            },
        )
}

/// The oracle step's use of a golden file, after a live dump: `SYNAPTIC_GOLDEN` unset (or
/// `check`) compares the committed file with the dump and panics on a disagreement (or a missing
/// file); `SYNAPTIC_GOLDEN=update` rewrites the file from the dump. Returns what was done.
pub fn check_or_update(
    name: &str,
    model_bytes: &[u8],
    sources: &[Source],
    inputs: &[Vec<u8>],
    dump: &Dump,
    store: Store,
) -> &'static str {
    let file = format!("{name}.tflite");
    let live = Golden::from_dump(&file, model_bytes, sources, inputs, dump, store);
    match std::env::var("SYNAPTIC_GOLDEN").as_deref() {
        Ok("update") => {
            let p = path(name);
            let text = live.to_text();
            if std::fs::read_to_string(&p).ok().as_deref() == Some(text.as_str()) {
                return "unchanged";
            }
            std::fs::create_dir_all(dir()).unwrap();
            std::fs::write(&p, text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            "rewritten"
        }
        Ok("check") | Ok("") | Err(std::env::VarError::NotPresent) => {
            let golden = Golden::load(name).unwrap_or_else(|e| panic!("{e}"));
            let model = Model::parse(model_bytes);
            if let Err(e) = golden.diff(name, &model, &live) {
                panic!(
                    "golden file disagrees with the live oracle: {e}\n(if TFLM is right and the file \
                     stale: SYNAPTIC_GOLDEN=update scripts/test-oracle.sh)"
                );
            }
            "equal"
        }
        Ok(other) => panic!("SYNAPTIC_GOLDEN={other}: want `update` or `check`"),
        Err(e) => panic!("SYNAPTIC_GOLDEN: {e}"),
    }
}
