//! The spec's allocation benchmark (`tests/unit/test_mem_bench.c`), on the Cortex-M3, in
//! instructions.
//!
//! Run with `cargo run --release --bin bench` (the runner adds `-icount shift=10`).
//!
//! Method (see also [`synaptic_firmware::timer`]):
//! * SysTick on the core clock with RCC `SYSDIV` cleared, under `-icount shift=10`: elapsed
//!   ticks × 5 / 1024 = instructions executed, exactly and repeatably.
//! * Allocations are timed in batches of [`BATCH`] (well below the 24-bit wrap), [`ROUNDS`]
//!   batches per figure with an (untimed) ephemeral reset between batches.
//! * Each batch's count has the matching empty loop (same timer reads, same loop, no call)
//!   subtracted, so a figure is the cost of one call as its caller pays it: argument set-up,
//!   the call, the allocator (and for the C API its critical section), the return.
//! * A reset is timed alone between two timer reads; the read overhead (two back-to-back reads)
//!   is subtracted.
//!
//! APIs: `c` = the C API (`syn_mem_tensor_alloc`, `syn_mem_scratch_acquire`,
//! `syn_mem_reset_ephemeral`, and the planned path `syn_mem_tensor_alloc_planned` /
//! `syn_mem_plan_begin`) called from C code built with `arm-none-eabi-gcc -O2`; `rust` = the
//! safe Rust API (`Inference::ephemeral`, `Inference::scratch`) called through a non-inlined
//! function (the same call structure as the C API), and `RawArena::reset_ephemeral`; `floor` =
//! a bare align/check/bump allocator in C with the same call structure.
#![no_std]
#![no_main]

use core::arch::asm;

use cortex_m_rt::entry;
use cortex_m_semihosting::hprintln;
#[cfg(not(feature = "capi"))]
use panic_semihosting as _;
use synaptic_firmware::{timer, StaticMem};
use synaptic_mem::{Arena, DType, Inference, RawArena, TensorDesc};

/// The measured prototype of the proposed hot paths.
mod proto;
#[cfg(feature = "capi")]
use synaptic_mem_ffi as _;

/// Allocations per timed batch (≈ 4 000 instructions: far below SysTick's ~81 920 wrap).
const BATCH: u32 = 100;
/// Timed batches per figure.
const ROUNDS: u32 = 10;
/// Arena size: fits the lm3s6965's 64 KB of SRAM next to the stack.
const ARENA: usize = 32 * 1024;
/// Scratch pool (100 acquisitions of 64 B fit).
const SCRATCH: usize = 8 * 1024;
/// Bytes per scratch acquisition.
const SCRATCH_REQ: usize = 64;

/// The arena memory (C API, floor, prototype and Rust figures in turn).
static MEM: StaticMem<ARENA> = StaticMem::new();

extern "C" {
    /// Ticks of two back-to-back timer reads.
    fn synfw_c_timer_read() -> u32;
    /// Ticks of the empty C loop of `n` iterations.
    fn synfw_c_empty_batch(n: u32) -> u32;
    /// Sets up the floor allocator.
    fn synfw_floor_init(base: *mut u8, cap: usize);
    /// Ticks of `n` floor allocations of `size` bytes.
    fn synfw_floor_batch(n: u32, size: usize) -> u32;
}

/// The four tensor shapes: 4, 16, 32 and 64 bytes of INT8.
const SIZES: [(&str, u32); 4] = [
    ("alloc_4B", 4),
    ("alloc_16B", 16),
    ("alloc_32B", 32),
    ("alloc_64B", 64),
];

/// Instructions in `ticks`, rounded to a whole instruction (exact under `-icount shift=10`).
fn instr(ticks: u32) -> u64 {
    timer::ticks_to_instructions(ticks as u64)
}

/// One result line: `bench <api> <name> <value> instructions`, value = `total / count` to one
/// decimal.
struct Figure {
    api: &'static str,
    name: &'static str,
    /// Tenths of an instruction.
    tenths: u64,
}

