//! The `extern "C"` entry points: the crate's only `unsafe` code.
//!
//! A `syn_run_model_t` holds a [`Storage`]: a header (a state word and the object's own
//! address, read and written only inside a critical section) and, once loaded, a [`Body`]: the
//! model's [`Arena`] over the application's buffer, the [`Runner`] and [`Interpreter`] that
//! borrow it (`'static`: the application keeps the buffers and the object in place until
//! `syn_run_unload`, the header's contract), the placement and the memory ranges the model uses.
//! The body refers to itself (the runner points at the arena beside it), so an object moved or
//! copied after its load is detected by its address and refused; after the load the arena field
//! is only reached through the runner's and interpreter's shared borrows, every other field
//! through its own raw pointer, never a reference to the whole body.
//!
//! Every call on a loaded model marks it busy for its duration (the state word, flipped inside
//! the critical section): a second call on the same object meanwhile, from another thread or an
//! interrupt handler, fails with -EBUSY instead of racing. The inference itself runs outside
//! any critical section.

use core::ffi::{c_char, c_int, c_void};
use core::mem::{align_of, size_of, MaybeUninit};
use core::ptr::{self, addr_of_mut};

use synaptic_mem::plan::{OverlapPair, PlanSlot};
use synaptic_mem::{Arena, Plan, Runner};
use synaptic_mem_ffi::errno::{EBUSY, EINVAL, ENODEV};
use synaptic_run::{Interpreter, IoPlacement, RunPlan};

use crate::error::{self, invalid, Failure};
use crate::types::{SynRunConfig, SynRunIo, SynRunIoInfo, SynRunMemory, SynRunModel};

/// The header's state word of a loaded, idle model.
const LOADED: u32 = 0x5359_4E4C; // "SYNL"
/// A loaded model inside a `syn_run_*` call.
const BUSY: u32 = 0x5359_4E42; // "SYNB"
/// A model being loaded or unloaded.
const LOADING: u32 = 0x5359_4E49; // "SYNI"

/// The header of a `syn_run_model_t`: plain integers, valid for any bytes the application's
/// storage holds.
#[repr(C)]
struct Header {
    /// [`LOADED`], [`BUSY`], [`LOADING`]; anything else: no model.
    state: u32,
    /// The object's own address when the state was set (a copy elsewhere does not match).
    this: usize,
}

/// An address range `[start, end)` of memory the model uses; an empty one is always
/// `[usize::MAX, 0)` ([`Span::new`]), so two ranges overlap exactly when each starts before
/// the other ends (two compares: a call checks its buffers against every range of the model).
#[derive(Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
}

impl Span {
    const EMPTY: Span = Span {
        start: usize::MAX,
        end: 0,
    };

    /// `[start, start + len)`: the caller checked that the end does not wrap.
    fn new(start: usize, len: usize) -> Span {
        if len == 0 {
            Span::EMPTY
        } else {
            Span {
                start,
                end: start + len,
            }
        }
    }

    fn is_empty(self) -> bool {
        self.start >= self.end
    }

    #[inline(always)]
    fn overlaps(self, o: Span) -> bool {
        self.start < o.end && o.start < self.end
    }
}

/// The memory ranges a model uses, in [`Body::spans`] order, with their names in messages.
const SPAN_NAMES: [&str; SPANS] = [
    "the arena",
    "the shared region",
    "the model bytes",
    "the plan's slots",
    "the syn_run_model_t",
    "the program",
    "the plan's overlaps",
];
/// Number of [`Body::spans`].
const SPANS: usize = 7;
/// Which of [`Body::spans`] the runtime writes (the arena, the shared region, the object): they
/// may overlap nothing. The others (model bytes, slots, program, overlaps) are only read: they
/// may overlap each other and an input.
const SPAN_WRITTEN: [bool; SPANS] = [true, true, false, false, true, false, false];

/// A load with no program given: the program compiled into the arena's persistent region;
/// in a library built with `program-given-only`, refused (it links no program compiler, nor
/// any kernel's preparation from the model).
fn compile_at_load(
    bytes: &'static [u8],
    loader: synaptic_mem::Loader<'static>,
    plan: RunPlan<'static>,
    placement: IoPlacement,
) -> Result<Interpreter<'static, 'static, 'static, LinkedOps>, synaptic_run::LoadError> {
    if cfg!(feature = "program-given-only") {
        return Err(synaptic_run::LoadError::Unsupported {
            what: "a program compiled at load: this library is built with program-given-only \
                   (no compiler linked); give config->program, which synmem emit writes",
        });
    }
    Interpreter::new_ops::<LinkedOps>(bytes, loader, plan, placement)
}

