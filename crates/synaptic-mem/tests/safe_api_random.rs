//! The `safe_api` fuzz harness (`tests/harness/safe_api.rs`) on seeded random inputs, so that it
//! runs in the test command on every target the tests run on — natively on x86_64 and on i686
//! (32-bit pointers, like Cortex-M; `scripts/test` step `i686`), where the fuzzer (64-bit only)
//! cannot go. `SAFE_API_CASES=N` changes the number of inputs (default 4000).

mod harness {
    pub mod safe_api;
}

use harness::safe_api::{InfStep, Input, RawSlot, Req, Step};

/// xorshift64*: a fixed, dependency-free byte stream per seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }
}

/// Inputs shaped like real use (the fuzzer gets there by evolving its corpus; a random byte
/// string decoded with `arbitrary` mostly gives one-step sessions): mostly valid
/// configurations, sessions of several loads, inferences and plans, and now and then a huge
/// value anywhere.
fn random_input(rng: &mut Rng) -> Input {
    let req = |rng: &mut Rng| Req {
        dims: [0; 4].map(|_| rng.next() as u16),
        big: if rng.one_in(16) {
            rng.next() as u32 | 1
        } else {
            0
        },
        ndim: if rng.one_in(16) {
            rng.next() as u8
        } else {
            1 + rng.below(4) as u8
        },
        dtype: rng.next() as u8,
    };
    let slot = |rng: &mut Rng| RawSlot {
        offset: rng.next() as u32,
        size: rng.next() as u32,
        first_op: rng.next() as u8,
        last_op: rng.next() as u8,
        small: !rng.one_in(8),
    };
    let step = |rng: &mut Rng| match rng.below(20) {
        0..=4 => Step::Persistent(req(rng)),
        5..=7 => Step::Shared(req(rng)),
        8..=14 => Step::Inference(
            (0..1 + rng.below(16))
                .map(|_| match rng.below(8) {
                    0..=3 => InfStep::Ephemeral(req(rng)),
                    4 | 5 => {
                        let max = if rng.one_in(8) { 1 << 32 } else { 4096 };
                        InfStep::Scratch(rng.below(max) as u32)
                    }
                    6 => InfStep::PersistentInside(req(rng)),
                    _ => InfStep::Write(rng.next() as u16),
                })
                .collect(),
        ),
        _ => Step::Planned {
            region: rng.next() as u32,
            small_region: !rng.one_in(5),
            slots: (0..rng.below(10)).map(|_| slot(rng)).collect(),
            runs: rng.next() as u8,
        },
    };
    let exact = rng.one_in(3);
    Input {
        exact,
        arena_size: if rng.one_in(10) {
            rng.next() as u32
        } else if exact {
            rng.below(8192) as u32
        } else {
            4096 + rng.below(61_441) as u32
        },
        scratch: if rng.one_in(10) {
            rng.next() as u16
        } else if exact {
            rng.below(1024) as u16
        } else {
            1024 + rng.below(3073) as u16
        },
        offset: rng.next() as u8,
        shared: rng.next() as u16,
        sessions: (0..1 + rng.below(4))
            .map(|_| (0..4 + rng.below(21)).map(|_| step(rng)).collect())
            .collect(),
    }
}

#[test]
#[cfg_attr(
    miri,
    ignore = "usize addresses in the harness; Miri runs the other tests"
)]
fn safe_api_harness_on_seeded_inputs() {
    let cases: u64 = std::env::var("SAFE_API_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4000);
    let mut planned_steps = 0;
    let mut total = harness::safe_api::Reached::default();
    for seed in 1..=cases {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let input = random_input(&mut rng);
        planned_steps += harness::safe_api::planned_steps(&input);
        let r = harness::safe_api::run(input);
        total.arenas += r.arenas;
        total.bump_blocks += r.bump_blocks;
        total.plans += r.plans;
        total.planned_views += r.planned_views;
    }
    println!("{cases} inputs: {planned_steps} plan steps, reached {total:?}");
    // The inputs reach every path: arenas, bump blocks, loaded plans, planned views.
    assert!(total.arenas > cases / 10, "{total:?}");
    assert!(total.bump_blocks > cases / 10, "{total:?}");
    assert!(total.plans > cases / 4, "{total:?}");
    assert!(total.planned_views > cases / 4, "{total:?}");
}
