//! State across invocations (issue 20): the variable tensors of a streaming model (the SVDF
//! memories of `keyword_scrambled`, the hidden and cell state of the LSTMs) and the kernels'
//! private states (the signal library's delay lines, stacks, frames, sums) are PERSISTENT tensors set to their reset value at load,
//! carried from one inference to the next, and set back by `Interpreter::reset_state`, after
//! which the interpreter gives exactly what a freshly loaded one gives. Equality with TFLM over
//! 30 consecutive invocations is the oracle's (`tests/oracle.rs`, and without Python the golden
//! files `tests/golden.rs` checks).

mod common;

use common::arena::{self, OpData};
use common::Rng;
use synaptic_mem::{Arena, ArenaBuffer};
use synaptic_run::IoPlacement;

/// A shared model, or one of this crate's single-operator models (`signal_*`: the signal
/// library's stateful operators).
fn model(name: &str) -> Option<Vec<u8>> {
    let dir = if name.starts_with("signal_") {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/models")
    } else {
        common::shared().join("models")
    };
    std::fs::read(dir.join(format!("{name}.tflite"))).ok()
}

/// Ten seeded inputs of the model's input size.
fn inputs(n_bytes: usize, seed: u64) -> Vec<Vec<u8>> {
    let mut rng = Rng::new(seed);
    (0..10)
        .map(|_| (0..n_bytes).map(|_| rng.next_u64() as u8).collect())
        .collect()
}

#[test]
fn state_is_carried_reset_and_counted_in_the_persistent_region() {
    // Each streaming model and its variable tensors: one per SVDF, two per LSTM (hidden and
    // cell).
    for (name, n_states) in [
        ("keyword_scrambled", 7),
        ("keyword_scrambled_8bit", 7),
        ("trained_lstm_int8", 2),
        ("micro_speech_lstm", 2),
        ("dtln_noise_suppression", 4),
        ("trained_lstm", 2),
        // The audio front end: the spectral subtraction's noise estimate (kernel state).
        ("audio_preprocessor_int8", 1),
        ("audio_preprocessor_float", 1),
        // A kernel's private state (no tensor): SignalDelay's delay lines, SignalStacker's
        // stack, SignalFramer's buffers, SignalOverlapAdd's running sums.
        ("signal_delay_7_rows", 1),
        ("signal_delay_3_of_8", 1),
        ("signal_stacker_l1_r1_step2", 1),
        ("signal_framer_no_prefill", 1),
        ("signal_framer_prefill", 1),
        ("signal_overlap_add_f32", 1),
        ("signal_overlap_add_i16", 1),
    ] {
        let Some(bytes) = model(name) else { return };
        let private = name.starts_with("signal_");
        let io = IoPlacement::Plan;
        let words = arena::compiled(&bytes, io);
        let a = arena::analysis(&bytes, io);
        let want = arena::probe(&bytes, io, OpData::Flash);
        // The planner's figures are the runtime's: state and scratch pool included.
        assert_eq!(want.state as u64, a.report.ram.state_bytes, "{name}");
        assert_eq!(want.scratch as u64, a.report.ram.scratch_bytes, "{name}");
        assert_eq!(
            want.arena_bytes() as u64,
            a.report.ram.arena_bytes,
            "{name}"
        );
        assert!(
            want.state > 0 && (want.scratch > 0 || private),
            "{name}: {want:?}"
        );
        let mut buf = Box::new(ArenaBuffer::<65536>::new());
        // Poisoned: nothing may depend on what the arena held.
        let mut rng = Rng::new(7);
        buf.as_mut_slice()
            .iter_mut()
            .for_each(|b| *b = rng.next_u64() as u8);
        let size = want.arena_bytes();
        let mut arena = Arena::exact(&mut buf.as_mut_slice()[..size], 0).unwrap();
        let (loader, mut runner) = arena.split();
        let mut net = arena::load(
            &bytes,
            &words,
            loader,
            arena::run_plan(&a),
            io,
            OpData::Flash,
        )
        .unwrap();
        assert_eq!(net.memory(), want);
        assert_eq!(net.states(), n_states, "{name}");
        // At load every state holds its reset value (an int8 tensor its zero point).
        let fresh: Vec<Vec<u8>> = (0..net.states())
            .map(|k| net.state(k).unwrap().1.to_vec())
            .collect();
        assert!(net.state(net.states()).is_none());
        // A private state is no tensor; a variable tensor is one.
        for k in 0..net.states() {
            assert_eq!(
                net.state(k).unwrap().0.is_none(),
                private,
                "{name}: state {k}"
            );
        }
        let mut out = vec![0u8; net.output_bytes()];
        // Every operator output of an inference, in order.
        type Seen = Vec<(usize, usize, Vec<u8>)>;
        for seed in [1, 2, 3] {
            let runs = inputs(net.input_bytes(), seed);
            let mut first = Vec::new();
            let mut first_seen: Vec<Seen> = Vec::new();
            for x in &runs {
                let mut seen = Seen::new();
                net.invoke_observed(&mut runner, Some(x), Some(&mut out), &mut |op, t, b| {
                    seen.push((op, t, b.to_vec()))
                })
                .unwrap();
                first.push(out.clone());
                first_seen.push(seen);
            }
            let states_now: Vec<Vec<u8>> = (0..net.states())
                .map(|k| net.state(k).unwrap().1.to_vec())
                .collect();
            assert_ne!(states_now, fresh, "{name}: the state never changed");
            // After a reset: the first sequence's outputs again, as from a fresh load.
            net.reset_state();
            for (k, f) in fresh.iter().enumerate() {
                assert_eq!(net.state(k).unwrap().1, &f[..], "{name}: state {k}");
            }
            // After a reset: every intermediate tensor of the sequence again, as from a
            // fresh load (the first sequence's were TFLM's: tests/oracle.rs, golden files).
            for ((x, want), want_seen) in runs.iter().zip(&first).zip(&first_seen) {
                let mut seen = Seen::new();
                net.invoke_observed(&mut runner, Some(x), Some(&mut out), &mut |op, t, b| {
                    seen.push((op, t, b.to_vec()))
                })
                .unwrap();
                assert_eq!(&out, want, "{name} seed {seed}: after reset_state");
                assert!(
                    &seen == want_seen,
                    "{name} seed {seed}: an intermediate tensor differs after reset_state"
                );
            }
            net.reset_state();
        }
        // A fresh interpreter on a fresh arena gives the same first sequence.
        let runs = inputs(net.input_bytes(), 1);
        let mut buf2 = Box::new(ArenaBuffer::<65536>::new());
        let mut arena2 = Arena::exact(&mut buf2.as_mut_slice()[..size], 0).unwrap();
        let (loader2, mut runner2) = arena2.split();
        let mut fresh_net = arena::load(
            &bytes,
            &words,
            loader2,
            arena::run_plan(&a),
            io,
            OpData::Flash,
        )
        .unwrap();
        let mut out2 = vec![0u8; out.len()];
        for x in &runs {
            net.invoke(&mut runner, x, &mut out).unwrap();
            fresh_net.invoke(&mut runner2, x, &mut out2).unwrap();
            assert_eq!(out, out2, "{name}: reset interpreter against a fresh one");
        }
    }
}

