//! Fragmentation run: synaptic-mem versus TLSF (rlsf) and LLFF (linked_list_allocator) in one
//! fixed 128 KB region.
//!
//! `cargo run --release -p synaptic-benches --bin frag [-- --cycles N --seed S --serialized
//! --heap-region BYTES]`
//! (or `scripts/frag`). Prints, per allocator,
//! `frag <allocator> <failed-allocations> <first-failure-cycle or ->`, where a failed allocation
//! counts when it failed **while the allocator's total free memory was enough** for it.
//!
//! Workload (identical for every allocator, from a fixed seed): two models are resident at a
//! time, drawn from a pool of eleven real models (1 KB to 98 KB); each cycle runs one inference
//! of one of them (alternating, with a random extra inference now and then); every 50..2000
//! cycles one of the two is unloaded and another model loaded in its place. Only pairs that
//! synaptic-mem provably runs in the 128 KB are drawn ([`pair_fits`]), so the workload is
//! always satisfiable (47 of the 55 pairs), and near capacity at times: kws_ref_model_float32
//! (34 KB of weights, 32 KB activations, 64 KB live at once) next to kws_ref_model fills
//! 96.7 % of the region at peak, next to the smaller models that fit with it 77–86 %. Heaps
//! free each activation after its last reader, scratch after its operator and an unloaded
//! model's weights and I/O tensors; each heap block holds the tensor descriptor and its data,
//! as synaptic-mem's do.
//!
//! Mixed (default): as on a multi-task MCU, the new model is loaded by another task while the
//! model that stays is half way through an inference, so on a heap its weights land between
//! live activations. synaptic-mem cannot do that (a persistent allocation while activations
//! are live is refused by design), so it loads between inferences: re-initialising is the only
//! way to reclaim persistent memory, so an unload re-initialises the arena and reloads the
//! model that stays. `--serialized` makes the heaps load between inferences too.
//!
//! synaptic-mem runs its planned path (what a deployment this close to capacity uses: each
//! model's plan, from `synaptic-plan`, is loaded with its weights and every inference places
//! its activations in the planned region). Its 128 KB are split like the heaps' region is
//! used: a 124 KB arena with the smallest scratch pool (1 KB; no model here asks for scratch)
//! and a 4 KB shared region for the models' I/O tensors.

use std::cell::Cell;

use synaptic_benches::allocs::{Llff, SynapticPlanned, TensorAlloc, Tlsf};
use synaptic_benches::replay::{self, Loaded};
use synaptic_benches::trace::ModelTrace;

const REGION: usize = 128 * 1024;
/// synaptic-mem's shared (I/O) region; the rest of the 128 KB is its arena.
const SHARED: usize = 4096;
/// No model in the pool asks for scratch, so synaptic-mem's pool is the smallest allowed.
const SCRATCH: usize = synaptic_mem::MIN_SCRATCH_SIZE;
/// Models that can be resident. A pair is used only if synaptic-mem runs it in 128 KB
/// ([`pair_fits`]); sizes range from 1 KB (hello_world) to 98 KB (kws float32: 34 KB of
/// weights and a 64 KB planned activation region with 32 KB tensors).
const POOL: [&str; 11] = [
    "kws_ref_model_float32",
    "kws_ref_model",
    "keyword_scrambled",
    "trained_lstm",
    "keyword_scrambled_8bit",
    "micro_speech_quantized",
    "trained_lstm_int8",
    "audio_preprocessor_int8",
    "audio_preprocessor_float",
    "hello_world_float",
    "hello_world_int8",
];

fn synaptic() -> SynapticPlanned {
    SynapticPlanned::new(REGION - SHARED, SCRATCH, SHARED)
}

struct XorShift(u64);
impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Whether models `a` and `b` can be resident together in synaptic-mem's 128 KB (planned
/// path), loaded in either order: tried on a fresh arena, loading both and running one
/// inference of each, with no allocation failing. `Some(bytes)`: the most of the 128 KB the
/// pair occupies at once (tensor space peak + shared region used).
fn pair_fits(a: &ModelTrace, b: &ModelTrace) -> Option<usize> {
    let mut peak = 0;
    for (x, y) in [(a, b), (b, a)] {
        let mut s = synaptic();
        let mut failed = 0u32;
        let mut lx = replay::load(&mut s, x, |_: &mut _, _| failed += 1);
        let mut ly = replay::load(&mut s, y, |_: &mut _, _| failed += 1);
        failed += replay::inference(&mut s, x, &mut lx.slots, replay::ignore);
        failed += replay::inference(&mut s, y, &mut ly.slots, replay::ignore);
        if failed != 0 {
            return None;
        }
        let st = s.arena().stats();
        peak = peak.max(st.arena_peak + st.shared_used);
    }
    Some(peak)
}

