"""Windows the daemon accepts must survive a reconnect (issue 21, item 5): a window grown by
updates past the daemon's line limit (65,536 bytes) is re-attached in pieces; a tree nested
deeper than the daemon's JSON depth (200) or Python's recursion limit is handled iteratively.
A fake daemon (support.SceneServer) with the daemon's two limits."""
import json
import sys

from support import MAX_LINE, TempDirTest, flatten, pump, without_version
from touchd_client import ConnectionLost, TouchdClient

ROOT = {"id": "big", "frame": [0, 0, 800, 480], "level": 2,
        "view": {"id": "big-root", "frame": [0, 0, 800, 480], "touches": "handle"}}


def grow_wide(client, views=2000, per_update=50):
    """Add views in updates of per_update each: every line well under the limit, the whole far over it."""
    for start in range(0, views, per_update):
        client.update("big", [{"add": {"id": "v%04d" % i, "frame": [i % 800, i % 480, 10, 10], "control": "button"},
                               "to": "big-root"} for i in range(start, start + per_update)])


def grow_deep(client, depth):
    parent = "big-root"
    for i in range(depth):
        client.update("big", [{"add": {"id": "d%04d" % i, "frame": [0, 0, 100, 100]}, "to": parent}])
        parent = "d%04d" % i


class Reattach(TempDirTest):
    def restart(self, server, client, errors):
        connects = []
        client.on_connect(connects.append)
        server.kick()
        self.assertTrue(pump(client, lambda: connects, 5), "no reconnect")
        self.assertEqual(errors, [])
        self.assertEqual(len(server.scenes), 2)

    def test_a_window_bigger_than_one_line_is_reattached(self):
        server = self.scene()
        client = TouchdClient(server.path, timeout=5)
        errors = []
        client.on_error(errors.append)
        self.assertTrue(client.connect())
        client.attach(ROOT)
        grow_wide(client)
        self.assertGreater(len(json.dumps({"attach": client.windows["big"]}).encode()), MAX_LINE)
        self.restart(server, client, errors)
        self.assertIn("big", client.windows)
        self.assertLessEqual(max(server.lines[1]), MAX_LINE)
        print("\n  a %d-view window re-attached in %d lines of at most %d bytes"
              % (2001, len(server.lines[1]), max(server.lines[1])))
        mine, theirs = client.windows["big"], server.scenes[1]["big"]
        self.assertEqual(flatten(without_version(theirs)), flatten(mine))
        self.assertEqual({k: v for k, v in without_version(theirs).items() if k != "view"},
                         {k: v for k, v in mine.items() if k != "view"})
        # hidden until complete: no touch lands on half a window
        self.assertEqual([h for _, h in server.hidden_log[1]], [True] * (len(server.hidden_log[1]) - 1) + [False])
        # and updates go on afterwards
        self.assertEqual(client.update("big", [{"view": "v0007", "set": {"hidden": True}}])["type"], "updated")
        self.assertTrue(server.scenes[1]["big"]["view"]["subviews"][7]["hidden"])
        client.close()

    def test_a_deep_tree_is_updated_and_reattached(self):
        depth = max(1200, sys.getrecursionlimit() + 200)
        server = self.scene()
        client = TouchdClient(server.path, timeout=5)
        errors = []
        client.on_error(errors.append)
        self.assertTrue(client.connect())
        client.attach(ROOT)
        grow_deep(client, depth)     # each update adds one level: every line is shallow
        self.assertEqual(len(flatten(client.windows["big"])), depth + 1)
        client.update("big", [{"view": "d%04d" % (depth - 1), "set": {"hidden": True}}])
        self.restart(server, client, errors)
        self.assertEqual(flatten(without_version(server.scenes[1]["big"])), flatten(client.windows["big"]))
        print("\n  a %d-deep tree re-attached in %d lines" % (depth + 1, len(server.lines[1])))
        client.close()

    def test_a_deep_window_attaches_in_pieces(self):
        window = dict(ROOT, view=dict(ROOT["view"]))
        view = window["view"]
        for i in range(150):        # 2 JSON levels a view: over the daemon's 200 in one line
            sub = {"id": "n%03d" % i, "frame": [0, 0, 10, 10]}
            view["subviews"] = [sub]
            view = sub
        server = self.scene()
        client = TouchdClient(server.path, timeout=5)
        self.assertTrue(client.connect())
        reply = client.attach(window)
        self.assertEqual(reply["type"], "attached")
        self.assertEqual(flatten(without_version(server.scenes[0]["big"])), flatten(window))
        client.close()


