//! Planned ephemeral regions: activations at precomputed offsets, O(1) each, with the same
//! safety rules and statistics as the bump path.

use synaptic_mem::{
    Arena, ArenaBuffer, DType, ErrorKind, Plan, PlanError, PlanLoadError, PlanSlot, RawArena,
};

/// A chain: t0 (ops 0..=0) → t1 (0..=1) → t2 (1..=2) → t3 (2..=2); t2 reuses t0's memory.
const SLOTS: &[PlanSlot] = &[
    PlanSlot {
        offset: 0,
        size: 100,
        first_op: 0,
        last_op: 0,
    },
    PlanSlot {
        offset: 112,
        size: 200,
        first_op: 0,
        last_op: 1,
    },
    PlanSlot {
        offset: 0,
        size: 96,
        first_op: 1,
        last_op: 2,
    },
    PlanSlot {
        offset: 112,
        size: 50,
        first_op: 2,
        last_op: 2,
    },
];
const PLAN: Plan<'static> = Plan {
    region_size: 320,
    slots: SLOTS,
};

#[test]
fn validation_rejects_overlaps_and_bad_slots() {
    assert_eq!(PLAN.validate(), Ok(()));
    let bad = |slots: &[PlanSlot], region| {
        Plan {
            region_size: region,
            slots,
        }
        .validate()
    };
    let s = |offset, size, first_op, last_op| PlanSlot {
        offset,
        size,
        first_op,
        last_op,
    };
    assert_eq!(
        bad(&[s(0, 16, 0, 1), s(0, 16, 1, 2)], 32),
        Err(PlanError::Overlap(0, 1))
    );
    assert_eq!(
        bad(&[s(0, 17, 0, 1), s(16, 16, 1, 2)], 48),
        Err(PlanError::Overlap(0, 1))
    );
    assert_eq!(bad(&[s(0, 17, 0, 1), s(32, 16, 1, 2)], 48), Ok(()));
    assert_eq!(
        bad(&[s(8, 16, 0, 1)], 32),
        Err(PlanError::UnalignedOffset(0))
    );
    assert_eq!(bad(&[s(0, 33, 0, 1)], 32), Err(PlanError::OutOfRegion(0)));
    assert_eq!(bad(&[s(0, 0, 0, 1)], 32), Err(PlanError::BadSlot(0)));
    assert_eq!(bad(&[s(0, 16, 2, 1)], 32), Err(PlanError::BadSlot(0)));
    assert_eq!(bad(&[s(0, 16, 0, 1)], 24), Err(PlanError::UnalignedRegion));
}

#[test]
fn planned_tensors_land_at_their_offsets_and_stats_count_them() {
    let mut buf = Box::new(ArenaBuffer::<8192>::new());
    let base = buf.as_mut_slice().as_ptr() as usize;
    let arena = RawArena::new(buf.as_mut_slice(), 1024).unwrap();
    arena
        .alloc(&[10], DType::Int8, synaptic_mem::Lifetime::Persistent)
        .unwrap(); // 48
    let lp = arena.load_plan(PLAN).unwrap();
    let s = arena.stats();
    assert_eq!(s.persistent_used, 48 + 4 * 32); // descriptor table in persistent
    assert_eq!(s.alloc_count, 2);
    for round in 0..3 {
        let region = arena.begin_plan(&lp).unwrap();
        assert_eq!(region.offset(), 176);
        assert_eq!(arena.stats().ephemeral_used, 320);
        for (i, (shape, dt)) in [
            (&[100u32][..], DType::Int8),
            (&[50], DType::Int32),
            (&[2, 48], DType::Int8),
            (&[25], DType::Int16),
        ]
        .into_iter()
        .enumerate()
        {
            let d = arena.alloc_planned(&lp, region, i, shape, dt).unwrap();
            // SAFETY: fresh descriptor in the plan's table.
            let d = unsafe { d.as_ref() };
            assert_eq!(d.data_ptr() as usize - base, 176 + SLOTS[i].offset as usize);
            assert_eq!(d.data_ptr() as usize % 16, 0);
            assert_eq!(d.shape(), shape);
        }
        // Wrong slot, too many bytes, another dtype that needs more bytes: refused.
        let failed = arena.stats().failed_count;
        let e = arena
            .alloc_planned(&lp, region, 4, &[1], DType::Int8)
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::PlanMismatch);
        let e = arena
            .alloc_planned(&lp, region, 0, &[101], DType::Int8)
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::PlanMismatch);
        assert_eq!(e.needed, 112, "the tensor's aligned size");
        let e = arena
            .alloc_planned(&lp, region, 3, &[50], DType::Float32)
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::PlanMismatch);
        let e = arena
            .alloc_planned(&lp, region, 3, &[0], DType::Int8)
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::ZeroDimension);
        assert_eq!(arena.stats().failed_count, failed + 4);
        assert_eq!(arena.stats().alloc_count, 2 + (round + 1) * 4);
        arena.reset_ephemeral();
        // After the reset the region is gone.
        let e = arena
            .alloc_planned(&lp, region, 0, &[1], DType::Int8)
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::PlanMismatch);
        assert_eq!(e.needed, 0, "a stale region, not a size problem");
    }
    let s = arena.stats();
    assert_eq!(s.ephemeral_peak, 320);
    assert_eq!(s.arena_peak, 176 + 320);
}

