//! Plans as source code for firmware: a Rust `const` table of [`synaptic_mem::plan::PlanSlot`]
//! with a [`synaptic_mem::plan::Plan`] const, or a C header with an equivalent struct array and
//! `#define`s for the region sizes. Slot `k` is the `k`-th ephemeral activation; a second table
//! (`SLOT_TENSORS` / `<prefix>_slot_tensor`) and a comment per slot map slots to tensor indices.
//! A third (`SLOT_TYPES` / `<prefix>_slot_types`, [`synaptic_mem::plan::SlotType`] /
//! `syn_plan_type_t`) gives each slot's tensor shape and core dtype, the descriptor templates of
//! a typed plan: `RawArena::load_typed_plan(PLAN, &SLOT_TYPES)` in Rust,
//! `syn_mem_plan_load(<PREFIX>_PLAN_ARGS, &plan)` in C. A fourth (`OVERLAPS` /
//! `<prefix>_overlaps`, [`synaptic_mem::plan::OverlapPair`] / `syn_plan_overlap_t`) lists the
//! plan's declared output/input overlaps (issue 12; empty with `--no-overlap`): synaptic-run
//! runs them with `Interpreter::new(model, loader, RunPlan::overlapped(PLAN, &OVERLAPS), io)`,
//! and from C with `syn_run_config_t.overlaps`. The C API's typed plans (`syn_mem_plan_*`) take
//! plain plans only: emit those with `--no-overlap` (an overlapped plan is refused there as
//! invalid).

use crate::analysis::Analysis;
use crate::trace::CoreRequest;
use std::fmt::Write;
use synaptic_mem::plan::SlotType;
use synaptic_mem::DType;

/// Output language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lang {
    /// Rust source (`include!` it or use it as a module).
    Rust,
    /// C header.
    C,
}

/// Upper-case C identifier prefix from the model name (`person_detect` → `PERSON_DETECT`).
pub fn c_prefix(model: &str) -> String {
    let mut p: String = model
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    if p.is_empty() || p.starts_with(|c: char| c.is_ascii_digit()) {
        p.insert_str(0, "MODEL_");
    }
    p
}

/// Names in comments are cut to 80 characters.
fn short(name: &str) -> String {
    let mut s: String = name.chars().take(80).collect();
    if name.chars().count() > 80 {
        s.push('…');
    }
    s
}

fn comment_safe(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .replace("*/", "* /")
}

/// Writes the plan of `analysis` in `lang`.
///
/// ```no_run
/// # let analysis: synaptic_plan::Analysis = unimplemented!();
/// use synaptic_plan::emit::{emit, Lang};
/// std::fs::write("plan.rs", emit(&analysis, Lang::Rust))?;
/// std::fs::write("plan.h", emit(&analysis, Lang::C))?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn emit(analysis: &Analysis, lang: Lang) -> String {
    emit_with_program(analysis, lang, None)
}

/// [`emit`], followed by a model's compiled program when `program` is given: the per-operator
/// data of synaptic-run (`synaptic_run::program::compile` for this model and the analysis's
/// I/O placement), as a `static` array of `u32` words for flash (4-byte aligned, the
/// alignment of `u32`): `pub static PROGRAM: [u32; N]`, `PROGRAM_WORDS` and the operator set
/// `Ops` (`synaptic_run::ops::OpSet`: the kernels it runs) in Rust,
/// `<prefix>_program[]` and `<PREFIX>_PROGRAM_WORDS` in C. The lines of [`emit`] are kept
/// unchanged before it.
pub fn emit_with_program(analysis: &Analysis, lang: Lang, program: Option<&[u32]>) -> String {
    let mut s = match lang {
        Lang::Rust => emit_rust(analysis),
        Lang::C => emit_c(analysis),
    };
    if let Some(words) = program {
        match lang {
            Lang::Rust => program_rust(&mut s, words),
            Lang::C => {
                let p = c_prefix(&analysis.report.model);
                let end = format!("#endif /* SYNMEM_PLAN_{p}_H */\n");
                let body = s.strip_suffix(&end).map(str::to_owned);
                if let Some(body) = body {
                    s = body;
                    program_c(&mut s, &p, words);
                    s.push_str(&end);
                }
            }
        }
    }
    s
}