impl Figure {
    /// `total / count` instructions for `bench <api> <name>`.
    fn new(api: &'static str, name: &'static str, total: u64, count: u64) -> Self {
        Figure {
            api,
            name,
            tenths: (total * 10 + count / 2) / count,
        }
    }
}

/// Prints an instruction count in tenths as `N.N`.
struct Tenths(u64);

impl core::fmt::Display for Tenths {
    /// `N.N`, honouring width and alignment (so the table's columns line up).
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        use core::fmt::Write;
        let mut line = heapless_line();
        let _ = write!(line, "{}.{}", self.0 / 10, self.0 % 10);
        f.pad(line.as_str())
    }
}

/// Results, printed at the end.
struct Results {
    figs: [Option<Figure>; 40],
    len: usize,
}

impl Results {
    /// Prints the `bench` line and keeps the figure for the table.
    fn push(&mut self, f: Figure) {
        hprintln!(
            "bench {} {} {} instructions",
            f.api,
            f.name,
            Tenths(f.tenths)
        );
        self.figs[self.len] = Some(f);
        self.len += 1;
    }

    /// A figure in tenths, if measured.
    fn get(&self, api: &str, name: &str) -> Option<u64> {
        self.figs
            .iter()
            .flatten()
            .find(|f| f.api == api && f.name == name)
            .map(|f| f.tenths)
    }
}

/// Keeps `v` alive in a register without emitting an instruction.
#[inline(always)]
fn consume<T>(v: *const T) {
    // SAFETY: an empty asm statement that only reads a register: no memory, stack or flags.
    unsafe { asm!("/* {0} */", in(reg) v as usize, options(nomem, nostack, preserves_flags)) };
}

/// One safe-API ephemeral allocation, as an exported (so neither inlined nor specialised)
/// `extern "C"` call with the C API's argument shape: what a C caller of a Rust-only API pays.
#[no_mangle]
#[inline(never)]
///
/// # Safety
/// `shape` must point to `ndim` (1..=4) readable dimensions.
pub unsafe extern "C" fn synfw_rust_ephemeral(
    inf: &Inference<'_>,
    shape: *const u32,
    ndim: usize,
    dtype: DType,
) -> *mut TensorDesc {
    // SAFETY: the caller passes a pointer to `ndim` (1..=4) readable dimensions.
    let shape = unsafe { core::slice::from_raw_parts(shape, ndim) };
    match inf.ephemeral(shape, dtype) {
        Ok(t) => t.descriptor_ptr().as_ptr(),
        Err(_) => core::ptr::null_mut(),
    }
}

/// One safe-API scratch acquisition, as an exported `extern "C"` call.
#[no_mangle]
#[inline(never)]
pub extern "C" fn synfw_rust_scratch(inf: &Inference<'_>, size: usize) -> *mut u8 {
    match inf.scratch(size) {
        Ok(s) => s.as_mut_ptr(),
        Err(_) => core::ptr::null_mut(),
    }
}

/// `n` safe-API allocations between two timer reads.
#[inline(never)]
fn rust_alloc_batch(inf: &Inference<'_>, n: u32, shape: &[u32], dtype: DType) -> u32 {
    let t0 = timer::now();
    for _ in 0..n {
        // SAFETY: `shape` is a live slice of its length.
        let t = unsafe { synfw_rust_ephemeral(inf, shape.as_ptr(), shape.len(), dtype) };
        consume(t);
    }
    let t1 = timer::now();
    timer::ticks_between(t0, t1)
}

/// `n` safe-API scratch acquisitions between two timer reads.
#[inline(never)]
fn rust_scratch_batch(inf: &Inference<'_>, n: u32, size: usize) -> u32 {
    let t0 = timer::now();
    for _ in 0..n {
        let p = synfw_rust_scratch(inf, size);
        consume(p);
    }
    let t1 = timer::now();
    timer::ticks_between(t0, t1)
}

