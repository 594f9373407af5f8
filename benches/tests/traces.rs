//! The traces (from synaptic-plan's allocation sequence) match the shared models' reference lifetimes (`../shared/models/lifetimes`).

use synaptic_benches::trace::{models_dir, ModelTrace};

#[test]
fn activations_match_reference_lifetimes() {
    for name in [
        "person_detect",
        "kws_ref_model",
        "micro_speech_quantized",
        "pretrainedResnet_quant",
        "trained_lstm_int8",
        "hello_world_int8",
    ] {
        let t = ModelTrace::load(name).unwrap();
        let csv = std::fs::read_to_string(models_dir().join(format!("lifetimes/{name}.csv")))
            .expect("reference lifetimes missing");
        // Reference rows: every non-constant tensor; scopes count operators from 1.
        let mut reference: Vec<(u32, u32, u32)> = csv
            .lines()
            .skip(1)
            .map(|l| {
                let f: Vec<&str> = l.rsplitn(4, ',').collect();
                (
                    f[2].parse().unwrap(),
                    f[1].parse().unwrap(),
                    f[0].parse().unwrap(),
                )
            })
            .collect();
        let ours: Vec<(u32, u32, u32)> = t
            .activations
            .iter()
            .map(|a| (a.spec.bytes, a.first_op + 1, a.last_op + 1))
            .collect();
        // Our activations exclude graph I/O (shared) and variables (persistent).
        for a in &ours {
            let pos = reference.iter().position(|r| r == a);
            assert!(pos.is_some(), "{name}: activation {a:?} not in reference");
            reference.remove(pos.unwrap());
        }
        // What is left are the graph inputs and outputs (the shared I/O tensors).
        assert_eq!(
            reference.len(),
            t.shared.len(),
            "{name}: unmatched reference rows {reference:?}"
        );
    }
}
