//! Every bad input gets a clear error and changes nothing but the failure count: no offset, no
//! other statistic, no byte of an earlier tensor.

use synaptic_mem::{AllocError, ArenaBuffer, DType, ErrorKind, Lifetime, RawArena, Region, Stats};

/// An arena with a persistent, an ephemeral and a shared tensor and a scratch buffer, all filled
/// with canary bytes.
struct Fixture {
    arena: RawArena<'static>,
    canaries: Vec<(*mut u8, usize, u8)>,
    // Raw, not `Box`: moving a `Box` would assert uniqueness over the arena's pointers.
    buf: *mut ArenaBuffer<16_384>,
    io: *mut ArenaBuffer<512>,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        // SAFETY: both came from `Box::into_raw` in `Fixture::new`; the arena is done with them.
        unsafe {
            drop(Box::from_raw(self.buf));
            drop(Box::from_raw(self.io));
        }
    }
}

impl Fixture {
    fn new(with_shared: bool, ephemeral_live: bool) -> Fixture {
        let buf = Box::into_raw(Box::new(ArenaBuffer::<16_384>::new()));
        let io = Box::into_raw(Box::new(ArenaBuffer::<512>::new()));
        let arena = RawArena::UNINIT;
        // SAFETY: the buffers live until the fixture drops and are not touched except through
        // pointers the arena hands out.
        unsafe {
            arena.init(buf.cast(), 16_384, 2048).unwrap();
            if with_shared {
                arena.set_shared_raw(io.cast(), 512).unwrap();
            }
        }
        let mut f = Fixture {
            arena,
            canaries: vec![],
            buf,
            io,
        };
        f.add(Lifetime::Persistent, &[7, 9], 0x11);
        if with_shared {
            f.add(Lifetime::Shared, &[33], 0x22);
        }
        if ephemeral_live {
            f.add(Lifetime::Ephemeral, &[2, 50], 0x33);
            let s = f.arena.scratch_acquire(100).unwrap();
            // SAFETY: 100 bytes of scratch were just handed out to us.
            unsafe { s.as_ptr().write_bytes(0x44, 100) };
            f.canaries.push((s.as_ptr(), 100, 0x44));
        }
        f
    }

    fn add(&mut self, lt: Lifetime, shape: &[u32], fill: u8) {
        let t = self.arena.alloc(shape, DType::Int8, lt).unwrap();
        // SAFETY: fresh descriptor; its data block belongs to this tensor alone.
        let (p, n) = unsafe { (t.as_ref().data_ptr(), t.as_ref().size()) };
        // SAFETY: `n` bytes at `p` are this tensor's data.
        unsafe { p.write_bytes(fill, n) };
        self.canaries.push((p, n, fill));
    }

    /// Runs `op`, expects it to fail with `kind` in `region`, and checks nothing else changed.
    fn expect_fail(
        &self,
        kind: ErrorKind,
        region: Region,
        op: impl FnOnce(&RawArena<'static>) -> Result<(), AllocError>,
    ) -> AllocError {
        let before = self.arena.stats();
        let e = op(&self.arena).unwrap_err();
        assert_eq!((e.kind, e.region), (kind, region), "{e}");
        let after = self.arena.stats();
        assert_eq!(
            after,
            Stats {
                failed_count: before.failed_count + 1,
                ..before
            }
        );
        for &(p, n, fill) in &self.canaries {
            // SAFETY: canary blocks are live tensors/scratch of this arena (no reset happened).
            let bytes = unsafe { core::slice::from_raw_parts(p, n) };
            assert!(bytes.iter().all(|&b| b == fill), "canary {fill:#x} damaged");
        }
        e
    }
}

fn alloc(
    shape: &[u32],
    dtype: DType,
    lt: Lifetime,
) -> impl FnOnce(&RawArena) -> Result<(), AllocError> + '_ {
    move |a| a.alloc(shape, dtype, lt).map(drop)
}

#[test]
fn ndim_zero_or_above_four() {
    let f = Fixture::new(true, true);
    for lt in [Lifetime::Ephemeral, Lifetime::Persistent, Lifetime::Shared] {
        let region = match lt {
            Lifetime::Ephemeral => Region::Ephemeral,
            Lifetime::Persistent => Region::Persistent,
            Lifetime::Shared => Region::Shared,
        };
        f.expect_fail(ErrorKind::InvalidNdim, region, alloc(&[], DType::Int8, lt));
        f.expect_fail(
            ErrorKind::InvalidNdim,
            region,
            alloc(&[1, 1, 1, 1, 1], DType::Int8, lt),
        );
    }
}

#[test]
fn zero_dimension() {
    let f = Fixture::new(true, true);
    for shape in [&[0][..], &[4, 0], &[1, 2, 3, 0], &[0, 70_000, 70_000]] {
        f.expect_fail(
            ErrorKind::ZeroDimension,
            Region::Ephemeral,
            alloc(shape, DType::Float32, Lifetime::Ephemeral),
        );
    }
}

#[test]
fn size_overflow() {
    let f = Fixture::new(true, true);
    for (shape, dtype) in [
        (&[65_536u32, 65_536][..], DType::Int8),
        (&[u32::MAX, u32::MAX, u32::MAX, u32::MAX], DType::Int4),
        (&[65_536, 32_768], DType::Float32),
        (&[1 << 31], DType::Int8),
    ] {
        f.expect_fail(
            ErrorKind::SizeOverflow,
            Region::Ephemeral,
            alloc(shape, dtype, Lifetime::Ephemeral),
        );
    }
}

