//! The operators: one module per TFLite builtin (or pair of builtins that are one kernel),
//! holding everything about it, in its family's folder, and the one list that names them all.
//!
//! ## Layout
//!
//! | folder | what |
//! |---|---|
//! | [`kernel`] | the plumbing, no operator: the kernel traits, element traits and shapes, float32 arithmetic, overlapped execution, operands, preparation, tables, paths |
//! | [`conv`] | CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV |
//! | [`matmul`] | FULLY_CONNECTED, BATCH_MATMUL |
//! | [`pooling`] | AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D |
//! | [`elementwise`] | ADD, SUB, MUL, DIV, SQUARED_DIFFERENCE, MINIMUM, MAXIMUM, FLOOR_DIV, FLOOR_MOD, LOGISTIC, RELU, RELU6, LEAKY_RELU, ELU, HARD_SWISH, PRELU, TANH, ADD_N, SELECT_V2, ABS, RSQRT, NEG, FLOOR, CEIL, SQUARE, SQRT, ROUND, EXP, the comparisons (EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL), LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT, QUANTIZE, DEQUANTIZE, CAST |
//! | [`reduction`] | MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_ALL, SOFTMAX, LOG_SOFTMAX, ARG_MAX, ARG_MIN, CUMSUM, L2_NORMALIZATION |
//! | [`shape`] | RESHAPE, SQUEEZE, EXPAND_DIMS, CONCATENATION, PAD, PADV2, MIRROR_PAD, STRIDED_SLICE, SLICE, PACK, TRANSPOSE, SPACE_TO_DEPTH, DEPTH_TO_SPACE, SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND, GATHER, GATHER_ND, EMBEDDING_LOOKUP, DYNAMIC_UPDATE_SLICE, REVERSE_V2, RESIZE_NEAREST_NEIGHBOR, RESIZE_BILINEAR, SPLIT, SPLIT_V, UNPACK, BROADCAST_TO, BROADCAST_ARGS, SHAPE, FILL, ZEROS_LIKE |
//! | [`recurrent`] | SVDF, UNIDIRECTIONAL_SEQUENCE_LSTM |
//! | [`signal`] | TFLM's signal library's custom operators (the audio front end) |
//! | [`detection`] | TFLite_Detection_PostProcess (a custom operator) |
//! | [`decode`] | TFLM_DECODE (a custom operator: a compressed model's tensors decoded) |
//!
//! This file: the list and the dispatch it generates (the kernel traits, [`OpSet`], `Kernel`
//! and `Kind`, are the plumbing's). An operator module reaches the plumbing as
//! `crate::ops::{common, prep, Kernel, …}`.
//!
//! ## What an operator module holds
//!
//! | item | what |
//! |---|---|
//! | `BUILTINS` | the TFLite builtin codes it prepares |
//! | `prepare(cx)` | its options parsed and checked, its tensors checked (`Prep`), as TFLM's `Prepare` does; returns the kernel chosen and its parameters (`Prepared`) |
//! | a `*Params` struct | everything its kernel needs besides the data, made by a validating constructor, stored in the program as words (`words!`) |
//! | one type per kernel, implementing `Kernel` | the kernel per data type (`run`), and where its output may overlap a dying input its access contract (`contract`) and in-place entry point (`run_in_place`), its scratch and state bytes |
//!
//! A faster variant of a kernel for one instruction set (Cortex-M4 DSP, M3 `MLA`, M55 Helium)
//! goes in a file beside the portable one (the module becomes a folder), chosen by `cfg` at
//! its declaration (build.rs sets `synaptic_dsp`, `synaptic_mla`, `synaptic_v6m`): the loops
//! in assembly in `dsp.rs` / `mla.rs` (`conv/depthwise_conv_2d/{dsp,mla}.rs`, their `unsafe`
//! there alone), a layout or primitives with one file per ISA under the same names
//! (`conv/conv_2d/gathered{,_dsp,_v6m}.rs`, `conv/depthwise_conv_2d/mac{,_dsp}.rs`); the
//! kernel's `run` picks between paths with `#[cfg]` on a statement at most. A variant whose
//! access order differs returns its own `contract`.
//!
//! ## Adding an operator
//!
//! Write `ops/<family>/<name>.rs`, declare it in the family's `mod.rs` (`pub mod <name>;`) and
//! add one line to the list below (`<family>::<name> { … }`):
//! its kind codes (stable: the program format stores them) and its kernel types, one per data
//! type, each with the data types it runs (its main input's: [`kernel_types`], `synmem ops`); `if "feature"` builds a kernel only with that cargo feature (the float32 kernels:
//! without `float32` their dispatch arms are constant-false and their code is not linked;
//! `if "a" & "b"` with both).
//! A new kernel of an existing operator (its float32 version) is the same: the operator's
//! file and its line (the float32 SOFTMAX: `ops/reduction/softmax.rs` and `ops/mod.rs`). Nothing else
//! names an operator: the program codec, the compiler, the interpreter and the planner reach
//! every operator through the functions this list generates (`prepare`, `param_words`, `run`,
//! `contract`, `run_in_place`, `kernel_name`).

use crate::contract::Contract;
use crate::error::{KernelError, LoadError, Unsupported};
use crate::format::codec::Words;

pub mod kernel;

pub use kernel::{common, float, in_place, paths};
pub(crate) use kernel::{operands, prep, tables};

pub use in_place::InPlace;
pub(crate) use operands::{InPlaceOperands, Operands};
pub(crate) use prep::{Prep, Prepared, Seen};

pub(crate) use kernel::{linked, Kernel, Kind};
pub use kernel::{AllOps, Kinds, OpSet};

pub use crate::format::Geometry;

/// The access contract of operator `op` of `model`'s main subgraph for its input at position
/// `input`, derived from the parameters the runtime prepares for it (the one derivation: the
/// overlaps a planner declares from it are the ones the runtime checks at load); `None` if the
/// operator does not load, its input is a constant, or its kernel has no contract for it.
///
/// ```
/// let model = synaptic_tflite::Model::new(synaptic_tflite::tests_support::tiny_model()).unwrap();
/// // The tiny model's ADD: either input has the output's shape, so it may overlap it.
/// let c = synaptic_run::ops::contract_of(&model, 0, 0).unwrap();
/// assert_eq!(c.safe_overlap().unwrap().forward_max, 0);
/// ```
pub fn contract_of(
    model: &synaptic_tflite::Model<'_>,
    op: usize,
    input: usize,
) -> Option<Contract> {
    let sg = model.subgraph(0).ok()?;
    with_prepared::<AllOps, _>(model, &sg, op, |v, prepared| {
        contract_in(model, &sg, v, prepared, input)
    })?
}

