//! The `synmem` binary end to end.

use assert_cmd::Command;
use std::path::PathBuf;

#[path = "../../synaptic-plan/tests/common/tflite.rs"]
mod tflite;

fn models() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/models");
    if dir.join("README.md").is_file() {
        return Some(dir);
    }
    if std::env::var("SYNMEM_SKIP_MODELS").as_deref() == Ok("1") {
        eprintln!(
            "SKIPPED: {} not found and SYNMEM_SKIP_MODELS=1",
            dir.display()
        );
        return None;
    }
    panic!(
        "shared models not found at {} (expected <repo>/../shared/models); set SYNMEM_SKIP_MODELS=1 to skip",
        dir.display()
    );
}

fn synmem() -> Command {
    Command::cargo_bin("synmem").unwrap()
}

fn tmp(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("synmem-{}-{name}", std::process::id()))
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = synmem().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Asserts a failure with exit `code` and exactly one stderr line starting `synmem: error:`.
fn fails(args: &[&str], code: i32) -> String {
    let out = synmem().args(args).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{args:?}: not one line: {err:?}");
    assert!(err.starts_with("synmem: error: "), "{err:?}");
    err
}

const FIELDS: &[&str] = &[
    "model",
    "tensors",
    "operators",
    "weights_bytes",
    "activation_sum_bytes",
    "live_lower_bound_bytes",
    "planned_activation_bytes",
    "proven_optimal",
    "persistent_bytes",
    "ephemeral_bytes",
    "scratch_bytes",
    "shared_bytes",
    "arena_bytes_required",
    "fits",
];

#[test]
fn plan_json_has_the_issue_fields() {
    let Some(dir) = models() else { return };
    let p = dir.join("person_detect.tflite");
    let v = json(&["plan", p.to_str().unwrap(), "--json"]);
    for f in FIELDS {
        assert!(v.get(f).is_some(), "missing field {f}");
    }
    assert_eq!(v["model"], "person_detect");
    assert_eq!(v["tensors"], 89);
    assert_eq!(v["operators"], 31);
    assert_eq!(v["weights_bytes"], 218928);
    assert_eq!(v["activation_sum_bytes"], 241030);
    assert_eq!(v["live_lower_bound_bytes"], 55296);
    // Overlapped by default (issue 12): at the overlap bound.
    assert_eq!(v["overlap"], true);
    assert_eq!(v["overlap_lower_bound_bytes"], 36880);
    assert_eq!(v["planned_activation_bytes"], 36880);
    assert!(!v["overlap_pairs"].as_array().unwrap().is_empty());
    assert_eq!(v["proven_optimal"], true);
    assert_eq!(v["fits"], false); // 219 KB of weights in a 128 KB arena
    let sum = v["persistent_bytes"].as_u64().unwrap()
        + v["ephemeral_bytes"].as_u64().unwrap()
        + v["scratch_bytes"].as_u64().unwrap();
    assert_eq!(v["arena_bytes_required"].as_u64().unwrap(), sum);
    // --no-overlap: the plain plan (no declared overlap), both bounds still reported.
    let plain = json(&["plan", p.to_str().unwrap(), "--json", "--no-overlap"]);
    assert_eq!(plain["overlap"], false);
    assert_eq!(plain["planned_activation_bytes"], 55296);
    assert_eq!(plain["overlap_lower_bound_bytes"], 36880);
    assert_eq!(plain["overlap_pairs"].as_array().unwrap().len(), 0);
    assert_eq!(
        plain["ephemeral_bytes"].as_u64().unwrap() - v["ephemeral_bytes"].as_u64().unwrap(),
        55296 - 36880
    );
}

