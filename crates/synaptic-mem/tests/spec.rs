//! One test per sentence of the spec (`shared/spec/tensor-memory-model.txt`), through the safe
//! API and the raw API, with exact offsets and statistics.

use synaptic_mem::{
    Arena, ArenaBuffer, ConfigError, DType, ErrorKind, Lifetime, RawArena, Region, Stats,
    TensorDesc, DESC_SPAN,
};

const KB: usize = 1024;

/// Offset of `p` from the start of `base`.
fn off(base: *const u8, p: *const u8) -> usize {
    p as usize - base as usize
}

#[test]
fn descriptor_is_c_layout_and_small() {
    assert_eq!(DESC_SPAN, 32);
    assert!(core::mem::size_of::<TensorDesc>() <= 32);
    assert_eq!(
        core::mem::align_of::<TensorDesc>(),
        core::mem::size_of::<usize>()
    );
    // 28 bytes where pointers are 4 bytes (Cortex-M, i686), 32 where they are 8.
    assert_eq!(
        core::mem::size_of::<TensorDesc>(),
        4 * 4 + 4 + 4 + core::mem::size_of::<usize>()
    );
}

#[test]
fn defaults_give_112k_tensor_space_and_16k_scratch() {
    let mut buf = Box::new(ArenaBuffer::<131_072>::new());
    let arena = Arena::new(buf.as_mut_slice()).unwrap();
    let s = arena.stats();
    assert_eq!(s.arena_size, 131_072);
    assert_eq!(s.usable_size, 131_072);
    assert_eq!(s.tensor_capacity, 114_688);
    assert_eq!(s.tensor_capacity, 112 * KB);
    assert_eq!(s.scratch_size, 16 * KB);
    assert_eq!(
        s,
        Stats {
            arena_size: 131_072,
            usable_size: 131_072,
            tensor_capacity: 114_688,
            scratch_size: 16_384,
            ..Stats::default()
        }
    );
}

#[test]
fn arena_and_scratch_range_edges() {
    let mut big = vec![0u8; 524_288 + 32];
    let pad = big.as_ptr().align_offset(16);
    let buf = &mut big[pad..];
    let cases: &[(usize, usize, Result<(), ConfigError>)] = &[
        (
            4095,
            1024,
            Err(ConfigError::ArenaSizeOutOfRange { size: 4095 }),
        ),
        (4096, 1024, Ok(())),
        (524_288, 16_384, Ok(())),
        (
            524_289,
            16_384,
            Err(ConfigError::ArenaSizeOutOfRange { size: 524_289 }),
        ),
        (0, 1024, Err(ConfigError::ArenaSizeOutOfRange { size: 0 })),
        (
            131_072,
            1023,
            Err(ConfigError::ScratchSizeOutOfRange { size: 1023 }),
        ),
        (131_072, 1024, Ok(())),
        (131_072, 65_536, Ok(())),
        (
            131_072,
            65_537,
            Err(ConfigError::ScratchSizeOutOfRange { size: 65_537 }),
        ),
        (
            65_536,
            65_536,
            Err(ConfigError::ScratchNotSmallerThanArena {
                scratch_size: 65_536,
                arena_size: 65_536,
            }),
        ),
        (
            4096,
            4096 - 32,
            Err(ConfigError::NoTensorSpace {
                usable_size: 4096,
                scratch_size: 4064,
            }),
        ),
        (4096, 4096 - 48, Ok(())),
    ];
    for &(arena_size, scratch, expect) in cases {
        let got = Arena::with_scratch(&mut buf[..arena_size], scratch).map(|a| a.stats());
        match expect {
            Ok(()) => {
                let s = got.unwrap_or_else(|e| panic!("{arena_size}/{scratch}: {e}"));
                assert_eq!(s.arena_size, arena_size);
                assert_eq!(s.tensor_capacity + s.scratch_size, s.usable_size);
                assert_eq!(s.scratch_size, scratch.next_multiple_of(16));
            }
            Err(e) => assert_eq!(got.unwrap_err(), e, "{arena_size}/{scratch}"),
        }
    }
}

#[test]
fn config_errors_say_why() {
    let e = ConfigError::ArenaSizeOutOfRange { size: 100 };
    assert_eq!(e.to_string(), "arena size 100 B is outside 4096..=524288 B");
    let e = ConfigError::ScratchSizeOutOfRange { size: 70_000 };
    assert_eq!(
        e.to_string(),
        "scratch pool size 70000 B is outside 1024..=65536 B"
    );
}