/// [`contract_of`] for the operator `v`, prepared as `prepared`.
fn contract_in(
    model: &synaptic_tflite::Model<'_>,
    sg: &synaptic_tflite::SubGraph<'_>,
    v: &crate::model::OpView<'_>,
    prepared: &Prepared<'_>,
    input: usize,
) -> Option<Contract> {
    let t = usize::try_from(*v.inputs.get(input)?).ok()?;
    // An operator with two outputs runs only plainly (the overlapped path has one output).
    if v.n_out > 1 || input >= v.n_in || !crate::model::tinfo(model, sg, t).ok()?.data.is_empty() {
        return None;
    }
    if !prepared.reads(input) {
        return None;
    }
    let out = crate::model::tinfo(model, sg, v.output).ok()?;
    let elems = out.shape().iter().product();
    contract::<AllOps>(
        prepared.kind,
        prepared.words(),
        input,
        Geometry {
            elems,
            bytes: out.bytes,
        },
    )
}

/// The scratch bytes operator `op` of `model`'s main subgraph takes from the scratch pool per
/// call: its kernel's buffer-size function for the parameters the runtime prepares (the one
/// derivation: the pool a planner sizes from it is the block the interpreter opens around the
/// kernel); 0 if the operator does not load or its kernel takes none.
///
/// ```
/// let model = synaptic_tflite::Model::new(synaptic_tflite::tests_support::tiny_model()).unwrap();
/// assert_eq!(synaptic_run::ops::scratch_of(&model, 0), 0); // ADD takes no scratch
/// ```
pub fn scratch_of(model: &synaptic_tflite::Model<'_>, op: usize) -> usize {
    let Ok(sg) = model.subgraph(0) else {
        return 0;
    };
    scratch_in::<AllOps>(model, &sg, op)
}

/// The bytes of the private state operator `op` of `model`'s main subgraph keeps across
/// invocations (the kernel's `private_state_bytes` for the parameters the runtime prepares: the
/// PERSISTENT buffer a load allocates for it, as a variable tensor's); 0 if it keeps none or
/// does not load.
///
/// ```
/// let model = synaptic_tflite::Model::new(synaptic_tflite::tests_support::tiny_model()).unwrap();
/// assert_eq!(synaptic_run::ops::private_state_of(&model, 0), 0); // ADD keeps none
/// ```
pub fn private_state_of(model: &synaptic_tflite::Model<'_>, op: usize) -> usize {
    let Ok(sg) = model.subgraph(0) else {
        return 0;
    };
    private_state_in::<AllOps>(model, &sg, op)
}

/// [`private_state_of`] with only the kernels of `O` (an operator of another is 0).
pub(crate) fn private_state_in<O: OpSet>(
    model: &synaptic_tflite::Model<'_>,
    sg: &synaptic_tflite::SubGraph<'_>,
    op: usize,
) -> usize {
    match crate::model::op_code(model, sg, op) {
        Ok((code, _)) if private_state(code) => {}
        _ => return 0,
    }
    with_prepared::<O, _>(model, sg, op, |_, p| {
        private_state_bytes::<O>(p.kind, p.words())
    })
    .flatten()
    .unwrap_or(0)
}

/// [`scratch_of`] with only the kernels of `O` (an operator of another is 0).
fn scratch_in<O: OpSet>(
    model: &synaptic_tflite::Model<'_>,
    sg: &synaptic_tflite::SubGraph<'_>,
    op: usize,
) -> usize {
    with_prepared::<O, _>(model, sg, op, |_, p| scratch_bytes::<O>(p.kind, p.words())).unwrap_or(0)
}

/// The scratch pool graph `g` needs with the kernels of `O`: the largest block one of its
/// operators' kernels takes per call ([`scratch_of`] over the main subgraph).
pub(crate) fn model_scratch<O: OpSet>(g: &crate::model::Graph<'_>) -> usize {
    (0..g.n_ops)
        .map(|op| scratch_in::<O>(&g.model, &g.sg, op))
        .max()
        .unwrap_or(0)
}

/// `f` of operator `op` of subgraph `sg` prepared as the runtime prepares it (the kernels of
/// `O`) and of its view, both read where they were returned (some 400 bytes: not moved into
/// a tuple); `None` if it does not load.
fn with_prepared<'m, O: OpSet, R>(
    model: &synaptic_tflite::Model<'m>,
    sg: &synaptic_tflite::SubGraph<'m>,
    op: usize,
    f: impl FnOnce(&crate::model::OpView<'m>, &Prepared<'m>) -> R,
) -> Option<R> {
    let n_tensors = sg.tensors_len().ok()?;
    let (code, _) = crate::model::op_code(model, sg, op).ok()?;
    if !supported(code) {
        return None;
    }
    let viewed = crate::model::op_view(model, sg, op, n_tensors);
    let v = viewed.as_ref().ok()?;
    let mut seen = Seen::default();
    seen.read_operands(model, sg, None, v);
    let prepared = prepare::<O>(&Prep {
        model,
        sg,
        v,
        index: op,
        kinds: O::KINDS,
        seen: &seen,
        constants: None,
        isa: crate::Isa::NATIVE,
    });
    Some(f(v, prepared.as_ref().ok()?))
}

/// The custom operators the runtime implements, matched by their custom code (TFLM's
/// signal library, as its op resolver registers them): custom operator `i` gets the code
/// [`CUSTOM_BASE`]` + i` here, its module's `BUILTINS` entry. Any other custom code stays
/// `CUSTOM`, refused at load as not implemented.
pub const CUSTOM_OPS: &[&str] = &[
    "SignalWindow",
    "SignalFftAutoScale",
    "SignalRfft",
    "SignalEnergy",
    "SignalFilterBank",
    "SignalFilterBankSquareRoot",
    "SignalFilterBankSpectralSubtraction",
    "SignalPCAN",
    "SignalFilterBankLog",
    "SignalDelay",
    "SignalStacker",
    "SignalFramer",
    "SignalOverlapAdd",
    "SignalIrfft",
    "TFLite_Detection_PostProcess",
    "CIRCULAR_BUFFER",
    "TFLM_DECODE",
];

/// The code of the first custom operator of [`CUSTOM_OPS`] (above every builtin code; below
/// 2^12, the program record's field).
pub const CUSTOM_BASE: i32 = 0x800;

