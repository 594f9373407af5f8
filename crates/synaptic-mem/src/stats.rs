//! Arena statistics and the `syn mem stats` table.

use core::fmt;

/// A snapshot of an arena's usage, high-water marks and counters (the numbers `syn mem stats`
/// prints). All sizes in bytes; region usage includes the 32-byte tensor descriptors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Size of the arena as configured (the buffer length).
    pub arena_size: usize,
    /// Bytes left after aligning the base up to 16 (and the end down to 16).
    pub usable_size: usize,
    /// Tensor space: persistent + ephemeral capacity, below the scratch pool.
    pub tensor_capacity: usize,
    /// Bytes used by persistent tensors.
    pub persistent_used: usize,
    /// Bytes used by live ephemeral tensors.
    pub ephemeral_used: usize,
    /// Largest `ephemeral_used` seen (checked at each reset and now).
    pub ephemeral_peak: usize,
    /// Bytes of the scratch pool in use.
    pub scratch_used: usize,
    /// Capacity of the scratch pool.
    pub scratch_size: usize,
    /// Largest `scratch_used` seen.
    pub scratch_peak: usize,
    /// Bytes used in the shared (IPC) region.
    pub shared_used: usize,
    /// Capacity of the shared region (0 if none is registered).
    pub shared_size: usize,
    /// High-water mark of tensor space (persistent + ephemeral).
    pub arena_peak: usize,
    /// Successful allocations (tensors of every lifetime and scratch buffers).
    pub alloc_count: u32,
    /// Ephemeral resets.
    pub reset_count: u32,
    /// Failed allocations.
    pub failed_count: u32,
}

impl Stats {
    /// Bytes lost to aligning the base (`arena_size - usable_size`).
    pub fn alignment_loss(&self) -> usize {
        self.arena_size - self.usable_size
    }
    /// Capacity left to the ephemeral region (tensor space above the persistent region).
    pub fn ephemeral_capacity(&self) -> usize {
        self.tensor_capacity - self.persistent_used
    }
}

/// The `syn mem stats` table.
///
/// ```
/// use synaptic_mem::{Arena, ArenaBuffer, DType};
/// let mut buf = ArenaBuffer::<131072>::new();
/// let mut arena = Arena::new(buf.as_mut_slice()).unwrap();
/// let text = arena.stats().to_string();
/// assert!(text.starts_with("syn mem stats\n"));
/// assert!(text.contains("ephemeral            0     114688          0"));
/// ```
impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "syn mem stats")?;
        writeln!(
            f,
            "{:<12}{:>10} {:>10} {:>10}",
            "region", "used", "capacity", "peak"
        )?;
        let rows = [
            (
                "persistent",
                self.persistent_used,
                self.tensor_capacity,
                self.persistent_used,
            ),
            (
                "ephemeral",
                self.ephemeral_used,
                self.ephemeral_capacity(),
                self.ephemeral_peak,
            ),
            (
                "tensor",
                self.persistent_used + self.ephemeral_used,
                self.tensor_capacity,
                self.arena_peak,
            ),
            (
                "scratch",
                self.scratch_used,
                self.scratch_size,
                self.scratch_peak,
            ),
            (
                "shared",
                self.shared_used,
                self.shared_size,
                self.shared_used,
            ),
        ];
        for (name, used, cap, peak) in rows {
            writeln!(f, "{name:<12}{used:>10} {cap:>10} {peak:>10}")?;
        }
        writeln!(
            f,
            "arena {} B, usable {} B ({} B lost to alignment)",
            self.arena_size,
            self.usable_size,
            self.alignment_loss()
        )?;
        writeln!(
            f,
            "allocs {}  resets {}  failed {}",
            self.alloc_count, self.reset_count, self.failed_count
        )
    }
}
