#!/usr/bin/env python3
"""Code size of the tensor arena in a firmware image (thumbv7m, release, fat LTO).

    python3 firmware/size-report.py firmware/target/thumbv7m-none-eabi/release/tests

Lists (from `arm-none-eabi-nm --size-sort -S -C`) the C API entry points `syn_mem_*` (each
with the core code LTO inlined into it) and the core's out-of-line functions
(`synaptic_mem::*`, `synaptic_mem_ffi::*`), grouped into the allocation hot paths and the rest,
then `arm-none-eabi-size -A` of the image's sections.
"""
import subprocess
import sys

HOT = {"syn_mem_tensor_alloc", "syn_mem_scratch_acquire", "syn_mem_reset_ephemeral",
       "syn_mem_tensor_free", "syn_mem_scratch_release"}


def main():
    elf = sys.argv[1]
    out = subprocess.run(["arm-none-eabi-nm", "--size-sort", "-S", "-C", elf],
                         check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        parts = line.split(None, 3)
        if len(parts) < 4 or parts[2] not in "tTwW":
            continue
        size, name = int(parts[1], 16), parts[3]
        if name.startswith("syn_mem_") or name.startswith("synaptic_mem"):
            rows.append((size, name))
    rows = [r for r in rows if r[1] != "synaptic_mem_ffi_panic"]  # the firmware's own hook
    # Out-of-line core/ffi functions that syn_mem_tensor_alloc & co. call.
    capi_cold = ("synaptic_mem::raw::RawArena::fail", "synaptic_mem::raw::RawArena::reject",
                 "synaptic_mem::raw::RawArena::alloc_load_time", "synaptic_mem::dtype::size_error",
                 "synaptic_mem_ffi::")
    groups = {
        "C API hot paths (alloc, scratch, reset, free, release; core inlined)":
            [r for r in rows if r[1] in HOT],
        "C API out-of-line helpers (failure paths, persistent/shared allocation)":
            [r for r in rows if r[1].startswith(capi_cold)],
        "C API, other entry points (init, stats, print, ...)":
            [r for r in rows if r[1].startswith("syn_mem_") and r[1] not in HOT],
        "core called only by the Rust tests (out-of-line copies)":
            [r for r in rows if r[1].startswith("synaptic_mem::")
             and not r[1].startswith(capi_cold)],
    }
    total = 0
    for title, items in groups.items():
        sub = sum(s for s, _ in items)
        total += sub
        print(f"{title}: {sub} bytes")
        for size, name in sorted(items, reverse=True):
            print(f"  {size:6d}  {name}")
    print(f"all of the above: {total} bytes (core::fmt, used by print_stats, not counted)")
    print()
    print(subprocess.run(["arm-none-eabi-size", "-A", elf], check=True,
                         capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
