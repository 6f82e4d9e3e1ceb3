#!/usr/bin/env python3
"""Checks what the VM saw (scripts/vm/live-test.sh) against `touchd replay` on the host.

    scripts/vm/check.py [--binary BIN] --config CFG --serial LOG --captures DIR

For each virtual touchscreen, the frames a subscriber received over the socket from the live
daemon must be the frames `touchd replay` produces for the same capture (times, sequence
numbers and touch ids aside: ids are renumbered per device in order of appearance). The
device unplugged mid-touch must match up to the unplugging and then cancel every touch with
reason device-removed. The recording made with `touchd record` in the VM must replay to the
live frames. Prints one line per check and 'N passed, N failed'.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from binary import touchd_binary  # noqa: E402


def frames_of(messages, device=None):
    return [m for m in messages if m["type"] == "frame" and (device is None or m["device"] == device)]


# The VM's devices in the order they are plugged in (live-test.sh): their "device added"
# messages come in this order. Event node numbers are reused after an unplugging (the uinput
# source gets the unplugged node3's), so a device's messages are those of its attachment.
PLUG_ORDER = ("node1", "node2", "node4", "node3", "node6", "node6b")


def attachments(messages):
    """Per "device added" message, in order: the device's id and the messages from it up to
    and including that device's "device removed" (or the end)."""
    out = []
    for i, m in enumerate(messages):
        if m["type"] != "device" or m["action"] != "added":
            continue
        dev, seg = m["device"]["id"], []
        for n in messages[i + 1:]:
            if n["type"] == "device" and n["device"]["id"] == dev:
                if n["action"] == "removed":
                    seg.append(n)
                break
            if n.get("device") == dev or n["type"] != "frame":
                seg.append(n)
        out.append((dev, seg))
    return out


def normalise(frames):
    ids = {}
    def nid(i):
        return ids.setdefault(i, len(ids) + 1)
    out = []
    for f in frames:
        touches = []
        for t in f["touches"]:
            t = dict(t)
            t["id"] = nid(t["id"])
            # A time, like the frame's: the kernel's live, the capture's in a replay.
            t.pop("timestamp", None)
            touches.append(json.dumps(t, sort_keys=True))
        calls = [(c["responder"], c["method"], [nid(i) for i in c["touches"]]) for c in f["calls"]]
        out.append((touches, calls))
    return out


