//! The `safe_api` fuzz harness, shared by the cargo-fuzz target (`fuzz/fuzz_targets/safe_api.rs`)
//! and the seeded random test (`tests/safe_api_random.rs`), which runs it natively on x86_64 and
//! on i686 (32-bit, like Cortex-M) in the test command.
//!
//! The safe Rust API (`Arena`, `Loader`, `Runner`, `Inference`, planned inferences) with
//! arbitrary arena sizes, buffer offsets, shapes, dtypes, plans (huge sizes and offsets
//! included) and sequences of sessions, loads and inferences. After every step: every live
//! tensor (persistent, shared, ephemeral, planned) and scratch buffer is 16-byte aligned, inside
//! the arena or shared buffer, disjoint from every other live one, its descriptor as requested
//! and its data intact; typed views obey the dtype; errors change nothing but `failed_count`;
//! statistics add up.
#![allow(dead_code)]

use arbitrary::Arbitrary;
use synaptic_mem::{shape_bytes, Arena, DType, ErrorKind, Lifetime, Plan, PlanSlot, Stats, Tensor};

#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct Req {
    pub dims: [u16; 4],
    pub big: u32,
    pub ndim: u8,
    pub dtype: u8,
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
pub enum InfStep {
    Ephemeral(Req),
    Scratch(u32),
    PersistentInside(Req),
    Write(u16),
}

/// One slot of a fuzzed plan: raw `u32` offsets and sizes (anything, huge ones included).
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct RawSlot {
    pub offset: u32,
    pub size: u32,
    pub first_op: u8,
    pub last_op: u8,
    /// Small values most of the time, so that valid plans are common.
    pub small: bool,
}

impl RawSlot {
    fn slot(&self) -> PlanSlot {
        let (offset, size) = if self.small {
            ((self.offset % 64) * 16, self.size % 2048 + 1)
        } else {
            (self.offset, self.size)
        };
        PlanSlot {
            offset,
            size,
            first_op: (self.first_op % 8) as u16,
            last_op: (self.last_op % 8) as u16,
        }
    }
}

#[derive(Arbitrary, Debug)]
pub enum Step {
    Persistent(Req),
    Shared(Req),
    Inference(Vec<InfStep>),
    /// Load a plan (any region size and slots, huge ones included) and, if it loads, run
    /// planned inferences over it.
    Planned {
        region: u32,
        small_region: bool,
        slots: Vec<RawSlot>,
        runs: u8,
    },
}

