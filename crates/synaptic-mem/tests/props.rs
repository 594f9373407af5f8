//! Property tests: random sequences of allocations (random shapes, dtypes, lifetimes), scratch
//! acquisitions, frees and resets, checked after every step against a simple model of the
//! arena: results and offsets, statistics, no two live blocks overlapping, 16-byte alignment,
//! every block inside its region, and canary data intact.
//!
//! Case counts: 60 000 + 40 000 sequences in release builds (the test command runs
//! `cargo test --release`), fewer in debug builds, a handful under Miri.

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence};
use synaptic_mem::{Arena, ArenaBuffer, DType, ErrorKind, Lifetime, RawArena, Stats, DESC_SPAN};

fn cases(release: u32) -> u32 {
    if cfg!(miri) {
        4
    } else if cfg!(debug_assertions) {
        release / 50
    } else {
        release
    }
}

fn config(release_cases: u32) -> Config {
    Config {
        cases: cases(release_cases),
        failure_persistence: if cfg!(miri) {
            None
        } else {
            Some(Box::new(FileFailurePersistence::WithSource("regressions")))
        },
        ..Config::default()
    }
}

#[derive(Clone, Debug)]
enum Op {
    Alloc {
        shape: Vec<u32>,
        dtype: DType,
        lifetime: Lifetime,
    },
    Scratch(usize),
    Free(usize),
    Reset,
}

fn dim() -> impl Strategy<Value = u32> {
    prop_oneof![
        20 => 1u32..=24,
        2 => Just(0u32),
        1 => 1u32..=4096,
        1 => prop_oneof![Just(65_536u32), Just(1 << 28), Just((1 << 28) + 1), Just(1 << 30), Just(1 << 31), Just(u32::MAX)],
    ]
}

fn dtype() -> impl Strategy<Value = DType> {
    (0u8..8).prop_map(|v| DType::from_u8(v).unwrap())
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        12 => (
            prop::collection::vec(dim(), 0..=5),
            dtype(),
            prop_oneof![3 => Just(Lifetime::Ephemeral), 1 => Just(Lifetime::Persistent), 1 => Just(Lifetime::Shared)],
        )
            .prop_map(|(shape, dtype, lifetime)| Op::Alloc { shape, dtype, lifetime }),
        3 => prop_oneof![4 => 1usize..700, 1 => Just(0usize), 1 => 700usize..5000].prop_map(Op::Scratch),
        1 => any::<usize>().prop_map(Op::Free),
        2 => Just(Op::Reset),
    ]
}

/// A live block: [start, end) in absolute addresses, its region, and the canary byte.
#[derive(Clone, Copy, Debug)]
struct Block {
    start: usize,
    end: usize,
    data: usize,
    /// The pointers themselves (strict provenance: no integer-to-pointer casts).
    ptr: *mut u8,
    desc: Option<core::ptr::NonNull<synaptic_mem::TensorDesc>>,
    len: usize,
    fill: u8,
    region: Lifetime, // scratch blocks use Ephemeral's reset rule; marked by `scratch`
    scratch: bool,
}

/// The reference model: the spec's rules written the obvious way.
#[derive(Default)]
struct Model {
    tensor_cap: usize,
    scratch_cap: usize,
    shared_cap: usize,
    has_shared: bool,
    pers_end: usize,
    top: usize,
    scratch_top: usize,
    shared_top: usize,
    arena_peak: usize,
    eph_peak: usize,
    scratch_peak: usize,
    allocs: u32,
    resets: u32,
    failed: u32,
}

fn expected_bytes(shape: &[u32], dtype: DType) -> Result<usize, ErrorKind> {
    if shape.is_empty() || shape.len() > 4 {
        return Err(ErrorKind::InvalidNdim);
    }
    if shape.contains(&0) {
        return Err(ErrorKind::ZeroDimension);
    }
    let elements: u128 = shape.iter().map(|&d| d as u128).product();
    if elements > u32::MAX as u128 {
        return Err(ErrorKind::SizeOverflow);
    }
    let bits = elements * dtype.bits() as u128;
    if bits > 1 << 33 {
        return Err(ErrorKind::SizeOverflow);
    }
    Ok(bits.div_ceil(8) as usize)
}

fn r16(n: usize) -> usize {
    n.div_ceil(16) * 16
}

