//! synaptic-run's [`Interpreter`] on a Cortex-M3 under QEMU: real `.tflite` models in flash,
//! their plans computed on the host at build time (`build.rs`), arenas sized for the model,
//! outputs checked against the host's, inferences counted in exact instructions.
//!
//! Each image (`src/bin/<model>.rs`) calls [`run`] with its [`Spec`] (from the generated
//! [`models`] module), which
//!
//! 1. calibrates the instruction counter ([`counter`]);
//! 2. loads the model with its compiled program in flash (`Interpreter::with_program`: no
//!    per-operator RAM) and graph I/O **inside the plan** on an arena of exactly what the core
//!    accepts for it, runs one inference from the input in flash, checks the output against the
//!    host's and prints `run <model> <instructions> <ram-bytes> <checksum>`;
//! 3. does the same with graph I/O in the **SHARED** region (`shared ...` line), and with the
//!    program compiled at load into the arena (`Interpreter::new`, I/O in the plan:
//!    `ram-program <model> <instructions> <ram-bytes> <checksum>`);
//! 4. replays the arena's own calls of one inference alone (`arena-calls ...` line);
//! 5. prints the runtime's objects outside the arena (`state ...`) and the arena sizes
//!    (`arena <model> exact <B> accepted <B>`), and exits 0 only if both outputs match.
//!
//! With the feature `deploy` an image does only what a product's does (the bench's `flash`
//! line measures it): loads with the program in flash, I/O in the plan, runs one inference,
//! checks it and prints `deploy ok`; nothing else linked, no message formatted, a panic
//! handler that prints nothing of the panic.
#![no_std]
#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]
// A `deploy` image links only `deploy`: the bench's code is left unused.
#![cfg_attr(feature = "deploy", allow(dead_code, unused_imports))]

use core::cell::UnsafeCell;
use core::hint::black_box;
use core::mem::size_of;

use core::marker::PhantomData;
use cortex_m_semihosting::{debug, hprintln};
use synaptic_mem::plan::{OverlapPair, Plan};
use synaptic_mem::{Arena, DType, Loader, PlannedInference, Runner};
use synaptic_run::ops::OpSet;
use synaptic_run::{Interpreter, IoPlacement, RunPlan};

pub mod counter;
pub mod stack;

// The panic handler: the bench images print the panic's message (semihosting) and exit 1.
#[cfg(not(feature = "deploy"))]
use panic_semihosting as _;

/// A product image's panic handler (feature `deploy`): exit 1 with a fixed line, nothing
/// formatted (a handler that prints the message links `core::fmt`).
#[cfg(feature = "deploy")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    deploy_exit(b"deploy panic\n", false)
}

/// Build-time data: one module per model of the board (`build.rs`).
#[allow(missing_docs, non_snake_case, clippy::all)]
pub mod models {
    use super::{Aligned, Alloc, View};
    include!(concat!(env!("OUT_DIR"), "/models.rs"));
}

/// A 16-byte aligned value (the model bytes in flash).
#[repr(C, align(16))]
pub struct Aligned<T: ?Sized>(pub T);

/// One placement of a planned tensor (`PlannedInference::alloc`), as the interpreter makes it.
pub struct Alloc {
    /// Plan slot.
    pub slot: u16,
    /// Shape, padded with 1s.
    pub shape: [u32; 4],
    /// Dimensions used.
    pub ndim: u8,
    /// Element type.
    pub dtype: DType,
}

/// The views of one operator (`PlannedInference::at`), as the interpreter asks for them.
pub struct View {
    /// Operator index.
    pub op: u16,
    /// Slots used.
    pub n: u8,
    /// Distinct planned tensors: the output first, then the inputs.
    pub slots: [u16; 17],
}

/// A 16-byte aligned, zero-initialised `static` byte buffer (in `.bss`) that can be borrowed
/// again after the previous borrow ended.
#[repr(C, align(16))]
pub struct StaticMem<const N: usize>(UnsafeCell<[u8; N]>);

