"""Two touchd binaries side by side on this machine, in one run (the machine is shared and
noisy: only ratios measured side by side mean anything): `scripts/bench compare BEFORE
[--binary AFTER] [--runs N] [--events N]`. Without BEFORE: the performance goals' table
(bench_goals.py).

For each binary, alternately, N times: touchd-bench (replay throughput and hit-test times)
and the idle daemon's resident set (`touchd run` with no touchscreen, VmRSS after a second).
Prints the median of every figure for both, and after/before.
"""
import os
import re
import statistics
import subprocess
import tempfile
import time

from binary import bench_command

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def engine_figures(text):
    """The figures in touchd-bench's output, by name.

    touchd-bench prints only text meant for people (it has no --json or --format), so this
    is the one place that reads it, line by line; when it gains machine-readable output,
    only this function changes. A figure it no longer finds is simply missing (its row
    shows nan), never a wrong number.
    """
    figures = {}
    for line in text.splitlines():
        m = re.match(r"\s+(parse|dispatch\+encode|whole pipeline)\s+([\d.]+) s", line)
        if m:
            figures[m.group(1) + " (s)"] = float(m.group(2))
        m = re.match(r"\s+peak RSS\s+([\d.]+) MiB", line)
        if m:
            figures["bench peak RSS (MiB)"] = float(m.group(1))
        m = re.match(r"\s+(\d+) views (nested|flat)\s+([\d.]+) µs(  \(| per tap)", line)
        if m:
            what = "taps" if m.group(4) == " per tap" else "hit-test"
            figures[f"{what} {m.group(1)} {m.group(2)} (µs)"] = float(m.group(3))
    return figures


def bench(binary, events):
    # The live-scene part's figures are not compared: its shortest run (--live-events 1000).
    out = subprocess.run(bench_command(binary) + ["--events", str(events), "--hit-tests", "100000", "--live-events", "1000"],
                         capture_output=True, text=True, check=True).stdout
    return engine_figures(out)


def idle_rss(binary):
    with tempfile.TemporaryDirectory() as d:
        sock = os.path.join(d, "t.sock")
        p = subprocess.Popen([binary, "run", "--config", os.path.join(ROOT, "config", "example.json"),
                              "--socket", sock, "--log-level", "error"], stderr=subprocess.DEVNULL)
        try:
            time.sleep(1.0)
            with open(f"/proc/{p.pid}/status") as fh:
                kib = int(re.search(r"VmRSS:\s+(\d+) kB", fh.read()).group(1))
        finally:
            p.terminate()
            p.wait(timeout=10)
    return {"daemon idle RSS (MiB)": kib / 1024}


def add_arguments(ap):
    import bench_goals
    ap.add_argument("before", metavar="BEFORE", nargs="?",
                    help="the touchd binary to compare with (--binary, or the newest build, is after); "
                         "none: the goals' table, every row with its yardstick and goal")
    ap.add_argument("--runs", type=int, default=3, help="with BEFORE: alternating runs of each (default 3)")
    ap.add_argument("--events", type=int, default=1_000_000, help="with BEFORE: events in touchd bench's capture (default 1000000)")
    bench_goals.add_arguments(ap)


def run(after, args):
    from binary import touchd_binary
    if args.before is None:
        import bench_goals
        return bench_goals.run(after, args)
    before = touchd_binary(args.before)
    samples = ({}, {})   # before's, after's: figure → values
    for _ in range(args.runs):
        for binary, figures in zip((before, after), samples):
            for k, v in {**bench(binary, args.events), **idle_rss(binary)}.items():
                figures.setdefault(k, []).append(v)
    print(f"medians of {args.runs} alternating runs; before = {os.path.relpath(before)}, after = {os.path.relpath(after)}")
    print(f"{'figure':34} {'before':>10} {'after':>10} {'after/before':>13}")
    for k in list(samples[0]) + [k for k in samples[1] if k not in samples[0]]:
        a = statistics.median(samples[0].get(k, [float("nan")]))
        b = statistics.median(samples[1].get(k, [float("nan")]))
        print(f"{k:34} {a:10.3f} {b:10.3f} {b / a if a else float('nan'):13.2f}")
    return 0