#[test]
fn region_that_does_not_fit_fails_cleanly() {
    // Tensor space 4096 - (4096 - 128 - 304) = 432 B: the 128-byte table leaves 304 B, less
    // than the plan's 320-byte region, so the plan is refused at load and nothing changes.
    let mut buf = Box::new(ArenaBuffer::<4096>::new());
    let arena = RawArena::new(buf.as_mut_slice(), 4096 - 128 - 304).unwrap();
    let before = arena.stats();
    match arena.load_plan(PLAN) {
        Err(PlanLoadError::Alloc(e)) => assert_eq!(
            (e.kind, e.region, e.needed, e.available),
            (
                ErrorKind::TooLarge,
                synaptic_mem::Region::Ephemeral,
                320,
                304
            )
        ),
        other => panic!("{other:?}"),
    }
    let mut after = arena.stats();
    assert_eq!(after.failed_count, before.failed_count + 1);
    after.failed_count = before.failed_count;
    assert_eq!(
        after, before,
        "a refused plan changes nothing but the failed count"
    );

    // A region that fits the tensor space but not what live ephemeral tensors leave of it:
    // refused when the inference begins.
    let mut buf = Box::new(ArenaBuffer::<4096>::new());
    let arena = RawArena::new(buf.as_mut_slice(), 4096 - 128 - 320).unwrap();
    let lp = arena.load_plan(PLAN).unwrap();
    arena
        .alloc(&[1], DType::Int8, synaptic_mem::Lifetime::Ephemeral)
        .unwrap();
    let before = arena.stats();
    let e = arena.begin_plan(&lp).unwrap_err();
    assert_eq!(
        (e.kind, e.needed, e.available),
        (ErrorKind::OutOfMemory, 320, 320 - 48)
    );
    assert_eq!(arena.stats().failed_count, before.failed_count + 1);
    assert_eq!(arena.stats().ephemeral_used, 48);
}

#[test]
fn plan_load_follows_the_persistent_rules() {
    let mut buf = Box::new(ArenaBuffer::<8192>::new());
    let arena = RawArena::new(buf.as_mut_slice(), 1024).unwrap();
    arena
        .alloc(&[4], DType::Int8, synaptic_mem::Lifetime::Ephemeral)
        .unwrap();
    match arena.load_plan(PLAN) {
        Err(PlanLoadError::Alloc(e)) => assert_eq!(e.kind, ErrorKind::EphemeralLive),
        other => panic!("{other:?}"),
    }
    let bad = Plan {
        region_size: 16,
        slots: SLOTS,
    };
    assert_eq!(
        arena.load_plan(bad).unwrap_err(),
        PlanLoadError::Invalid(PlanError::OutOfRegion(0))
    );
}

