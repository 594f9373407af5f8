//! The `run_model` fuzz harness (`tests/harness/run_model.rs`) on seeded mutants of the shared
//! models (int8, float32, one hybrid) and the committed single-operator models, so that it runs in the test command
//! on every target — natively on x86_64 and on i686 (32-bit `usize`, like Cortex-M: the
//! `scripts/test` step `i686` builds it with overflow checks), where the fuzzer cannot go.
//! `RUN_MODEL_CASES=N` changes the number of mutants (default 2000), `RUN_MODEL_SEED=S` the
//! seed.

mod common;
mod harness {
    pub mod run_model;
}

use std::time::{Duration, Instant};

use harness::run_model::{mutate, run_model, Outcome, Rng, CONFIGS};

/// The seed models: the shared models that run (int8, streaming, float32) and a hybrid one, then the
/// committed single-operator ones.
fn seeds() -> Vec<(String, Vec<u8>)> {
    let shared = common::shared().join("models");
    let mut v = Vec::new();
    for m in [
        "hello_world_int8",
        "micro_speech_quantized",
        "ad01_int8",
        "simple_add_model",
        "kws_ref_model",
        "pretrainedResnet_quant",
        "person_detect",
        // Streaming: LSTM state (int8 hidden, int16 cell), SVDF state.
        "trained_lstm_int8",
        "keyword_scrambled_8bit",
        // TFLM's signal library: custom options (FlexBuffers), the FFT, two outputs, kernel
        // state (the noise estimate), uint32/uint64 tensors, int32 arithmetic.
        "audio_preprocessor_int8",
        "hello_world_float",
        "ad01_fp32",
        "pretrainedResnet",
        // Hybrid (float activations, int8 weights): refused at load, its mutants too.
        "kws_ref_model_float32",
    ] {
        let p = shared.join(format!("{m}.tflite"));
        let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        v.push((m.to_string(), bytes));
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/models");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tflite"))
        .collect();
    files.sort();
    for p in files {
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        v.push((name, std::fs::read(&p).unwrap()));
    }
    v
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn hostile_mutants_never_panic_and_run_deterministically() {
    let seeds = seeds();
    // Every seed runs, unmutated, in every configuration.
    for (name, bytes) in &seeds[..7] {
        for c in CONFIGS {
            let o = run_model(bytes, c);
            assert_eq!(o, Outcome::Ran, "{name} in {c:?}");
        }
    }
    let cases = env("RUN_MODEL_CASES", 2000);
    // `RUN_MODEL_ONLY=a,b`: the mutants of those seed models only (the stateful and signal
    // ones of a long run, say), each as likely.
    let only: Option<Vec<(String, Vec<u8>)>> = std::env::var("RUN_MODEL_ONLY").ok().map(|l| {
        let names: Vec<&str> = l.split(',').collect();
        let v: Vec<_> = seeds
            .iter()
            .filter(|(n, _)| names.contains(&n.as_str()))
            .cloned()
            .collect();
        assert_eq!(
            v.len(),
            names.len(),
            "RUN_MODEL_ONLY names a model that is no seed: {l}"
        );
        v
    });
    let mut rng = Rng(env("RUN_MODEL_SEED", 0x5EED_1818));
    let (mut refused, mut no_plan, mut too_large, mut ran, mut out_of_domain) = (0, 0, 0, 0, 0);
    let mut slowest = (Duration::ZERO, String::new());
    for case in 0..cases {
        // Mostly the small models: the large ones cost a whole inference per run.
        let k = match rng.below(8) {
            0 => rng.below(7) as usize,
            1 | 2 => rng.below(3) as usize,
            _ => 7 + rng.below((seeds.len() - 7) as u64) as usize,
        };
        let (name, seed) = match &only {
            Some(only) => &only[rng.below(only.len() as u64) as usize],
            None => &seeds[k],
        };
        let mut bytes = seed.clone();
        let edits = 1 + rng.below(3);
        for _ in 0..edits {
            mutate(&mut bytes, &mut rng);
        }
        let config = CONFIGS[(case % 8) as usize];
        let t0 = Instant::now();
        let outcome = run_model(&bytes, config);
        let dt = t0.elapsed();
        if dt > slowest.0 {
            slowest = (dt, format!("case {case} ({name}, {config:?})"));
        }
        match outcome {
            Outcome::Refused => refused += 1,
            Outcome::NoPlan => no_plan += 1,
            Outcome::TooLarge => too_large += 1,
            Outcome::Ran => ran += 1,
            Outcome::OutOfDomain => out_of_domain += 1,
        }
    }
    eprintln!(
        "run_model: {cases} mutants: {refused} refused, {no_plan} not planned, {too_large} too \
         large, {ran} ran (three identical inferences each), {out_of_domain} stopped at every \
         inference by an input outside its operator's domain (a DIV by a zero activation, an \
         RSQRT below zero, an index outside its axis, shapes that do not broadcast: the same \
         typed error each); slowest {:.1} ms: {}",
        slowest.0.as_secs_f64() * 1e3,
        slowest.1
    );
    assert!(refused > 0 && ran > 0, "the mutants exercise both paths");
}

/// Every model the `run_model` fuzzer once crashed on (minimised, committed in
/// `tests/hostile/`), in every configuration: refused or run clean, never a panic.
#[test]
fn fuzz_artifacts_run_clean_in_every_configuration() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let bytes = std::fs::read(&p).unwrap();
        for c in CONFIGS {
            run_model(&bytes, c);
        }
        n += 1;
    }
    assert!(n >= 2, "the artifacts are in {}", dir.display());
}
