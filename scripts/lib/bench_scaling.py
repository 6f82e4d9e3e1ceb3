"""`scripts/bench scaling`: the per-frame cost curves of issue 34 item 5, with their slopes
(least squares), in one run (figures, not pass/fail).

- devices:      `touchd replay` (offline, as fast as it goes) of N devices in one evemu file,
                each a copy of a one-finger drag (elan-cando, Tests/Fixtures/captures: 322
                frames), all holding a touch at once (Benchmarks/many-devices.sh's idea); for
                few devices each one's drag is repeated (shifted in time) so that every N
                replays about the same number of frames. The replay's CPU time (user + system,
                from wait4: the machine's other load counts little) per frame.
- subscribers:  `touchd run --replay --speed 1` of 10 fingers at 120 Hz on the 1,000-view scene
                with N subscribers (Benchmarks/subscribers.c reads them all), the daemon's CPU
                time per frame; twice: every subscriber taking every frame, and the same number
                with filters, in turn: frames of window "main" (all of them, through the
                filter), frames of view "card0" (touches on it only: none in this capture), device
                messages only (no frame: what a subscriber that takes none costs a frame).

Each curve prints its points, the least-squares slope and what the slope adds over the whole
range as a share of the first point. Options choose the points.
"""
import os
import json
import subprocess
import tempfile
import time

import bench_yardsticks
from binary import bench_command

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CAPTURES = os.path.join(ROOT, "Tests", "Fixtures", "captures")
FILTERS = ['{"subscribe":{"types":["frame"],"windows":["main"]}}',
           '{"subscribe":{"types":["frame"],"views":["card0"]}}',
           '{"subscribe":{"types":["device"]}}']


def slope(points):
    """Least squares: (slope, intercept) of y over x."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    var = sum((x - mx) ** 2 for x, _ in points)
    b = sum((x - mx) * (y - my) for x, y in points) / var if var else 0.0
    return b, my - b * mx


def cpu_of(argv, **kw):
    """Runs argv to its end; its CPU seconds (user + system) from wait4."""
    p = subprocess.Popen(argv, **kw)
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit(f"scripts/bench scaling: {' '.join(argv[:2])} exited {p.returncode}")
    return usage.ru_utime + usage.ru_stime


def drag_capture(path, devices, frames_wanted):
    """`devices` copies of the one-finger drag, each repeated to reach about frames_wanted frames."""
    desc = open(os.path.join(CAPTURES, "elan-cando_1-finger-drag.desc")).read()
    events = open(os.path.join(CAPTURES, "elan-cando_1-finger-drag.events")).read().splitlines()
    per = sum(1 for l in events if l.endswith(" 0000 0000 0"))
    repeats = max(1, round(frames_wanted / (per * devices)))
    parsed = [l.split(" ", 2) for l in events]              # "E:", "sec.usec", "rest"
    t0 = float(parsed[0][1])
    span = float(parsed[-1][1]) - t0 + 1
    one = []
    for r in range(repeats):
        for _, t, rest in parsed:
            one.append(f"E: {float(t) - t0 + 1 + r * span:.6f} {rest}")
    body = desc + ("" if desc.endswith("\n") else "\n") + "\n".join(one) + "\n"
    with open(path, "w") as f:
        for _ in range(devices):
            f.write(body)
    return per * repeats * devices


def devices_curve(binary, tmp, counts, frames_wanted):
    cfg = os.path.join(ROOT, "Tests", "Fixtures", "facts-800x480.json")
    points = []
    print("devices: `touchd replay` of N one-finger drags at once, CPU (user + system) per frame")
    for n in counts:
        cap = os.path.join(tmp, "devices.evemu")
        frames = drag_capture(cap, n, frames_wanted)
        with open(os.devnull, "wb") as null:
            cpu = cpu_of([binary, "replay", "--max-input-size", "4G", "--config", cfg, cap], stdout=null, stderr=subprocess.DEVNULL)
        os.remove(cap)
        per = cpu * 1e6 / frames
        points.append((n, per))
        print(f"  {n:>5} devices  {frames:>9,} frames  CPU {cpu:7.2f} s  {per:8.3f} µs per frame", flush=True)
    report_slope(points, "devices", 1000)


def daemon_cpu(binary, tmp, cap, n, lines):
    """The daemon's CPU seconds replaying `cap` at speed 1 to n subscribers, and the lines they read."""
    sock = os.path.join(tmp, f"scaling-{n}.sock")
    daemon = [binary, "run", "--config", os.path.join(tmp, "scaling.json"), "--socket", sock, "--replay", cap, "--speed", "1",
              "--wait-clients", str(n), "--exit-at-end", "--log-level", "warning"]
    client = subprocess.Popen([os.path.join(tmp, "subscribers"), sock, str(n)] + lines, stdout=subprocess.PIPE, text=True)
    cpu = cpu_of(daemon, stderr=subprocess.DEVNULL)
    got = client.communicate(timeout=60)[0].split()
    return cpu, got[1] if len(got) > 1 else "?"


