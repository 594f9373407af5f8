//! The `syn_run_*` C API under hostile calls (issue 18), shared by the fuzz target `run_c_api`
//! (`fuzz/fuzz_targets/run_c_api.rs`) and the seeded test `tests/c_api_random.rs`.
//!
//! Two model objects, each with its own zone of memory (the arena, the shared region and
//! copies of the model bytes, the plan and the program are laid out in it, at standard or
//! fuzzed offsets, so a load may be given overlapping buffers). Calls take pointers that are
//! NULL, misaligned, the harness's own buffers or pointers into the zone's memory — the
//! object, the arena, the shared region, the model bytes, the program, the slots — and sizes
//! off by a little. After every call:
//!
//! * the return value is 0 or one of the documented negative errnos; a call the harness knows
//!   to be valid succeeds and one it knows to be hostile fails;
//! * a failed call changed nothing: the object's bytes, its arena and shared region, the
//!   caller's buffers (canaries) are as before;
//! * a loaded model's read-only memory (model bytes, plan, program) is never written;
//! * every loaded model still runs, and its outputs equal the Rust interpreter's on the same
//!   model, placement, plan and input.
//!
//! Pointers are only ever into memory the harness owns (the contract of the C API: hostile
//! values, not wild addresses), and every model object's zone is its own (memory given to one
//! model is never given to another: that would be the caller's error, undetectable).

#![allow(dead_code)]
// Every unsafe block calls an entry point with pointers into memory this harness owns.
#![allow(clippy::undocumented_unsafe_blocks)]

use core::ffi::{c_char, c_void};
use core::mem::size_of;
use core::ptr;
use std::sync::OnceLock;

use arbitrary::Arbitrary;
use synaptic_mem::plan::PlanSlot;
use synaptic_mem::{Arena, ArenaBuffer};
use synaptic_mem_ffi::errno::{EBUSY, EINVAL, ENODEV, ENOMEM, ENOTSUP};
use synaptic_plan::{Analysis, IoPlacement as PlanIo, Model as PlanModel, SizingOptions};
use synaptic_run::{program, Interpreter, IoPlacement, RunPlan};
use synaptic_run_ffi::*;

/// Bytes of each object's zone.
const ZONE: usize = 32 * 1024;
/// Where the standard layout puts each buffer in the zone (disjoint, 16-byte aligned).
const ARENA_AT: usize = 0;
const ARENA_BYTES: usize = 8 * 1024;
const SHARED_AT: usize = 8 * 1024;
const SHARED_BYTES: usize = 2 * 1024;
const MODEL_AT: usize = 10 * 1024;
const PROGRAM_AT: usize = 20 * 1024;
const SLOTS_AT: usize = 28 * 1024;
const OVERLAPS_AT: usize = 30 * 1024;

/// The committed models the harness loads: small enough to run at every step.
const MODELS: [&[u8]; 3] = [
    include_bytes!("../../../synaptic-run/tests/models/add_same_relu.tflite"),
    include_bytes!("../../../synaptic-run/tests/models/fc_pc_relu.tflite"),
    include_bytes!("../../../synaptic-run/tests/models/conv_1x1_none_pc.tflite"),
];

/// One model prepared for one placement and plan kind.
struct Prepared {
    program: Vec<u32>,
    slots: Vec<PlanSlot>,
    overlaps: Vec<SynPlanOverlap>,
    region: u32,
    input_bytes: usize,
    output_bytes: usize,
}

/// `[model][placement][overlap]`, computed once.
fn prepared(model: usize, io: IoPlacement, overlap: bool) -> &'static Prepared {
    static ALL: OnceLock<Vec<Prepared>> = OnceLock::new();
    let all = ALL.get_or_init(|| {
        let mut v = Vec::new();
        for bytes in MODELS {
            for io in [IoPlacement::Shared, IoPlacement::Plan] {
                for overlap in [false, true] {
                    v.push(prepare(bytes, io, overlap));
                }
            }
        }
        v
    });
    &all[model * 4 + usize::from(io == IoPlacement::Plan) * 2 + usize::from(overlap)]
}