// SAFETY: the bytes are only reachable through `StaticMem::get`, whose caller promises
// exclusive use; the images are single-threaded and never touch them from interrupts.
unsafe impl<const N: usize> Sync for StaticMem<N> {}

impl<const N: usize> StaticMem<N> {
    /// A zeroed buffer.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        StaticMem(UnsafeCell::new([0; N]))
    }

    /// The bytes.
    ///
    /// # Safety
    /// No other reference to the bytes may be alive while the returned one is used.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn get(&self) -> &mut [u8] {
        // SAFETY: exclusivity is the caller's promise.
        unsafe { &mut *self.0.get() }
    }
}

/// Everything [`run`] needs about one model (built from its [`models`] module).
pub struct Spec<O: OpSet> {
    /// The kernels the image links: the model's own ([`synaptic_run::ops::OpSet`], written
    /// by build.rs from its program), so each image carries only its operators.
    pub ops: PhantomData<fn() -> O>,
    /// Model name.
    pub name: &'static str,
    /// The model bytes (flash).
    pub model: &'static [u8],
    /// Plan with graph I/O inside it (overlapped, issue 12).
    pub plan: Plan<'static>,
    /// Its declared overlaps.
    pub plan_overlaps: &'static [OverlapPair],
    /// Plan with graph I/O in the SHARED region (overlapped).
    pub shared_plan: Plan<'static>,
    /// Its declared overlaps.
    pub shared_plan_overlaps: &'static [OverlapPair],
    /// The plain plan (no overlap) with graph I/O inside it: the figures before issue 12.
    pub plain_plan: Plan<'static>,
    /// Exact RAM with the plain plan (I/O in it, program in flash).
    pub exact_plain: usize,
    /// Arena for that.
    pub arena_plain: usize,
    /// Compiled program with graph I/O inside the plan (flash).
    pub program: &'static [u32],
    /// Compiled program with graph I/O in the SHARED region (flash).
    pub shared_program: &'static [u32],
    /// Exact RAM, I/O in the plan, program compiled at load into the arena.
    pub exact_plan_ram: usize,
    /// Arena for that.
    pub arena_plan_ram: usize,
    /// Input bytes (flash).
    pub input: &'static [u8],
    /// The host's output.
    pub expected: &'static [u8],
    /// The host's outputs of consecutive invocations after a state reset (the model's state
    /// carried), concatenated.
    pub stream: &'static [u8],
    /// Exact RAM, I/O in the plan.
    pub exact_plan: usize,
    /// Exact RAM, I/O in SHARED.
    pub exact_shared: usize,
    /// Arena the core accepts, I/O in the plan.
    pub arena_plan: usize,
    /// Arena the core accepts, I/O in SHARED.
    pub arena_shared: usize,
    /// The scratch pool the kernels need (every arena here: `Arena::exact` with this pool).
    pub scratch: usize,
    /// The arena's calls of one inference: placements.
    pub allocs: &'static [Alloc],
    /// The arena's calls of one inference: views.
    pub views: &'static [View],
}

/// The [`Spec`] of a [`models`] module.
#[macro_export]
macro_rules! spec {
    ($m:ident) => {{
        use $crate::models::$m as m;
        $crate::Spec::<m::Ops> {
            ops: core::marker::PhantomData,
            name: m::NAME,
            model: &m::MODEL.0,
            plan: m::PLAN,
            plan_overlaps: &m::PLAN_OVERLAPS,
            shared_plan: m::SHARED_PLAN,
            shared_plan_overlaps: &m::SHARED_PLAN_OVERLAPS,
            plain_plan: m::PLAIN_PLAN,
            exact_plain: m::EXACT_PLAIN,
            arena_plain: m::ARENA_PLAIN,
            program: &m::PROGRAM,
            shared_program: &m::SHARED_PROGRAM,
            exact_plan_ram: m::EXACT_PLAN_RAM_PROGRAM,
            arena_plan_ram: m::ARENA_PLAN_RAM_PROGRAM,
            input: m::INPUT,
            expected: &m::EXPECTED,
            stream: &m::STREAM,
            exact_plan: m::EXACT_PLAN,
            exact_shared: m::EXACT_SHARED,
            arena_plan: m::ARENA_PLAN,
            arena_shared: m::ARENA_SHARED,
            scratch: m::SCRATCH,
            allocs: m::ALLOCS,
            views: m::VIEWS,
        }
    }};
}