#[test]
fn verdict_flips_exactly_at_the_required_size() {
    let Some(dir) = models() else { return };
    let p = dir.join("micro_speech_quantized.tflite");
    let p = p.to_str().unwrap();
    let v = json(&["plan", p, "--json", "--scratch", "2048", "--arena", "65536"]);
    let need = v["arena_bytes_required"].as_u64().unwrap();
    let at = json(&[
        "plan",
        p,
        "--json",
        "--scratch",
        "2048",
        "--arena",
        &need.to_string(),
    ]);
    assert_eq!(at["fits"], true);
    let below = json(&[
        "plan",
        p,
        "--json",
        "--scratch",
        "2048",
        "--arena",
        &(need - 16).to_string(),
    ]);
    assert_eq!(below["fits"], false);
    assert_eq!(below["short_by"][0]["bytes"], 16);
    assert_eq!(below["short_by"][0]["region"], "ephemeral");
    // --check turns "does not fit" into exit status 3; the human output names the region.
    let out = synmem()
        .args([
            "plan",
            p,
            "--check",
            "--scratch",
            "2048",
            "--arena",
            &(need - 16).to_string(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("short by 16 bytes in the ephemeral region"),
        "{text}"
    );
    synmem()
        .args([
            "plan",
            p,
            "--check",
            "--scratch",
            "2048",
            "--arena",
            &need.to_string(),
        ])
        .assert()
        .success();
}

#[test]
fn per_operator_scratch_table() {
    let Some(dir) = models() else { return };
    let p = dir.join("micro_speech_quantized.tflite"); // 4 operators
    let p = p.to_str().unwrap();
    let table = tmp("scratch.txt");
    std::fs::write(&table, "0, 100\n5000 0\n").unwrap();
    let t = table.to_str().unwrap();
    let v = json(&[
        "plan",
        p,
        "--json",
        "--scratch",
        "2048",
        "--scratch-table",
        t,
    ]);
    // Both buffers stay acquired until the reset (the core's scratch release is a no-op).
    assert_eq!(v["scratch_bytes"], 112 + 5008);
    assert_eq!(v["fits"], false);
    assert_eq!(v["short_by"][0]["region"], "scratch");
    assert_eq!(v["short_by"][0]["bytes"], 112 + 5008 - 2048);
    let v = json(&[
        "plan",
        p,
        "--json",
        "--scratch",
        "8192",
        "--scratch-table",
        t,
    ]);
    assert_eq!(v["fits"], true);
    let tr = json(&["trace", p, "--scratch-table", t]);
    assert_eq!(tr["scratch_per_op"][2], 5000);
    std::fs::write(&table, "1 2 3").unwrap();
    let e = fails(&["plan", p, "--scratch-table", t], 2);
    assert!(e.contains("3 entries") && e.contains("4 operators"), "{e}");
    std::fs::write(&table, "1 2 x 4").unwrap();
    fails(&["plan", p, "--scratch-table", t], 2);
}

#[test]
fn strategies_and_weights_options() {
    let Some(dir) = models() else { return };
    let p = dir.join("person_detect.tflite");
    let p = p.to_str().unwrap();
    let bump = json(&["plan", p, "--json", "--strategy", "bump"]);
    let greedy = json(&["plan", p, "--json", "--strategy", "greedy"]);
    let best = json(&["plan", p, "--json"]);
    let e = |v: &serde_json::Value| v["ephemeral_bytes"].as_u64().unwrap();
    assert!(e(&bump) > e(&greedy) && e(&greedy) >= e(&best));
    assert_eq!(e(&bump), bump["bump_ephemeral_bytes"].as_u64().unwrap());
    let flash = json(&["plan", p, "--json", "--weights", "flash"]);
    assert!(flash["persistent_bytes"].as_u64().unwrap() < 10_000);
    assert_eq!(flash["fits"], true);
    assert_eq!(bump["overlap"], false); // no reuse, no overlap
    let eph = json(&["plan", p, "--json", "--io", "ephemeral", "--no-overlap"]);
    assert_eq!(eph["shared_bytes"], 0);
    assert_eq!(eph["ephemeral_bytes"], 55296);
}

#[test]
fn bad_files_and_options_fail_with_one_line() {
    let Some(dir) = models() else { return };
    let good = std::fs::read(dir.join("hello_world_int8.tflite")).unwrap();
    let trunc = tmp("trunc.tflite");
    std::fs::write(&trunc, &good[..good.len() / 2]).unwrap();
    let e = fails(&["plan", trunc.to_str().unwrap()], 1);
    assert!(e.contains("truncated or corrupt"), "{e}");
    fails(&["inspect", trunc.to_str().unwrap()], 1);
    fails(&["plan", "/nonexistent/model.tflite"], 1);
    fails(&["plan", dir.join("README.md").to_str().unwrap()], 1);
    let hw = dir.join("hello_world_int8.tflite");
    let hw = hw.to_str().unwrap();
    fails(&["plan", hw, "--weights", "rom"], 2);
    fails(&["plan", hw, "--strategy", "magic"], 2);
    fails(&["plan", hw, "--arena", "lots"], 2);
    fails(&["plan", hw, "--arena", "1024"], 2);
    fails(&["plan", hw, "--scratch", "999999"], 2);
    fails(&["plan"], 2);
    fails(&["frobnicate"], 2);
    fails(&["emit", hw, "--lang", "go", "-o", "/tmp/x"], 2);
    fails(
        &["emit", hw, "--lang", "c", "-o", "/nonexistent/dir/plan.h"],
        1,
    );
    synmem().arg("--help").assert().success();
}

#[test]
fn svg_draws_one_rect_per_tensor_and_the_bound() {
    let Some(dir) = models() else { return };
    let svg = tmp("pd.svg");
    let p = dir.join("person_detect.tflite");
    synmem()
        .args(["plan", p.to_str().unwrap(), "--svg", svg.to_str().unwrap()])
        .assert()
        .success();
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"));
    assert_eq!(text.matches("<title>tensor ").count(), 32);
    assert!(text.contains("live lower bound 55296 B, overlap lower bound 36880 B"));
    assert!(text.contains(">overlap lower bound 36880 B</text>"));
    synmem()
        .args([
            "plan",
            p.to_str().unwrap(),
            "--no-overlap",
            "--svg",
            svg.to_str().unwrap(),
        ])
        .assert()
        .success();
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains(">live lower bound 55296 B</text>"));
    assert!(text.trim_end().ends_with("</svg>"));
}

#[test]
fn emit_writes_the_compiled_program_unless_op_data_ram() {
    let Some(dir) = models() else { return };
    let p = dir.join("hello_world_int8.tflite");
    for (io, run_io) in [
        ("shared", synaptic_run::IoPlacement::Shared),
        ("ephemeral", synaptic_run::IoPlacement::Plan),
    ] {
        let rs = tmp(&format!("hw_prog_{io}.rs"));
        synmem()
            .args([
                "emit",
                p.to_str().unwrap(),
                "--lang",
                "rust",
                "--io",
                io,
                "-o",
            ])
            .arg(&rs)
            .assert()
            .success();
        let text = std::fs::read_to_string(&rs).unwrap();
        let body = text
            .split("pub static PROGRAM: [u32; PROGRAM_WORDS] = [")
            .nth(1)
            .unwrap();
        let words: Vec<u32> = body
            .split("];")
            .next()
            .unwrap()
            .split(',')
            .map(str::trim)
            .filter(|w| !w.is_empty())
            .map(|w| u32::from_str_radix(w.trim_start_matches("0x"), 16).unwrap())
            .collect();
        let bytes = std::fs::read(&p).unwrap();
        let mut want = vec![0u32; synaptic_run::program::compiled_len(&bytes, run_io).unwrap()];
        synaptic_run::program::compile(&bytes, run_io, &mut want).unwrap();
        assert_eq!(words, want, "{io}");
        assert!(text.contains(&format!("pub const PROGRAM_WORDS: usize = {};", want.len())));
        synaptic_run::program::verify(&bytes, run_io, &words).unwrap();
        // Its operator set: hello_world_int8 is three FULLY_CONNECTEDs (kind 3), each with
        // its folded constants (path FC_FOLDED, bit 1).
        assert_eq!(
            synaptic_run::program::kinds(&words),
            Some(synaptic_run::ops::Kinds::of(&[3]))
        );
        assert_eq!(
            synaptic_run::program::paths(&words),
            Some(synaptic_run::ops::paths::FC_FOLDED)
        );
        assert!(
            text.contains(
                "impl synaptic_run::ops::OpSet for Ops {\n    const KINDS: synaptic_run::ops::Kinds = synaptic_run::ops::Kinds::of(&[3]);\n    \
                 const PATHS: u64 = 0x2;\n}"
            ),
            "{text}"
        );
    }
    // --op-data ram: the plan alone, line for line what it was.
    let rs = tmp("hw_noprog.rs");
    synmem()
        .args([
            "emit",
            p.to_str().unwrap(),
            "--lang",
            "rust",
            "--op-data",
            "ram",
            "-o",
        ])
        .arg(&rs)
        .assert()
        .success();
    let text = std::fs::read_to_string(&rs).unwrap();
    assert!(!text.contains("PROGRAM"));
    assert!(text.contains("pub const PLAN: Plan<'static>"));
    // A model synaptic-run does not run (a hybrid model, as TFLM refuses): the plan alone by
    // default, an error if asked for.
    let lstm = dir.join("kws_ref_model_float32.tflite");
    let out = tmp("lstm.h");
    synmem()
        .args(["emit", lstm.to_str().unwrap(), "--lang", "c", "-o"])
        .arg(&out)
        .assert()
        .success();
    assert!(!std::fs::read_to_string(&out)
        .unwrap()
        .contains("_program[]"));
    let e = fails(
        &[
            "emit",
            lstm.to_str().unwrap(),
            "--lang",
            "c",
            "--op-data",
            "flash",
            "-o",
            out.to_str().unwrap(),
        ],
        1,
    );
    assert!(e.contains("unsupported"), "{e}");
}

#[test]
fn emit_rust_and_c() {
    let Some(dir) = models() else { return };
    let p = dir.join("kws_ref_model.tflite");
    let rs = tmp("kws.rs");
    let h = tmp("kws.h");
    synmem()
        .args([
            "emit",
            p.to_str().unwrap(),
            "--lang",
            "rust",
            "-o",
            rs.to_str().unwrap(),
        ])
        .assert()
        .success();
    synmem()
        .args([
            "emit",
            p.to_str().unwrap(),
            "--lang",
            "c",
            "-o",
            h.to_str().unwrap(),
        ])
        .assert()
        .success();
    let rs = std::fs::read_to_string(&rs).unwrap();
    assert!(rs.contains("pub const SLOTS: [PlanSlot; "));
    assert!(rs.contains("pub const PLAN: Plan<'static>"));
    assert!(rs.contains("pub const SLOT_TENSORS: [u32; "));
    let hdr = std::fs::read_to_string(&h).unwrap();
    assert!(hdr.contains("#define KWS_REF_MODEL_REGION_SIZE "));
    assert!(hdr.contains("static const syn_plan_slot_t kws_ref_model_slots[]"));
    // The compiled program beside the plan (default --op-data flash).
    assert!(rs.contains("pub static PROGRAM: [u32; PROGRAM_WORDS] = ["));
    assert!(hdr.contains("static const uint32_t kws_ref_model_program[] SYNMEM_PLAN_UNUSED = {"));
    assert!(hdr.contains("#define KWS_REF_MODEL_PROGRAM_WORDS "));
    // What the C library and the Zephyr module link for it: its operators and kernel paths
    // (the host's portable program folds the FULLY_CONNECTED).
    assert!(hdr.contains(
        "#define KWS_REF_MODEL_OPS \"CONV_2D,DEPTHWISE_CONV_2D,FULLY_CONNECTED,AVERAGE_POOL_2D,\
         SOFTMAX,RESHAPE\""
    ));
    assert!(
        hdr.contains(
            "#define KWS_REF_MODEL_PATHS \"FC_FOLDED,CONV_POINTWISE,CONV_GATHERED,DW_ROWS\""
        ),
        "{}",
        hdr.lines()
            .filter(|l| l.contains("_PATHS"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    // Compile and run the header with the system C compiler, when there is one.
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    if std::process::Command::new(&cc)
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("no C compiler; header not compiled");
        return;
    }
    let main = tmp("kws_main.c");
    std::fs::write(
        &main,
        format!(
            "#include \"{}\"\n#include <stdio.h>\nint main(void) {{\n  unsigned n = sizeof kws_ref_model_slots / sizeof kws_ref_model_slots[0];\n  if (n != KWS_REF_MODEL_SLOT_COUNT) return 1;\n  for (unsigned i = 0; i < n; i++) {{\n    if (kws_ref_model_slots[i].offset % 16) return 2;\n    if (kws_ref_model_slots[i].offset + ((kws_ref_model_slots[i].size + 15u) & ~15u) > KWS_REF_MODEL_REGION_SIZE) return 3;\n  }}\n  printf(\"%u %u\\n\", n, KWS_REF_MODEL_REGION_SIZE);\n  return sizeof(syn_plan_slot_t) == 12 ? 0 : 4;\n}}\n",
            h.display()
        ),
    )
    .unwrap();
    let exe = tmp("kws_main");
    let st = std::process::Command::new(&cc)
        .args([
            "-std=c99",
            "-Wall",
            "-Werror",
            "-o",
            exe.to_str().unwrap(),
            main.to_str().unwrap(),
        ])
        .status()
        .unwrap();
    assert!(st.success(), "header does not compile");
    let out = std::process::Command::new(&exe).output().unwrap();
    assert!(
        out.status.success(),
        "header values wrong: {:?}",
        out.status
    );
}

#[test]
fn inspect_trace_and_survey() {
    let Some(dir) = models() else { return };
    let p = dir.join("trained_lstm.tflite");
    let p = p.to_str().unwrap();
    let out = synmem().args(["inspect", p]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("UNIDIRECTIONAL_SEQUENCE_LSTM"));
    assert!(text.contains("variable"));
    let v = json(&["inspect", p, "--json"]);
    assert_eq!(v["lifetimes"].as_array().unwrap().len(), 5);
    let t = json(&["trace", p]);
    assert_eq!(t["activations"].as_array().unwrap().len(), 3);
    assert_eq!(t["shared"].as_array().unwrap().len(), 2);
    let out = synmem()
        .args(["survey", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("person_detect") && text.contains("total: planned"));
}

/// The text of a successful run.
fn stdout(args: &[&str]) -> String {
    let out = synmem().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Issue 10, item 5: `--scratch` not a multiple of 16 is sized with the core's layout.
#[test]
fn misaligned_scratch_pool_uses_the_cores_layout() {
    let Some(dir) = models() else { return };
    let p = dir.join("kws_ref_model.tflite");
    let p = p.to_str().unwrap();
    // Before: "fits: needs 42465 of 42465 arena bytes (0 spare)", tensor space 41440 B.
    let out = synmem()
        .args([
            "plan",
            p,
            "--arena",
            "42465",
            "--scratch",
            "1025",
            "--check",
            "--no-overlap",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("tensor space 41424 B"), "{text}");
    assert!(
        text.contains("short by 16 bytes in the ephemeral region")
            && text.contains("smallest arena that runs it: 42480 B"),
        "{text}"
    );
    let v = json(&[
        "plan",
        p,
        "--json",
        "--arena",
        "42480",
        "--scratch",
        "1025",
        "--no-overlap",
    ]);
    assert_eq!(v["fits"], true);
    assert_eq!(v["scratch_bytes"], 1040);
    assert_eq!(v["arena_bytes_required"], 42480);
    assert_eq!(v["tensor_space_bytes"], 41440);
}

/// Issue 10, item 6: a scratch table is held to the core's scratch range and never wraps.
#[test]
fn scratch_table_in_the_cores_range() {
    let Some(dir) = models() else { return };
    let p = dir.join("kws_ref_model.tflite"); // 13 operators
    let p = p.to_str().unwrap();
    let table = tmp("scratch13.txt");
    std::fs::write(&table, "100 ".repeat(13)).unwrap();
    let t = table.to_str().unwrap();
    // Before: "needs 41552" (a 112-byte pool, below the core's 1024 minimum).
    let v = json(&["plan", p, "--json", "--scratch-table", t, "--no-overlap"]);
    assert_eq!(v["scratch_bytes"], 13 * 112);
    assert_eq!(v["arena_bytes_required"], 25440 + 16000 + 13 * 112);
    std::fs::write(&table, "0 ".repeat(12) + "18446744073709551615").unwrap();
    let e = fails(&["plan", p, "--scratch-table", t], 2);
    assert!(
        e.contains("bad scratch table") && e.contains("65536"),
        "{e}"
    );
}

/// Issue 10, item 7: a model with a WHILE body is refused, naming the operator and subgraph.
#[test]
fn other_subgraphs_are_refused_not_ignored() {
    let bytes = tflite::while_with_big_body();
    let f = tmp("while.tflite");
    std::fs::write(&f, bytes).unwrap();
    // Before: "fits" a 4096-byte arena.
    let e = fails(
        &[
            "plan",
            f.to_str().unwrap(),
            "--arena",
            "4096",
            "--scratch",
            "1024",
            "--check",
        ],
        1,
    );
    assert!(
        e.contains("operator 0 (WHILE)") && e.contains("subgraph 1"),
        "{e}"
    );
}

/// Issue 10, item 9: no unbounded reads: devices and pipes are refused, files have a cap.
#[test]
fn non_regular_and_oversized_files_are_refused() {
    let Some(dir) = models() else { return };
    for cmd in ["plan", "inspect", "trace"] {
        let e = fails(&[cmd, "/dev/zero"], 1);
        assert!(e.contains("not a regular file"), "{e}");
    }
    let e = fails(&["emit", "/dev/zero", "--lang", "c", "-o", "/dev/null"], 1);
    assert!(e.contains("not a regular file"), "{e}");
    let p = dir.join("kws_ref_model.tflite");
    let p = p.to_str().unwrap();
    let e = fails(&["plan", p, "--max-file-bytes", "1000"], 1);
    assert!(
        e.contains("53936 bytes") && e.contains("--max-file-bytes"),
        "{e}"
    );
    json(&["plan", p, "--json", "--max-file-bytes", "64k"]);
    let e = fails(&["plan", p, "--scratch-table", "/dev/zero"], 1);
    assert!(e.contains("not a regular file"), "{e}");
}

/// Issue 10, item 11: survey names a bad file, marks its row and goes on.
#[test]
fn survey_goes_on_past_a_bad_file() {
    let Some(dir) = models() else { return };
    let d = tmp("survey");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    for m in ["hello_world_int8", "micro_speech_quantized"] {
        std::fs::copy(
            dir.join(format!("{m}.tflite")),
            d.join(format!("{m}.tflite")),
        )
        .unwrap();
    }
    std::fs::write(d.join("broken.tflite"), b"not a model at all").unwrap();
    let out = synmem()
        .args(["survey", d.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("hello_world_int8") && text.contains("micro_speech_quantized"),
        "{text}"
    );
    let row = text
        .lines()
        .find(|l| l.starts_with("broken"))
        .expect("a row for the bad file");
    assert!(row.contains("error: not a .tflite model"), "{row}");
    assert!(text.contains("1 of 3 models failed"), "{text}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("broken.tflite"), "{err}");
}

/// Issue 10, item 11: control characters in names reach neither the terminal nor the SVG.
#[test]
fn control_characters_in_names_are_escaped() {
    let f = tmp("esc.tflite");
    std::fs::write(&f, tflite::one_add(["in\u{1b}[2J\u{7}", "out<&>\n"])).unwrap();
    let f = f.to_str().unwrap();
    let text = stdout(&["inspect", f]);
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text:?}"
    );
    assert!(text.contains("in\\u{1b}[2J\\u{7}"), "{text}");
    assert!(text.contains("out<&>\\n"), "{text}");
    let svg = tmp("esc.svg");
    stdout(&["plan", f, "--svg", svg.to_str().unwrap()]);
    let s = std::fs::read_to_string(&svg).unwrap();
    // XML 1.0 allows no C0 control but tab, newline and carriage return, not even as a
    // character reference: none in text.
    assert!(
        !s.chars().any(|c| c.is_control() && c != '\n'),
        "control character in the SVG"
    );
    assert!(
        s.contains("in\\u{1b}[2J\\u{7}") && s.contains("out&lt;&amp;&gt;\\n"),
        "{s}"
    );
}

/// Issue 10, item 11: a negative size is a plain error, without clap's "use '-- -1'" tip.
#[test]
fn negative_sizes_get_a_plain_error() {
    for flag in ["--arena", "--scratch", "--max-file-bytes"] {
        let e = fails(&["plan", "model.tflite", flag, "-1"], 2);
        assert!(!e.contains("-- -1") && !e.contains("tip"), "{e}");
        assert!(e.contains("positive number of bytes"), "{e}");
    }
}

/// `emit --lang tflite` writes TFLM's offline plan; `inspect` reads it back and checks it, and
/// names the two tensors of a deliberately bad plan (exit 1), keeping its usual output.
#[test]
fn tflite_offline_plan_emit_and_inspect() {
    let Some(dir) = models() else { return };
    let model = dir.join("person_detect.tflite");
    let out = tmp("person_detect.offline.tflite");
    let o = synmem()
        .args(["emit", model.to_str().unwrap(), "--lang", "tflite", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let msg = String::from_utf8_lossy(&o.stderr);
    assert!(msg.contains("55296 B of TFLM head"), "{msg}");
    let plain = synmem()
        .args(["inspect", model.to_str().unwrap()])
        .output()
        .unwrap();
    let o = synmem().arg("inspect").arg(&out).output().unwrap();
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    let stem = out.file_stem().unwrap().to_string_lossy().into_owned();
    let usual = text.replace(&stem, "person_detect");
    assert!(
        usual.starts_with(&*String::from_utf8_lossy(&plain.stdout)),
        "{text}"
    );
    assert!(text.contains("32 tensors offline (end 55296 B)"), "{text}");
    assert!(text.contains("ok: no two tensors overlap"), "{text}");
    let j = json(&["inspect", out.to_str().unwrap(), "--json"]);
    assert_eq!(
        j["offline_plan"]["check"]["conflicts"],
        serde_json::json!([])
    );
    assert!(json(&["inspect", model.to_str().unwrap(), "--json"])
        .get("offline_plan")
        .is_none());

    // A bad plan: operator 1's output moved onto its input (live together at operator 1).
    use synaptic_plan::tflm::{plan_for_tflm, with_offline_plan};
    let bytes = std::fs::read(&model).unwrap();
    let m = synaptic_plan::Model::from_bytes(&bytes).unwrap();
    let mut plan = plan_for_tflm(&m, &Default::default(), None).unwrap();
    let (i, o) = (m.operators[1].inputs[0], m.operators[1].outputs[0]);
    plan.offsets[o] = plan.offsets[i];
    let bad_path = tmp("person_detect.bad.tflite");
    std::fs::write(&bad_path, with_offline_plan(&bytes, &plan).unwrap()).unwrap();
    let out = synmem().arg("inspect").arg(&bad_path).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    let (lo, hi) = (i.min(o), i.max(o));
    assert!(text.contains(&format!("CONFLICT tensor {lo} (")), "{text}");
    assert!(text.contains(&format!("overlaps tensor {hi} (")), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("pair(s) of tensors that TFLM keeps live together"));
}

#[test]
fn run_writes_outputs_and_names_unsupported_operators() {
    let Some(dir) = models() else { return };
    let hw = dir.join("hello_world_int8.tflite");
    let out = tmp("hw_out.raw");
    let input = tmp("hw_in.raw");
    std::fs::write(&input, [0u8]).unwrap();
    let mut outputs = Vec::new();
    for io in ["shared", "plan"] {
        let o = Command::cargo_bin("synmem")
            .unwrap()
            .args([
                "run",
                hw.to_str().unwrap(),
                "--input",
                input.to_str().unwrap(),
            ])
            .args(["--output", out.to_str().unwrap(), "--io", io])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(
            text.contains("planned activations") && text.contains("total RAM"),
            "{text}"
        );
        outputs.push(std::fs::read(&out).unwrap());
    }
    assert_eq!(outputs[0].len(), 1);
    assert_eq!(outputs[0], outputs[1], "I/O placement changed the output");
    // A custom operator this runtime does not implement (the audio front end with its first
    // operator's custom code changed): refused naming the code.
    let mut b = std::fs::read(dir.join("audio_preprocessor_int8.tflite")).unwrap();
    let at = b
        .windows(12)
        .position(|w| w == b"SignalWindow")
        .expect("the custom code");
    b[at + 11] = b'X';
    let custom = tmp("unknown_custom.tflite");
    std::fs::write(&custom, &b).unwrap();
    let e = fails(
        &[
            "run",
            custom.to_str().unwrap(),
            "--random",
            "1",
            "--output",
            out.to_str().unwrap(),
        ],
        1,
    );
    assert!(
        e.contains("operator 0 (CUSTOM \"SignalWindoX\"): custom operator not implemented"),
        "{e}"
    );
}

/// `synmem run --json`: every field of the interface (issue 11, item 5; listed in
/// `synmem run --help` and the README), exactly these, with the sums they promise.
const RUN_FIELDS: &[&str] = &[
    "ram_bytes",
    "model",
    "io",
    "op_data",
    "program_bytes",
    "program_flash_bytes",
    "persistent_bytes",
    "tables_bytes",
    "locations_bytes",
    "plan_descriptors_bytes",
    "state_bytes",
    "planned_ephemeral_bytes",
    "scratch_peak_bytes",
    "shared_bytes",
    "descriptors_bytes",
    "total_bytes",
    "overlap",
    "overlap_pairs",
    "poison",
    "invocations",
    "state_carried",
    "arena_bytes",
    "scratch_pool_bytes",
    "shared_region_bytes",
    "inputs",
    "outputs",
];

const IO_FIELDS: &[&str] = &[
    "index", "tensor", "name", "dtype", "shape", "bytes", "offset",
];

/// Runs `synmem run MODEL --input IN --output OUT --io IO --json`; returns the JSON and OUT.
fn run_json(
    model: &std::path::Path,
    input: &[u8],
    io: &str,
    tag: &str,
) -> (serde_json::Value, Vec<u8>) {
    run_json_op_data(model, input, io, "ram", tag)
}

/// [`run_json`] with `--op-data OP_DATA`.
fn run_json_op_data(
    model: &std::path::Path,
    input: &[u8],
    io: &str,
    op_data: &str,
    tag: &str,
) -> (serde_json::Value, Vec<u8>) {
    let (inp, out) = (
        tmp(&format!("{tag}_in.raw")),
        tmp(&format!("{tag}_out.raw")),
    );
    std::fs::write(&inp, input).unwrap();
    let v = json(&[
        "run",
        model.to_str().unwrap(),
        "--input",
        inp.to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
        "--io",
        io,
        "--op-data",
        op_data,
        "--json",
    ]);
    let bytes = std::fs::read(&out).unwrap();
    (v, bytes)
}

fn n(v: &serde_json::Value, k: &str) -> u64 {
    v[k].as_u64()
        .unwrap_or_else(|| panic!("{k} is not a byte count: {v}"))
}

#[test]
fn run_json_has_the_issue_fields_and_person_detect_scores_equal_tflm() {
    let Some(dir) = models() else { return };
    let hw = dir.join("hello_world_int8.tflite");
    for io in ["shared", "plan"] {
        let (v, out) = run_json(&hw, &[7], io, &format!("hw_{io}"));
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        let mut want = RUN_FIELDS.to_vec();
        want.sort();
        assert_eq!(keys, want, "{v}");
        assert_eq!(v["io"], io);
        assert_eq!(v["model"], "hello_world_int8");
        assert_eq!(
            n(&v, "persistent_bytes"),
            n(&v, "tables_bytes")
                + n(&v, "locations_bytes")
                + n(&v, "plan_descriptors_bytes")
                + n(&v, "state_bytes")
        );
        assert_eq!(
            n(&v, "total_bytes"),
            n(&v, "persistent_bytes")
                + n(&v, "planned_ephemeral_bytes")
                + n(&v, "scratch_peak_bytes")
                + n(&v, "shared_bytes")
        );
        assert!(n(&v, "descriptors_bytes") >= n(&v, "plan_descriptors_bytes") + 32);
        assert_eq!(n(&v, "descriptors_bytes") % 32, 0);
        assert_eq!(n(&v, "shared_bytes") == 0, io == "plan", "{v}");
        // The one RAM figure: the exact arena and the shared region, as `synmem plan` says.
        assert_eq!(
            n(&v, "ram_bytes"),
            n(&v, "arena_bytes") + n(&v, "shared_region_bytes")
        );
        assert_eq!(n(&v, "ram_bytes"), n(&v, "total_bytes"));
        let p = json(&[
            "plan",
            hw.to_str().unwrap(),
            "--json",
            "--io",
            io,
            "--op-data",
            v["op_data"].as_str().unwrap(),
        ]);
        assert_eq!(p["ram_bytes"], v["ram_bytes"], "{p}");
        assert_eq!(p["ram"]["arena_bytes"], v["arena_bytes"], "{p}");
        for (list, k) in [(&v["inputs"], 1), (&v["outputs"], 1)] {
            let list = list.as_array().unwrap();
            assert_eq!(list.len(), k);
            for t in list {
                for f in IO_FIELDS {
                    assert!(t.get(f).is_some(), "{f} missing: {t}");
                }
                assert_eq!(t["dtype"], "i8");
                assert_eq!(t["shape"], serde_json::json!([1, 1]));
            }
        }
        let o = &v["outputs"][0];
        assert_eq!(o["values"], serde_json::json!([out[0] as i8]));
        assert_eq!(out.len(), 1);
    }

    // person_detect on the real images: TFLM's exact scores, in OUT.raw and in the JSON.
    let pd = dir.join("person_detect.tflite");
    let inputs = dir.join("../inputs");
    for (img, want) in [("person.bmp", [-113i8, 113]), ("no_person.bmp", [57, -57])] {
        let b = std::fs::read(inputs.join(img)).unwrap();
        let mut px = vec![0u8; 96 * 96];
        synaptic_run::bmp::gray8(&b, &mut px).unwrap();
        let mut totals = Vec::new();
        for io in ["plan", "shared"] {
            let mut by_op_data = Vec::new();
            for op_data in ["flash", "ram"] {
                let (v, out) =
                    run_json_op_data(&pd, &px, io, op_data, &format!("pd_{io}_{op_data}"));
                assert_eq!(out, [want[0] as u8, want[1] as u8], "{img} io={io}");
                let o = &v["outputs"][0];
                assert_eq!(o["values"], serde_json::json!(want), "{img} io={io}");
                assert_eq!(o["shape"], serde_json::json!([1, 2]));
                assert_eq!((n(o, "bytes"), n(o, "offset")), (2, 0));
                assert_eq!(n(&v["inputs"][0], "bytes"), 9216);
                assert_eq!(v["op_data"], op_data);
                assert_eq!(n(&v, "locations_bytes"), 0);
                if op_data == "flash" {
                    assert_eq!(n(&v, "tables_bytes"), 0);
                    assert_eq!(n(&v, "program_flash_bytes"), n(&v, "program_bytes"));
                    totals.push(n(&v, "total_bytes"));
                } else {
                    assert_eq!(n(&v, "program_flash_bytes"), 0);
                    assert!(n(&v, "tables_bytes") >= n(&v, "program_bytes"));
                }
                by_op_data.push(v);
            }
            // The program in RAM costs exactly its persistent tensor.
            assert_eq!(
                n(&by_op_data[1], "total_bytes"),
                n(&by_op_data[0], "total_bytes") + n(&by_op_data[1], "tables_bytes")
            );
            assert_eq!(
                n(&by_op_data[0], "program_bytes"),
                n(&by_op_data[1], "program_bytes")
            );
        }
        // The RAM table's figures (README), program in flash, overlapped plan (the default):
        // I/O in the plan, then in the SHARED region.
        assert_eq!(totals, [38_992, 48_224]);
    }

    // IN.raw of the wrong size: the error names input tensor 0's dtype, shape and bytes.
    let inp = tmp("pd_short.raw");
    std::fs::write(&inp, [0u8; 10]).unwrap();
    let out = tmp("pd_short_out.raw");
    let e = fails(
        &[
            "run",
            pd.to_str().unwrap(),
            "--input",
            inp.to_str().unwrap(),
            "--output",
            out.to_str().unwrap(),
        ],
        1,
    );
    assert!(
        e.contains("IN.raw holds 10 bytes; input tensor 0 (i8 1x96x96x1) takes 9216"),
        "{e}"
    );
}

/// `synmem run --poison SEED` (the overlapped plan, the default) writes the same output bytes
/// as the plain plan (`--no-overlap`) on an unpoisoned arena, for every shared model
/// synaptic-run runs, both I/O placements, several inputs; the overlapped plan takes less RAM.
#[test]
fn run_poisoned_overlapped_equals_plain() {
    let Some(dir) = models() else { return };
    for m in [
        "hello_world_int8",
        "micro_speech_quantized",
        "kws_ref_model",
        "person_detect",
        "pretrainedResnet_quant",
        "ad01_int8",
        "simple_add_model",
    ] {
        let p = dir.join(format!("{m}.tflite"));
        let p = p.to_str().unwrap();
        for io in ["plan", "shared"] {
            for seed in ["1", "2"] {
                let run = |extra: &[&str], tag: &str| {
                    let out = tmp(&format!("poison_{m}_{io}_{seed}_{tag}.raw"));
                    let mut args = vec![
                        "run",
                        p,
                        "--random",
                        seed,
                        "--io",
                        io,
                        "--output",
                        out.to_str().unwrap(),
                        "--json",
                    ];
                    args.extend_from_slice(extra);
                    let v = json(&args);
                    (v, std::fs::read(&out).unwrap())
                };
                let (ov, o) = run(&["--poison", "77", "--op-data", "flash"], "ov");
                let (pv, q) = run(&["--no-overlap", "--op-data", "flash"], "plain");
                assert_eq!(o, q, "{m} {io} seed {seed}: outputs differ");
                assert_eq!(ov["poison"], 77, "{ov}");
                assert_eq!(ov["overlap"], true);
                assert_eq!(pv["overlap"], false);
                assert_eq!(pv["overlap_pairs"], 0);
                assert!(n(&ov, "total_bytes") <= n(&pv, "total_bytes"), "{m} {io}");
                if m == "person_detect" && io == "plan" {
                    assert!(n(&ov, "overlap_pairs") > 0);
                    assert!(n(&ov, "total_bytes") <= 41_148, "{ov}");
                }
            }
        }
    }
}

#[test]
fn run_help_documents_the_json_fields() {
    let help = stdout(&["run", "--help"]);
    for f in RUN_FIELDS {
        assert!(help.contains(f), "{f} not in `synmem run --help`");
    }
    assert!(help.contains("input tensor 0"), "{help}");
}

/// Issue 18, class 4: `synmem run` on a model with no graph inputs. Before: a panic (index out
/// of bounds, exit 101) when the input file was not empty. Now: a model whose operators read
/// only constants runs from an empty input; a non-empty one is an error naming the cause; and
/// a model whose input list was emptied (its first operator then reads a tensor nothing writes)
/// is refused at load.
#[test]
fn run_on_a_model_without_inputs_is_an_error_not_a_panic() {
    use tflite::{build, quantized, Op, Subgraph};
    // ADD(c0, c1) -> out, c0 and c1 constant int8 [1, 4]: no graph input.
    let model = build(
        &[tflite::ADD],
        &[Subgraph {
            name: "main".into(),
            tensors: vec![
                quantized("c0", &[1, 4], 1, 0.5, 0),
                quantized("c1", &[1, 4], 2, 0.5, 0),
                quantized("out", &[1, 4], 0, 0.5, 0),
            ],
            inputs: vec![],
            outputs: vec![2],
            ops: vec![Op {
                opcode: 0,
                inputs: vec![0, 1],
                outputs: vec![2],
            }],
        }],
        &[vec![], vec![1, 2, 3, 4], vec![10, 20, 30, 40]],
    );
    let path = tmp("no_inputs.tflite");
    std::fs::write(&path, &model).unwrap();
    let out = tmp("no_inputs_out.raw");
    let empty = tmp("no_inputs_in.raw");
    std::fs::write(&empty, []).unwrap();
    let args = |input: &std::path::Path| {
        vec![
            "run".to_string(),
            path.to_str().unwrap().into(),
            "--input".into(),
            input.to_str().unwrap().into(),
            "--output".into(),
            out.to_str().unwrap().into(),
        ]
    };
    let o = synmem().args(args(&empty)).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(&out).unwrap(), [11, 22, 33, 44]);
    let four = tmp("no_inputs_in4.raw");
    std::fs::write(&four, [0u8; 4]).unwrap();
    let a: Vec<String> = args(&four);
    let e = fails(&a.iter().map(String::as_str).collect::<Vec<_>>(), 1);
    assert!(e.contains("the model has no graph inputs"), "{e}");
    let Some(dir) = models() else { return };
    // micro_speech_quantized with its graph-input list emptied in place.
    let mut ms = std::fs::read(dir.join("micro_speech_quantized.tflite")).unwrap();
    let mut len_at = None;
    synaptic_tflite::fields::for_each_field(&synaptic_tflite::Model::new(&ms).unwrap(), |f| {
        if f.what == "subgraph.inputs.len" {
            len_at = Some(f);
        }
    })
    .unwrap();
    len_at.unwrap().write(&mut ms, 0);
    let bad = tmp("ms_no_inputs.tflite");
    std::fs::write(&bad, &ms).unwrap();
    let e = fails(
        &[
            "run",
            bad.to_str().unwrap(),
            "--input",
            four.to_str().unwrap(),
            "--output",
            out.to_str().unwrap(),
        ],
        1,
    );
    assert!(
        e.contains("operator 0: tensor 3: reads a tensor that is not a graph input"),
        "{e}"
    );
}

/// `--input x.bmp` decodes the image as the main job does (person_detect scores person.bmp
/// [-113, 113], TFLM's), `--save-input` writes the bytes the inference ran on, and feeding
/// those bytes back (what a firmware does) gives the same output; a seeded input too.
#[test]
fn run_takes_a_bmp_and_saves_the_input_it_ran_on() {
    let Some(dir) = models() else { return };
    let model = dir.join("person_detect.tflite");
    let bmp = dir.join("../inputs/person.bmp");
    let (out, saved, again) = (tmp("pd_out.raw"), tmp("pd_in.raw"), tmp("pd_out2.raw"));
    let s = |p: &PathBuf| p.to_str().unwrap().to_string();
    let run = |args: &[String]| {
        let o = synmem().arg("run").arg(&model).args(args).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    run(&[
        "--input".into(),
        s(&bmp),
        "--save-input".into(),
        s(&saved),
        "--output".into(),
        s(&out),
    ]);
    assert_eq!(std::fs::read(&out).unwrap(), [(-113i8) as u8, 113]);
    assert_eq!(std::fs::read(&saved).unwrap().len(), 96 * 96);
    run(&["--input".into(), s(&saved), "--output".into(), s(&again)]);
    assert_eq!(std::fs::read(&again).unwrap(), std::fs::read(&out).unwrap());
    // A seeded input, saved and fed back.
    run(&[
        "--random".into(),
        "7".into(),
        "--save-input".into(),
        s(&saved),
        "--output".into(),
        s(&out),
    ]);
    run(&["--input".into(), s(&saved), "--output".into(), s(&again)]);
    assert_eq!(std::fs::read(&again).unwrap(), std::fs::read(&out).unwrap());
    // A file that is not a BMP but is named like one: a clear error.
    let fake = tmp("fake.bmp");
    std::fs::write(&fake, [0u8; 9216]).unwrap();
    let err = fails(
        &[
            "run",
            model.to_str().unwrap(),
            "--input",
            fake.to_str().unwrap(),
            "--output",
            out.to_str().unwrap(),
        ],
        1,
    );
    assert!(err.contains("fake.bmp"), "{err}");
}

/// `--io` takes the same two words everywhere: `plan` and `ephemeral` name the same placement
/// in `run` and in `plan`/`emit`.
#[test]
fn io_takes_plan_and_ephemeral_in_every_subcommand() {
    let Some(dir) = models() else { return };
    let model = dir.join("hello_world_int8.tflite");
    let m = model.to_str().unwrap();
    let (a, b) = (tmp("io_a.raw"), tmp("io_b.raw"));
    for (word, out) in [("plan", &a), ("ephemeral", &b)] {
        let o = synmem()
            .args([
                "run",
                m,
                "--random",
                "1",
                "--io",
                word,
                "--output",
                out.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "run --io {word}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let plan = |word: &str| {
        let mut v = json(&["plan", m, "--io", word, "--json"]);
        // The planning time is the one field that differs between two runs.
        v.as_object_mut()
            .unwrap()
            .values_mut()
            .filter_map(|x| x.as_object_mut())
            .for_each(|o| {
                o.remove("planning_micros");
            });
        v.as_object_mut().unwrap().remove("planning_micros");
        v
    };
    assert_eq!(plan("plan"), plan("ephemeral"));
    let (ha, hb) = (tmp("io_a.h"), tmp("io_b.h"));
    for (word, out) in [("plan", &ha), ("ephemeral", &hb)] {
        let o = synmem()
            .args([
                "emit",
                m,
                "--lang",
                "c",
                "--io",
                word,
                "-o",
                out.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "emit --io {word}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    assert_eq!(std::fs::read(&ha).unwrap(), std::fs::read(&hb).unwrap());
}

/// `emit --lang c --with-model` writes the model's bytes as a 16-byte aligned const array: a
/// C program that includes only the header gets exactly the .tflite's bytes, aligned.
#[test]
fn emit_c_with_model_writes_the_model_array() {
    let Some(dir) = models() else { return };
    let model = dir.join("hello_world_int8.tflite");
    let h = tmp("wm.h");
    let o = synmem()
        .args([
            "emit",
            model.to_str().unwrap(),
            "--lang",
            "c",
            "--with-model",
            "-o",
        ])
        .arg(&h)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let c = tmp("wm.c");
    std::fs::write(
        &c,
        format!(
            "#include <stdio.h>\n#include <stdint.h>\n#include \"{}\"\n\
             int main(void) {{\n\
               if ((uintptr_t)hello_world_int8_model % 16 != 0) return 2;\n\
               return fwrite(hello_world_int8_model, 1, HELLO_WORLD_INT8_MODEL_BYTES, stdout)\n\
                   == HELLO_WORLD_INT8_MODEL_BYTES ? 0 : 3;\n}}\n",
            h.display()
        ),
    )
    .unwrap();
    let exe = tmp("wm");
    let cc = std::process::Command::new("cc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-o"])
        .arg(&exe)
        .arg(&c)
        .output()
        .unwrap();
    assert!(
        cc.status.success(),
        "{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    let run = std::process::Command::new(&exe).output().unwrap();
    assert_eq!(run.status.code(), Some(0));
    assert_eq!(run.stdout, std::fs::read(&model).unwrap());
    // Not for Rust: a clear error.
    let err = fails(
        &[
            "emit",
            model.to_str().unwrap(),
            "--lang",
            "rust",
            "--with-model",
            "-o",
            h.to_str().unwrap(),
        ],
        2,
    );
    assert!(err.contains("include_bytes!"), "{err}");
}

/// The one RAM figure: `plan` leads with it (text and JSON), `emit` writes it, `run` takes it,
/// and the defaults raise no false alarm for the runtime (weights stay in flash).
#[test]
fn one_ram_figure_in_plan_emit_and_run() {
    let Some(dir) = models() else { return };
    let pd = dir.join("person_detect.tflite");
    let p = pd.to_str().unwrap();
    let out = synmem().args(["plan", p]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let third = text.lines().nth(2).unwrap();
    assert_eq!(
        third,
        "RAM 48224 B for synaptic-run: arena 38928 B + shared region 9296 B (graph I/O)"
    );
    assert!(
        text.contains("  fits: give syn_run_load / Arena::exact 38928 B"),
        "{text}"
    );
    // The README shows this line: it cannot go stale.
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    assert!(
        readme.contains(&format!("synmem plan model.tflite            # {third}")),
        "README's synmem plan line differs from the output: {third}"
    );
    // The bare allocator's figures stay, named as such.
    assert!(text.contains("bare allocator: does not fit"), "{text}");
    // --check: the runtime fits; the bare allocator's defaults are not a configuration named.
    synmem().args(["plan", p, "--check"]).assert().success();
    let named = synmem()
        .args(["plan", p, "--check", "--arena", "131072"])
        .output()
        .unwrap();
    assert_eq!(named.status.code(), Some(3));
    let v = json(&["plan", p, "--json", "--io", "plan"]);
    assert_eq!(v["ram_bytes"], 38992);
    assert_eq!(v["ram"]["arena_bytes"], 38992);
    assert_eq!(v["ram"]["shared_bytes"], 0);
    assert_eq!(v["ram"]["supported"], true);
    // emit --json: the same figure, and the header's macros.
    let h = tmp("pd_ram.h");
    let e = json(&[
        "emit",
        p,
        "--lang",
        "c",
        "-o",
        h.to_str().unwrap(),
        "--io",
        "plan",
        "--json",
    ]);
    assert_eq!(e["ram_bytes"], 38992);
    assert_eq!(e["arena_bytes"], 38992);
    let header = std::fs::read_to_string(&h).unwrap();
    assert!(header.contains("#define PERSON_DETECT_ARENA_BYTES 38992u"));
    assert!(header.contains("#define PERSON_DETECT_RAM_BYTES 38992u"));
    assert!(header.contains("#define PERSON_DETECT_IO 1u"));
    // run on exactly that arena; an --arena too small says what to give.
    let o = tmp("pd_ram_out.raw");
    let r = json(&[
        "run",
        p,
        "--random",
        "3",
        "--output",
        o.to_str().unwrap(),
        "--io",
        "plan",
        "--json",
    ]);
    assert_eq!(r["ram_bytes"], 38992);
    assert_eq!(r["arena_bytes"], 38992);
    let err = fails(
        &[
            "run",
            p,
            "--random",
            "3",
            "--output",
            o.to_str().unwrap(),
            "--io",
            "plan",
            "--arena",
            "38976",
        ],
        1,
    );
    assert!(
        err.contains("is 16 B short") && err.contains("give --arena 38992"),
        "{err}"
    );
    // A model synaptic-run does not run: the figure is the plan's, and it says why.
    let lstm = dir.join("kws_ref_model_float32.tflite");
    let v = json(&["plan", lstm.to_str().unwrap(), "--json"]);
    assert_eq!(v["ram"]["supported"], false);
    assert!(v["ram"]["unsupported"].as_str().unwrap().contains("hybrid"));
}

/// `--json` on every subcommand, and errors as JSON on stdout with a non-zero exit.
#[test]
fn json_everywhere_errors_too() {
    let Some(dir) = models() else { return };
    let hw = dir.join("hello_world_int8.tflite");
    let h = hw.to_str().unwrap();
    let rows = json(&["survey", dir.to_str().unwrap(), "--json"]);
    let rows = rows.as_array().unwrap();
    assert!(rows.len() >= 19);
    let row = rows
        .iter()
        .find(|r| r["model"] == "hello_world_int8")
        .unwrap();
    assert_eq!(row["ram_bytes"], json(&["plan", h, "--json"])["ram_bytes"]);
    assert!(json(&["trace", h, "--json"]).is_object());
    assert!(json(&["inspect", h, "--json"]).is_object());
    for (args, code, kind) in [
        (vec!["plan", "/nonexistent.tflite", "--json"], 1, "model"),
        (vec!["plan", h, "--json", "--strategy", "nope"], 2, "usage"),
        (
            vec![
                "emit",
                h,
                "--json",
                "--lang",
                "rust",
                "-o",
                "/nonexistent/dir/x.rs",
            ],
            1,
            "model",
        ),
        (vec!["survey", "/nonexistent", "--json"], 1, "model"),
    ] {
        let out = synmem().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(code), "{args:?}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: stdout is not JSON ({e})"));
        assert_eq!(v["error"]["exit_code"], code);
        assert_eq!(v["error"]["kind"], kind);
        assert!(!v["error"]["message"].as_str().unwrap().is_empty());
        // The one-line message is still on stderr.
        assert!(String::from_utf8_lossy(&out.stderr).starts_with("synmem: error: "));
    }
}

/// `--invocations N` holds N inputs and N outputs at once: their total is bounded (by
/// `--max-file-bytes`) before anything is allocated (issue 43, class 5: a million invocations
/// of person_detect allocated 9.2 GB first, an abort on x86_64, a wrapped size and a panic on
/// i686); a count within the bound runs.
#[test]
fn run_invocations_are_bounded_before_anything_is_allocated() {
    let Some(dir) = models() else { return };
    let model = dir.join("person_detect.tflite");
    let (model, out) = (model.to_str().unwrap(), tmp("many.raw"));
    let out = out.to_str().unwrap();
    let many = [
        "run",
        model,
        "--random",
        "1",
        "--invocations",
        "1000000",
        "--output",
        out,
    ];
    let err = fails(&many, 2);
    assert!(
        err.contains("1000000 invocations of 9216 input bytes each exceed 67108864 bytes")
            && err.contains("--max-file-bytes"),
        "{err}"
    );
    let few = [
        "run",
        model,
        "--random",
        "1",
        "--invocations",
        "2",
        "--output",
        out,
        "--json",
    ];
    assert_eq!(json(&few)["invocations"], 2);
}

/// `--invocations N`: N inferences on one load, the state carried (issue 20): the first
/// output is a single run's, the later ones differ from a fresh load's (the state changed
/// them), and the saved inputs run again give the same N outputs.
#[test]
fn run_invocations_carry_the_state_of_a_streaming_model() {
    let Some(dir) = models() else { return };
    for m in ["trained_lstm_int8", "dtln_noise_suppression"] {
        let model = dir.join(format!("{m}.tflite"));
        let model = model.to_str().unwrap();
        let (out_n, saved, out_1, again) = (
            tmp(&format!("{m}-n.raw")),
            tmp(&format!("{m}-in.raw")),
            tmp(&format!("{m}-1.raw")),
            tmp(&format!("{m}-again.raw")),
        );
        let v = json(&[
            "run",
            model,
            "--random",
            "5",
            "--invocations",
            "4",
            "--poison",
            "9",
            "--output",
            out_n.to_str().unwrap(),
            "--save-input",
            saved.to_str().unwrap(),
            "--json",
        ]);
        assert_eq!(v["invocations"], 4);
        assert_eq!(v["state_carried"], true);
        assert!(n(&v, "state_bytes") > 0);
        let all = std::fs::read(&out_n).unwrap();
        let inputs = std::fs::read(&saved).unwrap();
        let per = all.len() / 4;
        assert_eq!(inputs.len() % 4, 0);
        // One invocation on the first input: the first output.
        let first = tmp(&format!("{m}-first-in.raw"));
        std::fs::write(&first, &inputs[..inputs.len() / 4]).unwrap();
        json(&[
            "run",
            model,
            "--input",
            first.to_str().unwrap(),
            "--output",
            out_1.to_str().unwrap(),
            "--json",
        ]);
        assert_eq!(std::fs::read(&out_1).unwrap(), &all[..per], "{m}");
        // The saved inputs again, on another arena layout: the same outputs.
        let v = json(&[
            "run",
            model,
            "--input",
            saved.to_str().unwrap(),
            "--invocations",
            "4",
            "--io",
            "plan",
            "--output",
            again.to_str().unwrap(),
            "--json",
        ]);
        assert_eq!(v["state_carried"], true);
        assert_eq!(std::fs::read(&again).unwrap(), all, "{m}");
        // The fourth input alone, on a fresh load, differs from the carried fourth output
        // somewhere in the sequence (the state is used).
        let differs = (1..4).any(|k| {
            let one = tmp(&format!("{m}-k{k}.raw"));
            let o = tmp(&format!("{m}-k{k}-out.raw"));
            std::fs::write(
                &one,
                &inputs[k * inputs.len() / 4..(k + 1) * inputs.len() / 4],
            )
            .unwrap();
            json(&[
                "run",
                model,
                "--input",
                one.to_str().unwrap(),
                "--output",
                o.to_str().unwrap(),
                "--json",
            ]);
            std::fs::read(&o).unwrap() != all[k * per..(k + 1) * per]
        });
        assert!(differs, "{m}: no output depends on the carried state");
        let err = fails(
            &[
                "run",
                model,
                "--input",
                first.to_str().unwrap(),
                "--invocations",
                "2",
                "--output",
                out_1.to_str().unwrap(),
            ],
            1,
        );
        assert!(err.contains("2 invocations of"), "{err}");
    }
}

#[test]
fn isa_dsp_emits_the_program_a_cortex_m4_loads_fastest_and_sizes_its_ram_program() {
    let Some(dir) = models() else { return };
    let p = dir.join("micro_speech_quantized.tflite");
    let model = p.to_str().unwrap();
    let mut programs = Vec::new();
    for isa in ["portable", "dsp"] {
        let h = tmp(&format!("ms_isa_{isa}.h"));
        synmem()
            .args(["emit", model, "--lang", "c", "--isa", isa, "-o"])
            .arg(&h)
            .assert()
            .success();
        let text = std::fs::read_to_string(&h).unwrap();
        let words: usize = text
            .lines()
            .find_map(|l| l.strip_prefix("#define MICRO_SPEECH_QUANTIZED_PROGRAM_WORDS "))
            .and_then(|v| v.trim_end_matches('u').parse().ok())
            .expect("a program in the header");
        let ram = json(&["plan", model, "--op-data", "ram", "--isa", isa, "--json"]);
        programs.push((words, ram["ram"]["program_bytes"].as_u64().unwrap()));
    }
    // The DSP program leaves the 4 × 4,000 filter's folded constants out (4 words) and
    // carries the depthwise layer's filter in tap pairs (8 channels × 40 pairs of its 80
    // taps: 320 words), and the RAM program's figure follows it.
    let [(pw, pb), (dw, db)] = programs[..] else {
        unreachable!()
    };
    assert_eq!(pw + 320, dw + 4, "{programs:?}");
    assert_eq!(pb + 320 * 4, db + 16, "{programs:?}");
    // The default is the portable program.
    let ram = json(&["plan", model, "--op-data", "ram", "--json"]);
    assert_eq!(ram["ram"]["program_bytes"].as_u64(), Some(pb));
}

/// Issue 41: `synmem run` and `synmem plan` on a model with an operator or a data type the
/// runtime does not run name the operator, the tensor and its data type in one line, and the
/// data types the runtime runs that operator on (`synmem ops` lists them all).
#[test]
fn an_unsupported_operator_is_named_with_its_tensor_and_data_type() {
    use tflite::{build, quantized, Op, Subgraph};
    let one = |code: i32, dtype: i8, inputs: Vec<i32>| {
        let mut ts = vec![
            quantized("x", &[1, 8], 0, 0.5, 0),
            quantized("y", &[1, 8], 0, 0.5, 0),
        ];
        for t in &mut ts {
            t.dtype = dtype;
        }
        let sg = Subgraph {
            name: "main".into(),
            tensors: ts,
            inputs: vec![0],
            outputs: vec![1],
            ops: vec![Op {
                opcode: 0,
                inputs,
                outputs: vec![1],
            }],
        };
        build(&[code], &[sg], &[vec![]])
    };
    // An operator TFLM has no kernel for (so it stays unimplemented here).
    const LSH_PROJECTION: i32 = 15;
    const INT64: i8 = 4;
    let out = tmp("unsupported_out.raw");
    for (file, bytes, want) in [
        (
            "lsh_projection_int8.tflite",
            one(LSH_PROJECTION, tflite::INT8, vec![0]),
            "operator 0 (LSH_PROJECTION): unsupported: operator not implemented: tensor 0 \"x\" \
             is int8; synaptic-run does not run LSH_PROJECTION yet (synmem ops)",
        ),
        (
            "add_int64.tflite",
            one(tflite::ADD, INT64, vec![0, 0]),
            "operator 0 (ADD): unsupported: input 0 of a type other than int8: tensor 0 \"x\" \
             is int64; synaptic-run runs ADD on int8, float32, int32, int16 (synmem ops)",
        ),
    ] {
        let f = tmp(file);
        std::fs::write(&f, bytes).unwrap();
        let path = f.to_str().unwrap();
        let e = fails(
            &[
                "run",
                path,
                "--random",
                "1",
                "--output",
                out.to_str().unwrap(),
            ],
            1,
        );
        assert!(e.contains(want) && e.lines().count() == 1, "{e}");
        let plan = stdout(&["plan", path]);
        assert!(
            plan.lines()
                .any(|l| l.contains("cannot run this model yet") && l.contains(want)),
            "{plan}"
        );
    }
}