fn prepare(bytes: &[u8], io: IoPlacement, overlap: bool) -> Prepared {
    let mut program = vec![0u32; program::compiled_len(bytes, io).unwrap()];
    program::compile(bytes, io, &mut program).unwrap();
    let options = SizingOptions {
        io: match io {
            IoPlacement::Shared => PlanIo::Shared,
            IoPlacement::Plan => PlanIo::Ephemeral,
        },
        overlap,
        ..SizingOptions::default()
    };
    let a = Analysis::new(PlanModel::from_bytes(bytes).unwrap(), &options).unwrap();
    let plan = a.ephemeral_plan.core_plan();
    let overlaps = a
        .ephemeral_plan
        .overlaps
        .iter()
        .map(SynPlanOverlap::from)
        .collect();
    let run_plan = RunPlan::overlapped(plan, &a.ephemeral_plan.overlaps);
    let (i, o, _) = reference(bytes, io, run_plan, &[], None);
    assert!(
        i + 2 <= ROOM && o + 2 <= ROOM,
        "a harness model's I/O fits its buffers"
    );
    Prepared {
        program,
        slots: plan.slots.to_vec(),
        overlaps,
        region: plan.region_size,
        input_bytes: i,
        output_bytes: o,
    }
}

/// The Rust interpreter on `bytes` with `plan`: input and output
/// sizes, and the output for `input` if one is given.
fn reference(
    bytes: &[u8],
    io: IoPlacement,
    plan: RunPlan<'_>,
    input: &[u8],
    run: Option<()>,
) -> (usize, usize, Vec<u8>) {
    let mut buf = Box::new(ArenaBuffer::<16384>::new());
    let mut shared = Box::new(ArenaBuffer::<4096>::new());
    let mut arena = Arena::exact(buf.as_mut_slice(), 0).unwrap();
    arena.set_shared_region(shared.as_mut_slice()).unwrap();
    let (loader, mut runner) = arena.split();
    let mut net = Interpreter::new(bytes, loader, plan, io).unwrap();
    let mut out = vec![0u8; net.output_bytes()];
    if run.is_some() {
        net.invoke(&mut runner, input, &mut out).unwrap();
    }
    (net.input_bytes(), net.output_bytes(), out)
}

/// The reference output of model `m` for `input` (the plain plan: every plan of a model
/// computes the same bytes).
fn expected(m: usize, input: &[u8]) -> Vec<u8> {
    let p = prepared(m, IoPlacement::Plan, false);
    let plan = synaptic_mem::Plan {
        region_size: p.region,
        slots: &p.slots,
    };
    reference(
        MODELS[m],
        IoPlacement::Plan,
        RunPlan::from(plan),
        input,
        Some(()),
    )
    .2
}

/// Where a pointer argument points.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Where {
    /// The harness's own buffer for this argument (valid, with canaries around).
    Own,
    /// NULL.
    Null,
    /// One byte into the harness's own buffer (misaligned for everything but bytes).
    Misaligned,
    /// Into the model object, at this byte (16-byte steps).
    Object(u8),
    /// Into the zone (the arena, the shared region, the model bytes, the program, the slots of
    /// the standard layout), at this 16-byte granule.
    Zone(u16),
}

/// How a load's buffers are placed in the zone.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// The standard, disjoint offset.
    Standard,
    /// At this 16-byte granule of the zone (may overlap another buffer).
    At(u16),
}

/// A deviation from a valid configuration.
#[derive(Arbitrary, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tweak {
    None,
    NullConfig,
    MisalignedConfig,
    NullModelBytes,
    ZeroModelSize,
    TruncatedModel(u16),
    NullSlots,
    SlotCount(i8),
    RegionSize(i16),
    Io(u32),
    SharedMissing,
    SharedGivenWithPlan,
    ArenaSize(i16),
    SharedSize(i16),
    NullProgram,
    MisalignedProgram,
    ProgramWords(i8),
    ProgramFlip(u16),
    ModelFlip(u16),
    OverlapDirection(u8),
    NullOverlaps,
    ObjectInArena,
}

