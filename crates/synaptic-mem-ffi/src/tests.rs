//! Unit tests of the Rust-visible behaviour of the C entry points. The arena is global, so the
//! tests serialise on `LOCK` and each starts with a fresh `syn_mem_init`.

use std::boxed::Box;
use std::format;
use std::string::String;
use std::sync::Mutex;
use std::vec::Vec;

use core::ffi::{c_char, c_void};

use synaptic_mem::{DType, Lifetime, RawArena};

use crate::errno::{EALREADY, EBUSY, EINVAL, ENODEV, ENOMEM, EOVERFLOW};
use crate::*;

static LOCK: Mutex<()> = Mutex::new(());

#[repr(C, align(16))]
struct Buf<const N: usize>([u8; N]);

/// A leaked, 16-byte aligned, zeroed buffer of `N` bytes (valid for the rest of the process).
fn leak<const N: usize>() -> *mut u8 {
    Box::leak(Box::new(Buf::<N>([0; N]))).0.as_mut_ptr()
}

fn stats() -> SynMemStats {
    let mut s = SynMemStats::default();
    // SAFETY: `s` is writable.
    assert_eq!(unsafe { syn_mem_get_stats(&mut s) }, 0);
    s
}

fn alloc(shape: &[u32], dtype: u32, lifetime: u32) -> *mut SynTensor {
    // SAFETY: `shape` holds `shape.len()` elements.
    unsafe {
        syn_mem_tensor_alloc(
            shape.as_ptr(),
            shape.len() as u8,
            RawDtype(dtype),
            RawLifetime(lifetime),
        )
    }
}

const I8: u32 = SynNpuDtype::SYN_NPU_DTYPE_INT8 as u32;
const F32: u32 = SynNpuDtype::SYN_NPU_DTYPE_FLOAT32 as u32;
const PERS: u32 = SynMemLifetime::SYN_MEM_PERSISTENT as u32;
const EPH: u32 = SynMemLifetime::SYN_MEM_EPHEMERAL as u32;
const SHARED: u32 = SynMemLifetime::SYN_MEM_SHARED as u32;

/// Locks, and initialises an 8 KB arena with a 1 KB scratch pool; returns its base.
fn setup() -> (std::sync::MutexGuard<'static, ()>, *mut u8) {
    let g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let base = leak::<8192>();
    // SAFETY: the leaked buffer is valid and unused for the rest of the process.
    assert_eq!(unsafe { syn_mem_init_ex(base.cast(), 8192, 1024) }, 0);
    // SAFETY: NULL restores the default printer.
    unsafe { syn_mem_set_print_fn(None, core::ptr::null_mut()) };
    (g, base)
}

fn off(base: *mut u8, p: *const c_void) -> usize {
    p as usize - base as usize
}

#[test]
fn descriptor_layout_matches_core() {
    let mut buf = synaptic_mem::ArenaBuffer::<8192>::new();
    let arena = RawArena::new(buf.as_mut_slice(), 1024).unwrap();
    for (i, dt) in DType::ALL.into_iter().enumerate() {
        let d = arena
            .alloc(&[2, 3, 5], dt, Lifetime::Ephemeral)
            .unwrap()
            .as_ptr();
        // SAFETY: `d` is a live descriptor written by the core; SynTensor has its layout.
        let (core, c) = unsafe { (&*d, &*d.cast::<SynTensor>()) };
        assert_eq!(c.data.cast::<u8>(), core.data_ptr());
        assert_eq!(c.shape, core.dims());
        assert_eq!(c.ndim, core.ndim());
        assert_eq!(c.dtype, i as u8);
        assert_eq!(c.dtype, core.dtype() as u8);
        assert_eq!(c.lifetime, core.lifetime() as u8);
        assert_eq!(c.reserved, 0);
        assert_eq!(c.size as usize, core.size());
    }
}

#[test]
fn raw_enum_values_are_checked() {
    assert_eq!(RawDtype(7).get(), Some(DType::Int4));
    assert_eq!(RawDtype(8).get(), None);
    assert_eq!(RawDtype(99).get(), None);
    assert_eq!(RawDtype(256).get(), None);
    assert_eq!(RawLifetime(2).get(), Some(Lifetime::Shared));
    assert_eq!(RawLifetime(3).get(), None);
    assert_eq!(RawLifetime(u32::MAX).get(), None);
}

#[test]
fn defaults_give_112k_tensor_space() {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    assert_eq!(config::TENSOR_ARENA_SIZE, 131_072);
    assert_eq!(config::SCRATCH_POOL_SIZE, 16_384);
    let base = leak::<131072>();
    // SAFETY: leaked buffer.
    assert_eq!(unsafe { syn_mem_init(base.cast(), 131_072) }, 0);
    let s = stats();
    assert_eq!(s.arena_size, 131_072);
    assert_eq!(s.usable_size, 131_072);
    assert_eq!(s.tensor_capacity, 114_688);
    assert_eq!(s.scratch_size, 16_384);
    assert_eq!(syn_mem_last_error(), 0);
}

