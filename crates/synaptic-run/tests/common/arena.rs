//! Whole models on the arena: the plan from `synaptic-plan`, the model loaded by
//! `synaptic_run::Interpreter` into an arena sized exactly from its own figures, every
//! operator's output read out of the arena at the operator that produces it.

#![allow(dead_code)]

use synaptic_mem::config::MIN_SHARED_SIZE;
use synaptic_mem::{Arena, ArenaBuffer, MIN_SCRATCH_SIZE};
use synaptic_plan::{Analysis, IoPlacement as PlanIo, Model as PlanModel, SizingOptions};
use synaptic_run::{Interpreter, IoPlacement, Memory};

const MAX_ARENA: usize = 524_288;

/// One inference's results: every operator output (by tensor index) and the graph outputs.
pub struct RunResult {
    pub tensors: Vec<Option<Vec<u8>>>,
    pub output: Vec<u8>,
}

/// The plan of `bytes` for `io`, from synaptic-plan (the same call `synmem` makes).
pub fn analysis(bytes: &[u8], io: IoPlacement) -> Analysis {
    let model = PlanModel::from_bytes(bytes).expect("synaptic-plan imports the model");
    let options = SizingOptions {
        io: match io {
            IoPlacement::Shared => PlanIo::Shared,
            IoPlacement::Plan => PlanIo::Ephemeral,
        },
        ..SizingOptions::default()
    };
    Analysis::new(model, &options).expect("synaptic-plan plans the model")
}

/// The arena size a model needs: its tensor bytes plus the smallest scratch pool the core
/// allows (the kernels need no scratch), at least the core's smallest arena.
pub fn arena_size(m: &Memory) -> usize {
    m.arena_bytes(MIN_SCRATCH_SIZE)
}

/// The model's figures, from a load on a large arena.
pub fn probe(bytes: &[u8], io: IoPlacement) -> Memory {
    let a = analysis(bytes, io);
    let mut buf = Box::new(ArenaBuffer::<MAX_ARENA>::new());
    let mut shared = Box::new(ArenaBuffer::<65536>::new());
    let mut arena = Arena::with_scratch(buf.as_mut_slice(), MIN_SCRATCH_SIZE).unwrap();
    arena.set_shared_region(shared.as_mut_slice()).unwrap();
    let (loader, _runner) = arena.split();
    let net = Interpreter::new(bytes, loader, a.ephemeral_plan.core_plan(), io)
        .unwrap_or_else(|e| panic!("load: {e}"));
    net.memory()
}

/// Runs every input of `runs` through the interpreter on an arena of exactly the size the
/// model needs (and a shared region of exactly its I/O), the arena first filled with seeded
/// random bytes if `poison` is given. Returns each run's operator outputs and graph outputs.
pub fn run_on_arena(
    bytes: &[u8],
    io: IoPlacement,
    runs: &[Vec<u8>],
    poison: Option<u64>,
) -> (Vec<RunResult>, Memory) {
    let want = probe(bytes, io);
    let a = analysis(bytes, io);
    let size = arena_size(&want);
    let mut buf = Box::new(ArenaBuffer::<MAX_ARENA>::new());
    let mut shared = Box::new(ArenaBuffer::<65536>::new());
    if let Some(seed) = poison {
        let mut rng = super::Rng::new(seed);
        for b in buf.as_mut_slice().iter_mut().chain(shared.as_mut_slice()) {
            *b = rng.next_u64() as u8;
        }
    }
    let mut arena = Arena::with_scratch(&mut buf.as_mut_slice()[..size], MIN_SCRATCH_SIZE)
        .unwrap_or_else(|e| panic!("arena of {size} B: {e}"));
    arena
        .set_shared_region(&mut shared.as_mut_slice()[..want.shared.max(MIN_SHARED_SIZE)])
        .unwrap();
    let (loader, mut runner) = arena.split();
    let mut net = Interpreter::new(bytes, loader, a.ephemeral_plan.core_plan(), io)
        .unwrap_or_else(|e| panic!("load on the exactly sized arena: {e}"));
    assert_eq!(net.memory(), want, "figures differ between arenas");
    let n_tensors = super::tflite::Model::parse(bytes).tensors.len();
    let mut results = Vec::new();
    for input in runs {
        let mut tensors: Vec<Option<Vec<u8>>> = vec![None; n_tensors];
        let mut output = vec![0u8; net.output_bytes()];
        net.invoke_observed(
            &mut runner,
            Some(input),
            Some(&mut output),
            &mut |_, t, b| tensors[t] = Some(b.to_vec()),
        )
        .unwrap_or_else(|e| panic!("invoke: {e}"));
        results.push(RunResult { tensors, output });
    }
    let stats = runner.stats();
    assert!(
        stats.arena_peak <= size - MIN_SCRATCH_SIZE,
        "arena peak {stats:?}"
    );
    assert_eq!(stats.scratch_peak, want.scratch);
    (results, want)
}