/// One call.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Call {
    Load {
        obj: bool,
        model: u8,
        plan_io: bool,
        overlap: bool,
        program: bool,
        arena: Place,
        shared: Place,
        model_at: Place,
        tweak: Tweak,
    },
    Unload {
        obj: bool,
    },
    Input {
        obj: bool,
        index: u8,
        data: Where,
        size: Where,
    },
    Output {
        obj: bool,
        index: u8,
        data: Where,
        size: Where,
    },
    Invoke {
        obj: bool,
        seed: u8,
    },
    InvokeCopy {
        obj: bool,
        seed: u8,
        input: Where,
        input_delta: i8,
        output: Where,
        output_delta: i8,
    },
    Memory {
        obj: bool,
        at: Where,
    },
    IoInfo {
        obj: bool,
        at: Where,
    },
    Message {
        size: u8,
    },
    /// The object copied elsewhere, a call made on the copy.
    Moved {
        obj: bool,
    },
}

/// A fuzz input: a sequence of calls.
#[derive(Arbitrary, Debug)]
pub struct Input {
    /// The calls, in order (at most 24 run).
    pub calls: Vec<Call>,
}

/// A 16-byte aligned heap block the harness owns, reached only through its raw pointer.
struct Block {
    p: *mut u8,
    len: usize,
}

#[repr(C, align(16))]
struct Granule([u8; 16]);

impl Block {
    fn new(len: usize) -> Block {
        let v: Vec<Granule> = (0..len.div_ceil(16)).map(|_| Granule([0; 16])).collect();
        let p = Box::into_raw(v.into_boxed_slice()).cast::<u8>();
        Block { p, len }
    }
    fn at(&self, off: usize) -> *mut u8 {
        assert!(off <= self.len);
        unsafe { self.p.add(off) }
    }
    fn read(&self, off: usize, n: usize) -> Vec<u8> {
        let mut v = vec![0u8; n];
        unsafe { ptr::copy_nonoverlapping(self.at(off), v.as_mut_ptr(), n) };
        v
    }
    fn write(&self, off: usize, b: &[u8]) {
        assert!(off + b.len() <= self.len);
        unsafe { ptr::copy_nonoverlapping(b.as_ptr(), self.at(off), b.len()) };
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        let n = self.len.div_ceil(16);
        drop(unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(self.p.cast::<Granule>(), n)) });
    }
}

/// What the harness knows of a loaded model.
#[derive(Clone, Copy)]
struct Loaded {
    model: usize,
    io: IoPlacement,
    overlap: bool,
    /// Zone ranges that are the model's read-only memory: (offset, bytes).
    readonly: [(usize, usize); 4],
    /// Zone ranges it writes: the arena and the shared region.
    written: [(usize, usize); 2],
}

struct Slot {
    object: Block,
    zone: Block,
    loaded: Option<Loaded>,
}

/// The harness's own buffers for out pointers, with canaries.
const CANARY: u8 = 0xA5;

fn granule(g: u16) -> usize {
    (usize::from(g) * 16) % ZONE
}

/// Runs `input`'s calls; panics on any violated property.
pub fn run(input: &Input) {
    let mut slots = [0, 1].map(|_| Slot {
        object: Block::new(size_of::<SynRunModel>()),
        zone: Block::new(ZONE),
        loaded: None,
    });
    for call in input.calls.iter().take(24) {
        step(&mut slots, *call);
        for s in &slots {
            check_health(s);
        }
    }
    for s in &slots {
        assert_eq!(unsafe { syn_run_unload(s.object.p.cast()) }, 0);
    }
}

/// The documented errnos of the API.
fn documented(rc: i32) -> bool {
    rc == 0 || [EINVAL, ENOMEM, ENOTSUP, ENODEV, EBUSY].contains(&-rc)
}

/// A loaded model still runs and its read-only memory is intact.
fn check_health(s: &Slot) {
    let Some(l) = s.loaded else {
        let mut info = SynRunIoInfo::default();
        assert_eq!(
            unsafe { syn_run_io_info(s.object.p.cast(), &mut info) },
            -ENODEV,
            "an unloaded object answers"
        );
        return;
    };
    let p = prepared(l.model, l.io, l.overlap);
    let input: Vec<u8> = (0..p.input_bytes).map(|i| (i * 7 + 3) as u8).collect();
    let mut out = vec![0u8; p.output_bytes];
    let rc = unsafe {
        syn_run_invoke_copy(
            s.object.p.cast(),
            input.as_ptr().cast(),
            input.len(),
            out.as_mut_ptr().cast(),
            out.len(),
        )
    };
    assert_eq!(rc, 0, "a loaded model stopped running: {}", message());
    assert_eq!(
        out,
        expected(l.model, &input),
        "outputs differ from the interpreter's"
    );
    let model = MODELS[l.model];
    assert_eq!(
        s.zone.read(l.readonly[0].0, model.len()),
        model,
        "the model bytes were written"
    );
}

