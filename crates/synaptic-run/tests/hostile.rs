//! Issue 18's six classes of hostile model, each as the regression test that failed before its
//! fix: a real model with one field changed in place (`synaptic_tflite::fields`), refused at
//! load with a [`LoadError`] that names the operator, the tensor and the field — never a
//! panic at invoke, a silent wrap on 32 bits or an output read from stale arena bytes.
//! Run on x86_64 and i686 (`scripts/test` steps `core` and `i686`).

mod common;

use synaptic_mem::{Arena, ArenaBuffer, Plan};
use synaptic_run::math::{activation_range_i8, Activation, Padding, QuantParams};
use synaptic_run::ops::conv::conv_2d::{ConvOptions, ConvParams};
use synaptic_run::ops::conv::depthwise_conv_2d::DepthwiseOptions;
use synaptic_run::{program, GraphFault, Interpreter, IoPlacement, LoadError, TensorFault};
use synaptic_run::{KernelError, ShapeFault, Unsupported};
use synaptic_tflite::fields::{for_each_field, Field};
use synaptic_tflite::Model;

fn shared_model(name: &str) -> Vec<u8> {
    let p = common::shared()
        .join("models")
        .join(format!("{name}.tflite"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The committed hostile model `tests/hostile/<name>.tflite`.
fn hostile_model(name: &str) -> Vec<u8> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/hostile")
        .join(format!("{name}.tflite"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The field `what` of table `owner` (element `item`) of `bytes`.
fn field(bytes: &[u8], what: &str, owner: usize, item: usize) -> Field {
    let mut found = None;
    for_each_field(&Model::new(bytes).unwrap(), |f| {
        if f.what == what && f.owner == owner && f.item == item {
            found = Some(f);
        }
    })
    .unwrap();
    found.unwrap_or_else(|| panic!("no field {what} of {owner} (item {item})"))
}

/// `bytes` with field `what` of `owner` (element `item`) set to `value`.
fn edited(bytes: &[u8], what: &str, owner: usize, item: usize, value: i64) -> Vec<u8> {
    let mut out = bytes.to_vec();
    field(bytes, what, owner, item).write(&mut out, value);
    out
}

/// The error `bytes` is refused with: the same from the compiler (both placements) and from
/// `Interpreter::new` (the load a device runs).
fn refusal(bytes: &[u8]) -> LoadError {
    // Compared as text: a NaN scale is never equal to itself.
    let same = |a: &LoadError, b: &LoadError| format!("{a:?}") == format!("{b:?}");
    let e = program::compiled_len(bytes, IoPlacement::Plan).expect_err("the model is refused");
    let shared = program::compiled_len(bytes, IoPlacement::Shared).expect_err("refused");
    assert!(
        same(&shared, &e),
        "both placements refuse it alike: {shared:?} {e:?}"
    );
    let mut buf = ArenaBuffer::<4096>::new();
    let mut io = ArenaBuffer::<1024>::new();
    let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
    arena.set_shared_region(io.as_mut_slice()).unwrap();
    let (loader, _) = arena.split();
    let plan = Plan {
        region_size: 0,
        slots: &[],
    };
    match Interpreter::new(bytes, loader, plan, IoPlacement::Shared) {
        Err(l) => assert!(
            same(&l, &e),
            "the interpreter refuses it as the compiler: {l:?}"
        ),
        Ok(_) => panic!("the interpreter loaded a model the compiler refuses"),
    }
    e
}

/// Class 1: micro_speech_quantized's DEPTHWISE_CONV_2D (operator 1, fused RELU) with its int8
/// output (tensor 2) at zero point 128. Before: loaded, and the first invoke panicked in
/// `clamp` (`min > max`).
#[test]
fn relu_output_zero_point_out_of_int8_is_refused() {
    let m = edited(
        &shared_model("micro_speech_quantized"),
        "quantization.zero_point",
        2,
        0,
        128,
    );
    let e = refusal(&m);
    assert_eq!(
        e,
        LoadError::Tensor {
            op: Some(1),
            name: "DEPTHWISE_CONV_2D",
            tensor: 2,
            fault: TensorFault::ZeroPoint {
                value: 128,
                min: -128,
                max: 127
            },
        }
    );
    assert_eq!(
        e.to_string(),
        "operator 1 (DEPTHWISE_CONV_2D): tensor 2: zero point 128 outside its type's range \
         -128..=127"
    );
}

/// Class 1 at the kernel layer: an activation range that would be empty is an error of its
/// constructor (so no kernel ever clamps with `min > max`), and a convolution's parameters
/// cannot be made with one.
#[test]
fn empty_activation_ranges_are_refused_before_any_clamp() {
    let out = QuantParams::new(0.05, 128);
    assert!(activation_range_i8("CONV_2D", Activation::Relu, out).is_err());
    // A zero point in range and a scale whose −1.0 is −2^31: `zero_point + round(−1 / scale)`
    // overflows int32 (TFLM's `int` arithmetic would be undefined).
    let tiny = QuantParams::new(1.0 / 2_147_483_648.0, -1);
    assert!(activation_range_i8("CONV_2D", Activation::ReluN1To1, tiny).is_err());
    let opts = ConvOptions {
        padding: Padding::Valid,
        stride_h: 1,
        stride_w: 1,
        dilation_h: 1,
        dilation_w: 1,
        activation: Activation::Relu,
    };
    let q = QuantParams::new(0.05, 0);
    assert!(
        ConvParams::conv2d(&opts, &[1, 3, 3, 1], &[1, 1, 1, 1], &[1, 3, 3, 1], q, out).is_err()
    );
}

/// Class 2: kws_ref_model's first DEPTHWISE_CONV_2D with `depth_multiplier` 2^26 + 1: 64
/// channels times it wrap a 32-bit `usize` onto 64. Before: refused on x86_64, loaded on i686
/// and panicked out of bounds at invoke. Now refused on both, as an operator error.
#[test]
fn depth_multiplier_that_wraps_32_bits_is_refused() {
    let base = shared_model("kws_ref_model");
    let mut f = None;
    for_each_field(&Model::new(&base).unwrap(), |x| {
        if x.what == "DepthwiseConv2DOptions.depth_multiplier" && f.is_none() {
            f = Some(x);
        }
    })
    .unwrap();
    let f = f.expect("kws_ref_model has a depthwise convolution with its multiplier stored");
    let mut m = base.clone();
    f.write(&mut m, (1 << 26) + 1);
    match refusal(&m) {
        LoadError::Operator { op, name, .. } => {
            assert_eq!((op, name), (f.owner, "DEPTHWISE_CONV_2D"));
        }
        e => panic!("{e}"),
    }
}

/// Class 2, the other products of model numbers: a shape whose elements overflow 2^31 − 1
/// (here 2^16 × 2^16 on an activation) is refused naming the tensor.
#[test]
fn tensor_sizes_that_overflow_are_refused() {
    let base = shared_model("micro_speech_quantized");
    // Tensor 4: the depthwise input [1, 49, 40, 1].
    let m = edited(&base, "tensor.shape", 4, 1, 1 << 16);
    let m = edited(&m, "tensor.shape", 4, 2, 1 << 16);
    match refusal(&m) {
        LoadError::Tensor {
            tensor: 4,
            fault: TensorFault::TooLarge,
            op: Some(_),
            ..
        } => {}
        e => panic!("{e}"),
    }
}

/// Class 3: micro_speech_quantized with an empty graph-input list: operator 0 (RESHAPE) reads
/// tensor 3, which nothing writes. Before: loaded, and two identical invokes gave different
/// outputs (leftover arena bytes).
#[test]
fn a_tensor_read_before_anything_writes_it_is_refused() {
    let m = edited(
        &shared_model("micro_speech_quantized"),
        "subgraph.inputs.len",
        0,
        0,
        0,
    );
    assert_eq!(
        refusal(&m),
        LoadError::Graph {
            op: Some(0),
            tensor: 3,
            fault: GraphFault::ReadBeforeWrite
        }
    );
}

/// Class 3 with shapes that fit: an ADD of pretrainedResnet_quant reading, instead of one of
/// its inputs, a tensor of the same shape that a later operator writes.
#[test]
fn an_input_written_only_later_is_refused() {
    let base = shared_model("pretrainedResnet_quant");
    let model = Model::new(&base).unwrap();
    let sg = model.subgraph(0).unwrap();
    let shape = |t: i32| -> Vec<i32> {
        sg.tensor(t as usize)
            .unwrap()
            .shape()
            .unwrap()
            .iter()
            .collect()
    };
    let n_ops = sg.operators_len().unwrap();
    let mut found = None;
    'search: for i in 0..n_ops {
        let op = sg.operator(i).unwrap();
        for (k, t) in op.inputs().unwrap().iter().enumerate() {
            if t < 0
                || !model
                    .tensor_data(&sg.tensor(t as usize).unwrap())
                    .unwrap()
                    .is_empty()
            {
                continue;
            }
            for j in i + 1..n_ops {
                let later = sg.operator(j).unwrap().outputs().unwrap().get(0).unwrap();
                if shape(later) == shape(t) {
                    found = Some((i, k, later));
                    break 'search;
                }
            }
        }
    }
    let (i, k, later) = found.expect("a later tensor of an input's shape");
    let m = edited(&base, "operator.inputs", i, k, i64::from(later));
    assert_eq!(
        refusal(&m),
        LoadError::Graph {
            op: Some(i),
            tensor: later as usize,
            fault: GraphFault::ReadBeforeWrite
        }
    );
}

/// Class 3, the graph's own outputs: one that is a constant, and a tensor written twice.
#[test]
fn constant_outputs_and_tensors_written_twice_are_refused() {
    let base = shared_model("micro_speech_quantized");
    // Graph output 0 := tensor 5 (a constant int32 [4]).
    let m = edited(&base, "subgraph.outputs", 0, 0, 5);
    assert_eq!(
        refusal(&m),
        LoadError::Graph {
            op: None,
            tensor: 5,
            fault: GraphFault::ConstantIo
        }
    );
    // SOFTMAX (operator 3) writes tensor 2, which operator 1 wrote.
    let m = edited(&base, "operator.outputs", 3, 0, 2);
    assert_eq!(
        refusal(&m),
        LoadError::Graph {
            op: Some(3),
            tensor: 2,
            fault: GraphFault::WrittenTwice
        }
    );
}

/// Class 5: quantization parameters out of range. A zero point of −2^31 (before: accepted,
/// `-zero_point` overflowed), one beyond `int32` (before: truncated to another value), a scale
/// of 0, −1, NaN or infinity, per-channel scales that are not one per channel, zero points
/// that are not one per scale, and a per-channel dimension that does not hold the channels.
#[test]
fn quantization_out_of_range_is_refused() {
    let base = shared_model("micro_speech_quantized");
    let zp = |v: i64| refusal(&edited(&base, "quantization.zero_point", 4, 0, v));
    for v in [i64::from(i32::MIN), (1 << 32) + 5, -129] {
        assert_eq!(
            zp(v),
            LoadError::Tensor {
                op: Some(0),
                name: "RESHAPE",
                tensor: 4,
                fault: TensorFault::ZeroPoint {
                    value: v,
                    min: -128,
                    max: 127
                }
            }
        );
    }
    for v in [0.0f32, -1.0, f32::NAN, f32::INFINITY] {
        let mut m = base.clone();
        field(&base, "quantization.scale", 4, 0).write_f32(&mut m, v);
        match refusal(&m) {
            LoadError::Tensor {
                tensor: 4,
                fault: TensorFault::Scale { value },
                ..
            } => assert_eq!(value.to_bits(), v.to_bits()),
            e => panic!("{e}"),
        }
    }
    // Tensor 8: the depthwise filter [1, 10, 8, 8], 8 scales along dimension 3. Three scales
    // (and zero points) for 8 channels:
    let m = edited(&base, "quantization.scale.len", 8, 0, 3);
    let m = edited(&m, "quantization.zero_point.len", 8, 0, 3);
    assert_eq!(
        refusal(&m),
        LoadError::Tensor {
            op: Some(1),
            name: "DEPTHWISE_CONV_2D",
            tensor: 8,
            fault: TensorFault::ScaleCount {
                got: 3,
                channels: 8
            }
        }
    );
    let m = edited(&base, "quantization.zero_point.len", 8, 0, 5);
    assert!(matches!(
        refusal(&m),
        LoadError::Tensor {
            tensor: 8,
            fault: TensorFault::ZeroPointCount { got: 5, scales: 8 },
            ..
        }
    ));
    let m = edited(&base, "quantization.quantized_dimension", 8, 0, 1);
    assert!(matches!(
        refusal(&m),
        LoadError::Tensor {
            tensor: 8,
            fault: TensorFault::QuantizedDimension {
                got: 1,
                channels: 8
            },
            ..
        }
    ));
}

/// The kernels' own constructors refuse a zero point outside int8 too (the layer under the
/// loader: no `-zero_point` can overflow whoever builds the parameters).
#[test]
fn kernel_constructors_refuse_zero_points_outside_int8() {
    let opts = DepthwiseOptions {
        conv: ConvOptions {
            padding: Padding::Same,
            stride_h: 1,
            stride_w: 1,
            dilation_h: 1,
            dilation_w: 1,
            activation: Activation::None,
        },
        depth_multiplier: 1,
    };
    let ok = QuantParams::new(0.1, 0);
    let bad = QuantParams::new(0.1, i32::MIN);
    let shape: &[usize] = &[1, 4, 4, 2];
    let filter: &[usize] = &[1, 3, 3, 2];
    assert!(ConvParams::depthwise(&opts, shape, filter, shape, ok, ok).is_ok());
    assert!(ConvParams::depthwise(&opts, shape, filter, shape, bad, ok).is_err());
    assert!(ConvParams::depthwise(&opts, shape, filter, shape, ok, bad).is_err());
}

/// Found by the `run_model` fuzzer: a RESHAPE of a one-element float32 tensor, whose overlap
/// the planner derived per 4-byte element (no later step: any forward delta) while the
/// runtime's byte copy steps per byte; the planner declared a pair the runtime refused at load.
/// The planner's contract is now the runtime's (in bytes), and every configuration runs.
#[test]
fn planner_and_runtime_agree_on_a_one_element_float_copy() {
    use common::arena::{analysis_with, run_plan};
    let model = hostile_model("reshape_f32_scalar");
    for io in [IoPlacement::Plan, IoPlacement::Shared] {
        let a = analysis_with(&model, io, true);
        let mut buf = ArenaBuffer::<8192>::new();
        let mut shared = ArenaBuffer::<1024>::new();
        let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
        arena.set_shared_region(shared.as_mut_slice()).unwrap();
        let (loader, mut runner) = arena.split();
        let mut net = Interpreter::new(&model, loader, run_plan(&a), io)
            .unwrap_or_else(|e| panic!("{io:?}: {e}"));
        let input = 1.5f32.to_ne_bytes();
        let mut out = [0u8; 4];
        net.invoke(&mut runner, &input, &mut out).unwrap();
        assert_eq!(out, input);
    }
}

/// Found by the `run_model` fuzzer: an ADD of pretrainedResnet_quant turned into a one-input
/// operator by its opcode index (here SOFTMAX, in the model's code table) kept its second
/// input; the runtime used input 0 and ignored the other, and the planner then declared an
/// overlap the runtime refused. Every operator now takes exactly the inputs its kernel takes.
#[test]
fn an_operator_with_inputs_its_kernel_does_not_take_is_refused() {
    let base = shared_model("pretrainedResnet_quant");
    let model = Model::new(&base).unwrap();
    let sg = model.subgraph(0).unwrap();
    let code_of = |i: usize| {
        let op = sg.operator(i).unwrap();
        model
            .operator_code(op.opcode_index().unwrap() as usize)
            .unwrap()
            .builtin
    };
    let n_ops = sg.operators_len().unwrap();
    let add = (0..n_ops)
        .find(|&i| code_of(i) == synaptic_tflite::code::ADD)
        .unwrap();
    let softmax = (0..n_ops)
        .find(|&i| code_of(i) == synaptic_tflite::code::SOFTMAX)
        .unwrap();
    let softmax_code = sg.operator(softmax).unwrap().opcode_index().unwrap();
    let m = edited(
        &base,
        "operator.opcode_index",
        add,
        0,
        i64::from(softmax_code),
    );
    match refusal(&m) {
        LoadError::Operator { op, name, error } => {
            assert_eq!((op, name), (add, "SOFTMAX"));
            assert_eq!(
                error,
                KernelError::unsupported("SOFTMAX", Unsupported::InputCount)
            );
        }
        e => panic!("{e}"),
    }
}

/// A hybrid model (float activations, int8 weights: the shared kws_ref_model_float32) is
/// refused at its first operator as TFLM refuses it ("Hybrid models are not supported on
/// TFLite Micro."), never run with int8 weights read as floats.
#[test]
fn a_hybrid_model_is_refused_as_tflm_refuses_it() {
    let e = refusal(&shared_model("kws_ref_model_float32"));
    match e {
        LoadError::Operator {
            op: 0,
            name: "CONV_2D",
            error:
                KernelError::Unsupported {
                    reason: Unsupported::Hybrid,
                    ..
                },
        } => {}
        other => panic!("{other:?}"),
    }
    assert!(e.to_string().contains("hybrid"), "{e}");
}

/// A kernel's own state read by a kernel that reads no state: audio_preprocessor_int8's
/// SignalFilterBankLog (operator 13) reading the spectral subtraction's noise estimate
/// (tensor 32, its own state) instead of SignalPCAN's output. Before: loaded, and every
/// invoke failed (the kernel had no view of a state input); found by the `run_model` and
/// `run_c_api` fuzzers.
#[test]
fn a_state_read_where_the_kernel_reads_no_state_is_refused() {
    let m = edited(
        &shared_model("audio_preprocessor_int8"),
        "operator.inputs",
        13,
        0,
        32,
    );
    assert_eq!(
        refusal(&m),
        LoadError::Graph {
            op: Some(13),
            tensor: 32,
            fault: GraphFault::StateNotRead
        }
    );
    // Where the kernel reads it as state (SignalPCAN's noise estimate), it loads and runs:
    // the model as it is.
    assert!(
        program::compiled_len(&shared_model("audio_preprocessor_int8"), IoPlacement::Plan).is_ok()
    );
}

/// `bytes` with element `k` of constant tensor `t`'s data (int32) set to `v`.
fn with_constant_i32(bytes: &[u8], t: usize, k: usize, v: i32) -> Vec<u8> {
    let m = Model::new(bytes).unwrap();
    let tt = m.subgraph(0).unwrap().tensor(t).unwrap();
    let data = m.tensor_data(&tt).unwrap();
    let at = data.as_ptr() as usize - bytes.as_ptr() as usize + 4 * k;
    let mut out = bytes.to_vec();
    out[at..at + 4].copy_from_slice(&v.to_le_bytes());
    out
}

/// Issue 43, class 1: audio_preprocessor_int8's STRIDED_SLICE (operator 6: input 25, begin 7,
/// end 6, strides 5) slicing backwards, from the last element to the first, with a stride of
/// −2^31. Before: `attempt to negate with overflow` at load in an overflow-checked build (the
/// count of steps negated the stride in 32 bits), x86_64 and i686 alike. Now counted in 64
/// bits: one step, so the output's 256 elements are refused as TFLM's `Prepare` refuses them
/// (the output shape must be the slice's), naming the operator.
#[test]
fn a_stride_of_i32_min_is_counted_without_overflow() {
    let m = shared_model("audio_preprocessor_int8");
    let m = with_constant_i32(&m, 7, 0, -1);
    let m = with_constant_i32(&m, 6, 0, 0);
    let m = with_constant_i32(&m, 5, 0, i32::MIN);
    match refusal(&m) {
        LoadError::Operator {
            op: 6,
            name: "STRIDED_SLICE",
            error: KernelError::Shape { reason, .. },
        } => assert_eq!(reason, ShapeFault::SizeDiffers),
        e => panic!("{e:?}"),
    }
}

/// Issue 43, class 1: audio_preprocessor_int8 with its SignalFilterBankSpectralSubtraction
/// (operator 11) given `num_channels` = 2^30 in its custom options (the model rewritten by
/// the tflite-micro wheel's schema and `flatbuffers.flexbuffers`: the options' map widened to
/// 4 bytes). Before: `4 * num_channels` multiplied in `usize`: an overflow panic on i686 in an
/// overflow-checked build (through the C library an abort), a wrap that passed the size check
/// in an i686 release build. Now checked: refused, naming the operator.
#[test]
fn a_channel_count_past_32_bits_of_bytes_is_refused() {
    let m = hostile_model("spectral_subtraction_channels_2p30");
    match refusal(&m) {
        LoadError::Operator {
            op: 11,
            name: "SignalFilterBankSpectralSubtraction",
            error: KernelError::Shape { reason, .. },
        } => assert_eq!(reason, ShapeFault::SizeDiffers),
        e => panic!("{e:?}"),
    }
}

/// Issue 43, class 7: audio_preprocessor_int8 with its SignalWindow's custom code stored as
/// `"SignalWindow\0"` (rewritten by the tflite-micro wheel's schema). TFLM's resolver compares
/// a custom code as a C string (`strcmp`), so it runs the model as the original (checked with
/// the wheel when the file was written: the same outputs). Before: refused as a custom
/// operator not implemented. Now identified up to the NUL: the same outputs as the original,
/// every operator's output the same bytes.
#[test]
fn a_custom_code_with_a_trailing_nul_runs_as_tflm_runs_it() {
    use common::arena::{run_on_arena, OpData};
    let nul = hostile_model("custom_code_trailing_nul");
    let orig = shared_model("audio_preprocessor_int8");
    let mut input = vec![0u8; 960];
    synaptic_run::seeded::seeded_input(&orig, 1, &mut input).unwrap();
    let runs = [input];
    let (a, _) = run_on_arena(&orig, IoPlacement::Plan, &runs, Some(3), OpData::Flash);
    let (b, _) = run_on_arena(&nul, IoPlacement::Plan, &runs, Some(3), OpData::Flash);
    assert_eq!(a, b);
}

/// Issue 43, class 2: a constant flagged `is_variable` (the flag set by the tflite-micro
/// wheel's schema): hello_world_int8's first FULLY_CONNECTED bias (tensor 5, operator 0) and
/// audio_preprocessor_int8's CONCATENATION input 0 (the zeros of tensor 3, operator 7). TFLM
/// makes every variable tensor state, zeroed, its data ignored (the wheel runs both so); a
/// kernel here that takes no state never reads one as its data: both refused at load, naming
/// the operator and the tensor (the filed pass saw the bias used with its data, `f8` against
/// TFLM's `ee`, and the CONCATENATION's tail left as the arena held it).
#[test]
fn a_constant_flagged_variable_is_refused_naming_its_operator() {
    for (file, op, tensor) in [
        ("hello_world_int8_bias_variable", 0, 5),
        ("audio_preprocessor_int8_concat_input_variable", 7, 3),
    ] {
        let m = hostile_model(file);
        let e = refusal(&m);
        assert_eq!(
            e,
            LoadError::Graph {
                op: Some(op),
                tensor,
                fault: GraphFault::StateNotRead
            },
            "{file}"
        );
        assert!(
            e.to_string()
                .starts_with(&format!("operator {op}: tensor {tensor}: ")),
            "{e}"
        );
    }
}

/// Issue 43, found by the oracle's mutant sweep: audio_preprocessor_int8's
/// SignalFilterBankSquareRoot (operator 10) with its scale (input 1) rewired to a constant
/// outside `0..=31` (tensor 18) loaded and then failed every invocation: refused at load,
/// naming the operator. (A scale that is no constant and not SignalFftAutoScale's scale output,
/// known only at invoke, is refused likewise: `Unsupported::ScaleSource`; the model has no other
/// int32 scalar to rewire it to.)
#[test]
fn a_square_root_scale_out_of_range_is_refused_at_load() {
    let bytes = shared_model("audio_preprocessor_int8");
    let model = Model::new(&bytes).unwrap();
    let sg = model.subgraph(0).unwrap();
    let op = sg.operator(10).unwrap();
    let scale = op.inputs().unwrap().get(1).unwrap();
    // The original scale: SignalFftAutoScale's output (an activation), which the model runs
    // with; tensor 18 is a constant.
    let data = |t: i32| model.tensor_data(&sg.tensor(t as usize).unwrap()).unwrap();
    assert!(data(scale).is_empty() && !data(18).is_empty());
    assert!(program::compiled_len(&bytes, IoPlacement::Plan).is_ok());
    let out_of_range = edited(&bytes, "operator.inputs", 10, 1, 18);
    let e = refusal(&out_of_range);
    assert_eq!(
        e,
        LoadError::Operator {
            op: 10,
            name: "SignalFilterBankSquareRoot",
            error: KernelError::unsupported(
                "SignalFilterBankSquareRoot",
                Unsupported::SignalParams
            ),
        },
        "{e}"
    );
}

/// Issue 43, found by 100,000 seeded mutants of the stateful and signal models: an
/// audio_preprocessor_int8 whose DIV (operator 17) divides by a constant holding a zero loaded
/// and then failed every invocation ("integer division by zero"; TFLM's kernel would trap).
/// Refused at load, naming the operator.
#[test]
fn a_constant_divisor_with_a_zero_is_refused_at_load() {
    let bytes = shared_model("audio_preprocessor_int8");
    let model = Model::new(&bytes).unwrap();
    let sg = model.subgraph(0).unwrap();
    let op = sg.operator(17).unwrap();
    let divisor = op.inputs().unwrap().get(1).unwrap() as usize;
    let data = model.tensor_data(&sg.tensor(divisor).unwrap()).unwrap();
    assert!(!data.is_empty() && data.chunks_exact(4).all(|w| w != [0; 4]));
    assert!(program::compiled_len(&bytes, IoPlacement::Plan).is_ok());
    let e = refusal(&with_constant_i32(&bytes, divisor, 0, 0));
    assert_eq!(
        e,
        LoadError::Operator {
            op: 17,
            name: "DIV",
            error: KernelError::unsupported("DIV", Unsupported::DivisionByZero),
        },
        "{e}"
    );
}

/// The single-operator test model `tests/models/<name>.tflite`.
fn single_op_model(name: &str) -> Vec<u8> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/models")
        .join(format!("{name}.tflite"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// What TFLM only asserts in the issue 41 element-wise and activation operators (ELU …
/// LOG_SOFTMAX), each a one-field edit of its single-operator model: refused at load naming
/// the operator and the reason, never run into TFLM's undefined arithmetic or a failing
/// invocation.
#[test]
fn activation_operators_refuse_what_tflm_asserts() {
    let refused = |model: &str, bytes: Vec<u8>, name: &'static str, why: Unsupported| {
        assert!(program::compiled_len(&single_op_model(model), IoPlacement::Plan).is_ok());
        let e = refusal(&bytes);
        assert_eq!(
            e,
            LoadError::Operator {
                op: 0,
                name,
                error: KernelError::unsupported(name, why),
            },
            "{model}: {e}"
        );
    };
    let scale = |s: f32| i64::from(s.to_bits());
    // LOG_SOFTMAX int8: the output's zero point must be 127 (and its scale 16/256).
    let m = single_op_model("log_softmax_i8");
    let e = edited(&m, "quantization.zero_point", 1, 0, 0);
    refused(
        "log_softmax_i8",
        e,
        "LOG_SOFTMAX",
        Unsupported::OutputZeroPoint(0),
    );
    let e = edited(&m, "quantization.scale", 1, 0, scale(0.125));
    refused("log_softmax_i8", e, "LOG_SOFTMAX", Unsupported::OutputScale);
    // HARD_SWISH int8: an output multiplier of 1 or more (`output_multiplier_exponent <= 0`).
    let m = single_op_model("hard_swish_i8");
    let e = edited(&m, "quantization.scale", 1, 0, scale(1e-6));
    refused("hard_swish_i8", e, "HARD_SWISH", Unsupported::Multiplier);
    // TANH int16: an output scale other than 2^-15.
    let m = single_op_model("tanh_i16_pot");
    let e = edited(&m, "quantization.scale", 1, 0, scale(1.0 / 16384.0));
    refused("tanh_i16_pot", e, "TANH", Unsupported::OutputScale);
    // ADD_N int8: inputs of different quantizations.
    let m = single_op_model("add_n_i8_3");
    let e = edited(&m, "quantization.zero_point", 1, 0, 0);
    refused("add_n_i8_3", e, "ADD_N", Unsupported::QuantizationDiffers);
    // FLOOR_DIV: a constant denominator holding a zero (every invocation would fail).
    let m = single_op_model("f32_floor_div_const");
    let e = with_constant_i32(&m, 1, 3, 0);
    refused(
        "f32_floor_div_const",
        e,
        "FLOOR_DIV",
        Unsupported::DivisionByZero,
    );
}

/// What the 16x8 convolutions and FULLY_CONNECTED refuse where TFLM would misread or overflow,
/// each a one-field edit of its single-operator model: a bias of a type TFLM's kernel does not
/// read as (DEPTHWISE_CONV_2D reads any bias as int64; CONV_2D takes int32 or int64), a
/// channel shift the 64-bit `MultiplyByQuantizedMultiplier` cannot apply (over 14).
#[test]
fn wide_kernels_refuse_what_tflm_misreads() {
    let refused = |model: &str, bytes: Vec<u8>, name: &'static str, why: Unsupported| {
        assert!(program::compiled_len(&single_op_model(model), IoPlacement::Plan).is_ok());
        let e = refusal(&bytes);
        assert_eq!(
            e,
            LoadError::Operator {
                op: 0,
                name,
                error: KernelError::unsupported(name, why),
            },
            "{model}: {e}"
        );
    };
    let bias = |expected| Unsupported::TensorType {
        operand: synaptic_run::Operand::Bias,
        expected,
    };
    // Tensor 2, the bias: int32 (2), int16 (7).
    let m = single_op_model("dw_i16_m1_same_pc_relu");
    let e = edited(&m, "tensor.type", 2, 0, 2);
    refused(
        "dw_i16_m1_same_pc_relu",
        e,
        "DEPTHWISE_CONV_2D",
        bias(synaptic_run::TensorTypes::Int64),
    );
    let m = single_op_model("conv_i16_same_pc_b64_relu");
    let e = edited(&m, "tensor.type", 2, 0, 7);
    refused(
        "conv_i16_same_pc_b64_relu",
        e,
        "CONV_2D",
        bias(synaptic_run::TensorTypes::Int32OrInt64),
    );
    // Tensor 3, the output: a scale making every multiplier about 2^16 (shift 17).
    let m = single_op_model("fc_i16_pc_b64_relu");
    let e = edited(
        &m,
        "quantization.scale",
        3,
        0,
        i64::from(1e-10f32.to_bits()),
    );
    refused(
        "fc_i16_pc_b64_relu",
        e,
        "FULLY_CONNECTED",
        Unsupported::Multiplier,
    );
}

/// `model` (a SignalRfft or SignalIrfft single-operator model of one-byte options) with its
/// options' `T` and `fft_length` set: the two values follow the FlexBuffer map's keys (the
/// keys vector: its length and two offsets; the map's prefix: keys, byte width, length), as
/// gen_models.py's `flex({"T": …, "fft_length": …})` writes them.
fn with_fft_options(model: &[u8], t: u8, fft_length: u8) -> Vec<u8> {
    let key = b"fft_length\0";
    let at = model.windows(key.len()).position(|w| w == key).unwrap() + key.len();
    let mut m = model.to_vec();
    assert_eq!(m[at..at + 6], [2, 0x0e, 0x0d, 2, 1, 2]);
    m[at + 6] = t;
    m[at + 7] = fft_length;
    m
}

/// What TFLM only asserts (or never checks) in the signal library's FFTs, each an edit of a
/// single-operator model's options: a `T` TFLM builds no FFT of (its `Init` returns no state,
/// which its `Prepare` reads), a `T` other than the tensors' type, a length kissfft's patched
/// build cannot transform (its generic butterfly's buffer is a null pointer), rows of another
/// length than `fft_length` gives (TFLM writes or reads past them). Refused at load, naming the
/// operator.
#[test]
fn signal_ffts_refuse_what_tflm_only_asserts() {
    for (model, name, t, n) in [
        ("rfft_i32_64", "SignalRfft", 2, 64),
        ("irfft_i16_64", "SignalIrfft", 7, 64),
    ] {
        let m = single_op_model(model);
        assert!(program::compiled_len(&with_fft_options(&m, t, n), IoPlacement::Plan).is_ok());
        let unsupported = |e: LoadError, why: Unsupported| {
            assert_eq!(
                e,
                LoadError::Operator {
                    op: 0,
                    name,
                    error: KernelError::unsupported(name, why),
                },
                "{model}: {e}"
            );
        };
        // int8: no FFT of it.
        unsupported(
            refusal(&with_fft_options(&m, 9, n)),
            Unsupported::SignalParams,
        );
        // 14 (7 = 7: the generic butterfly), 2 (1 = 1: the same), 126 (63 = 3 · 3 · 7).
        for bad in [14, 2, 126] {
            unsupported(
                refusal(&with_fft_options(&m, t, bad)),
                Unsupported::SignalParams,
            );
        }
        // Another supported length: the rows are no longer the tensors'.
        match refusal(&with_fft_options(&m, t, 32)) {
            LoadError::Operator {
                op: 0,
                name: n,
                error: KernelError::Shape { reason, .. },
            } if n == name => assert_eq!(reason, ShapeFault::SizeDiffers),
            e => panic!("{model}: {e:?}"),
        }
        // The other integer type than the tensors'.
        let other = if t == 2 { 7 } else { 2 };
        match refusal(&with_fft_options(&m, other, n)) {
            LoadError::Operator {
                op: 0,
                error: KernelError::Unsupported { reason, .. },
                ..
            } => assert!(
                matches!(reason, Unsupported::TensorType { .. }),
                "{reason:?}"
            ),
            e => panic!("{model}: {e:?}"),
        }
    }
}

/// TFLite_Detection_PostProcess: an IoU threshold outside `(0, 1]` (TFLM's `Eval` asserts it)
/// refused at load; a decoded box of no height (`exp(-1000 / h_scale)` is 0) fails the run,
/// as TFLM's `ValidateBoxes` fails `Eval`, where boxes of any size run.
#[test]
fn detection_refuses_what_tflm_asserts_and_fails_on_empty_boxes() {
    use common::arena::{analysis_with, run_plan};
    let model = single_op_model("f32_det_fast_bg");
    // `nms_iou_threshold` 0.5 (the map's floats are 4 bytes wide), the model's one float of
    // that value, made 1.5.
    let half = 0.5f32.to_le_bytes();
    let at: Vec<usize> = (0..model.len() - 4)
        .filter(|&i| model[i..i + 4] == half)
        .collect();
    assert_eq!(at.len(), 1);
    let mut wide = model.clone();
    wide[at[0]..at[0] + 4].copy_from_slice(&1.5f32.to_le_bytes());
    assert_eq!(
        refusal(&wide),
        LoadError::Operator {
            op: 0,
            name: "TFLite_Detection_PostProcess",
            error: KernelError::unsupported(
                "TFLite_Detection_PostProcess",
                Unsupported::DetectionParams
            ),
        }
    );
    // 24 boxes of 4 values, 24 rows of 4 scores; 10 detections.
    let a = analysis_with(&model, IoPlacement::Plan, true);
    let mut buf = ArenaBuffer::<32768>::new();
    let mut shared = ArenaBuffer::<1024>::new();
    let mut arena = Arena::with_scratch(buf.as_mut_slice(), 8192).unwrap();
    arena.set_shared_region(shared.as_mut_slice()).unwrap();
    let (loader, mut runner) = arena.split();
    let mut net = Interpreter::new(&model, loader, run_plan(&a), IoPlacement::Plan).unwrap();
    // Box encodings of height `h` (0: the anchor's; -1000: none), scores rising.
    let input = |h: f32| {
        let mut input = Vec::new();
        for _ in 0..24 {
            for v in [0.0f32, 0.0, h, 0.0] {
                input.extend_from_slice(&v.to_ne_bytes());
            }
        }
        for s in 0..24 * 4 {
            input.extend_from_slice(&(s as f32 / 10.0).to_ne_bytes());
        }
        input
    };
    let mut out = vec![0u8; (40 + 10 + 10 + 1) * 4];
    net.invoke(&mut runner, &input(0.0), &mut out).unwrap();
    let count = f32::from_ne_bytes(out[240..244].try_into().unwrap());
    assert!(count >= 1.0, "{count}");
    match net.invoke(&mut runner, &input(-1000.0), &mut out) {
        Err(e) => assert!(format!("{e:?}").contains("InvalidBoxes"), "{e:?}"),
        Ok(()) => panic!("boxes of no height ran"),
    }
}

/// TFLM_DECODE's DCM edited in a lookup-table model (the 16 bytes found in the file): every
/// malformed header, or one whose tables or indices TFLM would read past, is refused at load.
#[test]
fn decode_malformed_dcm_is_refused() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/models/decode_lut_i8_w4.tflite"
    );
    let bytes = std::fs::read(path).unwrap();
    let dcm = [0u8, 1, 0, 0, 1, 4, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    let at = bytes
        .windows(dcm.len())
        .position(|w| w == dcm)
        .expect("the model's DCM");
    let with = |k: usize, v: u8| {
        let mut m = bytes.clone();
        m[at + k] = v;
        m
    };
    for (k, v, reason) in [
        (1, 2, "DecodeData"),        // DCM version
        (4, 0, "DecodeData"),        // LUT version
        (5, 0, "DecodeData"),        // bit width 0
        (5, 0xf8, "DecodeData"),     // bit width 0, the ignored bits set
        (5, 7, "DecodeData"),        // 7-bit indices: past the encoded tensor
        (6, 15, "DecodeData"),       // an index at the stride
        (6, 200, "DecodeData"),      // tables past the ancillary tensor
        (0, 3, "DecodeType(3)"),     // reserved
        (0, 127, "DecodeType(127)"), // custom
    ] {
        let e = refusal(&with(k, v));
        assert!(format!("{e:?}").contains(reason), "byte {k} = {v}: {e:?}");
    }
    // Unchanged, it loads (and width 4's ignored high bits change nothing).
    let _ = program::compiled_len(&bytes, IoPlacement::Plan).expect("the model loads");
    let _ = program::compiled_len(&with(5, 0xfc), IoPlacement::Plan).expect("bits ignored");
    // A Huffman model whose first lookup is made 16 bits: its indices pass its tables.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/models/decode_huffman_i8_t16_k3.tflite"
    );
    let bytes = std::fs::read(path).unwrap();
    let dcm = [1u8, 1, 0, 0, 1, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    let at = bytes.windows(16).position(|w| w == dcm).expect("its DCM");
    let _ = program::compiled_len(&bytes, IoPlacement::Plan).expect("the model loads");
    let mut m = bytes.clone();
    m[at + 5] = 0xf0;
    let e = refusal(&m);
    assert!(format!("{e:?}").contains("DecodeData"), "{e:?}");
}
