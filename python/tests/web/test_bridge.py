"""touchd-web without a browser (issue 42): the bridge against a fake daemon whose lines the test
writes and reads, raw WebSocket clients (python3-websockets), and the peer-uid query's bytes.

- Lines go through unchanged, one per text message both ways, one daemon connection per page;
  a daemon line of 300 kB too, one past 4 MiB closes the page (1009).
- What is not one line of text closes the page (1003, 1007); no daemon closes it (1011).
- --max-connections: one more page is answered 503 and logged.
- HTTP: /touchd.js and /touchd.d.ts with their types, --static's files and nothing outside it.
- A page that stops reading: the bridge stops reading its daemon connection (the fake daemon's
  writes block after a bounded amount), drops it after --stall, and another page's lines
  arrive meanwhile as fast as before.
- peercred: the inet_diag request laid out as <linux/inet_diag.h> says, an error answer named.
- The command line's mistakes are named.
"""
import asyncio
import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))     # python/tests: support
from support import PYTHON_DIR, TempDirTest, wait_for  # noqa: E402
from webrig import NEWER_MISSING, Launcher, UnderNewerWebsockets, free_port  # noqa: E402

try:
    import websockets
    from touchd_web.server import SPEAKER_REFUSAL, speaker_refusal
    MISSING = None
except ImportError as e:
    MISSING = str(e)

from touchd_web import peercred  # noqa: E402

PAGE_DIR = os.path.join(PYTHON_DIR, "tests", "web")


HUNG_PAGE = r"""
import asyncio, sys, time, websockets
async def main():
    ws = await websockets.connect(sys.argv[1], origin=sys.argv[2])
    await ws.recv()
    print("connected", flush=True)
    time.sleep(60)             # the loop stops: no closing handshake is ever answered
asyncio.run(main())
"""


class Peercred(unittest.TestCase):
    def test_the_request_as_inet_diag_lays_it_out(self):
        msg = peercred.request(("127.0.0.1", 40312), ("127.0.0.2", 8470), seq=7)
        self.assertEqual(len(msg), 16 + 56)
        # nlmsghdr: length, SOCK_DIAG_BY_FAMILY (20), NLM_F_REQUEST (1), seq, pid 0
        self.assertEqual(struct.unpack("=IHHII", msg[:16]), (72, 20, 1, 7, 0))
        # inet_diag_req_v2: AF_INET (2), IPPROTO_TCP (6), no extensions, pad, every state
        self.assertEqual(struct.unpack("=BBBBI", msg[16:24]), (2, 6, 0, 0, 0xFFFFFFFF))
        # sockid: the peer's port and ours big-endian, then the peer's address and ours, no
        # interface, no cookie
        self.assertEqual(msg[24:28], bytes([40312 >> 8, 40312 & 255, 8470 >> 8, 8470 & 255]))
        self.assertEqual(msg[28:44], bytes([127, 0, 0, 1]) + bytes(12))
        self.assertEqual(msg[44:60], bytes([127, 0, 0, 2]) + bytes(12))
        self.assertEqual(msg[60:72], struct.pack("=III", 0, 0xFFFFFFFF, 0xFFFFFFFF))
        six = peercred.request(("::1", 1), ("::1", 2))
        self.assertEqual(six[16], socket.AF_INET6)
        self.assertEqual(six[28:44], bytes(15) + b"\x01")

    def test_answers(self):
        error = struct.pack("=IHHII", 36, 2, 0, 1, 0) + struct.pack("=i", -2) + bytes(16)
        with self.assertRaisesRegex(peercred.PeerUnknown, "No such file or directory for the socket 127.0.0.1:5"):
            peercred.parse(error, ("127.0.0.1", 5))
        body = struct.pack("=BBBB", 2, 1, 0, 0) + struct.pack("!HH", 5, 6) + bytes(32 + 12) + struct.pack("=III", 0, 0, 0)   # sockid, expires rqueue wqueue
        body += struct.pack("=II", 1234, 99)
        answer = struct.pack("=IHHII", 16 + len(body), 20, 0, 1, 0) + body
        self.assertEqual(peercred.parse(answer, ("127.0.0.1", 5)), 1234)
        with self.assertRaisesRegex(peercred.PeerUnknown, "port 5, not 6"):
            peercred.parse(answer, ("127.0.0.1", 6))
        with self.assertRaisesRegex(peercred.PeerUnknown, "short"):
            peercred.parse(b"\x00" * 8, ("127.0.0.1", 5))

    def test_the_kernel_names_the_owner_of_a_loopback_peer(self):
        with socket.socket() as server:
            server.bind(("127.0.0.1", 0))
            server.listen()
            with socket.create_connection(server.getsockname()) as client:
                accepted, _ = server.accept()
                with accepted:
                    self.assertEqual(peercred.peer_uid(accepted.getpeername(), accepted.getsockname()), os.geteuid())
                    # our own end is not the peer: its 4-tuple reversed names the server's socket
                    self.assertEqual(peercred.peer_uid(client.getsockname(), client.getpeername()), os.geteuid())
            with self.assertRaises(peercred.PeerUnknown):
                peercred.peer_uid(("127.0.0.1", 1), ("127.0.0.1", 2))
        # A dual-stack listener sees an IPv4 peer as ::ffff:127.0.0.1; its socket is AF_INET.
        with socket.socket(socket.AF_INET6) as server:
            server.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            server.bind(("::", 0))
            server.listen()
            with socket.create_connection(("127.0.0.1", server.getsockname()[1])):
                accepted, _ = server.accept()
                with accepted:
                    self.assertTrue(accepted.getpeername()[0].startswith("::ffff:127."), accepted.getpeername())
                    self.assertEqual(peercred.peer_uid(accepted.getpeername()[:2], accepted.getsockname()[:2]), os.geteuid())

    def test_loopback(self):
        for address, loopback in [("127.0.0.1", True), ("127.3.2.1", True), ("::1", True), ("::ffff:127.0.0.1", True),
                                  ("10.0.0.1", False), ("::", False), ("localhost", False)]:
            self.assertEqual(peercred.is_loopback(address), loopback, address)


