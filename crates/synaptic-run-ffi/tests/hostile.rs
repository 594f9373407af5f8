//! The hostile models of `crates/synaptic-run/tests/hostile/` (issues 18 and 43) through the
//! C library's `syn_run_load`, as a device that loads models over the air would: each refused
//! with a negative error code and a message (or, the one regression model that must load,
//! loaded and run), never a panic — which, in an `extern "C"`
//! function, aborts the whole process (issue 43: a SignalFilterBankSpectralSubtraction with
//! 2^30 channels did, on i686). Run on x86_64 and on i686 (`scripts/test` step `i686`).

// Every unsafe call is a C entry point called with valid pointers to live buffers.
#![allow(clippy::undocumented_unsafe_blocks)]

use std::path::PathBuf;

use synaptic_run_ffi::*;

#[test]
fn hostile_models_are_refused_through_the_c_library() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../synaptic-run/tests/hostile");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tflite"))
        .collect();
    files.sort();
    assert!(files.len() >= 6, "{}", dir.display());
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        // Compiled at load (no program given) on a plain arena, no plan: a model refused is
        // refused before the plan is read; one that is not (a custom code with a trailing NUL)
        // is refused for the plan it was not given.
        let mut arena = vec![0u128; 65536 / 16];
        let mut shared = vec![0u128; 65536 / 16];
        let config = SynRunConfig {
            model: bytes.as_ptr().cast(),
            model_size: bytes.len(),
            slots: std::ptr::null(),
            slot_count: 0,
            overlaps: std::ptr::null(),
            overlap_count: 0,
            region_size: 0,
            io: SynRunIo::SYN_RUN_IO_SHARED as u32,
            arena: arena.as_mut_ptr().cast(),
            arena_size: 65536,
            shared: shared.as_mut_ptr().cast(),
            shared_size: 65536,
            program: std::ptr::null(),
            program_words: 0,
        };
        let mut net = Box::new(SynRunModel::ZEROED);
        let rc = unsafe { syn_run_load(&mut *net, &config) };
        if rc == 0 {
            // A model that loads (a regression test of a model that must: reshape_f32_scalar)
            // runs, through the C library too.
            let mut info: SynRunIoInfo = unsafe { std::mem::zeroed() };
            assert_eq!(unsafe { syn_run_io_info(&mut *net, &mut info) }, 0);
            let (x, mut y) = (vec![0u8; info.input_bytes], vec![0u8; info.output_bytes]);
            let rc = unsafe {
                syn_run_invoke_copy(
                    &mut *net,
                    x.as_ptr().cast(),
                    x.len(),
                    y.as_mut_ptr().cast(),
                    y.len(),
                )
            };
            assert_eq!(rc, 0, "{}", f.display());
            continue;
        }
        assert!(rc < 0, "{}: {rc}", f.display());
        assert_eq!(syn_run_last_error(), rc, "{}", f.display());
        let mut msg = [0u8; 256];
        let n = unsafe { syn_run_last_error_message(msg.as_mut_ptr().cast(), msg.len()) };
        let text = String::from_utf8_lossy(&msg[..n.min(255)]);
        assert!(text.starts_with("load: "), "{}: {text}", f.display());
        eprintln!("{}: {rc} {text}", f.file_name().unwrap().to_string_lossy());
    }
}