/// The Rust loop with nothing in it.
#[inline(never)]
fn rust_empty_batch(n: u32) -> u32 {
    let t0 = timer::now();
    for i in 0..n {
        consume(i as *const u8);
    }
    let t1 = timer::now();
    timer::ticks_between(t0, t1)
}

/// Two back-to-back timer reads.
#[inline(never)]
fn rust_timer_read() -> u32 {
    let t0 = timer::now();
    let t1 = timer::now();
    timer::ticks_between(t0, t1)
}

/// One raw-API reset between two timer reads.
#[inline(never)]
fn rust_reset_once(raw: &RawArena<'_>) -> u32 {
    let t0 = timer::now();
    synfw_rust_reset(raw);
    let t1 = timer::now();
    timer::ticks_between(t0, t1)
}

/// `RawArena::reset_ephemeral` as an exported call (like the C API's).
#[no_mangle]
#[inline(never)]
pub extern "C" fn synfw_rust_reset(raw: &RawArena<'_>) {
    raw.reset_ephemeral();
}

/// Per-batch cost of `batch` minus `empty`, summed over the rounds.
fn net(batch: u32, empty: u64) -> u64 {
    instr(batch).saturating_sub(empty)
}

/// Measures every figure, prints the `bench` lines, the table and the verdicts.
#[entry]
fn main() -> ! {
    timer::init();
    let mut res = Results {
        figs: [const { None }; 40],
        len: 0,
    };

    // Overheads (both languages): timer read, empty loop of BATCH iterations.
    let c_read = instr(unsafe_call(|| {
        // SAFETY: a C function without arguments that only reads SysTick.
        unsafe { synfw_c_timer_read() }
    }));
    let c_empty = instr(unsafe_call(|| {
        // SAFETY: a C loop that only reads SysTick.
        unsafe { synfw_c_empty_batch(BATCH) }
    }));
    let r_read = instr(rust_timer_read());
    let r_empty = instr(rust_empty_batch(BATCH));
    hprintln!(
        "# overhead: timer read c {} rust {}; empty loop of {} c {} rust {} instructions",
        c_read,
        r_read,
        BATCH,
        c_empty,
        r_empty
    );

    // The floor: align, check, bump.
    // SAFETY: MEM is used by nothing else while the floor allocator runs.
    let buf = unsafe { MEM.get() };
    for (name, bytes) in SIZES {
        let mut total = 0;
        for _ in 0..ROUNDS {
            // SAFETY: `buf` is ours for the whole benchmark; the floor only hands out offsets
            // inside `ARENA` bytes and nothing dereferences them.
            unsafe { synfw_floor_init(buf.as_mut_ptr(), ARENA) };
            // SAFETY: the floor allocator was initialised just above.
            total += net(unsafe { synfw_floor_batch(BATCH, bytes as usize) }, c_empty);
        }
        res.push(Figure::new("floor", name, total, (BATCH * ROUNDS) as u64));
    }

    #[cfg(feature = "capi")]
    capi::run(&mut res, buf, c_read, c_empty);

    let proposals = [
        proposal(buf, c_read, c_empty, false),
        proposal(buf, c_read, c_empty, true),
    ];

    // The Rust safe API.
    {
        let mut arena = Arena::with_scratch(&mut buf[..], SCRATCH).expect("arena");
        let (_loader, mut runner) = arena.split();
        for (name, bytes) in SIZES {
            let shape = [1, bytes];
            let mut total = 0;
            for _ in 0..ROUNDS {
                total += runner.inference(|inf| {
                    net(rust_alloc_batch(inf, BATCH, &shape, DType::Int8), r_empty)
                });
            }
            res.push(Figure::new("rust", name, total, (BATCH * ROUNDS) as u64));
        }
        let mut total = 0;
        for _ in 0..ROUNDS {
            total +=
                runner.inference(|inf| net(rust_scratch_batch(inf, BATCH, SCRATCH_REQ), r_empty));
        }
        res.push(Figure::new(
            "rust",
            "scratch_acquire",
            total,
            (BATCH * ROUNDS) as u64,
        ));
    }
    {
        let raw = RawArena::new(&mut buf[..], SCRATCH).expect("arena");
        for (name, live) in [("reset_1", 1), ("reset_10", 10), ("reset_100", 100)] {
            let mut total = 0;
            for _ in 0..ROUNDS {
                for _ in 0..live {
                    raw.alloc(&[1, 16], DType::Int8, synaptic_mem::Lifetime::Ephemeral)
                        .expect("alloc");
                }
                total += instr(rust_reset_once(&raw)).saturating_sub(r_read);
            }
            res.push(Figure::new("rust", name, total, ROUNDS as u64));
        }
    }

    print_table(&res);
    for (what, (alloc, reset)) in [
        "peaks kept by the reset (as now)",
        "peaks kept at allocation",
    ]
    .iter()
    .zip(proposals)
    {
        hprintln!(
            "# proposal (src/bin/bench/proto.rs, C API ABI, {}): alloc_16B {} reset_100 {} instructions",
            what,
            Tenths(alloc),
            Tenths(reset)
        );
    }
    synaptic_firmware::exit(true)
}

