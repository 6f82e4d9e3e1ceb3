"""The exceptions: an error reply, a connection gone, a line from the daemon the library cannot use."""


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
    on missing or of the wrong type, longer than max_line, a reply to no request — or a daemon
    that sends more than the library holds. Handed to the on_error callbacks (never raised); the
    line is skipped and the stream goes on. .text: the line's first 200 bytes (empty for a line
    too long to keep)."""

    def __init__(self, reason, text=b""):
        super().__init__({"error": reason})
        self.text = bytes(text[:200])
