//! The benchmark adapters themselves: what the fragmentation run and the speed benches rely on.

use synaptic_benches::allocs::{Llff, SynapticPlanned, TensorAlloc, Tlsf};
use synaptic_benches::replay;
use synaptic_benches::trace::ModelTrace;
use synaptic_benches::trace::TensorSpec;
use synaptic_mem::{DType, Lifetime};

fn spec(bytes: u32) -> TensorSpec {
    TensorSpec {
        shape: [bytes, 1, 1, 1],
        ndim: 1,
        dtype: DType::Int8,
        bytes,
    }
}

/// The heaps' free-byte counts (the fragmentation run's "enough free memory" test) terminate
/// and track allocations and frees exactly. (TLSF's walk once ran past its pool, forever, when
/// given the buffer length instead of the pool length.)
#[test]
fn heap_free_bytes_track_allocations() {
    fn check<A: TensorAlloc>(mut a: A) {
        let empty = a.free_bytes();
        assert!(empty > 60_000 && empty <= 65_536, "{}: {empty}", A::NAME);
        let p = a.alloc(&spec(1000), Lifetime::Persistent).unwrap();
        let one = a.free_bytes();
        assert!(empty - one >= 32 + 1008, "{}: {empty} -> {one}", A::NAME);
        assert!(
            empty - one <= 32 + 1008 + 64,
            "{}: {empty} -> {one}",
            A::NAME
        );
        a.free(p, &spec(1000));
        assert_eq!(a.free_bytes(), empty, "{}", A::NAME);
        // Fill the heap, then the count says (nearly) nothing is left.
        let mut blocks = Vec::new();
        while let Some(p) = a.alloc(&spec(4000), Lifetime::Ephemeral) {
            blocks.push(p);
        }
        assert!(
            a.free_bytes() < 4032 + 64,
            "{}: {}",
            A::NAME,
            a.free_bytes()
        );
        for p in blocks {
            a.free(p, &spec(4000));
        }
        assert_eq!(a.free_bytes(), empty, "{}", A::NAME);
    }
    check(Tlsf::new(65_536));
    check(Llff::new(65_536));
}

/// The planned adapter keeps one plan per resident model: two models loaded side by side each
/// run on their own plan (the fragmentation run keeps two resident).
#[test]
fn planned_adapter_runs_two_resident_models() {
    let dir = synaptic_benches::trace::models_dir();
    if !dir.join("kws_ref_model.tflite").exists() {
        eprintln!("skipped: no shared models in {}", dir.display());
        return;
    }
    let a = ModelTrace::load("kws_ref_model").unwrap();
    let b = ModelTrace::load("micro_speech_quantized").unwrap();
    let mut s = SynapticPlanned::new(128 * 1024, 1024, 8192);
    let mut la = replay::load(&mut s, &a, replay::ignore);
    let mut lb = replay::load(&mut s, &b, replay::ignore);
    assert_eq!(la.failed + lb.failed, 0);
    for _ in 0..3 {
        for (t, l) in [(&a, &mut la), (&b, &mut lb)] {
            assert_eq!(
                replay::inference(&mut s, t, &mut l.slots, replay::ignore),
                0
            );
            // The inference used exactly its own plan's region.
            let st = s.arena().stats();
            assert_eq!(st.ephemeral_used, 0, "reset after the inference");
        }
    }
    let st = s.arena().stats();
    assert_eq!(
        st.ephemeral_peak as u64,
        a.plan_region_size.max(b.plan_region_size)
    );
    assert_eq!(st.failed_count, 0);
}
