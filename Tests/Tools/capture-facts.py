#!/usr/bin/env python3
"""capture-facts.py - an independent oracle for touchd's tests.

Reads an evemu recording of a Linux evdev touchscreen and prints facts about
its touches as one JSON line: {"protocol": "B"|"A"|"single", "contacts": N,
"maxFingers": N, "frames": N, "events": N, "xRange": [min, max],
"yRange": [min, max], "positionsInRange": true|false}.
Written from the evdev/evemu format rules only; it deliberately shares no code
with the Swift project, so tests compare two independent readings of a capture.

Usage: capture-facts.py [--device-info DESC] CAPTURE [--screen W H]
       capture-facts.py --all DIR [--screen W H]
Split recordings keep N:/I:/P:/B:/A: lines in a .desc/.prop file: pass it with
--device-info.  --all prints {"file": NAME, ...facts} for each *.events/*.event
in DIR, pairing a header-less X.events with X.desc (or X.prop).
xRange/yRange: min/max of the ABS_MT_POSITION_X/Y (single-touch: ABS_X/Y)
values seen in events, null if none (the quirky eGalax capture only moves
ABS_Z/ABS_RX; positionsInRange is then vacuously true).  --screen W H adds
"screenXRange"/"screenYRange": those ranges mapped with identity calibration,
(v - min) / (max - min) * (W - 1) (resp. H), min/max being the advertised range
(the convention touchd documents: the axis minimum and maximum are the screen's first and
last point, 0 and W - 1, so the mapping is symmetric under every flip and rotation).
Errors print FILE:LINE: message to stderr and exit 1 (LINE 0 = whole file).
"""
import argparse
import json
import os
import re
import sys

EV_SYN, EV_KEY, EV_ABS, SYN_REPORT, SYN_MT_REPORT = 0x00, 0x01, 0x03, 0x00, 0x02
BTN_TOUCH, ABS_X, ABS_Y = 0x14a, 0x00, 0x01
# every ABS code >= ABS_MT_SLOT is a multitouch code
ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID = 0x2f, 0x35, 0x36, 0x39
HEX = re.compile(r'[0-9a-fA-F]+')
INT = re.compile(r'[+-]?[0-9]+')  # evemu may zero-pad: "0021" = 21, "-001" = -1
TIME = re.compile(r'[0-9]+\.[0-9]+')


class Fail(Exception):
    def __init__(self, path, line, msg):
        super().__init__('%s:%d: %s' % (path, line, msg))


def parse(path, dev, events):
    """Add the A:/B: facts of one evemu file to dev; append its E: lines to
    events as (line, type, code, value), or reject them if events is None."""
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise Fail(path, 0, 'cannot read: %s' % e.strerror)
    for n, raw in enumerate(lines, 1):
        if raw.startswith('N:'):  # a name may contain anything, even '#'
            dev['header'] = True
            continue
        line = raw.split('#', 1)[0].strip()  # drop "# comment" and tails
        if not line:
            continue
        tag, colon, rest = line.partition(':')
        f = rest.split()

        def need(ok, what):
            if not (colon and ok):
                raise Fail(path, n, 'malformed %s line: %r' % (what, raw))
        if tag == 'E':
            need(len(f) == 4 and TIME.fullmatch(f[0]) and HEX.fullmatch(f[1])
                 and HEX.fullmatch(f[2]) and INT.fullmatch(f[3]), 'E: (event)')
            if events is None:
                raise Fail(path, n, 'event line in a device description')
            events.append((n, int(f[1], 16), int(f[2], 16), int(f[3])))
        elif tag == 'A':
            need(len(f) in (5, 6) and HEX.fullmatch(f[0])
                 and all(INT.fullmatch(x) for x in f[1:]), 'A: (axis)')
            dev['abs'][int(f[0], 16)] = (int(f[1]), int(f[2]))
            dev['header'] = dev['described'] = True
        elif tag == 'B':
            need(len(f) >= 2 and all(HEX.fullmatch(x) and len(x) <= 2
                                     for x in f), 'B: (bitmask)')
            # several B: lines of one type concatenate into one bitmask
            dev['bits'].setdefault(int(f[0], 16), []).extend(
                int(x, 16) for x in f[1:])
            dev['header'] = dev['described'] = True
        elif tag in ('I', 'P'):
            need(f and all(HEX.fullmatch(x) for x in f), tag + ': (header)')
            dev['header'] = True
        else:
            raise Fail(path, n, 'unrecognised line: %r' % raw)


