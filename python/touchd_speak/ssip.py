"""One connection to speech-dispatcher in SSIP, its plain-text protocol (speech-dispatcher's
ssip.info: "General Rules", "SPEAK", "CANCEL", "SET"): commands are lines ended by CR LF,
each answered by lines "CCC-data" and a last line "CCC text", 2xx meaning success; SPEAK is
answered 230, then takes the text, its lines ending CR LF, a line starting with a dot given a
second one, closed by a line holding a dot alone, and answers 225 with the message id.

Written here rather than taken from python3-speechd (speechd.SSIPClient) because that client
waits for every reply on a semaphore without a bound: a speech-dispatcher that goes away
between a command and its reply leaves it blocked for ever (its reader thread exits, nobody
releases the semaphore; python/tests/speech checks the case against this module). touchd
speak must keep reading the daemon and reconnect, so every wait here has a deadline, and the
connection is a plain socket the caller's select() watches. Addresses are libspeechd's:
SPEECHD_ADDRESS ("unix_socket:PATH" or "inet_socket:HOST:PORT"), else
$XDG_RUNTIME_DIR/speech-dispatcher/speechd.sock, and a missing server is started the way
libspeechd autospawns it (`speech-dispatcher --spawn`, which the server may refuse)."""
import errno
import os
import select
import socket
import subprocess
import time

CRLF = b"\r\n"
REPLY_TIMEOUT = 2.0      # seconds a command waits for its answer before the connection is given up
SPAWN_TIMEOUT = 10.0     # seconds `speech-dispatcher --spawn` may take (it loads its output modules)


class SSIPError(Exception):
    """A connection that failed (gone, no answer in time, nothing there), or a refusal."""


class Refused(SSIPError):
    """speech-dispatcher answered a command with a code other than 2xx (the connection stays)."""

    def __init__(self, command, code, text):
        super().__init__("%s: %d %s" % (command, code, text))
        self.code = code


def address(environ=os.environ):
    """(family, where, text) of the server libspeechd would use: SPEECHD_ADDRESS, else the
    unix socket in $XDG_RUNTIME_DIR (or ~/.cache) under speech-dispatcher/speechd.sock."""
    given = environ.get("SPEECHD_ADDRESS")
    if given:
        return parse_address(given)
    runtime = environ.get("XDG_RUNTIME_DIR") or environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache")
    path = os.path.join(runtime, "speech-dispatcher", "speechd.sock")
    return socket.AF_UNIX, path, "unix_socket:" + path


def parse_address(text):
    """An address as libspeechd writes it; ValueError naming what is wrong."""
    method, _, rest = text.partition(":")
    if method == "unix_socket" and rest:
        return socket.AF_UNIX, rest, text
    if method == "inet_socket":
        host, _, port = rest.rpartition(":") if rest.count(":") else (rest, "", "6560")
        try:
            number = int(port)
        except ValueError:
            number = 0
        if not 0 < number < 65536:
            raise ValueError("%r: the port %r is not a number from 1 to 65535" % (text, port))
        return socket.AF_INET, (host or "127.0.0.1", number), text
    raise ValueError("%r: expected unix_socket:PATH or inet_socket:HOST:PORT" % text)


