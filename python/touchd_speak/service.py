"""touchd speak's loop: touchd's `speech` and `headphones` messages (touchd_client) in, SSIP to
speech-dispatcher (ssip.py) out, the rules in between (speaker.py). One thread, one select()
over both sockets; every wait bounded, so neither service can hold the other up for longer
than a reply's timeout. Either may be missing or go away: the first is waited for, the second
is a warning, and both are connected again (docs/accessibility.md, "Speech")."""
import argparse
import errno
import os
import pwd
import select
import signal
import socket
import sys
import time

from touchd_client import TouchdClient, TouchdError, ConnectionLost

from . import ssip
from .speaker import Speaker

DEFAULT_SOCKET = "/run/touchd/touchd.sock"
TYPES = ["speech", "headphones"]
RETRY_FIRST, RETRY_MOST = 0.5, 5.0      # seconds between attempts to reach speech-dispatcher
SPAWN_EVERY = 30.0                      # seconds between two `speech-dispatcher --spawn`


class Log:
    """Lines on stderr; with the journal as stderr (JOURNAL_STREAM names it) each starts with
    its syslog priority, as the daemon's do, so `journalctl -p warning` finds the warnings."""

    def __init__(self, stream=sys.stderr, environ=os.environ):
        self.stream = stream
        self.journal = False
        try:
            st = os.fstat(stream.fileno())
            self.journal = environ.get("JOURNAL_STREAM") == "%d:%d" % (st.st_dev, st.st_ino)
        except (OSError, ValueError, AttributeError):
            pass

    def __call__(self, text, priority=6):
        prefix = "<%d>" % priority if self.journal else "touchd speak: " + (
            "error: " if priority <= 3 else "warning: " if priority == 4 else "")
        self.stream.write(prefix + text + "\n")
        self.stream.flush()

    def warn(self, text):
        self(text, 4)


class Service:
    def __init__(self, socket_path, speech_address, outputs=None, spawn=True, verbose=False, log=None,
                 user=None):
        self.log = log or Log()
        self.family, self.where, self.address = speech_address
        self.spawn = spawn and self.family == socket.AF_UNIX
        self.verbose = verbose
        self.user = user or pwd.getpwuid(os.getuid()).pw_name
        self.speaker = Speaker(outputs, warn=self.log.warn)
        self.ssip = None
        self.ssip_retry_at = 0.0
        self.ssip_backoff = RETRY_FIRST
        self.ssip_missing_said = False
        self.spawned_at = None
        self.dropped = 0                # utterances touchd sent while speech-dispatcher was away
        self.stopping = False
        self.touchd_seen = False
        self.client = TouchdClient(socket_path, wait=True)
        self.client.on_connect(self._touchd_up)
        self.client.on_disconnect(self._touchd_down)
        self.client.on_message(self._message)
        self.client.on_error(lambda e: self.log.warn("touchd: %s" % e))

    # -- touchd ---------------------------------------------------------------------------------
    def _touchd_up(self, hello):
        self.touchd_seen = True
        self.log("connected to touchd %s (pid %s) at %s" % (hello.get("version"), hello.get("pid"),
                                                             self.client.socket_path))
        try:
            self.client.subscribe(types=TYPES, speaker=True)
            return
        except ConnectionLost:
            return
        except TouchdError as e:
            self.log.warn("touchd did not make this client a speaker (%s): private windows' text and secure "
                          "elements will not be spoken; docs/accessibility.md says how the policy names a speaker" % e)
        try:
            self.client.subscribe(types=TYPES)
        except ConnectionLost:
            pass
        except TouchdError as e:
            self.log.warn("touchd refused the subscription to %s (%s): nothing will be spoken" % (TYPES, e))

    def _touchd_down(self, reason):
        self.log.warn("touchd went away (%s); connecting again" % reason)

    def _message(self, msg):
        kind = msg.get("type")
        if kind == "speech" and self.ssip is None:
            if isinstance(msg.get("text"), str):
                self.dropped += 1
            return
        self.perform(self.speaker.handle(msg))

    # -- speech-dispatcher ----------------------------------------------------------------------
    def perform(self, steps):
        for step in steps:
            if self.ssip is None:
                self.dropped += step[0] == "speak"
                continue
            try:
                if step[0] == "command":
                    self.ssip.command(step[1])
                else:
                    self.ssip.speak(step[1])
                    if self.verbose:
                        self.log("spoke %s" % ("private text" if step[2] else repr(step[1])))
            except ssip.Refused as e:
                self.log.warn("speech-dispatcher refused %s" % e)
                if step[1].startswith("SET self LANGUAGE"):
                    self.speaker.language = None      # unknown now: set again next time
                elif step[1].startswith("SET self RATE"):
                    self.speaker.rate = None
            except ssip.SSIPError as e:
                self._ssip_lost(e)

    def _ssip_lost(self, why):
        if self.ssip is not None:
            self.ssip.close()
            self.ssip = None
        self.speaker.end()
        self.log.warn("lost speech-dispatcher at %s (%s); speaking nothing until it is back" % (self.address, why))
        self.ssip_missing_said = True
        self.ssip_backoff = RETRY_FIRST
        self.ssip_retry_at = time.monotonic() + self.ssip_backoff

    def _ssip_open(self):
        try:
            conn = ssip.Connection(self.family, self.where)
        except OSError as e:
            absent = e.errno in (errno.ENOENT, errno.ECONNREFUSED)
            now = time.monotonic()
            if not (absent and self.spawn and (self.spawned_at is None or now - self.spawned_at >= SPAWN_EVERY)):
                raise ssip.SSIPError(os.strerror(e.errno) if e.errno else str(e)) from None
            self.spawned_at = now
            refused = ssip.spawn(self.where)
            if refused is not None:
                raise ssip.SSIPError("%s; %s" % (os.strerror(e.errno), refused)) from None
            try:
                conn = ssip.Connection(self.family, self.where)
            except OSError as e2:
                raise ssip.SSIPError("started, yet %s" % (os.strerror(e2.errno) if e2.errno else e2)) from None
        try:
            for _, line in Speaker.greeting(self.user):
                conn.command(line)
            language, rate = self._get(conn, "GET LANGUAGE"), self._get(conn, "GET RATE")
        except ssip.SSIPError:
            conn.close()
            raise
        try:
            rate = int(rate) if rate is not None else None
        except ValueError:
            rate = None
        self.speaker.begin(language, rate)
        return conn

    @staticmethod
    def _get(conn, line):
        try:
            _, data = conn.command(line)
        except ssip.Refused:
            return None         # an older server: utterances without the key keep the last one
        return data[0] if data else None

    def _ssip_maintain(self, now):
        if self.ssip is not None or now < self.ssip_retry_at:
            return
        try:
            self.ssip = self._ssip_open()
        except ssip.SSIPError as e:
            if not self.ssip_missing_said:
                self.log.warn("no speech service at %s (%s): nothing is spoken until it comes; trying again"
                              % (self.address, e))
                self.ssip_missing_said = True
            self.ssip_retry_at = time.monotonic() + self.ssip_backoff
            self.ssip_backoff = min(self.ssip_backoff * 2, RETRY_MOST)
            return
        self.log("speaking through speech-dispatcher at %s" % self.address
                 + (" (%d utterance(s) came while it was away, not spoken)" % self.dropped if self.dropped else ""))
        self.dropped = 0
        self.ssip_missing_said = False
        self.ssip_backoff = RETRY_FIRST

    # -- the loop -------------------------------------------------------------------------------
    def turn(self, timeout):
        """One turn: reach speech-dispatcher if it is time, wait for either socket (at most
        timeout seconds), read what came."""
        self._ssip_maintain(time.monotonic())
        fds = [fd for fd in (self.client.fileno(), self.ssip.fileno() if self.ssip else -1) if fd >= 0]
        if self.ssip is None:
            timeout = min(timeout, max(0.0, self.ssip_retry_at - time.monotonic()))
        try:
            ready = select.select(fds, [], [], timeout)[0] if fds else (time.sleep(timeout) or [])
        except InterruptedError:
            ready = []
        if self.ssip is not None and self.ssip.fileno() in ready:
            try:
                self.ssip.readable()
            except ssip.SSIPError as e:
                self._ssip_lost(e)
        self.client.poll(0)

    def run(self):
        try:
            self.client.connect()
        except OSError:
            pass        # waited for: poll() tries again
        if not self.client.connected:
            self.log.warn("touchd is not listening at %s yet; waiting for it" % self.client.socket_path)
        while not self.stopping:
            self.turn(0.25)
        if self.ssip is not None:
            self.ssip.quit()
        self.client.close()
        return 0


