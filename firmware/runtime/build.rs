//! Build script: everything a runtime image needs from the host, computed at build time.
//!
//! For each model of the selected board (feature `lm3s6965`: hello_world_int8,
//! micro_speech_quantized; feature `mps2-an385`: kws_ref_model, person_detect,
//! pretrainedResnet_quant; with feature `float32` instead the float models: hello_world_float,
//! and ad01_fp32, pretrainedResnet) it
//!
//! 1. reads `$SYNAPTIC_MODELS/<model>.tflite` (default `../shared/models` beside the
//!    repository) and fails the build with a clear message if it is absent;
//! 2. plans the activations with `synaptic-plan` three times: graph I/O inside the plan and graph
//!    I/O in the SHARED region, both overlapped (the default: outputs overlap dying inputs as the
//!    kernels' access contracts allow, issue 12; the declared pairs are emitted beside each plan
//!    and run overlapped), and the plain plan (`--no-overlap`) with I/O inside it, for the
//!    before/after figures;
//! 3. compiles each placement's program (`synaptic_run::program::compile`, the per-operator
//!    data) and loads and runs the model on the host with `synaptic-run` (both placements; the
//!    program given from outside the arena, and compiled at load for the RAM figures) on the input
//!    `synmem run --random $SYNAPTIC_SEED` would make (splitmix64; seed 1 by default): the
//!    expected output bytes and the exact memory figures;
//! 4. writes `$OUT_DIR/models.rs`: the model bytes (`include_bytes!`, 16-byte aligned, so in
//!    flash), both plans as `const` tables, both programs as `static` words (flash), the input (flash), the expected output, the arena
//!    sizes (exact need and what the core's floors accept) and the arena call sequence of one
//!    inference (for timing the arena's own calls alone);
//!
//! and writes the board's `memory.x`.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

use synaptic_mem::plan::OverlapPair;
use synaptic_mem::{Arena, ArenaBuffer};
use synaptic_plan::{Analysis, IoPlacement, Model, SizingOptions};
use synaptic_run::{program, Interpreter, IoPlacement as RunIo, Isa, Memory, RunPlan};
use synaptic_tflite::TensorType;

/// The scratch pool of the host runs: the core's largest (the interpreter opens each kernel's
/// block in it; the images' pool is the model's own figure, `SCRATCH`).
const POOL: usize = synaptic_mem::MAX_SCRATCH_SIZE;

const LM3S6965: &[&str] = &[
    "hello_world_int8",
    "micro_speech_quantized",
    // Streaming: LSTM and SVDF state carried across invocations.
    "trained_lstm_int8",
    "keyword_scrambled_8bit",
    "keyword_scrambled",
    // The audio front end (TFLM's signal library): its noise estimate carried.
    "audio_preprocessor_int8",
];

/// Consecutive invocations on one load an image checks against the host's (the state carried
/// from one to the next; a model without state gives the same output each time).
const STREAM: usize = 10;
const MPS2_AN385: &[&str] = &[
    // kws_ref_model's bench image (model, two programs, the whole runtime) outgrew the
    // LM3S6965's 256 KB of flash; mps2-an385 is the Cortex-M3 TFLM's M3 anchor ran on.
    "kws_ref_model",
    "person_detect",
    "pretrainedResnet_quant",
    "micro_speech_lstm",
    "dtln_noise_suppression",
];
/// The float32 models (feature `float32`), by board.
const LM3S6965_F32: &[&str] = &[
    "hello_world_float",
    "trained_lstm",
    "audio_preprocessor_float",
];
const MPS2_AN385_F32: &[&str] = &["ad01_fp32", "pretrainedResnet"];

const MEMORY_LM3S6965: &str =
    "/* TI Stellaris LM3S6965 (QEMU lm3s6965evb): 256 KB flash, 64 KB SRAM. */