#[test]
fn unaligned_base_is_aligned_up_and_usable_size_reduced() {
    let mut buf = Box::new(ArenaBuffer::<{ 8192 + 16 }>::new());
    let base = buf.as_mut_slice().as_ptr();
    let arena = RawArena::new(&mut buf.as_mut_slice()[1..8193], 1024).unwrap();
    let s = arena.stats();
    assert_eq!(s.arena_size, 8192);
    assert_eq!(s.usable_size, 8176); // 15 bytes of padding, end rounded down to 16
    assert_eq!(s.alignment_loss(), 16);
    assert_eq!(s.tensor_capacity, 8176 - 1024);
    let t = arena.alloc(&[3], DType::Int8, Lifetime::Ephemeral).unwrap();
    assert_eq!(off(base, t.as_ptr().cast()), 16); // aligned base = buf + 16
                                                  // SAFETY: the descriptor was just written by the arena and nothing reset it.
    let d = unsafe { t.as_ref() };
    assert_eq!(d.data_ptr() as usize % 16, 0);
    assert_eq!(off(base, d.data_ptr()), 48);
    assert!(format!("{s}").contains("(16 B lost to alignment)"));
}

#[test]
fn region_order_and_exact_offsets() {
    let mut buf = Box::new(ArenaBuffer::<131_072>::new());
    let base = buf.as_mut_slice().as_ptr();
    let arena = RawArena::new(buf.as_mut_slice(), 16_384).unwrap();
    let desc = |p: core::ptr::NonNull<TensorDesc>| {
        // SAFETY: descriptors stay valid until the next reset; the test does not reset.
        let d = unsafe { p.as_ref() };
        (
            off(base, p.as_ptr().cast()),
            off(base, d.data_ptr()),
            d.size(),
        )
    };
    // Persistent grows up from the base.
    let w1 = arena
        .alloc(&[16, 16], DType::Int8, Lifetime::Persistent)
        .unwrap();
    assert_eq!(desc(w1), (0, 32, 256));
    let w2 = arena
        .alloc(&[3], DType::Float32, Lifetime::Persistent)
        .unwrap();
    assert_eq!(desc(w2), (288, 320, 12)); // 12 data bytes occupy 16
    assert_eq!(arena.stats().persistent_used, 336);
    // Ephemeral starts right after persistent.
    let a1 = arena
        .alloc(&[1, 16], DType::Int8, Lifetime::Ephemeral)
        .unwrap();
    assert_eq!(desc(a1), (336, 368, 16));
    let a2 = arena
        .alloc(&[1, 2, 2, 5], DType::Int16, Lifetime::Ephemeral)
        .unwrap();
    assert_eq!(desc(a2), (384, 416, 40));
    assert_eq!(arena.stats().ephemeral_used, 384 + 32 + 48 - 336);
    // Scratch is the top 16 KB of the arena.
    let s1 = arena.scratch_acquire(100).unwrap();
    assert_eq!(off(base, s1.as_ptr()), 131_072 - 16_384);
    let s2 = arena.scratch_acquire(50).unwrap();
    assert_eq!(off(base, s2.as_ptr()), 131_072 - 16_384 + 112);
    assert_eq!(arena.stats().scratch_used, 176);
}

#[test]
fn descriptor_fields_and_data_follow_the_descriptor() {
    let mut buf = Box::new(ArenaBuffer::<8192>::new());
    let arena = RawArena::new(buf.as_mut_slice(), 1024).unwrap();
    for (i, &dtype) in DType::ALL.iter().enumerate() {
        let shape = [1, 3, (i as u32) + 1, 7];
        let p = arena.alloc(&shape, dtype, Lifetime::Ephemeral).unwrap();
        // SAFETY: as above.
        let d = unsafe { p.as_ref() };
        assert_eq!(p.as_ptr() as usize % 16, 0);
        assert_eq!(d.data_ptr() as usize, p.as_ptr() as usize + 32);
        assert_eq!(d.shape(), &shape);
        assert_eq!(d.ndim(), 4);
        assert_eq!(d.dtype(), dtype);
        assert_eq!(d.lifetime(), Lifetime::Ephemeral);
        let elems = 21 * (i + 1);
        assert_eq!(d.size(), (elems * dtype.bits() as usize).div_ceil(8));
    }
    let p = arena
        .alloc(&[5, 2], DType::Float32, Lifetime::Ephemeral)
        .unwrap();
    // SAFETY: as above.
    let d = unsafe { p.as_ref() };
    assert_eq!(d.dims(), [5, 2, 1, 1]);
    assert_eq!(d.ndim(), 2);
}

