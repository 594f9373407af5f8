//! On-target tests: the core's behaviours re-run on the Cortex-M3 (QEMU lm3s6965evb), through
//! the safe Rust API, the raw API and (with the `capi` feature) the C API from a C test file.
//!
//! `cargo run --release --bin tests` prints each group, every failure, and `N passed, N failed`
//! as its last line; QEMU exits with status 0 only if every check passed.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use cortex_m_semihosting::hprintln;
use synaptic_firmware::harness::Harness;
use synaptic_firmware::StaticMem;
use synaptic_mem::{
    Arena, ArenaConfig, ConfigError, DType, ErrorKind, Lifetime, RawArena, Region, Stats,
    TensorDesc, DESC_SPAN,
};

#[cfg(not(feature = "capi"))]
use panic_semihosting as _;
#[cfg(feature = "capi")]
use synaptic_mem_ffi as _;

/// Arena size used by the tests (the board has 64 KB of SRAM).
const ARENA: usize = 32 * 1024;
/// Scratch pool size used by the tests.
const SCRATCH: usize = 4 * 1024;
/// Tensor space: arena minus scratch pool.
const TENSOR_CAP: usize = ARENA - SCRATCH;

/// The arena memory, reused by every test in turn.
static MEM: StaticMem<ARENA> = StaticMem::new();
/// The shared (IPC) region memory.
static SHARED: StaticMem<1024> = StaticMem::new();

/// The arena buffer for one test.
fn mem() -> &'static mut [u8] {
    // SAFETY: tests run one after the other and each drops its arena (and every pointer into
    // the buffer) before returning, so this is the only live borrow.
    unsafe { MEM.get() }
}

/// The shared region buffer for one test.
fn shared_mem() -> &'static mut [u8] {
    // SAFETY: as for `mem`.
    unsafe { SHARED.get() }
}

/// The run's counters (a `static` so the C test file's callbacks reach them).
static H: Harness = Harness::new();

/// Runs every group, then prints `N passed, N failed` and exits QEMU (0 only if all pass).
#[entry]
fn main() -> ! {
    let h = &H;
    hprintln!("synaptic-mem on-target tests (Cortex-M3, thumbv7m)");
    config_errors(h);
    unaligned_base(h);
    layout(h);
    dtype_sizes(h);
    reset_and_persistence(h);
    stats_values(h);
    bad_inputs(h);
    failure_changes_nothing(h);
    shared_region(h);
    reinit(h);
    no_op_free(h);
    uninitialised(h);
    two_arenas(h);
    raw_alloc(h);
    #[cfg(feature = "capi")]
    capi::run(h);
    h.finish()
}

/// Offset of `p` from the start of `base`.
fn off(base: usize, p: *const u8) -> usize {
    (p as usize).wrapping_sub(base)
}

/// Init refuses out-of-range sizes and a NULL base with the exact `ConfigError`.
fn config_errors(h: &Harness) {
    h.group("config errors (sizes, ranges, NULL base)");
    let buf = mem();
    h.eq(
        Arena::with_scratch(&mut buf[..4095], 1024).err(),
        Some(ConfigError::ArenaSizeOutOfRange { size: 4095 }),
        "arena 4095 B",
    );
    h.eq(
        Arena::with_scratch(&mut buf[..8192], 1023).err(),
        Some(ConfigError::ScratchSizeOutOfRange { size: 1023 }),
        "scratch 1023 B",
    );
    h.eq(
        Arena::with_scratch(&mut buf[..8192], 65537).err(),
        Some(ConfigError::ScratchSizeOutOfRange { size: 65537 }),
        "scratch 65537 B",
    );
    h.eq(
        Arena::with_scratch(&mut buf[..4096], 4096).err(),
        Some(ConfigError::ScratchNotSmallerThanArena {
            scratch_size: 4096,
            arena_size: 4096,
        }),
        "scratch == arena",
    );
    h.eq(
        Arena::with_scratch(&mut buf[..4096], 4080).err(),
        Some(ConfigError::NoTensorSpace {
            usable_size: 4096,
            scratch_size: 4080,
        }),
        "no tensor space",
    );
    h.eq(
        ArenaConfig {
            arena_size: 524_289,
            scratch_size: 1024,
        }
        .validate(),
        Err(ConfigError::ArenaSizeOutOfRange { size: 524_289 }),
        "arena 524289 B",
    );
    h.check(
        ArenaConfig {
            arena_size: 524_288,
            scratch_size: 65_536,
        }
        .validate()
        .is_ok(),
        "arena 512 KB, scratch 64 KB accepted",
    );
    h.check(
        Arena::with_scratch(&mut buf[..4096], 1024).is_ok(),
        "smallest arena accepted",
    );
    let raw = RawArena::UNINIT;
    // SAFETY: the base is NULL, which `init` rejects before touching any memory.
    let r = unsafe { raw.init(core::ptr::null_mut(), 4096, 1024) };
    h.eq(r, Err(ConfigError::NullBase), "NULL base");
    h.check(
        !raw.is_initialized(),
        "failed init leaves the arena uninitialised",
    );
}

