"""A hostile touchd stand-in, run as a process of its own (so that its flood is not slowed by the
test's own Python threads): listens on PATH, serves one connection, then exits.

    hostile_server.py PATH frames SECONDS       hello, snapshot, then frames as fast as they go
    hostile_server.py PATH frames-bare SECONDS  the same without hello
    hostile_server.py PATH wide SECONDS         hello, snapshot, then frames of 40 touches (5 KB lines)
    hostile_server.py PATH wide-bare SECONDS    the same without hello
    hostile_server.py PATH endless MIB          hello, snapshot, a line of MIB MiB, its newline, a control
    hostile_server.py PATH endless-bare MIB     the endless line without hello
"""
import json
import os
import socket
import sys
import time

path, mode, amount = sys.argv[1], sys.argv[2], float(sys.argv[3])
hello = (json.dumps({"type": "hello", "protocol": 1, "version": "0.1.0", "screen": {"width": 800.0, "height": 480.0},
                     "pid": 1}) + "\n" + json.dumps({"type": "snapshot", "seq": 0, "time": 0.0, "devices": [],
                                                     "touches": []}) + "\n").encode()
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(path + ".new")
listener.listen(1)
os.rename(path + ".new", path)     # PATH appears listening: a client that sees it is not refused
listener.settimeout(10)
conn, _ = listener.accept()
conn.settimeout(1)
try:
    if not mode.endswith("-bare"):
        conn.sendall(hello)
    if mode.startswith(("frames", "wide")):
        width = 40 if mode.startswith("wide") else 1
        chunk = b"".join((json.dumps({"type": "frame", "seq": n, "time": n / 1000, "device": "d",
                                      "touches": [{"id": i, "phase": "moved", "window": "w", "view": "v",
                                                   "location": [1.0, 2.0]} for i in range(1, width + 1)]})
                          + "\n").encode() for n in range(200))
        end = time.monotonic() + amount
        while time.monotonic() < end:
            conn.sendall(chunk)
    else:
        chunk = b"x" * 65536
        for _ in range(int(amount * 16)):
            conn.sendall(chunk)
        conn.sendall(b"\n" + json.dumps({"type": "control", "seq": 1, "time": 0.0, "control": "ok",
                                         "event": "touchDown", "touch": 1}).encode() + b"\n")
        conn.settimeout(10)
        conn.recv(1)        # until the client hangs up
except OSError:
    pass