/// The proposal prototype's alloc (16 B, ephemeral, via C like the C API) and reset after 100
/// live tensors, in tenths of an instruction; `pk`: the variant keeping the high-water marks at
/// allocation time.
fn proposal(buf: &mut [u8], c_read: u64, c_empty: u64, pk: bool) -> (u64, u64) {
    extern "C" {
        /// Ticks of `n` prototype allocations.
        fn synfw_proto_batch(pk: i32, n: u32, shape: *const u32, ndim: u8, dtype: u32) -> u32;
        /// Ticks of one prototype reset.
        fn synfw_proto_reset_once(pk: i32) -> u32;
    }
    proto::init(buf.as_mut_ptr(), (ARENA - SCRATCH) as u32);
    let shape = [1u32, 16];
    let mut alloc = 0;
    let mut reset = 0;
    for _ in 0..ROUNDS {
        // SAFETY: `shape` has 2 dimensions; the prototype arena is `buf`, used by nothing else
        // until the Rust figures below re-initialise it.
        alloc += net(
            unsafe { synfw_proto_batch(pk as i32, BATCH, shape.as_ptr(), 2, 0) },
            c_empty,
        );
        // SAFETY: as above; no tensor is used after the reset.
        reset += instr(unsafe { synfw_proto_reset_once(pk as i32) }).saturating_sub(c_read);
    }
    (
        Figure::new("c", "", alloc, (BATCH * ROUNDS) as u64).tenths,
        Figure::new("c", "", reset, ROUNDS as u64).tenths,
    )
}

/// Runs a closure returning ticks (keeps the `unsafe` C calls in one shape).
fn unsafe_call(f: impl FnOnce() -> u32) -> u32 {
    f()
}

