//! The keyword pipeline's code path (`scripts/run-keyword`): each 1 s, 16 kHz `.wav` of
//! `../shared/inputs` through `audio_preprocessor_int8` (TFLM's signal library: one 30 ms
//! window per call, 20 ms stride, the noise estimate carried from call to call) into 49×40
//! int8 features, then `micro_speech_quantized` on them: the label, with TFLM's features and
//! scores beside ours. Both models live in **one arena**: the persistent parts of both, one
//! ephemeral region sized for the larger plan, one scratch pool sized for the larger block.
//! Shared by the example's `main` and by `tests/keyword_job.rs`.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use synaptic_mem::{Arena, ArenaBuffer, MAX_ARENA_SIZE, MIN_SCRATCH_SIZE};
use synaptic_plan::{Analysis, IoPlacement as PlanIo, Model as PlanModel, SizingOptions};
use synaptic_run::{program, Interpreter, IoPlacement, Memory, RunPlan};

/// The front end and the classifier, in `../shared/models`.
pub const MODELS: [&str; 2] = ["audio_preprocessor_int8", "micro_speech_quantized"];
/// micro_speech's classes, in output order.
pub const LABELS: [&str; 4] = ["silence", "unknown", "yes", "no"];
/// Samples per window (30 ms at 16 kHz) and between windows (20 ms).
pub const WINDOW: usize = 480;
/// Samples between windows.
pub const STRIDE: usize = 320;
/// Frames of features micro_speech reads (49 × 40 int8).
pub const FRAMES: usize = 49;
/// Features per frame.
pub const FEATURES: usize = 40;

/// TFLM's results on the shared files (its Python wheel: `tests/oracle/tflm_oracle.py
/// features`, then micro_speech_quantized on those bytes): the SHA-256 of the 1,960 feature
/// bytes and the four int8 scores. The oracle step (`tests/oracle.rs`) recomputes them live.
pub const TFLM: [(&str, &str, [i8; 4]); 4] = [
    (
        "yes_1000ms.wav",
        "83077a32cd04b7bc28bb923faef883207fa9fad6513d2bcb526c9c3660a96c8d",
        [-128, -128, 127, -128],
    ),
    (
        "no_1000ms.wav",
        "b227fe08a61ade78fb3b7ea112bd117842a0dedc31861867c21341d121f91433",
        [-128, -114, -128, 114],
    ),
    (
        "silence_1000ms.wav",
        "5c466a1b76708f86173fe170d5a6cea10e53d01c573a36ffa01ef64212a84838",
        [-42, -68, -68, -78],
    ),
    (
        "noise_1000ms.wav",
        "54544e9be2e867b6966a82167141628c580a29a575b34fc8d7645bb6886f4878",
        [120, -125, -126, -125],
    ),
];

/// TFLM's smallest arena per model on the Cortex-M3 (QEMU mps2-an385, reference kernels, the
/// `../shared/anchors/tflm-qemu` harness with TFLM's signal library registered:
/// `benches/tflm-anchor`; micro_speech's is the anchor's figure). TFLM needs one arena per
/// interpreter.
pub const TFLM_ARENAS: [usize; 2] = [8_436, 6_800];

#[path = "../common/shared.rs"]
mod shared;
use shared::same_file;
pub use shared::shared_dir;

/// One file's result.
pub struct Heard {
    /// The `.wav` file.
    pub wav: PathBuf,
    /// The 49 × 40 int8 features the front end made.
    pub features: Vec<u8>,
    /// micro_speech's scores.
    pub scores: [i8; 4],
    /// TFLM's features' SHA-256 and scores, for the shared files.
    pub tflm: Option<(&'static str, [i8; 4])>,
}

impl Heard {
    /// The class with the highest score (the first of equal ones, as `argmax`).
    pub fn label(&self) -> &'static str {
        let mut best = 0;
        for (k, &s) in self.scores.iter().enumerate() {
            if s > self.scores[best] {
                best = k;
            }
        }
        LABELS[best]
    }

    /// Whether the features are TFLM's, byte for byte (their SHA-256).
    pub fn features_equal(&self) -> Option<bool> {
        self.tflm
            .map(|(h, _)| hex(&Sha256::digest(&self.features)) == h)
    }
}

/// What the pipeline computed.
pub struct Report {
    /// One entry per file, in order.
    pub heard: Vec<Heard>,
    /// Each model's figures in the shared arena (front end, classifier).
    pub memory: [Memory; 2],
    /// The one arena holding both (exact), and its scratch pool.
    pub arena: usize,
    /// The scratch pool: the larger block of the two models' kernels.
    pub scratch: usize,
    /// Front-end calls per file.
    pub frames: usize,
}

/// Why the job failed: a bad `.wav` (the caller's argument) or anything else.
pub enum JobError {
    /// A file that cannot be read or is not 16 kHz 16-bit mono of at least 1 s.
    Wav(String),
    /// The models, the arena or a run.
    Other(String),
}

