//! `synmem run`: one inference on an arena of the planned size — plan with synaptic-plan, load
//! and run with synaptic-run's interpreter — writing the output bytes and printing the arena
//! figures (a table, or JSON with the fields of [`LONG_ABOUT`]).

use crate::args::{OpDataArg, RunIoArg};
use crate::common::{compile_program, print_json, too_big, write_file, Failure};
use std::path::Path;
use synaptic_plan::{read_file_limited, Analysis, IoPlacement, Model, SizingOptions};

/// `synmem run --help`: the interface other tools parse (issue 11), fields included.
pub(crate) const LONG_ABOUT: &str = "\
Run one inference on an arena of the planned size (synaptic-run's interpreter, bit-exact with
TFLM) and write the output bytes; print the arena figures.

IN.raw holds the raw bytes of input tensor 0 in its dtype and shape, row-major (for a model
with several inputs, every input concatenated in input order); its length must be exactly
that. OUT.raw receives the raw bytes of every output tensor, concatenated in output order.
With --invocations N, IN.raw holds N such inputs back to back and OUT.raw receives N outputs:
N inferences on one load, the model's state (variable tensors) carried from one to the next.

--json prints one object (byte counts in the core's block accounting: each tensor's
32-byte descriptor included, data rounded up to 16):
  ram_bytes                all the RAM the run took: arena_bytes + shared_region_bytes
                           (without --arena/--scratch: the `ram_bytes` of `synmem plan`
                           and the RAM_BYTES of `synmem emit` for the same --io, --op-data)
  model                    model name (file stem)
  io                       \"shared\" or \"plan\": where graph input/output lived
  op_data                  \"ram\" or \"flash\" (--op-data): where the per-operator data lived
  program_bytes            bytes of synaptic-run's compiled program (per-operator
                           parameters, requantization tables, tensor locations)
  program_flash_bytes      of which outside the arena (flash): program_bytes with
                           --op-data flash, else 0; in no RAM figure
  persistent_bytes         all persistent bytes = tables + locations + state + plan
                           descriptors
  tables_bytes             per-operator data in the arena: the program compiled at load
                           (persistent; 0 with --op-data flash)
  locations_bytes          a separate tensor -> location map: 0 (the locations are part
                           of the program)
  plan_descriptors_bytes   the plan's descriptor table (persistent)
  state_bytes              the variable tensors: the model's state across invocations
                           (persistent, descriptors included)
  planned_ephemeral_bytes  the plan's ephemeral region (activations)
  scratch_peak_bytes       scratch pool peak during the inference
  shared_bytes             SHARED region bytes of the graph I/O (0 with --io plan)
  descriptors_bytes        descriptor bytes included in the figures above
  total_bytes              persistent + planned ephemeral + scratch peak + shared
  overlap                  whether the plan overlaps outputs with dying inputs (false
                           with --no-overlap)
  overlap_pairs            the plan's declared overlaps, each run by its overlapped kernel
  poison                   the --poison seed, or null
  invocations              inferences run on the load (--invocations, default 1)
  state_carried            whether state was carried between them (a model with
                           variable tensors and more than one invocation)
  arena_bytes              the arena given to the core: exactly persistent + planned
                           ephemeral + scratch (ARENA_BYTES of `synmem emit`, what
                           syn_run_load needs), or with --arena/--scratch the Kconfig
                           layout (--arena, or that sum + the pool, at least 4096)
  scratch_pool_bytes       the arena's scratch pool (0 exact; --scratch rounded up to 16)
  shared_region_bytes      the SHARED region registered (shared_bytes, at least the
                           core's 48-byte minimum; 0 with --io plan)
  inputs, outputs          one object per graph tensor, in order: index, tensor, name,
                           dtype (i8, u8, i16, i32, f32, ...), shape, bytes, offset (in
                           IN.raw / OUT.raw); outputs also carry values: the elements decoded
                           from their dtype (i8, u8, i16, i32, f32; null for other dtypes),
                           of the last invocation";

/// The largest arena the core accepts; model runs slice theirs from a buffer of this size.
const RUN_MAX_ARENA: usize = synaptic_mem::MAX_ARENA_SIZE;

/// The options of `synmem run`.
pub(crate) struct RunArgs<'x> {
    pub(crate) input: Option<&'x Path>,
    pub(crate) save_input: Option<&'x Path>,
    pub(crate) random: Option<u64>,
    pub(crate) output: &'x Path,
    pub(crate) io: RunIoArg,
    pub(crate) arena: Option<usize>,
    pub(crate) scratch: Option<usize>,
    pub(crate) op_data: OpDataArg,
    pub(crate) overlap: bool,
    pub(crate) poison: Option<u64>,
    pub(crate) json: bool,
    pub(crate) invocations: usize,
}