/// FNV-1a, 32 bits.
pub fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |h, &b| {
        (h ^ b as u32).wrapping_mul(0x0100_0193)
    })
}

fn fail(what: &str, e: &dyn core::fmt::Display) -> ! {
    hprintln!("error: {}: {}", what, e);
    debug::exit(debug::EXIT_FAILURE);
    #[allow(clippy::empty_loop)]
    loop {}
}

/// Most operators profiled one by one.
const MAX_PROFILED: usize = 64;

/// Largest graph output the images copy out (ad01_fp32: 640 floats).
const MAX_OUTPUT: usize = 4096;

/// Where the per-operator data (the compiled program) lives.
#[derive(Clone, Copy, PartialEq, Eq)]
enum OpData {
    /// In flash beside the model (`Interpreter::with_program`).
    Flash,
    /// Compiled at load into the arena's persistent region (`Interpreter::new`).
    Ram,
    /// In flash, with the plain plan (no overlap; the figures before issue 12).
    FlashPlain,
}

/// An exact arena of `buf` for `spec`, with the SHARED region `shared` when the I/O is there.
fn arena_for<'b, O: OpSet>(
    spec: &Spec<O>,
    buf: &'b mut [u8],
    shared: &'b mut [u8],
    placement: IoPlacement,
) -> Arena<'b> {
    let mut arena = Arena::exact(buf, spec.scratch).unwrap_or_else(|e| fail("arena", &e));
    if placement == IoPlacement::Shared {
        arena
            .set_shared_region(shared)
            .unwrap_or_else(|e| fail("shared region", &e));
    }
    arena
}

