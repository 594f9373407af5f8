//! The fragmentation run's claim, on a shortened run of the same workload (the first 60,000 of
//! its 1,000,000 cycles, same seed): synaptic-mem never fails an allocation, and both heaps
//! fail allocations they had the free memory for (LLFF first at cycle 56,791).

use std::process::Command;

#[test]
fn heaps_fragment_synaptic_mem_does_not() {
    if !synaptic_benches::trace::models_dir()
        .join("kws_ref_model_float32.tflite")
        .exists()
    {
        eprintln!("skipped: the shared models are missing");
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_frag"))
        .args(["--cycles", "60000"])
        .output()
        .expect("frag runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let line = |name: &str| -> (u64, Option<u64>) {
        let l = stdout
            .lines()
            .find(|l| l.starts_with(&format!("frag {name} ")))
            .unwrap_or_else(|| panic!("no line for {name} in:\n{stdout}"));
        let f: Vec<&str> = l.split_whitespace().collect();
        assert_eq!(f.len(), 4, "{l}");
        (f[2].parse().unwrap(), f[3].parse().ok())
    };
    assert_eq!(line("synaptic-mem"), (0, None));
    let (tlsf, tlsf_first) = line("rlsf-tlsf");
    assert!(tlsf > 0 && tlsf_first.is_some(), "{stdout}");
    assert_eq!(line("llff").1, Some(56_791), "{stdout}");
    assert!(line("llff").0 > 0);
    // And synaptic-mem failed nothing at all, not only nothing "with room".
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("synaptic-mem: 0 failed allocations in all"),
        "{stderr}"
    );
}
