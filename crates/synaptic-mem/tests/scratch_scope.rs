//! Scratch scopes (`Inference::with_scratch`, `PlannedInference::with_scratch`): the block of
//! one scope goes back to the pool when it ends, blocks live at the same time never share a
//! byte, a failed scope changes nothing but the failure count, and the pool's peak is the
//! largest set of blocks live at once, not their sum.

use proptest::prelude::*;
use synaptic_mem::{Arena, ArenaBuffer, DType, ErrorKind, Plan, PlanSlot, Region, Scratch};

fn range(s: &[u8]) -> (usize, usize) {
    let a = s.as_ptr() as usize;
    (a, a + s.len())
}

#[test]
fn a_scope_gives_its_block_back_and_the_peak_is_the_largest_scope() {
    let mut buf = ArenaBuffer::<8192>::new();
    let mut arena = Arena::with_scratch(buf.as_mut_slice(), 2048).unwrap();
    let (_loader, mut runner) = arena.split();
    let mut starts = Vec::new();
    runner.inference(|inf| {
        for size in [100, 2048, 16, 700] {
            inf.with_scratch(size, |mut s| {
                let b: &mut [u8] = s.take(size).unwrap();
                b.fill(0xa5);
                starts.push(b.as_ptr() as usize);
                assert_eq!(inf.stats().scratch_used, size.div_ceil(16) * 16);
            })
            .unwrap();
            assert_eq!(inf.stats().scratch_used, 0);
        }
    });
    // Every scope started at the bottom of the pool.
    assert!(starts.windows(2).all(|w| w[0] == w[1]));
    let st = runner.stats();
    assert_eq!((st.scratch_peak, st.scratch_used), (2048, 0));
}

#[test]
fn nested_scopes_are_disjoint_and_end_last_in_first_out() {
    let mut buf = ArenaBuffer::<8192>::new();
    let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
    let (_loader, mut runner) = arena.split();
    runner.inference(|inf| {
        inf.with_scratch(256, |mut outer| {
            let o = outer.take::<u8>(256).unwrap();
            o.fill(1);
            inf.with_scratch(512, |mut inner| {
                let i = inner.take::<u8>(512).unwrap();
                i.fill(2);
                let (oa, ob) = range(o);
                let (ia, ib) = range(i);
                assert!(ob <= ia || ib <= oa);
                assert_eq!(inf.stats().scratch_used, 768);
            })
            .unwrap();
            assert_eq!(inf.stats().scratch_used, 256);
            assert!(
                o.iter().all(|&b| b == 1),
                "the inner scope wrote the outer block"
            );
            // The pool is 1 KB: 256 + 768 fits exactly, one byte more does not.
            assert!(inf.with_scratch(768, |_| ()).is_ok());
            assert_eq!(
                inf.with_scratch(769, |_| ()).unwrap_err().kind,
                ErrorKind::OutOfMemory
            );
        })
        .unwrap();
        assert_eq!(inf.stats().scratch_used, 0);
    });
}

#[test]
fn a_buffer_taken_inside_a_scope_keeps_the_scope_block_until_the_reset() {
    let mut buf = ArenaBuffer::<8192>::new();
    let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
    let (_loader, mut runner) = arena.split();
    runner.inference(|inf| {
        let mut kept: Option<&mut [u8]> = None;
        inf.with_scratch(256, |mut s| {
            s.take::<u8>(256).unwrap().fill(3);
            // Lives to the end of the inference, above the scope's block.
            kept = Some(inf.scratch(128).unwrap());
        })
        .unwrap();
        let kept = kept.unwrap();
        kept.fill(9);
        // The scope's block was not given back (it is below `kept`): 384 bytes in use.
        assert_eq!(inf.stats().scratch_used, 384);
        inf.with_scratch(640, |mut s| {
            let b = s.take::<u8>(640).unwrap();
            b.fill(4);
            let (ka, kb) = range(kept);
            let (ba, bb) = range(b);
            assert!(kb <= ba || bb <= ka);
        })
        .unwrap();
        assert!(kept.iter().all(|&b| b == 9));
    });
    assert_eq!(runner.stats().scratch_used, 0);
}

