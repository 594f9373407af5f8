//! The text `synmem` prints: the `inspect` tables and the `plan` report (the JSON forms are the
//! serialised [`Model`] / [`Report`](crate::Report), the picture is [`svg`](crate::svg)).
//!
//! Names come from the model file and may hold anything; every name is passed through
//! [`printable`] so no control character (a terminal escape sequence, a newline) reaches the
//! output.

use crate::analysis::Analysis;
use crate::lifetime::{lifetimes, Lifetime};
use crate::model::{Model, TensorKind};
use crate::planner::Strategy;
pub use crate::text::printable;
use serde::Serialize;
use std::fmt::Write;

/// Lower-case name of a tensor kind (`constant`, `variable`, `activation`, `unused`).
pub fn kind_name(k: TensorKind) -> &'static str {
    match k {
        TensorKind::Constant { .. } => "constant",
        TensorKind::Variable => "variable",
        TensorKind::Activation => "activation",
        TensorKind::Unused => "unused",
    }
}

/// What `synmem inspect --json` prints: the model and its activation lifetimes.
#[derive(Clone, Debug, Serialize)]
pub struct InspectReport<'a> {
    /// The model.
    pub model: &'a Model,
    /// Lifetimes of its activations.
    pub lifetimes: Vec<Lifetime>,
}

impl<'a> InspectReport<'a> {
    /// The report of `model`.
    pub fn new(model: &'a Model) -> Self {
        InspectReport {
            model,
            lifetimes: lifetimes(model),
        }
    }
}

/// `synmem inspect`'s tables: a summary line, the tensors (index, kind, dtype, shape, bytes,
/// scopes, name) and the operators (index, opcode, inputs, outputs).
pub fn inspect_text(m: &Model) -> String {
    let lts = lifetimes(m);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "model {}: {} tensors, {} operators, {} subgraph(s); weights {} B, activations {} ({} B)",
        printable(&m.name),
        m.tensors.len(),
        m.operators.len(),
        m.subgraphs,
        m.weights_bytes,
        lts.len(),
        m.activation_sum_bytes()
    );
    let _ = writeln!(s, "inputs {:?}, outputs {:?}\n", m.inputs, m.outputs);
    let _ = writeln!(
        s,
        "{:>5}  {:<10} {:<5} {:<16} {:>9}  {:<9}  name",
        "index", "kind", "dtype", "shape", "bytes", "scopes"
    );
    for t in &m.tensors {
        let scopes = lts
            .iter()
            .find(|l| l.tensor == t.index)
            .map_or(String::new(), |l| {
                format!("{}..={}", l.first_scope, l.last_scope)
            });
        let mut kind = kind_name(t.kind).to_string();
        if t.is_input {
            kind.push_str(" in");
        }
        if t.is_output {
            kind.push_str(" out");
        }
        let name: String = t.name.chars().take(60).collect();
        let _ = writeln!(
            s,
            "{:>5}  {:<10} {:<5} {:<16} {:>9}  {:<9}  {}",
            t.index,
            kind,
            t.dtype.short_name(),
            if t.shape.is_empty() {
                "scalar".into()
            } else {
                t.shape_string()
            },
            t.bytes,
            scopes,
            printable(&name)
        );
    }
    let _ = writeln!(
        s,
        "\n{:>5}  {:<30} {:<24} outputs",
        "op", "opcode", "inputs"
    );
    for op in &m.operators {
        let _ = writeln!(
            s,
            "{:>5}  {:<30} {:<24} {:?}",
            op.index,
            printable(&op.opcode),
            format!("{:?}", op.inputs),
            op.outputs
        );
    }
    s
}

