//! Malformed, truncated and hostile inputs: always an error or a valid result, never a panic.

mod common;

use proptest::prelude::*;
use synaptic_plan::{allocation_sequence, Analysis, ImportError, Model, SizingOptions};

/// Imports and, if that succeeds, analyses and derives the allocation sequence; checks the
/// error (if any) prints on one line. Panics propagate and fail the test.
fn exercise(bytes: &[u8]) -> Result<(), ImportError> {
    let result = Model::from_bytes(bytes).and_then(|m| {
        let a = Analysis::new(m.clone(), &SizingOptions::default())?;
        a.activation_plan.check().expect("valid plan");
        assert_eq!(
            a.ephemeral_plan
                .core_plan()
                .validate_overlapped(&a.ephemeral_plan.overlaps),
            Ok(())
        );
        allocation_sequence(m, &SizingOptions::default()).map(|_| ())
    });
    if let Err(e) = &result {
        let s = e.to_string();
        assert!(
            !s.contains('\n') && !s.is_empty(),
            "multi-line error: {s:?}"
        );
    }
    result
}

#[test]
fn truncations_of_every_model_are_errors() {
    let Some(dir) = common::models_dir() else {
        return;
    };
    for path in common::model_paths(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        exercise(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let n = bytes.len();
        // Every short prefix, then ~150 evenly spaced cut points, then the last bytes.
        let mut cuts: Vec<usize> = (0..64.min(n)).collect();
        cuts.extend((1..150).map(|k| n * k / 150));
        cuts.extend(n.saturating_sub(32)..n);
        for cut in cuts {
            // The verifier may accept a cut that only drops trailing padding; anything else
            // must be an error.
            let _ = exercise(&bytes[..cut]);
        }
        assert!(
            exercise(&bytes[..n / 2]).is_err(),
            "{}: half a file accepted",
            path.display()
        );
    }
}

#[test]
fn bit_flips_of_every_model_never_panic() {
    let Some(dir) = common::models_dir() else {
        return;
    };
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut ok, mut err) = (0, 0);
    for path in common::model_paths(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        // Flatbuffer metadata is mostly near the start and the end (tables), data in between:
        // flip bits anywhere, and more often in the first and last 4 KiB.
        for k in 0..common::cases(300) {
            let mut b = bytes.clone();
            let n = b.len();
            let flips = 1 + (next() % 4) as usize;
            for _ in 0..flips {
                let r = next() as usize;
                let pos = match k % 3 {
                    0 => r % n,
                    1 => r % n.min(4096),
                    _ => n - 1 - r % n.min(4096),
                };
                b[pos] ^= 1 << (next() % 8);
            }
            match exercise(&b) {
                Ok(()) => ok += 1,
                Err(_) => err += 1,
            }
        }
    }
    println!("bit flips: {ok} still valid, {err} rejected");
    assert!(err > 0);
}

#[test]
fn hand_made_hostile_headers() {
    // Root offset pointing past the end, to itself, and a vtable loop.
    for bytes in [
        b"\xff\xff\xff\x7fTFL3".to_vec(),
        b"\x00\x00\x00\x00TFL3\x00\x00\x00\x00".to_vec(),
        {
            let mut v = vec![0u8; 64];
            v[..4].copy_from_slice(&8u32.to_le_bytes());
            v[4..8].copy_from_slice(b"TFL3");
            v[8..12].copy_from_slice(&(-8i32).to_le_bytes());
            v
        },
    ] {
        let e = exercise(&bytes).unwrap_err();
        assert!(e.to_string().contains("tflite"), "{e}");
    }
    assert!(matches!(
        Model::from_bytes(b"abc"),
        Err(ImportError::Truncated { len: 3 })
    ));
    assert!(matches!(
        Model::from_bytes(b"\0\0\0\0ABCD\0\0\0\0"),
        Err(ImportError::NotTflite { .. })
    ));
    let e = Model::from_file("/nonexistent/x.tflite").unwrap_err();
    assert!(matches!(e, ImportError::Io { .. }));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = exercise(&bytes);
    }

    #[test]
    fn random_bytes_with_identifier_never_panic(
        root in 0u32..600,
        mut bytes in proptest::collection::vec(any::<u8>(), 8..512),
    ) {
        bytes[..4].copy_from_slice(&root.to_le_bytes());
        bytes[4..8].copy_from_slice(b"TFL3");
        let _ = exercise(&bytes);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() })]
    /// Random byte edits of a real model (structure mostly intact, so deep paths are reached).
    #[test]
    fn edited_real_model_never_panics(edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8)) {
        let Some(dir) = common::models_dir() else { return Ok(()) };
        let mut bytes = std::fs::read(dir.join("trained_lstm_int8.tflite")).unwrap();
        let n = bytes.len();
        for (pos, val) in edits {
            // Bias towards the metadata at the end of the file, where the tables are.
            let pos = if pos % 2 == 0 { pos % n } else { n - 1 - pos % n.min(2048) };
            bytes[pos] = val;
        }
        let _ = exercise(&bytes);
    }
}
