// The one rule of which builds have the DSP extension's SIMD multiply-accumulates: this file
// is a module of the crate (`Isa::of_build`) and is `include!`d by its build script (which
// sets `cfg(synaptic_dsp)` by it), so the kernels' ISA and the ISA a host compiles a
// firmware's program for cannot disagree. Plain `core` string code: no_std and build script.

/// Whether a build for Rust target `triple` with rustc flags `rustflags` (Cargo's
/// `CARGO_ENCODED_RUSTFLAGS`: flags separated by `\x1f`; spaces also separate) has the
/// Cortex-M DSP extension: every Armv7E-M target (`thumbv7em-*`: Cortex-M4, M7); an
/// Armv8-M Mainline target (`thumbv8m.main-*`) when the flags name a core that has it
/// (`target-cpu=cortex-m33`, `cortex-m35p`, `cortex-m55`, `cortex-m85`) or the feature itself
/// (`target-feature=+dsp`; `-dsp` turns it off). The extension is optional on the M33 and
/// M35P, so a plain `thumbv8m.main-*` build (no flags) keeps the portable paths.
pub(crate) fn has_dsp(triple: &str, rustflags: &str) -> bool {
    if triple.starts_with("thumbv7em-") {
        return true;
    }
    if !triple.starts_with("thumbv8m.main-") {
        return false;
    }
    let (mut cpu, mut feature) = (false, None);
    for flag in rustflags.split(['\x1f', ' ']) {
        let flag = flag.strip_prefix("-C").unwrap_or(flag);
        if let Some(c) = flag.strip_prefix("target-cpu=") {
            cpu = matches!(
                c,
                "cortex-m33" | "cortex-m35p" | "cortex-m55" | "cortex-m85"
            );
        } else if let Some(fs) = flag.strip_prefix("target-feature=") {
            for f in fs.split(',') {
                match f {
                    "+dsp" => feature = Some(true),
                    "-dsp" => feature = Some(false),
                    _ => {}
                }
            }
        }
    }
    feature.unwrap_or(cpu)
}
