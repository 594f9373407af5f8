//! The `extern "C"` entry points and the global state: the crate's only `unsafe` code.
//!
//! State: one [`RawArena<'static>`], the last error and the print callback, in one
//! `critical_section::Mutex`. Every entry point takes the critical section once, for a few
//! dozen instructions at most; the print callback runs outside it.

use core::cell::Cell;
use core::ffi::{c_char, c_int, c_void};
use core::ptr::{self, NonNull};

use critical_section::Mutex;
use synaptic_mem::plan::{PlanSlot, SlotType};
use synaptic_mem::{
    ErrorKind, Plan, PlanLoadError, PlanRun, RawArena, Region, Stats, TensorRequest,
};

use crate::config::SCRATCH_POOL_SIZE;
use crate::errno::{self, EALREADY, EINVAL, ENODEV};
use crate::print::render;
use crate::types::{
    PlanState, RawDtype, RawLifetime, SynMemPlan, SynMemPrintFn, SynMemStats, SynTensor,
};

/// Where `syn_mem_print_stats` writes: the registered callback and its context.
#[derive(Clone, Copy)]
struct Sink {
    f: SynMemPrintFn,
    ctx: *mut c_void,
}

// SAFETY: `ctx` is an opaque value the application registered; this crate never dereferences
// it, only hands it back to the application's callback (from whichever thread prints, as the
// header documents).
unsafe impl Send for Sink {}

struct State {
    arena: RawArena<'static>,
    last_error: Cell<c_int>,
    sink: Cell<Sink>,
}

static STATE: Mutex<State> = Mutex::new(State {
    arena: RawArena::UNINIT,
    last_error: Cell::new(0),
    sink: Cell::new(Sink {
        f: None,
        ctx: ptr::null_mut(),
    }),
});

/// Runs `f` on the state inside the critical section.
#[inline(always)]
fn with<R>(f: impl FnOnce(&State) -> R) -> R {
    critical_section::with(|cs| f(STATE.borrow(cs)))
}

/// Initialises (or re-initialises) the global arena over `arena_size` bytes at `arena_base`,
/// with the configured scratch pool (SYN_MEM_SCRATCH_POOL_SIZE) at its top.
///
/// An unaligned base is aligned up to 16 and the lost bytes reported in usable_size.
/// Re-initialising drops every tensor (persistent ones included: this is how persistent memory
/// is reclaimed), every statistic, the last error and the shared-region registration (call
/// syn_mem_shared_init() again). On failure nothing changes.
///
/// Returns 0, or -EINVAL: NULL base, arena_size outside 4096..524288 or not larger than the
/// scratch pool, or no tensor space left after aligning the base.
///
/// # Safety
/// `arena_base .. arena_base + arena_size` must be readable and writable and used by nothing
/// else until the next successful syn_mem_init/syn_mem_init_ex.
#[no_mangle]
pub unsafe extern "C" fn syn_mem_init(arena_base: *mut c_void, arena_size: usize) -> c_int {
    // SAFETY: forwarded contract (same as `syn_mem_init_ex`).
    unsafe { syn_mem_init_ex(arena_base, arena_size, SCRATCH_POOL_SIZE) }
}

/// Resets the ephemeral region and the scratch pool in O(1), between inference jobs, and counts
/// a reset. Persistent and shared tensors survive. Before syn_mem_init() it has no effect (the
/// uninitialised arena has nothing to reclaim, and syn_mem_init() starts every count at 0).
#[no_mangle]
pub extern "C" fn syn_mem_reset_ephemeral() {
    with(|s| s.arena.reset_ephemeral())
}

