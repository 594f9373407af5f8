//! "A size you can trust": every shared model's whole allocation sequence (persistent load,
//! shared I/O, then several planned inferences with activations, scratch and a reset) replayed
//! through the core's safe planned API on an arena of exactly the size `synmem plan` reports.
//! It succeeds, every live tensor's canary bytes stay intact at every operator, and
//! `arena_peak` equals the report; with 16 bytes less it fails with a clear error.

mod common;

use common::aligned;

use synaptic_mem::{Arena, ErrorKind, Plan, Stats, MAX_ARENA_SIZE, MIN_ARENA_SIZE};
use synaptic_plan::{allocation_sequence, AllocationSequence, Analysis, Model, SizingOptions};

fn canary(tensor: usize) -> u8 {
    (tensor % 251) as u8 + 1
}

/// Load, then `inferences` planned inferences; the first failure as text.
fn replay(
    seq: &AllocationSequence,
    arena_len: usize,
    scratch: usize,
    inferences: usize,
) -> Result<Stats, String> {
    let mut store = Vec::new();
    let mut shared_store = Vec::new();
    let mut arena =
        Arena::with_scratch(aligned(&mut store, arena_len), scratch).map_err(|e| e.to_string())?;
    if seq.shared_bytes > 0 {
        arena
            .set_shared_region(aligned(&mut shared_store, seq.shared_bytes as usize))
            .map_err(|e| e.to_string())?;
    }
    let (loader, mut runner) = arena.split();
    let mut weights = Vec::new();
    for p in seq.persistent.iter().filter(|p| !p.data_in_flash) {
        let mut t = loader
            .persistent(&p.request.shape, p.request.dtype)
            .map_err(|e| format!("persistent tensor {}: {e}", p.tensor.tensor))?;
        t.bytes_mut().fill(canary(p.tensor.tensor));
        weights.push((canary(p.tensor.tensor), t));
    }
    let mut io = Vec::new();
    for s in &seq.shared {
        let mut t = loader
            .shared(&s.request.shape, s.request.dtype)
            .map_err(|e| format!("shared tensor {}: {e}", s.tensor.tensor))?;
        t.bytes_mut().fill(canary(s.tensor.tensor));
        io.push((canary(s.tensor.tensor), t));
    }
    let plan = loader
        .load_plan(Plan {
            region_size: seq.plan_region_size as u32,
            slots: &seq.plan_slots,
        })
        .map_err(|e| e.to_string())?;
    for _ in 0..inferences {
        runner
            .planned(&plan, |p| {
                for a in &seq.activations {
                    p.alloc(a.slot, &a.request.shape, a.request.dtype)
                        .unwrap_or_else(|e| panic!("activation {}: {e}", a.tensor.tensor));
                }
                let s = p.inference().scratch(scratch).expect("scratch");
                s.fill(0xEE);
                for op in 0..seq.operators {
                    let op16 = op as u16;
                    for a in seq.activations.iter().filter(|a| a.first_op == op) {
                        let [mut t] = p.at(op16, [a.slot]).expect("produced tensor");
                        t.bytes_mut().fill(canary(a.tensor.tensor));
                    }
                    for a in seq
                        .activations
                        .iter()
                        .filter(|a| a.first_op <= op && op <= a.last_op)
                    {
                        let [t] = p.at(op16, [a.slot]).expect("live tensor");
                        assert_eq!(t.size(), a.request.bytes as usize);
                        assert!(
                            t.bytes().iter().all(|&b| b == canary(a.tensor.tensor)),
                            "{}: tensor {} damaged at op {op}",
                            seq.model,
                            a.tensor.tensor
                        );
                    }
                }
                assert!(s.iter().all(|&b| b == 0xEE));
            })
            .map_err(|e| e.to_string())?;
        for (c, t) in weights.iter().chain(&io) {
            assert!(
                t.bytes().iter().all(|b| b == c),
                "{}: weights damaged",
                seq.model
            );
        }
    }
    Ok(runner.stats())
}

#[test]
fn planned_sequences_fit_exactly_the_reported_arena() {
    let Some(dir) = common::models_dir() else {
        return;
    };
    let mut replayed = 0;
    for path in common::model_paths(&dir) {
        let model = Model::from_file(&path).unwrap();
        let mut opts = SizingOptions {
            scratch_bytes: 1024,
            ..SizingOptions::default()
        };
        // Tiny models: grow the scratch pool so the arena reaches the core's 4 KB minimum.
        let need = Analysis::new(model.clone(), &opts)
            .unwrap()
            .report
            .arena_bytes_required;
        if (need as usize) < MIN_ARENA_SIZE {
            opts.scratch_bytes += MIN_ARENA_SIZE - need as usize;
        }
        let a = Analysis::new(model.clone(), &opts).unwrap();
        let r = &a.report;
        let seq = allocation_sequence(model, &opts).unwrap();
        let need = r.arena_bytes_required as usize;
        if r.persistent_bytes + r.ephemeral_bytes == 0
            || !(MIN_ARENA_SIZE..=MAX_ARENA_SIZE).contains(&need)
        {
            println!(
                "{}: {need} B arena (tensor space {} B) not replayable, skipped",
                r.model,
                r.persistent_bytes + r.ephemeral_bytes
            );
            continue;
        }
        let st = replay(&seq, need, opts.scratch_bytes, 3)
            .unwrap_or_else(|e| panic!("{}: {e}", r.model));
        assert_eq!(
            st.arena_peak as u64,
            r.persistent_bytes + r.ephemeral_bytes,
            "{}",
            r.model
        );
        assert_eq!(st.persistent_used as u64, r.persistent_bytes, "{}", r.model);
        assert_eq!(st.ephemeral_peak as u64, r.ephemeral_bytes, "{}", r.model);
        assert_eq!((st.reset_count, st.failed_count), (3, 0), "{}", r.model);
        // 16 bytes less: of the arena, or (at the 4 KB minimum) of the tensor space below a
        // scratch pool grown by 16.
        let (short_arena, short_scratch) = if need - 16 >= MIN_ARENA_SIZE {
            (need - 16, opts.scratch_bytes)
        } else {
            (need, opts.scratch_bytes + 16)
        };
        let err = replay(&seq, short_arena, short_scratch, 1).unwrap_err();
        assert!(
            err.contains(ErrorKind::OutOfMemory.describe())
                || err.contains(ErrorKind::TooLarge.describe()),
            "{}: {err}",
            r.model
        );
        println!(
            "{}: {need} B replayed; {short_arena} B with {short_scratch} B scratch fails: {err}",
            r.model
        );
        replayed += 1;
    }
    assert!(replayed >= 16, "only {replayed} models replayed");
}
