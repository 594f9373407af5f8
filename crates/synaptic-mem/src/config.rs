//! Arena configuration: the spec's Kconfig defaults and ranges.

use core::fmt;

/// Every allocation (descriptor and data) is aligned to this many bytes (NPU DMA alignment).
pub const ALIGN: usize = 16;

/// `CONFIG_SYNAPTIC_TENSOR_ARENA_SIZE` default: 128 KB.
pub const DEFAULT_ARENA_SIZE: usize = 131_072;
/// `CONFIG_SYNAPTIC_SCRATCH_POOL_SIZE` default: 16 KB.
pub const DEFAULT_SCRATCH_SIZE: usize = 16_384;
/// Smallest accepted arena (4 KB).
pub const MIN_ARENA_SIZE: usize = 4_096;
/// Largest accepted arena (512 KB).
pub const MAX_ARENA_SIZE: usize = 524_288;
/// Smallest accepted scratch pool (1 KB).
pub const MIN_SCRATCH_SIZE: usize = 1_024;
/// Largest accepted scratch pool (64 KB).
pub const MAX_SCRATCH_SIZE: usize = 65_536;
/// Smallest accepted shared (IPC) region after alignment: one descriptor and 16 data bytes.
pub const MIN_SHARED_SIZE: usize = 48;
/// Largest accepted shared (IPC) region.
pub const MAX_SHARED_SIZE: usize = 1 << 30;
/// Smallest arena sized exactly from a plan ([`Floors::Exact`], `Arena::exact`) that a
/// runtime asks for: one descriptor and 16 data bytes, like [`MIN_SHARED_SIZE`].
pub const MIN_EXACT_ARENA_SIZE: usize = 48;

/// The arena that holds exactly `persistent` + `planned` + `scratch` bytes (the core's block
/// accounting: descriptors included, data rounded up to 16), for `Arena::exact` with a pool of
/// `scratch` bytes: their sum, with at least [`MIN_EXACT_ARENA_SIZE`] below the pool (the
/// tensor space every arena keeps, [`ConfigError::NoTensorSpace`]). The one rule for an exactly
/// sized arena: synaptic-run's `Memory::arena_bytes` and synaptic-plan's RAM figure (what
/// `synmem emit` writes as `ARENA_BYTES`) both call it. Saturates instead of wrapping.
///
/// ```
/// use synaptic_mem::config::exact_arena_size;
/// assert_eq!(exact_arena_size(960, 36_880, 0), 37_840);
/// assert_eq!(exact_arena_size(0, 0, 0), 48);
/// assert_eq!(exact_arena_size(0, 0, 32), 48 + 32);
/// ```
pub const fn exact_arena_size(persistent: usize, planned: usize, scratch: usize) -> usize {
    let below = persistent.saturating_add(planned);
    let below = if below < MIN_EXACT_ARENA_SIZE {
        MIN_EXACT_ARENA_SIZE
    } else {
        below
    };
    below.saturating_add(scratch)
}

/// Rounds `n` up to the next multiple of [`ALIGN`]. `n` must be at most `usize::MAX - 15`.
#[inline(always)]
pub const fn align_up(n: usize) -> usize {
    (n + (ALIGN - 1)) & !(ALIGN - 1)
}

/// Rounds `n` down to a multiple of [`ALIGN`].
#[inline(always)]
pub const fn align_down(n: usize) -> usize {
    n & !(ALIGN - 1)
}

/// Sizes of an arena: the whole region and the scratch pool at its top.
///
/// ```
/// use synaptic_mem::ArenaConfig;
/// let cfg = ArenaConfig::DEFAULT;
/// assert_eq!((cfg.arena_size, cfg.scratch_size), (131_072, 16_384));
/// assert!(cfg.validate().is_ok());
/// assert!(ArenaConfig { arena_size: 2048, scratch_size: 1024 }.validate().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArenaConfig {
    /// Bytes of the whole arena (persistent + ephemeral + scratch), 4096..=524288.
    pub arena_size: usize,
    /// Bytes of the scratch pool at the top of the arena, 1024..=65536 and below `arena_size`.
    pub scratch_size: usize,
}

impl ArenaConfig {
    /// The spec's defaults: 128 KB arena, 16 KB scratch pool (112 KB tensor space).
    pub const DEFAULT: ArenaConfig = ArenaConfig {
        arena_size: DEFAULT_ARENA_SIZE,
        scratch_size: DEFAULT_SCRATCH_SIZE,
    };

