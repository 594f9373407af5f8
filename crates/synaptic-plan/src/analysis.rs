//! Sizing by region, in the spec's terms, and the verdict against an arena configuration.

use crate::error::ImportError;
use crate::lifetime::{lifetimes, live_lower_bound, Lifetime};
use crate::model::{Model, TensorKind};
use crate::overlap;
use crate::planner::{items_lower_bound, plan_items, MemoryPlan, PlanItem, PlanOptions, Strategy};
use serde::Serialize;
use synaptic_mem::plan::OverlapDirection;
use synaptic_mem::{block_span, data_span, ArenaConfig, ArenaLayout, DESC_SPAN};

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
    /// per-operator table the pool the core lays out for it (rounded up to 16) is also the
    /// scratch figure the model is sized with.
    pub scratch_bytes: usize,
    /// Optional per-operator kernel scratch (bytes per operator, execution order; one entry per
    /// operator, checked by [`Analysis::new`]). Each operator acquires its entry from the
    /// scratch pool during the inference; the core's scratch release is a no-op, so the
    /// buffers of one inference accumulate until the reset: the pool must hold the sum of the
    /// entries, each rounded up to 16 ([`scratch_table_pool`]).
    pub scratch_per_op: Option<Vec<u64>>,
    /// Where weights live.
    pub weights: WeightsPlacement,
    /// Where graph inputs/outputs live.
    pub io: IoPlacement,
    /// Planner settings (strategy and search budget).
    pub plan: PlanOptions,
    /// Plan below the live-set bound: outputs overlapping dying inputs as the kernels' access
    /// contracts allow ([`crate::overlap`]). On by default: such a plan declares its overlaps
    /// ([`MemoryPlan::overlaps`]), which `synaptic_run::Interpreter` loads with the plan
    /// (`RunPlan::overlapped`), checks against its own contracts and runs overlapped. Off
    /// (`--no-overlap`) gives the plain plan (no declared overlap), for runtimes that do not run
    /// overlapped operators (the C API's typed plans, `syn_mem_plan_*`; TFLM).
    pub overlap: bool,
    /// Bytes of synaptic-run's compiled program when it lives in the arena (`--op-data ram`:
    /// compiled at load into the persistent region); `None` when it is read from flash
    /// (`--op-data flash`, what `synmem emit` writes by default). Only the runtime's RAM figure
    /// ([`RuntimeNeed`]) depends on it; synaptic-run knows the size (synmem compiles it).
    pub program_in_ram_bytes: Option<u64>,
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
            overlap: true,
            program_in_ram_bytes: None,
        }
    }
}

/// What synaptic-run needs in RAM to run the model in this configuration: **the one RAM
/// figure** (`ram_bytes`), what `synmem plan` leads with and `synmem emit` writes as
/// `ARENA_BYTES` / `SHARED_BYTES` / `RAM_BYTES`. The runtime reads weights in place (flash), so
/// no weight byte is in it, whatever `--weights` says (that option is the bare allocator's).
///
/// `arena_bytes` is exactly what `syn_run_load` (`syn_run_config_t.arena_size`) or
/// `Interpreter::new` / `with_program` on [`synaptic_mem::Arena::exact`] need, and
/// `synmem run --json` prints the same `arena_bytes` after a real load: the plan's
/// descriptor table, its activations, the model's state (variable tensors), the kernels'
/// scratch and, with the program in RAM, the program; [`synaptic_mem::config::exact_arena_size`]
/// of them. `shared_bytes` is the SHARED region the graph I/O takes (0 with `--io ephemeral`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RuntimeNeed {
    /// The arena to give the runtime (exactly sized).
    pub arena_bytes: u64,
    /// The SHARED (IPC) region to register beside it: descriptor + data of each graph
    /// input/output, at least [`synaptic_mem::MIN_SHARED_SIZE`]; 0 with `--io ephemeral`.
    pub shared_bytes: u64,
    /// Of `arena_bytes`: the plan's descriptor table ([`DESC_SPAN`] per slot).
    pub plan_descriptors_bytes: u64,
    /// Of `arena_bytes`: the plan's activation region.
    pub activation_bytes: u64,
    /// Of `arena_bytes`: variable tensors (the model's state across invocations), descriptor +
    /// data each.
    pub state_bytes: u64,
    /// Of `arena_bytes`: the scratch pool synaptic-run's kernels need, the largest block one
    /// operator takes per call ([`Operator::kernel_scratch`](crate::Operator::kernel_scratch);
    /// each block goes back to the pool when its kernel returns, so the pool is the maximum
    /// over the operators, not their sum).
    pub scratch_bytes: u64,
    /// Of `arena_bytes`: the compiled program with `--op-data ram` (descriptor included); 0
    /// with the program in flash.
    pub program_bytes: u64,
    /// `"flash"` or `"ram"`: where the compiled program lives.
    pub op_data: &'static str,
    /// Whether the arena is within the core's largest ([`synaptic_mem::MAX_ARENA_SIZE`]).
    pub fits: bool,
    /// The largest arena the core accepts.
    pub limit_bytes: u64,
    /// When it does not fit: what would help, one suggestion per entry (empty when it fits).
    pub help: Vec<String>,
    /// Whether synaptic-run can run the model (`None` when not asked: synaptic-plan does not
    /// link the runtime; `synmem` fills it in).
    pub supported: Option<bool>,
    /// Why synaptic-run cannot run it, when `supported` is `Some(false)`.
    pub unsupported: Option<String>,
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
    /// Weight descriptors ([`DESC_SPAN`] = 32 bytes each).
    pub weights_descriptors: u64,
    /// Variable tensors (LSTM/SVDF state) and kernels' private states (a signal library
    /// delay line's): descriptor + data each.
    pub variables: u64,
    /// Descriptors of planned activations ([`DESC_SPAN`] each; 0 with the bump strategy).
    pub activation_descriptors: u64,
}