/// One load + inference: (instructions, output checksum, exact RAM, matches).
fn infer<O: OpSet>(
    c: &counter::Counter,
    spec: &Spec<O>,
    arena_buf: &mut [u8],
    shared_buf: &mut [u8],
    placement: IoPlacement,
    op_data: OpData,
) -> (u64, u32, usize, bool) {
    let overlapped = RunPlan::overlapped(spec.plan, spec.plan_overlaps);
    let shared_overlapped = RunPlan::overlapped(spec.shared_plan, spec.shared_plan_overlaps);
    let (size, plan, program) = match (placement, op_data) {
        (IoPlacement::Plan, OpData::Flash) => (spec.arena_plan, overlapped, Some(spec.program)),
        (IoPlacement::Plan, OpData::Ram) => (spec.arena_plan_ram, overlapped, None),
        (IoPlacement::Plan, OpData::FlashPlain) => (
            spec.arena_plain,
            RunPlan::from(spec.plain_plan),
            Some(spec.program),
        ),
        (IoPlacement::Shared, OpData::Flash) => (
            spec.arena_shared,
            shared_overlapped,
            Some(spec.shared_program),
        ),
        (IoPlacement::Shared, _) => (spec.arena_shared, shared_overlapped, None),
    };
    let mut out = [0u8; MAX_OUTPUT];
    // (A macro: each arena's loader has its own lifetime.)
    macro_rules! load {
        ($loader:expr) => {
            match program {
                Some(p) => {
                    Interpreter::with_program_ops::<O>(spec.model, p, $loader, plan, placement)
                }
                None => Interpreter::new_ops::<O>(spec.model, $loader, plan, placement),
            }
        };
    }
    // The stack high-water marks of the load and of one inference, in a run of their own with
    // the timer's interrupt off: what the runtime itself takes, not the counter's exception.
    let (stack_load, stack_invoke) = counter::quiet(|| {
        let mut arena = arena_for(spec, &mut arena_buf[..size], shared_buf, placement);
        let (loader, mut runner) = arena.split();
        let top = stack::paint();
        let net = load!(loader);
        let stack_load = stack::used(top);
        let mut net = net.unwrap_or_else(|e| fail("load", &e));
        let out = &mut out[..net.output_bytes()];
        let top = stack::paint();
        let r = net.invoke(&mut runner, spec.input, out);
        let stack_invoke = stack::used(top);
        r.unwrap_or_else(|e| fail("inference", &e));
        (stack_load, stack_invoke)
    });
    let mut arena = arena_for(spec, &mut arena_buf[..size], shared_buf, placement);
    let (loader, mut runner) = arena.split();
    let (load, net) = c.measure(|| load!(loader));
    let mut net = net.unwrap_or_else(|e| fail("load", &e));
    let out = &mut out[..net.output_bytes()];
    let (n, r) = c.measure(|| net.invoke(&mut runner, spec.input, out));
    r.unwrap_or_else(|e| fail("inference", &e));
    let first = *out == *spec.expected;
    // A streaming model: consecutive invocations after a state reset, the state carried,
    // each output the host's; then the state reset again, so that every inference below
    // starts from the state the first one had.
    let stateful = net.states() > 0;
    if stateful {
        net.reset_state();
        let mut same = true;
        let mut k = 0;
        for want in spec.stream.chunks_exact(out.len().max(1)) {
            net.invoke(&mut runner, spec.input, out)
                .unwrap_or_else(|e| fail("inference", &e));
            same &= *out == *want;
            k += 1;
        }
        hprintln!(
            "stream {} {} invocations {}",
            spec.name,
            k,
            if same { "ok" } else { "DIFFER" }
        );
        if !same {
            hprintln!(
                "error: {} a streamed output differs from the host's",
                spec.name
            );
            debug::exit(debug::EXIT_FAILURE);
        }
        net.reset_state();
    }
    if placement == IoPlacement::Plan && op_data == OpData::Ram {
        hprintln!("load-ram-program {} {}", spec.name, load);
        hprintln!("stack-ram-program {} load {}", spec.name, stack_load);
    }
    if placement == IoPlacement::Plan && op_data == OpData::Flash {
        hprintln!("load {} {}", spec.name, load);
        hprintln!(
            "stack {} load {} invoke {}",
            spec.name,
            stack_load,
            stack_invoke
        );
        // Per operator (a third inference, observed): instructions from the previous
        // operator's end (or the start) to this one's end, timer reads included.
        let mut last = counter::start();
        let mut prof = [0u64; MAX_PROFILED];
        let mut n_ops = 0;
        if stateful {
            net.reset_state();
        }
        let r = net.invoke_observed(&mut runner, Some(spec.input), None, &mut |op, _, _| {
            let now = counter::start();
            if op < MAX_PROFILED {
                prof[op] = c.instructions(counter::stop_at(last, now));
                n_ops = op + 1;
            }
            last = now;
        });
        r.unwrap_or_else(|e| fail("inference", &e));
        for (op, n) in prof[..n_ops].iter().enumerate() {
            hprintln!("op {} {} {}", spec.name, op, n);
        }
        // Deterministic time: the same inference `models::REPEAT` times more, each output
        // checked, the spread of their instruction counts.
        // (Read through black_box: a build-time constant, 0 unless the bench sets it.)
        let repeat = black_box(models::REPEAT);
        if repeat > 0 {
            let (mut lo, mut hi, mut same) = (u64::MAX, 0u64, true);
            for _ in 0..repeat {
                if stateful {
                    net.reset_state();
                }
                let (k, r) = c.measure(|| net.invoke(&mut runner, spec.input, out));
                r.unwrap_or_else(|e| fail("inference", &e));
                same &= *out == *spec.expected;
                (lo, hi) = (lo.min(k), hi.max(k));
            }
            hprintln!(
                "jitter {} {} runs {} min {} max {}",
                spec.name,
                hi - lo,
                repeat,
                lo,
                hi
            );
            if !same {
                hprintln!("error: {} a repeated inference's output differs", spec.name);
                debug::exit(debug::EXIT_FAILURE);
            }
        }
    }
    if runner.stats().scratch_peak != spec.scratch {
        hprintln!(
            "error: {} scratch peak {} B, the model's pool {} B",
            spec.name,
            runner.stats().scratch_peak,
            spec.scratch
        );
        debug::exit(debug::EXIT_FAILURE);
    }
    let ram = net.memory().total();
    // The first inference's output (the later ones overwrote `out`).
    let fnv = if first {
        fnv1a(spec.expected)
    } else {
        fnv1a(out)
    };
    (n, fnv, ram, first)
}

