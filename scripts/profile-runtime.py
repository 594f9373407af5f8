#!/usr/bin/env python3
"""Instruction profile of one measured window of a runtime image (scripts/profile-runtime.sh).

Reads QEMU's `-singlestep -d exec,nochain` log (one line per executed instruction), cuts it
into the windows the image measures (`counter::start` .. `counter::stop`), and prints, for the
chosen window, the instructions per function and, with `--lines`, per source line (the
innermost inlined frames, from the ELF's debug information via `arm-none-eabi-addr2line -i`).

    profile-runtime.py ELF TRACE [--window K] [--lines N] [--functions N] [--stream PID]
                       [--inclusive N] [--stack]

`--inclusive N` adds the N functions with the most instructions counting their callees, and
`--stack` the window's deepest chain of calls by stack frame bytes (each function's prologue in
the ELF: pushes, vpush, `sub sp`), both from a shadow call stack over the trace.

Without `--window` it lists every window and profiles the first inference (the window after
the first `Interpreter::load`).
"""
import argparse
import collections
import os
import re
import signal
import subprocess

LINE = re.compile(r"Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/[0-9a-f]+/[0-9a-f]+\] (.*)")
DEMANGLE_HASH = re.compile(r"17h[0-9a-f]{16}E$")
# Every load runs `synaptic_run::interpreter::load::load`.
LOAD = "interpreter4load4load"


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


def read_window(path, want, pid):
    """The pcs and names of window `want` (`None`: the first after a load) of a trace that is
    still being written (a FIFO), listing the windows before it; then stops QEMU (`pid`)."""
    pcs, names = [], []
    k, inside, prev, loads, last_had_load, first_run = -1, False, None, False, False, None
    with open(path) as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            name = m.group(2).strip()
            if name != prev:
                if "counter5start" in name:
                    k += 1
                    last_had_load, loads = loads, False
                    if first_run is None and k > 0 and last_had_load:
                        first_run = k
                    inside = k == (want if want is not None else first_run)
                elif "counter4stop" in name and k >= 0:
                    if inside:
                        break
                    print(f"window {k}: passed")
                prev = name
            if LOAD in name:
                loads = True
            if inside:
                pcs.append(int(m.group(1), 16))
                names.append(name)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass  # it ended first
    return k, pcs, names


def entries(elf):
    """Function start addresses of `elf` (for call counts: executions of an entry)."""
    out = subprocess.run(["arm-none-eabi-nm", elf], capture_output=True, text=True).stdout
    return {int(p[0], 16) & ~1 for p in (l.split() for l in out.splitlines())
            if len(p) == 3 and p[1] in "tTwW"}


def frame_sizes(elf):
    """Bytes each function's prologue takes from the stack (pushes, vpush, `sub sp`), by
    mangled name."""
    out = subprocess.run(["arm-none-eabi-objdump", "-d", "--no-show-raw-insn", elf],
                         capture_output=True, text=True).stdout
    sizes, fn, seen = {}, None, 0
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if m:
            fn, seen = m.group(1), 0
            sizes[fn] = 0
            continue
        if fn is None or seen > 8:
            continue
        seen += 1
        m = re.search(r"\bv?push(?:\.w)?\s+\{([^}]*)\}", line)
        if m:
            regs = m.group(1).replace(" ", "").split(",")
            n = 0
            for r in regs:
                lo, _, hi = r.partition("-")
                n += (int(hi[1:]) - int(lo[1:]) + 1) if hi else 1
            sizes[fn] += n * (8 if regs[0].startswith("d") else 4)
            continue
        m = re.search(r"\bsub(?:\.w|w)?\s+sp,\s*(?:sp,\s*)?#(\d+)", line)
        if m:
            sizes[fn] += int(m.group(1))
    return sizes


