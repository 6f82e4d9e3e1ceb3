"""`scripts/bench busy`: touches while the UI keeps every core busy (issue 48), figures, not
pass/fail (the goal's line says whether it held).

The latency scenario (10 fingers at 120 Hz, a 1,000-view scene, 16 subscribers, frame time →
arrival at the 16th, Benchmarks/latency-client.c), idle and loaded, touchd beside the C floor
(Benchmarks/latency-floor.c: stamped lines to 16 sockets, nothing else) in one run:

  - the measuring client and the floor at SCHED_FIFO (--priority, default 10, touchd's own
    default), so that what changes under load is touchd's own scheduling, not theirs;
  - the load: one spin loop per core at nice 0 and SCHED_OTHER (what a browser rendering a page
    looks like to the scheduler), started before and stopped after each loaded measurement;
  - touchd as it runs by default (it asks for SCHED_FIFO 10 itself: `realtime`), and loaded once
    more with --realtime off: what the real-time priority buys;
  - beside the client's figure, the daemon's own (its `stats`, asked by a 17th client: frame's
    time → written, per write, so its p99 stands for a frame's last write).

Goal: touchd's loaded p99 ≤ 1.5× its idle p99 (`scripts/bench compare` holds it three runs of
three). Needs root or RLIMIT_RTPRIO for SCHED_FIFO (the client, the floor and touchd itself).
The machine is shared and noisy: "idle" is whatever others run; compare ratios within a run.
"""
import os
import subprocess
import sys
import tempfile
import time

import bench_yardsticks
from binary import bench_command

GOAL = 1.5


def fifo(priority):
    """preexec_fn: the child at SCHED_FIFO `priority`."""
    def set_policy():
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(priority))
    return set_policy


def normal():
    os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    os.setpriority(os.PRIO_PROCESS, 0, 0)


class Load:
    """One spin loop per core at nice 0, SCHED_OTHER, for the `with` block."""

    def __init__(self, cores):
        self.cores, self.procs = cores, []

    def __enter__(self):
        for _ in range(self.cores):
            self.procs.append(subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=normal))
        time.sleep(0.5)   # every spinner running before the measurement starts
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            p.wait(timeout=10)
        self.procs = []


def parse(words):
    """latency-client's "N frames p50 A p99 B max C" → (p50, p99, max), or None."""
    if len(words) < 8:
        return None
    return int(words[3]), int(words[5]), int(words[7])


def run_floor(tools, tmp, seconds, priority):
    floor, client = tools
    sock = os.path.join(tmp, "floor.sock")
    server = subprocess.Popen([floor, sock, "16", "120", str(seconds)], preexec_fn=fifo(priority))
    time.sleep(0.1)
    out = subprocess.run([client, sock, "16"], capture_output=True, text=True, preexec_fn=fifo(priority)).stdout.split()
    server.wait(timeout=30)
    return parse(out), None


def run_touchd(binary, tools, tmp, seconds, priority, realtime=None):
    _, client = tools
    cfg, cap = os.path.join(tmp, "bench.json"), os.path.join(tmp, "fingers-120hz.evemu")
    sock = os.path.join(tmp, "touchd.sock")
    argv = [binary, "run", "--config", cfg, "--socket", sock, "--replay", cap, "--speed", "1",
            "--wait-clients", "17", "--exit-at-end", "--log-level", "warning"]
    if realtime:
        argv += ["--realtime", realtime]
    # touchd starts at normal priority and asks for its own (unless --realtime off).
    daemon = subprocess.Popen(argv, stderr=subprocess.DEVNULL, preexec_fn=normal)
    measuring = subprocess.Popen([client, sock, "16"], stdout=subprocess.PIPE, text=True, preexec_fn=fifo(priority))
    stats = bench_yardsticks.StatsPoller(sock)
    while measuring.poll() is None:
        stats.poll()
        time.sleep(0.05)
    out = measuring.stdout.read().split()
    daemon.wait(timeout=30)
    own = None
    if stats.last:
        i = stats.last["inputLatencyMicros"]
        own = (i["p50"], i["p99"], stats.last.get("scheduling", {}))
    return parse(out), own