impl Model {
    fn stats(&self, arena: &Stats) -> Stats {
        Stats {
            arena_size: arena.arena_size,
            usable_size: arena.usable_size,
            tensor_capacity: self.tensor_cap,
            persistent_used: self.pers_end,
            ephemeral_used: self.top - self.pers_end,
            ephemeral_peak: self.eph_peak.max(self.top - self.pers_end),
            scratch_used: self.scratch_top,
            scratch_size: self.scratch_cap,
            scratch_peak: self.scratch_peak.max(self.scratch_top),
            shared_used: self.shared_top,
            shared_size: self.shared_cap,
            arena_peak: self.arena_peak.max(self.top),
            alloc_count: self.allocs,
            reset_count: self.resets,
            failed_count: self.failed,
        }
    }

    /// Expected outcome of a tensor allocation: Ok(offset in its region) or the error kind.
    fn alloc(
        &mut self,
        shape: &[u32],
        dtype: DType,
        lt: Lifetime,
    ) -> Result<(usize, usize), ErrorKind> {
        let r = self.alloc_inner(shape, dtype, lt);
        match r {
            Ok(_) => self.allocs += 1,
            Err(_) => self.failed += 1,
        }
        r
    }

    fn alloc_inner(
        &mut self,
        shape: &[u32],
        dtype: DType,
        lt: Lifetime,
    ) -> Result<(usize, usize), ErrorKind> {
        let bytes = expected_bytes(shape, dtype)?;
        let needed = DESC_SPAN + r16(bytes);
        match lt {
            Lifetime::Shared => {
                if !self.has_shared {
                    return Err(ErrorKind::NoSharedRegion);
                }
                if needed > self.shared_cap {
                    return Err(ErrorKind::TooLarge);
                }
                if self.shared_top + needed > self.shared_cap {
                    return Err(ErrorKind::OutOfMemory);
                }
                self.shared_top += needed;
                Ok((self.shared_top - needed, bytes))
            }
            Lifetime::Persistent | Lifetime::Ephemeral => {
                if lt == Lifetime::Persistent
                    && (self.top != self.pers_end || self.scratch_top != 0)
                {
                    return Err(ErrorKind::EphemeralLive);
                }
                if needed > self.tensor_cap - self.pers_end {
                    return Err(ErrorKind::TooLarge);
                }
                if self.top + needed > self.tensor_cap {
                    return Err(ErrorKind::OutOfMemory);
                }
                self.top += needed;
                if lt == Lifetime::Persistent {
                    self.pers_end = self.top;
                }
                Ok((self.top - needed, bytes))
            }
        }
    }

    fn scratch(&mut self, size: usize) -> Result<usize, ErrorKind> {
        let r = if size == 0 {
            Err(ErrorKind::ZeroSize)
        } else if size > self.scratch_cap {
            Err(ErrorKind::TooLarge)
        } else if self.scratch_top + r16(size) > self.scratch_cap {
            Err(ErrorKind::OutOfMemory)
        } else {
            self.scratch_top += r16(size);
            Ok(self.scratch_top - r16(size))
        };
        match r {
            Ok(_) => self.allocs += 1,
            Err(_) => self.failed += 1,
        }
        r
    }

    fn reset(&mut self) {
        self.arena_peak = self.arena_peak.max(self.top);
        self.eph_peak = self.eph_peak.max(self.top - self.pers_end);
        self.scratch_peak = self.scratch_peak.max(self.scratch_top);
        self.top = self.pers_end;
        self.scratch_top = 0;
        self.resets += 1;
    }
}

fn check_blocks(
    live: &[Block],
    base: usize,
    tensor_cap: usize,
    usable: usize,
    shared: (usize, usize),
) {
    let mut sorted: Vec<Block> = live.to_vec();
    sorted.sort_by_key(|b| b.start);
    for w in sorted.windows(2) {
        assert!(w[0].end <= w[1].start, "overlap: {:?} {:?}", w[0], w[1]);
    }
    for b in live {
        assert_eq!(b.start % 16, 0);
        assert_eq!(b.data % 16, 0);
        let (lo, hi) = if b.scratch {
            (base + tensor_cap, base + usable)
        } else if b.region == Lifetime::Shared {
            (shared.0, shared.0 + shared.1)
        } else {
            (base, base + tensor_cap)
        };
        assert!(
            b.start >= lo && b.end <= hi,
            "{b:?} outside [{lo:#x}, {hi:#x})"
        );
        // SAFETY: live blocks are data the arena handed out and has not reclaimed.
        let bytes = unsafe { core::slice::from_raw_parts(b.ptr, b.len) };
        assert!(
            bytes.iter().all(|&x| x == b.fill),
            "canary damaged in {b:?}"
        );
    }
}

