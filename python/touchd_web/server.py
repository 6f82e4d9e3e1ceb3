"""touchd-web: web pages as clients of touchd (docs/web.md, interface "Web pages as clients").

A WebSocket at /socket carries the daemon's socket protocol unchanged — one NDJSON line per
text message, both ways — and each page connection is a connection of its own to the daemon's
Unix socket, made with the credentials of the user running touchd-web: the daemon's owners and
levels policy, private windows and every bound apply to each page as to any client. HTTP GET
serves /touchd.js (touchd.d.ts beside it) and, with --static DIR, the kiosk's own page.

Who may connect: a page whose Origin is in the allow-list (--origin, default the server's own
origin) and, with --token-file, that offers the subprotocol "touchd.TOKEN"; on loopback, only
a socket that belongs to the user running touchd-web (peercred.py asks the kernel) — a local
process of another user is refused even with a forged Origin. Every refusal is an HTTP 403
(503 when full) and a line on stderr.

Bounds, per page as the daemon's socket bounds a client: at most --max-connections pages at
once; a page's outgoing messages wait in its WebSocket's write buffer, at most --queue-bytes
(plus the message being written). While that buffer is full the bridge stops reading the
page's daemon connection, so the daemon's own slow-client policy applies to that page alone —
its moves coalesced, then messages dropped and an overflow notice with a snapshot — and a page
that takes nothing for --stall seconds is dropped. No page waits for another: one asyncio loop,
every write non-blocking.

Built on the `websockets` library (Debian's python3-websockets): its newer asyncio API
(websockets.asyncio.server, 13 and later: Debian 13 ships 15) when present, else the legacy
API of 10.x (Debian 12 ships 10.4).
"""
import argparse
import asyncio
import hmac
import http
import json
import mimetypes
import os
import signal
import socket
import sys

from . import peercred

try:                                         # websockets 13+ (Debian 13: 15.0)
    from websockets.asyncio.server import serve as _new_serve
    from websockets.datastructures import Headers
    from websockets.http11 import Response
    API = "asyncio"
except ImportError:                          # websockets 10.x (Debian 12: 10.4)
    _new_serve = None
    from websockets.datastructures import Headers
    from websockets.legacy.server import WebSocketServerProtocol, serve as _legacy_serve
    API = "legacy"
import websockets
from websockets.exceptions import ConnectionClosed

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SOCKET = "/run/touchd/touchd.sock"
DEFAULT_LISTEN = "127.0.0.1:8470"
MAX_DAEMON_LINE = 4 << 20       # the longest line taken from the daemon (as the Python client's max_line)
MAX_PAGE_MESSAGE = 1 << 20      # the longest message taken from a page; a longer one closes it (1009)
OPEN_TIMEOUT = 10               # seconds a connection may take to send its request
READ_CHUNK = 64 << 10           # the daemon connection's read buffer stops filling at twice this (asyncio's limit)


def log(text):
    sys.stderr.write("touchd-web: %s\n" % text)
    sys.stderr.flush()


class Refusal(Exception):
    def __init__(self, status, reason):
        super().__init__(reason)
        self.status, self.reason = status, reason


def parse_listen(text):
    """HOST:PORT ([::1]:PORT for IPv6) → (host, port); ValueError naming what is wrong."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError("--listen %r: expected HOST:PORT (e.g. 127.0.0.1:8470, [::1]:8470)" % text)
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not host:
        raise ValueError("--listen %r: no HOST (0.0.0.0 listens on every address)" % text)
    return host, int(port)


def parse_origin(text):
    """An --origin as browsers send Origin: scheme://host[:port], no path (a trailing / dropped)."""
    origin = text[:-1] if text.endswith("/") else text
    scheme, sep, rest = origin.partition("://")
    if not sep or scheme not in ("http", "https") or not rest or "/" in rest:
        raise ValueError("--origin %r: expected http(s)://HOST[:PORT], as a browser sends Origin (no path)" % text)
    return origin


def own_origins(host, port):
    """The server's own origins: what a page it serves has as Origin. On loopback, each name of
    the loopback address (a kiosk opens http://localhost:PORT or http://127.0.0.1:PORT)."""
    if peercred.is_loopback(host) or host == "localhost":
        return ["http://127.0.0.1:%d" % port, "http://localhost:%d" % port, "http://[::1]:%d" % port]
    return ["http://%s:%d" % ("[%s]" % host if ":" in host else host, port)]