/// The arena's calls of one inference (I/O in the plan) alone: begin/end of the planned
/// scope, every placement, every operator's views; no kernel, no model reading.
fn arena_calls<O: OpSet>(c: &counter::Counter, spec: &Spec<O>, arena_buf: &mut [u8]) -> u64 {
    // The plain plan: the replay takes every operator's tensors as separate views.
    let mut arena = Arena::exact(&mut arena_buf[..spec.arena_plain], spec.scratch)
        .unwrap_or_else(|e| fail("arena", &e));
    let (loader, mut runner): (Loader<'_>, Runner<'_>) = arena.split();
    let plan = loader
        .load_plan(spec.plain_plan)
        .unwrap_or_else(|e| fail("plan", &e));
    let (n, r) = c.measure(|| {
        runner.planned(&plan, |p| {
            for a in spec.allocs {
                p.alloc(a.slot as usize, &a.shape[..a.ndim as usize], a.dtype)?;
            }
            for v in spec.views {
                views(p, v)?;
            }
            Ok::<(), synaptic_mem::AllocError>(())
        })
    });
    match r {
        Ok(Ok(())) => n,
        Ok(Err(e)) | Err(e) => fail("arena calls", &e),
    }
}

fn views(p: &mut PlannedInference<'_, '_>, v: &View) -> Result<(), synaptic_mem::AllocError> {
    fn go<const N: usize>(
        p: &mut PlannedInference<'_, '_>,
        v: &View,
    ) -> Result<(), synaptic_mem::AllocError> {
        let t = p.at::<N>(v.op, core::array::from_fn(|i| v.slots[i] as usize))?;
        black_box(&t);
        Ok(())
    }
    match v.n {
        1 => go::<1>(p, v),
        2 => go::<2>(p, v),
        3 => go::<3>(p, v),
        4 => go::<4>(p, v),
        _ => go::<17>(p, v),
    }
}

/// Runs `spec` both ways, prints the figures and exits (0: both outputs equal the host's).
pub fn run<O: OpSet>(spec: &Spec<O>, arena_buf: &mut [u8], shared_buf: &mut [u8]) -> ! {
    #[cfg(feature = "deploy")]
    {
        let _ = shared_buf;
        deploy(spec, arena_buf)
    }
    #[cfg(not(feature = "deploy"))]
    bench(spec, arena_buf, shared_buf)
}

/// What a product's image does: load with the program in flash, I/O in the plan, infer,
/// check; no figure printed, no error formatted (feature `deploy`: the `flash` line).
#[cfg(feature = "deploy")]
fn deploy<O: OpSet>(spec: &Spec<O>, arena_buf: &mut [u8]) -> ! {
    let good = (|| {
        let plan = RunPlan::overlapped(spec.plan, spec.plan_overlaps);
        let mut arena = Arena::exact(&mut arena_buf[..spec.arena_plan], spec.scratch).ok()?;
        let (loader, mut runner) = arena.split();
        let mut net = Interpreter::with_program_ops::<O>(
            spec.model,
            spec.program,
            loader,
            plan,
            IoPlacement::Plan,
        )
        .ok()?;
        let mut out = [0u8; MAX_OUTPUT];
        let out = out.get_mut(..net.output_bytes())?;
        net.invoke(&mut runner, spec.input, out).ok()?;
        Some(*out == *spec.expected)
    })() == Some(true);
    if good {
        deploy_exit(b"deploy ok\n", true)
    } else {
        deploy_exit(b"deploy MISMATCH\n", false)
    }
}

