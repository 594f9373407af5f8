#!/usr/bin/env python3
"""Host-side test of the `syn mem stats` shell firmware (src/bin/shell.rs).

Starts QEMU (lm3s6965evb, Cortex-M3) with UART0 on stdio, types commands into the serial port
and checks every number the shell prints against what its deterministic jobs allocate.

    python3 firmware/tests/shell_test.py [path/to/shell.elf]

Exit status 0 when every check passes. The last line is `N passed, N failed`.
"""

import os
import re
import select
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_ELF = os.path.join(HERE, "..", "target", "thumbv7m-none-eabi", "release", "shell")
TIMEOUT = 15.0  # seconds per expected reply

# The shell's arena and model, restated independently of the firmware.
ARENA, SCRATCH, SHARED = 32 * 1024, 4 * 1024, 1024
DESC = 32  # descriptor span


def block(nbytes):
    """Bytes one tensor takes in its region: descriptor + data rounded up to 16."""
    return DESC + (nbytes + 15) // 16 * 16


def up16(n):
    return (n + 15) // 16 * 16


PERSISTENT = block(16 * 16) + block(16 * 4) + block(8 * 16)  # w1 int8, b1 int32, w2 int8
SHARED_USED = block(16) + block(8)  # input [1,16] int8, output [1,8] int8


def job(k):
    """(ephemeral bytes, scratch bytes) of job k."""
    b = 1 + k % 3
    eph = block(b * 16 * 4) + block(b * 16) + block(b * 8 * 4)
    scr = up16(256 * b) + up16(100)
    return eph, scr


def expected(jobs, manual_resets):
    eph_peak = max(job(k)[0] for k in range(jobs)) if jobs else 0
    scr_peak = max(job(k)[1] for k in range(jobs)) if jobs else 0
    tensor = ARENA - SCRATCH
    return {
        "persistent": (PERSISTENT, tensor, PERSISTENT),
        "ephemeral": (0, tensor - PERSISTENT, eph_peak),
        "tensor": (PERSISTENT, tensor, PERSISTENT + eph_peak),
        "scratch": (0, SCRATCH, scr_peak),
        "shared": (SHARED_USED, SHARED, SHARED_USED),
        "arena": (ARENA, ARENA, 0),
        # 3 weights + 2 shared tensors, then 3 activations + 2 scratch buffers per job.
        "counters": (5 + 5 * jobs, jobs + manual_resets, 0),
    }


class Shell:
    def __init__(self, elf):
        cmd = [
            "qemu-system-arm", "-cpu", "cortex-m3", "-machine", "lm3s6965evb",
            "-display", "none", "-monitor", "none", "-serial", "stdio",
            "-semihosting-config", "enable=on,target=native", "-kernel", elf,
        ]
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        self.buf = b""

    def read_until(self, token):
        deadline = time.monotonic() + TIMEOUT
        while token not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {token!r} within {TIMEOUT}s; got {self.buf[-400:]!r}")
            r, _, _ = select.select([self.p.stdout], [], [], left)
            if r:
                chunk = os.read(self.p.stdout.fileno(), 4096)
                if not chunk:
                    raise EOFError(f"QEMU exited; got {self.buf[-400:]!r}")
                self.buf += chunk
        out, self.buf = self.buf.split(token, 1)
        return out.decode("utf-8", "replace").replace("\r\n", "\n")

    def cmd(self, line):
        self.p.stdin.write(line.encode() + b"\r")
        self.p.stdin.flush()
        reply = self.read_until(b"syn> ")
        # Drop the echoed command line.
        first, _, rest = reply.partition("\n")
        return first, rest

    def close(self):
        self.p.kill()
        self.p.wait(timeout=5)


ROW = re.compile(r"^(persistent|ephemeral|tensor|scratch|shared)\s+(\d+)\s+(\d+)\s+(\d+)$")
ARENA_LINE = re.compile(r"^arena (\d+) B, usable (\d+) B \((\d+) B lost to alignment\)$")
COUNTERS = re.compile(r"^allocs (\d+)  resets (\d+)  failed (\d+)$")
JOBS = re.compile(r"^jobs (\d+)$")


def parse_stats(text):
    got = {}
    for line in text.splitlines():
        line = line.strip()
        if m := ROW.match(line):
            got[m[1]] = tuple(int(x) for x in m.groups()[1:])
        elif m := ARENA_LINE.match(line):
            got["arena"] = tuple(int(x) for x in m.groups())
        elif m := COUNTERS.match(line):
            got["counters"] = tuple(int(x) for x in m.groups())
        elif m := JOBS.match(line):
            got["jobs"] = int(m[1])
    return got


def main():
    elf = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_ELF
    passed = failed = 0

    def check(ok, what, detail=""):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print(f"FAILED: {what} {detail}")

    sh = Shell(elf)
    try:
        banner = sh.read_until(b"syn> ")
        check("syn_mem shell" in banner, "banner", repr(banner))

        echo, out = sh.cmd("help")
        check(echo.strip() == "help", "echo", repr(echo))
        for c in ("syn mem stats", "syn mem reset", "help"):
            check(c in out, f"help lists {c!r}", repr(out))

        manual = 0
        jobs_seen = []
        for round_ in range(3):
            _, out = sh.cmd("syn mem stats")
            got = parse_stats(out)
            check("jobs" in got, "stats prints the job count", repr(out))
            jobs = got.get("jobs", 0)
            jobs_seen.append(jobs)
            check(jobs >= 1, "a job ran before the command was answered")
            check(out.startswith("syn mem stats\n"), "stats table header", repr(out[:40]))
            exp = expected(jobs, manual)
            for key, want in exp.items():
                check(got.get(key) == want, f"round {round_} {key}", f"got {got.get(key)} want {want}")
            print(f"stats after {jobs} jobs ({manual} manual resets): "
                  f"allocs {got.get('counters', (0,))[0]}, peaks eph {got.get('ephemeral', (0, 0, 0))[2]} "
                  f"scratch {got.get('scratch', (0, 0, 0))[2]}")

            _, out = sh.cmd("syn mem reset")
            m = re.search(r"reset \(resets (\d+)\)", out)
            check(m is not None, "reset reply", repr(out))
            manual += 1
            if m:
                # The reply counts this reset on top of the jobs run so far.
                check(int(m[1]) >= jobs + manual, "reset count includes the manual reset", out)
            time.sleep(0.2)  # let more jobs run

        check(jobs_seen == sorted(jobs_seen) and jobs_seen[-1] > jobs_seen[0],
              "jobs keep running between commands", str(jobs_seen))

        _, out = sh.cmd("syn mem frobnicate")
        check("unknown command 'syn mem frobnicate'" in out and "help" in out,
              "unknown command gets a clear message", repr(out))
        _, out = sh.cmd("x" * 80)
        check("too long" in out, "over-long line rejected", repr(out))
        _, out = sh.cmd("")
        check(out.strip() == "", "empty line is ignored", repr(out))
    except (TimeoutError, EOFError) as e:
        check(False, "shell conversation", str(e))
    finally:
        sh.close()
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
