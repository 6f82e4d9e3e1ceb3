"""A broken or hostile server must not break the client (issue 21, item 5): malformed lines,
floods, endless lines, and overflow + snapshot with touches down. Fake servers throughout."""
import json
import os
import subprocess
import sys
import time
import tracemalloc

from support import HELLO, TempDirTest, pump
from touchd_client import TouchdClient

HOSTILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hostile_server.py")
FLOOD_CLIENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "flood_client.py")

# The library's bounds (getattr: so that the same test measures a library without them)
MAX_QUEUE = getattr(TouchdClient, "max_queue", 65536)
MAX_LINE = getattr(TouchdClient, "max_line", 4 << 20)
MAX_HELD = getattr(TouchdClient, "max_held", 16 << 20)
MAX_DOWN = getattr(TouchdClient, "max_down", 1024)

SNAPSHOT = {"type": "snapshot", "seq": 0, "time": 0.0, "devices": [], "touches": []}
CONTROL = {"type": "control", "seq": 1, "time": 0.0, "control": "ok", "event": "touchDown", "touch": 1}


def frame(seq, *touches):
    return {"type": "frame", "seq": seq, "time": seq / 1000, "device": "d",
            "touches": [dict(id=i, phase=p, window="w", view="v", location=[1.0, 2.0]) for i, p in touches]}


class HostileTest(TempDirTest):
    def hostile(self, mode, amount):
        """hostile_server.py in a process of its own; returns its socket's path once it listens."""
        self.servers = getattr(self, "servers", 0) + 1
        path = self.path("hostile-%d.sock" % self.servers)
        proc = subprocess.Popen([sys.executable, HOSTILE, path, mode, str(amount)], stdin=subprocess.DEVNULL)
        self.addCleanup(proc.wait, 10)
        self.addCleanup(lambda: proc.poll() is None and proc.kill())
        deadline = time.monotonic() + 10
        while not os.path.exists(path):
            self.assertLess(time.monotonic(), deadline, "hostile_server.py did not listen")
            self.assertIsNone(proc.poll(), "hostile_server.py exited")
            time.sleep(0.01)
        return path


class MalformedLines(TempDirTest):
    BAD = [b"{not json", b"[1, 2, 3]", b"42", b'"a string"', b"null", b"\xff\xfe\xfd",
           b'{"type": "frame", "touches": 5}', b'{"type": "frame", "touches": [7]}',
           b'{"type": 3}', b'{"type": "snapshot", "touches": {"id": 1}}',
           b'{"type": "updated", "line": "two"}', b'{"type": "updated", "window": "w", "line": 999}',
           b'{"type": "scroll", "view": "root"}', b"[" * 100000 + b"]" * 100000]

    def test_bad_lines_go_to_on_error_and_the_stream_goes_on(self):
        def handler(conn, _):
            conn.send(b"garbage before hello\n", HELLO, SNAPSHOT)
            conn.read_line()                            # the client's attach
            conn.send({"type": "attached", "window": "w", "version": 1, "line": 1})
            conn.send(*[line + b"\n" for line in self.BAD])
            conn.send(CONTROL)
            conn.read_line(10)
        self.serve(handler)
        client = TouchdClient(self.path("fake.sock"), timeout=2)
        errors, controls = [], []
        client.on_error(errors.append)
        client.on_control(controls.append)
        self.assertTrue(client.connect())
        client.attach({"id": "w", "frame": [0, 0, 10, 10], "view": {"id": "root", "frame": [0, 0, 10, 10]}})
        self.assertTrue(pump(client, lambda: controls, 5), "the good message after the bad ones never came")
        self.assertEqual(controls, [CONTROL])
        self.assertTrue(client.connected)
        self.assertEqual(len(errors), 1 + len(self.BAD), [str(e) for e in errors])
        client.close()


