//! Rust unit tests of the entry points: the tiny ADD model (two int8 inputs, one output) with
//! plans from synaptic-plan and programs from `synaptic_run::program::compile` (given in
//! `syn_run_config_t.program`, or NULL: compiled at load), against the Rust interpreter itself;
//! every bad argument and every bad program.

// Every unsafe call here is an entry point called with valid pointers (or the NULL, misaligned
// or overlapping ones under test, which the entry points must refuse).
#![allow(clippy::undocumented_unsafe_blocks)]

use core::ffi::{c_char, c_void};
use core::ptr;
use std::sync::Mutex;

use synaptic_mem::{Arena, ArenaBuffer};
use synaptic_mem_ffi::errno::{EBUSY, EINVAL, ENODEV, ENOMEM};
use synaptic_plan::{Analysis, IoPlacement as PlanIo, Model as PlanModel, SizingOptions};
use synaptic_run::{program, Interpreter, IoPlacement};

use crate::*;

/// The last error is global: tests that read it run one at a time.
static LOCK: Mutex<()> = Mutex::new(());

fn model() -> &'static [u8] {
    synaptic_tflite::tests_support::tiny_model()
}

/// The compiled program of `model` for `io`, as `synmem emit` writes it.
fn compiled(model: &[u8], io: IoPlacement) -> Vec<u32> {
    let mut w = vec![0u32; program::compiled_len(model, io).unwrap()];
    assert_eq!(program::compile(model, io, &mut w).unwrap(), w.len());
    w
}

fn slots(io: IoPlacement) -> (Vec<synaptic_mem::plan::PlanSlot>, u32) {
    slots_of(model(), io)
}

/// The plain plan of model `bytes` for `io`.
fn slots_of(bytes: &[u8], io: IoPlacement) -> (Vec<synaptic_mem::plan::PlanSlot>, u32) {
    let m = PlanModel::from_bytes(bytes).unwrap();
    let options = SizingOptions {
        io: match io {
            IoPlacement::Shared => PlanIo::Shared,
            IoPlacement::Plan => PlanIo::Ephemeral,
        },
        // The plain plan (`synmem emit --no-overlap`; test_run.c runs overlapped ones too).
        overlap: false,
        ..SizingOptions::default()
    };
    let a = Analysis::new(m, &options).unwrap();
    let plan = a.ephemeral_plan.core_plan();
    (plan.slots.to_vec(), plan.region_size)
}

/// The Rust interpreter's output for `input`: what the C API must return.
fn reference(input: &[u8]) -> Vec<u8> {
    reference_with(IoPlacement::Plan, None, input).0
}

/// The Rust interpreter's output for `input` with I/O placed as `io` and the program given
/// (`Interpreter::with_program`) or compiled at load, and its memory figures.
fn reference_with(
    io: IoPlacement,
    program: Option<&[u32]>,
    input: &[u8],
) -> (Vec<u8>, synaptic_run::Memory) {
    let (s, region) = slots(io);
    let mut buf = Box::new(ArenaBuffer::<8192>::new());
    let mut shared = Box::new(ArenaBuffer::<1024>::new());
    let mut arena = Arena::exact(buf.as_mut_slice(), 0).unwrap();
    if io == IoPlacement::Shared {
        arena.set_shared_region(shared.as_mut_slice()).unwrap();
    }
    let (loader, mut runner) = arena.split();
    let plan = synaptic_mem::Plan {
        region_size: region,
        slots: &s,
    };
    let mut net = match program {
        Some(w) => Interpreter::with_program(model(), w, loader, plan, io),
        None => Interpreter::new(model(), loader, plan, io),
    }
    .unwrap();
    let mut out = vec![0u8; net.output_bytes()];
    net.invoke(&mut runner, input, &mut out).unwrap();
    (out, net.memory())
}

struct Setup {
    /// The model (the tiny one unless [`Setup::of`] says another).
    model: &'static [u8],
    slots: Vec<synaptic_mem::plan::PlanSlot>,
    /// `Box::into_raw` too: the model owns these while loaded (no Rust reference to them).
    arena: *mut ArenaBuffer<8192>,
    shared: *mut ArenaBuffer<1024>,
    /// `Box::into_raw`: every access goes through this one raw pointer, as from C.
    net: *mut SynRunModel,
    io: IoPlacement,
    region: u32,
    /// The program given in the config (`None`: NULL, compiled at load). Only read while the
    /// model is loaded.
    program: Option<Vec<u32>>,
}

impl Setup {
    fn new(io: IoPlacement) -> Setup {
        Setup::of(model(), io)
    }

    /// With model `model` and its plain plan.
    fn of(model: &'static [u8], io: IoPlacement) -> Setup {
        let (slots, region) = slots_of(model, io);
        Setup {
            model,
            slots,
            arena: Box::into_raw(Box::new(ArenaBuffer::new())),
            shared: Box::into_raw(Box::new(ArenaBuffer::new())),
            net: Box::into_raw(Box::new(SynRunModel::ZEROED)),
            io,
            region,
            program: None,
        }
    }

