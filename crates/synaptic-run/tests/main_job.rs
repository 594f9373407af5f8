//! The main job (`scripts/run`, `examples/person_detect`): its own code path run on the shared
//! model and images. person.bmp must be "person" and no_person.bmp "no person", with TFLM's
//! exact scores, and the RAM below TFLM's smallest arena. Needs `../shared` (or
//! `$SYNAPTIC_SHARED`); `SYNMEM_SKIP_MODELS=1` skips it when that is missing, as the planner's
//! model tests do.

#[path = "../examples/person_detect/job.rs"]
#[allow(dead_code)]
mod job;

use synaptic_run::IoPlacement;

#[test]
fn person_detect_scores_equal_tflm_and_ram_is_below_tflm() {
    let shared = job::shared_dir();
    if !shared.join("models/person_detect.tflite").is_file() {
        if std::env::var("SYNMEM_SKIP_MODELS").as_deref() == Ok("1") {
            eprintln!(
                "SKIPPED: {} not found and SYNMEM_SKIP_MODELS=1",
                shared.display()
            );
            return;
        }
        panic!(
            "shared models not found at {} (set SYNAPTIC_SHARED, or SYNMEM_SKIP_MODELS=1 to skip)",
            shared.display()
        );
    }
    let Ok(report) = job::main_job(&shared, &[]) else {
        panic!("the main job failed");
    };
    let got: Vec<(String, [i8; 2], &str)> = report
        .scored
        .iter()
        .map(|s| {
            (
                s.image.file_name().unwrap().to_string_lossy().into_owned(),
                s.scores,
                s.class(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("person.bmp".to_string(), [-113, 113], "person"),
            ("no_person.bmp".to_string(), [57, -57], "no person"),
        ]
    );
    assert!(report.scored.iter().all(|s| s.tflm == Some(s.scores)));
    let text = job::render(&report);
    assert!(text.contains("[-113, 113] equal"), "{text}");
    assert!(!text.contains("DIFFERENT"), "{text}");
    // The RAM table: I/O in the plan first; the overlapped plan (issue 12) is below the
    // live-set bound and at most half TFLM's arena.
    assert_eq!(report.ram[0].io, IoPlacement::Plan);
    assert_eq!(report.ram[1].io, IoPlacement::Shared);
    let ram = report.ram[0].memory.total();
    assert!(ram <= job::TFLM_ARENA / 2, "{ram}"); // so below the live-set bound too
    assert_eq!(report.ram[0].memory.shared, 0);
    assert!(report.ram[1].memory.shared > 0);
    let total: Vec<&str> = text
        .lines()
        .find(|l| l.starts_with("total RAM"))
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(
        total[2..],
        [ram.to_string(), report.ram[1].memory.total().to_string()]
    );
    assert!(
        text.contains(&format!("synaptic-run needs {ram} B, TFLM 82296 B")),
        "{text}"
    );
    // The README shows exactly this output (the `text` block of its set-up section): a changed
    // figure fails here instead of leaving the README stale.
    let readme = include_str!("../../../README.md");
    let setup = readme
        .split("## Set-up")
        .nth(1)
        .expect("README has a set-up section");
    let block = setup
        .split("```text\n")
        .nth(1)
        .and_then(|b| b.split("\n```").next())
        .expect("README has a text block");
    assert_eq!(
        block,
        text.trim_end_matches('\n'),
        "README.md's sample output differs from what scripts/run prints now: paste it"
    );
}

#[test]
fn a_bad_image_is_the_callers_error() {
    let dir = std::env::temp_dir().join(format!("synaptic-run-main-job-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("not.bmp");
    std::fs::write(&f, b"not a bmp").unwrap();
    assert!(matches!(
        job::image_input(&f, 9216),
        Err(job::JobError::Image(e)) if e.contains("not a BMP")
    ));
    assert!(matches!(
        job::image_input(&dir.join("missing.bmp"), 9216),
        Err(job::JobError::Image(_))
    ));
    std::fs::remove_dir_all(&dir).ok();
}