/// An unaligned buffer is aligned up and the loss reported.
fn unaligned_base(h: &Harness) {
    h.group("unaligned base is aligned up, usable size reduced");
    let buf = mem();
    let base = buf.as_ptr() as usize;
    let arena = Arena::with_scratch(&mut buf[1..8193], 1024).expect("arena");
    let s = arena.stats();
    h.eq(s.arena_size, 8192, "arena_size");
    h.eq(s.usable_size, 8176, "usable_size");
    h.eq(s.alignment_loss(), 16, "alignment loss");
    h.eq(s.scratch_size, 1024, "scratch_size");
    h.eq(s.tensor_capacity, 8176 - 1024, "tensor capacity");
    let mut arena = arena;
    let (loader, _runner) = arena.split();
    let t = loader.persistent(&[4], DType::Int8).expect("alloc");
    h.eq(
        off(base, t.descriptor_ptr().as_ptr().cast()),
        16,
        "first descriptor at base + 16",
    );
    h.eq(t.as_ptr() as usize % 16, 0, "data aligned");
}

/// Region order, descriptor/data offsets and alignment, safe and raw API.
fn layout(h: &Harness) {
    h.group("layout: persistent, ephemeral, scratch offsets and alignment");
    let buf = mem();
    let base = buf.as_ptr() as usize;
    let mut arena = Arena::with_scratch(buf, SCRATCH).expect("arena");
    let s = arena.stats();
    h.eq(s.arena_size, ARENA, "arena_size");
    h.eq(s.usable_size, ARENA, "usable_size");
    h.eq(s.tensor_capacity, TENSOR_CAP, "tensor capacity");
    h.eq(s.scratch_size, SCRATCH, "scratch_size");
    h.eq(
        core::mem::size_of::<TensorDesc>(),
        28,
        "descriptor is 28 bytes on 32-bit",
    );
    h.eq(DESC_SPAN, 32, "descriptor span");
    let (loader, mut runner) = arena.split();
    let w = loader.persistent(&[4, 4], DType::Int8).expect("w");
    let b = loader.persistent(&[3], DType::Int8).expect("b");
    h.eq(
        off(base, w.descriptor_ptr().as_ptr().cast()),
        0,
        "w descriptor at 0",
    );
    h.eq(off(base, w.as_ptr()), 32, "w data at 32");
    h.eq(
        off(base, b.descriptor_ptr().as_ptr().cast()),
        48,
        "b descriptor at 48",
    );
    h.eq(off(base, b.as_ptr()), 80, "b data at 80");
    h.eq(loader.stats().persistent_used, 96, "persistent_used");
    h.eq(w.shape(), &[4u32, 4][..], "w shape");
    h.eq(w.descriptor().dims(), [4, 4, 1, 1], "w dims padded with 1");
    h.eq(w.descriptor().ndim(), 2, "w ndim");
    h.eq(w.lifetime(), Lifetime::Persistent, "w lifetime");
    h.eq(w.size(), 16, "w size");
    runner.inference(|inf| {
        let a = inf.ephemeral(&[2, 3], DType::Float32).expect("a");
        let c = inf.ephemeral(&[1, 1, 1, 1], DType::Int4).expect("c");
        h.eq(
            off(base, a.descriptor_ptr().as_ptr().cast()),
            96,
            "ephemeral right after persistent",
        );
        h.eq(off(base, a.as_ptr()), 128, "a data");
        h.eq(
            off(base, c.descriptor_ptr().as_ptr().cast()),
            160,
            "c descriptor (24 B -> 32)",
        );
        h.eq(c.size(), 1, "int4 x1 -> 1 byte");
        h.eq(a.lifetime(), Lifetime::Ephemeral, "a lifetime");
        h.eq(a.dtype(), DType::Float32, "a dtype");
        h.eq(inf.stats().ephemeral_used, 64 + 48, "ephemeral_used");
        let s1 = inf.scratch(100).expect("s1");
        h.eq(
            off(base, s1.as_ptr()),
            TENSOR_CAP,
            "scratch pool at the top",
        );
        h.eq(s1.len(), 100, "scratch slice length");
        let s2 = inf.scratch(1).expect("s2");
        h.eq(
            off(base, s2.as_ptr()),
            TENSOR_CAP + 112,
            "second scratch 16-aligned",
        );
        h.eq(inf.stats().scratch_used, 128, "scratch_used");
        for p in [a.as_ptr(), c.as_ptr(), s1.as_ptr(), s2.as_ptr()] {
            h.eq(p as usize % 16, 0, "16-byte aligned");
        }
    });
    h.eq(w.as_ptr() as usize % 16, 0, "w aligned");
    // The raw API sees the same layout.
    // (The safe arena, `w` and `b` are not used past this point: their borrows end here.)
    let buf = mem();
    let raw = RawArena::new(buf, SCRATCH).expect("raw");
    let t = raw
        .alloc(&[8], DType::Int16, Lifetime::Persistent)
        .expect("t");
    // SAFETY: `t` was just allocated and the arena is alive.
    let d = unsafe { t.as_ref() };
    h.eq(
        raw.offset_of(t.as_ptr().cast()),
        Some(0),
        "raw descriptor offset",
    );
    h.eq(raw.offset_of(d.data_ptr()), Some(32), "raw data offset");
    h.eq(d.size(), 16, "int16 x8");
    let e = raw
        .alloc(&[5], DType::UInt8, Lifetime::Ephemeral)
        .expect("e");
    h.eq(
        raw.offset_of(e.as_ptr().cast()),
        Some(48),
        "raw ephemeral after persistent",
    );
    let s = raw.scratch_acquire(17).expect("s");
    h.eq(
        raw.offset_of(s.as_ptr()),
        Some(TENSOR_CAP),
        "raw scratch at top",
    );
    let s2 = raw.scratch_acquire(16).expect("s2");
    h.eq(
        raw.offset_of(s2.as_ptr()),
        Some(TENSOR_CAP + 32),
        "raw scratch 17 -> 32",
    );
}

