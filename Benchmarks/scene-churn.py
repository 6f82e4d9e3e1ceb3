#!/usr/bin/env python3
"""Scene churn: N clients each own a window of V views; one more client adds and removes one
view of its own window, pair after pair, while a probe pings between the pairs. Prints the
daemon CPU per pair, the median and worst time for a pair's two replies, and the probe's worst
ping. A structural change should cost what it changes, not what the scene holds (issue 21: one
add/remove pair cost 0.02 ms alone but 3.9 ms with 16 clients of 4,000 views).

    Benchmarks/scene-churn.py BINARY [--clients N] [--views V] [--pairs P]
"""
import argparse, json, os, socket, subprocess, tempfile, time

def cpu_s(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")

class Client:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        self.buf = b""
        self.line(); self.line()                         # hello, snapshot

    def line(self):
        while b"\n" not in self.buf:
            chunk = self.s.recv(1 << 20)
            if not chunk:
                raise EOFError("the daemon closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def ask(self, req, want):
        self.s.sendall((json.dumps(req) + "\n").encode())
        while True:
            m = self.line()
            if m.get("type") == want:
                return m
            if m.get("type") == "error":
                raise RuntimeError(m)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--views", type=int, default=4000)
    ap.add_argument("--pairs", type=int, default=500)
    a = ap.parse_args()
    d = tempfile.mkdtemp(prefix="touchd-churn-")
    cfg = os.path.join(d, "c.json")
    json.dump({"screen": {"width": 800, "height": 480},
               "clients": {"max": a.clients + 10, "views": a.views + 10},
               "windows": [{"id": "main", "frame": [0, 0, 800, 480], "view": {"id": "root", "frame": [0, 0, 800, 480]}}]},
              open(cfg, "w"))
    sock = os.path.join(d, "s.sock")
    daemon = subprocess.Popen([a.binary, "run", "--config", cfg, "--socket", sock, "--log-level", "warning"],
                              stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            if os.path.exists(sock):
                break
            time.sleep(0.05)
        owners = []
        for c in range(a.clients):
            cl = Client(sock)
            views = [{"id": f"c{c}-v{k}", "frame": [k % 100, k // 100, 1, 1]} for k in range(a.views - 1)]
            cl.ask({"attach": {"id": f"c{c}", "frame": [0, 0, 100, 100],
                               "view": {"id": f"c{c}-root", "frame": [0, 0, 100, 100]}}}, "attached")
            for k in range(0, len(views), 800):                # a request line holds 64 KiB
                cl.ask({"update": {"window": f"c{c}", "changes": [{"add": v, "to": f"c{c}-root"} for v in views[k:k + 800]]}}, "updated")
            owners.append(cl)
        churn = Client(sock)
        churn.ask({"attach": {"id": "churn", "frame": [700, 0, 100, 100],
                              "view": {"id": "churn-root", "frame": [0, 0, 100, 100]}}}, "attached")
        probe = Client(sock)
        times, pings = [], []
        cpu0 = cpu_s(daemon.pid)
        for k in range(a.pairs):
            t = time.monotonic()
            churn.ask({"update": {"window": "churn", "changes": [{"add": {"id": "x", "frame": [0, 0, 10, 10]}, "to": "churn-root"}]}}, "updated")
            churn.ask({"update": {"window": "churn", "changes": [{"remove": "x"}]}}, "updated")
            times.append(time.monotonic() - t)
            t = time.monotonic()
            probe.ask({"ping": k}, "pong")
            pings.append(time.monotonic() - t)
        cpu = cpu_s(daemon.pid) - cpu0
        times.sort()
        print(f"scene churn: {a.clients} clients × {a.views} views, {a.pairs} add/remove pairs: "
              f"daemon CPU {cpu / a.pairs * 1000:.2f} ms per pair, pair median {times[len(times) // 2] * 1000:.2f} ms, "
              f"worst {times[-1] * 1000:.1f} ms, worst ping {max(pings) * 1000:.1f} ms", flush=True)
    finally:
        daemon.terminate()
        try:
            daemon.wait(10)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait()

main()
