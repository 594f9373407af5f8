//! The main job's code path (`scripts/run`): person_detect on the two shared images with
//! `synaptic_run::Interpreter`, on an arena sized exactly for the model, then the RAM table
//! against TFLM. Shared by the example's `main` and by `tests/main_job.rs`, which checks the
//! classes and the exact scores.

use std::path::{Path, PathBuf};

use synaptic_mem::config::MIN_SHARED_SIZE;
use synaptic_mem::{Arena, ArenaBuffer, MAX_ARENA_SIZE, MIN_SCRATCH_SIZE};
use synaptic_plan::{Analysis, IoPlacement as PlanIo, Model as PlanModel, SizingOptions};
use synaptic_run::{bmp, program, Interpreter, IoPlacement, Memory};

/// TFLM's smallest arena for person_detect on the Cortex-M3 (issue 11: tflite-micro 90b983c2,
/// reference kernels, QEMU mps2-an385).
pub const TFLM_ARENA: usize = 82_296;
/// The live-set bound of person_detect's activations, input and output included: what TFLM's
/// activation plan and synaptic-plan's plan both reach.
pub const LIVE_BOUND: usize = 55_296;
/// The output's classes, in output order.
pub const LABELS: [&str; 2] = ["no person", "person"];
/// TFLM's scores `[no person, person]` on the shared images (its Python wheel, the same
/// input bytes; the oracle tests compare every tensor, these are the output's).
pub const TFLM_SCORES: [(&str, [i8; 2]); 2] =
    [("person.bmp", [-113, 113]), ("no_person.bmp", [57, -57])];

#[path = "../common/shared.rs"]
mod shared;
use shared::same_file;
pub use shared::shared_dir;

/// One image's result.
pub struct Scored {
    /// The image file.
    pub image: PathBuf,
    /// The int8 output `[no person, person]`.
    pub scores: [i8; 2],
    /// TFLM's scores, for the shared images.
    pub tflm: Option<[i8; 2]>,
}

impl Scored {
    /// The class with the higher score.
    pub fn class(&self) -> &'static str {
        LABELS[usize::from(self.scores[1] > self.scores[0])]
    }
}

/// The RAM of one I/O placement.
pub struct Ram {
    /// Where the graph input and output lived.
    pub io: IoPlacement,
    /// The loaded model's figures.
    pub memory: Memory,
    /// The arena handed to the core (the figures plus the core's smallest scratch pool).
    pub arena: usize,
    /// The scratch pool's peak over the inferences.
    pub scratch_peak: usize,
}

/// What the main job computed.
pub struct Report {
    /// The model file.
    pub model: PathBuf,
    /// Its size in bytes (read in place: weights are never copied).
    pub model_bytes: usize,
    /// Operators run per inference.
    pub operators: usize,
    /// One entry per image, in order (from the run with I/O in the plan; the SHARED run gave
    /// the same bytes).
    pub scored: Vec<Scored>,
    /// I/O in the plan (the least RAM), then I/O in the SHARED region.
    pub ram: Vec<Ram>,
}

/// Why the job failed: a bad image (the caller's argument) or anything else.
pub enum JobError {
    /// An image that cannot be read or is not a 96×96 8-bit BMP.
    Image(String),
    /// The model, the arena or the run.
    Other(String),
}

impl std::fmt::Display for JobError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JobError::Image(s) | JobError::Other(s) => f.write_str(s),
        }
    }
}

/// person_detect's input bytes from `path` (see [`synaptic_run::bmp`]), checked to be
/// `want` bytes.
pub fn image_input(path: &Path, want: usize) -> Result<Vec<u8>, JobError> {
    let bad = |e: String| JobError::Image(format!("{}: {e}", path.display()));
    let b = std::fs::read(path).map_err(|e| bad(e.to_string()))?;
    let (w, h) = bmp::dimensions(&b).map_err(|e| bad(e.to_string()))?;
    if w * h != want {
        return Err(bad(format!(
            "a {w}x{h} image; person_detect takes {want} pixels (96x96)"
        )));
    }
    let mut px = vec![0u8; want];
    bmp::gray8(&b, &mut px).map_err(|e| bad(e.to_string()))?;
    Ok(px)
}

