//! Fuzz target `safe_api`: the safe Rust API (`Arena`, `Loader`, `Runner`, `Inference`) with
//! arbitrary arena sizes, buffer offsets, shapes, dtypes and sequences of sessions, loads and
//! inferences. After every step: every live tensor (persistent, shared, ephemeral) and scratch
//! buffer is 16-byte aligned, inside the arena or shared buffer, disjoint from every other,
//! its descriptor as requested and its data intact; typed views obey the dtype; errors change
//! nothing but `failed_count`; statistics add up.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use synaptic_mem::{shape_bytes, Arena, DType, ErrorKind, Lifetime, Stats, Tensor};

#[derive(Arbitrary, Debug, Clone, Copy)]
struct Req {
    dims: [u16; 4],
    big: u32,
    ndim: u8,
    dtype: u8,
}

impl Req {
    fn shape(&self) -> Vec<u32> {
        let n = (self.ndim % 6) as usize; // 0..=5: includes invalid counts
        let mut v: Vec<u32> = self.dims.iter().map(|&d| (d % 48) as u32).collect();
        if self.big & 1 == 1 {
            v[0] = self.big; // occasionally huge
        }
        v.resize(n, 3);
        v
    }
    fn dtype(&self) -> DType {
        DType::ALL[self.dtype as usize % 8]
    }
}

#[derive(Arbitrary, Debug)]
enum InfStep {
    Ephemeral(Req),
    Scratch(u32),
    PersistentInside(Req),
    Write(u16),
}

#[derive(Arbitrary, Debug)]
enum Step {
    Persistent(Req),
    Shared(Req),
    Inference(Vec<InfStep>),
}

#[derive(Arbitrary, Debug)]
struct Input {
    arena_size: u32,
    scratch: u16,
    offset: u8,
    shared: u16,
    sessions: Vec<Vec<Step>>,
}

/// A live tensor or scratch buffer with its expected contents.
struct Live {
    ptr: usize,
    len: usize,
    tag: u8,
}

fn check_tensor(t: &Tensor<'_>, shape: &[u32], dtype: DType, lifetime: Lifetime) {
    assert_eq!(t.as_ptr() as usize % 16, 0);
    assert_eq!(t.descriptor_ptr().as_ptr() as usize % 16, 0);
    assert_eq!(
        t.as_ptr() as usize - t.descriptor_ptr().as_ptr() as usize,
        32
    );
    assert_eq!(t.shape(), shape);
    assert_eq!(t.dtype(), dtype);
    assert_eq!(t.lifetime(), lifetime);
    let (_, bytes) = shape_bytes(shape, dtype).unwrap();
    assert_eq!(t.size(), bytes as usize);
    // Typed views follow the dtype.
    assert_eq!(t.as_slice::<i8>().is_ok(), dtype == DType::Int8);
    assert_eq!(t.as_slice::<f32>().is_ok(), dtype == DType::Float32);
    assert_eq!(t.as_slice::<i32>().is_ok(), dtype == DType::Int32);
    assert_eq!(
        t.as_slice::<u16>().is_ok(),
        matches!(dtype, DType::Float16 | DType::BFloat16)
    );
    if let Ok(s) = t.as_slice::<f32>() {
        assert_eq!(s.len() * 4, t.size());
    }
}

fn check_live(live: &[Live], bounds: &[(usize, usize)]) {
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for l in live {
        assert!(
            bounds
                .iter()
                .any(|&(lo, hi)| l.ptr >= lo && l.ptr + l.len <= hi),
            "block outside the arena and shared buffers"
        );
        // SAFETY: `l` is a live block of `len` bytes handed out by the arena (this harness keeps
        // the tensor or scratch borrow alive while the record exists).
        let data = unsafe { std::slice::from_raw_parts(l.ptr as *const u8, l.len) };
        let n = l.len.min(32);
        assert!(data[..n].iter().all(|&b| b == l.tag), "data overwritten");
        assert!(
            data[l.len - n..].iter().all(|&b| b == l.tag),
            "data overwritten"
        );
        spans.push((l.ptr, l.ptr + l.len));
    }
    spans.sort_unstable();
    for w in spans.windows(2) {
        assert!(w[0].1 <= w[1].0, "live blocks overlap");
    }
}

