//! Runs one operator of a model with synaptic-run's kernels: a test-side stand-in for the
//! loader (options, quantization and constants read with `tflite.rs`, parameters prepared once
//! per call, the kernel run on the given input bytes).

#![allow(dead_code)]

use super::tflite::{op_name, DType, Model, Operator, Table, Tensor};
use synaptic_run::kernels::{activations, conv, elementwise, fully_connected, layout, pooling};
use synaptic_run::kernels::{quantize, reduce};
use synaptic_run::math::per_channel_multipliers;
use synaptic_run::{Activation, KernelError, Padding};

pub fn i8s(b: &[u8]) -> Vec<i8> {
    b.iter().map(|&x| x as i8).collect()
}
pub fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}
pub fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}
fn from_i8(v: &[i8]) -> Vec<u8> {
    v.iter().map(|&x| x as u8).collect()
}
fn from_f32(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn opts<'a>(op: &Operator<'a>) -> Table<'a> {
    op.options.expect("operator has no builtin options")
}

fn act(name: &'static str, v: i8) -> Result<Activation, KernelError> {
    Activation::from_tflite(name, v)
}

/// Runs operator `op` of `model`; `input(i)` gives the bytes of tensor `i` (activation or
/// constant). Returns the bytes of the operator's single output.
pub fn run_op<'m>(
    model: &Model<'m>,
    op: &Operator<'m>,
    input: &dyn Fn(usize) -> Vec<u8>,
) -> Result<Vec<u8>, KernelError> {
    let name = op_name(op.code);
    let t = |k: usize| -> &Tensor<'m> { &model.tensors[op.inputs[k] as usize] };
    let has = |k: usize| op.inputs.get(k).is_some_and(|&i| i >= 0);
    let out_t = &model.tensors[op.outputs[0] as usize];
    let i8_in = |k: usize| i8s(&input(op.inputs[k] as usize));
    let mut out = vec![0i8; out_t.elements()];
    let check_i8 = |tensors: &[&Tensor]| -> Result<(), KernelError> {
        for x in tensors {
            if x.dtype != DType::I8 {
                return Err(KernelError::unsupported(name, "only int8 activations"));
            }
        }
        Ok(())
    };
    match op.code {
        3 | 4 => {
            check_i8(&[t(0), t(1), out_t])?;
            let o = opts(op);
            let (depthwise, act_field, dil_w, dil_h) = if op.code == 4 {
                (true, 4, 5, 6)
            } else {
                (false, 3, 4, 5)
            };
            let c = conv::ConvOptions {
                padding: Padding::from_tflite(name, o.i8(0, 0))?,
                stride_w: o.i32(1, 0) as usize,
                stride_h: o.i32(2, 0) as usize,
                activation: act(name, o.i8(act_field, 0))?,
                dilation_w: o.i32(dil_w, 1) as usize,
                dilation_h: o.i32(dil_h, 1) as usize,
            };
            let p = if depthwise {
                let d = conv::DepthwiseOptions {
                    conv: c,
                    depth_multiplier: o.i32(3, 0) as usize,
                };
                conv::ConvParams::depthwise(
                    &d,
                    &t(0).shape,
                    &t(1).shape,
                    &out_t.shape,
                    t(0).q(),
                    out_t.q(),
                )?
            } else {
                conv::ConvParams::conv2d(
                    &c,
                    &t(0).shape,
                    &t(1).shape,
                    &out_t.shape,
                    t(0).q(),
                    out_t.q(),
                )?
            };
            let ch = p.output_channels();
            let (mut m, mut s) = (vec![0; ch], vec![0; ch]);
            per_channel_multipliers(
                name,
                t(0).q().scale,
                &t(1).scales,
                out_t.q().scale,
                &mut m,
                &mut s,
            )?;
            let bias = has(2).then(|| i32s(&input(op.inputs[2] as usize)));
            let (x, w) = (i8_in(0), i8_in(1));
            if depthwise {
                conv::depthwise_conv2d(&p, &m[..], &s[..], &x, &w, bias.as_deref(), &mut out)?;
            } else {
                conv::conv2d(&p, &m[..], &s[..], &x, &w, bias.as_deref(), &mut out)?;
            }
        }
        9 => {
            check_i8(&[t(0), t(1), out_t])?;
            let o = opts(op);
            let fo = fully_connected::FullyConnectedOptions {
                activation: act(name, o.i8(0, 0))?,
                weights_format: o.i8(1, 0),
            };
            let p = fully_connected::FullyConnectedParams::new(
                &fo,
                &t(0).shape,
                &t(1).shape,
                &out_t.shape,
                t(0).q(),
                &t(1).scales,
                t(1).q().zero_point,
                out_t.q(),
            )?;
            let n = p.table_len();
            let (mut m, mut s) = (vec![0; n], vec![0; n]);
            p.multipliers(
                t(0).q().scale,
                &t(1).scales,
                out_t.q().scale,
                &mut m,
                &mut s,
            )?;
            let bias = has(2).then(|| i32s(&input(op.inputs[2] as usize)));
            fully_connected::fully_connected(
                &p,
                &m[..],
                &s[..],
                &i8_in(0),
                &i8_in(1),
                bias.as_deref(),
                &mut out,
            )?;
        }
        1 | 17 => {
            check_i8(&[t(0), out_t])?;
            let o = opts(op);
            let po = pooling::PoolOptions {
                padding: Padding::from_tflite(name, o.i8(0, 0))?,
                stride_w: o.i32(1, 0) as usize,
                stride_h: o.i32(2, 0) as usize,
                filter_w: o.i32(3, 0) as usize,
                filter_h: o.i32(4, 0) as usize,
                activation: act(name, o.i8(5, 0))?,
            };
            let p = pooling::PoolParams::new(
                name,
                &po,
                &t(0).shape,
                &out_t.shape,
                t(0).q(),
                out_t.q(),
            )?;
            if op.code == 1 {
                pooling::average_pool(&p, &i8_in(0), &mut out)?;
            } else {
                pooling::max_pool(&p, &i8_in(0), &mut out)?;
            }
        }
        25 => {
            check_i8(&[t(0), out_t])?;
            let beta = op.options.map_or(1.0, |o| o.f32(0, 0.0));
            let p = activations::SoftmaxParams::new(beta, &t(0).shape, t(0).q(), out_t.q())?;
            activations::softmax(&p, &i8_in(0), &mut out)?;
        }
        14 => {
            check_i8(&[t(0), out_t])?;
            let p = activations::LogisticParams::new(t(0).q(), out_t.q())?;
            activations::logistic(&p, &i8_in(0), &mut out)?;
        }
        0 | 18 => {
            check_i8(&[t(0), t(1), out_t])?;
            let a = act(name, op.options.map_or(0, |o| o.i8(0, 0)))?;
            let (x, y) = (i8_in(0), i8_in(1));
            if op.code == 0 {
                let p = elementwise::AddParams::new(
                    a,
                    &t(0).shape,
                    &t(1).shape,
                    &out_t.shape,
                    t(0).q(),
                    t(1).q(),
                    out_t.q(),
                )?;
                elementwise::add(&p, &x, &y, &mut out)?;
            } else {
                let p = elementwise::MulParams::new(
                    a,
                    &t(0).shape,
                    &t(1).shape,
                    &out_t.shape,
                    t(0).q(),
                    t(1).q(),
                    out_t.q(),
                )?;
                elementwise::mul(&p, &x, &y, &mut out)?;
            }
        }
        40 => {
            check_i8(&[t(0), out_t])?;
            let axes = i32s(&input(op.inputs[1] as usize));
            let p = reduce::MeanParams::new(&t(0).shape, &axes, &out_t.shape, t(0).q(), out_t.q())?;
            reduce::mean(&p, &i8_in(0), &mut out)?;
        }
        34 => {
            check_i8(&[t(0), out_t])?;
            let pads: Vec<[i32; 2]> = i32s(&input(op.inputs[1] as usize))
                .chunks_exact(2)
                .map(|c| [c[0], c[1]])
                .collect();
            let p = layout::PadParams::new(&t(0).shape, &pads, &out_t.shape)?;
            layout::pad(&p, &i8_in(0), out_t.q().zero_point as i8, &mut out)?;
        }
        2 => {
            let o = opts(op);
            let n = op.inputs.len();
            let shapes: Vec<&[usize]> = (0..n).map(|k| t(k).shape.as_slice()).collect();
            let quants: Vec<_> = (0..n).map(|k| t(k).q()).collect();
            let p = layout::ConcatParams::new(
                o.i32(0, 0),
                act(name, o.i8(1, 0))?,
                &shapes,
                &out_t.shape,
                &quants,
                Some(out_t.q()),
            )?;
            let datas: Vec<Vec<u8>> = (0..n).map(|k| input(op.inputs[k] as usize)).collect();
            let refs: Vec<&[u8]> = datas.iter().map(|d| d.as_slice()).collect();
            let sizes: Vec<usize> = shapes
                .iter()
                .map(|s| s[p.axis()] * t(0).dtype.size())
                .collect();
            // Concatenate bytes: the element size folds into the inner dimension.
            let p_bytes = p.with_element_bytes(out_t.dtype.size())?;
            let mut bytes = vec![0u8; out_t.bytes()];
            layout::concatenation(&p_bytes, &refs, &sizes, &mut bytes)?;
            return Ok(bytes);
        }
        39 => {
            check_i8(&[t(0), out_t])?;
            let perm = i32s(&input(op.inputs[1] as usize));
            let p = layout::TransposeParams::new(&t(0).shape, &perm, &out_t.shape)?;
            layout::transpose(&p, &i8_in(0), &mut out)?;
        }
        114 => match (t(0).dtype, out_t.dtype) {
            (DType::F32, DType::I8) => {
                quantize::quantize_f32(out_t.q(), &f32s(&input(op.inputs[0] as usize)), &mut out)?;
            }
            (DType::I8, DType::I8) => {
                let p = quantize::RequantizeParams::new(t(0).q(), out_t.q())?;
                quantize::requantize(&p, &i8_in(0), &mut out)?;
            }
            _ => return Err(KernelError::unsupported(name, "this type pair")),
        },
        6 => {
            if t(0).dtype != DType::I8 || out_t.dtype != DType::F32 {
                return Err(KernelError::unsupported(name, "only int8 to float32"));
            }
            let mut f = vec![0f32; out_t.elements()];
            quantize::dequantize(t(0).q(), &i8_in(0), &mut f)?;
            return Ok(from_f32(&f));
        }
        22 | 43 => {
            let x = input(op.inputs[0] as usize);
            let mut o = vec![0u8; out_t.bytes()];
            layout::copy(name, &x, &mut o)?;
            return Ok(o);
        }
        _ => return Err(KernelError::unsupported(name, "operator not implemented")),
    }
    Ok(from_i8(&out))
}
