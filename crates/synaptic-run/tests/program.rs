//! The compiled program (`synaptic_run::program`): a program given by the user is checked
//! at load by its header and seal (`program::verify` compares it word by word), and running from a program in flash or from one compiled into
//! the arena gives the same result, operator by operator, on every shared model.

mod common;

use common::arena::{analysis, compiled, probe, OpData};
use common::tflite::Model;
use common::{random_inputs, shared, Rng};
use synaptic_mem::{Arena, ArenaBuffer, MIN_SCRATCH_SIZE};
use synaptic_run::{program, Interpreter, IoPlacement, LoadError};

/// The shared models synaptic-run runs (the five targets of issue 11 and two more).
const MODELS: [&str; 7] = [
    "hello_world_int8",
    "micro_speech_quantized",
    "kws_ref_model",
    "person_detect",
    "pretrainedResnet_quant",
    "ad01_int8",
    "simple_add_model",
];

fn model_bytes(name: &str) -> Vec<u8> {
    std::fs::read(shared().join("models").join(format!("{name}.tflite"))).unwrap()
}

/// Loads `bytes` with `program` on a large arena, with the plan of model `planned` (`bytes`,
/// or the model it was changed from), and gives `f` the load's result and the arena's runner.
fn with_plan_of<R>(
    planned: &[u8],
    bytes: &[u8],
    program: &[u32],
    io: IoPlacement,
    f: impl for<'a> FnOnce(
        Result<Interpreter<'_, 'a, '_>, LoadError>,
        &mut synaptic_mem::Runner<'a>,
    ) -> R,
) -> R {
    let a = analysis(planned, io);
    let mut buf = Box::new(ArenaBuffer::<524_288>::new());
    let mut shared = Box::new(ArenaBuffer::<65536>::new());
    let mut arena = Arena::with_scratch(buf.as_mut_slice(), MIN_SCRATCH_SIZE).unwrap();
    arena.set_shared_region(shared.as_mut_slice()).unwrap();
    let (loader, mut runner) = arena.split();
    let net = Interpreter::with_program(bytes, program, loader, common::arena::run_plan(&a), io);
    f(net, &mut runner)
}

/// Loads `bytes` with `program` on a large arena and returns the load's result.
fn load_with(bytes: &[u8], program: &[u32], io: IoPlacement) -> Result<(), LoadError> {
    with_plan_of(bytes, bytes, program, io, |net, _| net.map(drop))
}

fn program_error(e: LoadError) -> (&'static str, usize, &'static str, usize) {
    match e {
        LoadError::Program {
            what,
            op,
            name,
            word,
        } => (what, op, name, word),
        e => panic!("expected a program error, got {e}"),
    }
}

#[test]
fn flash_and_ram_programs_give_identical_results_on_every_shared_model() {
    for name in MODELS {
        let bytes = model_bytes(name);
        let model = Model::parse(&bytes);
        let runs: Vec<Vec<u8>> = (0..2)
            .map(|s| random_inputs(&model, &mut Rng::new(0x9E0_0000 + s)))
            .collect();
        for io in [IoPlacement::Plan, IoPlacement::Shared] {
            let (flash, mf) =
                common::arena::run_on_arena(&bytes, io, &runs, Some(7), OpData::Flash);
            let (ram, mr) = common::arena::run_on_arena(&bytes, io, &runs, Some(8), OpData::Ram);
            for (r, (f, m)) in flash.iter().zip(&ram).enumerate() {
                assert_eq!(f.output, m.output, "{name} {io:?} run {r}: outputs");
                assert_eq!(
                    f.tensors, m.tensors,
                    "{name} {io:?} run {r}: operator outputs"
                );
            }
            // The same arena but the program: in RAM it is the persistent `tables` tensor.
            let words = compiled(&bytes, io);
            assert_eq!(mf.tables, 0, "{name}: no per-operator data in RAM");
            assert_eq!(mf.locations + mr.locations, 0);
            assert_eq!(mf.program_flash, 4 * words.len());
            assert_eq!(mr.program_flash, 0);
            assert_eq!(mf.program_bytes, mr.program_bytes);
            assert_eq!(
                mr.tables,
                synaptic_mem::block_span(4 * words.len() as u64) as usize
            );
            assert_eq!(mr.persistent - mr.tables, mf.persistent);
            assert_eq!(mr.planned, mf.planned);
            assert_eq!(mr.shared, mf.shared);
            println!(
                "{name} {io:?}: program {} words; RAM {} B with it in flash, {} B in RAM",
                words.len(),
                mf.total(),
                mr.total()
            );
        }
    }
}

