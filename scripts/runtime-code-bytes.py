#!/usr/bin/env python3
"""The runtime's code in a firmware image (scripts/bench-runtime.sh's `flash` line).

    runtime-code-bytes.py ELF MODEL

Sums the sizes of the image's code symbols (`nm` types t/T/w/W, demangled) except the board
support: the firmware crate (`synaptic_fw_runtime::`, the `MODEL::` binary), cortex-m,
cortex-m-rt and cortex-m-semihosting, the vector handlers and `main`, and the panic handler.
What remains is the runtime (synaptic-run, -tflite, -mem) with the core library and compiler
intrinsics it pulls in; the model, the program and every other constant are data, not counted.
"""
import subprocess
import sys

elf, model = sys.argv[1], sys.argv[2]
BOARD = (
    "synaptic_fw_runtime::",
    model + "::",
    "cortex_m",
    "<cortex_m",
    "__rustc::rust_begin_unwind",
)
BOARD_EXACT = {"main", "Reset", "SysTick", "DefaultHandler_", "DefaultPreInit", "HardFault_", "__pre_init"}
out = subprocess.run(
    ["arm-none-eabi-nm", "-S", "-C", "--defined-only", elf], capture_output=True, text=True, check=True
).stdout
total = 0
for line in out.splitlines():
    f = line.split(None, 3)
    if len(f) < 4 or f[2] not in "tTwW":
        continue
    name = f[3]
    if name in BOARD_EXACT or name.startswith(BOARD):
        continue
    total += int(f[1], 16)
print(total)
