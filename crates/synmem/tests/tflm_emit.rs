//! `synmem emit --lang tflite --kernels …`: kTensorArenaSize on stderr and in `--json`,
//! checked against TFLM measured on a 32-bit Cortex-M4 (the QEMU harness's bisection of the
//! emitted models: `crates/synaptic-plan/tests/tflm/m4_arena.txt`).

use std::path::PathBuf;
use std::process::Command;

fn model(name: &str) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../../../shared/models/{name}.tflite"));
    assert!(
        p.is_file(),
        "shared model missing: {} (../shared/models)",
        p.display()
    );
    p
}

fn emit(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_synmem"))
        .arg("emit")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The measured arena of (model, kernels) with our plan, from the committed table.
fn measured(name: &str, kernels: &str) -> u64 {
    include_str!("../../synaptic-plan/tests/tflm/m4_arena.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f.len() >= 4 && f[0] == name && f[1] == kernels && f[2] == "ours")
        .unwrap_or_else(|| panic!("{name} {kernels}: no row"))[3]
        .parse()
        .unwrap()
}

#[test]
fn emit_prints_the_arena_tflm_accepts() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    for (name, kernels) in [
        ("kws_ref_model", "cmsis-nn"),
        ("person_detect", "reference"),
    ] {
        let out = dir.join(format!("{name}.{kernels}.tflite"));
        let m = model(name);
        let (code, stdout, stderr) = emit(&[
            m.to_str().unwrap(),
            "--lang",
            "tflite",
            "--kernels",
            kernels,
            "-o",
            out.to_str().unwrap(),
            "--json",
        ]);
        assert_eq!(code, 0, "{stderr}");
        let want = measured(name, kernels);
        assert!(
            stderr.contains(&format!(
                "kTensorArenaSize {want} for a 32-bit TFLM build with {kernels} kernels"
            )),
            "{stderr}"
        );
        let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(v["k_tensor_arena_size"].as_u64(), Some(want), "{stdout}");
        assert_eq!(v["kernels"], kernels);
        assert_eq!(v["scratch_table"], format!("{kernels} kernels"));
        assert!(out.is_file());
    }
}

#[test]
fn kernels_is_for_tflite() {
    let m = model("hello_world_int8");
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("h.rs");
    let (code, _, stderr) = emit(&[
        m.to_str().unwrap(),
        "--lang",
        "rust",
        "--kernels",
        "cmsis-nn",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--kernels is for --lang tflite"),
        "{stderr}"
    );
}

/// README's TFLM example line is this command's output (up to its `;`): it cannot go stale.
#[test]
fn readme_shows_the_printed_arena() {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("readme.planned.tflite");
    let m = model("person_detect");
    let (code, _, stderr) = emit(&[
        m.to_str().unwrap(),
        "--lang",
        "tflite",
        "--kernels",
        "cmsis-nn",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.starts_with("kTensorArenaSize"))
        .unwrap();
    let head = &line[..line.find(';').unwrap()];
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    assert!(
        readme.contains(&format!("#   {head}; ...)")),
        "README's kTensorArenaSize line differs from: {line}"
    );
}