def subscribers_curve(binary, tmp, counts, seconds, filtered):
    cap, short = os.path.join(tmp, "fingers-120hz.evemu"), os.path.join(tmp, "one-frame.evemu")
    frames = int(seconds * 120)
    lines = FILTERS if filtered else ['{"subscribe":{"types":["frame"]}}']
    what = "with filters in turn (window main, view card0, devices only)" if filtered else "every one taking every frame"
    print(f"subscribers, {what}: the daemon's CPU per frame (µs), {frames} frames of 10 fingers at 120 Hz, 1,000 views "
          f"(less the CPU of the same run with one frame: start-up and connections)")
    points = []
    for n in counts:
        base, _ = daemon_cpu(binary, tmp, short, n, lines)
        cpu, read = daemon_cpu(binary, tmp, cap, n, lines)
        per = (cpu - base) * 1e6 / frames
        points.append((n, per))
        print(f"  {n:>5} subscribers  CPU {cpu:6.2f} s - {base:5.2f} s  {per:8.1f} µs per frame  ({read} lines read)", flush=True)
    report_slope(points, "subscribers", 100)


def report_slope(points, unit, per):
    """The least-squares line through (count, µs per frame): its slope per `per` counts, and what
    it adds over the whole range as a share of the first point."""
    b, a = slope(points)
    first = points[0][1]
    span = points[-1][0] - points[0][0]
    print(f"  slope: {b * per:+.3f} µs per frame per {per:,} {unit} (intercept {a:.2f} µs); from {points[0][0]:,} to "
          f"{points[-1][0]:,} {unit} it adds {b * span:+.2f} µs = {100 * b * span / first:+.0f}% of the first point", flush=True)


def add_arguments(ap):
    ap.add_argument("--devices", default="1,10,100,1000,4000", help="device counts (default 1,10,100,1000,4000)")
    ap.add_argument("--frames", type=int, default=300000, help="frames replayed per device count, at least (default 300000)")
    ap.add_argument("--subscribers", default="1,10,100,300,1000", help="subscriber counts (default 1,10,100,300,1000)")
    ap.add_argument("--seconds", type=float, default=3, help="length of the 120 Hz capture for subscribers (default 3)")
    ap.add_argument("--only", choices=["devices", "subscribers"], help="one curve only")


def run(binary, args):
    bench_yardsticks.needs_cc()
    with tempfile.TemporaryDirectory(prefix="touchd-scaling-") as tmp:
        t0 = time.monotonic()
        if args.only != "subscribers":
            devices_curve(binary, tmp, [int(x) for x in args.devices.split(",")], args.frames)
        if args.only != "devices":
            bench_yardsticks.cc(tmp, "subscribers.c", "subscribers")
            subprocess.run(bench_command(binary) + ["--write", tmp, "--events", "1000"], check=True, stdout=subprocess.DEVNULL)
            counts = [int(x) for x in args.subscribers.split(",")]
            with open(os.path.join(tmp, "bench.json")) as f:
                config = json.load(f)
            config["clients"] = {"max": max(counts) + 50}
            with open(os.path.join(tmp, "scaling.json"), "w") as f:
                json.dump(config, f)
            bench_yardsticks.capture_120hz(os.path.join(tmp, "fingers-120hz.evemu"), args.seconds)
            bench_yardsticks.capture_120hz(os.path.join(tmp, "one-frame.evemu"), 1 / 120)
            subscribers_curve(binary, tmp, counts, args.seconds, filtered=False)
            subscribers_curve(binary, tmp, counts, args.seconds, filtered=True)
        print(f"scaling: {time.monotonic() - t0:.0f} s")
    return 0
