#!/usr/bin/env python3
"""Writes the screen reader's gesture captures, Tests/Fixtures/voiceover/*.events: header-less
evemu events for the virtual 800x480 touchscreen (Tests/Fixtures/virtual-800x480.desc, whose
units are screen points), one VoiceOver gesture of interface.md's table each, on the menu of
Tests/Fixtures/voiceover/voiceover.json. Their expected messages are worked out by hand in
Tests/EndToEndTests/ScreenReaderScenarioTests.swift.

usage: Tests/Tools/voiceover-captures.py [OUTDIR]   (default Tests/Fixtures/voiceover)
"""
import os
import sys

SLOT, TRACKING, X, Y = 0x2F, 0x39, 0x35, 0x36


class Capture:
    def __init__(self):
        self.lines = []
        self.next_id = 1
        self.ids = {}

    def frame(self, t, *changes):
        """One hardware frame at t seconds: changes are (slot, "down"|"move"|"up", x, y)."""
        for slot, kind, x, y in changes:
            self.lines.append((t, 3, SLOT, slot))
            if kind == "down":
                self.lines.append((t, 3, TRACKING, self.next_id))
                self.next_id += 1
            if kind == "up":
                self.lines.append((t, 3, TRACKING, -1))
            else:
                self.lines += [(t, 3, X, x), (t, 3, Y, y)]
        self.lines.append((t, 0, 0, 0))
        return self

    def tap(self, t, x, y, slot=0, length=0.05):
        return self.frame(t, (slot, "down", x, y)).frame(t + length, (slot, "up", 0, 0))

    def hold(self, t, x, y, until):
        """One finger held still from t until `until` (it explores after 0.3 s)."""
        return self.frame(t, (0, "down", x, y)).frame(until, (0, "up", 0, 0))

    def flick(self, t, x, y, dx, dy, fingers=1):
        """Fingers 100 points apart moving (dx, dy) in three 30 ms steps, then lifting."""
        slots = range(fingers)
        self.frame(t, *[(s, "down", x + 100 * s, y) for s in slots])
        for k in (1, 2, 3):
            self.frame(t + 0.03 * k, *[(s, "move", x + 100 * s + dx * k // 3, y + dy * k // 3) for s in slots])
        return self.frame(t + 0.12, *[(s, "up", 0, 0) for s in slots])

    def text(self):
        return "".join(f"E: {t:.6f} {ty:04x} {code:04x} {v}\n" for t, ty, code, v in self.lines)


def captures():
    c = {}
    # Explore: held on coffee (explores at 1.30), then slid onto tea.
    c["v01-explore"] = Capture().frame(1.0, (0, "down", 100, 100)).frame(1.4, (0, "move", 300, 110)) \
        .frame(1.45, (0, "move", 450, 110)).frame(1.5, (0, "move", 520, 110)).frame(1.6, (0, "up", 0, 0))
    # Double tap anywhere (in the list's area) activates coffee, focused by holding on it.
    c["v02-double-tap"] = Capture().hold(1.0, 100, 100, 1.4).tap(2.0, 600, 300).tap(2.15, 602, 301)
    # Split tap: one finger explores tea, a second taps elsewhere.
    c["v03-split-tap"] = Capture().frame(1.0, (0, "down", 500, 100)).frame(1.5, (1, "down", 300, 300)) \
        .frame(1.55, (1, "up", 0, 0)).frame(1.8, (0, "up", 0, 0))
    # Swipes: right three times (title, coffee, tea), then left (coffee).
    cap = Capture()
    for k, dx in enumerate([90, 90, 90, -90]):
        cap.flick(1.0 + 0.6 * k, 300, 300, dx, 0)
    c["v04-swipes"] = cap
    # Adjustable: hold on size, then swipe up (increment) and down (decrement).
    c["v05-adjustable"] = Capture().hold(1.0, 100, 230, 1.4).flick(2.0, 300, 300, 0, -90).flick(2.6, 300, 200, 0, 90)
    # Two-finger taps: pause at 1.33 (250 ms after the lift), resume at 2.33.
    c["v06-two-finger-tap"] = Capture().frame(1.0, (0, "down", 300, 300), (1, "down", 400, 300)) \
        .frame(1.08, (0, "up", 0, 0), (1, "up", 0, 0)).frame(2.0, (0, "down", 300, 300), (1, "down", 400, 300)) \
        .frame(2.08, (0, "up", 0, 0), (1, "up", 0, 0))
    # Read all: a two-finger swipe up.
    c["v07-read-all"] = Capture().flick(1.0, 200, 400, 0, -90, fingers=2)
    # Three-finger swipes up: the list scrolls a page (200 points) twice.
    c["v08-page-scroll"] = Capture().hold(1.0, 500, 250, 1.4).flick(2.0, 100, 300, 0, -90, fingers=3) \
        .flick(3.0, 100, 300, 0, -90, fingers=3)
    # The scrub: coffee focused, then two fingers right 60, back left 120, right 120 (a Z).
    cap = Capture().hold(1.0, 100, 100, 1.4)
    cap.frame(2.0, (0, "down", 300, 300), (1, "down", 400, 300))
    for k, dx in enumerate([30, 60, 0, -60, 0, 60]):
        cap.frame(2.05 + 0.05 * k, (0, "move", 300 + dx, 300 + 5 * k), (1, "move", 400 + dx, 300 + 5 * k))
    c["v09-scrub"] = cap.frame(2.4, (0, "up", 0, 0), (1, "up", 0, 0))
    # Magic tap: coffee focused, then two two-finger taps 100 ms apart.
    c["v10-magic-tap"] = Capture().hold(1.0, 100, 100, 1.4) \
        .frame(2.0, (0, "down", 300, 300), (1, "down", 400, 300)).frame(2.08, (0, "up", 0, 0), (1, "up", 0, 0)) \
        .frame(2.18, (0, "down", 302, 300), (1, "down", 402, 300)).frame(2.26, (0, "up", 0, 0), (1, "up", 0, 0))
    # Double tap and hold on tea: from 1.65 the touch is tea's, until it lifts.
    c["v11-pass-through"] = Capture().tap(1.0, 500, 100).frame(1.15, (0, "down", 500, 100)) \
        .frame(1.7, (0, "move", 530, 110)).frame(1.8, (0, "up", 0, 0))
    # Activating a view with a tap recognizer: the recognizer sees the synthesized tap.
    c["v12-recognizer"] = Capture().hold(1.0, 300, 420, 1.4).tap(2.0, 600, 300).tap(2.15, 600, 300)
    # With v13-requests.scene.ndjson: coffee explored, a dialog's screen change, the reader off,
    # then a plain tap on coffee.
    c["v13-requests"] = Capture().hold(1.0, 100, 100, 1.4).hold(2.0, 300, 150, 2.4).tap(3.0, 100, 100)
    return c


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "Fixtures", "voiceover")
    for name, cap in captures().items():
        with open(os.path.join(out, name + ".events"), "w", encoding="ascii") as fh:
            fh.write(cap.text())


if __name__ == "__main__":
    main()