/// `n` bytes of splitmix64 from `seed` (`--poison`).
fn seeded_bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed;
    (0..n)
        .map(|_| synaptic_run::seeded::splitmix64(&mut x) as u8)
        .collect()
}

/// `synmem run`: plan with synaptic-plan, load and run with synaptic-run.
pub(crate) fn run(path: &Path, args: RunArgs<'_>, max: u64) -> Result<u8, Failure> {
    use synaptic_mem::{Arena, ArenaBuffer};
    use synaptic_run::{Interpreter, IoPlacement as RunIo, RunPlan};
    let RunArgs {
        input,
        save_input,
        random,
        output,
        io,
        arena,
        scratch,
        op_data,
        overlap,
        poison,
        json,
        invocations,
    } = args;
    let bytes = read_file_limited(path, max)?;
    let mut model = Model::from_bytes(&bytes)?;
    if let Some(stem) = path.file_stem() {
        model.name = stem.to_string_lossy().into_owned();
    }
    let (plan_io, run_io) = match io {
        RunIoArg::Shared => (IoPlacement::Shared, RunIo::Shared),
        RunIoArg::Plan => (IoPlacement::Ephemeral, RunIo::Plan),
    };
    let load_err = |e: synaptic_run::LoadError| {
        let line = synaptic_plan::runtime_refusal(&bytes, &e);
        Failure(format!("{}: {line}", path.display()), 1)
    };
    // The program compiled here: loaded from outside the arena with --op-data flash (as
    // `synmem emit` writes it for firmware); with ram only its size, for the RAM figure.
    let compiled = compile_program(path, &bytes, run_io, synaptic_run::Isa::NATIVE)?;
    let a = Analysis::new(
        model,
        &SizingOptions {
            io: plan_io,
            overlap,
            program_in_ram_bytes: (op_data == OpDataArg::Ram).then(|| 4 * compiled.len() as u64),
            ..SizingOptions::default()
        },
    )?;
    let need_plan = &a.report.ram;
    if !need_plan.fits {
        return Err(too_big(path, need_plan));
    }
    let plan = RunPlan::overlapped(a.ephemeral_plan.core_plan(), &a.ephemeral_plan.overlaps);
    // --arena / --scratch: the Kconfig layout (floors and a scratch pool); else exact.
    let kconfig = arena.is_some() || scratch.is_some();
    let pool_asked = scratch.unwrap_or(synaptic_mem::MIN_SCRATCH_SIZE);
    let config = |arena: usize| {
        synaptic_mem::ArenaConfig {
            arena_size: arena,
            scratch_size: pool_asked,
        }
        .layout()
        .map_err(|e| Failure(format!("bad arena configuration: {e}"), 2))
    };
    if kconfig {
        config(RUN_MAX_ARENA)?;
    }
    let program = match op_data {
        OpDataArg::Flash => Some(compiled),
        OpDataArg::Ram => None,
    };
    fn load<'m, 'a, 'p>(
        bytes: &'m [u8],
        program: Option<&'m [u32]>,
        loader: synaptic_mem::Loader<'a>,
        plan: RunPlan<'p>,
        io: RunIo,
    ) -> Result<Interpreter<'m, 'a, 'p>, synaptic_run::LoadError> {
        match program {
            Some(w) => Interpreter::with_program(bytes, w, loader, plan, io),
            None => Interpreter::new(bytes, loader, plan, io),
        }
    }
    let mut buf = Box::new(ArenaBuffer::<RUN_MAX_ARENA>::new());
    let mut shared = vec![0u8; 1 << 20];
    // The figures, from a load on the largest arena; then the run on the planned size.
    let need = {
        let mut arena = Arena::exact(buf.as_mut_slice(), 0)
            .map_err(|e| Failure(format!("bad arena configuration: {e}"), 2))?;
        arena
            .set_shared_region(&mut shared)
            .map_err(|e| Failure(e.to_string(), 1))?;
        let (loader, _) = arena.split();
        load(&bytes, program.as_deref(), loader, plan, run_io)
            .map_err(load_err)?
            .memory()
    };
    // The planner's figure is the runtime's, byte for byte: a difference is a bug.
    let shared_need = if need.shared == 0 {
        0
    } else {
        need.shared.max(synaptic_mem::MIN_SHARED_SIZE)
    };
    if (need.arena_bytes() as u64, shared_need as u64)
        != (need_plan.arena_bytes, need_plan.shared_bytes)
    {
        return Err(Failure(
            format!(
                "internal: synmem plan says arena {} B + shared {} B, the runtime took {} B + {} B",
                need_plan.arena_bytes,
                need_plan.shared_bytes,
                need.arena_bytes(),
                shared_need
            ),
            1,
        ));
    }
    let (size, pool) = if kconfig {
        let pool = config(RUN_MAX_ARENA)?.scratch_capacity;
        let least = need.kconfig_arena_bytes(pool);
        let size = arena.unwrap_or(least);
        config(size)?;
        if size < least {
            return Err(Failure(
                format!(
                    "--arena {size} is {} B short for this model with a {pool} B scratch pool: \
                     give --arena {least} (or leave out --arena and --scratch: exactly {} B)",
                    least - size,
                    need.arena_bytes()
                ),
                1,
            ));
        }
        (size, pool)
    } else {
        (need.arena_bytes(), need.scratch)
    };
    let shared_size = need.shared.max(synaptic_mem::config::MIN_SHARED_SIZE);
    if let Some(seed) = poison {
        // The whole arena and shared region, before the arena is made and the model loaded.
        let junk = seeded_bytes(seed, size + shared_size);
        buf.as_mut_slice()[..size].copy_from_slice(&junk[..size]);
        shared[..shared_size].copy_from_slice(&junk[size..]);
    }
    let made = if kconfig {
        Arena::with_scratch(&mut buf.as_mut_slice()[..size], pool_asked)
    } else {
        Arena::exact(&mut buf.as_mut_slice()[..size], pool)
    };
    let mut arena = made.map_err(|e| Failure(format!("bad arena configuration: {e}"), 2))?;
    arena
        .set_shared_region(&mut shared[..shared_size])
        .map_err(|e| Failure(e.to_string(), 1))?;
    let (loader, mut runner) = arena.split();
    let mut net = load(&bytes, program.as_deref(), loader, plan, run_io).map_err(load_err)?;
    // The inputs and outputs of every invocation are held at once: their total is bounded
    // (by --max-file-bytes, the bound of what is read) before anything is allocated.
    let total = |what: &str, per_run: usize| -> Result<usize, Failure> {
        per_run
            .checked_mul(invocations)
            .filter(|&t| t as u64 <= max)
            .ok_or_else(|| {
                Failure(
                    format!(
                        "{}: {invocations} invocations of {per_run} {what} bytes each exceed {max} \
                         bytes (--max-file-bytes raises the limit)",
                        path.display()
                    ),
                    2,
                )
            })
    };
    let (in_total, out_total) = (
        total("input", net.input_bytes())?,
        total("output", net.output_bytes())?,
    );
    let in_bytes = match (input, random) {
        (Some(p), _) if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("bmp")) => {
            let b = read_file_limited(p, max)?;
            let bad = |e: synaptic_run::bmp::BmpError| Failure(format!("{}: {e}", p.display()), 1);
            let (w, h) = synaptic_run::bmp::dimensions(&b).map_err(bad)?;
            let mut px = vec![0u8; w * h];
            synaptic_run::bmp::gray8(&b, &mut px).map_err(bad)?;
            px
        }
        (Some(p), _) => read_file_limited(p, max)?,
        (None, Some(seed)) => {
            let n = net.input_bytes();
            let mut b = vec![0u8; in_total];
            for (k, chunk) in b.chunks_exact_mut(n.max(1)).enumerate() {
                let s = seed.wrapping_add(k as u64);
                synaptic_run::seeded::seeded_input(&bytes, s, chunk).map_err(load_err)?;
            }
            b
        }
        (None, None) => return Err(Failure("give --input or --random".into(), 2)),
    };
    let inputs = io_tensors(&a.model, &a.model.inputs);
    let per_run = net.input_bytes();
    if invocations > 1 && in_bytes.len() != in_total {
        let source = input.map_or("random input".into(), |p| p.display().to_string());
        return Err(Failure(
            format!(
                "{source}: IN.raw holds {} bytes; {invocations} invocations of {per_run} input \
                 bytes each take {}",
                in_bytes.len(),
                in_total
            ),
            1,
        ));
    }
    if invocations == 1 && in_bytes.len() != net.input_bytes() {
        let source = input.map_or("random input".into(), |p| p.display().to_string());
        let Some(t) = inputs.first() else {
            return Err(Failure(
                format!(
                    "{source}: IN.raw holds {} bytes; the model has no graph inputs (give an \
                     empty file)",
                    in_bytes.len()
                ),
                1,
            ));
        };
        return Err(Failure(
            format!(
                "{source}: IN.raw holds {} bytes; input tensor 0 ({} {}) takes {}{}",
                in_bytes.len(),
                t.dtype.short_name(),
                t.shape_text(),
                t.bytes,
                if inputs.len() > 1 {
                    format!(
                        " (all {} inputs, concatenated: {})",
                        inputs.len(),
                        net.input_bytes()
                    )
                } else {
                    String::new()
                }
            ),
            1,
        ));
    }
    let out_run = net.output_bytes();
    let mut all_out = vec![0u8; out_total];
    for k in 0..invocations {
        let x = &in_bytes[k * per_run..(k + 1) * per_run];
        let y = &mut all_out[k * out_run..(k + 1) * out_run];
        net.invoke(&mut runner, x, y)
            .map_err(|e| Failure(format!("{}: invocation {k}: {e}", path.display()), 1))?;
    }
    write_file(output, &all_out)?;
    // The last invocation's outputs (the JSON's values).
    let out = all_out[out_run * (invocations - 1)..].to_vec();
    if let Some(p) = save_input {
        write_file(p, &in_bytes)?;
    }
    let m = net.memory();
    let stats = runner.stats();
    let ram = m.total();
    let shared_region = if m.shared == 0 { 0 } else { shared_size };
    let ram_bytes = size + shared_region;
    if json {
        let outputs: Vec<serde_json::Value> = io_tensors(&a.model, &a.model.outputs)
            .into_iter()
            .map(|t| {
                let values = t.values(out.get(t.offset..t.offset + t.bytes).unwrap_or(&[]));
                let mut v = t.json();
                v["values"] = values;
                v
            })
            .collect();
        let v = serde_json::json!({
            "ram_bytes": ram_bytes,
            "model": a.report.model,
            "io": match io { RunIoArg::Shared => "shared", RunIoArg::Plan => "plan" },
            "op_data": op_data.name(),
            "program_bytes": m.program_bytes,
            "program_flash_bytes": m.program_flash,
            "persistent_bytes": m.persistent,
            "tables_bytes": m.tables,
            "locations_bytes": m.locations,
            "plan_descriptors_bytes": m.plan_descriptors,
            "state_bytes": m.state,
            "planned_ephemeral_bytes": m.planned,
            "scratch_peak_bytes": stats.scratch_peak,
            "shared_bytes": m.shared,
            "descriptors_bytes": m.descriptors,
            "total_bytes": ram,
            "overlap": overlap,
            "overlap_pairs": a.ephemeral_plan.overlaps.len(),
            "poison": poison,
            "invocations": invocations,
            "state_carried": net.states() > 0 && invocations > 1,
            "arena_bytes": size,
            "scratch_pool_bytes": pool,
            "shared_region_bytes": shared_region,
            "inputs": inputs.iter().map(IoTensor::json).collect::<Vec<_>>(),
            "outputs": outputs,
        });
        print_json(&v)?;
    } else {
        println!(
            "{}: {} input bytes -> {} output bytes written to {} (I/O in {})",
            a.report.model,
            in_bytes.len(),
            out.len(),
            output.display(),
            match io {
                RunIoArg::Shared => "the shared region",
                RunIoArg::Plan => "the plan",
            }
        );
        println!("syn mem run");
        println!("region                     bytes");
        println!("persistent          {:>13}", m.persistent);
        println!("  per-op data       {:>13}", m.tables);
        println!("  tensor locations  {:>13}", m.locations);
        println!("  plan descriptors  {:>13}", m.plan_descriptors);
        println!("  state (variables) {:>13}", m.state);
        println!("planned activations {:>13}", m.planned);
        println!("scratch (peak)      {:>13}", stats.scratch_peak);
        println!("shared              {:>13}", m.shared);
        println!("total RAM           {:>13}", ram);
        println!(
            "RAM {ram_bytes} B: arena {size} B ({}scratch pool {pool} B) + shared region {shared_region} B",
            if kconfig { "Kconfig layout, " } else { "exact, " }
        );
        println!(
            "program {} B ({})",
            m.program_bytes,
            match op_data {
                OpDataArg::Ram => "in the persistent region",
                OpDataArg::Flash => "outside the arena: flash",
            }
        );
        println!("{stats}");
    }
    Ok(0)
}

