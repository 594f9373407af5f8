//! Rust unit tests of the entry points: the tiny ADD model (two int8 inputs, one output) with
//! plans from synaptic-plan, against the Rust interpreter itself; every bad argument.

// Every unsafe call here is an entry point called with valid pointers (or the NULL, misaligned
// or overlapping ones under test, which the entry points must refuse).
#![allow(clippy::undocumented_unsafe_blocks)]

use core::ffi::{c_char, c_void};
use core::ptr;
use std::sync::Mutex;

use synaptic_mem::{Arena, ArenaBuffer};
use synaptic_mem_ffi::errno::{EBUSY, EINVAL, ENODEV, ENOMEM, ENOTSUP};
use synaptic_plan::{Analysis, IoPlacement as PlanIo, Model as PlanModel, SizingOptions};
use synaptic_run::{Interpreter, IoPlacement};

use crate::*;

/// The last error is global: tests that read it run one at a time.
static LOCK: Mutex<()> = Mutex::new(());

fn model() -> &'static [u8] {
    synaptic_tflite::tests_support::tiny_model()
}

fn slots(io: IoPlacement) -> (Vec<synaptic_mem::plan::PlanSlot>, u32) {
    let m = PlanModel::from_bytes(model()).unwrap();
    let options = SizingOptions {
        io: match io {
            IoPlacement::Shared => PlanIo::Shared,
            IoPlacement::Plan => PlanIo::Ephemeral,
        },
        ..SizingOptions::default()
    };
    let a = Analysis::new(m, &options).unwrap();
    let plan = a.ephemeral_plan.core_plan();
    (plan.slots.to_vec(), plan.region_size)
}

/// The Rust interpreter's output for `input`: what the C API must return.
fn reference(input: &[u8]) -> Vec<u8> {
    let (s, region) = slots(IoPlacement::Plan);
    let mut buf = Box::new(ArenaBuffer::<8192>::new());
    let mut arena = Arena::exact(buf.as_mut_slice(), 0).unwrap();
    let (loader, mut runner) = arena.split();
    let plan = synaptic_mem::Plan {
        region_size: region,
        slots: &s,
    };
    let mut net = Interpreter::new(model(), loader, plan, IoPlacement::Plan).unwrap();
    let mut out = vec![0u8; net.output_bytes()];
    net.invoke(&mut runner, input, &mut out).unwrap();
    out
}

struct Setup {
    slots: Vec<synaptic_mem::plan::PlanSlot>,
    /// `Box::into_raw` too: the model owns these while loaded (no Rust reference to them).
    arena: *mut ArenaBuffer<8192>,
    shared: *mut ArenaBuffer<1024>,
    /// `Box::into_raw`: every access goes through this one raw pointer, as from C.
    net: *mut SynRunModel,
    io: IoPlacement,
    region: u32,
}

impl Setup {
    fn new(io: IoPlacement) -> Setup {
        let (slots, region) = slots(io);
        Setup {
            slots,
            arena: Box::into_raw(Box::new(ArenaBuffer::new())),
            shared: Box::into_raw(Box::new(ArenaBuffer::new())),
            net: Box::into_raw(Box::new(SynRunModel::ZEROED)),
            io,
            region,
        }
    }

    fn config(&self) -> SynRunConfig {
        let shared = self.io == IoPlacement::Shared;
        SynRunConfig {
            model: model().as_ptr().cast(),
            model_size: model().len(),
            slots: self.slots.as_ptr(),
            slot_count: self.slots.len() as u32,
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
            program: ptr::null(),
            program_words: 0,
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
        let rc = unsafe {
            syn_run_invoke_copy(
                net,
                input.as_ptr().cast(),
                input.len(),
                out.as_mut_ptr().cast(),
                out.len(),
            )
        };
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
    let rc = unsafe {
        syn_run_invoke_copy(
            net,
            input.as_ptr().cast(),
            input.len(),
            out.as_mut_ptr().cast(),
            out.len(),
        )
    };
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
    for io in [IoPlacement::Shared, IoPlacement::Plan] {
        let mut s = Setup::new(io);
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
            SynRunConfig {
                arena: net.cast(),
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
            ENOTSUP,
            "not supported",
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