#[test]
fn byte_size_from_shape_and_dtype() {
    use synaptic_mem::shape_bytes;
    assert_eq!(shape_bytes(&[3], DType::Int4), Ok(([3, 1, 1, 1], 2)));
    assert_eq!(
        shape_bytes(&[1, 1, 1, 5], DType::Int4),
        Ok(([1, 1, 1, 5], 3))
    );
    assert_eq!(
        shape_bytes(&[2, 3], DType::BFloat16),
        Ok(([2, 3, 1, 1], 12))
    );
    assert_eq!(shape_bytes(&[2, 3], DType::Float16), Ok(([2, 3, 1, 1], 12)));
    assert_eq!(
        shape_bytes(&[1, 96, 96, 1], DType::Int8),
        Ok(([1, 96, 96, 1], 9216))
    );
    assert_eq!(shape_bytes(&[10], DType::Int32), Ok(([10, 1, 1, 1], 40)));
    assert_eq!(shape_bytes(&[7], DType::UInt8).unwrap().1, 7);
    assert_eq!(shape_bytes(&[7], DType::Int16).unwrap().1, 14);
    assert_eq!(shape_bytes(&[], DType::Int8), Err(ErrorKind::InvalidNdim));
    assert_eq!(
        shape_bytes(&[1; 5], DType::Int8),
        Err(ErrorKind::InvalidNdim)
    );
    assert_eq!(
        shape_bytes(&[2, 0], DType::Int8),
        Err(ErrorKind::ZeroDimension)
    );
    assert_eq!(
        shape_bytes(&[65_536, 65_536, 0], DType::Int8),
        Err(ErrorKind::ZeroDimension)
    );
    assert_eq!(
        shape_bytes(&[65_536, 65_536], DType::Int8),
        Err(ErrorKind::SizeOverflow)
    );
    // 2^31 elements fit u32, but 2^33 bytes do not fit a tensor.
    assert_eq!(
        shape_bytes(&[65_536, 32_768], DType::Float32),
        Err(ErrorKind::SizeOverflow)
    );
    // The limit: at most 2^33 bits of data (2^30 bytes).
    assert_eq!(
        shape_bytes(&[1 << 31], DType::Int4),
        Ok(([1 << 31, 1, 1, 1], 1 << 30))
    );
    assert_eq!(
        shape_bytes(&[(1 << 31) + 1], DType::Int4),
        Err(ErrorKind::SizeOverflow)
    );
    assert_eq!(
        shape_bytes(&[1 << 16, 1 << 14, 2], DType::Int8),
        Err(ErrorKind::SizeOverflow)
    );
    assert_eq!(
        shape_bytes(&[1 << 28], DType::Float32),
        Ok(([1 << 28, 1, 1, 1], 1 << 30))
    );
    assert_eq!(
        shape_bytes(&[(1 << 28) + 1], DType::Float32),
        Err(ErrorKind::SizeOverflow)
    );
    assert_eq!(
        shape_bytes(&[u32::MAX, u32::MAX, 0, 1], DType::Int8),
        Err(ErrorKind::ZeroDimension)
    );
}

#[test]
fn free_and_release_are_no_ops() {
    let mut buf = Box::new(ArenaBuffer::<8192>::new());
    let arena = RawArena::new(buf.as_mut_slice(), 1024).unwrap();
    let t = arena
        .alloc(&[64], DType::Int8, Lifetime::Ephemeral)
        .unwrap();
    let s = arena.scratch_acquire(64).unwrap();
    let before = arena.stats();
    arena.free(t);
    arena.scratch_release(s);
    assert_eq!(arena.stats(), before);
    // Nothing was reclaimed: the next blocks come after the freed ones.
    let t2 = arena
        .alloc(&[64], DType::Int8, Lifetime::Ephemeral)
        .unwrap();
    assert_eq!(t2.as_ptr() as usize - t.as_ptr() as usize, 96);
    let s2 = arena.scratch_acquire(64).unwrap();
    assert_eq!(s2.as_ptr() as usize - s.as_ptr() as usize, 64);
}