    /// Checks the Kconfig ranges: arena 4096..=524288, scratch 1024..=65536, scratch < arena.
    pub const fn validate(&self) -> Result<(), ConfigError> {
        self.validate_with(Floors::Kconfig)
    }

    /// Checks the ranges under `floors`: the upper limits (arena ≤ 512 KiB, scratch ≤ 64 KiB,
    /// scratch < arena) always; the lower ones (arena ≥ 4096, scratch ≥ 1024) only under
    /// [`Floors::Kconfig`].
    pub const fn validate_with(&self, floors: Floors) -> Result<(), ConfigError> {
        let (min_arena, min_scratch) = match floors {
            Floors::Kconfig => (MIN_ARENA_SIZE, MIN_SCRATCH_SIZE),
            Floors::Exact => (0, 0),
        };
        if self.arena_size < min_arena || self.arena_size > MAX_ARENA_SIZE {
            return Err(ConfigError::ArenaSizeOutOfRange {
                size: self.arena_size,
            });
        }
        if self.scratch_size < min_scratch || self.scratch_size > MAX_SCRATCH_SIZE {
            return Err(ConfigError::ScratchSizeOutOfRange {
                size: self.scratch_size,
            });
        }
        if self.scratch_size >= self.arena_size {
            return Err(ConfigError::ScratchNotSmallerThanArena {
                scratch_size: self.scratch_size,
                arena_size: self.arena_size,
            });
        }
        Ok(())
    }
}

/// Which lower limits an arena's sizes are held to. The upper limits (arena ≤ 512 KiB, scratch
/// pool ≤ 64 KiB), on which every offset computation of the arena relies, hold under both.
///
/// * [`Floors::Kconfig`]: the spec's Kconfig floors, arena ≥ 4096 B and scratch pool ≥ 1024 B.
///   They hold for the C API's global arena (`CONFIG_SYNAPTIC_*`), [`Arena::new`](crate::Arena::new)
///   and [`Arena::with_scratch`](crate::Arena::with_scratch), and `synmem`'s sizing.
/// * [`Floors::Exact`]: no floors, for an arena sized exactly from a plan
///   ([`Arena::exact`](crate::Arena::exact)): the scratch pool may be 0 bytes (every scratch
///   request then fails cleanly) and the arena as small as one descriptor and its data.
///
/// ```
/// use synaptic_mem::{ArenaConfig, Floors};
/// let tiny = ArenaConfig { arena_size: 288, scratch_size: 0 };
/// assert!(tiny.validate().is_err());
/// assert_eq!(tiny.layout_at_with(0, Floors::Exact).unwrap().tensor_capacity, 288);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Floors {
    /// Arena ≥ 4096 B, scratch pool ≥ 1024 B (the spec's Kconfig ranges).
    Kconfig,
    /// No lower limits: an arena sized exactly for a model's plan.
    Exact,
}

/// Where an arena's regions fall, as [`ArenaConfig::layout_at`] computes it: the one layout
/// rule, used by the arena itself and by every tool that sizes an arena (`synaptic-plan`).
///
/// ```text
/// base (+pad) → [ tensor space: tensor_capacity | scratch pool: scratch_capacity ] = usable_size
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArenaLayout {
    /// Bytes skipped to align the base up to 16.
    pub pad: usize,
    /// Bytes after alignment (base aligned up, end aligned down): tensor space + scratch pool.
    pub usable_size: usize,
    /// Tensor space (persistent + ephemeral) below the scratch pool, a multiple of 16.
    pub tensor_capacity: usize,
    /// Scratch pool capacity (`usable_size - tensor_capacity`): the requested pool size rounded
    /// up to 16 (more when the end was aligned down).
    pub scratch_capacity: usize,
}

impl ArenaConfig {
    /// The layout of an arena of this configuration whose buffer starts at a 16-byte aligned
    /// address: what a tool sizing a model for this configuration must assume.
    ///
    /// ```
    /// use synaptic_mem::ArenaConfig;
    /// // a scratch pool that is not a multiple of 16 takes the next multiple from tensor space
    /// let l = ArenaConfig { arena_size: 42_465, scratch_size: 1025 }.layout().unwrap();
    /// assert_eq!((l.usable_size, l.tensor_capacity, l.scratch_capacity), (42_464, 41_424, 1040));
    /// ```
    pub const fn layout(&self) -> Result<ArenaLayout, ConfigError> {
        self.layout_at(0)
    }