#[test]
fn scratch_larger_than_the_pool_and_zero_scratch() {
    let f = Fixture::new(true, true);
    let e = f.expect_fail(ErrorKind::TooLarge, Region::Scratch, |a| {
        a.scratch_acquire(2049).map(drop)
    });
    assert_eq!((e.needed, e.available), (2049, 2048 - 112));
    f.expect_fail(ErrorKind::ZeroSize, Region::Scratch, |a| {
        a.scratch_acquire(0).map(drop)
    });
    f.expect_fail(ErrorKind::TooLarge, Region::Scratch, |a| {
        a.scratch_acquire(usize::MAX).map(drop)
    });
    // Fits the pool but not what is left.
    let e = f.expect_fail(ErrorKind::OutOfMemory, Region::Scratch, |a| {
        a.scratch_acquire(2000).map(drop)
    });
    assert_eq!((e.needed, e.available), (2000, 1936));
    // Exactly what is left still works.
    assert!(f.arena.scratch_acquire(1936).is_ok());
}

#[test]
fn request_larger_than_what_is_left() {
    let f = Fixture::new(true, true);
    let s = f.arena.stats();
    let free = s.tensor_capacity - s.persistent_used - s.ephemeral_used;
    assert_eq!(free, 14_336 - 96 - 144);
    let e = f.expect_fail(ErrorKind::OutOfMemory, Region::Ephemeral, |a| {
        a.alloc(&[free as u32 - 31], DType::Int8, Lifetime::Ephemeral)
            .map(drop)
    });
    assert_eq!((e.needed, e.available), (free + 16, free));
    assert_eq!(
        e.to_string(),
        format!(
            "ephemeral: out of memory (needed {} B, {free} B free)",
            free + 16
        )
    );
    // More than the whole ephemeral capacity.
    let e = f.expect_fail(
        ErrorKind::TooLarge,
        Region::Ephemeral,
        alloc(&[20_000], DType::Int8, Lifetime::Ephemeral),
    );
    assert_eq!(e.needed, 20_032);
    // The exact remainder fits.
    assert!(f
        .arena
        .alloc(&[free as u32 - 32], DType::Int8, Lifetime::Ephemeral)
        .is_ok());
    assert_eq!(
        f.arena.stats().ephemeral_used + f.arena.stats().persistent_used,
        14_336
    );
    // Now nothing at all fits.
    f.expect_fail(
        ErrorKind::OutOfMemory,
        Region::Ephemeral,
        alloc(&[1], DType::Int8, Lifetime::Ephemeral),
    );
}

#[test]
fn out_of_range_arena_sizes() {
    // Config errors are covered exactly in spec.rs; here: a failed init keeps the old arena.
    let f = Fixture::new(true, true);
    let before = f.arena.stats();
    let mut other = vec![0u8; 1 << 20];
    for (len, scratch) in [
        (4095, 1024),
        (524_289, 1024),
        (8192, 1023),
        (8192, 65_537),
        (8192, 8192),
    ] {
        // SAFETY: `other` outlives the call; the call fails before keeping the pointer.
        assert!(unsafe { f.arena.init(other.as_mut_ptr(), len, scratch) }.is_err());
    }
    assert_eq!(f.arena.stats(), before);
    f.expect_fail(
        ErrorKind::TooLarge,
        Region::Ephemeral,
        alloc(&[100_000], DType::Int8, Lifetime::Ephemeral),
    );
}

#[test]
fn persistent_while_ephemeral_or_scratch_is_live() {
    let f = Fixture::new(true, true);
    let e = f.expect_fail(
        ErrorKind::EphemeralLive,
        Region::Persistent,
        alloc(&[4], DType::Int8, Lifetime::Persistent),
    );
    assert_eq!(e.needed, 48);
    // Scratch alone also blocks persistent growth.
    let g = Fixture::new(false, false);
    g.arena.scratch_acquire(16).unwrap();
    g.expect_fail(
        ErrorKind::EphemeralLive,
        Region::Persistent,
        alloc(&[4], DType::Int8, Lifetime::Persistent),
    );
    g.arena.reset_ephemeral();
    assert!(g
        .arena
        .alloc(&[4], DType::Int8, Lifetime::Persistent)
        .is_ok());
    // After a reset it is allowed again and lands right after the old persistent region.
    f.arena.reset_ephemeral();
    let p = f
        .arena
        .alloc(&[4], DType::Int8, Lifetime::Persistent)
        .unwrap();
    assert_eq!(f.arena.offset_of(p.as_ptr().cast()), Some(96));
}

#[test]
fn shared_without_a_region() {
    let f = Fixture::new(false, true);
    let e = f.expect_fail(
        ErrorKind::NoSharedRegion,
        Region::Shared,
        alloc(&[4], DType::Int8, Lifetime::Shared),
    );
    assert_eq!(
        e.to_string(),
        "shared: no shared region registered (needed 48 B, 0 B free)"
    );
}

#[test]
fn persistent_too_large_for_tensor_space() {
    let f = Fixture::new(false, false);
    f.expect_fail(
        ErrorKind::TooLarge,
        Region::Persistent,
        alloc(&[100, 100], DType::Float32, Lifetime::Persistent),
    );
}

#[test]
fn rejections_from_a_layer_above_are_counted() {
    let f = Fixture::new(false, false);
    let e = f.expect_fail(ErrorKind::InvalidDtype, Region::Ephemeral, |a| {
        Err(a.reject(ErrorKind::InvalidDtype, Region::Ephemeral))
    });
    assert_eq!(
        e.to_string(),
        "ephemeral: unknown data type (needed 0 B, 14240 B free)"
    );
}
