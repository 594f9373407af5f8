#!/usr/bin/env python3
"""Where a firmware image's runtime code goes: a `cargo bloat`-style table (issue 40).

    code-by-module.py ELF MODEL [--depth N] [--top N] [--markdown]

Counts the same symbols as scripts/runtime-code-bytes.py (the runtime's code and what it pulls
from core and compiler_builtins; no board support, no model, program or constants) and groups
them two ways:

* by module: the demangled path without its generic arguments, cut to N segments (default 3:
  `synaptic_run::ops::conv_2d`, `synaptic_run::interpreter::run`, `compiler_builtins::float`);
* by function: every monomorphised copy of one generic function (same path, other type or
  const arguments, or closures of it) is counted under that function, with the number of
  copies, so a function linked ten times shows as one row with 10 copies.

A development and documentation tool (scripts/code-bytes.sh writes its tables into
docs/code-bytes.generated.md); it reads `arm-none-eabi-nm -S -C`.
"""
import argparse
import collections
import re
import subprocess
import sys


ap = argparse.ArgumentParser()
ap.add_argument("elf")
ap.add_argument("model")
ap.add_argument("--depth", type=int, default=3)
ap.add_argument("--top", type=int, default=25)
ap.add_argument("--markdown", action="store_true")
args = ap.parse_args()

# The board support scripts/runtime-code-bytes.py leaves out (kept equal to its lists).
BOARD = (
    "synaptic_fw_runtime::",
    args.model + "::",
    "cortex_m",
    "<cortex_m",
    "__rustc::rust_begin_unwind",
)
BOARD_EXACT = {"main", "Reset", "SysTick", "DefaultHandler_", "DefaultPreInit", "HardFault_", "__pre_init"}
OURS = ("synaptic_run", "synaptic_tflite", "synaptic_mem", "compiler_builtins", "core")


def strip_generics(name):
    """`a::b<T>::c<{closure}>` -> `a::b::c`; `<X as Y>::f` -> `X::f` (the implementing type)."""
    n = name
    # Generic arguments (a `<` right after a name), innermost first.
    for _ in range(12):
        m = re.sub(r"(?<=[\w\]])<[^<>]*>", "", n)
        if m == n:
            break
        n = m
    # `<A as B>::f`: the type A's path.
    for _ in range(4):
        n = re.sub(r"<([^<>]*?) as [^<>]*>::", r"\1::", n)
    n = re.sub(r"<[^<>]*>", "", n)
    n = n.replace("{{closure}}", "").replace("{closure#", "{").lstrip("_")
    return "::".join(p for p in n.split("::") if p and not p.startswith("{"))


out = subprocess.run(
    ["arm-none-eabi-nm", "-S", "-C", "--defined-only", args.elf], capture_output=True, text=True, check=True
).stdout
by_module = collections.Counter()
by_fn = collections.Counter()
copies = collections.Counter()
total = 0
for line in out.splitlines():
    f = line.split(None, 3)
    if len(f) < 4 or f[2] not in "tTwW":
        continue
    name = f[3]
    if name in BOARD_EXACT or name.startswith(BOARD):
        continue
    size = int(f[1], 16)
    total += size
    path = strip_generics(name)
    parts = path.split("::")
    module = "::".join(parts[: args.depth]) if parts[0] in OURS else "(other: " + parts[0][:24] + ")"
    by_module[module] += size
    # A closure is its function's code (its path without the closure segment).
    by_fn[path] += size
    copies[path] += 1


def table(title, rows, with_copies):
    if args.markdown:
        print(f"| {title} | bytes | share |" + (" copies |" if with_copies else ""))
        print("|---|---:|---:|" + ("---:|" if with_copies else ""))
        for k, v in rows:
            c = f" {copies[k]} |" if with_copies else ""
            print(f"| `{k}` | {v:,} | {100 * v / total:.1f} % |{c}")
        print()
    else:
        for k, v in rows:
            c = f" ×{copies[k]}" if with_copies else ""
            print(f"{v:8} {100 * v / total:5.1f}%  {k}{c}")
        print()


print(f"runtime code: {total:,} bytes" if args.markdown else f"{total} runtime code bytes")
print()
table("module", by_module.most_common(args.top), False)
table("function (every copy)", by_fn.most_common(args.top), True)
multi = sorted(((k, v) for k, v in by_fn.items() if copies[k] > 1), key=lambda kv: -kv[1])
table("function linked more than once", multi[: args.top], True)
