"""Issue 46's acceptance "a PIN pad's digits are spoken only with headphones in and reach no other
client", end to end: the real daemon replaying touches and a headphone jack on one timeline
(`touchd run --replay`, Tests/Fixtures/virtual-800x480.desc and a jack written as
Tests/Fixtures/headphones/hda-intel-pch-headphone.events is), its screen reader on the output,
a private PIN window with secure keys attached by one client (the owner), `touchd speak` (the
build tree's touchd-speak, run by the touchd under test) claiming the speaker role the config
gives its user, a fake speech-dispatcher writing down every SSIP command, and a third client
subscribed to speech.

Written against the documented design (docs/accessibility.md "Private text and the speaker
role", docs/messages.md `speech`, interface.md "Accessibility"): the speaker gets a secure key's
text with `"private": true`, spoken only while headphones are plugged in; without them a secure
key is read as its trait ("key", no `private`: nothing in it is private) and never its label;
a client that is neither owner nor speaker gets no `speech` message about the private window at
all. Until the daemon has the speaker role (clients.speakers and subscribe's `speaker`), this
test is skipped: a first daemon with a plain config is asked to subscribe with
`"speaker": true`, and a daemon that refuses the key itself (an error about `speaker` that does
not name clients.speakers, the design's refusal) skips it. Every other failure fails."""
import json
import os
import pwd
import socket
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from speechrig import FakeSSIP, SpeakProcess, wait_for  # noqa: E402
from support import PYTHON_DIR, REPO, TempDirTest, touchd_binary  # noqa: E402

BINARY = touchd_binary()
FIXTURES = os.path.join(REPO, "Tests", "Fixtures")
USER = pwd.getpwuid(os.getuid()).pw_name
GREETING = ["SET self CLIENT_NAME %s:touchd:speak" % USER, "SET self PRIORITY message", "GET LANGUAGE", "GET RATE"]

# The kiosk's public menu (the config's window, everyone's) under the owner's private PIN pad.
CONFIG = {
    "outputs": [{"id": "main", "width": 800, "height": 480, "screenReader": True}],
    "clients": {"speakers": {"users": [USER]}},
    "windows": [{"id": "menu", "frame": [0, 0, 800, 480], "level": 0,
                 "view": {"id": "menu-root", "frame": [0, 0, 800, 480], "subviews": [
                     {"id": "cancel", "frame": [520, 360, 260, 100], "control": "button",
                      "accessibility": {"label": "Cancel"}}]}}],
}
KEYS = {"7": (80, 80), "8": (240, 80), "9": (400, 80)}
PIN = {"id": "pin", "frame": [0, 0, 480, 480], "level": 1, "private": True,
       "view": {"id": "pin-root", "frame": [0, 0, 480, 480], "subviews": [
           {"id": "k" + d, "frame": [x - 60, y - 60, 120, 120],
            "accessibility": {"label": d, "traits": ["key"], "secure": True}} for d, (x, y) in KEYS.items()]}}
CANCEL = (650, 410)

# The timeline (seconds; a finger held 0.3 s explores: focus and reading at down + 0.3):
#   1.0 7 held, no headphones   -> "key" (the trait only)
#   2.0 headphones plugged
#   2.5 8 held                  -> "8, key", private
#   3.2 headphones pulled       -> touchd speak cancels the private text it may still be saying
#   3.5 9 held                  -> "key"
#   4.5 Cancel held             -> "Cancel, button" (public: the third client hears it too)
#   5.5 headphones plugged
#   6.0 7 held                  -> "7, key", private
HOLDS = [(1.0, KEYS["7"]), (2.5, KEYS["8"]), (3.5, KEYS["9"]), (4.5, CANCEL), (6.0, KEYS["7"])]
JACK = [(2.0, 1), (3.2, 0), (5.5, 1)]


