"""Lines and messages: what the library checks of a line from the daemon before using it (the
fields it relies on), how a request becomes a line (within the daemon's nesting limit), and the
touch handed to on_touch."""
import json

from .errors import ProtocolError, TouchdError

REPLY_TYPES = ("attached", "updated", "detached", "output", "pong", "error",   # "output": with a line, the answer to rotate_output
               "calibration", "calibrationEnded")   # with a line: the answers to calibrate and cancel_calibration
CALIBRATION_TYPES = ("calibration", "calibrated", "calibrationEnded")   # a calibration's news, for on_calibration


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


def _touches_problem(msg):
    touches = msg.get("touches", [])
    if not isinstance(touches, list) or not all(isinstance(t, dict) and "id" in t for t in touches):
        return "%s: touches is not a list of touches with ids" % msg["type"]
    return None


def problem(msg):
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
    elif kind == "calibration":
        point = msg.get("point")
        if not (isinstance(msg.get("device"), str) and isinstance(msg.get("target"), int)
                and isinstance(point, list) and len(point) == 2 and all(_number(v) for v in point)):
            return "calibration: no device, target or point [x, y]"
    elif kind == "calibrated":
        matrix = msg.get("matrix")
        if not (isinstance(msg.get("device"), str) and isinstance(matrix, list) and len(matrix) == 6
                and all(_number(v) for v in matrix)):
            return "calibrated: no device or no matrix of 6 numbers"
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


def parse(line):
    """The message a line carries; ProtocolError if it is not one the library can use."""
    try:
        msg = json.loads(line)
    except (ValueError, RecursionError) as e:     # UnicodeDecodeError is a ValueError
        raise ProtocolError("a line from the daemon that is not JSON (%s); skipped"
                            % (str(e)[:80] if not isinstance(e, RecursionError) else "nested too deep"), line) from None
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
