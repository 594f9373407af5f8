//! Unsupported options, types and quantizations are errors that name the operator and what is
//! missing, never a wrong answer; bad slice lengths are errors, never panics.

use synaptic_run::ops::{
    add, concatenation, conv_2d, depthwise_conv_2d, fully_connected, logistic,
};
use synaptic_run::ops::{mean, pool_2d, softmax};
use synaptic_run::{Activation, KernelError, Padding, QuantParams};

const Q: QuantParams = QuantParams::new(0.05, 3);
const OUT_SOFTMAX: QuantParams = QuantParams::new(1.0 / 256.0, -128);

fn text(e: KernelError) -> String {
    e.to_string()
}

#[test]
fn fused_activations_tanh_and_sign_bit_are_refused() {
    assert_eq!(
        text(Activation::from_tflite("CONV_2D", 4).unwrap_err()),
        "CONV_2D: unsupported: fused activation TANH"
    );
    assert!(text(Activation::from_tflite("ADD", 5).unwrap_err()).contains("SIGN_BIT"));
    assert!(Padding::from_tflite("CONV_2D", 2).is_err());
}

#[test]
fn softmax_output_quantization_is_checked() {
    let e = softmax::SoftmaxParams::new(1.0, &[1, 10], Q, QuantParams::new(1.0 / 256.0, 0));
    assert_eq!(
        text(e.unwrap_err()),
        "SOFTMAX: unsupported: int8 output zero point must be -128"
    );
    let e = softmax::SoftmaxParams::new(1.0, &[1, 10], Q, QuantParams::new(0.004, -128));
    assert!(text(e.unwrap_err()).contains("1/256"));
    assert!(softmax::SoftmaxParams::new(1.0, &[1, 10], Q, OUT_SOFTMAX).is_ok());
}

#[test]
fn logistic_output_zero_point_is_checked() {
    let e = logistic::LogisticParams::new(Q, QuantParams::new(1.0 / 256.0, 0)).unwrap_err();
    assert!(text(e).starts_with("LOGISTIC: unsupported"));
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
        text(e.unwrap_err()),
        "FULLY_CONNECTED: unsupported: shuffled weights format"
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
    assert!(text(e.unwrap_err()).contains("input and output quantization must be equal"));
}

#[test]
fn concatenation_with_activation_or_requantization_is_refused() {
    let shapes: [&[usize]; 2] = [&[1, 2], &[1, 3]];
    let e =
        concatenation::ConcatParams::new(1, Activation::Relu, &shapes, &[1, 5], &[Q, Q], Some(Q));
    assert_eq!(
        text(e.unwrap_err()),
        "CONCATENATION: unsupported: fused activation"
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
    assert!(text(e.unwrap_err()).contains("quantized differently"));
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
    assert!(matches!(e, Err(KernelError::Shape { op: "CONV_2D", .. })));
    let dw = depthwise_conv_2d::DepthwiseOptions {
        conv: opts,
        depth_multiplier: 2,
    };
    let e = conv_2d::ConvParams::depthwise(&dw, &[1, 5, 5, 2], &[1, 3, 3, 6], &[1, 3, 3, 6], Q, Q);
    assert!(text(e.unwrap_err()).contains("depth_multiplier"));
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
    assert!(text(e.unwrap_err()).contains("stride"));
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
        &[0; 9],
        &[1i8, 1],
        None::<&[i32]>,
        &mut out,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "CONV_2D: output has 17 elements, its shape needs 18"
    );
    let e = conv_2d::conv2d(
        &p,
        &m[..1],
        &s[..1],
        &[0; 9],
        &[1i8, 1],
        None::<&[i32]>,
        &mut [0; 18],
    )
    .unwrap_err();
    assert!(e.to_string().contains("multiplier table"));

    let ap = add::AddParams::new(Activation::None, &[4], &[4], &[4], Q, Q, Q).unwrap();
    assert!(add::add(&ap, &[0i8; 4], &[0i8; 3], &mut [0; 4]).is_err());
    let e = add::AddParams::new(Activation::None, &[4], &[3], &[4], Q, Q, Q).unwrap_err();
    assert!(e.to_string().contains("do not broadcast"));

    let mp = mean::MeanParams::new(&[2, 3], &[5], &[2], Q, Q);
    assert!(mp.unwrap_err().to_string().contains("axis out of range"));
}