#[test]
fn reset_reclaims_ephemeral_and_scratch_and_keeps_persistent_and_shared() {
    let mut buf = Box::new(ArenaBuffer::<16_384>::new());
    let mut io = ArenaBuffer::<256>::new();
    let mut arena = Arena::with_scratch(buf.as_mut_slice(), 2048).unwrap();
    arena.set_shared_region(io.as_mut_slice()).unwrap();
    let (loader, mut runner) = arena.split();
    let mut w = loader.persistent(&[100], DType::Int8).unwrap();
    w.bytes_mut().fill(0xA5);
    let mut input = loader.shared(&[4], DType::Float32).unwrap();
    input
        .as_mut_slice::<f32>()
        .unwrap()
        .copy_from_slice(&[1.0, 2.0, 3.0, 4.0]);
    let mut first_addr = None;
    for i in 0..5u32 {
        runner.inference(|inf| {
            let mut a = inf.ephemeral(&[1, 200], DType::Int8).unwrap();
            a.bytes_mut().fill(i as u8);
            let s = inf.scratch(300).unwrap();
            s.fill(0xFF);
            // Every inference gets the same addresses back.
            let addr = (a.as_ptr() as usize, s.as_ptr() as usize);
            assert_eq!(*first_addr.get_or_insert(addr), addr);
            let st = inf.stats();
            assert_eq!(st.ephemeral_used, 32 + 208);
            assert_eq!(st.scratch_used, 304);
        });
        let st = runner.stats();
        assert_eq!(st.ephemeral_used, 0);
        assert_eq!(st.scratch_used, 0);
        assert_eq!(st.reset_count, i + 1);
        assert_eq!(st.persistent_used, 32 + 112);
        assert_eq!(st.shared_used, 48);
        assert!(w.bytes().iter().all(|&b| b == 0xA5));
        assert_eq!(input.as_slice::<f32>().unwrap(), &[1.0, 2.0, 3.0, 4.0]);
    }
    let st = runner.stats();
    assert_eq!(st.alloc_count, 2 + 5 * 2);
    assert_eq!(st.ephemeral_peak, 240);
    assert_eq!(st.scratch_peak, 304);
    assert_eq!(st.arena_peak, 144 + 240);
}

#[test]
fn reset_cost_does_not_depend_on_tensor_count() {
    // O(1): a reset writes offsets; it does not visit tensors. With 1 or 300 tensors live,
    // the state after reset is identical.
    let mut buf = Box::new(ArenaBuffer::<65_536>::new());
    let arena = RawArena::new(buf.as_mut_slice(), 1024).unwrap();
    for n in [1usize, 300] {
        for _ in 0..n {
            arena
                .alloc(&[16], DType::Int8, Lifetime::Ephemeral)
                .unwrap();
        }
        arena.reset_ephemeral();
        assert_eq!(arena.stats().ephemeral_used, 0);
    }
    assert_eq!(arena.stats().reset_count, 2);
    assert_eq!(arena.stats().ephemeral_peak, 300 * 48);
}

#[test]
fn reinit_is_the_only_way_to_reclaim_persistent_memory() {
    let mut buf = Box::new(ArenaBuffer::<8192>::new());
    let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
    let first = {
        let (loader, mut runner) = arena.split();
        let w = loader.persistent(&[512], DType::Int8).unwrap();
        runner.inference(|_| ());
        runner.inference(|_| ());
        assert_eq!(runner.stats().persistent_used, 544);
        w.as_ptr() as usize
    };
    assert_eq!(arena.stats().persistent_used, 544);
    arena.reinit();
    assert_eq!(
        arena.stats(),
        Stats {
            arena_size: 8192,
            usable_size: 8192,
            tensor_capacity: 8192 - 1024,
            scratch_size: 1024,
            ..Stats::default()
        }
    );
    let (loader, _) = arena.split();
    let w = loader.persistent(&[16], DType::Int8).unwrap();
    assert_eq!(w.as_ptr() as usize, first);
}