    /// With the model's compiled program for this placement, as from flash.
    fn with_program(io: IoPlacement) -> Setup {
        let mut s = Setup::new(io);
        s.program = Some(compiled(s.model, io));
        s
    }

    fn config(&self) -> SynRunConfig {
        let shared = self.io == IoPlacement::Shared;
        SynRunConfig {
            model: self.model.as_ptr().cast(),
            model_size: self.model.len(),
            slots: self.slots.as_ptr(),
            slot_count: self.slots.len() as u32,
            overlaps: ptr::null(),
            overlap_count: 0,
            region_size: self.region,
            io: SynRunIo::to_raw(self.io),
            arena: self.arena.cast(),
            arena_size: 8192,
            shared: if shared {
                self.shared.cast()
            } else {
                ptr::null_mut()
            },
            shared_size: if shared { 1024 } else { 0 },
            program: self.program.as_ref().map_or(ptr::null(), |w| w.as_ptr()),
            program_words: self.program.as_ref().map_or(0, Vec::len),
        }
    }

    fn load(&mut self) -> i32 {
        let c = self.config();
        unsafe { syn_run_load(self.net, &c) }
    }
}

impl Drop for Setup {
    fn drop(&mut self) {
        assert_eq!(unsafe { syn_run_unload(self.net) }, 0);
        drop(unsafe { Box::from_raw(self.net) });
        drop(unsafe { Box::from_raw(self.arena) });
        drop(unsafe { Box::from_raw(self.shared) });
    }
}

/// `syn_run_invoke_copy` of `input` into `out` (both whole slices).
fn invoke_copy(net: *mut SynRunModel, input: &[u8], out: &mut [u8]) -> i32 {
    unsafe {
        syn_run_invoke_copy(
            net,
            input.as_ptr().cast(),
            input.len(),
            out.as_mut_ptr().cast(),
            out.len(),
        )
    }
}

fn message() -> String {
    let mut buf = [0 as c_char; SYN_RUN_MESSAGE_MAX + 1];
    let n = unsafe { syn_run_last_error_message(buf.as_mut_ptr(), buf.len()) };
    let s: Vec<u8> = buf[..n].iter().map(|&c| c as u8).collect();
    String::from_utf8(s).unwrap()
}

#[track_caller]
fn fails(rc: i32, err: i32, needle: &str) {
    assert_eq!(rc, -err, "message: {}", message());
    assert_eq!(syn_run_last_error(), -err);
    let m = message();
    assert!(m.contains(needle), "message {m:?} lacks {needle:?}");
}

#[test]
fn shared_io_in_place_and_copied_equal_the_interpreter() {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let mut s = Setup::new(IoPlacement::Shared);
    assert_eq!(s.load(), 0, "{}", message());
    let net = s.net;
    let mut info = SynRunIoInfo::default();
    assert_eq!(unsafe { syn_run_io_info(net, &mut info) }, 0);
    assert_eq!((info.inputs, info.outputs), (2, 1));
    for seed in 0u8..8 {
        let input: Vec<u8> = (0..info.input_bytes)
            .map(|i| {
                (i as u8)
                    .wrapping_mul(37)
                    .wrapping_add(seed.wrapping_mul(91))
            })
            .collect();
        let expected = reference(&input);
        let mut out = vec![0x5Au8; info.output_bytes];
        let rc = invoke_copy(net, &input, &mut out);
        assert_eq!(rc, 0, "{}", message());
        assert_eq!(out, expected);
        // In place: fill both inputs, invoke, read the output.
        let mut off = 0;
        for k in 0..info.inputs {
            let (mut data, mut size) = (ptr::null_mut::<c_void>(), 0usize);
            assert_eq!(unsafe { syn_run_input(net, k, &mut data, &mut size) }, 0);
            assert_eq!(data as usize % 16, 0);
            unsafe { ptr::copy_nonoverlapping(input[off..].as_ptr(), data.cast(), size) };
            off += size;
        }
        assert_eq!(unsafe { syn_run_invoke(net) }, 0);
        let (mut data, mut size) = (ptr::null::<c_void>(), 0usize);
        assert_eq!(unsafe { syn_run_output(net, 0, &mut data, &mut size) }, 0);
        let got = unsafe { core::slice::from_raw_parts(data.cast::<u8>(), size) };
        assert_eq!(got, &expected[..]);
    }
    let mut mem = SynRunMemory::default();
    assert_eq!(unsafe { syn_run_memory(net, &mut mem) }, 0);
    assert_eq!(
        mem.total,
        mem.persistent + mem.planned + mem.scratch + mem.shared
    );
    assert_eq!(mem.arena, mem.persistent + mem.planned + mem.scratch);
    assert!(mem.shared > 0);
}