fn run_raw(ops: &[Op], scratch_size: usize, shared: bool) {
    let mut buf = Box::new(ArenaBuffer::<{ 32 * 1024 }>::new());
    let mut io = Box::new(ArenaBuffer::<2048>::new());
    let base = buf.as_mut_slice().as_ptr() as usize;
    let io_base = io.as_mut_slice().as_ptr() as usize;
    let mut arena = RawArena::new(buf.as_mut_slice(), scratch_size).unwrap();
    let mut m = Model {
        tensor_cap: 32 * 1024 - scratch_size,
        scratch_cap: scratch_size,
        ..Model::default()
    };
    if shared {
        arena.set_shared(io.as_mut_slice()).unwrap();
        m.has_shared = true;
        m.shared_cap = 2048;
    }
    let mut live: Vec<Block> = Vec::new();
    let mut fill = 0u8;
    for op in ops {
        fill = fill.wrapping_add(1);
        match op {
            Op::Alloc {
                shape,
                dtype,
                lifetime,
            } => {
                let expect = m.alloc(shape, *dtype, *lifetime);
                match (arena.alloc(shape, *dtype, *lifetime), expect) {
                    (Ok(p), Ok((offset, bytes))) => {
                        // SAFETY: fresh descriptor written by the arena.
                        let d = unsafe { p.as_ref() };
                        let region_base = if *lifetime == Lifetime::Shared {
                            io_base
                        } else {
                            base
                        };
                        assert_eq!(p.as_ptr() as usize, region_base + offset);
                        assert_eq!(d.data_ptr() as usize, region_base + offset + DESC_SPAN);
                        assert_eq!(d.size(), bytes);
                        assert_eq!(d.shape(), &shape[..]);
                        assert_eq!((d.dtype(), d.lifetime()), (*dtype, *lifetime));
                        // SAFETY: the data block belongs to this new tensor alone.
                        unsafe { d.data_ptr().write_bytes(fill, bytes) };
                        live.push(Block {
                            start: p.as_ptr() as usize,
                            end: p.as_ptr() as usize + DESC_SPAN + r16(bytes),
                            data: d.data_ptr() as usize,
                            ptr: d.data_ptr(),
                            desc: Some(p),
                            len: bytes,
                            fill,
                            region: *lifetime,
                            scratch: false,
                        });
                    }
                    (Err(e), Err(kind)) => assert_eq!(e.kind, kind, "{op:?}: {e}"),
                    (got, want) => panic!("{op:?}: got {got:?}, model says {want:?}"),
                }
            }
            Op::Scratch(size) => match (arena.scratch_acquire(*size), m.scratch(*size)) {
                (Ok(p), Ok(offset)) => {
                    assert_eq!(p.as_ptr() as usize, base + m.tensor_cap + offset);
                    // SAFETY: `size` scratch bytes were just handed out.
                    unsafe { p.as_ptr().write_bytes(fill, *size) };
                    live.push(Block {
                        start: p.as_ptr() as usize,
                        end: p.as_ptr() as usize + r16(*size),
                        data: p.as_ptr() as usize,
                        ptr: p.as_ptr(),
                        desc: None,
                        len: *size,
                        fill,
                        region: Lifetime::Ephemeral,
                        scratch: true,
                    });
                }
                (Err(e), Err(kind)) => assert_eq!(e.kind, kind, "{op:?}: {e}"),
                (got, want) => panic!("{op:?}: got {got:?}, model says {want:?}"),
            },
            Op::Free(i) => {
                // free is a no-op: the block stays live (its bytes must stay intact).
                if let Some(b) = live.get(i % live.len().max(1)).copied() {
                    match b.desc {
                        Some(d) => arena.free(d),
                        None => arena.scratch_release(core::ptr::NonNull::new(b.ptr).unwrap()),
                    }
                }
            }
            Op::Reset => {
                arena.reset_ephemeral();
                m.reset();
                live.retain(|b| !b.scratch && b.region != Lifetime::Ephemeral);
            }
        }
        let s = arena.stats();
        assert_eq!(s, m.stats(&s), "after {op:?}");
        check_blocks(
            &live,
            base,
            m.tensor_cap,
            32 * 1024,
            (io_base, m.shared_cap),
        );
    }
}

