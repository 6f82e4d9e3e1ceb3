"""Issue 40 with two local users against the real daemon: the kiosk (this test's uid, root) and a
client the policy holds below it (uid and gid 65534 through setpriv). The policy names numeric
ids, so no test adds users to the machine. Each repro failed before its fix:
1. the low client's calibration of the kiosk's panel was accepted;
2. its turn of the kiosk's display was accepted;
3. an id it took first kept the kiosk's attach out, and the kiosk's PIN pad taps went to it;
4. a reload that narrowed its range left its window over the kiosk.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from support import touchd_binary

BINARY = touchd_binary()
LOW = 65534

# A raw client (no import of the repository: it runs as another user): sends the requests given
# on its command line, prints every line it receives as it receives it, and with --hold goes on
# printing until it is killed.
CLIENT = r"""
import json, socket, sys, time
path, hold, requests = sys.argv[1], sys.argv[2] == "hold", sys.argv[3:]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(path)
for r in requests:
    s.sendall(r.encode() + b"\n")
s.settimeout(0.2)
buf, answered, deadline = b"", 0, time.monotonic() + 10
while hold or (answered < len(requests) and time.monotonic() < deadline):
    try:
        data = s.recv(65536)
    except socket.timeout:
        continue
    if not data:
        break
    buf += data
    while b"\n" in buf:
        line, buf = buf.split(b"\n", 1)
        print(line.decode(), flush=True)
        if "line" in json.loads(line):
            answered += 1
"""

PAD = {"id": "pinpad", "frame": [0, 0, 800, 480], "private": True,
       "view": {"id": "pad", "frame": [0, 0, 800, 480],
                "subviews": [{"id": "digit5", "frame": [300, 200, 100, 100], "control": "button"}]}}


DESC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                    "Tests", "Fixtures", "virtual-800x480.desc")


def capture(taps):
    """An evemu capture of the tests' virtual 800x480 panel (device units are points) tapped at (t, x, y)."""
    with open(DESC) as f:
        lines = [f.read().rstrip("\n")]
    for k, (t, x, y) in enumerate(taps):
        for tt, events in ((t, [(3, 0x2f, 0), (3, 0x39, k + 1), (3, 0x35, x), (3, 0x36, y), (1, 0x14a, 1)]),
                           (t + 0.05, [(3, 0x2f, 0), (3, 0x39, -1), (1, 0x14a, 0)])):
            for (ty, code, value) in events + [(0, 0, 0)]:
                lines.append("E: %.6f %04x %04x %d" % (tt, ty, code, value))
    return "\n".join(lines) + "\n"