/// The tiny model's overlapped plan (synaptic-plan's default) with I/O in the plan, and its
/// declared overlaps in the C layout.
fn overlapped_plan() -> (Vec<synaptic_mem::plan::PlanSlot>, u32, Vec<SynPlanOverlap>) {
    let m = PlanModel::from_bytes(model()).unwrap();
    let options = SizingOptions {
        io: PlanIo::Ephemeral,
        ..SizingOptions::default()
    };
    let a = Analysis::new(m, &options).unwrap();
    let plan = a.ephemeral_plan.core_plan();
    let pairs = a
        .ephemeral_plan
        .overlaps
        .iter()
        .map(SynPlanOverlap::from)
        .collect();
    (plan.slots.to_vec(), plan.region_size, pairs)
}

#[test]
fn overlapped_plan_runs_and_bad_declarations_are_refused() {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let (slots, region, pairs) = overlapped_plan();
    assert!(!pairs.is_empty(), "the ADD's output overlaps a dying input");
    let mut s = Setup::new(IoPlacement::Plan);
    s.slots = slots;
    s.region = region;
    let with = |c: SynRunConfig, p: &[SynPlanOverlap]| SynRunConfig {
        overlaps: p.as_ptr(),
        overlap_count: p.len() as u32,
        ..c
    };
    // Without its declarations the plan is invalid (two live slots share bytes).
    let c = s.config();
    assert_eq!(unsafe { syn_run_load(s.net, &c) }, -EINVAL);
    // A direction byte naming no direction; NULL with a count.
    let mut bad = pairs.clone();
    bad[0].direction = 2;
    fails(
        unsafe { syn_run_load(s.net, &with(c, &bad)) },
        EINVAL,
        "config->overlaps[0].direction is 2",
    );
    let null = SynRunConfig {
        overlaps: ptr::null(),
        overlap_count: 1,
        ..c
    };
    fails(
        unsafe { syn_run_load(s.net, &null) },
        EINVAL,
        "config->overlaps is NULL",
    );
    // As declared: loads, runs, equals the interpreter (plain plan).
    let good = with(c, &pairs);
    assert_eq!(unsafe { syn_run_load(s.net, &good) }, 0, "{}", message());
    let mut info = SynRunIoInfo::default();
    assert_eq!(unsafe { syn_run_io_info(s.net, &mut info) }, 0);
    for input in inputs(info.input_bytes).take(3) {
        let mut out = vec![0u8; info.output_bytes];
        let rc = invoke_copy(s.net, &input, &mut out);
        assert_eq!(rc, 0, "{}", message());
        assert_eq!(out, reference(&input));
    }
    // The declarations are only read while loaded: an output over them is refused, the
    // model stays usable.
    assert_eq!(unsafe { syn_run_unload(s.net) }, 0);
    let words = size_of_val(&pairs[..]).max(info.output_bytes).div_ceil(4);
    let mut store = vec![0u32; words];
    unsafe {
        ptr::copy_nonoverlapping(
            pairs.as_ptr().cast::<u8>(),
            store.as_mut_ptr().cast::<u8>(),
            size_of_val(&pairs[..]),
        )
    };
    let inside = SynRunConfig {
        overlaps: store.as_ptr().cast(),
        overlap_count: pairs.len() as u32,
        ..c
    };
    assert_eq!(unsafe { syn_run_load(s.net, &inside) }, 0, "{}", message());
    let input: Vec<u8> = inputs(info.input_bytes).next().unwrap();
    fails(
        unsafe {
            syn_run_invoke_copy(
                s.net,
                input.as_ptr().cast(),
                input.len(),
                store.as_mut_ptr().cast(),
                info.output_bytes,
            )
        },
        EINVAL,
        "output overlaps the plan's overlaps",
    );
    let mut out = vec![0u8; info.output_bytes];
    let rc = invoke_copy(s.net, &input, &mut out);
    assert_eq!(rc, 0, "{}", message());
    assert_eq!(out, reference(&input));
    let mut mem = SynRunMemory::default();
    assert_eq!(unsafe { syn_run_memory(s.net, &mut mem) }, 0);
    assert_eq!(mem.planned, region as usize);
    // Unloaded before `store` goes.
    assert_eq!(unsafe { syn_run_unload(s.net) }, 0);
}

#[test]
fn plan_io_copies_and_refuses_in_place() {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let mut s = Setup::new(IoPlacement::Plan);
    assert_eq!(s.load(), 0, "{}", message());
    let net = s.net;
    let mut info = SynRunIoInfo::default();
    assert_eq!(unsafe { syn_run_io_info(net, &mut info) }, 0);
    let input: Vec<u8> = (0..info.input_bytes).map(|i| (i * 7 + 3) as u8).collect();
    let input = &input[..];
    let mut out = vec![0u8; info.output_bytes];
    let rc = invoke_copy(net, input, &mut out);
    assert_eq!(rc, 0, "{}", message());
    assert_eq!(out, reference(input));
    let (mut data, mut size) = (ptr::null_mut::<c_void>(), 0usize);
    fails(
        unsafe { syn_run_input(net, 0, &mut data, &mut size) },
        EINVAL,
        "SYN_RUN_IO_PLAN",
    );
    assert!(data.is_null());
    fails(
        unsafe { syn_run_invoke(net) },
        EINVAL,
        "syn_run_invoke_copy",
    );
    let mut mem = SynRunMemory::default();
    assert_eq!(unsafe { syn_run_memory(net, &mut mem) }, 0);
    assert_eq!(mem.shared, 0);
    assert_eq!(mem.planned, s.region as usize);
}

