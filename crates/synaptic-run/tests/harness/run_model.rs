//! The hostile-model harness (issue 18), shared by the fuzz target `run_model`
//! (`fuzz/fuzz_targets/run_model.rs`) and the seeded test `tests/run_model_seeded.rs` (x86_64
//! and i686, in the test command).
//!
//! [`run_model`] takes any bytes and checks what a device that loads models over the air
//! needs: a model the runtime refuses is a [`LoadError`], never a panic; a model it loads runs
//! in the [`Config`] given — graph I/O in the SHARED region or in the plan, the overlapped or
//! the plain plan of `synaptic-plan`, the program compiled at load or given (as from flash) —
//! on an arena of exactly the size the load reports, filled with seeded junk first; it is
//! invoked twice on one load and once more on a second load over other junk, every inference
//! must succeed (the load validated everything an operator needs) and the three outputs must be
//! identical: an output that depends on what the arena held before is a read of memory nothing
//! wrote. A streaming model (variable tensors: SVDF, LSTM) carries its state into the second
//! inference, so there the second inferences of both loads must be equal, and a
//! `reset_state` must give the first inference again. No kernel may panic, whatever the bytes.
//!
//! [`mutate`] makes hostile models from real ones the way an attacker edits a file: one
//! field of the flatbuffer overwritten in place ([`synaptic_tflite::fields`]: shapes, types,
//! buffers, quantization, operator inputs and outputs, options, vector lengths) with a value
//! chosen to break an assumption (0, ±1, a power of two ± 1, the type's bounds, NaN, a
//! neighbour of the current value); half the edits of an operator input rewire it to another
//! tensor of the model (a variable tensor, a kernel's state) or make it absent, half those of
//! an `is_variable` flag flip it.

#![allow(dead_code)]

use synaptic_mem::config::MIN_SHARED_SIZE;
use synaptic_mem::{Arena, ArenaBuffer, Loader, MIN_SCRATCH_SIZE};
use synaptic_plan::SizingOptions;
use synaptic_plan::{Analysis, IoPlacement as PlanIo, Model as PlanModel, PlanOptions};
use synaptic_run::{
    program, Interpreter, IoPlacement, KernelError, LoadError, RunError, RunPlan, ShapeFault,
    Unsupported,
};
use synaptic_tflite::fields::{for_each_field, Field, Kind};

/// Largest arena the harness gives a model (bigger models are refused by the arena: an
/// allocation error, a clean refusal).
pub const MAX_ARENA: usize = 512 * 1024;

/// One way a user runs a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// Where graph I/O lives.
    pub placement: IoPlacement,
    /// The overlapped plan (`true`, `synmem`'s default) or the plain one.
    pub overlap: bool,
    /// The program compiled beforehand and given (`Interpreter::with_program`, as from flash)
    /// or compiled at load (`Interpreter::new`).
    pub flash: bool,
}

/// All eight configurations.
pub const CONFIGS: [Config; 8] = {
    let mut c = [Config {
        placement: IoPlacement::Shared,
        overlap: false,
        flash: false,
    }; 8];
    let mut i = 0;
    while i < 8 {
        c[i] = Config {
            placement: if i & 1 == 0 {
                IoPlacement::Shared
            } else {
                IoPlacement::Plan
            },
            overlap: i & 2 != 0,
            flash: i & 4 != 0,
        };
        i += 1;
    }
    c
};

/// FNV-1a of `data`: the seed of a case's configuration, junk and inputs.
pub fn hash(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The configuration a fuzz input runs in (one per input, from its hash: a crash reproduces).
pub fn config_of(data: &[u8]) -> Config {
    CONFIGS[(hash(data) % 8) as usize]
}

/// SplitMix64.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value below `n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// What became of one case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Not a model the reader or the runtime accepts (a clean error).
    Refused,
    /// The runtime accepts it but the planner does not: nothing to run.
    NoPlan,
    /// The arena could not hold it (a clean error).
    TooLarge,
    /// Loaded and ran three times, successfully, with identical outputs.
    Ran,
    /// Loaded; every inference stopped with the same typed error, an input outside its
    /// operator's domain known only at invoke: an integer DIV by a divisor that is an
    /// activation and zero (TFLM's kernel traps), an int8 RSQRT of a value below its zero
    /// point (TFLM's fails), an index that is an activation outside its axis (GATHER,
    /// GATHER_ND, EMBEDDING_LOOKUP: TFLM's fail), shapes that are activations and do not
    /// broadcast (BROADCAST_ARGS: TFLM's aborts).
    OutOfDomain,
}

