//! Typed plans: every slot's descriptor (shape, dtype, size) written once at load, bound to an
//! inference's region by `begin_typed_plan`, fetched in O(1) by `planned_tensor` — the C API's
//! planned allocation. Every bad input is refused with only the failed count moving.

use synaptic_mem::{
    ArenaBuffer, DType, ErrorKind, Lifetime, Plan, PlanError, PlanLoadError, PlanRun, PlanSlot,
    RawArena, SlotType, Stats, TensorDesc,
};

const fn slot(offset: u32, size: u32, first_op: u16, last_op: u16) -> PlanSlot {
    PlanSlot {
        offset,
        size,
        first_op,
        last_op,
    }
}

/// t0 (ops 0..=0), t1 (0..=1), t2 (1..=2) reusing t0's memory, t3 (2..=2) reusing t1's.
const SLOTS: &[PlanSlot] = &[
    slot(0, 100, 0, 0),
    slot(112, 200, 0, 1),
    slot(0, 96, 1, 2),
    slot(112, 50, 2, 2),
];
const TYPES: &[SlotType] = &[
    SlotType::new([1, 100, 1, 1], 2, DType::Int8),
    SlotType::new([2, 5, 5, 1], 3, DType::Int32),
    SlotType::new([48, 1, 1, 1], 1, DType::Float16),
    SlotType::new([5, 10, 1, 1], 2, DType::UInt8),
];
const PLAN: Plan<'static> = Plan {
    region_size: 320,
    slots: SLOTS,
};

fn desc(p: core::ptr::NonNull<TensorDesc>) -> TensorDesc {
    // SAFETY (test): descriptors handed out by the arena under test, still in its table.
    unsafe { p.as_ptr().read() }
}

/// Stats equal but for the failed count, which moved by exactly one.
fn assert_only_failed_moved(before: &Stats, after: &Stats) {
    let mut b = *before;
    b.failed_count += 1;
    assert_eq!(&b, after);
}

#[test]
fn descriptors_are_complete_after_begin_and_point_into_the_region() {
    let mut buf = Box::new(ArenaBuffer::<8192>::new());
    let arena = RawArena::new(buf.as_mut_slice(), 1024).unwrap();
    let plan = arena.load_typed_plan(PLAN, TYPES).unwrap();
    assert_eq!((plan.len(), plan.region_size()), (4, 320));
    let s = arena.stats();
    assert_eq!((s.persistent_used, s.alloc_count), (4 * 32, 1));
    let run = arena.begin_typed_plan(&plan).unwrap();
    assert_eq!(run.len(), 4);
    let s = arena.stats();
    assert_eq!(
        (s.ephemeral_used, s.alloc_count, s.failed_count),
        (320, 5, 0)
    );
    for (k, (sl, ty)) in SLOTS.iter().zip(TYPES).enumerate() {
        let p = arena.planned_tensor(&run, k).unwrap();
        assert_eq!(arena.offset_of(p.as_ptr().cast()), Some(k * 32));
        let d = desc(p);
        assert_eq!(
            arena.offset_of(d.data_ptr()),
            Some(128 + sl.offset as usize)
        );
        assert_eq!(d.data_ptr() as usize % 16, 0);
        assert_eq!(d.shape(), &ty.shape[..ty.ndim as usize]);
        assert_eq!(d.dtype() as u8, ty.dtype);
        assert_eq!(d.lifetime(), Lifetime::Ephemeral);
        assert_eq!(d.size(), ty.request().unwrap().bytes() as usize);
    }
    assert_eq!(desc(arena.planned_tensor(&run, 1).unwrap()).size(), 200);
    assert_eq!(
        desc(arena.planned_tensor(&run, 1).unwrap()).dims(),
        [2, 5, 5, 1]
    );
    // Fetching writes and counts nothing.
    assert_eq!(arena.stats().alloc_count, 5);
}

#[test]
fn begin_moves_the_data_pointers_only_when_the_region_moves() {
    let mut buf = Box::new(ArenaBuffer::<8192>::new());
    let arena = RawArena::new(buf.as_mut_slice(), 1024).unwrap();
    let plan = arena.load_typed_plan(PLAN, TYPES).unwrap();
    let data =
        |run: &PlanRun, k| arena.offset_of(desc(arena.planned_tensor(run, k).unwrap()).data_ptr());
    for round in 0..3 {
        // Round 1 allocates a tensor first, so the region lands 48 bytes later.
        let pre = if round == 1 {
            arena
                .alloc(&[16], DType::Int8, Lifetime::Ephemeral)
                .unwrap();
            48
        } else {
            0
        };
        let run = arena.begin_typed_plan(&plan).unwrap();
        for (k, sl) in SLOTS.iter().enumerate() {
            assert_eq!(
                data(&run, k),
                Some(128 + pre + sl.offset as usize),
                "round {round}"
            );
        }
        // A second run in the same epoch: both live, the descriptors follow the newest.
        let again = arena.begin_typed_plan(&plan).unwrap();
        assert_eq!(data(&run, 3), Some(128 + pre + 320 + 112));
        assert_eq!(data(&again, 3), Some(128 + pre + 320 + 112));
        arena.reset_ephemeral();
    }
}