fn message() -> String {
    let mut buf = [0 as c_char; SYN_RUN_MESSAGE_MAX + 1];
    let n = unsafe { syn_run_last_error_message(buf.as_mut_ptr(), buf.len()) };
    buf[..n.min(SYN_RUN_MESSAGE_MAX)]
        .iter()
        .map(|&c| c as u8 as char)
        .collect()
}

/// Everything a failed call must leave as it was: the object, the arena, the shared region.
fn snapshot(s: &Slot) -> (Vec<u8>, Vec<u8>) {
    (
        s.object.read(0, s.object.len),
        s.zone
            .read(0, SHARED_AT + SHARED_BYTES.min(ZONE - SHARED_AT)),
    )
}

/// Bytes every pointer argument may cover.
const ROOM: usize = 1024;

/// The address of a pointer argument `w` (the harness's own buffer `own` for [`Where::Own`]).
fn pointer(s: &Slot, w: Where, own: &Block) -> *mut u8 {
    match w {
        Where::Own => own.at(16),
        Where::Null => ptr::null_mut(),
        Where::Misaligned => own.at(17),
        Where::Object(b) => s
            .object
            .at((usize::from(b) * 16) % (size_of::<SynRunModel>() - 16)),
        // Room for the largest argument (the models' I/O, a `SynRunMemory`).
        Where::Zone(g) => s.zone.at(granule(g).min(ZONE - ROOM)),
    }
}

/// The model's memory as address ranges `(start, bytes, written)`: its object and, while
/// loaded, its arena and shared region (written) and its read-only buffers.
fn model_spans(s: &Slot) -> Vec<(usize, usize, bool)> {
    let mut v = vec![(s.object.p as usize, s.object.len, true)];
    if let Some(l) = s.loaded {
        for &(a, n) in &l.written {
            v.push((s.zone.at(a) as usize, n, true));
        }
        for &(a, n) in &l.readonly {
            v.push((s.zone.at(a) as usize, n, false));
        }
    }
    v
}

fn overlaps(a: usize, n: usize, b: usize, m: usize) -> bool {
    n > 0 && m > 0 && a < b + m && b < a + n
}

/// Whether an out pointer `p` to `n` bytes (alignment `align`) must be refused: NULL,
/// misaligned, or overlapping any memory of the model.
fn bad_out(s: &Slot, p: *mut u8, n: usize, align: usize) -> bool {
    let a = p as usize;
    p.is_null() || a % align != 0 || model_spans(s).iter().any(|&(b, m, _)| overlaps(a, n, b, m))
}

/// Bytes of the harness's out buffers (with 16 canary bytes before and after).
const OWN: usize = 4096;

fn own_block() -> Block {
    let b = Block::new(OWN);
    b.write(0, &[CANARY; OWN]);
    b
}