#[test]
fn exact_arena_loads_and_one_granule_less_does_not() {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    for (io, given) in [
        (IoPlacement::Shared, false),
        (IoPlacement::Plan, false),
        (IoPlacement::Shared, true),
        (IoPlacement::Plan, true),
    ] {
        let mut s = if given {
            Setup::with_program(io)
        } else {
            Setup::new(io)
        };
        assert_eq!(s.load(), 0);
        let mut mem = SynRunMemory::default();
        assert_eq!(unsafe { syn_run_memory(s.net, &mut mem) }, 0);
        assert_eq!(unsafe { syn_run_unload(s.net) }, 0);
        let mut c = s.config();
        c.arena_size = mem.arena;
        assert_eq!(unsafe { syn_run_load(s.net, &c) }, 0, "{}", message());
        assert_eq!(unsafe { syn_run_unload(s.net) }, 0);
        c.arena_size = mem.arena - 16;
        let rc = unsafe { syn_run_load(s.net, &c) };
        // Too small for the model (-ENOMEM), or for any tensor space at all (-EINVAL, the
        // arena set-up's one errno).
        assert!(rc == -ENOMEM || rc == -EINVAL, "{rc}");
        assert!(message().starts_with("load: "), "{}", message());
        fails(unsafe { syn_run_invoke(s.net) }, ENODEV, "no model loaded");
    }
}

#[test]
fn bad_arguments_are_errors() {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let mut s = Setup::new(IoPlacement::Shared);
    let net = s.net;
    fails(unsafe { syn_run_invoke(net) }, ENODEV, "no model loaded");
    fails(
        unsafe { syn_run_load(ptr::null_mut(), ptr::null()) },
        EINVAL,
        "model is NULL",
    );
    fails(
        unsafe { syn_run_load(net, ptr::null()) },
        EINVAL,
        "config is NULL",
    );
    let good = s.config();
    let cases: Vec<(SynRunConfig, i32, &str)> = vec![
        (SynRunConfig { io: 2, ..good }, EINVAL, "not a syn_run_io_t"),
        (
            SynRunConfig {
                model: ptr::null(),
                ..good
            },
            EINVAL,
            "config->model is NULL",
        ),
        (
            SynRunConfig {
                model_size: 3,
                ..good
            },
            EINVAL,
            "load:",
        ),
        (
            SynRunConfig {
                shared: ptr::null_mut(),
                ..good
            },
            EINVAL,
            "needs a shared region",
        ),
        (
            SynRunConfig {
                slot_count: 1,
                slots: ptr::null(),
                ..good
            },
            EINVAL,
            "slots is NULL",
        ),
        (
            SynRunConfig {
                shared: good.arena,
                ..good
            },
            EINVAL,
            "the arena overlaps the shared",
        ),
        (
            // 16 bytes: the object alone (a whole arena's size from there might reach the
            // shared region too, wherever the allocator put it).
            SynRunConfig {
                arena: net.cast(),
                arena_size: 16,
                ..good
            },
            EINVAL,
            "the arena overlaps the syn_run_model_t",
        ),
        (
            SynRunConfig {
                arena_size: usize::MAX,
                ..good
            },
            EINVAL,
            "wrap",
        ),
        (
            SynRunConfig {
                program_words: 1,
                ..good
            },
            EINVAL,
            "program_words",
        ),
        (
            SynRunConfig {
                program: [7u32].as_ptr(),
                program_words: 1,
                ..good
            },
            EINVAL,
            "load: program does not match the model: shorter than a program header",
        ),
        (
            SynRunConfig {
                arena_size: 16,
                ..good
            },
            EINVAL,
            "load:",
        ),
    ];
    for (c, err, needle) in cases {
        fails(unsafe { syn_run_load(net, &c) }, err, needle);
        fails(unsafe { syn_run_invoke(net) }, ENODEV, "no model loaded");
    }
    assert_eq!(s.load(), 0);
    fails(s.load(), EBUSY, "syn_run_unload() it first");
    // Out pointers, indices, sizes.
    let (mut data, mut size) = (ptr::null_mut::<c_void>(), 0usize);
    fails(
        unsafe { syn_run_input(net, 2, &mut data, &mut size) },
        EINVAL,
        "input 2 out of range",
    );
    fails(
        unsafe { syn_run_input(net, 0, ptr::null_mut(), &mut size) },
        EINVAL,
        "data is NULL",
    );
    fails(
        unsafe { syn_run_memory(net, ptr::null_mut()) },
        EINVAL,
        "memory is NULL",
    );
    let mut out = [0x5Au8; 8];
    fails(
        unsafe { syn_run_invoke_copy(net, [1u8].as_ptr().cast(), 1, out.as_mut_ptr().cast(), 1) },
        EINVAL,
        "bytes given",
    );
    assert_eq!(out, [0x5A; 8]);
    // A copy of the loaded object is refused; the original still works.
    // (A byte copy, as C's memcpy: the object holds padding, never read as integers.)
    let copy = Box::into_raw(Box::new(SynRunModel::ZEROED));
    unsafe {
        ptr::copy_nonoverlapping(
            net.cast::<u8>(),
            copy.cast::<u8>(),
            core::mem::size_of::<SynRunModel>(),
        )
    };
    fails(unsafe { syn_run_invoke(copy) }, EINVAL, "moved or copied");
    assert_eq!(unsafe { syn_run_unload(copy) }, 0);
    drop(unsafe { Box::from_raw(copy) });
    assert_eq!(unsafe { syn_run_invoke(net) }, 0);
    // Busy: a call while another runs on the same object (as from an interrupt handler).
    let state = unsafe { (*net).opaque_[0] };
    unsafe { (*net).opaque_[0] = (state & !0xFFFF_FFFF) | u64::from(0x5359_4E42u32) };
    fails(unsafe { syn_run_invoke(net) }, EBUSY, "running");
    fails(unsafe { syn_run_unload(net) }, EBUSY, "running");
    unsafe { (*net).opaque_[0] = state };
    assert_eq!(unsafe { syn_run_invoke(net) }, 0);
}

