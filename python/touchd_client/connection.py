"""The socket: connecting to the daemon, sending a line, and reading chunks into lines — a line
kept only up to max_line bytes, a longer one skipped to its newline without being kept."""
import errno
import os
import select
import socket

CHUNK = 65536       # bytes read at a time


class Closed(Exception):
    """The daemon closed the connection, or reading from it failed: str() says which."""


class Connection:
    """One connected socket and the start of a line not yet complete.

    read() hands each complete line (bytes, without its newline) to on_line and reports a line
    longer than max_line to on_too_long once, skipping it in linear time and bounded memory
    whatever the daemon sends. on_line may close() the connection (a bye, a flood): the rest of
    the chunk is then dropped."""

    def __init__(self, path, timeout):
        """Connect to the socket at path (OSError as socket.connect raises it)."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect(path)
        except OSError:
            sock.close()
            raise
        self.sock = sock
        self._buffer = bytearray()      # the start of a line not yet complete
        self._skipping = False          # inside a line longer than max_line

    @property
    def closed(self):
        return self.sock is None

    def fileno(self):
        return self.sock.fileno()

    def close(self):
        if self.sock is not None:
            self.sock.close()
            self.sock = None
            self._buffer, self._skipping = bytearray(), False

    def send(self, line):
        """Send one line (bytes, without its newline); OSError if the socket refuses it."""
        self.sock.sendall(line + b"\n")

    def read(self, wait, max_line, on_line, on_too_long):
        """Wait up to wait seconds for data and read one chunk (at most CHUNK bytes), handing on
        every line it completes. False if nothing came; Closed on EOF or a read error."""
        if not select.select([self.sock], [], [], max(0.0, wait))[0]:
            return False
        try:
            data = self.sock.recv(CHUNK)
        except OSError as e:
            raise Closed(os.strerror(e.errno or errno.EIO)) from None
        if not data:
            raise Closed("the daemon closed the connection")
        self._feed(data, max_line, on_line, on_too_long)
        return True

    def _feed(self, data, max_line, on_line, on_too_long):
        start = 0
        while self.sock is not None:
            end = data.find(b"\n", start)
            if end < 0:
                if not self._skipping:
                    if len(self._buffer) + len(data) - start > max_line:
                        self._too_long(on_too_long)
                    else:
                        self._buffer += data[start:]
                return
            if self._skipping:
                self._skipping = False
            elif len(self._buffer) + end - start > max_line:
                self._too_long(on_too_long)
                self._skipping = False
            elif self._buffer:
                self._buffer += data[start:end]
                line, self._buffer = bytes(self._buffer), bytearray()
                on_line(line)
            else:
                on_line(data[start:end])
            start = end + 1

    def _too_long(self, on_too_long):
        self._buffer, self._skipping = bytearray(), True
        on_too_long()
