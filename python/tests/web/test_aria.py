"""A page read by its ARIA names on the glass (issue 46, item 5): headless Chromium on
python/tests/web/aria.html — an ordinary accessible page, no touchd accessibility markup — bound
with touchd.js, the daemon's screen reader on (`outputs[].screenReader: true`) replaying a capture
made here: a finger explores (down on the heading, held, then sliding onto the logo), swipes
right through the page, swipes up on two adjustable elements, swipes past the end and back,
double taps the focused link, touches and holds a button, double taps it (its modal dialog
opens), swipes into the dialog and back against its start, on to its button, scrubs (escape: the
page closes the dialog) and swipes on.

Checked: the window bind attached (what touchd.js derived from the page's names, roles and
states, key by key, against accname 1.2 and HTML-AAM by hand); the `speech` messages the page
got, in order, word for word — each checked by hand against the ARIA rules and the words
docs/accessibility.md gives VoiceOver (the reading order is the page's DOM order, not the
daemon's rows, which would read the German note before the link); the watcher page (another
client of the same user) got the same speech except the password field's, and nothing of its
characters; the page's slider took the arrow key touchd.js pressed and the native range stepped,
both values sent to the daemon; the link's click handler ran once and the button's once (its
touchd:primaryactiontriggered, from the synthesized tap; its DOM click never); while the dialog
(role=dialog, aria-modal) was open nothing else was read, and escape reached its key handler.
Then the page changes a label, aria-hidden, disabled and its own data-touchd-accessibility (one
update), the text of a description outside the bound element (one), <html lang> (one). About
20 s. Screenshots: .build/artefacts/web/aria.png (the end: the cursor on the heading, the last
words in the caption bar) and aria-dialog.png (the dialog open, the cursor on its button).
"""
import importlib
import json
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))     # python/tests: support
from support import REPO, TempDirTest, wait_for  # noqa: E402
from webrig import Launcher, Processes, chromium, free_port  # noqa: E402

try:
    importlib.import_module("websockets")   # touchd-web needs it (python3-websockets)
    importlib.import_module("selenium.webdriver")
    MISSING = None
except ImportError as e:     # another Python than Debian's (scripts/test runs this with /usr/bin/python3)
    MISSING = str(e)

BINARY = os.path.abspath(os.path.join(REPO, os.environ.get("TOUCHD_BINARY", ".build/debug/touchd")))
PAGE_DIR = os.path.dirname(os.path.abspath(__file__))
ARTEFACTS = os.path.join(REPO, ".build", "artefacts", "web")
TOKEN = "r3ader-t0ken"
CONFIG = {"outputs": [{"id": "main", "width": 800, "height": 480, "screenReader": True}], "windows": []}
PIN = "2580"
HINT = "Swipe up or down with one finger to adjust the value."

# Where aria.html's elements are (CSS px = output points: dpr 1, the viewport at the origin).
TITLE, LOGO, DAY = (100, 35), (690, 35), (340, 115)
SWIPE_Y = 360          # swipes and taps anywhere: here, over nothing of the page but the root