#[test]
fn message_is_truncated_like_snprintf() {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    fails(
        unsafe { syn_run_invoke(ptr::null_mut()) },
        EINVAL,
        "model is NULL",
    );
    let mut small = [b'x' as c_char; 4];
    let n = unsafe { syn_run_last_error_message(small.as_mut_ptr(), small.len()) };
    assert_eq!(n, "model is NULL".len());
    assert_eq!(small.map(|c| c as u8), *b"mod\0");
    assert_eq!(unsafe { syn_run_last_error_message(ptr::null_mut(), 0) }, n);
}

#[test]
// File I/O only (nothing for Miri to check, and Miri's isolation refuses `open`).
#[cfg_attr(miri, ignore)]
fn committed_header_is_fresh() {
    let fresh = std::fs::read_to_string(env!("SYN_RUN_GENERATED_HEADER")).unwrap();
    let committed = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/include/synaptic/syn_run.h"
    ))
    .unwrap();
    assert!(
        fresh == committed,
        "include/synaptic/syn_run.h is stale: run scripts/test-ffi.sh --update-header"
    );
}

#[test]
fn object_size_matches_the_header_for_this_pointer_width() {
    assert_eq!(core::mem::size_of::<SynRunModel>(), SYN_RUN_MODEL_WORDS * 8);
    let words = if cfg!(target_pointer_width = "32") {
        SYN_RUN_MODEL_WORDS_32
    } else {
        SYN_RUN_MODEL_WORDS_64
    };
    assert_eq!(SYN_RUN_MODEL_WORDS, words);
}

/// Inputs of the tiny model: seeded bytes.
fn inputs(n: usize) -> impl Iterator<Item = Vec<u8>> {
    (0u8..6).map(move |seed| {
        (0..n)
            .map(|i| {
                (i as u8)
                    .wrapping_mul(29)
                    .wrapping_add(seed.wrapping_mul(83))
            })
            .collect()
    })
}

#[test]
fn program_given_or_compiled_at_load_equals_the_interpreter() {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    for io in [IoPlacement::Shared, IoPlacement::Plan] {
        let words = compiled(model(), io);
        let mut ram = Setup::new(io);
        let mut flash = Setup::with_program(io);
        assert_eq!(ram.load(), 0, "{}", message());
        assert_eq!(flash.load(), 0, "{}", message());
        let mut info = SynRunIoInfo::default();
        assert_eq!(unsafe { syn_run_io_info(flash.net, &mut info) }, 0);
        for input in inputs(info.input_bytes) {
            let (expected, _) = reference_with(io, Some(&words), &input);
            assert_eq!(expected, reference(&input));
            for net in [ram.net, flash.net] {
                let mut out = vec![0x5Au8; info.output_bytes];
                let rc = invoke_copy(net, &input, &mut out);
                assert_eq!(rc, 0, "{}", message());
                assert_eq!(out, expected);
            }
        }
        // The figures: the interpreter's own, the program's bytes in no RAM figure when given.
        let mut mf = SynRunMemory::default();
        let mut mr = SynRunMemory::default();
        assert_eq!(unsafe { syn_run_memory(flash.net, &mut mf) }, 0);
        assert_eq!(unsafe { syn_run_memory(ram.net, &mut mr) }, 0);
        let input = vec![0u8; info.input_bytes];
        assert_eq!(
            mf,
            SynRunMemory::from(reference_with(io, Some(&words), &input).1)
        );
        assert_eq!(mr, SynRunMemory::from(reference_with(io, None, &input).1));
        assert_eq!(mf.program, 4 * words.len());
        assert_eq!(mf.program_flash, 4 * words.len());
        assert_eq!((mf.tables, mf.locations), (0, 0));
        assert_eq!(mf.persistent, mf.plan_descriptors);
        assert_eq!(mr.program, 4 * words.len());
        assert_eq!(mr.program_flash, 0);
        // Compiled at load, the program is one persistent tensor: descriptor + words.
        assert_eq!(
            mr.tables,
            synaptic_mem::DESC_SPAN + (4 * words.len()).div_ceil(16) * 16
        );
        assert_eq!(mr.persistent, mf.persistent + mr.tables);
        assert_eq!(mr.total, mf.total + mr.tables);
        assert_eq!(mr.arena.max(mf.arena), mr.arena);
        assert_eq!(
            (mf.planned, mf.scratch, mf.shared),
            (mr.planned, mr.scratch, mr.shared)
        );
    }
}

