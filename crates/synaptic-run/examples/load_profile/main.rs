//! Where a load's instructions go, on the host (a development tool): plans MODEL overlapped,
//! compiles its program, then loads it with the program given (`Interpreter::with_program`)
//! and compiled at load (`Interpreter::new`, with `RAM_PROGRAM` set), `LOADS` times. Run it under callgrind:
//!
//!   cargo build --release -p synaptic-run --example load_profile
//!   valgrind --tool=callgrind --toggle-collect='*load_parts*' \
//!       target/release/examples/load_profile ../shared/models/person_detect.tflite
use synaptic_mem::{Arena, ArenaBuffer};
use synaptic_plan::{Analysis, IoPlacement, Model, SizingOptions};
use synaptic_run::{program, Interpreter, IoPlacement as RunIo, RunPlan};

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: load_profile MODEL.tflite");
    let loads: usize = std::env::var("LOADS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let bytes = std::fs::read(&path).expect("model");
    let model = Model::from_bytes(&bytes).expect("model");
    let a = Analysis::new(
        model,
        &SizingOptions {
            io: IoPlacement::Ephemeral,
            overlap: true,
            ..SizingOptions::default()
        },
    )
    .expect("plan");
    let core_plan = a.ephemeral_plan.core_plan();
    let plan = RunPlan::overlapped(core_plan, &a.ephemeral_plan.overlaps);
    let n = program::compiled_len(&bytes, RunIo::Plan).expect("program");
    let mut words = vec![0u32; n];
    program::compile(&bytes, RunIo::Plan, &mut words).expect("program");
    let ram = std::env::var("RAM_PROGRAM").is_ok();
    let mut buf = Box::new(ArenaBuffer::<{ synaptic_mem::MAX_ARENA_SIZE }>::new());
    for _ in 0..if ram { 0 } else { loads } {
        let mut arena = Arena::exact(buf.as_mut_slice(), 0).expect("arena");
        let (loader, _runner) = arena.split();
        let net = Interpreter::with_program(&bytes, &words, loader, plan, RunIo::Plan)
            .expect("load (program given)");
        std::hint::black_box(&net);
    }
    for _ in 0..if ram { loads } else { 0 } {
        let mut arena = Arena::exact(buf.as_mut_slice(), 0).expect("arena");
        let (loader, _runner) = arena.split();
        let net =
            Interpreter::new(&bytes, loader, plan, RunIo::Plan).expect("load (program compiled)");
        std::hint::black_box(&net);
    }
    println!(
        "{path}: {} overlaps, program {} words, {loads} loads each",
        a.ephemeral_plan.overlaps.len(),
        n
    );
}