/// The operators and kernel paths this library links (`SYNAPTIC_RUN_OPS` and
/// `SYNAPTIC_RUN_PATHS` at build time, Zephyr's `CONFIG_SYNAPTIC_RUN_OPS` and
/// `CONFIG_SYNAPTIC_RUN_PATHS`; every one by default): see the build script.
struct LinkedOps;

impl synaptic_run::ops::OpSet for LinkedOps {
    const KINDS: synaptic_run::ops::Kinds = include!(concat!(env!("OUT_DIR"), "/op_set.rs"));
    const PATHS: u64 = include!(concat!(env!("OUT_DIR"), "/op_paths.rs"));
}

/// A loaded model.
struct Body {
    arena: Arena<'static>,
    runner: Runner<'static>,
    net: Interpreter<'static, 'static, 'static, LinkedOps>,
    placement: IoPlacement,
    spans: [Span; SPANS],
}

#[repr(C)]
struct Storage {
    header: Header,
    body: MaybeUninit<Body>,
}

// The model state fits the C storage on this target (the header's SYN_RUN_MODEL_WORDS, for
// 32- and 64-bit pointers: the i686 tests and the thumbv7m build check the 32-bit figure).
const _: () = {
    assert!(size_of::<Storage>() <= size_of::<SynRunModel>());
    assert!(align_of::<Storage>() <= align_of::<SynRunModel>());
    // Not more than 64 bytes of slack either: the figure stays tight when the runtime shrinks.
    assert!(size_of::<SynRunModel>() - size_of::<Storage>() <= 64);
};

/// 0, or `r`'s negative errno (its message was recorded when the failure was made).
fn finish(r: Result<(), Failure>) -> c_int {
    match r {
        Ok(()) => 0,
        // Its message is recorded already (`Failure::new`).
        Err(f) => f.errno,
    }
}

/// `[p, p + len)` as a span: `p` non-NULL, `len` not above `isize::MAX` and the end not
/// wrapping (what a Rust slice over it requires).
fn span(p: *const c_void, len: usize, what: &str) -> Result<Span, Failure> {
    if p.is_null() {
        return Err(Failure::new(-EINVAL, format_args!("{what} is NULL")));
    }
    let start = p as usize;
    if len > isize::MAX as usize || start.checked_add(len).is_none() {
        return Err(Failure::new(
            -EINVAL,
            format_args!("{what}: {len} bytes at {start:#x} wrap the address space"),
        ));
    }
    Ok(Span::new(start, len))
}

/// `n` elements of `size` bytes at `p` as a span ([`span`]; the byte count must not overflow
/// either).
fn array_span(p: *const c_void, n: usize, size: usize, what: &str) -> Result<Span, Failure> {
    let len = n.checked_mul(size).ok_or_else(|| {
        Failure::new(
            -EINVAL,
            format_args!("{what}: {n} elements of {size} bytes overflow the address space"),
        )
    })?;
    span(p, len, what)
}

/// Checks that a pointer is non-NULL and aligned for `T`.
/// The span of a read-only array of `count` `T`s given from C (a plan's slots or overlaps):
/// empty when `count` is 0 (the pointer may then be NULL), else non-NULL, aligned for `T`
/// and not wrapping the address space.
fn counted_array<T>(p: *const T, count: u32, what: &str) -> Result<Span, Failure> {
    if count == 0 {
        return Ok(Span::EMPTY);
    }
    aligned(p, what)?;
    array_span(p.cast(), count as usize, size_of::<T>(), what)
}

fn aligned<T>(p: *const T, what: &str) -> Result<(), Failure> {
    if p.is_null() {
        Err(Failure::new(-EINVAL, format_args!("{what} is NULL")))
    } else if (p as usize) % align_of::<T>() != 0 {
        Err(Failure::new(
            -EINVAL,
            format_args!("{what} is not aligned to {} bytes", align_of::<T>()),
        ))
    } else {
        Ok(())
    }
}

/// The header's fields (inside a critical section).
///
/// # Safety
/// `p` is non-NULL, aligned and points to a `syn_run_model_t` the caller may read and write.
unsafe fn header(p: *mut Storage) -> (u32, usize) {
    // SAFETY: by the caller's contract `p` points to readable storage of at least
    // size_of::<Storage>() bytes (a syn_run_model_t); the header is plain integers, so any
    // bytes the application's storage holds are valid; volatile, as the object is the
    // application's memory.
    unsafe {
        (
            ptr::read_volatile(ptr::addr_of!((*p).header.state)),
            ptr::read_volatile(ptr::addr_of!((*p).header.this)),
        )
    }
}

/// Sets the header (inside a critical section).
///
/// # Safety
/// As for [`header`].
unsafe fn set_header(p: *mut Storage, state: u32, this: usize) {
    // SAFETY: as in `header`; the storage is writable by the caller's contract.
    unsafe {
        ptr::write_volatile(addr_of_mut!((*p).header.state), state);
        ptr::write_volatile(addr_of_mut!((*p).header.this), this);
    }
}