class AsStrictAsTheCLibrary(TempDirTest):
    """Issue 40, item 9: every line libtouchd-client refuses (clients/c/src/message.c, strict.c)
    is refused here too, with the field's place in the error; what it takes, this takes."""
    TOUCH = {"id": 1, "phase": "began", "window": "w", "view": "v", "location": [1.0, 2.0]}
    CAL = {"type": "calibration", "device": "event5", "output": "DSI-1", "target": 1, "count": 5, "point": [1.0, 2.0]}

    def frame_with(self, **touch):
        return {"type": "frame", "seq": 2, "time": 0.5, "device": "d",
                "touches": [{k: v for k, v in dict(self.TOUCH, **touch).items() if v is not Ellipsis}]}

    def bad(self):
        t, cal = self.TOUCH, self.CAL
        return [
            ({"type": "control", "seq": 1, "time": 0.0, "control": "ok", "touch": 1}, "control: event: missing"),
            ({"type": "control", "seq": 1, "time": 0.0, "control": 5, "event": "touchDown"},
             "control: control: an integer, not a string"),
            ({"type": "gesture", "seq": 1, "time": 0.0, "kind": "tap", "state": "began"}, "gesture: view: missing"),
            ({"type": "scroll", "seq": 1, "time": 0.0, "view": "list", "offset": [1.0]},
             "scroll: offset: not a point [x, y]"),
            ({"type": "device", "seq": "1", "time": 0.0}, "device: seq: a string, not an integer"),
            ({"type": "device", "seq": 1.5, "time": 0.0}, "device: seq: a number, not an integer"),
            ({"type": "device", "seq": 1, "time": "0.0"}, "device: time: a string, not a number"),
            ({"type": "device", "seq": 1, "time": True}, "device: time: a boolean, not a number"),
            ({"type": "bye", "reason": 3}, "bye: reason: an integer, not a string"),
            ({"type": "overflow", "window": ["w"]}, "overflow: window: an array, not a string"),
            ({"type": "device", "seq": 1, "line": True}, "device: line: a boolean, not an integer"),
            ({"type": "frame", "seq": 2, "time": 0.5}, "frame: touches: missing"),
            ({"type": "frame", "touches": [t, 7]}, "frame: touches[1]: an integer, not an object"),
            (self.frame_with(id="1"), "frame: touches[0].id: a string, not an integer"),
            (self.frame_with(id=True), "frame: touches[0].id: a boolean, not an integer"),
            (self.frame_with(phase=...), "frame: touches[0].phase: missing"),
            (self.frame_with(location=...), "frame: touches[0].location: missing"),
            (self.frame_with(location=[1.0, "2"]), "frame: touches[0].location: not a point [x, y]"),
            (self.frame_with(locationInView=[1.0, 2.0, 3.0]), "frame: touches[0].locationInView: not a point [x, y]"),
            (self.frame_with(tapCount=1.5), "frame: touches[0].tapCount: a number, not an integer"),
            (self.frame_with(window=5), "frame: touches[0].window: an integer, not a string"),
            (self.frame_with(view={}), "frame: touches[0].view: an object, not a string"),
            (self.frame_with(reason=[]), "frame: touches[0].reason: an array, not a string"),
            ({"type": "snapshot", "touches": [dict(t, id=None)]}, "snapshot: touches[0].id: missing"),
            (dict(cal, output=None), "calibration: output: missing"),
            (dict(cal, target="1"), "calibration: target: a string, not an integer"),
            ({k: v for k, v in cal.items() if k != "count"}, "calibration: count: missing"),
            (dict(cal, point=[1.0]), "calibration: point: not a point [x, y]"),
            (dict(cal, retry=1), "calibration: retry: an integer, not a string"),
            (dict(cal, message=False), "calibration: message: a boolean, not a string"),
            ({"type": "calibrationEnded", "reason": "cancelled"}, "calibrationEnded: device: missing"),
            ({"type": "calibrated", "device": "event5", "output": "DSI-1", "matrix": [0, 1], "residual": 0,
              "maxResidual": 0}, "calibrated: matrix: 2 numbers, not 6"),
            ({"type": "calibrated", "device": "event5", "output": "DSI-1", "matrix": [0] * 6, "residual": 0,
              "maxResidual": None}, "calibrated: maxResidual: missing"),
            # strict JSON, as strict.c: what Python's json module takes and RFC 8259 does not
            (b'{"type":"device","seq":1,"time":NaN}', "NaN is not a JSON number"),
            (b'{"type":"device","seq":1,"time":-Infinity}', "-Infinity is not a JSON number"),
            (b'{"type":"device","seq":1,"time":1e400}', "time: a number out of range"),
            (b'{"type":"frame","touches":[{"id":1,"phase":"began","location":[1.0,2.0],"pressure":-1e999}]}',
             "touches[0].pressure: a number out of range"),
            (b'{"type":"device","seq":9223372036854775808}', "seq: an integer out of range (beyond 64 bits)"),
            (b'{"type":"device","device":{"name":"a\\u0000b"}}', "device.name: a string with a NUL character"),
            (b'{"type":"device","device":{"name":"\\ud800"}}', "device.name: a string with a lone surrogate (\\ud800)"),
            (b'{"type":"device","device":{"\\udc00":1}}', "device: a member name with a lone surrogate (\\udc00)"),
            (b'{"type":"device","device":{"name":"\xed\xa0\x80"}}', "not UTF-8"),
            (b'{"type":"device","device":{"name":"\xc0\xaf"}}', "not UTF-8"),
        ]

    GOOD = [
        # null stands for absent where a field may be absent; integers are numbers
        {"type": "frame", "seq": 2, "time": 1, "device": "d",
         "touches": [{"id": 1, "phase": "began", "window": None, "view": None, "location": [1, 2],
                      "locationInView": None, "tapCount": 1, "reason": None}]},
        {"type": "calibrated", "device": "event5", "output": "DSI-1", "matrix": [1, 0, 0, 0, 1, 0], "residual": 0,
         "maxResidual": 1, "entry": {}},
        # json.dumps writes the emoji as the escapes of a surrogate pair, and the text \\u0000 escaped
        {"type": "device", "seq": 9223372036854775807, "time": 1e300, "device": {"name": "\u00e9\U0001f600 \\u0000"}},
        {"type": "control", "seq": 3, "time": 0.5, "control": "ok", "event": "touchDown"},
    ]

    def test_each_line_the_c_library_refuses_goes_to_on_error_naming_its_field(self):
        bad = self.bad()

        def handler(conn, _):
            conn.send(HELLO, SNAPSHOT)
            conn.send(*[line + b"\n" if isinstance(line, bytes) else line for line, _ in bad])
            conn.send(*self.GOOD)
            conn.read_line(10)
        self.serve(handler)
        client = TouchdClient(self.path("fake.sock"), timeout=2, reconnect=False)
        errors, seen = [], []
        client.on_error(errors.append)
        client.on_message(seen.append)
        self.assertTrue(client.connect())
        self.assertTrue(pump(client, lambda: len(seen) >= 1 + len(self.GOOD), 5), [str(e) for e in errors])
        self.assertEqual(seen[1:], self.GOOD)
        self.assertEqual(len(errors), len(bad), "\n".join(str(e) for e in errors))
        for (line, why), error in zip(bad, errors):
            self.assertIn(why, str(error), line)
        client.close()