def capture(path):
    """An evemu 1.3 recording on the demo's 800x480 virtual touchscreen (its description copied
    from captures/demo-taps-and-drag.events): the screen reader's gestures, one finger each, in
    the timings docs/accessibility.md gives them (a swipe covers 120 points in 0.1 s; a tap
    lasts 0.06 s, the second of a double tap 0.12 s after the first lifts; an explore holds
    still 0.4 s, past a tap's 0.3 s)."""
    with open(os.path.join(REPO, "captures", "demo-taps-and-drag.events"), encoding="utf-8") as f:
        header = [line for line in f if not line.startswith("E:")]
    events = []
    tid = [0]

    def frame(t, *pairs):
        for code, value in pairs:
            events.append("E: %.6f 0003 %04x %d\n" % (t, code, value))
        events.append("E: %.6f 0000 0000 0\n" % t)

    def stroke(t, points, hold=0.0, step=0.016):
        """A finger down at points[0], held `hold` s, then one frame every `step` s through the
        others, lifted `step` s after the last; returns the time it lifted."""
        tid[0] += 1
        frame(t, (0x2f, 0), (0x39, tid[0]), (0x35, points[0][0]), (0x36, points[0][1]))
        t += hold
        for (px, py), (x, y) in zip(points, points[1:]):
            t += step
            frame(t, *[(code, v) for code, v, was in ((0x35, x, px), (0x36, y, py)) if v != was])
        t += step
        frame(t, (0x39, -1))
        return t

    def swipe(t, dx, dy):
        return stroke(t, [(400 + round(dx * i / 6), SWIPE_Y + round(dy * i / 6)) for i in range(7)])

    def scrub(t):
        """Two fingers 100 points apart, right 60 points, back, right again (three legs of 60
        points over 0.29 s: a Z), lifted together."""
        xs = [0, 12, 24, 36, 48, 60, 48, 36, 24, 12, 0, 12, 24, 36, 48, 60]
        frame(t, (0x2f, 0), (0x39, 100), (0x35, 350), (0x36, SWIPE_Y), (0x2f, 1), (0x39, 101), (0x35, 450), (0x36, SWIPE_Y))
        for x in xs[1:]:
            t += 0.018
            frame(t, (0x2f, 0), (0x35, 350 + x), (0x2f, 1), (0x35, 450 + x))
        t += 0.018
        frame(t, (0x2f, 0), (0x39, -1), (0x2f, 1), (0x39, -1))
        return t

    def double_tap(t):
        stroke(t, [(400, SWIPE_Y)], hold=0.06 - 0.016)
        return stroke(t + 0.18, [(400, SWIPE_Y)], hold=0.06 - 0.016)

    frame(0.0, (0x2f, 0))          # the replay's time zero: nothing touches yet
    # Explore: down on the heading, held, then sliding right onto the logo (40 frames).
    t = stroke(0.5, [(TITLE[0] + round((LOGO[0] - TITLE[0]) * i / 40), TITLE[1]) for i in range(41)], hold=0.4)
    for dx, dy in [(120, 0)] * 6 + [(0, -120), (120, 0), (0, -120)] + [(120, 0)] * 4 + [(-120, 0)]:
        t = swipe(t + 0.45, dx, dy)
    t = double_tap(t + 0.45)                                   # the link focused: activated
    t = stroke(t + 0.45, [DAY, DAY], hold=0.45)                # touch and hold on Day pass
    t = double_tap(t + 0.45)                                   # the button activated: its dialog opens
    for dx in (120, -120, 120):                                # into the dialog, back (nothing), on
        t = swipe(t + 0.45, dx, 0)
    t = scrub(t + 1.0)                                         # escape: the dialog closes
    t = swipe(t + 0.45, 120, 0)                                # the page again, from its first element
    frame(t + 0.5, (0x2f, 0))
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(header + events)
    return t + 0.5


