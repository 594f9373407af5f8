//! Fuzz target `run_c_api`: sequences of `syn_run_*` calls (`synaptic-run-ffi`'s `extern "C"`
//! functions, called directly) with hostile pointers, sizes and overlaps — NULL, misaligned,
//! into the model object, its arena, its shared region, its model bytes, plan or program — on
//! two model objects (issue 18). The properties (documented errnos, a failed call changes
//! nothing, read-only memory never written, every loaded model still equal to the Rust
//! interpreter) live in `crates/synaptic-run-ffi/tests/harness/c_api.rs`, shared with the
//! seeded test `tests/c_api_random.rs`.
#![no_main]

#[path = "../../crates/synaptic-run-ffi/tests/harness/c_api.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|input: harness::Input| {
    harness::run(&input);
});
