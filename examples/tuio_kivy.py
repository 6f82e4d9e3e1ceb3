#!/usr/bin/env python3
"""A Kivy app that takes its touches from touchd's TUIO output (Kivy's own TUIO provider).

    examples/tuio_kivy.py [--port 3333] [--idle SECONDS] [--json]

touchd's config needs "tuio": {"targets": ["127.0.0.1:3333"]}. The app draws a dot under each
finger. With --json it prints, when the touches have been quiet for --idle seconds (or after
30 s), every touch event Kivy delivered as one JSON line: ["down"|"move"|"up", id, sx, sy] —
sx, sy are Kivy's 0…1 positions (sy from the bottom). Needs Debian's python3-kivy and the
oscpy module (PyPI; scripts/deps test fetches it into .build/pydeps). Headless: xvfb-run.
"""
import argparse
import glob
import json
import os
import sys
import time

here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = glob.glob(os.path.join(here, ".build", "pydeps", "oscpy-*.whl"))
os.environ.setdefault("KIVY_NO_ARGS", "1")

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--port", type=int, default=3333)
ap.add_argument("--idle", type=float, default=3.0)
ap.add_argument("--json", action="store_true")
args = ap.parse_args()
if args.json:
    os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")

from kivy.config import Config  # noqa: E402  (after the environment is set)

Config.set("input", "mouse", "")
Config.set("input", "touchd", f"tuio,127.0.0.1:{args.port}")
Config.set("graphics", "width", "800")
Config.set("graphics", "height", "480")

from kivy.app import App  # noqa: E402
from kivy.clock import Clock  # noqa: E402
from kivy.graphics import Color, Ellipse  # noqa: E402
from kivy.uix.widget import Widget  # noqa: E402

events = []
last = [time.monotonic()]
start = time.monotonic()


class Board(Widget):
    def record(self, kind, t):
        events.append([kind, t.id, round(t.sx, 4), round(t.sy, 4)])
        last[0] = time.monotonic()

    def on_touch_down(self, t):
        self.record("down", t)
        with self.canvas:
            Color(0.2, 0.7, 1)
            t.ud["dot"] = Ellipse(pos=(t.x - 20, t.y - 20), size=(40, 40))

    def on_touch_move(self, t):
        self.record("move", t)
        if "dot" in t.ud:
            t.ud["dot"].pos = (t.x - 20, t.y - 20)

    def on_touch_up(self, t):
        self.record("up", t)
        if "dot" in t.ud:
            self.canvas.remove(t.ud["dot"])


class TouchdTuio(App):
    def build(self):
        if args.json:
            Clock.schedule_interval(self.check, 0.1)
        return Board()

    def check(self, _dt):
        if (events and time.monotonic() - last[0] > args.idle) or time.monotonic() - start > 30:
            print(json.dumps(events), flush=True)
            self.stop()


TouchdTuio().run()
