//! Build script: generates `include/synaptic/syn_run.h` with cbindgen (as synaptic-mem-ffi's
//! build script does for `syn_mem.h`).
//!
//! * The fresh header is always written to `$OUT_DIR/include/synaptic/syn_run.h` (its path is
//!   passed to the crate as `SYN_RUN_GENERATED_HEADER`, used by the header-freshness test).
//! * `SYN_RUN_HEADER_DIR=/abs/dir` additionally writes it to `/abs/dir/synaptic/syn_run.h`: how
//!   the committed copy is refreshed (`scripts/test-ffi.sh --update-header`).
//!
//! It also writes `$OUT_DIR/op_set.rs`, the operators the library links
//! (`SYNAPTIC_RUN_OPS`: TFLite operator names separated by commas or spaces, such as
//! `FULLY_CONNECTED,QUANTIZE`; unset or empty: every operator this build has), as an
//! `OpSet::KINDS` mask from the runtime's list (`synaptic_run::ops::kinds_of`). A model that
//! needs another operator is refused at load (`NotLinked`); the others' code is not linked.
//! Likewise `$OUT_DIR/op_paths.rs`, the kernels' paths it links (`SYNAPTIC_RUN_PATHS`: names
//! of `synaptic_run::ops::paths::NAMES`, such as `FC_FOLDED`; unset or empty: every path), as
//! an `OpSet::PATHS` mask: `synmem emit --lang c` writes a model's as `<MODEL>_OPS` and
//! `<MODEL>_PATHS`.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::exit;

fn fail(msg: &str) -> ! {
    eprintln!("error: synaptic-run-ffi: {msg}");
    println!("cargo:warning=synaptic-run-ffi: {msg}");
    exit(1);
}

fn main() {
    let crate_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    for p in ["build.rs", "cbindgen.toml", "src"] {
        println!("cargo:rerun-if-changed={}", crate_dir.join(p).display());
    }
    println!("cargo:rerun-if-env-changed=SYN_RUN_HEADER_DIR");
    println!("cargo:rerun-if-env-changed=SYNAPTIC_RUN_OPS");
    let ops = env::var("SYNAPTIC_RUN_OPS").unwrap_or_default();
    let mut kinds = synaptic_run::ops::Kinds::NONE;
    for name in ops.split([',', ' ', '\t', '\n']).filter(|n| !n.is_empty()) {
        kinds |= synaptic_run::ops::kinds_of(name).unwrap_or_else(|| {
            fail(&format!(
                "SYNAPTIC_RUN_OPS: {name:?} is not an operator the runtime implements (TFLite's \
                 builtin names, or TFLM's signal library's custom codes)"
            ))
        });
    }
    if kinds.is_empty() {
        kinds = synaptic_run::ops::Kinds::ALL;
    }
    println!("cargo:rerun-if-env-changed=SYNAPTIC_RUN_PATHS");
    let names = env::var("SYNAPTIC_RUN_PATHS").unwrap_or_default();
    let mut paths = 0u64;
    for name in names
        .split([',', ' ', '\t', '\n'])
        .filter(|n| !n.is_empty())
    {
        paths |= synaptic_run::ops::paths::of_name(name).unwrap_or_else(|| {
            fail(&format!(
                "SYNAPTIC_RUN_PATHS: {name:?} is not a kernel path (synaptic_run::ops::paths::NAMES: \
                 what `synmem emit --lang c` writes as the model's <MODEL>_PATHS)"
            ))
        });
    }
    if paths == 0 {
        paths = u64::MAX;
    }
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    write_if_changed(
        &out_dir.join("op_set.rs"),
        format!("synaptic_run::ops::{kinds}\n").as_bytes(),
    );
    write_if_changed(
        &out_dir.join("op_paths.rs"),
        format!("{paths:#x}\n").as_bytes(),
    );

    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .unwrap_or_else(|e| fail(&format!("cbindgen.toml: {e}")));
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(crate_dir.join("src/lib.rs"))
        .generate()
        .unwrap_or_else(|e| fail(&format!("cbindgen: {e}")));
    let mut text = Vec::new();
    bindings.write(&mut text);

    let generated = out_dir.join("include/synaptic/syn_run.h");
    write_if_changed(&generated, &text);
    println!(
        "cargo:rustc-env=SYN_RUN_GENERATED_HEADER={}",
        generated.display()
    );
    if let Some(dir) = env::var_os("SYN_RUN_HEADER_DIR").filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        if !dir.is_absolute() {
            fail("SYN_RUN_HEADER_DIR must be an absolute path");
        }
        write_if_changed(&dir.join("synaptic/syn_run.h"), &text);
    }
}

fn write_if_changed(path: &Path, text: &[u8]) {
    if fs::read(path).ok().as_deref() == Some(text) {
        return;
    }
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)
            .unwrap_or_else(|e| fail(&format!("creating {}: {e}", parent.display())));
    }
    fs::write(path, text).unwrap_or_else(|e| fail(&format!("writing {}: {e}", path.display())));
}
