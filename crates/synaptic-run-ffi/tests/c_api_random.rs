//! The `run_c_api` fuzz harness (`tests/harness/c_api.rs`) on seeded random inputs, so that it
//! runs in the test command natively on x86_64 and on i686 (32-bit pointers, like Cortex-M;
//! `scripts/test` step `i686`), where the fuzzer cannot go. `C_API_CASES=N` changes the number
//! of inputs (default 300).

mod harness {
    pub mod c_api;
}

use arbitrary::{Arbitrary, Unstructured};

#[test]
fn hostile_c_api_call_sequences_change_nothing_they_should_not() {
    let cases: u64 = std::env::var("C_API_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let mut state = 0x5EED_C0DE_u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut total, mut run) = (0usize, 0u64);
    for _ in 0..cases {
        let bytes: Vec<u8> = (0..1024).map(|_| next() as u8).collect();
        let mut u = Unstructured::new(&bytes);
        // Sequences of 16 calls (a random byte string decoded whole gives short ones).
        let calls = (0..16)
            .filter_map(|_| harness::c_api::Call::arbitrary(&mut u).ok())
            .collect();
        let mut input = harness::c_api::Input { calls };
        // Start most sequences with a valid load of each object, as real use does.
        if next() % 4 != 0 {
            for obj in [false, true] {
                input.calls.insert(
                    0,
                    harness::c_api::Call::Load {
                        obj,
                        model: next() as u8,
                        plan_io: next() % 2 == 0,
                        overlap: next() % 2 == 0,
                        program: next() % 2 == 0,
                        arena: harness::c_api::Place::Standard,
                        shared: harness::c_api::Place::Standard,
                        model_at: harness::c_api::Place::Standard,
                        tweak: harness::c_api::Tweak::None,
                    },
                );
            }
        }
        total += input.calls.len().min(24);
        if std::env::var_os("C_API_VERBOSE").is_some() {
            eprintln!("case {run}: {input:?}");
        }
        run += 1;
        harness::c_api::run(&input);
    }
    eprintln!("c_api: {run} sequences, {total} calls");
    assert!(run > cases / 2, "most seeded inputs decode");
}
