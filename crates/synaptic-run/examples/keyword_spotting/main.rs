//! The second main job (`scripts/run-keyword`): the keyword pipeline from audio — each
//! `.wav` through TFLM's audio front end (`audio_preprocessor_int8`, its signal library) into
//! features, then `micro_speech_quantized`: the label, with TFLM's features and scores beside
//! ours, and the RAM of both models in one arena against TFLM's two.
//!
//! `cargo run --release -p synaptic-run --example keyword_spotting [FILE.wav ...]`
//! (`$SYNAPTIC_SHARED` overrides `../shared`). Exit 1 if a shared file's features or scores
//! differ from TFLM's, 2 for a bad argument.

mod job;

const USAGE: &str = "usage: scripts/run-keyword [FILE.wav ...]  (16 kHz 16-bit mono, 1 s; \
                     default the four .wav files of ../shared/inputs)";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return;
    }
    if let Some(a) = args.iter().find(|a| a.starts_with('-')) {
        eprintln!("scripts/run-keyword: unknown option {a:?}\n{USAGE}");
        std::process::exit(2);
    }
    let wavs: Vec<std::path::PathBuf> = args.iter().map(Into::into).collect();
    let report = match job::keyword_job(&job::shared_dir(), &wavs) {
        Ok(r) => r,
        Err(job::JobError::Wav(e)) => {
            eprintln!("scripts/run-keyword: {e}\n{USAGE}");
            std::process::exit(2);
        }
        Err(e) => {
            eprintln!("scripts/run-keyword: error: {e}");
            std::process::exit(1);
        }
    };
    print!("{}", job::render(&report));
    let differs = report
        .heard
        .iter()
        .any(|h| h.features_equal() == Some(false) || h.tflm.is_some_and(|(_, s)| s != h.scores));
    if differs {
        eprintln!("scripts/run-keyword: error: features or scores differ from TFLM's");
        std::process::exit(1);
    }
}
