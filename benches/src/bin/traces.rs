//! Prints a summary of each model's allocation trace (`cargo run --release -p synaptic-benches
//! --bin traces [MODEL...]`).

use synaptic_benches::trace::{ModelTrace, DEFAULT_TRACES};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let names: Vec<&str> = if args.is_empty() {
        DEFAULT_TRACES.to_vec()
    } else {
        args.iter().map(String::as_str).collect()
    };
    println!(
        "{:<26}{:>5}{:>8}{:>10}{:>8}{:>8}{:>10}{:>8}",
        "trace", "ops", "weights", "w-bytes", "shared", "acts", "act-bytes", "allocs"
    );
    for n in names {
        let t = ModelTrace::load(n).unwrap_or_else(|e| {
            eprintln!("error: {e}");
            std::process::exit(1)
        });
        println!(
            "{:<26}{:>5}{:>8}{:>10}{:>8}{:>8}{:>10}{:>8}",
            t.name,
            t.n_ops,
            t.persistent.len(),
            t.persistent.iter().map(|s| s.bytes as usize).sum::<usize>(),
            t.shared.len(),
            t.activations.len(),
            t.activations
                .iter()
                .map(|a| a.spec.bytes as usize)
                .sum::<usize>(),
            t.allocs_per_inference()
        );
    }
}