@unittest.skipUnless(os.access(BINARY, os.X_OK), "no touchd at %s (set TOUCHD_BINARY, or build it)" % BINARY)
@unittest.skipUnless(os.geteuid() == 0 and shutil.which("setpriv"), "needs root and setpriv (a client as uid %d)" % LOW)
class TwoUsers(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="touchd-users-")
        os.chmod(self.dir, 0o755)
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.socket = os.path.join(self.dir, "touchd.sock")
        self.config = os.path.join(self.dir, "touchd.json")
        self.procs = []

    def write_config(self, low_levels):
        with open(self.config, "w") as f:
            json.dump({"outputs": [{"id": "DSI-1", "width": 800, "height": 480}],
                       "socket": {"mode": "0666"},
                       "clients": {"owners": [{"users": ["0"], "levels": [0, 1000]},
                                              {"users": [str(LOW)], "levels": low_levels}]},
                       "windows": []}, f)

    def start(self, taps, wait_clients, low_levels=(-1000, -1)):
        self.write_config(list(low_levels))
        events = os.path.join(self.dir, "panel.events")
        with open(events, "w") as f:
            f.write(capture(taps))
        self.log = open(os.path.join(self.dir, "touchd.log"), "w+")
        self.addCleanup(self.log.close)
        d = subprocess.Popen([BINARY, "run", "--config", self.config, "--socket", self.socket, "--replay", events,
                              "--wait-clients", str(wait_clients), "--log-level", "info"],
                             stdout=subprocess.DEVNULL, stderr=self.log)
        self.addCleanup(self.stop, d)
        deadline = time.monotonic() + 20
        while not os.path.exists(self.socket) and time.monotonic() < deadline and d.poll() is None:
            time.sleep(0.02)
        self.assertTrue(os.path.exists(self.socket), "the daemon did not listen")
        return d

    def stop(self, p):
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def client(self, requests, low, hold=False):
        argv = [sys.executable, "-c", CLIENT, self.socket, "hold" if hold else "once"] + [json.dumps(r) for r in requests]
        if low:
            argv = ["setpriv", "--reuid", str(LOW), "--regid", str(LOW), "--clear-groups"] + argv
        if hold:
            out = open(os.path.join(self.dir, "held-%d.out" % len(self.procs)), "w+")
            self.addCleanup(out.close)
            p = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
            self.procs.append(p)
            self.addCleanup(self.stop, p)
            return p, out
        done = subprocess.run(argv, capture_output=True, text=True, timeout=20)
        self.assertEqual(done.returncode, 0, done.stderr)
        return [json.loads(line) for line in done.stdout.splitlines()]

    @staticmethod
    def lines(out):
        out.flush()
        out.seek(0)
        return [json.loads(line) for line in out.read().splitlines() if line.startswith("{")]

    def wait_for(self, out, predicate, timeout=10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = self.lines(out)
            if predicate(got):
                return got
            time.sleep(0.05)
        self.fail("not seen in time: %s" % self.lines(out))

    @staticmethod
    def replies(messages):
        return [m for m in messages if "line" in m]

    def test_a_low_client_can_neither_calibrate_the_kiosks_panel_nor_turn_its_display(self):
        self.start([(30.0, 400, 240)], wait_clients=1)
        low = self.replies(self.client([{"calibrate": {"device": "panel", "targets": [[100, 100], [700, 100], [400, 400]]}},
                                        {"output": {"id": "DSI-1", "rotation": 90}}], low=True))
        self.assertEqual([m["type"] for m in low], ["error", "error"], low)
        self.assertIn('calibrating a device of output "DSI-1" is for clients whose levels reach the top', low[0]["error"])
        self.assertIn("this client's highest: -1", low[0]["error"])
        self.assertIn('turning output "DSI-1" is for clients whose levels reach the top', low[1]["error"])
        # The kiosk may: its calibration starts (the first target) and its turn is answered.
        kiosk = self.replies(self.client([{"output": {"id": "DSI-1", "rotation": 90}},
                                          {"calibrate": {"device": "panel", "cancel": True}}], low=False))
        self.assertEqual(kiosk[0]["type"], "output", kiosk)
        self.assertEqual(kiosk[0]["output"]["rotation"], 90)

    def test_the_kiosk_takes_back_the_ids_a_low_client_squats_and_its_taps_are_the_kiosks(self):
        # The tap on digit5 comes 1.5 s after the replay starts (at the kiosk's request).
        self.start([(1.5, 350, 250)], wait_clients=2)
        squat = dict(PAD, level=-1)
        p, out = self.client([{"attach": squat}], low=True, hold=True)
        got = self.wait_for(out, lambda ms: any(m.get("type") == "attached" for m in ms))
        self.assertEqual([m["type"] for m in self.replies(got)], ["attached"])
        kiosk, kout = self.client([{"attach": dict(PAD, level=500)}, {"subscribe": {}}], low=False, hold=True)
        self.wait_for(kout, lambda ms: any(m.get("type") == "attached" for m in ms))
        told = self.wait_for(out, lambda ms: any(m.get("type") == "detached" for m in ms))
        self.assertIn({"type": "detached", "window": "pinpad", "reason": "preempted"}, told)
        seen = self.wait_for(kout, lambda ms: any(m.get("type") == "control" and m.get("event") == "touchUpInside" for m in ms))
        frames = [t for m in seen if m.get("type") == "frame" for t in m["touches"]]
        self.assertEqual([(t["phase"], t["window"], t["view"]) for t in frames],
                         [("began", "pinpad", "digit5"), ("ended", "pinpad", "digit5")])
        # A private touch's id is the owner's own, apart from the public counter.
        self.assertGreaterEqual(frames[0]["id"], 1 << 32)
        time.sleep(0.3)
        # The low client saw nothing of the tap on what is now the kiosk's private pad.
        low_seen = self.lines(out)
        self.assertFalse([m for m in low_seen if m.get("type") in ("frame", "control")], low_seen)

    def test_a_reload_that_narrows_the_low_clients_range_moves_its_window_below(self):
        daemon = self.start([(30.0, 400, 240)], wait_clients=1, low_levels=(0, 1000))
        p, out = self.client([{"attach": {"id": "overlay", "frame": [0, 0, 800, 480], "level": 500,
                                          "view": {"id": "glass", "frame": [0, 0, 800, 480]}}}], low=True, hold=True)
        self.wait_for(out, lambda ms: any(m.get("type") == "attached" for m in ms))
        self.write_config([-1000, -1])
        daemon.send_signal(signal.SIGHUP)
        told = self.wait_for(out, lambda ms: any(m.get("reason") == "policy" for m in ms))
        self.assertIn({"type": "updated", "window": "overlay", "version": 2, "level": -1, "reason": "policy"}, told)


if __name__ == "__main__":
    unittest.main()