#[test]
fn safe_planned_inference_reuses_memory_by_operator() {
    let mut buf = Box::new(ArenaBuffer::<8192>::new());
    let mut other = Box::new(ArenaBuffer::<8192>::new());
    let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
    let mut arena2 = Arena::with_scratch(other.as_mut_slice(), 1024).unwrap();
    let (loader, mut runner) = arena.split();
    let (_l2, mut runner2) = arena2.split();
    let plan = loader.load_plan(PLAN).unwrap();
    for n in 0..4u8 {
        let r = runner
            .planned(&plan, |p| {
                p.alloc(0, &[100], DType::Int8).unwrap();
                p.alloc(1, &[200], DType::Int8).unwrap();
                p.alloc(2, &[96], DType::Int8).unwrap();
                p.alloc(3, &[50], DType::Int8).unwrap();
                {
                    let [mut t0, mut t1] = p.at(0, [0, 1]).unwrap();
                    t0.bytes_mut().fill(n);
                    t1.bytes_mut().fill(n + 1);
                }
                // Not live together, duplicates, unknown slots: refused.
                assert!(p.at(0, [2]).is_err());
                assert!(p.at(1, [1, 1]).is_err());
                assert!(p.at(1, [9]).is_err());
                let s = p.inference().scratch(64).unwrap();
                s.fill(7);
                let [t1, mut t2] = p.at(1, [1, 2]).unwrap();
                assert!(t1.bytes().iter().all(|&b| b == n + 1));
                t2.bytes_mut().fill(9); // overwrites t0's memory: t0 is dead
                assert_eq!(t1.as_ptr() as usize - t2.as_ptr() as usize, 112);
                t2.bytes()[0]
            })
            .unwrap();
        assert_eq!(r, 9);
    }
    assert_eq!(runner.stats().reset_count, 4);
    assert_eq!(runner.stats().ephemeral_peak, 320);
    // A plan loaded into one arena cannot run on another.
    assert_eq!(
        runner2.planned(&plan, |_| ()).unwrap_err().kind,
        ErrorKind::PlanMismatch
    );
}

mod validate_model {
    //! `Plan::validate` against a model in `u128` arithmetic (nothing can wrap there), on random
    //! plans whose sizes and offsets reach `u32::MAX`: on 32 and 64 bits alike, a plan validates
    //! exactly when the model says every slot is aligned, non-empty, inside the region and
    //! disjoint from every slot live with it.
    use super::*;
    use proptest::prelude::*;

    fn big_u32() -> impl Strategy<Value = u32> {
        prop_oneof![
            4 => (0u32..64).prop_map(|v| v * 16),
            1 => any::<u32>(),
            1 => prop_oneof![Just(u32::MAX), Just(u32::MAX - 15), Just(0xFFFF_FFF0), Just(1 << 31)],
        ]
    }

    fn slot() -> impl Strategy<Value = PlanSlot> {
        (big_u32(), big_u32(), 0u16..4, 0u16..4).prop_map(|(offset, size, a, b)| PlanSlot {
            offset,
            size,
            first_op: a.min(b),
            last_op: a.max(b),
        })
    }

    fn model(region: u32, slots: &[PlanSlot]) -> bool {
        let end = |s: &PlanSlot| s.offset as u128 + (s.size as u128).div_ceil(16) * 16;
        region % 16 == 0
            && slots.iter().enumerate().all(|(i, s)| {
                s.offset % 16 == 0
                    && s.size > 0
                    && end(s) <= region as u128
                    && slots[..i].iter().all(|t| {
                        let live = s.first_op <= t.last_op && t.first_op <= s.last_op;
                        let mem = (s.offset as u128) < end(t) && (t.offset as u128) < end(s);
                        !(live && mem)
                    })
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: if cfg!(miri) { 8 } else { 20_000 },
            failure_persistence: None,
            ..ProptestConfig::default()
        })]
        #[test]
        fn validate_matches_the_wide_model(
            region in big_u32(),
            slots in proptest::collection::vec(slot(), 0..5),
        ) {
            let plan = Plan { region_size: region, slots: &slots };
            prop_assert_eq!(plan.validate().is_ok(), model(region, &slots));
        }
    }
}

mod overlapped {
    use synaptic_mem::plan::{OverlapDirection as D, OverlapPair, Plan, PlanError, PlanSlot};

    const fn slot(offset: u32, size: u32, first_op: u16, last_op: u16) -> PlanSlot {
        PlanSlot {
            offset,
            size,
            first_op,
            last_op,
        }
    }

    fn pair(op: u16, input: u16, output: u16, direction: D, bound: i32) -> OverlapPair {
        OverlapPair {
            op,
            input,
            output,
            direction,
            bound,
        }
    }

    #[test]
    fn forward_pair_within_and_beyond_its_bound() {
        // Output (slot 1) 16 bytes below the input's start, forward, bound −16.
        let slots = [slot(16, 64, 0, 1), slot(0, 64, 1, 2)];
        let plan = Plan {
            region_size: 80,
            slots: &slots,
        };
        assert_eq!(plan.validate(), Err(PlanError::Overlap(0, 1)));
        assert_eq!(
            plan.validate_overlapped(&[pair(1, 0, 1, D::Forward, -16)]),
            Ok(())
        );
        assert_eq!(
            plan.validate_overlapped(&[pair(1, 0, 1, D::Forward, -17)]),
            Err(PlanError::Overlap(0, 1))
        );
        // Backward needs the delta (−16) at or above its bound.
        assert_eq!(
            plan.validate_overlapped(&[pair(1, 0, 1, D::Backward, -16)]),
            Ok(())
        );
        assert_eq!(
            plan.validate_overlapped(&[pair(1, 0, 1, D::Backward, 0)]),
            Err(PlanError::Overlap(0, 1))
        );
        // A declaration covers only its own pair: a third slot live at 1 still conflicts.
        let slots3 = [slot(16, 64, 0, 1), slot(0, 64, 1, 2), slot(64, 16, 1, 1)];
        let plan3 = Plan {
            region_size: 96,
            slots: &slots3,
        };
        assert_eq!(
            plan3.validate_overlapped(&[pair(1, 0, 1, D::Forward, 0)]),
            Err(PlanError::Overlap(0, 2))
        );
    }