def replay(touchd, config, capture):
    r = subprocess.run([touchd, "replay", "--config", config, capture], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise SystemExit(f"touchd replay {capture}: {r.stderr}")
    return [json.loads(l) for l in r.stdout.splitlines()]


def half_up(v):
    """Swift's rounded(): halves away from zero (Python's round() goes to even)."""
    return math.floor(v + 0.5) if v >= 0 else -math.floor(-v + 0.5)


def dedupe(points):
    return [p for i, p in enumerate(points) if i == 0 or p != points[i - 1]]


def published_paths(frames):
    """Each touch's path in rounded screen points (began and moved; the window is at 0, 0)."""
    paths, windows = {}, set()
    for f in frames:
        for t in f["touches"]:
            if t["phase"] in ("began", "moved"):
                windows.add(t.get("window"))
                paths.setdefault(t["id"], []).append(tuple(half_up(v) for v in t["location"]))
    return sorted(dedupe(p) for p in paths.values()), windows


def evdev_paths(lines):
    """Each contact's path on a protocol B device, from evemu-record's events: the slot's
    position after every SYN_REPORT where it began or moved; also every tracking id seen and
    BTN_TOUCH's values."""
    slot, slots, contacts, ids, btn = 0, {}, [], [], []
    changed = set()
    for line in lines:
        f = line.split()
        if len(f) < 5 or f[0] != "E:":
            continue
        typ, code, value = int(f[2], 16), int(f[3], 16), int(f[4])
        if typ == 3 and code == 0x2F:
            slot = value
        elif typ == 3 and code == 0x39:
            if value >= 0:
                ids.append(value)
                slots[slot] = {"path": [], "x": None, "y": None}
                contacts.append(slots[slot])
                changed.add(slot)
            else:
                slots.pop(slot, None)
        elif typ == 3 and code in (0x35, 0x36) and slot in slots:
            slots[slot]["x" if code == 0x35 else "y"] = value
            changed.add(slot)
        elif typ == 1 and code == 0x14A:
            btn.append(value)
        elif typ == 0 and code == 0:
            for s in changed:
                if s in slots:
                    slots[s]["path"].append((slots[s]["x"], slots[s]["y"]))
            changed = set()
    return sorted(dedupe(c["path"]) for c in contacts), ids, btn


def libinput_paths(lines):
    """Each touch's path from `libinput debug-events` (TOUCH_DOWN / TOUCH_MOTION lines: slot,
    seat slot, percent of the axes, millimetres), in device units: mm × 8 units/mm."""
    current, touches, added = {}, [], ""
    for line in lines:
        if "DEVICE_ADDED" in line:
            added = line
        # libinput 1.28 (Debian 13, the arm64 VM's) writes a number between a repeated event's
        # name and its time ("TOUCH_MOTION   2  +0.021s"); 1.22 (the amd64 host's) does not.
        m = re.search(r"TOUCH_(DOWN|MOTION)\s+(?:\d+\s+)?\+\S+s\s+(\d+) \(\d+\)\s+[\d.]+/\s*[\d.]+ \(\s*([\d.]+)/\s*([\d.]+)mm\)", line)
        if m:
            point = (half_up(float(m.group(3)) * 8), half_up(float(m.group(4)) * 8))
            if m.group(1) == "DOWN":
                current[m.group(2)] = [point]
                touches.append(current[m.group(2)])
            elif m.group(2) in current:
                current[m.group(2)].append(point)
    return sorted(dedupe(t) for t in touches), added


def check_uinput(data, messages, check):
    """devices[].uinput (live-test.sh step 5): the virtual touchscreen's contacts are the
    points the daemon published for its source (`messages`: its attachment's), one touch where
    the source bounced."""
    if "node6" not in data or "vrec" not in data:
        check(False, "the uinput source and its virtual touchscreen's recording came back from the VM")
        return
    source = os.path.basename(data["node6"][0])
    want, windows = published_paths(frames_of(messages, source))
    check(windows == {"main"}, f"the uinput source's touches are all in window main (at 0, 0): {windows}")
    got, ids, btn = evdev_paths(data["vrec"])
    check(len(want) == 3 and got == want,
          f"virtual touchscreen (evemu-record): {len(got)} contacts whose positions are the {len(want)} published touches' "
          f"rounded points ({sum(map(len, got))} positions; first {got[0][:3] if got else []}, published {want[0][:3] if want else []})")
    check(len(ids) == len(set(ids)) == 3 and btn == [1, 0, 1, 0],
          f"virtual touchscreen: tracking ids {ids} (the bounce is one), BTN_TOUCH {btn}")
    if "libinput" in data:
        paths, added = libinput_paths(data["libinput"])
        check("cap:t" in added and "touchd re-exported touchscreen" in added,
              f"libinput sees a touch device named \"touchd re-exported touchscreen\": {added.strip()}")
        touch_lines = [l.strip() for l in data["libinput"] if "TOUCH_" in l]
        check(paths == want, f"libinput debug-events: {len(paths)} touches (the bounce is one) along the published points "
                             f"(first {paths[0][:3] if paths else []}, published {want[0][:3] if want else []}; points per touch "
                             f"{[len(p) for p in paths]}, published {[len(p) for p in want]}; "
                             f"{sum('TOUCH_MOTION' in l for l in touch_lines)} TOUCH_MOTION lines, the first TOUCH lines: {touch_lines[:4]})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", metavar="PATH", help="the touchd that replays on the host (default: the newest build)")
    ap.add_argument("--config", required=True)
    ap.add_argument("--serial", required=True)
    ap.add_argument("--captures", required=True, help="directory holding atmel.events, edt.events, long.events")
    ap.add_argument("--label", default="vm")
    args = ap.parse_args()
    args.binary = touchd_binary(args.binary)

    data = {}
    vm_ok = vm_fail = 0
    for line in open(args.serial, encoding="utf-8", errors="replace"):
        line = line.rstrip("\r\n")
        if line.startswith("VMDATA "):
            _, name, rest = (line.split(" ", 2) + [""])[:3]
            data.setdefault(name, []).append(rest)
        elif line.startswith("VMTEST ok"):
            vm_ok += 1
        elif line.startswith("VMTEST FAIL"):
            vm_fail += 1
    passed, failed = vm_ok, vm_fail

    def check(ok, what):
        nonlocal passed, failed
        print(f"{args.label}: {'ok' if ok else 'FAIL'} {what}", flush=True)
        if ok:
            passed += 1
        else:
            failed += 1

    sub = [json.loads(l) for l in data.get("sub", []) if l.startswith("{")]
    nodes = {k: os.path.basename(data[k][0]) for k in ("node1", "node2", "node3") if k in data}
    plugged = [k for k in PLUG_ORDER if k in data]
    attached = dict(zip(plugged, attachments(sub)))

    def messages_of(key):
        """The messages of a plugged device's attachment (all of its id's when the plug order
        went wrong, which the "device added" check reports)."""
        dev = os.path.basename(data[key][0])
        if key in attached and attached[key][0] == dev:
            return attached[key][1]
        return [m for m in sub if m.get("device") == dev or (m["type"] == "device" and m["device"]["id"] == dev)]
    check(len(nodes) == 3, f"three virtual touchscreens were made: {nodes}")
    cap = lambda n: os.path.join(args.captures, n)

    for key, capture in (("node1", "atmel.events"), ("node2", "edt.events")):
        if key not in nodes:
            continue
        live = normalise(frames_of(messages_of(key), nodes[key]))
        want = normalise(frames_of(replay(args.binary, args.config, cap(capture))))
        first = next((i for i in range(min(len(live), len(want))) if live[i] != want[i]), None)
        check(live == want, f"{capture} on {nodes[key]}: {len(live)} live frames over the socket == {len(want)} from touchd replay"
              + ("" if first is None else f" (first difference at frame {first}: live {live[first]} replay {want[first]})"))

    if "node3" in nodes:
        live = frames_of(messages_of("node3"), nodes["node3"])
        want = normalise(frames_of(replay(args.binary, args.config, cap("long.events"))))
        nlive = normalise(live)
        last = live[-1] if live else {"touches": []}
        cancelled = [t for t in last["touches"] if t["phase"] == "cancelled"]
        check(len(live) >= 2 and nlive[:-1] == want[:len(nlive) - 1],
              f"long.events on {nodes['node3']}: the {len(live) - 1} frames before the unplugging match touchd replay")
        check(len(cancelled) == 2 and all(t.get("reason") == "device-removed" for t in cancelled),
              f"unplugged mid-touch: both touches cancelled with reason device-removed ({[t.get('reason') for t in cancelled]})")
        removed = [m for m in messages_of("node3") if m["type"] == "device" and m["action"] == "removed" and m["device"]["id"] == nodes["node3"]]
        check(len(removed) == 1, "a device removed message went out for it")

    if "node4" in data:
        node4 = os.path.basename(data["node4"][0])
        last = {}
        for f in frames_of(messages_of("node4"), node4):
            for t in f["touches"]:
                last[t["id"]] = t["phase"] + (f"({t['reason']})" if "reason" in t else "")
        stuck = {i: p for i, p in last.items() if not (p.startswith("ended") or p.startswith("cancelled"))}
        check(len(last) > 0 and not stuck, f"after SYN_DROPPED on {node4}: {len(last)} touch(es), none left stuck ({stuck})")
        # The finger that was down when events were lost had lifted meanwhile: libevdev's resync
        # says so, and it is cancelled with reason resync (not ended: its end was never seen).
        check(last.get(min(last) if last else -1) == "cancelled(resync)", f"the touch down at the drop was cancelled with reason resync ({last})")
    else:
        check(False, "the SYN_DROPPED device was made")

    added = [m["device"]["id"] for m in sub if m["type"] == "device" and m["action"] == "added"]
    expect = [nodes.get("node1"), nodes.get("node2")] + ([os.path.basename(data["node4"][0])] if "node4" in data else []) + [nodes.get("node3")]
    # The uinput source, plugged twice; never touchd's own virtual touchscreens.
    expect += [os.path.basename(data[k][0]) for k in ("node6", "node6b") if k in data]
    check(added == expect, f"device added messages in plug order: {added}")

    check_uinput(data, messages_of("node6") if "node6" in data else [], check)

    # The recordings made in the VM replay, on the host, to the frames the live daemon sent.
    for rec, node, ext, what in (("rec1", "node1", "events", "touchd record's file"),
                                 ("rec2", "node2", "yml", "touchd record --format libinput's file")):
        if rec not in data or node not in nodes:
            check(False, f"{what} came back from the VM")
            continue
        path = os.path.join(os.path.dirname(os.path.abspath(args.serial)), f"{args.label}-{rec}.{ext}")
        with open(path, "w") as f:
            f.write("\n".join(data[rec]) + "\n")
        recorded = normalise(frames_of(replay(args.binary, args.config, path)))
        live = normalise(frames_of(messages_of(node), nodes[node]))
        check(recorded == live, f"{what} replays to the {len(live)} live frames ({len(recorded)} replayed)")

    # touchd calibrate live: the matrix of the panel's known distortion (calibration-taps.py).
    truth = [1.04, 0.03, -0.03, -0.02, 0.95, 0.04]
    line = (data.get("calibrate") or [""])[0]
    try:
        matrix = json.loads(line)["calibration"]
    except (ValueError, KeyError, TypeError):
        matrix = []
    check(len(matrix) == 6 and all(abs(a - b) < 5e-3 for a, b in zip(matrix, truth)),
          f"touchd calibrate on a live device recovered the panel's matrix: {matrix}")

    print(f"{args.label}: {passed} passed, {failed} failed")
    sys.exit(0 if failed == 0 else 1)


if __name__ == "__main__":
    main()
