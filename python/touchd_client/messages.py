"""Lines and messages: what the library checks of a line from the daemon before using it (the
fields it relies on), how a request becomes a line (within the daemon's nesting limit), and the
touch handed to on_touch."""
import json
import math
import re

from .errors import ProtocolError, TouchdError

REPLY_TYPES = ("attached", "updated", "detached", "output", "pong", "error",   # "output": with a line, the answer to rotate_output
               "calibration", "calibrationEnded",   # with a line: the answers to calibrate and cancel_calibration
               "screenReader", "announced", "accessibilityChanged")   # the screen reader's requests' answers
CALIBRATION_TYPES = ("calibration", "calibrated", "calibrationEnded")   # a calibration's news, for on_calibration
ACCESSIBILITY_TYPES = ("accessibilityFocus", "accessibility")   # the screen reader's focus and actions, for on_accessibility


class Touch(dict):
    """One touch of a frame, as the daemon sent it (a dict: touch["id"], touch["phase"], …),
    with the frame it came in as .frame — None for a cancel of the library's own (the
    connection closed, or a snapshot no longer lists the touch: reason "disconnected",
    "overflow" or "subscribe")."""

    __slots__ = ("frame",)

    def __init__(self, record, frame):
        super().__init__(record)
        self.frame = frame

    def __repr__(self):
        return "Touch(%s)" % dict.__repr__(self)


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _integer(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _point(value):
    return isinstance(value, list) and len(value) == 2 and all(_number(v) for v in value)


# The exact types json.loads gives each (type(), not isinstance: True is no integer).
_NUMBER = (int, float)
_TYPES = {"string": ((str,), "a string"), "number": (_NUMBER, "a number"), "integer": ((int,), "an integer"),
          "list": ((list,), "an array"), "boolean": ((bool,), "a boolean")}


def _json_type(value):
    """A value's JSON type, as the C library names it."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def _field(obj, key, want, required=False, where=""):
    """Why member `key` of obj is unusable as `want`, or None. Absent or null is fine unless it
    is required (as libtouchd-client: null counts as absent)."""
    value = obj.get(key)
    if value is None:
        return "%s%s: missing" % (where, key) if required else None
    if want == "point":
        if type(value) is list and len(value) == 2 and type(value[0]) in _NUMBER and type(value[1]) in _NUMBER:
            return None
        return "%s%s: not a point [x, y]" % (where, key)
    types, what = _TYPES[want]
    if type(value) in types:
        return None
    return "%s%s: %s, not %s" % (where, key, _json_type(value), what)


def _first(*problems):
    return next((p for p in problems if p is not None), None)


# A touch of a frame or snapshot: (key, type, required).
_TOUCH = (("id", "integer", True), ("phase", "string", True), ("window", "string", False), ("view", "string", False),
          ("location", "point", True), ("locationInView", "point", False), ("tapCount", "integer", False),
          ("reason", "string", False))
# Every message: (key, type); each optional.
_COMMON = (("line", "integer"), ("seq", "integer"), ("time", "number"), ("window", "string"), ("error", "string"),
           ("reason", "string"))


def _touches_problem(msg):
    why = _field(msg, "touches", "list", True)
    if why is not None:
        return why
    for i, touch in enumerate(msg["touches"]):
        if _touch_usable(touch):
            continue
        if not isinstance(touch, dict):
            return "touches[%d]: %s, not an object" % (i, _json_type(touch))
        where = "touches[%d]." % i
        for key, want, required in _TOUCH:
            why = _field(touch, key, want, required, where)
            if why is not None:
                return why
    return None


def _touch_usable(t):
    """_TOUCH's checks of one touch, without their texts (a frame of 40 touches checks 320 fields)."""
    if type(t) is not dict or type(t.get("id")) is not int or type(t.get("phase")) is not str:
        return False
    p = t.get("location")
    if type(p) is not list or len(p) != 2 or type(p[0]) not in _NUMBER or type(p[1]) not in _NUMBER:
        return False
    p = t.get("locationInView")
    if p is not None and (type(p) is not list or len(p) != 2 or type(p[0]) not in _NUMBER or type(p[1]) not in _NUMBER):
        return False
    v = t.get("tapCount")
    if v is not None and type(v) is not int:
        return False
    for key in ("window", "view", "reason"):
        v = t.get(key)
        if v is not None and type(v) is not str:
            return False
    return True


def _calibration_problem(msg, kind):
    target, done = kind == "calibration", kind == "calibrated"
    why = _first(_field(msg, "device", "string", True), _field(msg, "output", "string", target or done))
    if why is None and target:
        why = _first(_field(msg, "target", "integer", True), _field(msg, "count", "integer", True),
                     _field(msg, "point", "point", True), _field(msg, "retry", "string"), _field(msg, "message", "string"))
    if why is None and done:
        why = _field(msg, "matrix", "list", True)
        if why is None and len(msg["matrix"]) != 6:
            why = "matrix: %d numbers, not 6" % len(msg["matrix"])
        for i, v in enumerate(msg["matrix"] if why is None else ()):
            if not _number(v):
                why = "matrix[%d]: %s, not a number" % (i, _json_type(v))
                break
        why = _first(why, _field(msg, "residual", "number", True), _field(msg, "maxResidual", "number", True))
    return why


def problem(msg):
    """Why a parsed line is unusable, or None: every field the library or a program relies on
    has its type, as libtouchd-client checks them (clients/c/src/message.c): the common ones
    (line, seq, time, window, error, reason) wherever they are; control's control and event;
    gesture's and scroll's view, scroll's offset; each touch of a frame or snapshot (id, phase,
    location; window, view, locationInView, tapCount, reason when there); a calibration's
    device and output, a target's target, count and point (retry, message), calibrated's matrix
    of 6 numbers, residual and maxResidual; the screen reader's output, view, action, and a
    speech's text, interrupt and language (or its control). The text names the field's place
    ("calibrated: residual: a string, not a number")."""
    if not isinstance(msg, dict):
        return "not a JSON object"
    kind = msg.get("type")
    if not isinstance(kind, str):
        return "type: missing" if kind is None else "type: %s, not a string" % _json_type(kind)
    why = _first(*(_field(msg, key, want) for key, want in _COMMON))
    if why is None and kind == "hello":
        screen = msg.get("screen")
        if not (isinstance(screen, dict) and _number(screen.get("width")) and _number(screen.get("height"))):
            why = "no screen width and height"
    elif why is None and kind == "control":
        why = _first(_field(msg, "control", "string", True), _field(msg, "event", "string", True))
    elif why is None and kind in ("gesture", "scroll"):
        why = _field(msg, "view", "string", True)
        if why is None and kind == "scroll":
            why = _field(msg, "offset", "point", True)
    elif why is None and kind in ("frame", "snapshot"):
        why = _touches_problem(msg)
    elif why is None and kind in CALIBRATION_TYPES:
        why = _calibration_problem(msg, kind)
    elif why is None and kind in ACCESSIBILITY_TYPES + ("speech",):
        why = _accessibility_problem(msg, kind)
    return None if why is None else "%s: %s" % (kind, why)


def _accessibility_problem(msg, kind):
    """The screen reader's messages: every one names its output; accessibility its action and
    view (null for none), accessibilityFocus its view; speech its text, interrupt and language,
    or a control (pause, resume) instead."""
    why = _first(_field(msg, "output", "string", True), _field(msg, "view", "string"))
    if why is None and kind == "accessibility":
        why = _field(msg, "action", "string", True)
    if why is None and kind == "speech":
        why = _field(msg, "control", "string")
        if why is None and msg.get("control") is None:
            why = _first(_field(msg, "text", "string", True), _field(msg, "interrupt", "boolean", True),
                         _field(msg, "language", "string"))
    return why


class _Refused(ValueError):
    """A JSON text Python's json module takes that RFC 8259 (and libtouchd-client) does not."""


def _constant(name):
    raise _Refused("%s is not a JSON number" % name)


_INT64 = (-(1 << 63), (1 << 63) - 1)
# What may hide a value the C library refuses: an escape (\u0000, a lone surrogate), an exponent
# (1e400 is inf), 19 digits (beyond 64 bits). A line without any is not walked. Looked for on the
# line with its digits made 0 and E made e (a regular expression took 3 times json.loads' time).
_DIGITS = bytes.maketrans(b"0123456789E", b"0000000000e")


def _suspect(line):
    if b"\\u" in line:
        return True
    line = line.translate(_DIGITS)
    return b"0e" in line or b"0" * 19 in line


_BAD_CHARACTER = re.compile("[\x00\ud800-\udfff]")


def _value_problem(msg):
    """The first value json.loads made that libtouchd-client refuses (clients/c/src/strict.c):
    a string with NUL or a lone surrogate (from a \\u escape), a number beyond a double (inf)
    or an integer beyond 64 bits. Its place and why, or None."""
    stack = [(msg, "")]
    while stack:
        value, where = stack.pop()
        if isinstance(value, dict):
            for key, v in value.items():
                place = "%s.%s" % (where, key) if where else key
                if _BAD_CHARACTER.search(key):
                    return "%s: a member name with %s" % (where or "the object", _character(key))
                stack.append((v, place))
        elif isinstance(value, list):
            stack.extend((v, "%s[%d]" % (where, i)) for i, v in enumerate(value))
        elif isinstance(value, str):
            if _BAD_CHARACTER.search(value):
                return "%s: a string with %s" % (where, _character(value))
        elif isinstance(value, float):
            if not math.isfinite(value):
                return "%s: a number out of range (not a finite double)" % where
        elif isinstance(value, int) and not isinstance(value, bool) and not _INT64[0] <= value <= _INT64[1]:
            return "%s: an integer out of range (beyond 64 bits)" % where
    return None


def _character(text):
    c = _BAD_CHARACTER.search(text).group()
    return "a NUL character (\\u0000)" if c == "\x00" else "a lone surrogate (\\u%04x)" % ord(c)


def parse(line):
    """The message a line carries; ProtocolError if it is not one the library can use: not
    UTF-8 (strictly: no overlong forms, no surrogates), not strict JSON (no NaN or Infinity, no
    number beyond a double or integer beyond 64 bits, no NUL or lone surrogate in a string), not
    an object, or a field of the wrong type (problem())."""
    try:
        text = bytes(line).decode("utf-8")   # json.loads(bytes) would let encoded surrogates through
        msg = json.loads(text, parse_constant=_constant)
    except UnicodeDecodeError as e:
        raise ProtocolError("a line from the daemon that is not UTF-8 (%s at byte %d); skipped"
                            % (e.reason, e.start + 1), line) from None
    except _Refused as e:
        raise ProtocolError("a line from the daemon that is not strict JSON (%s); skipped" % e, line) from None
    except (ValueError, RecursionError) as e:
        raise ProtocolError("a line from the daemon that is not JSON (%s); skipped"
                            % (str(e)[:80] if not isinstance(e, RecursionError) else "nested too deep"), line) from None
    why = _value_problem(msg) if _suspect(line) else None
    if why is not None:
        raise ProtocolError("a line from the daemon that is not strict JSON (%s); skipped" % why, line)
    why = problem(msg)
    if why is not None:
        raise ProtocolError("a message from the daemon the library cannot use (%s); skipped" % why, line)
    return msg


def depth(value):
    """Nesting depth of a JSON value as the daemon counts it (the outermost object is 1)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict):
            deepest = max(deepest, level)
            stack.extend((v, level + 1) for v in node.values() if isinstance(v, (dict, list, tuple)))
        elif isinstance(node, (list, tuple)):
            deepest = max(deepest, level)
            stack.extend((v, level + 1) for v in node if isinstance(v, (dict, list, tuple)))
    return deepest


def encode(kind, body, max_depth):
    """The request {kind: body} as a line (without its newline), or TouchdError if the daemon
    would refuse it for its nesting (it could not even be encoded past Python's recursion limit)."""
    request = {kind: body}
    if depth(request) > max_depth:
        raise TouchdError({"error": "%s: nested deeper than %d levels (the daemon's limit)" % (kind, max_depth),
                           "request": kind})
    return json.dumps(request).encode()
