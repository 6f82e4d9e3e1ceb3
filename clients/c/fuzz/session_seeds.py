#!/usr/bin/env python3
"""Writes the seeds of the fuzz_session target (clients/c/fuzz/corpus/session/): scripts in its
op language (fuzz_session.c's header), each naming what it plays.

    clients/c/fuzz/session_seeds.py
"""
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "session")


def place(b=52, q=1):                  # b % 16 >= 4: (b * 7 % 1000) - 200 + (q % 4) * 0.25
    return [b, q]


def frame(touches, seq=1, cut=0, snapshot=False):
    """touches: (id index 0-7, phase index 0-5, window 0 w0 / 1 w1 / 2 x / 3 none, x bytes, y bytes)."""
    out = [4 if snapshot else 0, len(touches) - 1]
    for idx, phase, win, x, y in touches:
        out += [idx] + ([] if snapshot else [phase]) + [win] + x + y
    return out + [seq, cut]


def mass(b, base=0, began=True, seq=1, cut=0):   # n = b * 5 % 1100 + 1
    return [3, b, base, 1 if began else 0, seq, cut]


def reply(kind, how, pick=0, cut=0):             # kind: 0 attached 1 updated 2 detached 3 error
    return [5, kind, how, pick, cut]


def lineless(kind, cut=0):                       # 0 pong 1 stats 2 snapshot 3 overflow
    return [7, kind, cut]


def request(k, w=0, *extra):                     # 0 ping 1 stats 2 subscribe 3 attach 4 update 5 detach 6 hitTest 7 multi-line 8 bad
    return [8, k, w] + list(extra)


def bad(case, *extra, cut=0):
    return [10, case] + list(extra) + [cut]


HALF, STALL, BLOCKED = [11], [12], [13]


def bye(r=3, cut=0):
    return [14, r, cut]


def close(mid=None):
    return [15, 0] if mid is None else [15, 1, len(mid) - 1] + mid


SEEDS = {
    "basic": [0] + request(3, 0, *place(60, 0), *place(84, 2)) + reply(0, 0, 0)
    + frame([(0, 0, 0, place(70), place(90)), (1, 0, 3, place(20), place(36))])
    + request(0, 0, 7) + lineless(0) + STALL + HALF + frame([(0, 1, 0, place(71), place(91))], cut=9)
    + request(4, 0, *place(100, 1), *place(116, 3)) + reply(1, 0, 0)
    + frame([(0, 1, 0, place(72), place(92)), (1, 3, 3, place(20), place(36))])
    + lineless(2) + request(2) + lineless(2) + request(7) + lineless(0) + bye() + close(),
    "limit": [0] + mass(200) + bad(7, 1) + mass(205, 1) + frame([(0, 0, 3, place(), place()), (0, 3, 3, place(), place())])
    + frame([(1, 0, 3, place(), place()), (2, 4, 3, place(), place())]) + mass(4, 0, False) + mass(10, 3)
    + frame([(3, 0, 3, place(), place()), (3, 0, 3, place(), place())], snapshot=True)
    + frame([(4, 0, 0, place(), place()), (7, 0, 1, place(), place())], snapshot=True)
    + close([0, 1, 2, 3]),
    "small-limit": [1] + bad(8) + mass(60) + HALF + bad(8, cut=100) + frame([(5, 0, 3, place(), place())])
    + HALF + frame([(6, 0, 3, place(), place())], cut=3) + lineless(0) + request(0, 0, 1) + lineless(0) + close(),
    "blocked": [0] + request(0, 0, 1) + frame([(1, 0, 3, place(), place())]) + BLOCKED + request(0, 0, 2)
    + lineless(0) + lineless(0) + frame([(1, 1, 3, place(), place())]) + close([9, 8, 7]),
    "out-of-order": [0] + request(3, 0, *place(), *place()) + request(3, 1, *place(68), *place(69))
    + request(0, 0, 4) + request(1) + request(5, 0) + request(8, 0, 1) + request(6)
    + reply(0, 1, 1) + reply(3, 2, 1) + reply(2, 3, 0) + lineless(0) + lineless(1) + lineless(3) + lineless(2)
    + frame([(0, 0, 0, place(), place()), (1, 0, 1, place(), place()), (2, 0, 2, place(), place())])
    + bad(0, 5, 65, 66, 10, 0, 200) + bad(1) + bad(2) + bad(3) + bad(4) + bad(5, 1) + bad(6, 2) + bad(9, 0)
    + STALL + request(0, 0, 9) + request(0, 0, 10) + HALF + bad(5, 1, cut=7) + lineless(0) + request(2) + lineless(2)
    + lineless(0) + close([0, 0]),
}

os.makedirs(OUT, exist_ok=True)
for name, script in SEEDS.items():
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(bytes(b & 255 for b in script))
    print(f"{os.path.relpath(os.path.join(OUT, name))}: {len(script)} bytes")
