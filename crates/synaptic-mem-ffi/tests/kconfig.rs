//! The Kconfig file (`crates/synaptic-mem-ffi/Kconfig`, which the Zephyr module sources
//! unchanged) states the library's own defaults and ranges: each option's `default` and
//! `range` equal `synaptic_mem`'s constants, the one place the rule lives (`ArenaConfig`), so
//! the Kconfig menu, the build script and the core cannot drift apart.

use std::collections::HashMap;

/// `(default, min, max)` of every `config` entry of the Kconfig text.
fn options(kconfig: &str) -> HashMap<String, (u64, u64, u64)> {
    let mut out = HashMap::new();
    let mut name: Option<String> = None;
    let (mut default, mut range) = (None, None);
    let mut flush = |name: &mut Option<String>,
                     default: &mut Option<u64>,
                     range: &mut Option<(u64, u64)>| {
        if let (Some(n), Some(d), Some((lo, hi))) = (name.take(), default.take(), range.take()) {
            out.insert(n, (d, lo, hi));
        }
    };
    for line in kconfig.lines().map(str::trim) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["config", n] => {
                flush(&mut name, &mut default, &mut range);
                name = Some(n.to_string());
            }
            ["default", d] => default = d.parse().ok(),
            ["range", lo, hi] => range = lo.parse().ok().zip(hi.parse().ok()),
            _ => {}
        }
    }
    flush(&mut name, &mut default, &mut range);
    out
}

#[test]
fn kconfig_states_the_librarys_defaults_and_ranges() {
    let text = include_str!("../Kconfig");
    let o = options(text);
    assert_eq!(
        o.get("SYNAPTIC_TENSOR_ARENA_SIZE"),
        Some(&(
            synaptic_mem::DEFAULT_ARENA_SIZE as u64,
            synaptic_mem::MIN_ARENA_SIZE as u64,
            synaptic_mem::MAX_ARENA_SIZE as u64
        )),
        "Kconfig's SYNAPTIC_TENSOR_ARENA_SIZE differs from synaptic_mem's constants"
    );
    assert_eq!(
        o.get("SYNAPTIC_SCRATCH_POOL_SIZE"),
        Some(&(
            synaptic_mem::DEFAULT_SCRATCH_SIZE as u64,
            synaptic_mem::MIN_SCRATCH_SIZE as u64,
            synaptic_mem::MAX_SCRATCH_SIZE as u64
        )),
        "Kconfig's SYNAPTIC_SCRATCH_POOL_SIZE differs from synaptic_mem's constants"
    );
    // The defaults are a valid configuration by the library's rule.
    assert!(synaptic_mem::ArenaConfig::DEFAULT.validate().is_ok());
}

#[test]
fn a_changed_kconfig_range_is_caught() {
    let changed = include_str!("../Kconfig").replace("range 4096 524288", "range 2048 524288");
    assert_ne!(
        options(&changed)
            .get("SYNAPTIC_TENSOR_ARENA_SIZE")
            .map(|o| o.1),
        Some(synaptic_mem::MIN_ARENA_SIZE as u64)
    );
}