#[test]
fn raw_init_again_reinitialises_everything() {
    let mut a = Box::new(ArenaBuffer::<8192>::new());
    let mut b = Box::new(ArenaBuffer::<16_384>::new());
    let mut io = ArenaBuffer::<128>::new();
    let arena = RawArena::UNINIT;
    // SAFETY: the buffers outlive `arena` and are used by nothing else.
    unsafe {
        arena
            .init(a.as_mut_slice().as_mut_ptr(), 8192, 1024)
            .unwrap();
        arena
            .set_shared_raw(io.as_mut_slice().as_mut_ptr(), 128)
            .unwrap();
    }
    arena
        .alloc(&[8], DType::Int8, Lifetime::Persistent)
        .unwrap();
    assert!(arena.has_shared());
    // A failing init leaves the old state alone.
    // SAFETY: as above (the call fails before using the pointer).
    let e = unsafe { arena.init(b.as_mut_slice().as_mut_ptr(), 100, 1024) };
    assert_eq!(e, Err(ConfigError::ArenaSizeOutOfRange { size: 100 }));
    assert_eq!(arena.stats().persistent_used, 48);
    // SAFETY: as above.
    unsafe {
        arena
            .init(b.as_mut_slice().as_mut_ptr(), 16_384, 2048)
            .unwrap()
    };
    let s = arena.stats();
    assert_eq!(
        (s.arena_size, s.persistent_used, s.alloc_count),
        (16_384, 0, 0)
    );
    assert!(!arena.has_shared(), "a fresh init drops the shared region");
    // SAFETY: as above.
    let e = unsafe { arena.init(core::ptr::null_mut(), 8192, 1024) };
    assert_eq!(e, Err(ConfigError::NullBase));
}

#[test]
fn shared_region_has_its_own_bump_pointer_usage_and_peak() {
    let mut buf = Box::new(ArenaBuffer::<8192>::new());
    let mut io = ArenaBuffer::<{ 1024 + 16 }>::new();
    let io_base = io.as_mut_slice().as_ptr();
    let mut arena = RawArena::new(buf.as_mut_slice(), 1024).unwrap();
    let e = arena
        .alloc(&[4], DType::Int8, Lifetime::Shared)
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::NoSharedRegion);
    assert_eq!(e.region, Region::Shared);
    assert_eq!(arena.stats().failed_count, 1);
    // Too small after alignment.
    let mut tiny = ArenaBuffer::<64>::new();
    assert_eq!(
        arena.set_shared(&mut tiny.as_mut_slice()[1..48]),
        Err(ConfigError::SharedSizeOutOfRange { size: 47 })
    );
    arena.set_shared(&mut io.as_mut_slice()[8..1032]).unwrap();
    assert_eq!(arena.stats().shared_size, 1024 - 16);
    let t = arena
        .alloc(&[1, 10], DType::Float32, Lifetime::Shared)
        .unwrap();
    assert_eq!(off(io_base, t.as_ptr().cast()), 16);
    assert_eq!(arena.shared_offset_of(t.as_ptr().cast()), Some(0));
    let t2 = arena.alloc(&[1], DType::Int8, Lifetime::Shared).unwrap();
    assert_eq!(arena.shared_offset_of(t2.as_ptr().cast()), Some(80));
    assert_eq!(arena.stats().shared_used, 128);
    assert_eq!(arena.stats().tensor_capacity, 7168);
    assert_eq!(
        arena.stats().persistent_used + arena.stats().ephemeral_used,
        0
    );
    arena.reset_ephemeral();
    assert_eq!(arena.stats().shared_used, 128);
    let e = arena
        .alloc(&[900], DType::Int8, Lifetime::Shared)
        .unwrap_err();
    assert_eq!(
        (e.kind, e.needed, e.available),
        (ErrorKind::OutOfMemory, 944, 880)
    );
    let e = arena
        .alloc(&[1000], DType::Int8, Lifetime::Shared)
        .unwrap_err();
    assert_eq!(
        (e.kind, e.needed, e.available),
        (ErrorKind::TooLarge, 1040, 880)
    );
    assert_eq!(arena.stats().shared_used, 128);
}

#[test]
fn several_arenas_are_independent() {
    let mut b1 = Box::new(ArenaBuffer::<8192>::new());
    let mut b2 = Box::new(ArenaBuffer::<16_384>::new());
    let mut a1 = Arena::with_scratch(b1.as_mut_slice(), 1024).unwrap();
    let mut a2 = Arena::with_scratch(b2.as_mut_slice(), 4096).unwrap();
    let (l1, mut r1) = a1.split();
    let (l2, mut r2) = a2.split();
    let mut w1 = l1.persistent(&[8], DType::Int8).unwrap();
    let mut w2 = l2.persistent(&[8], DType::Int8).unwrap();
    w1.bytes_mut().fill(1);
    w2.bytes_mut().fill(2);
    r1.inference(|i1| {
        let _a = i1.ephemeral(&[64], DType::Int8).unwrap();
        r2.inference(|i2| {
            let _b = i2.ephemeral(&[128], DType::Int8).unwrap();
        });
        assert_eq!(i1.stats().ephemeral_used, 96);
    });
    assert_eq!(r1.stats().reset_count, 1);
    assert_eq!(r2.stats().reset_count, 1);
    assert_eq!(l2.stats().ephemeral_peak, 160);
    assert_eq!((w1.bytes()[0], w2.bytes()[0]), (1, 2));
}

