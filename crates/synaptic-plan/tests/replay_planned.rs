//! "A size you can trust": every shared model's whole allocation sequence (persistent load,
//! shared I/O, then several planned inferences with activations, scratch and a reset) replayed
//! through the core's safe planned API on an arena of exactly the size `synmem plan` reports.
//! It succeeds, every live tensor's canary bytes stay intact at every operator, and
//! `arena_peak` equals the report; with 16 bytes less it fails with a clear error.

mod common;

use common::replay::{replay as replay_on, Setup};
use synaptic_mem::{ErrorKind, Stats, MAX_ARENA_SIZE, MIN_ARENA_SIZE};
use synaptic_plan::{allocation_sequence, AllocationSequence, Analysis, Model, SizingOptions};

/// Load, then `inferences` planned inferences (the shared replay of `common::replay`, canaries
/// checked at every operator); the first failure as text.
fn replay(
    seq: &AllocationSequence,
    arena_len: usize,
    scratch: usize,
    inferences: usize,
) -> Result<Stats, String> {
    replay_on(
        seq,
        Setup {
            arena: arena_len,
            scratch,
            planned: true,
            per_op: None,
            inferences,
        },
    )
}

#[test]
fn planned_sequences_fit_exactly_the_reported_arena() {
    let Some(dir) = common::models_dir() else {
        return;
    };
    let mut replayed = 0;
    for path in common::model_paths(&dir) {
        let model = Model::from_file(&path).unwrap();
        // Replayed on the core's plain planned path: the plain plan.
        let mut opts = SizingOptions {
            scratch_bytes: 1024,
            overlap: false,
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
