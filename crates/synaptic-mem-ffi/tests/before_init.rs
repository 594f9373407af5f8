//! Every call before `syn_mem_init` fails cleanly (own process: the arena is global).

use core::ffi::c_void;
use synaptic_mem_ffi::errno::{EINVAL, ENODEV};
use synaptic_mem_ffi::*;

#[test]
fn every_call_before_init_fails_cleanly() {
    let shape = [4u32, 4];
    let dt = RawDtype(SynNpuDtype::SYN_NPU_DTYPE_INT8 as u32);
    for lt in [
        SynMemLifetime::SYN_MEM_PERSISTENT,
        SynMemLifetime::SYN_MEM_EPHEMERAL,
        SynMemLifetime::SYN_MEM_SHARED,
    ] {
        // SAFETY: `shape` holds 2 elements.
        let t = unsafe { syn_mem_tensor_alloc(shape.as_ptr(), 2, dt, lt.into()) };
        assert!(t.is_null());
        assert_eq!(syn_mem_last_error(), -ENODEV);
    }
    // Bad arguments before init: still -ENODEV (not initialised wins).
    // SAFETY: ndim 9 is rejected before `shape` is read.
    let t = unsafe { syn_mem_tensor_alloc(shape.as_ptr(), 9, RawDtype(99), RawLifetime(1)) };
    assert!(t.is_null());
    assert_eq!(syn_mem_last_error(), -ENODEV);
    assert!(syn_mem_scratch_acquire(64).is_null());
    assert_eq!(syn_mem_last_error(), -ENODEV);
    let mut st = SynMemStats::default();
    // SAFETY: `st` is writable.
    assert_eq!(unsafe { syn_mem_get_stats(&mut st) }, -ENODEV);
    assert_eq!(st, SynMemStats::default());
    // SAFETY: NULL is allowed.
    assert_eq!(unsafe { syn_mem_get_stats(core::ptr::null_mut()) }, -EINVAL);
    let mut io = [0u8; 256];
    // SAFETY: `io` outlives the call (it fails anyway).
    let r = unsafe { syn_mem_shared_init(io.as_mut_ptr().cast::<c_void>(), io.len()) };
    assert_eq!(r, -ENODEV);
    // Reset before init has no effect: it neither fails nor touches the last error (still the
    // -ENODEV of the call above).
    syn_mem_reset_ephemeral();
    assert_eq!(syn_mem_last_error(), -ENODEV);
    syn_mem_print_stats(); // prints nothing
    assert_eq!(syn_mem_last_error(), -ENODEV);
    syn_mem_tensor_free(core::ptr::null_mut());
    syn_mem_scratch_release(core::ptr::null_mut());
}
