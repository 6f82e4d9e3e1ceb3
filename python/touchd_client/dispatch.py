"""Handing messages to the program: the callbacks it registered, the messages held for poll()
(bounded in bytes: they are kept as their lines), and the touches down, followed so that every
touch that began ends."""
import collections
import inspect
import json
import logging
import warnings

from .errors import ProtocolError
from .messages import ACCESSIBILITY_TYPES, CALIBRATION_TYPES, Touch

log = logging.getLogger("touchd_client")


class Parsed:
    """A message held parsed: what poll() reads itself, handed on before it reads again."""

    __slots__ = ("msg", "size")

    def __init__(self, msg, size):
        self.msg, self.size = msg, size


class Held:
    """Messages waiting to be handed on. What arrives while a request or connect() waits (for
    as long as that takes) is held as the lines it came in — a parsed message takes several
    times its line's size, up to 20 times for `[{},{},…]` — and parsed again when handed on: a
    line (bytes), or a (line, after) pair for a snapshot that replaced the touches down after an
    overflow or a subscribe. What poll() reads is held parsed (Parsed), one chunk at a time.
    And notes of the client's own (a dict, one per connection)."""

    def __init__(self):
        self._entries = collections.deque()
        self.bytes = 0      # what the entries count against max_held

    def __len__(self):
        return len(self._entries)

    @staticmethod
    def size(entry, overhead):
        """What an entry counts: its line's bytes plus overhead (a note of ours counts nothing)."""
        if isinstance(entry, Parsed):
            return entry.size
        if isinstance(entry, tuple):
            entry = entry[0]
        return len(entry) + overhead if isinstance(entry, bytes) else 0

    def add(self, entry, overhead):
        self._entries.append(entry)
        self.bytes += self.size(entry, overhead)

    def pop(self, overhead):
        """The oldest message, parsed (its line was valid when it was read)."""
        entry = self._entries.popleft()
        self.bytes -= self.size(entry, overhead)
        if isinstance(entry, Parsed):
            return entry.msg
        if isinstance(entry, dict):
            return entry
        if isinstance(entry, tuple):
            msg = json.loads(entry[0])
            msg["_after"] = entry[1]
            return msg
        return json.loads(entry)


class Dispatch:
    """The callbacks half of TouchdClient (a mixin: it reads the client's max_down)."""

    def __init__(self):
        self._callbacks = collections.defaultdict(list)
        self._down = {}             # touch id -> its latest record, while down (for EOF: all cancelled)
        self._down_full = False     # told on_error that touches past max_down are not followed

    # -- registering -------------------------------------------------------------------------
    def _register(self, kind, fn):
        self._callbacks[kind].append(fn)
        return fn

    def on_frame(self, fn):
        """fn(frame) for every frame message. Usable as a decorator, like the others."""
        return self._register("frame", fn)

    def on_touch(self, fn):
        """fn(touch) for every touch of every frame: a Touch, the touch's dict as the daemon sent
        it, with its frame as touch.frame. Every touch that began ends here: when the connection
        closes, every touch still down comes once more as cancelled with reason "disconnected";
        when a snapshot replaces the touches down (after an overflow, or a subscribe), each one
        it no longer lists comes as cancelled with reason "overflow" (or "subscribe"). Those
        have frame None.

        Earlier versions called fn(touch, frame): a function that needs two arguments is still
        called so, with a DeprecationWarning when it is registered."""
        if _needs_two(fn):
            warnings.warn("on_touch: fn(touch, frame) is deprecated; take one argument, the touch "
                          "(its frame is touch.frame)", DeprecationWarning, stacklevel=2)
            self._register("touch", lambda touch: fn(touch, touch.frame))
            return fn
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

    def on_calibration(self, fn):
        """fn(msg) for a calibration's news (calibrate()): each later "calibration" message (a
        target to draw: msg["target"] (0-based) at msg["point"], [x, y] in the output's points;
        msg["retry"] when one is asked again), then "calibrated" (msg["matrix"], msg["residual"]
        and msg["maxResidual"] in points, msg["entry"]) or "calibrationEnded" (msg["reason"]). The first target is calibrate()'s
        own answer."""
        return self._register("calibration", fn)

    def on_accessibility(self, fn):
        """fn(msg) for the screen reader's focus and actions (docs/messages.md, "The screen
        reader"): "accessibilityFocus" (msg["view"], the element it moved to, in msg["window"])
        and "accessibility" (msg["action"]: "activate", "increment", "decrement", "escape",
        "magicTap", for msg["view"]; an activate's tap follows as frames and control events
        marked "synthesized")."""
        return self._register("accessibility", fn)

    def on_speech(self, fn):
        """fn(msg) for every "speech" message: msg["text"] to say (msg["interrupt"]: stop what is
        being said first; msg["language"]), or msg["control"] "pause" / "resume"."""
        return self._register("speech", fn)

    def on_message(self, fn):
        """fn(msg) for every message from the daemon that is not a reply: frame, control,
        gesture, scroll, device, snapshot, overflow, bye, a calibration's news, ... — each after
        the callbacks of its own kind (on_frame and on_touch, on_control, ...). Not the replies
        to requests (attached, pong, calibrate()'s first target, ...; a subscribe's snapshot is
        news too), nor hello (on_connect's)."""
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

    def _emit(self, kind, arg):
        for fn in list(self._callbacks[kind]):
            fn(arg)

    def _report(self, error):
        if self._callbacks["error"]:
            self._emit("error", error)
        else:
            log.warning("touchd: %s", error)

    # -- dispatching -------------------------------------------------------------------------
    def _dispatch(self, msg):
        kind = msg.get("type")
        if kind == "frame":
            self._emit("frame", msg)
            to_touch = self._callbacks["touch"]
            for touch in msg.get("touches", []):
                tid = touch.get("id")
                if touch.get("phase") in ("ended", "cancelled"):
                    self._down.pop(tid, None)
                elif tid in self._down or self._follow():
                    self._down[tid] = touch
                if to_touch:
                    self._emit("touch", Touch(touch, msg))
            self._emit("message", msg)
        elif kind in ("control", "gesture", "scroll"):
            self._emit(kind, msg)
            self._emit("message", msg)
        elif kind in CALIBRATION_TYPES:
            self._emit("calibration", msg)
            self._emit("message", msg)
        elif kind in ACCESSIBILITY_TYPES or kind == "speech":
            self._emit("accessibility" if kind != "speech" else "speech", msg)
            self._emit("message", msg)
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
                self._emit("touch", Touch(dict(touch, phase="cancelled", reason=reason), None))


def _needs_two(fn):
    """Whether fn cannot be called with one positional argument but can with two: an on_touch
    callback written for the (touch, frame) of 0.2.0 and before."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):     # a builtin without a signature: called with one
        return False
    for count in (1, 2):
        try:
            signature.bind(*[None] * count)
            return count == 2
        except TypeError:
            pass
    return False