/// Writes `line` and exits (0 if `ok`).
#[cfg(feature = "deploy")]
fn deploy_exit(line: &[u8], ok: bool) -> ! {
    if let Ok(mut o) = cortex_m_semihosting::hio::hstdout() {
        let _ = o.write_all(line);
    }
    debug::exit(if ok {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    #[allow(clippy::empty_loop)]
    loop {}
}

#[cfg(not(feature = "deploy"))]
fn bench<O: OpSet>(spec: &Spec<O>, arena_buf: &mut [u8], shared_buf: &mut [u8]) -> ! {
    counter::init();
    let c = counter::calibrate().unwrap_or_else(|(a, b)| {
        hprintln!(
            "error: instruction counter calibration failed ({}, {})",
            a,
            b
        );
        debug::exit(debug::EXIT_FAILURE);
        #[allow(clippy::empty_loop)]
        loop {}
    });
    hprintln!(
        "counter {} fixed {} per-wrap {} period-ns {}",
        spec.name,
        c.fixed,
        c.per_wrap,
        counter::PERIOD_NS
    );
    let (n, sum, ram, ok) = infer(
        &c,
        spec,
        arena_buf,
        shared_buf,
        IoPlacement::Plan,
        OpData::Flash,
    );
    hprintln!("run {} {} {} {:08x}", spec.name, n, ram, sum);
    let (ns, sums, rams, oks) = infer(
        &c,
        spec,
        arena_buf,
        shared_buf,
        IoPlacement::Shared,
        OpData::Flash,
    );
    hprintln!("shared {} {} {} {:08x}", spec.name, ns, rams, sums);
    let (nr, sumr, ramr, okr) = infer(
        &c,
        spec,
        arena_buf,
        shared_buf,
        IoPlacement::Plan,
        OpData::Ram,
    );
    hprintln!("ram-program {} {} {} {:08x}", spec.name, nr, ramr, sumr);
    let (np, sump, ramp, okp) = infer(
        &c,
        spec,
        arena_buf,
        shared_buf,
        IoPlacement::Plan,
        OpData::FlashPlain,
    );
    hprintln!("plain {} {} {}", spec.name, np, ramp);
    hprintln!("plain-checksum {} {:08x}", spec.name, sump);
    hprintln!(
        "program {} {} flash-bytes",
        spec.name,
        4 * spec.program.len()
    );
    let calls = arena_calls(&c, spec, arena_buf);
    hprintln!(
        "arena-calls {} {} allocs {} views {}",
        spec.name,
        calls,
        spec.allocs.len(),
        spec.views.len()
    );
    let state = size_of::<Interpreter<'static, 'static, 'static, O>>()
        + size_of::<Arena<'static>>()
        + size_of::<Runner<'static>>();
    hprintln!("state {} {}", spec.name, state);
    hprintln!(
        "state-detail {} interpreter {} arena {} runner {}",
        spec.name,
        size_of::<Interpreter<'static, 'static, 'static, O>>(),
        size_of::<Arena<'static>>(),
        size_of::<Runner<'static>>()
    );
    hprintln!(
        "arena {} exact {} accepted {} shared-exact {} shared-accepted {}",
        spec.name,
        spec.exact_plan,
        spec.arena_plan,
        spec.exact_shared,
        spec.arena_shared
    );
    let host = fnv1a(spec.expected);
    let good = ok
        && oks
        && okr
        && okp
        && ramp == spec.exact_plain
        && ram == spec.exact_plan
        && rams == spec.exact_shared
        && ramr == spec.exact_plan_ram;
    hprintln!(
        "check {} {} host {:08x}",
        spec.name,
        if good { "ok" } else { "MISMATCH" },
        host
    );
    debug::exit(if good {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    #[allow(clippy::empty_loop)]
    loop {}
}
