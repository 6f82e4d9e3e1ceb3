"""touchd against yardsticks run alongside it (figures, not pass/fail): `scripts/bench replay`
and `scripts/bench latency`.

- replay:  a generated 1,000,000-event 10-finger evemu capture; libevemu's own reader
           (Benchmarks/evemu-read.c, evemu_read + evemu_read_event, parse only) against
           `touchd replay` of the same file, whole pipeline to NDJSON on stdout (/dev/null),
           alternately, N runs each; medians and their ratio.
- latency: 10 fingers at 120 Hz on a 1,000-view scene, `touchd run --replay --speed 1`, 16
           subscribers; the latency of each frame's arrival at its 16th subscriber (arrival on
           CLOCK_MONOTONIC minus the frame's time), against the floor — a C program that only
           writes one stamped ~1.5 KB line to 16 sockets at 120 Hz — measured by the same
           client (Benchmarks/latency-client.c); p50, p99 and the ratios; where touchd's time
           goes, from its own `stats` (asked by a 17th client: frame's time → publication →
           write, per write) and the client's figure (write → the 16th read); the daemon's
           peak RSS.

Builds the C programs with cc (libevemu-dev from `scripts/deps bench`). The machine is shared
and noisy: compare the ratios.
"""
import json
import math
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from binary import bench_command

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cc(tmp, source, out, libs=()):
    cmd = ["cc", "-O2", "-o", os.path.join(tmp, out), os.path.join(ROOT, "Benchmarks", source)]
    for lib in libs:
        cmd += subprocess.run(["pkg-config", "--cflags", "--libs", lib], capture_output=True, text=True, check=True).stdout.split()
    subprocess.run(cmd, check=True)
    return os.path.join(tmp, out)


def wall(argv, stdout=subprocess.DEVNULL):
    t0 = time.monotonic()
    subprocess.run(argv, stdout=stdout, stderr=subprocess.DEVNULL, check=True)
    return time.monotonic() - t0


def bench_replay(binary, tmp, runs):
    reader = cc(tmp, "evemu-read.c", "evemu-read", ["evemu"])
    subprocess.run(bench_command(binary) + ["--write", tmp, "--events", "1000000"], check=True)
    cap, cfg = os.path.join(tmp, "bench.evemu"), os.path.join(tmp, "bench.json")
    ours, theirs = [], []
    for _ in range(runs):
        theirs.append(wall([reader, cap]))
        with open(os.devnull, "wb") as null:
            ours.append(wall([binary, "replay", "--config", cfg, cap], stdout=null))
    a, b = statistics.median(ours), statistics.median(theirs)
    print(f"replay: 1,000,000-event 10-finger evemu capture ({os.path.getsize(cap) / 1048576:.1f} MiB), median of {runs} alternating runs")
    print(f"  libevemu parse only            {b:.3f} s")
    print(f"  touchd replay, whole pipeline  {a:.3f} s   ratio {a / b:.2f}× libevemu")
    return {"touchd": a, "libevemu": b}


def capture_120hz(path, seconds):
    """10 fingers circling at 120 Hz for `seconds` (a header for touchd's virtual 800×480 panel)."""
    lines = ["# EVEMU 1.3", "N: touchd bench 10-finger touchscreen", "I: 0006 1234 0010 0001",
             "P: 02 00 00 00 00 00 00 00", "B: 00 0b 00 00 00 00 00 00 00", "A: 00 0 799 0 0 0", "A: 01 0 479 0 0 0",
             "A: 2f 0 9 0 0 0", "A: 35 0 799 0 0 0", "A: 36 0 479 0 0 0", "A: 39 0 65535 0 0 0"]
    frames = int(seconds * 120)
    for f in range(frames):
        ts = f"{1 + f / 120:.6f}"
        for slot in range(10):
            a = f * 0.05 + slot * 0.628
            lines.append(f"E: {ts} 0003 002f {slot}")
            if f == 0:
                lines.append(f"E: {ts} 0003 0039 {slot + 1}")
            lines.append(f"E: {ts} 0003 0035 {int(80 + slot * 70 + 30 * math.cos(a))}")
            lines.append(f"E: {ts} 0003 0036 {int(240 + 180 * math.sin(a))}")
        lines.append(f"E: {ts} 0000 0000 0")
    ts = f"{1 + frames / 120:.6f}"
    for slot in range(10):
        lines += [f"E: {ts} 0003 002f {slot}", f"E: {ts} 0003 0039 -1"]
    lines.append(f"E: {ts} 0000 0000 0")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def peak_rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for l in f:
                if l.startswith("VmHWM:"):
                    return int(l.split()[1])
    except OSError:
        return None


