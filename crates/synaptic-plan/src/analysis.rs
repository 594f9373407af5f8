//! Sizing by region, in the spec's terms, and the verdict against an arena configuration.

use crate::lifetime::{lifetimes, live_lower_bound, Lifetime};
use crate::model::{Model, TensorKind};
use crate::planner::{plan_items, MemoryPlan, PlanItem, PlanOptions, Strategy};
use crate::{align16, ImportError};
use serde::Serialize;
use synaptic_mem::{ArenaConfig, DESC_SPAN};

const DESC: u64 = DESC_SPAN as u64;

/// Where constant tensors (weights, biases) live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum WeightsPlacement {
    /// Copied into the persistent region (the spec's default): descriptor + data each.
    #[default]
    Sram,
    /// Left in flash, as most MCU runtimes do: only their descriptors are persistent.
    Flash,
}

impl WeightsPlacement {
    /// Lower-case name (`sram`, `flash`).
    pub fn name(self) -> &'static str {
        match self {
            WeightsPlacement::Sram => "sram",
            WeightsPlacement::Flash => "flash",
        }
    }
}

impl IoPlacement {
    /// Lower-case name (`shared`, `ephemeral`).
    pub fn name(self) -> &'static str {
        match self {
            IoPlacement::Shared => "shared",
            IoPlacement::Ephemeral => "ephemeral",
        }
    }
}

/// Where the model's input and output tensors live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum IoPlacement {
    /// In the separately registered shared (IPC) region (the spec's SHARED lifetime; default).
    #[default]
    Shared,
    /// Planned with the other activations in the ephemeral region.
    Ephemeral,
}

/// What to size against.
///
/// ```
/// use synaptic_plan::SizingOptions;
/// let o = SizingOptions::default();
/// assert_eq!((o.arena_bytes, o.scratch_bytes), (131_072, 16_384));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SizingOptions {
    /// Arena size of the configuration to check (`--arena`; default 131072).
    pub arena_bytes: usize,
    /// Scratch pool size of the configuration (`--scratch`; default 16384). Without a
    /// per-operator table it is also the scratch figure the model is sized with.
    pub scratch_bytes: usize,
    /// Optional per-operator kernel scratch (bytes per operator, execution order); the scratch
    /// need is then its largest entry rounded up to 16.
    pub scratch_per_op: Option<Vec<u64>>,
    /// Where weights live.
    pub weights: WeightsPlacement,
    /// Where graph inputs/outputs live.
    pub io: IoPlacement,
    /// Planner settings (strategy and search budget).
    pub plan: PlanOptions,
}

impl Default for SizingOptions {
    fn default() -> Self {
        SizingOptions {
            arena_bytes: synaptic_mem::DEFAULT_ARENA_SIZE,
            scratch_bytes: synaptic_mem::DEFAULT_SCRATCH_SIZE,
            scratch_per_op: None,
            weights: WeightsPlacement::Sram,
            io: IoPlacement::Shared,
            plan: PlanOptions::default(),
        }
    }
}

/// A region that is too small.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Shortfall {
    /// `"persistent"`, `"ephemeral"` or `"scratch"`.
    pub region: &'static str,
    /// Bytes missing.
    pub bytes: u64,
}

/// Persistent region breakdown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Default)]
pub struct PersistentBreakdown {
    /// Weight data (16-byte rounded, one block per distinct buffer; 0 with weights in flash).
    pub weights_data: u64,
    /// Weight descriptors (32 bytes each).
    pub weights_descriptors: u64,
    /// Variable tensors (LSTM/SVDF state): descriptor + data each.
    pub variables: u64,
    /// Descriptors of planned activations (32 bytes each; 0 with the bump strategy).
    pub activation_descriptors: u64,
}