/// Allocates a tensor of `ndim` dimensions (`shape[0..ndim]`, 1..4 of them; only those are
/// read) and type `dtype` in the region of `lifetime`. The descriptor sits at a 16-byte aligned
/// offset and `data` at the next 16-byte boundary after it; `size` = bytes of data.
///
/// Returns the descriptor, or NULL with syn_mem_last_error() set to: -EINVAL (NULL shape, ndim
/// 0 or > 4, a zero dimension, unknown dtype or lifetime value), -EOVERFLOW (size overflows),
/// -ENOMEM (does not fit), -EBUSY (SYN_MEM_PERSISTENT while ephemeral tensors or scratch are
/// live), -ENODEV (not initialised, or SYN_MEM_SHARED without a shared region). A failure
/// changes nothing but the failed_count statistic.
///
/// # Safety
/// `shape` must point to `ndim` readable `uint32_t`s (when `ndim` is 1..4).
#[no_mangle]
pub unsafe extern "C" fn syn_mem_tensor_alloc(
    shape: *const u32,
    ndim: u8,
    dtype: RawDtype,
    lifetime: RawLifetime,
) -> *mut SynTensor {
    let (Some(dt), Some(lt)) = (dtype.get(), lifetime.get()) else {
        return reject_alloc(dtype, lifetime);
    };
    if ndim > 4 || shape.is_null() {
        return reject_alloc(dtype, lifetime);
    }
    // SAFETY: `shape` is non-null and, by the caller's contract, points to `ndim` (at most 4,
    // checked above) readable `u32`s that stay unchanged during the call.
    let dims = unsafe { core::slice::from_raw_parts(shape, ndim as usize) };
    // Validation and sizing touch no shared state: done before the critical section, which
    // then covers only the bump and the descriptor write.
    let req = match TensorRequest::new(dims, dt) {
        Ok(req) => req,
        Err(kind) => return reject_kind(kind, lt.region()),
    };
    // The core calls `record_failure` from its own out-of-line failure path, so the inline
    // success path carries one pointer and no error value.
    with(|s| {
        match s
            .arena
            .alloc_request_or_else(req, lt, |e| record_failure(s, e.kind))
        {
            Ok(desc) => desc.as_ptr().cast(),
            Err(()) => ptr::null_mut(),
        }
    })
}

/// The failure path after the core refused: records its errno (the C API's one error record;
/// the core keeps none).
#[inline(always)]
fn record_failure(s: &State, kind: ErrorKind) {
    s.last_error.set(errno::from_kind(kind));
}

/// [`record_failure`] out of line, returning NULL: for paths whose core call returns the error.
#[cold]
#[inline(never)]
fn record_failure_null<T>(s: &State, kind: ErrorKind) -> *mut T {
    record_failure(s, kind);
    ptr::null_mut()
}

/// The failure path of `syn_mem_tensor_alloc` for arguments the core never sees: counts the
/// failure, records the errno, returns NULL.
#[cold]
#[inline(never)]
fn reject_alloc(dtype: RawDtype, lifetime: RawLifetime) -> *mut SynTensor {
    let (kind, region) = match (lifetime.get(), dtype.get()) {
        (None, _) => (ErrorKind::InvalidLifetime, Region::Ephemeral),
        (Some(l), None) => (ErrorKind::InvalidDtype, l.region()),
        (Some(l), Some(_)) => (ErrorKind::InvalidArgument, l.region()),
    };
    reject_kind(kind, region)
}

/// Counts a failure found before the arena was consulted and records its errno; NULL.
#[cold]
#[inline(never)]
fn reject_kind(kind: ErrorKind, region: Region) -> *mut SynTensor {
    reject_errno(kind, region);
    ptr::null_mut()
}

/// Counts a failure found before (or beside) the arena and records its errno (-ENODEV before
/// init); returns it.
#[cold]
#[inline(never)]
fn reject_errno(kind: ErrorKind, region: Region) -> c_int {
    with(|s| {
        let err = errno::from_kind(s.arena.reject(kind, region).kind);
        s.last_error.set(err);
        err
    })
}