/// The runtime's placement as the planner names it.
fn plan_io(p: IoPlacement) -> PlanIo {
    match p {
        IoPlacement::Shared => PlanIo::Shared,
        IoPlacement::Plan => PlanIo::Ephemeral,
    }
}

/// Loads `bytes` in `config` (its program given when `config.flash`).
fn load<'m, 'a, 'p>(
    bytes: &'m [u8],
    program: &'m [u32],
    loader: Loader<'a>,
    plan: RunPlan<'p>,
    config: Config,
) -> Result<Interpreter<'m, 'a, 'p>, LoadError> {
    if config.flash {
        Interpreter::with_program(bytes, program, loader, plan, config.placement)
    } else {
        Interpreter::new(bytes, loader, plan, config.placement)
    }
}

/// One inference's result: the output bytes or the error.
type Result1 = Result<Vec<u8>, RunError>;

/// Runs `data` in `config` and checks it (see the module docs); panics on a violated
/// property, which is the fuzzer's crash.
pub fn run_model(data: &[u8], config: Config) -> Outcome {
    let placement = config.placement;
    // The runtime's own validation first (what a device does with bytes off the air).
    let Ok(words) = program::compiled_len(data, placement) else {
        return Outcome::Refused;
    };
    // The program as from flash, when the configuration gives one.
    let mut program = vec![0u32; if config.flash { words } else { 0 }];
    if config.flash {
        program::compile(data, placement, &mut program).expect("compiled_len accepted it");
    }
    // Then the host's plan (small search budgets: many cases, not optimal plans).
    let Ok(model) = PlanModel::from_bytes(data) else {
        return Outcome::NoPlan;
    };
    let options = SizingOptions {
        io: plan_io(placement),
        overlap: config.overlap,
        plan: PlanOptions::small_budget(),
        ..SizingOptions::default()
    };
    let Ok(analysis) = Analysis::new(model, &options) else {
        return Outcome::NoPlan;
    };
    let plan = RunPlan::overlapped(
        analysis.ephemeral_plan.core_plan(),
        &analysis.ephemeral_plan.overlaps,
    );
    // The buffers are the thread's, made once: the fuzzer runs many cases a second.
    BUFFERS.with(|b| {
        let (buf, shared) = &mut *b.borrow_mut();
        cases(
            data,
            config,
            &program,
            plan,
            buf.as_mut_slice(),
            shared.as_mut_slice(),
        )
    })
}

thread_local! {
    /// The arena and shared-region buffers of [`run_model`].
    static BUFFERS: core::cell::RefCell<(Box<ArenaBuffer<MAX_ARENA>>, Box<ArenaBuffer<MAX_SHARED>>)> =
        core::cell::RefCell::new((Box::new(ArenaBuffer::new()), Box::new(ArenaBuffer::new())));
}

/// Largest shared region the harness gives a model.
pub const MAX_SHARED: usize = 64 * 1024;

