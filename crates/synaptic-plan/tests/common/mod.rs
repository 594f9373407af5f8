//! Locating the shared models (`<repo>/../shared/models`); building test models ([`tflite`]);
//! replaying allocation sequences on the core ([`replay`]).
#![allow(dead_code)]

pub mod replay;
pub mod tflite;

use std::path::PathBuf;

/// The shared models directory, or `None` if it is missing and `SYNMEM_SKIP_MODELS=1`.
/// Panics with a clear message if it is missing otherwise.
pub fn models_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/models");
    if dir.join("README.md").is_file() {
        return Some(dir);
    }
    if std::env::var("SYNMEM_SKIP_MODELS").as_deref() == Ok("1") {
        eprintln!(
            "SKIPPED: {} not found and SYNMEM_SKIP_MODELS=1",
            dir.display()
        );
        return None;
    }
    panic!(
        "shared models not found at {} (expected <repo>/../shared/models); \
         set SYNMEM_SKIP_MODELS=1 to skip the model tests",
        dir.display()
    );
}

/// All `*.tflite` files, sorted.
pub fn model_paths(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read models dir")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "tflite"))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no .tflite models in {}", dir.display());
    v
}

/// A 16-byte aligned window of exactly `len` bytes inside `store` (an arena buffer).
pub fn aligned(store: &mut Vec<u8>, len: usize) -> &mut [u8] {
    store.clear();
    store.resize(len + 16, 0);
    let off = store.as_ptr().align_offset(16);
    &mut store[off..off + len]
}

/// `n` test cases, divided by `SYNAPTIC_TEST_DIVISOR` when it is set (at least 1): the slow
/// instrumented runs (`scripts/asan.sh`, an unoptimised build with AddressSanitizer) run fewer
/// cases of the long randomised tests; the plain `cargo test` runs all of them.
#[allow(dead_code)]
pub fn cases(n: usize) -> usize {
    let d = std::env::var("SYNAPTIC_TEST_DIVISOR")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1);
    (n / d).max(1)
}
