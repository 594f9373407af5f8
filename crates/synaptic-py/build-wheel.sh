#!/usr/bin/env bash
# Builds the synaptic_mem wheel from the source tree (docs/python.md):
#   crates/synaptic-py/build-wheel.sh      # -> crates/synaptic-py/target/wheels/synaptic_mem-*.whl
#   pip install crates/synaptic-py/target/wheels/synaptic_mem-*.whl
# 1. a build venv with maturin (<repo>/.venv-python-build, git-ignored; made if missing);
# 2. the real `synmem` binary (cargo build --release -p synmem, root workspace), stripped, into
#    target/wheel-data/scripts: maturin ships it as <name>.data/scripts/synmem, which pip
#    installs as the `synmem` command of the venv;
# 3. `maturin build --release`: one abi3 wheel for every CPython >= 3.9 (pyproject.toml).
# Needs only the package registries (PyPI for maturin, crates.io for the crates). Prints the
# wheel's path on stdout, progress on stderr.
set -euo pipefail
crate="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$crate/../.." && pwd)"
say() { printf 'build-wheel: %s\n' "$*" >&2; }
maturin_spec="maturin==1.16.0"

build_venv="$root/.venv-python-build"
if ! "$build_venv/bin/maturin" --version 2>/dev/null | grep -q "${maturin_spec#maturin==}"; then
    say "creating $build_venv ($maturin_spec)"
    rm -rf "$build_venv"
    "$root/scripts/make-venv.sh" "$build_venv"
    "$build_venv/bin/pip" install --quiet --disable-pip-version-check "$maturin_spec" >&2
fi
export PYO3_PYTHON="$build_venv/bin/python"
export CARGO_TERM_COLOR=never

say "cargo build --release -p synmem (the console script shipped in the wheel)"
(cd "$root" && nice cargo build --release -p synmem -q) >&2
data="$crate/target/wheel-data/scripts"
rm -rf "$crate/target/wheel-data" && mkdir -p "$data"
strip -o "$data/synmem" "$root/target/release/synmem" 2>/dev/null || cp "$root/target/release/synmem" "$data/synmem"
chmod 755 "$data/synmem"

say "maturin build --release (one abi3 wheel, CPython >= 3.9)"
rm -rf "$crate/target/wheels"
(cd "$crate" && cargo fetch -q && nice "$build_venv/bin/maturin" build --release \
    --quiet -i "$build_venv/bin/python" -o target/wheels 2>&1 | grep -v '^\s*$' | tail -3) >&2
wheel="$(ls "$crate"/target/wheels/synaptic_mem-*-abi3-*.whl)"
say "built $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB)"
echo "$wheel"
