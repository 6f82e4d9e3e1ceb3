"""One callback convention (issue 32): every callback takes one argument, the message it is
about; on_touch gets one touch of a frame with its frame as touch.frame (it took (touch, frame)
where every other callback took (msg), so a copied on_control pattern raised TypeError)."""
import warnings

from support import HELLO, TempDirTest, pump
from touchd_client import Touch, TouchdClient

SNAPSHOT = {"type": "snapshot", "seq": 0, "time": 0.0, "devices": [], "touches": []}
FRAME = {"type": "frame", "seq": 1, "time": 0.001, "device": "d",
         "touches": [{"id": 1, "phase": "began", "window": "w", "view": "ok", "location": [10.0, 20.0]},
                     {"id": 2, "phase": "began", "window": "w", "view": "ok", "location": [30.0, 20.0]}]}
ENDED = {"type": "frame", "seq": 2, "time": 0.002, "device": "d",
         "touches": [{"id": 1, "phase": "ended", "window": "w", "view": "ok", "location": [10.0, 20.0]},
                     {"id": 2, "phase": "stationary", "window": "w", "view": "ok", "location": [30.0, 20.0]}]}
CONTROL = {"type": "control", "seq": 3, "time": 0.002, "control": "ok", "event": "touchUpInside", "touch": 1}
GESTURE = {"type": "gesture", "seq": 4, "time": 0.002, "recognizer": "tap", "kind": "tap", "view": "ok",
           "state": "recognized"}
SCROLL = {"type": "scroll", "seq": 5, "time": 0.002, "view": "list", "offset": [0.0, 12.5]}
DEVICE = {"type": "device", "seq": 6, "time": 0.003, "action": "removed", "device": {"id": "d"}}


def stream(conn, _):
    conn.send(HELLO, SNAPSHOT, FRAME, ENDED, CONTROL, GESTURE, SCROLL, DEVICE)
    conn.read_line(0.5)     # then close: touch 2, still down, is cancelled by the library


class OneArgument(TempDirTest):
    def run_stream(self, register):
        self.serve(stream)
        client = TouchdClient(self.path("fake.sock"), timeout=2, reconnect=False)
        register(client)
        self.assertTrue(client.connect())
        gone = []
        client.on_disconnect(gone.append)
        self.assertTrue(pump(client, lambda: gone, 5), "the fake daemon never closed")
        return client

    def test_every_callback_takes_the_message_it_is_about(self):
        got = []
        names = ["frame", "touch", "control", "gesture", "scroll", "message", "connect", "disconnect"]
        self.run_stream(lambda client: [getattr(client, "on_" + name)(lambda x, name=name: got.append((name, x)))
                                        for name in names])
        kinds = [(name, x["type"] if name not in ("touch", "disconnect") else None) for name, x in got]
        # on_message: every message that is not a reply, after the callbacks of its kind
        self.assertEqual(kinds, [("connect", "hello"), ("message", "snapshot"),
                                 ("frame", "frame"), ("touch", None), ("touch", None), ("message", "frame"),
                                 ("frame", "frame"), ("touch", None), ("touch", None), ("message", "frame"),
                                 ("control", "control"), ("message", "control"), ("gesture", "gesture"),
                                 ("message", "gesture"), ("scroll", "scroll"), ("message", "scroll"),
                                 ("message", "device"), ("touch", None), ("disconnect", None)])
        touches = [x for name, x in got if name == "touch"]
        self.assertTrue(all(isinstance(t, Touch) for t in touches))
        self.assertEqual([(t["id"], t["phase"]) for t in touches],
                         [(1, "began"), (2, "began"), (1, "ended"), (2, "stationary"), (2, "cancelled")])
        # each touch carries its frame; the library's own cancel has none
        self.assertEqual([t.frame and t.frame["seq"] for t in touches], [1, 1, 2, 2, None])
        self.assertIn(dict(touches[0]), touches[0].frame["touches"])
        self.assertEqual(touches[-1]["reason"], "disconnected")
        self.assertEqual(got[-1][1], "the daemon closed the connection")

    def test_the_readme_pattern_fits_every_callback(self):
        # one handler, written as the README's on_control is, registered for every kind
        seen = []

        def handler(msg):
            seen.append(msg.get("type", msg.get("phase")) if isinstance(msg, dict) else msg)
        self.run_stream(lambda client: [client.on_touch(handler), client.on_control(handler),
                                        client.on_frame(handler), client.on_message(handler)])
        self.assertEqual(seen, ["snapshot", "frame", "began", "began", "frame", "frame", "ended", "stationary", "frame",
                                "control", "control", "gesture", "scroll", "device", "cancelled"])

    def test_a_two_argument_on_touch_still_works_and_is_warned_about(self):
        seen = []

        def old_style(touch, frame):
            seen.append((touch["id"], touch["phase"], frame and frame["seq"]))

        def register(client):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                client.on_touch(old_style)
            self.assertEqual([w.category for w in caught], [DeprecationWarning])
            self.assertIn("touch.frame", str(caught[0].message))
        self.run_stream(register)
        self.assertEqual(seen, [(1, "began", 1), (2, "began", 1), (1, "ended", 2), (2, "stationary", 2),
                                (2, "cancelled", None)])


class RunAfterTheEnd(TempDirTest):
    def test_run_hands_on_what_came_before_the_connection_ended(self):
        # A daemon that answers the subscribe and, in the same write, sends frames and its bye
        # (a replay at --speed 0 with --exit-at-end): the subscribe returns after the bye was
        # read and the connection dropped. run() used to return at once, and the frames, the
        # bye and the end of the touch down were never handed on (examples/client.py printed
        # nothing, 4 runs in 15).
        def handler(conn, _):
            conn.send(HELLO, SNAPSHOT)
            conn.read_line()                    # the subscribe
            conn.send(SNAPSHOT, FRAME, CONTROL, {"type": "bye", "reason": "shutdown"})
            conn.close()
        self.serve(handler)
        client = TouchdClient(self.path("fake.sock"), timeout=2, reconnect=False)
        seen = []
        client.on_touch(lambda t: seen.append((t["id"], t["phase"])))
        client.on_control(lambda m: seen.append(m["event"]))
        client.on_message(lambda m: seen.append(m["type"]))
        client.on_disconnect(lambda reason: seen.append(reason))
        self.assertTrue(client.connect())
        client.subscribe(types=["frame", "control"])
        client.run()
        self.assertEqual(seen, ["snapshot", "snapshot", (1, "began"), (2, "began"), "frame", "touchUpInside", "control",
                                "bye", (1, "cancelled"), (2, "cancelled"), "bye: shutdown"])