/// The operator code and name of an operator code table entry: a builtin's code and TFLite
/// name, or for a custom operator of [`CUSTOM_OPS`] its code here and its custom code (any
/// other custom operator: `CUSTOM`).
///
/// ```
/// use synaptic_run::ops::{identify, CUSTOM_BASE};
/// assert_eq!(identify(3, None), (3, "CONV_2D"));
/// assert_eq!(identify(32, Some(b"SignalRfft")), (CUSTOM_BASE + 2, "SignalRfft"));
/// assert_eq!(identify(32, Some(b"MyOp")), (32, "CUSTOM"));
/// // Compared as TFLM's resolver compares it, a C string: up to its first NUL.
/// assert_eq!(identify(32, Some(b"SignalRfft\0")), (CUSTOM_BASE + 2, "SignalRfft"));
/// ```
pub fn identify(builtin: i32, custom: Option<&[u8]>) -> (i32, &'static str) {
    if builtin == synaptic_tflite::code::CUSTOM {
        // TFLM finds a custom operator by `strcmp` of its code's C string: a stored NUL ends it.
        let named = |c: &[u8]| {
            let c = c.split(|&b| b == 0).next().unwrap_or(c);
            CUSTOM_OPS.iter().position(|n| n.as_bytes() == c)
        };
        if let Some(i) = custom.and_then(named) {
            return (CUSTOM_BASE + i as i32, CUSTOM_OPS[i]);
        }
    }
    (
        builtin,
        synaptic_tflite::builtin_name(builtin).unwrap_or("UNKNOWN"),
    )
}

/// The custom code of custom operator `name` of [`CUSTOM_OPS`] (its modules' `BUILTINS`).
pub(crate) const fn custom_code(name: &str) -> i32 {
    let mut i = 0;
    while i < CUSTOM_OPS.len() {
        let (a, b) = (CUSTOM_OPS[i].as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return CUSTOM_BASE + i as i32;
            }
        }
        i += 1;
    }
    panic!("not a custom operator of CUSTOM_OPS")
}

/// The output position of operator code `code` that holds its kernel's own state across
/// invocations (TFLM keeps it in a persistent buffer and copies it out each call; here the
/// output tensor itself is that state: persistent, zeroed at load and by a state reset).
pub(crate) fn state_output(code: i32) -> Option<usize> {
    (code == signal::spectral_subtraction::CODE)
        .then_some(signal::spectral_subtraction::STATE_OUTPUT)
}

/// The kernels that keep their own state in an output ([`state_output`]'s operator's).
pub(crate) const OWN_STATE_KINDS: Kinds =
    Kinds::of(&[<signal::spectral_subtraction::SpectralSubtraction as Kind>::KIND]);

/// The kernels whose access contract is a window ([`crate::contract::Access::Window`]: the
/// convolutions and the poolings, int8 and float32); every other kernel's contract is rows or
/// elements. An interpreter whose [`OpSet`] links none of them checks its overlaps without
/// the window's derivation (not linked there).
pub(crate) const WINDOW_KINDS: Kinds = Kinds::of(&[
    <conv::conv_2d::Conv2d as Kind>::KIND,
    <conv::conv_2d::Conv2dF32 as Kind>::KIND,
    <conv::depthwise_conv_2d::DepthwiseConv2d as Kind>::KIND,
    <conv::depthwise_conv_2d::DepthwiseConv2dF32 as Kind>::KIND,
    <pooling::average_pool_2d::AveragePool2d as Kind>::KIND,
    <pooling::average_pool_2d::AveragePool2dF32 as Kind>::KIND,
    <pooling::max_pool_2d::MaxPool2d as Kind>::KIND,
    <pooling::max_pool_2d::MaxPool2dF32 as Kind>::KIND,
    <pooling::l2_pool_2d::L2Pool2dF32 as Kind>::KIND,
]);

/// The tensor of operator `op` of `sg` that holds its kernel's own state ([`state_output`]),
/// if any (in range).
pub(crate) fn state_output_in(
    model: &synaptic_tflite::Model<'_>,
    sg: &synaptic_tflite::SubGraph<'_>,
    op: usize,
) -> Option<usize> {
    let (code, _) = crate::model::op_code(model, sg, op).ok()?;
    let k = state_output(code)?;
    let t = usize::try_from(sg.operator(op).ok()?.outputs().ok()?.get(k)?).ok()?;
    (t < sg.tensors_len().ok()?).then_some(t)
}

/// The tensor of operator `op` of `model`'s main subgraph that holds its kernel's own state
/// across invocations (the spectral subtraction's noise estimate): state like a variable
/// tensor (persistent, zeroed at load and by a state reset), not a planned activation.
///
/// ```
/// let model = synaptic_tflite::Model::new(synaptic_tflite::tests_support::tiny_model()).unwrap();
/// assert_eq!(synaptic_run::ops::state_output_of(&model, 0), None);
/// ```
pub fn state_output_of(model: &synaptic_tflite::Model<'_>, op: usize) -> Option<usize> {
    state_output_in(model, &model.subgraph(0).ok()?, op)
}

/// Decodes a kernel's parameters from its record's words.
#[inline(always)]
fn params<K: Kernel>(words: &[u32]) -> Result<K::Params, KernelError> {
    let bad = || KernelError::unsupported(K::NAME, Unsupported::ProgramMismatch);
    if words.len() != <K::Params as Words>::N {
        return Err(bad());
    }
    <K::Params as Words>::get(words).ok_or_else(bad)
}

/// A kernel's parameters from its record's words, if they decode ([`params`] without an
/// error to build: what asks only a size of them).
#[inline(always)]
fn params_of<K: Kernel>(words: &[u32]) -> Option<K::Params> {
    if words.len() != <K::Params as Words>::N {
        return None;
    }
    <K::Params as Words>::get(words)
}

// Not inlined into the dispatch: the stack under a kernel holds its own parameters, not a
// frame the size of the largest kernel's (on Armv6-M, whose parts have the least flash,
// inlined: one function, not one per kernel).
#[cfg_attr(not(synaptic_v6m), inline(never))]
#[cfg_attr(synaptic_v6m, inline(always))]
fn run_kernel<K: Kernel, O: OpSet>(
    words: &[u32],
    io: &mut Operands<'_, '_, '_>,
) -> Result<(), KernelError> {
    io.name = K::NAME;
    K::run_linked::<O>(&params::<K>(words)?, io)
}