#[test]
fn typed_access_is_checked_against_the_dtype() {
    let mut buf = Box::new(ArenaBuffer::<8192>::new());
    let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
    let (loader, _r) = arena.split();
    let mut t = loader.persistent(&[2, 3], DType::Int16).unwrap();
    assert_eq!(t.as_mut_slice::<i16>().unwrap().len(), 6);
    assert_eq!(t.as_slice::<i8>().unwrap_err().actual, DType::Int16);
    assert!(t.as_slice::<f32>().is_err());
    let h = loader.persistent(&[4], DType::BFloat16).unwrap();
    assert_eq!(h.as_slice::<u16>().unwrap().len(), 4);
    let q = loader.persistent(&[5], DType::Int4).unwrap();
    assert_eq!(q.as_slice::<u8>().unwrap().len(), 3);
    assert!(q.as_slice::<i8>().is_err());
    let f = loader.persistent(&[3], DType::Float32).unwrap();
    assert_eq!(f.as_slice::<f32>().unwrap().len(), 3);
    assert_eq!(f.shape(), &[3]);
    assert_eq!(f.descriptor().data_ptr() as usize, f.as_ptr() as usize);
    assert_eq!(f.as_ptr() as usize % 16, 0);
}

#[test]
fn stats_after_a_known_sequence_and_the_table() {
    let mut buf = Box::new(ArenaBuffer::<131_072>::new());
    let arena = RawArena::new(buf.as_mut_slice(), 16_384).unwrap();
    arena
        .alloc(&[16, 16], DType::Int8, Lifetime::Persistent)
        .unwrap(); // 288
    for _ in 0..3 {
        arena
            .alloc(&[1, 64], DType::Float32, Lifetime::Ephemeral)
            .unwrap(); // 288
        arena
            .alloc(&[1, 10], DType::Int8, Lifetime::Ephemeral)
            .unwrap(); // 48
        arena.scratch_acquire(1000).unwrap(); // 1008
        arena.reset_ephemeral();
    }
    arena
        .alloc(&[1, 64], DType::Float32, Lifetime::Ephemeral)
        .unwrap();
    assert!(arena.alloc(&[], DType::Int8, Lifetime::Ephemeral).is_err());
    let s = arena.stats();
    assert_eq!(s.persistent_used, 288);
    assert_eq!(s.ephemeral_used, 288);
    assert_eq!(s.ephemeral_peak, 336);
    assert_eq!(s.arena_peak, 624);
    assert_eq!(s.scratch_used, 0);
    assert_eq!(s.scratch_peak, 1008);
    assert_eq!(s.alloc_count, 1 + 3 * 3 + 1);
    assert_eq!(s.reset_count, 3);
    assert_eq!(s.failed_count, 1);
    assert_eq!(
        s.to_string(),
        "syn mem stats\n\
         region            used   capacity       peak\n\
         persistent         288     114688        288\n\
         ephemeral          288     114400        336\n\
         tensor             576     114688        624\n\
         scratch              0      16384       1008\n\
         shared               0          0          0\n\
         arena 131072 B, usable 131072 B (0 B lost to alignment)\n\
         allocs 11  resets 3  failed 1\n"
    );
}

#[test]
fn uninitialised_raw_arena_refuses_everything() {
    let arena = RawArena::UNINIT;
    assert!(!arena.is_initialized());
    for lt in [Lifetime::Persistent, Lifetime::Ephemeral, Lifetime::Shared] {
        let e = arena.alloc(&[4], DType::Int8, lt).unwrap_err();
        assert_eq!(e.kind, ErrorKind::NotInitialized);
    }
    assert_eq!(
        arena
            .alloc(&[], DType::Int8, Lifetime::Ephemeral)
            .unwrap_err()
            .kind,
        ErrorKind::NotInitialized
    );
    assert_eq!(
        arena.scratch_acquire(16).unwrap_err().kind,
        ErrorKind::NotInitialized
    );
    assert_eq!(arena.stats().failed_count, 5);
}

