#!/usr/bin/env python3
"""Headless end-to-end test of the kiosk example and of python/touchd_client's reconnect.

    /usr/bin/python3 examples/kiosk/test_kiosk.py [--binary PATH]

1. Runs touchd on examples/kiosk/kiosk-taps.events in real time (the replay starts once the
   kiosk has attached its window) and the kiosk headless; checks the kiosk's state file
   (selections Coffee, Item 14, Tea; back on the menu; the list scrolled when the row was
   tapped) and its screenshot (800x480, the Tea button drawn in the selected colour).
2. Attaches and updates a window through TouchdClient, stops the daemon (SIGTERM), starts a
   new one on the same socket, and checks that the client re-attached the window as updated.

Prints one line per check; exits 0 when all pass, 1 (naming the failures) otherwise.
Needs pygame (Debian's python3-pygame) for the screenshot checks. About 10 s.
"""
import argparse
import importlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True                 # no __pycache__ in the repository, here...
os.environ["PYTHONDONTWRITEBYTECODE"] = "1"    # ...nor from the kiosk it starts
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))
sys.path.insert(0, os.path.join(REPO, "scripts", "lib"))
sys.path.insert(0, HERE)
from touchd_client import TouchdClient, TouchdError  # noqa: E402
from binary import built_touchd  # noqa: E402  (every harness's rule: $TOUCHD_BINARY, else the newest build)
import kiosk  # noqa: E402  (for its layout and colours; pygame is imported only to draw)

CONFIG = os.path.join(HERE, "touchd.json")
CAPTURE = os.path.join(HERE, "kiosk-taps.events")
DEVICE = os.path.join(REPO, "Tests", "Fixtures", "virtual-800x480.desc")
EXPECTED = ["Coffee", "Item 14", "Tea"]
failures = []


def check(name, ok, detail=""):
    print("%s  %s%s" % ("ok  " if ok else "FAIL", name, (": " + detail) if detail else ""), flush=True)
    if not ok:
        failures.append(name)
    return ok