/// A config whose program is `w` (`n` words at `w`).
fn with_words(c: SynRunConfig, w: *const u32, n: usize) -> SynRunConfig {
    SynRunConfig {
        program: w,
        program_words: n,
        ..c
    }
}

#[test]
fn bad_programs_are_refused_and_change_nothing() {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let other = include_bytes!("../../synaptic-run/tests/models/mul_same_none.tflite");
    for io in [IoPlacement::Shared, IoPlacement::Plan] {
        let mut s = Setup::with_program(io);
        let net = s.net;
        let good = s.config();
        let words = s.program.clone().unwrap();
        let n = words.len();
        let other_io = match io {
            IoPlacement::Shared => IoPlacement::Plan,
            IoPlacement::Plan => IoPlacement::Shared,
        };
        let of_other_model = compiled(other, io);
        let of_other_io = compiled(model(), other_io);
        // One word flipped: in the slot/I-O tables or the header's patched fields, in the
        // operator record's head, in its parameters, and the last word (a shift).
        let mut flips: Vec<(usize, Vec<u32>)> = Vec::new();
        for k in [program::HEADER_WORDS, n / 2, n - 1] {
            let mut w = words.clone();
            w[k] = !w[k];
            flips.push((k, w));
        }
        // A writable copy of the program with room after it, for the misaligned pointer.
        let spare: Vec<u32> = words.iter().copied().chain([0]).collect();
        let misaligned = unsafe { spare.as_ptr().cast::<u8>().add(1) }.cast::<u32>();
        let arena_words = s.arena.cast::<u32>().cast_const();
        let mut cases: Vec<(SynRunConfig, i32, String)> = vec![
            (
                with_words(good, of_other_model.as_ptr(), of_other_model.len()),
                EINVAL,
                "load: program does not match the model: compiled for another model".into(),
            ),
            (
                with_words(good, of_other_io.as_ptr(), of_other_io.len()),
                EINVAL,
                "program does not match the model: compiled for the other I/O placement".into(),
            ),
            (
                with_words(good, words.as_ptr(), n - 1),
                EINVAL,
                "program does not match the model: its length word differs from its size \
                 (truncated or extended) (word 2)"
                    .into(),
            ),
            (
                with_words(good, words.as_ptr(), 0),
                EINVAL,
                "shorter than a program header (truncated)".into(),
            ),
            (
                with_words(good, misaligned, n),
                EINVAL,
                "config->program is not aligned to 4 bytes".into(),
            ),
            (
                with_words(good, arena_words, n),
                EINVAL,
                "the arena overlaps the program".into(),
            ),
            (
                with_words(good, net.cast::<u32>().cast_const(), n),
                EINVAL,
                "the syn_run_model_t overlaps the program".into(),
            ),
            (
                with_words(good, words.as_ptr(), usize::MAX / 2),
                EINVAL,
                format!(
                    "config->program: {} elements of 4 bytes overflow",
                    usize::MAX / 2
                ),
            ),
            (
                with_words(good, words.as_ptr(), isize::MAX as usize / 4 + 1),
                EINVAL,
                "wrap the address space".into(),
            ),
            (
                with_words(good, ptr::null(), n),
                EINVAL,
                "config->program is NULL but program_words is not 0".into(),
            ),
        ];
        if io == IoPlacement::Shared {
            cases.push((
                with_words(good, s.shared.cast::<u32>().cast_const(), n),
                EINVAL,
                "the shared region overlaps the program".into(),
            ));
        }
        for (c, err, needle) in &cases {
            fails(unsafe { syn_run_load(net, c) }, *err, needle);
            fails(unsafe { syn_run_invoke(net) }, ENODEV, "no model loaded");
        }
        // An altered word: refused by the seal (header word `HEADER_WORDS - 1`), whichever.
        for (_, w) in &flips {
            fails(
                unsafe { syn_run_load(net, &with_words(good, w.as_ptr(), n)) },
                EINVAL,
                &format!(
                    "its seal differs (altered, or compiled from other model bytes) (word {})",
                    program::HEADER_WORDS - 1
                ),
            );
            let m = message();
            assert!(
                m.starts_with("load: program does not match the model: "),
                "{m}"
            );
            fails(unsafe { syn_run_invoke(net) }, ENODEV, "no model loaded");
        }
        // The program was only read.
        assert_eq!(s.program.as_deref(), Some(&words[..]));
        assert_eq!(&spare[..n], &words[..]);
        // The good program loads after all that; a bad one on the loaded object is -EBUSY and
        // the model still runs.
        assert_eq!(s.load(), 0, "{}", message());
        let c = with_words(good, of_other_model.as_ptr(), of_other_model.len());
        fails(
            unsafe { syn_run_load(net, &c) },
            EBUSY,
            "syn_run_unload() it first",
        );
        let mut info = SynRunIoInfo::default();
        assert_eq!(unsafe { syn_run_io_info(net, &mut info) }, 0);
        let input: Vec<u8> = (0..info.input_bytes).map(|i| i as u8).collect();
        let mut out = vec![0u8; info.output_bytes];
        let rc = invoke_copy(net, &input, &mut out);
        assert_eq!(rc, 0, "{}", message());
        assert_eq!(out, reference(&input));
        let mut mem = SynRunMemory::default();
        assert_eq!(unsafe { syn_run_memory(net, &mut mem) }, 0);
        assert_eq!(mem.program_flash, 4 * n);
        assert_eq!(unsafe { syn_run_unload(net) }, 0);
        s.program = None;
    }
}