/// Byte size from shape and dtype for every data type.
fn dtype_sizes(h: &Harness) {
    h.group("byte size from shape and dtype");
    let raw = RawArena::new(mem(), SCRATCH).expect("raw");
    let cases: [(&[u32], DType, usize); 9] = [
        (&[3], DType::Int4, 2),
        (&[2, 3], DType::Int8, 6),
        (&[2, 3], DType::UInt8, 6),
        (&[2, 3], DType::Int16, 12),
        (&[2, 3], DType::Float16, 12),
        (&[2, 3], DType::BFloat16, 12),
        (&[2, 3], DType::Int32, 24),
        (&[1, 2, 3, 4], DType::Float32, 96),
        (&[7, 1, 1], DType::Int4, 4),
    ];
    for (shape, dtype, bytes) in cases {
        let t = raw.alloc(shape, dtype, Lifetime::Ephemeral).expect("alloc");
        // SAFETY: `t` was just allocated and the arena is alive.
        let d = unsafe { t.as_ref() };
        h.eq(d.size(), bytes, dtype.name());
        h.eq(d.dtype(), dtype, "dtype stored");
        h.eq(d.shape(), shape, "shape stored");
    }
}

/// Reset reclaims ephemeral and scratch; persistent data survives 50 inferences.
fn reset_and_persistence(h: &Harness) {
    h.group("reset reclaims ephemeral + scratch; persistent survives");
    let buf = mem();
    let base = buf.as_ptr() as usize;
    let mut arena = Arena::with_scratch(buf, SCRATCH).expect("arena");
    let (loader, mut runner) = arena.split();
    let mut w = loader.persistent(&[64], DType::Int8).expect("w");
    for (i, v) in w.as_mut_slice::<i8>().expect("i8").iter_mut().enumerate() {
        *v = i as i8 - 32;
    }
    for round in 0..50u32 {
        runner.inference(|inf| {
            let mut a = inf.ephemeral(&[1, 256], DType::Int8).expect("a");
            h.eq(
                off(base, a.descriptor_ptr().as_ptr().cast()),
                96,
                "ephemeral reused at 96",
            );
            a.bytes_mut().fill(0xA5);
            let s = inf.scratch(512).expect("s");
            h.eq(
                off(base, s.as_ptr()),
                TENSOR_CAP,
                "scratch reused at the top",
            );
            s.fill(round as u8);
        });
        let st = runner.stats();
        h.eq(st.ephemeral_used, 0, "ephemeral empty after reset");
        h.eq(st.scratch_used, 0, "scratch empty after reset");
        h.eq(st.persistent_used, 96, "persistent kept");
        h.eq(st.reset_count, round + 1, "reset_count");
    }
    let ok = w
        .as_slice::<i8>()
        .expect("i8")
        .iter()
        .enumerate()
        .all(|(i, &v)| v == i as i8 - 32);
    h.check(ok, "persistent data intact after 50 inferences");
    h.check(
        w.as_slice::<f32>().is_err(),
        "typed view checked against dtype",
    );
}

