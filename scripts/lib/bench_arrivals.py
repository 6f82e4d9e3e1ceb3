"""`scripts/bench arrivals`: devices arriving one after another in one capture (issue 40, item 10),
figures, not pass/fail.

N devices in one evemu file (elan-cando's description, Tests/Fixtures/captures), each recorded
after the one before: device k's only events are one touch at 1 + k/10 s, at a place of its own
on the panel — `tap`: lifted 50 ms later (the issue's capture); `hold`: lifted only after every
device has touched (k ms after the last touch-down), so that up to N touches are down at once.
`touchd replay` (offline, as fast as it goes) of each file on the plain 800×480 scene; its CPU
time (user + system, from wait4: the machine's other load counts little). The file is generated
for each N in a temporary directory and removed after.

Prints, per kind, each N's CPU time and CPU per device, the slope of log(CPU) over log(N)
between each N and the one before (1: linear, 2: quadratic), and the least-squares slope over
the points from --fit-from devices on (below that, start-up dominates).
"""
import math
import os
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DESC = os.path.join(ROOT, "Tests", "Fixtures", "captures", "elan-cando_1-finger-drag.desc")
CONFIG = os.path.join(ROOT, "Tests", "Fixtures", "facts-800x480.json")


def arrivals_capture(path, devices, hold=False):
    """`devices` copies of the description, device k touching at 1 + k/10 s, lifting 50 ms later
    (or, hold, k ms after the last device's touch-down)."""
    desc = open(DESC).read()
    if not desc.endswith("\n"):
        desc += "\n"
    with open(path, "w") as f:
        for k in range(devices):
            down = 1 + k / 10
            up = 1 + devices / 10 + k / 1000 if hold else down + 0.05
            x, y = 100 + (k * 37) % 2800, 100 + (k * 53) % 1650      # elan-cando: 0..3008 × 0..1856
            f.write(desc)
            f.write(f"E: {down:.6f} 0003 0039 {k + 1}\nE: {down:.6f} 0003 0035 {x}\nE: {down:.6f} 0003 0036 {y}\n"
                    f"E: {down:.6f} 0001 014a 1\nE: {down:.6f} 0003 0000 {x}\nE: {down:.6f} 0003 0001 {y}\n"
                    f"E: {down:.6f} 0000 0000 0\n"
                    f"E: {up:.6f} 0003 0039 -1\nE: {up:.6f} 0001 014a 0\nE: {up:.6f} 0000 0000 0\n")


def cpu_of(argv, **kw):
    """Runs argv to its end; its CPU seconds (user + system) from wait4."""
    p = subprocess.Popen(argv, **kw)
    _, status, usage = os.wait4(p.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"scripts/bench arrivals: {' '.join(argv)} exited {code}")
    return usage.ru_utime + usage.ru_stime


def fit(points):
    """Least squares through (log N, log CPU): the exponent."""
    xs, ys = [math.log(n) for n, _ in points], [math.log(c) for _, c in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    var = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / var if var else float("nan")


def add_arguments(ap):
    ap.add_argument("--devices", default="1,10,100,250,500,1000,2000,4000",
                    help="device counts (default 1,10,100,250,500,1000,2000,4000)")
    ap.add_argument("--fit-from", type=int, default=500, help="the least-squares slope over the counts from this on (default 500)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per count, the least CPU kept (default 1)")
    ap.add_argument("--touch", choices=["tap", "hold", "both"], default="both",
                    help="tap: each device's touch lifts 50 ms later; hold: only after every device has touched "
                         "(default both)")


def run(binary, args):
    try:
        counts = [int(x) for x in args.devices.split(",")]
    except ValueError:
        raise SystemExit(f"scripts/bench arrivals: --devices {args.devices!r}: counts separated by commas (1,10,100)")
    if any(n < 1 for n in counts) or args.repeat < 1:
        raise SystemExit("scripts/bench arrivals: --devices are counts of at least 1, --repeat at least 1")
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="touchd-arrivals-") as tmp:
        for kind in (["tap", "hold"] if args.touch == "both" else [args.touch]):
            curve(binary, os.path.join(tmp, "arrivals.evemu"), counts, kind, args)
    print(f"arrivals: {time.monotonic() - t0:.0f} s")
    return 0


def curve(binary, cap, counts, kind, args):
    print(f"arrivals, {kind}: `touchd replay` of N devices arriving one after another in one evemu file, one touch each "
          f"({'lifted 50 ms later' if kind == 'tap' else 'lifted after the last touch-down: N down at once'}); "
          f"CPU (user + system)", flush=True)
    points = []
    for n in counts:
        arrivals_capture(cap, n, hold=kind == "hold")
        with open(os.devnull, "wb") as null:
            cpu = min(cpu_of([binary, "replay", "--max-input-size", "4G", "--config", CONFIG, cap],
                             stdout=null, stderr=subprocess.DEVNULL) for _ in range(args.repeat))
        os.remove(cap)
        slope = ""
        if points and cpu > 0 and points[-1][1] > 0 and n != points[-1][0]:
            slope = "  log-log slope from %d: %.2f" % (points[-1][0],
                                                     math.log(cpu / points[-1][1]) / math.log(n / points[-1][0]))
        points.append((n, cpu))
        print(f"  {n:>6} devices  CPU {cpu:7.3f} s  {cpu * 1e6 / n:9.1f} µs per device{slope}", flush=True)
    tail = [(n, c) for n, c in points if n >= args.fit_from and c > 0]
    if len(tail) >= 2:
        b = fit(tail)
        print(f"  slope (least squares of log CPU over log N, {tail[0][0]:,} to {tail[-1][0]:,} devices): {b:.2f} "
              f"(×{2 ** b:.2f} per doubling; 1 is linear, 2 quadratic)", flush=True)