#[test]
fn static_arena_buffer_hands_out_its_bytes_once() {
    use synaptic_mem::StaticArenaBuffer;
    static BUF: StaticArenaBuffer<4096> = StaticArenaBuffer::new();
    let b = BUF.take().unwrap();
    assert_eq!(b.len(), 4096);
    assert_eq!(b.as_ptr() as usize % 16, 0);
    assert!(BUF.take().is_none());
    let arena = Arena::with_scratch(b, 1024).unwrap();
    assert_eq!(arena.stats().usable_size, 4096);
}

#[test]
fn reset_also_happens_when_an_inference_panics() {
    let mut buf = Box::new(ArenaBuffer::<8192>::new());
    let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
    let (_loader, mut runner) = arena.split();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        runner.inference(|inf| {
            let _t = inf.ephemeral(&[64], DType::Int8).unwrap();
            panic!("kernel failed");
        })
    }));
    assert!(r.is_err());
    assert_eq!(runner.stats().ephemeral_used, 0);
    assert_eq!(runner.stats().reset_count, 1);
}

/// The Kconfig floors (arena ≥ 4096 B, scratch ≥ 1024 B) belong to the Kconfig path (the C
/// global, `Arena::new`/`with_scratch`); an arena sized exactly from a plan (`Arena::exact`)
/// has none, but keeps the upper limits every offset computation relies on.
#[test]
fn exact_arenas_have_no_kconfig_floors() {
    let mut buf = Box::new(ArenaBuffer::<{ 600 * 1024 }>::new());
    assert_eq!(
        Arena::with_scratch(&mut buf.as_mut_slice()[..288], 0).err(),
        Some(ConfigError::ArenaSizeOutOfRange { size: 288 })
    );
    {
        let mut arena = Arena::exact(&mut buf.as_mut_slice()[..288], 0).unwrap();
        let s = arena.stats();
        assert_eq!(
            (s.usable_size, s.tensor_capacity, s.scratch_size),
            (288, 288, 0)
        );
        let (loader, mut runner) = arena.split();
        let _w = loader.persistent(&[64], DType::Int8).unwrap();
        runner.inference(|inf| {
            assert!(inf.ephemeral(&[128], DType::Int8).is_ok());
            assert_eq!(
                inf.ephemeral(&[1], DType::Int8).unwrap_err().kind,
                ErrorKind::OutOfMemory
            );
            assert_eq!(inf.scratch(1).unwrap_err().kind, ErrorKind::TooLarge);
            assert_eq!(inf.scratch(0).unwrap_err().kind, ErrorKind::ZeroSize);
        });
    }
    // Upper limits and the room for one block still hold.
    assert_eq!(
        Arena::exact(&mut buf.as_mut_slice()[..524_289], 0).err(),
        Some(ConfigError::ArenaSizeOutOfRange { size: 524_289 })
    );
    assert_eq!(
        Arena::exact(&mut buf.as_mut_slice()[..8192], 65_537).err(),
        Some(ConfigError::ScratchSizeOutOfRange { size: 65_537 })
    );
    assert!(matches!(
        Arena::exact(&mut buf.as_mut_slice()[..32], 0).err(),
        Some(ConfigError::NoTensorSpace { .. })
    ));
    // The size rule for an exact arena gives one the core accepts, whatever its parts (a
    // small scratch pool over nothing else too: the tensor space below it is kept).
    for below in (0..=96).step_by(16) {
        for scratch in (0..=96).step_by(16) {
            let size = synaptic_mem::config::exact_arena_size(below, 0, scratch);
            let arena = Arena::exact(&mut buf.as_mut_slice()[..size], scratch);
            assert!(arena.is_ok(), "{below} B + a {scratch} B pool in {size} B");
        }
    }
    // A base 1 byte past alignment with fewer bytes than the padding: an error, not a wrap.
    assert!(Arena::exact(&mut buf.as_mut_slice()[1..9], 0).is_err());
    assert!(Arena::exact(&mut buf.as_mut_slice()[1..1], 0).is_err());
    // Same layout function for both floors where both accept.
    let cfg = synaptic_mem::ArenaConfig {
        arena_size: 8192,
        scratch_size: 1025,
    };
    assert_eq!(
        cfg.layout(),
        cfg.layout_at_with(0, synaptic_mem::Floors::Exact)
    );
}