/// Checks an out pointer `p` of a call on a loaded model: aligned, non-NULL, and its `T`
/// overlapping none of the model's memory (`spans`: the arena, the shared region, the model
/// bytes, the plan, the program, the `syn_run_model_t` itself) nor the call's other out
/// pointers (`others`): writing the result there would corrupt the loaded model.
fn out_ptr<T>(
    p: *mut T,
    what: &str,
    spans: &[Span; SPANS],
    others: &[Span],
) -> Result<Span, Failure> {
    aligned(p, what)?;
    let s = span(p.cast_const().cast(), size_of::<T>(), what)?;
    if let Some(k) = spans.iter().position(|&m| m.overlaps(s)) {
        return Err(Failure::new(
            -EINVAL,
            format_args!("{what} overlaps {}", SPAN_NAMES[k]),
        ));
    }
    if others.iter().any(|&o| o.overlaps(s)) {
        return Err(Failure::new(
            -EINVAL,
            format_args!("{what} overlaps the call's other out pointer"),
        ));
    }
    Ok(s)
}

fn moved() -> Failure {
    invalid(
        "this syn_run_model_t was moved or copied since its load: use the object syn_run_load() \
         filled",
    )
}

/// The parts of a loaded model a call works on.
struct Parts<'b> {
    net: &'b mut Interpreter<'static, 'static, 'static, LinkedOps>,
    runner: &'b mut Runner<'static>,
    placement: IoPlacement,
    spans: &'b [Span; SPANS],
}

