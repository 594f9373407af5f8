//! The closed-form safe overlap ([`Contract::safe_overlap`], what a load computes) against its
//! definition, the walk over every output element ([`Contract::safe_overlap_by_walk`]): the
//! same verdict and the same bounds on random contracts of every access family — consistent
//! ones as the kernels make them, and ones whose element count is not the shape's product
//! (a partial last row or batch).
use proptest::prelude::*;
use synaptic_run::contract::{Access, Channels, Contract, Direction, SafeOverlap, Window};

fn channels() -> impl Strategy<Value = Channels> {
    prop_oneof![
        (0usize..5, 0usize..5).prop_map(|(depth, filters_per_group)| Channels::Group {
            depth,
            filters_per_group
        }),
        (0usize..4).prop_map(|multiplier| Channels::Depthwise { multiplier }),
        Just(Channels::Same),
    ]
}

fn window() -> impl Strategy<Value = Window> {
    (
        (1usize..3, 1usize..8, 1usize..8, 1usize..6),
        (1usize..8, 1usize..8, 1usize..7),
        (1usize..5, 1usize..5),
        (1usize..4, 1usize..4),
        (1usize..4, 1usize..4),
        (0usize..4, 0usize..4),
        channels(),
    )
        .prop_map(
            |((n, ih, iw, ic), (oh, ow, oc), kernel, stride, dilation, pad, channels)| Window {
                input: [n, ih, iw, ic],
                output: [n, oh, ow, oc],
                kernel,
                stride,
                dilation,
                pad,
                channels,
            },
        )
}

fn access() -> impl Strategy<Value = Access> {
    prop_oneof![
        Just(Access::Elementwise),
        (0usize..7).prop_map(|depth| Access::RowThenElement { depth }),
        (0usize..7, 0usize..7).prop_map(|(in_row, out_row)| Access::Rows { in_row, out_row }),
        (0usize..7, 0usize..7)
            .prop_map(|(in_row, out_row)| Access::RowsBuffered { in_row, out_row }),
        window().prop_map(Access::Window),
    ]
}

/// The elements of `a`'s shape (`None` for the families without one).
fn shape_elems(a: &Access, rows: usize) -> (usize, usize) {
    match *a {
        Access::Window(w) => (w.input.iter().product(), w.output.iter().product()),
        Access::Rows { in_row, out_row } | Access::RowsBuffered { in_row, out_row } => {
            (rows * in_row, rows * out_row)
        }
        Access::RowThenElement { depth } => (rows * depth, rows * depth),
        Access::Elementwise => (rows, rows),
    }
}

fn contract() -> impl Strategy<Value = Contract> {
    (
        access(),
        0usize..5,
        any::<bool>(),
        0usize..300,
        0usize..300,
        0usize..5,
        0usize..5,
        any::<bool>(),
    )
        .prop_map(|(access, rows, consistent, i, o, si, so, backward)| {
            let (in_e, out_e) = shape_elems(&access, rows);
            let (in_elems, out_elems) = if consistent { (in_e, out_e) } else { (i, o) };
            Contract {
                access,
                in_elems,
                out_elems,
                in_elem_bytes: si,
                out_elem_bytes: so,
                backward,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn closed_form_equals_the_walk(c in contract()) {
        prop_assert_eq!(c.safe_overlap(), c.safe_overlap_by_walk(), "{:?}", c);
    }

    #[test]
    fn one_direction_is_that_bound_of_both(c in contract()) {
        let both = c.safe_overlap();
        let f = c.safe_overlap_in(Direction::Forward);
        let b = c.safe_overlap_in(Direction::Backward);
        prop_assert_eq!(f.map(|s| s.forward_max), both.map(|s| s.forward_max), "{:?}", c);
        prop_assert_eq!(b.map(|s| s.backward_min), both.map(|s| s.backward_min), "{:?}", c);
        prop_assert_eq!(f.map(|s| s.backward_min), both.map(|_| None), "{:?}", c);
        prop_assert_eq!(b.map(|s| s.forward_max), both.map(|_| i64::MIN), "{:?}", c);
        let sizes = |s: Option<SafeOverlap>| s.map(|s| (s.in_bytes, s.out_bytes));
        prop_assert_eq!(sizes(f), sizes(both));
        prop_assert_eq!(sizes(b), sizes(both));
    }
}

/// The int8 contract of `w` as a kernel makes it: its shapes' element counts, both directions.
fn int8_window(w: Window) -> Contract {
    Contract {
        access: Access::Window(w),
        in_elems: w.input.iter().product(),
        out_elems: w.output.iter().product(),
        in_elem_bytes: 1,
        out_elem_bytes: 1,
        backward: true,
    }
}

/// Every contract of the shared models' overlapped pairs is covered by the random ones'
/// families; one large case as the kernels make it (person_detect's first depthwise layer,
/// 96×96×8 → 48×48×8, stride 2): equal too, and far from the walk's element count in cost.
#[test]
fn person_detect_depthwise_equals_the_walk() {
    let c = int8_window(Window {
        input: [1, 96, 96, 8],
        output: [1, 48, 48, 8],
        kernel: (3, 3),
        stride: (2, 2),
        dilation: (1, 1),
        pad: (0, 0),
        channels: Channels::Depthwise { multiplier: 1 },
    });
    assert_eq!(c.safe_overlap(), c.safe_overlap_by_walk());
}

/// An expanding 1×1 layer over two batches: the least forward term is the last row's (the
/// window's rows inside the input, affine, best at their end) of the last batch.
#[test]
fn expanding_rows_are_best_at_their_end() {
    let c = int8_window(Window {
        input: [2, 4, 1, 1],
        output: [2, 4, 1, 8],
        kernel: (1, 1),
        stride: (1, 1),
        dilation: (1, 1),
        pad: (0, 0),
        channels: Channels::Same,
    });
    assert_eq!(c.safe_overlap(), c.safe_overlap_by_walk());
}