/// Runs person_detect from `shared` on `images` (empty: the two shared images) with I/O in
/// the plan and in the SHARED region, each on an arena of exactly the size the model needs.
pub fn main_job(shared: &Path, images: &[PathBuf]) -> Result<Report, JobError> {
    let other = JobError::Other;
    let model_path = shared.join("models/person_detect.tflite");
    let bytes =
        std::fs::read(&model_path).map_err(|e| other(format!("{}: {e}", model_path.display())))?;
    let inputs = shared.join("inputs");
    let images: Vec<PathBuf> = if images.is_empty() {
        TFLM_SCORES.iter().map(|(f, _)| inputs.join(f)).collect()
    } else {
        images.to_vec()
    };
    let mut ram = Vec::new();
    let mut outputs: Vec<Vec<[i8; 2]>> = Vec::new();
    let mut operators = 0;
    for io in [IoPlacement::Plan, IoPlacement::Shared] {
        let analysis = {
            let model = PlanModel::from_bytes(&bytes).map_err(|e| other(e.to_string()))?;
            operators = model.operators.len();
            let options = SizingOptions {
                io: match io {
                    IoPlacement::Shared => PlanIo::Shared,
                    IoPlacement::Plan => PlanIo::Ephemeral,
                },
                ..SizingOptions::default()
            };
            Analysis::new(model, &options).map_err(|e| other(e.to_string()))?
        };
        // The overlapped plan (the default) with its declared pairs, run overlapped.
        let plan = synaptic_run::RunPlan::overlapped(
            analysis.ephemeral_plan.core_plan(),
            &analysis.ephemeral_plan.overlaps,
        );
        // The per-operator data compiled beforehand, as firmware keeps it in flash beside the
        // model (`synmem emit`): no per-operator RAM.
        let compile_err = |e| other(format!("{}: {e}", model_path.display()));
        let mut program = vec![0u32; program::compiled_len(&bytes, io).map_err(compile_err)?];
        program::compile(&bytes, io, &mut program).map_err(compile_err)?;
        let mut buf = Box::new(ArenaBuffer::<MAX_ARENA_SIZE>::new());
        let mut io_buf = vec![0u8; 1 << 16];
        // The figures, from a load on the largest arena.
        let need = {
            let mut arena = Arena::with_scratch(buf.as_mut_slice(), MIN_SCRATCH_SIZE)
                .map_err(|e| other(e.to_string()))?;
            arena
                .set_shared_region(&mut io_buf)
                .map_err(|e| other(e.to_string()))?;
            let (loader, _) = arena.split();
            Interpreter::with_program(&bytes, &program, loader, plan, io)
                .map_err(|e| other(format!("{}: {e}", model_path.display())))?
                .memory()
        };
        // The run, on exactly that.
        let size = need.arena_bytes();
        let mut arena = Arena::exact(&mut buf.as_mut_slice()[..size], need.scratch)
            .map_err(|e| other(format!("arena of {size} B: {e}")))?;
        if io == IoPlacement::Shared {
            arena
                .set_shared_region(&mut io_buf[..need.shared.max(MIN_SHARED_SIZE)])
                .map_err(|e| other(e.to_string()))?;
        }
        let (loader, mut runner) = arena.split();
        let mut net = Interpreter::with_program(&bytes, &program, loader, plan, io)
            .map_err(|e| other(format!("{}: {e}", model_path.display())))?;
        if net.output_bytes() != 2 {
            return Err(other(
                "person_detect's output is not two int8 scores".into(),
            ));
        }
        let mut scores = Vec::new();
        for path in &images {
            let input = image_input(path, net.input_bytes())?;
            let mut out = [0u8; 2];
            net.invoke(&mut runner, &input, &mut out)
                .map_err(|e| other(format!("{}: {e}", path.display())))?;
            scores.push([out[0] as i8, out[1] as i8]);
        }
        let memory = net.memory();
        ram.push(Ram {
            io,
            memory,
            arena: size,
            scratch_peak: runner.stats().scratch_peak,
        });
        outputs.push(scores);
    }
    if outputs[0] != outputs[1] {
        return Err(other(
            "the two I/O placements gave different outputs".into(),
        ));
    }
    let scored = images
        .iter()
        .zip(&outputs[0])
        .map(|(path, &scores)| Scored {
            tflm: TFLM_SCORES
                .iter()
                .find(|(f, _)| same_file(path, &inputs.join(f)))
                .map(|&(_, s)| s),
            image: path.clone(),
            scores,
        })
        .collect();
    Ok(Report {
        model: model_path,
        model_bytes: bytes.len(),
        operators,
        scored,
        ram,
    })
}

