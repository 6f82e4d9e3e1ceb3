#!/usr/bin/env python3
"""A touchd kiosk: a menu of buttons and a scrolling list, drawn with pygame.

    kiosk.py [--socket PATH] [--headless] [--screenshot FILE] [--state FILE] [--exit-on-bye]

The kiosk owns one window in touchd's live scene (python/touchd_client): it attaches its
layout when it connects, switches screens with updates (hides one screen's container view and
shows the other's), and draws what touchd tells it: pressed buttons (touchDown until
touchUpInside / touchUpOutside / touchCancel), the selection (primaryActionTriggered), the
list at the scroll offset of the daemon's scroll messages, and a dot under every live finger.
touchd does all the hit-testing; the kiosk never looks at pointer positions itself.
Needs pygame (Debian: python3-pygame).
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from touchd_client import DEFAULT_SOCKET, TouchdClient, TouchdError  # noqa: E402

WINDOW = "kiosk"
ROWS = 30
ROW_HEIGHT = 60
MENU = [("coffee", "Coffee"), ("tea", "Tea"), ("juice", "Juice"), ("to-list", "List →")]
DRINKS = {"coffee", "tea", "juice"}

BACKGROUND = (24, 28, 36)
HEADER = (36, 42, 56)
BUTTON = (62, 74, 98)
PRESSED = (235, 160, 40)
SELECTED = (40, 170, 90)
TEXT = (240, 240, 240)
FINGER = (220, 60, 60)


def layout(width, height):
    """The kiosk's window: a header band, then the menu screen or the list screen.

    Designed for 800x480 and scaled to the daemon's screen. Menu buttons are 320x160 in a 2x2
    grid below an 80-point header; the list screen has a Back button in the header and a
    scroll view below it with ROWS rows of 60 points (row-1 at content y 0...60, and so on).
    """
    sx, sy = width / 800, height / 480

    def rect(x, y, w, h):
        return [round(x * sx, 3), round(y * sy, 3), round(w * sx, 3), round(h * sy, 3)]

    grid = [(60, 100), (420, 100), (60, 300), (420, 300)]
    # Each button carries its label for touchd's screen reader (docs/accessibility.md): with
    # the output's screenReader on, a finger on it reads "Coffee, button", a double tap presses it.
    menu = [{"id": vid, "frame": rect(x, y, 320, 160), "control": "button",
             "accessibility": {"label": name.replace(" →", "")}}
            for (vid, name), (x, y) in zip(MENU, grid)]
    rows = [{"id": "row-%d" % (i + 1), "frame": rect(20, i * ROW_HEIGHT + 4, 760, ROW_HEIGHT - 8),
             "control": "button", "accessibility": {"label": "Item %d" % (i + 1)}} for i in range(ROWS)]
    list_h = 400 * sy
    return {
        "id": WINDOW, "frame": [0, 0, width, height], "level": 0,
        "view": {"id": "kiosk-root", "frame": [0, 0, width, height], "touches": "handle", "subviews": [
            {"id": "menu", "frame": [0, 0, width, height], "subviews": menu},
            {"id": "list-screen", "frame": [0, 0, width, height], "hidden": True, "subviews": [
                {"id": "back", "frame": rect(20, 10, 160, 60), "control": "button", "accessibility": {"label": "Back"}},
                {"id": "list", "frame": [0, 80 * sy, width, list_h],
                 "scroll": {"contentSize": [width, ROWS * ROW_HEIGHT * sy]}, "subviews": rows},
            ]},
        ]},
    }


class Kiosk:
    def __init__(self, client, exit_on_bye):
        self.client = client
        self.exit_on_bye = exit_on_bye
        self.running = True
        self.screen_name = "menu"
        self.names = dict(MENU, back="← Back", **{"row-%d" % (i + 1): "Item %d" % (i + 1) for i in range(ROWS)})
        self.pressed = set()           # control ids between touchDown and its end
        self.selected = None           # control id of the latest selection
        self.selections = []           # [{"name", "control", "screen", "listOffset", "time"}]
        self.history = []              # every control event: [time, control, event]
        self.offset = [0.0, 0.0]       # the list's scroll offset, from scroll messages
        self.touches = {}              # touch id (or recognizer id) -> screen location: finger dots
        self.touches_seen = set()
        self.scrolls = 0
        client.on_connect(self.connected)
        client.on_disconnect(self.disconnected)
        client.on_control(self.control)
        client.on_scroll(self.scroll)
        client.on_frame(self.frame)
        client.on_gesture(self.gesture)

    # -- touchd ------------------------------------------------------------------------------
    def connected(self, hello):
        if WINDOW not in self.client.windows:       # a reconnect re-attaches it by itself
            self.client.attach(layout(*self.client.screen))
        self.pressed.clear()

    def disconnected(self, reason):
        print("kiosk: disconnected (%s)" % reason, file=sys.stderr)
        self.pressed.clear()
        self.touches.clear()
        if self.exit_on_bye and reason.startswith("bye"):
            self.running = False

    def control(self, msg):
        vid, event = msg["control"], msg["event"]
        self.history.append([msg["time"], vid, event])
        if event == "touchDown":
            self.pressed.add(vid)
        elif event in ("touchUpInside", "touchUpOutside", "touchCancel"):
            self.pressed.discard(vid)
        elif event == "primaryActionTriggered":
            self.action(vid, msg["time"])

    def action(self, vid, time):
        if vid == "to-list":
            self.show("list")
        elif vid == "back":
            self.show("menu")
        elif vid in DRINKS or vid.startswith("row-"):
            self.selected = vid
            self.selections.append({"name": self.names[vid], "control": vid, "screen": self.screen_name,
                                    "listOffset": list(self.offset), "time": time})
            print("kiosk: selected %s" % self.names[vid], flush=True)

    def show(self, name):
        menu = name == "menu"
        self.client.update(WINDOW, [{"view": "menu", "set": {"hidden": not menu}},
                                    {"view": "list-screen", "set": {"hidden": menu}}])
        self.screen_name = name

    def scroll(self, msg):
        if msg["view"] == "list":
            self.offset = list(msg["offset"])
            self.scrolls += 1

    def frame(self, msg):
        for t in msg["touches"]:
            if t["phase"] in ("ended", "cancelled"):
                self.touches.pop(t["id"], None)
            else:
                self.touches[t["id"]] = t["location"]   # our window is at (0, 0): screen = window
            self.touches_seen.add(t["id"])

    def gesture(self, msg):
        # A drag the list's pan takes from the start never reaches the rows (delaysContentTouches),
        # so it is in no frame: draw its finger from the recognizer's messages instead.
        if msg["recognizer"] != "list.pan":
            return
        self.touches_seen.update(msg.get("touches", []))
        if msg["state"] in ("began", "changed"):
            self.touches[msg["recognizer"]] = msg["location"]
        else:
            self.touches.pop(msg["recognizer"], None)

    def state(self):
        return {"screen": self.screen_name, "selections": [s["name"] for s in self.selections],
                "selectionLog": self.selections, "selected": self.names.get(self.selected),
                "history": self.history, "listOffset": self.offset, "scrollMessages": self.scrolls,
                "touchesSeen": len(self.touches_seen), "window": self.client.windows.get(WINDOW)}

    # -- drawing -----------------------------------------------------------------------------
    def draw(self, surface, fonts):
        import pygame
        big, small = fonts
        surface.fill(BACKGROUND)
        win = self.client.windows.get(WINDOW)
        if win is None:
            text = small.render("waiting for touchd…", True, TEXT)
            surface.blit(text, text.get_rect(center=surface.get_rect().center))
            return
        views = {}

        def collect(view, x, y):   # view id -> screen rect (for the list's rows: at offset 0)
            fx, fy, w, h = view["frame"]
            views[view["id"]] = pygame.Rect(x + fx, y + fy, w, h)
            for sub in view.get("subviews", []):
                collect(sub, x + fx, y + fy)
        collect(win["view"], win["frame"][0], win["frame"][1])
        width = surface.get_width()
        header = pygame.Rect(0, 0, width, views["list"].top)
        pygame.draw.rect(surface, HEADER, header)
        chosen = "Selected: %s" % (self.names[self.selected] if self.selected else "nothing yet")
        label = small.render(chosen, True, TEXT)
        surface.blit(label, label.get_rect(midright=(width - 20, header.centery)))
        if self.screen_name == "menu":
            title = big.render("touchd kiosk", True, TEXT)
            surface.blit(title, title.get_rect(midleft=(20, header.centery)))
            for vid, _ in MENU:
                self.button(surface, big, vid, views[vid])
        else:
            self.button(surface, small, "back", views["back"])
            area = views["list"]
            surface.set_clip(area)
            for i in range(ROWS):
                r = views["row-%d" % (i + 1)].move(-round(self.offset[0]), -round(self.offset[1]))
                if r.colliderect(area):
                    self.button(surface, small, "row-%d" % (i + 1), r)
            surface.set_clip(None)
            content = ROWS * ROW_HEIGHT * area.height / 400
            bar = pygame.Rect(area.right - 6, area.top + area.height * self.offset[1] / content, 4,
                              area.height * area.height / content)
            pygame.draw.rect(surface, TEXT, bar.clip(area))
        for x, y in self.touches.values():
            pygame.draw.circle(surface, FINGER, (round(x), round(y)), 18)
            pygame.draw.circle(surface, TEXT, (round(x), round(y)), 18, 2)

    def button(self, surface, font, vid, r):
        import pygame
        colour = PRESSED if vid in self.pressed else SELECTED if vid == self.selected else BUTTON
        pygame.draw.rect(surface, colour, r, border_radius=12)
        text = font.render(self.names[vid], True, TEXT)
        surface.blit(text, text.get_rect(center=r.center))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--socket", default=DEFAULT_SOCKET)
    ap.add_argument("--headless", action="store_true", help="no window (SDL's dummy video driver)")
    ap.add_argument("--screenshot", metavar="FILE", help="save a PNG of the last frame at exit")
    ap.add_argument("--state", metavar="FILE", help="write the kiosk's state as JSON at exit")
    ap.add_argument("--exit-on-bye", action="store_true", help="exit when the daemon stops")
    args = ap.parse_args()
    if args.headless:
        os.environ["SDL_VIDEODRIVER"] = "dummy"
        os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    client = TouchdClient(args.socket, reconnect=True)
    kiosk = Kiosk(client, args.exit_on_bye)
    try:
        if not client.connect(wait=True):      # a kiosk may start before the daemon
            print("kiosk: waiting for touchd at %s" % args.socket, file=sys.stderr)
            while not client.connected:
                client.poll(0.1)
    except TouchdError as e:     # e.g. our ids are taken by the config or another client
        sys.exit("kiosk: touchd refused the kiosk's window: %s" % e)
    pygame.display.init()
    pygame.font.init()
    width, height = (round(v) for v in client.screen)
    surface = pygame.display.set_mode((width, height), pygame.FULLSCREEN if not args.headless and
                                      os.environ.get("KIOSK_FULLSCREEN") else 0)
    pygame.display.set_caption("touchd kiosk")
    fonts = (pygame.font.SysFont("dejavusans,freesans", 34), pygame.font.SysFont("dejavusans,freesans", 24))
    try:
        while kiosk.running:
            for event in pygame.event.get():
                if event.type == pygame.QUIT:
                    kiosk.running = False
            client.poll(1 / 60)     # wakes as soon as touchd says something
            kiosk.draw(surface, fonts)
            pygame.display.flip()
    except KeyboardInterrupt:
        pass
    finally:
        kiosk.draw(surface, fonts)
        if args.screenshot:
            pygame.image.save(surface, args.screenshot)
        if args.state:
            with open(args.state, "w") as f:
                json.dump(kiosk.state(), f, indent=1)
        client.close()
        pygame.quit()


if __name__ == "__main__":
    main()