/// `header` (a C header [`emit_with_program`] wrote for the model named `model`) with the model
/// bytes appended before its closing `#endif`, as a 16-byte aligned `const` array for flash:
/// `<prefix>_model[]` and `<PREFIX>_MODEL_BYTES` (what `syn_run_config_t.model` and
/// `.model_size` take). `None` if `header` is not such a header.
///
/// ```
/// let h = "#ifndef SYNMEM_PLAN_TINY_H\n#define SYNMEM_PLAN_TINY_H\n#endif /* SYNMEM_PLAN_TINY_H */\n";
/// let out = synaptic_plan::emit::with_model_c(h, "tiny", &[1, 2, 255]).unwrap();
/// assert!(out.contains("#define TINY_MODEL_BYTES 3u"));
/// assert!(out.contains("0x01, 0x02, 0xff,"));
/// assert!(out.ends_with("#endif /* SYNMEM_PLAN_TINY_H */\n"));
/// ```
pub fn with_model_c(header: &str, model: &str, bytes: &[u8]) -> Option<String> {
    let p = c_prefix(model);
    let lp = p.to_ascii_lowercase();
    let end = format!("#endif /* SYNMEM_PLAN_{p}_H */\n");
    let mut s = header.strip_suffix(&end)?.to_owned();
    let _ = writeln!(
        s,
        "/* The model's .tflite bytes, read in place (flash) by synaptic-run. */"
    );
    let _ = writeln!(s, "#define {p}_MODEL_BYTES {}u", bytes.len());
    s.push_str("#ifndef SYNMEM_ALIGN16\n#if defined(__cplusplus)\n#define SYNMEM_ALIGN16 alignas(16)\n#else\n#define SYNMEM_ALIGN16 _Alignas(16)\n#endif\n#endif\n");
    let _ = writeln!(
        s,
        "static const SYNMEM_ALIGN16 uint8_t {lp}_model[{p}_MODEL_BYTES] SYNMEM_PLAN_UNUSED = {{"
    );
    for chunk in bytes.chunks(16) {
        s.push_str("   ");
        for b in chunk {
            let _ = write!(s, " 0x{b:02x},");
        }
        s.push('\n');
    }
    s.push_str("};\n\n");
    s.push_str(&end);
    Some(s)
}

/// The words, eight per line, in hex.
fn word_lines(words: &[u32], suffix: &str) -> String {
    let mut s = String::new();
    for chunk in words.chunks(8) {
        s.push_str("   ");
        for w in chunk {
            let _ = write!(s, " 0x{w:08x}{suffix},");
        }
        s.push('\n');
    }
    s
}

const PROGRAM_DOC: &str =
    "synaptic-run's compiled program of this model and I/O placement: every operator's prepared \
     parameters, requantization multipliers and shifts, and tensor locations (sealed to the \
     model's bytes: checked at load).";

fn program_rust(s: &mut String, words: &[u32]) {
    let _ = writeln!(s, "/// Words of [`PROGRAM`].");
    let _ = writeln!(s, "pub const PROGRAM_WORDS: usize = {};", words.len());
    let _ = writeln!(s, "/// {PROGRAM_DOC}");
    let _ = writeln!(
        s,
        "/// In flash: `Interpreter::with_program(model, &PROGRAM, loader, PLAN, io)`."
    );
    let _ = writeln!(s, "pub static PROGRAM: [u32; PROGRAM_WORDS] = [");
    s.push_str(&word_lines(words, ""));
    s.push_str("];\n");
    // The kernels the program runs: an image that names them links no other kernel.
    let kinds = synaptic_run::program::kinds(words);
    if let (Some(kinds), Some(paths)) = (kinds, synaptic_run::program::paths(words)) {
        let _ = writeln!(
            s,
            "/// The kernels [`PROGRAM`] runs and their paths (`synaptic_run::program::kinds`,\n\
             /// `synaptic_run::program::paths`): with\n\
             /// `Interpreter::with_program_ops::<Ops>(model, &PROGRAM, loader, PLAN, io)` the\n\
             /// image links only these."
        );
        let _ = writeln!(s, "pub struct Ops;");
        let _ = writeln!(s, "impl synaptic_run::ops::OpSet for Ops {{");
        let _ = writeln!(
            s,
            "    const KINDS: synaptic_run::ops::Kinds = synaptic_run::ops::{kinds};"
        );
        let _ = writeln!(s, "    const PATHS: u64 = {paths:#x};");
        let _ = writeln!(s, "}}");
    }
}