MEMORY
{
  FLASH : ORIGIN = 0x00000000, LENGTH = 256K
  RAM   : ORIGIN = 0x20000000, LENGTH = 64K
}
";
const MEMORY_MPS2_AN385: &str =
    "/* Arm MPS2 AN385 (QEMU mps2-an385, Cortex-M3): 4 MB SSRAM1 at 0 holds the code and the
   models (our \"flash\"), 4 MB SSRAM2/3 at 0x20000000 the data. */
MEMORY
{
  FLASH : ORIGIN = 0x00000000, LENGTH = 4M
  RAM   : ORIGIN = 0x20000000, LENGTH = 4M
}
";

const MEMORY_MPS2_AN505: &str =
    "/* Arm MPS2+ AN505 (QEMU mps2-an505, Cortex-M33, booted in Secure state): 4 MB SSRAM1 at its
   Secure alias 0x10000000 holds the code and the models (the vector table first: QEMU's
   INITSVTOR), 4 MB SSRAM2+3 at their Secure alias 0x38000000 the data. */
MEMORY
{
  FLASH : ORIGIN = 0x10000000, LENGTH = 4M
  RAM   : ORIGIN = 0x38000000, LENGTH = 4M
}
";

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=SYNAPTIC_MODELS");
    println!("cargo:rerun-if-env-changed=SYNAPTIC_SEED");
    println!("cargo:rerun-if-env-changed=SYNAPTIC_REPEAT");
    let feature = |f: &str| env::var_os(format!("CARGO_FEATURE_{f}")).is_some();
    let boards = [
        "LM3S6965",
        "MPS2_AN385",
        "MPS2_AN386",
        "MPS2_AN500",
        "MPS2_AN505",
    ]
    .iter()
    .filter(|b| feature(b))
    .count();
    if boards > 1 {
        panic!("choose one board: `--no-default-features --features mps2-an385` (or mps2-an386, mps2-an500, mps2-an505)");
    }
    // mps2-an386 (Cortex-M4F) and mps2-an500 (Cortex-M7) have mps2-an385's memory map.
    let mps2 = feature("MPS2");
    let float = feature("FLOAT32");
    let memory_x = if feature("MPS2_AN505") {
        MEMORY_MPS2_AN505
    } else if mps2 {
        MEMORY_MPS2_AN385
    } else {
        MEMORY_LM3S6965
    };
    let mut models: Vec<&str> = Vec::new();
    if feature("SMALL_MODELS") {
        models.extend(if float { LM3S6965_F32 } else { LM3S6965 });
    }
    if feature("LARGE_MODELS") {
        models.extend(if float { MPS2_AN385_F32 } else { MPS2_AN385 });
    }
    fs::write(out.join("memory.x"), memory_x).expect("write memory.x");
    println!("cargo:rustc-link-search={}", out.display());

    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("manifest dir"));
    let dir = match env::var_os("SYNAPTIC_MODELS") {
        Some(d) => PathBuf::from(d),
        None => manifest.join("../../../shared/models"),
    };
    let seed: u64 = env::var("SYNAPTIC_SEED")
        .ok()
        .map(|s| {
            s.parse()
                .expect("SYNAPTIC_SEED must be an unsigned integer")
        })
        .unwrap_or(1);

    let mut src = String::new();
    let _ = writeln!(
        src,
        "// Generated by build.rs from the models in {} (seed {seed}).\n",
        dir.display()
    );
    let _ = writeln!(src, "/// Input seed (`synmem run --random SEED`).");
    let _ = writeln!(src, "pub const SEED: u64 = {seed};");
    let repeat: u32 = env::var("SYNAPTIC_REPEAT")
        .ok()
        .map(|s| {
            s.parse()
                .expect("SYNAPTIC_REPEAT must be an unsigned integer")
        })
        .unwrap_or(0);
    let _ = writeln!(
        src,
        "/// Inferences the image repeats for the `jitter` line (`SYNAPTIC_REPEAT`; 0: none)."
    );
    let _ = writeln!(src, "pub const REPEAT: u32 = {repeat};");
    for name in &models {
        src.push_str(&model_module(&dir, name, seed, &out));
    }
    fs::write(out.join("models.rs"), src).expect("write models.rs");
}

/// The input `synmem run --random seed` makes (`synaptic_run::seeded`).
fn random_input(model: &[u8], seed: u64, n: usize) -> Vec<u8> {
    let mut input = vec![0u8; n];
    synaptic_run::seeded::seeded_input(model, seed, &mut input).expect("seeded input");
    input
}

/// FNV-1a, 32 bits (the firmware's output checksum).
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |h, &b| {
        (h ^ b as u32).wrapping_mul(0x0100_0193)
    })
}