#[test]
fn a_failed_scope_runs_nothing_and_changes_only_the_failure_count() {
    let mut buf = ArenaBuffer::<8192>::new();
    let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
    let (_loader, mut runner) = arena.split();
    runner.inference(|inf| {
        let _held = inf.scratch(512).unwrap();
        let before = inf.stats();
        let mut ran = false;
        let e = inf.with_scratch(1024, |_| ran = true).unwrap_err();
        assert_eq!(e.kind, ErrorKind::OutOfMemory);
        assert!(!ran);
        let after = inf.stats();
        assert_eq!(after.failed_count, before.failed_count + 1);
        assert_eq!(
            (after.scratch_used, after.scratch_peak, after.alloc_count),
            (before.scratch_used, before.scratch_peak, before.alloc_count)
        );
        // Size 0: an empty block, nothing taken.
        let n = inf
            .with_scratch(0, |mut s| {
                assert!(s.take::<u8>(1).is_none());
                s.remaining()
            })
            .unwrap();
        assert_eq!(n, 0);
        assert_eq!(inf.stats().alloc_count, after.alloc_count);
    });
}

#[test]
fn a_planned_scope_is_disjoint_from_the_operator_tensors() {
    const SLOTS: &[PlanSlot] = &[
        PlanSlot {
            offset: 0,
            size: 64,
            first_op: 0,
            last_op: 1,
        },
        PlanSlot {
            offset: 64,
            size: 64,
            first_op: 0,
            last_op: 1,
        },
    ];
    let mut buf = ArenaBuffer::<8192>::new();
    let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
    let (loader, mut runner) = arena.split();
    let plan = loader
        .load_plan(Plan {
            region_size: 128,
            slots: SLOTS,
        })
        .unwrap();
    runner
        .planned(&plan, |p| {
            p.alloc(0, &[64], DType::Int8).unwrap();
            p.alloc(1, &[64], DType::Int8).unwrap();
            for op in 0..2u16 {
                p.with_scratch(1024, |p, mut s| {
                    let [mut a, mut b] = p.at(op, [0, 1]).unwrap();
                    let w = s.take::<u8>(1024).unwrap();
                    w.fill(0xee);
                    a.bytes_mut().fill(op as u8);
                    b.bytes_mut().fill(op as u8 + 1);
                    assert!(w.iter().all(|&x| x == 0xee));
                })
                .unwrap();
            }
            let [a, b] = p.at(1, [0, 1]).unwrap();
            assert!(a.bytes().iter().all(|&x| x == 1));
            assert!(b.bytes().iter().all(|&x| x == 2));
        })
        .unwrap();
    assert_eq!(runner.stats().scratch_peak, 1024);
}

#[test]
fn takes_are_aligned_typed_and_refused_past_the_end() {
    let mut raw = [0u8; 100];
    // An unaligned start: the first take skips to a 16-byte boundary.
    let start = raw.as_ptr().align_offset(16);
    let buf = &mut raw[start + 3..];
    let len = buf.len();
    let mut s = Scratch::new(buf);
    let w: &mut [u32] = s.take(2).unwrap();
    assert_eq!(w.as_ptr() as usize % 16, 0);
    w.copy_from_slice(&[u32::MAX, 1]);
    let left = s.remaining();
    assert_eq!(left, len - 13 - 16);
    assert!(s.take::<i32>(left).is_none());
    assert_eq!(s.remaining(), left, "a refused take takes nothing");
    assert!(s.take::<i16>(usize::MAX).is_none());
    let rest: &mut [i8] = s.take(left).unwrap();
    assert_eq!(rest.len(), left);
    assert_eq!(s.remaining(), 0);
    assert_eq!(Scratch::span::<i8>(0), 0);
    assert_eq!(Scratch::span::<i32>(5), 32);
    assert_eq!(Scratch::span::<u32>(usize::MAX), usize::MAX & !15);
}

/// Live blocks: the scopes' (a stack) and the inference-long buffers', with their tags.
#[derive(Default)]
struct Live<'i> {
    scopes: Vec<(usize, usize)>,
    kept: Vec<(&'i mut [u8], u8)>,
}

impl Live<'_> {
    fn disjoint(&self, b: &[u8]) -> bool {
        let (a, e) = range(b);
        self.scopes.iter().all(|&(x, y)| e <= x || y <= a)
            && self.kept.iter().all(|(k, _)| {
                let (x, y) = range(k);
                e <= x || y <= a
            })
    }
}