/// Runs `f` on the loaded model of `model`, marked busy meanwhile.
///
/// # Safety
/// `model` is NULL or points to a writable syn_run_model_t.
unsafe fn with_model<R>(
    model: *mut SynRunModel,
    f: impl FnOnce(&mut Parts<'_>) -> Result<R, Failure>,
) -> Result<R, Failure> {
    aligned(model, "model")?;
    let p = model.cast::<Storage>();
    critical_section::with(|_| {
        // SAFETY: `model` is non-NULL and aligned (checked), writable by the caller's contract.
        let (state, this) = unsafe { header(p) };
        match state {
            LOADED | BUSY | LOADING if this != p as usize => Err(moved()),
            LOADED => {
                // SAFETY: as above.
                unsafe { set_header(p, BUSY, this) };
                Ok(())
            }
            BUSY | LOADING => Err(Failure::new(
                -EBUSY,
                format_args!("another syn_run_* call on this model is running"),
            )),
            _ => Err(Failure::new(
                -ENODEV,
                format_args!(
                    "no model loaded in this syn_run_model_t (never loaded, unloaded, or its \
                     load failed)"
                ),
            )),
        }
    })?;
    let body = addr_of_mut!((*p).body).cast::<Body>();
    // SAFETY: the state was LOADED at this address, so `syn_run_load` initialised every field
    // of the body and nothing else touches it until we set LOADED again (the busy state keeps
    // every other call out). The references are to distinct fields, never to the arena field
    // the runner and interpreter borrow.
    let mut parts = unsafe {
        Parts {
            net: &mut *addr_of_mut!((*body).net),
            runner: &mut *addr_of_mut!((*body).runner),
            placement: ptr::addr_of!((*body).placement).read(),
            spans: &*ptr::addr_of!((*body).spans),
        }
    };
    let r = f(&mut parts);
    critical_section::with(|_| {
        // SAFETY: as above; we hold the busy state.
        unsafe { set_header(p, LOADED, p as usize) }
    });
    r
}

/// Loads a model: reads `config` (see syn_run_config_t), lays an arena over config->arena
/// (exactly sized: no Kconfig floors; the scratch pool the kernels need, the largest block one
/// operator takes per call, is taken from its top at load), registers config->shared with
/// SYN_RUN_IO_SHARED, then either checks config->program's header, seal and data flow (a
/// program given, which synmem emit compiled from the model, validating it: read in place from
/// then on, no arena byte; with the feature verify-program, also compared word by word with
/// what the model compiles to) or validates the model and every operator and compiles the
/// program into the persistent region (NULL), checks the plan
/// against the model and loads it, and (with SYN_RUN_IO_SHARED) allocates the graph I/O in the
/// shared region. The model bytes, the slots and the program are read in place from then on;
/// the arena and the shared region belong to the model.
///
/// Returns 0, or (with `*model` holding no model, the buffers unchanged but the arena's and the
/// shared region's contents): -EINVAL (NULL or misaligned `model`/`config`, NULL model bytes,
/// arena or slots, a misaligned program, a NULL one with program_words above 0, an unknown io
/// value, a shared region missing with SYN_RUN_IO_SHARED or given with
/// SYN_RUN_IO_PLAN, a written buffer — arena, shared region, `*model` — overlapping any other
/// buffer, a malformed model, a plan that does not fit the model, a program that is not this
/// model's for this placement: of another model or placement, truncated or altered, the message
/// naming what differs), -ENOMEM (the arena or shared region is too small), -ENOTSUP (an
/// unsupported operator, type or option), -EBUSY (`*model` holds a loaded model: unload it
/// first; nothing changes).
///
/// # Safety
/// `model` must be NULL or point to writable storage for a syn_run_model_t; `config` NULL or
/// point to a readable syn_run_config_t whose buffers are valid for their sizes (model, slots
/// and program readable and unchanged, arena and shared region readable, writable and used by
/// nothing else) until syn_run_unload(model).
#[no_mangle]
pub unsafe extern "C" fn syn_run_load(
    model: *mut SynRunModel,
    config: *const SynRunConfig,
) -> c_int {
    // SAFETY: forwarded contract.
    finish(unsafe { load(model, config) })
}

/// [`syn_run_load`]'s work.
unsafe fn load(model: *mut SynRunModel, config: *const SynRunConfig) -> Result<(), Failure> {
    aligned(model, "model")?;
    aligned(config, "config")?;
    // SAFETY: non-NULL and aligned (checked), readable by the caller's contract; every field is
    // an integer or a raw pointer, valid for any bits.
    let c = unsafe { config.read() };
    let p = model.cast::<Storage>();
    let object = Span::new(p as usize, size_of::<SynRunModel>());
    let placement = SynRunIo::from_raw(c.io).ok_or_else(|| {
        Failure::new(
            -EINVAL,
            format_args!("io {} is not a syn_run_io_t (SHARED 0, PLAN 1)", c.io),
        )
    })?;
    let model_span = span(c.model, c.model_size, "config->model")?;
    if c.model_size == 0 {
        return Err(invalid("config->model_size is 0"));
    }
    let slots_span = counted_array(c.slots, c.slot_count, "config->slots")?;
    // The program: read in place like the slots (NULL: compiled into the arena at load).
    let program_span = if c.program.is_null() {
        if c.program_words != 0 {
            return Err(invalid(
                "config->program is NULL but program_words is not 0",
            ));
        }
        Span::EMPTY
    } else {
        aligned(c.program, "config->program")?;
        array_span(
            c.program.cast(),
            c.program_words,
            size_of::<u32>(),
            "config->program",
        )?
    };
    // The declared overlaps: read in place like the slots (each direction byte is checked
    // below, the pairs themselves against the model's operators at load).
    let overlaps_span = counted_array(c.overlaps, c.overlap_count, "config->overlaps")?;
    let arena_span = span(c.arena, c.arena_size, "config->arena")?;
    let shared_span = match (placement, c.shared.is_null(), c.shared_size) {
        (IoPlacement::Shared, false, _) => span(c.shared, c.shared_size, "config->shared")?,
        (IoPlacement::Shared, true, _) => {
            return Err(invalid(
                "SYN_RUN_IO_SHARED needs a shared region (config->shared is NULL)",
            ))
        }
        (IoPlacement::Plan, true, 0) => Span::EMPTY,
        (IoPlacement::Plan, _, _) => {
            return Err(invalid(
                "SYN_RUN_IO_PLAN takes no shared region (config->shared must be NULL, size 0)",
            ))
        }
    };
    let spans = [
        arena_span,
        shared_span,
        model_span,
        slots_span,
        object,
        program_span,
        overlaps_span,
    ];
    // A written buffer may overlap nothing; the read-only ones may overlap each other. The
    // message names the written one first.
    for i in 0..SPANS {
        for j in i + 1..SPANS {
            if (SPAN_WRITTEN[i] || SPAN_WRITTEN[j]) && spans[i].overlaps(spans[j]) {
                let (a, b) = if SPAN_WRITTEN[i] { (i, j) } else { (j, i) };
                return Err(Failure::new(
                    -EINVAL,
                    format_args!("{} overlaps {}", SPAN_NAMES[a], SPAN_NAMES[b]),
                ));
            }
        }
    }

    for k in 0..c.overlap_count as usize {
        // SAFETY: in bounds of the overlaps span checked above (non-NULL, aligned, readable by
        // the caller's contract); every field of SynPlanOverlap is an integer.
        let d = unsafe { c.overlaps.add(k).read() }.direction;
        if d > 1 {
            return Err(Failure::new(
                -EINVAL,
                format_args!("config->overlaps[{k}].direction is {d} (0 forward, 1 backward)"),
            ));
        }
    }

    // Claim the object.
    critical_section::with(|_| {
        // SAFETY: `model` is non-NULL and aligned (checked), writable by the caller's contract.
        let (state, this) = unsafe { header(p) };
        match state {
            LOADED | BUSY | LOADING if this == p as usize => Err(Failure::new(
                -EBUSY,
                format_args!(
                    "this syn_run_model_t holds a loaded model: syn_run_unload() it first"
                ),
            )),
            _ => {
                // SAFETY: as above.
                unsafe { set_header(p, LOADING, p as usize) };
                Ok(())
            }
        }
    })?;
    let body = addr_of_mut!((*p).body).cast::<Body>();
    // SAFETY: every buffer was checked non-NULL, with a valid span, and disjoint from every
    // other one it could alias; by the caller's contract they stay valid (and the arena and
    // shared region reserved for the model) until syn_run_unload, which is what the `'static`
    // borrows stand for. The object is ours (LOADING) and stays in place (a move is refused).
    let r = unsafe { build(body, &c, placement, spans) };
    critical_section::with(|_| {
        // SAFETY: as above.
        unsafe {
            match r {
                Ok(()) => set_header(p, LOADED, p as usize),
                Err(_) => set_header(p, 0, 0),
            }
        }
    });
    r
}

/// Builds the body in place.
///
/// # Safety
/// As in [`load`]'s call: checked spans, buffers valid until the unload, `body` ours.
unsafe fn build(
    body: *mut Body,
    c: &SynRunConfig,
    placement: IoPlacement,
    spans: [Span; SPANS],
) -> Result<(), Failure> {
    // SAFETY: the arena span is valid, writable and used by nothing else until the unload.
    let buf: &'static mut [u8] =
        unsafe { core::slice::from_raw_parts_mut(c.arena.cast::<u8>(), c.arena_size) };
    let mut arena = Arena::exact(buf, 0).map_err(error::config)?;
    if placement == IoPlacement::Shared {
        // SAFETY: as for the arena, for the shared span (disjoint from it).
        let region: &'static mut [u8] =
            unsafe { core::slice::from_raw_parts_mut(c.shared.cast::<u8>(), c.shared_size) };
        arena.set_shared_region(region).map_err(error::config)?;
    }
    // SAFETY: `body` points into the object, aligned for `Body` (the storage's alignment is
    // checked at compile time); the arena is written once, then only borrowed by the runner and
    // the interpreter (until the unload drops them first).
    let arena: &'static mut Arena<'static> = unsafe {
        addr_of_mut!((*body).arena).write(arena);
        &mut *addr_of_mut!((*body).arena)
    };
    let (loader, runner) = arena.split();
    // SAFETY: the model span is valid, readable and unchanged until the unload.
    let bytes: &'static [u8] =
        unsafe { core::slice::from_raw_parts(c.model.cast::<u8>(), c.model_size) };
    let slots: &'static [PlanSlot] = if c.slot_count == 0 {
        &[]
    } else {
        // SAFETY: the slots span is valid, aligned (checked), readable and unchanged until the
        // unload; every bit pattern is a valid `PlanSlot` (integers only).
        unsafe { core::slice::from_raw_parts(c.slots, c.slot_count as usize) }
    };
    let overlaps: &'static [OverlapPair] = if c.overlap_count == 0 {
        &[]
    } else {
        // SAFETY: the overlaps span is valid, aligned (checked), readable and unchanged until
        // the unload; `SynPlanOverlap` has `OverlapPair`'s layout (checked at compile time) and
        // every direction byte is 0 or 1 (checked in `load`), so each element is a valid
        // `OverlapPair`.
        unsafe {
            core::slice::from_raw_parts(c.overlaps.cast::<OverlapPair>(), c.overlap_count as usize)
        }
    };
    let plan = RunPlan::overlapped(
        Plan {
            region_size: c.region_size,
            slots,
        },
        overlaps,
    );
    let loaded = if c.program.is_null() {
        compile_at_load(bytes, loader, plan, placement)
    } else {
        // SAFETY: the program span is valid (checked), aligned for `u32` (checked), readable
        // and unchanged until the unload, and disjoint from everything written (the arena, the
        // shared region, the object); every bit pattern is a valid `u32`.
        let words: &'static [u32] =
            unsafe { core::slice::from_raw_parts(c.program, c.program_words) };
        Interpreter::with_program_ops::<LinkedOps>(bytes, words, loader, plan, placement)
    };
    // The interpreter (some 200 bytes) moved once, from where it was returned into the body.
    match loaded {
        // SAFETY: distinct fields of the body, written once.
        Ok(net) => unsafe {
            addr_of_mut!((*body).net).write(net);
            addr_of_mut!((*body).runner).write(runner);
            addr_of_mut!((*body).placement).write(placement);
            addr_of_mut!((*body).spans).write(spans);
        },
        Err(e) => return Err(error::load(&e)),
    }
    Ok(())
}