/// `synmem plan`'s report: the regions with their contents, the activation figures, the
/// configuration and the verdict ([`Analysis::verdict`]).
pub fn plan_text(a: &Analysis) -> String {
    let r = &a.report;
    let p = &r.persistent;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "model {}: {} tensors, {} operators, {} activations; strategy {}, inputs/outputs in {}\n",
        printable(&r.model),
        r.tensors,
        r.operators,
        r.activations,
        r.strategy.name(),
        r.io_in.name()
    );
    s.push_str(&ram_text(r));
    let _ = writeln!(
        s,
        "\nbare allocator (syn_mem_init, the Kconfig arena; weights in {}):",
        r.weights_in.name()
    );
    let _ = writeln!(s, "{:<12} {:>10}  contents", "region", "bytes");
    let _ = writeln!(
        s,
        "{:<12} {:>10}  weights {} B data + {} B descriptors, variables {} B, activation descriptors {} B",
        "persistent", r.persistent_bytes, p.weights_data, p.weights_descriptors, p.variables, p.activation_descriptors
    );
    let eph_note = if r.strategy == Strategy::Bump {
        "plain bump: descriptor + data per activation".to_string()
    } else {
        format!(
            "planned (data only; bump would need {} B; bound {} B)",
            r.bump_ephemeral_bytes, r.ephemeral_lower_bound_bytes
        )
    };
    let _ = writeln!(
        s,
        "{:<12} {:>10}  {}",
        "ephemeral", r.ephemeral_bytes, eph_note
    );
    let _ = writeln!(
        s,
        "{:<12} {:>10}  kernel scratch pool",
        "scratch", r.scratch_bytes
    );
    let _ = writeln!(
        s,
        "{:<12} {:>10}  = persistent + ephemeral + scratch",
        "arena", r.arena_bytes_required
    );
    let _ = writeln!(
        s,
        "{:<12} {:>10}  graph inputs/outputs (separate IPC region, not in the arena)\n",
        "shared", r.shared_bytes
    );
    let _ = writeln!(
        s,
        "activations: sum {} B, live lower bound {} B, planned {} B (ratio {:.3}, {})",
        r.activation_sum_bytes,
        r.live_lower_bound_bytes,
        r.planned_activation_bytes,
        r.ratio_to_lower_bound,
        if r.proven_optimal {
            "proven optimal"
        } else {
            "not proven optimal"
        }
    );
    let _ = writeln!(
        s,
        "overlap: lower bound {} B with the kernels' safe output/input overlaps; {}",
        r.overlap_lower_bound_bytes,
        if r.overlap {
            format!(
                "{} pair(s) overlap in this plan (the runtime runs them overlapped; \
                 --no-overlap gives the plain plan)",
                r.overlap_pairs.len()
            )
        } else {
            "not used".to_string()
        }
    );
    let _ = writeln!(
        s,
        "configuration: arena {} B, scratch pool {} B, tensor space {} B",
        r.arena_bytes, r.scratch_pool_bytes, r.tensor_space_bytes
    );
    let _ = writeln!(s, "bare allocator: {}", a.verdict());
    s
}

/// The runtime's RAM figure ([`crate::RuntimeNeed`]), the lines `synmem plan` leads with: the
/// total, its arena and shared region, the arena's parts, and whether it fits (with what would
/// help when it does not).
pub fn ram_text(r: &crate::Report) -> String {
    let n = &r.ram;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "RAM {} B for synaptic-run: arena {} B + shared region {} B (graph I/O{})",
        r.ram_bytes,
        n.arena_bytes,
        n.shared_bytes,
        if n.shared_bytes == 0 {
            " in the arena: --io ephemeral"
        } else {
            ""
        }
    );
    let _ = writeln!(
        s,
        "  arena = plan descriptors {} B + activations {} B + state {} B + kernel scratch {} B + program {} B ({}; weights read in place from flash)",
        n.plan_descriptors_bytes,
        n.activation_bytes,
        n.state_bytes,
        n.scratch_bytes,
        n.program_bytes,
        if n.op_data == "ram" {
            "program in RAM: --op-data ram"
        } else {
            "program in flash: --op-data flash"
        }
    );
    match (&n.supported, &n.unsupported) {
        (Some(false), Some(why)) => {
            let _ = writeln!(
                s,
                "  synaptic-run cannot run this model yet: {}",
                printable(why)
            );
        }
        _ if n.fits => {
            let _ = writeln!(
                s,
                "  fits: give syn_run_load / Arena::exact {} B (synmem emit writes it as ARENA_BYTES; the largest arena is {} B)",
                n.arena_bytes, n.limit_bytes
            );
        }
        _ => {}
    }
    if !n.fits {
        let _ = writeln!(
            s,
            "  does not fit: the arena would be {} B, over the core's limit of {} B; what would help:",
            n.arena_bytes, n.limit_bytes
        );
        for h in &n.help {
            let _ = writeln!(s, "    - {h}");
        }
    }
    s
}