/// [`run_model`]'s loads and inferences on the thread's buffers.
fn cases(
    data: &[u8],
    config: Config,
    program: &[u32],
    plan: RunPlan<'_>,
    buf: &mut [u8],
    shared: &mut [u8],
) -> Outcome {
    // The figures, from a load on the largest arena.
    let (memory, input_bytes, stateful) = {
        let Ok(mut arena) = Arena::with_scratch(&mut *buf, MIN_SCRATCH_SIZE) else {
            unreachable!("the harness's arena is valid")
        };
        arena
            .set_shared_region(&mut *shared)
            .expect("the harness's shared region is valid");
        let (loader, _) = arena.split();
        match load(data, program, loader, plan, config) {
            Ok(net) => (net.memory(), net.input_bytes(), net.states() > 0),
            // Too large for the harness's arena: its persistent data, activations or kernel
            // scratch. The loader sizes them all before it allocates and says how short the
            // arena is (`tests/hostile/io_37mb_no_operator.tflite`: 37 MB of graph I/O).
            Err(LoadError::Alloc(_) | LoadError::PlanLoad(_) | LoadError::ArenaTooSmall { .. }) => {
                return Outcome::TooLarge
            }
            Err(e) => panic!("the compiled model failed to load with its own plan: {e}"),
        }
    };
    let size = memory.arena_bytes();
    let shared_size = memory.shared.max(MIN_SHARED_SIZE);
    let seed = hash(data);
    let mut rng = Rng(seed);
    // Loads on the exact arena over junk of `junk_seed`, runs `runs` inferences on `input`.
    let mut session = |junk_seed: u64, input: &[u8], runs: usize, reset: bool| -> Vec<Result1> {
        let mut junk = Rng(junk_seed);
        for b in buf[..size].iter_mut().chain(&mut shared[..shared_size]) {
            *b = junk.next() as u8;
        }
        let mut arena = Arena::exact(&mut buf[..size], memory.scratch)
            .unwrap_or_else(|e| panic!("the exact arena of {size} B: {e}"));
        arena
            .set_shared_region(&mut shared[..shared_size])
            .expect("the shared region the load reported");
        let (loader, mut runner) = arena.split();
        let mut net = load(data, program, loader, plan, config)
            .unwrap_or_else(|e| panic!("load on the exactly sized arena ({size} B): {e}"));
        assert_eq!(net.memory(), memory, "figures differ between arenas");
        let mut invoke = || {
            let mut out = vec![0u8; net.output_bytes()];
            net.invoke(&mut runner, input, &mut out).map(|()| out)
        };
        let mut outs: Vec<Result1> = (0..runs).map(|_| invoke()).collect();
        // A streaming model: its state carried into a second inference, then reset, which
        // must give the first inference again.
        if reset {
            net.reset_state();
            let mut out = vec![0u8; net.output_bytes()];
            outs.push(net.invoke(&mut runner, input, &mut out).map(|()| out));
        }
        outs
    };
    let input = rng.bytes(input_bytes);
    let first = session(rng.next(), &input, 2, stateful);
    let second = session(rng.next(), &input, if stateful { 2 } else { 1 }, false);
    if stateful {
        assert_eq!(
            first[0], first[2],
            "reset_state did not give the first inference again: state not reset, or an \
             output depends on what the arena held"
        );
        assert_eq!(
            first[1], second[1],
            "a second inference over different arena junk differs: the state reads bytes \
             nothing wrote"
        );
    } else {
        assert_eq!(
            first[0], first[1],
            "two inferences on one load differ: an output depends on what the arena held"
        );
    }
    assert_eq!(
        first[0], second[0],
        "inferences over different arena junk differ: an output reads bytes nothing wrote"
    );
    match &first[0] {
        Err(RunError::Kernel {
            error:
                KernelError::Unsupported {
                    reason:
                        Unsupported::DivisionByZero
                        | Unsupported::NegativeInput
                        | Unsupported::IndexOutOfRange
                        | Unsupported::InvalidBoxes,
                    ..
                }
                | KernelError::Shape {
                    op: "BROADCAST_ARGS",
                    reason: ShapeFault::NotBroadcastable,
                },
            ..
        }) => Outcome::OutOfDomain,
        // A CIRCULAR_BUFFER not due stopped it, as TFLM's would: it ran.
        Ok(_) | Err(RunError::Aborted { .. }) => Outcome::Ran,
        Err(e) => panic!("a model that loaded failed to run: {e}"),
    }
}

/// Every field of `data` that [`mutate`] may edit (none if it is not a model).
pub fn fields(data: &[u8]) -> Vec<Field> {
    let mut v = Vec::new();
    if let Ok(m) = synaptic_tflite::Model::new(data) {
        let _ = for_each_field(&m, |f| v.push(f));
    }
    v
}