impl std::fmt::Display for JobError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JobError::Wav(s) | JobError::Other(s) => f.write_str(s),
        }
    }
}

/// The 16-bit samples of a 16 kHz mono `.wav`.
pub fn samples(path: &Path) -> Result<Vec<i16>, JobError> {
    let bad = |e: String| JobError::Wav(format!("{}: {e}", path.display()));
    let mut r = hound::WavReader::open(path).map_err(|e| bad(e.to_string()))?;
    let s = r.spec();
    if s.sample_rate != 16_000 || s.channels != 1 || s.bits_per_sample != 16 {
        return Err(bad(format!(
            "{} Hz, {} channel(s), {} bits: the front end takes 16 kHz 16-bit mono",
            s.sample_rate, s.channels, s.bits_per_sample
        )));
    }
    let x: Result<Vec<i16>, _> = r.samples::<i16>().collect();
    let x = x.map_err(|e| bad(e.to_string()))?;
    let need = (FRAMES - 1) * STRIDE + WINDOW;
    if x.len() < need {
        return Err(bad(format!(
            "{} samples; 49 windows need {need} (1 s)",
            x.len()
        )));
    }
    Ok(x)
}

/// The plan synaptic-plan makes for `bytes` with I/O in the plan, as the runtime runs it.
fn plan_of(bytes: &[u8]) -> Result<Analysis, JobError> {
    let other = |e: String| JobError::Other(e);
    let model = PlanModel::from_bytes(bytes).map_err(|e| other(e.to_string()))?;
    let options = SizingOptions {
        io: PlanIo::Ephemeral,
        ..SizingOptions::default()
    };
    Analysis::new(model, &options).map_err(|e| other(e.to_string()))
}

/// Runs the pipeline on `wavs` (empty: the four shared files) with both models in one arena.
pub fn keyword_job(shared: &Path, wavs: &[PathBuf]) -> Result<Report, JobError> {
    let other = JobError::Other;
    let inputs = shared.join("inputs");
    let wavs: Vec<PathBuf> = if wavs.is_empty() {
        TFLM.iter().map(|(f, _, _)| inputs.join(f)).collect()
    } else {
        wavs.to_vec()
    };
    let mut bytes = Vec::new();
    for m in MODELS {
        let p = shared.join(format!("models/{m}.tflite"));
        bytes.push(std::fs::read(&p).map_err(|e| other(format!("{}: {e}", p.display())))?);
    }
    let analyses = [plan_of(&bytes[0])?, plan_of(&bytes[1])?];
    let plans: Vec<RunPlan<'_>> = analyses
        .iter()
        .map(|a| RunPlan::overlapped(a.ephemeral_plan.core_plan(), &a.ephemeral_plan.overlaps))
        .collect();
    // The programs compiled beforehand, as firmware keeps them in flash (`synmem emit`).
    let mut programs = Vec::new();
    for (m, b) in MODELS.iter().zip(&bytes) {
        let err = |e| other(format!("{m}: {e}"));
        let mut w = vec![0u32; program::compiled_len(b, IoPlacement::Plan).map_err(err)?];
        program::compile(b, IoPlacement::Plan, &mut w).map_err(err)?;
        programs.push(w);
    }
    let mut buf = Box::new(ArenaBuffer::<MAX_ARENA_SIZE>::new());
    // The figures, from a load of both on the largest arena.
    let need: Vec<Memory> = {
        let mut arena = Arena::with_scratch(buf.as_mut_slice(), MIN_SCRATCH_SIZE)
            .map_err(|e| other(e.to_string()))?;
        let (loader, _) = arena.split();
        let mut v = Vec::new();
        for k in 0..2 {
            let net = Interpreter::with_program(
                &bytes[k],
                &programs[k],
                loader,
                plans[k],
                IoPlacement::Plan,
            )
            .map_err(|e| other(format!("{}: {e}", MODELS[k])))?;
            v.push(net.memory());
        }
        v
    };
    // One arena: both persistent parts, the larger ephemeral region, the larger scratch block.
    let scratch = need[0].scratch.max(need[1].scratch);
    let size = synaptic_mem::config::exact_arena_size(
        need[0].persistent + need[1].persistent,
        need[0].planned.max(need[1].planned),
        scratch,
    );
    let mut arena = Arena::exact(&mut buf.as_mut_slice()[..size], scratch)
        .map_err(|e| other(format!("arena of {size} B: {e}")))?;
    let (loader, mut runner) = arena.split();
    let load = |k: usize| {
        Interpreter::with_program(&bytes[k], &programs[k], loader, plans[k], IoPlacement::Plan)
            .map_err(|e| other(format!("{} in the shared arena: {e}", MODELS[k])))
    };
    let (mut front, mut classifier) = (load(0)?, load(1)?);
    if front.input_bytes() != 2 * WINDOW
        || front.output_bytes() != FEATURES
        || classifier.input_bytes() != FRAMES * FEATURES
        || classifier.output_bytes() != 4
    {
        return Err(other(
            "the models' inputs and outputs are not 480 samples → 40 features, 49 × 40 → 4 scores"
                .into(),
        ));
    }
    let mut heard = Vec::new();
    for wav in &wavs {
        let x = samples(wav)?;
        // A new stream: the front end's noise estimate starts from zero, as at load.
        front.reset_state();
        let mut features = vec![0u8; FRAMES * FEATURES];
        let mut window = vec![0u8; 2 * WINDOW];
        for f in 0..FRAMES {
            for (b, s) in window
                .chunks_exact_mut(2)
                .zip(&x[f * STRIDE..f * STRIDE + WINDOW])
            {
                b.copy_from_slice(&s.to_le_bytes());
            }
            front
                .invoke(
                    &mut runner,
                    &window,
                    &mut features[f * FEATURES..(f + 1) * FEATURES],
                )
                .map_err(|e| other(format!("{}: frame {f}: {e}", wav.display())))?;
        }
        let mut out = [0u8; 4];
        classifier
            .invoke(&mut runner, &features, &mut out)
            .map_err(|e| other(format!("{}: {e}", wav.display())))?;
        let tflm = TFLM
            .iter()
            .find(|(f, _, _)| same_file(wav, &inputs.join(f)))
            .map(|&(_, h, s)| (h, s));
        heard.push(Heard {
            wav: wav.clone(),
            features,
            scores: out.map(|b| b as i8),
            tflm,
        });
    }
    Ok(Report {
        heard,
        memory: [front.memory(), classifier.memory()],
        arena: size,
        scratch,
        frames: FRAMES,
    })
}