/// One step of the schedule.
#[derive(Clone, Copy)]
enum Step {
    /// Run one inference of resident slot 0 or 1.
    Infer(usize),
    /// Replace resident slot `.0` by pool model `.1`.
    Swap(usize, usize),
}

/// `peaks[a][b]`: [`pair_fits`] of pool models `a` and `b` (`None`: they do not fit together).
fn schedule(peaks: &[Vec<Option<usize>>], cycles: u64, seed: u64) -> (Vec<Step>, [usize; 2]) {
    let fits = |a: usize, b: usize| peaks[a][b].is_some();
    let mut rng = XorShift(seed | 1);
    let pairs: Vec<[usize; 2]> = (0..peaks.len())
        .flat_map(|a| (a + 1..peaks.len()).map(move |b| [a, b]))
        .filter(|&[a, b]| fits(a, b))
        .collect();
    assert!(!pairs.is_empty(), "no pair of pool models fits the region");
    let mut resident = pairs[rng.below(pairs.len() as u64) as usize];
    let initial = resident;
    let mut steps = Vec::with_capacity(cycles as usize + cycles as usize / 50);
    let mut next_swap = 50 + rng.below(1950);
    let mut cycle = 0u64;
    let mut turn = 0usize;
    while cycle < cycles {
        if cycle == next_swap {
            next_swap = cycle + 50 + rng.below(1950);
            let slot = rng.below(2) as usize;
            let keep = resident[1 - slot];
            let candidates: Vec<usize> = (0..peaks.len())
                .filter(|&m| m != keep && m != resident[slot] && fits(m, keep))
                .collect();
            if !candidates.is_empty() {
                let m = candidates[rng.below(candidates.len() as u64) as usize];
                resident[slot] = m;
                steps.push(Step::Swap(slot, m));
            }
        }
        // Alternate, with an occasional repeat of the same model; right after a swap, the model
        // that stayed runs (a heap loads the new one half way through that inference).
        if let Some(Step::Swap(slot, _)) = steps.last() {
            turn = 1 - *slot;
        } else if rng.below(8) != 0 {
            turn = 1 - turn;
        }
        steps.push(Step::Infer(turn));
        cycle += 1;
    }
    (steps, initial)
}

#[derive(Default)]
struct Frag {
    failed: Cell<u64>,
    failed_with_room: Cell<u64>,
    /// The first failure with room: `(cycle, bytes needed, total bytes free)`.
    first: Cell<Option<(u64, usize, usize)>>,
    /// Over all failures with room: smallest and largest block refused, and least and most free
    /// memory then.
    needed_range: Cell<(usize, usize)>,
    free_range: Cell<(usize, usize)>,
    /// Inference cycles in which at least one allocation failed.
    failed_cycles: Cell<u64>,
    last_failed_cycle: Cell<Option<u64>>,
    cycle: Cell<u64>,
}

impl Frag {
    fn hook<A: TensorAlloc>(&self) -> impl FnMut(&mut A, usize) + '_ {
        move |a: &mut A, needed| {
            self.failed.set(self.failed.get() + 1);
            if self.last_failed_cycle.get() != Some(self.cycle.get()) {
                self.last_failed_cycle.set(Some(self.cycle.get()));
                self.failed_cycles.set(self.failed_cycles.get() + 1);
            }
            let free = a.free_bytes();
            if free >= needed {
                self.failed_with_room.set(self.failed_with_room.get() + 1);
                if self.first.get().is_none() {
                    self.first.set(Some((self.cycle.get(), needed, free)));
                    self.needed_range.set((needed, needed));
                    self.free_range.set((free, free));
                }
                let widen = |c: &Cell<(usize, usize)>, v: usize| {
                    let (lo, hi) = c.get();
                    c.set((lo.min(v), hi.max(v)));
                };
                widen(&self.needed_range, needed);
                widen(&self.free_range, free);
            }
        }
    }
}

fn empty() -> Loaded {
    Loaded {
        persistent: Vec::new(),
        shared: Vec::new(),
        slots: Vec::new(),
        failed: 0,
    }
}