/// One placement, planned and run on the host.
struct Hosted {
    /// The compiled program (per-operator data) of this placement.
    program: Vec<u32>,
    /// The memory with the program compiled at load into the arena (`Interpreter::new`).
    memory_ram: Memory,
    slots: Vec<synaptic_mem::PlanSlot>,
    /// The plan's declared overlaps (empty for the plain plan).
    overlaps: Vec<OverlapPair>,
    region: u32,
    ephemeral_tensors: Vec<usize>,
    memory: Memory,
    scratch_peak: usize,
    output: Vec<u8>,
    /// The outputs of [`STREAM`] invocations on the input after a state reset, concatenated.
    stream: Vec<u8>,
    input_len: usize,
}

fn host_run(path: &str, bytes: &[u8], io: IoPlacement, seed: u64, overlap: bool) -> Hosted {
    let model = Model::from_bytes(bytes).unwrap_or_else(|e| panic!("{path}: {e}"));
    let a = Analysis::new(
        model,
        &SizingOptions {
            io,
            overlap,
            ..SizingOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{path}: planning failed: {e}"));
    let core_plan = a.ephemeral_plan.core_plan();
    let plan = RunPlan::overlapped(core_plan, &a.ephemeral_plan.overlaps);
    let run_io = match io {
        IoPlacement::Shared => RunIo::Shared,
        _ => RunIo::Plan,
    };
    // The program for the firmware's kernels (the target's ISA, not the host's).
    // The image's own ISA: its target and rustc flags (`target-cpu=cortex-m33`: the DSP
    // extension), by synaptic-run's rule for its own build.
    let isa = Isa::of_build(
        &std::env::var("TARGET").unwrap_or_default(),
        &std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default(),
    );
    let n = program::compiled_len_for(bytes, run_io, isa).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut words = vec![0u32; n];
    program::compile_for(bytes, run_io, isa, &mut words).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut buf = Box::new(ArenaBuffer::<{ synaptic_mem::MAX_ARENA_SIZE }>::new());
    let mut shared = vec![0u8; 1 << 20];
    // The RAM-program variant: its figures and its output.
    let (memory_ram, output_ram) = {
        let mut arena = Arena::exact(buf.as_mut_slice(), POOL).expect("arena");
        arena.set_shared_region(&mut shared).expect("shared region");
        let (loader, mut runner) = arena.split();
        let mut net = Interpreter::new(bytes, loader, plan, run_io)
            .unwrap_or_else(|e| panic!("{path}: load failed: {e}"));
        let input = random_input(bytes, seed, net.input_bytes());
        let mut output = vec![0u8; net.output_bytes()];
        net.invoke(&mut runner, &input, &mut output)
            .unwrap_or_else(|e| panic!("{path}: host inference failed: {e}"));
        // The device compiles its RAM program for its own ISA: the host's figure with the
        // device program's words in place of the host's.
        let mut m = net.memory();
        let tables = synaptic_mem::block_span(4 * n as u64) as usize;
        m.persistent = m.persistent - m.tables + tables;
        m.program_bytes = 4 * n;
        m.tables = tables;
        (m, output)
    };
    let mut arena = Arena::exact(buf.as_mut_slice(), POOL).expect("arena");
    arena.set_shared_region(&mut shared).expect("shared region");
    let (loader, mut runner) = arena.split();
    let mut net = Interpreter::with_program(bytes, &words, loader, plan, run_io)
        .unwrap_or_else(|e| panic!("{path}: load failed: {e}"));
    let input = random_input(bytes, seed, net.input_bytes());
    let mut output = vec![0u8; net.output_bytes()];
    net.invoke(&mut runner, &input, &mut output)
        .unwrap_or_else(|e| panic!("{path}: host inference failed: {e}"));
    assert_eq!(
        output, output_ram,
        "{path}: program in flash and in RAM disagree"
    );
    net.reset_state();
    let mut stream = vec![0u8; STREAM * output.len()];
    for y in stream.chunks_exact_mut(output.len().max(1)) {
        net.invoke(&mut runner, &input, y)
            .unwrap_or_else(|e| panic!("{path}: host inference failed: {e}"));
    }
    assert_eq!(&stream[..output.len()], &output[..], "{path}: reset_state");
    let memory = net.memory();
    Hosted {
        program: words,
        memory_ram,
        slots: core_plan.slots.to_vec(),
        overlaps: a.ephemeral_plan.overlaps.clone(),
        region: core_plan.region_size,
        ephemeral_tensors: a.ephemeral_tensors.clone(),
        memory,
        scratch_peak: runner.stats().scratch_peak,
        output,
        stream,
        input_len: input.len(),
    }
}

/// The arena for `m`, sized exactly (`Arena::exact`, no Kconfig floors).
fn accepted_arena(m: &Memory) -> usize {
    m.arena_bytes()
}

/// The core allocation of an activation, as the interpreter makes it (the program's slot
/// table rule, `synaptic_run::program::core_request_of`), with the core's dtype by name.
fn core_request(shape: &[i32], ty: TensorType) -> ([u32; 4], usize, String) {
    let dims: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
    let (out, n, dtype) = synaptic_run::program::core_request_of(&dims, ty)
        .unwrap_or_else(|| panic!("activation type {ty:?} or shape {shape:?}"));
    (out, n, format!("{dtype:?}"))
}

fn overlaps_src(pairs: &[OverlapPair]) -> String {
    let mut s = String::new();
    for q in pairs {
        let _ = writeln!(
            s,
            "        OverlapPair {{ op: {}, input: {}, output: {}, direction: OverlapDirection::{:?}, bound: {} }},",
            q.op, q.input, q.output, q.direction, q.bound
        );
    }
    s
}

fn slots_src(slots: &[synaptic_mem::PlanSlot]) -> String {
    let mut s = String::new();
    for p in slots {
        let _ = writeln!(
            s,
            "        PlanSlot {{ offset: {}, size: {}, first_op: {}, last_op: {} }},",
            p.offset, p.size, p.first_op, p.last_op
        );
    }
    s
}

fn model_module(dir: &std::path::Path, name: &str, seed: u64, out: &std::path::Path) -> String {
    let file = dir.join(format!("{name}.tflite"));
    let path = file.display().to_string();
    println!("cargo:rerun-if-changed={path}");
    let bytes = fs::read(&file).unwrap_or_else(|e| {
        panic!(
            "\n\nmodel `{name}` not found: cannot read {path}: {e}\n\
             The runtime images embed the shared models at build time; put them in \
             ../shared/models beside the repository or set SYNAPTIC_MODELS=<dir>.\n\n"
        )
    });
    let file = file.canonicalize().expect("canonical model path");
    let plan = host_run(&path, &bytes, IoPlacement::Ephemeral, seed, true);
    let shared = host_run(&path, &bytes, IoPlacement::Shared, seed, true);
    let plain = host_run(&path, &bytes, IoPlacement::Ephemeral, seed, false);
    assert_eq!(
        plan.output, shared.output,
        "{name}: the two I/O placements disagree on the host"
    );
    assert_eq!(
        plan.output, plain.output,
        "{name}: the overlapped and the plain plan disagree on the host"
    );
    assert_eq!(
        plan.stream, shared.stream,
        "{name}: streams disagree on the host"
    );
    assert!(plain.overlaps.is_empty());
    // The pool's peak is the largest kernel block, the figure the RAM counts.
    for h in [&plan, &shared, &plain] {
        assert_eq!(h.scratch_peak, h.memory.scratch, "{name}: scratch");
    }

    let input = random_input(&bytes, seed, plan.input_len);
    let input_file = out.join(format!("{name}.input"));
    fs::write(&input_file, &input).expect("write input");

    // The arena call sequence of one inference with I/O in the plan (the interpreter's order):
    // every planned tensor placed; the inputs' views at operator 0; per operator the views of
    // its distinct planned tensors (output first); the outputs' views at the last operator.
    let m = synaptic_tflite::Model::new(&bytes).expect("model");
    let sg = m.subgraph(0).expect("subgraph");
    let n_tensors = sg.tensors_len().expect("tensors");
    let mut slot_of = vec![None; n_tensors];
    for (k, &t) in plan.ephemeral_tensors.iter().enumerate() {
        slot_of[t] = Some(k);
    }
    let mut allocs = String::new();
    for (t, s) in slot_of.iter().enumerate() {
        if let Some(s) = s {
            let tt = sg.tensor(t).expect("tensor");
            let shape: Vec<i32> = tt.shape().expect("shape").iter().collect();
            let (dims, n, dtype) = core_request(&shape, tt.tensor_type().expect("type"));
            let _ = writeln!(
                allocs,
                "        Alloc {{ slot: {s}, shape: {dims:?}, ndim: {n}, dtype: DType::{dtype} }},"
            );
        }
    }
    let n_ops = sg.operators_len().expect("operators");
    let mut views = String::new();
    let mut view = |op: usize, slots: &[usize]| {
        let mut arr = [0u16; 17];
        for (i, &s) in slots.iter().enumerate() {
            arr[i] = s as u16;
        }
        let _ = writeln!(
            views,
            "        View {{ op: {op}, n: {}, slots: {arr:?} }},",
            slots.len()
        );
    };
    let ins: Vec<i32> = sg.inputs().expect("inputs").iter().collect();
    let outs: Vec<i32> = sg.outputs().expect("outputs").iter().collect();
    for &t in &ins {
        if let Some(s) = slot_of[t as usize] {
            view(0, &[s]);
        }
    }
    for i in 0..n_ops {
        let op = sg.operator(i).expect("operator");
        let mut slots = Vec::new();
        for t in op.outputs().expect("outputs").iter() {
            if let Some(s) = slot_of[t as usize] {
                slots.push(s);
            }
        }
        for t in op.inputs().expect("inputs").iter() {
            if t >= 0 {
                if let Some(s) = slot_of[t as usize] {
                    if !slots.contains(&s) {
                        slots.push(s);
                    }
                }
            }
        }
        if !slots.is_empty() {
            view(i, &slots);
        }
    }
    for &t in &outs {
        if let Some(s) = slot_of[t as usize] {
            view(n_ops.saturating_sub(1), &[s]);
        }
    }

    let pm = plan.memory;
    let sm = shared.memory;
    let shared_region = sm.shared.max(synaptic_mem::config::MIN_SHARED_SIZE);
    let pr = plan.memory_ram;
    let qm = plain.memory;
    let buf = accepted_arena(&pm)
        .max(accepted_arena(&sm))
        .max(accepted_arena(&pr))
        .max(accepted_arena(&qm));
    let fnv = fnv1a(&plan.output);
    format!(
        "
/// `{name}`: model, plans, input and expected output.
pub mod {name} {{
    use super::{{Alloc, Aligned, View}};
    #[allow(unused_imports)]
    use synaptic_mem::plan::{{OverlapDirection, OverlapPair, Plan, PlanSlot}};
    #[allow(unused_imports)]
    use synaptic_mem::DType;

    /// The model name.
    pub const NAME: &str = \"{name}\";
    /// The kernels this model's programs run and their paths: all the image links
    /// (`synaptic_run::program::kinds`, `synaptic_run::program::paths`).
    pub struct Ops;
    impl synaptic_run::ops::OpSet for Ops {{
        const KINDS: synaptic_run::ops::Kinds = synaptic_run::ops::{kinds};
        const PATHS: u64 = {paths:#x};
    }}
    /// The model bytes (flash), 16-byte aligned.
    pub static MODEL: &Aligned<[u8; {model_len}]> = &Aligned(*include_bytes!({model_path:?}));
    /// Slots of the plan with graph I/O inside it.
    pub const PLAN_SLOTS: [PlanSlot; {n_plan}] = [
{plan_slots}    ];
    /// The plan with graph I/O inside it (overlapped).
    pub const PLAN: Plan<'static> = Plan {{ region_size: {plan_region}, slots: &PLAN_SLOTS }};
    /// The declared overlaps of [`PLAN`].
    pub const PLAN_OVERLAPS: [OverlapPair; {n_plan_ov}] = [
{plan_ov}    ];
    /// Slots of the plan with graph I/O in the SHARED region.
    pub const SHARED_PLAN_SLOTS: [PlanSlot; {n_shared}] = [
{shared_slots}    ];
    /// The plan with graph I/O in the SHARED region.
    pub const SHARED_PLAN: Plan<'static> = Plan {{ region_size: {shared_region_plan}, slots: &SHARED_PLAN_SLOTS }};
    /// The declared overlaps of [`SHARED_PLAN`].
    pub const SHARED_PLAN_OVERLAPS: [OverlapPair; {n_shared_ov}] = [
{shared_ov}    ];
    /// Slots of the plain plan (`--no-overlap`) with graph I/O inside it.
    pub const PLAIN_PLAN_SLOTS: [PlanSlot; {n_plain}] = [
{plain_slots}    ];
    /// The plain plan with graph I/O inside it (before issue 12).
    pub const PLAIN_PLAN: Plan<'static> = Plan {{ region_size: {plain_region}, slots: &PLAIN_PLAN_SLOTS }};
    /// Exact RAM with the plain plan (I/O in it, program in flash).
    pub const EXACT_PLAIN: usize = {exact_plain};
    /// The arena for that.
    pub const ARENA_PLAIN: usize = {arena_plain};
    /// The compiled program with I/O in the plan (flash; `Interpreter::with_program`).
    pub static PROGRAM: [u32; {n_prog}] = {prog:?};
    /// The compiled program with I/O in the SHARED region (flash).
    pub static SHARED_PROGRAM: [u32; {n_sprog}] = {sprog:?};
    /// Exact RAM with I/O in the plan and the program compiled at load into the arena
    /// (`Interpreter::new`).
    pub const EXACT_PLAN_RAM_PROGRAM: usize = {exact_plan_ram};
    /// The arena for that.
    pub const ARENA_PLAN_RAM_PROGRAM: usize = {arena_plan_ram};
    /// The input (`synmem run --random SEED`), in flash.
    pub static INPUT: &[u8; {input_len}] = include_bytes!({input_path:?});
    /// The output the host computed (`synaptic-run` on the build machine).
    pub const EXPECTED: [u8; {output_len}] = {expected:?};
    /// The outputs the host computed for {stream_n} consecutive invocations on [`INPUT`]
    /// after a state reset, the state carried (a model without state: [`EXPECTED`] each time).
    pub const STREAM: [u8; {stream_len}] = {stream:?};
    /// FNV-1a of [`EXPECTED`].
    pub const EXPECTED_FNV: u32 = {fnv:#010x};
    /// The scratch pool the kernels need: the largest block one operator takes per call.
    pub const SCRATCH: usize = {scratch};
    /// Exact RAM with I/O in the plan (program in flash): persistent + planned + scratch
    /// + shared (0).
    pub const EXACT_PLAN: usize = {exact_plan};
    /// Exact RAM with I/O in the SHARED region: persistent + planned + scratch + shared.
    pub const EXACT_SHARED: usize = {exact_shared};
    /// The arena the core accepts with I/O in the plan (Kconfig floors: arena >= 4096,
    /// scratch pool >= 1024).
    pub const ARENA_PLAN: usize = {arena_plan};
    /// The arena the core accepts with I/O in the SHARED region.
    pub const ARENA_SHARED: usize = {arena_shared};
    /// The shared region registered for I/O in the SHARED region (at least the core's floor).
    pub const SHARED_REGION: usize = {shared_region};
    /// The static arena buffer: the larger accepted arena.
    pub const ARENA_BUFFER: usize = {buf};
    /// The arena's calls of one inference with I/O in the plan: placements.
    pub const ALLOCS: &[Alloc] = &[
{allocs}    ];
    /// The arena's calls of one inference with I/O in the plan: per-operator views.
    pub const VIEWS: &[View] = &[
{views}    ];
}}
",
        model_len = bytes.len(),
        model_path = file.display().to_string(),
        n_plan = plan.slots.len(),
        plan_slots = slots_src(&plan.slots),
        plan_region = plan.region,
        n_shared = shared.slots.len(),
        shared_slots = slots_src(&shared.slots),
        shared_region_plan = shared.region,
        n_plan_ov = plan.overlaps.len(),
        plan_ov = overlaps_src(&plan.overlaps),
        n_shared_ov = shared.overlaps.len(),
        shared_ov = overlaps_src(&shared.overlaps),
        n_plain = plain.slots.len(),
        plain_slots = slots_src(&plain.slots),
        plain_region = plain.region,
        exact_plain = qm.total(),
        arena_plain = accepted_arena(&qm),
        input_len = input.len(),
        input_path = input_file.display().to_string(),
        output_len = plan.output.len(),
        expected = plan.output,
        stream_n = STREAM,
        stream_len = plan.stream.len(),
        stream = plan.stream,
        exact_plan = pm.total(),
        scratch = pm.scratch,
        kinds = program::kinds(&plan.program).expect("a program build.rs compiled")
            | program::kinds(&shared.program).expect("a program build.rs compiled"),
        paths = program::paths(&plan.program).expect("a program build.rs compiled")
            | program::paths(&shared.program).expect("a program build.rs compiled"),
        n_prog = plan.program.len(),
        prog = plan.program,
        n_sprog = shared.program.len(),
        sprog = shared.program,
        exact_plan_ram = pr.total(),
        arena_plan_ram = accepted_arena(&pr),
        exact_shared = sm.total(),
        arena_plan = accepted_arena(&pm),
        arena_shared = accepted_arena(&sm),
    )
}
