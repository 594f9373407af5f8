//! Planner timings on hostile shapes and on the shared models (issue 10, item 8).
//!
//! ```sh
//! cargo run --release -p synaptic-plan --example plan_bench [-- REPEATS [FILTER]]
//! ```
//!
//! Prints one line per shape, `plan_bench <shape> <items> <ms> ms <planned> B lb <lb> B`, the
//! time being this thread's CPU time (Linux, runs of 20 ms or more; wall clock otherwise), so that it holds on a
//! machine shared with other jobs: the planner alone (`plan_items` with the default options, best of REPEATS runs, default 3), and
//! for the `tflite:` shapes the whole import and analysis of the model bytes
//! (`Model::from_bytes` + `Analysis::new`, which plans twice), with the file size. A time, not a
//! test: the `hostile_shapes` test checks the same shapes give valid plans. With FILTER, only
//! the shapes whose name contains it run. The `+overlap` lines plan with output/input overlaps
//! (issue 12; every shared model's whole import and analysis, and the hostile `tflite:`
//! shapes), their bound the overlap lower bound.

#[path = "../tests/shapes/mod.rs"]
mod shapes;

use std::path::PathBuf;
use std::time::Instant;
use synaptic_mem::plan::OverlapDirection;
use synaptic_plan::overlap::{plan_overlapped, Candidate};
use synaptic_plan::{lifetimes, plan_items, Analysis, Model, PlanItem, PlanOptions, SizingOptions};
use synaptic_run::contract::SafeOverlap;

/// Nanoseconds this thread has run on a CPU (Linux `/proc/thread-self/schedstat`), so that the
/// figure holds on a machine shared with other jobs; `None` elsewhere.
fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// Runs `f` `repeats` times; the best time in milliseconds (CPU time of this thread where the
/// system reports it and the run takes 20 ms or more, else wall clock) and the last result.
fn best_of<T>(repeats: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..repeats.max(1) {
        let (t, cpu) = (Instant::now(), thread_cpu_ns());
        let r = f();
        let wall = t.elapsed().as_secs_f64() * 1e3;
        // schedstat moves at scheduler ticks: short runs are timed by the wall clock.
        let ms = match (cpu, thread_cpu_ns()) {
            (Some(a), Some(b)) if wall >= 20.0 => (b - a) as f64 / 1e6,
            _ => wall,
        };
        best = best.min(ms);
        out = Some(r);
    }
    (best, out.unwrap())
}

fn wanted(name: &str) -> bool {
    std::env::args().nth(2).is_none_or(|f| name.contains(&f))
}

fn bench_items(name: &str, items: &[PlanItem], repeats: usize) {
    if !wanted(name) {
        return;
    }
    let (ms, plan) = best_of(repeats, || plan_items(items, &PlanOptions::default()));
    println!(
        "plan_bench {name} {} {ms:.3} ms {} B lb {} B",
        items.len(),
        plan.region_size,
        plan.lower_bound
    );
}

/// The overlapped planner alone on `items`, every item born where another dies made an
/// overlap candidate of it (a synthetic element-wise contract, both directions safe at delta
/// 0): the worst case for its search, many candidates among many conflicts.
fn bench_overlap_items(name: &str, items: &[PlanItem], repeats: usize) {
    let name = format!("{name}+overlap");
    if !wanted(&name) {
        return;
    }
    let mut dying: std::collections::HashMap<usize, usize> = Default::default();
    for (i, it) in items.iter().enumerate() {
        dying.entry(it.last_op).or_insert(i);
    }
    let cands: Vec<Candidate> = items
        .iter()
        .enumerate()
        .filter_map(|(o, it)| {
            let i = *dying.get(&it.first_op)?;
            (i != o && items[i].last_op == it.first_op).then(|| Candidate {
                op: it.first_op,
                input: i,
                output: o,
                safe: SafeOverlap {
                    forward_max: 0,
                    backward_min: Some(0),
                    in_bytes: items[i].bytes as i64,
                    out_bytes: it.bytes as i64,
                },
                direction: OverlapDirection::Forward,
            })
        })
        .collect();
    let (ms, plan) = best_of(repeats, || {
        plan_overlapped(items, &cands, &PlanOptions::default())
    });
    plan.check().expect("valid overlapped plan");
    println!(
        "plan_bench {name} {} {ms:.3} ms {} B lb {} B ({} candidates, {} overlap)",
        items.len(),
        plan.region_size,
        plan.lower_bound,
        cands.len(),
        plan.overlaps.len()
    );
}

/// With `overlap`, the analysis plans with output/input overlaps (issue 12) and the line's
/// name ends in `+overlap`, its bound being the overlap bound.
fn bench_tflite(name: &str, bytes: &[u8], repeats: usize, overlap: bool) {
    let name = if overlap {
        format!("{name}+overlap")
    } else {
        name.to_string()
    };
    if !wanted(&format!("tflite:{name}")) {
        return;
    }
    let options = SizingOptions {
        overlap,
        ..SizingOptions::default()
    };
    let (ms, analysis) = best_of(repeats, || {
        let model = Model::from_bytes(bytes).expect("model imports");
        Analysis::new(model, &options).expect("model analyses")
    });
    let r = &analysis.report;
    println!(
        "plan_bench tflite:{name} {} {ms:.3} ms {} B lb {} B ({} KB file, import + analysis)",
        analysis.activation_plan.items.len(),
        r.planned_activation_bytes,
        if overlap {
            r.overlap_lower_bound_bytes
        } else {
            r.live_lower_bound_bytes
        },
        bytes.len() / 1024
    );
}

fn main() {
    let repeats = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("REPEATS: a number"))
        .unwrap_or(3);
    bench_items("chain500_d100", &shapes::chain_items(500, 100), repeats);
    bench_items("chain2040_d1000", &shapes::chain_items(2040, 1000), repeats);
    bench_items(
        "split20000_concat",
        &shapes::split_concat_items(20_000),
        repeats,
    );
    bench_items(
        "chain20000_d1000",
        &shapes::chain_items(20_000, 1000),
        repeats,
    );
    bench_items(
        "chain49999_d1000",
        &shapes::chain_items(49_999, 1000),
        repeats,
    );
    bench_items("above_bound48", &shapes::above_bound_items(6), repeats);
    bench_overlap_items("chain500_d100", &shapes::chain_items(500, 100), repeats);
    bench_overlap_items("chain2040_d1000", &shapes::chain_items(2040, 1000), repeats);
    bench_overlap_items("chain5000_d1000", &shapes::chain_items(5000, 1000), repeats);
    for overlap in [false, true] {
        bench_tflite(
            "chain500_d100",
            &shapes::chain_tflite(500, 100),
            repeats,
            overlap,
        );
        bench_tflite(
            "chain2040_d1000",
            &shapes::chain_tflite(2040, 1000),
            repeats,
            overlap,
        );
        bench_tflite(
            "split20000_concat",
            &shapes::split_concat_tflite(20_000),
            repeats,
            overlap,
        );
    }

    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/models");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        println!("plan_bench: no models at {}", dir.display());
        return;
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "tflite"))
        .collect();
    paths.sort();
    for path in paths {
        let model = Model::from_file(&path).expect("shared model imports");
        let items: Vec<PlanItem> = lifetimes(&model)
            .iter()
            .map(|l| PlanItem {
                bytes: model.tensors[l.tensor].bytes,
                first_op: l.first_op(),
                last_op: l.last_op(),
            })
            .collect();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        bench_items(&name, &items, repeats);
        let bytes = std::fs::read(&path).expect("shared model reads");
        bench_tflite(&name, &bytes, repeats, true);
    }
}
