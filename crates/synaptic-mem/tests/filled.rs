//! `Loader::persistent_filled`: a persistent tensor sized by what its writer used, in one pass.
//! Exactly the memory and statistics of the equivalent `persistent` call on success; the arena
//! as it was (statistics included) when the writer fails; every later allocation where it would
//! be after the equivalent call. Small arenas, so that Miri runs it (x86_64 and i686).

use synaptic_mem::{AllocError, Arena, ArenaBuffer, DType, ErrorKind, Stats};

/// The statistics that describe what is allocated (not the failure count).
fn layout(s: &Stats) -> (usize, usize, usize, usize, u32) {
    (
        s.persistent_used,
        s.ephemeral_used,
        s.ephemeral_peak,
        s.arena_peak,
        s.alloc_count,
    )
}

#[derive(Debug, PartialEq)]
enum Fail {
    Arena(ErrorKind),
    Mine,
}

impl From<AllocError> for Fail {
    fn from(e: AllocError) -> Self {
        Fail::Arena(e.kind)
    }
}

#[test]
fn filled_equals_the_exact_allocation() {
    for used in [1u32, 3, 4, 5, 100] {
        let mut a = ArenaBuffer::<4096>::new();
        let mut b = ArenaBuffer::<4096>::new();
        let mut exact = Arena::with_scratch(a.as_mut_slice(), 1024).unwrap();
        let mut filled = Arena::with_scratch(b.as_mut_slice(), 1024).unwrap();
        let (le, mut re) = exact.split();
        let (lf, mut rf) = filled.split();
        le.persistent(&[7], DType::Int8).unwrap();
        lf.persistent(&[7], DType::Int8).unwrap();
        let mut e = le.persistent(&[used], DType::Int32).unwrap();
        let mut f = lf
            .persistent_filled::<AllocError>(DType::Int32, |t| {
                let w = t.as_mut_slice::<u32>().unwrap();
                assert!(w.len() >= used as usize);
                for (i, x) in w[..used as usize].iter_mut().enumerate() {
                    *x = i as u32 * 3;
                }
                Ok(used)
            })
            .unwrap();
        e.as_mut_slice::<u32>()
            .unwrap()
            .iter_mut()
            .enumerate()
            .for_each(|(i, x)| *x = i as u32 * 3);
        assert_eq!(f.shape(), &[used]);
        assert_eq!(f.size(), 4 * used as usize);
        assert_eq!(f.as_slice::<u32>().unwrap(), e.as_slice::<u32>().unwrap());
        assert_eq!(layout(&le.stats()), layout(&lf.stats()));
        // Later allocations land where they land after the exact one.
        let pe = le.persistent(&[2], DType::Int16).unwrap();
        let pf = lf.persistent(&[2], DType::Int16).unwrap();
        assert_eq!(
            pe.as_ptr() as usize - e.as_ptr() as usize,
            pf.as_ptr() as usize - f.as_ptr() as usize
        );
        let de = re.inference(|i| i.ephemeral(&[64], DType::Int8).unwrap().as_ptr() as usize);
        let df = rf.inference(|i| i.ephemeral(&[64], DType::Int8).unwrap().as_ptr() as usize);
        assert_eq!(de - e.as_ptr() as usize, df - f.as_ptr() as usize);
        assert_eq!(layout(&le.stats()), layout(&lf.stats()));
        f.as_mut_slice::<u32>().unwrap()[0] = 1;
    }
}

#[test]
fn a_failed_fill_leaves_the_arena_as_it_was() {
    let mut buf = ArenaBuffer::<4096>::new();
    let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
    let (loader, mut runner) = arena.split();
    let mut kept = loader.persistent(&[4], DType::Int8).unwrap();
    kept.bytes_mut().copy_from_slice(&[1, 2, 3, 4]);
    let before = loader.stats();
    // The writer's own error, nothing used, more than given: all refused, nothing kept.
    let r = loader.persistent_filled(DType::Int8, |t| {
        t.bytes_mut().fill(0xAA);
        Err::<u32, _>(Fail::Mine)
    });
    assert_eq!(r.unwrap_err(), Fail::Mine);
    assert_eq!(layout(&loader.stats()), layout(&before));
    let r = loader.persistent_filled::<Fail>(DType::Int8, |_| Ok(0));
    assert_eq!(r.unwrap_err(), Fail::Arena(ErrorKind::TooLarge));
    let r = loader.persistent_filled::<Fail>(DType::Int8, |t| Ok(t.size() as u32 + 1));
    assert_eq!(r.unwrap_err(), Fail::Arena(ErrorKind::TooLarge));
    assert_eq!(layout(&loader.stats()), layout(&before));
    assert_eq!(kept.bytes(), &[1, 2, 3, 4]);
    // INT4 is not byte-addressable.
    let r = loader.persistent_filled::<Fail>(DType::Int4, |_| Ok(1));
    assert_eq!(r.unwrap_err(), Fail::Arena(ErrorKind::InvalidDtype));
    assert_eq!(layout(&loader.stats()), layout(&before));
    // The whole space is still there.
    let big = loader.persistent(&[2048], DType::Int8).unwrap();
    assert_eq!(big.size(), 2048);
    runner.inference(|i| assert!(i.ephemeral(&[16], DType::Int8).is_ok()));
}

#[test]
fn the_writer_cannot_allocate_beside_it() {
    let mut buf = ArenaBuffer::<4096>::new();
    let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
    let (loader, _) = arena.split();
    let t = loader
        .persistent_filled::<Fail>(DType::Int8, |t| {
            // Every byte of tensor space is the writer's: another allocation finds none.
            let e = loader.persistent(&[1], DType::Int8).unwrap_err();
            assert!(
                matches!(e.kind, ErrorKind::OutOfMemory | ErrorKind::TooLarge),
                "{e}"
            );
            t.bytes_mut()[0] = 5;
            Ok(1)
        })
        .unwrap();
    assert_eq!(t.bytes(), &[5]);
    // After it, the rest is free again.
    assert!(loader.persistent(&[1024], DType::Int8).is_ok());
}

#[test]
fn refused_while_an_inference_runs_and_when_full() {
    let mut buf = ArenaBuffer::<4096>::new();
    let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
    let (loader, mut runner) = arena.split();
    runner.inference(|i| {
        let _x = i.ephemeral(&[16], DType::Int8).unwrap();
        let r = loader.persistent_filled::<Fail>(DType::Int8, |_| Ok(1));
        assert_eq!(r.unwrap_err(), Fail::Arena(ErrorKind::EphemeralLive));
    });
    let cap = loader.stats().tensor_capacity;
    // Fill the tensor space but 32 bytes: less than a descriptor and one data block.
    loader
        .persistent(&[(cap - 64) as u32], DType::Int8)
        .unwrap();
    let r = loader.persistent_filled::<Fail>(DType::Int8, |_| Ok(1));
    // Less than one block is left of the persistent region's room: larger than it.
    assert_eq!(r.unwrap_err(), Fail::Arena(ErrorKind::TooLarge));
}
