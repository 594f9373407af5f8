//! Regression tests for the 32-bit soundness defects of issue 10: each one reproduced UB (or a
//! wrong acceptance) on i686 before the fix. They run natively on x86_64 and i686
//! (`scripts/test`, step `i686`) and under Miri on both, so an out-of-bounds write would be
//! reported there even where the numbers happen not to wrap.

use synaptic_mem::{
    Arena, ArenaBuffer, ConfigError, DType, ErrorKind, Lifetime, Plan, PlanError, PlanLoadError,
    PlanSlot, RawArena, Region,
};

const fn slot(offset: u32, size: u32, first_op: u16, last_op: u16) -> PlanSlot {
    PlanSlot {
        offset,
        size,
        first_op,
        last_op,
    }
}

/// Item 1: a slot of `u32::MAX` bytes. Its end used to be computed in `usize` and wrapped to 0
/// on 32-bit targets, so the plan validated and the safe API handed out a 4 GiB tensor view.
#[test]
fn a_slot_larger_than_its_region_is_refused_on_every_target() {
    let slots = [slot(0, u32::MAX, 0, 0)];
    for region_size in [0, 16, 8192, 0xFFFF_FFF0] {
        let plan = Plan {
            region_size,
            slots: &slots,
        };
        assert_eq!(
            plan.validate(),
            Err(PlanError::OutOfRegion(0)),
            "{region_size}"
        );
    }
    assert_eq!(slot(16, u32::MAX, 0, 0).end(), 16 + (1 << 32));
    // The same through the safe API: refused at load, nothing handed out.
    let mut buf = Box::new(ArenaBuffer::<8192>::new());
    let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
    let (loader, _runner) = arena.split();
    let plan = Plan {
        region_size: 4096,
        slots: &slots,
    };
    assert_eq!(
        loader.load_plan(plan).unwrap_err(),
        PlanLoadError::Invalid(PlanError::OutOfRegion(0))
    );
    assert_eq!(loader.stats().persistent_used, 0);
}

/// Item 1: a region of 0xFFFF_FFF0 bytes. `begin_plan` computed `start + region_size`, which
/// wrapped on 32-bit targets and moved `top` below the persistent region. Now a region larger
/// than the tensor space is refused at load, and nothing changes.
#[test]
fn a_region_larger_than_the_tensor_space_is_refused_at_load() {
    let slots = [slot(0, 64, 0, 0)];
    let mut buf = Box::new(ArenaBuffer::<8192>::new());
    let arena = RawArena::new(buf.as_mut_slice(), 1024).unwrap();
    let w = arena
        .alloc(&[64], DType::Int8, Lifetime::Persistent)
        .unwrap();
    let before = arena.stats();
    for region_size in [0xFFFF_FFF0, 0x8000_0000, 8192, 7168 - 96 + 16] {
        let err = arena
            .load_plan(Plan {
                region_size,
                slots: &slots,
            })
            .unwrap_err();
        let PlanLoadError::Alloc(e) = err else {
            panic!("{err:?}")
        };
        assert_eq!(
            (e.kind, e.region, e.needed, e.available),
            (
                ErrorKind::TooLarge,
                Region::Ephemeral,
                region_size as usize,
                7168 - 96 - 32
            ),
        );
    }
    let mut after = arena.stats();
    assert_eq!(after.failed_count, before.failed_count + 4);
    after.failed_count = before.failed_count;
    assert_eq!(
        after, before,
        "refused plans change nothing but the failed count"
    );
    // The largest region that fits is accepted and runs.
    let lp = arena
        .load_plan(Plan {
            region_size: 7168 - 96 - 32,
            slots: &slots,
        })
        .unwrap();
    let r = arena.begin_plan(&lp).unwrap();
    let t = arena.alloc_planned(&lp, r, 0, &[64], DType::Int8).unwrap();
    // SAFETY (test): the descriptor was just written by the arena.
    let d = unsafe { t.as_ref() };
    assert_eq!(arena.offset_of(d.data_ptr()), Some(96 + 32));
    // SAFETY (test): `w` is the persistent tensor allocated above, untouched since.
    assert_eq!(unsafe { w.as_ref() }.size(), 64);
}

