//! Fuzz target `safe_api`: the safe Rust API with arbitrary arena sizes, buffer offsets, shapes,
//! dtypes, plans and sequences of sessions, loads and inferences. The harness (what is checked
//! after every step) lives in `crates/synaptic-mem/tests/harness/safe_api.rs`, shared with the
//! seeded random test that runs it on x86_64 and i686 in the test command.
#![no_main]

#[path = "../../crates/synaptic-mem/tests/harness/safe_api.rs"]
mod safe_api;

libfuzzer_sys::fuzz_target!(|input: safe_api::Input| {
    safe_api::run(input);
});
