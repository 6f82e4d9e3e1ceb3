"""Load test of `touchd run`: many well-behaved subscribers plus hostile ones.

    scripts/bench load [--binary B] [--clients 200] [--bad 10] [--speed 3]
    scripts/bench load --clients 1000 --bad 80      # 10 of each of the 8 kinds

Starts the real daemon on a temporary socket replaying a real capture, connects
`clients - bad` well-behaved subscribers and `bad` misbehaving ones, the kinds taken in turn:
  never-reads     subscribes, then never reads a byte
  garbage         sends random bytes and broken JSON without pause
  huge-line       sends a 10 MB line
  vanishes        closes abruptly (RST) half-way through a request while being written to
  stats-flood     asks for `stats` as fast as it can, reading the replies
  request-flood   sends pings as fast as it can and never reads a reply
  slow-filtered   subscribes to frames of one window with a filter and reads 4 KB every 50 ms
  churn           connects, subscribes and disconnects, over and over
and checks that every well-behaved client receives every frame and control message, in
order, exactly as `touchd replay` prints them, and that a probe's pings are answered
promptly meanwhile. Prints the figures: messages per second delivered, per-frame latency
from input to the last write (the daemon's own measurement), the probe's worst ping round
trip, the daemon's peak RSS. Raises this process's descriptor limit to its hard limit (the
daemon raises its own). Exits 1 on any failure. Every wait is bounded.
"""
import json
import re
import os
import resource
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


DAEMON = None
KINDS = ["never-reads", "garbage", "huge-line", "vanishes", "stats-flood", "request-flood", "slow-filtered", "churn"]


TIMES = re.compile(rb'"(time|timestamp)":-?[0-9.e+-]+')


def untimed(line):
    return TIMES.sub(rb'"\1":T', line)


def fail(msg):
    print(f"FAIL: {msg}", flush=True)
    if DAEMON is not None and DAEMON.poll() is None:
        DAEMON.kill()
    sys.exit(1)


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s


def add_arguments(ap):
    ap.add_argument("--capture", default=os.path.join(ROOT, "Tests", "Fixtures", "captures",
                                                       "atmel-maxtouch_tslib-ts-verify-1-finger-long.events"),
                    help="the capture the daemon replays (default: the 18 s atmel one)")
    ap.add_argument("--clients", type=int, default=200, help="clients in all (default 200)")
    ap.add_argument("--bad", type=int, default=10, help="of which misbehaving (default 10)")
    ap.add_argument("--queue", type=int, default=512, help="clients.queue: messages held for one client (default 512)")
    ap.add_argument("--kinds", default=",".join(KINDS), help="the misbehaviours to use, in turn (default: all, comma-separated)")
    ap.add_argument("--speed", type=float, default=3, help="replay speed (default 3)")
    ap.add_argument("--timeout", type=float, default=90, help="seconds before giving up (default 90)")
    ap.add_argument("--max-pong", type=float, default=1.0,
                    help="the longest a well-behaved client may wait for a pong (default 1 s; the test suite, "
                         "on a loaded 2-core machine with the debug build, asks only that it is answered: 5 s)")


def run(binary, args):
    try:
        return load(binary, args)
    except (OSError, TimeoutError) as e:
        fail(f"{type(e).__name__}: {e}")
    finally:
        if DAEMON is not None and DAEMON.poll() is None:
            DAEMON.kill()