/// Every statistic after a known sequence.
fn stats_values(h: &Harness) {
    h.group("statistics after a known sequence");
    let mut arena = Arena::with_scratch(mem(), SCRATCH).expect("arena");
    let (loader, mut runner) = arena.split();
    let _w = loader.persistent(&[100], DType::Int8).expect("w"); // 32 + 112 = 144
    runner.inference(|inf| {
        let _a = inf.ephemeral(&[10], DType::Float32).expect("a"); // 32 + 48 = 80
        let _b = inf.ephemeral(&[1], DType::Int8).expect("b"); // 48
        let _s = inf.scratch(300).expect("s"); // 304
    });
    runner.inference(|inf| {
        let _a = inf.ephemeral(&[4], DType::Int8).expect("a"); // 48
        let _s = inf.scratch(16).expect("s"); // 16
        let _ = inf.scratch(SCRATCH + 1); // failure
        let s = inf.stats();
        h.eq(s.ephemeral_used, 48, "ephemeral_used (live)");
        h.eq(s.scratch_used, 16, "scratch_used (live)");
    });
    let s: Stats = runner.stats();
    h.eq(s.persistent_used, 144, "persistent_used");
    h.eq(s.ephemeral_used, 0, "ephemeral_used");
    h.eq(s.ephemeral_peak, 128, "ephemeral_peak");
    h.eq(s.arena_peak, 144 + 128, "arena_peak");
    h.eq(s.scratch_used, 0, "scratch_used");
    h.eq(s.scratch_peak, 304, "scratch_peak");
    h.eq(s.alloc_count, 6, "alloc_count");
    h.eq(s.reset_count, 2, "reset_count");
    h.eq(s.failed_count, 1, "failed_count");
    h.eq(
        s.ephemeral_capacity(),
        TENSOR_CAP - 144,
        "ephemeral capacity",
    );
    h.eq(s.shared_used, 0, "shared_used");
    h.eq(s.shared_size, 0, "shared_size");
}

