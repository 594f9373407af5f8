//! `cargo bench -p synaptic-benches`: one inference of each model trace on each allocator,
//! measured by criterion; then a summary table of per-inference and per-allocation time with
//! ratios to synaptic-mem from the same run.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use synaptic_benches::trace::ModelTrace;
use synaptic_benches::{
    for_each_alloc_and_harness, replay, Make, Visit, ALLOCATORS, BENCH_ARENA, BENCH_SCRATCH,
    BENCH_SHARED,
};

thread_local! {
    /// (trace, allocator) → per-sample nanoseconds per inference.
    static SAMPLES: RefCell<BTreeMap<(String, String), Vec<f64>>> = const { RefCell::new(BTreeMap::new()) };
}

struct Bench<'a> {
    c: &'a mut Criterion,
    trace: &'a ModelTrace,
}

impl Visit for Bench<'_> {
    fn visit<A: Make>(&mut self) {
        let t = self.trace;
        let mut a = A::make(BENCH_ARENA, BENCH_SCRATCH, BENCH_SHARED);
        let mut loaded = replay::load(&mut a, t, replay::ignore);
        assert_eq!(loaded.failed, 0, "{} could not load {}", A::NAME, t.name);
        let failed = replay::inference(&mut a, t, &mut loaded.slots, replay::ignore);
        assert_eq!(failed, 0, "{} could not run {}", A::NAME, t.name);
        let key = (t.name.clone(), A::NAME.to_string());
        self.c
            .benchmark_group(&t.name)
            .bench_function(A::NAME, |b| {
                b.iter_custom(|iters| {
                    let start = Instant::now();
                    for _ in 0..iters {
                        black_box(replay::inference(
                            black_box(&mut a),
                            t,
                            &mut loaded.slots,
                            replay::ignore,
                        ));
                    }
                    let el = start.elapsed();
                    SAMPLES.with(|s| {
                        s.borrow_mut()
                            .entry(key.clone())
                            .or_default()
                            .push(el.as_nanos() as f64 / iters as f64)
                    });
                    el
                })
            });
        replay::unload(&mut a, t, loaded);
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let traces = ModelTrace::load_defaults();
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(1500))
        .sample_size(30)
        .configure_from_args();
    for t in &traces {
        for_each_alloc_and_harness(&mut Bench {
            c: &mut c,
            trace: t,
        });
    }
    c.final_summary();

    let samples = SAMPLES.with(|s| s.take());
    println!();
    println!("## Summary (median of criterion samples, same run)");
    println!();
    println!("gross = whole replayed inference / allocations; net = (inference - harness) / allocations,");
    println!(
        "where `harness` replays the same trace doing the same per-tensor work (shape check, size,"
    );
    println!("descriptor write) with no allocator. ratio = allocator / synaptic-mem.");
    println!();
    println!("| trace | allocs/inf | allocator | ns/inference | gross ns/alloc | net ns/alloc | gross ratio | net ratio |");
    println!("|---|---:|---|---:|---:|---:|---:|---:|");
    let mut verdicts = Vec::new();
    for t in &traces {
        let n = t.allocs_per_inference() as f64;
        let get = |name: &str| {
            samples
                .get(&(t.name.clone(), name.to_string()))
                .map(|v| median(&mut v.clone()))
        };
        let harness = get("harness").unwrap_or(0.0);
        let net = |ns: f64| ((ns - harness) / n).max(0.0);
        let ours = get("synaptic-mem");
        for name in std::iter::once("harness").chain(ALLOCATORS) {
            let Some(ns) = get(name) else { continue };
            let (gr, nr) = match (ours, name) {
                (_, "harness") | (None, _) => ("-".to_string(), "-".to_string()),
                (Some(o), _) => (
                    format!("{:.2}", ns / o),
                    if net(o) > 0.0 {
                        format!("{:.2}", net(ns) / net(o))
                    } else {
                        "-".to_string()
                    },
                ),
            };
            println!(
                "| {} | {} | {} | {:.1} | {:.2} | {} | {} | {} |",
                t.name,
                n,
                name,
                ns,
                ns / n,
                if name == "harness" {
                    "-".to_string()
                } else {
                    format!("{:.2}", net(ns))
                },
                gr,
                nr
            );
        }
        if let (Some(o), Some(b), Some(m)) = (ours, get("bumpalo"), get("system-malloc")) {
            verdicts.push(format!(
                "{}: per alloc synaptic-mem {:.2} ns gross / {:.2} net, bumpalo {:.2} / {:.2} ({}); \
                 system malloc {:.1}x slower gross, {:.1}x net ({})",
                t.name,
                o / n,
                net(o),
                b / n,
                net(b),
                if o <= b { "ok: <= bumpalo" } else { "MISSED: > bumpalo" },
                m / o,
                net(m) / net(o).max(1e-9),
                if m / o >= 5.0 { "ok: >= 5x gross" } else if net(m) / net(o).max(1e-9) >= 5.0 { "ok net, MISSED gross" } else { "MISSED: < 5x" }
            ));
        }
    }
    println!();
    for v in verdicts {
        println!("target {v}");
    }
}
