"""A small client for touchd's socket protocol (docs/protocol.md, docs/messages.md).

Standard library only, Python 3.9+, no threads. Install it with `pip install ./python` (a
venv, or --target DIR; nothing is fetched), or put python/ on sys.path. A UI program owns
windows in touchd's live scene and reacts to what touchd publishes about them::

    from touchd_client import TouchdClient

    client = TouchdClient("/run/touchd/touchd.sock")
    client.connect()        # raises if no daemon is there; connect(wait=True) waits for one
    client.attach({"id": "panel", "frame": [0, 0, 800, 480],
                   "view": {"id": "root", "frame": [0, 0, 800, 480],
                            "subviews": [{"id": "ok", "frame": [10, 10, 120, 60], "control": "button"}]}})

    @client.on_control
    def pressed(msg):
        if msg["event"] == "primaryActionTriggered":
            print("pressed", msg["control"])

    while True:             # or client.run()
        client.poll(0.016)  # a game loop calls this once per frame; see also fileno()

Requests (attach, update, detach, subscribe, ping) send one line and wait for their reply: the
daemon answers each connection's requests in order, and the reply carries the request's line
number on the connection, which is how replies are matched. Messages that arrive meanwhile
are queued and handed to the callbacks by the next poll(), never from inside a request.

No daemon: connect() (or a poll() that connects) raises FileNotFoundError or
ConnectionRefusedError naming the socket path when nothing is there — a wrong path is an
error. A program that means to wait for the daemon says so: connect(wait=True) or
TouchdClient(..., wait=True) returns False and poll() keeps trying (attach and the others
change only the local copy meanwhile, as while reconnecting). Until 0.2.0 a missing daemon was
always waited for with reconnect=True.

Reconnecting (reconnect=True, the default): when the daemon goes away (it says bye, closes,
or refuses the connection) poll() keeps trying with a growing delay (0.1 s doubling to 2 s).
On reconnect the client sends its subscription again and re-attaches every window it owns in
its current state: it keeps its own copy of each window and applies every accepted change
(set, window, add, remove) and every scroll offset the daemon reports to it. A re-attached
window starts again at version 1. While disconnected, attach/update/detach change only the
copy and return None; the daemon gets the result when the connection is back (a change it
refuses then is reported to the on_error callbacks and the window is dropped).

Windows of any size: a request line is at most 65,536 bytes and 200 levels of JSON nesting
(docs/protocol.md), yet a window grown by updates can be bigger. An attach (or re-attach) that
does not fit is sent as an attach of the window hidden with its root view alone, then updates
adding the other views in order, the last one showing the window: its version is then 1 + the
number of those updates. Trees are walked iteratively, so any depth the daemon takes works.

Touches always end: every touch on_touch saw begin ends there — with its own ended or
cancelled, or, when the connection closes, cancelled with reason "disconnected", or, when a
snapshot (after an overflow, or a subscribe) no longer lists it, cancelled with reason
"overflow" (or "subscribe"). The last three carry frame None. The library follows at most
max_down (1,024, as libtouchd-client) touches down at once: past that, on_error is told once
and further touches are handed on but get no cancel of the library's.

A broken or hostile daemon cannot stall or crash the program: a line that is not JSON, not an
object, or lacks a field the library relies on goes to on_error as a ProtocolError and is
skipped (never raised); a line longer than max_line (4 MiB) is skipped without being kept;
poll(timeout) reads for at most timeout seconds (at least one 64 KiB chunk) however fast the
daemon sends; connect() gives up after timeout. Memory is bounded too: messages that arrive
while connect() waits for hello or a request waits for its reply are held for the next poll()
as the lines they came in (parsed again when dispatched), at most max_held (16 MiB, each line
counted as its length plus 64 bytes) and max_queue (65,536) messages — a daemon that sends
more meanwhile is cut off (the connection dropped, on_error told). With the line being read
(at most max_line), what the client holds of the daemon's output is at most max_held +
max_line, 20 MiB, whatever the daemon sends and however long a request waits. Exceptions
raised by your callbacks propagate.
"""
import collections
import errno
import json
import logging
import os
import select
import socket
import time

