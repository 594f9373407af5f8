//! Unsupported options, types and quantizations are errors that name the operator and a typed
//! reason a caller can match ([`Unsupported`], [`ShapeFault`]), never a wrong answer; bad slice
//! lengths are errors naming the slice ([`Operand`]), never panics. The tests match variants;
//! one checks that every reason's message is one line that says what is wrong.

use synaptic_run::ops::conv::{conv_2d, depthwise_conv_2d};
use synaptic_run::ops::elementwise::{add, logistic};
use synaptic_run::ops::matmul::fully_connected;
use synaptic_run::ops::pooling::pool_2d;
use synaptic_run::ops::reduction::{reduce, softmax};
use synaptic_run::ops::shape::concatenation;
use synaptic_run::{Activation, KernelError, Padding, QuantParams};
use synaptic_run::{Operand, ShapeFault, TensorTypes, Unsupported};

const Q: QuantParams = QuantParams::new(0.05, 3);
const OUT_SOFTMAX: QuantParams = QuantParams::new(1.0 / 256.0, -128);

const fn unsupported(op: &'static str, reason: Unsupported) -> KernelError {
    KernelError::unsupported(op, reason)
}

const fn shape(op: &'static str, reason: ShapeFault) -> KernelError {
    KernelError::shape(op, reason)
}

#[test]
fn fused_activations_tanh_and_sign_bit_are_refused() {
    assert_eq!(
        Activation::from_tflite("CONV_2D", 4),
        Err(unsupported("CONV_2D", Unsupported::FusedActivation(4)))
    );
    assert_eq!(
        Activation::from_tflite("ADD", 5),
        Err(unsupported("ADD", Unsupported::FusedActivation(5)))
    );
    assert_eq!(
        Padding::from_tflite("CONV_2D", 2),
        Err(unsupported("CONV_2D", Unsupported::Padding(2)))
    );
}

#[test]
fn softmax_output_quantization_is_checked() {
    let e = softmax::SoftmaxParams::new(1.0, &[1, 10], Q, QuantParams::new(1.0 / 256.0, 0));
    assert_eq!(
        e.unwrap_err(),
        unsupported("SOFTMAX", Unsupported::OutputZeroPoint(0))
    );
    let e = softmax::SoftmaxParams::new(1.0, &[1, 10], Q, QuantParams::new(0.004, -128));
    assert_eq!(
        e.unwrap_err(),
        unsupported("SOFTMAX", Unsupported::OutputScale)
    );
    assert!(softmax::SoftmaxParams::new(1.0, &[1, 10], Q, OUT_SOFTMAX).is_ok());
}

#[test]
fn logistic_output_zero_point_is_checked() {
    let e = logistic::LogisticParams::new(Q, QuantParams::new(1.0 / 256.0, 3)).unwrap_err();
    assert_eq!(e, unsupported("LOGISTIC", Unsupported::OutputZeroPoint(3)));
}

#[test]
fn fully_connected_shuffled_weights_are_refused() {
    let opts = fully_connected::FullyConnectedOptions {
        activation: Activation::None,
        weights_format: 1,
    };
    let e = fully_connected::FullyConnectedParams::new(
        &opts,
        &[1, 4],
        &[2, 4],
        &[1, 2],
        Q,
        &[0.1],
        0,
        Q,
    );
    assert_eq!(
        e.unwrap_err(),
        unsupported("FULLY_CONNECTED", Unsupported::WeightsFormat(1))
    );
}

#[test]
fn pooling_requires_equal_quantization() {
    let opts = pool_2d::PoolOptions {
        padding: Padding::Valid,
        stride_h: 1,
        stride_w: 1,
        filter_h: 2,
        filter_w: 2,
        activation: Activation::None,
    };
    let e = pool_2d::PoolParams::new(
        "MAX_POOL_2D",
        &opts,
        &[1, 4, 4, 1],
        &[1, 3, 3, 1],
        Q,
        QuantParams::new(0.1, 3),
    );
    assert_eq!(
        e.unwrap_err(),
        unsupported("MAX_POOL_2D", Unsupported::QuantizationDiffers)
    );
}

