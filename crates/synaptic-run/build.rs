//! Sets `cfg(synaptic_dsp)` on builds with the Cortex-M DSP extension, where the kernels use
//! its SIMD multiply-accumulates (`src/dsp.rs`): Armv7E-M (`thumbv7em-*`, the Cortex-M4 and
//! M7), and Armv8-M Mainline (`thumbv8m.main-*`) built for a core that has it
//! (`-C target-cpu=cortex-m33`, ...). Stable Rust has no `target_feature` cfg for Arm's `dsp`
//! (it is unstable), so the target name and the rustc flags decide, by the rule of
//! `src/isa_rule.rs` (included here and in the crate: `Isa::of_build`; a unit test holds
//! `Isa::NATIVE` to it through `SYNAPTIC_TARGET` and `SYNAPTIC_RUSTFLAGS`); every other
//! build runs the portable paths. Sets `cfg(synaptic_v6m)` on Armv6-M (`thumbv6m-*`,
//! Cortex-M0/M0+), and `cfg(synaptic_mla)` on the Thumb-2 cores without the DSP extension
//! (Armv7-M `thumbv7m-*`, the Cortex-M3; a plain Armv8-M Mainline build), where a few loops
//! are `MLA` assembly (`src/mla.rs`).

include!("src/isa_rule.rs");

fn main() {
    println!("cargo:rustc-check-cfg=cfg(synaptic_dsp)");
    println!("cargo:rustc-check-cfg=cfg(synaptic_v6m)");
    println!("cargo:rustc-check-cfg=cfg(synaptic_mla)");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/isa_rule.rs");
    let target = std::env::var("TARGET").unwrap_or_default();
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    println!("cargo:rustc-env=SYNAPTIC_TARGET={target}");
    // (Printable: the separator as a space, which the rule also splits on.)
    println!(
        "cargo:rustc-env=SYNAPTIC_RUSTFLAGS={}",
        flags.replace('\x1f', " ")
    );
    if has_dsp(&target, &flags) {
        println!("cargo:rustc-cfg=synaptic_dsp");
    } else if target.starts_with("thumbv7m-") || target.starts_with("thumbv8m.main-") {
        println!("cargo:rustc-cfg=synaptic_mla");
    }
    // Armv6-M (Cortex-M0/M0+): no multiply-accumulate instruction and the smallest flash
    // parts (a micro:bit's 256 KB): kernels leave out paths that pay only with `MLA`/`SMLAD`.
    if target.starts_with("thumbv6m-") {
        println!("cargo:rustc-cfg=synaptic_v6m");
    }
}
