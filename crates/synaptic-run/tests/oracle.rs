//! Bit-exactness against TensorFlow Lite Micro, live.
//!
//! For every model below, TFLM's own Python wheel (in the venv `scripts/oracle-venv.sh`
//! creates) runs each input with all tensors preserved; then every operator is run with
//! synaptic-run's kernels on TFLM's values of its inputs and must give TFLM's output byte for
//! byte, and the whole graph is run again from the input alone with every activation checked
//! (see `common::compare_model`). Inputs: seeded random tensors, plus the real inputs of
//! `../shared/inputs` (person.bmp / no_person.bmp for person_detect, the four WAVs turned into
//! features by TFLM running `audio_preprocessor_int8.tflite` for micro_speech).
//!
//! Golden files (`tests/golden/`, checked without Python by `tests/golden.rs`): after each live
//! dump of a single-operator model or of a shared model of `common::golden::SHARED_MODELS`, the
//! committed golden file must agree with it (a disagreement fails, naming the model, the run,
//! the tensor and the operator that wrote it); `SYNAPTIC_GOLDEN=update scripts/test-oracle.sh`
//! rewrites the files from the live dumps instead.
//!
//! The venv missing is a failure naming the script, never a pass. The test is built only with
//! the `oracle` feature, so `cargo test --workspace` needs no Python; `scripts/test-oracle.sh`
//! creates the venv if needed and runs `cargo test --release -p synaptic-run --features oracle
//! --test oracle -- --nocapture` (the tallies are printed).

mod common;

use common::golden::{self, live_sources, SharedModel, Source, Store, SHARED_MODELS};
use common::tflite::Model;
use common::{bmp_input, compare_model, random_inputs, shared, speech_features, tflm_dump, Rng};

/// Runs `sources` of `name` through TFLM, compares every operator of synaptic-run with the
/// dump, then the dump with the golden file (or rewrites it: `SYNAPTIC_GOLDEN=update`).
fn check(
    name: &str,
    path: &std::path::Path,
    sources: &[Source],
    store: Store,
    dump: Option<common::Dump>,
) -> common::Dump {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let model = Model::parse(&bytes);
    let shared = sources
        .iter()
        .any(|s| matches!(s, Source::Bmp(_)))
        .then(shared);
    let inputs: Vec<Vec<u8>> = sources
        .iter()
        .map(|s| s.input(&model, shared.as_deref()))
        .collect();
    let dump = dump.unwrap_or_else(|| tflm_dump(path, &inputs, name));
    let tally = compare_model(name, &bytes, &dump);
    let done = golden::check_or_update(name, &bytes, sources, &inputs, &dump, store);
    println!(
        "oracle {name}: {} runs ({}), {} operator outputs, {} bytes equal to TFLM; golden file {done}",
        tally.runs,
        Source::summary(sources),
        tally.tensors,
        tally.bytes
    );
    dump
}

fn shared_model(name: &str) -> std::path::PathBuf {
    shared().join("models").join(format!("{name}.tflite"))
}

/// Every shared model of `SHARED_MODELS` (the list the golden files follow): live against
/// TFLM, then against its golden file; then what each real input must be classified as.
#[test]
fn shared_models() {
    // `SYNAPTIC_ORACLE_ONLY=a,b`: only those models (development).
    let only = std::env::var("SYNAPTIC_ORACLE_ONLY").ok();
    let wanted = |name: &str| {
        only.as_deref()
            .is_none_or(|o| o.split(',').any(|n| n == name))
    };
    for m in SHARED_MODELS.iter().filter(|m| wanted(m.name)) {
        let dump = check(
            m.name,
            &shared_model(m.name),
            &live_sources(m),
            Store::Digest,
            None,
        );
        real_inputs_classified(m, &dump);
    }
}

#[path = "../examples/keyword_spotting/job.rs"]
#[allow(dead_code, unused_imports)]
mod keyword;