/// Every bad input gets its exact error kind (safe and raw API).
fn bad_inputs(h: &Harness) {
    h.group("every bad input: exact error kind");
    let mut arena = Arena::with_scratch(mem(), SCRATCH).expect("arena");
    let (loader, mut runner) = arena.split();
    let kind =
        |r: Result<synaptic_mem::Tensor<'_>, synaptic_mem::AllocError>| r.err().map(|e| e.kind);
    h.eq(
        kind(loader.persistent(&[], DType::Int8)),
        Some(ErrorKind::InvalidNdim),
        "ndim 0",
    );
    h.eq(
        kind(loader.persistent(&[1, 1, 1, 1, 1], DType::Int8)),
        Some(ErrorKind::InvalidNdim),
        "ndim 5",
    );
    h.eq(
        kind(loader.persistent(&[4, 0], DType::Int8)),
        Some(ErrorKind::ZeroDimension),
        "zero dimension",
    );
    h.eq(
        kind(loader.persistent(&[65536, 65536], DType::Int8)),
        Some(ErrorKind::SizeOverflow),
        "element count overflow",
    );
    h.eq(
        kind(loader.persistent(&[65536, 65536, 0], DType::Int8)),
        Some(ErrorKind::ZeroDimension),
        "zero dimension wins over overflow",
    );
    h.eq(
        kind(loader.persistent(&[0x4000_0000], DType::Float32)),
        Some(ErrorKind::SizeOverflow),
        "byte size overflow",
    );
    h.eq(
        kind(loader.persistent(&[TENSOR_CAP as u32], DType::Int8)),
        Some(ErrorKind::TooLarge),
        "larger than the tensor space",
    );
    h.eq(
        kind(loader.shared(&[4], DType::Int8)),
        Some(ErrorKind::NoSharedRegion),
        "SHARED without a region",
    );
    runner.inference(|inf| {
        let e = inf.scratch(0).err().map(|e| e.kind);
        h.eq(e, Some(ErrorKind::ZeroSize), "scratch 0 B");
        let e = inf.scratch(SCRATCH + 1).err();
        h.eq(
            e.map(|e| e.kind),
            Some(ErrorKind::TooLarge),
            "scratch larger than the pool",
        );
        h.eq(e.map(|e| e.region), Some(Region::Scratch), "scratch region");
        let _s = inf.scratch(SCRATCH - 16).expect("most of the pool");
        let e = inf.scratch(32).err();
        h.eq(
            e.map(|e| e.kind),
            Some(ErrorKind::OutOfMemory),
            "scratch larger than what is left",
        );
        h.eq(
            e.map(|e| (e.needed, e.available)),
            Some((32, 16)),
            "scratch needed/available",
        );
        h.eq(
            kind(loader.persistent(&[4], DType::Int8)),
            Some(ErrorKind::EphemeralLive),
            "persistent while scratch live",
        );
    });
    runner.inference(|inf| {
        let _a = inf.ephemeral(&[4], DType::Int8).expect("a");
        let e = loader.persistent(&[4], DType::Int8).err();
        h.eq(
            e.map(|e| e.kind),
            Some(ErrorKind::EphemeralLive),
            "persistent while ephemeral live",
        );
        h.eq(
            e.map(|e| e.region),
            Some(Region::Persistent),
            "persistent region",
        );
        // Fill the tensor space: 48 used, one block of the rest, then one more fails.
        let rest = (TENSOR_CAP - 48 - DESC_SPAN) as u32;
        let _big = inf.ephemeral(&[rest - 48], DType::Int8).expect("big");
        let e = inf.ephemeral(&[17], DType::Int8).err();
        h.eq(
            e.map(|e| e.kind),
            Some(ErrorKind::OutOfMemory),
            "ephemeral larger than what is left",
        );
        h.eq(
            e.map(|e| (e.needed, e.available)),
            Some((64, 48)),
            "ephemeral needed/available",
        );
    });
    h.eq(
        runner.stats().failed_count,
        14,
        "failed_count counts each failure",
    );
    // Raw API: same kinds.
    // (The safe arena is not used past this point.)
    let raw = RawArena::new(mem(), SCRATCH).expect("raw");
    let k = |r: Result<core::ptr::NonNull<TensorDesc>, synaptic_mem::AllocError>| {
        r.err().map(|e| e.kind)
    };
    h.eq(
        k(raw.alloc(&[], DType::Int8, Lifetime::Ephemeral)),
        Some(ErrorKind::InvalidNdim),
        "raw ndim 0",
    );
    h.eq(
        k(raw.alloc(&[0], DType::Int8, Lifetime::Ephemeral)),
        Some(ErrorKind::ZeroDimension),
        "raw zero dim",
    );
    h.eq(
        k(raw.alloc(&[u32::MAX, 2], DType::Int8, Lifetime::Ephemeral)),
        Some(ErrorKind::SizeOverflow),
        "raw overflow",
    );
    h.eq(
        k(raw.alloc(&[4], DType::Int8, Lifetime::Shared)),
        Some(ErrorKind::NoSharedRegion),
        "raw SHARED",
    );
    raw.alloc(&[4], DType::Int8, Lifetime::Ephemeral)
        .expect("e");
    h.eq(
        k(raw.alloc(&[4], DType::Int8, Lifetime::Persistent)),
        Some(ErrorKind::EphemeralLive),
        "raw persistent while ephemeral live",
    );
    raw.reset_ephemeral();
    h.check(
        raw.alloc(&[4], DType::Int8, Lifetime::Persistent).is_ok(),
        "persistent after reset",
    );
    h.eq(
        raw.scratch_acquire(0).err().map(|e| e.kind),
        Some(ErrorKind::ZeroSize),
        "raw scratch 0",
    );
    h.eq(
        raw.scratch_acquire(SCRATCH + 1).err().map(|e| e.kind),
        Some(ErrorKind::TooLarge),
        "raw scratch too large",
    );
    h.eq(
        raw.reject(ErrorKind::InvalidDtype, Region::Ephemeral).kind,
        ErrorKind::InvalidDtype,
        "reject keeps the layer's kind",
    );
    h.eq(raw.stats().failed_count, 8, "raw failed_count");
}

