"""A wrong socket path is an error unless the caller asked to wait for the daemon (issue 22)."""
import os
import socket
import time

from support import HELLO, SceneServer, TempDirTest, pump
from touchd_client import TouchdClient


def hello_then_listen(conn, _):
    conn.send(HELLO, {"type": "snapshot", "seq": 0, "time": 0.0, "devices": [], "touches": []})
    conn.read_line(10)


class WrongPath(TempDirTest):
    def test_a_missing_socket_raises_a_clear_error(self):
        path = self.path("nothing-here.sock")
        client = TouchdClient(path)          # reconnect=True, the default
        with self.assertRaises(FileNotFoundError) as caught:
            client.connect()
        message = str(caught.exception)
        self.assertIn(path, message)
        self.assertIn("wait=True", message)
        print("\n  " + message)

    def test_a_dead_socket_raises_a_clear_error(self):
        path = self.path("stale.sock")
        stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stale.bind(path)            # a file nobody listens on: a daemon that crashed
        stale.close()
        with self.assertRaises(ConnectionRefusedError) as caught:
            TouchdClient(path).connect()
        self.assertIn(path, str(caught.exception))

    def test_poll_without_connect_raises_too(self):
        with self.assertRaises(FileNotFoundError):
            TouchdClient(self.path("nothing-here.sock")).poll(0)

    def test_wait_true_waits_for_the_daemon(self):
        client = TouchdClient(self.path("fake.sock"))
        self.assertFalse(client.connect(wait=True))
        self.assertFalse(client.poll(0.05))
        self.assertIsNone(client.attach({"id": "w", "frame": [0, 0, 10, 10]}))   # kept for later
        server = SceneServer(client.socket_path)
        self.addCleanup(server.stop)
        self.assertTrue(pump(client, lambda: client.connected, 5))
        self.assertEqual(client.screen, (800.0, 480.0))
        self.assertEqual(server.scenes[0], {"w": {"id": "w", "frame": [0, 0, 10, 10]}})
        client.close()

    def test_wait_in_the_constructor(self):
        client = TouchdClient(self.path("fake.sock"), wait=True)
        self.assertFalse(client.connect())
        self.serve(hello_then_listen)
        self.assertTrue(pump(client, lambda: client.connected, 5))
        client.close()

    def test_once_connected_a_restart_is_waited_for(self):
        server = self.serve(hello_then_listen)
        client = TouchdClient(server.path)
        self.assertTrue(client.connect())
        server.stop()
        self.assertFalse(os.path.exists(server.path))
        start = time.monotonic()
        while time.monotonic() - start < 0.5:     # the daemon is away: no error, only retries
            client.poll(0.05)
        self.assertFalse(client.connected)
        self.serve(hello_then_listen)
        self.assertTrue(pump(client, lambda: client.connected, 5))
        client.close()