/// Frees one tensor: a deliberate no-op. A bump allocator never reclaims single tensors;
/// ephemeral memory comes back with syn_mem_reset_ephemeral(), persistent with syn_mem_init().
#[no_mangle]
pub extern "C" fn syn_mem_tensor_free(tensor: *mut SynTensor) {
    let _ = tensor;
}

/// Takes `size` bytes (rounded up to 16, 16-byte aligned) from the scratch pool, until the next
/// syn_mem_reset_ephemeral(). Returns NULL with syn_mem_last_error() set to -EINVAL (size 0),
/// -ENOMEM (larger than the pool, or than what is left of it) or -ENODEV (not initialised).
#[no_mangle]
pub extern "C" fn syn_mem_scratch_acquire(size: usize) -> *mut c_void {
    with(|s| match s.arena.scratch_acquire(size) {
        Ok(p) => p.as_ptr().cast(),
        Err(e) => {
            s.last_error.set(errno::from_kind(e.kind));
            ptr::null_mut()
        }
    })
}

/// Releases one scratch buffer: a deliberate no-op (the pool is reclaimed wholesale by
/// syn_mem_reset_ephemeral()).
#[no_mangle]
pub extern "C" fn syn_mem_scratch_release(ptr: *mut c_void) {
    let _ = ptr;
}

/// Copies the current statistics to `*stats`. Returns 0, -EINVAL (NULL `stats`) or -ENODEV
/// (not initialised; `*stats` untouched).
///
/// # Safety
/// `stats` must be NULL or point to a writable syn_mem_stats_t.
#[no_mangle]
pub unsafe extern "C" fn syn_mem_get_stats(stats: *mut SynMemStats) -> c_int {
    let Some(out) = NonNull::new(stats) else {
        return record(-EINVAL);
    };
    match snapshot() {
        Some(s) => {
            // SAFETY: `out` is non-null and, by the caller's contract, writable and aligned.
            unsafe { out.as_ptr().write(SynMemStats::from(s)) };
            0
        }
        None => -ENODEV,
    }
}

/// The statistics, or `None` (with -ENODEV recorded) before init.
fn snapshot() -> Option<Stats> {
    with(|s| {
        if s.arena.is_initialized() {
            Some(s.arena.stats())
        } else {
            s.last_error.set(-ENODEV);
            None
        }
    })
}

/// Records `err` as the last error and returns it.
fn record(err: c_int) -> c_int {
    with(|s| s.last_error.set(err));
    err
}

/// Prints the `syn mem stats` table (the same text as the Rust core's `Stats` Display) through
/// the callback set with syn_mem_set_print_fn(); without one, to the C library's stdout on
/// hosted builds, nowhere on bare-metal builds. Before syn_mem_init() it prints nothing and
/// records -ENODEV. The callback runs outside the critical section.
#[no_mangle]
pub extern "C" fn syn_mem_print_stats() {
    let Some((stats, sink)) = with(|s| {
        if s.arena.is_initialized() {
            Some((s.arena.stats(), s.sink.get()))
        } else {
            s.last_error.set(-ENODEV);
            None
        }
    }) else {
        return;
    };
    match sink.f {
        Some(f) => render(&stats, |chunk| {
            // SAFETY: `f` is the application's callback, registered with this `ctx`; `chunk` is
            // valid for `chunk.len()` bytes during the call.
            unsafe { f(chunk.as_ptr().cast::<c_char>(), chunk.len(), sink.ctx) }
        }),
        None => default_print(&stats),
    }
}

#[cfg(feature = "std")]
fn default_print(stats: &Stats) {
    extern "C" {
        fn printf(format: *const c_char, ...) -> c_int;
    }
    render(stats, |chunk| {
        // SAFETY: "%.*s" reads exactly `chunk.len()` (≤ 128, fits an int) bytes from the valid
        // `chunk`; C's printf keeps the output ordered with the application's own stdout use.
        unsafe {
            printf(
                c"%.*s".as_ptr(),
                chunk.len() as c_int,
                chunk.as_ptr().cast::<c_char>(),
            );
        }
    });
}