/// Writes `tag` into the first and last 32 bytes (what `check_live` reads back).
fn fill(bytes: &mut [u8], tag: u8) -> Live {
    let n = bytes.len().min(32);
    let len = bytes.len();
    bytes[..n].fill(tag);
    bytes[len - n..].fill(tag);
    Live {
        ptr: bytes.as_ptr() as usize,
        len: bytes.len(),
        tag,
    }
}

/// On failure: the error must leave every statistic except `failed_count` unchanged.
fn same_but_failed(before: &Stats, after: &Stats) {
    let mut b = *before;
    b.failed_count = b.failed_count.wrapping_add(1);
    assert_eq!(
        &b, after,
        "a failed allocation changed more than failed_count"
    );
}

static BUF: std::sync::Mutex<Vec<u8>> = std::sync::Mutex::new(Vec::new());

fuzz_target!(|input: Input| {
    let arena_size = input.arena_size as usize % (600 * 1024);
    let scratch = input.scratch as usize;
    // One buffer for the whole run (allocating and zeroing up to 600 KB per input would
    // dominate the execution time); its contents do not matter, canaries are written fresh.
    let mut guard = BUF.lock().unwrap_or_else(|e| e.into_inner());
    let buf: &mut Vec<u8> = &mut guard;
    if buf.len() < 600 * 1024 + 16 {
        buf.resize(600 * 1024 + 16, 0);
    }
    let off = input.offset as usize % 16;
    let mut shared_buf = vec![0u8; input.shared as usize % 8192 + 16];
    let arena_lo = buf.as_ptr() as usize + off;
    let arena_range = (arena_lo, arena_lo + arena_size);
    let shared_range = (
        shared_buf.as_ptr() as usize,
        shared_buf.as_ptr() as usize + shared_buf.len(),
    );
    let bounds = [arena_range, shared_range];
    let mut arena = match Arena::with_scratch(&mut buf[off..off + arena_size], scratch) {
        Ok(a) => a,
        Err(_) => {
            assert!(
                !(4096..=524_288).contains(&arena_size)
                    || !(1024..=65_536).contains(&scratch)
                    || scratch >= arena_size
                    || arena_size <= scratch + 32 + 30
            );
            return;
        }
    };
    let has_shared = arena.set_shared_region(&mut shared_buf[..]).is_ok();
    let mut tag = 0u8;
    for session in input.sessions.iter().take(4) {
        arena.reinit();
        let s0 = arena.stats();
        assert_eq!(
            (
                s0.persistent_used,
                s0.ephemeral_used,
                s0.scratch_used,
                s0.shared_used
            ),
            (0, 0, 0, 0)
        );
        let (loader, mut runner) = arena.split();
        let mut kept: Vec<(Tensor<'_>, Live)> = Vec::new();
        for step in session.iter().take(32) {
            match step {
                Step::Persistent(r) | Step::Shared(r) => {
                    let lifetime = if matches!(step, Step::Persistent(_)) {
                        Lifetime::Persistent
                    } else {
                        Lifetime::Shared
                    };
                    let shape = r.shape();
                    let before = loader.stats();
                    let res = if lifetime == Lifetime::Persistent {
                        loader.persistent(&shape, r.dtype())
                    } else {
                        loader.shared(&shape, r.dtype())
                    };
                    match res {
                        Ok(mut t) => {
                            check_tensor(&t, &shape, r.dtype(), lifetime);
                            tag = tag.wrapping_add(1);
                            let live = fill(t.bytes_mut(), tag);
                            kept.push((t, live));
                        }
                        Err(e) => {
                            same_but_failed(&before, &loader.stats());
                            if lifetime == Lifetime::Shared
                                && !has_shared
                                && shape_bytes(&shape, r.dtype()).is_ok()
                            {
                                assert_eq!(e.kind, ErrorKind::NoSharedRegion);
                            }
                        }
                    }
                }
                Step::Inference(steps) => {
                    let kept_live: Vec<Live> = kept
                        .iter()
                        .map(|(_, l)| Live {
                            ptr: l.ptr,
                            len: l.len,
                            tag: l.tag,
                        })
                        .collect();
                    runner.inference(|inf| {
                        let mut eph: Vec<(Tensor<'_>, Live)> = Vec::new();
                        let mut scr: Vec<Live> = Vec::new();
                        // Persistent tensors allocated inside the scope (allowed while nothing
                        // ephemeral is live).
                        let mut pers: Vec<Live> = Vec::new();
                        for s in steps.iter().take(32) {
                            let before = inf.stats();
                            match s {
                                InfStep::Ephemeral(r) => {
                                    let shape = r.shape();
                                    match inf.ephemeral(&shape, r.dtype()) {
                                        Ok(mut t) => {
                                            check_tensor(
                                                &t,
                                                &shape,
                                                r.dtype(),
                                                Lifetime::Ephemeral,
                                            );
                                            tag = tag.wrapping_add(1);
                                            let live = fill(t.bytes_mut(), tag);
                                            eph.push((t, live));
                                        }
                                        Err(_) => same_but_failed(&before, &inf.stats()),
                                    }
                                }
                                InfStep::Scratch(n) => {
                                    let n = *n as usize % 20_000;
                                    match inf.scratch(n) {
                                        Ok(b) => {
                                            assert_eq!(b.len(), n);
                                            assert_eq!(b.as_ptr() as usize % 16, 0);
                                            tag = tag.wrapping_add(1);
                                            scr.push(fill(b, tag));
                                        }
                                        Err(_) => same_but_failed(&before, &inf.stats()),
                                    }
                                }
                                InfStep::PersistentInside(r) => {
                                    let shape = r.shape();
                                    let live = !eph.is_empty() || !scr.is_empty();
                                    match loader.persistent(&shape, r.dtype()) {
                                        Ok(mut t) => {
                                            assert!(
                                                !live,
                                                "persistent allowed while ephemeral live"
                                            );
                                            tag = tag.wrapping_add(1);
                                            let l = fill(t.bytes_mut(), tag);
                                            // Lives until the session ends; keep its record only.
                                            pers.push(l);
                                        }
                                        Err(e) => {
                                            same_but_failed(&before, &inf.stats());
                                            if live && shape_bytes(&shape, r.dtype()).is_ok() {
                                                assert_eq!(e.kind, ErrorKind::EphemeralLive);
                                            }
                                        }
                                    }
                                }
                                InfStep::Write(i) => {
                                    let k = *i as usize % eph.len().max(1);
                                    if let Some((t, l)) = eph.get_mut(k) {
                                        tag = tag.wrapping_add(1);
                                        *l = fill(t.bytes_mut(), tag);
                                    }
                                }
                            }
                            let mut all: Vec<Live> = kept_live
                                .iter()
                                .map(|l| Live {
                                    ptr: l.ptr,
                                    len: l.len,
                                    tag: l.tag,
                                })
                                .collect();
                            all.extend(eph.iter().map(|(_, l)| Live {
                                ptr: l.ptr,
                                len: l.len,
                                tag: l.tag,
                            }));
                            all.extend(pers.iter().map(|l| Live {
                                ptr: l.ptr,
                                len: l.len,
                                tag: l.tag,
                            }));
                            all.extend(scr.iter().map(|l| Live {
                                ptr: l.ptr,
                                len: l.len,
                                tag: l.tag,
                            }));
                            check_live(&all, &bounds);
                            let st = inf.stats();
                            assert!(st.persistent_used + st.ephemeral_used <= st.tensor_capacity);
                            assert!(st.scratch_used <= st.scratch_size);
                            assert!(st.arena_peak >= st.persistent_used + st.ephemeral_used);
                        }
                    });
                    let st = runner.stats();
                    assert_eq!((st.ephemeral_used, st.scratch_used), (0, 0));
                }
            }
            let live: Vec<Live> = kept
                .iter()
                .map(|(_, l)| Live {
                    ptr: l.ptr,
                    len: l.len,
                    tag: l.tag,
                })
                .collect();
            check_live(&live, &bounds);
        }
        drop(kept);
    }
});
