//! Fuzz target `c_api`: sequences of C API calls (`synaptic-mem-ffi`'s `extern "C"` functions,
//! called directly) with arbitrary arguments — NULL pointers, unaligned bases, huge sizes, bad
//! enum values — checked after every call against a reference model of the arena:
//!
//! * return value (NULL / pointer, errno) and `syn_mem_last_error()` as the model predicts;
//! * every returned tensor exactly where a bump allocator puts it (so 16-byte aligned, inside
//!   its region, disjoint from every other live block), its descriptor filled as requested;
//! * every statistic of `syn_mem_get_stats` equal to the model's;
//! * the data of every live tensor and scratch buffer intact (canary bytes written at
//!   allocation, re-checked after each call).
//!
//! The arena is one global: each input starts with a valid `syn_mem_init` once any input has
//! initialised it (the first inputs of a run also exercise every call before init).
#![no_main]

use std::cell::UnsafeCell;
use std::ffi::c_void;
use std::ptr;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use synaptic_mem_ffi::config::SCRATCH_POOL_SIZE;
use synaptic_mem_ffi::*;

const EINVAL: i32 = 22;
const ENOMEM: i32 = 12;
const EBUSY: i32 = 16;
const ENODEV: i32 = 19;
const EOVERFLOW: i32 = 75;
const EALREADY: i32 = 114;
const DESC: usize = 32;
const ARENA_BUF: usize = 524_288 + 64;
const SHARED_BUF: usize = 64 * 1024 + 64;

#[repr(C, align(16))]
struct Buf<const N: usize>(UnsafeCell<[u8; N]>);
// SAFETY: only the fuzz thread touches the buffers (libFuzzer runs inputs on one thread).
unsafe impl<const N: usize> Sync for Buf<N> {}
static ARENA: Buf<ARENA_BUF> = Buf(UnsafeCell::new([0; ARENA_BUF]));
static SHARED: Buf<SHARED_BUF> = Buf(UnsafeCell::new([0; SHARED_BUF]));
static mut EVER_INIT: bool = false;

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Dim {
    Small(u8),
    Mid(u16),
    Any(u32),
}

impl Dim {
    fn get(self) -> u32 {
        match self {
            Dim::Small(v) => v as u32 % 40,
            Dim::Mid(v) => v as u32,
            Dim::Any(v) => v,
        }
    }
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Size {
    Small(u16),
    Range(u32),
    Any(usize),
}

impl Size {
    fn get(self) -> usize {
        match self {
            Size::Small(v) => v as usize,
            Size::Range(v) => v as usize % 600_000,
            Size::Any(v) => v,
        }
    }
}

#[derive(Arbitrary, Debug)]
enum Call {
    Init {
        null: bool,
        offset: u8,
        size: Size,
    },
    InitEx {
        null: bool,
        offset: u8,
        size: Size,
        scratch: Size,
    },
    SharedInit {
        null: bool,
        offset: u8,
        size: Size,
    },
    Alloc {
        null_shape: bool,
        shape: [Dim; 4],
        ndim: u8,
        dtype: u32,
        lifetime: u32,
        kind: u8,
    },
    Free {
        which: u16,
    },
    Scratch {
        size: Size,
    },
    ScratchRelease {
        which: u16,
    },
    Reset,
    GetStats {
        null: bool,
    },
    Print,
    LastError,
}

/// A live block the model knows about.
#[derive(Debug, Clone)]
struct Block {
    desc: *mut SynTensor, // null for scratch
    data: *mut u8,
    size: usize,
    lifetime: u8, // 0 P, 1 E, 2 S, 3 scratch
    shape: [u32; 4],
    ndim: u8,
    dtype: u8,
    tag: u8,
}

#[derive(Debug, Default)]
struct Model {
    init: bool,
    base: usize,
    arena_size: usize,
    usable: usize,
    tensor_cap: usize,
    scratch_cap: usize,
    pers_end: usize,
    top: usize,
    scratch_top: usize,
    shared_base: usize,
    shared_cap: usize,
    shared_top: usize,
    arena_peak: usize,
    eph_peak: usize,
    scratch_peak: usize,
    alloc_count: u32,
    reset_count: u32,
    failed_count: u32,
    last_error: i32,
    blocks: Vec<Block>,
    next_tag: u8,
}

fn align_up(n: usize) -> usize {
    (n + 15) & !15
}

fn arena_ptr(offset: u8) -> *mut u8 {
    // SAFETY: offset < 64 < ARENA_BUF: in bounds of the static buffer.
    unsafe { (ARENA.0.get() as *mut u8).add(offset as usize % 64) }
}

fn shared_ptr(offset: u8) -> *mut u8 {
    // SAFETY: offset < 64 < SHARED_BUF.
    unsafe { (SHARED.0.get() as *mut u8).add(offset as usize % 64) }
}

/// Bits per element of a valid dtype value.
fn bits(dtype: u32) -> u64 {
    match dtype {
        0 | 1 => 8,
        2 | 4 | 6 => 16,
        3 | 5 => 32,
        7 => 4,
        _ => unreachable!(),
    }
}

impl Model {
    /// Expected errno for a failed allocation in `region` (0 P, 1 E, 2 S, 3 scratch), applying
    /// the core's overrides: not initialised wins over everything; a space failure in the
    /// shared region without one registered is -ENODEV; argument errors are reported as such.
    fn fail(&mut self, errno: i32, region: u8) -> i32 {
        self.failed_count = self.failed_count.wrapping_add(1);
        let no_shared = errno == -ENOMEM && region == 2 && self.shared_cap == 0;
        let e = if !self.init || no_shared {
            -ENODEV
        } else {
            errno
        };
        self.last_error = e;
        e
    }