def bench_latency(binary, tmp, seconds):
    floor = cc(tmp, "latency-floor.c", "latency-floor")
    client = cc(tmp, "latency-client.c", "latency-client")
    subprocess.run(bench_command(binary) + ["--write", tmp, "--events", "1000"], check=True)
    cfg = os.path.join(tmp, "bench.json")
    cap = os.path.join(tmp, "fingers-120hz.evemu")
    capture_120hz(cap, seconds)
    results = {}
    sock = os.path.join(tmp, "floor.sock")
    server = subprocess.Popen([floor, sock, "16", "120", str(seconds)])
    time.sleep(0.1)
    results["floor"] = subprocess.run([client, sock, "16"], capture_output=True, text=True).stdout.split()
    server.wait(timeout=30)
    sock = os.path.join(tmp, "touchd.sock")
    # 17 clients: the 16 measured and, once they are in, one asking for the daemon's stats.
    daemon = subprocess.Popen([binary, "run", "--config", cfg, "--socket", sock, "--replay", cap, "--speed", "1",
                               "--wait-clients", "17", "--exit-at-end", "--log-level", "warning"], stderr=subprocess.DEVNULL)
    measuring = subprocess.Popen([client, sock, "16"], stdout=subprocess.PIPE, text=True)
    stats = StatsPoller(sock)
    rss = 0
    while measuring.poll() is None:
        r = peak_rss_kib(daemon.pid)
        rss = max(rss, r or 0)
        stats.poll()
        time.sleep(0.05)
    results["touchd"] = measuring.stdout.read().split()
    daemon.wait(timeout=30)
    print(f"latency: 10 fingers at 120 Hz for {seconds:g} s, 1,000-view scene, 16 subscribers; frame time → arrival at the 16th (µs)")
    figures = {}
    for name in ["floor", "touchd"]:
        r = results[name]
        if len(r) < 8:
            print(f"  {name}: no result ({' '.join(r)})")
            return None
        figures[name] = (int(r[3]), int(r[5]), int(r[7]))
        print(f"  {name:>6}: {r[0]} frames  p50 {r[3]:>6}  p99 {r[5]:>6}  max {r[7]:>6}")
    (f50, f99, _), (t50, t99, _) = figures["floor"], figures["touchd"]
    print(f"  ratio: p50 {t50 / max(f50, 1):.2f}×  p99 {t99 / max(f99, 1):.2f}× the floor")
    breakdown(stats.last, t50, t99)
    print(f"  touchd peak RSS {rss / 1024:.1f} MiB")
    return {"floor": figures["floor"], "touchd": figures["touchd"]}


class StatsPoller:
    """A client that, once the measured ones are connected, asks the daemon for `stats` every
    quarter second (subscribed to device messages only) and keeps the last reply."""

    def __init__(self, path):
        self.path, self.sock, self.buf, self.last, self.asked = path, None, b"", None, 0.0
        self.start = time.monotonic()

    def poll(self):
        now = time.monotonic()
        try:
            if self.sock is None:
                if now - self.start < 1:   # after latency-client's 16 (the replay waits for 17)
                    return
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                try:
                    s.connect(self.path)
                except OSError:
                    s.close()
                    return
                self.sock = s
                self.sock.sendall(b'{"subscribe":{"types":["device"]}}\n')
                self.sock.setblocking(False)
            if now - self.asked >= 0.25:
                self.sock.sendall(b'{"stats":true}\n')
                self.asked = now
            while True:
                data = self.sock.recv(65536)
                if not data:
                    break
                self.buf += data
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            return
        *lines, self.buf = self.buf.split(b"\n")
        for line in lines:
            if line.startswith(b'{"type":"stats"'):
                self.last = json.loads(line)


def breakdown(stats, t50, t99):
    """Where touchd's time goes, from the daemon's own latency histograms (per write: the p99
    stands for the last of a frame's 16 writes) and the client's figure."""
    if not stats:
        print("  breakdown: no stats reply from the daemon")
        return
    i, w = stats["inputLatencyMicros"], stats["latencyMicros"]
    print(f"  where touchd's time goes (µs; the daemon's stats over its last {i['samples']} writes, then the client's figure):")
    print(f"    frame's time → published by the engine (wake-up, input, engine)  p50 {i['p50'] - w['p50']:>6}  p99 {i['p99'] - w['p99']:>6}")
    print(f"    published → written to a subscriber (encode, fan-out, write)    p50 {w['p50']:>6}  p99 {w['p99']:>6}")
    print(f"    frame's time → written (the two above: inputLatencyMicros)       p50 {i['p50']:>6}  p99 {i['p99']:>6}")
    print(f"    written → read by the 16th subscriber (kernel, the client)       p50 {t50 - i['p50']:>6}  p99 {t99 - i['p99']:>6}")


def needs_cc():
    if not shutil.which("cc"):
        sys.exit("scripts/bench: needs a C compiler (cc; scripts/deps bench)")


def add_replay_arguments(ap):
    ap.add_argument("--runs", type=int, default=5, help="alternating runs of each (default 5)")


def replay(binary, args):
    needs_cc()
    subprocess.run([os.path.join(ROOT, "scripts", "deps"), "bench"], check=True)
    with tempfile.TemporaryDirectory(prefix="touchd-bench-") as tmp:
        bench_replay(binary, tmp, args.runs)
    return 0


def add_latency_arguments(ap):
    ap.add_argument("--seconds", type=float, default=10, help="length of the 120 Hz capture (default 10)")


def latency(binary, args):
    needs_cc()
    with tempfile.TemporaryDirectory(prefix="touchd-bench-") as tmp:
        bench_latency(binary, tmp, args.seconds)
    return 0
