"""Shared pieces of the touchd_client tests: fake servers that the tests control, and helpers.

Standard library only. Every wait is bounded; every thread is a daemon thread joined with a
timeout, so a broken library fails a test instead of hanging the suite.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(PYTHON_DIR)
sys.path.insert(0, PYTHON_DIR)

MAX_LINE = 65536    # the daemon's limit on a request line (docs/protocol.md), newline excluded
MAX_DEPTH = 200     # the daemon's JSON nesting limit (objects and arrays, the outermost is 1)

HELLO = {"type": "hello", "protocol": 1, "version": "0.1.0",
         "screen": {"width": 800.0, "height": 480.0}, "pid": 4242}


def encode(msg):
    return msg if isinstance(msg, bytes) else (json.dumps(msg) + "\n").encode()


def json_depth(obj):
    """Nesting depth of containers, as the daemon's parser counts it (iterative)."""
    deepest, stack = 0, [(obj, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            deepest = max(deepest, depth)
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            deepest = max(deepest, depth)
            stack.extend((v, depth + 1) for v in value)
    return deepest


def flatten(window):
    """A window as a list of (view id, parent id, index, shallow keys): comparable without recursion."""
    out, stack = [], []
    if window.get("view") is not None:
        stack.append((window["view"], None, 0))
    while stack:
        view, parent, index = stack.pop()
        shallow = {k: v for k, v in view.items() if k != "subviews"}
        out.append((view.get("id"), parent, index, json.dumps(shallow, sort_keys=True)))
        for i, sub in enumerate(view.get("subviews", [])):
            stack.append((sub, view.get("id"), i))
    out.sort()
    return out


class Conn:
    """One accepted connection, seen from the fake server."""

    def __init__(self, sock):
        self.sock = sock
        self.buffer = b""
        self.closed = False

    def send(self, *msgs):
        try:
            self.sock.sendall(b"".join(encode(m) for m in msgs))
            return True
        except OSError:
            return False

    def read_line(self, timeout=5.0):
        """The next line (bytes, without newline), or None on EOF or timeout."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(1 << 20)
            except (socket.timeout, OSError):
                return None
            if not data:
                return None
            self.buffer += data
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def close(self):
        self.closed = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


class FakeServer:
    """A Unix listening socket; each connection is served by handler(conn, index) in a thread."""

    def __init__(self, path, handler):
        self.path = path
        self.handler = handler
        self.conns = []
        self.errors = []
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(8)
        self.listener.settimeout(0.05)
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self._accept, daemon=True)]
        self.threads[0].start()

    def _accept(self):
        while not self.stopping.is_set():
            try:
                sock, _ = self.listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            conn = Conn(sock)
            self.conns.append(conn)
            t = threading.Thread(target=self._serve, args=(conn, len(self.conns) - 1), daemon=True)
            self.threads.append(t)
            t.start()

    def _serve(self, conn, index):
        try:
            self.handler(conn, index)
        except Exception as e:     # reported by stop(), so a broken fake server fails its test
            if not conn.closed:
                self.errors.append(repr(e))
        finally:
            if not conn.closed:
                conn.close()

    def kick(self):
        """Close every open connection (a daemon that went away)."""
        for conn in list(self.conns):
            if not conn.closed:
                conn.close()

    def stop(self):
        self.stopping.set()
        self.kick()
        self.listener.close()
        for t in self.threads:
            t.join(5)
        try:
            os.unlink(self.path)
        except OSError:
            pass


class SceneServer(FakeServer):
    """A fake daemon that owns windows like touchd's live scene: it answers attach, update,
    detach, subscribe and ping with their line numbers, refuses lines longer than MAX_LINE bytes
    and JSON nested deeper than MAX_DEPTH like the daemon, and keeps each connection's windows
    (a new connection starts with none: a restarted daemon). It records every line it got."""

    def __init__(self, path):
        self.scenes = []        # per connection: {window id: window}
        self.lines = []         # per connection: the lengths of the lines received
        self.hidden_log = []    # per connection: (request kind, window hidden after it)
        super().__init__(path, self._scene)

    def _scene(self, conn, index):
        windows, lengths, hidden = {}, [], []
        self.scenes.append(windows)
        self.lines.append(lengths)
        self.hidden_log.append(hidden)
        conn.send(HELLO, {"type": "snapshot", "seq": 0, "time": 0.0, "devices": [], "touches": []})
        number = 0
        while True:
            line = conn.read_line(30)
            if line is None:
                return
            number += 1
            lengths.append(len(line))
            if len(line) > MAX_LINE:
                conn.send({"type": "error", "error": "line %d is longer than %d bytes; skipped" % (number, MAX_LINE),
                           "line": number})
                continue
            try:
                request = json.loads(line)
            except RecursionError:
                request = None
            if request is None or json_depth(request) > MAX_DEPTH:
                conn.send({"type": "error", "error": "nesting deeper than %d levels" % MAX_DEPTH, "line": number})
                continue
            (kind, body), = request.items()
            if kind == "attach":
                windows[body["id"]] = body
                hidden.append((kind, bool(body.get("hidden"))))
                conn.send({"type": "attached", "window": body["id"], "version": 1, "line": number})
            elif kind == "update":
                window = windows[body["window"]]
                for change in body["changes"]:
                    apply_change(window, change)
                window["_version"] = window.get("_version", 1) + 1
                hidden.append((kind, bool(window.get("hidden"))))
                conn.send({"type": "updated", "window": body["window"], "version": window["_version"], "line": number})
            elif kind == "detach":
                windows.pop(body["window"], None)
                conn.send({"type": "detached", "window": body["window"], "line": number})
            elif kind == "subscribe":
                conn.send({"type": "snapshot", "seq": 0, "time": 0.0, "devices": [], "touches": []})
            elif kind == "ping":
                conn.send({"type": "pong", "ping": body})


def find_view(window, vid):
    """(view, parent) by id, iteratively (the test's own, independent of the library's)."""
    stack = [(window.get("view"), None)]
    while stack:
        view, parent = stack.pop()
        if view is None:
            continue
        if view.get("id") == vid:
            return view, parent
        stack.extend((sub, view) for sub in view.get("subviews", []))
    raise KeyError(vid)


def apply_change(window, change):
    if "add" in change:
        subs = find_view(window, change["to"])[0].setdefault("subviews", [])
        subs.insert(change.get("index", len(subs)), change["add"])
    elif "set" in change:
        find_view(window, change["view"])[0].update(change["set"])
    elif "window" in change:
        window.update(change["window"])
    elif "remove" in change:
        view, parent = find_view(window, change["remove"])
        parent["subviews"].remove(view)


def without_version(window):
    w = {k: v for k, v in window.items() if k != "_version"}
    if w.get("hidden") is False:
        del w["hidden"]
    return w


class TempDirTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="touchd-client-test-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def serve(self, handler):
        server = FakeServer(self.path("fake.sock"), handler)
        self.addCleanup(self._stop, server)
        return server

    def scene(self):
        server = SceneServer(self.path("scene.sock"))
        self.addCleanup(self._stop, server)
        return server

    def _stop(self, server):
        server.stop()
        self.assertEqual(server.errors, [], "the fake server itself failed")


def pump(client, until, seconds):
    """poll() until until() is true or seconds pass; True if it became true."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if until():
            return True
        client.poll(0.02)
    return until()


def wait_for(predicate, timeout, what):
    """predicate()'s first true value, polled every 20 ms; AssertionError after timeout seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError("timed out after %g s waiting for %s" % (timeout, what))


def touchd_binary():
    """The touchd these tests run, by every harness's rule (scripts/lib/binary.py built_touchd:
    $TOUCHD_BINARY, else the newest of the debug and release builds); the debug build's path
    when there is none (the tests that need it are then skipped, naming it)."""
    sys.path.insert(0, os.path.join(REPO, "scripts", "lib"))
    try:
        from binary import built_touchd
    finally:
        sys.path.pop(0)
    return built_touchd() or os.path.join(REPO, ".build", "debug", "touchd")


class Daemon:
    """The real touchd on a socket of its own (examples/kiosk's config, no touchscreen)."""

    def __init__(self, binary, sock, log):
        self.proc = subprocess.Popen([binary, "run", "--config", os.path.join(REPO, "examples", "kiosk", "touchd.json"),
                                      "--socket", sock, "--log-level", "warning"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
        deadline = time.monotonic() + 10
        while not os.path.exists(sock):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise AssertionError("touchd did not start listening on %s" % sock)
            time.sleep(0.02)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                pass
        self.kill()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(5)


def raw_request(sock_path, request, timeout=5.0):
    """One request from a second, plain connection; returns its reply (or error)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(sock_path)
        s.sendall(encode(request))
        f = s.makefile("rb")
        for line in f:
            msg = json.loads(line)
            if msg.get("type") in ("attached", "updated", "detached", "error"):
                return msg
    finally:
        s.close()
    return None