@unittest.skipIf(MISSING, "the browser test needs Debian's python3-websockets and python3-selenium: %s" % MISSING)
@unittest.skipUnless(os.path.exists(BINARY), "no touchd binary at %s (TOUCHD_BINARY)" % BINARY)
class ReadByAriaNames(Launcher, Processes, TempDirTest):
    def read_log(self, name):
        with open(self.path(name + ".log"), encoding="utf-8", errors="replace") as f:
            return f.read()

    def state(self, driver):
        return driver.execute_script("return document.body && document.body.dataset.state")

    def open_tab(self, driver, url, new_tab):
        if new_tab:
            driver.switch_to.new_window("tab")
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": 800, "height": 480, "deviceScaleFactor": 1, "mobile": False})
        driver.get(url)
        wait_for(lambda: self.state(driver) in ("ready", "refused"), 15, url)
        self.assertEqual(self.state(driver), "ready", driver.execute_script("return touchdLog.errors"))
        return driver.current_window_handle

    def copy_of(self, driver, view):
        """A view's accessibility as the daemon accepted it (the client's copy: changes applied on
        their replies)."""
        return driver.execute_script(
            "return touchd.windows.get('app').view.subviews.find((v) => v.id === arguments[0]).accessibility || {}", view)

    def test_a_page_read_by_its_aria_names(self):
        os.makedirs(ARTEFACTS, exist_ok=True)
        events, sock = self.path("aria.events"), self.path("touchd.sock")
        length = capture(events)
        with open(self.path("config.json"), "w") as f:
            json.dump(CONFIG, f)
        with open(self.path("token"), "w") as f:
            f.write(TOKEN + "\n")
        self.start([BINARY, "run", "--config", self.path("config.json"), "--socket", sock, "--replay", events,
                    "--wait-clients", "2"], "daemon")
        wait_for(lambda: os.path.exists(sock), 10, "the daemon's socket")
        port = free_port()
        base = "http://127.0.0.1:%d" % port
        self.start(self.web_argv() + ["--socket", sock, "--listen", "127.0.0.1:%d" % port, "--static", PAGE_DIR,
                                      "--token-file", self.path("token")], "web")
        wait_for(lambda: "listening" in self.read_log("web"), 10, "touchd-web to listen")
        driver = chromium(self)
        kiosk = self.open_tab(driver, base + "/aria.html?role=kiosk#token=" + TOKEN, new_tab=False)
        # The PIN typed into the password field, as a keyboard types it.
        driver.find_element("id", "pin").send_keys(PIN)
        wait_for(lambda: self.copy_of(driver, "pin").get("value") == "•" * len(PIN), 5,
                 "the password field's value (masked) in the daemon's copy")

        # What bind derived, view by view (the daemon accepted it: the copy is applied on replies).
        # By hand, accname 1.2 / HTML-AAM: <h1> is a heading named from its content; <img> an
        # image named by alt; role=button named by aria-label (its aria-hidden glyph unread);
        # <button> named from content, described (the hint) by aria-describedby's text outside
        # <main>; disabled: notEnabled; role=tab named from content, aria-selected: selected;
        # role=slider named by aria-labelledby, valued by aria-valuetext; <input type=range> a
        # slider named by aria-label, valued by its value; <input type=password> a text field
        # named by its <label for>, secure, its value masked; <a href> a link; <p> no named role:
        # touchd reads its text as static text, in the language of its lang; aria-hidden: hidden,
        # nothing more derived. <html lang="en"> gives every element "en". The page's DOM order
        # differs from the daemon's rows (the note, left, before Help on their row; the
        # decoration beside the PIN): the root lists the DOM's.
        en = {"language": "en", "element": True}
        expected = {
            "title": dict(en, label="Tickets", traits=["header"]),
            "logo": dict(en, label="City Transit logo", traits=["image"]),
            "single": dict(en, label="Single ticket", traits=["button"]),
            "day": dict(en, label="Day pass", hint="Valid until midnight", traits=["button"]),
            "refund": dict(en, label="Refund", traits=["notEnabled", "button"]),
            "adult": dict(en, label="Adult", traits=["selected"]),
            "child": dict(en, label="Child"),
            "zones": dict(en, label="Zones", value="2 zones", traits=["adjustable"]),
            "volume": dict(en, label="Volume", value="5", traits=["adjustable"]),
            "pin": dict(en, label="PIN", value="••••", secure=True),
            "help": dict(en, label="Help", traits=["link"]),
            "note": {"label": "Bitte Karte einstecken", "traits": ["staticText"], "language": "de"},
            "deco": {"hidden": True},
            # role=dialog with aria-modal: modal; it has views under it, so it is no element
            # itself (its name unread) and they are read: an <h2>, a <button>.
            "confirm": {"modal": True},
            "confirm-title": dict(en, label="Buy a day pass?", traits=["header"]),
            "buy": dict(en, label="Buy", traits=["button"]),
        }
        app = driver.execute_script("return touchd.windows.get('app')")
        views = {}
        stack = list(app["view"]["subviews"])
        while stack:
            v = stack.pop()
            views[v["id"]] = v
            stack += v.get("subviews", [])
        self.assertEqual({id: v.get("accessibility") for id, v in views.items()}, expected)
        self.assertEqual(app["view"]["accessibility"], {"order": [v["id"] for v in app["view"]["subviews"]]})
        self.assertEqual(list(expected)[:14], [v["id"] for v in app["view"]["subviews"]])
        self.assertTrue(views["confirm"]["hidden"])      # the hidden attribute: display none
        self.assertEqual(app["frame"], [0, 0, 800, 450])

        # The watcher (the daemon's second client) starts the replay.
        watcher = self.open_tab(driver, base + "/aria.html?role=watcher#token=" + TOKEN, new_tab=True)
        driver.switch_to.window(kiosk)      # the page in front: a hidden one gets no animation frames
        # The dialog open, the cursor on its button (a second screenshot; it waits 1 s there).
        wait_for(lambda: driver.execute_script("return touchdLog.speech.some((m) => m.text === 'Buy, button')"),
                 length + 15, "the dialog's button read")
        self.assertFalse(driver.execute_script("return document.getElementById('confirm').hidden"))
        driver.save_screenshot(os.path.join(ARTEFACTS, "aria-dialog.png"))
        wait_for(lambda: "replay finished" in self.read_log("daemon"), length + 15, "the replay")
        time.sleep(0.3)
        driver.switch_to.window(watcher)
        seen = driver.execute_script("return touchdLog")
        driver.switch_to.window(kiosk)
        page = driver.execute_script("return touchdLog")
        driver.save_screenshot(os.path.join(ARTEFACTS, "aria.png"))
        self.assertEqual([page["errors"], seen["errors"]], [[], []])

        # What the screen reader said, in order: each element as docs/accessibility.md's
        # "What is said" reads it (selected first; label, value; the traits' words, the state
        # before the kind: "dimmed" before "button"; the hint, or an adjustable element's
        # standard hint, queued after it, interrupt false).
        said = lambda m: (m["text"], m["interrupt"], m.get("language"))  # noqa: E731
        read = lambda text, lang="en": [(text, True, lang)]               # noqa: E731
        hint = lambda text: [(text, False, "en")]                         # noqa: E731
        owner = (read("Tickets, heading")                  # explore: the finger down on the heading, held
                 + read("City Transit logo, image")        # sliding right onto the logo
                 + read("Single ticket, button")           # swipe right
                 + read("Day pass, button") + hint("Valid until midnight")
                 + read("Refund, dimmed, button")
                 + read("selected, Adult")
                 + read("Child")
                 + read("Zones, 2 zones, adjustable") + hint(HINT)
                 # swipe up: increment (part 1 reads no new value)
                 + read("Volume, 5, adjustable") + hint(HINT)
                 # swipe up: increment
                 # the password field: secure, and no headphones are plugged in, so it is
                 # read as its traits' words, and it has none: nothing, to anyone (issue 46)
                 + read("Help, link")
                 + read("Bitte Karte einstecken", "de")
                 # swipe right past the end: nothing; swipe left: back
                 + read("Help, link")
                 # double tap: the link activated; touch and hold on Day pass:
                 + read("Day pass, button") + hint("Valid until midnight")
                 # double tap: Day pass activated, its modal dialog opens; swipe right: into it
                 + read("Buy a day pass?, heading")
                 # swipe left: nothing (before the dialog's first element: the page is not read)
                 + read("Buy, button")
                 # the scrub: escape, the page closes the dialog; swipe right: from the first
                 + read("Tickets, heading"))
        self.maxDiff = None
        self.assertEqual([said(m) for m in page["speech"]], owner)
        self.assertEqual({m["output"] for m in page["speech"]}, {"main"})
        # The other page got the same: not the password field's label, its masked value or a
        # word about it (no spoken trait: nothing at all).
        self.assertEqual([said(m) for m in seen["speech"]], owner)
        self.assertNotIn("•", json.dumps(seen["messages"], ensure_ascii=False))
        # The characters never left the page: in no message, in no copy, in no log.
        for text in (json.dumps(page["messages"]), json.dumps(seen["messages"]), json.dumps(app),
                     self.read_log("daemon"), self.read_log("web")):
            self.assertNotIn(PIN, text)
        # The focus went to the owner alone.
        self.assertEqual([m["view"] for m in page["messages"] if m["type"] == "accessibilityFocus"],
                         ["title", "logo", "single", "day", "refund", "adult", "child", "zones", "volume", "pin",
                          "help", "note", "help", "day", "confirm-title", "buy", "title"])
        self.assertEqual([m for m in seen["messages"] if m["type"].startswith("accessibility")], [])

        # The actions reached the elements: the ARIA slider took the ArrowUp touchd.js pressed
        # (its keydown handler, as the ARIA Authoring Practices write it), the native range
        # stepped (its input event); both new values reached the daemon. The link was clicked
        # once; Day pass pressed once, by the synthesized tap's primaryActionTriggered, its DOM
        # click never (no second activation). The escape pressed Escape on the focused Buy, and
        # the dialog's own key handler closed it.
        self.assertEqual(page["events"], ["increment zones", "zones 3", "increment volume", "volume 6",
                                          "activate help", "activate day", "escape buy", "dialog closed"])
        self.assertEqual(self.copy_of(driver, "zones")["value"], "3 zones")
        self.assertEqual(self.copy_of(driver, "volume")["value"], "6")
        self.assertEqual(page["clicks"], ["help"])
        self.assertEqual(page["pressed"], [["day", True]])
        controls = [(m["control"], m["event"], m.get("synthesized")) for m in page["messages"] if m["type"] == "control"]
        self.assertEqual(controls, [("day", "touchDown", True), ("day", "touchUpInside", True),
                                    ("day", "primaryActionTriggered", True)])
        sys.stderr.write("\n  screen reader page: %d utterances, %.1f s of replay\n" % (len(owner), length))

        # Kept in sync: a new aria-label, aria-hidden removed, a button enabled and the page's
        # own data-touchd-accessibility, in one task: one update, and the daemon's copy has them.
        def changed(script, until, what):
            before = driver.execute_script("return appBinding.updates")
            driver.execute_script(script)
            wait_for(until, 5, what)
            time.sleep(0.3)
            self.assertEqual(driver.execute_script("return appBinding.updates"), before + 1, what)
        changed("""
            document.querySelector("[data-touchd-view=single]").setAttribute("aria-label", "Single fare");
            document.getElementById("deco").removeAttribute("aria-hidden");
            document.querySelector("[data-touchd-view=refund]").disabled = false;
            document.getElementById("help").dataset.touchdAccessibility = '{"hint": "Opens the help pages", "language": null}';""",
                lambda: self.copy_of(driver, "help").get("hint"), "the page's changes")
        self.assertEqual(self.copy_of(driver, "single"), dict(en, label="Single fare", traits=["button"]))
        # (hidden goes back to its default as false: the daemon takes no null for a flag)
        self.assertEqual(self.copy_of(driver, "deco"), {"hidden": False, "label": "✦ ✦ ✦", "traits": ["staticText"],
                                                        "language": "en"})
        self.assertEqual(self.copy_of(driver, "refund"), dict(en, label="Refund", traits=["button"]))
        self.assertEqual(self.copy_of(driver, "help"), {"element": True, "label": "Help", "traits": ["link"],
                                                        "hint": "Opens the help pages"})
        # Outside the bound element: the text of Day pass's description (aria-describedby's
        # target), then <html>'s lang — one update each.
        changed('document.getElementById("day-note").textContent = "Valid for 24 hours"',
                lambda: self.copy_of(driver, "day").get("hint") == "Valid for 24 hours", "the description's text")
        changed('document.documentElement.lang = "en-GB"',
                lambda: self.copy_of(driver, "day").get("language") == "en-GB", "the page's language")
        self.assertEqual(self.copy_of(driver, "day"), dict(en, language="en-GB", label="Day pass", hint="Valid for 24 hours",
                                                           traits=["button"]))
        self.assertEqual(self.copy_of(driver, "note")["language"], "de")
        self.assertEqual(driver.execute_script("return touchdLog.errors"), [])

if __name__ == "__main__":
    unittest.main()