/// CIRCULAR_BUFFER (a private state: its window and the invocations since the last complete
/// one): due every other invocation, it stops the others after writing its window
/// (`RunError::Aborted`, TFLM's `kTfLiteAbort`: the wheel's `invoke()` returns 15, 0, 15, 0,
/// 15 on this model), the caller's output buffer then as it was; the window slides one row an
/// invocation either way; a state reset starts the count and the window again.
#[test]
fn circular_buffer_stops_the_inferences_it_is_not_due() {
    let Some(bytes) = model("circular_buffer_every_other") else {
        return;
    };
    let io = IoPlacement::Plan;
    let a = arena::analysis(&bytes, io);
    let want = arena::probe(&bytes, io, OpData::Ram);
    assert_eq!(want.state as u64, a.report.ram.state_bytes);
    let mut buf = Box::new(ArenaBuffer::<16384>::new());
    let mut arena = Arena::exact(&mut buf.as_mut_slice()[..want.arena_bytes()], 0).unwrap();
    let (loader, mut runner) = arena.split();
    let mut net = synaptic_run::Interpreter::new(&bytes, loader, arena::run_plan(&a), io).unwrap();
    // Input [1, 1, 2, 3], window [1, 2, 2, 3]: rows of 6 bytes.
    let row = |k: u8| [k; 6];
    macro_rules! run {
        ($net:expr, $k:expr) => {{
            let mut out = [0xA5u8; 12];
            let r = $net.invoke(&mut runner, &row($k), &mut out);
            (r, out)
        }};
    }
    for pass in 0..2 {
        let (r, out) = run!(net, 1);
        assert!(
            matches!(r, Err(synaptic_run::RunError::Aborted { op: 0 })),
            "{pass}: {r:?}"
        );
        assert_eq!(out, [0xA5; 12], "an aborted inference writes no output");
        let (r, out) = run!(net, 2);
        assert_eq!(r, Ok(()));
        assert_eq!(out, [1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2]);
        let (r, _) = run!(net, 3);
        assert!(matches!(r, Err(synaptic_run::RunError::Aborted { op: 0 })));
        let (r, out) = run!(net, 4);
        assert_eq!(r, Ok(()));
        assert_eq!(out, [3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4]);
        // Back to the state at load: aborting first again, the window from zeros.
        net.reset_state();
    }
}