def touches_capture(path):
    """Header-less evemu events for the virtual 800x480 touchscreen (its units are points): one
    finger held 0.5 s at each of HOLDS."""
    with open(path, "w") as f:
        for i, (t, (x, y)) in enumerate(HOLDS):
            f.write("E: %.6f 0003 002f 0\nE: %.6f 0003 0039 %d\nE: %.6f 0003 0035 %d\nE: %.6f 0003 0036 %d\n"
                    "E: %.6f 0000 0000 0\n" % (t, t, i + 1, t, x, t, y, t))
            t += 0.5
            f.write("E: %.6f 0003 002f 0\nE: %.6f 0003 0039 -1\nE: %.6f 0000 0000 0\n" % (t, t, t))


def jack_capture(path):
    """The fixture jack's description (SW_HEADPHONE_INSERT only) with JACK's switch events."""
    with open(os.path.join(FIXTURES, "headphones", "hda-intel-pch-headphone.events")) as f:
        header = [line for line in f if not line.startswith("E:")]
    with open(path, "w") as f:
        f.writelines(header)
        for t, value in JACK:
            f.write("E: %.6f 0005 0002 %d\nE: %.6f 0000 0000 0\n" % (t, value, t))


class Client:
    """A plain connection to the daemon: every line it gets, parsed, kept in order by a thread."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.messages, self.lock = [], threading.Lock()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        buf = b""
        while True:
            try:
                data = self.sock.recv(65536)
            except OSError:
                return
            if not data:
                return
            buf += data
            *lines, buf = buf.split(b"\n")
            with self.lock:
                self.messages += [json.loads(line) for line in lines if line]

    def send(self, request):
        self.sock.sendall(json.dumps(request).encode() + b"\n")

    def got(self, kind=None):
        with self.lock:
            return [m for m in self.messages if kind is None or m.get("type") == kind]

    def reply(self, line, timeout=5):
        """The reply to request `line` (numbered from 1 on this connection), or the error."""
        return wait_for(lambda: next((m for m in self.got() if m.get("line") == line), None), timeout,
                        "the reply to request %d; got %r" % (line, self.got()))

    def subscribed(self, timeout=5):
        """The answer to this connection's first request, a subscribe: its error, else the
        snapshot the daemon sends after the one every connection starts with."""
        def answer():
            error = next((m for m in self.got("error") if m.get("line") == 1), None)
            return error or (self.got("snapshot")[1:] or [None])[0]
        return wait_for(answer, timeout, "the answer to the subscribe; got %r" % self.got())

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        self.thread.join(5)


@unittest.skipUnless(os.access(BINARY, os.X_OK), "no touchd at %s (set TOUCHD_BINARY, or build it)" % BINARY)
class PinPadSpeech(TempDirTest):
    def daemon(self, config, *args):
        with open(self.path("touchd.json"), "w") as f:
            json.dump(config, f)
        sock = self.path("touchd.sock")
        if os.path.exists(sock):
            os.unlink(sock)
        log = open(self.path("touchd.log"), "a")
        self.addCleanup(log.close)
        proc = subprocess.Popen([BINARY, "run", "--config", self.path("touchd.json"), "--socket", sock, *args],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
        self.addCleanup(lambda: proc.poll() is None and (proc.kill(), proc.wait(5)))
        wait_for(lambda: os.path.exists(sock) or proc.poll() is not None, 10, "touchd to listen")
        if proc.poll() is not None:
            with open(self.path("touchd.log")) as f:
                self.fail("touchd exited %s: %s" % (proc.returncode, f.read()))
        return proc, sock

    def client(self, sock):
        c = Client(sock)
        self.addCleanup(c.close)
        return c

    def skip_without_the_speaker_role(self):
        """Asks a daemon with a plain config for the speaker role: the design refuses it naming
        clients.speakers (the policy names nobody); a daemon without the role refuses the key."""
        proc, sock = self.daemon({"outputs": [{"id": "main", "width": 800, "height": 480}], "windows": []})
        probe = self.client(sock)
        probe.send({"subscribe": {"types": ["speech", "headphones"], "speaker": True}})
        reply = probe.subscribed()
        probe.close()
        proc.terminate()
        proc.wait(5)
        error = reply.get("error", "") if reply.get("type") == "error" else ""
        if "speaker" in error and "clients.speakers" not in error:
            self.skipTest("the daemon has no speaker role yet (subscribe with \"speaker\": true: %s); "
                          "it comes with the speakers branch (docs/accessibility.md, \"Private text and the speaker role\")" % error)

    def test_a_pin_is_spoken_only_into_headphones_and_reaches_no_other_client(self):
        self.skip_without_the_speaker_role()
        touches_capture(self.path("touches.events"))
        jack_capture(self.path("jack.events"))
        proc, sock = self.daemon(CONFIG, "--replay", self.path("touches.events"),
                                 "--device-info", os.path.join(FIXTURES, "virtual-800x480.desc"),
                                 "--replay", self.path("jack.events"), "--speed", "1",
                                 "--wait-clients", "3", "--wait-windows", "1", "--exit-at-end")
        ssip = FakeSSIP(self.path("ssip.sock"))
        self.addCleanup(ssip.stop)
        # `touchd speak` from the touchd under test (it finds python/touchd-speak in its build
        # tree, or on PATH); first, so that it is connected to both before anything is said.
        env = dict(os.environ, PATH=PYTHON_DIR + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"))
        speak = SpeakProcess([BINARY, "speak", "--socket", sock, "--speech", "unix_socket:" + self.path("ssip.sock"),
                              "--no-spawn"], self.path("speak.log"), env=env)
        self.addCleanup(speak.stop)
        self.assertEqual(ssip.wait(4), GREETING)
        speak.wait_log("connected to touchd")
        owner = self.client(sock)
        owner.send({"attach": PIN})
        self.assertEqual(owner.reply(1).get("type"), "attached", owner.got())
        third = self.client(sock)
        third.send({"subscribe": {"types": ["speech", "headphones", "accessibilityFocus", "frame"]}})
        self.assertEqual(third.subscribed().get("type"), "snapshot", third.got())   # the replay starts
        expected = GREETING + [
            "CANCEL self", "SPEAK key",                 # 7 without headphones: its trait only
            "CANCEL self", "SPEAK 8, key",              # plugged in: the digit
            "CANCEL self",                              # pulled: the private text is cut
            "CANCEL self", "SPEAK key",                 # 9 without headphones
            "CANCEL self", "SPEAK Cancel, button",
            "CANCEL self", "SPEAK 7, key",              # plugged in again
        ]
        proc.wait(15)                                   # --exit-at-end: the replay is over
        try:
            ssip.wait(len(expected), timeout=3)         # what touchd speak still has to send
        except AssertionError:
            pass                                        # (the comparison below shows it)
        time.sleep(0.3)                                 # anything said after the last expected
        self.assertEqual(ssip.lines(), expected, "touchd speak's log:\n%s" % speak.log())
        # Nothing of the PIN pad reached the third client: of the speech it took, only the
        # public button; no focus, frame or other message names the private window.
        self.assertEqual([m.get("text") for m in third.got("speech")], ["Cancel, button"], third.got("speech"))
        self.assertEqual([m for m in third.got() if m.get("window") == "pin" or
                          any(t.get("window") == "pin" for t in m.get("touches", []))], [])
        self.assertEqual([m["plugged"] for m in third.got("headphones")], [True, False, True])
        # The owner heard its own digits, marked private (what it gets without headphones is
        # not this test's).
        private = [(m.get("text"), m.get("private")) for m in owner.got("speech") if m.get("private")]
        for said in [("8, key", True), ("7, key", True)]:
            self.assertIn(said, private, owner.got("speech"))


if __name__ == "__main__":
    unittest.main()
