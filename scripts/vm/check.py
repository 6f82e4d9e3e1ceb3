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
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from binary import touchd_binary  # noqa: E402


def frames_of(messages, device=None):
    return [m for m in messages if m["type"] == "frame" and (device is None or m["device"] == device)]


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
    check(len(nodes) == 3, f"three virtual touchscreens were made: {nodes}")
    cap = lambda n: os.path.join(args.captures, n)

    for key, capture in (("node1", "atmel.events"), ("node2", "edt.events")):
        if key not in nodes:
            continue
        live = normalise(frames_of(sub, nodes[key]))
        want = normalise(frames_of(replay(args.binary, args.config, cap(capture))))
        first = next((i for i in range(min(len(live), len(want))) if live[i] != want[i]), None)
        check(live == want, f"{capture} on {nodes[key]}: {len(live)} live frames over the socket == {len(want)} from touchd replay"
              + ("" if first is None else f" (first difference at frame {first}: live {live[first]} replay {want[first]})"))

    if "node3" in nodes:
        live = frames_of(sub, nodes["node3"])
        want = normalise(frames_of(replay(args.binary, args.config, cap("long.events"))))
        nlive = normalise(live)
        last = live[-1] if live else {"touches": []}
        cancelled = [t for t in last["touches"] if t["phase"] == "cancelled"]
        check(len(live) >= 2 and nlive[:-1] == want[:len(nlive) - 1],
              f"long.events on {nodes['node3']}: the {len(live) - 1} frames before the unplugging match touchd replay")
        check(len(cancelled) == 2 and all(t.get("reason") == "device-removed" for t in cancelled),
              f"unplugged mid-touch: both touches cancelled with reason device-removed ({[t.get('reason') for t in cancelled]})")
        removed = [m for m in sub if m["type"] == "device" and m["action"] == "removed" and m["device"]["id"] == nodes["node3"]]
        check(len(removed) == 1, "a device removed message went out for it")

    if "node4" in data:
        node4 = os.path.basename(data["node4"][0])
        last = {}
        for f in frames_of(sub, node4):
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
    check(added == expect, f"device added messages in plug order: {added}")

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
        live = normalise(frames_of(sub, nodes[node]))
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