#[test]
fn a_program_is_the_same_on_every_compile_and_verifies() {
    for name in MODELS {
        let bytes = model_bytes(name);
        for io in [IoPlacement::Plan, IoPlacement::Shared] {
            let a = compiled(&bytes, io);
            assert_eq!(a, compiled(&bytes, io));
            assert_eq!(a.len(), program::compiled_len(&bytes, io).unwrap());
            program::verify(&bytes, io, &a).unwrap();
            load_with(&bytes, &a, io).unwrap();
            assert_eq!(a[0], program::MAGIC);
            assert_eq!(a[1], program::VERSION);
            assert_eq!(a[2] as usize, a.len());
            assert_eq!(a[3] as usize, bytes.len());
            assert_eq!(a[4], program::fingerprint(&bytes));
        }
    }
}

/// The refusal of a program whose seal differs ([`program::seal`]).
const SEAL_DIFFERS: &str = "its seal differs (altered, or compiled from other model bytes)";

#[test]
fn a_wrong_program_is_refused_at_load_by_its_header_and_seal() {
    let bytes = model_bytes("hello_world_int8");
    let io = IoPlacement::Plan;
    let good = compiled(&bytes, io);
    assert_eq!(
        good[program::HEADER_WORDS - 1],
        program::seal(&bytes, &good)
    );
    load_with(&bytes, &good, io).unwrap();
    // Header fields.
    let mut p = good.clone();
    p[0] ^= 1;
    assert_eq!(
        program_error(load_with(&bytes, &p, io).unwrap_err()).0,
        "not a synaptic-run program (magic)"
    );
    let mut p = good.clone();
    p[1] = program::VERSION + 1;
    assert_eq!(
        program_error(load_with(&bytes, &p, io).unwrap_err()).0,
        "a format version this runtime does not read"
    );
    // Truncated, or with extra words.
    for len in [0, 5, good.len() - 1] {
        let e = program_error(load_with(&bytes, &good[..len], io).unwrap_err());
        assert!(e.0.contains("truncated"), "{len}: {e:?}");
    }
    let mut longer = good.clone();
    longer.push(0);
    let e = program_error(load_with(&bytes, &longer, io).unwrap_err());
    assert!(e.0.contains("extended"), "{e:?}");
    // The length word agreeing with an extra word: the seal covers the length.
    longer[2] += 1;
    assert_eq!(
        program_error(load_with(&bytes, &longer, io).unwrap_err()),
        (SEAL_DIFFERS, usize::MAX, "", program::HEADER_WORDS - 1)
    );
    // The length word itself lying about a truncated program.
    let mut short = good[..good.len() - 1].to_vec();
    short[2] -= 1;
    let e = program_error(load_with(&bytes, &short, io).unwrap_err());
    assert_eq!(e.0, SEAL_DIFFERS);
    // Another model, the other placement.
    let other = model_bytes("micro_speech_quantized");
    let e = program_error(load_with(&other, &good, io).unwrap_err());
    assert_eq!(
        e.0,
        "compiled for another model (model length or fingerprint differs)"
    );
    let e = program_error(load_with(&bytes, &good, IoPlacement::Shared).unwrap_err());
    assert_eq!(e.0, "compiled for the other I/O placement");
    // The model with any one byte changed (a weight, a name: bytes the program's words may
    // not depend on): refused, the seal covering every byte (a byte the flatbuffer's reader
    // trips on first is a model error).
    let mut sealed = 0;
    for at in (0..bytes.len()).step_by(97) {
        let mut changed = bytes.clone();
        changed[at] ^= 0x55;
        let e = with_plan_of(&bytes, &changed, &good, io, |net, _| net.map(drop)).unwrap_err();
        sealed += usize::from(matches!(e, LoadError::Program { what, .. } if what == SEAL_DIFFERS));
    }
    // Most bytes are seen by the seal alone (the fingerprint samples 16 words).
    assert!(sealed > bytes.len() / 97 / 2, "{sealed}");
    // Every word past the magic, version and length, altered: refused, and the program
    // still loads once restored.
    for i in 3..good.len() {
        let mut p = good.clone();
        p[i] = p[i].wrapping_add(1);
        let (what, op, _, _) = program_error(load_with(&bytes, &p, io).unwrap_err());
        assert_eq!(op, usize::MAX, "word {i}: {what}");
    }
    load_with(&bytes, &good, io).unwrap();
}