/// The sizing report: every figure `synmem plan` prints. The first fields are the stable JSON
/// interface (names fixed by the issue); the rest are extras.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// Model name.
    pub model: String,
    /// **The RAM synaptic-run needs** for this configuration: `ram.arena_bytes +
    /// ram.shared_bytes` ([`RuntimeNeed`]). The figures after `ram` are the bare allocator's
    /// (the spec's `syn_mem_init` arena with weights copied to SRAM, the Kconfig scratch pool).
    pub ram_bytes: u64,
    /// Its breakdown.
    pub ram: RuntimeNeed,
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
    /// Scratch pool the model is sized with, as the core lays it out
    /// ([`synaptic_mem::ArenaLayout::scratch_capacity`]): the `--scratch` pool rounded up to 16,
    /// or with a per-operator table the pool it needs ([`scratch_table_pool`]).
    pub scratch_bytes: u64,
    /// Shared (IPC) region: descriptor + data of each graph input/output (0 with `--io
    /// ephemeral`). Registered separately; not part of the arena.
    pub shared_bytes: u64,
    /// Bare allocator: persistent + ephemeral + scratch: the smallest arena that runs the model
    /// with that scratch pool and weights as `--weights` says (not the runtime's figure:
    /// `ram_bytes`) (below the core's 4096-byte minimum for tiny models; see
    /// `min_valid_arena_bytes`).
    pub arena_bytes_required: u64,
    /// Bare allocator: whether the model fits the configuration (`--arena`, `--scratch`,
    /// `--weights`). The runtime's verdict is `ram.fits`.
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
    /// Tensor space of the configuration, as the core lays it out
    /// ([`synaptic_mem::ArenaLayout::tensor_capacity`]: usable arena − scratch pool rounded up
    /// to 16).
    pub tensor_space_bytes: u64,
    /// Regions that are too small (empty when it fits).
    pub short_by: Vec<Shortfall>,
    /// Smallest arena size the core accepts that runs the model with the scratch pool it is
    /// sized with, found with the core's own layout ([`ArenaConfig::layout`]):
    /// `arena_bytes_required` raised to the core's 4096-byte minimum, or to the least arena that
    /// leaves tensor space above that pool. When no arena the core accepts is large enough,
    /// `arena_bytes_required` (over the 524288-byte maximum).
    pub min_valid_arena_bytes: u64,
    /// Planning time of both plans, microseconds.
    pub planning_micros: u64,
    /// Live-set lower bound with every operator's output counted at its best safe overlap with
    /// its dying inputs ([`crate::overlap::overlap_lower_bound`]); equal to
    /// `live_lower_bound_bytes` when no kernel contract allows an overlap. Reported whether or
    /// not the plan overlaps.
    pub overlap_lower_bound_bytes: u64,
    /// Whether the plans were made with overlaps allowed ([`SizingOptions::overlap`], not with
    /// the bump strategy).
    pub overlap: bool,
    /// The declared overlaps of the all-activations plan (`planned_activation_bytes`).
    pub overlap_pairs: Vec<OverlapInfo>,
}