    fn init(&mut self, base: *mut u8, len: usize, scratch: usize) -> i32 {
        let e = if !(4096..=524_288).contains(&len)
            || !(1024..=65_536).contains(&scratch)
            || scratch >= len
            || base.is_null()
        {
            -EINVAL
        } else {
            let pad = (base as usize).wrapping_neg() & 15;
            let usable = (len - pad) & !15;
            if usable <= scratch + DESC {
                -EINVAL
            } else {
                let tensor_cap = (usable - scratch) & !15;
                *self = Model {
                    init: true,
                    base: base as usize + pad,
                    arena_size: len,
                    usable,
                    tensor_cap,
                    scratch_cap: usable - tensor_cap,
                    next_tag: self.next_tag,
                    ..Model::default()
                };
                return 0;
            }
        };
        self.last_error = e;
        e
    }

    /// Predicts `syn_mem_tensor_alloc`: Ok(address of descriptor) or Err(errno).
    fn alloc(
        &mut self,
        shape: Option<&[u32]>,
        ndim: u8,
        dtype: u32,
        lifetime: u32,
    ) -> Result<(usize, u32), i32> {
        if lifetime > 2 {
            return Err(self.fail(-EINVAL, 1));
        }
        let region = lifetime as u8;
        if dtype > 7 || ndim > 4 || shape.is_none() {
            return Err(self.fail(-EINVAL, region));
        }
        let shape = shape.unwrap();
        if ndim == 0 {
            return Err(self.fail(-EINVAL, region));
        }
        let mut dims = [1u32; 4];
        dims[..ndim as usize].copy_from_slice(&shape[..ndim as usize]);
        if dims.contains(&0) {
            return Err(self.fail(-EINVAL, region));
        }
        let elements: u128 = dims.iter().map(|&d| d as u128).product();
        if elements > u32::MAX as u128 {
            return Err(self.fail(-EOVERFLOW, region));
        }
        let bytes = (elements as u64 * bits(dtype)).div_ceil(8);
        if bytes > synaptic_mem::MAX_TENSOR_BYTES as u64 {
            return Err(self.fail(-EOVERFLOW, region));
        }
        if !self.init {
            return Err(self.fail(-ENODEV, region));
        }
        let needed = DESC + align_up(bytes as usize);
        let addr = match region {
            1 => {
                if self.top + needed > self.tensor_cap {
                    return Err(self.fail(-ENOMEM, region));
                }
                let a = self.base + self.top;
                self.top += needed;
                a
            }
            0 => {
                if self.top != self.pers_end || self.scratch_top != 0 {
                    return Err(self.fail(-EBUSY, region));
                }
                if self.top + needed > self.tensor_cap {
                    return Err(self.fail(-ENOMEM, region));
                }
                let a = self.base + self.top;
                self.top += needed;
                self.pers_end = self.top;
                a
            }
            _ => {
                if self.shared_top + needed > self.shared_cap {
                    return Err(self.fail(-ENOMEM, region));
                }
                let a = self.shared_base + self.shared_top;
                self.shared_top += needed;
                a
            }
        };
        self.alloc_count = self.alloc_count.wrapping_add(1);
        self.arena_peak = self.arena_peak.max(self.top);
        Ok((addr, bytes as u32))
    }

