//! An overlapped plan end to end on the core: the declared pair reached as one span
//! (`PlannedInference::overlapped`) and run by the overlapped kernel, bit-identical to the plain
//! kernel — the example geometry (1×1 CONV_2D, 8 → 16 channels, backward, the output
//! 16 bytes above the input), smaller.

use synaptic_mem::plan::{OverlapDirection, OverlapPair};
use synaptic_mem::{Arena, ArenaBuffer, DType, Plan, PlanSlot, Scratch};
use synaptic_run::contract::Direction;
use synaptic_run::ops::conv::conv_2d::{self, ConvOptions, ConvParams};
use synaptic_run::ops::InPlace;
use synaptic_run::{Activation, Padding, QuantParams};

#[test]
fn pointwise_conv_runs_backward_in_its_planned_span() {
    let (h, w) = (6, 5);
    let opts = ConvOptions {
        padding: Padding::Valid,
        stride_h: 1,
        stride_w: 1,
        dilation_h: 1,
        dilation_w: 1,
        activation: Activation::None,
    };
    let q = QuantParams::new(0.05, 3);
    let p = ConvParams::conv2d(&opts, &[1, h, w, 8], &[16, 1, 1, 8], &[1, h, w, 16], q, q).unwrap();
    let safe = conv_2d::contract(&p, false).safe_overlap().unwrap();
    assert_eq!(safe.backward_min, Some(7));
    let (n_in, n_out) = (h * w * 8, h * w * 16);
    let slots = [
        PlanSlot {
            offset: 0,
            size: n_in as u32,
            first_op: 0,
            last_op: 0,
        },
        PlanSlot {
            offset: 16,
            size: n_out as u32,
            first_op: 0,
            last_op: 1,
        },
    ];
    let pairs = [OverlapPair {
        op: 0,
        input: 0,
        output: 1,
        direction: OverlapDirection::Backward,
        bound: safe.backward_min.unwrap() as i32,
    }];
    let region = (16 + n_out as u32).next_multiple_of(16);
    let input: Vec<i8> = (0..n_in).map(|i| (i * 37 % 251) as i8).collect();
    let filter: Vec<i8> = (0..128).map(|i| (i * 13 % 97) as i8 - 48).collect();
    let (mult, shift) = (vec![1 << 30; 16], vec![-6; 16]);
    let mut expected = vec![0i8; n_out];
    conv_2d::conv2d::<i8, i8, i8, [i32], [i32]>(
        &p,
        &mult[..],
        &shift[..],
        &input,
        &filter,
        None,
        &mut expected,
        &mut Scratch::new(&mut vec![0u8; conv_2d::conv2d_scratch_bytes(&p) + 16]),
    )
    .unwrap();

    let mut buf = ArenaBuffer::<16384>::new();
    let mut arena = Arena::with_scratch(buf.as_mut_slice(), 1024).unwrap();
    let (loader, mut runner) = arena.split();
    let plan = loader
        .load_overlapped_plan(
            Plan {
                region_size: region,
                slots: &slots,
            },
            &pairs,
        )
        .unwrap();
    let got = runner
        .planned(&plan, |pi| {
            pi.alloc(0, &[n_in as u32], DType::Int8).unwrap();
            pi.alloc(1, &[n_out as u32], DType::Int8).unwrap();
            let [mut x] = pi.at(0, [0]).unwrap();
            x.bytes_mut()
                .iter_mut()
                .zip(&input)
                .for_each(|(b, &v)| *b = v as u8);
            let (span, []) = pi.overlapped(0, []).unwrap().unwrap();
            let at = InPlace::new(span.input, span.output, Direction::from(span.direction));
            let mut block = vec![0u8; conv_2d::conv2d_scratch_bytes(&p) + 16];
            conv_2d::conv2d_in_place::<i8, [i32], [i32]>(
                &p,
                &mult,
                &shift,
                &filter,
                None,
                span.bytes,
                at,
                &mut Scratch::new(&mut block),
            )
            .unwrap();
            // Forward at this delta is refused by the contract.
            let fwd = InPlace::new(span.input, span.output, Direction::Forward);
            assert!(conv_2d::conv2d_in_place::<i8, [i32], [i32]>(
                &p,
                &mult,
                &shift,
                &filter,
                None,
                span.bytes,
                fwd,
                &mut Scratch::new(&mut block),
            )
            .is_err());
            let [y] = pi.at(1, [1]).unwrap();
            y.bytes().to_vec()
        })
        .unwrap();
    let want: Vec<u8> = expected.iter().map(|&v| v as u8).collect();
    assert_eq!(got, want);
}
