//! `synaptic-py-bench MODEL [INVOCATIONS] [BATCHES]`: the Rust side of
//! `scripts/bench-python.sh`. Loads MODEL exactly as `synaptic_mem.Interpreter(MODEL)` does
//! (the plan of `Analysis::new` with graph I/O in the SHARED region and overlaps, the program
//! compiled beforehand and read in place, an exact arena of the plan's size), then times
//! `Interpreter::invoke` (input copied in, output copied out, as the Python call does) over
//! BATCHES batches of INVOCATIONS, in-process, on one seeded input. Prints one line:
//! `rust invoke us per batch: <µs> <µs> ...` (one figure per batch, the mean of its
//! INVOCATIONS).
#![deny(missing_docs)]
#![forbid(unsafe_code)]

use std::time::Instant;
use synaptic_mem::Arena;
use synaptic_plan::{Analysis, Model, SizingOptions};
use synaptic_run::{program, Interpreter, IoPlacement, RunPlan};

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args
        .first()
        .ok_or("usage: synaptic-py-bench MODEL [INVOCATIONS] [BATCHES]")?;
    let n: usize = args
        .get(1)
        .map_or(Ok(200), |s| s.parse())
        .map_err(|e| format!("{e}"))?;
    let batches: usize = args
        .get(2)
        .map_or(Ok(5), |s| s.parse())
        .map_err(|e| format!("{e}"))?;
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    let model = Model::from_bytes(&bytes).map_err(|e| e.to_string())?;
    let a = Analysis::new(model, &SizingOptions::default()).map_err(|e| e.to_string())?;
    let io = IoPlacement::Shared;
    let mut words = vec![0u32; program::compiled_len(&bytes, io).map_err(|e| e.to_string())?];
    program::compile(&bytes, io, &mut words).map_err(|e| e.to_string())?;
    let need = &a.report.ram;
    // 16-byte aligned arena of exactly the planned size, as the Python object allocates it.
    let mut buf = vec![0u8; need.arena_bytes as usize + 15];
    let off = buf.as_ptr().align_offset(16).min(15);
    let arena_buf = &mut buf[off..off + need.arena_bytes as usize];
    let mut shared =
        vec![0u8; (need.shared_bytes as usize).max(synaptic_mem::MIN_SHARED_SIZE) + 15];
    let soff = shared.as_ptr().align_offset(16).min(15);
    let shared_len = shared.len() - 15;
    let shared_buf = &mut shared[soff..soff + shared_len];
    let mut arena =
        Arena::exact(arena_buf, need.scratch_bytes as usize).map_err(|e| e.to_string())?;
    arena
        .set_shared_region(shared_buf)
        .map_err(|e| e.to_string())?;
    let (loader, mut runner) = arena.split();
    let plan = RunPlan::overlapped(a.ephemeral_plan.core_plan(), &a.ephemeral_plan.overlaps);
    let mut net =
        Interpreter::with_program(&bytes, &words, loader, plan, io).map_err(|e| e.to_string())?;
    let mut input = vec![0u8; net.input_bytes()];
    synaptic_run::seeded::seeded_input(&bytes, 1, &mut input).map_err(|e| e.to_string())?;
    let mut output = vec![0u8; net.output_bytes()];
    for _ in 0..n.min(20) {
        net.invoke(&mut runner, &input, &mut output)
            .map_err(|e| e.to_string())?;
    }
    let mut per = Vec::with_capacity(batches);
    for _ in 0..batches {
        let t = Instant::now();
        for _ in 0..n {
            net.invoke(&mut runner, std::hint::black_box(&input), &mut output)
                .map_err(|e| e.to_string())?;
        }
        per.push(t.elapsed().as_secs_f64() * 1e6 / n as f64);
    }
    let figures: Vec<String> = per.iter().map(|us| format!("{us:.1}")).collect();
    println!("rust invoke us per batch: {}", figures.join(" "));
    Ok(())
}
