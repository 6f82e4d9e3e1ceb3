"""touchd-web and touchd.js in a real browser (issue 42): Debian's chromium, headless, driven by
chromium-driver through python3-selenium, against the daemon (TOUCHD_BINARY, default
.build/debug/touchd) replaying a capture made here.

One scenario, checked from every side:
- the kiosk page (python/tests/web/index.html, served by touchd-web --static) binds a menu of
  buttons, a card with a swipe and a long-press recognizer, a Tip button and a scrolling list
  (window "menu") and a private PIN pad (window "pin");
- a watcher page only subscribes; a raw WebSocket client that never reads floods the daemon;
- a native client (touchd_client) is the oracle of what the daemon published, and `touchd
  replay` of the same capture with the page's windows (a scene script) the oracle of all of it,
  the private pad's messages included;
- the capture taps "Coffee", pulls the list past its top, drags it up and lets it fling, swipes
  and holds the card, taps 2 5 8 0 on the pad, then a row of the list; the row makes the page
  slide Tip 120 px right by a CSS transition, and the capture taps where Tip was and where it is.
Then: the kiosk page's onControl, onGesture and onScroll got every control, gesture and scroll
message of both its windows, in order, as `touchd replay` prints them; the watcher page got the
menu's and nothing of the pad, exactly what the native client got; Coffee's handler ran once,
the card's element got each of its gesture messages as a touchd:gesture event; the list's
scrollTop, read in each touchd:scroll event, is each scroll message's offset, and the tapped row
is the one under the finger in the list's content as it rests; the tap where Tip was hit no
view and the one where it slid pressed it (the transition, started outside the bound element,
was measured every frame); the PIN digits reached the kiosk page; a page from another origin, a
page without the token and a client of another uid were refused with 403 and logged; the
watcher's pings stayed fast while the flooder did not read. Then DOM changes (a button added,
one moved 50 times in one task, one removed) are one update whose result the daemon accepted as
laid out, a CSS animation started by a style sheet is followed to its end, the page's own
scrolling of the list reaches the daemon as the scroll view's boundsOrigin, 1,000 rows more go
in an update split to fit the daemon's line limit, and after touchd-web restarts the page is
back with its windows attached again. Screenshots go to .build/artefacts/web/.

Needs /usr/bin/python3 with python3-websockets and python3-selenium (scripts/deps test); it
skips, saying why, under a Python without them.
"""
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))     # python/tests: support
from support import PYTHON_DIR, REPO, TempDirTest, wait_for  # noqa: E402
from webrig import NEWER_MISSING, WEB, Launcher, Processes, UnderNewerWebsockets, chromium, free_port  # noqa: E402

try:
    importlib.import_module("websockets")   # touchd-web needs it (python3-websockets)
    importlib.import_module("selenium.webdriver")
    MISSING = None
except ImportError as e:     # another Python than Debian's (scripts/test runs this with /usr/bin/python3)
    MISSING = str(e)

from touchd_client import TouchdClient, TouchdError  # noqa: E402

BINARY = os.path.abspath(os.path.join(REPO, os.environ.get("TOUCHD_BINARY", ".build/debug/touchd")))
PAGE_DIR = os.path.join(PYTHON_DIR, "tests", "web")
ARTEFACTS = os.path.join(REPO, ".build", "artefacts", "web")
TOKEN = "k1osk-t0ken"
def config(dpr):
    """The daemon's screen: the page's 800x480 CSS px viewport in device pixels (output points)."""
    return {"screen": {"width": 800 * dpr, "height": 480 * dpr}, "windows": []}

# Where the page's elements are (index.html, viewport 800x480 at the output's origin, dpr 1).
COFFEE = (120, 60)
LIST_DRAG = [(380, 400 - i * 12.5) for i in range(21)]         # 250 points up over 20 frames
PULL = [(380, 100 + i * 10) for i in range(13)]                 # 120 points down from the top: past its edge
KEYS = {"1": (578, 58), "2": (660, 58), "5": (660, 158), "8": (660, 258), "0": (660, 358)}
PIN = "2580"
ROW_TAP = (380, 240)        # after the fling: a row of the list where it rests
LIST_TOP, ROW_HEIGHT = 20 + 2, 60   # the list's content starts inside its 2 px border; 60 px rows
CARD_SWIPE = [(40 + i * 20, 353) for i in range(7)]             # 120 points right in 0.1 s: a swipe
CARD_HOLD = (120, 353)                                          # held 0.7 s: a long press
TIP_BEFORE, TIP_AFTER = (70, 425), (190, 425)   # the Tip button's centre before and after it slides 120 px right
# Tip slides from 6.3 s to 6.7 s (the row's tap at 6.0 s, the page's 300 ms timer, a 0.4 s
# transition); then a tap where it was (no view: the root passes it through) and where it is.
TIP_TAPS = (7.6, 7.9)
PUBLIC_TOUCHES = 12 - len(PIN)   # the capture's touches a native client sees: all but the private pad's