class Flood(HostileTest):
    def test_poll_is_bounded_in_time(self):
        client = TouchdClient(self.hostile("frames", 4), timeout=2)
        self.assertTrue(client.connect())
        worst, total = 0.0, 0
        for _ in range(10):
            start = time.monotonic()
            total += client.poll(0.016)
            worst = max(worst, time.monotonic() - start)
        print("\n  poll(0.016) under a flood: worst %.3f s, %d messages in 10 polls" % (worst, total))
        self.assertGreater(total, 0)
        self.assertLess(worst, 0.25)
        client.close()

    def test_a_long_poll_under_a_flood_stays_connected(self):
        # poll(t) reads for up to t, handing on each chunk's messages before it reads the next:
        # poll alone never trips the flood limit that cuts a daemon off during a request (here
        # 1,000 messages, so that one poll surely reads more than may be held)
        client = TouchdClient(self.hostile("frames", 30), timeout=2, reconnect=False)
        client.max_queue, client.max_held = 1000, 1000 * 256
        errors = []
        client.on_error(errors.append)
        self.assertTrue(client.connect())
        counts = []
        while len(counts) < 6 and client.connected and not any(c > client.max_queue for c in counts):
            counts.append(client.poll(1))     # until one poll handed on more than may be held
        print("\n  poll(1) under a flood, 1,000 messages held at most: %s messages handed on, connected %s"
              % (counts, client.connected))
        self.assertTrue(client.connected)
        self.assertEqual(errors, [])
        self.assertGreater(max(counts), client.max_queue)
        client.close()

    def test_a_request_under_a_flood_keeps_a_bounded_queue(self):
        client = TouchdClient(self.hostile("frames", 4), timeout=2, reconnect=False)
        self.assertTrue(client.connect())
        start = time.monotonic()
        with self.assertRaises(Exception):
            client.ping()       # never answered
        elapsed = time.monotonic() - start
        print("\n  unanswered ping under a flood: %.2f s, %d messages held" % (elapsed, len(client._queue)))
        self.assertLess(elapsed, 2.5)
        self.assertLessEqual(len(client._queue), MAX_QUEUE + 1)    # and the note of the disconnect
        client.close()

    def test_connect_is_bounded_when_no_hello_comes(self):
        client = TouchdClient(self.hostile("frames-bare", 6), timeout=1)
        start = time.monotonic()
        self.assertFalse(client.connect())
        elapsed = time.monotonic() - start
        print("\n  connect(timeout=1) against a flood without hello: %.2f s" % elapsed)
        self.assertLess(elapsed, 1.5)
        client.close()