    #[test]
    fn malformed_declarations_are_refused() {
        let slots = [slot(0, 32, 0, 1), slot(16, 64, 1, 2), slot(0, 16, 2, 2)];
        let plan = Plan {
            region_size: 96,
            slots: &slots,
        };
        let ok = pair(1, 0, 1, D::Backward, 16);
        assert_eq!(plan.validate_overlapped(&[ok]), Ok(()));
        for (bad, why) in [
            (pair(1, 0, 9, D::Backward, 16), "slot out of range"),
            (pair(1, 1, 1, D::Backward, 16), "same slot"),
            (pair(0, 0, 1, D::Backward, 16), "input does not die at op 0"),
            (pair(1, 1, 0, D::Backward, 16), "reversed roles"),
            (pair(1, 2, 1, D::Backward, 16), "slot 2 is not live at op 1"),
        ] {
            assert_eq!(
                plan.validate_overlapped(&[bad]),
                Err(PlanError::BadOverlap(0)),
                "{why}"
            );
        }
        // Slot 1 dies at 2 where slot 2 is born: a well-formed declaration, here disjoint.
        let disjoint = pair(2, 1, 2, D::Forward, 0);
        assert_eq!(plan.validate_overlapped(&[ok, disjoint]), Ok(()));
        // One direction per operator.
        let slots4 = [slot(0, 32, 0, 1), slot(16, 64, 1, 2), slot(80, 16, 0, 1)];
        let plan4 = Plan {
            region_size: 96,
            slots: &slots4,
        };
        assert_eq!(
            plan4.validate_overlapped(&[ok, pair(1, 2, 1, D::Forward, 0)]),
            Err(PlanError::BadOverlap(1))
        );
        assert_eq!(
            plan.validate_overlapped(&[ok, ok]),
            Err(PlanError::BadOverlap(1))
        );
        assert!(PlanError::BadOverlap(3).to_string().contains("overlap 3"));
    }
}

mod overlapped_views {
    use synaptic_mem::plan::{OverlapDirection as D, OverlapPair, PlanLoadError, PlanSlot};
    use synaptic_mem::{Arena, ArenaBuffer, DType, Plan, PlanError};

    const fn slot(offset: u32, size: u32, first_op: u16, last_op: u16) -> PlanSlot {
        PlanSlot {
            offset,
            size,
            first_op,
            last_op,
        }
    }