/// A failed allocation changes nothing but `failed_count` (and no data).
fn failure_changes_nothing(h: &Harness) {
    h.group("a failed allocation changes nothing but failed_count");
    let mut arena = Arena::with_scratch(mem(), SCRATCH).expect("arena");
    let (loader, mut runner) = arena.split();
    let mut w = loader.persistent(&[32], DType::UInt8).expect("w");
    w.bytes_mut().fill(0x5A);
    runner.inference(|inf| {
        let mut a = inf.ephemeral(&[32], DType::UInt8).expect("a");
        a.bytes_mut().fill(0xC3);
        let s = inf.scratch(64).expect("s");
        s.fill(0x3C);
        let before = inf.stats();
        let attempts: [Option<ErrorKind>; 6] = [
            inf.ephemeral(&[0], DType::Int8).err().map(|e| e.kind),
            inf.ephemeral(&[TENSOR_CAP as u32], DType::Int8)
                .err()
                .map(|e| e.kind),
            inf.scratch(SCRATCH).err().map(|e| e.kind),
            inf.scratch(0).err().map(|e| e.kind),
            loader.persistent(&[1], DType::Int8).err().map(|e| e.kind),
            loader.shared(&[1], DType::Int8).err().map(|e| e.kind),
        ];
        h.check(attempts.iter().all(|k| k.is_some()), "all six fail");
        let mut after = inf.stats();
        h.eq(
            after.failed_count,
            before.failed_count + 6,
            "failed_count +6",
        );
        after.failed_count = before.failed_count;
        h.eq(after, before, "every other statistic unchanged");
        h.check(
            a.bytes().iter().all(|&b| b == 0xC3),
            "ephemeral data intact",
        );
        h.check(s.iter().all(|&b| b == 0x3C), "scratch data intact");
        let b = inf.ephemeral(&[16], DType::UInt8).expect("b");
        h.eq(
            b.descriptor_ptr().as_ptr() as usize - a.descriptor_ptr().as_ptr() as usize,
            64,
            "next allocation right after the last good one",
        );
    });
    h.check(
        w.bytes().iter().all(|&b| b == 0x5A),
        "persistent data intact",
    );
}

/// The SHARED region: own bump pointer, survives resets, size limits.
fn shared_region(h: &Harness) {
    h.group("SHARED region: own bump pointer, survives resets");
    let sh = shared_mem();
    let sh_base = sh.as_ptr() as usize;
    {
        let mut small = [0u8; 47];
        let mut arena = Arena::with_scratch(mem(), SCRATCH).expect("arena");
        h.eq(
            arena.set_shared_region(&mut small).err(),
            Some(ConfigError::SharedSizeOutOfRange { size: 47 }),
            "shared region too small",
        );
    }
    let mut arena = Arena::with_scratch(mem(), SCRATCH).expect("arena");
    arena.set_shared_region(sh).expect("shared");
    h.eq(arena.stats().shared_size, 1024, "shared_size");
    let (loader, mut runner) = arena.split();
    let mut input = loader.shared(&[1, 8], DType::Float32).expect("input");
    let output = loader.shared(&[10], DType::Int8).expect("output");
    h.eq(
        off(sh_base, input.descriptor_ptr().as_ptr().cast()),
        0,
        "input descriptor at 0",
    );
    h.eq(off(sh_base, input.as_ptr()), 32, "input data at 32");
    h.eq(
        off(sh_base, output.descriptor_ptr().as_ptr().cast()),
        64,
        "output after input",
    );
    h.eq(output.lifetime(), Lifetime::Shared, "lifetime SHARED");
    input.as_mut_slice::<f32>().expect("f32").fill(1.5);
    for _ in 0..3 {
        runner.inference(|inf| {
            let _ = inf.ephemeral(&[64], DType::Int8).expect("e");
            h.check(
                loader.persistent(&[4], DType::Int8).is_err(),
                "persistent refused while ephemeral live",
            );
            h.check(
                loader.shared(&[4], DType::Int8).is_ok(),
                "shared allowed while ephemeral live",
            );
        });
    }
    let s = runner.stats();
    h.eq(
        s.shared_used,
        64 + 48 + 3 * 48,
        "shared_used survives resets",
    );
    h.eq(s.persistent_used, 0, "shared does not use the arena");
    h.check(
        input
            .as_slice::<f32>()
            .expect("f32")
            .iter()
            .all(|&v| v == 1.5),
        "shared data intact",
    );
    let big = loader.shared(&[2048], DType::Int8).err();
    h.eq(
        big.map(|e| e.kind),
        Some(ErrorKind::TooLarge),
        "larger than the shared region",
    );
}

