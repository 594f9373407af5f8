//! Replays every shared model's allocation sequence on the core's plain bump path (the
//! planned path is tested in the core by the lead): an arena of exactly the reported size
//! (`--strategy bump`) takes the whole sequence, `arena_peak` and every region's usage equal
//! the report, and 16 bytes less fails.

mod common;

use common::replay::{replay as replay_on, Setup};
use synaptic_mem::{ArenaConfig, MAX_ARENA_SIZE, MIN_ARENA_SIZE};
use synaptic_plan::{allocation_sequence, Model, PlanOptions, SizingOptions, Strategy};

/// Load + shared + `inferences` inferences on the bump path (the shared replay of
/// `common::replay`); the first error as text.
fn replay(
    seq: &synaptic_plan::AllocationSequence,
    arena_len: usize,
    scratch: usize,
    inferences: usize,
) -> Result<synaptic_mem::Stats, String> {
    replay_on(
        seq,
        Setup {
            arena: arena_len,
            scratch,
            planned: false,
            per_op: None,
            inferences,
        },
    )
}

#[test]
fn bump_sequences_fit_exactly_the_reported_arena() {
    let Some(dir) = common::models_dir() else {
        return;
    };
    let mut replayed = 0;
    for path in common::model_paths(&dir) {
        let model = Model::from_file(&path).unwrap();
        let mut opts = SizingOptions {
            scratch_bytes: 1024,
            plan: PlanOptions {
                strategy: Strategy::Bump,
                ..PlanOptions::default()
            },
            ..SizingOptions::default()
        };
        // Tiny models: grow the scratch pool so the arena reaches the core's 4 KB minimum.
        let first = synaptic_plan::Analysis::new(model.clone(), &opts).unwrap();
        let need = first.report.arena_bytes_required as usize;
        if need < MIN_ARENA_SIZE {
            opts.scratch_bytes += MIN_ARENA_SIZE - need;
        }
        let scratch = opts.scratch_bytes;
        let a = synaptic_plan::Analysis::new(model.clone(), &opts).unwrap();
        let seq = allocation_sequence(model, &opts).unwrap();
        let r = &a.report;
        let need = r.arena_bytes_required as usize;
        for e in &seq.activations {
            assert_eq!(e.request.bytes, seq.plan_slots[e.slot].size);
        }
        if r.persistent_bytes + r.ephemeral_bytes == 0 {
            println!(
                "{}: nothing in the arena but scratch (all tensors shared)",
                r.model
            );
            // The smallest arena the core accepts above that pool (it needs room for one
            // descriptor below the pool).
            let min = r.min_valid_arena_bytes as usize;
            let layout = |a| {
                ArenaConfig {
                    arena_size: a,
                    scratch_size: scratch,
                }
                .layout()
            };
            assert!(
                layout(min).is_ok() && layout(min - 1).is_err(),
                "{}",
                r.model
            );
            continue;
        }
        if !(MIN_ARENA_SIZE..=MAX_ARENA_SIZE).contains(&need) {
            println!(
                "{}: {need} B is outside the core's arena range, not replayed",
                r.model
            );
            continue;
        }
        let st = replay(&seq, need, scratch, 3).unwrap_or_else(|e| panic!("{}: {e}", r.model));
        assert_eq!(st.persistent_used as u64, r.persistent_bytes, "{}", r.model);
        assert_eq!(
            st.arena_peak as u64,
            r.persistent_bytes + r.ephemeral_bytes,
            "{}",
            r.model
        );
        assert_eq!(
            st.ephemeral_peak as u64, r.bump_ephemeral_bytes,
            "{}",
            r.model
        );
        assert_eq!(st.shared_used as u64, r.shared_bytes, "{}", r.model);
        assert_eq!(st.reset_count, 3);
        assert_eq!(st.failed_count, 0);
        if need - 16 >= MIN_ARENA_SIZE {
            let err = replay(&seq, need - 16, scratch, 1).unwrap_err();
            assert!(
                err.contains("out of memory") || err.contains("bytes"),
                "{}: {err}",
                r.model
            );
        }
        replayed += 1;
    }
    assert!(replayed >= 16, "only {replayed} models replayed");
}