#[cfg(not(feature = "std"))]
fn default_print(_stats: &Stats) {}

/// EXTENSION. Sets where syn_mem_print_stats() writes: `fn(buf, len, ctx)` is called with the
/// text in one or more pieces (not NUL-terminated) and `ctx`. NULL restores the default
/// (stdout on hosted builds, nothing on bare metal). May be called before syn_mem_init(); it
/// survives re-initialisation.
///
/// # Safety
/// `fn` must be safe to call with `ctx` from any thread or context that calls
/// syn_mem_print_stats(), for as long as it stays registered.
#[no_mangle]
pub unsafe extern "C" fn syn_mem_set_print_fn(r#fn: SynMemPrintFn, ctx: *mut c_void) {
    with(|s| s.sink.set(Sink { f: r#fn, ctx }))
}

/// EXTENSION. syn_mem_init() with an explicit scratch pool size (1024..65536, below
/// `arena_size`) instead of SYN_MEM_SCRATCH_POOL_SIZE. Returns 0 or -EINVAL (NULL base, a size
/// out of range, or no tensor space left after aligning the base); on failure nothing changes.
///
/// # Safety
/// As for syn_mem_init().
#[no_mangle]
pub unsafe extern "C" fn syn_mem_init_ex(
    arena_base: *mut c_void,
    arena_size: usize,
    scratch_size: usize,
) -> c_int {
    with(|s| {
        // SAFETY: the caller guarantees the region is valid and exclusive until the next
        // successful init, which replaces it; `init` changes nothing on failure.
        match unsafe { s.arena.init(arena_base.cast(), arena_size, scratch_size) } {
            Ok(()) => {
                s.last_error.set(0);
                0
            }
            Err(e) => {
                let err = errno::from_config(e);
                s.last_error.set(err);
                err
            }
        }
    })
}

/// EXTENSION. Registers `size` bytes at `base` as the shared (IPC) region that SYN_MEM_SHARED
/// tensors are bump-allocated from (aligned like the arena; 48 bytes to 1 GiB after aligning).
/// It survives syn_mem_reset_ephemeral() and is dropped by syn_mem_init().
///
/// Returns 0, -ENODEV (not initialised), -EALREADY (a region is already registered since the
/// last syn_mem_init()) or -EINVAL (NULL base, size out of range, or a region sharing any byte
/// with the arena's buffer).
///
/// # Safety
/// `base .. base + size` must be readable and writable and used by nothing else (but the
/// tensors handed out) until the next successful syn_mem_init/syn_mem_init_ex.
#[no_mangle]
pub unsafe extern "C" fn syn_mem_shared_init(base: *mut c_void, size: usize) -> c_int {
    with(|s| {
        let res = if !s.arena.is_initialized() {
            Err(-ENODEV)
        } else if s.arena.has_shared() {
            Err(-EALREADY)
        } else {
            // SAFETY: the caller guarantees the region is valid and exclusive until the next
            // init, which drops the registration; `set_shared_raw` changes nothing on failure.
            unsafe { s.arena.set_shared_raw(base.cast(), size) }.map_err(errno::from_config)
        };
        match res {
            Ok(()) => 0,
            Err(err) => {
                s.last_error.set(err);
                err
            }
        }
    })
}

/// EXTENSION. The negative errno of the most recent failed syn_mem_* call (0 if none since the
/// last successful syn_mem_init()). Successful calls leave it unchanged. It is global, not per
/// thread: read it right after the failing call, under the application's own lock if several
/// threads allocate.
#[no_mangle]
pub extern "C" fn syn_mem_last_error() -> c_int {
    with(|s| s.last_error.get())
}

/// EXTENSION. Loads a memory plan emitted by `synmem emit --lang c` into the arena and fills
/// `*plan`: validates it (every slot aligned, inside `region_size`, disjoint from every slot
/// live at the same time; one type per slot, valid and no larger than its slot), reserves its
/// descriptor table (SYN_MEM_DESC_SPAN bytes per slot) in the persistent region and writes
/// every slot's complete descriptor there once (shape, dtype, size, lifetime SYN_MEM_EPHEMERAL).
/// `slots` and `types` (`n` entries each; NULL allowed when `n` is 0) are read only during the
/// call. With an emitted header `model_plan.h` (prefix MODEL):
/// `syn_mem_plan_load(MODEL_PLAN_ARGS, &plan)`.
///
/// Returns 0, or (with `*plan` untouched): -EINVAL (NULL `plan`, NULL `slots`/`types` with `n` >
/// 0, an invalid plan or slot type), -ENOMEM (the table does not fit, or the region does not fit
/// the tensor space left after it: a plan larger than the arena), -EBUSY (ephemeral tensors or
/// scratch buffers are live), -ENODEV (not initialised).
///
/// # Safety
/// `slots` and `types` must each point to `n` readable entries (when `n` > 0); `plan` must be
/// NULL or point to a writable syn_mem_plan_t.
#[no_mangle]
pub unsafe extern "C" fn syn_mem_plan_load(
    slots: *const PlanSlot,
    types: *const SlotType,
    n: u32,
    region_size: u32,
    plan: *mut SynMemPlan,
) -> c_int {
    if plan.is_null() || (n != 0 && (slots.is_null() || types.is_null())) {
        return reject_errno(ErrorKind::InvalidArgument, Region::Persistent);
    }
    let (slots, types): (&[PlanSlot], &[SlotType]) = if n == 0 {
        (&[], &[])
    } else {
        // SAFETY: both are non-null and, by the caller's contract, point to `n` readable,
        // aligned entries (C arrays of these `repr(C)` types), unchanged during the call; every
        // bit pattern is a valid `PlanSlot` / `SlotType` (integers only).
        unsafe {
            (
                core::slice::from_raw_parts(slots, n as usize),
                core::slice::from_raw_parts(types, n as usize),
            )
        }
    };
    with(|s| {
        if !s.arena.is_initialized() {
            let err = errno::from_kind(
                s.arena
                    .reject(ErrorKind::NotInitialized, Region::Persistent)
                    .kind,
            );
            s.last_error.set(err);
            return err;
        }
        match s.arena.load_typed_plan(Plan { region_size, slots }, types) {
            Ok(loaded) => {
                // SAFETY: `plan` is non-null and, by the caller's contract, writable; a
                // `SynMemPlan` is large and aligned enough for a `PlanState` (checked at
                // compile time in `types`).
                unsafe {
                    plan.cast::<PlanState>().write(PlanState {
                        run: PlanRun::NOT_BEGUN,
                        plan: loaded,
                    })
                };
                0
            }
            Err(PlanLoadError::Invalid(_)) => {
                let err = errno::from_kind(
                    s.arena
                        .reject(ErrorKind::InvalidArgument, Region::Ephemeral)
                        .kind,
                );
                s.last_error.set(err);
                err
            }
            Err(PlanLoadError::Alloc(e)) => {
                let err = errno::from_kind(e.kind);
                s.last_error.set(err);
                err
            }
        }
    })
}

/// EXTENSION. Begins one inference of a loaded plan: reserves its ephemeral region (exactly the
/// plan's region size, one bump, reclaimed by syn_mem_reset_ephemeral()), points every slot's
/// descriptor at it — O(1) when the region lands where the plan's last one did, O(slots)
/// otherwise — and counts the plan's tensors as allocations. Call it after each
/// syn_mem_reset_ephemeral(), before syn_mem_tensor_alloc_planned().
///
/// Returns 0, or (with nothing changed but failed_count): -EINVAL (NULL `plan`, a plan loaded
/// before the last syn_mem_init()), -ENOMEM (not enough ephemeral space left now), -ENODEV (not
/// initialised).
///
/// # Safety
/// `plan` must be NULL or point to a syn_mem_plan_t filled by syn_mem_plan_load() (or a copy).
#[no_mangle]
pub unsafe extern "C" fn syn_mem_plan_begin(plan: *mut SynMemPlan) -> c_int {
    let Some(p) = NonNull::new(plan.cast::<PlanState>()) else {
        return reject_errno(ErrorKind::InvalidArgument, Region::Ephemeral);
    };
    with(|s| {
        // SAFETY: by the caller's contract `p` points to a `PlanState` written by
        // `syn_mem_plan_load` (plain integers); read and written only inside the critical
        // section, so never concurrently with another syn_mem_* call.
        let loaded = unsafe { ptr::addr_of!((*p.as_ptr()).plan).read() };
        match s.arena.begin_typed_plan(&loaded) {
            Ok(run) => {
                // SAFETY: as above; writable by the caller's contract.
                unsafe { ptr::addr_of_mut!((*p.as_ptr()).run).write(run) };
                0
            }
            Err(e) => {
                let err = errno::from_kind(e.kind);
                s.last_error.set(err);
                err
            }
        }
    })
}

/// EXTENSION. The planned tensor of slot `slot` in the inference begun by the last
/// syn_mem_plan_begin(plan): its descriptor, written at load (shape, dtype, size) with `data` at
/// the slot's offset in the plan's region. O(1): three checks and no write. Until the next
/// syn_mem_reset_ephemeral() or syn_mem_init(); syn_mem_tensor_free() on it is a no-op like on
/// any tensor. Calling it again for a slot returns the same descriptor.
///
/// Returns the descriptor, or NULL with syn_mem_last_error() set to -EINVAL (NULL `plan`, `slot`
/// not below the plan's slot count, a plan not begun since its load, since the last
/// syn_mem_reset_ephemeral() or since the last syn_mem_init()) or -ENODEV (not initialised); a
/// failure changes nothing but failed_count.
///
/// # Safety
/// `plan` must be NULL or point to a syn_mem_plan_t filled by syn_mem_plan_load() (or a copy).
#[no_mangle]
pub unsafe extern "C" fn syn_mem_tensor_alloc_planned(
    plan: *const SynMemPlan,
    slot: u32,
) -> *mut SynTensor {
    if plan.is_null() {
        return reject_kind(ErrorKind::InvalidArgument, Region::Ephemeral);
    }
    with(|s| {
        // SAFETY: by the caller's contract `plan` points to a `PlanState` written by
        // `syn_mem_plan_load` / `syn_mem_plan_begin` (plain integers), read inside the critical
        // section like every write of it.
        let run = unsafe { ptr::addr_of!((*plan.cast::<PlanState>()).run).read() };
        match s.arena.planned_tensor(&run, slot as usize) {
            Ok(desc) => desc.as_ptr().cast(),
            Err(e) => record_failure_null(s, e.kind),
        }
    })
}

#[cfg(all(not(feature = "std"), not(test)))]
#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    #[cfg(feature = "panic-hook")]
    {
        extern "Rust" {
            fn synaptic_mem_ffi_panic(info: &core::panic::PanicInfo) -> !;
        }
        // SAFETY: with the `panic-hook` feature the firmware defines this function with exactly
        // this signature (documented in the crate's Cargo.toml and README).
        unsafe { synaptic_mem_ffi_panic(info) }
    }
    #[cfg(not(feature = "panic-hook"))]
    {
        let _ = info;
        loop {
            #[cfg(target_arch = "arm")]
            // SAFETY: `udf` raises a fault (HardFault/UsageFault) the firmware can catch; it
            // touches no memory.
            unsafe {
                core::arch::asm!("udf #0", options(nomem, nostack));
            }
            #[cfg(not(target_arch = "arm"))]
            core::hint::spin_loop();
        }
    }
}
