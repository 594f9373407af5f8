//! Any bytes: an error or a model whose every accessor answers, never a panic.

use proptest::prelude::*;
use synaptic_tflite::Model;

/// Opens `bytes` and, if that succeeds, reads everything a user reads (options included).
fn exercise(bytes: &[u8]) {
    let Ok(m) = Model::new(bytes) else { return };
    for s in 0..m.subgraphs_len().unwrap() {
        let sg = m.subgraph(s).unwrap();
        for t in 0..sg.tensors_len().unwrap() {
            let t = sg.tensor(t).unwrap();
            let _ = t.tensor_type();
            let _ = m.tensor_data(&t);
            if let Some(q) = t.quantization().unwrap() {
                let s = q.scales().unwrap();
                let _ = s.get(s.len().saturating_sub(1));
            }
        }
        for o in 0..sg.operators_len().unwrap() {
            let op = sg.operator(o).unwrap();
            let _ = m.operator_code(op.opcode_index().unwrap() as usize);
            let _ = op.conv2d_options();
            let _ = op.depthwise_conv2d_options();
            let _ = op.fully_connected_options();
            let _ = op.pool2d_options();
            let _ = op.softmax_beta();
            let _ = op.concatenation_options();
            let _ = op.reshape_new_shape();
            let _ = op.squeeze_dims();
            let _ = op.reducer_keep_dims();
        }
    }
}

fn shared_models() -> Vec<Vec<u8>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/models");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut v: Vec<_> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "tflite"))
        .collect();
    v.sort();
    v.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

#[test]
fn shared_models_open_and_truncations_never_panic() {
    for bytes in shared_models() {
        Model::new(&bytes).expect("a shared model opens");
        exercise(&bytes);
        let n = bytes.len();
        for k in 0..200 {
            exercise(&bytes[..n * k / 200]);
        }
        assert!(Model::new(&bytes[..n / 2]).is_err(), "half a model opened");
    }
}

#[test]
fn bit_flips_never_panic() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for bytes in shared_models() {
        for _ in 0..300 {
            let mut b = bytes.clone();
            let n = b.len();
            for _ in 0..3 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let pos = if state % 2 == 0 {
                    (state >> 8) as usize % n
                } else {
                    n - 1 - (state >> 8) as usize % n.min(4096)
                };
                b[pos] ^= 1 << (state % 8);
            }
            exercise(&b);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn random_bytes_never_panic(root in 0u32..600, mut bytes in proptest::collection::vec(any::<u8>(), 8..600)) {
        bytes[..4].copy_from_slice(&root.to_le_bytes());
        bytes[4..8].copy_from_slice(b"TFL3");
        exercise(&bytes);
    }
}