# getevent -lt names (the kernel's) of the codes the counting below needs
GETEVENT_CODES = {'SYN_REPORT': (EV_SYN, SYN_REPORT), 'SYN_MT_REPORT': (EV_SYN, SYN_MT_REPORT),
                  'BTN_TOUCH': (EV_KEY, BTN_TOUCH), 'ABS_MT_SLOT': (EV_ABS, ABS_MT_SLOT),
                  'ABS_MT_POSITION_X': (EV_ABS, ABS_MT_POSITION_X), 'ABS_MT_POSITION_Y': (EV_ABS, ABS_MT_POSITION_Y),
                  'ABS_MT_TRACKING_ID': (EV_ABS, ABS_MT_TRACKING_ID)}
GETEVENT = re.compile(r'\[\s*([0-9.]+)\]\s+(?:\S+:\s+)?(EV_\w+)\s+(\w+)\s+([0-9a-fA-F]{8})\s*$')


def load_getevent(path):
    """An Android `getevent -lt` log: the device is described by what it uses (positions 0..max
    seen, slots if ABS_MT_SLOT appears, protocol A if SYN_MT_REPORT does)."""
    dev, events = {'abs': {}, 'bits': {}, 'header': True, 'described': True}, []
    with open(path, encoding='utf-8', errors='replace') as f:
        for n, raw in enumerate(f.read().splitlines(), 1):
            m = GETEVENT.match(raw.strip())
            if not m:
                if raw.strip() and not raw.strip().startswith(('add device', 'name:', 'could not')):
                    raise Fail(path, n, 'unrecognised getevent line: %r' % raw)
                continue
            name, value = m.group(3), int(m.group(4), 16)
            if value >= 1 << 31:
                value -= 1 << 32
            if name in GETEVENT_CODES:
                t, c = GETEVENT_CODES[name]
                events.append((n, t, c, value))
                if t == EV_ABS:
                    lo, hi = dev['abs'].get(c, (0, 0))
                    dev['abs'][c] = (0, max(hi, value))
    if not any(c == SYN_MT_REPORT for _, t, c, _ in events if t == EV_SYN):
        dev['abs'].setdefault(ABS_MT_SLOT, (0, 0))
    return dev, events