/// The keyword pipeline (`scripts/run-keyword`) against TFLM live: each shared `.wav`'s
/// features from TFLM's wheel running `audio_preprocessor_int8` (a new interpreter per file, 49
/// windows), then micro_speech's scores on them, equal byte for byte to the pipeline's; and the
/// constants the pipeline prints as TFLM's (checked without Python by `tests/keyword_job.rs`)
/// are these.
#[test]
fn keyword_pipeline() {
    let report = match keyword::keyword_job(&shared(), &[]) {
        Ok(r) => r,
        Err(e) => panic!("the keyword job failed: {e}"),
    };
    let micro = shared_model("micro_speech_quantized");
    for h in &report.heard {
        let name = h.wav.file_name().unwrap().to_string_lossy().into_owned();
        let live = speech_features(&h.wav);
        assert!(
            h.features == live,
            "{name}: the pipeline's features differ from TFLM's"
        );
        let dump = tflm_dump(&micro, std::slice::from_ref(&live), "keyword");
        // Output tensor 9: [silence, unknown, yes, no].
        let scores: Vec<i8> = dump[0][9].iter().map(|&b| b as i8).collect();
        assert_eq!(
            h.scores.to_vec(),
            scores,
            "{name}: scores differ from TFLM's"
        );
        let (digest, constant) = h.tflm.expect("a shared file has TFLM's figures");
        assert_eq!(
            digest,
            keyword::hex(&common::golden::sha256(&live)),
            "{name}: the job's TFLM feature digest is stale"
        );
        assert_eq!(
            constant, h.scores,
            "{name}: the job's TFLM scores are stale"
        );
        println!(
            "keyword {name}: 1960 feature bytes and scores {scores:?} equal to TFLM's ({})",
            h.label()
        );
    }
}

fn real_inputs_classified(m: &SharedModel, dump: &common::Dump) {
    // The real inputs' runs follow the found and the regular seeds.
    let found = match m.real {
        common::golden::Real::Found(seeds) => seeds.len(),
        _ => 0,
    };
    let first = found + m.seeds as usize;
    match m.name {
        "micro_speech_quantized" => {
            // Output tensor 9: [silence, unknown, yes, no]; the real runs are yes, no,
            // silence, noise.
            let top = |run: usize| (0..4).max_by_key(|&k| dump[run][9][k] as i8).unwrap();
            println!(
                "micro_speech labels (0 silence, 1 unknown, 2 yes, 3 no): yes.wav {} no.wav {} silence.wav {} noise.wav {}",
                top(first),
                top(first + 1),
                top(first + 2),
                top(first + 3)
            );
            assert_eq!(
                (top(first), top(first + 1)),
                (2, 3),
                "yes/no recordings misclassified"
            );
        }
        "person_detect" => {
            // Output tensor 87 is [no person, person] (int8, scale 1/256, zero point -128);
            // the kernels' output equals TFLM's, so these are this crate's scores too.
            let scores = |run: usize| (dump[run][87][0] as i8, dump[run][87][1] as i8);
            let (person, no_person) = (scores(first), scores(first + 1));
            println!("person_detect scores [no person, person]: person.bmp {person:?}, no_person.bmp {no_person:?}");
            assert!(person.1 > person.0, "person.bmp must score person");
            assert!(
                no_person.0 > no_person.1,
                "no_person.bmp must score no person"
            );
        }
        _ => {}
    }
}

/// The committed single-operator models (`tests/models`, written by `tests/oracle/gen_models.py`):
/// live against TFLM, then against their golden files (TFLM's bytes in full).
#[test]
fn single_operator_models() {
    let models = golden::single_op_models();
    assert!(
        models.len() >= 30,
        "single-operator models missing in tests/models"
    );
    let sources: Vec<Source> = (0..golden::SINGLE_OP_SEEDS)
        .map(|s| Source::Seed(golden::SEED_BASE + s))
        .collect();
    let jobs: Vec<_> = models
        .iter()
        .map(|(_, p)| {
            let bytes = std::fs::read(p).unwrap();
            let model = Model::parse(&bytes);
            let runs: Vec<Vec<u8>> = sources.iter().map(|s| s.input(&model, None)).collect();
            (p.clone(), runs)
        })
        .collect();
    let dumps = common::tflm_dump_many(&jobs, "single-op");
    for ((name, p), dump) in models.iter().zip(dumps) {
        check(name, p, &sources, Store::Full, Some(dump));
    }
}

