//! A measured prototype of the C API hot paths with the changes the benchmark analysis
//! proposes for `synaptic-mem` / `synaptic-mem-ffi` (which this firmware must not edit):
//!
//! 1. the hot path returns a pointer (NULL on failure) instead of a 16-byte
//!    `Result<NonNull<_>, AllocError>` through stack memory; every failure goes to one cold
//!    function that would classify it exactly (here: it only counts it);
//! 2. dtype and lifetime are checked with one unsigned compare each, ndim with one;
//! 3. the element count is three 32×32→64 multiplies with a high-word test each; a count that
//!    is zero or ≥ 2^28 leaves the fast path (so the byte size is 32-bit: `(n << log2(bits) +
//!    7) >> 3` from a 1-byte shift table, no 64-bit arithmetic);
//! 4. the descriptor is written as 7 words (ndim, dtype, lifetime, reserved packed in one);
//! 5. (variant `_pk`) the high-water marks are kept at allocation time (`if end > peak`), so
//!    the reset only moves two offsets and counts;
//! 6. the same `critical_section::with` as the C API (cortex-m single-core: mrs/cpsid, msr/isb).
//!
//! Two variants: `synfw_proto_alloc`/`synfw_proto_reset` keep the high-water marks in the reset
//! (as the core does now); `*_pk` keep them at allocation time (change 5).
//!
//! Same ABI and call structure as `syn_mem_tensor_alloc` / `syn_mem_reset_ephemeral`, so its
//! figures (printed as `# proposal` lines, not `bench` lines) compare directly with `bench c`.

use core::cell::Cell;
use core::ptr;

use critical_section::Mutex;

/// `syn_tensor_t` (28 bytes on 32-bit targets).
#[repr(C)]
pub struct Desc {
    data: *mut u8,
    shape: [u32; 4],
    /// ndim | dtype << 8 | lifetime << 16 (reserved byte 0).
    meta: u32,
    size: u32,
}

/// The arena offsets and counters (ephemeral and persistent only; shared would be a third
/// `(base, top, cap)` triple selected by the lifetime).
struct State {
    base: Cell<*mut u8>,
    top: Cell<u32>,
    pers_end: Cell<u32>,
    cap: Cell<u32>,
    scratch_top: Cell<u32>,
    alloc_count: Cell<u32>,
    failed_count: Cell<u32>,
    reset_count: Cell<u32>,
    arena_peak: Cell<u32>,
    ephemeral_peak: Cell<u32>,
    scratch_peak: Cell<u32>,
}

// SAFETY: the raw base pointer is only used inside the critical section, on one core.
unsafe impl Send for State {}

/// The prototype's global state, like the C API's.
static STATE: Mutex<State> = Mutex::new(State {
    base: Cell::new(ptr::null_mut()),
    top: Cell::new(0),
    pers_end: Cell::new(0),
    cap: Cell::new(0),
    scratch_top: Cell::new(0),
    alloc_count: Cell::new(0),
    failed_count: Cell::new(0),
    reset_count: Cell::new(0),
    arena_peak: Cell::new(0),
    ephemeral_peak: Cell::new(0),
    scratch_peak: Cell::new(0),
});

/// log2(bits per element) of each `syn_npu_dtype_t`.
static SHIFT: [u8; 8] = [3, 3, 4, 5, 4, 5, 4, 2];

/// Sets the prototype arena over `cap` bytes at `base` (16-byte aligned).
pub fn init(base: *mut u8, cap: u32) {
    critical_section::with(|cs| {
        let s = STATE.borrow(cs);
        s.base.set(base);
        s.cap.set(cap);
        s.top.set(0);
        s.pers_end.set(0);
        s.scratch_top.set(0);
    });
}

/// The cold path: the real change would classify exactly (the existing code) and set the errno.
#[cold]
#[inline(never)]
fn fail() -> *mut Desc {
    critical_section::with(|cs| {
        let s = STATE.borrow(cs);
        s.failed_count.set(s.failed_count.get() + 1);
    });
    ptr::null_mut()
}

/// The proposed `syn_mem_tensor_alloc` hot path (ephemeral and persistent lifetimes), with
/// the high-water marks kept by the reset (as now).
///
/// # Safety
/// `shape` must point to `ndim` readable dimensions; the arena memory set by [`init`] must be
/// exclusively the prototype's.
#[no_mangle]
#[inline(never)]
pub unsafe extern "C" fn synfw_proto_alloc(
    shape: *const u32,
    ndim: u8,
    dtype: u32,
    lifetime: u32,
) -> *mut Desc {
    // SAFETY: forwarded contract.
    unsafe { alloc::<false>(shape, ndim, dtype, lifetime) }
}