#[test]
fn a_sealed_program_that_reads_a_slot_before_it_is_written_is_refused() {
    // A program forged to pass its seal (the seal is not a signature): its data flow is
    // checked at load all the same, so no operator reads bytes nothing wrote.
    let bytes = model_bytes("hello_world_int8");
    let io = IoPlacement::Plan;
    let good = compiled(&bytes, io);
    let ops_at = good[12] as usize;
    // Record 0: its head (7 words: kind, record words, output tensor, output location),
    // then its first input's location (tag 1: a slot). Record 1's output location.
    let next = ops_at + good[ops_at + 1] as usize;
    assert_eq!((good[ops_at + 7], good[next + 3]), (1, 1), "slot locations");
    let mut p = good.clone();
    p[ops_at + 8] = good[next + 4];
    let seal_at = program::HEADER_WORDS - 1;
    p[seal_at] = program::seal(&bytes, &p);
    match load_with(&bytes, &p, io).unwrap_err() {
        LoadError::Graph { op, fault, .. } => {
            assert_eq!(op, Some(0));
            assert_eq!(fault, synaptic_run::GraphFault::ReadBeforeWrite);
        }
        // Verified word by word first, with `verify-program`.
        LoadError::Program { op: 0, .. } if cfg!(feature = "verify-program") => {}
        e => panic!("{e}"),
    }
}

/// With `verify-program`, a load also verifies a program given word by word: one forged to
/// pass its seal is refused, naming the operator and word that differ.
#[cfg(feature = "verify-program")]
#[test]
fn verify_program_refuses_a_forged_sealed_program_at_load() {
    let bytes = model_bytes("hello_world_int8");
    let io = IoPlacement::Plan;
    let good = compiled(&bytes, io);
    let ops_at = good[12] as usize;
    let mut p = good.clone();
    p[ops_at + 9] ^= 0x10;
    p[program::HEADER_WORDS - 1] = program::seal(&bytes, &p);
    let (what, op, name, word) = program_error(load_with(&bytes, &p, io).unwrap_err());
    assert_eq!(
        (op, name, word),
        (0, "FULLY_CONNECTED", ops_at + 9),
        "{what}"
    );
}

#[test]
fn a_sealed_program_with_counts_past_its_words_is_refused_not_run() {
    // Forged counts (resealed): every loop over them stops at the program's or the plan's
    // end, with an error, not after 2^32 steps.
    let bytes = model_bytes("hello_world_int8");
    let io = IoPlacement::Plan;
    let good = compiled(&bytes, io);
    for word in [6, 7, 8, 9, 13] {
        let mut p = good.clone();
        p[word] = u32::MAX;
        p[program::HEADER_WORDS - 1] = program::seal(&bytes, &p);
        assert!(load_with(&bytes, &p, io).is_err(), "word {word}");
    }
}