/// The program is only read: an input of syn_run_invoke_copy may overlap it, an output not.
#[test]
fn invoke_copy_may_read_from_the_program_never_write_it() {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let mut s = Setup::new(IoPlacement::Plan);
    let words = compiled(model(), IoPlacement::Plan);
    let n = words.len();
    // The program, then room for an input that starts inside it and runs past its end.
    let mut buf = words.clone();
    buf.resize(n + 64, 0x0102_0304);
    s.program = Some(buf);
    let mut c = s.config();
    c.program_words = n;
    assert_eq!(unsafe { syn_run_load(s.net, &c) }, 0, "{}", message());
    let mut info = SynRunIoInfo::default();
    assert_eq!(unsafe { syn_run_io_info(s.net, &mut info) }, 0);
    assert!(4 * 64 >= info.input_bytes + 4);
    let base = s.program.as_ref().unwrap().as_ptr();
    // The input: from the program's last word on.
    let at = unsafe { base.add(n - 1) }.cast::<u8>();
    let input = unsafe { core::slice::from_raw_parts(at, info.input_bytes) }.to_vec();
    let mut out = vec![0x5Au8; info.output_bytes];
    let rc = unsafe {
        syn_run_invoke_copy(
            s.net,
            at.cast(),
            info.input_bytes,
            out.as_mut_ptr().cast(),
            out.len(),
        )
    };
    assert_eq!(rc, 0, "{}", message());
    assert_eq!(out, reference(&input));
    // The output into the program: refused before anything is written.
    let rc = unsafe {
        syn_run_invoke_copy(
            s.net,
            input.as_ptr().cast(),
            input.len(),
            base.add(1).cast_mut().cast(),
            info.output_bytes,
        )
    };
    fails(rc, EINVAL, "output overlaps the program");
    assert_eq!(&s.program.as_ref().unwrap()[..n], &words[..]);
    // The model is intact.
    let mut again = vec![0u8; info.output_bytes];
    let rc = unsafe {
        syn_run_invoke_copy(
            s.net,
            input.as_ptr().cast(),
            input.len(),
            again.as_mut_ptr().cast(),
            again.len(),
        )
    };
    assert_eq!(rc, 0, "{}", message());
    assert_eq!(again, out);
}

