//! Shared test support: the TFLM oracle (a Python venv with TFLM's wheel), the `.tflite`
//! reader, the operator dispatcher and the comparison.

#![allow(dead_code)]

pub mod arena;
pub mod golden;
pub mod tflite;

use std::path::{Path, PathBuf};
use std::process::Command;

use tflite::{DType, Model};

/// The repository root (two levels above this crate).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `../shared` beside the repository, or `$SYNAPTIC_SHARED`.
pub fn shared_path() -> PathBuf {
    std::env::var_os("SYNAPTIC_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("../shared"))
}

/// `../shared` beside the repository (or `$SYNAPTIC_SHARED`); a missing directory fails the
/// test with a clear message.
pub fn shared() -> PathBuf {
    let dir = shared_path();
    assert!(
        dir.join("models").is_dir(),
        "shared models not found at {} (set SYNAPTIC_SHARED)",
        dir.display()
    );
    dir
}

/// [`shared`], or `None` with a printed notice if it is missing and `SYNMEM_SKIP_MODELS=1`
/// (the workspace's convention, as the planner's and `synmem`'s model tests): missing without
/// it is a failure.
pub fn shared_or_skip(what: &str) -> Option<PathBuf> {
    let dir = shared_path();
    if dir.join("models").is_dir() {
        return Some(dir);
    }
    if std::env::var("SYNMEM_SKIP_MODELS").as_deref() == Ok("1") {
        eprintln!(
            "SKIPPED: {what}: {} not found and SYNMEM_SKIP_MODELS=1",
            dir.display()
        );
        return None;
    }
    panic!(
        "shared models not found at {} (set SYNAPTIC_SHARED, or SYNMEM_SKIP_MODELS=1 to skip {what})",
        dir.display()
    );
}

/// The oracle's Python: `$ORACLE_PYTHON` or `<repo>/.venv-oracle/bin/python`. Missing is a
/// failure naming the script that creates it, never a silent pass.
pub fn python() -> PathBuf {
    let py = std::env::var_os("ORACLE_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".venv-oracle/bin/python"));
    assert!(
        py.exists(),
        "TFLM oracle venv missing ({}): run scripts/oracle-venv.sh (or scripts/test-oracle.sh)",
        py.display()
    );
    py
}

fn oracle_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/tflm_oracle.py")
}

/// A scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    // One directory per call: tests running in parallel in one process (the same WAV's
    // features made by two of them) never share, or remove, each other's files.
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let k = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "synaptic-run-oracle-{}-{k}-{name}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// SplitMix64: deterministic random bytes for seeded inputs.
pub struct Rng(u64);
impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Random bytes for every graph input of `model` (int8: uniform bytes; float32: uniform in
/// ±(200 × the first quantized consumer's scale) when known, else ±8, with some exact ties).
pub fn random_inputs(model: &Model, rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    for &i in &model.inputs {
        let t = &model.tensors[i];
        match t.dtype {
            DType::F32 => {
                let range = model
                    .operators
                    .iter()
                    .find(|op| op.inputs.contains(&(i as i32)))
                    .map(|op| model.tensors[op.outputs[0] as usize].q().scale)
                    .filter(|&s| s > 0.0)
                    .map_or(8.0, |s| 200.0 * s);
                for k in 0..t.elements() {
                    let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                    let mut v = ((u * 2.0 - 1.0) * range as f64) as f32;
                    if k % 7 == 0 {
                        // An exact tie, x.5 steps of the scale, exercises rounding.
                        let s = range / 200.0;
                        v = ((v / s).trunc() + 0.5) * s;
                    }
                    out.extend_from_slice(&v.to_le_bytes());
                }
            }
            // A C++ bool is 0 or 1.
            DType::Bool => {
                for _ in 0..t.bytes() {
                    out.push(rng.next_u64() as u8 & 1);
                }
            }
            _ => {
                for _ in 0..t.bytes() {
                    out.push(rng.next_u64() as u8);
                }
            }
        }
    }
    out
}

/// Every tensor's bytes, per run, as TFLM computed them.
pub type Dump = Vec<Vec<Vec<u8>>>;

/// Runs TFLM on `model_path` for each input blob; returns every tensor of every run.
pub fn tflm_dump(model_path: &Path, runs: &[Vec<u8>], tag: &str) -> Dump {
    tflm_dump_many(&[(model_path.to_path_buf(), runs.to_vec())], tag).remove(0)
}

/// [`tflm_dump`] for many models in one Python process (the wheel's start-up dominates
/// small models).
pub fn tflm_dump_many(jobs: &[(PathBuf, Vec<Vec<u8>>)], tag: &str) -> Vec<Dump> {
    let dir = scratch(tag);
    write_manifest(&dir, jobs, 0);
    let status = Command::new(python())
        .arg(oracle_script())
        .arg("batch")
        .arg(dir.join("manifest.tsv"))
        .status()
        .expect("cannot start the oracle's python");
    assert!(status.success(), "TFLM oracle failed ({tag})");
    let dumps = jobs
        .iter()
        .enumerate()
        .map(|(j, (model, runs))| {
            let bytes = std::fs::read(dir.join(format!("out{j}.bin"))).unwrap();
            let model_bytes = std::fs::read(model).unwrap();
            parse_dump(&bytes, Model::parse(&model_bytes).tensors.len(), runs.len())
        })
        .collect();
    std::fs::remove_dir_all(&dir).ok();
    dumps
}

/// Writes `dir/manifest.tsv` for the oracle's batch modes: jobs `from..` (model, `dir/out<j>.bin`,
/// each run's input written to `dir/run<j>_<k>.raw`).
fn write_manifest(dir: &Path, jobs: &[(PathBuf, Vec<Vec<u8>>)], from: usize) {
    let mut manifest = String::new();
    for (j, (model, runs)) in jobs.iter().enumerate().skip(from) {
        let out = dir.join(format!("out{j}.bin"));
        manifest.push_str(&format!("{}\t{}", model.display(), out.display()));
        for (k, r) in runs.iter().enumerate() {
            let p = dir.join(format!("run{j}_{k}.raw"));
            std::fs::write(&p, r).unwrap();
            manifest.push_str(&format!("\t{}", p.display()));
        }
        manifest.push('\n');
    }
    std::fs::write(dir.join("manifest.tsv"), manifest).unwrap();
}

fn parse_dump(bytes: &[u8], n: usize, runs: usize) -> Dump {
    let mut pos = 0;
    let mut dump = Vec::new();
    for _ in 0..runs {
        let mut tensors = Vec::with_capacity(n);
        for _ in 0..n {
            let len = u32::from_le_bytes(bytes[pos..pos + 4].try_into().unwrap()) as usize;
            tensors.push(bytes[pos + 4..pos + 4 + len].to_vec());
            pos += 4 + len;
        }
        dump.push(tensors);
    }
    assert_eq!(pos, bytes.len(), "oracle dump has trailing bytes");
    dump
}

/// micro_speech features of a WAV, made by TFLM running `audio_preprocessor_int8.tflite`.
pub fn speech_features(wav: &Path) -> Vec<u8> {
    let dir = scratch(&format!(
        "feat-{}",
        wav.file_stem().unwrap().to_string_lossy()
    ));
    let out = dir.join("features.raw");
    let status = Command::new(python())
        .arg(oracle_script())
        .arg("features")
        .arg(shared().join("models/audio_preprocessor_int8.tflite"))
        .arg(wav)
        .arg(&out)
        .status()
        .expect("cannot start the oracle's python");
    assert!(
        status.success(),
        "feature generation failed for {}",
        wav.display()
    );
    let f = std::fs::read(&out).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(f.len(), 49 * 40);
    f
}

/// person_detect's input from an 8-bit grayscale BMP: `synaptic_run::bmp::gray8`, the one
/// rule (PIL's row order, bytes unchanged, as TFLM's `person_detection_test.cc` feeds it).
pub fn bmp_input(path: &Path) -> Vec<u8> {
    let b = std::fs::read(path).unwrap();
    let (w, h) =
        synaptic_run::bmp::dimensions(&b).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = vec![0u8; w * h];
    synaptic_run::bmp::gray8(&b, &mut out).unwrap();
    out
}

/// What a comparison covered.
#[derive(Default, Debug, Clone, Copy)]
pub struct Tally {
    pub runs: usize,
    pub tensors: usize,
    pub bytes: usize,
}

/// Compares every operator of `model` against TFLM on every run of a live dump: TFLM's
/// constants must equal the model's buffers, then [`compare_chained`] from TFLM's graph inputs
/// against TFLM's bytes of every tensor.
pub fn compare_model(name: &str, model_bytes: &[u8], dump: &Dump) -> Tally {
    let model = Model::parse(model_bytes);
    for (r, tensors) in dump.iter().enumerate() {
        for (i, t) in model.tensors.iter().enumerate() {
            if t.is_constant() {
                assert_eq!(
                    tensors[i], t.data,
                    "{name} run {r}: TFLM's constant tensor {i} differs from the model"
                );
            }
        }
    }
    let runs: Vec<Vec<u8>> = dump
        .iter()
        .map(|tensors| {
            model
                .inputs
                .iter()
                .flat_map(|&i| tensors[i].clone())
                .collect()
        })
        .collect();
    let labels: Vec<String> = (0..dump.len()).map(|r| format!("run {r}")).collect();
    compare_chained(name, model_bytes, &labels, &runs, "TFLM", &|r, t| {
        Some(Want::Bytes(&dump[r][t]))
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

/// What a tensor of a run must hold: TFLM's bytes (a live dump, a golden file in full) or
/// their length and SHA-256 (a golden file of a large model).
#[derive(Debug, Clone, Copy)]
pub enum Want<'a> {
    Bytes(&'a [u8]),
    Sha256(usize, [u8; 32]),
}

/// Runs the whole graph with the interpreter from `inputs` alone (one blob per run, the graph
/// inputs concatenated), on a poisoned arena with the plain plan and the overlapped ones, and
/// compares every operator's output, read out of the arena as it is produced, and the graph
/// outputs copied out at the end, with `want(run, tensor)` (`against` names it in messages: TFLM,
/// a golden file). Every intermediate is compared, so each operator is checked on inputs equal
/// to TFLM's, by induction. `Err` names the model, the run (`labels`), the plan, the operator,
/// the tensor (index and name) and the first differing element.
pub fn compare_chained<'w>(
    name: &str,
    model_bytes: &[u8],
    labels: &[String],
    inputs: &[Vec<u8>],
    against: &str,
    want: &dyn Fn(usize, usize) -> Option<Want<'w>>,
) -> Result<Tally, String> {
    let model = Model::parse(model_bytes);
    let mut tally = Tally::default();
    use synaptic_run::IoPlacement::{Plan, Shared};
    // The plain and the overlapped plan with graph I/O in the plan, and the overlapped one
    // with graph I/O in the SHARED region (other tensors planned, so other overlaps: dtln's
    // FULLY_CONNECTED runs overlapped only there).
    for (io, overlap) in [(Plan, false), (Plan, true), (Shared, true)] {
        let plan = match (io, overlap) {
            (Plan, false) => "plain",
            (Plan, true) => "overlapped",
            _ => "overlapped (I/O in SHARED)",
        };
        let (results, _) = arena::run_on_arena_with(
            model_bytes,
            io,
            inputs,
            Some(0x5EED_0BAD),
            arena::OpData::Ram,
            overlap,
        );
        for (r, res) in results.iter().enumerate() {
            let run = format!("{name} {}, {plan} plan", labels[r]);
            let want = |t: usize| {
                want(r, t).ok_or_else(|| format!("{run}: no value of tensor {t} in {against}"))
            };
            // (Operators after one that stopped the inference did not run, in TFLM either:
            // their tensors are not this run's.)
            let ran = res.aborted.map_or(model.operators.len(), |op| op + 1);
            for (k, op) in model.operators.iter().enumerate().take(ran) {
                for &o in op.outputs.iter().filter(|&&o| o >= 0) {
                    let o = o as usize;
                    let got = res.tensors[o]
                        .as_ref()
                        .ok_or_else(|| format!("{run}: operator {k} not observed"))?;
                    let what = format!(
                        "{run}: operator {k} ({}) output tensor {o} \"{}\"",
                        tflite::op_name(op.code),
                        model.tensors[o].name
                    );
                    check_tensor(&what, model.tensors[o].dtype, got, want(o)?, against)?;
                    tally.tensors += 1;
                    tally.bytes += got.len();
                }
            }
            // The state after the inference: every variable tensor.
            for (t, info) in model.tensors.iter().enumerate().filter(|(_, t)| t.variable) {
                let got = res.tensors[t]
                    .as_ref()
                    .ok_or_else(|| format!("{run}: variable tensor {t} not read back"))?;
                let what = format!("{run}: state (variable tensor {t} \"{}\")", info.name);
                check_tensor(&what, info.dtype, got, want(t)?, against)?;
                tally.tensors += 1;
                tally.bytes += got.len();
            }
            // A stopped inference copies no output out (the buffer is as it was).
            let copied = if res.aborted.is_some() {
                &[][..]
            } else {
                &model.outputs[..]
            };
            let mut pos = 0;
            for (j, &o) in copied.iter().enumerate() {
                let len = model.tensors[o].bytes();
                let got = res.output.get(pos..pos + len).ok_or_else(|| {
                    format!("{run}: the graph outputs are {} bytes", res.output.len())
                })?;
                let what = format!(
                    "{run}: graph output {j} (tensor {o} \"{}\") as copied out",
                    model.tensors[o].name
                );
                check_tensor(&what, model.tensors[o].dtype, got, want(o)?, against)?;
                pos += len;
            }
            if res.aborted.is_none() && pos != res.output.len() {
                return Err(format!(
                    "{run}: {} bytes of graph outputs, the output tensors take {pos}",
                    res.output.len()
                ));
            }
            if !overlap {
                tally.runs += 1;
            }
        }
    }
    Ok(tally)
}

/// One element of a tensor of type `dtype`, readably.
fn element(dtype: DType, b: &[u8]) -> String {
    match (dtype, b.len()) {
        (DType::I8, 1) => format!("{}", b[0] as i8),
        (DType::U8, 1) => format!("{}", b[0]),
        (DType::I16, 2) => format!("{}", i16::from_le_bytes([b[0], b[1]])),
        (DType::I32, 4) => format!("{}", i32::from_le_bytes(b.try_into().unwrap())),
        (DType::U32, 4) => format!("{}", u32::from_le_bytes(b.try_into().unwrap())),
        (DType::U64, 8) => format!("{}", u64::from_le_bytes(b.try_into().unwrap())),
        (DType::F32, 4) => format!("{:e}", f32::from_le_bytes(b.try_into().unwrap())),
        _ => format!("0x{}", golden::to_hex(b)),
    }
}

/// `Err` describing how `got` differs from `want` (`what` names the tensor).
fn check_tensor(
    what: &str,
    dtype: DType,
    got: &[u8],
    want: Want<'_>,
    against: &str,
) -> Result<(), String> {
    match want {
        Want::Bytes(want) if got == want => Ok(()),
        Want::Bytes(want) if got.len() != want.len() => Err(format!(
            "{what}: {} bytes, {against} has {}",
            got.len(),
            want.len()
        )),
        Want::Bytes(want) => {
            let size = dtype.size().max(1);
            // Equal bits, or (float32) both NaN: a NaN's sign and payload are not matched
            // (docs/runtime.md, "NaN outputs").
            let nan = |b: &[u8]| dtype == DType::F32 && f32::from_le_bytes(b.try_into().unwrap()).is_nan();
            let diffs: Vec<usize> = (0..got.len() / size)
                .filter(|&e| {
                    let (g, w) = (&got[e * size..(e + 1) * size], &want[e * size..(e + 1) * size]);
                    g != w && !(nan(g) && nan(w))
                })
                .collect();
            let Some(&e) = diffs.first() else {
                return Ok(());
            };
            let at = e * size..(e + 1) * size;
            Err(format!(
                "{what} differs from {against} in {} of {} elements ({dtype:?}); first at element {e}: got {} want {}",
                diffs.len(),
                got.len() / size,
                element(dtype, &got[at.clone()]),
                element(dtype, &want[at])
            ))
        }
        Want::Sha256(len, d) if got.len() == len && golden::sha256(got) == d => Ok(()),
        Want::Sha256(len, d) => Err(format!(
            "{what} differs from {against}: got {} bytes, sha256 {} (first bytes {}), want {len} bytes, sha256 {}",
            got.len(),
            golden::to_hex(&golden::sha256(got)),
            golden::to_hex(&got[..got.len().min(16)]),
            golden::to_hex(&d)
        )),
    }
}

/// [`tflm_dump_many`] for models TFLM may refuse (a mutant sweep): `Err` for a model it
/// refuses (an exception: its message) or that crashes the wheel or runs for more than 20 s
/// in it (the rest of the batch run again without it).
pub fn tflm_dump_tolerant(
    jobs: &[(PathBuf, Vec<Vec<u8>>)],
    tag: &str,
) -> Vec<Result<Dump, String>> {
    let dir = scratch(tag);
    let out = |j: usize| dir.join(format!("out{j}.bin"));
    let refused = |j: usize| dir.join(format!("out{j}.bin.refused"));
    let mut results: Vec<Option<Result<Dump, String>>> = vec![None; jobs.len()];
    let mut from = 0;
    while from < jobs.len() {
        write_manifest(&dir, jobs, from);
        let mut child = Command::new(python())
            .arg(oracle_script())
            .arg("batch-tolerant")
            .arg(dir.join("manifest.tsv"))
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("cannot start the oracle's python");
        // A watchdog: a model the wheel spends more than `HANG` on (a mutant's loop of 2^31
        // steps) stops the process, and counts as a crash.
        const HANG: std::time::Duration = std::time::Duration::from_secs(20);
        let (mut seen, mut since) = (from, std::time::Instant::now());
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            while seen < jobs.len() && (refused(seen).exists() || out(seen).exists()) {
                seen += 1;
                since = std::time::Instant::now();
            }
            if since.elapsed() > HANG {
                child.kill().ok();
                break child.wait().unwrap();
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        // Every job the process finished, in order; a crash stops at the one it was on (its
        // output possibly partial, none after it).
        let done = |j: usize| refused(j).exists() || out(j).exists();
        let mut next = from;
        while next < jobs.len() && done(next) {
            if !(status.success() || (next + 1 < jobs.len() && done(next + 1))) {
                break;
            }
            results[next] = Some(match std::fs::read_to_string(refused(next)) {
                Ok(why) => Err(why),
                Err(_) => {
                    let (model, runs) = &jobs[next];
                    let n = Model::parse(&std::fs::read(model).unwrap()).tensors.len();
                    Ok(parse_dump(
                        &std::fs::read(out(next)).unwrap(),
                        n,
                        runs.len(),
                    ))
                }
            });
            next += 1;
        }
        if next < jobs.len() {
            assert!(!status.success(), "TFLM oracle skipped job {next} ({tag})");
            results[next] = Some(Err("the wheel crashed".into()));
            std::fs::remove_file(out(next)).ok();
            next += 1;
        }
        from = next;
    }
    std::fs::remove_dir_all(&dir).ok();
    results.into_iter().map(|r| r.unwrap()).collect()
}