#[test]
fn verify_names_the_first_word_that_differs() {
    let bytes = model_bytes("hello_world_int8");
    let io = IoPlacement::Plan;
    let good = compiled(&bytes, io);
    program::verify(&bytes, io, &good).unwrap();
    let verify = |p: &[u32]| program::verify(&bytes, io, p).unwrap_err();
    let mut p = good.clone();
    p[0] ^= 1;
    assert_eq!(
        program_error(verify(&p)).0,
        "not a synaptic-run program (magic)"
    );
    let mut longer = good.clone();
    longer.push(0);
    longer[2] += 1;
    assert_eq!(
        program_error(verify(&longer)).0,
        "longer than the model's program (extra words)"
    );
    // A program of the same length for a model with one byte changed (a weight).
    let mut changed = bytes.clone();
    let last = changed.len() - 1;
    changed[last] ^= 0x55;
    assert!(program::verify(&changed, io, &good).is_err());

    // Every word past the header but the seal (which verification does not compare: it is
    // the load's check), altered, is caught, and named by its operator.
    let (ops_at, tail_at) = (good[12] as usize, good[14] as usize);
    let seal_at = program::HEADER_WORDS - 1;
    let mut p = good.clone();
    p[seal_at] ^= 1;
    program::verify(&bytes, io, &p).unwrap();
    let mut kinds = std::collections::BTreeSet::new();
    for i in program::HEADER_WORDS..good.len() {
        let mut p = good.clone();
        p[i] = p[i].wrapping_add(1);
        let (what, op, name, word) = program_error(verify(&p));
        assert_eq!(word, i, "word {i}: {what}");
        if (ops_at..tail_at).contains(&i) {
            assert!(op < 3, "word {i}: {what} names operator {op}");
            assert_eq!(name, "FULLY_CONNECTED");
        } else {
            assert_eq!(op, usize::MAX);
        }
        kinds.insert(what);
    }
    for what in [
        "slot table",
        "I/O table",
        "operator kind, inputs or output",
        "operator parameters",
        "requantization multipliers",
        "requantization shifts",
        "folded biases",
        "tensor requests",
    ] {
        assert!(kinds.contains(what), "{what}: {kinds:?}");
    }
    let e = verify(&{
        let mut p = good.clone();
        p[ops_at + 9] ^= 0x10;
        p
    });
    assert!(
        e.to_string()
            .starts_with("program does not match the model: "),
        "{e}"
    );
}

#[test]
fn compile_into_a_short_buffer_says_how_much_it_needs() {
    let bytes = model_bytes("hello_world_int8");
    let n = program::compiled_len(&bytes, IoPlacement::Plan).unwrap();
    let mut small = vec![0u32; n - 1];
    assert_eq!(
        program::compile(&bytes, IoPlacement::Plan, &mut small),
        Err(LoadError::ProgramBuffer {
            needed: n,
            got: n - 1
        })
    );
    assert!(program::compiled_len(b"not a model", IoPlacement::Plan).is_err());
}

#[test]
fn the_program_in_flash_takes_no_arena_ram() {
    // RAM above the planned activations, with the program in flash (what `synmem emit`
    // gives firmware): the plan's descriptors and the kernels' scratch pool only (the largest
    // block one operator takes: person_detect's 24×24×32 depthwise row kernel, a segment of
    // 24 pixels × 32 channels and 78 gathered words). Plain plans are at the live-set bound,
    // overlapped ones at the overlap bound (issue 12).
    for (name, bound, overlap_bound, scratch) in [
        ("hello_world_int8", 32, 16, 0),
        ("person_detect", 55_296, 36_880, 768 + 320),
    ] {
        let bytes = model_bytes(name);
        let m = common::arena::probe_with(&bytes, IoPlacement::Plan, OpData::Flash, false);
        assert_eq!(m.persistent, m.plan_descriptors, "{name}");
        assert_eq!(m.scratch, scratch, "{name}");
        assert_eq!(m.total(), bound + m.plan_descriptors + scratch, "{name}");
        let m = probe(&bytes, IoPlacement::Plan, OpData::Flash);
        assert_eq!(m.persistent, m.plan_descriptors, "{name}");
        assert_eq!(
            m.total(),
            overlap_bound + m.plan_descriptors + scratch,
            "{name}"
        );
    }
}

