//! Build script: validates the Kconfig values from the environment and generates
//! `include/synaptic/syn_mem.h` with cbindgen.
//!
//! * `CONFIG_SYNAPTIC_TENSOR_ARENA_SIZE` (default 131072, 4096..=524288) and
//!   `CONFIG_SYNAPTIC_SCRATCH_POOL_SIZE` (default 16384, 1024..=65536, below the arena size):
//!   out-of-range or unparsable values fail the build. Defaults and ranges are synaptic_mem's
//!   own (`DEFAULT_*`, `ArenaConfig::validate`), which `tests.rs` checks against `Kconfig`. The effective values reach the Rust code
//!   as `SYN_MEM_CFG_*` and the header as `SYN_MEM_TENSOR_ARENA_SIZE` / `SYN_MEM_SCRATCH_POOL_SIZE`.
//! * The fresh header is always written to `$OUT_DIR/include/synaptic/syn_mem.h` (its path is
//!   passed to the crate as `SYN_MEM_GENERATED_HEADER`, used by the header-freshness test).
//! * `SYN_MEM_HEADER_DIR=/abs/dir` additionally writes it to `/abs/dir/synaptic/syn_mem.h`; this
//!   is how the committed copy is refreshed (`scripts/test-ffi.sh --update-header`) and how a
//!   build with non-default Kconfig values gets a header matching its library.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::exit;

/// A Kconfig option read from the environment; its default is the library's own
/// (`synaptic_mem`'s constants), and its range is checked by the library's own rule
/// (`ArenaConfig::validate`): nothing here restates either.
struct Knob {
    name: &'static str,
    default: u64,
}

const ARENA: Knob = Knob {
    name: "CONFIG_SYNAPTIC_TENSOR_ARENA_SIZE",
    default: synaptic_mem::DEFAULT_ARENA_SIZE as u64,
};
const SCRATCH: Knob = Knob {
    name: "CONFIG_SYNAPTIC_SCRATCH_POOL_SIZE",
    default: synaptic_mem::DEFAULT_SCRATCH_SIZE as u64,
};

fn fail(msg: &str) -> ! {
    eprintln!("error: synaptic-mem-ffi configuration: {msg}");
    println!("cargo:warning=synaptic-mem-ffi configuration: {msg}");
    exit(1);
}

fn read(knob: &Knob) -> u64 {
    println!("cargo:rerun-if-env-changed={}", knob.name);
    let raw = match env::var(knob.name) {
        Ok(v) if !v.trim().is_empty() => v,
        Ok(_) | Err(env::VarError::NotPresent) => return knob.default,
        Err(env::VarError::NotUnicode(_)) => fail(&format!("{} is not valid UTF-8", knob.name)),
    };
    let t = raw.trim();
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse::<u64>(),
    };
    parsed.unwrap_or_else(|_| {
        fail(&format!(
            "{}={raw:?} is not a number (a Kconfig int; see crates/synaptic-mem-ffi/Kconfig)",
            knob.name
        ))
    })
}

fn main() {
    let arena = read(&ARENA);
    let scratch = read(&SCRATCH);
    let cfg = synaptic_mem::ArenaConfig {
        arena_size: usize::try_from(arena).unwrap_or(usize::MAX),
        scratch_size: usize::try_from(scratch).unwrap_or(usize::MAX),
    };
    if let Err(e) = cfg.validate() {
        fail(&format!(
            "{}={arena}, {}={scratch}: {e} (ranges: crates/synaptic-mem-ffi/Kconfig)",
            ARENA.name, SCRATCH.name
        ));
    }
    println!("cargo:rustc-env=SYN_MEM_CFG_TENSOR_ARENA_SIZE={arena}");
    println!("cargo:rustc-env=SYN_MEM_CFG_SCRATCH_POOL_SIZE={scratch}");
    let is_default = arena == ARENA.default && scratch == SCRATCH.default;
    println!(
        "cargo:rustc-env=SYN_MEM_CFG_IS_DEFAULT={}",
        if is_default { "1" } else { "0" }
    );

    let crate_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    for p in ["build.rs", "cbindgen.toml", "src"] {
        println!("cargo:rerun-if-changed={}", crate_dir.join(p).display());
    }
    println!("cargo:rerun-if-env-changed=SYN_MEM_HEADER_DIR");

    let mut config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .unwrap_or_else(|e| fail(&format!("cbindgen.toml: {e}")));
    // The Kconfig macros, then cbindgen.toml's own `after_includes` (the plan types).
    config.after_includes = Some(format!(
        "\n/* Effective Kconfig values this library was built with. */\n\
         /** CONFIG_SYNAPTIC_TENSOR_ARENA_SIZE: size the buffer given to syn_mem_init() with it. */\n\
         #define SYN_MEM_TENSOR_ARENA_SIZE {arena}\n\
         /** CONFIG_SYNAPTIC_SCRATCH_POOL_SIZE: the scratch pool syn_mem_init() carves from the arena top. */\n\
         #define SYN_MEM_SCRATCH_POOL_SIZE {scratch}{}",
        config.after_includes.as_deref().unwrap_or("")
    ));
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(crate_dir.join("src/lib.rs"))
        .generate()
        .unwrap_or_else(|e| fail(&format!("cbindgen: {e}")));
    let mut text = Vec::new();
    bindings.write(&mut text);

    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    let generated = out_dir.join("include/synaptic/syn_mem.h");
    write_if_changed(&generated, &text);
    println!(
        "cargo:rustc-env=SYN_MEM_GENERATED_HEADER={}",
        generated.display()
    );

    if let Some(dir) = env::var_os("SYN_MEM_HEADER_DIR").filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        if !dir.is_absolute() {
            fail("SYN_MEM_HEADER_DIR must be an absolute path");
        }
        write_if_changed(&dir.join("synaptic/syn_mem.h"), &text);
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