/// One declared overlap of the all-activations plan, by tensor.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OverlapInfo {
    /// The operator.
    pub op: usize,
    /// The input tensor (dies at `op`).
    pub input_tensor: usize,
    /// The output tensor (born at `op`).
    pub output_tensor: usize,
    /// `"forward"` or `"backward"`.
    pub direction: &'static str,
    /// `output offset − input offset`, bytes.
    pub delta: i64,
    /// The contract's bound on the delta (largest forward, smallest backward).
    pub bound: i32,
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
    /// Computes lifetimes, plans and sizes. Fails on an invalid arena configuration
    /// ([`ImportError::Config`]), a scratch table that does not have one entry per operator or
    /// needs more than the core's largest scratch pool ([`ImportError::ScratchTable`]), or a
    /// model the plan format cannot express (more than 65536 operators, a region over 4 GiB).
    pub fn new(model: Model, options: &SizingOptions) -> Result<Analysis, ImportError> {
        let layout = ArenaConfig {
            arena_size: options.arena_bytes,
            scratch_size: options.scratch_bytes,
        }
        .layout()
        .map_err(|e| ImportError::Config {
            detail: e.to_string(),
        })?;
        // The scratch pool the model needs: the configured one, or the table's.
        let scratch_pool = match &options.scratch_per_op {
            Some(table) => {
                if table.len() != model.operators.len() {
                    return Err(ImportError::ScratchTable {
                        detail: format!(
                            "scratch table has {} entries, the model has {} operators",
                            table.len(),
                            model.operators.len()
                        ),
                    });
                }
                scratch_table_pool(table)?
            }
            None => options.scratch_bytes,
        };
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
        let all_tensors: Vec<usize> = lts.iter().map(|l| l.tensor).collect();
        let all_candidates = overlap::candidates(&model, &all_tensors, &all_items);
        let overlap_lb = overlap::overlap_lower_bound(&all_items, &all_candidates);
        // Bump means no reuse at all: no overlap either.
        let overlap = options.overlap && options.plan.strategy != Strategy::Bump;
        let activation_plan = if overlap {
            overlap::plan_overlapped(&all_items, &all_candidates, &options.plan)
        } else {
            plan_items(&all_items, &options.plan)
        };

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
        let ephemeral_plan = if overlap {
            let cands = overlap::candidates(&model, &ephemeral_tensors, &eph_items);
            overlap::plan_overlapped(&eph_items, &cands, &options.plan)
        } else {
            plan_items(&eph_items, &options.plan)
        };
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
                    p.weights_descriptors += DESC_SPAN as u64;
                    if options.weights == WeightsPlacement::Sram {
                        p.weights_data += data_span(t.bytes);
                    }
                }
                TensorKind::Variable => p.variables += block_span(t.bytes),
                _ => {}
            }
        }
        // The kernels' private states (synaptic-run allocates each as a variable tensor, of
        // one byte at least).
        for op in &model.operators {
            if op.kernel_state > 0 {
                p.variables += block_span(op.kernel_state as u64);
            }
        }
        let bump_ephemeral: u64 = eph_items.iter().map(|i| block_span(i.bytes)).sum();
        let ephemeral_bytes = if options.plan.strategy == Strategy::Bump {
            bump_ephemeral
        } else {
            p.activation_descriptors = DESC_SPAN as u64 * eph_items.len() as u64;
            ephemeral_plan.region_size
        };
        let persistent_bytes =
            p.weights_data + p.weights_descriptors + p.variables + p.activation_descriptors;
        let shared_bytes: u64 = shared_tensors
            .iter()
            .map(|&t| block_span(model.tensors[t].bytes))
            .sum();
        let tensor_need = persistent_bytes.saturating_add(ephemeral_bytes);
        let scratch_need = scratch_capacity(scratch_pool)?;
        let arena_bytes_required = tensor_need.saturating_add(scratch_need);
        let min_valid_arena_bytes =
            min_arena(tensor_need, scratch_pool).map_or(arena_bytes_required, |a| a as u64);

        // Verdict, against the configuration's layout.
        let space = layout.tensor_capacity as u64;
        let mut short_by = Vec::new();
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
        let pool = layout.scratch_capacity as u64;
        if scratch_need > pool {
            short_by.push(Shortfall {
                region: "scratch",
                bytes: scratch_need - pool,
            });
        }
        let live_lb = live_lower_bound(&model, &lts);
        let kernel_scratch = model
            .operators
            .iter()
            .map(|o| o.kernel_scratch as u64)
            .max()
            .unwrap_or(0);
        let ram = runtime_need(
            options,
            kernel_scratch,
            eph_items.len() as u64,
            ephemeral_plan.region_size,
            p.variables,
            shared_bytes,
            overlap_lb,
        );
        let report = Report {
            model: model.name.clone(),
            ram_bytes: ram.arena_bytes.saturating_add(ram.shared_bytes),
            ram,
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
            ephemeral_lower_bound_bytes: items_lower_bound(&eph_items),
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
            min_valid_arena_bytes,
            planning_micros: activation_plan.stats.micros + ephemeral_plan.stats.micros,
            overlap_lower_bound_bytes: overlap_lb,
            overlap,
            overlap_pairs: activation_plan
                .overlaps
                .iter()
                .map(|p| OverlapInfo {
                    op: p.op as usize,
                    input_tensor: all_tensors[p.input as usize],
                    output_tensor: all_tensors[p.output as usize],
                    direction: match p.direction {
                        OverlapDirection::Forward => "forward",
                        OverlapDirection::Backward => "backward",
                    },
                    delta: activation_plan.offsets[p.output as usize] as i64
                        - activation_plan.offsets[p.input as usize] as i64,
                    bound: p.bound,
                })
                .collect(),
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

    /// The analysis `synmem plan` reports (and `synaptic_mem.plan()` in Python): [`Analysis::new`]
    /// with what synaptic-run said when it compiled the model's program for `options.io`,
    /// `compiled` (its length in 32-bit words, or why it cannot run the model). With
    /// `program_in_ram` (`--op-data ram`) the program's bytes count in the RAM figure (a model
    /// the runtime cannot compile is then an error); the report's `ram.supported` and
    /// `ram.unsupported` carry the runtime's answer. This crate does not link the runtime: the
    /// caller compiles (`synaptic_run::program::compiled_len`).
    pub fn for_runtime(
        model: Model,
        options: &SizingOptions,
        program_in_ram: bool,
        compiled: Result<usize, String>,
    ) -> Result<Analysis, ImportError> {
        let mut options = options.clone();
        if program_in_ram {
            match &compiled {
                Ok(words) => options.program_in_ram_bytes = Some(4 * *words as u64),
                Err(why) => {
                    return Err(ImportError::unsupported(format!(
                        "--op-data ram: synaptic-run cannot compile the model: {why}"
                    )))
                }
            }
        }
        let mut a = Analysis::new(model, &options)?;
        a.report.ram.supported = Some(compiled.is_ok());
        a.report.ram.unsupported = compiled.err();
        Ok(a)
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
                            r.scratch_bytes,
                            r.scratch_bytes - s.bytes
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

impl RuntimeNeed {
    /// The one-line refusal of a model whose arena is over the core's limit (`fits` false),
    /// `source` naming it (a path): the need, the limit and what would help. What `synmem
    /// plan`/`emit`/`run` and the Python API say.
    ///
    /// ```
    /// # use synaptic_plan::{Analysis, Model, SizingOptions};
    /// # let m = Model::from_bytes(synaptic_tflite::tests_support::tiny_model()).unwrap();
    /// let need = Analysis::new(m, &SizingOptions::default()).unwrap().report.ram;
    /// assert!(need.over_limit("m.tflite").starts_with("m.tflite: needs an arena of "));
    /// ```
    pub fn over_limit(&self, source: &str) -> String {
        format!(
            "{source}: needs an arena of {} B, over the core's limit of {} B; what would help: {}",
            self.arena_bytes,
            self.limit_bytes,
            self.help.join("; ")
        )
    }
}

/// synaptic-run's need ([`RuntimeNeed`]) from the plan: the `scratch` pool its kernels take
/// (the largest per-operator block), `slots` descriptors, the `planned` region, `state` bytes
/// of variables, the `shared` I/O; `overlap_bound` for the advice.
#[allow(clippy::too_many_arguments)]
fn runtime_need(
    options: &SizingOptions,
    scratch: u64,
    slots: u64,
    planned: u64,
    state: u64,
    shared: u64,
    overlap_bound: u64,
) -> RuntimeNeed {
    let program = options.program_in_ram_bytes.map_or(0, block_span);
    let descriptors = DESC_SPAN as u64 * slots;
    let sat = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    let arena = synaptic_mem::config::exact_arena_size(
        sat(descriptors.saturating_add(program).saturating_add(state)),
        sat(planned),
        sat(scratch),
    ) as u64;
    let shared_region = if shared == 0 {
        0
    } else {
        shared.max(synaptic_mem::MIN_SHARED_SIZE as u64)
    };
    let limit = synaptic_mem::MAX_ARENA_SIZE as u64;
    let fits = arena <= limit;
    let mut help = Vec::new();
    if !fits {
        if options.program_in_ram_bytes.is_some() {
            help.push(format!(
                "--op-data flash: the program ({program} B) read from flash, not the arena"
            ));
        }
        if options.io == IoPlacement::Ephemeral {
            help.push(
                "--io shared: graph inputs/outputs in the SHARED region, not the arena".into(),
            );
        }
        if !options.overlap && overlap_bound < planned {
            help.push(format!(
                "drop --no-overlap: outputs over dying inputs (bound {overlap_bound} B of activations)"
            ));
        }
        help.push(format!(
            "the activations alone take {planned} B: a smaller input resolution, fewer channels \
             in the first layers, or splitting the model"
        ));
    }
    RuntimeNeed {
        arena_bytes: arena,
        shared_bytes: shared_region,
        plan_descriptors_bytes: descriptors,
        activation_bytes: planned,
        state_bytes: state,
        scratch_bytes: scratch,
        program_bytes: program,
        op_data: if options.program_in_ram_bytes.is_some() {
            "ram"
        } else {
            "flash"
        },
        fits,
        limit_bytes: limit,
        help,
        supported: None,
        unsupported: None,
    }
}

/// The scratch pool a per-operator table needs on the core: every non-zero entry is acquired
/// from the pool during the inference ([`data_span`] of it: the core rounds each buffer up to
/// 16) and released only by the reset, so the pool holds their sum; at least the core's
/// smallest pool ([`synaptic_mem::MIN_SCRATCH_SIZE`]). An entry or a sum over the core's
/// largest pool ([`synaptic_mem::MAX_SCRATCH_SIZE`]) runs in no configuration: a clear
/// [`ImportError::ScratchTable`], never a wrapped figure.
///
/// ```
/// use synaptic_plan::scratch_table_pool;
/// assert_eq!(scratch_table_pool(&[100; 13]), Ok(13 * 112));
/// assert_eq!(scratch_table_pool(&[0, 100, 5000, 0]), Ok(112 + 5008));
/// assert_eq!(scratch_table_pool(&[16, 16]), Ok(1024));
/// assert!(scratch_table_pool(&[u64::MAX]).is_err());
/// ```
pub fn scratch_table_pool(table: &[u64]) -> Result<usize, ImportError> {
    let max = synaptic_mem::MAX_SCRATCH_SIZE as u64;
    let mut sum = 0u64;
    for (op, &bytes) in table.iter().enumerate() {
        sum = sum.saturating_add(data_span(bytes));
        if sum > max {
            return Err(ImportError::ScratchTable {
                detail: format!(
                    "operators 0..={op} need {sum} B of scratch in one inference{}, over the \
                     core's largest scratch pool of {max} B",
                    if bytes > max {
                        format!(" (operator {op} alone {bytes} B)")
                    } else {
                        String::new()
                    }
                ),
            });
        }
    }
    Ok((sum as usize).max(synaptic_mem::MIN_SCRATCH_SIZE))
}

/// Bytes the core lays out for a `scratch_pool`-byte pool ([`ArenaLayout::scratch_capacity`],
/// taken from the layout of the largest arena, which holds every valid pool).
fn scratch_capacity(scratch_pool: usize) -> Result<u64, ImportError> {
    ArenaConfig {
        arena_size: synaptic_mem::MAX_ARENA_SIZE,
        scratch_size: scratch_pool,
    }
    .layout()
    .map(|l| l.scratch_capacity as u64)
    .map_err(|e| ImportError::Config {
        detail: e.to_string(),
    })
}

/// The layout of an arena of `arena_size` bytes with a `scratch_pool`-byte pool, if the core
/// accepts it.
fn layout_of(arena_size: usize, scratch_pool: usize) -> Option<ArenaLayout> {
    ArenaConfig {
        arena_size,
        scratch_size: scratch_pool,
    }
    .layout()
    .ok()
}

/// The smallest arena the core accepts whose tensor space, below a `scratch_pool`-byte pool,
/// holds `tensor_bytes`; `None` if even the largest does not. A binary search over
/// [`ArenaConfig::layout`], which is monotone in the arena size (valid from some size on,
/// tensor space never shrinking as the arena grows).
fn min_arena(tensor_bytes: u64, scratch_pool: usize) -> Option<usize> {
    let holds = |a: usize| {
        layout_of(a, scratch_pool).is_some_and(|l| l.tensor_capacity as u64 >= tensor_bytes)
    };
    let (mut lo, mut hi) = (synaptic_mem::MIN_ARENA_SIZE, synaptic_mem::MAX_ARENA_SIZE);
    if !holds(hi) {
        return None;
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if holds(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(lo)
}

/// A load error `e` of the model `bytes` as one line; for an operator the runtime refuses,
/// also the tensor the refusal concerns (the operand it names, else the operator's first
/// input), its data type, and the data types synaptic-run runs that operator on (`synmem
/// ops`). What `synmem plan`/`run` and `synaptic_mem.plan()` say of a model the runtime
/// refuses: `operator 0 (SOFTMAX): unsupported: input 0 of a type other than int8: tensor 0 "x"
/// is int16; synaptic-run runs SOFTMAX on int8, float32`.
pub fn runtime_refusal(bytes: &[u8], e: &synaptic_run::LoadError) -> String {
    use synaptic_run::{KernelError, LoadError, Operand, Unsupported};
    let line = e.to_string();
    let LoadError::Operator {
        op,
        name,
        error: KernelError::Unsupported { reason, .. },
    } = e
    else {
        return line;
    };
    let Ok(m) = Model::from_bytes(bytes) else {
        return line;
    };
    let Some(o) = m.operators.get(*op) else {
        return line;
    };
    let operand = match reason {
        Unsupported::TensorType { operand, .. } => Some(*operand),
        _ => None,
    };
    let tensor = match operand {
        Some(Operand::Output) => o.outputs.first(),
        Some(Operand::Filter) => o.inputs.get(1),
        Some(Operand::Bias) => o.inputs.get(2),
        Some(Operand::Input(k)) => o.inputs.get(usize::from(k)),
        _ => o.inputs.first(),
    };
    let Some(t) = tensor.and_then(|&i| m.tensors.get(i)) else {
        return line;
    };
    let runs = runtime_types(name);
    let runs = if runs.is_empty() {
        format!("synaptic-run does not run {name} yet")
    } else {
        format!("synaptic-run runs {name} on {}", runs.join(", "))
    };
    format!(
        "{line}: tensor {} {:?} is {}; {runs} (synmem ops)",
        t.index,
        t.name,
        format!("{:?}", t.dtype).to_lowercase()
    )
}

/// The data types synaptic-run runs operator `name` on (TFLite's builtin name or custom code),
/// each once, in its kernels' order: the union of `synaptic_run::ops::kernel_types` over the
/// kernels `kinds_of(name)`; empty for an operator it does not run.
pub fn runtime_types(name: &str) -> Vec<&'static str> {
    let kinds = synaptic_run::ops::kinds_of(name).unwrap_or_default();
    let mut types: Vec<&'static str> = Vec::new();
    for k in kinds.iter() {
        for &ty in synaptic_run::ops::kernel_types(k) {
            if !types.contains(&ty) {
                types.push(ty);
            }
        }
    }
    types
}