def daemon(touchd, sock, log, *extra):
    proc = subprocess.Popen([touchd, "run", "--config", CONFIG, "--socket", sock, "--replay", CAPTURE,
                             "--device-info", DEVICE, "--speed", "1", *extra],
                            stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + 5
    while not os.path.exists(sock):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise SystemExit("touchd did not start listening on %s (see %s)" % (sock, log.name))
        time.sleep(0.02)
    return proc


def stop(proc):
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def frame_of(window, vid):
    """A view's frame in screen points, from the kiosk's layout."""
    def walk(view, x, y):
        fx, fy, w, h = view["frame"]
        if view["id"] == vid:
            return [x + fx, y + fy, w, h]
        for sub in view.get("subviews", []):
            found = walk(sub, x + fx, y + fy)
            if found:
                return found
    return walk(window["view"], window["frame"][0], window["frame"][1])


def test_kiosk(touchd, tmp):
    sock, shot, state_file = (os.path.join(tmp, n) for n in ("touchd.sock", "shot.png", "state.json"))
    with open(os.path.join(tmp, "touchd.log"), "w") as log:
        proc = daemon(touchd, sock, log, "--wait-clients", "1", "--exit-at-end")
        app = subprocess.Popen([sys.executable, os.path.join(HERE, "kiosk.py"), "--socket", sock, "--headless",
                                "--exit-on-bye", "--screenshot", shot, "--state", state_file],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            out, _ = app.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            app.kill()
            out = app.communicate()[0]
            check("kiosk exits when the replay ends", False, "still running after 60 s; output:\n" + out)
            return
        finally:
            stop(proc)
    if not check("kiosk exits cleanly on bye", app.returncode == 0,
                 "exit status %d" % app.returncode + ("; output:\n" + out if app.returncode else "")):
        return
    with open(state_file) as f:
        state = json.load(f)
    check("selections in order", state["selections"] == EXPECTED, "%s (want %s)" % (state["selections"], EXPECTED))
    check("final screen is the menu", state["screen"] == "menu", state["screen"])
    rows = [s for s in state["selectionLog"] if s["control"].startswith("row-")]
    offset = rows[0]["listOffset"][1] if rows else None
    check("list scrolled when the row was tapped", offset is not None and offset > 0,
          "offset %s after %d scroll messages" % (offset, state["scrollMessages"]))
    check("touches seen", state["touchesSeen"] == 6, "%d (want 6: five taps and a drag)" % state["touchesSeen"])

    import pygame
    if not check("screenshot saved", os.path.exists(shot), shot):
        return
    image = pygame.image.load(shot)
    check("screenshot is 800x480", image.get_size() == (800, 480), "%dx%d" % image.get_size())
    layout = kiosk.layout(800, 480)
    tea, coffee = frame_of(layout, "tea"), frame_of(layout, "coffee")
    tea_px = tuple(image.get_at((int(tea[0]) + 20, int(tea[1] + tea[3] / 2))))[:3]
    coffee_px = tuple(image.get_at((int(coffee[0]) + 20, int(coffee[1] + coffee[3] / 2))))[:3]
    check("Tea drawn selected", tea_px == kiosk.SELECTED, "pixel %s (want %s)" % (tea_px, kiosk.SELECTED))
    check("Coffee drawn plain", coffee_px == kiosk.BUTTON, "pixel %s (want %s)" % (coffee_px, kiosk.BUTTON))


def raw_attach(sock_path, window):
    """Attach from a second, plain connection; returns the daemon's reply."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(sock_path)
        s.sendall((json.dumps({"attach": window}) + "\n").encode())
        for line in s.makefile("r", encoding="utf-8"):
            msg = json.loads(line)
            if msg["type"] in ("attached", "error"):
                return msg


def pump(client, until, seconds):
    deadline = time.monotonic() + seconds
    while not until() and time.monotonic() < deadline:
        client.poll(0.05)
    return until()


def test_reconnect(touchd, tmp):
    sock = os.path.join(tmp, "reconnect.sock")
    log = open(os.path.join(tmp, "reconnect.log"), "w")
    first = daemon(touchd, sock, log, "--wait-clients", "99")   # 99: the replay never starts
    second = None
    client = TouchdClient(sock, reconnect=True)
    events = []
    client.on_connect(lambda hello: events.append(("connect", hello["pid"])))
    client.on_disconnect(lambda reason: events.append(("disconnect", reason)))
    try:
        check("library connects", client.connect() and client.screen == (800, 480), str(client.screen))
        window = {"id": "probe", "frame": [0, 0, 400, 240], "level": 1,
                  "view": {"id": "probe-root", "frame": [0, 0, 400, 240],
                           "subviews": [{"id": "probe-button", "frame": [10, 10, 100, 50], "control": "button"}]}}
        attached = client.attach(window)
        updated = client.update("probe", [{"view": "probe-button", "set": {"hidden": True}},
                                          {"add": {"id": "probe-added", "frame": [0, 100, 50, 50]}, "to": "probe-root"},
                                          {"window": {"frame": [100, 100, 400, 240]}}])
        check("attach then update", attached["version"] == 1 and updated["version"] == 2,
              "versions %d, %d" % (attached["version"], updated["version"]))
        try:
            client.update("probe", [{"view": "probe-root", "set": {"hidden": False}},
                                    {"view": "nowhere", "set": {"hidden": True}}])
            check("a bad update raises TouchdError", False, "no error")
        except TouchdError as e:
            check("a bad update raises TouchdError", (e.request, e.window, e.path) == ("update", "probe", "changes[1].view"),
                  "request %s, window %s, path %s: %s" % (e.request, e.window, e.path, e))

        first.send_signal(signal.SIGTERM)
        check("library sees the daemon go", pump(client, lambda: ("disconnect", "bye: shutdown") in events, 5), str(events))
        first.wait(5)
        second = daemon(touchd, sock, log, "--wait-clients", "99")
        check("library reconnects to the new daemon",
              pump(client, lambda: ("connect", second.pid) in events, 10), str(events))
        taken = raw_attach(sock, {"id": "probe", "frame": [0, 0, 10, 10]})
        check("window re-attached (its id is taken)", taken["type"] == "error" and "taken" in taken["error"],
              taken.get("error", taken["type"]))
        added = raw_attach(sock, {"id": "other", "frame": [0, 0, 10, 10],
                                  "view": {"id": "probe-added", "frame": [0, 0, 10, 10]}})
        check("re-attached as updated (the added view exists)",
              added["type"] == "error" and "probe-added" in added["error"], added.get("error", added["type"]))
        again = client.update("probe", [{"remove": "probe-added"}])
        copy = client.windows["probe"]
        check("the client's copy follows its updates",
              copy["frame"] == [100, 100, 400, 240] and copy["view"]["subviews"][0].get("hidden") is True
              and len(copy["view"]["subviews"]) == 1, json.dumps(copy))
        check("updates go on after the re-attach (version restarts at 1)", again["version"] == 2,
              "version %d" % again["version"])
    finally:
        client.close()
        for proc in (first, second):
            if proc is not None:
                if proc.poll() is None:
                    proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(5)
                except subprocess.TimeoutExpired:
                    stop(proc)
        log.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", metavar="PATH", default=built_touchd() or os.path.join(REPO, ".build", "debug", "touchd"))
    args = ap.parse_args()
    if not os.access(args.binary, os.X_OK):
        sys.exit("no touchd binary at %s (build it, or give --binary PATH)" % args.binary)
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        importlib.import_module("pygame")   # the kiosk and the screenshot checks need it
    except ImportError:
        sys.exit("%s has no pygame: run the test with /usr/bin/python3 (Debian's python3-pygame)" % sys.executable)
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="kiosk-test-") as tmp:
        test_kiosk(args.binary, tmp)
        test_reconnect(args.binary, tmp)
        if failures:
            for name in ("touchd.log", "reconnect.log"):
                path = os.path.join(tmp, name)
                if os.path.exists(path):
                    print("--- %s\n%s" % (name, open(path).read().rstrip()))
    took = time.monotonic() - start
    if failures:
        sys.exit("%d check(s) failed in %.1f s: %s" % (len(failures), took, ", ".join(failures)))
    print("all checks passed in %.1f s" % took)


if __name__ == "__main__":
    main()