/// The same with the high-water marks kept at allocation time (so the reset need not).
///
/// # Safety
/// As for [`synfw_proto_alloc`].
#[no_mangle]
#[inline(never)]
pub unsafe extern "C" fn synfw_proto_alloc_pk(
    shape: *const u32,
    ndim: u8,
    dtype: u32,
    lifetime: u32,
) -> *mut Desc {
    // SAFETY: forwarded contract.
    unsafe { alloc::<true>(shape, ndim, dtype, lifetime) }
}

/// The allocation; `PEAKS_AT_ALLOC` selects where the high-water marks are kept.
///
/// # Safety
/// As for [`synfw_proto_alloc`].
#[inline(always)]
unsafe fn alloc<const PEAKS_AT_ALLOC: bool>(
    shape: *const u32,
    ndim: u8,
    dtype: u32,
    lifetime: u32,
) -> *mut Desc {
    if dtype > 7 || lifetime > 1 || shape.is_null() || ndim.wrapping_sub(1) > 3 {
        return fail();
    }
    let n = ndim as usize;
    // SAFETY: `shape` has `ndim` (1..=4) readable dimensions; only those are read.
    let d = unsafe {
        [
            *shape,
            if n > 1 { *shape.add(1) } else { 1 },
            if n > 2 { *shape.add(2) } else { 1 },
            if n > 3 { *shape.add(3) } else { 1 },
        ]
    };
    let e = d[0] as u64 * d[1] as u64;
    if e >> 32 != 0 {
        return fail();
    }
    let e = (e as u32) as u64 * d[2] as u64;
    if e >> 32 != 0 {
        return fail();
    }
    let e = (e as u32) as u64 * d[3] as u64;
    let count = e as u32;
    if e >> 28 != 0 || count == 0 {
        return fail();
    }
    let bytes = ((count << SHIFT[dtype as usize]) + 7) >> 3;
    let needed = ((bytes + 15) & !15) + synaptic_mem::DESC_SPAN as u32;
    let desc = critical_section::with(|cs| {
        let s = STATE.borrow(cs);
        let start = s.top.get();
        if lifetime == 0 && (start != s.pers_end.get() || s.scratch_top.get() != 0) {
            return ptr::null_mut();
        }
        let end = start + needed;
        if end > s.cap.get() {
            return ptr::null_mut();
        }
        s.top.set(end);
        if lifetime == 0 {
            s.pers_end.set(end);
        }
        if PEAKS_AT_ALLOC {
            if end > s.arena_peak.get() {
                s.arena_peak.set(end);
            }
            let eph = end - s.pers_end.get();
            if eph > s.ephemeral_peak.get() {
                s.ephemeral_peak.set(eph);
            }
        }
        s.alloc_count.set(s.alloc_count.get() + 1);
        s.base.get().wrapping_add(start as usize).cast::<Desc>()
    });
    if desc.is_null() {
        return fail();
    }
    // SAFETY: `start .. start + needed` lies inside the arena and was free (bump above the old
    // offset); `start` is a multiple of 16 and the base 16-byte aligned. Written outside the
    // critical section: the block is already this call's alone.
    unsafe {
        desc.write(Desc {
            data: desc.cast::<u8>().add(32),
            shape: d,
            meta: ndim as u32 | dtype << 8 | lifetime << 16,
            size: bytes,
        });
    }
    desc
}

/// The proposed `syn_mem_reset_ephemeral` with the high-water marks kept here (as now).
#[no_mangle]
#[inline(never)]
pub extern "C" fn synfw_proto_reset() {
    critical_section::with(|cs| {
        let s = STATE.borrow(cs);
        let (top, pers_end) = (s.top.get(), s.pers_end.get());
        s.arena_peak.set(s.arena_peak.get().max(top));
        s.ephemeral_peak
            .set(s.ephemeral_peak.get().max(top - pers_end));
        s.scratch_peak
            .set(s.scratch_peak.get().max(s.scratch_top.get()));
        s.top.set(pers_end);
        s.scratch_top.set(0);
        s.reset_count.set(s.reset_count.get() + 1);
    });
}

/// The proposed `syn_mem_reset_ephemeral` when allocations keep the high-water marks: O(1)
/// stores only.
#[no_mangle]
#[inline(never)]
pub extern "C" fn synfw_proto_reset_pk() {
    critical_section::with(|cs| {
        let s = STATE.borrow(cs);
        s.top.set(s.pers_end.get());
        s.scratch_top.set(0);
        s.reset_count.set(s.reset_count.get() + 1);
    });
}
