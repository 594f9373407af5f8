//! `audio_preprocessor_int8` on the target: see the crate docs (`synaptic_fw_runtime::run`).
#![no_std]
#![no_main]

use synaptic_fw_runtime::{models::audio_preprocessor_int8 as m, run, spec, StaticMem};

static ARENA: StaticMem<{ m::ARENA_BUFFER }> = StaticMem::new();
static SHARED: StaticMem<{ m::SHARED_REGION }> = StaticMem::new();

#[cortex_m_rt::entry]
fn main() -> ! {
    // SAFETY: the only borrows of the two buffers, taken once.
    let (arena, shared) = unsafe { (ARENA.get(), SHARED.get()) };
    run(&spec!(audio_preprocessor_int8), arena, shared)
}