class FloodMemory(HostileTest):
    """What a flooding daemon costs the client in memory (issue 28, item 9: a daemon that sent
    frames before its hello grew the client by 81 MiB before connect() returned — 65,536
    messages held parsed — and with frames of 40 touches by 390 MiB, bounded only by the
    timeout). The documented bound: what the client holds of the daemon's output is at most
    max_held + max_line (20 MiB). Measured as the growth of the peak resident size of a
    client process of its own (tests/flood_client.py)."""

    def flood(self, mode, scenario, *args):
        path = self.hostile(mode, 30)       # seconds at most: the client hangs up when it is done
        r = subprocess.run([sys.executable, FLOOD_CLIENT, path, scenario, *args], capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def test_a_flood_costs_at_most_the_documented_bound(self):
        # poll: until more was handed on than may be held (65,536 frames; 8,000 wide ones, 27 MB)
        for mode, scenario, *args in [("frames-bare", "connect"), ("wide-bare", "connect"),
                                      ("frames", "request"), ("wide", "request"),
                                      ("frames", "poll", str(MAX_QUEUE + 1)), ("wide", "poll", "8000")]:
            with self.subTest(mode=mode, scenario=scenario):
                got = self.flood(mode, scenario, *args)
                growth = (got["after_kib"] - got["before_kib"]) * 1024
                print("\n  %s during %s: the client grew by %.1f MiB (bound %.0f MiB), %d messages held, %s"
                      % (mode, scenario, growth / 2**20, (MAX_HELD + MAX_LINE) / 2**20, got["held"], got["result"]))
                self.assertLessEqual(growth, MAX_HELD + MAX_LINE)
                if scenario == "poll":      # poll() hands on as it reads: never cut off
                    self.assertEqual(got["errors"], [])
                    self.assertTrue(got["result"]["connected"])
                    self.assertGreaterEqual(got["result"]["dispatched"], int(args[0]))
                    continue
                # the bound was reached (the flood cut off), not the timeout: the figure means something
                self.assertEqual(len(got["errors"]), 1, got["errors"])
                self.assertIn("disconnecting", got["errors"][0])
                self.assertFalse(got["result"] is True or got["result"] == "answered", got["result"])


class EndlessLine(HostileTest):
    def measure(self, fn):
        tracemalloc.start()
        try:
            start = time.monotonic()
            result = fn()
            return result, time.monotonic() - start, tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    def test_an_endless_line_is_skipped_in_bounded_memory(self):
        client = TouchdClient(self.hostile("endless", 24), timeout=2)
        errors, controls = [], []
        client.on_error(errors.append)
        client.on_control(controls.append)
        self.assertTrue(client.connect())
        got, elapsed, peak = self.measure(lambda: pump(client, lambda: controls, 10))
        print("\n  a 24 MiB line: skipped in %.2f s, peak %.1f MiB traced" % (elapsed, peak / 2**20))
        self.assertTrue(got, "the message after the endless line never came")
        self.assertEqual(len(errors), 1, [str(e) for e in errors])
        self.assertLess(peak, MAX_LINE + 2**21)
        self.assertLess(elapsed, 5)
        client.close()

    def test_connect_is_bounded_in_time_and_memory_by_an_endless_line(self):
        client = TouchdClient(self.hostile("endless-bare", 32), timeout=1)
        errors = []
        client.on_error(errors.append)
        connected, elapsed, peak = self.measure(client.connect)
        print("\n  connect(timeout=1) against an endless line: %.2f s, peak %.1f MiB traced" % (elapsed, peak / 2**20))
        self.assertFalse(connected)
        self.assertEqual(len(errors), 1, [str(e) for e in errors])     # the line too long, once
        self.assertLess(elapsed, 1.5)
        self.assertLess(peak, MAX_LINE + 2**21)
        client.close()


class Overflow(TempDirTest):
    def test_on_touch_hears_of_every_touch_an_overflow_ended(self):
        def handler(conn, _):
            conn.send(HELLO, SNAPSHOT, frame(1, (1, "began"), (2, "began")), frame(2, (1, "moved"), (2, "moved")),
                      {"type": "overflow", "dropped": 7},
                      {"type": "snapshot", "seq": 10, "time": 0.1, "devices": [],
                       "touches": [dict(id=2, phase="stationary", window="w", view="v", location=[1.0, 2.0]),
                                   dict(id=3, phase="stationary", window="w", view="v", location=[5.0, 5.0])]},
                      frame(11, (2, "ended"), (3, "moved")), CONTROL)
            conn.read_line(10)
        self.serve(handler)
        client = TouchdClient(self.path("fake.sock"), timeout=2)
        seen, controls = [], []
        client.on_touch(lambda t: seen.append((t["id"], t["phase"], t.get("reason"))))
        client.on_control(controls.append)
        self.assertTrue(client.connect())
        self.assertTrue(pump(client, lambda: controls, 5))
        self.assertIn((1, "cancelled", "overflow"), seen, seen)
        self.assertEqual([s for s in seen if s[0] == 1][-1], (1, "cancelled", "overflow"))
        self.assertNotIn((2, "cancelled", "overflow"), seen)     # still down after the overflow
        self.assertEqual(seen[-2:], [(2, "ended", None), (3, "moved", None)])
        # every touch on_touch knows of ends: 3 is cancelled when the connection goes
        client.close()
        client.poll(0)
        self.assertEqual(seen[-1], (3, "cancelled", "disconnected"))

    def test_on_touch_hears_of_every_touch_a_subscribe_left_out(self):
        def handler(conn, _):
            conn.send(HELLO, SNAPSHOT, frame(1, (1, "began"), (2, "began")))
            conn.read_line()                        # the subscribe
            conn.send({"type": "snapshot", "seq": 1, "time": 0.1, "devices": [],
                       "touches": [dict(id=2, phase="stationary", window="w", view="v", location=[1.0, 2.0])]})
            conn.read_line(10)
        self.serve(handler)
        client = TouchdClient(self.path("fake.sock"), timeout=2)
        seen = []
        client.on_touch(lambda t: seen.append((t["id"], t["phase"], t.get("reason"))))
        self.assertTrue(client.connect())
        self.assertTrue(pump(client, lambda: len(seen) == 2, 5))
        self.assertEqual(client.subscribe(views=["v"])["type"], "snapshot")
        client.poll(0)
        self.assertEqual(seen[2:], [(1, "cancelled", "subscribe")])
        client.close()


class TouchesDown(TempDirTest):
    def test_the_touches_followed_are_bounded(self):
        # A daemon that invents touches that never end cannot grow the client without bound:
        # at most max_down (1,024, as libtouchd-client) are followed; past it on_error hears once.
        many = MAX_DOWN + 476

        def handler(conn, _):
            conn.send(HELLO, SNAPSHOT, *[frame(n, (n, "began")) for n in range(1, many + 1)], CONTROL)
            conn.read_line(10)
        self.serve(handler)
        client = TouchdClient(self.path("fake.sock"), timeout=2, reconnect=False)
        began, cancelled, errors, controls = [], [], [], []
        client.on_touch(lambda t: (began if t["phase"] == "began" else cancelled).append(t["id"]))
        client.on_error(errors.append)
        client.on_control(controls.append)
        self.assertTrue(client.connect())
        self.assertTrue(pump(client, lambda: controls, 10))
        client.close()
        client.poll(0)
        print("\n  %d touches began, %d followed and cancelled at the close" % (len(began), len(cancelled)))
        self.assertEqual(len(began), many)              # every touch is handed on...
        self.assertEqual(cancelled, list(range(1, MAX_DOWN + 1)))   # ...the first max_down followed
        self.assertEqual(len(errors), 1, [str(e) for e in errors])
        self.assertIn("touches down", str(errors[0]))