    /// op 0: s0 → s1 (s1 16 bytes above s0, backward); op 1: s1 + s2 → s3 (s3 over s1, forward
    /// at delta 0); s4 declared at op 1 but disjoint from s1.
    const SLOTS: &[PlanSlot] = &[
        slot(0, 32, 0, 0),
        slot(16, 64, 0, 1),
        slot(96, 16, 0, 1),
        slot(16, 64, 1, 2),
        slot(128, 16, 1, 1),
    ];
    const PAIRS: &[OverlapPair] = &[
        OverlapPair {
            op: 0,
            input: 0,
            output: 1,
            direction: D::Backward,
            bound: 7,
        },
        OverlapPair {
            op: 1,
            input: 1,
            output: 3,
            direction: D::Forward,
            bound: 0,
        },
        OverlapPair {
            op: 1,
            input: 1,
            output: 4,
            direction: D::Forward,
            bound: 0,
        },
    ];
    const PLAN: Plan<'static> = Plan {
        region_size: 144,
        slots: SLOTS,
    };

    #[test]
    fn loading_uses_the_one_rule() {
        let mut buf = ArenaBuffer::<8192>::new();
        let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
        let (loader, _) = arena.split();
        assert_eq!(
            loader.load_plan(PLAN).unwrap_err(),
            PlanLoadError::Invalid(PlanError::Overlap(0, 1))
        );
        let tight = [OverlapPair {
            bound: 17,
            ..PAIRS[0]
        }];
        assert!(loader.load_overlapped_plan(PLAN, &tight).is_err());
        let h = loader.load_overlapped_plan(PLAN, PAIRS).unwrap();
        assert_eq!(h.plan().slots.len(), 5);
    }

    #[test]
    fn the_region_is_the_plans_bytes_at_their_offsets() {
        let mut buf = ArenaBuffer::<8192>::new();
        let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
        let (loader, mut runner) = arena.split();
        let plan = loader.load_overlapped_plan(PLAN, PAIRS).unwrap();
        runner
            .planned(&plan, |p| {
                for (s, n) in [(0, 32), (1, 64), (2, 16)] {
                    p.alloc(s, &[n], DType::Int8).unwrap();
                }
                let failed = p.inference().stats().failed_count;
                let region = p.region_bytes().unwrap();
                assert_eq!(region.len(), 144);
                // Pair 0's span at the planned offsets, as the core's checked span has it.
                region[..16].fill(3);
                region[16..80].fill(4);
                region[96..112].fill(9);
                let (span, []) = p.overlapped(0, []).unwrap().unwrap();
                assert_eq!(span.bytes[..16], [3; 16]);
                assert!(span.bytes[16..].iter().all(|&b| b == 4));
                let [t2] = p.at(0, [2]).unwrap();
                assert_eq!(t2.bytes(), &[9; 16]);
                // Nothing refused, no failure counted.
                assert_eq!(p.inference().stats().failed_count, failed);
            })
            .unwrap();
        // Reset with the inference: the next region starts where this one did.
        runner
            .planned(&plan, |p| assert_eq!(p.region_bytes().unwrap().len(), 144))
            .unwrap();
    }

    #[test]
    fn a_pair_is_one_span_never_two_tensors() {
        let mut buf = ArenaBuffer::<8192>::new();
        let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
        let (loader, mut runner) = arena.split();
        let plan = loader.load_overlapped_plan(PLAN, PAIRS).unwrap();
        runner
            .planned(&plan, |p| {
                // Nothing allocated yet: refused.
                assert!(p.overlapped(0, []).is_err());
                for (s, n) in [(0, 32), (1, 64), (2, 16), (3, 64), (4, 16)] {
                    p.alloc(s, &[n], DType::Int8).unwrap();
                }
                {
                    let [mut t0] = p.at(0, [0]).unwrap();
                    t0.bytes_mut().copy_from_slice(&[5; 32]);
                }
                // The two slots of a pair that share bytes never come as two tensors.
                assert!(p.at(0, [0, 1]).is_err());
                assert!(p.at(1, [1, 3]).is_err());
                // op 0, backward: the output's last byte first, each byte from below it.
                let (span, []) = p.overlapped(0, []).unwrap().unwrap();
                assert_eq!(
                    (span.bytes.len(), span.input, span.output, span.op),
                    (80, 0, 16, 0)
                );
                assert_eq!(span.direction, D::Backward);
                for j in (0..span.output_bytes).rev() {
                    let x = span.bytes[span.input + j % span.input_bytes];
                    span.bytes[span.output + j] = x + 1;
                }
                let [t1] = p.at(1, [1]).unwrap();
                assert!(t1.bytes().iter().all(|&b| b == 6));
                // op 1 with the other input beside the span; the span's own slots, the
                // output of another pair inside it, and a repeated slot are refused.
                {
                    let (span, [mut other]) = p.overlapped(1, [2]).unwrap().unwrap();
                    assert_eq!((span.bytes.len(), span.input, span.output), (64, 0, 0));
                    other.bytes_mut().fill(1);
                    for j in 0..64 {
                        span.bytes[j] += other.bytes()[j % 16];
                    }
                }
                assert!(p.overlapped(1, [1]).is_err());
                assert!(p.overlapped(1, [3]).is_err());
                assert!(p.overlapped(1, [2, 2]).is_err());
                assert!(p.overlapped(1, [0]).is_err()); // not live at op 1
                                                        // Declared but disjoint: no span (the gap may hold other tensors), no failure
                                                        // counted; `at` works.
                let failed = p.inference().stats().failed_count;
                assert!(matches!(p.overlapped(2, []), Ok(None)));
                assert_eq!(p.inference().stats().failed_count, failed);
                assert!(p.at(1, [1, 4]).is_ok());
                assert!(p.overlapped(3, []).is_err()); // no such pair
                let [t3] = p.at(2, [3]).unwrap();
                t3.bytes().iter().all(|&b| b == 7)
            })
            .map(|all_sevens| assert!(all_sevens))
            .unwrap();
    }
}