/// Item 4: a plan loaded in one arena and used in a second one at the same base over a shorter
/// buffer. Both used to accept it and write past the second buffer. Now every use checks that
/// the plan's table is this arena's (base, generation, table below the persistent end): the
/// stale plan is refused, and even a plan that passes those checks writes only inside the
/// arena (Miri checks this run).
#[test]
fn a_plan_from_another_arena_at_the_same_base_is_refused() {
    let slots = [slot(0, 3072, 0, 0)];
    let plan = Plan {
        region_size: 3072,
        slots: &slots,
    };
    let mut buf = Box::new(ArenaBuffer::<8192>::new());
    let stale = {
        let a = RawArena::new(buf.as_mut_slice(), 1024).unwrap();
        a.load_plan(plan).unwrap()
    };
    let b = RawArena::new(&mut buf.as_mut_slice()[..4096], 1024).unwrap();
    let e = b.begin_plan(&stale).unwrap_err();
    assert_eq!(e.kind, ErrorKind::PlanMismatch);
    // Even with a plan of its own loaded (so the stale table lies below its persistent end),
    // the stale plan's region does not fit this arena: refused, never written past the end.
    let small = [slot(0, 16, 0, 0)];
    let own = b
        .load_plan(Plan {
            region_size: 16,
            slots: &small,
        })
        .unwrap();
    let r = b.begin_plan(&own).unwrap();
    assert!(b.begin_plan(&stale).is_err());
    assert!(b.alloc_planned(&stale, r, 0, &[3072], DType::Int8).is_err());
    assert_eq!(b.stats().ephemeral_used, 16);
}

/// Invariant 5: a plan loaded before a re-initialisation is stale, even at the same base.
#[test]
fn a_plan_from_before_a_clear_is_refused() {
    let slots = [slot(0, 64, 0, 0)];
    let plan = Plan {
        region_size: 64,
        slots: &slots,
    };
    let mut buf = Box::new(ArenaBuffer::<8192>::new());
    let arena = RawArena::new(buf.as_mut_slice(), 1024).unwrap();
    let lp = arena.load_plan(plan).unwrap();
    let r = arena.begin_plan(&lp).unwrap();
    arena.clear();
    // A persistent tensor now sits where the stale table was.
    arena
        .alloc(&[64], DType::Int8, Lifetime::Persistent)
        .unwrap();
    assert_eq!(
        arena.begin_plan(&lp).unwrap_err().kind,
        ErrorKind::PlanMismatch
    );
    let e = arena
        .alloc_planned(&lp, r, 0, &[64], DType::Int8)
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::PlanMismatch);
    let again = arena.load_plan(plan).unwrap();
    assert!(arena.begin_plan(&again).is_ok());
}

/// Item 10: a shared region overlapping the arena's buffer is refused (a PERSISTENT and a SHARED
/// tensor would share memory), and nothing changes.
#[test]
fn a_shared_region_overlapping_the_arena_is_refused() {
    let mut buf = Box::new(ArenaBuffer::<16384>::new());
    let p = buf.as_mut_slice().as_mut_ptr();
    let arena = RawArena::new(&mut buf.as_mut_slice()[..8192], 1024).unwrap();
    for (start, len) in [
        (0, 1024),
        (4096, 64),
        (8192 - 16, 1024),
        (8191, 64),
        (100, 8192),
    ] {
        // SAFETY (test): refused before anything is written; the pointers are in `buf`.
        let r = unsafe { arena.set_shared_raw(p.wrapping_add(start), len) };
        assert_eq!(r, Err(ConfigError::SharedOverlapsArena), "{start} {len}");
        assert!(!arena.has_shared());
    }
    // Right after the buffer: accepted.
    // SAFETY (test): bytes 8192.. of `buf` are not part of the arena and used by nothing else.
    unsafe { arena.set_shared_raw(p.wrapping_add(8192), 1024) }.unwrap();
    assert_eq!(arena.stats().shared_size, 1024);
    assert_eq!(
        ConfigError::SharedOverlapsArena.to_string(),
        "shared region overlaps the arena's buffer"
    );
}

/// Item 12: the error types are `core::error::Error`, so `?` into `Box<dyn Error>` works.
#[test]
fn errors_convert_into_box_dyn_error() -> Result<(), Box<dyn std::error::Error>> {
    let mut buf = Box::new(ArenaBuffer::<8192>::new());
    let e: Box<dyn std::error::Error> = Arena::with_scratch(&mut buf.as_mut_slice()[..100], 1024)
        .err()
        .unwrap()
        .into();
    assert!(e.to_string().contains("arena size 100 B"));
    let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024)?;
    let (loader, _) = arena.split();
    let mut t = loader.persistent(&[4], DType::Int8)?;
    let e: Box<dyn std::error::Error> = t.as_mut_slice::<f32>().unwrap_err().into();
    assert_eq!(e.to_string(), "tensor data type is int8");
    let e: Box<dyn std::error::Error> = loader.persistent(&[0], DType::Int8).unwrap_err().into();
    assert!(e.to_string().contains("zero dimension"));
    let bad = [slot(8, 16, 0, 0)];
    let e = loader
        .load_plan(Plan {
            region_size: 32,
            slots: &bad,
        })
        .unwrap_err();
    let source = std::error::Error::source(&e).map(|s| s.to_string());
    assert_eq!(
        source.as_deref(),
        Some("slot 0: offset not 16-byte aligned")
    );
    Ok(())
}