/// Unloads the model in `*model`: the object, its arena and shared region are free again (the
/// model bytes and slots are no longer read). On an object holding no model (never loaded,
/// already unloaded, a copy of a loaded one) it only clears the object, so it also initialises
/// storage of unknown contents.
///
/// Returns 0, -EINVAL (NULL or misaligned `model`) or -EBUSY (another call on the model is
/// running; nothing changes).
///
/// # Safety
/// `model` must be NULL or point to writable storage for a syn_run_model_t.
#[no_mangle]
pub unsafe extern "C" fn syn_run_unload(model: *mut SynRunModel) -> c_int {
    finish((|| {
        aligned(model, "model")?;
        let p = model.cast::<Storage>();
        let loaded = critical_section::with(|_| {
            // SAFETY: non-NULL, aligned (checked), writable by the caller's contract.
            let (state, this) = unsafe { header(p) };
            match state {
                LOADED if this == p as usize => {
                    // SAFETY: as above.
                    unsafe { set_header(p, LOADING, this) };
                    Ok(true)
                }
                BUSY | LOADING if this == p as usize => Err(Failure::new(
                    -EBUSY,
                    format_args!("another syn_run_* call on this model is running"),
                )),
                _ => {
                    // SAFETY: as above.
                    unsafe { set_header(p, 0, 0) };
                    Ok(false)
                }
            }
        })?;
        if loaded {
            let body = addr_of_mut!((*p).body).cast::<Body>();
            // SAFETY: a LOADED body at this address is fully initialised and ours (LOADING);
            // the borrowers of the arena are dropped before it.
            unsafe {
                ptr::drop_in_place(addr_of_mut!((*body).net));
                ptr::drop_in_place(addr_of_mut!((*body).runner));
                ptr::drop_in_place(addr_of_mut!((*body).arena));
            }
            critical_section::with(|_| {
                // SAFETY: as above.
                unsafe { set_header(p, 0, 0) }
            });
        }
        Ok(())
    })())
}

