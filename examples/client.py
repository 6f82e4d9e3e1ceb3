#!/usr/bin/env python3
"""A small touchd client: subscribes and prints each button press and each finger's path.

    examples/client.py [--socket /run/touchd/touchd.sock] [--view ID]

Built on the Python client library (python/touchd_client, or python3-touchd installed), standard
library only. Runs until the daemon says goodbye or goes away; every touch still down then is
reported cancelled (disconnected), as the library hands it on.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from touchd_client import TouchdClient, TouchdError  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--socket", default="/run/touchd/touchd.sock")
    ap.add_argument("--view", action="append", default=[], help="only touches bound to this view (or inside it)")
    args = ap.parse_args()

    client = TouchdClient(args.socket, reconnect=False)
    paths = {}  # touch id -> [view, start, end]

    @client.on_control
    def pressed(msg):
        if msg["event"] == "primaryActionTriggered":
            print(f"pressed {msg['control']}", flush=True)

    @client.on_touch
    def touched(touch):
        if touch["phase"] == "began":
            paths[touch["id"]] = [touch["view"], touch["location"], touch["location"]]
        elif touch["id"] in paths:
            paths[touch["id"]][2] = touch["location"]
        if touch["phase"] in ("ended", "cancelled") and touch["id"] in paths:
            view, (x0, y0), (x1, y1) = paths.pop(touch["id"])
            how = touch["phase"] + (f" ({touch['reason']})" if "reason" in touch else "")
            print(f"touch {touch['id']} on {view}: ({x0:g}, {y0:g}) -> ({x1:g}, {y1:g}), {how}", flush=True)

    try:
        client.connect()
        client.subscribe(types=["frame", "control"], views=args.view or None)
    except OSError as e:    # the library's text names the path and asks whether touchd runs
        sys.exit(e.strerror if args.socket in (e.strerror or "") else f"cannot connect to {args.socket}: {e}")
    except TouchdError as e:
        sys.exit(f"touchd: {e.error}")
    client.run()    # until the connection ends (reconnect=False)


if __name__ == "__main__":
    main()
