"""A client against hostile_server.py's flood, in a process of its own so that its memory can be
measured alone: prints one JSON line with its peak resident size (VmHWM, KiB: this process's
own peak — ru_maxrss would start at the parent's peak, which exec carries over) before and
after, what was held for poll() and the errors it reported.

    flood_client.py PATH connect    connect() to a daemon that floods lines and never says hello
    flood_client.py PATH request    connect(), then a ping the flooding daemon never answers
    flood_client.py PATH poll N     connect(), then poll() until N messages are handed on
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from touchd_client import TouchdClient  # noqa: E402


def peak_kib():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))


path, scenario = sys.argv[1], sys.argv[2]
client = TouchdClient(path, timeout=5, reconnect=False)
errors = []
client.on_error(lambda e: errors.append(str(e)))
before = peak_kib()
if scenario == "connect":
    result = client.connect()
elif scenario == "poll":
    if not client.connect():
        sys.exit("no hello from hostile_server.py")
    dispatched = 0
    while client.connected and dispatched < int(sys.argv[3]):
        dispatched += client.poll(1)
    result = {"dispatched": dispatched, "connected": client.connected}
else:
    if not client.connect():
        sys.exit("no hello from hostile_server.py")
    try:
        client.ping()
        result = "answered"
    except Exception as e:      # noqa: BLE001 (never answered: what ended the wait)
        result = "%s: %s" % (type(e).__name__, e)
after = peak_kib()
held = len(client._queue)
client.close()
print(json.dumps({"result": result, "before_kib": before, "after_kib": after, "held": held, "errors": errors,
                  "bound": getattr(client, "max_held", None), "max_line": client.max_line}))
