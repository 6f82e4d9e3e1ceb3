"""The same against the real daemon ($TOUCHD_BINARY, else the newest build; skipped without one):
a window grown past one request line, and one nested 1,200 deep, survive a daemon restart."""
import json
import os
import unittest

from support import MAX_LINE, Daemon, TempDirTest, flatten, pump, raw_request, touchd_binary
from test_windows import ROOT, grow_deep, grow_wide
from touchd_client import TouchdClient, TouchdError

BINARY = touchd_binary()


@unittest.skipUnless(os.access(BINARY, os.X_OK), "no touchd at %s (set TOUCHD_BINARY, or build it)" % BINARY)
class DaemonRestart(TempDirTest):
    def daemon(self):
        log = open(self.path("touchd.log"), "a")
        self.addCleanup(log.close)
        d = Daemon(BINARY, self.path("touchd.sock"), log)
        self.addCleanup(d.stop)
        return d

    def reattached_after_restart(self, grow, last_id):
        first = self.daemon()
        client = TouchdClient(self.path("touchd.sock"), timeout=5)
        errors, connects = [], []
        client.on_error(errors.append)
        client.on_connect(connects.append)
        self.assertTrue(client.connect())
        self.assertEqual(client.attach(ROOT)["version"], 1)
        grow(client)
        first.stop()
        second = self.daemon()
        self.assertTrue(pump(client, lambda: connects and connects[-1]["pid"] == second.proc.pid, 10), "no reconnect")
        self.assertEqual(errors, [], [str(e) for e in errors])
        self.assertIn("big", client.windows)
        # the daemon has the window as the client has it: its last view's id is taken...
        taken = raw_request(client.socket_path, {"attach": {"id": "probe", "frame": [0, 0, 1, 1],
                                                            "view": {"id": last_id, "frame": [0, 0, 1, 1]}}})
        self.assertEqual(taken["type"], "error")
        self.assertIn("taken", taken["error"])
        # ...and updates go on
        self.assertEqual(client.update("big", [{"view": last_id, "set": {"hidden": True}}])["type"], "updated")
        client.close()
        return client

    def test_a_window_bigger_than_one_line_survives_a_restart(self):
        def grow(client):
            grow_wide(client)
            size = len(json.dumps({"attach": client.windows["big"]}).encode())
            print("\n  2,001 views: one attach line would be %d bytes (the limit %d)" % (size, MAX_LINE))
            self.assertGreater(size, MAX_LINE)
        self.reattached_after_restart(grow, "v1999")

    def test_a_deep_window_survives_a_restart(self):
        client = self.reattached_after_restart(lambda c: grow_deep(c, 1200), "d1199")
        self.assertEqual(len(flatten(client.windows["big"])), 1201)


@unittest.skipUnless(os.access(BINARY, os.X_OK), "no touchd at %s (set TOUCHD_BINARY, or build it)" % BINARY)
class OutputRotation(TempDirTest):
    daemon = DaemonRestart.daemon

    def test_a_client_turns_the_output(self):
        self.daemon()
        client = TouchdClient(self.path("touchd.sock"), timeout=5)
        self.assertTrue(client.connect())
        reply = client.rotate_output("screen", 90)
        self.assertEqual(reply["type"], "output")
        self.assertEqual(reply["output"], {"id": "screen", "width": 800.0, "height": 480.0, "rotation": 90})
        with self.assertRaises(TouchdError) as bad:
            client.rotate_output("screen", 45)
        self.assertIn("rotation", str(bad.exception))
        with self.assertRaises(TouchdError) as unknown:
            client.rotate_output("HDMI-A-9", 0)
        self.assertIn("no output has id", str(unknown.exception))
        client.close()
