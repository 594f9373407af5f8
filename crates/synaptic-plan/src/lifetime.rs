//! Tensor lifetimes over the operator schedule.

use crate::model::Model;
use serde::Serialize;

/// When an activation is live, in two equivalent numberings.
///
/// *Scopes* (as in the models README's lifetime tables) count operators from 1 in execution
/// order; scope 0 is "before the first operator", where graph inputs are born. A tensor is live
/// from the operator that produces it (scope 0 for a graph input) through the last operator
/// that reads it (the last scope, `operators.len()`, for a graph output), inclusive.
///
/// *Ops* (as in [`synaptic_mem::PlanSlot`]) are 0-based operator indices: `first_op =
/// max(first_scope, 1) - 1`, `last_op = max(last_scope, 1) - 1`, so scope 0 merges into op 0
/// (a graph input is live at the first operator).
///
/// ```
/// use synaptic_plan::Lifetime;
/// let l = Lifetime { tensor: 0, first_scope: 0, last_scope: 3 };
/// assert_eq!((l.first_op(), l.last_op()), (0, 2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Lifetime {
    /// Tensor index.
    pub tensor: usize,
    /// First scope at which the tensor is live.
    pub first_scope: usize,
    /// Last scope at which the tensor is live (inclusive).
    pub last_scope: usize,
}

impl Lifetime {
    /// First 0-based operator at which the tensor is live.
    pub fn first_op(&self) -> usize {
        self.first_scope.max(1) - 1
    }
    /// Last 0-based operator at which the tensor is live (inclusive).
    pub fn last_op(&self) -> usize {
        self.last_scope.max(1) - 1
    }
    /// Whether the two lifetimes share a scope.
    pub fn overlaps(&self, other: &Lifetime) -> bool {
        self.first_scope <= other.last_scope && other.first_scope <= self.last_scope
    }
}

/// Lifetimes of every activation of `model`, in ascending tensor order.
///
/// Rules: born at the first operator that outputs it (scope `op + 1`), or at scope 0 if it is a
/// graph input or no operator produces it; dies after the last operator that reads it, or at
/// the last scope if it is a graph output; a tensor nobody reads dies where it is born.
pub fn lifetimes(model: &Model) -> Vec<Lifetime> {
    let n = model.tensors.len();
    let end = model.operators.len();
    let mut first: Vec<Option<usize>> = vec![None; n];
    let mut last: Vec<Option<usize>> = vec![None; n];
    for op in &model.operators {
        let scope = op.index + 1;
        for &t in &op.outputs {
            first[t].get_or_insert(scope);
        }
        for &t in &op.inputs {
            last[t] = Some(last[t].map_or(scope, |l| l.max(scope)));
        }
    }
    model
        .activations()
        .map(|t| {
            let born = if t.is_input {
                0
            } else {
                first[t.index].unwrap_or(0)
            };
            let dies = if t.is_output {
                end
            } else {
                last[t.index].unwrap_or(born).max(born)
            };
            Lifetime {
                tensor: t.index,
                first_scope: born,
                last_scope: dies,
            }
        })
        .collect()
}

/// The live-set lower bound: the largest total, over scopes, of the activations live at that
/// scope, each rounded up to 16 bytes. Variable tensors are not activations and are not
/// counted. No plan of these activations can be smaller.
pub fn live_lower_bound(model: &Model, lifetimes: &[Lifetime]) -> u64 {
    let scopes = model.operators.len() + 1;
    let mut diff = vec![0i128; scopes + 1];
    for l in lifetimes {
        let size = crate::align16(model.tensors[l.tensor].bytes) as i128;
        diff[l.first_scope] += size;
        diff[l.last_scope + 1] -= size;
    }
    let (mut cur, mut best) = (0i128, 0i128);
    for d in diff {
        cur += d;
        best = best.max(cur);
    }
    best as u64
}
