//! The core's toy network (the main job before issue 11; `scripts/run` now runs a real model
//! with synaptic-run): load a small int8 network's weights into the persistent region, then run many
//! inferences whose activations live in the ephemeral region and whose per-layer intermediates
//! live in the scratch pool, with the model's input and output in a shared (IPC) region; print
//! the `syn mem stats` table at the end.
//!
//! `cargo run --release -p synaptic-mem --example inference [INFERENCES]`

use synaptic_mem::{Arena, ArenaBuffer, DType};

/// Layer widths of the toy multilayer perceptron: 64 → 128 → 64 → 10.
const WIDTHS: [u32; 4] = [64, 128, 64, 10];

const USAGE: &str = "usage: cargo run --release -p synaptic-mem --example inference -- [INFERENCES]  (a whole number, default 1000)";

fn main() {
    let mut args = std::env::args().skip(1);
    let inferences: u32 = match (args.next(), args.next()) {
        (None, _) => 1000,
        (Some(a), None) if a == "-h" || a == "--help" => {
            println!("{USAGE}");
            return;
        }
        (Some(a), None) => {
            match a.parse() {
                Ok(n) => n,
                Err(_) => {
                    eprintln!("inference: INFERENCES must be a whole number from 0 to {}, not {a:?}\n{USAGE}", u32::MAX);
                    std::process::exit(2);
                }
            }
        }
        (Some(_), Some(_)) => {
            eprintln!("inference: too many arguments\n{USAGE}");
            std::process::exit(2);
        }
    };

    let mut buf = Box::new(ArenaBuffer::<131_072>::new());
    let mut io = Box::new(ArenaBuffer::<1024>::new());
    let mut arena = Arena::new(buf.as_mut_slice()).expect("arena");
    arena
        .set_shared_region(io.as_mut_slice())
        .expect("shared region");
    let (loader, mut runner) = arena.split();

    // Load: weights and biases into the persistent region.
    let mut layers = Vec::new();
    for (l, pair) in WIDTHS.windows(2).enumerate() {
        let (n_in, n_out) = (pair[0], pair[1]);
        let mut w = loader
            .persistent(&[n_out, n_in], DType::Int8)
            .expect("weights");
        let mut b = loader.persistent(&[n_out], DType::Int32).expect("bias");
        for (i, x) in w.as_mut_slice::<i8>().unwrap().iter_mut().enumerate() {
            *x = ((i * 7 + l * 13) % 15) as i8 - 7;
        }
        for (i, x) in b.as_mut_slice::<i32>().unwrap().iter_mut().enumerate() {
            *x = (i as i32 % 5) - 2;
        }
        layers.push((w, b));
    }
    // Model input and output live in the shared region.
    let mut input = loader.shared(&[1, WIDTHS[0]], DType::Int8).expect("input");
    let mut output = loader
        .shared(&[1, WIDTHS[3]], DType::Int32)
        .expect("output");

    let mut checksum = 0i64;
    for n in 0..inferences {
        for (i, x) in input.as_mut_slice::<i8>().unwrap().iter_mut().enumerate() {
            *x = ((i as u32 + n) % 11) as i8 - 5;
        }
        runner.inference(|inf| {
            // Per layer: int32 accumulators in scratch, the int32 and requantised int8
            // activations as ephemeral tensors. out[o] = relu(sum in[i] * w[o][i] + b[o]).
            let mut act: Vec<i8> = input.as_slice::<i8>().unwrap().to_vec();
            let mut last = None;
            for (w, b) in &layers {
                let (n_out, n_in) = (w.shape()[0] as usize, w.shape()[1] as usize);
                let acc = inf.scratch(n_out * 4).expect("scratch");
                let mut out = inf
                    .ephemeral(&[1, n_out as u32], DType::Int32)
                    .expect("act");
                let wv = w.as_slice::<i8>().unwrap();
                let bv = b.as_slice::<i32>().unwrap();
                for o in 0..n_out {
                    let s: i32 = (0..n_in)
                        .map(|i| act[i] as i32 * wv[o * n_in + i] as i32)
                        .sum::<i32>()
                        + bv[o];
                    acc[o * 4..o * 4 + 4].copy_from_slice(&s.to_le_bytes());
                }
                let ov = out.as_mut_slice::<i32>().unwrap();
                for (o, v) in ov.iter_mut().enumerate() {
                    *v = i32::from_le_bytes(acc[o * 4..o * 4 + 4].try_into().unwrap()).max(0);
                }
                let mut q = inf.ephemeral(&[1, n_out as u32], DType::Int8).expect("act");
                for (d, &s) in q.as_mut_slice::<i8>().unwrap().iter_mut().zip(ov.iter()) {
                    *d = (s >> 4).min(127) as i8;
                }
                act = q.as_slice::<i8>().unwrap().to_vec();
                last = Some(out);
            }
            output
                .as_mut_slice::<i32>()
                .unwrap()
                .copy_from_slice(last.unwrap().as_slice::<i32>().unwrap());
        });
        checksum += output
            .as_slice::<i32>()
            .unwrap()
            .iter()
            .map(|&v| v as i64)
            .sum::<i64>();
    }
    println!("{inferences} inferences, output checksum {checksum}");
    print!("{}", runner.stats());
}