__all__ = ["TouchdClient", "TouchdError", "ConnectionLost", "ProtocolError", "DEFAULT_SOCKET", "apply_changes"]
__version__ = "0.2.0"

DEFAULT_SOCKET = "/run/touchd/touchd.sock"
REPLY_TYPES = ("attached", "updated", "detached", "pong", "error")
log = logging.getLogger("touchd_client")


class TouchdError(Exception):
    """An error reply: .error (the daemon's text), .request, .window, .path, .line, .reply."""

    def __init__(self, reply):
        self.reply = reply
        self.error = reply.get("error", "")
        self.request = reply.get("request")
        self.window = reply.get("window")
        self.path = reply.get("path")
        self.line = reply.get("line")
        super().__init__(self.error)


class ConnectionLost(TouchdError):
    """The connection went away (or there is none) and the request cannot be answered."""

    def __init__(self, reason):
        super().__init__({"error": reason})


class ProtocolError(TouchdError):
    """A line from the daemon the library cannot use — not JSON, not an object, a field it relies
    on missing or of the wrong type, longer than max_line, a reply to no request. Handed to the
    on_error callbacks (never raised); the line is skipped and the stream goes on. .text: the
    line's first 200 bytes (empty for a line too long to keep)."""

    def __init__(self, reason, text=b""):
        super().__init__({"error": reason})
        self.text = bytes(text[:200])


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _touches_problem(msg):
    touches = msg.get("touches", [])
    if not isinstance(touches, list) or not all(isinstance(t, dict) and "id" in t for t in touches):
        return "%s: touches is not a list of touches with ids" % msg["type"]
    return None


def _problem(msg):
    """Why a parsed line is unusable, or None: the fields the library itself relies on."""
    if not isinstance(msg, dict):
        return "not a JSON object"
    kind = msg.get("type")
    if not isinstance(kind, str):
        return "no type"
    if kind == "hello":
        screen = msg.get("screen")
        if not (isinstance(screen, dict) and _number(screen.get("width")) and _number(screen.get("height"))):
            return "hello: no screen width and height"
    elif kind in ("frame", "snapshot"):
        return _touches_problem(msg)
    elif kind == "scroll":
        offset = msg.get("offset")
        if not (isinstance(msg.get("view"), str) and isinstance(offset, list) and len(offset) == 2
                and all(_number(v) for v in offset)):
            return "scroll: no view or offset"
    if kind in REPLY_TYPES and "line" in msg and not (isinstance(msg["line"], int) and not isinstance(msg["line"], bool)):
        return "%s: line is not a number" % kind
    if kind in ("bye", "error") and not isinstance(msg.get("reason" if kind == "bye" else "error", ""), str):
        return "%s: not a text" % kind
    return None


def _find(view, vid):
    """(view, parent) for the view with id vid in the tree under view, or (None, None).
    Iterative, like every walk over a tree here: a tree may be nested deeper than Python's
    recursion limit (the daemon takes any depth one update at a time)."""
    stack = [(view, None)]
    while stack:
        node, parent = stack.pop()
        if node.get("id") == vid:
            return node, parent
        subs = node.get("subviews")
        if isinstance(subs, list):
            stack.extend((sub, node) for sub in reversed(subs) if isinstance(sub, dict))
    return None, None


def _copy(value):
    """A deep copy of a JSON value (dicts, lists/tuples, scalars), iteratively."""
    if not isinstance(value, (dict, list, tuple)):
        return value
    root = {} if isinstance(value, dict) else []
    stack = [(value, root)]
    while stack:
        src, dst = stack.pop()
        for key, item in (src.items() if isinstance(src, dict) else enumerate(src)):
            if isinstance(item, (dict, list, tuple)):
                item_copy = {} if isinstance(item, dict) else []
                stack.append((item, item_copy))
            else:
                item_copy = item
            if isinstance(dst, dict):
                dst[key] = item_copy
            else:
                dst.append(item_copy)
    return root


