#!/usr/bin/env python3
"""Touches for the devices[].uinput check of the VM test (scripts/vm/live-test.sh): a drag on
slot 0 that bounces in the middle — the contact lifts for 20 ms and comes back 2 units away,
well within the entry's filter.debounce (Tests/Fixtures/vm/touchd.json) — then a two-finger
drag. The source panel reports 4 tracking ids; conditioned, that is 3 touches, which the
daemon publishes and its virtual touchscreen must show. Every point lands in the config's
"main" window after the entry's calibration and rotation. Prints evemu events (no header:
evemu-play)."""


def frame(t, events):
    ts = f"{t:.6f}"
    for typ, code, value in events:
        print(f"E: {ts} {typ:04x} {code:04x} {value}")
    print(f"E: {ts} 0000 0000 0")


def main():
    import sys
    if sys.argv[1:]:
        print(__doc__)
        sys.exit(0 if sys.argv[1:] in (["-h"], ["--help"]) else 2)
    ABS, SLOT, TID, X, Y = 3, 0x2F, 0x39, 0x35, 0x36
    t = 1.0
    # A drag to the right, 5 units per 10 ms…
    frame(t, [(ABS, SLOT, 0), (ABS, TID, 1), (ABS, X, 200), (ABS, Y, 150)])
    for i in range(1, 11):
        t += 0.01
        frame(t, [(ABS, SLOT, 0), (ABS, X, 200 + 5 * i)])
    t += 0.01
    frame(t, [(ABS, SLOT, 0), (ABS, TID, -1)])
    # …a bounce: back 20 ms later, 2 units on, with a new tracking id; the drag goes on.
    t += 0.02
    frame(t, [(ABS, SLOT, 0), (ABS, TID, 2), (ABS, X, 252), (ABS, Y, 151)])
    for i in range(1, 11):
        t += 0.01
        frame(t, [(ABS, SLOT, 0), (ABS, X, 252 + 5 * i), (ABS, Y, 151 + i)])
    t += 0.01
    frame(t, [(ABS, SLOT, 0), (ABS, TID, -1)])
    # Two fingers, a second later, moving together, lifting together.
    t += 1.0
    frame(t, [(ABS, SLOT, 0), (ABS, TID, 3), (ABS, X, 400), (ABS, Y, 120),
              (ABS, SLOT, 1), (ABS, TID, 4), (ABS, X, 500), (ABS, Y, 250)])
    for i in range(1, 9):
        t += 0.01
        frame(t, [(ABS, SLOT, 0), (ABS, X, 400 + 4 * i), (ABS, Y, 120 + 3 * i),
                  (ABS, SLOT, 1), (ABS, X, 500 + 4 * i), (ABS, Y, 250 + 3 * i)])
    t += 0.01
    frame(t, [(ABS, SLOT, 0), (ABS, TID, -1), (ABS, SLOT, 1), (ABS, TID, -1)])


if __name__ == "__main__":
    main()
