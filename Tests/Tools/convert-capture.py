#!/usr/bin/env python3
"""Converts an evemu recording into the other capture formats touchd reads, independently of
touchd's own code (a test helper: a capture converted here must replay to the same messages as
the original).

    Tests/Tools/convert-capture.py --to libinput|raw [--device-info DESC] CAPTURE -o OUT

libinput: `libinput record`-style YAML (version 1, one device, evdev: name/id/codes/absinfo/
properties, events: - evdev: [[sec, usec, type, code, value], ...] per frame), keeping the
capture's own timestamps. raw: 24-byte little-endian struct input_event records (give the
description to touchd with --device-info).
"""
import argparse
import struct
import sys


def read(path, desc):
    info = {"name": "unnamed device", "id": [0, 0, 0, 0], "bits": {}, "abs": {}, "props": []}
    events = []
    for p in ([desc] if desc else []) + [path]:
        for raw in open(p, encoding="utf-8", errors="replace").read().splitlines():
            if raw.startswith("N:"):
                info["name"] = raw[2:].strip()
                continue
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            tag, _, rest = line.partition(":")
            f = rest.split()
            if tag == "I":
                info["id"] = [int(x, 16) for x in f]
            elif tag == "P":
                info["props"] += [int(x, 16) for x in f]
            elif tag == "B":
                info["bits"].setdefault(int(f[0], 16), []).extend(int(x, 16) for x in f[1:])
            elif tag == "A":
                n = [int(x) for x in f[1:]] + [0]
                info["abs"][int(f[0], 16)] = n[:5]
            elif tag == "E" and p == path:
                sec, _, frac = f[0].partition(".")
                usec = int((frac + "000000")[:6])
                events.append((int(sec), usec, int(f[1], 16), int(f[2], 16), int(f[3])))
    return info, events


def bits(byte_list):
    return [i * 8 + b for i, byte in enumerate(byte_list) for b in range(8) if byte >> b & 1]


def to_libinput(info, events, out):
    w = out.write
    w("version: 1\nndevices: 1\nlibinput:\n  version: \"convert-capture.py\"\ndevices:\n- node: /dev/input/event0\n  evdev:\n")
    w("    name: %s\n" % ('"' + info["name"].replace("\\", "\\\\").replace('"', '\\"') + '"'))
    w("    id: [%s]\n" % ", ".join(str(x) for x in info["id"]))
    w("    codes:\n")
    types = sorted(set(bits(info["bits"].get(0, []))) | {0} | set(t for t in info["bits"] if t != 0) | ({3} if info["abs"] else set()))
    for t in types:
        codes = set(bits(info["bits"].get(t, []))) if t != 0 else {0, 2, 3}
        if t == 3:
            codes |= set(info["abs"])
        w("      %d: [%s]\n" % (t, ", ".join(str(c) for c in sorted(codes))))
    w("    absinfo:\n")
    for c in sorted(info["abs"]):
        w("      %d: [%s]\n" % (c, ", ".join(str(x) for x in info["abs"][c])))
    w("    properties: [%s]\n" % ", ".join(str(p) for p in bits(info["props"])))
    w("  events:\n")
    frame = []
    for e in events:
        frame.append(e)
        if e[2] == 0 and e[3] == 0:
            w("  - evdev:\n")
            for x in frame:
                w("    - [%d, %d, %d, %d, %d]\n" % x)
            frame = []
    if frame:
        w("  - evdev:\n")
        for x in frame:
            w("    - [%d, %d, %d, %d, %d]\n" % x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--to", choices=["libinput", "raw"], required=True)
    ap.add_argument("--device-info")
    ap.add_argument("capture")
    ap.add_argument("-o", required=True)
    a = ap.parse_args()
    info, events = read(a.capture, a.device_info)
    if a.to == "raw":
        with open(a.o, "wb") as f:
            for e in events:
                f.write(struct.pack("<qqHHi", *e))
    else:
        with open(a.o, "w") as f:
            to_libinput(info, events, f)


if __name__ == "__main__":
    sys.exit(main())