#[test]
fn every_bad_load_is_refused_and_changes_nothing_but_the_failed_count() {
    let mut buf = Box::new(ArenaBuffer::<8192>::new());
    let arena = RawArena::new(buf.as_mut_slice(), 1024).unwrap();
    let inv = |r: Result<_, PlanLoadError>| match r {
        Err(PlanLoadError::Invalid(e)) => e,
        other => panic!("{other:?}"),
    };
    let before = arena.stats();
    assert_eq!(
        inv(arena.load_typed_plan(PLAN, &TYPES[..3])),
        PlanError::TypeCount(4, 3)
    );
    let with = |k: usize, t: SlotType| {
        let mut types = TYPES.to_vec();
        types[k] = t;
        inv(arena.load_typed_plan(PLAN, &types))
    };
    let bad = [
        (
            SlotType::new([1, 1, 1, 1], 0, DType::Int8),
            ErrorKind::InvalidNdim,
        ),
        (
            SlotType::new([1, 1, 1, 1], 5, DType::Int8),
            ErrorKind::InvalidNdim,
        ),
        (
            SlotType::new([4, 0, 1, 1], 2, DType::Int8),
            ErrorKind::ZeroDimension,
        ),
        (
            SlotType::new([1 << 16, 1 << 16, 1, 1], 2, DType::Int8),
            ErrorKind::SizeOverflow,
        ),
        (
            SlotType::new([1, 101, 1, 1], 2, DType::Int8),
            ErrorKind::TooLarge,
        ),
        (
            SlotType {
                shape: [1; 4],
                ndim: 1,
                dtype: 8,
            },
            ErrorKind::InvalidDtype,
        ),
    ];
    for (t, kind) in bad {
        assert_eq!(with(0, t), PlanError::BadType(0, kind));
    }
    assert_eq!(
        with(3, SlotType::new([51, 1, 1, 1], 1, DType::Int8)),
        PlanError::BadType(3, ErrorKind::TooLarge)
    );
    let overlapping = [slot(0, 100, 0, 1), slot(96, 16, 1, 1)];
    let small = [TYPES[0], SlotType::new([16, 1, 1, 1], 1, DType::Int8)];
    assert_eq!(
        inv(arena.load_typed_plan(
            Plan {
                region_size: 128,
                slots: &overlapping
            },
            &small
        )),
        PlanError::Overlap(0, 1)
    );
    // Invalid plans and types are refused before the arena is consulted: nothing counted.
    assert_eq!(arena.stats(), before);

    // A plan larger than the arena.
    let huge = [slot(0, 8192, 0, 0)];
    let huge_types = [SlotType::new([8192, 1, 1, 1], 1, DType::Int8)];
    let e = match arena.load_typed_plan(
        Plan {
            region_size: 8192,
            slots: &huge,
        },
        &huge_types,
    ) {
        Err(PlanLoadError::Alloc(e)) => e,
        other => panic!("{other:?}"),
    };
    assert_eq!(e.kind, ErrorKind::TooLarge);
    assert_only_failed_moved(&before, &arena.stats());

    // While ephemeral tensors are live.
    let t = arena
        .alloc(&[16], DType::Int8, Lifetime::Ephemeral)
        .unwrap();
    let before = arena.stats();
    match arena.load_typed_plan(PLAN, TYPES) {
        Err(PlanLoadError::Alloc(e)) => assert_eq!(e.kind, ErrorKind::EphemeralLive),
        other => panic!("{other:?}"),
    }
    assert_only_failed_moved(&before, &arena.stats());
    arena.free(t);
}

