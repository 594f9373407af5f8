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
    println!(
        "gross = whole replayed inference / allocations; call = (inference - loop) / allocations,"
    );
    println!(
        "where `loop` replays the same trace with no work per tensor (one allocation call with its"
    );
    println!(
        "work: size, block, filled descriptor, and the free for heaps); net = (inference - harness)"
    );
    println!(
        "/ allocations, where `harness` also does the per-tensor work (shape check, size, descriptor"
    );
    println!("write) with no allocator. ratio = allocator / synaptic-mem.");
    println!();
    println!("| trace | allocs/inf | allocator | ns/inference | gross ns/alloc | call ns/alloc | net ns/alloc | gross ratio | call ratio | net ratio |");
    println!("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    let mut verdicts = Vec::new();
    for t in &traces {
        let n = t.allocs_per_inference() as f64;
        let get = |name: &str| {
            samples
                .get(&(t.name.clone(), name.to_string()))
                .map(|v| median(&mut v.clone()))
        };
        let lp = get("loop").unwrap_or(0.0);
        let harness = get("harness").unwrap_or(0.0);
        let call = |ns: f64| ((ns - lp) / n).max(0.0);
        let net = |ns: f64| ((ns - harness) / n).max(0.0);
        let ratio = |x: f64, o: f64| {
            if o > 0.0 {
                format!("{:.2}", x / o)
            } else {
                "-".to_string()
            }
        };
        let ours = get("synaptic-mem");
        for name in ["loop", "harness"].into_iter().chain(ALLOCATORS) {
            let Some(ns) = get(name) else { continue };
            let baseline = name == "loop" || name == "harness";
            let (gr, cr, nr) = match ours {
                Some(o) if !baseline => (
                    ratio(ns, o),
                    ratio(call(ns), call(o)),
                    ratio(net(ns), net(o)),
                ),
                _ => ("-".to_string(), "-".to_string(), "-".to_string()),
            };
            let cell = |show: bool, v: f64| {
                if show {
                    format!("{v:.2}")
                } else {
                    "-".to_string()
                }
            };
            println!(
                "| {} | {} | {} | {:.1} | {:.2} | {} | {} | {} | {} | {} |",
                t.name,
                n,
                name,
                ns,
                ns / n,
                cell(name != "loop", call(ns)),
                cell(!baseline, net(ns)),
                gr,
                cr,
                nr
            );
        }
        if let (Some(o), Some(b), Some(m)) = (ours, get("bumpalo"), get("system-malloc")) {
            let (gross_x, call_x, net_x) = (
                m / o,
                call(m) / call(o).max(1e-9),
                net(m) / net(o).max(1e-9),
            );
            verdicts.push(format!(
                "{}: per alloc synaptic-mem {:.2} ns gross / {:.2} call / {:.2} net, bumpalo {:.2} / {:.2} / {:.2} ({}); \
                 system malloc {:.1}x slower gross, {:.1}x per call, {:.1}x net ({})",
                t.name,
                o / n,
                call(o),
                net(o),
                b / n,
                call(b),
                net(b),
                if o <= b { "ok: <= bumpalo" } else { "MISSED: > bumpalo" },
                gross_x,
                call_x,
                net_x,
                if gross_x >= 5.0 {
                    "ok: >= 5x gross"
                } else if call_x >= 5.0 {
                    "ok per call, MISSED gross"
                } else {
                    "MISSED: < 5x per call"
                }
            ));
        }
    }
    println!();
    for v in verdicts {
        println!("target {v}");
    }
}