/// Overwrites one field of the model `data` in place with a hostile value (see the module
/// docs); `false` if `data` is not a model with fields.
pub fn mutate(data: &mut [u8], rng: &mut Rng) -> bool {
    // One mutant in four edits bytes no field names: a small constant's element (the shapes,
    // begins, ends and strides kernels read at load) or a custom operator's options.
    if rng.below(4) == 0 && mutate_bytes(data, rng) {
        return true;
    }
    let fields = fields(data);
    if fields.is_empty() {
        return false;
    }
    let f = fields[rng.below(fields.len() as u64) as usize];
    let current = f.read(data).unwrap_or(0);
    // Half the edits of an operator's input rewire it to a tensor of the model (a variable
    // tensor, another kernel's state, a constant, ...) or make it absent; half those of an
    // `is_variable` flag flip it.
    if f.what == "operator.inputs" && rng.below(2) == 0 {
        let n = synaptic_tflite::Model::new(data)
            .and_then(|m| m.subgraph(0)?.tensors_len())
            .unwrap_or(0) as u64;
        f.write(data, rng.below(n + 1) as i64 - 1);
        return true;
    }
    if f.what == "tensor.is_variable" && rng.below(2) == 0 {
        f.write(data, i64::from(current == 0));
        return true;
    }
    match f.kind {
        Kind::Float => {
            const FLOATS: [f32; 14] = [
                0.0,
                -0.0,
                -1.0,
                1.0,
                0.5,
                1.0 / 256.0,
                1e-30,
                1e30,
                f32::MIN_POSITIVE,
                1e-45,
                f32::MAX,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
            ];
            let old = f32::from_bits(current as u32);
            let v = match rng.below(4) {
                0 => old * 2.0,
                1 => old / 2.0,
                _ => FLOATS[rng.below(FLOATS.len() as u64) as usize],
            };
            f.write_f32(data, v);
        }
        Kind::Len => {
            // Only a shorter vector stays inside the buffer.
            let len = current.max(0);
            let v = match rng.below(3) {
                0 => 0,
                1 => len / 2,
                _ => len - 1,
            };
            f.write(data, v.max(0));
        }
        kind => {
            let (lo, hi) = match kind {
                Kind::Byte => (i64::from(i8::MIN), i64::from(i8::MAX)),
                Kind::Int => (i64::from(i32::MIN), i64::from(i32::MAX)),
                _ => (i64::MIN, i64::MAX),
            };
            const VALUES: [i64; 20] = [
                0,
                1,
                -1,
                2,
                3,
                4,
                6,
                9,
                16,
                127,
                128,
                -128,
                -129,
                255,
                256,
                65_535,
                65_536,
                (1 << 26) + 1,
                (1 << 30) + 1,
                (1 << 32) + 5,
            ];
            let v = match rng.below(8) {
                0 => current.wrapping_add(1),
                1 => current.wrapping_sub(1),
                2 => lo,
                3 => hi,
                4 => rng.next() as i64 >> rng.below(64),
                _ => VALUES[rng.below(VALUES.len() as u64) as usize],
            };
            f.write(data, v);
        }
    }
    true
}

/// Hostile int32 values for a constant's element or an option's count: the bounds, the
/// powers of two where a count times 4 or 8 wraps 32 bits, and their neighbours.
const HOSTILE_I32: [i32; 12] = [
    i32::MIN,
    i32::MIN + 1,
    i32::MAX,
    -1,
    0,
    1 << 29,
    1 << 30,
    (1 << 30) + 1,
    i32::MAX - 7,
    -(1 << 30),
    65_536,
    -65_536,
];

/// Overwrites bytes of `data` that no [`Field`] names: an element of a constant tensor of at
/// most 64 bytes (an int32 constant gets a [`HOSTILE_I32`] value at an element boundary, any
/// other a random byte), or a byte of a custom operator's options (FlexBuffers: a count, a
/// width, a type). `false` if the model has neither.
pub fn mutate_bytes(data: &mut [u8], rng: &mut Rng) -> bool {
    let Ok(m) = synaptic_tflite::Model::new(data) else {
        return false;
    };
    let base = data.as_ptr() as usize;
    // (offset in `data`, length, int32) of each candidate.
    let mut spans: Vec<(usize, usize, bool)> = Vec::new();
    if let Ok(sg) = m.subgraph(0) {
        for t in 0..sg.tensors_len().unwrap_or(0) {
            let Ok(tt) = sg.tensor(t) else { continue };
            let Ok(d) = m.tensor_data(&tt) else { continue };
            if !d.is_empty() && d.len() <= 64 {
                let int32 = tt
                    .tensor_type()
                    .is_ok_and(|ty| ty == synaptic_tflite::TensorType::Int32);
                spans.push((d.as_ptr() as usize - base, d.len(), int32));
            }
        }
        for i in 0..sg.operators_len().unwrap_or(0) {
            let Ok(op) = sg.operator(i) else { continue };
            let Ok(o) = op.custom_options() else { continue };
            if !o.is_empty() {
                spans.push((o.as_ptr() as usize - base, o.len(), false));
            }
        }
    }
    if spans.is_empty() {
        return false;
    }
    let (at, len, int32) = spans[rng.below(spans.len() as u64) as usize];
    if int32 && len >= 4 {
        let k = rng.below((len / 4) as u64) as usize;
        let v = HOSTILE_I32[rng.below(HOSTILE_I32.len() as u64) as usize];
        data[at + 4 * k..at + 4 * k + 4].copy_from_slice(&v.to_le_bytes());
    } else {
        let k = rng.below(len as u64) as usize;
        data[at + k] = rng.next() as u8;
    }
    true
}
