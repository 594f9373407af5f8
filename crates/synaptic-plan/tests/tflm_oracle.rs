//! `synmem emit --lang tflite` against TensorFlow Lite Micro, live (TFLM's own wheel).
//!
//! For every model of `../shared/models` the wheel runs: TFLM's kernel scratch per operator is
//! measured (`tests/tflm/tflm_plan_oracle.py scratch`), the model is planned in TFLM's
//! semantics with that table ([`synaptic_plan::tflm`]) and written with its
//! `OfflineMemoryAllocation`, and the wheel checks (`check`):
//! * every output of [`SEEDS`] seeded random runs in a row (state carried) equal to the
//!   original model's, and every activation bit-identical to the original's (observed at cuts:
//!   the emitted model truncated after an operator, with the activations live there as its
//!   outputs — TFLM keeps no dead tensor, and `kPreserveAllTensors` uses a linear planner that
//!   refuses offline plans). A tensor whose kernel leaves bytes unwritten (SignalEnergy writes
//!   only its `[start_index, end_index)` bins) holds arena leftovers there under any plan with
//!   reuse, TFLM's own included: such tensors (TFLM's own plan differs from the reference on
//!   them too) are reported, not compared; their consumers are;
//! * the head TFLM reports is never larger than with TFLM's own plan, and at most our planned
//!   head (tensors and the kernel-scratch holes).
//!
//! The plan without the scratch table (tensors only) is measured too and printed; it is what a
//! plan that ignores TFLM's kernel scratch gives. Built only with the `oracle` feature;
//! `scripts/test-tflm-plan.sh` creates the venv if needed and runs it. `TFLM_PLAN_ONLY`
//! (`name1,name2`, or `all`; unset: all) limits the models; the script defaults to a fast
//! subset.

use std::path::{Path, PathBuf};
use std::process::Command;
use synaptic_plan::tflm::{head_tensors, plan_for_tflm, with_offline_plan};
use synaptic_plan::tflm_arena::{self, Kernels};
use synaptic_plan::{Model, PlanOptions};