class Bridge:
    """The policy and the per-page pumps, independent of the websockets API in use."""

    def __init__(self, socket_path, origins, token=None, static=None, max_connections=64,
                 queue_bytes=256 << 10, stall=10.0):
        self.socket_path = socket_path
        self.origins = list(origins)
        self.token = token
        self.static = os.path.realpath(static) if static else None
        self.max_connections = max_connections
        self.queue_bytes = queue_bytes
        self.stall = stall
        self.uid = os.geteuid()
        self.pages = set()
        self.refused = 0
        self.served = 0

    # -- HTTP ------------------------------------------------------------------------------
    def http_get(self, path):
        """(status, headers, body) for a plain GET, or None for /socket (the WebSocket)."""
        path = path.split("?", 1)[0].split("#", 1)[0]
        if path == "/socket":
            return None
        if path in ("/touchd.js", "/touchd.d.ts"):
            return self._file(os.path.join(HERE, path[1:]))
        if self.static:
            rel = "index.html" if path in ("", "/") else path.lstrip("/")
            full = os.path.realpath(os.path.join(self.static, rel))
            if full == self.static or full.startswith(self.static + os.sep):
                if os.path.isdir(full):
                    full = os.path.join(full, "index.html")
                if os.path.isfile(full):
                    return self._file(full)
        return http.HTTPStatus.NOT_FOUND, [("Content-Type", "text/plain")], b"not found\n"

    @staticmethod
    def _file(full):
        kind = {".js": "text/javascript", ".mjs": "text/javascript", ".ts": "text/plain"}.get(
            os.path.splitext(full)[1]) or mimetypes.guess_type(full)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind in ("application/json", "image/svg+xml"):
            kind += "; charset=utf-8"
        try:
            with open(full, "rb") as f:
                body = f.read()
        except OSError as e:
            return http.HTTPStatus.NOT_FOUND, [("Content-Type", "text/plain")], ("%s\n" % e.strerror).encode()
        return http.HTTPStatus.OK, [("Content-Type", kind), ("Cache-Control", "no-cache"),
                                    ("X-Content-Type-Options", "nosniff")], body

    # -- who may connect -------------------------------------------------------------------
    def check(self, peer, local, headers):
        """Raise Refusal unless this page connection may go on."""
        if len(self.pages) >= self.max_connections:
            raise Refusal(http.HTTPStatus.SERVICE_UNAVAILABLE,
                          "too many pages connected (the limit is %d)" % self.max_connections)
        if peercred.is_loopback(peer[0]):
            try:
                uid = peercred.peer_uid(peer[:2], local[:2])
            except peercred.PeerUnknown as e:
                raise Refusal(http.HTTPStatus.FORBIDDEN, "cannot tell who owns the loopback socket (%s)" % e)
            if uid != self.uid:
                raise Refusal(http.HTTPStatus.FORBIDDEN,
                              "the loopback socket belongs to uid %d, not %d (the user running touchd-web)"
                              % (uid, self.uid))
        origin = headers.get("Origin")
        if origin not in self.origins:
            raise Refusal(http.HTTPStatus.FORBIDDEN, "origin %s is not allowed (allowed: %s)"
                          % ("none" if origin is None else repr(origin), ", ".join(self.origins)))
        if self.token is not None:
            offered = [p.strip() for value in headers.get_all("Sec-WebSocket-Protocol")
                       for p in value.split(",")]
            if not any(p.startswith("touchd.") and hmac.compare_digest(p[7:].encode(), self.token.encode())
                       for p in offered):
                raise Refusal(http.HTTPStatus.FORBIDDEN, "no valid token (the subprotocol touchd.TOKEN)"
                              if offered else "no token (the subprotocol touchd.TOKEN)")

    def subprotocols(self):
        return ["touchd." + self.token] if self.token is not None else None

    def refuse(self, peer, path, refusal):
        self.refused += 1
        log("refused %s GET %s: %d %s" % (_addr(peer), path, refusal.status, refusal.reason))
        return (refusal.status, [("Content-Type", "text/plain")], ("%d %s\n" % (refusal.status, refusal.reason)).encode())

    def request(self, peer, local, path, headers, sock=None):
        """The early response of the opening handshake, or None to accept the WebSocket."""
        if sock is not None:
            # The kernel's send buffer fixed at queue-bytes (no autotuning to megabytes): a page
            # that stops reading makes the bridge's writes wait soon, so its daemon connection
            # stops being read and the daemon's slow-client policy takes over.
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.queue_bytes)
            except OSError:
                pass
        answer = self.http_get(path)
        if answer is not None:
            self.served += 1
            return answer
        try:
            self.check(peer, local, headers)
        except Refusal as r:
            return self.refuse(peer, path, r)
        return None

    async def close_all(self, grace=1.0):
        """On SIGTERM: every page told 1001 (it reconnects to the next touchd-web), and a page
        that has not answered the closing handshake within grace seconds cut off, so stopping
        never waits for a page (the library would wait up to its close timeout for each)."""
        pages = list(self.pages)
        if not pages:
            return
        log("stopping: closing %d page(s)" % len(pages))
        closing = [asyncio.ensure_future(ws.close(1001, "touchd-web is stopping")) for ws in pages]
        await asyncio.wait(closing, timeout=grace)
        for ws, task in zip(pages, closing):
            if not task.done():
                task.cancel()
                ws.transport.abort()
        await asyncio.gather(*closing, return_exceptions=True)

    # -- a page's connection ---------------------------------------------------------------
    async def page(self, ws, peer, abort):
        """Bridge one page to its own daemon connection until either side closes."""
        self.pages.add(ws)
        writer = None
        try:
            try:
                reader, writer = await asyncio.open_unix_connection(self.socket_path, limit=READ_CHUNK)
            except OSError as e:
                log("page %s: cannot connect to %s: %s" % (_addr(peer), self.socket_path, e.strerror or e))
                await ws.close(1011, "touchd is not running (%s)" % (e.strerror or e))
                return
            log("page %s connected (%d page(s))" % (_addr(peer), len(self.pages)))
            up = asyncio.ensure_future(self._to_page(ws, reader, peer, abort))
            down = asyncio.ensure_future(self._to_daemon(ws, writer))
            done, pending = await asyncio.wait([up, down], return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            for task in done:
                if not task.cancelled() and task.exception() is not None:
                    log("page %s: %r" % (_addr(peer), task.exception()))
        finally:
            self.pages.discard(ws)
            if writer is not None:
                writer.close()
            log("page %s gone (%d page(s))" % (_addr(peer), len(self.pages)))

    async def _to_page(self, ws, reader, peer, abort):
        while True:
            try:
                line = await _read_line(reader)
            except LineTooLong:
                await ws.close(1009, "a daemon line longer than %d bytes" % MAX_DAEMON_LINE)
                return
            if not line:
                await ws.close(1001, "touchd closed the connection")
                return
            text = line.rstrip(b"\n").decode("utf-8", "replace")
            if not text:
                continue
            try:
                await asyncio.wait_for(ws.send(text), self.stall)
            except asyncio.TimeoutError:
                log("page %s dropped: it took nothing for %g s" % (_addr(peer), self.stall))
                abort()
                return
            except ConnectionClosed:
                return

    async def _to_daemon(self, ws, writer):
        line = 0        # the daemon numbers the lines it reads; a refused one is kept as a blank
        try:
            async for message in ws:
                if not isinstance(message, str):
                    await ws.close(1003, "text messages only: one NDJSON line each")
                    return
                if message.endswith("\n"):
                    message = message[:-1]
                if "\n" in message:
                    await ws.close(1007, "one NDJSON line per message")
                    return
                line += 1
                refusal = speaker_refusal(message)
                if refusal is not None:
                    # Answered here, not forwarded: a blank line keeps the daemon's numbering
                    # (it counts and skips it), so its replies' "line" still match the page's.
                    writer.write(b"\n")
                    await ws.send(json.dumps({"type": "error", "error": refusal, "line": line}, separators=(",", ":")))
                    continue
                writer.write(message.encode() + b"\n")
                await writer.drain()
        except ConnectionClosed:
            pass
        except OSError:
            await ws.close(1011, "touchd's connection failed")


class LineTooLong(Exception):
    pass


SPEAKER_REFUSAL = ("subscribe: speaker: touchd-web does not pass a page's claim to the speaker role on: pages never "
                   "speak, and every page shares touchd-web's user, which the config's clients.speakers may name "
                   "(docs/accessibility.md); subscription unchanged")


def speaker_refusal(message):
    """SPEAKER_REFUSAL when a page's line claims the speaker role — a subscribe with "speaker"
    true, under any spelling of the key the daemon's JSON parser would read as it (escapes,
    a repeated key) — else None: the line goes to the daemon as it is, whatever it is."""
    if '"speaker"' not in message and "\\" not in message:
        return None             # no key that could read as "speaker": nothing to parse
    claims = []

    def pairs(items):
        claims.extend(v for k, v in items if k == "speaker")
        return dict(items)
    try:
        request = json.loads(message, object_pairs_hook=pairs)
    except ValueError:
        return None             # not JSON: the daemon answers it
    if not isinstance(request, dict) or "subscribe" not in request:
        return None
    return SPEAKER_REFUSAL if any(c is True for c in claims) else None


async def _read_line(reader):
    """The next line from the daemon (with its newline; b"" at the end). The reader's limit is
    small (READ_CHUNK), so that asyncio stops reading the socket — and the daemon sees a slow
    client — once 2 x READ_CHUNK wait; a longer line is taken a piece at a time, up to
    MAX_DAEMON_LINE."""
    parts, size = [], 0
    while True:
        try:
            parts.append(await reader.readuntil(b"\n"))
            return b"".join(parts)
        except asyncio.IncompleteReadError:
            return b""                      # the end, and a partial line with it
        except asyncio.LimitOverrunError as e:
            piece = await reader.readexactly(e.consumed)
            size += len(piece)
            if size > MAX_DAEMON_LINE:
                raise LineTooLong() from None
            parts.append(piece)


def _addr(peer):
    if not peer:
        return "?"
    host, port = peer[0], peer[1]
    return "[%s]:%d" % (host, port) if ":" in host else "%s:%d" % (host, port)


# -- the websockets APIs -----------------------------------------------------------------------
async def _serve_asyncio(bridge, host, port, ready):
    def process_request(connection, request):
        transport = connection.transport
        answer = bridge.request(transport.get_extra_info("peername"), transport.get_extra_info("sockname"),
                                request.path, request.headers, transport.get_extra_info("socket"))
        if answer is None:
            return None
        status, headers, body = answer
        headers = Headers(headers + [("Content-Length", str(len(body)))])
        return Response(int(status), http.HTTPStatus(status).phrase, headers, body)

    async def handler(connection):
        await bridge.page(connection, connection.transport.get_extra_info("peername"), connection.transport.abort)

    server = await _new_serve(handler, host, port, process_request=process_request, subprotocols=bridge.subprotocols(),
                              max_size=MAX_PAGE_MESSAGE, write_limit=bridge.queue_bytes, compression=None,
                              open_timeout=OPEN_TIMEOUT, close_timeout=1, server_header="touchd-web")
    await _run(server, ready)


async def _serve_legacy(bridge, host, port, ready):
    class Protocol(WebSocketServerProtocol):
        def connection_made(self, transport):
            super().connection_made(transport)
            # 10.x has no open timeout: a connection that sends no request (a browser's
            # preconnect, a slow client) is cut off after OPEN_TIMEOUT, as the newer API does.
            asyncio.get_event_loop().call_later(OPEN_TIMEOUT, self._open_timeout)

        def _open_timeout(self):
            if getattr(self.state, "name", "") == "CONNECTING":
                self.transport.abort()

        async def process_request(self, path, request_headers):
            return bridge.request(self.transport.get_extra_info("peername"), self.transport.get_extra_info("sockname"),
                                  path, request_headers, self.transport.get_extra_info("socket"))

    async def handler(ws, path=None):
        await bridge.page(ws, ws.transport.get_extra_info("peername"), ws.transport.abort)

    server = await _legacy_serve(handler, host, port, create_protocol=Protocol, subprotocols=bridge.subprotocols(),
                                 max_size=MAX_PAGE_MESSAGE, write_limit=bridge.queue_bytes, compression=None,
                                 close_timeout=1, server_header="touchd-web")
    await _run(server, ready)


async def _run(server, ready):
    """Serve until ready() returns, then close. The library's close waits for every connection,
    those still opening too (a browser's idle preconnect: until it goes); past 1 s the process
    leaves them (they close with it)."""
    try:
        await ready(server)
    finally:
        server.close()
        try:
            await asyncio.wait_for(server.wait_closed(), 1)
        except asyncio.TimeoutError:
            log("stopping: left connections that were still opening")


async def serve(bridge, host, port, stop, on_listening=None):
    """Serve until the future stop is done. on_listening(ports) once listening."""
    async def ready(server):
        ports = sorted({s.getsockname()[1] for s in server.sockets})
        if on_listening:
            on_listening(ports)
        await stop
        await bridge.close_all()
    await (_serve_asyncio if API == "asyncio" else _serve_legacy)(bridge, host, port, ready)


# -- the command -------------------------------------------------------------------------------
def parser():
    p = argparse.ArgumentParser(
        prog="touchd-web",
        description="Web pages as touchd clients: a WebSocket at /socket carrying touchd's socket protocol "
                    "(one NDJSON line per text message, both ways), one daemon connection per page; "
                    "GET /touchd.js (the page's library) and --static DIR. Run it as the kiosk's user. "
                    "(`touchd web ...` runs this program.)",
        epilog="Refusals are HTTP 403 (503 when full) and logged on stderr. Docs: docs/web.md.")
    p.add_argument("--socket", default=DEFAULT_SOCKET, metavar="P", help="the daemon's socket (default %(default)s)")
    p.add_argument("--listen", default=DEFAULT_LISTEN, metavar="HOST:PORT",
                   help="where to listen (default %(default)s: loopback; port 0 picks a free one)")
    p.add_argument("--origin", action="append", default=[], metavar="URL",
                   help="an Origin allowed to connect (repeatable; default: the server's own origin)")
    p.add_argument("--token-file", metavar="F",
                   help="a file whose first line is the token pages must offer as the subprotocol touchd.TOKEN "
                        "(the page gets it as #token=... in its URL)")
    p.add_argument("--static", metavar="DIR", help="serve DIR's files (the kiosk's page: / is DIR/index.html)")
    p.add_argument("--max-connections", type=int, default=64, metavar="N",
                   help="pages connected at once (default %(default)s; one more gets 503)")
    p.add_argument("--queue-bytes", type=int, default=256 << 10, metavar="N",
                   help="bytes waiting for one page before the bridge stops reading its daemon connection "
                        "(default %(default)s; the daemon then coalesces and drops that page's messages)")
    p.add_argument("--stall", type=float, default=10.0, metavar="S",
                   help="drop a page that takes nothing for S seconds (default %(default)s)")
    p.add_argument("--version", action="store_true", help="print the version and the websockets API in use")
    return p


def read_token(path):
    with open(path, encoding="utf-8") as f:
        token = f.readline().strip()
    if not token:
        raise ValueError("%s: line 1: no token (an empty first line)" % path)
    bad = [c for c in token if not (c.isascii() and (c.isalnum() or c in "-._~"))]
    if bad:
        raise ValueError("%s: line 1: the token has %r; use letters, digits and -._~ (a subprotocol is a token)"
                         % (path, bad[0]))
    return token


def main(argv=None):
    args = parser().parse_args(argv)
    if args.version:
        from touchd_web import __version__
        print("touchd-web %s (websockets %s, %s API)" % (__version__, websockets.__version__, API))
        return 0
    try:
        host, port = parse_listen(args.listen)
        if args.max_connections < 1 or args.queue_bytes < 1024 or args.stall <= 0:
            raise ValueError("--max-connections must be at least 1, --queue-bytes at least 1024, --stall above 0")
        args.origin = [parse_origin(o) for o in args.origin]
        token = read_token(args.token_file) if args.token_file else None
        if args.static and not os.path.isdir(args.static):
            raise ValueError("--static %s: not a directory" % args.static)
    except (ValueError, OSError) as e:
        log(str(e) if isinstance(e, ValueError) else "%s: %s" % (e.filename, e.strerror))
        return 2

    async def run():
        loop = asyncio.get_running_loop()
        stop = loop.create_future()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, lambda: stop.done() or stop.set_result(None))
        bridge = None

        def listening(ports):
            origins = args.origin or own_origins(host, ports[0] if port == 0 else port)
            bridge.origins = origins
            log("listening on %s port %s (websockets %s, %s API); daemon socket %s; origins %s%s"
                % (host, ",".join(map(str, ports)), websockets.__version__, API, args.socket,
                   ", ".join(origins), "; token required" if token else ""))

        bridge = Bridge(args.socket, args.origin, token=token, static=args.static,
                        max_connections=args.max_connections, queue_bytes=args.queue_bytes, stall=args.stall)
        await serve(bridge, host, port, stop, listening)

    try:
        asyncio.run(run())
    except OSError as e:
        log("cannot listen on %s: %s" % (args.listen, e.strerror or e))
        return 1
    return 0