class CommandLine(Launcher, TempDirTest):
    def run_web(self, *args):
        return subprocess.run(self.web_argv() + list(args), capture_output=True, text=True, timeout=30)

    def test_mistakes_are_named(self):
        for args, message in [
                (["--listen", "8470"], "touchd-web: --listen '8470': expected HOST:PORT (e.g. 127.0.0.1:8470, [::1]:8470)"),
                (["--listen", ":8470"], "touchd-web: --listen ':8470': no HOST (0.0.0.0 listens on every address)"),
                (["--token-file", self.path("none")], "touchd-web: %s: No such file or directory" % self.path("none")),
                (["--static", self.path("none")], "touchd-web: --static %s: not a directory" % self.path("none")),
                (["--origin", "kiosk.local"], "touchd-web: --origin 'kiosk.local': expected http(s)://HOST[:PORT], "
                                              "as a browser sends Origin (no path)"),
                (["--origin", "http://kiosk.local/page"], "touchd-web: --origin 'http://kiosk.local/page': expected "
                                                          "http(s)://HOST[:PORT], as a browser sends Origin (no path)"),
                (["--max-connections", "0"], "touchd-web: --max-connections must be at least 1, --queue-bytes at least 1024, --stall above 0")]:
            r = self.run_web(*args)
            self.assertEqual((r.returncode, r.stderr), (2, message + "\n"), args)
        with open(self.path("empty"), "w") as f:
            f.write("\n")
        with open(self.path("spaced"), "w") as f:
            f.write("two words\n")
        r = self.run_web("--token-file", self.path("empty"))
        self.assertEqual(r.stderr, "touchd-web: %s: line 1: no token (an empty first line)\n" % self.path("empty"))
        r = self.run_web("--token-file", self.path("spaced"))
        self.assertIn("%s: line 1: the token has ' '" % self.path("spaced"), r.stderr)
        self.assertIn("--token-file F", self.run_web("--help").stdout)


