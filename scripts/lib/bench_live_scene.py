"""Frame latency through the real daemon, without and with a client's update stream, in one run:
`scripts/bench live-scene [--binary B] [--seconds S] [--rate N] [--views N]`.

Starts `touchd run --replay` (real time) on a generated capture of two fingers moving on a
client's window of N views (default 1,000): frames every 5 ms for 2×S seconds. A subscriber
timestamps every frame it receives. For the first S seconds nothing else happens; for the
next S seconds the window's owner moves one of its views N times a second (default 1,000)
over the socket, reading every reply. Latency of a frame = when the subscriber read it −
when the replay was due to play it (the capture time on the wall clock of the replay's
start, which the subscriber learns from the first frame: the figures are relative to the
fastest frame of the run, so they show what the update stream adds, not absolute latency).

Prints p50 / p99 / max of the frame latency for each half, and the updates applied. Standard
library only (use a release build: swift build -c release).
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DESC = os.path.join(ROOT, "Tests", "Fixtures", "virtual-800x480.desc")


def capture(seconds):
    """Two fingers circling, a frame every 5 ms, for `seconds`; starts at capture time 1.0 s."""
    import math
    lines = []
    t = 1.0
    frames = int(seconds * 200)
    for f in range(frames):
        ts = f"{t:.6f}"
        for slot in (0, 1):
            x = int(400 + (150 + 100 * slot) * math.cos(f * 0.01 + slot))
            y = int(240 + 150 * math.sin(f * 0.01 + slot))
            lines.append(f"E: {ts} 0003 002f {slot}")
            if f == 0:
                lines.append(f"E: {ts} 0003 0039 {slot + 1}")
            lines.append(f"E: {ts} 0003 0035 {x}")
            lines.append(f"E: {ts} 0003 0036 {y}")
        lines.append(f"E: {ts} 0000 0000 0")
        t += 0.005
    ts = f"{t:.6f}"
    for slot in (0, 1):
        lines += [f"E: {ts} 0003 002f {slot}", f"E: {ts} 0003 0039 -1"]
    lines.append(f"E: {ts} 0000 0000 0")
    return "\n".join(lines) + "\n"


def window(views):
    """A window over the screen: a grid of cards of 9 buttons each, `views` views in all."""
    cards = []
    made, card = 1, 0
    while made < views:
        buttons = []
        made += 1
        b = 0
        while b < 9 and made < views:
            buttons.append({"id": f"c{card}b{b}", "frame": [5 + (b % 3) * 30, 5 + (b // 3) * 35, 28, 30], "control": "button"})
            b += 1
            made += 1
        cards.append({"id": f"card{card}", "frame": [(card % 8) * 100, ((card // 8) % 4) * 120, 100, 120], "subviews": buttons})
        card += 1
    return {"id": "big", "frame": [0, 0, 800, 480], "level": 1,
            "view": {"id": "big-root", "frame": [0, 0, 800, 480], "touches": "handle", "subviews": cards}}


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    for _ in range(200):
        try:
            s.connect(path)
            return s
        except OSError:
            time.sleep(0.02)
    sys.exit(f"scripts/bench live-scene: cannot connect to {path}")


def lines(sock):
    buf = b""
    while True:
        chunk = sock.recv(1 << 16)
        if not chunk:
            return
        buf += chunk
        *done, buf = buf.split(b"\n")
        for l in done:
            yield l


def pct(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, len(s) * p // 100)] if s else 0.0


def add_arguments(ap):
    ap.add_argument("--seconds", type=float, default=5.0, help="length of each half (default 5)")
    ap.add_argument("--rate", type=int, default=1000, help="view updates per second in the second half (default 1000)")
    ap.add_argument("--views", type=int, default=1000, help="views in the client's window (default 1000)")


def run(binary, args):

    tmp = tempfile.mkdtemp(prefix="touchd-bench-")
    cap = os.path.join(tmp, "moving.events")
    with open(cap, "w") as f:
        f.write(capture(2 * args.seconds))
    cfg = os.path.join(tmp, "touchd.json")
    with open(cfg, "w") as f:
        json.dump({"screen": {"width": 800, "height": 480}, "socket": {"group": None}, "clients": {"views": args.views + 10},
                   "windows": [{"id": "main", "frame": [0, 0, 800, 480], "view": {"id": "root", "frame": [0, 0, 800, 480]}}]}, f)
    sock = os.path.join(tmp, "touchd.sock")
    daemon = subprocess.Popen([binary, "run", "--config", cfg, "--socket", sock, "--replay", cap, "--device-info", DESC,
                               "--speed", "1", "--wait-clients", "2", "--exit-at-end", "--log-level", "warning"])
    try:
        owner = connect(sock)
        owner_lines = lines(owner)
        owner.sendall((json.dumps({"subscribe": {"types": ["device"]}}) + "\n").encode())
        owner.sendall((json.dumps({"attach": window(args.views)}) + "\n").encode())
        for l in owner_lines:
            m = json.loads(l)
            if m["type"] == "attached":
                break
            if m["type"] == "error":
                sys.exit(f"scripts/bench live-scene: attach refused: {m['error']}")

        received = []  # (wall time read, capture time)
        def subscribe():
            s = connect(sock)
            s.sendall(b'{"subscribe": {"types": ["frame"]}}\n')   # the second client: the replay starts
            for l in lines(s):
                now = time.monotonic()
                if l.startswith(b'{"type":"frame"'):
                    m = json.loads(l)
                    received.append((now, m["time"]))
                elif l.startswith(b'{"type":"bye"'):
                    return
        sub = threading.Thread(target=subscribe)
        sub.start()
        while not received:
            time.sleep(0.001)
        start_wall, start_capture = received[0]

        # The update stream, in the second half: one update per 1/rate s, replies read.
        applied = [0]
        def read_replies():
            for l in owner_lines:
                m = json.loads(l)
                if m["type"] == "updated":
                    applied[0] += 1
                elif m["type"] == "error":
                    print("update refused:", m["error"], file=sys.stderr)
                elif m["type"] == "bye":
                    return
        reader = threading.Thread(target=read_replies, daemon=True)
        reader.start()
        half = start_wall + args.seconds
        while time.monotonic() < half:
            time.sleep(0.01)
        sent = 0
        t0 = time.monotonic()
        end = half + args.seconds
        while True:
            now = time.monotonic()
            if now >= end:
                break
            due = int((now - t0) * args.rate)
            batch = []
            while sent < due:
                x = 5 + sent % 60
                batch.append(json.dumps({"update": {"window": "big", "changes": [{"view": "c3b4", "set": {"frame": [x, 40, 28, 30]}}]}}))
                sent += 1
            if batch:
                owner.sendall(("\n".join(batch) + "\n").encode())
            time.sleep(0.0005)
        sub.join(timeout=30)
        daemon.wait(timeout=30)
        reader.join(timeout=2)
    finally:
        if daemon.poll() is None:
            daemon.kill()

    lat = [((w - start_wall) - (c - start_capture)) * 1e6 for w, c in received]
    base = min(lat)
    quiet = [l - base for (w, _), l in zip(received, lat) if w < half]
    busy = [l - base for (w, _), l in zip(received, lat) if half <= w < end]
    print(f"live-scene: {args.views}-view client window, frames every 5 ms, 2 fingers")
    for name, xs in [("no updates", quiet), (f"{args.rate} updates/s", busy)]:
        print(f"  {name:>16}: {len(xs):5d} frames  latency p50 {pct(xs, 50):7.1f} µs  p99 {pct(xs, 99):7.1f} µs  max {max(xs) if xs else 0:7.1f} µs (above the run's fastest frame)")
    print(f"  updates: {sent} sent, {applied[0]} applied ({applied[0] / args.seconds:.0f}/s)")
    return 0