/// Issue 18, class 6: an out pointer of `syn_run_memory`, `syn_run_io_info`, `syn_run_input` or
/// `syn_run_output` inside the loaded model's memory (its `syn_run_model_t`, its arena, its
/// shared region) or aliasing the call's other out pointer is refused with -EINVAL and nothing
/// is written. Before: the result overwrote the object, and the next call crashed (ASan).
#[test]
fn out_pointers_into_the_model_are_refused() {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let mut s = Setup::new(IoPlacement::Shared);
    assert_eq!(s.load(), 0, "{}", message());
    let net = s.net;
    let object: *mut u8 = net.cast();
    let before = unsafe { core::slice::from_raw_parts(object, size_of::<SynRunModel>()).to_vec() };
    let intact = || {
        let now = unsafe { core::slice::from_raw_parts(object, size_of::<SynRunModel>()) };
        let diff: Vec<usize> = (0..now.len()).filter(|&i| now[i] != before[i]).collect();
        assert!(diff.is_empty(), "the model object changed at {diff:?}");
    };
    // Every out pointer at the start of the object, 8 bytes in, and in the arena and the
    // shared region (16-byte aligned places, so alignment is not what refuses them).
    let places: [(*mut u8, &str); 4] = [
        (object, "the syn_run_model_t"),
        (unsafe { object.add(16) }, "the syn_run_model_t"),
        (s.arena.cast(), "the arena"),
        (s.shared.cast(), "the shared region"),
    ];
    for (p, name) in places {
        fails(
            unsafe { syn_run_memory(net, p.cast()) },
            EINVAL,
            &format!("memory overlaps {name}"),
        );
        intact();
        fails(
            unsafe { syn_run_io_info(net, p.cast()) },
            EINVAL,
            &format!("info overlaps {name}"),
        );
        intact();
        let mut size = 0usize;
        let mut data = ptr::null_mut::<c_void>();
        fails(
            unsafe { syn_run_input(net, 0, p.cast(), &mut size) },
            EINVAL,
            &format!("data overlaps {name}"),
        );
        fails(
            unsafe { syn_run_input(net, 0, &mut data, p.cast()) },
            EINVAL,
            &format!("size overlaps {name}"),
        );
        fails(
            unsafe { syn_run_output(net, 0, p.cast(), &mut size) },
            EINVAL,
            &format!("data overlaps {name}"),
        );
        intact();
        assert_eq!((data, size), (ptr::null_mut(), 0), "nothing written");
    }
    // `data` and `size` the same place: the second write would clobber the first.
    let mut both = [0usize; 2];
    let p: *mut usize = both.as_mut_ptr();
    fails(
        unsafe { syn_run_input(net, 0, p.cast(), p) },
        EINVAL,
        "other out pointer",
    );
    assert_eq!(both, [0, 0]);
    // The model still works.
    let mut info = SynRunIoInfo::default();
    assert_eq!(unsafe { syn_run_io_info(net, &mut info) }, 0);
    let input = vec![3u8; info.input_bytes];
    let mut out = vec![0u8; info.output_bytes];
    assert_eq!(invoke_copy(net, &input, &mut out), 0, "{}", message());
    assert_eq!(out, reference(&input));
}

/// A library built with `program-given-only` refuses a load with no program (it links no
/// compiler) and runs the emitted one bit-exactly.
#[cfg(feature = "program-given-only")]
#[test]
fn program_given_only_refuses_compiling_at_load() {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    use synaptic_mem_ffi::errno::ENOTSUP;
    for io in [IoPlacement::Shared, IoPlacement::Plan] {
        let mut s = Setup::new(io);
        fails(s.load(), ENOTSUP, "built with program-given-only");
        let mut s = Setup::with_program(io);
        assert_eq!(s.load(), 0, "{}", message());
        assert_eq!(unsafe { syn_run_unload(s.net) }, 0);
    }
}

/// A library built with `strip-error-strings` returns each failure's errno as before, with the
/// one fixed message, and runs the model as before.
#[cfg(feature = "strip-error-strings")]
#[test]
fn stripped_error_strings_keep_the_errno() {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let mut s = Setup::new(IoPlacement::Shared);
    assert_eq!(s.load(), 0, "{}", message());
    let net = s.net;
    let (mut data, mut size) = (ptr::null_mut(), 0usize);
    fails(
        unsafe { syn_run_input(net, 99, &mut data, &mut size) },
        EINVAL,
        crate::error::STRIPPED,
    );
    let mut info = SynRunIoInfo::default();
    assert_eq!(unsafe { syn_run_io_info(net, &mut info) }, 0);
    let input = vec![3u8; info.input_bytes];
    let mut out = vec![0u8; info.output_bytes];
    assert_eq!(invoke_copy(net, &input, &mut out), 0);
    assert_eq!(out, reference(&input));
    assert_eq!(unsafe { syn_run_unload(net) }, 0);
}

/// A library built with `SYNAPTIC_RUN_PATHS=FC_BIAS` (scripts/test-ffi.sh) refuses the
/// emitted hello_world_int8 program, whose layers take `FC_FOLDED`, at load (-ENOTSUP, naming
/// the operator), leaving nothing behind: the next load of it fails the same way.
#[test]
#[ignore = "needs the library built with SYNAPTIC_RUN_PATHS=FC_BIAS: scripts/test-ffi.sh"]
fn linked_paths_refuse_a_program_taking_another() {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    use synaptic_mem_ffi::errno::ENOTSUP;
    assert_eq!(
        option_env!("SYNAPTIC_RUN_PATHS"),
        Some("FC_BIAS"),
        "run with SYNAPTIC_RUN_PATHS=FC_BIAS"
    );
    // The shared models: `$SYNAPTIC_SHARED`, or `../shared` beside the repository.
    let shared = std::env::var_os("SYNAPTIC_SHARED")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared").into());
    let path = shared.join("models/hello_world_int8.tflite");
    let hello: &'static [u8] =
        Vec::leak(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())));
    for _ in 0..2 {
        let io = IoPlacement::Shared;
        let mut s = Setup::of(hello, io);
        let words = compiled(hello, io);
        assert_eq!(
            program::paths(&words),
            Some(synaptic_run::ops::paths::FC_FOLDED)
        );
        s.program = Some(words);
        fails(s.load(), ENOTSUP, "FULLY_CONNECTED");
    }
}