fn step(slots: &mut [Slot; 2], call: Call) {
    match call {
        Call::Load {
            obj,
            model,
            plan_io,
            overlap,
            program,
            arena,
            shared,
            model_at,
            tweak,
        } => load(
            &mut slots[usize::from(obj)],
            usize::from(model) % MODELS.len(),
            if plan_io {
                IoPlacement::Plan
            } else {
                IoPlacement::Shared
            },
            overlap,
            program,
            [arena, shared, model_at],
            tweak,
        ),
        Call::Unload { obj } => {
            let s = &mut slots[usize::from(obj)];
            assert_eq!(unsafe { syn_run_unload(s.object.p.cast()) }, 0);
            s.loaded = None;
        }
        Call::Input {
            obj,
            index,
            data,
            size,
        }
        | Call::Output {
            obj,
            index,
            data,
            size,
        } => {
            let s = &slots[usize::from(obj)];
            let own = own_block();
            let word = size_of::<usize>();
            let (dp, sp) = (pointer(s, data, &own), pointer(s, size, &own));
            let alias = !dp.is_null() && overlaps(dp as usize, word, sp as usize, word);
            let bad = bad_out(s, dp, word, word) || bad_out(s, sp, word, word) || alias;
            let before = snapshot(s);
            let is_input = matches!(call, Call::Input { .. });
            let rc = unsafe {
                if is_input {
                    syn_run_input(s.object.p.cast(), u32::from(index), dp.cast(), sp.cast())
                } else {
                    syn_run_output(s.object.p.cast(), u32::from(index), dp.cast(), sp.cast())
                }
            };
            assert!(documented(rc), "{rc}");
            let valid = s.loaded.is_some_and(|l| {
                let count = if l.model == 0 && is_input { 2 } else { 1 };
                l.io == IoPlacement::Shared && usize::from(index) < count
            });
            if bad || !valid {
                assert_ne!(rc, 0, "a hostile input/output call succeeded");
                assert_eq!(snapshot(s), before, "a failed call changed the model");
                assert_eq!(own.read(0, OWN), [CANARY; OWN], "a failed call wrote");
            } else {
                assert_eq!(rc, 0, "{}", message());
            }
        }
        Call::Invoke { obj, seed } => {
            let s = &slots[usize::from(obj)];
            let rc = unsafe { syn_run_invoke(s.object.p.cast()) };
            assert!(documented(rc));
            match s.loaded {
                None => assert_eq!(rc, -ENODEV),
                Some(l) if l.io == IoPlacement::Plan => assert_eq!(rc, -EINVAL),
                Some(l) => {
                    assert_eq!(rc, 0, "{}", message());
                    // Fill the inputs in place, run, compare.
                    let p = prepared(l.model, l.io, l.overlap);
                    let input: Vec<u8> = (0..p.input_bytes)
                        .map(|i| (i as u8).wrapping_mul(seed | 1))
                        .collect();
                    let mut off = 0;
                    let mut k = 0;
                    while off < input.len() {
                        let (mut d, mut n) = (ptr::null_mut::<c_void>(), 0usize);
                        let rc = unsafe { syn_run_input(s.object.p.cast(), k, &mut d, &mut n) };
                        assert_eq!(rc, 0, "{}", message());
                        unsafe { ptr::copy_nonoverlapping(input[off..].as_ptr(), d.cast(), n) };
                        off += n;
                        k += 1;
                    }
                    assert_eq!(unsafe { syn_run_invoke(s.object.p.cast()) }, 0);
                    let (mut d, mut n) = (ptr::null::<c_void>(), 0usize);
                    let rc = unsafe { syn_run_output(s.object.p.cast(), 0, &mut d, &mut n) };
                    assert_eq!(rc, 0, "{}", message());
                    let got = unsafe { core::slice::from_raw_parts(d.cast::<u8>(), n) };
                    assert_eq!(got, &expected(l.model, &input)[..n]);
                }
            }
        }
        Call::InvokeCopy {
            obj,
            seed,
            input,
            input_delta,
            output,
            output_delta,
        } => {
            let s = &slots[usize::from(obj)];
            let own_in = own_block();
            let own_out = own_block();
            let (ip, op) = (pointer(s, input, &own_in), pointer(s, output, &own_out));
            let Some(l) = s.loaded else {
                let rc =
                    unsafe { syn_run_invoke_copy(s.object.p.cast(), ip.cast(), 4, op.cast(), 4) };
                assert_ne!(rc, 0);
                return;
            };
            let p = prepared(l.model, l.io, l.overlap);
            let ni = p
                .input_bytes
                .saturating_add_signed(isize::from(input_delta % 3));
            let no = p
                .output_bytes
                .saturating_add_signed(isize::from(output_delta % 3));
            let data: Vec<u8> = (0..ni).map(|i| (i as u8) ^ seed).collect();
            if input == Where::Own {
                own_in.write(16, &data);
            }
            let before = snapshot(s);
            let rc =
                unsafe { syn_run_invoke_copy(s.object.p.cast(), ip.cast(), ni, op.cast(), no) };
            assert!(documented(rc));
            // The input may overlap the model's read-only memory, never what it writes; the
            // output overlaps nothing of the model, nor the input.
            let (ia, oa) = (ip as usize, op as usize);
            let spans = model_spans(s);
            let hostile = ni != p.input_bytes
                || no != p.output_bytes
                || (ip.is_null() && ni > 0)
                || (op.is_null() && no > 0)
                || overlaps(ia, ni, oa, no)
                || spans
                    .iter()
                    .any(|&(b, m, w)| overlaps(oa, no, b, m) || (w && overlaps(ia, ni, b, m)));
            if hostile {
                assert_ne!(rc, 0, "a hostile invoke_copy succeeded");
                assert_eq!(snapshot(s).0, before.0, "a failed call changed the object");
                if output == Where::Own {
                    assert_eq!(own_out.read(0, OWN), [CANARY; OWN], "a failed call wrote");
                }
            } else {
                assert_eq!(rc, 0, "{}", message());
                if input == Where::Own && output == Where::Own {
                    assert_eq!(own_out.read(16, no), expected(l.model, &data));
                }
            }
        }
        Call::Memory { obj, at } | Call::IoInfo { obj, at } => {
            let s = &slots[usize::from(obj)];
            let own = own_block();
            let memory = matches!(call, Call::Memory { .. });
            let (n, align) = if memory {
                (
                    size_of::<SynRunMemory>(),
                    core::mem::align_of::<SynRunMemory>(),
                )
            } else {
                (
                    size_of::<SynRunIoInfo>(),
                    core::mem::align_of::<SynRunIoInfo>(),
                )
            };
            let p = pointer(s, at, &own);
            let bad = bad_out(s, p, n, align);
            let before = snapshot(s);
            let rc = unsafe {
                if memory {
                    syn_run_memory(s.object.p.cast(), p.cast())
                } else {
                    syn_run_io_info(s.object.p.cast(), p.cast())
                }
            };
            assert!(documented(rc));
            if bad || s.loaded.is_none() {
                assert_ne!(rc, 0, "a hostile memory/io_info call succeeded");
                assert_eq!(snapshot(s), before, "a failed call changed the model");
                assert_eq!(own.read(0, OWN), [CANARY; OWN], "a failed call wrote");
            } else {
                assert_eq!(rc, 0, "{}", message());
                if memory && at == Where::Own {
                    let m: SynRunMemory = unsafe { ptr::read(p.cast()) };
                    assert_eq!(m.total, m.persistent + m.planned + m.scratch + m.shared);
                }
            }
        }
        Call::Message { size } => {
            let own = own_block();
            let n = usize::from(size);
            let len = unsafe { syn_run_last_error_message(own.at(16).cast(), n) };
            assert!(len <= SYN_RUN_MESSAGE_MAX);
            let buf = own.read(0, OWN);
            assert_eq!(&buf[..16], &[CANARY; 16]);
            assert!(
                buf[16 + n..].iter().all(|&b| b == CANARY),
                "wrote past size"
            );
            if n > 0 {
                assert_eq!(buf[16 + len.min(n - 1)], 0, "no NUL");
            }
            let _ = syn_run_last_error();
        }
        Call::Moved { obj } => {
            let s = &slots[usize::from(obj)];
            let copy = Block::new(size_of::<SynRunModel>());
            copy.write(0, &s.object.read(0, s.object.len));
            let mut info = SynRunIoInfo::default();
            let rc = unsafe { syn_run_io_info(copy.p.cast(), &mut info) };
            assert!(
                rc == -EINVAL || rc == -ENODEV,
                "a moved object answered: {rc}"
            );
            // Unloading a copy only clears the copy.
            assert_eq!(unsafe { syn_run_unload(copy.p.cast()) }, 0);
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn load(
    s: &mut Slot,
    m: usize,
    io: IoPlacement,
    overlap: bool,
    given: bool,
    places: [Place; 3],
    tweak: Tweak,
) {
    let p = prepared(m, io, overlap);
    let bytes = MODELS[m];
    let standard = places.iter().all(|&x| x == Place::Standard);
    let at = |pl: Place, std: usize, n: usize| match pl {
        Place::Standard => std,
        Place::At(g) => granule(g).min(ZONE - n),
    };
    let arena_at = at(places[0], ARENA_AT, ARENA_BYTES);
    let shared_at = at(places[1], SHARED_AT, SHARED_BYTES);
    // The model copy below the program's (read-only copies never overlap each other: they
    // would corrupt each other before the load reads them).
    let model_at = match places[2] {
        Place::Standard => MODEL_AT,
        Place::At(g) => granule(g).min(PROGRAM_AT - bytes.len()) & !15,
    };
    let was_loaded = s.loaded.is_some();
    if !was_loaded {
        // The read-only copies, written only while no model reads them.
        let mut model_copy = bytes.to_vec();
        if let (Tweak::ModelFlip(i), true) = (tweak, given) {
            let k = usize::from(i) % model_copy.len();
            model_copy[k] ^= 0x40;
        }
        s.zone.write(model_at, &model_copy);
        let words: Vec<u8> = p.program.iter().flat_map(|w| w.to_ne_bytes()).collect();
        s.zone.write(PROGRAM_AT, &words);
        if let Tweak::ProgramFlip(i) = tweak {
            let k = 4 * (usize::from(i) % p.program.len());
            let mut w = s.zone.read(PROGRAM_AT + k, 4);
            w[0] ^= 1;
            s.zone.write(PROGRAM_AT + k, &w);
        }
        let slot_bytes = unsafe {
            core::slice::from_raw_parts(
                p.slots.as_ptr().cast::<u8>(),
                p.slots.len() * size_of::<PlanSlot>(),
            )
        };
        s.zone.write(SLOTS_AT, slot_bytes);
        let mut ov = p.overlaps.clone();
        if let (Tweak::OverlapDirection(d), Some(first)) = (tweak, ov.first_mut()) {
            first.direction = d.max(2);
        }
        let ov_bytes = unsafe {
            core::slice::from_raw_parts(
                ov.as_ptr().cast::<u8>(),
                ov.len() * size_of::<SynPlanOverlap>(),
            )
        };
        s.zone.write(OVERLAPS_AT, ov_bytes);
    }
    let shared = io == IoPlacement::Shared;
    let mut c = SynRunConfig {
        model: s.zone.at(model_at).cast(),
        model_size: bytes.len(),
        slots: s.zone.at(SLOTS_AT).cast(),
        slot_count: p.slots.len() as u32,
        overlaps: if p.overlaps.is_empty() {
            ptr::null()
        } else {
            s.zone.at(OVERLAPS_AT).cast()
        },
        overlap_count: p.overlaps.len() as u32,
        region_size: p.region,
        io: SynRunIo::to_raw(io),
        arena: s.zone.at(arena_at).cast(),
        arena_size: ARENA_BYTES,
        shared: if shared {
            s.zone.at(shared_at).cast()
        } else {
            ptr::null_mut()
        },
        shared_size: if shared { SHARED_BYTES } else { 0 },
        program: if given {
            s.zone.at(PROGRAM_AT).cast()
        } else {
            ptr::null()
        },
        program_words: if given { p.program.len() } else { 0 },
    };
    // The config itself in the harness's own memory, 8 bytes past a 16-byte boundary for
    // the misaligned tweak.
    let cfg = Block::new(size_of::<SynRunConfig>() + 32);
    // `must`: the tweak makes the load invalid; `may`: it may (a size with slack, buffers
    // placed elsewhere): then only a clean answer is required.
    let (mut must, mut may) = (false, !standard);
    match tweak {
        Tweak::None => {}
        Tweak::NullConfig | Tweak::MisalignedConfig => must = true,
        Tweak::NullModelBytes => (c.model, must) = (ptr::null(), true),
        Tweak::ZeroModelSize => (c.model_size, must) = (0, true),
        Tweak::TruncatedModel(n) => {
            // A cut through padding may still read as the same model.
            c.model_size -= 1 + usize::from(n) % bytes.len();
            may = true;
        }
        Tweak::NullSlots => {
            must |= c.slot_count > 0;
            c.slots = ptr::null();
        }
        Tweak::SlotCount(d) => {
            let n = (c.slot_count as i64 + i64::from(d % 3)).max(0) as u32;
            must |= n != c.slot_count;
            c.slot_count = n;
        }
        Tweak::RegionSize(d) => {
            let r = (i64::from(c.region_size) + i64::from(d)).clamp(0, i64::from(u32::MAX));
            may |= r != i64::from(c.region_size);
            c.region_size = r as u32;
        }
        Tweak::Io(v) => {
            must |= v != SynRunIo::to_raw(io);
            c.io = v;
        }
        Tweak::SharedMissing => {
            must |= shared;
            c.shared = ptr::null_mut();
        }
        Tweak::SharedGivenWithPlan => {
            must |= !shared;
            c.shared = s.zone.at(shared_at).cast();
            c.shared_size = SHARED_BYTES;
        }
        Tweak::ArenaSize(d) => {
            let n = (ARENA_BYTES as i64 + i64::from(d)).clamp(0, ARENA_BYTES as i64) as usize;
            may |= n != ARENA_BYTES;
            c.arena_size = n;
        }
        Tweak::SharedSize(d) => {
            if shared {
                let n = (SHARED_BYTES as i64 + i64::from(d)).clamp(0, SHARED_BYTES as i64);
                may |= n as usize != SHARED_BYTES;
                c.shared_size = n as usize;
            }
        }
        Tweak::NullProgram => {
            // NULL with program_words above 0.
            must |= given;
            c.program = ptr::null();
        }
        Tweak::MisalignedProgram => {
            if given {
                c.program = unsafe { c.program.cast::<u8>().add(2).cast() };
                must = true;
            }
        }
        Tweak::ProgramWords(d) => {
            if given {
                let n = c.program_words.saturating_add_signed(isize::from(d % 3));
                must |= n != c.program_words;
                c.program_words = n;
            }
        }
        // Flipped bits are effective only on a fresh copy (a model's only with a program
        // given). Either is always refused: the program's seal covers every word of it and
        // every byte of the model.
        Tweak::ProgramFlip(_) | Tweak::ModelFlip(_) => must |= given && !was_loaded,
        Tweak::OverlapDirection(_) => must |= !p.overlaps.is_empty() && !was_loaded,
        Tweak::NullOverlaps => {
            must |= c.overlap_count > 0;
            c.overlaps = ptr::null();
        }
        Tweak::ObjectInArena => {
            c.arena = s.object.p.cast();
            c.arena_size = ARENA_BYTES;
            must = true;
        }
    }
    cfg.write(8, unsafe {
        core::slice::from_raw_parts((&raw const c).cast::<u8>(), size_of::<SynRunConfig>())
    });
    let cfg_ptr: *const SynRunConfig = match tweak {
        Tweak::NullConfig => ptr::null(),
        Tweak::MisalignedConfig => cfg.at(12).cast(),
        _ => {
            cfg.write(16, unsafe {
                core::slice::from_raw_parts((&raw const c).cast::<u8>(), size_of::<SynRunConfig>())
            });
            cfg.at(16).cast()
        }
    };
    let before = s.object.read(0, s.object.len);
    let rc = unsafe { syn_run_load(s.object.p.cast(), cfg_ptr) };
    assert!(documented(rc), "{rc}");
    if was_loaded {
        assert!(rc != 0, "a load over a loaded model succeeded");
        assert_eq!(
            s.object.read(0, s.object.len),
            before,
            "a refused load changed the model"
        );
        return;
    }
    if must {
        assert_ne!(rc, 0, "a hostile load succeeded: {tweak:?}");
    } else if !may {
        assert_eq!(rc, 0, "a valid load failed: {}", message());
    }
    if rc == 0 {
        let written = [
            (arena_at, c.arena_size),
            (shared_at, if shared { c.shared_size } else { 0 }),
        ];
        // The loaded model's own read-only copies must not lie in what it writes (it refused
        // such a load otherwise).
        s.loaded = Some(Loaded {
            model: m,
            io,
            overlap,
            readonly: [
                (model_at, bytes.len()),
                (PROGRAM_AT, if given { 4 * p.program.len() } else { 0 }),
                (SLOTS_AT, p.slots.len() * size_of::<PlanSlot>()),
                (OVERLAPS_AT, p.overlaps.len() * size_of::<SynPlanOverlap>()),
            ],
            written,
        });
    }
}