def _depth(value):
    """Nesting depth of a JSON value as the daemon counts it (the outermost object is 1)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            deepest = max(deepest, depth)
            stack.extend((v, depth + 1) for v in node.values() if isinstance(v, (dict, list, tuple)))
        elif isinstance(node, (list, tuple)):
            deepest = max(deepest, depth)
            stack.extend((v, depth + 1) for v in node if isinstance(v, (dict, list, tuple)))
    return deepest


def _view(window, vid):
    view, parent = _find(window.get("view") or {}, vid)
    if view is None:
        raise KeyError("no view %r in window %r" % (vid, window.get("id")))
    return view, parent


def apply_changes(window, changes):
    """Apply an update's changes to a window dict in place (the daemon already accepted them)."""
    for change in changes:
        if "set" in change:
            view = _view(window, change["view"])[0]
            keys = _copy(change["set"])
            # set.scroll changes some of a scroll view's keys: the others stay.
            if isinstance(keys.get("scroll"), dict) and isinstance(view.get("scroll"), dict):
                view["scroll"] = dict(view["scroll"], **keys.pop("scroll"))
            view.update(keys)
        elif "window" in change:
            window.update(_copy(change["window"]))
        elif "add" in change:
            subviews = _view(window, change["to"])[0].setdefault("subviews", [])
            subviews.insert(change.get("index", len(subviews)), _copy(change["add"]))
        elif "remove" in change:
            view, parent = _view(window, change["remove"])
            if parent is None:
                window.pop("view", None)
            else:
                parent["subviews"].remove(view)


