"""Calibration from the UI on the glass (issue 33, item 3): calibrate() answers with the first
target, on_calibration gets the rest and the end, run_calibration() draws every target and
returns the result; a refusal is a TouchdError. Against a fake daemon playing the protocol
(docs/protocol.md, "Calibration from the glass"), and the real one for its errors."""
import json
import os
import unittest

from support import HELLO, Daemon, TempDirTest, touchd_binary
from touchd_client import TouchdClient, TouchdError

SNAPSHOT = {"type": "snapshot", "seq": 0, "time": 0.0, "devices": [], "touches": []}
TARGETS = [(79.9, 47.9), (719.1, 47.9), (719.1, 431.1), (79.9, 431.1), (399.5, 239.5)]
MATRIX = [0.0, 1.1, -0.02, 1.05, 0.0, -0.04]
CALIBRATED = {"type": "calibrated", "device": "event5", "output": "DSI-1", "matrix": MATRIX,
              "residual": 0.4, "maxResidual": 0.7,
              "entry": {"match": {"name": "Panel"}, "calibration": MATRIX}}
BINARY = touchd_binary()


def target(k, **extra):
    x, y = TARGETS[k]
    return dict({"type": "calibration", "device": "event5", "output": "DSI-1", "target": k, "count": 5,
                 "point": [x, y]}, **extra)


class Calibrate(TempDirTest):
    def client(self, handler):
        self.requests = []
        self.serve(handler)
        client = TouchdClient(self.path("fake.sock"), timeout=2, reconnect=False)
        self.assertTrue(client.connect())
        return client

    def test_run_calibration_draws_every_target_and_returns_the_result(self):
        def daemon(conn, _):
            conn.send(HELLO, SNAPSHOT)
            self.requests.append(json.loads(conn.read_line()))
            conn.send(target(0, line=1))
            # one tap each; the fourth target comes back once as a misclick
            conn.send(target(1), target(2), target(3), target(4))
            conn.send(target(3, retry="misclick", message="target 4 looks like a misclick"), target(4))
            conn.send(CALIBRATED)
            conn.read_line(1)

        client = self.client(daemon)
        drawn, news = [], []
        client.on_calibration(news.append)
        result = client.run_calibration("event5", drawn.append, timeout=5)
        self.assertEqual(self.requests, [{"calibrate": {"device": "event5"}}])
        self.assertEqual([m["target"] for m in drawn], [0, 1, 2, 3, 4, 3, 4])
        self.assertEqual(drawn[5]["retry"], "misclick")
        self.assertEqual(tuple(drawn[0]["point"]), TARGETS[0])
        self.assertEqual(result, CALIBRATED)
        self.assertEqual(result["entry"]["calibration"], MATRIX)
        # on_calibration saw the news too (not the first target: calibrate()'s answer)
        self.assertEqual([m["type"] for m in news], ["calibration"] * 6 + ["calibrated"])
        client.close()

    def test_the_end_that_came_with_the_answer_is_returned(self):
        # A daemon replaying as fast as it can answers, sends every target and the end, says
        # bye and closes before the client has polled once: the messages held while calibrate()
        # waited are still the calibration's (run_calibration returned None).
        def daemon(conn, _):
            conn.send(HELLO, SNAPSHOT)
            self.requests.append(json.loads(conn.read_line()))
            conn.send(target(0, line=1), target(1), target(2), target(3), target(4), CALIBRATED,
                      {"type": "bye", "reason": "shutdown"})

        client = self.client(daemon)
        drawn = []
        result = client.run_calibration("event5", drawn.append, timeout=5)
        self.assertEqual([m["target"] for m in drawn], [0, 1, 2, 3, 4])
        self.assertEqual(result, CALIBRATED)
        client.close()

    def test_calibrate_then_cancel(self):
        def daemon(conn, _):
            conn.send(HELLO, SNAPSHOT)
            self.requests.append(json.loads(conn.read_line()))
            conn.send(target(0, line=1))
            self.requests.append(json.loads(conn.read_line()))
            conn.send({"type": "calibrationEnded", "device": "event5", "reason": "cancelled", "line": 2})
            conn.read_line(1)

        client = self.client(daemon)
        first = client.calibrate("event5", targets=[(10, 10), (700, 20), (400, 400)])
        self.assertEqual(first["target"], 0)
        ended = client.cancel_calibration("event5")
        self.assertEqual(ended["reason"], "cancelled")
        self.assertEqual(self.requests, [{"calibrate": {"device": "event5", "targets": [[10, 10], [700, 20], [400, 400]]}},
                                         {"calibrate": {"device": "event5", "cancel": True}}])
        client.close()

    def test_a_refusal_is_an_error(self):
        def daemon(conn, _):
            conn.send(HELLO, SNAPSHOT)
            conn.read_line()
            conn.send({"type": "error", "error": "calibrate: device \"event5\" is being calibrated already",
                       "request": "calibrate", "path": "device", "line": 1})
            conn.read_line(1)

        client = self.client(daemon)
        with self.assertRaises(TouchdError) as refused:
            client.calibrate("event5")
        self.assertIn("already", str(refused.exception))
        client.close()


@unittest.skipUnless(os.access(BINARY, os.X_OK), "no touchd at %s (set TOUCHD_BINARY, or build it)" % BINARY)
class CalibrateTheRealDaemon(TempDirTest):
    def test_an_unknown_device_is_an_error(self):
        log = open(self.path("touchd.log"), "a")
        self.addCleanup(log.close)
        d = Daemon(BINARY, self.path("touchd.sock"), log)
        self.addCleanup(d.stop)
        client = TouchdClient(self.path("touchd.sock"), timeout=5)
        self.assertTrue(client.connect())
        with self.assertRaises(TouchdError) as unknown:
            client.calibrate("event99")
        self.assertIn('no device has id "event99"', str(unknown.exception))
        client.close()