/// Every shared model runs with its overlapped plan (each declared pair's operator through its
/// overlapped kernel) on a poisoned arena exactly as with the plain plan: every operator output
/// and the graph outputs, both I/O placements; and the overlapped plan is smaller.
#[test]
fn overlapped_plans_run_like_plain_plans_on_every_shared_model() {
    let mut pairs_run = 0;
    for name in MODELS {
        let bytes = model_bytes(name);
        let model = Model::parse(&bytes);
        let runs: Vec<Vec<u8>> = (0..2)
            .map(|s| random_inputs(&model, &mut Rng::new(0x0E1_0000 + s)))
            .collect();
        for io in [IoPlacement::Plan, IoPlacement::Shared] {
            let (plain, mp) =
                common::arena::run_on_arena_with(&bytes, io, &runs, None, OpData::Flash, false);
            let (over, mo) = common::arena::run_on_arena_with(
                &bytes,
                io,
                &runs,
                Some(0xBAD),
                OpData::Flash,
                true,
            );
            for (r, (p, o)) in plain.iter().zip(&over).enumerate() {
                assert_eq!(p.output, o.output, "{name} {io:?} run {r}: outputs");
                assert_eq!(
                    p.tensors, o.tensors,
                    "{name} {io:?} run {r}: operator outputs"
                );
            }
            assert!(mo.planned <= mp.planned, "{name} {io:?}");
            pairs_run += common::arena::analysis(&bytes, io)
                .ephemeral_plan
                .overlaps
                .len();
        }
    }
    assert!(pairs_run >= 40, "{pairs_run} declared overlaps run");
}

