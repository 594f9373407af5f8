//! The seeded input of `synmem run --random SEED` and of the firmware images' benchmarks (one
//! function, so the host and the target run the same bytes): the graph inputs in order, each
//! integer tensor one splitmix64 step per byte (its low byte), each float32 tensor one step per
//! element, uniform in `[-1, 1)` (24 random bits: every value exact, never a NaN or an
//! infinity, which random bytes would give).

use crate::error::LoadError;
use crate::model::{tinfo, Graph};
use synaptic_tflite::TensorType;

/// Fills `out` with the seeded input of `model` (module docs); `out` must be exactly the
/// model's input bytes ([`LoadError::ProgramBuffer`] names the size otherwise).
///
/// ```
/// let model = synaptic_tflite::tests_support::tiny_model();
/// let mut a = [0u8; 132]; // its two int8 inputs
/// synaptic_run::seeded::seeded_input(model, 1, &mut a).unwrap();
/// let mut b = [0u8; 132];
/// synaptic_run::seeded::seeded_input(model, 1, &mut b).unwrap();
/// assert_eq!(a, b);
/// ```
pub fn seeded_input(model: &[u8], seed: u64, out: &mut [u8]) -> Result<(), LoadError> {
    let g = Graph::open(model)?;
    let needed = g.io_bytes(0, g.n_inputs)?;
    if needed != out.len() {
        return Err(LoadError::ProgramBuffer {
            needed,
            got: out.len(),
        });
    }
    let mut state = seed;
    let mut at = 0;
    for &t in &g.io_tensor[..g.n_inputs] {
        let info = tinfo(&g.model, &g.sg, usize::from(t))?;
        let bytes = &mut out[at..at + info.bytes];
        at += info.bytes;
        if info.ty == TensorType::Float32 {
            for e in bytes.chunks_exact_mut(4) {
                let u = (splitmix64(&mut state) >> 40) as f32 / (1u32 << 24) as f32;
                e.copy_from_slice(&(2.0 * u - 1.0).to_le_bytes());
            }
        } else {
            for b in bytes {
                *b = splitmix64(&mut state) as u8;
            }
        }
    }
    Ok(())
}

/// One step of splitmix64.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