/// Re-initialising reclaims persistent memory and zeroes the statistics.
fn reinit(h: &Harness) {
    h.group("re-initialising reclaims everything");
    let mut arena = Arena::with_scratch(mem(), SCRATCH).expect("arena");
    {
        let (loader, mut runner) = arena.split();
        loader.persistent(&[1000], DType::Int8).expect("w");
        runner.inference(|inf| {
            inf.ephemeral(&[10], DType::Int8).expect("a");
        });
    }
    h.check(arena.stats().persistent_used > 0, "persistent used before");
    arena.reinit();
    let s = arena.stats();
    h.eq(
        (
            s.persistent_used,
            s.ephemeral_used,
            s.arena_peak,
            s.alloc_count,
            s.reset_count,
        ),
        (0, 0, 0, 0, 0),
        "everything zero after reinit",
    );
    h.eq(s.tensor_capacity, TENSOR_CAP, "capacity kept");
    let (loader, _runner) = arena.split();
    let w = loader.persistent(&[4], DType::Int8).expect("w");
    let base = w.descriptor_ptr().as_ptr() as usize;
    h.eq(base % 16, 0, "first tensor after reinit aligned");
    h.eq(
        loader.stats().persistent_used,
        48,
        "persistent restarts at 0",
    );
}

/// `free` and scratch `release` change nothing.
fn no_op_free(h: &Harness) {
    h.group("free and scratch release are no-ops");
    let raw = RawArena::new(mem(), SCRATCH).expect("raw");
    let t = raw
        .alloc(&[16], DType::Int8, Lifetime::Ephemeral)
        .expect("t");
    let s = raw.scratch_acquire(32).expect("s");
    let before = raw.stats();
    raw.free(t);
    raw.scratch_release(s);
    h.eq(raw.stats(), before, "stats unchanged");
    let t2 = raw
        .alloc(&[16], DType::Int8, Lifetime::Ephemeral)
        .expect("t2");
    h.eq(
        raw.offset_of(t2.as_ptr().cast()),
        Some(48),
        "freed block not reused",
    );
}

/// An uninitialised arena refuses every allocation.
fn uninitialised(h: &Harness) {
    h.group("uninitialised arena refuses everything");
    let raw = RawArena::UNINIT;
    h.check(!raw.is_initialized(), "not initialised");
    for lt in [Lifetime::Persistent, Lifetime::Ephemeral] {
        h.eq(
            raw.alloc(&[4], DType::Int8, lt).err().map(|e| e.kind),
            Some(ErrorKind::NotInitialized),
            "alloc before init",
        );
    }
    h.eq(
        raw.scratch_acquire(16).err().map(|e| e.kind),
        Some(ErrorKind::NotInitialized),
        "scratch before init",
    );
    h.eq(raw.stats().failed_count, 3, "failures counted");
}

/// Two arenas at once are independent.
fn two_arenas(h: &Harness) {
    h.group("two independent arenas");
    let (a, b) = mem().split_at_mut(ARENA / 2);
    let ra = RawArena::new(a, 1024).expect("a");
    let rb = RawArena::new(b, 2048).expect("b");
    let ta = ra
        .alloc(&[8], DType::Int8, Lifetime::Ephemeral)
        .expect("ta");
    let tb = rb
        .alloc(&[8], DType::Int8, Lifetime::Ephemeral)
        .expect("tb");
    h.eq(ra.offset_of(ta.as_ptr().cast()), Some(0), "a at its base");
    h.eq(rb.offset_of(tb.as_ptr().cast()), Some(0), "b at its base");
    ra.reset_ephemeral();
    h.eq(rb.stats().ephemeral_used, 48, "resetting a leaves b alone");
    h.eq(ra.stats().scratch_size, 1024, "a scratch");
    h.eq(rb.stats().scratch_size, 2048, "b scratch");
}