def escape(text):
    """The SPEAK data of a text: its line breaks made CR LF, a dot doubled at the start of a
    line, other control characters but tab made spaces (a NUL would end the text in the
    server's C strings), then the closing dot line."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = "".join(c if c in "\n\t" or ord(c) >= 32 and ord(c) != 127 else " " for c in text)
    lines = [("." + line) if line.startswith(".") else line for line in text.split("\n")]
    return "\r\n".join(lines).encode("utf-8") + CRLF + b"." + CRLF


class Connection:
    """One SSIP connection. Every method raises SSIPError when the connection fails (it is then
    closed: fileno() is -1) and Refused when the server answers with an error code."""

    def __init__(self, family, where, timeout=REPLY_TIMEOUT):
        self.timeout = timeout
        self.buffer = b""
        self.sock = socket.socket(family, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
        self.sock.settimeout(timeout)
        try:
            self.sock.connect(where)
        except OSError:
            self.sock.close()
            raise
        self.sock.setblocking(False)

    def fileno(self):
        return self.sock.fileno() if self.sock is not None else -1

    def close(self):
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def quit(self):
        """QUIT, as ssip.info asks of a client that leaves; then closed, whatever it answers."""
        try:
            self.command("QUIT")
        except SSIPError:
            pass
        self.close()

    def _fail(self, why):
        self.close()
        raise SSIPError(why)

    def _send(self, data):
        if self.sock is None:
            raise SSIPError("not connected")
        deadline = time.monotonic() + self.timeout
        while data:
            try:
                sent = self.sock.send(data)
            except BlockingIOError:
                if not select.select([], [self.sock], [], max(0.0, deadline - time.monotonic()))[1]:
                    self._fail("speech-dispatcher took nothing for %g s" % self.timeout)
                continue
            except OSError as e:
                self._fail("speech-dispatcher is gone (%s)" % os.strerror(e.errno or errno.EIO))
            data = data[sent:]

    def _line(self, deadline):
        while CRLF not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.sock], [], [], left)[0]:
                self._fail("no answer from speech-dispatcher within %g s" % self.timeout)
            try:
                data = self.sock.recv(4096)
            except BlockingIOError:
                continue
            except OSError as e:
                self._fail("speech-dispatcher is gone (%s)" % os.strerror(e.errno or errno.EIO))
            if not data:
                self._fail("speech-dispatcher closed the connection")
            self.buffer += data
            if len(self.buffer) > 1 << 20:
                self._fail("speech-dispatcher sent a line longer than 1 MiB")
        line, self.buffer = self.buffer.split(CRLF, 1)
        return line.decode("utf-8", "replace")

    def _reply(self, what):
        """The answer's (code, data lines); events (7xx, only sent when asked for) skipped."""
        deadline = time.monotonic() + self.timeout
        data = []
        while True:
            line = self._line(deadline)
            if len(line) < 4 or not line[:3].isdigit() or line[3] not in "- ":
                self._fail("speech-dispatcher answered %s with %r, not an SSIP reply" % (what, line[:80]))
            code = int(line[:3])
            if line[3] == "-":
                data.append(line[4:])
            elif code // 100 == 7:
                data = []
            elif code // 100 != 2:
                raise Refused(what, code, line[4:])
            else:
                return code, data

    def command(self, line):
        """Send one command line and return its answer's (code, data lines)."""
        if "\r" in line or "\n" in line:
            raise ValueError("an SSIP command is one line: %r" % line)
        self._send(line.encode("utf-8") + CRLF)
        return self._reply(line)

    def speak(self, text):
        """SPEAK a text; returns speech-dispatcher's message id (a string)."""
        code, _ = self.command("SPEAK")
        if code != 230:
            self._fail("SPEAK answered %d, not 230 (receiving data)" % code)
        self._send(escape(text))
        _, data = self._reply("SPEAK's text")
        return data[0] if data else ""

    def readable(self):
        """Called when select() says the socket is readable while no command waits: the server
        closed it (SSIPError), or sent an event, which is read and forgotten."""
        try:
            data = self.sock.recv(4096)
        except BlockingIOError:
            return
        except OSError as e:
            self._fail("speech-dispatcher is gone (%s)" % os.strerror(e.errno or errno.EIO))
        if not data:
            self._fail("speech-dispatcher closed the connection")
        self.buffer = b""


def spawn(where, command="speech-dispatcher", timeout=SPAWN_TIMEOUT):
    """Ask for a server as libspeechd's autospawn does: `speech-dispatcher --spawn` with the
    socket's path (the server itself refuses when its config disables autospawn). Returns None
    when it started, else why not."""
    try:
        done = subprocess.run([command, "--spawn", "--communication-method", "unix_socket",
                               "--socket-path", where], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=timeout, check=False)
    except FileNotFoundError:
        return "no %s to start (install speech-dispatcher)" % command
    except subprocess.TimeoutExpired:
        return "%s --spawn took more than %g s" % (command, timeout)
    except OSError as e:
        return "cannot run %s: %s" % (command, e.strerror)
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return "%s --spawn refused (exit %d%s)" % (command, done.returncode, ": " + said[-1] if said else "")
    return None
