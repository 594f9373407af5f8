#!/usr/bin/env bash
# Sourced by the Zephyr scripts: installs what a Zephyr build needs if missing (apt: cmake,
# ninja, dtc, gperf, the Arm GCC and newlib, QEMU; a Python venv <repo>/.venv-zephyr with
# Zephyr's build-time packages; the rustup targets of the boards) and exports the variables
# ../shared/zephyr/README.md gives: ZEPHYR_BASE, ZEPHYR_TOOLCHAIN_VARIANT=gnuarmemb,
# GNUARMEMB_TOOLCHAIN_PATH, ZEPHYR_MODULES (CMSIS 6, picolibc) and PATH (the venv first).
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
Z=$(cd "${SYNAPTIC_ZEPHYR_TREE:-$root/../shared/zephyr}" && pwd)
need=()
for p in cmake:cmake ninja:ninja-build dtc:device-tree-compiler gperf:gperf \
    arm-none-eabi-gcc:gcc-arm-none-eabi qemu-system-arm:qemu-system-arm; do
    command -v "${p%%:*}" >/dev/null || need+=("${p#*:}")
done
[ -e /usr/lib/arm-none-eabi/newlib ] || [ -e /usr/lib/arm-none-eabi/lib ] || need+=(libnewlib-arm-none-eabi)
if [ ${#need[@]} -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
venv="$root/.venv-zephyr"
if ! "$venv/bin/python" -c 'import elftools, yaml, pykwalify, jsonschema, packaging, anytree' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q pyelftools PyYAML pykwalify jsonschema packaging anytree
fi
rustup target add thumbv7m-none-eabi thumbv7em-none-eabihf >/dev/null 2>&1 || true
export PATH="$venv/bin:$PATH"
export ZEPHYR_BASE=$Z/zephyr ZEPHYR_TOOLCHAIN_VARIANT=gnuarmemb GNUARMEMB_TOOLCHAIN_PATH=/usr
export ZEPHYR_MODULES="$Z/modules/cmsis_6;$Z/modules/picolibc"
