//! Replays a model's whole allocation sequence through the core's safe API (`Arena`,
//! `Loader`, `Runner::inference` for the bump path, `Loader::load_plan` + `Runner::planned`
//! for plans) on an arena of given parameters: persistent load (weights, or with weights in
//! flash one block of their descriptors; variables), shared I/O, then inferences with every
//! activation, its canary bytes checked at every operator it is live at, and scratch — one
//! buffer of the whole configured pool, or with a per-operator table each operator's entry
//! (released only by the reset, as on the core).
#![allow(dead_code)]

use super::aligned;
use synaptic_mem::{Arena, DType, Plan, Stats};
use synaptic_plan::AllocationSequence;

/// The canary byte of tensor `t`.
pub fn canary(tensor: usize) -> u8 {
    (tensor % 251) as u8 + 1
}

/// Asserts that a live activation still holds its canary bytes at operator `op`.
fn assert_intact(seq: &AllocationSequence, tensor: usize, bytes: &[u8], op: usize) {
    assert!(
        bytes.iter().all(|&b| b == canary(tensor)),
        "{}: tensor {tensor} damaged at op {op}",
        seq.model
    );
}

/// What to replay on.
#[derive(Clone, Copy, Debug)]
pub struct Setup<'t> {
    /// Arena buffer length (the `ArenaConfig::arena_size`).
    pub arena: usize,
    /// Scratch pool size (`ArenaConfig::scratch_size`).
    pub scratch: usize,
    /// The planned path (`load_plan` + `planned`) instead of the plain bump path.
    pub planned: bool,
    /// Per-operator scratch; `None`: one acquisition of `scratch` bytes per inference.
    pub per_op: Option<&'t [u64]>,
    /// Inferences to run.
    pub inferences: usize,
}

/// Runs the sequence; the first failure as text (configuration, allocation or plan error).
pub fn replay(seq: &AllocationSequence, s: Setup<'_>) -> Result<Stats, String> {
    let mut store = Vec::new();
    let mut shared_store = Vec::new();
    let mut arena =
        Arena::with_scratch(aligned(&mut store, s.arena), s.scratch).map_err(|e| e.to_string())?;
    if seq.shared_bytes > 0 {
        arena
            .set_shared_region(aligned(&mut shared_store, seq.shared_bytes as usize))
            .map_err(|e| e.to_string())?;
    }
    let (loader, mut runner) = arena.split();
    let mut kept = Vec::new();
    for p in seq.persistent.iter().filter(|p| !p.data_in_flash) {
        let mut t = loader
            .persistent(&p.request.shape, p.request.dtype)
            .map_err(|e| format!("persistent tensor {}: {e}", p.tensor.tensor))?;
        t.bytes_mut().fill(canary(p.tensor.tensor));
        kept.push((canary(p.tensor.tensor), t));
    }
    if seq.flash_descriptor_bytes > 0 {
        // The descriptors of weights left in flash, as one block of the same size.
        let data = seq.flash_descriptor_bytes - synaptic_mem::DESC_SPAN as u64;
        assert!(
            data > 0,
            "one flash descriptor cannot be replayed as a block"
        );
        loader
            .persistent(&[data as u32], DType::Int8)
            .map_err(|e| format!("flash weight descriptors: {e}"))?;
    }
    for sh in &seq.shared {
        let mut t = loader
            .shared(&sh.request.shape, sh.request.dtype)
            .map_err(|e| format!("shared tensor {}: {e}", sh.tensor.tensor))?;
        t.bytes_mut().fill(canary(sh.tensor.tensor));
        kept.push((canary(sh.tensor.tensor), t));
    }
    let scratch_at = |op: usize| -> usize {
        match s.per_op {
            Some(t) => t[op] as usize,
            None => 0,
        }
    };
    let whole_pool = if s.per_op.is_none() { s.scratch } else { 0 };
    let ops = seq.operators;
    if s.planned && !seq.plan_slots.is_empty() {
        let plan = loader
            .load_plan(Plan {
                region_size: seq.plan_region_size as u32,
                slots: &seq.plan_slots,
            })
            .map_err(|e| e.to_string())?;
        for _ in 0..s.inferences {
            runner
                .planned(&plan, |p| -> Result<(), String> {
                    for a in &seq.activations {
                        p.alloc(a.slot, &a.request.shape, a.request.dtype)
                            .map_err(|e| format!("activation {}: {e}", a.tensor.tensor))?;
                    }
                    if whole_pool > 0 {
                        let b = p
                            .inference()
                            .scratch(whole_pool)
                            .map_err(|e| format!("scratch: {e}"))?;
                        b.fill(0xEE);
                    }
                    for op in 0..ops {
                        let op16 = op as u16;
                        if scratch_at(op) > 0 {
                            let b = p
                                .inference()
                                .scratch(scratch_at(op))
                                .map_err(|e| format!("scratch of operator {op}: {e}"))?;
                            b.fill(0xEE);
                        }
                        for a in seq.activations.iter().filter(|a| a.first_op == op) {
                            let [mut t] = p.at(op16, [a.slot]).map_err(|e| e.to_string())?;
                            t.bytes_mut().fill(canary(a.tensor.tensor));
                        }
                        for a in seq
                            .activations
                            .iter()
                            .filter(|a| a.first_op <= op && op <= a.last_op)
                        {
                            let [t] = p.at(op16, [a.slot]).map_err(|e| e.to_string())?;
                            assert_eq!(t.size(), a.request.bytes as usize);
                            assert_intact(seq, a.tensor.tensor, t.bytes(), op);
                        }
                    }
                    Ok(())
                })
                .map_err(|e| e.to_string())??;
        }
    } else {
        for _ in 0..s.inferences {
            runner.inference(|inf| -> Result<(), String> {
                if whole_pool > 0 {
                    let b = inf
                        .scratch(whole_pool)
                        .map_err(|e| format!("scratch: {e}"))?;
                    b.fill(0xEE);
                }
                let mut live = Vec::new();
                for op in 0..ops {
                    if scratch_at(op) > 0 {
                        let b = inf
                            .scratch(scratch_at(op))
                            .map_err(|e| format!("scratch of operator {op}: {e}"))?;
                        b.fill(0xEE);
                    }
                    for a in seq.activations.iter().filter(|a| a.first_op == op) {
                        let mut t = inf
                            .ephemeral(&a.request.shape, a.request.dtype)
                            .map_err(|e| format!("activation {}: {e}", a.tensor.tensor))?;
                        t.bytes_mut().fill(canary(a.tensor.tensor));
                        live.push((a, t));
                    }
                    for (a, t) in live
                        .iter()
                        .filter(|(a, _)| a.first_op <= op && op <= a.last_op)
                    {
                        assert_intact(seq, a.tensor.tensor, t.bytes(), op);
                    }
                }
                Ok(())
            })?;
        }
    }
    for (c, t) in &kept {
        assert!(
            t.bytes().iter().all(|b| b == c),
            "{}: weights or I/O damaged",
            seq.model
        );
    }
    Ok(runner.stats())
}