#[test]
fn concatenation_with_activation_or_requantization_is_refused() {
    let shapes: [&[usize]; 2] = [&[1, 2], &[1, 3]];
    let e =
        concatenation::ConcatParams::new(1, Activation::Relu, &shapes, &[1, 5], &[Q, Q], Some(Q));
    assert_eq!(
        e.unwrap_err(),
        unsupported("CONCATENATION", Unsupported::FusedActivation(1))
    );
    let other = QuantParams::new(0.06, 3);
    let e = concatenation::ConcatParams::new(
        1,
        Activation::None,
        &shapes,
        &[1, 5],
        &[Q, other],
        Some(Q),
    );
    assert_eq!(
        e.unwrap_err(),
        unsupported("CONCATENATION", Unsupported::QuantizationDiffers)
    );
}

#[test]
fn convolution_shapes_are_checked() {
    let opts = conv_2d::ConvOptions {
        padding: Padding::Valid,
        stride_h: 1,
        stride_w: 1,
        dilation_h: 1,
        dilation_w: 1,
        activation: Activation::Relu6,
    };
    // 3x3 VALID on 5x5 gives 3x3, not 4x4.
    let e = conv_2d::ConvParams::conv2d(&opts, &[1, 5, 5, 2], &[4, 3, 3, 2], &[1, 4, 4, 4], Q, Q);
    assert_eq!(e.unwrap_err(), shape("CONV_2D", ShapeFault::OutputSpatial));
    let dw = depthwise_conv_2d::DepthwiseOptions {
        conv: opts,
        depth_multiplier: 2,
    };
    let e = conv_2d::ConvParams::depthwise(&dw, &[1, 5, 5, 2], &[1, 3, 3, 6], &[1, 3, 3, 6], Q, Q);
    assert_eq!(
        e.unwrap_err(),
        shape("DEPTHWISE_CONV_2D", ShapeFault::DepthMultiplier)
    );
    let zero_stride = conv_2d::ConvOptions {
        stride_h: 0,
        ..opts
    };
    let e = conv_2d::ConvParams::conv2d(
        &zero_stride,
        &[1, 5, 5, 2],
        &[4, 3, 3, 2],
        &[1, 3, 3, 4],
        Q,
        Q,
    );
    assert_eq!(
        e.unwrap_err(),
        unsupported("CONV_2D", Unsupported::WindowNotPositive)
    );
}

#[test]
fn kernels_check_slice_lengths() {
    let opts = conv_2d::ConvOptions {
        padding: Padding::Same,
        stride_h: 1,
        stride_w: 1,
        dilation_h: 1,
        dilation_w: 1,
        activation: Activation::None,
    };
    let p = conv_2d::ConvParams::conv2d(&opts, &[1, 3, 3, 1], &[2, 1, 1, 1], &[1, 3, 3, 2], Q, Q)
        .unwrap();
    let (m, s): ([i32; 2], [i32; 2]) = ([1 << 30; 2], [0; 2]);
    let mut out = [0i8; 17];
    let e = conv_2d::conv2d(
        &p,
        &m[..],
        &s[..],
        &[0i8; 9],
        &[1i8, 1],
        None::<&[i32]>,
        &mut out,
        &mut synaptic_mem::Scratch::empty(),
    )
    .unwrap_err();
    assert_eq!(
        e,
        KernelError::Length {
            op: "CONV_2D",
            operand: Operand::Output,
            expected: 18,
            got: 17
        }
    );
    let e = conv_2d::conv2d(
        &p,
        &m[..1],
        &s[..1],
        &[0i8; 9],
        &[1i8, 1],
        None::<&[i32]>,
        &mut [0i8; 18],
        &mut synaptic_mem::Scratch::empty(),
    )
    .unwrap_err();
    assert!(matches!(
        e,
        KernelError::Length {
            operand: Operand::Multipliers,
            expected: 2,
            got: 1,
            ..
        }
    ));

    let ap = add::AddParams::new(Activation::None, &[4], &[4], &[4], Q, Q, Q).unwrap();
    assert!(matches!(
        add::add(&ap, &[0i8; 4], &[0i8; 3], &mut [0; 4]),
        Err(KernelError::Length {
            op: "ADD",
            operand: Operand::Input(1),
            ..
        })
    ));
    let e = add::AddParams::new(Activation::None, &[4], &[3], &[4], Q, Q, Q).unwrap_err();
    assert_eq!(e, shape("ADD", ShapeFault::NotBroadcastable));

    let mp = reduce::MeanParams::new(&[2, 3], &[5], &[2], Q, Q).map(|_| ());
    assert_eq!(mp, Err(shape("MEAN", ShapeFault::AxisOutOfRange(5))));
}