/// A sweep of single-operator models of random structure and quantization, generated at test
/// time by `gen_models.py --sweep` (seed and count from `SWEEP_SEED`, `SWEEP_COUNT`; defaults
/// 2026 and 510: thirty models of each of the 17 kinds).
#[test]
fn random_operator_sweep() {
    let seed: u64 = std::env::var("SWEEP_SEED").map_or(2026, |s| s.parse().unwrap());
    let count: usize = std::env::var("SWEEP_COUNT").map_or(510, |s| s.parse().unwrap());
    let dir = common::scratch("sweep");
    let status = std::process::Command::new(common::python())
        .arg(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/gen_models.py"))
        .args(["--sweep", &seed.to_string(), &count.to_string()])
        .arg(&dir)
        .status()
        .expect("cannot start the oracle's python");
    assert!(status.success(), "gen_models.py --sweep failed");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    assert_eq!(paths.len(), count);
    let models: Vec<Vec<u8>> = paths.iter().map(|p| std::fs::read(p).unwrap()).collect();
    let jobs: Vec<_> = paths
        .iter()
        .zip(&models)
        .map(|(p, bytes)| {
            let model = Model::parse(bytes);
            let runs: Vec<Vec<u8>> = (0..2)
                .map(|s| random_inputs(&model, &mut Rng::new(seed * 1000 + s)))
                .collect();
            (p.clone(), runs)
        })
        .collect();
    let dumps = common::tflm_dump_many(&jobs, "sweep-dump");
    let mut total = common::Tally::default();
    for ((p, bytes), dump) in paths.iter().zip(&models).zip(&dumps) {
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        let t = compare_model(&format!("{name} (sweep seed {seed})"), bytes, dump);
        total.runs += t.runs;
        total.tensors += t.tensors;
        total.bytes += t.bytes;
    }
    std::fs::remove_dir_all(&dir).ok();
    println!(
        "oracle sweep (seed {seed}): {count} random single-operator models, {} runs, {} operator outputs, {} bytes equal to TFLM",
        total.runs, total.tensors, total.bytes
    );
}

// ---------------------------------------------------------------------------------------------
// Whole models on the arena: `synaptic_run::Interpreter` with activations in the planned
// region, graph I/O in the SHARED region or in the plan, per-operator data (the compiled program) in flash or in the
// persistent region; every operator output read out of the arena at the operator that
// produces it and compared with TFLM's byte for byte.

use synaptic_run::IoPlacement;

/// The five target models of issue 11 with TFLM's smallest arena on the Cortex-M3 and the
/// live-set bound of their activations (input and output included).
const TARGETS: [(&str, usize, usize); 5] = [
    ("hello_world_int8", 1_068, 32),
    ("micro_speech_quantized", 6_800, 5_968),
    ("kws_ref_model", 22_772, 16_000),
    ("person_detect", 82_296, 55_296),
    ("pretrainedResnet_quant", 54_340, 49_152),
];

/// Seeded random inputs plus the model's real inputs, as (label, bytes).
fn arena_inputs(name: &str, model: &Model, seeds: u64) -> Vec<(String, Vec<u8>)> {
    let mut runs: Vec<(String, Vec<u8>)> = (0..seeds)
        .map(|s| {
            (
                format!("seed {s}"),
                random_inputs(model, &mut Rng::new(0xA4E4_0000 + s)),
            )
        })
        .collect();
    let inputs = shared().join("inputs");
    match name {
        "person_detect" => {
            for f in ["person.bmp", "no_person.bmp"] {
                runs.push((f.to_string(), bmp_input(&inputs.join(f))));
            }
        }
        "micro_speech_quantized" => {
            for w in ["yes", "no", "silence", "noise"] {
                let f = format!("{w}_1000ms.wav");
                runs.push((f.clone(), speech_features(&inputs.join(f))));
            }
        }
        _ => {}
    }
    runs
}

/// Runs `name` on the arena for both I/O placements, with the overlapped plan (each declared
/// pair's operator run overlapped) or the plain one (`overlap` false), on arenas (and shared
/// regions) filled with random bytes of each seed of `poison` first (unpoisoned if empty), and
/// compares every operator output and the graph outputs with TFLM.
fn check_on_arena(name: &str, seeds: u64, poison: &[u64], overlap: bool) {
    let path = shared_model(name);
    let bytes = std::fs::read(&path).unwrap();
    let model = Model::parse(&bytes);
    let runs = arena_inputs(name, &model, seeds);
    let blobs: Vec<Vec<u8>> = runs.iter().map(|(_, b)| b.clone()).collect();
    let dump = tflm_dump(&path, &blobs, &format!("arena-{name}"));
    // Both places of the per-operator data (the program in flash, or compiled into the arena)
    // with both placements, plain and poisoned, without running everything four times.
    use common::arena::OpData;
    let mut configs: Vec<(IoPlacement, Option<u64>, OpData)> = Vec::new();
    if poison.is_empty() {
        configs.push((IoPlacement::Shared, None, OpData::Ram));
        configs.push((IoPlacement::Plan, None, OpData::Flash));
    }
    for (k, &p) in poison.iter().enumerate() {
        let (a, b) = if k % 2 == 0 {
            (OpData::Ram, OpData::Flash)
        } else {
            (OpData::Flash, OpData::Ram)
        };
        configs.push((IoPlacement::Shared, Some(p), a));
        configs.push((IoPlacement::Plan, Some(p), b));
    }
    for (io, poison, op_data) in configs {
        let (results, mem) =
            common::arena::run_on_arena_with(&bytes, io, &blobs, poison, op_data, overlap);
        let mut tensors = 0;
        let mut compared = 0;
        for (r, res) in results.iter().enumerate() {
            let label = &runs[r].0;
            for (k, op) in model.operators.iter().enumerate() {
                let t = op.outputs[0] as usize;
                let got = res.tensors[t]
                    .as_ref()
                    .unwrap_or_else(|| panic!("{name} {io:?} {label}: op {k} not observed"));
                assert!(
                    got == &dump[r][t],
                    "{name} {io:?} poison {poison:?} {label}: operator {k} ({}) output tensor {t} differs from TFLM ({} of {} bytes)",
                    common::tflite::op_name(op.code),
                    got.iter().zip(&dump[r][t]).filter(|(a, b)| a != b).count(),
                    got.len()
                );
                tensors += 1;
                compared += got.len();
            }
            let want: Vec<u8> = model
                .outputs
                .iter()
                .flat_map(|&o| dump[r][o].clone())
                .collect();
            assert_eq!(res.output, want, "{name} {io:?} {label}: graph output");
        }
        println!(
            "arena {name} io={io:?} op-data={op_data:?} plan={}{}: {} runs ({}), {tensors} operator outputs, {compared} bytes equal to TFLM; persistent {} B, planned {} B, shared {} B",
            if overlap { "overlapped" } else { "plain" },
            poison.map_or(String::new(), |p| format!(" poisoned(seed {p:#x})")),
            results.len(),
            runs.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>().join(", "),
            mem.persistent,
            mem.planned,
            mem.shared
        );
        if name == "person_detect" {
            // Output [no person, person]; runs seeds.., then person.bmp, no_person.bmp.
            let s = |r: usize| (results[r].output[0] as i8, results[r].output[1] as i8);
            let (p, np) = (s(seeds as usize), s(seeds as usize + 1));
            assert!(
                p.1 > p.0 && np.0 > np.1,
                "person_detect scores {p:?} {np:?}"
            );
        }
    }
}

#[test]
fn arena_hello_world_int8() {
    check_on_arena("hello_world_int8", 8, &[0x0E1A_0000 + 1], true);
}

#[test]
fn arena_micro_speech_quantized() {
    check_on_arena("micro_speech_quantized", 3, &[0x0E1A_0000 + 2], true);
}

#[test]
fn arena_kws_ref_model() {
    check_on_arena("kws_ref_model", 3, &[0x0E1A_0000 + 3], true);
}

#[test]
fn arena_person_detect() {
    check_on_arena("person_detect", 2, &[0x0E1A_0000 + 4], true);
}

#[test]
fn arena_pretrained_resnet_quant() {
    check_on_arena("pretrainedResnet_quant", 3, &[0x0E1A_0000 + 5], true);
}

/// The two other shared models synaptic-run runs, overlapped on a poisoned arena.
#[test]
fn arena_ad01_int8_and_simple_add_model() {
    check_on_arena("ad01_int8", 2, &[0x0E1A_0000 + 6], true);
    check_on_arena("simple_add_model", 2, &[0x0E1A_0000 + 7], true);
}

/// The plain plan (`--no-overlap`), the arena (and shared region) filled with seeded random
/// bytes before the load: results still bit-exact, so nothing reads memory it did not write.
/// (The overlapped plans, the default, are checked poisoned by the `arena_<model>` tests.)
#[test]
fn arena_poisoned_every_target() {
    for (name, _, _) in TARGETS {
        check_on_arena(name, 1, &[0xBAD5_EED1, 0xBAD5_EED2], false);
    }
}

/// The RAM table: this runtime's arena figures per model against TFLM's smallest arena on
/// the M3 (`scripts/test-oracle.sh arena_ram_table` prints it).
#[test]
fn arena_ram_table() {
    println!(
        "{:<24} {:>5} {:>7} {:>6} {:>6} {:>8} {:>7} {:>6} {:>8} {:>9} {:>9} {:>7} {:>9} {:>21} {:>10} {:>11}",
        "model",
        "io",
        "tables",
        "locs",
        "descs",
        "persist",
        "planned",
        "shared",
        "scratch",
        "ram",
        "arena",
        "TFLM",
        "overhead",
        "ram (program in RAM)",
        "overlapped",
        "ov. planned"
    );
    let mut ratios = Vec::new();
    for (name, tflm, bound) in TARGETS {
        let bytes = std::fs::read(shared_model(name)).unwrap();
        for io in [IoPlacement::Plan, IoPlacement::Shared] {
            // The program in flash: the default of emitted firmware (`synmem emit`); the plain
            // plan (at the live-set bound), then the overlapped one (issue 12).
            use common::arena::{probe_with, OpData};
            let m = probe_with(&bytes, io, OpData::Flash, false);
            let ram_program = probe_with(&bytes, io, OpData::Ram, false);
            let ov = probe_with(&bytes, io, OpData::Flash, true);
            let ram = m.total();
            let overhead = ram as f64 - bound as f64;
            let tflm_overhead = (tflm - bound) as f64;
            println!(
                "{:<24} {:>5} {:>7} {:>6} {:>6} {:>8} {:>7} {:>6} {:>8} {:>9} {:>9} {:>7} {:>8.3}x {:>21} {:>10} {:>11}",
                name,
                if io == IoPlacement::Plan {
                    "plan"
                } else {
                    "shared"
                },
                m.tables,
                m.locations,
                m.plan_descriptors,
                m.persistent,
                m.planned,
                m.shared,
                m.scratch,
                ram,
                common::arena::arena_size(&m),
                tflm,
                overhead / tflm_overhead,
                ram_program.total(),
                ov.total(),
                ov.planned
            );
            assert!(
                ov.total() <= ram,
                "{name}: the overlapped plan takes more RAM"
            );
            if io == IoPlacement::Plan {
                ratios.push(overhead / tflm_overhead);
                assert!(ram < tflm, "{name}: {ram} B is not below TFLM's {tflm} B");
            }
        }
    }
    let geo = ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64;
    println!(
        "ram = persistent + planned + shared + scratch (needed; the core's pool floor is 1024 B and its arena floor 4096 B, in the 'arena' column); overhead = (ram - live bound) / (TFLM - live bound), I/O in the plan, plain plan: geometric mean {:.3}x; 'overlapped' = ram with the overlapped plan (issue 12), 'ov. planned' its activations",
        geo.exp()
    );
}

// ---------------------------------------------------------------------------------------------
// Mutants (issue 43): every model that loads runs with TFLM's bytes, whatever the arena held.

/// The models the mutant sweep edits: the small shared models, the stateful ones (LSTM, SVDF),
/// the signal pipeline and two float models (NaN and infinite values from edited scales and
/// shapes).
const MUTATED: [&str; 7] = [
    "hello_world_int8",
    "micro_speech_quantized",
    "trained_lstm_int8",
    "keyword_scrambled_8bit",
    "audio_preprocessor_int8",
    "hello_world_float",
    "trained_lstm",
];

/// Whether synaptic-run takes `bytes` (planned by synaptic-plan as `synmem` plans it, compiled
/// for both I/O placements), else why not.
fn takes(bytes: &[u8]) -> Result<(), String> {
    use synaptic_plan::{Analysis, IoPlacement as PlanIo, Model as PlanModel, SizingOptions};
    for (io, plan_io) in [
        (IoPlacement::Plan, PlanIo::Ephemeral),
        (IoPlacement::Shared, PlanIo::Shared),
    ] {
        let model = PlanModel::from_bytes(bytes).map_err(|e| format!("plan: {e}"))?;
        let options = SizingOptions {
            io: plan_io,
            ..SizingOptions::default()
        };
        Analysis::new(model, &options).map_err(|e| format!("plan: {e}"))?;
        synaptic_run::program::compiled_len(bytes, io).map_err(|e| format!("load: {e}"))?;
    }
    Ok(())
}

/// `MUTANT_COUNT` (default 100) mutants of each model of [`MUTATED`], seeded (`MUTANT_SEED`,
/// default 43), each one field edited in place: half of them an operator input rewired to
/// another tensor of the model or made absent, or a tensor's `is_variable` flipped (where the
/// model stores the field); the others any field (type, shape, buffer, quantization, options)
/// set to an edge value of its kind (0, -1, 2^31 - 1, NaN, ...).
/// TFLM's wheel runs each on two seeded inputs (or refuses it); synaptic-run either refuses it
/// at load or, planned and loaded, runs it on poisoned arenas (plain and overlapped plans, I/O
/// in the plan and in the SHARED region) with every operator output, every state and every
/// graph output equal to TFLM's; a mutant TFLM refuses and synaptic-run runs must give the same
/// bytes on two arenas poisoned differently (nothing read that it did not write). No mutant may
/// load here and then fail an invocation.
#[test]
fn mutant_sweep() {
    use synaptic_tflite::fields::for_each_field;
    let seed: u64 = std::env::var("MUTANT_SEED").map_or(43, |s| s.parse().unwrap());
    let per_model: usize = std::env::var("MUTANT_COUNT").map_or(100, |s| s.parse().unwrap());
    let dir = common::scratch("mutants");
    let mut rng = Rng::new(seed);
    // The panics this test catches (the tests' reader on a mutant it cannot take, a failure it
    // reports at the end) not printed as they happen; other tests' as before.
    thread_local!(static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) });
    let hook = std::sync::Arc::new(std::panic::take_hook());
    let other = hook.clone();
    std::panic::set_hook(Box::new(move |info| {
        if !QUIET.get() {
            other(info)
        }
    }));
    let quietly = |f: &mut dyn FnMut()| {
        QUIET.set(true);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        QUIET.set(false);
        r
    };
    // (label, file, bytes, the two inputs)
    type Mutant = (String, std::path::PathBuf, Vec<u8>, Vec<Vec<u8>>);
    let mut mutants: Vec<Mutant> = Vec::new();
    let mut skipped = 0;
    for name in MUTATED {
        let bytes = std::fs::read(shared_model(name)).unwrap();
        let n_tensors = Model::parse(&bytes).tensors.len() as u64;
        let mut fields = Vec::new();
        for_each_field(&synaptic_tflite::Model::new(&bytes).unwrap(), |f| {
            // (The graph's own I/O and the vectors' lengths are the run_model fuzzer's.)
            if !f.what.starts_with("subgraph.") && !f.what.ends_with(".len") {
                fields.push(f);
            }
        })
        .unwrap();
        // Half the mutants rewire an operator input or flip `is_variable`; the others set any
        // field (types, shapes, buffers, quantization, options) to an edge value of its kind.
        let wiring: Vec<_> = fields
            .iter()
            .copied()
            .filter(|f| f.what == "operator.inputs" || f.what == "tensor.is_variable")
            .collect();
        for m in 0..per_model {
            let pool = if m % 2 == 0 && !wiring.is_empty() {
                &wiring
            } else {
                &fields
            };
            let f = pool[(rng.next_u64() % pool.len() as u64) as usize];
            let cur = f.read(&bytes).unwrap();
            let pick = |rng: &mut Rng, vs: &[i64]| vs[(rng.next_u64() % vs.len() as u64) as usize];
            use synaptic_tflite::fields::Kind;
            let value = match (f.what, f.kind) {
                ("tensor.is_variable", _) => 1 - i64::from(cur != 0),
                ("operator.inputs", _) => (rng.next_u64() % (n_tensors + 1)) as i64 - 1,
                (_, Kind::Byte) => pick(&mut rng, &[0, 1, 2, 3, 9, 17, cur ^ 1, cur + 1, 127, -1]),
                (_, Kind::Float) => i64::from(pick(
                    &mut rng,
                    &[
                        0.0f32.to_bits() as i64,
                        (-1.0f32).to_bits() as i64,
                        f32::NAN.to_bits() as i64,
                        f32::INFINITY.to_bits() as i64,
                        1e-30f32.to_bits() as i64,
                        1e30f32.to_bits() as i64,
                        (f32::from_bits(cur as u32) * 2.0).to_bits() as i64,
                        (f32::from_bits(cur as u32) * 0.5).to_bits() as i64,
                    ],
                ) as u32),
                (_, Kind::Long) => pick(&mut rng, &[-129, -128, 0, 127, 128, cur - 1, cur + 1]),
                _ => pick(
                    &mut rng,
                    &[
                        -1,
                        0,
                        1,
                        2,
                        cur - 1,
                        cur + 1,
                        2 * cur,
                        1 << 30,
                        i64::from(i32::MAX),
                        i64::from(i32::MIN),
                    ],
                ),
            };
            let what = format!("{} of {} item {} = {value}", f.what, f.owner, f.item);
            let mut out = bytes.clone();
            f.write(&mut out, value);
            // (Skipped: a mutant the tests' own reader cannot take, or with graph I/O over
            // 64 KB, a size no test arena holds.)
            let io_small = |m: &Model| {
                m.inputs.iter().chain(&m.outputs).all(|&t| {
                    let t = &m.tensors[t];
                    t.shape
                        .iter()
                        .try_fold(t.dtype.size(), |a, &d| a.checked_mul(d))
                        .is_some_and(|b| b <= 1 << 16)
                })
            };
            // Two seeded inputs (the tests' reader finds the graph inputs).
            let (mut small, mut runs) = (false, Vec::new());
            let k = mutants.len() as u64;
            let readable = quietly(&mut || {
                let model = Model::parse(&out);
                small = io_small(&model);
                if small {
                    runs = (0..2)
                        .map(|s| random_inputs(&model, &mut Rng::new(seed * 1000 + 2 * k + s)))
                        .collect();
                }
            });
            if out == bytes || readable.is_err() || !small {
                skipped += 1;
                continue;
            }
            let path = dir.join(format!("{name}_{m}.tflite"));
            std::fs::write(&path, &out).unwrap();
            mutants.push((format!("{name}: {what}"), path, out, runs));
        }
    }
    let jobs: Vec<_> = mutants
        .iter()
        .map(|(_, path, _, runs)| (path.clone(), runs.clone()))
        .collect();
    let dumps = common::tflm_dump_tolerant(&jobs, "mutant-dump");
    let (mut both, mut refused_here, mut refused_tflm, mut neither) = (0, 0, 0, 0);
    let (mut both_fail, mut stale) = (0, 0);
    let mut failures = Vec::new();
    for ((label, _, bytes, runs), dump) in mutants.iter().zip(&dumps) {
        let ours = takes(bytes);
        let mut result = Ok(());
        let checked = quietly(&mut || {
            result = match (&ours, dump) {
                (Ok(()), Ok(dump)) => {
                    let labels: Vec<String> = (0..runs.len()).map(|r| format!("run {r}")).collect();
                    common::compare_chained(label, bytes, &labels, runs, "TFLM", &|r, t| {
                        Some(common::Want::Bytes(&dump[r][t]))
                    })
                    .map(|_| ())
                }
                (Ok(()), Err(_)) => {
                    // No oracle: the same bytes whatever the arena held.
                    use common::arena::{run_on_arena_with, OpData};
                    let run = |poison| {
                        run_on_arena_with(
                            bytes,
                            IoPlacement::Plan,
                            runs,
                            Some(poison),
                            OpData::Ram,
                            true,
                        )
                        .0
                    };
                    if run(1) == run(0xFFFF_FFFF_0000_0001) {
                        Ok(())
                    } else {
                        Err(format!("{label}: outputs differ between poisoned arenas"))
                    }
                }
                _ => Ok(()),
            };
        });
        match (&ours, dump) {
            // TFLM's result would be of bytes its arena held (`stale_read` in the oracle): no
            // oracle; run here, the outputs must be equal across poisoned arenas.
            (_, Err(why)) if why.starts_with("unwritten:") => stale += 1,
            (Ok(()), Ok(_)) => both += 1,
            (Ok(()), Err(_)) => refused_tflm += 1,
            (Err(why), Ok(_)) => {
                refused_here += 1;
                if std::env::var_os("MUTANT_VERBOSE").is_some() {
                    println!("refused here, run by TFLM: {label}: {why}");
                }
            }
            (Err(_), Err(_)) => neither += 1,
        }
        match checked.map(|()| result) {
            Ok(Ok(())) => {}
            Ok(Err(e)) => failures.push(e),
            Err(p) => {
                let why = p
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| p.downcast_ref::<&str>().copied())
                    .unwrap_or("?");
                // An integer division by an activation that is zero: TFLM's kernel traps (the
                // wheel crashed on it), this one returns a typed error at that invocation (a
                // value known only then).
                if dump.is_err() && why.contains("integer division by zero") {
                    both_fail += 1;
                } else {
                    failures.push(format!("{label}: panicked: {why}"));
                }
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    drop(std::panic::take_hook());
    std::panic::set_hook(Box::new(move |info| hook(info)));
    println!(
        "mutant sweep (seed {seed}): {} mutants ({skipped} skipped: unchanged, unreadable or too large); both run {both} (every intermediate equal to TFLM on poisoned arenas), refused here only {refused_here}, refused by TFLM only {refused_tflm} (run here, equal across poisoned arenas), refused by both {neither}; {stale} read bytes TFLM never writes (no oracle: run here, equal across poisoned arenas); {both_fail} divide by a zero activation (TFLM traps, a typed error at the invocation here)",
        mutants.len()
    );
    assert!(
        failures.is_empty(),
        "{} mutants failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
