#!/usr/bin/env python3
"""Taps at touchd calibrate's five default targets (800 x 480 screen) as a panel reports them
when its calibration is TRUTH: each tap a few samples around the point, a second apart. The VM
test plays them into a live device while `touchd calibrate` runs, and scripts/vm/check.py
compares the matrix it prints with TRUTH. Prints evemu events (no header: evemu-play)."""

TRUTH = [1.04, 0.03, -0.03, -0.02, 0.95, 0.04]
TARGETS = [(79.9, 47.9), (719.1, 47.9), (719.1, 431.1), (79.9, 431.1), (399.5, 239.5)]


def raw(t):
    m = TRUTH
    cx, cy = t[0] / 799 - m[2], t[1] / 479 - m[5]
    det = m[0] * m[4] - m[1] * m[3]
    return round((m[4] * cx - m[1] * cy) / det * 799), round((m[0] * cy - m[3] * cx) / det * 479)


def main():
    import sys
    if sys.argv[1:]:
        print(__doc__)
        sys.exit(0 if sys.argv[1:] in (["-h"], ["--help"]) else 2)
    tid = 0
    for k, t in enumerate(TARGETS):
        x, y = raw(t)
        base = 1.0 + k
        tid += 1
        samples = [(x + 1, y), (x, y - 1), (x, y), (x - 1, y + 1)]
        for j, (sx, sy) in enumerate(samples):
            ts = f"{base + j * 0.01:.6f}"
            print(f"E: {ts} 0003 002f 0")
            if j == 0:
                print(f"E: {ts} 0003 0039 {tid}")
            print(f"E: {ts} 0003 0035 {sx}")
            print(f"E: {ts} 0003 0036 {sy}")
            print(f"E: {ts} 0000 0000 0")
        ts = f"{base + 0.05:.6f}"
        print(f"E: {ts} 0003 002f 0")
        print(f"E: {ts} 0003 0039 -1")
        print(f"E: {ts} 0000 0000 0")


if __name__ == "__main__":
    main()