@unittest.skipIf(MISSING, "needs Debian's python3-websockets: %s" % MISSING)
class Bridge(Launcher, TempDirTest):
    def setUp(self):
        super().setUp()
        self.sock = self.path("fake.sock")      # where TempDirTest.serve listens
        self.port = free_port()
        self.origin = "http://127.0.0.1:%d" % self.port
        self.url = "ws://127.0.0.1:%d/socket" % self.port
        self.seen = []          # (connection index, line) the fake daemon read

    def fake_daemon(self, handler=None):
        def serve(conn, index):
            conn.send(b'{"type":"hello","n":%d}\n' % index)
            while True:
                line = conn.read_line(30)
                if line is None:
                    return
                self.seen.append((index, line))
                if handler:
                    handler(conn, index, line)
        server = self.serve(serve)
        return server

    def start_web(self, *args):
        self.log = open(self.path("web.log"), "w")
        proc = subprocess.Popen(self.web_argv() + ["--socket", self.sock, "--listen", "127.0.0.1:%d" % self.port,
                                            "--static", PAGE_DIR, *args], stdout=self.log, stderr=subprocess.STDOUT)

        def stop():
            proc.terminate()
            proc.wait(10)
            self.log.close()
        self.addCleanup(stop)
        wait_for(lambda: "listening" in self.web_log(), 10, "touchd-web to listen")
        self.check_api(self.web_log().splitlines()[0])
        return proc

    def web_log(self):
        with open(self.path("web.log"), encoding="utf-8") as f:
            return f.read()

    def run_async(self, coroutine):
        return asyncio.run(asyncio.wait_for(coroutine, 60))

    def connect(self, **kw):
        return websockets.connect(self.url, origin=self.origin, open_timeout=5, **kw)

    def test_lines_pass_unchanged_one_daemon_connection_per_page(self):
        def answer(conn, index, line):
            if line == b'{"ping":1}':
                conn.send(b'{"type":"pong","ping":1}\n{"type":"x","s":"caf\xc3\xa9 \\u00e9"}\n')
            elif line == b'"long"':           # a line far longer than the bridge's read buffer
                conn.send(b'{"type":"long","s":"' + b"y" * 300000 + b'"}\n{"type":"after"}\n')
            elif line == b'"too long"':       # past the 4 MiB a daemon line may have
                conn.send(b'"' + b"z" * (5 << 20) + b'"\n')
        self.fake_daemon(answer)
        self.start_web()

        async def pages():
            async with self.connect() as a, self.connect() as b:
                hellos = sorted([await a.recv(), await b.recv()])
                await a.send('{"ping":1}')
                got = [await a.recv(), await a.recv()]
                await b.send('{"ping":2}\n')     # one trailing newline is the line's own
                await b.send('{"spaced" :  true }')
                await b.send('"long"')
                long = [await b.recv(), await b.recv()]
                await a.send('"too long"')
                try:
                    await asyncio.wait_for(a.recv(), 10)
                except websockets.exceptions.ConnectionClosed:
                    pass
                return hellos, got, long, (a.close_code, a.close_reason)
        hellos, got, long, closed = self.run_async(pages())
        self.assertEqual(long, ['{"type":"long","s":"' + "y" * 300000 + '"}', '{"type":"after"}'])
        self.assertEqual(closed, (1009, "a daemon line longer than 4194304 bytes"))
        self.assertEqual(hellos, ['{"type":"hello","n":0}', '{"type":"hello","n":1}'])
        self.assertEqual(got, ['{"type":"pong","ping":1}', '{"type":"x","s":"café \\u00e9"}'])
        by_page = {}
        for index, line in self.seen:
            by_page.setdefault(index, []).append(line)
        a = next(i for i, lines in by_page.items() if b'{"ping":1}' in lines)
        self.assertEqual(by_page[a], [b'{"ping":1}', b'"too long"'])
        self.assertEqual(by_page[1 - a], [b'{"ping":2}', b'{"spaced" :  true }', b'"long"'])

    def test_a_pages_speaker_claim_is_refused_and_not_forwarded(self):
        """Pages never speak (docs/accessibility.md, "Private text and the speaker role"): a
        subscribe with "speaker": true is answered by touchd-web with an error carrying the
        page's line number, and the daemon reads a blank line in its place, so the lines it
        numbers after it still match the page's."""
        def answer(conn, index, line):
            if line.startswith(b'{"ping"'):
                conn.send(b'{"type":"pong","value":%s,"line":%d}\n' % (line[8:-1], len(self.seen)))
        self.fake_daemon(answer)
        self.start_web()

        async def page():
            async with self.connect() as ws:
                await ws.recv()
                await ws.send('{"ping":1}')
                first = await ws.recv()
                await ws.send('{"subscribe":{"types":["speech"],"spe\\u0061ker":true}}')
                refused = await ws.recv()
                await ws.send('{"subscribe":{"types":["speech"],"speaker":false}}')
                await ws.send('{"ping":4}')
                return first, refused, await ws.recv()
        first, refused, last = self.run_async(page())
        self.assertEqual(first, '{"type":"pong","value":1,"line":1}')
        self.assertEqual(json.loads(refused), {"type": "error", "line": 2, "error": SPEAKER_REFUSAL})
        self.assertTrue(refused.startswith('{"type":"error","error":"subscribe: speaker: '))
        # The daemon read a blank line for it, and the claim-free subscribe as it was.
        self.assertEqual([line for _, line in self.seen],
                         [b'{"ping":1}', b'', b'{"subscribe":{"types":["speech"],"speaker":false}}', b'{"ping":4}'])
        self.assertEqual(last, '{"type":"pong","value":4,"line":4}')

    def test_speaker_refusal(self):
        self.assertEqual(speaker_refusal('{"subscribe":{"speaker":true}}'), SPEAKER_REFUSAL)
        self.assertEqual(speaker_refusal('{"subscribe":{"types":["speech"],"spe\\u0061ker":true}}'), SPEAKER_REFUSAL)
        self.assertEqual(speaker_refusal('{"subscribe":{"speaker":true,"speaker":false}}'), SPEAKER_REFUSAL)
        for line in ['{"subscribe":{"speaker":false}}', '{"subscribe":{}}', '{"ping":"speaker"}', 'not JSON "speaker"',
                     '{"update":{"window":"w","speaker":true}}']:
            self.assertIsNone(speaker_refusal(line), line)

    def test_what_is_not_one_line_of_text_closes_the_page(self):
        self.fake_daemon()
        self.start_web()

        async def send(message):
            async with self.connect() as ws:
                await ws.recv()
                await ws.send(message)
                try:
                    await asyncio.wait_for(ws.recv(), 5)
                except websockets.exceptions.ConnectionClosed:
                    pass
                return ws.close_code, ws.close_reason
        self.assertEqual(self.run_async(send(b"\x00binary")), (1003, "text messages only: one NDJSON line each"))
        self.assertEqual(self.run_async(send('{"ping":1}\n{"ping":2}')), (1007, "one NDJSON line per message"))
        self.assertNotIn(b'{"ping":2}', [line for _, line in self.seen])

    def test_no_daemon(self):
        self.start_web()

        async def page():
            async with self.connect() as ws:
                try:
                    await asyncio.wait_for(ws.recv(), 5)
                except websockets.exceptions.ConnectionClosed:
                    pass
                return ws.close_code, ws.close_reason
        self.assertEqual(self.run_async(page()), (1011, "touchd is not running (No such file or directory)"))
        self.assertIn("cannot connect to %s: No such file or directory" % self.sock, self.web_log())

    def test_origins_as_given(self):
        # --origin replaces the default (the server's own origin); a trailing slash is dropped.
        self.fake_daemon()
        self.start_web("--origin", "http://kiosk.local:8080/", "--origin", "https://panel.example")

        async def page(origin):
            try:
                async with websockets.connect(self.url, origin=origin, open_timeout=5) as ws:
                    await ws.recv()
                    return "accepted"
            except websockets.exceptions.InvalidStatusCode as e:
                return e.status_code
        self.assertEqual(self.run_async(page("http://kiosk.local:8080")), "accepted")
        self.assertEqual(self.run_async(page("https://panel.example")), "accepted")
        self.assertEqual(self.run_async(page(self.origin)), 403)
        self.assertIn("403 origin '%s' is not allowed (allowed: http://kiosk.local:8080, https://panel.example)" % self.origin,
                      self.web_log())

    def test_stopping_waits_for_no_page(self):
        # SIGTERM with a page whose program hangs (it answers no closing handshake) and a
        # connection that never sent its request (which the library's close waits for):
        # touchd-web still exits within a few seconds, and a page that answers gets 1001.
        self.fake_daemon()
        proc = self.start_web()
        hung = subprocess.Popen(["/usr/bin/python3", "-c", HUNG_PAGE, self.url, self.origin], stdout=subprocess.PIPE, text=True)
        self.addCleanup(hung.kill)
        self.assertEqual(hung.stdout.readline().strip(), "connected")
        idle = socket.create_connection(("127.0.0.1", self.port))     # a browser's preconnect: no request yet
        self.addCleanup(idle.close)

        async def page():
            async with self.connect() as ws:
                await ws.recv()
                proc.terminate()
                start = time.monotonic()
                try:
                    await asyncio.wait_for(ws.recv(), 10)
                except websockets.exceptions.ConnectionClosed:
                    pass
                return ws.close_code, time.monotonic() - start
        code, _ = self.run_async(page())
        start = time.monotonic()
        proc.wait(10)
        self.assertEqual(code, 1001)
        self.assertLess(time.monotonic() - start, 3.0)     # 1 s for the hung page, 1 s for the library's close
        self.assertIn("stopping: closing 2 page(s)", self.web_log())

    def test_one_page_too_many_is_503(self):
        self.fake_daemon()
        self.start_web("--max-connections", "1")

        async def pages():
            async with self.connect() as first:
                await first.recv()
                try:
                    async with self.connect():
                        return "accepted"
                except websockets.exceptions.InvalidStatusCode as e:
                    return e.status_code
        self.assertEqual(self.run_async(pages()), 503)
        self.assertIn("503 too many pages connected (the limit is 1)", self.web_log())

    def test_http(self):
        self.start_web()

        def get(path):
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d%s" % (self.port, path), timeout=5) as r:
                    return r.status, r.headers["Content-Type"], r.read()
            except urllib.error.HTTPError as e:
                return e.code, e.headers["Content-Type"], e.read()
        with open(os.path.join(PYTHON_DIR, "touchd_web", "touchd.js"), "rb") as f:
            js = f.read()
        self.assertEqual(get("/touchd.js"), (200, "text/javascript; charset=utf-8", js))
        self.assertEqual(get("/touchd.d.ts")[:2], (200, "text/plain; charset=utf-8"))
        with open(os.path.join(PAGE_DIR, "index.html"), "rb") as f:
            self.assertEqual(get("/"), (200, "text/html; charset=utf-8", f.read()))
        self.assertEqual(get("/usage.ts")[0], 200)
        for path in ["/nothing.html", "/../test_bridge.py", "/%2e%2e/test_bridge.py", "/..%2ftest_bridge.py", "//etc/passwd"]:
            self.assertEqual(get(path)[0], 404, path)
        self.assertEqual(get("/socket")[0], 403)      # no Origin: not a page of ours

    def test_a_page_that_stops_reading_is_dropped_and_slows_no_other(self):
        flood = threading.Event()
        written = {}
        late = []

        def handler(conn, index, line):
            if line == b'"flood"':            # as fast as the bridge takes it, until the write blocks
                conn.sock.setblocking(False)
                chunk = (b'{"type":"frame","pad":"' + b"x" * 1000 + b'"}\n') * 64
                total, blocked_since = 0, None
                while not flood.is_set():
                    try:
                        total += conn.sock.send(chunk)
                        blocked_since = None
                    except BlockingIOError:
                        blocked_since = blocked_since or time.monotonic()
                        time.sleep(0.01)
                    except OSError:
                        break
                    written["bytes"] = total
                conn.sock.setblocking(True)
            elif line.startswith(b'{"echo":'):
                conn.send(line + b"\n")

        self.fake_daemon(handler)
        self.start_web("--stall", "1", "--queue-bytes", "65536")

        async def scenario():
            raw = socket.socket()
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            raw.connect(("127.0.0.1", self.port))
            slow = await websockets.connect(self.url, sock=raw, origin=self.origin, max_queue=1, read_limit=4096)
            await slow.recv()
            await slow.send('"flood"')        # ...and never reads again
            async with self.connect() as page:
                await page.recv()
                for i in range(40):
                    start = time.monotonic()
                    await page.send('{"echo":%d}' % i)
                    self.assertEqual(await page.recv(), '{"echo":%d}' % i)
                    late.append(time.monotonic() - start)
                    await asyncio.sleep(0.05)
            slow.transport.abort()
        self.run_async(scenario())
        flood.set()
        log = self.web_log()
        self.assertIn("dropped: it took nothing for 1 s", log)
        # The bridge stopped reading the flooded daemon connection: the fake daemon could write
        # only what the buffers hold (the page's write buffer, the kernel's socket buffers), not
        # what 2 s of flooding at loopback speed would be.
        self.assertLess(written["bytes"], 2 << 20, written)
        self.assertGreater(written["bytes"], 65536, written)
        sys.stderr.write("\n  bridge: the flooded daemon connection took %d KiB before blocking; the other page's "
                         "echo p50 %.2f ms, max %.2f ms\n" % (written["bytes"] >> 10, sorted(late)[20] * 1000, max(late) * 1000))
        self.assertLess(max(late), 0.5, late)


@unittest.skipIf(NEWER_MISSING, NEWER_MISSING)
class BridgeUnderWebsockets15(UnderNewerWebsockets, Bridge):
    """The same checks with touchd-web on websockets 15 (Debian 13's), its asyncio API. (The
    command line's checks are not run again: they end before websockets serves anything.)"""


if __name__ == "__main__":
    unittest.main()