/// Every group of reasons: its message is one line, names the operator and says what is wrong
/// (the key fact: the option value, the operand, the expected types).
#[test]
fn every_reason_displays_one_line_with_the_key_fact() {
    use {Operand as O, ShapeFault as S, Unsupported as U};
    let u = |reason| unsupported("OP", reason);
    let s = |reason| shape("OP", reason);
    let cases = [
        // Options, with their value.
        (u(U::FusedActivation(5)), "fused activation SIGN_BIT"),
        (u(U::FusedActivation(9)), "fused activation 9 (unknown)"),
        (u(U::Padding(3)), "padding 3 (unknown)"),
        (u(U::WeightsFormat(1)), "shuffled weights format"),
        (u(U::WindowNotPositive), "must be positive"),
        // Operands: which one, and what it must be.
        (
            u(U::TensorType {
                operand: O::Filter,
                expected: TensorTypes::Int8,
            }),
            "filter of a type other than int8",
        ),
        (u(U::NotConstant(O::Axes)), "axes is not a constant"),
        (u(U::Constant(O::Output)), "output is a constant"),
        (u(U::TooManyValues(O::Paddings)), "paddings: more"),
        (u(U::MissingInput(1)), "input 1 is missing"),
        (u(U::TensorIndex(O::Input(2))), "input 2: tensor index"),
        // Quantization, with the value where there is one.
        (u(U::OutputZeroPoint(3)), "zero point 3, must be -128"),
        (u(U::ZeroPoint(200)), "zero point 200 outside"),
        (u(U::FilterScales), "one per output channel"),
        (u(U::Multiplier), "requantization multiplier"),
        // The program and in-place execution.
        (u(U::ProgramMismatch), "differs from load"),
        (u(U::BackwardExecution), "backward execution"),
        (u(U::UnsafeOverlap), "safe overlap"),
        // Shapes.
        (s(S::Not4d(O::Input(0))), "input 0 must be 4-D"),
        (
            s(S::TooFewDimensions {
                operand: O::Filter,
                min: 2,
            }),
            "filter must have at least 2 dimensions",
        ),
        (s(S::AxisOutOfRange(-7)), "axis -7 out of range"),
        (s(S::NotBroadcastable), "do not broadcast"),
        (s(S::Overflow), "overflows"),
        (s(S::EmptyWindow), "entirely in the padding"),
        (s(S::NotScalar), "single element"),
        (u(U::MirrorPadding), "mirror padding wider"),
        (u(U::SpaceToBatchPadding), "never sets"),
        (u(U::IndexDepth), "index depth"),
        (u(U::DetectionParams), "detection options or shapes"),
        (u(U::InvalidBoxes), "ymin >= ymax"),
        (u(U::DecodeData), "TFLM_DECODE encoded or ancillary"),
        (u(U::DecodeType(127)), "decode type 127 (decoded"),
        (u(U::DecodePairs), "one input pair"),
        (u(U::DecodePerChannelZeroPoints), "zero points differ"),
        (
            u(U::TensorType {
                operand: O::Paddings,
                expected: TensorTypes::Int32OrInt64,
            }),
            "paddings of a type other than int32 or int64",
        ),
        (
            u(U::TensorType {
                operand: O::Input(0),
                expected: TensorTypes::Int8Int16Int32OrFloat32,
            }),
            "int8, int16, int32 or float32",
        ),
        // Lengths.
        (
            KernelError::Length {
                op: "OP",
                operand: O::Filter,
                expected: 8,
                got: 7,
            },
            "filter has 7 elements, its shape needs 8",
        ),
    ];
    for (e, fact) in cases {
        let text = e.to_string();
        assert!(text.starts_with("OP: "), "{text}");
        assert!(
            !text.contains('\n') && text.contains(fact),
            "{text:?} lacks {fact:?}"
        );
    }
    assert_eq!(
        unsupported("CONV_2D", U::FusedActivation(4)).to_string(),
        "CONV_2D: unsupported: fused activation TANH"
    );
    assert_eq!(
        shape("ADD", S::BroadcastShape).to_string(),
        "ADD: shape mismatch: output shape is not the broadcast shape"
    );
}