/// The sizing report: every figure `synmem plan` prints. The first fields are the stable JSON
/// interface (names fixed by the issue); the rest are extras.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// Model name.
    pub model: String,
    /// Tensors in the main subgraph.
    pub tensors: usize,
    /// Operators in the main subgraph.
    pub operators: usize,
    /// Bytes of constant data, each distinct buffer once.
    pub weights_bytes: u64,
    /// Bytes of all activations, unrounded.
    pub activation_sum_bytes: u64,
    /// Live-set lower bound on the activation region (16-byte rounded, all activations).
    pub live_lower_bound_bytes: u64,
    /// Planned region for all activations (inputs/outputs included), with the chosen strategy:
    /// the figure to compare with the bound and with TFLM.
    pub planned_activation_bytes: u64,
    /// Whether `planned_activation_bytes` is proven minimal.
    pub proven_optimal: bool,
    /// Persistent region: weights (unless in flash), variables, descriptors.
    pub persistent_bytes: u64,
    /// Ephemeral region: the planned region of the ephemeral activations (data only), or with
    /// the bump strategy descriptor + data of each.
    pub ephemeral_bytes: u64,
    /// Scratch figure (per-operator maximum, or the `--scratch` pool).
    pub scratch_bytes: u64,
    /// Shared (IPC) region: descriptor + data of each graph input/output (0 with `--io
    /// ephemeral`). Registered separately; not part of the arena.
    pub shared_bytes: u64,
    /// persistent + ephemeral + scratch: the smallest arena that runs the model.
    pub arena_bytes_required: u64,
    /// Whether the model fits the configuration.
    pub fits: bool,
    // ---- extras ----
    /// Strategy used.
    pub strategy: Strategy,
    /// Where weights live.
    pub weights_in: WeightsPlacement,
    /// Where graph inputs/outputs live.
    pub io_in: IoPlacement,
    /// Activations (tensors needing an ephemeral or shared block).
    pub activations: usize,
    /// The spec's plain bump figure for the ephemeral activations: descriptor + data each.
    pub bump_ephemeral_bytes: u64,
    /// Live-set lower bound of the ephemeral activations only.
    pub ephemeral_lower_bound_bytes: u64,
    /// `planned_activation_bytes / live_lower_bound_bytes`.
    pub ratio_to_lower_bound: f64,
    /// Persistent breakdown.
    pub persistent: PersistentBreakdown,
    /// Arena size checked against.
    pub arena_bytes: u64,
    /// Scratch pool size checked against.
    pub scratch_pool_bytes: u64,
    /// Tensor space of the configuration (arena − scratch pool).
    pub tensor_space_bytes: u64,
    /// Regions that are too small (empty when it fits).
    pub short_by: Vec<Shortfall>,
    /// Smallest arena size the core accepts that runs the model: `arena_bytes_required`,
    /// raised to the core's 4096-byte minimum and above the scratch pool (the core needs some
    /// tensor space).
    pub min_valid_arena_bytes: u64,
    /// Planning time of both plans, microseconds.
    pub planning_micros: u64,
}

/// Everything known about a model: graph, lifetimes, both plans and the report.
///
/// ```no_run
/// use synaptic_plan::{Analysis, Model, SizingOptions};
/// let model = Model::from_file("person_detect.tflite")?;
/// let a = Analysis::new(model, &SizingOptions::default())?;
/// println!("needs {} B, fits: {}", a.report.arena_bytes_required, a.report.fits);
/// assert_eq!(a.ephemeral_plan.core_plan().validate(), Ok(()));
/// # Ok::<(), synaptic_plan::ImportError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The model.
    pub model: Model,
    /// Lifetimes of all activations (ascending tensor index).
    pub lifetimes: Vec<Lifetime>,
    /// Plan of all activations (`activation_plan.items[k]` is `lifetimes[k]`'s tensor).
    pub activation_plan: MemoryPlan,
    /// Tensor index of each item of `ephemeral_plan` (its slot order).
    pub ephemeral_tensors: Vec<usize>,
    /// Plan of the ephemeral activations: what the core consumes.
    pub ephemeral_plan: MemoryPlan,
    /// Tensor indices in the shared region (inputs then outputs, each once).
    pub shared_tensors: Vec<usize>,
    /// Options used.
    pub options: SizingOptions,
    /// The report.
    pub report: Report,
}

