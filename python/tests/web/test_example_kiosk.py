"""examples/web-kiosk in headless Chromium (docs/web.md, "A complete kiosk"): the daemon runs
the example's own touchd.json (output DSI-1, 800 x 480, turned 90 degrees: the page is 480 x 800)
replaying taps made here in the panel's natural coordinates, touchd-web serves the example's
index.html, and a native subscriber starts the replay. Coffee's handler ran (its button is
"chosen") for a tap the config's rotation turned onto it; two PIN keys reached the page; the
subscriber saw Coffee's events and nothing of the private PIN pad.

Needs /usr/bin/python3 with python3-websockets and python3-selenium; skips, saying why, without.
"""
import importlib
import os
import re
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))     # python/tests: support
from support import PYTHON_DIR, REPO, TempDirTest  # noqa: E402
from webrig import Processes  # noqa: E402

try:
    importlib.import_module("websockets")   # touchd-web needs it (python3-websockets)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    MISSING = None
except ImportError as e:
    MISSING = str(e)

BINARY = os.path.abspath(os.path.join(REPO, os.environ.get("TOUCHD_BINARY", ".build/debug/touchd")))
EXAMPLE = os.path.join(REPO, "examples", "web-kiosk")
# The demo capture's device description (an 800 x 480 touchscreen: its axes are the panel's points).
DEVICE = os.path.join(REPO, "captures", "demo-taps-and-drag.events")


def tap(t, slot_id, x, y):
    """A tap at the panel's natural point (x, y): down at t, up 80 ms later."""
    return [f"E: {t:.6f} 0003 002f 0", f"E: {t:.6f} 0003 0039 {slot_id}", f"E: {t:.6f} 0003 0035 {x}",
            f"E: {t:.6f} 0003 0036 {y}", f"E: {t:.6f} 0000 0000 0",
            f"E: {t + 0.08:.6f} 0003 002f 0", f"E: {t + 0.08:.6f} 0003 0039 -1", f"E: {t + 0.08:.6f} 0000 0000 0"]


@unittest.skipIf(MISSING, "needs Debian's python3-websockets and python3-selenium: %s" % MISSING)
@unittest.skipUnless(os.path.exists(BINARY), "no touchd binary at %s (TOUCHD_BINARY)" % BINARY)
class ExampleKiosk(Processes, TempDirTest):
    def test_the_example_page_gets_its_taps_turned_once(self):
        with open(DEVICE, encoding="utf-8") as f:
            head = [line.rstrip("\n") for line in f if not line.startswith("E:")]
        # The output is turned 90 degrees clockwise: a page point (u, v) is the panel's (v, 480 - u).
        # Coffee's middle (85, 55); PIN keys 1 and 2 at (125, 477) and (240, 477).
        events = ["E: 1.000000 0000 0000 0"] + tap(3.0, 1, 55, 395) + tap(3.4, 2, 477, 355) \
            + tap(3.8, 3, 477, 240) + ["E: 4.500000 0000 0000 0"]
        capture = self.path("taps.events")
        with open(capture, "w", encoding="utf-8") as f:
            f.write("\n".join(head + events) + "\n")
        sock = self.path("touchd.sock")
        self.start([BINARY, "run", "--config", os.path.join(EXAMPLE, "touchd.json"), "--socket", sock,
                    "--replay", capture, "--wait-clients", "1", "--exit-at-end"], "daemon")
        self.start([os.path.join(PYTHON_DIR, "touchd-web"), "--socket", sock, "--listen", "127.0.0.1:0",
                    "--static", EXAMPLE], "web")
        port = None
        deadline = time.monotonic() + 20
        while port is None and time.monotonic() < deadline:
            with open(self.path("web.log"), encoding="utf-8") as f:
                found = re.search(r"listening on 127\.0\.0\.1 port (\d+)", f.read())
            port = found and int(found.group(1))
            time.sleep(0.05)
        self.assertIsNotNone(port, "touchd-web did not say where it listens")
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=480,800"):
            options.add_argument(arg)
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        self.addCleanup(driver.quit)
        state = None
        driver.get(f"http://127.0.0.1:{port}/")
        while time.monotonic() < deadline:
            state = driver.execute_script("return document.getElementById('state').textContent")
            if state not in ("connecting", "connected"):
                break
            time.sleep(0.1)
        self.assertEqual(state, "ready")
        watcher = subprocess.run([BINARY, "subscribe", "--socket", sock, "--pretty", "--wait", "5"],
                                 capture_output=True, text=True, timeout=30)
        self.assertIn("coffee: primaryActionTriggered", watcher.stdout)
        self.assertNotIn("key-", watcher.stdout)         # the PIN pad is private to the page
        self.assertEqual(driver.execute_script(
            "return [...document.querySelectorAll('#menu button.chosen')].map(b => b.textContent)"), ["Coffee"])
        self.assertEqual(driver.execute_script("return document.getElementById('shown').textContent"), "••")
        os.makedirs(os.path.join(REPO, ".build", "artefacts", "web"), exist_ok=True)
        driver.save_screenshot(os.path.join(REPO, ".build", "artefacts", "web", "example-kiosk.png"))


if __name__ == "__main__":
    unittest.main()
