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
//! the shapes whose name contains it run.

#[path = "../tests/shapes/mod.rs"]
mod shapes;

use std::path::PathBuf;
use std::time::Instant;
use synaptic_plan::{lifetimes, plan_items, Analysis, Model, PlanItem, PlanOptions, SizingOptions};

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

fn bench_tflite(name: &str, bytes: &[u8], repeats: usize) {
    if !wanted(&format!("tflite:{name}")) {
        return;
    }
    let (ms, analysis) = best_of(repeats, || {
        let model = Model::from_bytes(bytes).expect("hostile model imports");
        Analysis::new(model, &SizingOptions::default()).expect("hostile model analyses")
    });
    let r = &analysis.report;
    println!(
        "plan_bench tflite:{name} {} {ms:.3} ms {} B lb {} B ({} KB file, import + analysis)",
        analysis.activation_plan.items.len(),
        r.planned_activation_bytes,
        r.live_lower_bound_bytes,
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
    bench_tflite("chain500_d100", &shapes::chain_tflite(500, 100), repeats);
    bench_tflite(
        "chain2040_d1000",
        &shapes::chain_tflite(2040, 1000),
        repeats,
    );
    bench_tflite(
        "split20000_concat",
        &shapes::split_concat_tflite(20_000),
        repeats,
    );

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
    }
}
