"""What the speech tests share: a fake speech-dispatcher that speaks SSIP and writes down every
command it gets, a fake touchd that sends `speech` and `headphones` messages to its subscribers,
and touchd-speak run as a process whose log is read back. Every wait is bounded."""
import json
import os
import socket
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))      # python/tests: support
from support import HELLO, PYTHON_DIR, FakeServer, wait_for  # noqa: E402

SPEAK_PROGRAM = os.path.join(PYTHON_DIR, "touchd-speak")


class FakeSSIP:
    """A Unix socket answering SSIP as speech-dispatcher 0.11 does (codes from ssip.info and
    from the real server: 208 client name, 202 priority, 201 language, 203 rate, 251 GET,
    210 cancel, 230 then 225 for SPEAK, 231 QUIT). `transcript` holds, in order and across
    connections, each command line and, for SPEAK, "SPEAK " + the text as SSIP's escaping
    carried it back; `raw` the bytes of each SPEAK's data. `silent` names a command that is
    never answered; `die_on` one that closes the connection instead of answering."""

    ANSWERS = {"SET": {"CLIENT_NAME": "208 OK CLIENT NAME SET", "PRIORITY": "202 OK PRIORITY SET",
                       "LANGUAGE": "201 OK LANGUAGE SET", "RATE": "203 OK RATE SET"},
               "CANCEL": "210 OK CANCELED", "STOP": "210 OK STOPPED", "PAUSE": "210 OK PAUSED",
               "RESUME": "210 OK RESUMED", "QUIT": "231 HAPPY HACKING"}

    def __init__(self, path, language="en", rate="0"):
        self.path = path
        self.language, self.rate = language, rate
        self.transcript, self.raw, self.connections = [], [], 0
        self.silent = self.die_on = None
        self.lock = threading.Lock()
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(4)
        self.listener.settimeout(0.05)
        self.stopping = threading.Event()
        self.socks = []
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
            self.connections += 1
            self.socks.append(sock)
            t = threading.Thread(target=self._serve, args=(sock,), daemon=True)
            self.threads.append(t)
            t.start()

    def _serve(self, sock):
        buf = b""
        sock.settimeout(0.1)

        def line():
            nonlocal buf
            while b"\r\n" not in buf:
                if self.stopping.is_set():
                    return None
                try:
                    data = sock.recv(4096)
                except socket.timeout:
                    continue
                except OSError:
                    return None
                if not data:
                    return None
                buf += data
            out, buf = buf.split(b"\r\n", 1)
            return out

        try:
            while True:
                got = line()
                if got is None:
                    return
                text = got.decode("utf-8")
                word = text.split(" ", 1)[0].upper()
                if self.die_on is not None and text.startswith(self.die_on):
                    self.record(text)
                    sock.close()
                    return
                if self.silent is not None and text.startswith(self.silent):
                    self.record(text)
                    continue
                if word == "SPEAK":
                    sock.sendall(b"230 OK RECEIVING DATA\r\n")
                    data = []
                    while True:
                        part = line()
                        if part is None:
                            return
                        if part == b".":
                            break
                        data.append(part)
                    raw = b"\r\n".join(data)
                    spoken = "\n".join((p[1:] if p.startswith(b".") else p).decode("utf-8") for p in data)
                    with self.lock:
                        self.raw.append(raw)
                        self.transcript.append("SPEAK " + spoken)
                        number = len(self.raw)
                    sock.sendall(b"225-%d\r\n225 OK MESSAGE QUEUED\r\n" % number)
                    continue
                self.record(text)
                if word == "GET":
                    value = {"LANGUAGE": self.language, "RATE": self.rate}.get(text.split(" ")[1].upper())
                    sock.sendall(("251-%s\r\n251 OK GET RETURNED\r\n" % value).encode() if value is not None
                                 else b"500 ERR INVALID COMMAND\r\n")
                elif text.upper() == "HISTORY GET CLIENT_ID":      # python3-speechd's greeting
                    sock.sendall(b"240-1\r\n240 OK CLIENT ID SENT\r\n")
                elif word == "SET":
                    answer = self.ANSWERS["SET"].get(text.split(" ")[2].upper(), "200 OK")
                    sock.sendall(answer.encode() + b"\r\n")
                else:
                    sock.sendall(self.ANSWERS.get(word, "500 ERR INVALID COMMAND").encode() + b"\r\n")
                    if word == "QUIT":
                        return
        finally:
            sock.close()

    def record(self, text):
        with self.lock:
            self.transcript.append(text)

    def lines(self):
        with self.lock:
            return list(self.transcript)

    def wait(self, count, timeout=10):
        """The transcript once it holds count entries (it fails the test if it never does,
        showing the transcript as it is then)."""
        try:
            wait_for(lambda: len(self.lines()) >= count, timeout, "%d SSIP commands" % count)
        except AssertionError as e:
            raise AssertionError("%s (have %r)" % (e, self.lines())) from None
        return self.lines()

    def kill(self):
        """speech-dispatcher gone: listener and connections closed, the socket file removed."""
        self.stopping.set()
        for s in self.socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.listener.close()
        for t in self.threads:
            t.join(5)
        try:
            os.unlink(self.path)
        except OSError:
            pass

    stop = kill


class FakeTouchd(FakeServer):
    """A daemon that answers subscribe with a snapshot (its `headphones` from .headphones) —
    refused, with an error naming the role, when it asks to be a speaker and .speakers is
    False — and sends what the test publishes to every subscribed connection. `subscribes`
    holds each subscribe's body, in order."""

    def __init__(self, path, speakers=True):
        self.speakers = speakers
        self.headphones = []
        self.subscribes = []
        self.subscribed = []
        super().__init__(path, self._serve_one)

    def _serve_one(self, conn, index):
        conn.send(HELLO, {"type": "snapshot", "seq": 0, "time": 0.0, "devices": [], "touches": []})
        number = 0
        while True:
            line = conn.read_line(30)
            if line is None:
                return
            number += 1
            (kind, body), = json.loads(line).items()
            if kind == "subscribe":
                self.subscribes.append(body)
                if body.get("speaker") and not self.speakers:
                    conn.send({"type": "error", "error": "subscribe: speaker: the config's clients.speakers does "
                                                         "not name this client", "line": number})
                    continue
                conn.send({"type": "snapshot", "seq": 0, "time": 0.0, "devices": [], "touches": [],
                           "headphones": self.headphones, "line": number})
                if conn not in self.subscribed:         # a subscribe again replaces the filter
                    self.subscribed.append(conn)
            elif kind == "ping":
                conn.send({"type": "pong", "value": body, "line": number})

    def publish(self, *msgs):
        for conn in list(self.subscribed):
            if not conn.closed:
                conn.send(*msgs)


class SpeakProcess:
    """touchd-speak (or `touchd speak`) as a process, its stderr in a file the test reads."""

    def __init__(self, argv, log_path, env=None):
        self.log_path = log_path
        self.log_file = open(log_path, "w")
        self.proc = subprocess.Popen(argv, stdout=self.log_file, stderr=subprocess.STDOUT, env=env)

    def log(self):
        with open(self.log_path, encoding="utf-8") as f:
            return f.read()

    def wait_log(self, text, timeout=10):
        wait_for(lambda: text in self.log(), timeout, "%r in touchd-speak's log:\n%s" % (text, self.log()))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.log_file.close()
        return self.proc.returncode
