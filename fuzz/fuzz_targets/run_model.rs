//! Fuzz target `run_model`: the runtime (`synaptic_run::Interpreter`) loading and running
//! hostile models (issue 18). The corpus is seeded with the shared int8 models and the
//! committed single-operator models (`scripts/fuzz-smoke.sh`); the mutator edits them the way
//! an attacker edits a file, one flatbuffer field overwritten in place (`harness::mutate`:
//! shapes, types, buffers, quantization, operator inputs/outputs, options, vector lengths),
//! three times in four, else with libFuzzer's byte-level mutations. Every input runs in one of
//! the eight configurations a user has (I/O in SHARED / in the plan, overlapped / plain plan,
//! program compiled at load / given), chosen by its hash; the properties (no panic, a refused
//! model is a `LoadError`, a loaded one runs three times on poisoned arenas with identical
//! outputs) live in `crates/synaptic-run/tests/harness/run_model.rs`, shared with the seeded
//! test that runs on i686.
#![no_main]

#[path = "../../crates/synaptic-run/tests/harness/run_model.rs"]
mod harness;

use libfuzzer_sys::{fuzz_mutator, fuzz_target, fuzzer_mutate};

fuzz_target!(|data: &[u8]| {
    harness::run_model(data, harness::config_of(data));
});

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    let mut rng = harness::Rng(u64::from(seed));
    if rng.below(4) == 0 {
        return fuzzer_mutate(data, size, max_size);
    }
    let mut edited = false;
    for _ in 0..1 + rng.below(2) {
        edited |= harness::mutate(&mut data[..size], &mut rng);
    }
    if edited {
        size
    } else {
        fuzzer_mutate(data, size, max_size)
    }
});
