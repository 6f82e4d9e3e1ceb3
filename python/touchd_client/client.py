"""TouchdClient: one connection to touchd and the windows this program owns — connecting and
reconnecting, requests matched to their replies, and the loop (poll, run). The socket is
connection.py's, lines become messages in messages.py, callbacks are dispatch.py's, the copy of
each window is kept with windows.py."""
import collections
import errno
import json
import os
import socket
import time

from . import messages, windows
from .connection import Closed, Connection
from .dispatch import Dispatch, Held, Parsed
from .errors import ConnectionLost, ProtocolError, TouchdError

DEFAULT_SOCKET = "/run/touchd/touchd.sock"


class TouchdClient(Dispatch):
    """One connection to touchd, with the windows this program owns. See the package docstring."""

    # Bounds (class attributes; an instance may set its own):
    max_request = 65536     # the daemon's limit on a request line, newline excluded (docs/protocol.md)
    max_depth = 200         # the daemon's limit on JSON nesting in a request
    max_line = 4 << 20      # the longest line taken from the daemon; a longer one is skipped
    max_queue = 65536       # messages held for poll() while a request waits; beyond, disconnect
    max_held = 16 << 20     # bytes of lines held for poll() (each counted with HELD_OVERHEAD); beyond, disconnect
    HELD_OVERHEAD = 64      # what holding one line costs beside its bytes (the bytes object, the queue's slot)
    max_down = 1024         # touches followed while down (as libtouchd-client); more are handed on, not followed

    def __init__(self, socket_path=DEFAULT_SOCKET, *, reconnect=True, timeout=5.0, wait=False):
        super().__init__()
        self.socket_path = socket_path
        self.reconnect = reconnect
        self.wait = wait                # a missing daemon is waited for, not an error
        self.timeout = timeout          # seconds a request waits for its reply
        self.hello = None               # the daemon's hello message (screen, version, pid)
        self.windows = {}               # id -> our current copy of each window we own
        self._subscription = None
        self._conn = None
        self._lines_sent = 0
        self._replies = {}              # line -> reply, for the request waiting on it
        self._pending = collections.deque()   # (line, kind) of requests not yet answered
        self._queue = Held()            # messages not yet dispatched
        self._polling = False           # poll() reading: what it reads is handed on before it reads again
        self._overflowed = False
        self._up = False                # connected and announced to on_connect
        self._ever_connected = False
        self._closed = False            # close() called (and no connect() since)
        self._retry_at = 0.0
        self._backoff = 0.1

    # -- connection --------------------------------------------------------------------------
    @property
    def connected(self):
        return self._conn is not None

    @property
    def screen(self):
        """(width, height) from the daemon's hello, or None before the first connection."""
        if self.hello is None:
            return None
        return self.hello["screen"]["width"], self.hello["screen"]["height"]

    def fileno(self):
        """The socket's descriptor for select()/poll() loops (-1 while disconnected)."""
        return self._conn.fileno() if self._conn else -1

    def connect(self, wait=None):
        """Try to connect once: read hello, re-subscribe, re-attach our windows. True if connected.

        No daemon at socket_path (no socket file, or nobody listening on it) raises
        FileNotFoundError or ConnectionRefusedError naming the path — unless the caller asked to
        wait for the daemon (wait=True, here or in the constructor; it sticks) or this client has
        been connected before (the daemon is restarting): then it returns False and poll() keeps
        trying. A daemon that says nothing usable within timeout also gives False."""
        if wait is not None:
            self.wait = wait
        if self._conn:
            return True
        try:
            conn = Connection(self.socket_path, self.timeout)
        except OSError as e:
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
        self._conn, self._lines_sent = conn, 0
        self._closed = False
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
        self._closed = True
        self._drop("closed")

    def _drop(self, reason):
        """Forget the socket; the next poll() tells on_disconnect and, later, reconnects."""
        if self._conn is None:
            return
        self._conn.close()
        self._conn = None
        self._schedule_retry()
        if self._up:
            self._queue.add({"type": "disconnect", "reason": reason}, self.HELD_OVERHEAD)
        self._up = False

    def _schedule_retry(self):
        self._retry_at = time.monotonic() + self._backoff
        self._backoff = min(self._backoff * 2, 2.0)

    # -- reading -----------------------------------------------------------------------------
    def _read(self, deadline):
        """Wait until the deadline for data, read one chunk and handle every line it completes.
        False if nothing came; ConnectionLost on EOF."""
        if self._conn is None:
            raise ConnectionLost("not connected")
        try:
            return self._conn.read(deadline - time.monotonic(), self.max_line, self._line, self._too_long)
        except Closed as e:
            self._drop(str(e))
            raise ConnectionLost(str(e)) from None

    def _too_long(self):
        self._report(ProtocolError("a line from the daemon longer than %d bytes; skipped" % self.max_line))

    def _line(self, line):
        if not line.strip():
            return
        try:
            msg = messages.parse(line)
        except ProtocolError as e:
            self._report(e)
            return
        self._handle(msg, line)

    def _handle(self, msg, line):
        """What a message is for: the hello, a reply to a request waiting (matched by its line
        number, or for pong and a subscribe's snapshot by kind), or news for poll() to hand on."""
        kind = msg.get("type")
        if kind == "hello":
            self.hello = msg
        elif kind == "overflow":
            self._overflowed = True     # the snapshot that follows is not a subscribe's reply
            self._enqueue(line, msg)
        elif kind == "snapshot" and not self._overflowed and self._waiting("subscribe"):
            self._answer(self._waiting("subscribe"), msg)     # the subscribe's reply...
            self._enqueue(line, msg, "subscribe")             # ...and news for on_message
        elif kind == "pong" and self._waiting("ping"):        # pong and snapshot carry no line
            self._answer(self._waiting("ping"), msg)
        elif kind in messages.REPLY_TYPES and "line" in msg:
            if any(line_ == msg["line"] for line_, _ in self._pending):
                self._answer(msg["line"], msg)
            elif kind == "error":
                self._report(TouchdError(msg))
            else:
                self._report(ProtocolError("a reply to no request (line %d); skipped" % msg["line"],
                                           json.dumps(msg).encode()))
        elif kind == "bye":
            self._enqueue(line, msg)
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
                self._enqueue(line, msg, after)

    def _enqueue(self, line, msg, after=None):
        """Hold a message to be handed on (dispatch.Held): parsed when poll() reads it (handed on
        before poll reads again), else as its line. A daemon that sends more than max_held bytes
        or max_queue messages while they are held (a request or connect() waiting) is cut off,
        like a slow client by the daemon: the connection is dropped (every touch ends) and a
        reconnect starts afresh."""
        entry = line if after is None else (line, after)
        if self._polling:
            entry = Parsed(msg if after is None else dict(msg, _after=after), Held.size(entry, self.HELD_OVERHEAD))
        if (len(self._queue) >= self.max_queue
                or self._queue.bytes + Held.size(entry, self.HELD_OVERHEAD) > self.max_held):
            self._report(ProtocolError("more than %d messages or %d bytes arrived before poll() could hand them "
                                       "on (a request or connect() waiting); disconnecting"
                                       % (self.max_queue, self.max_held)))
            self._drop("flooded: more than %d messages or %d bytes held" % (self.max_queue, self.max_held))
            return
        self._queue.add(entry, self.HELD_OVERHEAD)

    def _waiting(self, kind):
        """The line of the oldest unanswered request of this kind, or None."""
        return next((line for line, k in self._pending if k == kind), None)

    def _answer(self, line, reply):
        self._pending = collections.deque(p for p in self._pending if p[0] != line)
        self._replies[line] = reply

    def _track_scroll(self, msg):
        for window in self.windows.values():
            view = windows.find(window.get("view") or {}, msg["view"])[0]
            if view is not None:
                view["boundsOrigin"] = list(msg["offset"])

    # -- requests ----------------------------------------------------------------------------
    def _encode(self, kind, body):
        return messages.encode(kind, body, self.max_depth)

    def _request(self, kind, body, line=None):
        """Send {kind: body}, wait for its reply and return it; TouchdError on an error reply."""
        if self._conn is None:
            raise ConnectionLost("not connected")
        polling, self._polling = self._polling, False   # (an on_error callback's request, from poll's read)
        try:
            return self._request_and_wait(kind, body, line)
        finally:
            self._polling = polling

    def _request_and_wait(self, kind, body, line):
        if line is None:
            line = self._encode(kind, body)
        try:
            self._conn.send(line)
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

    def _attach(self, window):
        """Attach window, in one request or split (windows.attach_requests). Returns the attach's
        reply, with the version the updates left. If a later piece is refused, the window is
        detached again and the refusal raised."""
        requests = windows.attach_requests(window, self._encode, self.max_request)
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
        """Send a window request; on success (or while offline) apply it to our copy. Offline
        means reconnecting, or not connected yet: a client that will not connect again by
        itself (closed, or reconnect=False after its connection ended) raises ConnectionLost
        and changes nothing — a change kept in our copy alone would reach no daemon."""
        if self._conn is None and not self.reconnect and (self._closed or self._ever_connected):
            raise ConnectionLost("%s: not connected, and the client does not reconnect (%s); nothing changed"
                                 % (kind, "closed" if self._closed else "reconnect=False"))
        try:
            reply = (send or (lambda: self._request(kind, body)))() if self._conn else None
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
        window = windows.copy(window)
        return self._change("attach", window, lambda: self.windows.__setitem__(window["id"], window),
                            lambda: self._attach(window))

    def update(self, window_id, changes):
        """Apply changes to our window atomically; returns {"type":"updated","version":N,...}."""
        if window_id not in self.windows:
            raise KeyError("not our window: %r" % window_id)
        changes = windows.copy(changes)
        return self._change("update", {"window": window_id, "changes": changes},
                            lambda: windows.apply_changes(self.windows[window_id], changes))

    def detach(self, window_id):
        """Detach our window; returns {"type":"detached",...}."""
        return self._change("detach", {"window": window_id},
                            lambda: self.windows.pop(window_id, None))

    def rotate_output(self, output_id, rotation):
        """Turn an output to the UI's new orientation (0, 90, 180 or 270); returns
        {"type":"output","output":{"id","width","height","rotation"},...}. Touches down on it end
        cancelled (reason "output-changed"); every subscriber gets an "output" message; our
        windows keep their frames (lay them out again). TouchdError when the owners policy refuses
        us, the output is unknown or the rotation is not a right angle."""
        return self._request("output", {"id": output_id, "rotation": rotation})

    def calibrate(self, device, targets=None):
        """Start calibrating touchscreen `device` (its id, as device messages name it) from the UI
        on the glass; returns the first target to draw:
        {"type":"calibration","device","output","target":0,"count","point":[x,y],...} (in the
        output's points). Taps on the device then reach no window; on_calibration gets each next
        target, then "calibrated" (the matrix, applied until the next reload, its residual and
        the config entry to save) or "calibrationEnded". targets: [[x, y], ...] (3 to 16; default
        the daemon's five). TouchdError if the owners policy refuses us, the device is unknown or
        already calibrating, or a target is off its output (docs/protocol.md)."""
        body = {"device": device}
        if targets is not None:
            body["targets"] = [[x, y] for x, y in targets]
        return self._request("calibrate", body)

    def cancel_calibration(self, device):
        """End our calibration of `device` with nothing changed; returns
        {"type":"calibrationEnded","device","reason":"cancelled",...}."""
        return self._request("calibrate", {"device": device, "cancel": True})

    def run_calibration(self, device, draw, targets=None, timeout=None):
        """A whole calibration: draw(msg) for each target to show (the first included; msg has
        "retry" and "message" when a target is asked again), polling until it ends. Returns the
        "calibrated" message, or the "calibrationEnded" one; None when timeout seconds pass (the
        calibration is then cancelled) or the connection ends first (the daemon ends a
        calibration whose client left)."""
        done = []

        def news(msg):
            if done:
                return
            if msg.get("type") == "calibration" and msg.get("device") == device:
                draw(msg)
            elif msg.get("type") in ("calibrated", "calibrationEnded") and msg.get("device") == device:
                done.append(msg)

        self._register("calibration", news)
        try:
            draw(self.calibrate(device, targets))
            end = None if timeout is None else time.monotonic() + timeout
            # Messages that came while calibrate() waited for its answer are held for poll():
            # the connection may already be gone (a daemon stopping), they are still ours.
            self._dispatch_held()
            while not done and self._conn is not None:
                if end is not None and time.monotonic() >= end:
                    try:
                        self.cancel_calibration(device)
                    except TouchdError:
                        pass                # it ended meanwhile: its end is in done, or on its way
                    self.poll(0)
                    return done[0] if done else None
                self.poll(0.1)
            self._dispatch_held()
            return done[0] if done else None
        finally:
            self._callbacks["calibration"].remove(news)

    def subscribe(self, types=None, windows=None, views=None, speaker=None):
        """Replace the subscription filter (kept across reconnects); returns the new snapshot.
        speaker=True claims the speaker role (private windows' speech too, when the config's
        clients.speakers names this client: docs/accessibility.md); a refusal raises TouchdError."""
        sub = {k: v for k, v in (("types", types), ("windows", windows), ("views", views), ("speaker", speaker))
               if v is not None}
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
        timeout seconds (at least one chunk of 64 KiB) however fast the daemon sends, handing on
        each chunk's messages before it reads the next. A lost connection is not an error while
        reconnecting (a reconnect attempt may take up to the client's timeout); a daemon that was
        never there is (see connect())."""
        start = time.monotonic()
        if self._conn is None and not self._queue and (
                self.reconnect or (self.wait and not self._ever_connected)):
            if start >= self._retry_at:
                self.connect()
            elif timeout:
                time.sleep(max(0.0, min(timeout, self._retry_at - start)))
        count = self._dispatch_held()
        if self._conn is not None:
            deadline = start + timeout
            wait_until = start if count else deadline    # something handed on already: no waiting
            while self._conn is not None:
                self._polling = True
                try:
                    more = self._read(wait_until)
                except ConnectionLost:
                    more = False
                finally:
                    self._polling = False
                count += self._dispatch_held()
                if not more or time.monotonic() >= deadline:
                    break
                wait_until = 0      # then only what has arrived already
        return count + self._dispatch_held()

    def _dispatch_held(self):
        count = 0
        while self._queue:
            self._dispatch(self._queue.pop(self.HELD_OVERHEAD))
            count += 1
        return count

    def run(self, until=None):
        """Block, dispatching messages, until until() is true (or forever / until the connection
        ends without reconnecting — after handing on everything that came before its end)."""
        while until is None or not until():
            if self._conn is None and not self.reconnect and not self._queue:
                return
            self.poll(0.1)