/// SYN_RUN_IO_SHARED: graph input `index` in the shared region, to fill in place (the CPU, a
/// DMA, another core) before syn_run_invoke(): `*data` (16-byte aligned) and `*size` (bytes, in
/// the tensor's dtype and shape, row-major). Valid until syn_run_unload(); fill it only between
/// inferences.
///
/// Returns 0, or (outputs untouched): -EINVAL (NULL or misaligned `data`/`size`, the two
/// overlapping each other or any memory of the model — its syn_run_model_t, arena, shared
/// region, model bytes, plan or program —, `index` not below the number of inputs, I/O in the
/// plan), -ENODEV (no model loaded), -EBUSY.
///
/// # Safety
/// `model` must be NULL or point to a syn_run_model_t; `data` and `size` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn syn_run_input(
    model: *mut SynRunModel,
    index: u32,
    data: *mut *mut c_void,
    size: *mut usize,
) -> c_int {
    finish((|| {
        aligned(data, "data")?;
        aligned(size, "size")?;
        // SAFETY: forwarded contract.
        let (p, n) = unsafe {
            with_model(model, |m| {
                let d = out_ptr(data, "data", m.spans, &[])?;
                out_ptr(size, "size", m.spans, &[d])?;
                shared_only(m.placement, "syn_run_input")?;
                let k = io_index("input", index, m.net.inputs())?;
                let b = m.net.input_mut(k).ok_or_else(|| {
                    Failure::new(-EINVAL, format_args!("input {index} has no shared tensor"))
                })?;
                Ok((b.as_mut_ptr().cast::<c_void>(), b.len()))
            })?
        };
        // SAFETY: non-NULL, aligned (checked), writable by the caller's contract.
        unsafe {
            data.write(p);
            size.write(n);
        }
        Ok(())
    })())
}

/// Graph input or output `index` (`what`) of a model that has `count` of them, or -EINVAL.
fn io_index(what: &str, index: u32, count: usize) -> Result<usize, Failure> {
    let k = index as usize;
    if k >= count {
        return Err(Failure::new(
            -EINVAL,
            format_args!("{what} {index} out of range (the model has {count})"),
        ));
    }
    Ok(k)
}

