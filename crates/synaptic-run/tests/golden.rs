//! Every operator against TFLM's bytes without Python: the golden files of `tests/golden/`
//! (format: `tests/golden/README.md`, `common::golden`), written by the oracle step from live
//! TFLM dumps (`SYNAPTIC_GOLDEN=update scripts/test-oracle.sh`) and checked against it on
//! every oracle run.
//!
//! For each golden file the run's inputs are made again from their sources (seeded
//! `random_inputs`, `../shared/inputs/*.bmp`, or stored bytes) and must match the file's input
//! digest; then the whole graph is run by the interpreter chained from those inputs alone, on a
//! poisoned arena with the plain plan and with the overlapped one (`common::compare_chained`,
//! the oracle's own comparison), and every operator output and every graph output must equal
//! TFLM's bytes (single-operator models: stored in full) or their SHA-256 (shared models). A
//! mismatch names the model, the run, the plan, the operator and the tensor (index, name).
//!
//! * The single-operator models (`tests/models/*.tflite`) never skip; each must have a golden
//!   file and each golden file a model (`every_model_has_a_golden_file`).
//! * The shared models (`common::golden::SHARED_MODELS`, the one list) need `../shared` (or
//!   `$SYNAPTIC_SHARED`); missing, they fail unless `SYNMEM_SKIP_MODELS=1`, which skips them
//!   with a notice (the workspace's convention). A golden file made from another model file
//!   fails, asking for a regeneration.

mod common;

use std::path::Path;

use common::golden::{self, Golden, SHARED_MODELS};
use common::tflite::Model;
use common::{compare_chained, Tally, Want};

/// Checks `name` (model bytes `bytes`) against its golden file; `Ok` is a one-line summary.
fn check(name: &str, bytes: &[u8], shared: Option<&Path>) -> Result<String, String> {
    let g = Golden::load(name)?;
    g.check_model(name, bytes)?;
    let model = Model::parse(bytes);
    let inputs = g.inputs(name, &model, shared)?;
    let labels: Vec<String> = g
        .runs
        .iter()
        .enumerate()
        .map(|(k, r)| format!("run {k} ({})", r.source.label()))
        .collect();
    // The graph inputs as fed must be the file's values of the input tensors.
    for (k, input) in inputs.iter().enumerate() {
        let mut pos = 0;
        for &i in &model.inputs {
            let len = model.tensors[i].bytes();
            let value = g.runs[k]
                .tensors
                .get(&i)
                .ok_or_else(|| format!("{name} {}: no value of input tensor {i}", labels[k]))?;
            let same = match value.want() {
                Want::Bytes(b) => b == &input[pos..pos + len],
                Want::Sha256(n, d) => n == len && d == golden::sha256(&input[pos..pos + len]),
            };
            if !same {
                return Err(format!(
                    "{name} {}: graph input tensor {i} \"{}\" is not the golden file's",
                    labels[k], model.tensors[i].name
                ));
            }
            pos += len;
        }
    }
    let against = format!("the golden file {}", golden::shown(name));
    let t: Tally = compare_chained(name, bytes, &labels, &inputs, &against, &|r, t| {
        g.runs[r].tensors.get(&t).map(|v| v.want())
    })?;
    Ok(format!(
        "golden {name}: {} runs, {} operator outputs ({} bytes) equal to TFLM's, plain and overlapped plans",
        t.runs, t.tensors, t.bytes
    ))
}

/// Runs `jobs` (name, model bytes) on two threads (the CI machine's cores) and fails naming
/// every model that disagrees.
fn check_all(jobs: Vec<(String, Vec<u8>)>, shared: Option<&Path>) {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(vec![None; jobs.len()]);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((name, bytes)) = jobs.get(k) else {
                    break;
                };
                let r = std::panic::catch_unwind(|| check(name, bytes, shared))
                    .unwrap_or_else(|_| Err(format!("{name}: panicked (see above)")));
                results.lock().unwrap()[k] = Some(r);
            });
        }
    });
    let mut failures = Vec::new();
    for r in results.into_inner().unwrap().into_iter().flatten() {
        match r {
            Ok(line) => println!("{line}"),
            Err(e) => failures.push(e),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} models differ from their golden files:\n{}",
        failures.len(),
        jobs.len(),
        failures.join("\n")
    );
}

/// Every committed single-operator model against its golden file (TFLM's bytes in full).
#[test]
fn single_operator_models() {
    let jobs: Vec<(String, Vec<u8>)> = golden::single_op_models()
        .into_iter()
        .map(|(name, p)| (name, std::fs::read(&p).unwrap()))
        .collect();
    assert!(jobs.len() >= 30, "single-operator models missing");
    check_all(jobs, None);
}

/// Every model of `SHARED_MODELS` against its golden file (TFLM's digests).
#[test]
fn shared_models() {
    let Some(shared) = common::shared_or_skip("the shared models' golden files") else {
        return;
    };
    let jobs: Vec<(String, Vec<u8>)> = SHARED_MODELS
        .iter()
        .map(|m| {
            let p = shared.join("models").join(format!("{}.tflite", m.name));
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (m.name.to_string(), bytes)
        })
        .collect();
    check_all(jobs, Some(&shared));
}

/// A single-operator model or a listed shared model without a golden file fails, and so does a
/// golden file of no model (a model renamed or removed).
#[test]
fn every_model_has_a_golden_file() {
    let mut names: Vec<String> = golden::single_op_models()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    names.extend(SHARED_MODELS.iter().map(|m| m.name.to_string()));
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !golden::path(n).is_file())
        .collect();
    assert!(
        missing.is_empty(),
        "models without a golden file in {}: {missing:?} (`SYNAPTIC_GOLDEN=update scripts/test-oracle.sh` writes them)",
        golden::dir().display()
    );
    let mut orphans = Vec::new();
    for e in std::fs::read_dir(golden::dir()).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|e| e == "golden") {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            if !names.contains(&stem) {
                orphans.push(stem);
            }
        }
    }
    assert!(
        orphans.is_empty(),
        "golden files of no model (neither tests/models/<name>.tflite nor in SHARED_MODELS): {orphans:?}"
    );
}

/// The format reads back what it writes, and a changed byte is caught by both kinds of value.
#[test]
fn format_round_trip_and_a_changed_byte_fails() {
    use common::golden::{Source, Store};
    let (_, p) = golden::single_op_models().remove(0);
    let bytes = std::fs::read(&p).unwrap();
    let model = Model::parse(&bytes);
    let sources = [
        Source::Seed(golden::SEED_BASE),
        Source::Bytes("stored".into(), vec![]),
    ];
    let inputs: Vec<Vec<u8>> = sources.iter().map(|s| s.input(&model, None)).collect();
    let n = model.tensors.len();
    let dump: common::Dump = (0..2)
        .map(|r| (0..n).map(|t| vec![r as u8, t as u8, 7]).collect())
        .collect();
    for store in [Store::Full, Store::Digest] {
        let g = Golden::from_dump("m.tflite", &bytes, &sources, &inputs, &dump, store);
        let back = Golden::parse(&g.to_text()).unwrap();
        assert_eq!(back, g);
        let t = *golden::recorded(&model).last().unwrap();
        let mut changed = dump.clone();
        changed[1][t][2] ^= 1;
        let live = Golden::from_dump("m.tflite", &bytes, &sources, &inputs, &changed, store);
        let e = g.diff("m", &model, &live).unwrap_err();
        assert!(e.contains(&format!("run 1 (stored): tensor {t} ")), "{e}");
    }
}