/// A declared overlap is checked at load against the runtime's own contract, never trusted:
/// a bound claiming more than the contract, a delta the contract does not allow, a pair out of
/// operator order or on the wrong slots are `LoadError::Plan`.
#[test]
fn declared_overlaps_the_contract_does_not_allow_are_refused_at_load() {
    use synaptic_mem::plan::{OverlapDirection, PlanSlot};
    use synaptic_run::RunPlan;
    let bytes = model_bytes("person_detect");
    let io = IoPlacement::Plan;
    let a = common::arena::analysis(&bytes, io);
    let words = compiled(&bytes, io);
    let pairs = a.ephemeral_plan.overlaps.clone();
    let slots = a.ephemeral_plan.slots().to_vec();
    let plan = a.ephemeral_plan.core_plan();
    let load = |plan: synaptic_mem::Plan<'_>, pairs: &[synaptic_mem::plan::OverlapPair]| {
        let mut buf = Box::new(ArenaBuffer::<524_288>::new());
        let mut arena = Arena::with_scratch(buf.as_mut_slice(), MIN_SCRATCH_SIZE).unwrap();
        let (loader, _runner) = arena.split();
        Interpreter::with_program(&bytes, &words, loader, RunPlan::overlapped(plan, pairs), io)
            .map(drop)
    };
    let plan_error = |r: Result<(), LoadError>| match r {
        Err(LoadError::Plan { what, .. }) => what,
        Err(e) => panic!("expected a plan error, got {e}"),
        Ok(()) => panic!("loaded"),
    };
    assert_eq!(load(plan, &pairs), Ok(()));
    // The backward 1x1 conv: the contract's bound is 7; a declaration of 0 claims more.
    let k = pairs
        .iter()
        .position(|p| p.direction == OverlapDirection::Backward && p.bound > 0)
        .expect("a backward pair with a positive bound");
    let mut claims = pairs.clone();
    claims[k].bound = 0;
    assert!(plan_error(load(plan, &claims)).contains("claims more"));
    // The same pair declared forward: its delta is unsafe forward, whatever the bound says.
    let mut forward = pairs.clone();
    forward[k].direction = OverlapDirection::Forward;
    forward[k].bound = i32::MAX;
    let e = load(plan, &forward);
    assert!(
        matches!(e, Err(LoadError::Plan { .. }) | Err(LoadError::PlanLoad(_))),
        "{e:?}"
    );
    // Moved so that the output starts at the input (delta 0): unsafe backward (bound 7); the
    // plan is valid for the core with the declared bound 0 only, and the runtime refuses that.
    let (i, o) = (pairs[k].input as usize, pairs[k].output as usize);
    let mut moved: Vec<PlanSlot> = slots.clone();
    moved[o].offset = moved[i].offset;
    let mut zero = pairs.clone();
    zero[k].bound = 0;
    let moved_plan = synaptic_mem::Plan {
        region_size: plan
            .region_size
            .max(moved[o].offset + moved[o].size.div_ceil(16) * 16),
        slots: &moved,
    };
    let e = load(moved_plan, &zero);
    assert!(matches!(e, Err(LoadError::Plan { .. })), "{e:?}");
    // Out of operator order.
    let mut swapped = pairs.clone();
    swapped.swap(0, 1);
    assert!(plan_error(load(plan, &swapped)).contains("operator order"));
    // A pair naming slots that are not its operator's output.
    let mut wrong = pairs.clone();
    wrong[k].output = wrong[k].input;
    let e = load(plan, &wrong);
    assert!(
        matches!(e, Err(LoadError::Plan { .. }) | Err(LoadError::PlanLoad(_))),
        "{e:?}"
    );
    // The overlapped plan without its declarations is refused by the core's one rule.
    assert!(matches!(load(plan, &[]), Err(LoadError::PlanLoad(_))));
}

/// An operator set without every kernel of the model: `kinds` names the model's kernels; a
/// set that links all of them loads and runs like the full build, one kernel fewer is refused
/// at load naming the operator (with the program in flash and compiled at load).
#[test]
fn an_op_set_links_the_models_kernels_and_refuses_a_model_needing_another() {
    use synaptic_run::ops::OpSet;
    use synaptic_run::{KernelError, Unsupported};
    struct PersonDetect;
    impl OpSet for PersonDetect {
        // CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D, SOFTMAX, RESHAPE (kinds 1, 2, 4, 6, 14).
        const KINDS: synaptic_run::ops::Kinds = synaptic_run::ops::Kinds::of(&[1, 2, 4, 6, 14]);
    }
    struct NoSoftmax;
    impl OpSet for NoSoftmax {
        const KINDS: synaptic_run::ops::Kinds =
            PersonDetect::KINDS.without(synaptic_run::ops::Kinds::of(&[6]));
    }
    let bytes = model_bytes("person_detect");
    let io = IoPlacement::Plan;
    let words = compiled(&bytes, io);
    assert_eq!(program::kinds(&words), Some(PersonDetect::KINDS));
    let a = analysis(&bytes, io);
    let mut buf = Box::new(ArenaBuffer::<524_288>::new());
    for flash in [true, false] {
        let mut arena = Arena::with_scratch(buf.as_mut_slice(), MIN_SCRATCH_SIZE).unwrap();
        let (loader, _runner) = arena.split();
        let plan = common::arena::run_plan(&a);
        let r = if flash {
            Interpreter::with_program_ops::<PersonDetect>(&bytes, &words, loader, plan, io)
                .map(drop)
        } else {
            Interpreter::new_ops::<PersonDetect>(&bytes, loader, plan, io).map(drop)
        };
        r.unwrap();
        let mut arena = Arena::with_scratch(buf.as_mut_slice(), MIN_SCRATCH_SIZE).unwrap();
        let (loader, _runner) = arena.split();
        let plan = common::arena::run_plan(&a);
        let e = if flash {
            Interpreter::with_program_ops::<NoSoftmax>(&bytes, &words, loader, plan, io).map(drop)
        } else {
            Interpreter::new_ops::<NoSoftmax>(&bytes, loader, plan, io).map(drop)
        }
        .unwrap_err();
        match &e {
            LoadError::Operator {
                name: "SOFTMAX",
                error:
                    KernelError::Unsupported {
                        reason: Unsupported::NotLinked,
                        ..
                    },
                ..
            } => {}
            other => panic!("flash {flash}: {other:?}"),
        }
        assert!(e.to_string().contains("operator set"), "{e}");
    }
}

