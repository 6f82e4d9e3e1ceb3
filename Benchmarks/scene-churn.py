#!/usr/bin/env python3
"""Scene churn: N clients each own a window of V views; one more client adds and removes one
view of its own window, pair after pair, while a probe pings between the pairs. Prints the
daemon CPU per pair, the median and worst time for a pair's two replies, and the probe's worst
ping. A structural change should cost what it changes, not what the scene holds (issue 21: one
add/remove pair cost 0.02 ms alone but 3.9 ms with 16 clients of 4,000 views).

    Benchmarks/scene-churn.py BINARY [--clients N] [--views V] [--pairs P]
"""
import argparse, time

from live_daemon import Client, cpu_s, start, stop


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--views", type=int, default=4000)
    ap.add_argument("--pairs", type=int, default=500)
    a = ap.parse_args()
    daemon, sock = start(a.binary, a.clients, a.views, "touchd-churn-")
    try:
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
        stop(daemon)

main()