proptest! {
    #![proptest_config(config(60_000))]
    #[test]
    fn raw_sequences_match_the_model(
        ops in prop::collection::vec(op(), 1..48),
        scratch_kb in 1usize..=4,
        shared in any::<bool>(),
    ) {
        run_raw(&ops, scratch_kb * 1024, shared);
    }
}

#[derive(Clone, Debug)]
struct InferenceOps {
    tensors: Vec<(Vec<u32>, DType)>,
    scratch: Vec<usize>,
}

fn inference_ops() -> impl Strategy<Value = InferenceOps> {
    (
        prop::collection::vec((prop::collection::vec(1u32..20, 1..=4), dtype()), 0..12),
        prop::collection::vec(1usize..400, 0..4),
    )
        .prop_map(|(tensors, scratch)| InferenceOps { tensors, scratch })
}

proptest! {
    #![proptest_config(config(40_000))]
    #[test]
    fn safe_api_inferences_keep_data_intact(
        weights in prop::collection::vec((prop::collection::vec(1u32..8, 1..=3), dtype()), 0..6),
        inferences in prop::collection::vec(inference_ops(), 1..6),
    ) {
        let mut buf = Box::new(ArenaBuffer::<16_384>::new());
        let mut arena = Arena::with_scratch(buf.as_mut_slice(), 2048).unwrap();
        let (loader, mut runner) = arena.split();
        let mut ws = Vec::new();
        let mut pers = 0;
        for (i, (shape, dt)) in weights.iter().enumerate() {
            let mut w = loader.persistent(shape, *dt).unwrap();
            w.bytes_mut().fill(0x80 | i as u8);
            pers += DESC_SPAN + r16(w.size());
            ws.push(w);
        }
        for (n, inf_ops) in inferences.iter().enumerate() {
            runner.inference(|inf| {
                let mut acts = Vec::new();
                let mut used = 0;
                for (j, (shape, dt)) in inf_ops.tensors.iter().enumerate() {
                    match inf.ephemeral(shape, *dt) {
                        Ok(mut t) => {
                            t.bytes_mut().fill(j as u8);
                            used += DESC_SPAN + r16(t.size());
                            acts.push((j as u8, t));
                        }
                        Err(e) => assert!(matches!(e.kind, ErrorKind::OutOfMemory | ErrorKind::TooLarge)),
                    }
                }
                let mut scratch = Vec::new();
                for (j, &size) in inf_ops.scratch.iter().enumerate() {
                    let s = inf.scratch(size).unwrap();
                    s.fill(0x40 | j as u8);
                    scratch.push(s);
                }
                let st = inf.stats();
                assert_eq!(st.ephemeral_used, used);
                assert_eq!(st.persistent_used, pers);
                let mut spans: Vec<(usize, usize)> = acts
                    .iter()
                    .map(|(_, t)| (t.as_ptr() as usize, t.as_ptr() as usize + t.size()))
                    .chain(ws.iter().map(|t| (t.as_ptr() as usize, t.as_ptr() as usize + t.size())))
                    .chain(scratch.iter().map(|s| (s.as_ptr() as usize, s.as_ptr() as usize + s.len())))
                    .collect();
                spans.sort();
                for w in spans.windows(2) {
                    assert!(w[0].1 <= w[1].0);
                }
                for (fill, t) in &acts {
                    assert_eq!(t.as_ptr() as usize % 16, 0);
                    assert!(t.bytes().iter().all(|b| b == fill));
                }
                for (j, s) in scratch.iter().enumerate() {
                    assert_eq!(s.as_ptr() as usize % 16, 0);
                    assert!(s.iter().all(|&b| b == 0x40 | j as u8));
                }
            });
            let st = runner.stats();
            assert_eq!(st.reset_count as usize, n + 1);
            assert_eq!((st.ephemeral_used, st.scratch_used), (0, 0));
            for (i, w) in ws.iter().enumerate() {
                assert!(w.bytes().iter().all(|&b| b == 0x80 | i as u8));
            }
        }
    }
}
