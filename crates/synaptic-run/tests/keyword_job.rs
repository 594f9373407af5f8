//! The second main job (`scripts/run-keyword`, `examples/keyword_spotting`): its own code
//! path on the four shared `.wav` files. Features (1,960 bytes each) and scores must be TFLM's
//! byte for byte, yes/no must be heard as such, both models must fit one arena smaller than
//! TFLM's two, and the README must show exactly this output. Needs `../shared` (or
//! `$SYNAPTIC_SHARED`); `SYNMEM_SKIP_MODELS=1` skips it when that is missing.

#[path = "../examples/keyword_spotting/job.rs"]
#[allow(dead_code)]
mod job;

#[test]
fn keywords_equal_tflm_in_one_arena() {
    let shared = job::shared_dir();
    if !shared.join("inputs/yes_1000ms.wav").is_file() {
        if std::env::var("SYNMEM_SKIP_MODELS").as_deref() == Ok("1") {
            eprintln!(
                "SKIPPED: {} not found and SYNMEM_SKIP_MODELS=1",
                shared.display()
            );
            return;
        }
        panic!(
            "shared inputs not found at {} (set SYNAPTIC_SHARED, or SYNMEM_SKIP_MODELS=1 to skip)",
            shared.display()
        );
    }
    let Ok(report) = job::keyword_job(&shared, &[]) else {
        panic!("the keyword job failed");
    };
    assert_eq!(report.heard.len(), 4);
    for h in &report.heard {
        let name = h.wav.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(
            h.features_equal(),
            Some(true),
            "{name}: features differ from TFLM's"
        );
        let (_, tflm) = h.tflm.unwrap();
        assert_eq!(h.scores, tflm, "{name}: scores differ from TFLM's");
    }
    let labels: Vec<&str> = report.heard.iter().map(|h| h.label()).collect();
    assert_eq!(labels, ["yes", "no", "silence", "silence"]);
    // One arena: both persistent parts, the larger ephemeral region and scratch block.
    let [a, b] = &report.memory;
    assert!(report.arena < a.total() + b.total());
    assert!(report.arena < job::TFLM_ARENAS[0] + job::TFLM_ARENAS[1]);
    assert!(report.arena < job::TFLM_ARENAS[0], "{} B", report.arena);
    let text = job::render(&report);
    assert!(!text.contains("DIFFERENT"), "{text}");
    let readme = include_str!("../../../README.md");
    let section = readme
        .split("## Keyword spotting from audio")
        .nth(1)
        .expect("README has the keyword section");
    let block = section
        .split("```text\n")
        .nth(1)
        .and_then(|b| b.split("\n```").next())
        .expect("the keyword section has a text block");
    assert_eq!(
        block,
        text.trim_end_matches('\n'),
        "README.md's keyword output differs from what scripts/run-keyword prints now: paste it"
    );
}

#[test]
fn a_bad_wav_is_the_callers_error() {
    let dir = std::env::temp_dir().join(format!("synaptic-run-keyword-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("not.wav");
    std::fs::write(&f, b"RIFF not a wav").unwrap();
    assert!(matches!(job::samples(&f), Err(job::JobError::Wav(_))));
    assert!(matches!(
        job::samples(&dir.join("missing.wav")),
        Err(job::JobError::Wav(_))
    ));
    std::fs::remove_dir_all(&dir).ok();
}