class ApplyChanges(TempDirTest):
    def test_set_scroll_changes_only_the_keys_it_names(self):
        from touchd_client import apply_changes
        w = {"id": "w", "frame": [0, 0, 10, 10],
             "view": {"id": "list", "frame": [0, 0, 10, 10], "scroll": {"contentSize": [10, 100], "bounces": False}}}
        apply_changes(w, [{"view": "list", "set": {"scroll": {"contentSize": [10, 40]}, "hidden": True}}])
        self.assertEqual(w["view"]["scroll"], {"contentSize": [10, 40], "bounces": False})
        self.assertTrue(w["view"]["hidden"])


class Closed(TempDirTest):
    """Issue 40, item 9: attach() on a closed client returned None, the window kept in the
    library's copy alone, never to reach a daemon. A client that will not connect again by
    itself raises ConnectionLost and changes nothing; one reconnecting still keeps the change
    for the next connection."""

    def test_a_closed_client_refuses_window_changes(self):
        server = self.scene()
        client = TouchdClient(server.path, timeout=5)
        self.assertTrue(client.connect())
        client.attach(ROOT)
        client.close()
        for request, call in (("attach", lambda: client.attach(dict(ROOT, id="late"))),
                              ("update", lambda: client.update("big", [{"window": {"level": 3}}])),
                              ("detach", lambda: client.detach("big"))):
            with self.subTest(request):
                with self.assertRaises(ConnectionLost) as refused:
                    call()
                self.assertIn(request + ": not connected", str(refused.exception))
                self.assertIn("closed", str(refused.exception))
        self.assertEqual(list(client.windows), ["big"])
        self.assertEqual(client.windows["big"]["level"], 2)

    def test_a_client_without_reconnect_whose_connection_ended_refuses_them(self):
        server = self.scene()
        client = TouchdClient(server.path, timeout=5, reconnect=False)
        gone = []
        client.on_disconnect(gone.append)
        self.assertTrue(client.connect())
        server.kick()
        self.assertTrue(pump(client, lambda: gone, 5), "the connection never ended")
        with self.assertRaises(ConnectionLost) as refused:
            client.attach(ROOT)
        self.assertIn("reconnect=False", str(refused.exception))
        self.assertEqual(client.windows, {})

    def test_a_reconnecting_client_keeps_the_change_for_the_next_connection(self):
        server = self.scene()
        client = TouchdClient(server.path, timeout=5)
        gone, connects = [], []
        client.on_disconnect(gone.append)
        self.assertTrue(client.connect())
        client.on_connect(connects.append)
        server.kick()
        self.assertTrue(pump(client, lambda: gone, 5), "the connection never ended")
        self.assertIsNone(client.attach(ROOT))
        self.assertTrue(pump(client, lambda: connects, 5), "no reconnect")
        self.assertEqual(list(server.scenes[1]), ["big"])
        client.close()

    def test_before_the_first_connect_a_window_waits_for_it(self):
        server = self.scene()
        client = TouchdClient(server.path, timeout=5, reconnect=False)
        self.assertIsNone(client.attach(ROOT))
        self.assertTrue(client.connect())
        self.assertEqual(list(server.scenes[0]), ["big"])
        client.close()
