#!/usr/bin/env python3
"""Instruction profile of one measured window of a runtime image (scripts/profile-runtime.sh).

Reads QEMU's `-singlestep -d exec,nochain` log (one line per executed instruction), cuts it
into the windows the image measures (`counter::start` .. `counter::stop`), and prints, for the
chosen window, the instructions per function and, with `--lines`, per source line (the
innermost inlined frames, from the ELF's debug information via `arm-none-eabi-addr2line -i`).

    profile-runtime.py ELF TRACE [--window K] [--lines N]

Without `--window` it lists every window and profiles the first inference (the window after
the first `Interpreter::load`).
"""
import argparse
import collections
import re
import subprocess

LINE = re.compile(r"Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/[0-9a-f]+/[0-9a-f]+\] (.*)")
DEMANGLE_HASH = re.compile(r"17h[0-9a-f]{16}E$")


def read_trace(path):
    pcs, names = [], []
    with open(path) as f:
        for line in f:
            m = LINE.match(line)
            if m:
                pcs.append(int(m.group(1), 16))
                names.append(m.group(2).strip())
    return pcs, names


def windows(names):
    """(start, end) of every `counter::start` .. next `counter::stop`."""
    out, start, prev = [], None, None
    for i, n in enumerate(names):
        if n != prev:
            if "counter5start" in n:
                start = i
            elif "counter4stop" in n and start is not None:
                out.append((start, i))
                start = None
        prev = n
    return out


def short(name):
    return DEMANGLE_HASH.sub("", name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("elf")
    ap.add_argument("trace")
    ap.add_argument("--window", type=int)
    ap.add_argument("--lines", type=int, default=0)
    ap.add_argument("--depth", type=int, default=2, help="inlined frames per source line")
    a = ap.parse_args()
    pcs, names = read_trace(a.trace)
    ws = windows(names)
    first_run = None
    for k, (s, e) in enumerate(ws):
        top = collections.Counter(names[s:e]).most_common(1)[0][0]
        print(f"window {k}: {e - s} instructions, mostly {short(top)[:90]}")
        if first_run is None and k > 0 and any("Interpreter4load" in n for n in names[ws[k - 1][0]:ws[k - 1][1]]):
            first_run = k
    k = a.window if a.window is not None else first_run
    if k is None:
        return
    s, e = ws[k]
    print(f"\nprofile of window {k} ({e - s} instructions)")
    for n, c in collections.Counter(names[s:e]).most_common(25):
        print(f"{c:10} {short(n)[:110]}")
    if a.lines:
        hits = collections.Counter(pcs[s:e])
        addrs = sorted(hits)
        out = subprocess.run(
            ["arm-none-eabi-addr2line", "-a", "-i", "-f", "-C", "-e", a.elf] + [hex(x) for x in addrs],
            capture_output=True, text=True, check=True).stdout.splitlines()
        chains, cur, i = {}, None, 0
        while i < len(out):
            if out[i].startswith("0x"):
                cur = int(out[i], 16)
                chains[cur] = []
                i += 1
            else:
                chains[cur].append((out[i], out[i + 1].split("/")[-1]))
                i += 2
        per = collections.Counter()
        for x, c in hits.items():
            frames = chains.get(x, [])[:a.depth]
            per[" <- ".join(f"{fn.split('::')[-1][:30]}@{loc}" for fn, loc in frames)] += c
        print(f"\nsource lines (innermost {a.depth} frames), top {a.lines}")
        for key, c in per.most_common(a.lines):
            print(f"{c:10} {key}")


if __name__ == "__main__":
    main()