    /// [`ArenaConfig::layout_at`] under the Kconfig floors.
    pub const fn layout_at(&self, base_addr: usize) -> Result<ArenaLayout, ConfigError> {
        self.layout_at_with(base_addr, Floors::Kconfig)
    }

    /// The layout of an arena of this configuration over a buffer at address `base_addr`:
    /// validates the configuration under `floors` ([`ArenaConfig::validate_with`]), aligns the
    /// base up and the end down to 16, and puts the scratch pool at the top.
    /// [`ConfigError::NoTensorSpace`] if no more than one descriptor's span is left below the
    /// pool. The one layout rule: the arena and every tool call it.
    pub const fn layout_at_with(
        &self,
        base_addr: usize,
        floors: Floors,
    ) -> Result<ArenaLayout, ConfigError> {
        if let Err(e) = self.validate_with(floors) {
            return Err(e);
        }
        // validate_with() bounds both sizes (≤ 512 KiB), so nothing below can wrap.
        let pad = base_addr.wrapping_neg() & (ALIGN - 1);
        let usable_size = align_down(self.arena_size.saturating_sub(pad));
        if usable_size <= self.scratch_size + crate::DESC_SPAN {
            return Err(ConfigError::NoTensorSpace {
                usable_size,
                scratch_size: self.scratch_size,
            });
        }
        let tensor_capacity = align_down(usable_size - self.scratch_size);
        Ok(ArenaLayout {
            pad,
            usable_size,
            tensor_capacity,
            scratch_capacity: usable_size - tensor_capacity,
        })
    }
}

impl Default for ArenaConfig {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Why an arena (or a shared region) could not be set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// The arena size is outside 4096..=524288 bytes.
    ArenaSizeOutOfRange {
        /// The size that was asked for.
        size: usize,
    },
    /// The scratch pool size is outside 1024..=65536 bytes.
    ScratchSizeOutOfRange {
        /// The size that was asked for.
        size: usize,
    },
    /// The scratch pool would take the whole arena (or more).
    ScratchNotSmallerThanArena {
        /// Requested scratch pool size.
        scratch_size: usize,
        /// Requested arena size.
        arena_size: usize,
    },
    /// After aligning the base up to 16 bytes, no tensor space is left below the scratch pool.
    NoTensorSpace {
        /// Usable bytes after alignment.
        usable_size: usize,
        /// Requested scratch pool size.
        scratch_size: usize,
    },
    /// The base pointer is NULL.
    NullBase,
    /// The shared (IPC) region is outside 48..=2^30 bytes after alignment.
    SharedSizeOutOfRange {
        /// The size that was given.
        size: usize,
    },
    /// The shared (IPC) region shares memory with the arena's buffer.
    SharedOverlapsArena,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ConfigError::ArenaSizeOutOfRange { size } => write!(
                f,
                "arena size {size} B is outside {MIN_ARENA_SIZE}..={MAX_ARENA_SIZE} B"
            ),
            ConfigError::ScratchSizeOutOfRange { size } => write!(
                f,
                "scratch pool size {size} B is outside {MIN_SCRATCH_SIZE}..={MAX_SCRATCH_SIZE} B"
            ),
            ConfigError::ScratchNotSmallerThanArena {
                scratch_size,
                arena_size,
            } => write!(
                f,
                "scratch pool ({scratch_size} B) must be smaller than the arena ({arena_size} B)"
            ),
            ConfigError::NoTensorSpace {
                usable_size,
                scratch_size,
            } => write!(
                f,
                "no tensor space left: {usable_size} B usable after alignment, {scratch_size} B scratch pool"
            ),
            ConfigError::NullBase => f.write_str("arena base pointer is NULL"),
            ConfigError::SharedSizeOutOfRange { size } => write!(
                f,
                "shared region size {size} B is outside {MIN_SHARED_SIZE}..={MAX_SHARED_SIZE} B (after 16-byte alignment)"
            ),
            ConfigError::SharedOverlapsArena => {
                f.write_str("shared region overlaps the arena's buffer")
            }
        }
    }
}

impl core::error::Error for ConfigError {}
