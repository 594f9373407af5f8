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
//! The venv missing is a failure naming the script, never a pass. Run with `--release` (the
//! big models run 31 convolutions per input) and `-- --nocapture` for the tallies.

mod common;

use common::tflite::Model;
use common::{bmp_input, compare_model, random_inputs, shared, speech_features, tflm_dump, Rng};

const SEEDS: u64 = 4;

fn check(name: &str, path: &std::path::Path, real: Vec<(&str, Vec<u8>)>, seeds: u64) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let model = Model::parse(&bytes);
    let mut runs: Vec<Vec<u8>> = (0..seeds)
        .map(|s| random_inputs(&model, &mut Rng::new(0x5EED_0000 + s)))
        .collect();
    let real_names: Vec<&str> = real.iter().map(|(n, _)| *n).collect();
    runs.extend(real.into_iter().map(|(_, r)| r));
    let dump = tflm_dump(path, &runs, name);
    let tally = compare_model(name, &bytes, &dump);
    println!(
        "oracle {name}: {} runs ({seeds} random{}{}), {} operator outputs, {} bytes equal to TFLM",
        tally.runs,
        if real_names.is_empty() { "" } else { " + " },
        real_names.join(", "),
        tally.tensors,
        tally.bytes
    );
}

fn shared_model(name: &str) -> std::path::PathBuf {
    shared().join("models").join(format!("{name}.tflite"))
}

#[test]
fn hello_world_int8() {
    check(
        "hello_world_int8",
        &shared_model("hello_world_int8"),
        vec![],
        16,
    );
}

#[test]
fn micro_speech_quantized() {
    let inputs = shared().join("inputs");
    let real = ["yes", "no", "silence", "noise"]
        .iter()
        .map(|w| (*w, speech_features(&inputs.join(format!("{w}_1000ms.wav")))))
        .collect();
    check(
        "micro_speech_quantized",
        &shared_model("micro_speech_quantized"),
        real,
        SEEDS,
    );
}

#[test]
fn kws_ref_model() {
    check(
        "kws_ref_model",
        &shared_model("kws_ref_model"),
        vec![],
        SEEDS,
    );
}

#[test]
fn person_detect() {
    let inputs = shared().join("inputs");
    let real = vec![
        ("person.bmp", bmp_input(&inputs.join("person.bmp"))),
        ("no_person.bmp", bmp_input(&inputs.join("no_person.bmp"))),
    ];
    check("person_detect", &shared_model("person_detect"), real, 2);
}

#[test]
fn pretrained_resnet_quant() {
    check(
        "pretrainedResnet_quant",
        &shared_model("pretrainedResnet_quant"),
        vec![],
        SEEDS,
    );
}

#[test]
fn ad01_int8() {
    check("ad01_int8", &shared_model("ad01_int8"), vec![], SEEDS);
}

#[test]
fn simple_add_model() {
    check(
        "simple_add_model",
        &shared_model("simple_add_model"),
        vec![],
        2,
    );
}

/// The committed single-operator models (`tests/models`, written by `tests/oracle/gen_models.py`).
#[test]
fn single_operator_models() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/models");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tflite"))
        .collect();
    paths.sort();
    assert!(
        paths.len() >= 30,
        "single-operator models missing in {}",
        dir.display()
    );
    for p in paths {
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        check(&name, &p, vec![], SEEDS);
    }
}