def parser():
    p = argparse.ArgumentParser(
        prog="touchd-speak",
        description="Speaks touchd's speech messages through speech-dispatcher, as VoiceOver would: a new "
                    "focus interrupts, an announcement waits its turn; each in its language and rate. Run it "
                    "as the kiosk's user (systemd/touchd-speak.service). (`touchd speak ...` runs this program.)",
        epilog="Private text is spoken only while touchd says headphones are plugged in, and only reaches "
               "this client when the config names it a speaker. Docs: docs/accessibility.md.")
    p.add_argument("--socket", default=DEFAULT_SOCKET, metavar="P", help="the daemon's socket (default %(default)s)")
    p.add_argument("--speech", metavar="ADDRESS",
                   help="speech-dispatcher's address, unix_socket:PATH or inet_socket:HOST:PORT (default: "
                        "$SPEECHD_ADDRESS, else $XDG_RUNTIME_DIR/speech-dispatcher/speechd.sock, as libspeechd)")
    p.add_argument("--output", action="append", metavar="ID",
                   help="speak only this output's speech (repeatable; default every output)")
    p.add_argument("--no-spawn", action="store_true",
                   help="never start speech-dispatcher (default: `speech-dispatcher --spawn` when it is not there)")
    p.add_argument("--verbose", action="store_true", help="log each utterance spoken (never private text)")
    p.add_argument("--version", action="store_true", help="print the version")
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    if args.version:
        from touchd_speak import __version__
        print("touchd-speak %s" % __version__)
        return 0
    log = Log()
    try:
        address = ssip.parse_address(args.speech) if args.speech else ssip.address()
    except ValueError as e:
        log("--speech %s" % e, 3)
        return 2
    service = Service(args.socket, address, outputs=args.output, spawn=not args.no_spawn, verbose=args.verbose,
                      log=log)

    def stop(signum, frame):
        service.stopping = True
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    return service.run()