#[test]
fn every_bad_begin_or_fetch_is_refused_and_changes_nothing_but_the_failed_count() {
    let mut buf = Box::new(ArenaBuffer::<8192>::new());
    let arena = RawArena::new(buf.as_mut_slice(), 1024).unwrap();
    let plan = arena.load_typed_plan(PLAN, TYPES).unwrap();
    let kind = |r: Result<core::ptr::NonNull<TensorDesc>, synaptic_mem::AllocError>| {
        r.map(|_| ()).unwrap_err().kind
    };

    // Not begun.
    let before = arena.stats();
    assert_eq!(
        kind(arena.planned_tensor(&PlanRun::default(), 0)),
        ErrorKind::PlanMismatch
    );
    assert_only_failed_moved(&before, &arena.stats());

    // Wrong slot.
    let run = arena.begin_typed_plan(&plan).unwrap();
    let before = arena.stats();
    for s in [4, 5, usize::MAX / 32, usize::MAX] {
        assert_eq!(kind(arena.planned_tensor(&run, s)), ErrorKind::PlanMismatch);
    }
    let mut b = before;
    b.failed_count += 4;
    assert_eq!(arena.stats(), b);

    // Reclaimed by a reset, even once the region is reused at the same place.
    arena.reset_ephemeral();
    let before = arena.stats();
    assert_eq!(kind(arena.planned_tensor(&run, 0)), ErrorKind::PlanMismatch);
    assert_only_failed_moved(&before, &arena.stats());
    let run2 = arena.begin_typed_plan(&plan).unwrap();
    assert!(arena.planned_tensor(&run, 0).is_err());
    assert!(arena.planned_tensor(&run2, 0).is_ok());

    // Not enough space left for the region now.
    arena.reset_ephemeral();
    arena
        .alloc(&[7000], DType::Int8, Lifetime::Ephemeral)
        .unwrap();
    let before = arena.stats();
    assert_eq!(
        arena.begin_typed_plan(&plan).unwrap_err().kind,
        ErrorKind::OutOfMemory
    );
    assert_only_failed_moved(&before, &arena.stats());

    // From before a re-initialisation: the plan, and a run of it.
    arena.reset_ephemeral();
    let run3 = arena.begin_typed_plan(&plan).unwrap();
    arena.clear();
    arena
        .alloc(&[64], DType::Int8, Lifetime::Persistent)
        .unwrap();
    assert_eq!(arena.stats().reset_count, 0);
    let before = arena.stats();
    assert_eq!(
        arena.begin_typed_plan(&plan).unwrap_err().kind,
        ErrorKind::PlanMismatch
    );
    assert_only_failed_moved(&before, &arena.stats());
    let before = arena.stats();
    assert_eq!(
        kind(arena.planned_tensor(&run3, 0)),
        ErrorKind::PlanMismatch
    );
    assert_only_failed_moved(&before, &arena.stats());
}

#[test]
fn a_plan_or_run_from_another_arena_is_refused() {
    let mut a_buf = Box::new(ArenaBuffer::<8192>::new());
    let mut b_buf = Box::new(ArenaBuffer::<8192>::new());
    let a = RawArena::new(a_buf.as_mut_slice(), 1024).unwrap();
    let b = RawArena::new(b_buf.as_mut_slice(), 1024).unwrap();
    let pa = a.load_typed_plan(PLAN, TYPES).unwrap();
    let pb = b.load_typed_plan(PLAN, TYPES).unwrap();
    let ra = a.begin_typed_plan(&pa).unwrap();
    let before = b.stats();
    assert_eq!(
        b.begin_typed_plan(&pa).unwrap_err().kind,
        ErrorKind::PlanMismatch
    );
    assert_eq!(
        b.planned_tensor(&ra, 0).unwrap_err().kind,
        ErrorKind::PlanMismatch
    );
    let mut s = before;
    s.failed_count += 2;
    assert_eq!(b.stats(), s);
    assert!(b.begin_typed_plan(&pb).is_ok());
}

/// A region that cannot fit: the typed load has `load_plan`'s 32-bit-safe size checks.
#[test]
fn huge_regions_and_offsets_are_refused_on_every_target() {
    let mut buf = Box::new(ArenaBuffer::<8192>::new());
    let arena = RawArena::new(buf.as_mut_slice(), 1024).unwrap();
    let slots = [slot(0xFFFF_FF00, 16, 0, 0)];
    let types = [SlotType::new([16, 1, 1, 1], 1, DType::Int8)];
    let r = arena.load_typed_plan(
        Plan {
            region_size: 0xFFFF_FFF0,
            slots: &slots,
        },
        &types,
    );
    assert!(matches!(r, Err(PlanLoadError::Alloc(e)) if e.kind == ErrorKind::TooLarge));
    let empty = arena
        .load_typed_plan(
            Plan {
                region_size: 0,
                slots: &[],
            },
            &[],
        )
        .unwrap();
    let run = arena.begin_typed_plan(&empty).unwrap();
    assert!(run.is_empty());
    assert!(arena.planned_tensor(&run, 0).is_err());
}