fn program_c(s: &mut String, p: &str, words: &[u32]) {
    let lp = p.to_ascii_lowercase();
    let _ = writeln!(s, "/* {PROGRAM_DOC} */");
    let _ = writeln!(s, "#define {p}_PROGRAM_WORDS {}u", words.len());
    let _ = writeln!(
        s,
        "static const uint32_t {lp}_program[] SYNMEM_PLAN_UNUSED = {{"
    );
    s.push_str(&word_lines(words, "u"));
    s.push_str("};\n\n");
    // The operators and paths the program takes: what the C library and the Zephyr module
    // link for this model (the Rust emission's `Ops`).
    let (Some(kinds), Some(paths)) = (
        synaptic_run::program::kinds(words),
        synaptic_run::program::paths(words),
    ) else {
        return;
    };
    let join = |names: &mut dyn Iterator<Item = &str>| names.collect::<Vec<_>>().join(",");
    let _ = writeln!(
        s,
        "/* The operators and kernel paths the program takes: a C library built with\n   \
         SYNAPTIC_RUN_OPS={p}_OPS and SYNAPTIC_RUN_PATHS={p}_PATHS (Zephyr: CONFIG_SYNAPTIC_RUN_OPS,\n   \
         CONFIG_SYNAPTIC_RUN_PATHS) links only these, and refuses at load a model taking another. */"
    );
    let _ = writeln!(
        s,
        "#define {p}_OPS \"{}\"",
        join(&mut synaptic_run::ops::operator_names(kinds))
    );
    let _ = writeln!(
        s,
        "#define {p}_PATHS \"{}\"\n",
        join(&mut synaptic_run::ops::paths::names(paths))
    );
}

fn header_lines(a: &Analysis) -> Vec<String> {
    let r = &a.report;
    vec![
        format!("Memory plan for model `{}`, generated by synmem.", comment_safe(&r.model)),
        format!(
            "RAM {} B for synaptic-run: arena {} B + shared region {} B (program in {}, weights in flash).",
            r.ram_bytes, r.ram.arena_bytes, r.ram.shared_bytes, r.ram.op_data
        ),
        format!(
            "strategy {}, inputs/outputs in {}; {} planned activations; ephemeral region {} B (lower bound {} B, proven optimal: {}).",
            r.strategy.name(),
            r.io_in.name(),
            a.ephemeral_plan.items.len(),
            a.ephemeral_plan.region_size,
            a.ephemeral_plan.lower_bound,
            a.ephemeral_plan.proven_optimal,
        ),
        format!(
            "Bare allocator (weights in {}): persistent {} B; scratch {} B; shared {} B; arena {} B.",
            r.weights_in.name(),
            r.persistent_bytes,
            r.scratch_bytes,
            r.shared_bytes,
            r.arena_bytes_required
        ),
        "Slot k holds the k-th planned activation; operators are 0-based in execution order.".into(),
    ]
}

