//! The main job (`scripts/run`): person_detect, a real int8 model, run by synaptic-run on the
//! synaptic-mem arena — weights read in place from the model bytes, per-operator data compiled
//! beforehand into a program (in flash on a device, not RAM), activations at planned offsets,
//! on an arena sized exactly for the model —
//! on `person.bmp` and `no_person.bmp` from `../shared/inputs`, with TFLM's scores beside
//! ours; then the RAM this took against TFLM's smallest arena and the live-set bound.
//!
//! `cargo run --release -p synaptic-run --example person_detect [IMAGE.bmp ...]`
//! (`$SYNAPTIC_SHARED` overrides `../shared`). Exit 1 if a shared image's scores differ from
//! TFLM's, 2 for a bad argument.

mod job;

const USAGE: &str = "usage: scripts/run [IMAGE.bmp ...]  (96x96 8-bit grayscale BMPs; default \
                     person.bmp and no_person.bmp from ../shared/inputs)";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return;
    }
    if let Some(a) = args.iter().find(|a| a.starts_with('-')) {
        eprintln!("scripts/run: unknown option {a:?}\n{USAGE}");
        std::process::exit(2);
    }
    let images: Vec<std::path::PathBuf> = args.iter().map(Into::into).collect();
    let report = match job::main_job(&job::shared_dir(), &images) {
        Ok(r) => r,
        Err(job::JobError::Image(e)) => {
            eprintln!("scripts/run: {e}\n{USAGE}");
            std::process::exit(2);
        }
        Err(e) => {
            eprintln!("scripts/run: error: {e}");
            std::process::exit(1);
        }
    };
    print!("{}", job::render(&report));
    if report
        .scored
        .iter()
        .any(|s| s.tflm.is_some_and(|t| t != s.scores))
    {
        eprintln!("scripts/run: error: scores differ from TFLM's");
        std::process::exit(1);
    }
}
