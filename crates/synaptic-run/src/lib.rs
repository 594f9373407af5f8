//! # synaptic-run: int8 and float32 inference, bit-exact with TensorFlow Lite Micro
//!
//! The SynapticOS runtime: [`Interpreter`] loads a `.tflite` model in place (weights stay in
//! the model bytes, i.e. flash) into a synaptic-mem arena — per-operator data compiled once
//! into a [`program`] (in flash beside the model, or in the persistent region), activations
//! through the core's planned path, graph I/O in the SHARED region or in the plan — and runs
//! it ([`interpreter`] says where every byte lives). `#![no_std]`, no `alloc`, no `unsafe` but
//! the Cortex-M DSP instructions (`dsp`), the kernels' loops in assembly in their ISA files and
//! one empty `asm!` (`hint`).
//!
//! ## Where things live
//!
//! | module | what | names an operator? |
//! |---|---|---|
//! | [`ops`] | **one module per operator**, in its family's folder (`ops/conv/conv_2d.rs`, …): its options and tensor checks (prepare), its parameters, its kernels per data type, its access contract and in-place entry point; and the one list of operators | yes — only here |
//! | `model` (crate-private), [`limits`] | reading a tensor or an operator from the flatbuffer, the graph's data flow; the size limits every check uses | no |
//! | [`format`] | the program format (header, slot and I/O tables, one record per operator) and its reader | no |
//! | [`program`] | the compiler: model → program, and its verifier | no |
//! | [`interpreter`] | load (validation, arena, plan and overlap checks) and run (one loop over the records) | no |
//! | [`contract`] | how an in-place kernel reads and writes, and which output/input deltas are safe | no |
//! | [`math`], [`fixedpoint`] | TFLM's integer math, shared by the kernels | no |
//!
//! **Adding an operator** is one file in `ops/` and one line in the list of [`ops`]; nothing
//! else changes (the [`ops`] module documentation lists what the file holds).
//!
//! ## Why a port and not a re-derivation
//!
//! TensorFlow Lite Micro (TFLM) is the oracle: every output must equal TFLM's reference
//! kernels bit for bit. A float shortcut (e.g. `roundf(acc * scale)`) is off by up to tens of
//! LSB on real models, so this crate ports the integer algorithms exactly, including their
//! derivation of multipliers from the float scales, done in `f64` in the same order of
//! operations as TFLM (floats appear nowhere else, except in QUANTIZE/DEQUANTIZE, which are
//! float operators by definition):
//!
//! | module | mirrors (tflite-micro, `tensorflow/lite/...`) |
//! |---|---|
//! | [`math`] | `kernels/internal/quantization_util.cc` (`QuantizeMultiplier`, `PreprocessSoftmaxScaling`, `CalculateInputRadius`), `kernels/internal/common.{h,cc}` (`MultiplyByQuantizedMultiplier*`, `GetReciprocal`), `kernels/kernel_util.cc` (`CalculateActivationRangeQuantized`), `cppmath.h` (`TfLiteRound`) |
//! | [`fixedpoint`] | gemmlowp's `fixedpoint/fixedpoint.h` for `int32` (`SaturatingRoundingDoublingHighMul`, `RoundingDivideByPOT`, `exp_on_negative_values`, `one_over_one_plus_x_for_x_in_0_1`, `one_minus_x_over_one_plus_x_for_x_in_0_1`, `logistic`) |
//! | [`ops`] | `kernels/internal/reference/integer_ops/*.h` and `reference/*.h`, with the parameter preparation of `micro/kernels/*_common.cc` and `micro/kernels/*.cc` (`Prepare`) |
//!
//! The rounding variant is TFLM's default (`TFLITE_SINGLE_ROUNDING` off): a saturating rounding
//! doubling high multiply followed by a rounding divide by a power of two.
//!
//! ## Errors
//!
//! Every parameter constructor returns a [`Result`]: an operator option, tensor type or
//! quantization that TFLM would refuse at prepare time, or that this crate does not implement,
//! is a [`KernelError`] naming the operator and what is missing, never a wrong answer. Kernels
//! check the lengths of the slices they are given against the shapes and return
//! [`KernelError::Length`] instead of panicking. The reasons are typed, for a caller to
//! `match` rather than parse: [`Unsupported`] and [`ShapeFault`] (`#[non_exhaustive]`, `Copy`,
//! a byte of discriminant with the option value, zero point, axis or [`Operand`] concerned),
//! and the slice of a length error is an [`Operand`]; each `Display` is one line. The loader's
//! own refusals (a model's values and data flow) are [`LoadError`]s ([`LoadError::Tensor`],
//! [`LoadError::Graph`]).
//!
//! ## Hostile models
//!
//! A device that takes models over the air runs whatever bytes arrive, so a model that loads
//! must not make the runtime panic, hang, wrap silently on 32 bits or read arena bytes nothing
//! wrote (issue 18). How that is ensured, layer by layer:
//!
//! * **One validation pass** ([`program::compile`]: at load for [`Interpreter::new`], on the
//!   host for a program given in flash, which [`Interpreter::with_program`] checks by its seal,
//!   [`program::seal`], and its data flow — or word by word, [`program::verify`], with the
//!   feature `verify-program`): the graph's data flow (every tensor an operator reads is a constant,
//!   a graph input or an earlier operator's output; none written twice; every graph output
//!   written: [`GraphFault`]); every tensor an operator uses (at most 6 dimensions, none
//!   negative, elements and bytes at most [`limits::MAX_TENSOR_SIZE`] = 2^31 − 1 even with
//!   zeros counted as 1, scales finite and positive, zero points inside their type and one or
//!   one per scale, per-channel scales one per output channel along a dimension that has as
//!   many: [`TensorFault`]); every operator (exactly the inputs its kernel takes, types,
//!   constants at least as long as their tensors, options in range). A refusal is a
//!   [`LoadError`] naming the operator, the tensor and the field.
//! * **Kernel parameters only from their constructors.** The `*Params` fields are private to
//!   this crate: a kernel's parameters come from its constructor, which checks every invariant
//!   its loops rely on (shapes consistent, every size within 2^31 − 1 with checked products at
//!   the pointer width of the target, window extents within `int32` so every coordinate fits a
//!   32-bit `isize` — [`math::compute_padding`] —, zero points in int8's range so no offset
//!   overflows, a non-empty activation range, requantization shifts at most 31), or from a
//!   program sealed to this model's bytes ([`program::seal`]) or word-for-word equal to what
//!   the constructors produced for it ([`program::verify`]).
//! * **No panicking operation in a kernel.** Each kernel first checks its slices' lengths
//!   against the parameters ([`KernelError::Length`]); its indices are row-major offsets of
//!   coordinates inside the checked shapes, so they are in bounds and their products cannot
//!   overflow; clamps are `max` then `min` (TFLM's order, never `clamp`'s `min > max`
//!   panic); accumulators wrap as TFLM's `int32` does (`wrapping_*`), shifts are masked or
//!   bounded by construction, divisors are positive by construction.
//! * **Checked by running it**: `tests/hostile.rs` (each class of defect found, as the
//!   regression that failed before its fix), the fuzz target `run_model` (structure-aware
//!   mutation of real models, every configuration, three inferences on poisoned arenas that
//!   must agree) and the same harness seeded on x86_64 and on i686 with overflow checks on
//!   (`tests/run_model_seeded.rs`, profile `hostile`).
//!
//! ## Testing against TFLM
//!
//! `scripts/test-oracle.sh` creates `.venv-oracle` (TFLM's `tflite-micro` wheel) if missing and
//! runs `tests/oracle.rs` (feature `oracle`): every operator of the shared models it runs
//! (int8: hello_world_int8, micro_speech_quantized, kws_ref_model, person_detect,
//! pretrainedResnet_quant, ad01_int8, simple_add_model; float32: hello_world_float, ad01_fp32,
//! pretrainedResnet), of the committed single-operator models (`tests/models`, int8 and
//! float32) and of 480 generated random ones is run on TFLM's own input values and compared
//! byte for byte with TFLM's output, then each graph is run chained from its input alone. The
//! oracle writes golden files (`tests/golden/`): `cargo test -p synaptic-run` (no feature, no
//! Python) checks every intermediate tensor of those models against them (`tests/golden.rs`),
//! besides the unit, error-path and property tests.
#![no_std]
#![deny(missing_docs)]
// No `unsafe` anywhere but in `dsp`, the Cortex-M DSP instructions (`asm!`), which exists
// only on targets with the DSP extension, the kernels' ISA variants in assembly beside them
// (`dsp.rs` on the DSP extension, `mla.rs` on the Thumb-2 cores without it, `thumb2.rs` on
// both, `ops/conv/requant_dsp.rs` and `requant_mla.rs`: each module `#[allow(unsafe_code)]`
// where it is declared), and `hint`'s one empty `asm!` (Arm only).
#![deny(unsafe_code)]

pub mod bmp;
pub mod contract;
#[cfg(synaptic_dsp)]
#[allow(unsafe_code)]
pub(crate) mod dsp;
pub mod error;
pub mod fixedpoint;
pub mod format;
#[allow(unsafe_code)]
pub(crate) mod hint;
pub mod interpreter;
mod isa_rule;
pub mod limits;
pub mod math;
pub(crate) mod model;
pub mod ops;
pub mod program;
pub mod seeded;

pub use error::{
    CustomCode, GraphFault, KernelError, LoadError, Operand, RunError, ShapeFault, TensorFault,
    TensorTypes, Unsupported,
};
pub use format::{IoPlacement, Isa};
pub use interpreter::{Interpreter, Memory, RunPlan};
pub use math::{Activation, Padding, QuantParams};