def deepest(pcs, names, starts, frames):
    """The chain of calls (shadow stack as `inclusive`) whose frames add up to the most."""
    stack, best, best_sum, cur = [], [], -1, 0
    for x, n in zip(pcs, names):
        if not stack or n != stack[-1]:
            if x in starts or n not in stack:
                stack.append(n)
                cur += frames.get(n, 0)
                if cur > best_sum:
                    best_sum, best = cur, list(stack)
            else:
                while stack[-1] != n:
                    cur -= frames.get(stack.pop(), 0)
    return [(n, frames.get(n, 0)) for n in best]


def inclusive(pcs, names, starts):
    """Instructions per function including its callees, from a shadow call stack: entering a
    function at its first instruction is a call (a tail call too); arriving in a function
    already on the stack is a return to it."""
    stack, total = [], collections.Counter()
    for x, n in zip(pcs, names):
        if not stack or n != stack[-1]:
            if x in starts or n not in stack:
                stack.append(n)
            else:
                while stack[-1] != n:
                    stack.pop()
        for f in set(stack):
            total[f] += 1
    return total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("elf")
    ap.add_argument("trace")
    ap.add_argument("--window", type=int)
    ap.add_argument("--lines", type=int, default=0)
    ap.add_argument("--depth", type=int, default=2, help="inlined frames per source line")
    ap.add_argument("--only", metavar="SUBSTR",
                    help="source lines of the functions whose symbol holds SUBSTR only")
    ap.add_argument("--stream", type=int, metavar="PID",
                    help="the trace is a FIFO QEMU (PID) writes: read up to the window, stop it")
    ap.add_argument("--functions", type=int, default=25)
    ap.add_argument("--stack", action="store_true",
                    help="also the deepest chain of calls by stack frame bytes (from the ELF)")
    ap.add_argument("--pcs", type=int, default=0, metavar="N",
                    help="also the N most executed addresses (for the disassembly), per function")
    ap.add_argument("--inclusive", type=int, default=0, metavar="N",
                    help="also the N functions with the most instructions including callees")
    a = ap.parse_args()
    if a.stream is not None:
        k, pcs, names = read_window(a.trace, a.window, a.stream)
        s, e = 0, len(names)
    else:
        pcs, names = read_trace(a.trace)
        ws = windows(names)
        first_run = None
        for k, (s, e) in enumerate(ws):
            top = collections.Counter(names[s:e]).most_common(1)[0][0]
            print(f"window {k}: {e - s} instructions, mostly {short(top)[:90]}")
            if first_run is None and k > 0 and any(LOAD in n for n in names[ws[k - 1][0]:ws[k - 1][1]]):
                first_run = k
        k = a.window if a.window is not None else first_run
        if k is None:
            return
        s, e = ws[k]
    starts = entries(a.elf)
    calls = collections.Counter(n for x, n in zip(pcs[s:e], names[s:e]) if x in starts)
    print(f"\nprofile of window {k} ({e - s} instructions): instructions, calls, function")
    for n, c in collections.Counter(names[s:e]).most_common(a.functions):
        print(f"{c:10} {calls[n]:7} {short(n)[:110]}")
    if a.inclusive:
        print(f"\ninclusive (a function and what it calls), top {a.inclusive}")
        for n, c in inclusive(pcs[s:e], names[s:e], starts).most_common(a.inclusive):
            print(f"{c:10} {short(n)[:110]}")
    if a.stack:
        frames = frame_sizes(a.elf)
        chain = deepest(pcs[s:e], names[s:e], starts, frames)
        print(f"\ndeepest chain: {sum(b for _, b in chain)} bytes of frames (calls, innermost last)")
        for n, b in chain:
            print(f"{b:10} {short(n)[:110]}")
    if a.pcs:
        hits = collections.Counter(zip(pcs[s:e], names[s:e]))
        print(f"\nhottest addresses, top {a.pcs}: count, address, function")
        for (x, n), c in hits.most_common(a.pcs):
            print(f"{c:10} {x:#010x} {short(n)[:90]}")
    if a.lines:
        hits = collections.Counter(x for x, n in zip(pcs[s:e], names[s:e])
                                   if a.only is None or a.only in n)
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