def has_abs(dev, code):
    mask = dev['bits'].get(EV_ABS, [])
    return code in dev['abs'] or (
        code // 8 < len(mask) and bool(mask[code // 8] >> (code % 8) & 1))


def load(capture, desc=None, auto=False):
    """Parse a capture (plus its description) into (dev, events)."""
    dev, events = {'abs': {}, 'bits': {}, 'header': False, 'described': False}, []
    if desc:
        parse(desc, dev, None)
    parse(capture, dev, events)
    if auto and not dev['header']:  # --all: X.events pairs with X.desc/.prop
        base = os.path.splitext(capture)[0]
        for ext in ('.desc', '.prop'):
            if os.path.exists(base + ext):
                parse(base + ext, dev, None)
                break
    if not dev['described']:
        raise Fail(capture, 1, 'no device description (A:/B: lines); '
                   'pass --device-info DESC')
    return dev, events


def facts(capture, dev, events, screen=None):
    if has_abs(dev, ABS_MT_SLOT):
        protocol, axes = 'B', (ABS_MT_POSITION_X, ABS_MT_POSITION_Y)
    elif has_abs(dev, ABS_MT_POSITION_X):
        protocol, axes = 'A', (ABS_MT_POSITION_X, ABS_MT_POSITION_Y)
    elif has_abs(dev, ABS_X):
        protocol, axes = 'single', (ABS_X, ABS_Y)
    else:
        raise Fail(capture, 0, 'device has neither ABS_MT_POSITION_X nor ABS_X')
    seen = {a: None for a in axes}  # axis -> [min, max] of values in events
    in_range = True
    contacts = max_fingers = frames = 0
    slot, active = 0, {}  # B: current slot; slot -> live tracking id
    blocks = prev_blocks = 0  # A: non-empty SYN_MT_REPORT blocks per frame
    block_has_mt = touching = False  # A: block so far has MT data; single: BTN_TOUCH
    for _, typ, code, value in events:
        if typ == EV_ABS and code in seen:
            r = seen[code]
            seen[code] = [value, value] if r is None else [min(r[0], value), max(r[1], value)]
            lo, hi = dev['abs'].get(code, (None, None))
            in_range = in_range and lo is not None and lo <= value <= hi
        if protocol == 'B' and typ == EV_ABS and code == ABS_MT_SLOT:
            slot = value
        elif protocol == 'B' and typ == EV_ABS and code == ABS_MT_TRACKING_ID:
            if value < 0:
                active.pop(slot, None)
            else:
                contacts += slot not in active  # a new id in a live slot is not counted
                active[slot] = value
        elif protocol == 'A' and typ == EV_ABS and code >= ABS_MT_SLOT:
            block_has_mt = True
        elif protocol == 'A' and typ == EV_SYN and code == SYN_MT_REPORT:
            blocks += block_has_mt  # an empty block means "no contacts"
            block_has_mt = False
        elif protocol == 'single' and typ == EV_KEY and code == BTN_TOUCH:
            contacts += bool(value) and not touching
            touching = bool(value)
        if typ == EV_SYN and code == SYN_REPORT:
            frames += 1
            if protocol == 'B':
                max_fingers = max(max_fingers, len(active))
            elif protocol == 'A':
                # Approximation: protocol A without tracking ids cannot tell
                # which finger is which, so a contact is counted whenever the
                # number of non-empty blocks rises above the previous frame's
                # (the first frame counts in full, since prev_blocks starts
                # at 0).  A finger lifted and another put down in the same
                # frame is therefore missed.
                contacts += max(0, blocks - prev_blocks)
                max_fingers = max(max_fingers, blocks)
                prev_blocks, blocks, block_has_mt = blocks, 0, False
    if protocol == 'single':
        max_fingers = 1 if contacts else 0
    out = {'protocol': protocol, 'contacts': contacts, 'maxFingers': max_fingers,
           'frames': frames, 'events': len(events), 'xRange': seen[axes[0]],
           'yRange': seen[axes[1]], 'positionsInRange': in_range}
    for key, axis, size in zip(('screenXRange', 'screenYRange'), axes, screen or ()):
        lo, hi = dev['abs'].get(axis, (0, 0))
        out[key] = None if seen[axis] is None or hi == lo else [
            round((v - lo) * (size - 1) / (hi - lo), 6) for v in seen[axis]]
    return out


def main():
    ap = argparse.ArgumentParser(description='Independent oracle: facts about '
                                 'the touches in an evemu capture.')
    ap.add_argument('--device-info', metavar='DESC')
    ap.add_argument('--screen', nargs=2, type=float, metavar=('W', 'H'))
    ap.add_argument('--all', metavar='DIR')
    ap.add_argument('--getevent', action='store_true', help='--all: read the *.txt getevent logs instead')
    ap.add_argument('capture', nargs='?', metavar='CAPTURE')
    args = ap.parse_args()
    if bool(args.all) == bool(args.capture) or (args.all and args.device_info):
        ap.error('give either CAPTURE (with optional --device-info) or --all DIR')
    jobs, status = [(args.capture, None)], 0
    if args.all:
        try:
            jobs = [(os.path.join(args.all, n), n) for n in sorted(os.listdir(args.all))
                    if n.endswith(('.txt',) if args.getevent else ('.events', '.event'))]
        except OSError as e:
            print('%s:0: cannot list: %s' % (args.all, e.strerror), file=sys.stderr)
            return 1
    for path, name in jobs:
        try:
            if path.endswith('.txt'):
                dev, events = load_getevent(path)
            else:
                dev, events = load(path, args.device_info, auto=bool(name))
            out = dict({'file': name} if name else {}, **facts(path, dev, events, args.screen))
            print(json.dumps(out))
        except Fail as e:  # report, and in --all mode go on with the next file
            print(e, file=sys.stderr)
            status = 1
    return status


if __name__ == '__main__':
    sys.exit(main())
