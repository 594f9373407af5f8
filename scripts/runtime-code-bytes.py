#!/usr/bin/env python3
"""The runtime's code in a firmware image (scripts/bench-runtime.sh's `flash` line).

    runtime-code-bytes.py ELF MODEL

Sums the sizes of the image's code symbols (`nm` types t/T/w/W, demangled) except the board
support: the firmware crate (`synaptic_fw_runtime::`, the `MODEL::` binary), cortex-m,
cortex-m-rt and cortex-m-semihosting, the vector handlers and `main`, and the panic handler.
What remains is the runtime (synaptic-run, -tflite, -mem) with the core library and compiler
intrinsics it pulls in; the model, the program and every other constant are data, not counted.
`runtime_symbols` is that selection, for scripts/code-by-module.py too.
"""
import subprocess
import sys

BOARD_EXACT = {"main", "Reset", "SysTick", "DefaultHandler_", "DefaultPreInit", "HardFault_", "__pre_init"}


def runtime_symbols(elf, model):
    """(size, demangled name) of every runtime code symbol of `elf`, the board's left out."""
    board = (
        "synaptic_fw_runtime::",
        model + "::",
        "cortex_m",
        "<cortex_m",
        "__rustc::rust_begin_unwind",
    )
    out = subprocess.run(
        ["arm-none-eabi-nm", "-S", "-C", "--defined-only", elf], capture_output=True, text=True, check=True
    ).stdout
    for line in out.splitlines():
        f = line.split(None, 3)
        if len(f) < 4 or f[2] not in "tTwW":
            continue
        name = f[3]
        if name in BOARD_EXACT or name.startswith(board):
            continue
        yield int(f[1], 16), name


if __name__ == "__main__":
    print(sum(size for size, _ in runtime_symbols(sys.argv[1], sys.argv[2])))
