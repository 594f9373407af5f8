//! One inference of one trace on one allocator, for `scripts/bench-callgrind`.
//!
//! `callgrind_one ALLOCATOR TRACE [N]` sets up the allocator, loads the model, runs one warm-up
//! inference, then N (default 1) inferences, each inside one call of [`measured_inference`]
//! (the function callgrind's `--toggle-collect` counts; `--dump-after` on it gives one count
//! per inference, see `scripts/determinism-callgrind`), and prints `allocs <n>`: the
//! allocations in one inference.

use std::hint::black_box;
use std::ptr::NonNull;

use synaptic_benches::trace::ModelTrace;
use synaptic_benches::{
    for_each_alloc_and_harness, replay, Make, Visit, ALLOCATORS, BENCH_ARENA, BENCH_SCRATCH,
    BENCH_SHARED,
};

/// The measured region: exactly one inference (allocations, frees, scratch, reset).
#[inline(never)]
fn measured_inference<A: Make>(
    a: &mut A,
    t: &ModelTrace,
    slots: &mut [Option<NonNull<u8>>],
) -> u32 {
    replay::inference(a, t, slots, replay::ignore)
}

struct One<'a> {
    alloc: &'a str,
    trace: &'a ModelTrace,
    inferences: usize,
    done: bool,
}

impl Visit for One<'_> {
    fn visit<A: Make>(&mut self) {
        if A::NAME != self.alloc {
            return;
        }
        let t = self.trace;
        let mut a = A::make(BENCH_ARENA, BENCH_SCRATCH, BENCH_SHARED);
        let mut l = replay::load(&mut a, t, replay::ignore);
        assert_eq!(l.failed, 0, "load failed");
        assert_eq!(
            replay::inference(&mut a, t, &mut l.slots, replay::ignore),
            0
        );
        for _ in 0..self.inferences {
            let failed = measured_inference(black_box(&mut a), t, &mut l.slots);
            assert_eq!(failed, 0, "inference failed");
        }
        println!("allocs {}", t.allocs_per_inference());
        replay::unload(&mut a, t, l);
        self.done = true;
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let inferences = match args.get(2).map(|n| n.parse::<usize>()) {
        None => 1,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("error: N must be a positive number");
            std::process::exit(2);
        }
    };
    if !(2..=3).contains(&args.len()) {
        eprintln!(
            "usage: callgrind_one ALLOCATOR TRACE [N]   (allocators: {} harness)",
            ALLOCATORS.join(" ")
        );
        std::process::exit(2);
    }
    let trace = ModelTrace::load(&args[1]).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(1)
    });
    let mut one = One {
        alloc: &args[0],
        trace: &trace,
        inferences,
        done: false,
    };
    for_each_alloc_and_harness(&mut one);
    if !one.done {
        eprintln!(
            "unknown allocator {} (known: {} harness)",
            args[0],
            ALLOCATORS.join(" ")
        );
        std::process::exit(2);
    }
}