class TouchdClient:
    """One connection to touchd, with the windows this program owns. See the module docstring."""

    # Bounds (class attributes; an instance may set its own):
    max_request = 65536     # the daemon's limit on a request line, newline excluded (docs/protocol.md)
    max_depth = 200         # the daemon's limit on JSON nesting in a request
    max_line = 4 << 20      # the longest line taken from the daemon; a longer one is skipped
    max_queue = 65536       # messages held for poll() while a request waits; beyond, disconnect
    max_held = 16 << 20     # bytes of lines held for poll() (each counted with HELD_OVERHEAD); beyond, disconnect
    HELD_OVERHEAD = 64      # what holding one line costs beside its bytes (the bytes object, the queue's slot)
    max_down = 1024         # touches followed while down (as libtouchd-client); more are handed on, not followed

    def __init__(self, socket_path=DEFAULT_SOCKET, *, reconnect=True, timeout=5.0, wait=False):
        self._down = {}    # touch id -> its latest record, while down (for EOF: all cancelled)
        self._down_full = False     # told on_error that touches past max_down are not followed
        self.socket_path = socket_path
        self.reconnect = reconnect
        self.wait = wait                # a missing daemon is waited for, not an error
        self.timeout = timeout          # seconds a request waits for its reply
        self.hello = None               # the daemon's hello message (screen, version, pid)
        self.windows = {}               # id -> our current copy of each window we own
        self._subscription = None
        self._sock = None
        self._buffer = bytearray()      # the start of a line not yet complete
        self._skipping = False          # inside a line longer than max_line
        self._lines_sent = 0
        self._replies = {}              # line -> reply, for the request waiting on it
        self._pending = collections.deque()   # (line, kind) of requests not yet answered
        self._queue = collections.deque()     # messages not yet dispatched: their lines (bytes), see _enqueue
        self._held = 0                        # what the queue's lines count against max_held
        self._overflowed = False
        self._up = False                # connected and announced to on_connect
        self._ever_connected = False
        self._retry_at = 0.0
        self._backoff = 0.1
        self._callbacks = collections.defaultdict(list)

    # -- callbacks ---------------------------------------------------------------------------
    def _register(self, kind, fn):
        self._callbacks[kind].append(fn)
        return fn

    def on_frame(self, fn):
        """fn(frame) for every frame message. Usable as a decorator, like the others."""
        return self._register("frame", fn)

    def on_touch(self, fn):
        """fn(touch, frame) for every touch of every frame. Every touch that began ends here: when
        the connection closes, every touch still down comes once more as cancelled with reason
        "disconnected"; when a snapshot replaces the touches down (after an overflow, or a
        subscribe), each one it no longer lists comes as cancelled with reason "overflow" (or
        "subscribe"). Those carry frame None."""
        return self._register("touch", fn)

    def on_control(self, fn):
        """fn(msg) for every control message (touchDown, touchUpInside, ...)."""
        return self._register("control", fn)

    def on_gesture(self, fn):
        """fn(msg) for every gesture message."""
        return self._register("gesture", fn)

    def on_scroll(self, fn):
        """fn(msg) for every scroll message."""
        return self._register("scroll", fn)

    def on_message(self, fn):
        """fn(msg) for every message that is not a reply (device, snapshot, overflow, ...)."""
        return self._register("message", fn)

    def on_connect(self, fn):
        """fn(hello) after each (re)connection, once the owned windows are attached again."""
        return self._register("connect", fn)

    def on_disconnect(self, fn):
        """fn(reason) when the connection goes away; reason is "bye: shutdown" when the
        daemon stopped, else what happened ("the daemon closed the connection", ...)."""
        return self._register("disconnect", fn)

    def on_error(self, fn):
        """fn(TouchdError) for errors no request is waiting for: a refused re-attach, an error
        without a line, and (ProtocolError) every line from the daemon that cannot be used."""
        return self._register("error", fn)

    def _emit(self, kind, *args):
        for fn in list(self._callbacks[kind]):
            fn(*args)

    # -- connection --------------------------------------------------------------------------
    @property
    def connected(self):
        return self._sock is not None

    @property
    def screen(self):
        """(width, height) from the daemon's hello, or None before the first connection."""
        if self.hello is None:
            return None
        return self.hello["screen"]["width"], self.hello["screen"]["height"]

    def fileno(self):
        """The socket's descriptor for select()/poll() loops (-1 while disconnected)."""
        return self._sock.fileno() if self._sock else -1

    def connect(self, wait=None):
        """Try to connect once: read hello, re-subscribe, re-attach our windows. True if connected.

        No daemon at socket_path (no socket file, or nobody listening on it) raises
        FileNotFoundError or ConnectionRefusedError naming the path — unless the caller asked to
        wait for the daemon (wait=True, here or in the constructor; it sticks) or this client has
        been connected before (the daemon is restarting): then it returns False and poll() keeps
        trying. A daemon that says nothing usable within timeout also gives False."""
        if wait is not None:
            self.wait = wait
        if self._sock:
            return True
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self.socket_path)
        except OSError as e:
            sock.close()
            absent = e.errno in (errno.ENOENT, errno.ECONNREFUSED)
            waiting = self.wait or (self.reconnect and self._ever_connected)
            if absent and not waiting:
                raise type(e)(e.errno, "%s %s (is touchd running? connect(wait=True) waits for it)" % (
                    "no touchd socket at" if e.errno == errno.ENOENT else "nothing listens on",
                    self.socket_path)) from None
            if not (absent or e.errno == errno.EAGAIN or isinstance(e, socket.timeout)) or not (
                    waiting or self.reconnect):
                raise
            self._schedule_retry()
            return False
        self._sock, self._buffer, self._skipping, self._lines_sent = sock, bytearray(), False, 0
        self._replies.clear()
        self._pending.clear()
        self._overflowed, self.hello = False, None
        try:
            deadline = time.monotonic() + self.timeout
            while self.hello is None:   # hello comes first; the snapshot after it is queued
                if time.monotonic() >= deadline or not self._read(deadline):
                    self._drop("no hello within %g s" % self.timeout)
                    return False
            if self._subscription is not None:
                self._restore("subscribe", self._subscription)
            for wid, window in list(self.windows.items()):
                try:
                    self._attach(window)
                except ConnectionLost:
                    raise
                except TouchdError as e:
                    self._report(e)
                    del self.windows[wid]
        except ConnectionLost:
            return False
        self._backoff = 0.1
        self._up = self._ever_connected = True
        self._emit("connect", self.hello)
        return True

    def _restore(self, kind, body):
        """Send a request again after a reconnect; a refusal goes to on_error. True if accepted."""
        try:
            self._request(kind, body)
            return True
        except ConnectionLost:
            raise
        except TouchdError as e:
            self._report(e)
            return False

    def close(self):
        """Close the connection for good (no reconnecting); the daemon drops our windows."""
        self.reconnect = self.wait = False
        self._drop("closed")

    def _drop(self, reason):
        """Forget the socket; the next poll() tells on_disconnect and, later, reconnects."""
        if self._sock is None:
            return
        self._sock.close()
        self._sock = None
        self._buffer, self._skipping = bytearray(), False
        self._schedule_retry()
        if self._up:
            self._queue.append({"type": "disconnect", "reason": reason})
        self._up = False

    def _schedule_retry(self):
        self._retry_at = time.monotonic() + self._backoff
        self._backoff = min(self._backoff * 2, 2.0)

    # -- reading -----------------------------------------------------------------------------
    def _read(self, deadline):
        """Wait until the deadline for data, read one chunk (at most 64 KiB) and handle every line
        it completes. False if nothing came; ConnectionLost on EOF."""
        if self._sock is None:
            raise ConnectionLost("not connected")
        wait = max(0.0, deadline - time.monotonic())
        if not select.select([self._sock], [], [], wait)[0]:
            return False
        try:
            data = self._sock.recv(65536)
        except OSError as e:
            data, reason = b"", os.strerror(e.errno or errno.EIO)
        else:
            reason = "the daemon closed the connection"
        if not data:
            self._drop(reason)
            raise ConnectionLost(reason)
        self._feed(data)
        return True

    def _feed(self, data):
        """Split a chunk into lines. A line is kept only up to max_line bytes: a longer one is
        reported once and skipped to its newline without being buffered (linear time, bounded
        memory whatever the daemon sends)."""
        start = 0
        while self._sock is not None:    # a bye or a flood may have dropped the connection
            end = data.find(b"\n", start)
            if end < 0:
                if not self._skipping:
                    if len(self._buffer) + len(data) - start > self.max_line:
                        self._too_long()
                    else:
                        self._buffer += data[start:]
                return
            if self._skipping:
                self._skipping = False
            elif len(self._buffer) + end - start > self.max_line:
                self._too_long()
                self._skipping = False
            elif self._buffer:
                self._buffer += data[start:end]
                line, self._buffer = bytes(self._buffer), bytearray()
                self._line(line)
            else:
                self._line(data[start:end])
            start = end + 1

    def _too_long(self):
        self._buffer, self._skipping = bytearray(), True
        self._report(ProtocolError("a line from the daemon longer than %d bytes; skipped" % self.max_line))

    def _line(self, line):
        if not line.strip():
            return
        try:
            msg = json.loads(line)
        except (ValueError, RecursionError) as e:     # UnicodeDecodeError is a ValueError
            self._report(ProtocolError("a line from the daemon that is not JSON (%s); skipped"
                                       % (str(e)[:80] if not isinstance(e, RecursionError) else "nested too deep"), line))
            return
        problem = _problem(msg)
        if problem is not None:
            self._report(ProtocolError("a message from the daemon the library cannot use (%s); skipped" % problem, line))
            return
        self._handle(msg, line)

    def _handle(self, msg, line):
        kind = msg.get("type")
        if kind == "hello":
            self.hello = msg
        elif kind == "overflow":
            self._overflowed = True     # the snapshot that follows is not a subscribe's reply
            self._enqueue(line)
        elif kind == "snapshot" and not self._overflowed and self._waiting("subscribe"):
            self._answer(self._waiting("subscribe"), msg)     # the subscribe's reply...
            self._enqueue(line, "subscribe")                  # ...and news for on_message
        elif kind == "pong" and self._waiting("ping"):        # pong and snapshot carry no line
            self._answer(self._waiting("ping"), msg)
        elif kind in REPLY_TYPES and "line" in msg:
            if any(line == msg["line"] for line, _ in self._pending):
                self._answer(msg["line"], msg)
            elif kind == "error":
                self._report(TouchdError(msg))
            else:
                self._report(ProtocolError("a reply to no request (line %d); skipped" % msg["line"],
                                           json.dumps(msg).encode()))
        elif kind == "bye":
            self._enqueue(line)
            self._drop("bye: " + msg.get("reason", ""))
        else:
            after = None
            if kind == "snapshot":
                after = "overflow" if self._overflowed else None
                self._overflowed = False
            if kind == "scroll":
                self._track_scroll(msg)
            if kind == "error" and "line" not in msg:
                self._report(TouchdError(msg))
            else:
                self._enqueue(line, after)

    def _enqueue(self, line, after=None):
        """Hold a message for poll() as its line (bytes: a parsed message takes several times
        its line's size, up to 20 times for `[{},{},…]`), with the reason a snapshot replaced
        the touches down. A daemon that sends more than max_held bytes or max_queue messages
        while they are held (a request or connect() waiting; poll() stops reading at half of
        either) is cut off, like a slow client by the daemon: the connection is dropped (every
        touch ends) and a reconnect starts afresh."""
        size = self._held_size(line)
        if len(self._queue) >= self.max_queue or self._held + size > self.max_held:
            self._report(ProtocolError("more than %d messages or %d bytes arrived before poll() could hand them "
                                       "on (a request or connect() waiting); disconnecting"
                                       % (self.max_queue, self.max_held)))
            self._drop("flooded: more than %d messages or %d bytes held" % (self.max_queue, self.max_held))
            return
        self._queue.append(line if after is None else (line, after))
        self._held += size

    def _held_size(self, entry):
        """What a queue entry counts against max_held: its line's bytes and HELD_OVERHEAD (a note
        of ours, {"type": "disconnect"}, counts nothing: there is one per connection)."""
        if isinstance(entry, tuple):
            entry = entry[0]
        return len(entry) + self.HELD_OVERHEAD if isinstance(entry, bytes) else 0

    def _waiting(self, kind):
        """The line of the oldest unanswered request of this kind, or None."""
        return next((line for line, k in self._pending if k == kind), None)

    def _answer(self, line, reply):
        self._pending = collections.deque(p for p in self._pending if p[0] != line)
        self._replies[line] = reply

    def _track_scroll(self, msg):
        for window in self.windows.values():
            view = _find(window.get("view") or {}, msg["view"])[0]
            if view is not None:
                view["boundsOrigin"] = list(msg["offset"])

    def _report(self, error):
        if self._callbacks["error"]:
            self._emit("error", error)
        else:
            log.warning("touchd: %s", error)

    # -- requests ----------------------------------------------------------------------------
    def _encode(self, kind, body):
        """The request's line, or TouchdError if the daemon would refuse it for its nesting (it
        could not even be encoded past Python's recursion limit)."""
        request = {kind: body}
        if _depth(request) > self.max_depth:
            raise TouchdError({"error": "%s: nested deeper than %d levels (the daemon's limit)" % (kind, self.max_depth),
                               "request": kind})
        return json.dumps(request).encode()

    def _request(self, kind, body, line=None):
        """Send {kind: body}, wait for its reply and return it; TouchdError on an error reply."""
        if self._sock is None:
            raise ConnectionLost("not connected")
        if line is None:
            line = self._encode(kind, body)
        try:
            self._sock.sendall(line + b"\n")
        except OSError as e:
            self._drop(os.strerror(e.errno or errno.EIO) if e.errno else str(e))
            raise ConnectionLost("send failed") from e
        self._lines_sent += 1
        line = self._lines_sent
        self._pending.append((line, kind))
        deadline = time.monotonic() + self.timeout
        while line not in self._replies:
            if time.monotonic() >= deadline:
                self._drop("no reply within %g s" % self.timeout)
                raise ConnectionLost("no reply to %s within %g s" % (kind, self.timeout))
            self._read(deadline)
        reply = self._replies.pop(line)
        if reply.get("type") == "error":
            raise TouchdError(reply)
        return reply

    def _attach_requests(self, window):
        """The requests that attach window: one attach when it fits in one request line (bytes
        and nesting), else an attach of the window hidden with its root view alone, then updates
        adding every other view in order (each update as many views as fit in one line), the
        last one restoring the window's hidden. Items: (kind, body, encoded line)."""
        try:
            return [("attach", window, self._encode("attach", window))] if len(
                self._encode("attach", window)) <= self.max_request else self._split(window)
        except TouchdError:
            return self._split(window)

    def _split(self, window):
        root = window.get("view")
        if not isinstance(root, dict) or "id" not in root:
            return [("attach", window, self._encode("attach", window))]   # nothing to split: let the daemon judge
        shallow = lambda view: {k: v for k, v in view.items() if k != "subviews"}   # noqa: E731
        shell = {k: v for k, v in window.items() if k != "view"}
        shell["hidden"] = True
        shell["view"] = shallow(root)
        requests = [("attach", shell, self._encode("attach", shell))]
        changes = []    # pre-order, each child after its parent and after its elder siblings
        stack = [(sub, root["id"]) for sub in reversed(root.get("subviews") or [])]
        while stack:
            view, parent = stack.pop()
            if "id" in view:
                changes.append({"add": shallow(view), "to": parent})
                stack.extend((sub, view["id"]) for sub in reversed(view.get("subviews") or []))
            else:                                   # no id to add its subviews to: whole
                changes.append({"add": view, "to": parent})
        changes.append({"window": {"hidden": bool(window.get("hidden", False))}})
        wid = window["id"]
        head = len(self._encode("update", {"window": wid, "changes": []}))
        batch, size = [], head
        for change in changes:
            encoded = self._encode("x", change)     # {"x":CHANGE}: 6 bytes more than CHANGE
            cost = len(encoded) - 6 + (1 if batch else 0)
            if batch and size + cost > self.max_request:
                requests.append(("update", {"window": wid, "changes": batch}, None))
                batch, size = [], head
                cost = len(encoded) - 6
            if head + cost > self.max_request:
                raise TouchdError({"error": "attach %r: a view longer than one request line (%d bytes)"
                                   % (wid, self.max_request), "request": "attach", "window": wid})
            batch.append(change)
            size += cost
        requests.append(("update", {"window": wid, "changes": batch}, None))
        return requests

    def _attach(self, window):
        """Attach window, in one request or split (see _attach_requests). Returns the attach's
        reply, with the version the updates left. If a later piece is refused, the window is
        detached again and the refusal raised."""
        requests = self._attach_requests(window)
        reply = None
        for kind, body, line in requests:
            try:
                answer = self._request(kind, body, line)
            except ConnectionLost:
                raise
            except TouchdError:
                if reply is not None:
                    try:
                        self._request("detach", {"window": window["id"]})
                    except ConnectionLost:
                        raise
                    except TouchdError:
                        pass
                raise
            if reply is None:
                reply = dict(answer)
            else:
                reply["version"] = answer.get("version", reply.get("version"))
        return reply

    def _change(self, kind, body, apply, send=None):
        """Send a window request; on success (or while offline) apply it to our copy."""
        try:
            reply = (send or (lambda: self._request(kind, body)))() if self._sock else None
        except ConnectionLost:
            if not self.reconnect:
                raise
            reply = None
        apply()
        return reply

    def attach(self, window):
        """Attach a window (a config window dict); returns {"type":"attached",...}. A window too big
        for one request line (65,536 bytes, or nested deeper than 200 levels) is sent as an attach
        of the window hidden and its root view, then updates adding the rest, the last one showing
        it: the reply's version then counts those updates."""
        window = _copy(window)
        return self._change("attach", window, lambda: self.windows.__setitem__(window["id"], window),
                            lambda: self._attach(window))

    def update(self, window_id, changes):
        """Apply changes to our window atomically; returns {"type":"updated","version":N,...}."""
        if window_id not in self.windows:
            raise KeyError("not our window: %r" % window_id)
        changes = _copy(changes)
        return self._change("update", {"window": window_id, "changes": changes},
                            lambda: apply_changes(self.windows[window_id], changes))

    def detach(self, window_id):
        """Detach our window; returns {"type":"detached",...}."""
        return self._change("detach", {"window": window_id},
                            lambda: self.windows.pop(window_id, None))

    def subscribe(self, types=None, windows=None, views=None):
        """Replace the subscription filter (kept across reconnects); returns the new snapshot."""
        sub = {k: v for k, v in (("types", types), ("windows", windows), ("views", views)) if v is not None}
        reply = self._request("subscribe", sub)
        self._subscription = sub
        return reply

    def ping(self, value=None):
        """Round trip to the daemon; returns the seconds it took."""
        start = time.monotonic()
        self._request("ping", value if value is not None else self._lines_sent + 1)
        return time.monotonic() - start

    # -- the loop ----------------------------------------------------------------------------
    def poll(self, timeout=0.0):
        """Read what has arrived (waiting up to timeout seconds), run the callbacks, reconnect
        when it is time. Returns the number of messages dispatched. Bounded: it reads for at most
        timeout seconds (at least one chunk of 64 KiB) however fast the daemon sends, and
        dispatches what that brought. A lost connection is not an error while reconnecting (a
        reconnect attempt may take up to the client's timeout); a daemon that was never there
        is (see connect())."""
        start = time.monotonic()
        if self._sock is None and not self._queue and (
                self.reconnect or (self.wait and not self._ever_connected)):
            if start >= self._retry_at:
                self.connect()
            elif timeout:
                time.sleep(max(0.0, min(timeout, self._retry_at - start)))
        if self._sock is not None:
            deadline = start + timeout
            try:
                more = self._read(start if self._queue else deadline)
                while more and self._sock is not None and time.monotonic() < deadline and not self._half_full():
                    more = self._read(0)    # what has arrived already, without waiting
            except ConnectionLost:
                pass
        count = 0
        while self._queue:
            entry = self._queue.popleft()
            self._held -= self._held_size(entry)
            self._dispatch(self._held_message(entry))
            count += 1
        return count

    def _half_full(self):
        return 2 * len(self._queue) >= self.max_queue or 2 * self._held >= self.max_held

    @staticmethod
    def _held_message(entry):
        """The message a queue entry holds: a line (parsed again: it was valid when read), a
        (line, after) pair for a snapshot that replaced the touches down, or a note of ours."""
        if isinstance(entry, dict):
            return entry
        if isinstance(entry, tuple):
            msg = json.loads(entry[0])
            msg["_after"] = entry[1]
            return msg
        return json.loads(entry)

    def _dispatch(self, msg):
        kind = msg.get("type")
        if kind == "frame":
            self._emit("frame", msg)
            for touch in msg.get("touches", []):
                tid = touch.get("id")
                if touch.get("phase") in ("ended", "cancelled"):
                    self._down.pop(tid, None)
                elif tid in self._down or self._follow():
                    self._down[tid] = touch
                self._emit("touch", touch, msg)
        elif kind in ("control", "gesture", "scroll"):
            self._emit(kind, msg)
        elif kind == "disconnect":     # ours, not the daemon's: the connection went away
            # A closed connection (EOF, or after bye) means every touch is over: each one still
            # down is handed to on_touch as cancelled, reason "disconnected", before
            # on_disconnect — no ghost touches whatever the daemon managed to send.
            self._end_touches("disconnected", ())
            self._emit("disconnect", msg["reason"])
        else:
            if kind == "snapshot":
                # The touches down now, and no others (after subscribe, or an overflow): a touch
                # on_touch knows of that the snapshot no longer lists has ended meanwhile.
                after = msg.pop("_after", None)
                now = {}
                for t in msg.get("touches", []):
                    if len(now) < self.max_down or t.get("id") in now:
                        now[t.get("id")] = t
                    else:
                        self._follow(full=True)
                self._end_touches(after or "snapshot", now)
                self._down = now
            self._emit("message", msg)

    def _follow(self, full=None):
        """Whether one more touch down can be followed (at most max_down: a daemon cannot grow
        the client by inventing touches that never end). The first touch past the bound is
        reported to on_error; the touches past it are handed to on_touch but not followed, so
        they get no cancel of ours when the connection closes."""
        if full is None:
            full = len(self._down) >= self.max_down
        if not full:
            self._down_full = False
        elif not self._down_full:
            self._down_full = True
            self._report(ProtocolError("more than %d touches down; those past it are not followed (no cancel of "
                                       "ours for them when the connection closes)" % self.max_down))
        return not full

    def _end_touches(self, reason, keep):
        for tid, touch in list(self._down.items()):
            if tid not in keep:
                del self._down[tid]
                self._emit("touch", dict(touch, phase="cancelled", reason=reason), None)

    def run(self, until=None):
        """Block, dispatching messages, until until() is true (or forever / until closed)."""
        while until is None or not until():
            if self._sock is None and not self.reconnect:
                return
            self.poll(0.1)
