#!/usr/bin/env python3
"""A TUIO 1.1 receiver: what touchd's `tuio` output looks like to a TUIO application.

    examples/tuio_receiver.py [--port 3333] [--json] [--idle SECONDS]

Listens for OSC bundles on a UDP port, decodes them with python-osc (PyPI:
`pip install python-osc`; scripts/deps test fetches a copy into .build/pydeps for the tests), keeps
the 2Dcur cursors as a TUIO client does (a bundle applies at its fseq; `fseq -1` parts of a
split bundle and the periodic full state apply too) and prints each cursor as it appears,
moves and leaves. With --json, prints every bundle as decoded instead, one JSON line each.
--idle exits after that many seconds without a datagram.
"""
import argparse
import glob
import json
import os
import socket
import sys

try:
    from pythonosc.osc_bundle import OscBundle
except ImportError:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for wheel in glob.glob(os.path.join(here, ".build", "pydeps", "python_osc-*.whl")):
        sys.path.insert(0, wheel)
    try:
        from pythonosc.osc_bundle import OscBundle
    except ImportError:
        sys.exit("tuio_receiver: python-osc is needed (pip install python-osc, or scripts/deps test)")


def messages(bundle):
    for item in bundle:
        if isinstance(item, OscBundle):
            yield from messages(item)
        else:
            yield item


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=3333)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--idle", type=float, default=None)
    args = ap.parse_args()
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", args.port))
    s.settimeout(args.idle)
    print(f"listening on 127.0.0.1:{args.port}", file=sys.stderr, flush=True)
    cursors = {}
    while True:
        try:
            data, _ = s.recvfrom(65536)
        except socket.timeout:
            return
        bundle = OscBundle(data)
        decoded = [{"address": m.address, "args": list(m.params)} for m in messages(bundle)]
        if args.json:
            print(json.dumps(decoded), flush=True)
            continue
        alive, sets = None, {}
        for m in decoded:
            if m["address"] != "/tuio/2Dcur" or not m["args"]:
                continue
            kind = m["args"][0]
            if kind == "alive":
                alive = set(m["args"][1:])
            elif kind == "set":
                sid, x, y, vx, vy, accel = m["args"][1:7]
                sets[sid] = (x, y, vx, vy, accel)
        if alive is None:
            continue
        for sid in sorted(set(cursors) - alive):
            print(f"cursor {sid} left", flush=True)
            del cursors[sid]
        for sid, (x, y, vx, vy, accel) in sorted(sets.items()):
            verb = "moved to" if sid in cursors else "appeared at"
            if cursors.get(sid) != (x, y):
                print(f"cursor {sid} {verb} ({x:.3f}, {y:.3f}) velocity ({vx:.2f}, {vy:.2f})", flush=True)
            cursors[sid] = (x, y)


if __name__ == "__main__":
    main()