#[test]
fn alloc_layout_and_stats() {
    let (_g, base) = setup();
    let w = alloc(&[4, 4], I8, PERS);
    assert!(!w.is_null());
    assert_eq!(off(base, w.cast()), 0);
    // SAFETY: `w` is a live descriptor.
    let wd = unsafe { &*w };
    assert_eq!(off(base, wd.data), 32);
    assert_eq!((wd.shape, wd.ndim, wd.size), ([4, 4, 1, 1], 2, 16));
    let a = alloc(&[3], F32, EPH);
    assert_eq!(off(base, a.cast()), 48);
    // SAFETY: live descriptor.
    assert_eq!(off(base, unsafe { (*a).data }), 80);
    let sc = syn_mem_scratch_acquire(100);
    assert_eq!(off(base, sc), 8192 - 1024);
    let s = stats();
    assert_eq!(s.persistent_used, 48);
    assert_eq!(s.ephemeral_used, 48);
    assert_eq!(s.scratch_used, 112);
    assert_eq!((s.alloc_count, s.reset_count, s.failed_count), (3, 0, 0));
    syn_mem_reset_ephemeral();
    let s = stats();
    assert_eq!(
        (s.persistent_used, s.ephemeral_used, s.scratch_used),
        (48, 0, 0)
    );
    assert_eq!((s.arena_peak, s.scratch_peak, s.reset_count), (96, 112, 1));
    // The next ephemeral tensor reuses the reclaimed space.
    assert_eq!(off(base, alloc(&[1], I8, EPH).cast()), 48);
}

fn expect_fail(f: impl FnOnce() -> bool, err: i32) {
    let before = stats();
    assert!(f(), "call should fail");
    assert_eq!(syn_mem_last_error(), -err);
    let after = stats();
    assert_eq!(
        after,
        SynMemStats {
            failed_count: before.failed_count + 1,
            ..before
        }
    );
}

#[test]
fn bad_inputs_return_documented_errors_and_change_nothing_else() {
    let (_g, _base) = setup();
    let keep = alloc(&[16], I8, PERS);
    // SAFETY: live descriptor with 16 data bytes.
    let data = unsafe { core::slice::from_raw_parts_mut((*keep).data.cast::<u8>(), 16) };
    data.fill(0xA5);
    let shape = [2u32, 2];
    expect_fail(|| alloc(&shape, 99, EPH).is_null(), EINVAL);
    expect_fail(|| alloc(&shape, 8, EPH).is_null(), EINVAL);
    expect_fail(|| alloc(&shape, I8, 3).is_null(), EINVAL);
    expect_fail(|| alloc(&shape, I8, 99).is_null(), EINVAL);
    expect_fail(|| alloc(&[], I8, EPH).is_null(), EINVAL);
    expect_fail(|| alloc(&[1, 1, 1, 1, 1], I8, EPH).is_null(), EINVAL);
    let null_shape = || {
        // SAFETY: a NULL shape is rejected before it is read.
        let t =
            unsafe { syn_mem_tensor_alloc(core::ptr::null(), 2, RawDtype(I8), RawLifetime(EPH)) };
        t.is_null()
    };
    expect_fail(null_shape, EINVAL);
    expect_fail(|| alloc(&[4, 0], I8, EPH).is_null(), EINVAL);
    expect_fail(|| alloc(&[65536, 65536], I8, EPH).is_null(), EOVERFLOW);
    expect_fail(|| alloc(&[1 << 30], F32, EPH).is_null(), EOVERFLOW);
    expect_fail(|| alloc(&[8192], I8, EPH).is_null(), ENOMEM);
    expect_fail(|| syn_mem_scratch_acquire(0).is_null(), EINVAL);
    expect_fail(|| syn_mem_scratch_acquire(1025).is_null(), ENOMEM);
    expect_fail(|| alloc(&shape, I8, SHARED).is_null(), ENODEV);
    assert!(!alloc(&[1], I8, EPH).is_null());
    expect_fail(|| alloc(&shape, I8, PERS).is_null(), EBUSY);
    assert!(data.iter().all(|&b| b == 0xA5));
}

#[test]
fn init_errors_change_nothing() {
    let (_g, base) = setup();
    assert!(!alloc(&[8], I8, PERS).is_null());
    let before = stats();
    let other = leak::<8192>();
    // SAFETY: refused arguments; nothing is touched.
    unsafe {
        assert_eq!(syn_mem_init(core::ptr::null_mut(), 8192), -EINVAL);
        assert_eq!(syn_mem_init(other.cast(), 4095), -EINVAL);
        assert_eq!(syn_mem_init(other.cast(), 524_289), -EINVAL);
        // default scratch pool (16 KB) does not fit an 8 KB arena
        assert_eq!(syn_mem_init(other.cast(), 8192), -EINVAL);
        assert_eq!(syn_mem_init_ex(other.cast(), 8192, 1023), -EINVAL);
        assert_eq!(syn_mem_init_ex(other.cast(), 8192, 65_537), -EINVAL);
        assert_eq!(syn_mem_init_ex(other.cast(), 8192, 8192), -EINVAL);
    }
    assert_eq!(syn_mem_last_error(), -EINVAL);
    assert_eq!(stats(), before);
    assert_eq!(off(base, alloc(&[1], I8, EPH).cast()), 48);
}

