#!/usr/bin/env python3
"""A small touchd client: subscribes and prints each button press and each finger's path.

    examples/client.py [--socket /run/touchd/touchd.sock] [--view ID]

Standard library only. Reads the NDJSON stream until the daemon says goodbye.
"""
import argparse
import json
import socket
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--socket", default="/run/touchd/touchd.sock")
    ap.add_argument("--view", action="append", default=[], help="only touches bound to this view (or inside it)")
    args = ap.parse_args()

    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(args.socket)
    except OSError as e:
        sys.exit(f"cannot connect to {args.socket}: {e.strerror} (is touchd running?)")
    request = {"subscribe": {"types": ["frame", "control"]}}
    if args.view:
        request["subscribe"]["views"] = args.view
    s.sendall((json.dumps(request) + "\n").encode())

    paths = {}  # touch id -> [view, start, end]
    for line in s.makefile("r", encoding="utf-8"):
        m = json.loads(line)
        kind = m["type"]
        if kind == "error":
            sys.exit(f"touchd: {m['error']}")
        if kind == "control" and m["event"] == "primaryActionTriggered":
            print(f"pressed {m['control']}", flush=True)
        elif kind == "frame":
            for t in m["touches"]:
                if t["phase"] == "began":
                    paths[t["id"]] = [t["view"], t["location"], t["location"]]
                elif t["id"] in paths:
                    paths[t["id"]][2] = t["location"]
                if t["phase"] in ("ended", "cancelled") and t["id"] in paths:
                    view, (x0, y0), (x1, y1) = paths.pop(t["id"])
                    how = t["phase"] + (f" ({t['reason']})" if "reason" in t else "")
                    print(f"touch {t['id']} on {view}: ({x0:g}, {y0:g}) -> ({x1:g}, {y1:g}), {how}", flush=True)
        elif kind == "bye":
            break
    # The connection is closed (bye, or the daemon went away): every touch still open is over.
    for tid, (view, (x0, y0), (x1, y1)) in sorted(paths.items()):
        print(f"touch {tid} on {view}: ({x0:g}, {y0:g}) -> ({x1:g}, {y1:g}), cancelled (disconnected)", flush=True)


if __name__ == "__main__":
    main()
