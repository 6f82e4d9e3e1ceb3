#!/usr/bin/env python3
"""Mass disconnect: N clients each own a window of V views; all close at once while a probe
pings every 5 ms. Prints the daemon CPU seconds the departure cost, the probe's worst ping in
the 10 s after, and the daemon's RSS before and after. (issue 21: 250 × 1,000 views cost 14.7 s
of CPU, worst ping 7.8 s.)

    Benchmarks/mass-disconnect.py BINARY [--clients N] [--views V]
"""
import argparse, json, os, socket, subprocess, sys, tempfile, time

def rss_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])

def cpu_s(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")

def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s

def readline(s, buf):
    while b"\n" not in buf[0]:
        chunk = s.recv(65536)
        if not chunk:
            raise EOFError("closed")
        buf[0] += chunk
    line, buf[0] = buf[0].split(b"\n", 1)
    return json.loads(line)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--clients", type=int, default=250)
    ap.add_argument("--views", type=int, default=1000)
    a = ap.parse_args()
    d = tempfile.mkdtemp(prefix="touchd-mass-")
    cfg = os.path.join(d, "c.json")
    json.dump({"screen": {"width": 800, "height": 480},
               "clients": {"max": a.clients + 10, "views": a.views + 10},
               "windows": [{"id": "main", "frame": [0, 0, 800, 480], "view": {"id": "root", "frame": [0, 0, 800, 480]}}]},
              open(cfg, "w"))
    sock = os.path.join(d, "s.sock")
    daemon = subprocess.Popen([a.binary, "run", "--config", cfg, "--socket", sock, "--log-level", "warning"],
                              stderr=subprocess.DEVNULL)
    for _ in range(200):
        if os.path.exists(sock):
            break
        time.sleep(0.05)
    clients = []
    for c in range(a.clients):
        s = connect(sock)
        buf = [b""]
        readline(s, buf); readline(s, buf)              # hello, snapshot
        views = [{"id": f"c{c}-v{k}", "frame": [k % 100, k // 100, 1, 1]} for k in range(a.views - 1)]
        req = {"attach": {"id": f"c{c}", "frame": [0, 0, 100, 100], "view": {"id": f"c{c}-root", "frame": [0, 0, 100, 100], "subviews": views}}}
        s.sendall((json.dumps(req) + "\n").encode())
        r = readline(s, buf)
        assert r["type"] == "attached", r
        clients.append(s)
    probe = connect(sock)
    pbuf = [b""]
    readline(probe, pbuf); readline(probe, pbuf)
    rss_before = rss_kib(daemon.pid)
    cpu_before = cpu_s(daemon.pid)
    t0 = time.monotonic()
    for s in clients:
        s.close()
    worst = 0.0
    k = 0
    while time.monotonic() - t0 < 10:
        k += 1
        sent = time.monotonic()
        probe.sendall(f'{{"ping":{k}}}\n'.encode())
        while True:
            m = readline(probe, pbuf)
            if m.get("type") == "pong" and m.get("ping") == k:
                break
        worst = max(worst, time.monotonic() - sent)
        time.sleep(0.005)
    cpu_after = cpu_s(daemon.pid)
    rss_after = rss_kib(daemon.pid)
    print(f"mass disconnect: {a.clients} clients × {a.views} views: daemon CPU {cpu_after - cpu_before:.2f} s, "
          f"worst ping {worst * 1000:.0f} ms, RSS {rss_before // 1024} MiB before, {rss_after // 1024} MiB after", flush=True)
    daemon.terminate()
    try:
        daemon.wait(10)
    except subprocess.TimeoutExpired:
        daemon.kill()
        daemon.wait()

main()