/// SYN_RUN_IO_SHARED: graph output `index` in the shared region: `*data` and `*size` (bytes),
/// holding the result of the last inference until the next one. Returns as syn_run_input().
///
/// # Safety
/// As for syn_run_input().
#[no_mangle]
pub unsafe extern "C" fn syn_run_output(
    model: *mut SynRunModel,
    index: u32,
    data: *mut *const c_void,
    size: *mut usize,
) -> c_int {
    finish((|| {
        aligned(data, "data")?;
        aligned(size, "size")?;
        // SAFETY: forwarded contract.
        let (p, n) = unsafe {
            with_model(model, |m| {
                let d = out_ptr(data, "data", m.spans, &[])?;
                out_ptr(size, "size", m.spans, &[d])?;
                shared_only(m.placement, "syn_run_output")?;
                let k = io_index("output", index, m.net.outputs())?;
                let b = m.net.output(k).ok_or_else(|| {
                    Failure::new(-EINVAL, format_args!("output {index} has no shared tensor"))
                })?;
                Ok((b.as_ptr().cast::<c_void>(), b.len()))
            })?
        };
        // SAFETY: non-NULL, aligned (checked), writable by the caller's contract.
        unsafe {
            data.write(p);
            size.write(n);
        }
        Ok(())
    })())
}

fn shared_only(placement: IoPlacement, call: &str) -> Result<(), Failure> {
    match placement {
        IoPlacement::Shared => Ok(()),
        IoPlacement::Plan => Err(Failure::new(
            -EINVAL,
            format_args!(
                "{call}: the model's I/O is in the plan (SYN_RUN_IO_PLAN): use \
                 syn_run_invoke_copy()"
            ),
        )),
    }
}

/// SYN_RUN_IO_SHARED: runs one inference on the inputs in the shared region (syn_run_input);
/// the outputs stay there (syn_run_output).
///
/// Returns 0, -EINVAL (I/O in the plan), -ENODEV (no model loaded), -EBUSY, or -EAGAIN: an
/// operator stopped the inference (a CIRCULAR_BUFFER not due this invocation, TFLM's
/// `kTfLiteAbort`): the operators before it ran, the outputs are not this inference's.
///
/// # Safety
/// `model` must be NULL or point to a syn_run_model_t.
#[no_mangle]
pub unsafe extern "C" fn syn_run_invoke(model: *mut SynRunModel) -> c_int {
    // SAFETY: forwarded contract.
    finish(unsafe {
        with_model(model, |m| {
            shared_only(m.placement, "syn_run_invoke")?;
            m.net.invoke_in_place(m.runner).map_err(|e| error::run(&e))
        })
    })
}

/// Sets the model's state (its variable tensors: SVDF and LSTM memories, which every
/// inference carries to the next) back to its value at load, as TFLM's
/// `ResetVariableTensors`: the next inference gives what a freshly loaded model gives. A model
/// without state is left as it is.
///
/// Returns 0, -ENODEV (no model loaded) or -EBUSY.
///
/// # Safety
/// `model` must be NULL or point to a syn_run_model_t.
#[no_mangle]
pub unsafe extern "C" fn syn_run_reset_state(model: *mut SynRunModel) -> c_int {
    // SAFETY: forwarded contract.
    finish(unsafe {
        with_model(model, |m| {
            m.net.reset_state();
            Ok(())
        })
    })
}

/// Runs one inference, either placement: copies `input` (every graph input's bytes,
/// concatenated in input order: syn_run_io_info_t.input_bytes) in and every output
/// (concatenated in output order: output_bytes) out to `output`. With SYN_RUN_IO_SHARED the
/// outputs also stay in the shared region.
///
/// Returns 0, or (with `output` untouched and the model as it was): -EINVAL (NULL `input` or
/// `output` with a size above 0, a size that is not the model's, buffers overlapping each other
/// or the model's memory — the input may overlap what is only read: the model bytes, the slots,
/// the program —: use syn_run_invoke() for I/O in place), -ENODEV (no model loaded), -EBUSY;
/// or -EAGAIN (`output` untouched): an operator stopped the inference (a CIRCULAR_BUFFER not
/// due this invocation, TFLM's `kTfLiteAbort`), the operators before it ran.
///
/// # Safety
/// `model` must be NULL or point to a syn_run_model_t; `input` (`output`) NULL or readable
/// (writable) for `input_size` (`output_size`) bytes.
#[no_mangle]
pub unsafe extern "C" fn syn_run_invoke_copy(
    model: *mut SynRunModel,
    input: *const c_void,
    input_size: usize,
    output: *mut c_void,
    output_size: usize,
) -> c_int {
    let io_span = |p: *const c_void, n: usize, what| {
        if p.is_null() && n == 0 {
            Ok(Span::EMPTY)
        } else {
            span(p, n, what)
        }
    };
    finish((|| {
        let ins = io_span(input, input_size, "input")?;
        let outs = io_span(output, output_size, "output")?;
        if ins.overlaps(outs) {
            return Err(invalid("input overlaps output"));
        }
        // SAFETY: forwarded contract.
        unsafe {
            with_model(model, |m| {
                // The model bytes, slots and program are only read: the input may overlap
                // them. (By index over the constant table: the compiler unrolls it, the
                // read-only ranges with the output's test alone.)
                for k in 0..SPANS {
                    let s = m.spans[k];
                    if outs.overlaps(s) || (SPAN_WRITTEN[k] && ins.overlaps(s)) {
                        let which = if outs.overlaps(s) { "output" } else { "input" };
                        return Err(Failure::new(
                            -EINVAL,
                            format_args!(
                                "{which} overlaps {} (for I/O in place use syn_run_input and \
                                 syn_run_invoke)",
                                SPAN_NAMES[k]
                            ),
                        ));
                    }
                }
                let i: &[u8] = if ins.is_empty() {
                    &[]
                } else {
                    // SAFETY: a valid span (checked), readable by the caller's contract,
                    // disjoint from everything written during the call.
                    core::slice::from_raw_parts(input.cast::<u8>(), input_size)
                };
                let o: &mut [u8] = if outs.is_empty() {
                    &mut []
                } else {
                    // SAFETY: a valid span (checked), writable by the caller's contract,
                    // disjoint from the input and from all the model's memory.
                    core::slice::from_raw_parts_mut(output.cast::<u8>(), output_size)
                };
                m.net.invoke(m.runner, i, o).map_err(|e| error::run(&e))
            })
        }
    })())
}