/// Lower-case hex.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn scores(s: [i8; 4]) -> String {
    format!("[{}, {}, {}, {}]", s[0], s[1], s[2], s[3])
}

/// The pipeline's printed output.
pub fn render(r: &Report) -> String {
    let mut s = String::new();
    let mut line = |l: String| {
        s.push_str(&l);
        s.push('\n');
    };
    line(format!(
        "keyword spotting: audio_preprocessor_int8 ({} calls per file, 30 ms windows, 20 ms stride, state carried) -> micro_speech_quantized, one arena",
        r.frames
    ));
    line(format!(
        "{:<20} {:<18} {:<24} {:<30} {}",
        "file", "features (TFLM)", "scores [s, u, y, n]", "TFLM", "label"
    ));
    for h in &r.heard {
        let feats = match h.features_equal() {
            Some(true) => "1960 B equal",
            Some(false) => "1960 B DIFFERENT",
            None => "-",
        };
        let tflm = match h.tflm {
            Some((_, t)) if t == h.scores => format!("{} equal", scores(t)),
            Some((_, t)) => format!("{} DIFFERENT", scores(t)),
            None => "-".into(),
        };
        line(format!(
            "{:<20} {:<18} {:<24} {:<30} {}",
            h.wav.file_name().unwrap_or_default().to_string_lossy(),
            feats,
            scores(h.scores),
            tflm,
            h.label()
        ));
    }
    line(String::new());
    let [a, b] = &r.memory;
    line(format!(
        "{:<34} {:>14} {:>14} {:>12}",
        "RAM, bytes", "front end", "classifier", "one arena"
    ));
    let ephemeral = a.planned.max(b.planned);
    let rows: [(&str, usize, usize, usize); 5] = [
        (
            "persistent (state, descriptors)",
            a.persistent,
            b.persistent,
            a.persistent + b.persistent,
        ),
        ("  of which state", a.state, b.state, a.state + b.state),
        (
            "planned activations (ephemeral)",
            a.planned,
            b.planned,
            ephemeral,
        ),
        ("scratch pool", a.scratch, b.scratch, r.scratch),
        ("total RAM", a.total(), b.total(), r.arena),
    ];
    for (name, x, y, z) in rows {
        line(format!("{name:<34} {x:>14} {y:>14} {z:>12}"));
    }
    line(format!(
        "{:<34} {:>14} {:>14}",
        "program in flash (not RAM)", a.program_flash, b.program_flash
    ));
    let tflm = TFLM_ARENAS[0] + TFLM_ARENAS[1];
    line(format!(
        "{:<34} {:>14} {:>14} {:>12}",
        "TFLM smallest arena (Cortex-M3)", TFLM_ARENAS[0], TFLM_ARENAS[1], tflm
    ));
    let less = tflm as isize - r.arena as isize;
    line(format!(
        "synaptic-run needs {} B for both models, TFLM {tflm} B in two arenas: {less} B less ({:.1} %)",
        r.arena,
        100.0 * less as f64 / tflm as f64
    ));
    s
}