def evemu_capture(path):
    """An evemu 1.3 recording on the demo's 800x480 virtual touchscreen (its description copied
    from captures/demo-taps-and-drag.events): Coffee tapped at 0.5 s; the list pulled 120 points
    down from its top at 0.9 s (past its edge: it springs back), then dragged 250 points up from
    2.3 s in 16 ms steps and let go moving (a fling); the card swiped right at 3.0 s and held from
    3.4 s to 4.1 s; the PIN's keys tapped from 4.4 s, then a row of the list where the fling left
    it (6.0 s); then, once the Tip button has slid right, a tap where it was and one where it is."""
    with open(os.path.join(REPO, "captures", "demo-taps-and-drag.events"), encoding="utf-8") as f:
        header = [line for line in f if not line.startswith("E:")]
    events = []

    def frame(t, *pairs):
        for code, value in pairs:
            events.append("E: %.6f 0003 %04x %d\n" % (t, code, value))
        events.append("E: %.6f 0000 0000 0\n" % t)

    tid = [0]

    def tap(t, x, y, hold=0.08):
        tid[0] += 1
        frame(t, (0x2f, 0), (0x39, tid[0]), (0x35, x), (0x36, y))
        frame(t + hold, (0x39, -1))

    def stroke(t, points, rest):
        """A finger down at points[0], one frame every 16 ms through the others, then resting for
        `rest` seconds (none: it lifts moving, a fling) before it lifts."""
        tid[0] += 1
        frame(t, (0x2f, 0), (0x39, tid[0]), (0x35, round(points[0][0])), (0x36, round(points[0][1])))
        for (px, py), (x, y) in zip(points, points[1:]):
            t += 0.016
            frame(t, *[(code, round(v)) for code, v, was in ((0x35, x, px), (0x36, y, py)) if round(v) != round(was)])
        if rest:
            t += rest
            frame(t, (0x36, round(points[-1][1])))
        frame(t + 0.016, (0x39, -1))

    frame(0.0, (0x2f, 0))          # the replay's time zero: nothing touches yet
    tap(0.5, *COFFEE)
    stroke(0.9, PULL, 0.1)         # rests before lifting: no fling, it springs back
    stroke(2.3, LIST_DRAG, 0)      # lifts moving: a fling
    stroke(3.0, CARD_SWIPE, 0)
    tap(3.4, *CARD_HOLD, hold=0.7)
    t = 4.4
    for digit in PIN:
        tap(t, *KEYS[digit])
        t += 0.3
    tap(t + 0.4, *ROW_TAP)
    for at, point in zip(TIP_TAPS, (TIP_BEFORE, TIP_AFTER)):
        tap(at, *point)
    frame(TIP_TAPS[-1] + 0.5, (0x2f, 0))
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(header + events)


DOM_CHANGES = """
const menu = document.getElementById("menu");
const juice = document.createElement("button");
juice.className = "button"; juice.textContent = "Juice"; juice.style.top = "220px";
juice.dataset.touchdView = "juice"; juice.dataset.touchdControl = "button";
menu.insertBefore(juice, document.getElementById("list"));
const tea = document.querySelector("[data-touchd-view=tea]");
for (let i = 0; i < 50; i++) tea.style.left = (20 + i) + "px";
tea.style.left = "40px";
document.querySelector("[data-touchd-view=water]").remove();
"""

BURST = """
const done = arguments[arguments.length - 1];
const tea = document.querySelector("[data-touchd-view=tea]");
const before = menuBinding.updates;
let frames = 0, running = true;
const count = () => { if (running) { frames += 1; requestAnimationFrame(count); } };
requestAnimationFrame(count);
(async () => {
  for (let i = 0; i < 40; i++) { await new Promise((r) => setTimeout(r, 2)); tea.style.left = (20 + i) + "px"; }
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  running = false;
  done([frames, menuBinding.updates - before]);
})();
"""

ANIMATE = """
const sheet = document.createElement("style");
sheet.textContent = "@keyframes nudge { to { transform: translateX(100px) scale(1.1); } } " +
  "body.nudge [data-touchd-view=juice] { animation: nudge 0.3s linear forwards; } " +
  "@keyframes lower { to { transform: translateY(10px); } } body.nudge { animation: lower 0.3s linear forwards; }";
document.head.appendChild(sheet);
requestAnimationFrame(() => requestAnimationFrame(() => document.body.classList.add("nudge")));
"""

MORE_ROWS = """
const list = document.getElementById("list");
for (let i = 30; i < 1030; i++) {
  const row = document.createElement("div");
  row.className = "row"; row.textContent = `Row ${i}`; row.dataset.touchdView = `row${i}`;
  list.appendChild(row);
}
"""

RAW_CLIENT = r"""
import asyncio, sys, websockets
async def main():
    try:
        async with websockets.connect(sys.argv[1], origin=sys.argv[2], subprotocols=[sys.argv[3]], open_timeout=5):
            print("accepted")
    except websockets.exceptions.InvalidStatusCode as e:
        print("refused", e.status_code)
    except Exception as e:
        print("failed", type(e).__name__, e)
asyncio.run(main())
"""