fn run<A: TensorAlloc>(
    mut a: A,
    pool: &[ModelTrace],
    steps: &[Step],
    initial: [usize; 2],
    mixed: bool,
) -> Frag {
    let f = Frag::default();
    let mut resident = initial;
    let mut loaded: Vec<Loaded> = resident
        .iter()
        .map(|&m| replay::load(&mut a, &pool[m], f.hook()))
        .collect();
    // A model whose load is due half way through the next inference (mixed heaps).
    let mut pending: Option<usize> = None;
    for step in steps {
        match *step {
            Step::Infer(slot) => {
                let t = &pool[resident[slot]];
                let mut slots = std::mem::take(&mut loaded[slot].slots);
                match pending.take() {
                    Some(new_slot) => {
                        let nt = &pool[resident[new_slot]];
                        let mut newly = None;
                        replay::inference_with(
                            &mut a,
                            t,
                            &mut slots,
                            f.hook(),
                            t.events.len() / 2,
                            |a: &mut A| newly = Some(replay::load(a, nt, f.hook())),
                        );
                        loaded[new_slot] = newly.expect("load ran");
                    }
                    None => {
                        replay::inference(&mut a, t, &mut slots, f.hook());
                    }
                }
                loaded[slot].slots = slots;
                f.cycle.set(f.cycle.get() + 1);
            }
            Step::Swap(slot, m) => {
                let old = std::mem::replace(&mut loaded[slot], empty());
                replay::unload(&mut a, &pool[resident[slot]], old);
                resident[slot] = m;
                if A::HEAP && mixed {
                    pending = Some(slot);
                } else if A::HEAP {
                    loaded[slot] = replay::load(&mut a, &pool[m], f.hook());
                } else {
                    // Re-initialise, reload the model that stays, then the new one.
                    a.unload_all();
                    let keep = 1 - slot;
                    loaded[keep] = replay::load(&mut a, &pool[resident[keep]], f.hook());
                    loaded[slot] = replay::load(&mut a, &pool[m], f.hook());
                }
            }
        }
    }
    f
}

fn arg(args: &[String], name: &str, default: u64) -> u64 {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map_or(default, |v| v.parse().expect("numeric argument"))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let cycles = arg(&args, "--cycles", 1_000_000);
    let seed = arg(&args, "--seed", 0x5eed_cafe);
    let mixed = !args.iter().any(|a| a == "--serialized");
    // Exploration only: a smaller region for the heaps (same schedule), to see how much
    // headroom they have before fragmentation bites. The default is the 128 KB.
    let heap_region = arg(&args, "--heap-region", REGION as u64) as usize;
    let pool: Vec<ModelTrace> = POOL
        .iter()
        .map(|n| ModelTrace::load(n).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    // `pair_fits` tries both load orders, so each pair is tried once and mirrored.
    let mut peaks = vec![vec![None; pool.len()]; pool.len()];
    for a in 0..pool.len() {
        for b in a + 1..pool.len() {
            let p = pair_fits(&pool[a], &pool[b]);
            (peaks[a][b], peaks[b][a]) = (p, p);
        }
    }
    let fill: Vec<f64> = (0..pool.len())
        .flat_map(|a| (a + 1..pool.len()).map(move |b| (a, b)))
        .filter_map(|(a, b)| peaks[a][b])
        .map(|p| 100.0 * p as f64 / REGION as f64)
        .collect();
    eprintln!(
        "# {} of {} model pairs fit synaptic-mem's 128 KB; they fill {:.1} % to {:.1} % of it at peak",
        fill.len(),
        pool.len() * (pool.len() - 1) / 2,
        fill.iter().cloned().fold(f64::INFINITY, f64::min),
        fill.iter().cloned().fold(0.0, f64::max),
    );
    let full = peaks[0]
        .iter()
        .enumerate()
        .filter_map(|(b, p)| {
            p.map(|p| format!("{} {:.1} %", POOL[b], 100.0 * p as f64 / REGION as f64))
        })
        .collect::<Vec<_>>();
    eprintln!("#   {} with: {}", POOL[0], full.join(", "));
    let (steps, initial) = schedule(&peaks, cycles, seed);
    let swaps = steps.iter().filter(|s| matches!(s, Step::Swap(..))).count();
    eprintln!(
        "# {cycles} inference cycles, {swaps} model swaps, 128 KB region, {} loads, pool: {}",
        if mixed {
            "mixed (heaps load during an inference)"
        } else {
            "serialized"
        },
        POOL.join(" ")
    );
    let report = |name: &str, f: Frag| {
        let first = f
            .first
            .get()
            .map_or("-".to_string(), |(c, _, _)| c.to_string());
        println!("frag {name} {} {first}", f.failed_with_room.get());
        eprintln!(
            "#   {name}: {} failed allocations in all, {} of them with enough total free memory; \
             {} of {cycles} inference cycles hit a failure",
            f.failed.get(),
            f.failed_with_room.get(),
            f.failed_cycles.get(),
        );
        if let Some((_, needed, free)) = f.first.get() {
            let ((n0, n1), (f0, f1)) = (f.needed_range.get(), f.free_range.get());
            eprintln!(
                "#   {name}: first failure with room: a {needed} B block refused with {free} B free; \
                 all of them: blocks of {n0}..{n1} B refused with {f0}..{f1} B free"
            );
        }
    };
    report(
        "synaptic-mem",
        run(synaptic(), &pool, &steps, initial, mixed),
    );
    report(
        Tlsf::NAME,
        run(Tlsf::new(heap_region), &pool, &steps, initial, mixed),
    );
    report(
        Llff::NAME,
        run(Llff::new(heap_region), &pool, &steps, initial, mixed),
    );
}