/// Each slot's tensor as the core allocates it — the shape (1–4 dimensions) and core dtype
/// of the replay's [`CoreRequest`] — as the descriptor templates of a typed plan
/// (`RawArena::load_typed_plan(plan, &types)`), with whether each fell back: a tensor without
/// a core request (no fixed size, a dimension over `u32`) is described as `[size]` bytes of
/// UINT8.
pub fn slot_types(a: &Analysis) -> Vec<(SlotType, bool)> {
    let slots = a.ephemeral_plan.slots();
    (0..slots.len())
        .map(|k| {
            let t = &a.model.tensors[a.ephemeral_tensors[k]];
            let mut dims = [1u32; 4];
            match CoreRequest::new(&t.shape, t.dtype) {
                Ok(r) => {
                    dims[..r.shape.len()].copy_from_slice(&r.shape);
                    (SlotType::new(dims, r.shape.len() as u8, r.dtype), false)
                }
                Err(_) => {
                    dims[0] = slots[k].size;
                    (SlotType::new(dims, 1, DType::UInt8), true)
                }
            }
        })
        .collect()
}

/// The dtype of a slot type made by [`slot_types`] (always a valid value).
fn dtype_of(t: &SlotType) -> DType {
    DType::from_u8(t.dtype).unwrap_or(DType::UInt8)
}

fn emit_rust(a: &Analysis) -> String {
    let r = &a.report;
    let plan = &a.ephemeral_plan;
    let mut s = String::new();
    for l in header_lines(a) {
        let _ = writeln!(s, "// {l}");
    }
    s.push_str(
        "\nuse synaptic_mem::plan::{Plan, PlanSlot, SlotType};\nuse synaptic_mem::DType;\n\n",
    );
    let _ = writeln!(s, "/// Bytes of the planned ephemeral region.");
    let _ = writeln!(s, "pub const REGION_SIZE: u32 = {};", plan.region_size);
    let n = &r.ram;
    let _ = writeln!(
        s,
        "/// The arena synaptic-run needs for this plan ({} I/O, program in {}): give exactly this \
         to `Arena::exact` (plan descriptors + activations + state + kernel scratch{}).",
        r.io_in.name(),
        n.op_data,
        if n.op_data == "ram" { " + the program compiled at load" } else { "" }
    );
    let _ = writeln!(s, "pub const ARENA_BYTES: usize = {};", n.arena_bytes);
    let _ = writeln!(
        s,
        "/// Of ARENA_BYTES: the scratch pool synaptic-run's kernels take, the largest block one \
         operator takes per call (the loader reserves it from the top of the arena)."
    );
    let _ = writeln!(s, "pub const SCRATCH_BYTES: usize = {};", n.scratch_bytes);
    let _ = writeln!(
        s,
        "/// The SHARED region for the graph inputs/outputs (0: I/O in the plan)."
    );
    let _ = writeln!(s, "pub const SHARED_BYTES: usize = {};", n.shared_bytes);
    let _ = writeln!(
        s,
        "/// All the RAM synaptic-run needs: ARENA_BYTES + SHARED_BYTES (weights stay in flash)."
    );
    let _ = writeln!(s, "pub const RAM_BYTES: usize = {};", r.ram_bytes);
    let _ = writeln!(
        s,
        "/// Bare allocator (`Arena::with_scratch`, weights in {}): persistent region bytes.",
        r.weights_in.name()
    );
    let _ = writeln!(
        s,
        "pub const ALLOCATOR_PERSISTENT_BYTES: u32 = {};",
        r.persistent_bytes
    );
    let _ = writeln!(s, "/// Bare allocator: its scratch pool.");
    let _ = writeln!(
        s,
        "pub const ALLOCATOR_SCRATCH_BYTES: u32 = {};",
        r.scratch_bytes
    );
    let _ = writeln!(
        s,
        "/// Bare allocator: its smallest arena (persistent + ephemeral + scratch); not the \
         runtime's (ARENA_BYTES)."
    );
    let _ = writeln!(
        s,
        "pub const ALLOCATOR_ARENA_BYTES: u32 = {};",
        r.arena_bytes_required
    );
    let _ = writeln!(s, "/// One slot per planned activation.");
    let _ = writeln!(s, "pub const SLOTS: [PlanSlot; {}] = [", plan.items.len());
    for (k, slot) in plan.slots().iter().enumerate() {
        let t = a.ephemeral_tensors[k];
        let _ = writeln!(
            s,
            "    PlanSlot {{ offset: {}, size: {}, first_op: {}, last_op: {} }}, // slot {k}: tensor {t} {}",
            slot.offset,
            slot.size,
            slot.first_op,
            slot.last_op,
            comment_safe(&short(&a.model.tensors[t].name))
        );
    }
    s.push_str("];\n");
    let _ = writeln!(s, "/// Tensor index (main subgraph) of each slot.");
    let _ = writeln!(
        s,
        "pub const SLOT_TENSORS: [u32; {}] = [{}];",
        plan.items.len(),
        a.ephemeral_tensors
            .iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        s,
        "/// Each slot's tensor (shape, core dtype): the descriptor templates of a typed plan."
    );
    let _ = writeln!(
        s,
        "pub const SLOT_TYPES: [SlotType; {}] = [",
        plan.items.len()
    );
    for (t, fallback) in slot_types(a) {
        let _ = writeln!(
            s,
            "    SlotType::new({:?}, {}, DType::{:?}),{}",
            t.shape,
            t.ndim,
            dtype_of(&t),
            if fallback {
                " // no core type: bytes"
            } else {
                ""
            }
        );
    }
    s.push_str("];\n");
    let _ = writeln!(s, "/// The plan, for the core's planned runtime.");
    let _ = writeln!(
        s,
        "pub const PLAN: Plan<'static> = Plan {{ region_size: REGION_SIZE, slots: &SLOTS }};"
    );
    let pairs = &plan.overlaps;
    let _ = writeln!(
        s,
        "/// The plan's declared output/input overlaps (empty: a plain plan), for\n\
         /// `Interpreter::new(model, loader, RunPlan::overlapped(PLAN, &OVERLAPS), io)`."
    );
    let _ = writeln!(
        s,
        "pub const OVERLAPS: [synaptic_mem::plan::OverlapPair; {}] = [",
        pairs.len()
    );
    for q in pairs {
        let _ = writeln!(
            s,
            "    synaptic_mem::plan::OverlapPair {{ op: {}, input: {}, output: {}, direction: \
             synaptic_mem::plan::OverlapDirection::{:?}, bound: {} }}, // {}",
            q.op,
            q.input,
            q.output,
            q.direction,
            q.bound,
            pair_comment(a, q)
        );
    }
    s.push_str("];\n");
    s
}