const SEEDS: u64 = 3;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn models_dir() -> PathBuf {
    let dir = std::env::var_os("SYNAPTIC_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("../shared"))
        .join("models");
    assert!(
        dir.is_dir(),
        "shared models not found at {} (set SYNAPTIC_SHARED)",
        dir.display()
    );
    dir
}

fn python() -> PathBuf {
    let py = std::env::var_os("ORACLE_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".venv-oracle/bin/python"));
    assert!(
        py.exists(),
        "TFLM oracle venv missing ({}): run scripts/oracle-venv.sh (or scripts/test-tflm-plan.sh)",
        py.display()
    );
    py
}

fn oracle(args: &[&str]) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tflm/tflm_plan_oracle.py");
    let out = Command::new(python())
        .arg(&script)
        .args(args)
        .output()
        .expect("run the oracle");
    assert!(
        out.status.success(),
        "oracle {args:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The cuts: scopes `s` (≥ 1) covering every activation whose lifetime reaches an operator,
/// each with all activations live at `s` (greedy interval stabbing at the last scopes).
fn cuts(model: &Model) -> Vec<(usize, Vec<usize>)> {
    let head = head_tensors(model, false);
    let mut by_last: Vec<_> = head.iter().filter(|h| h.lifetime.last_scope >= 1).collect();
    by_last.sort_by_key(|h| h.lifetime.last_scope);
    let mut points: Vec<usize> = Vec::new();
    for h in by_last {
        let covered = points
            .last()
            .is_some_and(|&s| s >= h.lifetime.first_scope.max(1) && s <= h.lifetime.last_scope);
        if !covered {
            points.push(h.lifetime.last_scope);
        }
    }
    points
        .into_iter()
        .map(|s| {
            let live = head
                .iter()
                .filter(|h| h.lifetime.first_scope <= s && s <= h.lifetime.last_scope)
                .map(|h| h.tensor)
                .collect();
            (s, live)
        })
        .collect()
}

fn json_u64(v: &serde_json::Value, key: &str) -> u64 {
    v[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} missing in {v}"))
}

#[test]
fn emitted_plans_run_bit_exact_in_tflm() {
    let dir = models_dir();
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tflm-plan");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tflite"))
        .filter(|p| {
            std::env::var("TFLM_PLAN_ONLY").map_or(true, |only| {
                only == "all"
                    || only
                        .split(',')
                        .any(|o| p.file_stem().unwrap().to_string_lossy() == o)
            })
        })
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no models in {}", dir.display());
    println!(
        "tflm-plan | model | TFLM head before | after (plan + scratch table) | after (tensors only) | tensors planned | kernel scratch | live bound (tensors) | checked"
    );
    let mut failures = Vec::new();
    let mut ran = 0;
    for path in &paths {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(path).unwrap();
        let model = Model::from_bytes(&bytes).unwrap();
        let p = path.to_str().unwrap();
        let head0 = oracle(&["head", p]);
        if head0.starts_with("refused") {
            println!(
                "tflm-plan | {name} | not run by the wheel ({}) |",
                head0.trim()
            );
            continue;
        }
        ran += 1;
        let table: Vec<u64> = oracle(&["scratch", p])
            .split_whitespace()
            .map(|w| w.parse().unwrap())
            .collect();
        let opts = PlanOptions::default();
        let with = plan_for_tflm(&model, &opts, Some(&table)).unwrap();
        let only = plan_for_tflm(&model, &opts, None).unwrap();
        let emitted = tmp.join(format!("{name}.tflite"));
        let emitted_only = tmp.join(format!("{name}.tensors-only.tflite"));
        std::fs::write(&emitted, with_offline_plan(&bytes, &with).unwrap()).unwrap();
        std::fs::write(&emitted_only, with_offline_plan(&bytes, &only).unwrap()).unwrap();
        let cuts_file = tmp.join(format!("{name}.cuts.json"));
        std::fs::write(&cuts_file, serde_json::to_string(&cuts(&model)).unwrap()).unwrap();
        let seeds = SEEDS.to_string();
        let check = |emitted: &Path| -> serde_json::Value {
            serde_json::from_str(&oracle(&[
                "check",
                p,
                emitted.to_str().unwrap(),
                cuts_file.to_str().unwrap(),
                &seeds,
            ]))
            .unwrap()
        };
        let r = check(&emitted);
        let r_only = check(&emitted_only);
        let (before, after) = (json_u64(&r, "head_before"), json_u64(&r, "head_after"));
        let after_only = json_u64(&r_only, "head_after");
        for (what, rep) in [("with scratch table", &r), ("tensors only", &r_only)] {
            for m in rep["mismatches"].as_array().unwrap() {
                failures.push(format!("{name} ({what}): {m}"));
            }
        }
        let observable = head_tensors(&model, false)
            .iter()
            .filter(|h| h.lifetime.last_scope >= 1)
            .count() as u64;
        if json_u64(&r, "tensors") != observable {
            failures.push(format!(
                "{name}: {} activations checked of {observable}",
                json_u64(&r, "tensors")
            ));
        }
        if after > before {
            failures.push(format!(
                "{name}: TFLM head {after} B with our plan, {before} B with its own"
            ));
        }
        // synaptic_plan::tflm_arena against the wheel (reference kernels): its scratch table
        // and its replay of TFLM's greedy planner (TFLM's own plan, and around our offsets),
        // for the models whose operators it models.
        if let Ok(computed) = tflm_arena::scratch_table(&bytes, Kernels::Reference) {
            if computed != table {
                failures.push(format!(
                    "{name}: reference kernels' scratch {computed:?}, the wheel asks for {table:?}"
                ));
            }
            let head =
                |o: Option<&[i32]>| tflm_arena::tflm_head(&bytes, o, Kernels::Reference).unwrap();
            let heads = (
                head(None),
                head(Some(&with.offsets)),
                head(Some(&only.offsets)),
            );
            if heads != (before, after, after_only) {
                failures.push(format!(
                    "{name}: tflm_arena heads (own, ours, tensors only) {heads:?}, the wheel's ({before}, {after}, {after_only})"
                ));
            }
            println!("tflm-plan | {name} | tflm_arena: scratch table and heads (own {}, ours {}, tensors only {}) equal the wheel's", heads.0, heads.1, heads.2);
        }
        if after > with.head_bytes() {
            failures.push(format!(
                "{name}: TFLM head {after} B above the planned {} B",
                with.head_bytes()
            ));
        }
        println!(
            "tflm-plan | {name} | {before} | {after} | {after_only} | {} of {} | {} | {} | {} runs, {} outputs, {} activations in {} cuts ({} values)",
            with.tensors.len(),
            model.tensors.len(),
            with.kernel_scratch.unwrap(),
            only.plan.lower_bound,
            json_u64(&r, "runs"),
            json_u64(&r, "outputs"),
            json_u64(&r, "tensors"),
            json_u64(&r, "cuts"),
            json_u64(&r, "tensor_values"),
        );
        if let Some(p) = r["partial"].as_object().filter(|p| !p.is_empty()) {
            println!(
                "tflm-plan | {name} | tensors whose kernels leave bytes unwritten (TFLM's own plan differs from the reference there too; bytes that differ, by tensor): {}",
                serde_json::Value::Object(p.clone())
            );
        }
    }
    assert!(ran > 0, "the wheel ran none of the models");
    // The harness sees a bad plan: every activation at offset 0 must differ somewhere.
    if let Some(path) = paths
        .iter()
        .find(|p| p.file_stem().is_some_and(|s| s == "kws_ref_model"))
    {
        let bytes = std::fs::read(path).unwrap();
        let model = Model::from_bytes(&bytes).unwrap();
        let mut bad = plan_for_tflm(&model, &PlanOptions::default(), None).unwrap();
        for o in bad.offsets.iter_mut().filter(|o| **o >= 0) {
            *o = 0;
        }
        let emitted = tmp.join("kws_ref_model.all-at-0.tflite");
        std::fs::write(&emitted, with_offline_plan(&bytes, &bad).unwrap()).unwrap();
        let cuts_file = tmp.join("kws_ref_model.cuts.json");
        std::fs::write(&cuts_file, serde_json::to_string(&cuts(&model)).unwrap()).unwrap();
        let r: serde_json::Value = serde_json::from_str(&oracle(&[
            "check",
            path.to_str().unwrap(),
            emitted.to_str().unwrap(),
            cuts_file.to_str().unwrap(),
            "1",
        ]))
        .unwrap();
        let n = r["mismatches"].as_array().unwrap().len();
        println!("tflm-plan | kws_ref_model with every activation at offset 0: {n} mismatches found (expected > 0)");
        assert!(
            n > 0,
            "the harness did not see a plan that overlaps everything"
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