def measure(binary, tmp, seconds, priority, cores, without_realtime=True):
    """{name: (client (p50, p99, max) or None, daemon's own (p50, p99, scheduling) or None)}."""
    tools = (bench_yardsticks.cc(tmp, "latency-floor.c", "latency-floor"), bench_yardsticks.cc(tmp, "latency-client.c", "latency-client"))
    subprocess.run(bench_command(binary) + ["--write", tmp, "--events", "1000"], check=True, stdout=subprocess.DEVNULL)
    bench_yardsticks.capture_120hz(os.path.join(tmp, "fingers-120hz.evemu"), seconds)
    r = {}
    r["floor idle"] = run_floor(tools, tmp, seconds, priority)
    r["touchd idle"] = run_touchd(binary, tools, tmp, seconds, priority)
    with Load(cores):
        r["floor loaded"] = run_floor(tools, tmp, seconds, priority)
    with Load(cores):
        r["touchd loaded"] = run_touchd(binary, tools, tmp, seconds, priority)
    if without_realtime:
        with Load(cores):
            r["touchd loaded, --realtime off"] = run_touchd(binary, tools, tmp, seconds, priority, realtime="off")
    return r


def report(r, seconds, priority, cores):
    load = os.getloadavg()
    print(f"busy: 10 fingers at 120 Hz for {seconds:g} s, 1,000-view scene, 16 subscribers; frame time → arrival at the 16th (µs);"
          f" the client and the floor at SCHED_FIFO {priority}; loaded: {cores} spin loop(s) at nice 0 (one per core);"
          f" load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    for name, (client, own) in r.items():
        if client is None:
            print(f"  {name:32} no result")
            continue
        line = f"  {name:32} p50 {client[0]:>6}  p99 {client[1]:>6}  max {client[2]:>6}"
        if own:
            s = own[2]
            sched = f"{s.get('policy', '?')} {s.get('priority', '?')} ({s.get('realtime', '?')})" if s else "?"
            line += f"   the daemon's own (frame → written): p50 {own[0]:>6}  p99 {own[1]:>6}   at {sched}"
        print(line)
    ratios = {}
    for who in ("floor", "touchd"):
        idle, loaded = r.get(f"{who} idle", (None,))[0], r.get(f"{who} loaded", (None,))[0]
        if idle and loaded:
            ratios[who] = (loaded[0] / max(idle[0], 1), loaded[1] / max(idle[1], 1))
            print(f"  {who}: loaded/idle p50 {ratios[who][0]:.2f}×  p99 {ratios[who][1]:.2f}×")
    off, idle = r.get("touchd loaded, --realtime off", (None,))[0], r.get("touchd idle", (None,))[0]
    if off and idle:
        print(f"  touchd at normal priority (--realtime off): loaded/idle p50 {off[0] / max(idle[0], 1):.2f}×  p99 {off[1] / max(idle[1], 1):.2f}×")
    if "touchd" in ratios:
        holds = ratios["touchd"][1] <= GOAL
        print(f"  goal: touchd's loaded p99 ≤ {GOAL}× its idle p99: {ratios['touchd'][1]:.2f}×, {'holds' if holds else 'does NOT hold'}")
    return ratios


def add_arguments(ap):
    ap.add_argument("--seconds", type=float, default=10, help="length of each measurement (default 10)")
    ap.add_argument("--priority", type=int, default=10, help="SCHED_FIFO priority of the client and the floor (default 10)")
    ap.add_argument("--cores", type=int, default=os.cpu_count(), help="spin loops of the load (default one per core)")
    ap.add_argument("--no-off", action="store_true", help="skip the loaded run with --realtime off")


def run(binary, args):
    bench_yardsticks.needs_cc()
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(args.priority))
        os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    except PermissionError:
        sys.exit("scripts/bench busy: SCHED_FIFO is refused here (run as root, or with RLIMIT_RTPRIO)")
    with tempfile.TemporaryDirectory(prefix="touchd-busy-") as tmp:
        r = measure(binary, tmp, args.seconds, args.priority, args.cores, without_realtime=not args.no_off)
    report(r, args.seconds, args.priority, args.cores)
    return 0
