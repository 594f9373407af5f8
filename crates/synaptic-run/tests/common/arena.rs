//! Whole models on the arena: the plan from `synaptic-plan`, the model loaded by
//! `synaptic_run::Interpreter` into an arena sized exactly from its own figures, every
//! operator's output read out of the arena at the operator that produces it.

#![allow(dead_code)]

use synaptic_mem::config::MIN_SHARED_SIZE;
use synaptic_mem::{Arena, ArenaBuffer, MIN_SCRATCH_SIZE};
use synaptic_plan::{Analysis, IoPlacement as PlanIo, Model as PlanModel, SizingOptions};
use synaptic_run::{program, Interpreter, IoPlacement, LoadError, Memory, RunPlan};

/// Where the per-operator data (the compiled program) lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpData {
    /// Compiled at load into the arena (`Interpreter::new`).
    Ram,
    /// Compiled beforehand, outside the arena (`Interpreter::with_program`).
    Flash,
}

/// The program of `bytes` for `io` (what `synmem emit` writes for flash).
pub fn compiled(bytes: &[u8], io: IoPlacement) -> Vec<u32> {
    let mut w = vec![0u32; program::compiled_len(bytes, io).expect("the model compiles")];
    program::compile(bytes, io, &mut w).expect("the model compiles");
    w
}

/// Loads `bytes` with its program where `op_data` says (`program` holds it for flash).
pub fn load<'m, 'a, 'p>(
    bytes: &'m [u8],
    program: &'m [u32],
    loader: synaptic_mem::Loader<'a>,
    plan: RunPlan<'p>,
    io: IoPlacement,
    op_data: OpData,
) -> Result<Interpreter<'m, 'a, 'p>, LoadError> {
    match op_data {
        OpData::Ram => Interpreter::new(bytes, loader, plan, io),
        OpData::Flash => Interpreter::with_program(bytes, program, loader, plan, io),
    }
}

const MAX_ARENA: usize = 524_288;

/// One inference's results: every operator output (by tensor index) and the graph outputs.
#[derive(Debug, PartialEq)]
pub struct RunResult {
    pub tensors: Vec<Option<Vec<u8>>>,
    pub output: Vec<u8>,
    /// The operator that stopped the inference (`RunError::Aborted`: a CIRCULAR_BUFFER not
    /// due), if one did: the later operators did not run, the outputs were not copied out.
    pub aborted: Option<usize>,
}

/// The plan of `bytes` for `io`, from synaptic-plan (the same call `synmem` makes): overlapped
/// (the default).
pub fn analysis(bytes: &[u8], io: IoPlacement) -> Analysis {
    analysis_with(bytes, io, true)
}

/// [`analysis`], overlapped or plain (`--no-overlap`).
pub fn analysis_with(bytes: &[u8], io: IoPlacement, overlap: bool) -> Analysis {
    let model = PlanModel::from_bytes(bytes).expect("synaptic-plan imports the model");
    let options = SizingOptions {
        io: match io {
            IoPlacement::Shared => PlanIo::Shared,
            IoPlacement::Plan => PlanIo::Ephemeral,
        },
        overlap,
        ..SizingOptions::default()
    };
    Analysis::new(model, &options).expect("synaptic-plan plans the model")
}

/// The plan of an analysis with its declared overlaps, as the interpreter loads it.
pub fn run_plan(a: &Analysis) -> RunPlan<'_> {
    RunPlan::overlapped(a.ephemeral_plan.core_plan(), &a.ephemeral_plan.overlaps)
}

/// The arena size a model needs, exactly (`Arena::exact`: no Kconfig floors; the kernels need
/// no scratch).
pub fn arena_size(m: &Memory) -> usize {
    m.arena_bytes()
}

/// The model's figures, from a load on a large arena (the overlapped plan).
pub fn probe(bytes: &[u8], io: IoPlacement, op_data: OpData) -> Memory {
    probe_with(bytes, io, op_data, true)
}

