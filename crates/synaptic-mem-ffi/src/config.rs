//! The Kconfig values this library was built with (`CONFIG_SYNAPTIC_*` from the build
//! environment, validated by `build.rs`; the header has them as `SYN_MEM_TENSOR_ARENA_SIZE` and
//! `SYN_MEM_SCRATCH_POOL_SIZE`).

/// `CONFIG_SYNAPTIC_TENSOR_ARENA_SIZE` (default 131072, range 4096..=524288).
///
/// cbindgen:ignore
pub const TENSOR_ARENA_SIZE: usize = parse(env!("SYN_MEM_CFG_TENSOR_ARENA_SIZE"));

/// `CONFIG_SYNAPTIC_SCRATCH_POOL_SIZE` (default 16384, range 1024..=65536): the scratch pool
/// `syn_mem_init` carves from the top of the arena.
///
/// cbindgen:ignore
pub const SCRATCH_POOL_SIZE: usize = parse(env!("SYN_MEM_CFG_SCRATCH_POOL_SIZE"));

/// Whether both values are the Kconfig defaults (the committed header assumes them).
///
/// cbindgen:ignore
pub const IS_DEFAULT: bool = parse(env!("SYN_MEM_CFG_IS_DEFAULT")) == 1;

const _: () = assert!(
    TENSOR_ARENA_SIZE >= synaptic_mem::MIN_ARENA_SIZE
        && TENSOR_ARENA_SIZE <= synaptic_mem::MAX_ARENA_SIZE
);
const _: () = assert!(
    SCRATCH_POOL_SIZE >= synaptic_mem::MIN_SCRATCH_SIZE
        && SCRATCH_POOL_SIZE <= synaptic_mem::MAX_SCRATCH_SIZE
        && SCRATCH_POOL_SIZE < TENSOR_ARENA_SIZE
);

/// Decimal digits (already validated by build.rs) to a number, at compile time.
const fn parse(s: &str) -> usize {
    let b = s.as_bytes();
    let mut i = 0;
    let mut v = 0usize;
    while i < b.len() {
        assert!(b[i].is_ascii_digit(), "build.rs passes decimal digits");
        v = v * 10 + (b[i] - b'0') as usize;
        i += 1;
    }
    v
}
