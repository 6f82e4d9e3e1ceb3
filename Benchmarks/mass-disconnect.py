#!/usr/bin/env python3
"""Mass disconnect: N clients each own a window of V views; all close at once while a probe
pings every 5 ms. Prints the daemon CPU seconds the departure cost, the probe's worst ping in
the 10 s after, and the daemon's RSS before and after. (issue 21: 250 × 1,000 views cost 14.7 s
of CPU, worst ping 7.8 s.)

    Benchmarks/mass-disconnect.py BINARY [--clients N] [--views V]
"""
import argparse, time

from live_daemon import Client, cpu_s, rss_kib, start, stop


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--clients", type=int, default=250)
    ap.add_argument("--views", type=int, default=1000)
    a = ap.parse_args()
    daemon, sock = start(a.binary, a.clients, a.views, "touchd-mass-")
    clients = []
    for c in range(a.clients):
        cl = Client(sock)
        views = [{"id": f"c{c}-v{k}", "frame": [k % 100, k // 100, 1, 1]} for k in range(a.views - 1)]
        cl.ask({"attach": {"id": f"c{c}", "frame": [0, 0, 100, 100],
                           "view": {"id": f"c{c}-root", "frame": [0, 0, 100, 100], "subviews": views}}}, "attached")
        clients.append(cl)
    probe = Client(sock)
    rss_before = rss_kib(daemon.pid)
    cpu_before = cpu_s(daemon.pid)
    t0 = time.monotonic()
    for cl in clients:
        cl.s.close()
    worst = 0.0
    k = 0
    while time.monotonic() - t0 < 10:
        k += 1
        sent = time.monotonic()
        probe.ask({"ping": k}, "pong")
        worst = max(worst, time.monotonic() - sent)
        time.sleep(0.005)
    cpu_after = cpu_s(daemon.pid)
    rss_after = rss_kib(daemon.pid)
    print(f"mass disconnect: {a.clients} clients × {a.views} views: daemon CPU {cpu_after - cpu_before:.2f} s, "
          f"worst ping {worst * 1000:.0f} ms, RSS {rss_before // 1024} MiB before, {rss_after // 1024} MiB after", flush=True)
    stop(daemon)


main()