    fn scratch(&mut self, size: usize) -> Result<usize, i32> {
        if size == 0 {
            return Err(self.fail(-EINVAL, 3));
        }
        if size > self.scratch_cap {
            return Err(self.fail(-ENOMEM, 3));
        }
        let end = self.scratch_top + align_up(size);
        if end > self.scratch_cap {
            return Err(self.fail(-ENOMEM, 3));
        }
        let a = self.base + self.tensor_cap + self.scratch_top;
        self.scratch_top = end;
        self.alloc_count = self.alloc_count.wrapping_add(1);
        Ok(a)
    }

    fn reset(&mut self) {
        if !self.init {
            self.last_error = -ENODEV;
            return;
        }
        self.arena_peak = self.arena_peak.max(self.top);
        self.eph_peak = self.eph_peak.max(self.top - self.pers_end);
        self.scratch_peak = self.scratch_peak.max(self.scratch_top);
        self.top = self.pers_end;
        self.scratch_top = 0;
        self.reset_count = self.reset_count.wrapping_add(1);
        self.blocks.retain(|b| b.lifetime == 0 || b.lifetime == 2);
    }

    /// Checks every invariant against the real arena.
    fn check(&self) {
        assert_eq!(syn_mem_last_error(), self.last_error, "last error");
        let mut s = std::mem::MaybeUninit::<SynMemStats>::uninit();
        // SAFETY: `s` is writable storage for one SynMemStats.
        let r = unsafe { syn_mem_get_stats(s.as_mut_ptr()) };
        if !self.init {
            assert_eq!(r, -ENODEV);
            // get_stats before init records -ENODEV; the model already expects it when it
            // predicted an earlier failure, otherwise the next check would differ: restore.
            return;
        }
        assert_eq!(r, 0);
        // SAFETY: get_stats returned 0, so it wrote the whole struct.
        let s = unsafe { s.assume_init() };
        assert_eq!(s.arena_size, self.arena_size);
        assert_eq!(s.usable_size, self.usable);
        assert_eq!(s.tensor_capacity, self.tensor_cap);
        assert_eq!(s.persistent_used, self.pers_end);
        assert_eq!(s.ephemeral_used, self.top - self.pers_end);
        assert_eq!(
            s.ephemeral_peak,
            self.eph_peak.max(self.top - self.pers_end)
        );
        assert_eq!(s.scratch_used, self.scratch_top);
        assert_eq!(s.scratch_size, self.scratch_cap);
        assert_eq!(s.scratch_peak, self.scratch_peak.max(self.scratch_top));
        assert_eq!(s.shared_used, self.shared_top);
        assert_eq!(s.shared_size, self.shared_cap);
        assert_eq!(s.arena_peak, self.arena_peak.max(self.top));
        assert_eq!(s.alloc_count, self.alloc_count);
        assert_eq!(s.reset_count, self.reset_count);
        assert_eq!(s.failed_count, self.failed_count);
        assert!(self.pers_end <= self.top && self.top <= self.tensor_cap);
        assert!(self.tensor_cap + self.scratch_cap == self.usable);
        for b in &self.blocks {
            assert_eq!(b.data as usize % 16, 0, "data alignment");
            if !b.desc.is_null() {
                assert_eq!(b.desc as usize % 16, 0, "descriptor alignment");
                // SAFETY: the descriptor is live (the model tracks it), written by the arena.
                let d = unsafe { &*b.desc };
                assert_eq!(d.data as *mut u8, b.data);
                assert_eq!(d.shape, b.shape);
                assert_eq!(
                    (d.ndim, d.dtype, d.lifetime, d.reserved),
                    (b.ndim, b.dtype, b.lifetime, 0)
                );
                assert_eq!(d.size as usize, b.size);
            }
            let n = b.size.min(64);
            // SAFETY: the block's data is live and `size` bytes long.
            let data = unsafe { std::slice::from_raw_parts(b.data, b.size) };
            assert!(
                data[..n].iter().all(|&x| x == b.tag),
                "canary (head) overwritten"
            );
            assert!(
                data[b.size - n..].iter().all(|&x| x == b.tag),
                "canary (tail) overwritten"
            );
        }
    }