#[cfg_attr(not(synaptic_v6m), inline(never))]
#[cfg_attr(synaptic_v6m, inline(always))]
fn run_kernel_in_place<K: Kernel, O: OpSet>(
    words: &[u32],
    io: &mut InPlaceOperands<'_, '_>,
) -> Result<usize, KernelError> {
    io.name = K::NAME;
    K::run_in_place_linked::<O>(&params::<K>(words)?, io)
}

fn kernel_contract<K: Kernel>(words: &[u32], k: usize, out: Geometry) -> Option<Contract> {
    K::contract(&params::<K>(words).ok()?, k, out)
}

/// The list: every operator module, its kernels and their kind codes.
macro_rules! operators {
    ($( $family:ident :: $module:ident { $( $kind:literal => $kernel:ident ( $($ty:ident),+ ) $(if $($feature:literal)&+)? ),+ $(,)? } ),+ $(,)?) => {
        $( $( impl Kind for $family::$module::$kernel {
            const KIND: u32 = $kind;
            const BUILT: bool = true $($(&& cfg!(feature = $feature))+)?;
        } )+ )+

        /// Bit `k` set: kernel kind `k` reads and updates state ([`Kernel::STATE`]). An
        /// interpreter whose [`OpSet`] links none has no state to allocate or hand out (that
        /// code is constant-false there).
        pub(crate) const STATE_KINDS: Kinds = Kinds::NONE $( $( .union(if <$family::$module::$kernel as Kernel>::STATE { Kinds::of(&[$kind]) } else { Kinds::NONE }) )+ )+;

        /// The kernels that may stop an inference ([`Kernel::ABORTS`]).
        pub(crate) const ABORT_KINDS: Kinds = Kinds::NONE $( $( .union(if <$family::$module::$kernel as Kernel>::ABORTS { Kinds::of(&[$kind]) } else { Kinds::NONE }) )+ )+;

        /// The kernels that take scratch ([`Kernel::SCRATCH`]).
        pub(crate) const SCRATCH_KINDS: Kinds = Kinds::NONE $( $( .union(if <$family::$module::$kernel as Kernel>::SCRATCH { Kinds::of(&[$kind]) } else { Kinds::NONE }) )+ )+;

        /// The kernels with a private state ([`Kernel::PRIVATE_STATE`]).
        pub(crate) const PRIVATE_STATE_KINDS: Kinds = Kinds::NONE $( $( .union(if <$family::$module::$kernel as Kernel>::PRIVATE_STATE { Kinds::of(&[$kind]) } else { Kinds::NONE }) )+ )+;

        /// The most planned tensors one operator of the kernels `kinds` views at once (its
        /// inputs and outputs, [`Kernel::MAX_INPUTS`] + [`Kernel::OUTPUTS`], at most
        /// [`crate::limits::MAX_OP_TENSORS`]): the interpreter's view lists go no longer.
        pub(crate) const fn views(kinds: Kinds) -> usize {
            let mut n = 0;
            $( $( if linked(kinds, $kind) {
                let v = <$family::$module::$kernel as Kernel>::MAX_INPUTS + <$family::$module::$kernel as Kernel>::OUTPUTS;
                if v > n {
                    n = v;
                }
            } )+ )+
            if n > crate::limits::MAX_OP_TENSORS {
                crate::limits::MAX_OP_TENSORS
            } else {
                n
            }
        }

        /// The kernels of the operator named `name` (TFLite's builtin name, `FULLY_CONNECTED`,
        /// or a custom code of [`CUSTOM_OPS`]) as an [`OpSet::KINDS`] mask: every data type's
        /// kernel of its module (built or not); `None` if the runtime has no such operator.
        /// How a C library links only some operators (`SYNAPTIC_RUN_OPS` of synaptic-run-ffi,
        /// Zephyr's `CONFIG_SYNAPTIC_RUN_OPS`).
        ///
        /// ```
        /// let fc = synaptic_run::ops::kinds_of("FULLY_CONNECTED").unwrap();
        /// assert_eq!(fc.count(), 4); // int8, float32, int16 and int8 with int4 weights
        /// assert!(synaptic_run::ops::kinds_of("SignalRfft").is_some());
        /// assert_eq!(synaptic_run::ops::kinds_of("WHILE"), None);
        /// ```
        pub fn kinds_of(name: &str) -> Option<Kinds> {
            let code = match CUSTOM_OPS.iter().position(|n| *n == name) {
                Some(i) => CUSTOM_BASE + i as i32,
                None => synaptic_tflite::BUILTIN_NAMES.iter().position(|n| *n == name)? as i32,
            };
            let mut mask = Kinds::NONE;
            $( if $family::$module::BUILTINS.contains(&code) { $(
                let only = <$family::$module::$kernel as Kernel>::ONLY;
                if only.is_empty() || only.contains(&code) {
                    mask = mask.with($kind);
                }
            )+ } )+
            (!mask.is_empty()).then_some(mask)
        }

        /// The operators of the kernels `kinds` (an [`OpSet::KINDS`] mask) by TFLite's names,
        /// each once, in kind order: what `SYNAPTIC_RUN_OPS` takes ([`kinds_of`] of each gives
        /// back their kernels).
        ///
        /// ```
        /// let fc = synaptic_run::ops::kinds_of("FULLY_CONNECTED").unwrap();
        /// assert!(synaptic_run::ops::operator_names(fc).eq(["FULLY_CONNECTED"]));
        /// ```
        pub fn operator_names(kinds: Kinds) -> impl Iterator<Item = &'static str> {
            kinds
                .iter()
                .filter(move |&k| param_words(k).is_some())
                .filter(move |&k| {
                    // The first kind of its operator in `kinds` names it.
                    let name = kernel_name(k);
                    !(0..k).any(|j| linked(kinds, j) && param_words(j).is_some() && kernel_name(j) == name)
                })
                .map(kernel_name)
        }

        /// Whether operator code `code`'s kernel keeps a private state
        /// ([`Kernel::PRIVATE_STATE`]: TFLM's persistent buffers of the signal library's
        /// Delay, Stacker, Framer, OverlapAdd, of CIRCULAR_BUFFER): the load allocates it per
        /// operator, a state like a variable tensor's without a tensor.
        pub(crate) fn private_state(code: i32) -> bool {
            false $( || ($family::$module::BUILTINS.contains(&code)
                && (false $( || <$family::$module::$kernel as Kernel>::PRIVATE_STATE )+)) )+
        }

        /// Whether the runtime implements TFLite builtin `code`.
        pub(crate) fn supported(code: i32) -> bool {
            false $( || $family::$module::BUILTINS.contains(&code) )+
        }

        /// Prepares the operator of `cx` (its module's `prepare`; a module none of whose
        /// kernels this build has and `O` links is not called, so not linked).
        pub(crate) fn prepare<'m, O: OpSet>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
            let code = cx.code();
            $( if $family::$module::BUILTINS.contains(&code) {
                if false $( || (<$family::$module::$kernel as Kind>::BUILT && linked(O::KINDS, $kind)) )+ {
                    return prepare_with(cx, $family::$module::prepare);
                }
                if false $( || linked(O::KINDS, $kind) )+ {
                    return Err(cx.unsupported(Unsupported::NotBuilt));
                }
                return Err(cx.unsupported(Unsupported::NotLinked));
            } )+
            Err(cx.unsupported(Unsupported::NotImplemented))
        }

        /// `prepare(cx)`, through a function pointer: each module's `prepare` in a frame of
        /// its own, not inlined into [`prepare`] (whose frame would be the largest of them,
        /// under every one).
        #[inline(never)]
        fn prepare_with<'m>(
            cx: &Prep<'_, 'm>,
            prepare: fn(&Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError>,
        ) -> Result<Prepared<'m>, LoadError> {
            prepare(cx)
        }

        /// One past the highest kind of the list (the per-kind tables' length: they grow
        /// with the list, not with [`Kinds::BITS`]).
        const KIND_END: usize = {
            let mut end = 0;
            $( $( if $kind + 1 > end {
                end = $kind + 1;
            } )+ )+
            end
        };

        /// Parameter words of kernel `kind` (`None`: no such kind): one load from a table of
        /// every kind (the interpreter decodes a record an operator, every inference), not a
        /// test a kind.
        #[inline]
        pub(crate) fn param_words(kind: u32) -> Option<usize> {
            /// Kind `k`'s parameter words, `u8::MAX` for none (every kind is below
            /// [`Kinds::BITS`]: the kind masks; every count below 255, checked here).
            const WORDS: [u8; KIND_END] = {
                let mut t = [u8::MAX; KIND_END];
                $( $( if <$family::$module::$kernel as Kind>::BUILT {
                    let n = <<$family::$module::$kernel as Kernel>::Params as Words>::N;
                    assert!(($kind as usize) < Kinds::BITS as usize && n < u8::MAX as usize);
                    t[$kind as usize] = n as u8;
                } )+ )+
                t
            };
            match WORDS.get(kind as usize) {
                Some(&n) if n != u8::MAX => Some(usize::from(n)),
                _ => None,
            }
        }

        /// The operator of kernel `kind`, as TFLite names it.
        /// The data types kernel `kind` runs — its main input's, by TFLite's lower-case names
        /// (`int8`, `int16`, `int32`, `uint32`, `float32`, `bool`, …; QUANTIZE's and CAST's
        /// input types) — if this build has it; empty otherwise. What `synmem ops` tells
        /// against TFLM's own kernels.
        ///
        /// ```
        /// let fc = synaptic_run::ops::kinds_of("FULLY_CONNECTED").unwrap();
        /// let int8 = fc.iter().next().unwrap();
        /// assert_eq!(synaptic_run::ops::kernel_types(int8), ["int8"]);
        /// ```
        pub fn kernel_types(kind: u32) -> &'static [&'static str] {
            match kind {
                $( $( $kind if <$family::$module::$kernel as Kind>::BUILT => &[$(stringify!($ty)),+], )+ )+
                _ => &[],
            }
        }

        /// The operator of kernel `kind`, as TFLite names it (`"UNKNOWN"` for a kind this
        /// build has no kernel of): from one compact table ([`kernel::names`]: a byte a kind).
        /// Apart and cold: only error paths call it.
        #[cold]
        #[inline(never)]
        pub(crate) fn kernel_name(kind: u32) -> &'static str {
            /// Every kernel's kind and name (`""`: not built), for the tables below only.
            const NAMES: &[(u32, &str)] = &[ $( $( ($kind, if <$family::$module::$kernel as Kind>::BUILT {
                <$family::$module::$kernel as Kernel>::NAME
            } else {
                ""
            }), )+ )+ ];
            const SIZES: (usize, usize) = kernel::names::sizes(NAMES);
            const TEXT: [u8; SIZES.0] = kernel::names::text(NAMES);
            const STARTS: [u16; SIZES.1 + 1] = kernel::names::starts(NAMES);
            const OF_KIND: [u8; KIND_END] = kernel::names::of_kind(NAMES);
            static TABLE: kernel::names::NameTable<'static> = kernel::names::NameTable {
                text: kernel::names::as_str(&TEXT),
                starts: &STARTS,
                of_kind: &OF_KIND,
            };
            TABLE.name(kind)
        }

        /// Runs kernel `kind` with parameters `words` on `io`: one jump to the kernel's.
        /// Inlined into its one caller (the interpreter's `call`, in the two arms of the
        /// views' closure): no frame of its own under every kernel.
        #[inline(always)]
        pub(crate) fn run<O: OpSet>(kind: u32, words: &[u32], io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
            match kind {
                $( $( $kind if <$family::$module::$kernel as Kind>::BUILT && linked(O::KINDS, $kind) => run_kernel::<$family::$module::$kernel, O>(words, io), )+ )+
                _ => Err(KernelError::unsupported(kernel_name(kind), Unsupported::ProgramMismatch)),
            }
        }

        /// The access contract of kernel `kind` (parameters `words`) for its input `k`. Not
        /// inlined: its kernels' locals are not on the stack under the contract's checks.
        #[inline(never)]
        pub(crate) fn contract<O: OpSet>(kind: u32, words: &[u32], k: usize, out: Geometry) -> Option<Contract> {
            match kind {
                $( $( $kind if <$family::$module::$kernel as Kind>::BUILT && linked(O::KINDS, $kind) => kernel_contract::<$family::$module::$kernel>(words, k, out), )+ )+
                _ => None,
            }
        }

        /// Whether kernel `kind` of `O` runs in place forward only (a kind `O` does not
        /// link: true). Over the image's kernels only: no table of every kind.
        pub(crate) fn forward_only<O: OpSet>(kind: u32) -> bool {
            match kind {
                $( $( $kind if <$family::$module::$kernel as Kind>::BUILT && linked(O::KINDS, $kind) => <$family::$module::$kernel as Kernel>::FORWARD_ONLY, )+ )+
                _ => true,
            }
        }

        /// Whether kernel `kind` runs once per output ([`Kernel::PER_OUTPUT`]).
        pub(crate) fn per_output(kind: u32) -> bool {
            match kind {
                $( $( $kind if <$family::$module::$kernel as Kind>::BUILT => <$family::$module::$kernel as Kernel>::PER_OUTPUT, )+ )+
                _ => false,
            }
        }

        /// [`per_output`] among the kernels of `O` (constant-false in an image that links
        /// none).
        #[inline]
        pub(crate) fn per_output_in<O: OpSet>(kind: u32) -> bool {
            match kind {
                $( $( $kind if <$family::$module::$kernel as Kernel>::PER_OUTPUT
                    && <$family::$module::$kernel as Kind>::BUILT
                    && linked(O::KINDS, $kind) => true, )+ )+
                _ => false,
            }
        }

        /// [`Kernel::STATE_INPUTS`] of kernel `kind`.
        pub(crate) fn state_inputs(kind: u32) -> u32 {
            match kind {
                $( $( $kind if <$family::$module::$kernel as Kind>::BUILT => <$family::$module::$kernel as Kernel>::STATE_INPUTS, )+ )+
                _ => 0,
            }
        }

        /// [`Kernel::PAIR_INPUT`] of kernel `kind` among those of `O` (`None` for another:
        /// the image's table holds its own kernels' only).
        #[inline]
        pub(crate) fn pair_input<O: OpSet>(kind: u32) -> Option<usize> {
            match kind {
                $( $( $kind if <$family::$module::$kernel as Kind>::BUILT && linked(O::KINDS, $kind) => <$family::$module::$kernel as Kernel>::PAIR_INPUT, )+ )+
                _ => None,
            }
        }

        /// Runs kernel `kind` in place ([`Kernel::run_in_place`]); returns the output's bytes
        /// (not inlined, as `run`).
        #[inline(never)]
        pub(crate) fn run_in_place<O: OpSet>(kind: u32, words: &[u32], io: &mut InPlaceOperands<'_, '_>) -> Result<usize, KernelError> {
            match kind {
                $( $( $kind if <$family::$module::$kernel as Kind>::BUILT && linked(O::KINDS, $kind) => run_kernel_in_place::<$family::$module::$kernel, O>(words, io), )+ )+
                _ => Err(KernelError::unsupported(kernel_name(kind), Unsupported::ProgramMismatch)),
            }
        }

        /// The paths ([`paths`]) kernel `kind` takes for parameters `words` in a record with
        /// folded constants or not (`constants`); 0 for a kernel without paths, one `O` does
        /// not link, or words that do not decode (refused as they run).
        #[inline]
        pub(crate) fn paths_of<O: OpSet>(kind: u32, words: &[u32], constants: bool) -> u64 {
            match kind {
                $( $( $kind if <$family::$module::$kernel as Kernel>::PATHS
                    && <$family::$module::$kernel as Kind>::BUILT
                    && linked(O::KINDS, $kind) => params::<$family::$module::$kernel>(words)
                    .map_or(0, |p| <$family::$module::$kernel as Kernel>::paths(&p, constants)), )+ )+
                _ => 0,
            }
        }

        /// Scratch bytes kernel `kind` (parameters `words`) takes per call: 0 without decoding
        /// anything for a kernel that takes none ([`Kernel::SCRATCH`]), or for every kernel of
        /// an `O` without one (inlined there: nothing; else one function, not a copy in each
        /// caller).
        #[inline]
        pub(crate) fn scratch_bytes<O: OpSet>(kind: u32, words: &[u32]) -> usize {
            if O::KINDS.intersects(SCRATCH_KINDS) {
                scratch_bytes_of::<O>(kind, words)
            } else {
                0
            }
        }

        /// [`scratch_bytes`] of an `O` with a kernel that takes scratch.
        #[inline(never)]
        fn scratch_bytes_of<O: OpSet>(kind: u32, words: &[u32]) -> usize {
            match kind {
                $( $( $kind if <$family::$module::$kernel as Kernel>::SCRATCH
                    && <$family::$module::$kernel as Kind>::BUILT
                    && linked(O::KINDS, $kind) => params_of::<$family::$module::$kernel>(words)
                    .map_or(0, |p| <$family::$module::$kernel as Kernel>::scratch_bytes(&p)), )+ )+
                _ => 0,
            }
        }

        /// The private state bytes of kernel `kind` (parameters `words`,
        /// [`Kernel::private_state_bytes`]): `None` for a kernel without one, one `O` does not
        /// link, or words that do not decode.
        #[inline]
        pub(crate) fn private_state_bytes<O: OpSet>(kind: u32, words: &[u32]) -> Option<usize> {
            match kind {
                $( $( $kind if <$family::$module::$kernel as Kernel>::PRIVATE_STATE
                    && <$family::$module::$kernel as Kind>::BUILT
                    && linked(O::KINDS, $kind) => params::<$family::$module::$kernel>(words)
                    .ok().map(|p| <$family::$module::$kernel as Kernel>::private_state_bytes(&p)), )+ )+
                _ => None,
            }
        }

        /// Every kind code of the list this build has (tests).
        #[cfg(test)]
        pub(crate) fn kinds() -> impl Iterator<Item = u32> {
            (0..256).filter(|&k| param_words(k).is_some())
        }

        /// Whether `words` decode as kernel `kind`'s parameters and encode back to the same
        /// words (tests: the codec is its own inverse).
        #[cfg(test)]
        pub(crate) fn round_trips(kind: u32, words: &[u32]) -> bool {
            fn again<K: Kernel>(words: &[u32]) -> bool {
                let Ok(p) = params::<K>(words) else { return false };
                let mut w = [0u32; prep::MAX_PARAM_WORDS];
                let n = <K::Params as Words>::N;
                p.put(&mut w[..n]) && &w[..n] == words
            }
            match kind {
                $( $( $kind if <$family::$module::$kernel as Kind>::BUILT => again::<$family::$module::$kernel>(words), )+ )+
                _ => false,
            }
        }
    };
}