/// The human-readable table, next to the spec's 154 cycles per allocation.
fn print_table(res: &Results) {
    hprintln!("");
    hprintln!("instructions per operation (QEMU Cortex-M3, -icount shift=10, SysTick)");
    hprintln!(
        "{:<16} {:>8} {:>8} {:>8}",
        "operation",
        "c",
        "rust",
        "floor"
    );
    let names = [
        "alloc_4B",
        "alloc_16B",
        "alloc_32B",
        "alloc_64B",
        "scratch_acquire",
        "reset_1",
        "reset_10",
        "reset_100",
        "alloc_planned",
        "plan_begin",
    ];
    for name in names {
        let cell = |api: &str| match res.get(api, name) {
            Some(t) => Tenths(t),
            None => Tenths(u64::MAX),
        };
        let (c, r, f) = (cell("c"), cell("rust"), cell("floor"));
        let mut line = heapless_line();
        use core::fmt::Write;
        let _ = write!(line, "{:<16}", name);
        for v in [c, r, f] {
            if v.0 == u64::MAX {
                let _ = write!(line, " {:>8}", "-");
            } else {
                let _ = write!(line, " {:>8}", v);
            }
        }
        hprintln!("{}", line.as_str());
    }
    hprintln!(
        "spec (tests/unit/test_mem_bench.c on QEMU Cortex-M3): about 154 cycles per allocation"
    );
    hprintln!("floor = bare align/check/bump call; overheads subtracted: timer read, empty loop");
    let sizes = ["alloc_4B", "alloc_16B", "alloc_32B", "alloc_64B"];
    for api in ["c", "rust"] {
        let vals = sizes.iter().filter_map(|n| res.get(api, n));
        let (mut min, mut max) = (u64::MAX, 0);
        for v in vals {
            min = min.min(v);
            max = max.max(v);
        }
        if max > 0 {
            // max/min in thousandths.
            let ratio = max * 1000 / min;
            hprintln!(
                "{}: max/min over 4..64 B = {}.{:03} (target <= 1.05: {})",
                api,
                ratio / 1000,
                ratio % 1000,
                if ratio <= 1050 { "met" } else { "MISSED" }
            );
        }
    }
    let verdict = |t: Option<u64>, limit: u64| match t {
        Some(v) if v <= limit * 10 => "met",
        Some(_) => "MISSED",
        None => "not measured",
    };
    let worst = |names: &[&str]| names.iter().filter_map(|n| res.get("c", n)).max();
    let alloc = worst(&sizes);
    let reset = worst(&["reset_1", "reset_10", "reset_100"]);
    hprintln!(
        "target c alloc <= 35 instructions (incl. critical section): {} (worst {})",
        verdict(alloc, 35),
        Tenths(alloc.unwrap_or(0))
    );
    let planned = res.get("c", "alloc_planned");
    hprintln!(
        "target c alloc_planned <= 35 instructions (incl. critical section): {} ({})",
        verdict(planned, 35),
        Tenths(planned.unwrap_or(0))
    );
    hprintln!(
        "target c reset <= 15 instructions, independent of tensor count: {} (worst {})",
        verdict(reset, 15),
        Tenths(reset.unwrap_or(0))
    );
}

/// A small fixed-capacity line buffer for the table.
struct Line {
    buf: [u8; 80],
    len: usize,
}

/// An empty line buffer.
fn heapless_line() -> Line {
    Line {
        buf: [0; 80],
        len: 0,
    }
}

impl Line {
    /// The text written so far.
    fn as_str(&self) -> &str {
        core::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }
}

impl core::fmt::Write for Line {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let b = s.as_bytes();
        let n = b.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&b[..n]);
        self.len += n;
        Ok(())
    }
}

#[cfg(feature = "capi")]
mod capi {
    //! The C API figures: loops in `c/bench.c` (gcc -O2) calling `synaptic-mem-ffi`.
    use super::{instr, net, Figure, Results, BATCH, ROUNDS, SCRATCH, SCRATCH_REQ, SIZES};

    extern "C" {
        /// `syn_mem_init_ex` from C.
        fn synfw_c_init(base: *mut u8, size: usize, scratch: usize) -> i32;
        /// Ticks of `n` `syn_mem_tensor_alloc` calls.
        fn synfw_c_alloc_batch(n: u32, shape: *const u32, ndim: u8, dtype: i32) -> u32;
        /// Ticks of `n` `syn_mem_scratch_acquire` calls.
        fn synfw_c_scratch_batch(n: u32, size: usize) -> u32;
        /// Ticks of one `syn_mem_reset_ephemeral` call.
        fn synfw_c_reset_once() -> u32;
        /// `n` untimed 16-byte allocations; returns how many succeeded.
        fn synfw_c_alloc_n(n: u32) -> u32;
        /// The C API reset.
        fn syn_mem_reset_ephemeral();
        /// `syn_mem_plan_load` of the benchmark's 4-slot plan.
        fn synfw_c_plan_load() -> i32;
        /// Ticks of one `syn_mem_plan_begin` of it.
        fn synfw_c_plan_begin_once() -> u32;
        /// Ticks of `n` `syn_mem_tensor_alloc_planned(plan, slot)` calls.
        fn synfw_c_planned_batch(n: u32, slot: u32) -> u32;
        /// The C API's last error.
        fn syn_mem_last_error() -> i32;
    }