/// An operator set that names its paths (`program::paths`): person_detect (1×1 convolutions)
/// and hello_world_int8 (fully connected layers with folded constants) run with only their
/// kernels' paths linked, every operator output the full build's; a set without a path the
/// model takes refuses it at load, naming the operator (program in flash and compiled at load).
#[test]
fn an_op_set_links_the_models_paths_and_refuses_a_model_needing_another() {
    use synaptic_run::ops::{paths, OpSet};
    use synaptic_run::{KernelError, Unsupported};
    struct Person;
    impl OpSet for Person {
        const KINDS: synaptic_run::ops::Kinds = synaptic_run::ops::Kinds::of(&[1, 2, 4, 6, 14]);
        const PATHS: u64 = paths::CONV_POINTWISE | paths::DW_ROWS;
    }
    struct PersonGeneral;
    impl OpSet for PersonGeneral {
        const KINDS: synaptic_run::ops::Kinds = Person::KINDS;
        const PATHS: u64 = paths::ALL & !paths::CONV_POINTWISE;
    }
    struct Hello;
    impl OpSet for Hello {
        const KINDS: synaptic_run::ops::Kinds = synaptic_run::ops::Kinds::ALL;
        const PATHS: u64 = paths::FC_FOLDED;
    }
    struct HelloBias;
    impl OpSet for HelloBias {
        const KINDS: synaptic_run::ops::Kinds = synaptic_run::ops::Kinds::ALL;
        const PATHS: u64 = paths::FC_BIAS | paths::FC_LONG_ROWS;
    }
    fn check<Yes: OpSet, No: OpSet>(name: &str, op: &str) {
        let bytes = model_bytes(name);
        let model = Model::parse(&bytes);
        let inputs: Vec<Vec<u8>> = (0..2)
            .map(|s| random_inputs(&model, &mut Rng::new(0x9A7_0000 + s)))
            .collect();
        let io = IoPlacement::Plan;
        let words = compiled(&bytes, io);
        assert_eq!(program::paths(&words), Some(Yes::PATHS), "{name}");
        let a = analysis(&bytes, io);
        let full = run_words(&bytes, &words, io, &inputs);
        let mut buf = Box::new(ArenaBuffer::<524_288>::new());
        for flash in [true, false] {
            let mut arena = Arena::with_scratch(buf.as_mut_slice(), MIN_SCRATCH_SIZE).unwrap();
            let (loader, mut runner) = arena.split();
            let plan = common::arena::run_plan(&a);
            let mut net = if flash {
                Interpreter::with_program_ops::<Yes>(&bytes, &words, loader, plan, io)
            } else {
                Interpreter::new_ops::<Yes>(&bytes, loader, plan, io)
            }
            .unwrap_or_else(|e| panic!("{name} flash {flash}: {e}"));
            let runs: Vec<_> = inputs
                .iter()
                .map(|i| common::arena::observe(&bytes, &mut net, &mut runner, i))
                .collect();
            assert_eq!(
                runs, full,
                "{name} flash {flash}: outputs differ from the full build's"
            );
            let mut arena = Arena::with_scratch(buf.as_mut_slice(), MIN_SCRATCH_SIZE).unwrap();
            let (loader, _runner) = arena.split();
            let plan = common::arena::run_plan(&a);
            let e = if flash {
                Interpreter::with_program_ops::<No>(&bytes, &words, loader, plan, io).map(drop)
            } else {
                Interpreter::new_ops::<No>(&bytes, loader, plan, io).map(drop)
            }
            .unwrap_err();
            match &e {
                LoadError::Operator {
                    name: n,
                    error:
                        KernelError::Unsupported {
                            reason: Unsupported::NotLinked,
                            ..
                        },
                    ..
                } if *n == op => {}
                other => panic!("{name} flash {flash}: {other:?}"),
            }
        }
    }
    check::<Person, PersonGeneral>("person_detect", "CONV_2D");
    check::<Hello, HelloBias>("hello_world_int8", "FULLY_CONNECTED");
}

