"""`scripts/bench live`: touchd's latency from a real kernel's device (issue 48), in the QEMU VM
that scripts/vm/run boots (Debian's kernel, two virtual CPUs), beside a C floor reading the same
kind of device. Figures, not pass/fail.

A uinput panel (Benchmarks/uinput-panel.c) moves 10 fingers at 120 Hz; the kernel stamps each
frame. First the floor (Benchmarks/live-floor.c: libevdev, timestamps on CLOCK_MONOTONIC, one
~1.5 KB line to 16 sockets per SYN_REPORT) reads it, then touchd (`touchd run` on a 1,000-view
scene, finding the panel by itself; its own scheduling: SCHED_FIFO 10 by default). The same
client (Benchmarks/latency-client.c, 16 connections) measures both: the frame's kernel
timestamp → its arrival at the 16th subscriber. The client and the floor run at SCHED_FIFO, as
in `scripts/bench busy`. The VM script is scripts/vm/live-bench.sh.

Goals (reported by `scripts/bench compare`): p50 ≤ 1.2×, p99 ≤ 1.5× the floor's. QEMU emulates
the CPUs (TCG: this machine's /dev/kvm opens, but a KVM guest never printed a line, and `-cpu
host` aborts in QEMU's MSR setup), which makes every instruction tens of times slower and the
figures noisy: touchd's work per frame, far more instructions than the floor's, is stretched more
than the floor's system calls. `scripts/bench busy` on the host is the gate.
"""
import os
import re
import subprocess
import sys
import tempfile

import bench_yardsticks
from binary import bench_command

ROOT = bench_yardsticks.ROOT
GOALS = {"p50": 1.2, "p99": 1.5}


def build(tmp):
    """The VM's programs, built here (the VM has the loader, libc, libm and libevdev of touchd)."""
    out = {}
    out["uinput-panel"] = os.path.join(tmp, "uinput-panel")
    subprocess.run(["cc", "-O2", "-o", out["uinput-panel"], os.path.join(ROOT, "Benchmarks", "uinput-panel.c"), "-lm"], check=True)
    out["live-floor"] = bench_yardsticks.cc(tmp, "live-floor.c", "live-floor", ["libevdev"])
    out["latency-client"] = bench_yardsticks.cc(tmp, "latency-client.c", "latency-client")
    return out


def parse(stdout):
    """The VMBENCH lines → {"floor": (p50, p99, max, frames), "touchd": …, "own": (p99,), "cpus": N, ...}."""
    r = {"log": []}
    for line in stdout.splitlines():
        if not line.startswith("VMBENCH "):
            if line.startswith("VMTEST"):
                r["log"].append(line)
            continue
        _, what, rest = (line.split(" ", 2) + [""])[:3]
        m = re.match(r"(\d+) frames p50 (\d+) p99 (\d+) max (\d+)", rest)
        if what in ("floor", "touchd") and m:
            r[what] = (int(m.group(2)), int(m.group(3)), int(m.group(4)), int(m.group(1)))
        elif what == "touchd-own":
            m = re.search(r"input latency p99 (\d+) µs", rest)
            r["own"] = int(m.group(1)) if m else None
        elif what == "touchd-realtime":
            r["realtime"] = rest.strip()
        elif what == "cpus":
            r["cpus"] = int(rest)
    return r


def measure(binary, seconds, hz=120, priority=10, smp=2, timeout=600, verbose=False):
    with tempfile.TemporaryDirectory(prefix="touchd-live-") as tmp:
        programs = build(tmp)
        subprocess.run(bench_command(binary) + ["--write", tmp, "--events", "1000"], check=True, stdout=subprocess.DEVNULL)
        params = os.path.join(tmp, "params.sh")
        with open(params, "w") as f:
            f.write(f"HZ={hz}\nDURATION={seconds:g}\nPRIORITY={priority}\n")
        argv = [os.path.join(ROOT, "scripts", "vm", "run"), "--smp", str(smp), "--timeout", str(timeout), "--binary", binary,
                "--script", os.path.join(ROOT, "scripts", "vm", "live-bench.sh"),
                "--include", f"{params}:/bench/params.sh", "--include", f"{os.path.join(tmp, 'bench.json')}:/bench/bench.json",
                "--include", "/usr/bin/chrt:/usr/bin/chrt"]
        for name, path in programs.items():
            argv += ["--include", f"{path}:/bench/{name}"]
        p = subprocess.run(argv, capture_output=True, text=True)
        if verbose or p.returncode != 0:
            sys.stdout.write(p.stdout[-4000:])
            sys.stderr.write(p.stderr[-2000:])
        r = parse(p.stdout)
        r["ok"] = p.returncode == 0
        return r


def report(r, seconds):
    print(f"live: a uinput panel, 10 fingers at 120 Hz for {seconds:g} s, in the VM ({r.get('cpus', '?')} vCPUs, TCG); 1,000-view scene, "
          "16 subscribers; the frame's kernel timestamp → arrival at the 16th (µs); client and floor at SCHED_FIFO")
    for name in ("floor", "touchd"):
        f = r.get(name)
        print(f"  {name:>6}: " + (f"{f[3]} frames  p50 {f[0]:>6}  p99 {f[1]:>6}  max {f[2]:>6}" if f else "no result"))
    if r.get("own") is not None:
        print(f"  touchd's own figure (stats: frame's kernel time → written, per write): p99 {r['own']} µs;  {r.get('realtime', '')}")
    ratios = None
    if r.get("floor") and r.get("touchd"):
        (f50, f99, *_), (t50, t99, *_) = r["floor"], r["touchd"]
        ratios = (t50 / max(f50, 1), t99 / max(f99, 1))
        print(f"  ratio: p50 {ratios[0]:.2f}× (goal ≤ {GOALS['p50']}×)  p99 {ratios[1]:.2f}× (goal ≤ {GOALS['p99']}×) the floor")
    for line in r["log"]:
        if "FAIL" in line:
            print(f"  {line}")
    return ratios


def add_arguments(ap):
    ap.add_argument("--seconds", type=float, default=10, help="how long the panel moves, each run (default 10)")
    ap.add_argument("--smp", type=int, default=2, help="the VM's virtual CPUs (default 2)")
    ap.add_argument("--verbose", action="store_true", help="print the VM's console")


def run(binary, args):
    bench_yardsticks.needs_cc()
    r = measure(binary, args.seconds, smp=args.smp, verbose=args.verbose)
    report(r, args.seconds)
    return 0 if r["ok"] else 1