// The operator modules (declared here, not by the list's macro, so that rustfmt and every
// tool finds them).
pub mod conv;
pub mod decode;
pub mod detection;
pub mod elementwise;
pub mod matmul;
pub mod pooling;
pub mod recurrent;
pub mod reduction;
pub mod shape;
pub mod signal;

operators! {
    conv::conv_2d { 1 => Conv2d(int8), 19 => Conv2dF32(float32) if "float32", 168 => Conv2dI16(int16), 209 => Conv2dI4(int8) },
    conv::depthwise_conv_2d { 2 => DepthwiseConv2d(int8), 20 => DepthwiseConv2dF32(float32) if "float32", 169 => DepthwiseConv2dI16(int16), 210 => DepthwiseConv2dI4(int8) },
    matmul::fully_connected { 3 => FullyConnected(int8), 18 => FullyConnectedF32(float32) if "float32", 170 => FullyConnectedI16(int16), 208 => FullyConnectedI4(int8) },
    matmul::batch_matmul { 135 => BatchMatMul(int8, int16, float32) },
    conv::transpose_conv { 136 => TransposeConv(int8, int16, float32) },
    pooling::average_pool_2d { 4 => AveragePool2d(int8), 21 => AveragePool2dF32(float32) if "float32", 186 => AveragePool2dI16(int16) },
    pooling::max_pool_2d { 5 => MaxPool2d(int8), 22 => MaxPool2dF32(float32) if "float32", 185 => MaxPool2dI16(int16) },
    pooling::l2_pool_2d { 149 => L2Pool2dF32(float32) if "float32" },
    reduction::softmax { 6 => Softmax(int8), 23 => SoftmaxF32(float32) if "float32", 31 => SoftmaxI16(int8), 197 => SoftmaxInt16(int16) },
    elementwise::logistic { 7 => Logistic(int8), 24 => LogisticF32(float32) if "float32", 196 => LogisticI16(int16) },
    elementwise::float_unary { 56 => NegF32(float32) if "float32", 57 => FloorF32(float32) if "float32", 58 => CeilF32(float32) if "float32", 59 => SquareF32(float32) if "float32", 70 => SqrtF32(float32) if "float32", 71 => RoundF32(float32) if "float32", 72 => ExpF32(float32) if "float32", 146 => SinF32(float32) if "float32", 147 => CosF32(float32) if "float32", 148 => LogF32(float32) if "float32" },
    elementwise::abs_rsqrt { 73 => Abs(int8), 74 => AbsI16(int16), 75 => AbsF32(float32) if "float32", 76 => Rsqrt(int8), 77 => RsqrtF32(float32) if "float32" },
    elementwise::comparisons { 78 => CompareI8(int8), 79 => CompareF32(float32) if "float32", 80 => CompareI32(int32), 81 => CompareI64(int64), 82 => CompareBool(bool) },
    elementwise::logical { 83 => Logical(bool), 84 => LogicalNot(bool) },
    elementwise::elu { 113 => Elu(int8), 114 => EluF32(float32) if "float32" },
    elementwise::hard_swish { 115 => HardSwish(int8), 116 => HardSwishF32(float32) if "float32" },
    elementwise::prelu { 117 => Prelu(int8), 118 => PreluI16(int16), 119 => PreluF32(float32) if "float32" },
    elementwise::tanh { 120 => Tanh(int8), 121 => TanhI16(int16), 122 => TanhF32(float32) if "float32" },
    elementwise::floor_div_mod { 123 => FloorDivModF32(float32) if "float32" },
    elementwise::add_n { 124 => AddN(int8, float32) },
    elementwise::select_v2 { 125 => SelectV2(int8, int16, float32) },
    reduction::l2_normalization { 126 => L2Norm(int8, float32) },
    reduction::log_softmax { 127 => LogSoftmax(int8, float32) },
    elementwise::leaky_relu { 96 => LeakyRelu(int8), 97 => LeakyReluI16(int16), 98 => LeakyReluF32(float32) if "float32" },
    elementwise::relu { 50 => Relu(int8), 51 => ReluF32(float32) if "float32", 52 => Relu6(int8), 53 => Relu6F32(float32) if "float32", 183 => ReluI16(int16), 184 => Relu6I16(int16) },
    elementwise::add { 8 => Add(int8), 25 => AddF32(float32) if "float32", 34 => AddI32(int32), 180 => AddI16(int16) },
    elementwise::sub { 60 => Sub(int8), 61 => SubF32(float32) if "float32", 62 => SubI32(int32), 181 => SubI16(int16) },
    elementwise::squared_difference { 65 => SquaredDifference(int8), 66 => SquaredDifferenceF32(float32) if "float32", 67 => SquaredDifferenceI32(int32), 187 => SquaredDifferenceI16(int16) },
    elementwise::mul { 9 => Mul(int8), 26 => MulF32(float32) if "float32", 35 => MulI32(int32), 182 => MulI16(int16) },
    elementwise::div { 36 => DivI32(int32), 89 => DivF32(float32) if "float32", 141 => Div(int8) },
    elementwise::minimum_maximum { 37 => MinimumI32(int32), 38 => MaximumI32(int32), 85 => MinMaxI8(int8), 86 => MinMaxI16(int16), 87 => MinMaxI64(int64), 88 => MinMaxF32(float32) if "float32" },
    elementwise::cast { 39 => Cast(bool, int8, int16, int32, uint32, float32) },
    shape::strided_slice { 40 => StridedSlice(bool, int8, uint8, int16, int32, int64, float32) },
    shape::slice { 63 => Slice(bool, int8, int16, int32, float32) },
    shape::pack { 64 => Pack(int8, int16, int32, int64, float32) },
    shape::fill { 68 => Fill(int8, int32, float32) },
    shape::zeros_like { 69 => ZerosLike(int8, int32, int64, float32) },
    reduction::reduce { 10 => Mean(int8), 128 => MeanI16(int16), 129 => ReduceF32(float32) if "float32", 130 => ReduceI8(int8), 131 => ReduceAll(bool) },
    reduction::arg_min_max { 92 => ArgMinMaxI8(int8), 93 => ArgMinMaxF32(float32) if "float32" },
    shape::pad { 11 => Pad(int8), 100 => PadValue(int8, int16, int32, float32) },
    shape::mirror_pad { 99 => MirrorPad(int8, float32) },
    shape::concatenation { 12 => Concatenation(bool, int8, int16, int32, int64, float32) },
    shape::transpose { 13 => Transpose(int8), 137 => TransposeWide(int16, float32) },
    shape::space_depth { 90 => SpaceDepth(int8, float32) },
    shape::space_batch { 101 => SpaceBatch(int8, float32) },
    shape::broadcast_to { 102 => BroadcastTo(bool, int8, uint8, int16, int32, int64, float32) },
    shape::gather_nd { 103 => GatherNd(int8, float32) },
    shape::embedding_lookup { 104 => EmbeddingLookup(int8, float32) },
    shape::dynamic_update_slice { 105 => DynamicUpdateSlice(int8, int16, int32, float32) },
    shape::broadcast_args { 106 => BroadcastArgs(int32, int64) },
    reduction::cumsum { 107 => CumsumI8(int8), 108 => CumsumF32(float32) if "float32" },
    shape::gather { 91 => Gather(int8, float32) },
    shape::reverse { 94 => Reverse(bool, int8, uint8, int16, int32, int64, float32) },
    shape::split { 132 => Split(int8, int16, int32, float32) },
    shape::resize_bilinear { 133 => ResizeBilinear(int8), 134 => ResizeBilinearF32(float32) if "float32" },
    shape::resize_nearest { 95 => ResizeNearest(int8, int16, float32) },
    shape::reshape { 14 => ByteCopy(bool, int8, uint8, int16, int32, int64, float32) },
    shape::expand_dims { 54 => ExpandDims(bool, int8, uint8, int16, int32, int64, float32) },
    shape::shape_of { 55 => Shape(bool, int8, uint8, int16, int32, int64, float32) },
    elementwise::quantize { 15 => FromFloat(float32), 16 => Requantize(int8), 29 => RequantizeI16(int16), 30 => RequantizeI16I32(int16), 138 => FromFloatI16(float32), 139 => RequantizeInt(int8, int16, int32, uint8) },
    elementwise::dequantize { 17 => Dequantize(int8), 140 => DequantizeWide(int16, uint8) },
    recurrent::svdf { 27 => Svdf(int8), 28 => SvdfI8(int8), 142 => SvdfF32(float32) if "float32" },
    recurrent::lstm { 32 => Lstm(int8) if "lstm", 33 => LstmF32(float32) if "lstm" & "float32", 198 => LstmI16(int16) if "lstm" },
    signal::window { 41 => Window(int16) if "signal" },
    signal::fft_auto_scale { 42 => FftAutoScale(int16) if "signal" },
    signal::rfft { 43 => Rfft(int16) if "signal", 150 => RfftI32(int32) if "signal", 151 => RfftF32(float32) if "signal" & "float32" },
    signal::irfft { 152 => Irfft(int16, int32) if "signal", 153 => IrfftF32(float32) if "signal" & "float32" },
    signal::energy { 44 => Energy(int16) if "signal" },
    signal::filter_bank { 45 => FilterBank(uint32) if "signal" },
    signal::filter_bank_square_root { 46 => SquareRoot(uint64) if "signal" },
    signal::spectral_subtraction { 47 => SpectralSubtraction(uint32) if "signal" },
    signal::pcan { 48 => Pcan(uint32) if "signal" },
    signal::filter_bank_log { 49 => FilterBankLog(uint32) if "signal" },
    signal::delay { 160 => Delay(int16) if "signal" },
    signal::stacker { 161 => Stacker(int16) if "signal" },
    signal::framer { 162 => Framer(int16) if "signal" },
    signal::overlap_add { 163 => OverlapAdd(int16, float32) if "signal" },
    recurrent::circular_buffer { 164 => CircularBuffer(int8) },
    detection::postprocess { 155 => DetectionPostProcess(float32) if "float32" },
    decode::tflm_decode { 165 => DecodeLut(bool, int8, int16, int32, int64, float32), 166 => DecodePrune(bool, int8, int16, int32, int64, float32), 167 => DecodeHuffman(int8, int16) },
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::*;
    use crate::format::{h, IoPlacement, Program};
    use crate::program::{compile, compiled_len};

    /// Every kernel's parameters fit a [`Prepared`]'s words (refused at load otherwise).
    #[test]
    fn every_kernel_params_fit_prepared() {
        for k in kinds() {
            let n = param_words(k).unwrap();
            assert!(
                n <= prep::MAX_PARAM_WORDS,
                "{} takes {n} words",
                kernel_name(k)
            );
        }
    }

    /// Every operator record of every committed single-operator model and shared model: its
    /// parameters decode and encode back to the same words, one word short is refused, its
    /// contracts are windows exactly for the kinds of [`WINDOW_KINDS`], and every kind of the
    /// list (so every `*Params` struct) is among them.
    #[test]
    fn every_kernel_params_round_trip() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files: Vec<_> = std::fs::read_dir(root.join("tests/models"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        for m in [
            "person_detect",
            "micro_speech_quantized",
            "kws_ref_model",
            "hello_world_int8",
            "keyword_scrambled",
            "keyword_scrambled_8bit",
            "trained_lstm_int8",
            "trained_lstm",
            "audio_preprocessor_int8",
        ] {
            let p = root
                .join("../../../shared/models")
                .join(std::format!("{m}.tflite"));
            if p.is_file() {
                files.push(p);
            }
        }
        let mut seen = Vec::new();
        for f in files {
            let bytes = std::fs::read(&f).unwrap();
            let n = compiled_len(&bytes, IoPlacement::Plan).unwrap();
            let mut w = std::vec![0u32; n];
            compile(&bytes, IoPlacement::Plan, &mut w).unwrap();
            let p = Program::new(&w).unwrap();
            let mut at = p.header(h::OPS_AT);
            for _ in 0..p.ops() {
                let (rec, next) = p.op(at, param_words).unwrap();
                assert!(
                    round_trips(rec.kind, rec.params),
                    "{}: kind {}",
                    f.display(),
                    rec.kind
                );
                if let Some((_, short)) = rec.params.split_last() {
                    assert!(!round_trips(rec.kind, short));
                }
                // A window contract exactly from the kernels of WINDOW_KINDS.
                if let crate::format::Loc::Slot(s) = rec.out_loc {
                    let out = p.slot_geometry(s).unwrap();
                    for k in 0..rec.n_inputs() {
                        if let Some(c) = contract::<AllOps>(rec.kind, rec.params, k, out) {
                            assert_eq!(
                                matches!(c.access, crate::contract::Access::Window(_)),
                                linked(WINDOW_KINDS, rec.kind),
                                "kind {}",
                                rec.kind
                            );
                        }
                    }
                }
                seen.push(rec.kind);
                at = next;
            }
            // The records end where the tail begins.
            assert_eq!(at, p.header(crate::format::h::TAIL_AT));
        }
        for k in kinds() {
            assert!(
                seen.contains(&k),
                "kind {k} ({}) is in no test model",
                kernel_name(k)
            );
        }
        assert!(!round_trips(255, &[]));
    }
}