#[test]
fn unaligned_base_is_aligned_up() {
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let base = leak::<8192>();
    // SAFETY: inside the leaked buffer.
    let r = unsafe { syn_mem_init_ex(base.add(3).cast(), 8189, 1024) };
    assert_eq!(r, 0);
    let s = stats();
    assert_eq!(s.usable_size, 8176);
    assert_eq!(s.tensor_capacity, 8176 - 1024);
    let t = alloc(&[1], I8, EPH);
    assert_eq!(off(base, t.cast()), 16);
}

#[test]
fn shared_region_and_reinit() {
    let (_g, _base) = setup();
    let io = leak::<1024>();
    // SAFETY: leaked buffers.
    unsafe {
        assert_eq!(syn_mem_shared_init(core::ptr::null_mut(), 1024), -EINVAL);
        assert_eq!(syn_mem_shared_init(io.cast(), 47), -EINVAL);
        assert_eq!(syn_mem_shared_init(io.cast(), 1024), 0);
        assert_eq!(syn_mem_shared_init(io.cast(), 1024), -EALREADY);
    }
    let t = alloc(&[4], F32, SHARED);
    assert_eq!(t.cast::<u8>(), io);
    assert_eq!(stats().shared_used, 48);
    syn_mem_reset_ephemeral();
    assert_eq!(stats().shared_used, 48);
    assert!(!alloc(&[4], I8, PERS).is_null());
    // Re-init drops persistent tensors, statistics, the last error and the shared region.
    let base = leak::<8192>();
    // SAFETY: leaked buffer.
    assert_eq!(unsafe { syn_mem_init_ex(base.cast(), 8192, 1024) }, 0);
    assert_eq!(syn_mem_last_error(), 0);
    let s = stats();
    assert_eq!((s.persistent_used, s.shared_size, s.alloc_count), (0, 0, 0));
    assert!(alloc(&[4], F32, SHARED).is_null());
    assert_eq!(syn_mem_last_error(), -ENODEV);
    // SAFETY: leaked buffer.
    assert_eq!(unsafe { syn_mem_shared_init(io.cast(), 1024) }, 0);
}

unsafe extern "C" fn capture(buf: *const c_char, len: usize, ctx: *mut c_void) {
    // SAFETY: `ctx` is the `Vec<u8>` registered by the test; `buf` holds `len` bytes.
    unsafe {
        let out = &mut *ctx.cast::<Vec<u8>>();
        out.extend_from_slice(core::slice::from_raw_parts(buf.cast::<u8>(), len));
    }
}

#[test]
fn print_stats_is_the_core_display() {
    let (_g, base) = setup();
    assert!(!alloc(&[100], I8, PERS).is_null());
    assert!(!alloc(&[7, 7], F32, EPH).is_null());
    assert!(!syn_mem_scratch_acquire(300).is_null());
    let _ = alloc(&[0], I8, EPH);
    let mut out: Vec<u8> = Vec::new();
    // SAFETY: `capture` writes to `out`, which outlives its registration (reset below).
    unsafe { syn_mem_set_print_fn(Some(capture), (&mut out as *mut Vec<u8>).cast()) };
    syn_mem_print_stats();
    // SAFETY: NULL restores the default.
    unsafe { syn_mem_set_print_fn(None, core::ptr::null_mut()) };
    // The same state through the core directly:
    let mut buf = synaptic_mem::ArenaBuffer::<8192>::new();
    let arena = RawArena::new(buf.as_mut_slice(), 1024).unwrap();
    arena
        .alloc(&[100], DType::Int8, Lifetime::Persistent)
        .unwrap();
    arena
        .alloc(&[7, 7], DType::Float32, Lifetime::Ephemeral)
        .unwrap();
    arena.scratch_acquire(300).unwrap();
    let _ = arena.alloc(&[0], DType::Int8, Lifetime::Ephemeral);
    let expected = format!("{}", arena.stats());
    assert_eq!(String::from_utf8(out).unwrap(), expected);
    assert!(expected.contains("allocs 3  resets 0  failed 1"));
    let _ = base;
}

#[test]
fn committed_header_is_fresh() {
    if !config::IS_DEFAULT {
        return; // the committed header carries the default Kconfig values
    }
    let fresh = include_str!(env!("SYN_MEM_GENERATED_HEADER"));
    let committed = include_str!("../include/synaptic/syn_mem.h");
    assert!(
        fresh == committed,
        "include/synaptic/syn_mem.h is stale: run scripts/test-ffi.sh --update-header"
    );
}