/// The scores as `[a, b]`.
fn pair(s: [i8; 2]) -> String {
    format!("[{}, {}]", s[0], s[1])
}

/// The main job's printed output.
pub fn render(r: &Report) -> String {
    let mut s = String::new();
    let mut line = |l: String| {
        s.push_str(&l);
        s.push('\n');
    };
    line(format!(
        "person_detect ({}, {} B read in place, {} operators) on synaptic-run, I/O in the plan",
        r.model.file_name().unwrap_or_default().to_string_lossy(),
        r.model_bytes,
        r.operators
    ));
    line(format!(
        "{:<16} {:<28} {:<18} {}",
        "image", "scores [no person, person]", "TFLM", "class"
    ));
    for sc in &r.scored {
        let tflm = match sc.tflm {
            Some(t) if t == sc.scores => format!("{} equal", pair(t)),
            Some(t) => format!("{} DIFFERENT", pair(t)),
            None => "-".into(),
        };
        line(format!(
            "{:<16} {:<28} {:<18} {}",
            sc.image.file_name().unwrap_or_default().to_string_lossy(),
            pair(sc.scores),
            tflm,
            sc.class()
        ));
    }
    line(String::new());
    let (plan, shared) = (&r.ram[0], &r.ram[1]);
    let title = |m: &Ram| match m.io {
        IoPlacement::Plan => "I/O in plan",
        IoPlacement::Shared => "I/O in SHARED",
    };
    line(format!(
        "{:<40} {:>12} {:>14}",
        "RAM, bytes",
        title(plan),
        title(shared)
    ));
    let mut row = |name: &str, f: &dyn Fn(&Ram) -> usize| {
        line(format!("{name:<40} {:>12} {:>14}", f(plan), f(shared)));
    };
    row("persistent", &|m| m.memory.persistent);
    row("  per-operator data (program in RAM)", &|m| m.memory.tables);
    row("  tensor locations", &|m| m.memory.locations);
    row("  plan descriptors", &|m| m.memory.plan_descriptors);
    row("planned activations", &|m| m.memory.planned);
    row("scratch (peak)", &|m| m.scratch_peak);
    row("shared (graph I/O)", &|m| m.memory.shared);
    row("total RAM", &|m| m.memory.total());
    row("  of which descriptors", &|m| m.memory.descriptors);
    row("arena given to the core (exact)", &|m| m.arena);
    row("program in flash (not RAM)", &|m| m.memory.program_flash);
    let ram = plan.memory.total();
    line(format!(
        "{:<40} {:>12}",
        "TFLM smallest arena (Cortex-M3)", TFLM_ARENA
    ));
    line(format!(
        "{:<40} {:>12}",
        "live-set bound of the activations", LIVE_BOUND
    ));
    let less = TFLM_ARENA as isize - ram as isize;
    let vs_bound = if ram <= LIVE_BOUND {
        format!(
            "{} B below the live-set bound (outputs overlap dying inputs)",
            LIVE_BOUND - ram
        )
    } else {
        format!("{} B above the live-set bound", ram - LIVE_BOUND)
    };
    line(format!(
        "synaptic-run needs {ram} B, TFLM {TFLM_ARENA} B: {less} B less ({:.1} %); {vs_bound}",
        100.0 * less as f64 / TFLM_ARENA as f64,
    ));
    s
}
