#!/usr/bin/env python3
"""Where a firmware image's runtime code goes: a `cargo bloat`-style table (issue 40).

    code-by-module.py ELF MODEL [--depth N] [--top N] [--markdown]

Counts the same symbols as scripts/runtime-code-bytes.py (the runtime's code and what it pulls
from core and compiler_builtins; no board support, no model, program or constants) and groups
them two ways:

* by module: the demangled path without its generic arguments, cut to N segments (default 3, one more
  below `synaptic_run::ops`: `synaptic_run::ops::conv::conv_2d`, `synaptic_run::interpreter::run`, `compiler_builtins::float`);
* by function: every monomorphised copy of one generic function (same path, other type or
  const arguments, or closures of it) is counted under that function, with the number of
  copies, so a function linked ten times shows as one row with 10 copies.

A development and documentation tool (scripts/code-bytes.sh writes its tables into
docs/code-bytes.generated.md); it reads `arm-none-eabi-nm -S -C`.
"""
import argparse
import collections
import importlib.util
import os
import re

# The symbols scripts/runtime-code-bytes.py counts (one selection for both).
_spec = importlib.util.spec_from_file_location(
    "runtime_code_bytes", os.path.join(os.path.dirname(os.path.abspath(__file__)), "runtime-code-bytes.py")
)
runtime_code_bytes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(runtime_code_bytes)


ap = argparse.ArgumentParser()
ap.add_argument("elf")
ap.add_argument("model")
ap.add_argument("--depth", type=int, default=3)
ap.add_argument("--top", type=int, default=25)
ap.add_argument("--markdown", action="store_true")
args = ap.parse_args()

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


by_module = collections.Counter()
by_fn = collections.Counter()
copies = collections.Counter()
total = 0
for size, name in runtime_code_bytes.runtime_symbols(args.elf, args.model):
    total += size
    path = strip_generics(name)
    parts = path.split("::")
    # An operator's module lies one level below its family (`synaptic_run::ops::conv::conv_2d`).
    depth = args.depth + (parts[:2] == ["synaptic_run", "ops"] and len(parts) > 4)
    module = "::".join(parts[:depth]) if parts[0] in OURS else "(other: " + parts[0][:24] + ")"
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