    /// Runs the C API figures over `buf` (the C API's global arena uses it until the Rust
    /// figures re-initialise it).
    pub fn run(res: &mut Results, buf: &mut [u8], c_read: u64, c_empty: u64) {
        // SAFETY: `buf` is exclusively ours; the C API uses it until the next init, and the
        // Rust part below only starts after the last C call.
        let rc = unsafe { synfw_c_init(buf.as_mut_ptr(), buf.len(), SCRATCH) };
        assert_eq!(rc, 0, "syn_mem_init_ex");
        for (name, bytes) in SIZES {
            let shape = [1u32, bytes];
            let mut total = 0;
            for _ in 0..ROUNDS {
                // SAFETY: `shape` holds 2 dimensions; dtype 0 = SYN_NPU_DTYPE_INT8.
                total += net(
                    unsafe { synfw_c_alloc_batch(BATCH, shape.as_ptr(), 2, 0) },
                    c_empty,
                );
                // SAFETY: the arena is initialised; no tensor is used after the reset.
                unsafe { syn_mem_reset_ephemeral() };
            }
            res.push(Figure::new("c", name, total, (BATCH * ROUNDS) as u64));
        }
        let mut total = 0;
        for _ in 0..ROUNDS {
            // SAFETY: scratch buffers are never dereferenced.
            total += net(
                unsafe { synfw_c_scratch_batch(BATCH, SCRATCH_REQ) },
                c_empty,
            );
            // SAFETY: as above.
            unsafe { syn_mem_reset_ephemeral() };
        }
        res.push(Figure::new(
            "c",
            "scratch_acquire",
            total,
            (BATCH * ROUNDS) as u64,
        ));
        for (name, live) in [("reset_1", 1), ("reset_10", 10), ("reset_100", 100)] {
            let mut total = 0;
            for _ in 0..ROUNDS {
                // SAFETY: allocations and a reset on the initialised global arena.
                let ok = unsafe { synfw_c_alloc_n(live) };
                assert_eq!(ok, live, "live tensors");
                // SAFETY: as above.
                total += instr(unsafe { synfw_c_reset_once() }).saturating_sub(c_read);
            }
            res.push(Figure::new("c", name, total, ROUNDS as u64));
        }

        // The planned path: load once, then per round a begin (the region lands where it did
        // last time: O(1)) and a batch of planned allocations, then a reset.
        // SAFETY: the arena is initialised and nothing ephemeral is live (reset above).
        unsafe { syn_mem_reset_ephemeral() };
        // SAFETY: as above.
        let rc = unsafe { synfw_c_plan_load() };
        assert_eq!(rc, 0, "syn_mem_plan_load");
        let (mut begin, mut alloc) = (0, 0);
        for _ in 0..ROUNDS {
            // SAFETY: the plan was loaded into the initialised arena above.
            begin += instr(unsafe { synfw_c_plan_begin_once() }).saturating_sub(c_read);
            // SAFETY: as above; the descriptors are never dereferenced.
            assert_eq!(unsafe { syn_mem_last_error() }, 0, "syn_mem_plan_begin");
            // SAFETY: as above.
            alloc += net(unsafe { synfw_c_planned_batch(BATCH, 1) }, c_empty);
            // SAFETY: as above.
            unsafe { syn_mem_reset_ephemeral() };
        }
        res.push(Figure::new(
            "c",
            "alloc_planned",
            alloc,
            (BATCH * ROUNDS) as u64,
        ));
        res.push(Figure::new("c", "plan_begin", begin, ROUNDS as u64));
    }
}