/// The memory the loaded model takes into `*memory`: the arena bytes by region (the program
/// among them only when it was compiled at load) and the program's bytes, with those outside
/// the arena (config->program, flash) apart. Returns 0, -EINVAL (NULL or misaligned `memory`,
/// or `memory` overlapping any memory of the model, as for syn_run_input()), -ENODEV (no model
/// loaded) or -EBUSY.
///
/// # Safety
/// `model` must be NULL or point to a syn_run_model_t; `memory` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn syn_run_memory(
    model: *mut SynRunModel,
    memory: *mut SynRunMemory,
) -> c_int {
    finish((|| {
        aligned(memory, "memory")?;
        // SAFETY: forwarded contract.
        let m = unsafe {
            with_model(model, |m| {
                out_ptr(memory, "memory", m.spans, &[])?;
                Ok(SynRunMemory::from(m.net.memory()))
            })?
        };
        // SAFETY: non-NULL, aligned (checked), writable by the caller's contract.
        unsafe { memory.write(m) };
        Ok(())
    })())
}

/// The loaded model's graph inputs and outputs (placement, counts, total bytes) into `*info`.
/// Returns as syn_run_memory().
///
/// # Safety
/// `model` must be NULL or point to a syn_run_model_t; `info` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn syn_run_io_info(
    model: *mut SynRunModel,
    info: *mut SynRunIoInfo,
) -> c_int {
    finish((|| {
        aligned(info, "info")?;
        // SAFETY: forwarded contract.
        let v = unsafe {
            with_model(model, |m| {
                out_ptr(info, "info", m.spans, &[])?;
                Ok(SynRunIoInfo {
                    io: SynRunIo::to_raw(m.placement),
                    inputs: m.net.inputs() as u32,
                    outputs: m.net.outputs() as u32,
                    input_bytes: m.net.input_bytes(),
                    output_bytes: m.net.output_bytes(),
                })
            })?
        };
        // SAFETY: non-NULL, aligned (checked), writable by the caller's contract.
        unsafe { info.write(v) };
        Ok(())
    })())
}

/// The negative errno of the most recent failed syn_run_* call (0 if none yet); successful calls
/// leave it. Global, not per thread or model: read it right after the failing call.
#[no_mangle]
pub extern "C" fn syn_run_last_error() -> c_int {
    error::last().errno
}

/// The one-line message of the most recent failed syn_run_* call ("" if none yet), e.g. `load:
/// operator 0 (UNIDIRECTIONAL_SEQUENCE_LSTM): unsupported: operator not implemented`. Copies at
/// most `size - 1` bytes of it and a NUL to `buf` (nothing when `buf` is NULL or `size` 0) and
/// returns the message's full length (at most SYN_RUN_MESSAGE_MAX), like snprintf.
///
/// # Safety
/// `buf` must be NULL or writable for `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn syn_run_last_error_message(buf: *mut c_char, size: usize) -> usize {
    let last = error::last();
    let msg = last.message();
    if !buf.is_null() && size > 0 {
        let n = msg.len().min(size - 1);
        // SAFETY: `buf` is writable for `size` > n bytes by the caller's contract; `msg` is ours.
        unsafe {
            ptr::copy_nonoverlapping(msg.as_ptr(), buf.cast::<u8>(), n);
            buf.add(n).write(0);
        }
    }
    msg.len()
}