/// A graph input or output as `synmem run` reports it.
struct IoTensor {
    index: usize,
    tensor: usize,
    name: String,
    dtype: synaptic_plan::TensorType,
    shape: Vec<u32>,
    bytes: usize,
    /// Byte offset in IN.raw / OUT.raw.
    offset: usize,
}

/// The tensors `ids` (graph inputs or outputs, in order) with their offsets in the
/// concatenated bytes.
fn io_tensors(model: &Model, ids: &[usize]) -> Vec<IoTensor> {
    let mut offset = 0;
    ids.iter()
        .enumerate()
        .map(|(index, &t)| {
            let info = &model.tensors[t];
            let bytes = info.bytes as usize;
            let r = IoTensor {
                index,
                tensor: t,
                name: info.name.clone(),
                dtype: info.dtype,
                shape: info.shape.clone(),
                bytes,
                offset,
            };
            offset += bytes;
            r
        })
        .collect()
}

impl IoTensor {
    fn shape_text(&self) -> String {
        let dims: Vec<String> = self.shape.iter().map(u32::to_string).collect();
        if dims.is_empty() {
            "scalar".into()
        } else {
            dims.join("x")
        }
    }

    fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "index": self.index,
            "tensor": self.tensor,
            "name": self.name,
            "dtype": self.dtype.short_name(),
            "shape": self.shape,
            "bytes": self.bytes,
            "offset": self.offset,
        })
    }

    /// The elements of `raw` (this tensor's bytes, little-endian) as JSON numbers; `null` for
    /// dtypes other than i8, u8, i16, i32 and f32 (a non-finite f32 is `null` too).
    fn values(&self, raw: &[u8]) -> serde_json::Value {
        use serde_json::Value;
        use synaptic_plan::TensorType as T;
        let v: Vec<Value> = match self.dtype {
            T::Int8 => raw.iter().map(|&b| (b as i8).into()).collect(),
            T::UInt8 => raw.iter().map(|&b| b.into()).collect(),
            T::Int16 => raw
                .chunks_exact(2)
                .map(|c| i16::from_le_bytes([c[0], c[1]]).into())
                .collect(),
            T::Int32 => raw
                .chunks_exact(4)
                .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]).into())
                .collect(),
            T::Float32 => raw
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]).into())
                .collect(),
            _ => return Value::Null,
        };
        Value::Array(v)
    }
}