def load(binary, args):
    good_n = args.clients - args.bad
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want_fds = args.clients + 200
    if soft < want_fds:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(want_fds, soft)), hard))
    tmp = tempfile.mkdtemp(prefix="touchd-load-")
    sock = os.path.join(tmp, "touchd.sock")
    config = os.path.join(tmp, "touchd.json")
    with open(config, "w") as f:
        json.dump({"screen": {"width": 800, "height": 480},
                   "clients": {"queue": args.queue, "max": args.clients + 20},
                   "windows": [{"id": "main", "frame": [0, 0, 800, 480],
                                "view": {"id": "surface", "frame": [0, 0, 800, 480], "control": "button"}}]}, f)

    expected = subprocess.run([binary, "replay", "--config", config, args.capture],
                              capture_output=True, text=True, timeout=60)
    if expected.returncode != 0:
        fail(f"touchd replay: {expected.stderr}")
    # The daemon stamps a paced replay's frames with the monotonic time they are due; offline,
    # they carry the capture's: everything else must be the same bytes.
    want = [untimed(l.encode()) for l in expected.stdout.splitlines() if json.loads(l)["type"] in ("frame", "control")]

    log = open(os.path.join(tmp, "daemon.log"), "w+")
    daemon = subprocess.Popen([binary, "run", "--config", config, "--socket", sock, "--replay", args.capture,
                               "--speed", str(args.speed), "--wait-clients", str(good_n), "--log-level", "warning"],
                              stderr=log)
    global DAEMON
    DAEMON = daemon
    deadline = time.time() + 20
    while not os.path.exists(sock) and time.time() < deadline:
        time.sleep(0.01)
    if not os.path.exists(sock):
        fail("the daemon did not start")

    sel = selectors.DefaultSelector()
    good = []
    for i in range(good_n):
        s = connect(sock)
        s.setblocking(False)
        s.sendall(b'{"subscribe":{"types":["frame","control"]}}\n')
        state = {"sock": s, "buf": b"", "lines": [], "i": i}
        good.append(state)
        sel.register(s, selectors.EVENT_READ, state)

    # The misbehaving ones, once the replay is running.
    bad = []
    kinds = args.kinds.split(",")
    if not kinds or any(k not in KINDS for k in kinds):
        fail(f"--kinds: expected some of {','.join(KINDS)}, got {args.kinds!r}")
    for i in range(args.bad):
        kind = kinds[i % len(kinds)]
        s = connect(sock)
        bad.append((kind, s))
        if kind == "never-reads":
            s.sendall(b'{"subscribe":{}}\n')     # and then never reads a byte
        elif kind == "slow-filtered":
            s.sendall(b'{"subscribe":{"types":["frame"],"windows":["main"]}}\n')
        # Non-blocking: the daemon stops reading a client whose replies it cannot deliver.
        s.setblocking(False)
    probe = connect(sock)
    probe.settimeout(5)
    probe_file = probe.makefile("rb")
    worst_ping = 0.0
    pings = 0
    last_ping = 0.0
    churned = 0
    last_slow = {}
    start = time.time()
    huge = b"x" * (10 * 1024 * 1024) + b"\n"
    huge_sent = {id(s): 0 for k, s in bad if k == "huge-line"}
    vanished = False
    received = 0
    while time.time() - start < args.timeout:
        for key, _ in sel.select(timeout=0.05):
            st = key.data
            try:
                data = st["sock"].recv(262144)
            except BlockingIOError:
                continue
            if not data:
                sel.unregister(st["sock"])
                continue
            st["buf"] += data
            *lines, st["buf"] = st["buf"].split(b"\n")
            for l in lines:
                # Cheap type check (the daemon writes "type" first); parsing every line in
                # Python would make this reader, not the daemon, the bottleneck.
                if l.startswith(b'{"type":"frame"') or l.startswith(b'{"type":"control"'):
                    st["lines"].append(l)
                    received += 1
                elif l.startswith(b'{"type":"overflow"'):
                    fail(f"well-behaved client {st['i']} overflowed: {l.decode()}")
        now = time.time()
        for n, (kind, s) in enumerate(bad):
            try:
                if kind == "garbage":
                    s.send(os.urandom(512) + b"\n\x00\xff{not json}\n")
                elif kind == "huge-line" and huge_sent[id(s)] < len(huge):
                    huge_sent[id(s)] += s.send(huge[huge_sent[id(s)]:huge_sent[id(s)] + 1048576])
                elif kind == "stats-flood":
                    s.send(b'{"stats":true}\n' * 64)
                    while s.recv(1 << 20):
                        pass
                elif kind == "request-flood":
                    s.send(b'{"ping":1}\n' * 4096)
                elif kind == "slow-filtered" and now - last_slow.get(n, 0) >= 0.05:
                    last_slow[n] = now
                    s.recv(4096)
                elif kind == "churn":
                    c = connect(sock)
                    c.sendall(b'{"subscribe":{}}\n')
                    c.close()
                    churned += 1
            except (BlockingIOError, BrokenPipeError, ConnectionResetError, OSError):
                pass
        if now - last_ping >= 0.1:
            # A well-behaved client's request is answered within a few loop turns whatever
            # the others do.
            last_ping = now
            t0 = time.time()
            probe.sendall(b'{"ping":%d}\n' % pings)
            while True:
                try:
                    line = probe_file.readline()
                except TimeoutError:
                    fail(f"no pong within 5 s (ping {pings}, {time.time() - start:.1f} s into the run)")
                if not line:
                    fail("the probe was disconnected")
                if line.startswith(b'{"type":"pong"'):
                    break
            worst_ping = max(worst_ping, time.time() - t0)
            pings += 1
        if not vanished and time.time() - start > 0.5:
            # Close abruptly (RST) while the daemon may be writing to them.
            for kind, s in bad:
                if kind == "vanishes":
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                    s.send(b'{"subscr')
                    s.close()
            vanished = True
        if all(len(st["lines"]) >= len(want) for st in good):
            break
    elapsed = time.time() - start

    for st in good:
        got = [untimed(l) for l in st["lines"]]
        if got != want:
            first = next((k for k in range(min(len(got), len(want))) if got[k] != want[k]), min(len(got), len(want)))
            fail(f"client {st['i']} received {len(got)} of {len(want)} messages after {elapsed:.1f} s; first difference at {first}: got {got[first][:150] if first < len(got) else None!r} want {want[first][:150]!r}")

    # The daemon's own figures, asked by a well-behaved client, then a clean stop.
    probe.settimeout(10)
    probe.sendall(b'{"stats":true}\n')
    stats = None
    for l in probe_file:
        m = json.loads(l)
        if m["type"] == "stats":
            stats = m
            break
    daemon.send_signal(signal.SIGTERM)
    try:
        code = daemon.wait(timeout=20)
    except subprocess.TimeoutExpired:
        daemon.kill()
        fail("the daemon did not stop on SIGTERM")
    if code != 0:
        fail(f"the daemon exited with {code}")
    if stats is None:
        fail("no stats reply")
    lat = stats["latencyMicros"]
    rss_mib = stats["peakRSSKiB"] / 1024
    print(f"load: {good_n} well-behaved + {args.bad} misbehaving clients "
          f"({', '.join(k for k in kinds if k in set(kinds[i % len(kinds)] for i in range(args.bad)))}), capture {os.path.basename(args.capture)} at speed {args.speed}")
    print(f"  every well-behaved client received all {len(want)} messages in order")
    print(f"  delivered {received} messages in {elapsed:.2f} s: {received / elapsed:,.0f} messages/s")
    print(f"  latency input -> write (daemon, {lat['samples']} writes): p50 {lat['p50']} us, p99 {lat['p99']} us, max {lat['max']} us")
    print(f"  dropped for the slow clients: {stats['dropped']} (with overflow notices)")
    print(f"  probe: {pings} pings answered, worst round trip {worst_ping * 1000:.1f} ms" + (f"; {churned} connections churned" if churned else ""))
    print(f"  daemon peak RSS: {rss_mib:.1f} MiB")
    if pings == 0 or worst_ping > args.max_pong:
        fail(f"a well-behaved client waited {worst_ping:.2f} s for a pong")
    if rss_mib > 256:
        fail(f"daemon memory is not bounded: peak RSS {rss_mib:.1f} MiB")
    log.seek(0)
    text = log.read()
    if any(k == "never-reads" for k, _ in bad) and args.queue < len(want) and "is not keeping up" not in text:
        # (They subscribe to everything: more than a queue's worth of messages reach them.)
        fail("the daemon did not report the clients that never read")
    print("1 passed, 0 failed")
    return 0