impl Analysis {
    /// Computes lifetimes, plans and sizes. Fails only on an invalid arena configuration or a
    /// model the plan format cannot express (more than 65535 operators, a tensor over 4 GB).
    pub fn new(model: Model, options: &SizingOptions) -> Result<Analysis, ImportError> {
        let cfg = ArenaConfig {
            arena_size: options.arena_bytes,
            scratch_size: options.scratch_bytes,
        };
        cfg.validate().map_err(|e| ImportError::Config {
            detail: e.to_string(),
        })?;
        if model.operators.len() > u16::MAX as usize + 1 {
            return Err(ImportError::unsupported(format!(
                "{} operators; the plan format holds at most 65536",
                model.operators.len()
            )));
        }
        let lts = lifetimes(&model);
        let item = |l: &Lifetime| PlanItem {
            bytes: model.tensors[l.tensor].bytes,
            first_op: l.first_op(),
            last_op: l.last_op(),
        };
        let all_items: Vec<PlanItem> = lts.iter().map(item).collect();
        let activation_plan = plan_items(&all_items, &options.plan);

        let mut shared_tensors = Vec::new();
        let mut is_shared = vec![false; model.tensors.len()];
        if options.io == IoPlacement::Shared {
            for &t in model.inputs.iter().chain(&model.outputs) {
                if model.tensors[t].is_activation() && !is_shared[t] {
                    is_shared[t] = true;
                    shared_tensors.push(t);
                }
            }
        }
        let eph_lts: Vec<&Lifetime> = lts.iter().filter(|l| !is_shared[l.tensor]).collect();
        let ephemeral_tensors: Vec<usize> = eph_lts.iter().map(|l| l.tensor).collect();
        let eph_items: Vec<PlanItem> = eph_lts.iter().map(|l| item(l)).collect();
        let ephemeral_plan = plan_items(&eph_items, &options.plan);
        let too_big = |b: u64| b > u32::MAX as u64;
        if too_big(activation_plan.region_size) || too_big(ephemeral_plan.region_size) {
            return Err(ImportError::unsupported(format!(
                "activations need {} B, beyond the plan format's 4 GiB",
                activation_plan.region_size
            )));
        }

        // Persistent region.
        let mut p = PersistentBreakdown::default();
        let mut seen = std::collections::BTreeSet::new();
        for t in &model.tensors {
            match t.kind {
                TensorKind::Constant { buffer } if seen.insert(buffer) => {
                    p.weights_descriptors += DESC;
                    if options.weights == WeightsPlacement::Sram {
                        p.weights_data += align16(t.bytes);
                    }
                }
                TensorKind::Variable => p.variables += DESC + align16(t.bytes),
                _ => {}
            }
        }
        let bump_ephemeral: u64 = eph_items.iter().map(|i| DESC + i.span()).sum();
        let ephemeral_bytes = if options.plan.strategy == Strategy::Bump {
            bump_ephemeral
        } else {
            p.activation_descriptors = DESC * eph_items.len() as u64;
            ephemeral_plan.region_size
        };
        let persistent_bytes =
            p.weights_data + p.weights_descriptors + p.variables + p.activation_descriptors;
        let shared_bytes: u64 = shared_tensors
            .iter()
            .map(|&t| DESC + align16(model.tensors[t].bytes))
            .sum();
        let scratch_need = match &options.scratch_per_op {
            Some(table) => align16(table.iter().copied().max().unwrap_or(0)),
            None => options.scratch_bytes as u64,
        };
        let arena_bytes_required = persistent_bytes + ephemeral_bytes + scratch_need;

        // Verdict.
        let space = (options.arena_bytes - options.scratch_bytes) as u64;
        let mut short_by = Vec::new();
        let tensor_need = persistent_bytes + ephemeral_bytes;
        if tensor_need > space {
            let region = if persistent_bytes > space {
                "persistent"
            } else {
                "ephemeral"
            };
            short_by.push(Shortfall {
                region,
                bytes: tensor_need - space,
            });
        }
        if scratch_need > options.scratch_bytes as u64 {
            short_by.push(Shortfall {
                region: "scratch",
                bytes: scratch_need - options.scratch_bytes as u64,
            });
        }
        let live_lb = live_lower_bound(&model, &lts);
        let report = Report {
            model: model.name.clone(),
            tensors: model.tensors.len(),
            operators: model.operators.len(),
            weights_bytes: model.weights_bytes,
            activation_sum_bytes: model.activation_sum_bytes(),
            live_lower_bound_bytes: live_lb,
            planned_activation_bytes: activation_plan.region_size,
            proven_optimal: activation_plan.proven_optimal,
            persistent_bytes,
            ephemeral_bytes,
            scratch_bytes: scratch_need,
            shared_bytes,
            arena_bytes_required,
            fits: short_by.is_empty(),
            strategy: options.plan.strategy,
            weights_in: options.weights,
            io_in: options.io,
            activations: lts.len(),
            bump_ephemeral_bytes: bump_ephemeral,
            ephemeral_lower_bound_bytes: ephemeral_plan.lower_bound,
            ratio_to_lower_bound: if live_lb == 0 {
                1.0
            } else {
                activation_plan.region_size as f64 / live_lb as f64
            },
            persistent: p,
            arena_bytes: options.arena_bytes as u64,
            scratch_pool_bytes: options.scratch_bytes as u64,
            tensor_space_bytes: space,
            short_by,
            min_valid_arena_bytes: arena_bytes_required
                .max(synaptic_mem::MIN_ARENA_SIZE as u64)
                .max(options.scratch_bytes as u64 + 16),
            planning_micros: activation_plan.stats.micros + ephemeral_plan.stats.micros,
        };
        Ok(Analysis {
            model,
            lifetimes: lts,
            activation_plan,
            ephemeral_tensors,
            ephemeral_plan,
            shared_tensors,
            options: options.clone(),
            report,
        })
    }

    /// The verdict as one line: `fits (…)` or `does not fit: short by N bytes in …`.
    pub fn verdict(&self) -> String {
        let r = &self.report;
        if r.fits {
            format!(
                "fits: needs {} of {} arena bytes ({} spare)",
                r.arena_bytes_required,
                r.arena_bytes,
                (r.arena_bytes).saturating_sub(r.arena_bytes_required)
            )
        } else {
            let parts: Vec<String> = r
                .short_by
                .iter()
                .map(|s| {
                    let why = if s.region == "scratch" {
                        format!(
                            "kernels need {} B, pool {} B",
                            r.scratch_bytes, r.scratch_pool_bytes
                        )
                    } else {
                        format!(
                            "persistent {} B + ephemeral {} B > tensor space {} B",
                            r.persistent_bytes, r.ephemeral_bytes, r.tensor_space_bytes
                        )
                    };
                    format!(
                        "short by {} bytes in the {} region ({why})",
                        s.bytes, s.region
                    )
                })
                .collect();
            format!(
                "does not fit: {}; smallest arena that runs it: {} B",
                parts.join(", "),
                r.min_valid_arena_bytes
            )
        }
    }
}
