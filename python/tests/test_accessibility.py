"""The screen reader through the Python client (issue 45, item 5): the requests are sent as
docs/protocol.md says, the focus, actions and speech reach on_accessibility and on_speech, a
malformed one is refused naming its field, set's accessibility merges into the client's copy,
and against the real daemon a replayed double tap's messages pass the checks."""
import json
import os
import subprocess
import time
import unittest

from support import HELLO, REPO, TempDirTest, touchd_binary
from touchd_client import ProtocolError, TouchdClient, TouchdError

SNAPSHOT = {"type": "snapshot", "seq": 0, "time": 0.0, "devices": [], "touches": []}
BINARY = touchd_binary()
FIXTURES = os.path.join(REPO, "Tests", "Fixtures")


class Requests(TempDirTest):
    def test_requests_news_and_a_malformed_speech(self):
        seen = []

        def daemon(conn, _):
            conn.send(HELLO, SNAPSHOT)
            for line in range(1, 5):
                request = json.loads(conn.read_line())
                seen.append(request)
                kind = next(iter(request))
                if kind == "screenReader":
                    conn.send({"type": "screenReader", "output": "screen", "on": True, "line": line})
                elif kind == "announce":
                    conn.send({"type": "announced", "output": "screen", "line": line})
                elif kind == "accessibilityChanged" and "screen" in request[kind]:
                    conn.send({"type": "accessibilityChanged", "output": "screen", "focus": "coffee", "line": line})
                else:
                    conn.send({"type": "error", "error": "accessibilityChanged: focus: no view \"x\"", "request": kind,
                               "path": "focus", "line": line})
            conn.send({"type": "accessibilityFocus", "seq": 1, "time": 1.3, "output": "screen", "window": "main", "view": "coffee"},
                      {"type": "speech", "seq": 2, "time": 1.3, "output": "screen", "text": "Coffee, button", "interrupt": True,
                       "language": "en"},
                      {"type": "speech", "seq": 3, "time": 1.4, "output": "screen", "control": "pause"},
                      {"type": "speech", "seq": 4, "time": 1.5, "output": "screen", "text": 5, "interrupt": True},
                      {"type": "accessibility", "seq": 5, "time": 2.2, "output": "screen", "action": "activate", "view": "coffee"})
            conn.read_line(timeout=2)
        self.serve(daemon)
        client = TouchdClient(self.path("fake.sock"), timeout=2, reconnect=False)
        focus, speech, errors = [], [], []
        client.on_accessibility(focus.append)
        client.on_speech(speech.append)
        client.on_error(errors.append)
        self.assertTrue(client.connect())
        self.assertEqual(client.screen_reader("screen", True)["on"], True)
        self.assertEqual(client.announce("screen", "Insert your card")["type"], "announced")
        self.assertEqual(client.accessibility_changed("screen", screen=True)["focus"], "coffee")
        with self.assertRaises(TouchdError):
            client.accessibility_changed("screen", layout=True, focus="x")
        self.assertEqual(seen, [{"screenReader": {"output": "screen", "on": True}},
                                {"announce": {"output": "screen", "text": "Insert your card"}},
                                {"accessibilityChanged": {"output": "screen", "screen": True}},
                                {"accessibilityChanged": {"output": "screen", "layout": True, "focus": "x"}}])
        deadline = time.monotonic() + 3
        while len(focus) < 2 and time.monotonic() < deadline:
            client.poll(0.05)
        self.assertEqual([(m["type"], m.get("view"), m.get("action")) for m in focus],
                         [("accessibilityFocus", "coffee", None), ("accessibility", "coffee", "activate")])
        self.assertEqual([m.get("text", m.get("control")) for m in speech], ["Coffee, button", "pause"])
        self.assertEqual([str(e) for e in errors if isinstance(e, ProtocolError)][0].count("speech: text: an integer, not a string"), 1)
        client.close()

    def test_set_merges_accessibility_into_the_copy(self):
        def daemon(conn, _):
            conn.send(HELLO, SNAPSHOT)
            for line in (1, 2):
                conn.read_line()
                conn.send({"type": "attached" if line == 1 else "updated", "window": "w", "version": line, "line": line})
            conn.read_line(timeout=2)
        self.serve(daemon)
        client = TouchdClient(self.path("fake.sock"), timeout=2, reconnect=False)
        self.assertTrue(client.connect())
        client.attach({"id": "w", "frame": [0, 0, 800, 480], "view": {"id": "r", "frame": [0, 0, 800, 480], "subviews": [
            {"id": "size", "frame": [0, 0, 100, 40], "accessibility": {"label": "Size", "value": "1", "traits": ["adjustable"]}}]}})
        client.update("w", [{"view": "size", "set": {"accessibility": {"value": "2", "label": None}}}])
        self.assertEqual(client.windows["w"]["view"]["subviews"][0]["accessibility"], {"value": "2", "traits": ["adjustable"]})
        client.close()


@unittest.skipUnless(os.access(BINARY, os.X_OK), "no touchd at %s (set TOUCHD_BINARY, or build it)" % BINARY)
class TheRealDaemon(TempDirTest):
    def test_a_replayed_double_tap_reaches_the_callbacks(self):
        # Tests/Fixtures/voiceover: coffee explored (focus at 1.30), then a double tap elsewhere
        # activates it (2.20): its tap's control events come marked synthesized.
        sock = self.path("touchd.sock")
        log = open(self.path("touchd.log"), "a")
        self.addCleanup(log.close)
        proc = subprocess.Popen([BINARY, "run", "--config", os.path.join(FIXTURES, "voiceover", "voiceover.json"), "--socket", sock,
                                 "--replay", os.path.join(FIXTURES, "voiceover", "v02-double-tap.events"),
                                 "--device-info", os.path.join(FIXTURES, "virtual-800x480.desc"),
                                 "--speed", "0", "--wait-clients", "1", "--exit-at-end", "--log-level", "warning"],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
        self.addCleanup(lambda: proc.poll() is None and (proc.kill(), proc.wait(5)))
        deadline = time.monotonic() + 10
        while not os.path.exists(sock):
            self.assertIsNone(proc.poll(), "touchd exited")
            self.assertLess(time.monotonic(), deadline, "touchd did not listen")
            time.sleep(0.02)
        client = TouchdClient(sock, timeout=5, reconnect=False)
        news, speech, controls, errors = [], [], [], []
        client.on_accessibility(news.append)
        client.on_speech(speech.append)
        client.on_control(controls.append)
        client.on_error(errors.append)
        self.assertTrue(client.connect())
        client.subscribe()          # a request: the replay starts (--wait-clients 1)
        deadline = time.monotonic() + 10
        while len(controls) < 3 and time.monotonic() < deadline:
            client.poll(0.05)
        self.assertEqual([str(e) for e in errors], [])
        self.assertEqual([(m["type"], m["view"]) for m in news], [("accessibilityFocus", "coffee"), ("accessibility", "coffee")])
        self.assertEqual([m["text"] for m in speech], ["Coffee, large, button", "Orders a coffee"])
        self.assertEqual([(m["event"], m.get("synthesized")) for m in controls],
                         [("touchDown", True), ("touchUpInside", True), ("primaryActionTriggered", True)])
        client.close()


if __name__ == "__main__":
    unittest.main()
