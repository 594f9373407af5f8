//! The one RAM figure is the runtime's need, byte for byte: for every shared model synaptic-run
//! runs, in every configuration `synmem emit` writes (I/O shared or in the plan, program in
//! flash or compiled at load, overlapped or plain plan), the `<PREFIX>_ARENA_BYTES` and
//! `<PREFIX>_SHARED_BYTES` of the emitted C header are exactly what `syn_run_load` needs: it
//! loads with them and fails with -ENOMEM with 16 bytes less of either; the model then runs.

// Every unsafe call is a C entry point called with valid pointers to live buffers.
#![allow(clippy::undocumented_unsafe_blocks)]

use std::path::PathBuf;

use synaptic_mem_ffi::errno::{EINVAL, ENOMEM};
use synaptic_plan::emit::{c_prefix, emit_with_program, Lang};
use synaptic_plan::{Analysis, IoPlacement, Model, SizingOptions};
use synaptic_run::program;
use synaptic_run_ffi::*;

fn models() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/models");
    if dir.join("README.md").is_file() {
        return Some(dir);
    }
    assert_eq!(
        std::env::var("SYNMEM_SKIP_MODELS").as_deref(),
        Ok("1"),
        "shared models not found at {} (set SYNMEM_SKIP_MODELS=1 to skip)",
        dir.display()
    );
    None
}

/// The value of `#define <name> <n>u` in an emitted header.
fn define(header: &str, name: &str) -> usize {
    let key = format!("#define {name} ");
    let line = header
        .lines()
        .find(|l| l.starts_with(&key))
        .unwrap_or_else(|| panic!("{name} not emitted"));
    line[key.len()..].trim_end_matches('u').parse().unwrap()
}

/// syn_run_last_error_message() as a string.
fn last_message() -> String {
    let mut buf = [0u8; SYN_RUN_MESSAGE_MAX + 1];
    let n = unsafe { syn_run_last_error_message(buf.as_mut_ptr().cast(), buf.len()) };
    String::from_utf8_lossy(&buf[..n.min(SYN_RUN_MESSAGE_MAX)]).into_owned()
}

/// 16-byte aligned zeroed bytes (`u128` storage).
fn aligned(n: usize) -> Vec<u128> {
    vec![0u128; n.div_ceil(16).max(1)]
}

struct Case<'a> {
    bytes: &'a [u8],
    a: &'a Analysis,
    program: Option<&'a [u32]>,
    io: u32,
}

/// `syn_run_load` with `arena` and `shared` bytes: its status, and on success one invoke.
fn load(c: &Case<'_>, arena: usize, shared: usize) -> i32 {
    let plan = c.a.ephemeral_plan.core_plan();
    let overlaps: Vec<SynPlanOverlap> =
        c.a.ephemeral_plan
            .overlaps
            .iter()
            .map(SynPlanOverlap::from)
            .collect();
    let mut arena_buf = aligned(arena);
    let mut shared_buf = aligned(shared);
    let mut net = Box::new(SynRunModel::ZEROED);
    let config = SynRunConfig {
        model: c.bytes.as_ptr().cast(),
        model_size: c.bytes.len(),
        slots: plan.slots.as_ptr(),
        slot_count: plan.slots.len() as u32,
        overlaps: if overlaps.is_empty() {
            std::ptr::null()
        } else {
            overlaps.as_ptr()
        },
        overlap_count: overlaps.len() as u32,
        region_size: plan.region_size,
        io: c.io,
        arena: arena_buf.as_mut_ptr().cast(),
        arena_size: arena,
        shared: if shared == 0 {
            std::ptr::null_mut()
        } else {
            shared_buf.as_mut_ptr().cast()
        },
        shared_size: shared,
        program: c.program.map_or(std::ptr::null(), <[u32]>::as_ptr),
        program_words: c.program.map_or(0, <[u32]>::len),
    };
    let rc = unsafe { syn_run_load(&mut *net, &config) };
    if rc == 0 {
        let mut mem = SynRunMemory::default();
        assert_eq!(unsafe { syn_run_memory(&mut *net, &mut mem) }, 0);
        let mut info: SynRunIoInfo = unsafe { std::mem::zeroed() };
        assert_eq!(unsafe { syn_run_io_info(&mut *net, &mut info) }, 0);
        let input = vec![1u8; info.input_bytes];
        let mut out = vec![0u8; info.output_bytes];
        let rc = unsafe {
            syn_run_invoke_copy(
                &mut *net,
                input.as_ptr().cast(),
                input.len(),
                out.as_mut_ptr().cast(),
                out.len(),
            )
        };
        assert_eq!(rc, 0, "invoke on the emitted arena");
        assert_eq!(unsafe { syn_run_unload(&mut *net) }, 0);
    }
    rc
}