/// [`probe`], overlapped or plain.
pub fn probe_with(bytes: &[u8], io: IoPlacement, op_data: OpData, overlap: bool) -> Memory {
    let words = compiled(bytes, io);
    let a = analysis_with(bytes, io, overlap);
    let mut buf = Box::new(ArenaBuffer::<MAX_ARENA>::new());
    let mut shared = Box::new(ArenaBuffer::<65536>::new());
    let mut arena = Arena::with_scratch(buf.as_mut_slice(), MIN_SCRATCH_SIZE).unwrap();
    arena.set_shared_region(shared.as_mut_slice()).unwrap();
    let (loader, _runner) = arena.split();
    let net = load(bytes, &words, loader, run_plan(&a), io, op_data)
        .unwrap_or_else(|e| panic!("load: {e}"));
    net.memory()
}

/// Runs every input of `runs` through the interpreter on an arena of exactly the size the
/// model needs (and a shared region of exactly its I/O), the arena first filled with seeded
/// random bytes if `poison` is given, with the overlapped plan. Returns each run's operator
/// outputs and graph outputs.
pub fn run_on_arena(
    bytes: &[u8],
    io: IoPlacement,
    runs: &[Vec<u8>],
    poison: Option<u64>,
    op_data: OpData,
) -> (Vec<RunResult>, Memory) {
    run_on_arena_with(bytes, io, runs, poison, op_data, true)
}

/// [`run_on_arena`] with the overlapped plan or the plain one (`overlap` false).
pub fn run_on_arena_with(
    bytes: &[u8],
    io: IoPlacement,
    runs: &[Vec<u8>],
    poison: Option<u64>,
    op_data: OpData,
    overlap: bool,
) -> (Vec<RunResult>, Memory) {
    let want = probe_with(bytes, io, op_data, overlap);
    let words = compiled(bytes, io);
    let a = analysis_with(bytes, io, overlap);
    let size = arena_size(&want);
    let mut buf = Box::new(ArenaBuffer::<MAX_ARENA>::new());
    let mut shared = Box::new(ArenaBuffer::<65536>::new());
    if let Some(seed) = poison {
        let mut rng = super::Rng::new(seed);
        for b in buf.as_mut_slice().iter_mut().chain(shared.as_mut_slice()) {
            *b = rng.next_u64() as u8;
        }
    }
    let mut arena = Arena::exact(&mut buf.as_mut_slice()[..size], want.scratch)
        .unwrap_or_else(|e| panic!("arena of {size} B: {e}"));
    arena
        .set_shared_region(&mut shared.as_mut_slice()[..want.shared.max(MIN_SHARED_SIZE)])
        .unwrap();
    let (loader, mut runner) = arena.split();
    let mut net = load(bytes, &words, loader, run_plan(&a), io, op_data)
        .unwrap_or_else(|e| panic!("load on the exactly sized arena: {e}"));
    assert_eq!(net.memory(), want, "figures differ between arenas");
    let results = runs
        .iter()
        .map(|input| observe(bytes, &mut net, &mut runner, input))
        .collect();
    let stats = runner.stats();
    assert!(
        stats.arena_peak <= size - want.scratch,
        "arena peak {stats:?}"
    );
    assert_eq!(stats.scratch_peak, want.scratch);
    (results, want)
}

/// One inference of `input` on `net` (the model `bytes`), every operator output read out of
/// the arena at the operator that produces it, and the state after it.
pub fn observe<'a, O: synaptic_run::ops::OpSet>(
    bytes: &[u8],
    net: &mut Interpreter<'_, 'a, '_, O>,
    runner: &mut synaptic_mem::Runner<'a>,
    input: &[u8],
) -> RunResult {
    let n_tensors = super::tflite::Model::parse(bytes).tensors.len();
    let mut tensors: Vec<Option<Vec<u8>>> = vec![None; n_tensors];
    let mut output = vec![0u8; net.output_bytes()];
    let aborted =
        match net.invoke_observed(runner, Some(input), Some(&mut output), &mut |_, t, b| {
            tensors[t] = Some(b.to_vec())
        }) {
            Ok(()) => None,
            Err(synaptic_run::RunError::Aborted { op }) => Some(op),
            Err(e) => panic!("invoke: {e}"),
        };
    // The state after the inference (the variable tensors, which no operator outputs).
    for k in 0..net.states() {
        // (A kernel's private state is no tensor.)
        if let (Some(t), b) = net.state(k).expect("a state of the model") {
            tensors[t] = Some(b.to_vec());
        }
    }
    RunResult {
        tensors,
        output,
        aborted,
    }
}