/// `tensor i -> tensor o, delta d`: a declared overlap in words.
fn pair_comment(a: &Analysis, q: &synaptic_mem::plan::OverlapPair) -> String {
    let slots = a.ephemeral_plan.slots();
    let (i, o) = (usize::from(q.input), usize::from(q.output));
    let delta = i64::from(slots[o].offset) - i64::from(slots[i].offset);
    format!(
        "operator {}: tensor {} -> tensor {}, delta {delta}",
        q.op, a.ephemeral_tensors[i], a.ephemeral_tensors[o]
    )
}

fn emit_c(a: &Analysis) -> String {
    let r = &a.report;
    let plan = &a.ephemeral_plan;
    let p = c_prefix(&r.model);
    let lp = p.to_ascii_lowercase();
    let mut s = String::new();
    s.push_str("/*\n");
    for l in header_lines(a) {
        let _ = writeln!(s, " * {l}");
    }
    s.push_str(" */\n");
    let _ = writeln!(s, "#ifndef SYNMEM_PLAN_{p}_H\n#define SYNMEM_PLAN_{p}_H\n");
    s.push_str("#include <stdint.h>\n\n");
    s.push_str("#ifndef SYN_PLAN_SLOT_T_DEFINED\n#define SYN_PLAN_SLOT_T_DEFINED\n");
    s.push_str("/* Same layout as synaptic_mem::plan::PlanSlot (#[repr(C)]). */\n");
    s.push_str("typedef struct {\n    uint32_t offset;   /* from the start of the planned ephemeral region, multiple of 16 */\n    uint32_t size;     /* data bytes (the block spans size rounded up to 16) */\n    uint16_t first_op; /* first operator (0-based) at which the tensor is live */\n    uint16_t last_op;  /* last operator at which it is live (inclusive) */\n} syn_plan_slot_t;\n#endif\n\n");
    s.push_str("#ifndef SYN_PLAN_TYPE_T_DEFINED\n#define SYN_PLAN_TYPE_T_DEFINED\n");
    s.push_str("/* Same layout as synaptic_mem::plan::SlotType; syn_mem.h defines it too. */\n");
    s.push_str("typedef struct {\n    uint32_t shape[4]; /* dimensions; only the first ndim are read */\n    uint8_t ndim;      /* 1..4 */\n    uint8_t dtype;     /* a syn_npu_dtype_t value */\n} syn_plan_type_t;\n#endif\n\n");
    s.push_str("#ifndef SYNMEM_PLAN_UNUSED\n#if defined(__GNUC__)\n#define SYNMEM_PLAN_UNUSED __attribute__((unused))\n#else\n#define SYNMEM_PLAN_UNUSED\n#endif\n#endif\n\n");
    let n = &r.ram;
    let _ = writeln!(
        s,
        "/* What synaptic-run needs (syn_run_load): the arena (syn_run_config_t.arena_size: plan\n \
         * descriptors + activations + state + kernel scratch{}; of it SCRATCH_BYTES, the largest\n \
         * block one kernel takes per call), the shared region\n \
         * (shared_size; 0: I/O in the plan) and their sum, all the RAM it takes (weights stay in\n \
         * flash). Emitted for {} with the program in {}. */",
        if n.op_data == "ram" { " + the program compiled at load" } else { "" },
        match r.io_in {
            crate::IoPlacement::Shared => "SYN_RUN_IO_SHARED",
            crate::IoPlacement::Ephemeral => "SYN_RUN_IO_PLAN",
        },
        n.op_data
    );
    let io = match r.io_in {
        crate::IoPlacement::Shared => 0,
        crate::IoPlacement::Ephemeral => 1,
    };
    let defs = [
        ("ARENA_BYTES", n.arena_bytes),
        ("SCRATCH_BYTES", n.scratch_bytes),
        ("SHARED_BYTES", n.shared_bytes),
        ("RAM_BYTES", r.ram_bytes),
        ("IO", io),
        ("REGION_SIZE", plan.region_size),
        ("SLOT_COUNT", plan.items.len() as u64),
    ];
    for (n, v) in defs {
        let _ = writeln!(s, "#define {p}_{n} {v}u");
    }
    let _ = writeln!(
        s,
        "/* The bare allocator's figures (syn_mem_init and the Kconfig arena, weights in {}): not\n \
         * the runtime's. */",
        r.weights_in.name()
    );
    let defs = [
        ("ALLOCATOR_PERSISTENT_BYTES", r.persistent_bytes),
        ("ALLOCATOR_EPHEMERAL_BYTES", r.ephemeral_bytes),
        ("ALLOCATOR_SCRATCH_BYTES", r.scratch_bytes),
        ("ALLOCATOR_ARENA_BYTES", r.arena_bytes_required),
    ];
    for (n, v) in defs {
        let _ = writeln!(s, "#define {p}_{n} {v}u");
    }
    s.push('\n');
    // A zero-length array is not valid C: emit one unused zero entry for an empty plan.
    let _ = writeln!(
        s,
        "static const syn_plan_slot_t {lp}_slots[] SYNMEM_PLAN_UNUSED = {{"
    );
    if plan.items.is_empty() {
        s.push_str("    {0u, 0u, 0u, 0u}, /* placeholder: no planned activations */\n");
    }
    for (k, slot) in plan.slots().iter().enumerate() {
        let t = a.ephemeral_tensors[k];
        let _ = writeln!(
            s,
            "    {{{}u, {}u, {}u, {}u}}, /* slot {k}: tensor {t} {} */",
            slot.offset,
            slot.size,
            slot.first_op,
            slot.last_op,
            comment_safe(&short(&a.model.tensors[t].name))
        );
    }
    s.push_str("};\n\n");
    let _ = writeln!(s, "/* Tensor index (main subgraph) of each slot. */");
    let _ = writeln!(
        s,
        "static const uint32_t {lp}_slot_tensor[] SYNMEM_PLAN_UNUSED = {{"
    );
    if plan.items.is_empty() {
        s.push_str("    0u, /* placeholder */\n");
    }
    for &t in &a.ephemeral_tensors {
        let _ = writeln!(s, "    {t}u,");
    }
    s.push_str("};\n\n");
    let _ = writeln!(
        s,
        "/* Each slot's tensor (shape, ndim, syn_npu_dtype_t): its descriptor template. */"
    );
    let _ = writeln!(
        s,
        "static const syn_plan_type_t {lp}_slot_types[] SYNMEM_PLAN_UNUSED = {{"
    );
    if plan.items.is_empty() {
        s.push_str("    {{0u, 0u, 0u, 0u}, 0u, 0u}, /* placeholder */\n");
    }
    for (k, (t, fallback)) in slot_types(a).into_iter().enumerate() {
        let d = t.shape;
        let _ = writeln!(
            s,
            "    {{{{{}u, {}u, {}u, {}u}}, {}u, {}u}}, /* slot {k}: {}{} */",
            d[0],
            d[1],
            d[2],
            d[3],
            t.ndim,
            t.dtype,
            dtype_of(&t).name().to_ascii_uppercase(),
            if fallback {
                ", no core type: bytes"
            } else {
                ""
            }
        );
    }
    s.push_str("};\n\n");
    let _ = writeln!(
        s,
        "/* The arguments of syn_mem_plan_load(): syn_mem_plan_load({p}_PLAN_ARGS, &plan). */"
    );
    let _ = writeln!(
        s,
        "#define {p}_PLAN_ARGS {lp}_slots, {lp}_slot_types, {p}_SLOT_COUNT, {p}_REGION_SIZE\n"
    );
    s.push_str("#ifndef SYN_PLAN_OVERLAP_T_DEFINED\n#define SYN_PLAN_OVERLAP_T_DEFINED\n");
    s.push_str("/* Same layout as synaptic_mem::plan::OverlapPair (#[repr(C)]). */\n");
    s.push_str("typedef struct {\n    uint16_t op;        /* the operator (0-based) */\n    uint16_t input;     /* the input slot (dies at op) */\n    uint16_t output;    /* the output slot (born at op) */\n    uint8_t direction;  /* 0 forward, 1 backward */\n    int32_t bound;      /* the safe delta output.offset - input.offset (forward: at most, backward: at least) */\n} syn_plan_overlap_t;\n#endif\n\n");
    let pairs = &plan.overlaps;
    let _ = writeln!(
        s,
        "/* The plan's declared output/input overlaps, run overlapped by synaptic-run \
         (syn_run_config_t.overlaps; the typed plans of syn_mem_plan_load take plain plans: \
         emit those with --no-overlap). */"
    );
    let _ = writeln!(s, "#define {p}_OVERLAP_COUNT {}u", pairs.len());
    let _ = writeln!(
        s,
        "static const syn_plan_overlap_t {lp}_overlaps[] SYNMEM_PLAN_UNUSED = {{"
    );
    if pairs.is_empty() {
        s.push_str("    {0u, 0u, 0u, 0u, 0}, /* placeholder: no declared overlap */\n");
    }
    for q in pairs {
        let _ = writeln!(
            s,
            "    {{{}u, {}u, {}u, {}u, {}}}, /* {} */",
            q.op,
            q.input,
            q.output,
            q.direction as u8,
            q.bound,
            pair_comment(a, q)
        );
    }
    s.push_str("};\n\n");
    let _ = writeln!(s, "#endif /* SYNMEM_PLAN_{p}_H */");
    s
}