#[test]
fn emitted_arena_bytes_are_exactly_what_syn_run_load_needs() {
    let Some(dir) = models() else { return };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tflite"))
        .collect();
    paths.sort();
    let mut ran = Vec::new();
    for path in &paths {
        let bytes = std::fs::read(path).unwrap();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        for io in [IoPlacement::Shared, IoPlacement::Ephemeral] {
            let run_io = match io {
                IoPlacement::Shared => synaptic_run::IoPlacement::Shared,
                IoPlacement::Ephemeral => synaptic_run::IoPlacement::Plan,
            };
            let Ok(len) = program::compiled_len(&bytes, run_io) else {
                continue; // synaptic-run does not run it
            };
            let mut words = vec![0u32; len];
            if program::compile(&bytes, run_io, &mut words).is_err() {
                continue;
            }
            for in_ram in [false, true] {
                for overlap in [true, false] {
                    let mut m = Model::from_bytes(&bytes).unwrap();
                    m.name = name.clone();
                    let a = Analysis::new(
                        m,
                        &SizingOptions {
                            io,
                            overlap,
                            program_in_ram_bytes: in_ram.then(|| 4 * words.len() as u64),
                            ..SizingOptions::default()
                        },
                    )
                    .unwrap();
                    let program = (!in_ram).then_some(&words[..]);
                    let header = emit_with_program(&a, Lang::C, program);
                    let p = c_prefix(&name);
                    let arena = define(&header, &format!("{p}_ARENA_BYTES"));
                    let shared = define(&header, &format!("{p}_SHARED_BYTES"));
                    assert_eq!(define(&header, &format!("{p}_RAM_BYTES")), arena + shared);
                    let c = Case {
                        bytes: &bytes,
                        a: &a,
                        program,
                        io: match io {
                            IoPlacement::Shared => 0,
                            IoPlacement::Ephemeral => 1,
                        },
                    };
                    let what = format!("{name} io {io:?} ram {in_ram} overlap {overlap}");
                    assert_eq!(load(&c, arena, shared), 0, "{what}: with ARENA_BYTES");
                    // At the core's smallest exact arena (a model whose tensors all live in
                    // the SHARED region, its program in flash) less is a bad size, not too
                    // little memory.
                    let short = if arena == synaptic_mem::MIN_EXACT_ARENA_SIZE {
                        -EINVAL
                    } else {
                        -ENOMEM
                    };
                    assert_eq!(load(&c, arena - 16, shared), short, "{what}: arena - 16");
                    if short == -ENOMEM {
                        // The message says what to give.
                        let msg = last_message();
                        let want = format!("16 B short; give an arena of {arena} B");
                        assert!(msg.contains(&want), "{what}: {msg}");
                    }
                    if shared > 0 {
                        assert_eq!(load(&c, arena, shared - 16), -ENOMEM, "{what}: shared - 16");
                    }
                    ran.push(what);
                }
            }
        }
    }
    eprintln!("{} configurations checked: {ran:#?}", ran.len());
    assert!(ran.len() >= 8 * 9, "too few models ran: {ran:?}");
}
