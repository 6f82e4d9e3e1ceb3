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

    @client.on_touch
    def touched(touch):     # one touch of a frame; its frame is touch.frame
        if touch["phase"] == "began":
            print("touch", touch["id"], "on", touch["view"], "at", touch["location"])

    while True:             # or client.run()
        client.poll(0.016)  # a game loop calls this once per frame; see also fileno()

Callbacks take one argument, the message they are about, as the daemon sent it (a dict):
on_frame, on_control, on_gesture, on_scroll and on_message a message (on_message: every one
that is not a reply, frames and controls included, after the callbacks of its kind), on_touch
one touch of a frame (a Touch: the touch's dict, with its frame as .frame), on_connect the
hello; and
on_disconnect the reason (a str), on_error the TouchdError. Each registers with
client.on_X(fn) or as a decorator, any number of them; they run in poll(), in the order the
messages came.

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
refuses then is reported to the on_error callbacks and the window is dropped). A client that
will not connect again by itself — closed, or reconnect=False once its connection ended —
raises ConnectionLost from attach/update/detach and changes nothing (before the first
connect() they change the copy, which connect() attaches).

Windows of any size: a request line is at most 65,536 bytes and 200 levels of JSON nesting
(docs/protocol.md), yet a window grown by updates can be bigger. An attach (or re-attach) that
does not fit is sent as an attach of the window hidden with its root view alone, then updates
adding the other views in order, the last one showing the window: its version is then 1 + the
number of those updates. Trees are walked iteratively, so any depth the daemon takes works.

Touches always end: every touch on_touch saw begin ends there — with its own ended or
cancelled, or, when the connection closes, cancelled with reason "disconnected", or, when a
snapshot (after an overflow, or a subscribe) no longer lists it, cancelled with reason
"overflow" (or "subscribe"). The last three have .frame None. The library follows at most
max_down (1,024, as libtouchd-client) touches down at once: past that, on_error is told once
and further touches are handed on but get no cancel of the library's.

A broken or hostile daemon cannot stall or crash the program: a line that is not UTF-8, not
strict JSON (NaN, 1e400, a NUL or lone surrogate in a string...), not an object, or has a field
of the wrong type or lacks one (checked as libtouchd-client checks them: messages.problem)
goes to on_error as a ProtocolError naming the field and is skipped (never raised); a line longer than max_line (4 MiB) is skipped without being kept;
poll(timeout) reads for at most timeout seconds (at least one 64 KiB chunk) however fast the
daemon sends; connect() gives up after timeout. Memory is bounded too: messages that arrive
while connect() waits for hello or a request waits for its reply are held for the next poll()
as the lines they came in (parsed again when dispatched), at most max_held (16 MiB, each line
counted as its length plus 64 bytes) and max_queue (65,536) messages — a daemon that sends
more meanwhile is cut off (the connection dropped, on_error told); poll() itself hands on
each chunk's messages (parsed once) before it reads the next. With the line being read (at
most max_line), the daemon's lines the client holds are at most max_held + max_line, 20 MiB,
whatever the daemon sends and however long a request waits (beside them: the messages being
handed on, parsed — a few times their lines' size, one chunk's at most — and the latest record
of each touch down, at most max_down). Exceptions raised by your callbacks propagate.

The package's modules, each using only those before it: errors (the exceptions), windows (the
copy of each window: finding views, applying changes, splitting a big attach), messages (lines
checked and parsed, requests encoded), connection (the socket: lines read with their bound),
dispatch (callbacks, the messages held for poll(), the touches down), client (TouchdClient:
connecting, requests and replies, the loop). Import what this file exports; the rest may change.
"""
from .client import DEFAULT_SOCKET, TouchdClient
from .errors import ConnectionLost, ProtocolError, TouchdError
from .messages import Touch
from .windows import apply_changes

__all__ = ["TouchdClient", "TouchdError", "ConnectionLost", "ProtocolError", "Touch", "DEFAULT_SOCKET",
           "apply_changes"]


def _source_version():
    """The repository's VERSION (python/touchd_client/../../VERSION), for the source tree."""
    import os
    try:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "VERSION"),
                  encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        return "0+unknown"


try:
    from ._version import __version__       # written into the wheel by the build backend
except ImportError:                         # the source tree (python/ on sys.path, pip install -e)
    __version__ = _source_version()