/// The raw `alloc` (the C API's hot path): a `Result` whose error says why, and a failure that
/// changes nothing but the failed count.
fn raw_alloc(h: &Harness) {
    h.group("raw alloc (the C API's hot path): errors and nothing changed");
    let raw = RawArena::new(mem(), SCRATCH).expect("raw");
    let t = raw.alloc(&[2, 8], DType::Int16, Lifetime::Ephemeral).ok();
    h.eq(
        t.and_then(|t| raw.offset_of(t.as_ptr().cast())),
        Some(0),
        "pointer at offset 0",
    );
    let cases: [(&[u32], DType, Lifetime, ErrorKind); 5] = [
        (
            &[],
            DType::Int8,
            Lifetime::Ephemeral,
            ErrorKind::InvalidNdim,
        ),
        (
            &[3, 0],
            DType::Int8,
            Lifetime::Ephemeral,
            ErrorKind::ZeroDimension,
        ),
        (
            &[1 << 16, 1 << 16],
            DType::Int8,
            Lifetime::Ephemeral,
            ErrorKind::SizeOverflow,
        ),
        (
            &[4],
            DType::Int8,
            Lifetime::Persistent,
            ErrorKind::EphemeralLive,
        ),
        (
            &[4],
            DType::Int8,
            Lifetime::Shared,
            ErrorKind::NoSharedRegion,
        ),
    ];
    for (i, (shape, dtype, lt, kind)) in cases.into_iter().enumerate() {
        let before = raw.stats();
        h.eq(
            raw.alloc(shape, dtype, lt).err().map(|e| e.kind),
            Some(kind),
            "error kind",
        );
        let mut after = raw.stats();
        h.eq(
            after.failed_count,
            before.failed_count + 1,
            "failed_count + 1",
        );
        after.failed_count = before.failed_count;
        h.eq(after, before, "nothing else changed");
        h.eq(raw.stats().failed_count, i as u32 + 1, "failures so far");
    }
    let t2 = raw.alloc(&[1], DType::Int8, Lifetime::Ephemeral).ok();
    h.eq(
        t2.and_then(|t| raw.offset_of(t.as_ptr().cast())),
        Some(64),
        "next right after the first",
    );
}

#[cfg(feature = "capi")]
mod capi {
    //! The C API tests: `c/test_capi.c` compiled with arm-none-eabi-gcc, linked with
    //! `synaptic-mem-ffi` built for thumbv7m.
    use core::ffi::{c_char, c_int, CStr};

    use super::{Harness, ARENA, H, MEM, SHARED};

    extern "C" {
        /// Runs every C check in `c/test_capi.c` (reports through `synfw_check`).
        fn synfw_capi_tests(arena: *mut u8, arena_len: usize, shared: *mut u8, shared_len: usize);
    }

    /// Text of a C string from the test file (string literals; "?" if not UTF-8).
    fn text(p: *const c_char) -> &'static str {
        // SAFETY: the C test file passes string literals: NUL-terminated, static.
        unsafe { CStr::from_ptr(p) }.to_str().unwrap_or("?")
    }

    /// Records one C check (`CHECK(expr)` in `c/test_capi.c`).
    #[no_mangle]
    pub extern "C" fn synfw_check(ok: c_int, what: *const c_char, line: c_int) {
        if ok == 0 {
            cortex_m_semihosting::hprintln!("  at c/test_capi.c:{}", line);
        }
        H.check(ok != 0, text(what));
    }

    /// Starts a group of C checks.
    #[no_mangle]
    pub extern "C" fn synfw_group(name: *const c_char) {
        H.group(text(name));
    }

    /// Runs `c/test_capi.c` over the test arena and shared buffers.
    pub fn run(h: &Harness) {
        let before = (h.passed(), h.failed());
        // SAFETY: every Rust test has dropped its arena, so the C API is the only user of both
        // buffers from here on; the lengths are the buffers' sizes.
        unsafe { synfw_capi_tests(MEM.as_mut_ptr(), ARENA, SHARED.as_mut_ptr(), 1024) };
        cortex_m_semihosting::hprintln!(
            "C API: {} passed, {} failed",
            h.passed() - before.0,
            h.failed() - before.1
        );
    }
}