/// Runs `inputs` through `bytes` loaded with `program` on a large arena: each run's graph
/// output and every operator output.
fn run_words(
    bytes: &[u8],
    program: &[u32],
    io: IoPlacement,
    inputs: &[Vec<u8>],
) -> Vec<common::arena::RunResult> {
    with_plan_of(bytes, bytes, program, io, |net, runner| {
        let mut net = net.unwrap_or_else(|e| panic!("load: {e}"));
        inputs
            .iter()
            .map(|input| common::arena::observe(bytes, &mut net, runner, input))
            .collect()
    })
}

#[test]
fn a_program_for_either_isa_verifies_and_gives_the_same_results_on_any_target() {
    use program::Isa;
    let mut unfolded = 0;
    for name in MODELS {
        let bytes = model_bytes(name);
        let model = Model::parse(&bytes);
        let runs: Vec<Vec<u8>> = (0..2)
            .map(|s| random_inputs(&model, &mut Rng::new(0x15A_0000 + s)))
            .collect();
        for io in [IoPlacement::Plan, IoPlacement::Shared] {
            let words = |isa| {
                let mut w = vec![0u32; program::compiled_len_for(&bytes, io, isa).unwrap()];
                assert_eq!(
                    program::compile_for(&bytes, io, isa, &mut w).unwrap(),
                    w.len()
                );
                w
            };
            let (portable, dsp) = (words(Isa::Portable), words(Isa::Dsp));
            // The header names the ISA; the DSP program folds no more than the portable one,
            // and adds a depthwise multiplier's filter in tap pairs (micro_speech's 80 taps ×
            // 8 channels: 320 words).
            assert_eq!(portable[5] >> 8, 0);
            assert_eq!(dsp[5] >> 8, 1);
            let pairs = match name {
                "micro_speech_quantized" => 320,
                _ => 0,
            };
            assert!(dsp.len() <= portable.len() + pairs, "{name}");
            unfolded += portable.len() + pairs - dsp.len();
            for w in [&portable, &dsp] {
                program::verify(&bytes, io, w).unwrap();
            }
            // This build's own programs are its ISA's.
            assert_eq!(compiled(&bytes, io), words(Isa::NATIVE));
            assert_eq!(
                run_words(&bytes, &portable, io, &runs),
                run_words(&bytes, &dsp, io, &runs),
                "{name} {io:?}: the two programs' operator outputs differ"
            );
            // A program naming an ISA this runtime does not know is refused.
            let mut p = dsp.clone();
            p[5] = p[5] & 0xFF | 2 << 8;
            assert_eq!(
                program_error(load_with(&bytes, &p, io).unwrap_err()).0,
                "compiled for an instruction set this runtime does not know"
            );
        }
    }
    // micro_speech's 4 × 4,000 filter is not folded for the DSP extension (both placements).
    assert!(unfolded >= 8, "{unfolded}");
}

#[test]
fn the_native_isa_is_the_build_scripts() {
    assert_eq!(
        program::Isa::NATIVE,
        program::Isa::of_build(env!("SYNAPTIC_TARGET"), env!("SYNAPTIC_RUSTFLAGS"))
    );
}