#[derive(Arbitrary, Debug)]
pub struct Input {
    /// `Arena::exact` (no Kconfig floors) instead of `Arena::with_scratch`.
    pub exact: bool,
    pub arena_size: u32,
    pub scratch: u16,
    pub offset: u8,
    pub shared: u16,
    pub sessions: Vec<Vec<Step>>,
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

impl Live {
    fn copy(&self) -> Live {
        Live {
            ptr: self.ptr,
            len: self.len,
            tag: self.tag,
        }
    }
}

/// A refused plan load: either counted as a failed allocation (no room, or ephemeral live) or,
/// for an invalid plan, nothing changed at all.
fn same_but_failed_or_same(before: &Stats, after: &Stats) {
    if before != after {
        same_but_failed(before, after);
    }
}

/// How many plan steps an input has (the random test checks the inputs reach them).
pub fn planned_steps(input: &Input) -> u64 {
    input
        .sessions
        .iter()
        .take(4)
        .flat_map(|s| s.iter().take(32))
        .filter(|s| matches!(s, Step::Planned { .. }))
        .count() as u64
}

static BUF: std::sync::Mutex<Vec<u8>> = std::sync::Mutex::new(Vec::new());

/// What one input reached (for the random test's coverage check).
#[derive(Debug, Default, Clone, Copy)]
pub struct Reached {
    /// Arenas that accepted the configuration.
    pub arenas: u64,
    /// Tensors and scratch buffers handed out by the bump paths.
    pub bump_blocks: u64,
    /// Plans loaded.
    pub plans: u64,
    /// Planned tensor views handed out.
    pub planned_views: u64,
}

/// Runs one fuzz input: every check of the module docs, panicking on a violation.
pub fn run(input: Input) -> Reached {
    let mut reached = Reached::default();
    let arena_size = input.arena_size as usize % (600 * 1024);
    let scratch = input.scratch as usize;
    // One buffer for the whole run (allocating and zeroing up to 600 KB per input would
    // dominate the execution time); its contents do not matter, canaries are written fresh.
    let mut guard = BUF.lock().unwrap_or_else(|e| e.into_inner());
    let buf: &mut Vec<u8> = &mut guard;
    if buf.len() < 600 * 1024 + 16 {
        buf.resize(600 * 1024 + 16, 0);
    }
    // Shared region: its own allocation, never overlapping the arena.
    let off = input.offset as usize % 16;
    let mut shared_buf = vec![0u8; input.shared as usize % 8192 + 16];
    let arena_lo = buf.as_ptr() as usize + off;
    let arena_range = (arena_lo, arena_lo + arena_size);
    let shared_range = (
        shared_buf.as_ptr() as usize,
        shared_buf.as_ptr() as usize + shared_buf.len(),
    );
    let bounds = [arena_range, shared_range];
    let made = if input.exact {
        Arena::exact(&mut buf[off..off + arena_size], scratch)
    } else {
        Arena::with_scratch(&mut buf[off..off + arena_size], scratch)
    };
    let mut arena = match made {
        Ok(a) => a,
        Err(_) => {
            let floors_ok = input.exact
                || ((4096..=524_288).contains(&arena_size) && (1024..=65_536).contains(&scratch));
            assert!(
                !floors_ok
                    || arena_size > 524_288
                    || scratch > 65_536
                    || scratch >= arena_size
                    || arena_size <= scratch + 32 + 30
            );
            return reached;
        }
    };
    reached.arenas += 1;
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
                            reached.bump_blocks += 1;
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
                                            reached.bump_blocks += 1;
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
                                            reached.bump_blocks += 1;
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
                Step::Planned {
                    region,
                    small_region,
                    slots,
                    runs,
                } => {
                    let slots: Vec<PlanSlot> = slots.iter().take(12).map(RawSlot::slot).collect();
                    let region_size = if *small_region {
                        (region % 256) * 16
                    } else {
                        *region
                    };
                    let plan = Plan {
                        region_size,
                        slots: &slots,
                    };
                    let valid = plan.validate().is_ok();
                    let before = loader.stats();
                    let Ok(handle) = loader.load_plan(plan) else {
                        same_but_failed_or_same(&before, &loader.stats());
                        continue;
                    };
                    assert!(valid, "an invalid plan loaded");
                    reached.plans += 1;
                    let st = loader.stats();
                    assert!(region_size as usize <= st.tensor_capacity - st.persistent_used);
                    let kept_live: Vec<Live> = kept.iter().map(|(_, l)| l.copy()).collect();
                    for _ in 0..(*runs % 3) {
                        let before = runner.stats();
                        let r = runner.planned(&handle, |p| {
                            for (i, s) in slots.iter().enumerate() {
                                let shape = [s.size];
                                p.alloc(i, &shape, DType::Int8).unwrap();
                                // One byte more than the slot: refused.
                                if let Some(n) = s.size.checked_add(1) {
                                    assert!(p.alloc(i, &[n], DType::Int8).is_err());
                                }
                            }
                            assert!(p.alloc(slots.len(), &[1], DType::Int8).is_err());
                            for op in 0..8u16 {
                                // Every slot live at `op`: inside the arena, disjoint from each
                                // other and from the persistent and shared tensors.
                                let mut live: Vec<Live> =
                                    kept_live.iter().map(Live::copy).collect();
                                for (i, s) in slots.iter().enumerate() {
                                    let Ok([mut t]) = p.at(op, [i]) else {
                                        assert!(op < s.first_op || op > s.last_op);
                                        continue;
                                    };
                                    assert!(s.first_op <= op && op <= s.last_op);
                                    reached.planned_views += 1;
                                    assert_eq!(t.size(), s.size as usize);
                                    assert_eq!(t.as_ptr() as usize % 16, 0);
                                    tag = tag.wrapping_add(1);
                                    live.push(fill(t.bytes_mut(), tag));
                                }
                                check_live(&live, &bounds);
                            }
                        });
                        match r {
                            Ok(()) => {
                                let st = runner.stats();
                                assert_eq!(st.ephemeral_used, 0);
                                assert!(st.ephemeral_peak >= region_size as usize);
                            }
                            Err(_) => same_but_failed(&before, &runner.stats()),
                        }
                    }
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
    reached
}
