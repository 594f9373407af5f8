//! What the two main jobs (`person_detect`, `keyword_spotting`) share: where `../shared` is,
//! and whether two paths name one file.

use std::path::{Path, PathBuf};

/// `$SYNAPTIC_SHARED`, or `../shared` beside the repository.
pub fn shared_dir() -> PathBuf {
    std::env::var_os("SYNAPTIC_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"))
}

/// Whether `a` and `b` name the same file (canonical paths; the paths themselves if either
/// cannot be resolved).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}