    fn fill(&mut self, mut b: Block) {
        self.next_tag = self.next_tag.wrapping_add(1);
        b.tag = self.next_tag;
        let n = b.size.min(64);
        // SAFETY: `data .. data + size` is the fresh block's data, exclusively ours.
        unsafe {
            ptr::write_bytes(b.data, b.tag, n);
            ptr::write_bytes(b.data.add(b.size - n), b.tag, n);
        }
        self.blocks.push(b);
    }
}

unsafe extern "C" fn sink(_buf: *const std::ffi::c_char, _len: usize, _ctx: *mut c_void) {}

fuzz_target!(|calls: Vec<Call>| {
    let mut m = Model::default();
    // SAFETY: single-threaded fuzz loop.
    unsafe {
        syn_mem_set_print_fn(Some(sink), ptr::null_mut());
        if EVER_INIT {
            assert_eq!(syn_mem_init_ex(arena_ptr(0).cast(), 8192, 1024), 0);
            m.init(arena_ptr(0), 8192, 1024);
        } else {
            m.last_error = syn_mem_last_error();
        }
    }
    for call in calls.iter().take(96) {
        match *call {
            Call::Init { null, offset, size }
            | Call::InitEx {
                null, offset, size, ..
            } => {
                let base = if null {
                    ptr::null_mut()
                } else {
                    arena_ptr(offset)
                };
                let len = size.get();
                // Only sizes the static buffer can back may succeed; larger ones must fail.
                let len = if len <= 524_288 { len } else { len | (1 << 40) };
                let scratch = match *call {
                    Call::InitEx { scratch, .. } => scratch.get(),
                    _ => SCRATCH_POOL_SIZE,
                };
                let expect = m.init(base, len, scratch);
                // SAFETY: any accepted region lies inside the static buffer (len <= 524288,
                // offset < 64, buffer 524352 bytes) and nothing else uses it.
                let r = unsafe {
                    match *call {
                        Call::Init { .. } => syn_mem_init(base.cast(), len),
                        _ => syn_mem_init_ex(base.cast(), len, scratch),
                    }
                };
                assert_eq!(r, expect, "init({base:?}, {len}, {scratch})");
                if r == 0 {
                    m.last_error = 0;
                    // SAFETY: single-threaded.
                    unsafe { EVER_INIT = true };
                }
            }
            Call::SharedInit { null, offset, size } => {
                let base = if null {
                    ptr::null_mut()
                } else {
                    shared_ptr(offset)
                };
                let len = size.get();
                let len = if len <= 64 * 1024 {
                    len
                } else {
                    len | (1 << 40)
                };
                let expect = if !m.init {
                    -ENODEV
                } else if m.shared_cap != 0 {
                    -EALREADY
                } else if base.is_null() {
                    -EINVAL
                } else {
                    let pad = (base as usize).wrapping_neg() & 15;
                    let cap = len.saturating_sub(pad) & !15;
                    if !(48..=1 << 30).contains(&cap) {
                        -EINVAL
                    } else {
                        m.shared_base = base as usize + pad;
                        m.shared_cap = cap;
                        m.shared_top = 0;
                        0
                    }
                };
                // SAFETY: an accepted region lies inside the static shared buffer.
                let r = unsafe { syn_mem_shared_init(base.cast(), len) };
                assert_eq!(r, expect, "shared_init({base:?}, {len})");
                if r != 0 {
                    m.last_error = r;
                }
            }
            Call::Alloc {
                null_shape,
                shape,
                ndim,
                dtype,
                lifetime,
                kind,
            } => {
                let dims: Vec<u32> = shape.iter().map(|d| d.get()).collect();
                // Mostly valid enum values, sometimes anything.
                let dtype = if kind & 1 == 0 { dtype % 8 } else { dtype };
                let lifetime = if kind & 2 == 0 {
                    lifetime % 3
                } else {
                    lifetime
                };
                let ndim = if kind & 4 == 0 { ndim % 5 } else { ndim };
                let sp = if null_shape {
                    ptr::null()
                } else {
                    dims.as_ptr()
                };
                let expect = m.alloc((!null_shape).then_some(&dims[..]), ndim, dtype, lifetime);
                // SAFETY: `sp` is NULL or points to 4 readable u32s (ndim > 4 is rejected
                // before the shape is read).
                let t = unsafe {
                    syn_mem_tensor_alloc(sp, ndim, RawDtype(dtype), RawLifetime(lifetime))
                };
                match expect {
                    Ok((addr, bytes)) => {
                        assert_eq!(t as usize, addr, "tensor address");
                        let mut padded = [1u32; 4];
                        padded[..ndim as usize].copy_from_slice(&dims[..ndim as usize]);
                        m.fill(Block {
                            desc: t,
                            data: (addr + DESC) as *mut u8,
                            size: bytes as usize,
                            lifetime: lifetime as u8,
                            shape: padded,
                            ndim,
                            dtype: dtype as u8,
                            tag: 0,
                        });
                    }
                    Err(e) => {
                        assert!(t.is_null(), "allocation should have failed with {e}");
                    }
                }
            }
            Call::Free { which } => {
                let t = if m.blocks.is_empty() {
                    ptr::null_mut()
                } else {
                    m.blocks[which as usize % m.blocks.len()].desc
                };
                syn_mem_tensor_free(t);
            }
            Call::Scratch { size } => {
                let size = size.get();
                let expect = m.scratch(size);
                let p = syn_mem_scratch_acquire(size);
                match expect {
                    Ok(a) => {
                        assert_eq!(p as usize, a, "scratch address");
                        m.fill(Block {
                            desc: ptr::null_mut(),
                            data: a as *mut u8,
                            size,
                            lifetime: 3,
                            shape: [0; 4],
                            ndim: 0,
                            dtype: 0,
                            tag: 0,
                        });
                    }
                    Err(_) => assert!(p.is_null()),
                }
            }
            Call::ScratchRelease { which } => {
                let p = m
                    .blocks
                    .iter()
                    .filter(|b| b.lifetime == 3)
                    .nth(which as usize % 4)
                    .map_or(ptr::null_mut(), |b| b.data);
                syn_mem_scratch_release(p.cast());
            }
            Call::Reset => {
                m.reset();
                syn_mem_reset_ephemeral();
            }
            Call::GetStats { null } => {
                if null {
                    // SAFETY: NULL is allowed and rejected.
                    let r = unsafe { syn_mem_get_stats(ptr::null_mut()) };
                    assert_eq!(r, -EINVAL);
                    m.last_error = -EINVAL;
                }
            }
            Call::Print => {
                syn_mem_print_stats();
                if !m.init {
                    m.last_error = -ENODEV;
                }
            }
            Call::LastError => {
                assert_eq!(syn_mem_last_error(), m.last_error);
            }
        }
        m.check();
        if !m.init {
            // `check` called get_stats, which records -ENODEV before init.
            m.last_error = -ENODEV;
        }
    }
});
