#!/usr/bin/env bash
# Creates the Python venv DIR (python3 -m venv), installing Debian's python3-venv first if
# python3 cannot make one (Debian splits venv/ensurepip out of python3). The one place the
# scripts make their venvs (oracle-venv.sh, crates/synaptic-py/build-wheel.sh, test-python.sh).
#   scripts/make-venv.sh DIR
set -euo pipefail
dir=${1:?usage: make-venv.sh DIR}
if ! python3 -m venv "$dir" >/dev/null 2>&1; then
    rm -rf "$dir"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >&2 \
        || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >&2; }
    python3 -m venv "$dir"
fi