FLOODER = r"""
import asyncio, json, socket, sys, websockets
async def main():
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)      # reads nothing: the window closes fast
    s.connect(("127.0.0.1", int(sys.argv[2])))
    ws = await websockets.connect(sys.argv[1], sock=s, origin=sys.argv[3], subprotocols=[sys.argv[4]],
                                  max_queue=1, read_limit=4096)
    print("connected", flush=True)
    sent = 0
    try:
        while True:                       # requests whose replies it never reads
            await asyncio.wait_for(ws.send(json.dumps({"stats": True})), 30)
            sent += 1
            if sent % 200 == 0:
                await asyncio.sleep(0.01)
    except Exception as e:
        print("stopped after", sent, type(e).__name__, flush=True)
asyncio.run(main())
"""


def view_ids(view):
    yield view["id"]
    for sub in view.get("subviews", []):
        yield from view_ids(sub)


def native_all(messages):
    return [m for m in messages if m["type"] in ("control", "gesture", "scroll")]


@unittest.skipIf(MISSING, "the browser test needs Debian's python3-websockets and python3-selenium: %s" % MISSING)
@unittest.skipUnless(os.path.exists(BINARY), "no touchd binary at %s (TOUCHD_BINARY)" % BINARY)
class BrowserScenario(Launcher, Processes, TempDirTest):
    """The scenario; Browser runs it at 1 and 2 device pixels a CSS pixel on Debian's websockets,
    BrowserUnderWebsockets15 at 1 on websockets 15 (the asyncio API)."""

    def read_log(self, name):
        with open(self.path(name + ".log"), encoding="utf-8", errors="replace") as f:
            return f.read()

    def browser(self):
        return chromium(self)

    dpr = 1

    def metrics(self, driver):
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": 800, "height": 480, "deviceScaleFactor": self.dpr, "mobile": False})

    def state(self, driver):
        return driver.execute_script("return document.body && document.body.dataset.state")

    def js_log(self, driver):
        return driver.execute_script("return window.touchdLog")

    def open_page(self, driver, url, new_tab=True):
        if new_tab:
            driver.switch_to.new_window("tab")
        self.metrics(driver)
        driver.get(url)
        wait_for(lambda: self.state(driver) in ("ready", "refused"), 15, "%s to connect or be refused" % url)
        return driver.current_window_handle

    def replayed(self, capture, windows, tip_frame):
        """What `touchd replay` prints for the capture with the page's windows as a scene script:
        attached before it starts, Tip moved to where it slid before the taps by it."""
        scene = self.path("scene.ndjson")
        with open(scene, "w", encoding="utf-8") as f:
            for window in windows:
                f.write(json.dumps({"time": 0, "client": "kiosk", "request": {"attach": window}}) + "\n")
            f.write(json.dumps({"time": TIP_TAPS[0] - 0.1, "client": "kiosk", "request": {"update": {
                "window": "menu", "changes": [{"view": "tip", "set": {"frame": tip_frame}}]}}}) + "\n")
        r = subprocess.run([BINARY, "replay", "--config", self.path("config.json"), "--scene", scene, capture],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        return [json.loads(line) for line in r.stdout.splitlines()]

    def assertSameMessages(self, live, offline, who):
        """The same messages in the same order; the live ones on CLOCK_MONOTONIC (a paced replay:
        each event's due time), `touchd replay`'s on the capture's clock — one shift for all. A
        private window's touch ids carry its owner's client number, which differs between the
        two (the page is the daemon's third client, the script's "kiosk" its first): touch ids
        are compared by first appearance (the same touch has the same id in each)."""
        def plain(messages):
            ids = {}
            number = lambda t: ids.setdefault(t, len(ids) + 1)  # noqa: E731
            out = []
            for m in messages:
                m = {k: v for k, v in m.items() if k != "time"}
                if "touch" in m:
                    m["touch"] = number(m["touch"])
                if "touches" in m:
                    m["touches"] = [number(t) for t in m["touches"]]
                out.append(m)
            return out
        self.assertEqual(len(live), len(offline), who)
        self.assertEqual(plain(live), plain(offline), who)
        shifts = [a["time"] - b["time"] for a, b in zip(live, offline)]
        self.assertLess(max(shifts) - min(shifts), 2.5e-6, "%s: the times are not the capture's, shifted" % who)

    def list_rows(self, driver):
        window = driver.execute_script("return touchd.windows.get('menu')")
        if not window:          # detached (a refused update makes bind attach it again)
            return []
        return [v for v in window["view"]["subviews"] if v["id"] == "list"][0].get("subviews", [])


    def scenario(self, dpr):
        self.dpr = dpr
        shot = lambda name: os.path.join(ARTEFACTS, "%s%s%s.png" % (  # noqa: E731
            name, "" if dpr == 1 else "-dpr%d" % dpr, "-websockets15" if self.web_python else ""))
        os.makedirs(ARTEFACTS, exist_ok=True)
        capture, sock = self.path("web.events"), self.path("touchd.sock")
        evemu_capture(capture)
        with open(self.path("config.json"), "w") as f:
            json.dump(config(dpr), f)
        with open(self.path("token"), "w") as f:
            f.write(TOKEN + "\n")
        self.start([BINARY, "run", "--config", self.path("config.json"), "--socket", sock, "--replay", capture,
                    "--wait-clients", "4"], "daemon")
        wait_for(lambda: os.path.exists(sock), 10, "the daemon's socket")
        port = free_port()
        base = "http://127.0.0.1:%d" % port
        web = self.start(self.web_argv() + ["--socket", sock, "--listen", "127.0.0.1:%d" % port, "--static", PAGE_DIR,
                                     "--token-file", self.path("token"), "--stall", "3"], "web")
        wait_for(lambda: "listening" in self.read_log("web"), 10, "touchd-web to listen")
        sys.stderr.write("\n  " + self.read_log("web").splitlines()[0])
        self.check_api(self.read_log("web").splitlines()[0])
        socket_url = "ws://127.0.0.1:%d/socket" % port

        # The oracle: a native client of the daemon, collecting everything it publishes.
        native, got = TouchdClient(sock), []
        native.on_message(got.append)     # every message that is not a reply: frames, controls, scrolls
        native.connect()
        self.addCleanup(native.close)
        native.subscribe(types=["frame", "control", "scroll", "gesture"])
        stop_native = threading.Event()
        reader = threading.Thread(target=lambda: [native.poll(0.05) for _ in iter(stop_native.is_set, True)], daemon=True)

        # A client that floods and never reads (client 2 of the daemon's 4).
        self.start(["/usr/bin/python3", "-c", FLOODER, socket_url, str(port), base, "touchd." + TOKEN], "flooder")
        wait_for(lambda: "connected" in self.read_log("flooder"), 10, "the flooder to connect")

        driver = self.browser()
        self.metrics(driver)
        driver.get(base + "/?role=kiosk#token=" + TOKEN)
        wait_for(lambda: self.state(driver) in ("ready", "refused"), 15, "the kiosk page")
        kiosk_tab = driver.current_window_handle
        self.assertEqual(self.state(driver), "ready", self.js_log(driver)["errors"])
        # The page's windows as the daemon has them when the replay starts (the scene for
        # `touchd replay`, the oracle of the private window's messages too).
        time.sleep(0.3)
        windows = driver.execute_script("return [...touchd.windows.values()]")
        self.assertEqual([w["id"] for w in windows], ["menu", "pin"])
        # The watcher (client 4) makes the daemon start the replay.
        driver.switch_to.new_window("tab")
        self.metrics(driver)
        watcher_tab = driver.current_window_handle
        driver.get(base + "/?role=watcher#token=" + TOKEN)
        started = time.monotonic()
        wait_for(lambda: self.state(driver) == "ready", 15, "the watcher page")
        reader.start()
        driver.execute_script("window.pingAgain(20)")
        driver.switch_to.window(kiosk_tab)
        # The pull past the list's top: a picture of the bounce (the rows moved down, row 0 below the edge).
        wait_for(lambda: driver.execute_script(
            "return touchdLog.scrollTops.some(([o]) => o < -40 * devicePixelRatio)"), 10, "the pull past the top")
        driver.save_screenshot(shot("bounce"))
        # The replay lasts about 8 s; its last touch (the second tap by the Tip button) ends it.
        # Public touch ids count the touches a client may see (not the pad's), from 1.
        wait_for(lambda: any(t["id"] == PUBLIC_TOUCHES and t["phase"] in ("ended", "cancelled")
                             for m in list(got) if m["type"] == "frame" for t in m["touches"]),
                 30, "the capture's last touch to end")
        time.sleep(0.5)
        kiosk = self.js_log(driver)
        driver.save_screenshot(shot("kiosk"))
        stop_native.set()
        reader.join(5)

        # Every control, gesture and scroll message of the capture, in order: what `touchd replay`
        # prints for the same capture and scene (the page's windows as attached, Tip where it slid
        # to before the taps by it). The kiosk page's onControl, onGesture and onScroll saw all of
        # them, its private pad's included; the watcher page only the menu's, and exactly what the
        # native client got (times and sequence numbers too).
        points = lambda *r: [v * dpr for v in r]  # noqa: E731  CSS px to output points
        replayed = self.replayed(capture, windows, points(140, 400, 100, 50))
        private = set(view_ids(windows[1]["view"]))
        mine = [m for m in replayed if m["type"] in ("control", "gesture", "scroll")]
        public = [m for m in mine if (m.get("control") or m.get("view")) not in private]
        self.assertGreater(len(mine), len(public), "the pad's controls are in the replay")
        gestures = [m for m in mine if m["type"] == "gesture"]
        self.assertEqual(sorted({(m["recognizer"], m["state"]) for m in gestures}),     # the list's own pan too
                         [("cardHold", "began"), ("cardHold", "ended"), ("cardHold", "failed"),
                          ("cardSwipe", "failed"), ("cardSwipe", "recognized"),
                          ("list.pan", "began"), ("list.pan", "changed"), ("list.pan", "ended"), ("list.pan", "failed")])
        self.assertSameMessages(kiosk["received"], mine, "the kiosk page")
        self.assertSameMessages(native_all(got), public, "the native client")
        # The card's element got each gesture message as a touchd:gesture event.
        self.assertEqual(kiosk["gestures"], [[m["recognizer"], m["state"]] for m in gestures if m["view"] == "card"])

        # Coffee's handler ran once, then Tip's; no other button's did.
        self.assertEqual(kiosk["pressed"], ["Coffee", "Tip"])
        self.assertEqual(driver.execute_script("return document.querySelectorAll('.button.pressed').length"), 1)
        # Tip slid 120 px right by a CSS transition that nothing under the bound element started
        # (a class on <body>): measured every frame while it ran, so its view went with it — the
        # tap where it was hit none of the page's views, the tap where it is now pressed it.
        began = {t["id"]: t["view"] for m in got if m["type"] == "frame" for t in m["touches"] if t["phase"] == "began"}
        # (A touch on no view of the window lands on the window itself: its root passes it through.)
        self.assertEqual([began[PUBLIC_TOUCHES - 1], began[PUBLIC_TOUCHES]], ["menu", "tip"])
        tip = [v for v in driver.execute_script("return touchd.windows.get('menu')")["view"]["subviews"] if v["id"] == "tip"]
        self.assertEqual(tip[0]["frame"], points(140, 400, 100, 50))
        updates = driver.execute_script("return menuBinding.updates")
        self.assertGreaterEqual(updates - kiosk["updatesBeforeTip"], 2, "updates while it moved: %d" % updates)
        # The list followed touchd's scroll view, message by message, as the native client saw it.
        offsets = [m["offset"][1] for m in got if m.get("type") == "scroll" and m.get("view") == "list"]
        self.assertGreater(len(offsets), 10, "the drag scrolled the list")
        self.assertGreater(offsets[-1], 250 * dpr, "the list went on after the lift (a fling)")
        self.assertEqual([round(o, 3) for o, _, _ in kiosk["scrollTops"]], [round(o, 3) for o in offsets])
        self.assertLess(min(offsets), -10 * dpr, "the pull went past the top edge (a bounce)")
        self.assertEqual(offsets[[i for i, o in enumerate(offsets) if o < 0][-1] + 1], 0, "it sprang back to 0")
        for offset, top, row0 in kiosk["scrollTops"]:
            # scrollTop is the offset as far as the element can scroll; the rest (a bounce) moves
            # the content: row 0 is drawn at -offset in the list, in range or past it.
            self.assertLess(abs(top - max(offset, 0) / dpr), 1.0, "scrollTop %s for offset %s" % (top, offset))
            self.assertLess(abs(row0 + offset / dpr), 1.0, "row 0 drawn at %s for offset %s" % (row0, offset))
        final_top = driver.execute_script("return document.getElementById('list').scrollTop")
        self.assertLess(abs(final_top - offsets[-1] / dpr), 1.0)
        # The row under the last tap, in the list's content as it rests: views in content coordinates.
        self.assertEqual(kiosk["rows"], ["row%d" % int((offsets[-1] / dpr + ROW_TAP[1] - LIST_TOP) // ROW_HEIGHT)])
        # The PIN reached the page that owns the pad.
        self.assertEqual(kiosk["pin"], PIN)
        self.assertEqual(kiosk["errors"], [])

        # The watcher saw the menu (public) and nothing of the pad (private).
        driver.switch_to.window(watcher_tab)
        watcher = self.js_log(driver)
        self.assertSameMessages(watcher["received"], public, "the watcher page")
        self.assertEqual(native_all(got), watcher["received"], "the watcher page and the native client")
        driver.save_screenshot(shot("watcher"))
        seen = json.dumps(watcher["messages"])
        self.assertIn('"control": "coffee"'.replace(": ", ":"), seen.replace(": ", ":"))
        for word in ["pin", "key2", "key5", "key8", "key0"]:
            self.assertNotIn('"%s"' % word, seen, "the watcher saw the private pad's %s" % word)
        native_seen = json.dumps(got)
        self.assertNotIn('"key2"', native_seen, "the native client saw the private pad")
        self.assertIn('"key2"', json.dumps(kiosk["messages"]))     # ...which the kiosk page did get
        # The flooder never read; the watcher's round trips through the bridge stayed short.
        pings = watcher["pings"]
        self.assertEqual(len(pings), 20, watcher["errors"])
        # A bridge that waited for the flooder would hold every page for the --stall time (3 s).
        self.assertLess(max(pings), 1.0, "pings %s" % pings)
        sys.stderr.write("\n  browser test (dpr %d): %d scroll messages, watcher ping p50 %.1f ms max %.1f ms, %.1f s\n"
                         % (dpr, len(offsets), sorted(pings)[10] * 1000, max(pings) * 1000, time.monotonic() - started))

        # Until Tip slid, touchd's scrolling and the handlers' style changes moved no view (an
        # update of the list's boundsOrigin would have stopped the fling): the only updates sent
        # were the card's label, read from its text, which the page changed at each gesture
        # message (what the screen reader would say of it, docs/web.md), each the text shown
        # then; the pad sent none.
        driver.switch_to.window(kiosk_tab)
        early = kiosk["updates"][:kiosk["updatesBeforeTip"]]
        self.assertEqual([id for id, _ in kiosk["updates"]].count("pin"), 0)
        self.assertEqual({id for id, _ in early}, {"menu"})
        shown = [" ".join(g) for g in kiosk["gestures"]]
        labels = [c["set"]["accessibility"]["label"] for _, changes in early for c in changes]
        self.assertEqual([c for _, changes in early for c in changes],
                         [{"view": "card", "set": {"accessibility": {"label": label}}} for label in labels])
        self.assertEqual(labels[-1], shown[-1])
        self.assertTrue(set(labels) <= set(shown), labels)
        self.assertEqual(driver.execute_script("return pinBinding.updates"), 0)
        before = driver.execute_script("return menuBinding.updates")
        # DOM changes: a button added before the list, one moved, one removed — a burst of 50
        # changes in one task is one update — and the daemon's accepted copy has them as laid out.
        driver.execute_script(DOM_CHANGES)
        wait_for(lambda: driver.execute_script("return menuBinding.updates") > before and driver.execute_script(
            "return !document.querySelector('[data-touchd-view=water]')"), 5, "the DOM changes' update")
        time.sleep(0.3)
        menu = driver.execute_script("return touchd.windows.get('menu')")
        self.assertEqual(driver.execute_script("return menuBinding.updates"), before + 1)
        root = menu["view"]
        self.assertEqual([v["id"] for v in root["subviews"]], ["coffee", "tea", "card", "tip", "juice", "list"])
        frames = {v["id"]: v["frame"] for v in root["subviews"]}
        self.assertEqual(frames["juice"], points(20, 220, 200, 80))
        self.assertEqual(frames["tea"], points(40, 120, 200, 80))
        self.assertEqual(frames["list"], points(262, 22, 240, 440))     # its padding box: inside the 2 px border
        self.assertEqual(root["frame"], points(0, 0, 520, 480))
        self.assertEqual(root["hitTest"], "passthrough")
        self.assertEqual(menu["frame"], points(0, 0, 520, 480))

        # Changes over many tasks: at most one update per animation frame (plus the one in flight).
        frames, updates = driver.execute_async_script(BURST)
        self.assertGreater(frames, 2)
        self.assertLessEqual(updates, frames + 1, "%d updates in %d frames" % (updates, frames))
        self.assertGreaterEqual(updates, 1)
        time.sleep(0.3)
        tea = [v for v in driver.execute_script("return touchd.windows.get('menu')")["view"]["subviews"] if v["id"] == "tea"]
        self.assertEqual(tea[0]["frame"], points(59, 120, 200, 80))     # the last of the burst's moves

        # A CSS animation moves Juice 100 px right and scales it by 1.1 about its centre, and
        # another lowers the whole page (<body>, above both bound elements) by 10 px, started by a
        # style sheet and a class on <body> (nothing under the bindings changes, no observer sees a
        # transform): measured every frame while they run, so the daemon has Juice where it ends,
        # as its bounding box (220 x 88 around the moved centre) in its window, and both windows
        # 10 px lower.
        driver.execute_script(ANIMATE)
        time.sleep(0.8)
        menu = driver.execute_script("return touchd.windows.get('menu')")
        juice = [v for v in menu["view"]["subviews"] if v["id"] == "juice"]
        self.assertEqual(juice[0]["frame"], points(110, 216, 220, 88))
        self.assertEqual([menu["frame"], driver.execute_script("return touchd.windows.get('pin')")["frame"]],
                         [points(0, 10, 520, 480), points(540, 30, 240, 400)])

        # The page scrolls the list itself (a script): touchd's scroll view is told, as its boundsOrigin.
        before = driver.execute_script("return menuBinding.updates")
        driver.execute_script("document.getElementById('list').scrollTop = 120")
        wait_for(lambda: driver.execute_script("return menuBinding.updates") > before, 5, "the page's own scrolling sent")
        time.sleep(0.3)
        listed = [v for v in driver.execute_script("return touchd.windows.get('menu')")["view"]["subviews"] if v["id"] == "list"][0]
        self.assertEqual(listed["boundsOrigin"], points(0, 120))

        # A thousand rows more: an update longer than a request line, sent in pieces that fit.
        driver.execute_script(MORE_ROWS)
        wait_for(lambda: len(self.list_rows(driver)) == 1030, 10, "the list's 1,030 rows in the daemon's copy")
        rows = self.list_rows(driver)
        self.assertEqual(rows[-1], {"id": "row1029", "frame": points(0, 1029 * 60, 240, 60), "hidden": False,
                                    "accessibility": {"label": "Row 1029", "traits": ["staticText"]}})
        self.assertEqual(driver.execute_script("return touchdLog.errors"), [])

        # touchd-web restarts: the page reconnects and attaches its windows again, as they are now.
        web.terminate()
        try:
            web.wait(10)
        except subprocess.TimeoutExpired:
            self.fail("touchd-web did not stop within 10 s of SIGTERM; its log:\n" + self.read_log("web")[-3000:])
        self.start(self.web_argv() + ["--socket", sock, "--listen", "127.0.0.1:%d" % port, "--static", PAGE_DIR,
                               "--token-file", self.path("token")], "web2")
        wait_for(lambda: driver.execute_script("return window.touchdConnects") == 2, 15, "the kiosk page to reconnect")
        probe = TouchdClient(sock)
        probe.connect()
        for taken in ["juice", "row1029"]:      # the latter in the last piece of a split attach
            try:
                probe.attach({"id": taken, "frame": [0, 0, 10, 10]})
                self.fail("the id %s is free: the page did not attach its window again" % taken)
            except TouchdError as e:
                self.assertIn('"%s"' % taken, str(e))
        self.assertEqual(probe.attach({"id": "probe", "frame": [0, 0, 10, 10]})["type"], "attached")
        probe.close()

        # Refusals: another origin, no token, another uid — each 403 and logged.
        other = self.path("other")
        os.makedirs(other)
        shutil.copy(os.path.join(PAGE_DIR, "index.html"), other)
        shutil.copy(os.path.join(PYTHON_DIR, "touchd_web", "touchd.js"), other)
        other_port = free_port()
        self.start(["/usr/bin/python3", "-m", "http.server", "--bind", "127.0.0.1", "-d", other, str(other_port)], "other")
        wait_for(lambda: "Serving" in self.read_log("other"), 10, "the other origin's server")
        self.open_page(driver, "http://127.0.0.1:%d/?role=watcher&socket=%s#token=%s" % (other_port, socket_url, TOKEN))
        self.assertEqual(self.state(driver), "refused")
        self.open_page(driver, base + "/?role=watcher")
        self.assertEqual(self.state(driver), "refused")
        driver.save_screenshot(shot("refused"))
        nobody = subprocess.run(["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups",
                                 "/usr/bin/python3", "-c", RAW_CLIENT, socket_url, base, "touchd." + TOKEN],
                                capture_output=True, text=True, timeout=30, cwd="/")
        self.assertEqual(nobody.stdout.strip(), "refused 403", nobody.stderr)
        same_user = subprocess.run(["/usr/bin/python3", "-c", RAW_CLIENT, socket_url, base, "touchd." + TOKEN],
                                   capture_output=True, text=True, timeout=30)
        self.assertEqual(same_user.stdout.strip(), "accepted", same_user.stderr)
        web_log = self.read_log("web") + self.read_log("web2")
        self.assertIn("403 origin 'http://127.0.0.1:%d' is not allowed" % other_port, web_log)
        self.assertIn("403 no token", web_log)
        self.assertIn("403 the loopback socket belongs to uid 65534", web_log)
        self.assertIn("dropped: it took nothing for 3 s", web_log)


class Browser(BrowserScenario):
    def test_kiosk_in_chromium(self):
        self.scenario(1)

    def test_kiosk_at_two_device_pixels_a_css_pixel(self):
        # The same page and capture on a 1600x960 output: every view at twice its CSS rectangle,
        # each scrollTop half of touchd's offset.
        self.scenario(2)


@unittest.skipIf(NEWER_MISSING, NEWER_MISSING)
class BrowserUnderWebsockets15(UnderNewerWebsockets, BrowserScenario):
    """The kiosk with touchd-web on websockets 15 (Debian 13's), its asyncio API."""

    def test_kiosk_in_chromium(self):
        self.scenario(1)


@unittest.skipUnless(os.path.exists(BINARY), "no touchd binary at %s (TOUCHD_BINARY)" % BINARY)
class WebCommand(TempDirTest):
    """`touchd web` runs the touchd-web of the build tree (python/touchd-web) with its options as
    given, and says where it looked when there is none."""

    def run_touchd(self, binary, *args, env=None):
        return subprocess.run([binary, "web", *args], capture_output=True, text=True, timeout=30, env=env)

    def test_runs_touchd_web_with_the_options(self):
        r = self.run_touchd(BINARY, "--listen", "bad", "--socket", "/nowhere")
        self.assertEqual(r.returncode, 2, r.stderr)       # touchd-web's own check of --listen
        self.assertEqual(r.stderr, "touchd-web: --listen 'bad': expected HOST:PORT (e.g. 127.0.0.1:8470, [::1]:8470)\n")
        if not MISSING:
            r = self.run_touchd(BINARY, "--version")
            self.assertRegex(r.stdout, r"^touchd-web [0-9.]+ \(websockets [0-9.]+, (legacy|asyncio) API\)\n$")

    def test_checks_its_own_options(self):
        r = self.run_touchd(BINARY, "--listen")
        self.assertEqual((r.returncode, r.stderr.splitlines()[0]), (2, "touchd web: --listen needs a value"))
        r = self.run_touchd(BINARY, "extra")
        self.assertEqual((r.returncode, r.stderr.splitlines()[0]), (2, 'touchd web: takes no operands, got "extra"'))
        self.assertIn("--token-file FILE", self.run_touchd(BINARY, "--help").stdout)

    def test_without_touchd_web(self):
        alone = self.path("touchd")
        shutil.copy(BINARY, alone)
        r = self.run_touchd(alone, "--version", env={"PATH": self.tmp})
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, "touchd web: no touchd-web beside %s, in its build tree (python/touchd-web) or on "
                                   "PATH; install the touchd-web package\n" % os.path.realpath(alone))
        os.symlink(WEB, self.path("touchd-web"))                   # beside the binary
        r = self.run_touchd(alone, "--listen", "bad", env={"PATH": "/nonexistent"})
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("touchd-web: --listen 'bad'", r.stderr)


TSC = shutil.which("tsc")
NODE = shutil.which("node") or shutil.which("nodejs")


class Types(unittest.TestCase):
    """touchd.d.ts types what touchd.js exports (every exported name), and types it strictly:
    usage.ts, the documented API as a page uses it, checks with Debian's node-typescript; wrong.ts
    (a rotation of 45, a bind without its window) does not."""

    def test_every_export_is_typed(self):
        with open(os.path.join(PYTHON_DIR, "touchd_web", "touchd.js"), encoding="utf-8") as f:
            js = set(re.findall(r"^export (?:class|function|const) (\w+)", f.read(), re.M))
        with open(os.path.join(PYTHON_DIR, "touchd_web", "touchd.d.ts"), encoding="utf-8") as f:
            dts = set(re.findall(r"^export (?:class|function|const) (\w+)", f.read(), re.M))
        self.assertEqual(js, {"TouchdError", "ConnectionLost", "applyChanges", "attachRequests", "updateRequests",
                              "TouchdClient", "Binding", "accessibilityOf"})
        self.assertEqual(dts, js)

    @unittest.skipUnless(NODE, "no node (Debian's nodejs, which node-typescript brings)")
    def test_a_window_too_big_for_a_line_is_split(self):
        # split.mjs: 1,500 rows with labels (about 300 kB) attached in pieces of at most 65,536
        # bytes that give the window back, hidden until the last; an update re-adding the list too.
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        shutil.copy(os.path.join(PYTHON_DIR, "touchd_web", "touchd.js"), os.path.join(tmp, "touchd.mjs"))
        shutil.copy(os.path.join(PAGE_DIR, "split.mjs"), tmp)
        r = subprocess.run([NODE, os.path.join(tmp, "split.mjs"), "65536"], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = json.loads(r.stdout)
        self.assertEqual(out["kinds"], ["attach", "update"])
        self.assertGreater(out["requests"], 3)
        self.assertLessEqual(out["longest"], 65536)
        self.assertTrue(out["shellHidden"])
        self.assertTrue(out["same"])
        self.assertGreater(out["updates"], 3)
        self.assertLessEqual(out["updateLongest"], 65536)
        self.assertTrue(out["updateSame"])
        self.assertEqual(out["small"], 1)
        # A view's accessibility order (ids of its subtree) goes once the views it names are sent.
        self.assertTrue(out["ordersNameLiving"])
        self.assertTrue(out["updateOrdersNameLiving"])

    @unittest.skipUnless(NODE, "no node (Debian's nodejs, which node-typescript brings)")
    def test_the_client_against_a_fake_socket(self):
        # client.mjs: replies matched by line (out of order, refusals, the greeting snapshot that
        # is no subscribe's reply), touches ended by an overflow's snapshot and by a closed
        # connection, requests while disconnected, the reconnect's subscribe and re-attach of the
        # copy (accepted changes and scroll offsets applied), the detached/updated notices.
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        shutil.copy(os.path.join(PYTHON_DIR, "touchd_web", "touchd.js"), os.path.join(tmp, "touchd.mjs"))
        shutil.copy(os.path.join(PAGE_DIR, "client.mjs"), tmp)
        r = subprocess.run([NODE, os.path.join(tmp, "client.mjs")], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(sum(line.startswith("ok ") for line in r.stdout.splitlines()), 28, r.stdout)

    def tsc(self, name):
        return subprocess.run([TSC, "--strict", "--noEmit", "--target", "es2020", "--module", "es2020",
                               "--moduleResolution", "node", "--lib", "es2020,dom", name],
                              cwd=PAGE_DIR, capture_output=True, text=True, timeout=120)

    @unittest.skipUnless(TSC, "no tsc (Debian's node-typescript)")
    def test_typescript_checks_a_page_against_it(self):
        r = self.tsc("usage.ts")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        r = self.tsc("wrong.ts")
        self.assertEqual(r.returncode, 2, r.stdout)
        self.assertIn("wrong.ts(6,26): error TS2345: Argument of type '45'", r.stdout)
        self.assertIn("Property 'window' is missing", r.stdout)
        self.assertIn("wrong.ts(8,51): error TS2322: Type '\"textField\"' is not assignable to type 'Trait'", r.stdout)


if __name__ == "__main__":
    unittest.main()