/// Runs `ops` in order: `(0, n)` takes an inference-long buffer of `n` bytes, `(_, n)` a
/// scope of `n` bytes around the next `n % 4` operations, then goes on after it.
fn nest<'i>(inf: &synaptic_mem::Inference<'i>, ops: &[(usize, usize)], live: &mut Live<'i>) {
    let Some((&(what, size), rest)) = ops.split_first() else {
        return;
    };
    let tag = (ops.len() as u8).wrapping_mul(37).wrapping_add(1);
    if what == 0 {
        if let Ok(b) = inf.scratch(size) {
            b.fill(tag);
            assert!(live.disjoint(b));
            live.kept.push((b, tag));
        }
        return nest(inf, rest, live);
    }
    let (inner, after) = rest.split_at((size % 4).min(rest.len()));
    let before = inf.stats().scratch_used;
    let n_kept = live.kept.len();
    let r = inf.with_scratch(size, |mut s| {
        let b = s.take::<u8>(size).unwrap();
        b.fill(tag);
        assert!(live.disjoint(b));
        live.scopes.push(range(b));
        nest(inf, inner, live);
        assert!(
            b.iter().all(|&x| x == tag),
            "a scope's block lost its bytes"
        );
        live.scopes.pop();
    });
    match r {
        Ok(()) if live.kept.len() == n_kept => assert_eq!(inf.stats().scratch_used, before),
        Ok(()) => {}
        Err(_) => nest(inf, inner, live),
    }
    nest(inf, after, live);
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if cfg!(miri) { 4 } else { 256 },
        // Miri runs isolated (no file system): no regression file.
        failure_persistence: if cfg!(miri) {
            None
        } else {
            ProptestConfig::default().failure_persistence
        },
        ..ProptestConfig::default()
    })]
    /// Random nests of scopes and inference-long buffers: every live block is disjoint from
    /// every other and keeps its bytes; a scope with nothing kept above it gives its block
    /// back.
    #[test]
    fn live_blocks_never_share_a_byte(ops in prop::collection::vec((0usize..3, 1usize..600), 1..12)) {
        let mut buf = ArenaBuffer::<16384>::new();
        let mut arena = Arena::with_scratch(buf.as_mut_slice(), 4096).unwrap();
        let (_loader, mut runner) = arena.split();
        runner.inference(|inf| {
            let mut live = Live::default();
            nest(inf, &ops, &mut live);
            for (b, tag) in &live.kept {
                assert!(b.iter().all(|x| x == tag), "a buffer lost its bytes");
            }
        });
        prop_assert_eq!(runner.stats().scratch_used, 0);
    }
}

#[test]
fn reserve_scratch_grows_the_pool_from_the_tensor_space_and_refuses_what_cannot_be() {
    let mut buf = ArenaBuffer::<8192>::new();
    let mut arena = Arena::exact(buf.as_mut_slice(), 0).unwrap();
    let (loader, mut runner) = arena.split();
    let before = loader.stats();
    assert_eq!(before.scratch_size, 0);
    let _w = loader.persistent(&[4096], DType::Int8).unwrap();
    // Grown (rounded up to 16), taken from the top of the tensor space.
    loader.reserve_scratch(1000).unwrap();
    let st = loader.stats();
    assert_eq!(st.scratch_size, 1008);
    assert_eq!(st.tensor_capacity, before.tensor_capacity - 1008);
    // A smaller or equal request changes nothing.
    loader.reserve_scratch(16).unwrap();
    loader.reserve_scratch(1008).unwrap();
    assert_eq!(loader.stats(), st);
    // More than the tensor space above the persistent region can give: refused, unchanged.
    let e = loader.reserve_scratch(8192).unwrap_err();
    assert_eq!((e.kind, e.region), (ErrorKind::TooLarge, Region::Ephemeral));
    let e = loader
        .reserve_scratch(synaptic_mem::MAX_SCRATCH_SIZE + 1)
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::TooLarge);
    let after = loader.stats();
    assert_eq!(after.failed_count, st.failed_count + 2);
    assert_eq!(after.scratch_size, st.scratch_size);
    assert_eq!(after.tensor_capacity, st.tensor_capacity);
    // Not while an inference holds ephemeral tensors or scratch.
    runner.inference(|inf| {
        let _t = inf.ephemeral(&[16], DType::Int8).unwrap();
        let e = loader.reserve_scratch(2048).unwrap_err();
        assert_eq!(e.kind, ErrorKind::EphemeralLive);
        inf.with_scratch(1008, |mut s| s.take::<u8>(1008).unwrap().fill(1))
            .unwrap();
    });
    assert_eq!(runner.stats().scratch_peak, 1008);
}