/// The reasons stay small on a device: a byte of discriminant and at most an `i32` payload.
#[test]
fn reasons_are_small() {
    use core::mem::size_of;
    assert_eq!(size_of::<Operand>(), 2);
    assert_eq!(size_of::<TensorTypes>(), 1);
    assert!(size_of::<Unsupported>() <= 8);
    assert!(size_of::<ShapeFault>() <= 8);
}

/// The committed single-operator model `name` with the first occurrence of the int32 values
/// `from` in its bytes (a constant's data) replaced by `to`.
fn patched_model(name: &str, from: &[i32], to: &[i32]) -> Vec<u8> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/models")
        .join(format!("{name}.tflite"));
    let mut bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let le = |v: &[i32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let (from, to) = (le(from), le(to));
    let at = bytes
        .windows(from.len())
        .position(|w| w == from.as_slice())
        .unwrap_or_else(|| panic!("{name}: values not found"));
    bytes[at..at + to.len()].copy_from_slice(&to);
    bytes
}

/// The load error of `bytes`, as the kernel error of its operator.
fn load_error(bytes: &[u8]) -> KernelError {
    match synaptic_run::program::compiled_len(bytes, synaptic_run::IoPlacement::Plan) {
        Err(synaptic_run::LoadError::Operator { error, .. }) => error,
        other => panic!("not refused by its operator: {other:?}"),
    }
}

/// What TFLM's MIRROR_PAD, SPACE_TO_BATCH_ND, GATHER_ND, EMBEDDING_LOOKUP and CUMSUM only
/// assert, or compute from bytes nothing wrote, is refused at load with its reason.
#[test]
fn new_shape_operators_refuse_what_tflm_misreads() {
    // A REFLECT left padding of 4 on a dimension of 4 (at most 3).
    let m = patched_model("mirror_pad_reflect_4d", &[3, 1, 2, 4], &[4, 0, 2, 4]);
    assert_eq!(
        load_error(&m),
        unsupported("MIRROR_PAD", Unsupported::MirrorPadding)
    );
    // A negative padding.
    let m = patched_model("mirror_pad_reflect_4d", &[3, 1, 2, 4], &[3, 1, -1, 7]);
    assert_eq!(
        load_error(&m),
        unsupported("MIRROR_PAD", Unsupported::NegativePadding)
    );
    // SPACE_TO_BATCH_ND's padding: TFLM's pad value is never set. (The paddings' buffer, 16
    // bytes of zeros after their length, made [[0, 0], [0, 3]].)
    let m = patched_model("space_to_batch_2x3", &[16, 0, 0, 0, 0], &[16, 0, 0, 0, 3]);
    assert_eq!(
        load_error(&m),
        unsupported("SPACE_TO_BATCH_ND", Unsupported::SpaceToBatchPadding)
    );
    // A GATHER_ND tuple whose slice ends past the params ([3, 4] of [4, 5]: position 20).
    let m = patched_model("gather_nd_elements", &[3, 4], &[3, 5]);
    assert_eq!(
        load_error(&m),
        unsupported("GATHER_ND", Unsupported::IndexOutOfRange)
    );
    // An EMBEDDING_LOOKUP id past the table's 4 rows.
    let m = patched_model("embedding_lookup_i8", &[2, 0, 2], &[2, 4, 2]);
    assert_eq!(
        load_error(&m),
        unsupported("EMBEDDING_LOOKUP", Unsupported::IndexOutOfRange)
    );
}
