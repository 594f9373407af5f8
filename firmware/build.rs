//! Build script:
//! * puts `memory.x` (the lm3s6965 memory map) on the linker search path;
//! * compiles the C parts with `arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -std=c11 -Wall
//!   -Wextra -Werror -O2`: `c/bench.c` (timed loops, the floor allocator) always, and with the
//!   `capi` feature the C API test file `c/test_capi.c` and the C API loops of `c/bench.c`,
//!   against `crates/synaptic-mem-ffi/include/synaptic/syn_mem.h`.

use std::env;
use std::fs;
use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    fs::copy("memory.x", out.join("memory.x")).expect("copy memory.x");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=memory.x");
    println!("cargo:rerun-if-changed=build.rs");

    let target = env::var("TARGET").unwrap_or_default();
    if !target.starts_with("thumbv7m") {
        // The C parts are built for the Cortex-M3 images only.
        return;
    }
    let capi = env::var_os("CARGO_FEATURE_CAPI").is_some();
    let mut build = cc::Build::new();
    build
        .compiler("arm-none-eabi-gcc")
        .archiver("arm-none-eabi-ar")
        .flag("-mcpu=cortex-m3")
        .flag("-mthumb")
        .flag("-std=c11")
        .flag("-Wall")
        .flag("-Wextra")
        .flag("-Werror")
        .opt_level(2)
        // cc forces frame pointers when the profile has debug info; the measured code must not.
        .force_frame_pointer(false)
        .file("c/bench.c");
    println!("cargo:rerun-if-changed=c/bench.c");
    if capi {
        let include = PathBuf::from("../crates/synaptic-mem-ffi/include");
        // The golden emitted plan (`synmem emit --lang c`) the C API test loads.
        let golden = PathBuf::from("../crates/synaptic-plan/tests/golden");
        build
            .define("SYNFW_CAPI", None)
            .include(&include)
            .include(&golden)
            .file("c/test_capi.c");
        println!("cargo:rerun-if-changed=c/test_capi.c");
        println!(
            "cargo:rerun-if-changed={}",
            golden.join("kws_ref_model_plan.h").display()
        );
        println!(
            "cargo:rerun-if-changed={}",
            include.join("synaptic/syn_mem.h").display()
        );
    }
    build.compile("synfw_c");
}
