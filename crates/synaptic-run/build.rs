//! Sets `cfg(synaptic_dsp)` on targets with the Cortex-M DSP extension (Armv7E-M:
//! `thumbv7em-*`, the Cortex-M4 and M7), where the kernels use its SIMD multiply-accumulates
//! (`src/dsp.rs`). Stable Rust has no `target_feature` cfg for Arm's `dsp` (it is unstable),
//! so the target name decides (the rule of `Isa::of_target`, which a unit test holds to this
//! one through `SYNAPTIC_TARGET`); every other target builds the portable paths. Sets
//! `cfg(synaptic_v6m)` on Armv6-M (`thumbv6m-*`, Cortex-M0/M0+).
fn main() {
    println!("cargo:rustc-check-cfg=cfg(synaptic_dsp)");
    println!("cargo:rustc-check-cfg=cfg(synaptic_v6m)");
    println!("cargo:rerun-if-changed=build.rs");
    let target = std::env::var("TARGET").unwrap_or_default();
    println!("cargo:rustc-env=SYNAPTIC_TARGET={target}");
    if target.starts_with("thumbv7em-") {
        println!("cargo:rustc-cfg=synaptic_dsp");
    }
    // Armv6-M (Cortex-M0/M0+): no multiply-accumulate instruction and the smallest flash
    // parts (a micro:bit's 256 KB): kernels leave out paths that pay only with `MLA`/`SMLAD`.
    if target.starts_with("thumbv6m-") {
        println!("cargo:rustc-cfg=synaptic_v6m");
    }
}
