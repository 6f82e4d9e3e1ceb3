"""`scripts/bench layout`: writes scripts/lib/hot-sections.txt, the order in which the packaged
touchd's functions are laid out (scripts/lib/binary.py static_build_args passes it to gold as
--section-ordering-file).

Why: the kernel maps a file's code 64 KiB around each page a fault needs (fault-around), so
the few hundred KiB of code a daemon runs, spread over 6.5 MiB of .text, made nearly all of it
resident (issue 34: 6.2 MiB of the packaged binary's 12.1 MiB peak). Placed together first,
they fill a few dozen such windows.

How: the packaged binary (built with one section per function) runs `scripts/bench memory`'s
scenario — `touchd run --replay` of 10 fingers at 120 Hz on the 1,000-view scene to 16
subscribers — under valgrind's callgrind, which records every function that ran; the names
of those in touchd's own binary (the Swift runtime and standard library included: they are
linked in) become `.text.NAME` lines (and the .text.unlikely/.hot/.startup forms clang may
give a function), sorted so that the file's diffs stay readable. Names the next build no
longer has are ignored by the linker; functions it gained are placed after the listed ones
until this is run again. The standard library's Swift code sits in one unsplit .text section
(Swift.o) that no list can reorder.

callgrind runs the daemon some 50 times slower, so a few paths that depend on time (a paced
replay catching up) run only at full speed. Then come rounds at full speed: the list's build
runs the same scenario under `perf record -e page-faults`; every fault that fetched an
instruction of touchd's .text outside the listed functions names a function that ran (the
first in each 64 KiB window the kernel maps), which joins the list; the binary is relinked and
run again until a round finds none (at most --rounds).

Needs valgrind and perf (scripts/deps bench). Takes a few minutes: one callgrind run, then a
relink and a run per round.
"""
import bisect
import os
import re
import subprocess
import sys
import tempfile
import time

import bench_memory
from binary import HOT_SECTIONS, LINK_MAP, STATIC, touchd_binary

PREFIXES = (".text.", ".text.unlikely.", ".text.hot.", ".text.startup.")
HEADER = re.compile(r"^(c?ob|c?fn)=\((\d+)\)(?: (.*))?$")


def functions(callgrind_out, binary):
    """The names of the functions callgrind saw run in `binary` (its own object, not libraries).
    callgrind's format names an object or function once, `ob=(N) NAME`, then by number; a
    function's cost block starts with `fn=` under the current `ob=`; `cob=`/`cfn=` name the
    callee of a call and are not where it ran."""
    objects, names, ran = {}, {}, {}
    current = None
    with open(callgrind_out, errors="replace") as f:
        for line in f:
            m = HEADER.match(line.rstrip("\n"))
            if not m:
                continue
            kind, number, name = m.groups()
            if kind.endswith("ob"):
                if name:
                    objects[number] = name
                if kind == "ob":
                    current = objects.get(number)
            else:
                if name:
                    names[number] = name
                if kind == "fn" and number in names:
                    ran[names[number]] = current
    real = os.path.realpath(binary)
    found = set()
    for name, obj in ran.items():
        if obj and os.path.realpath(obj) == real:
            name = re.sub(r"'\d+$", "", name)        # callgrind's recursion-depth suffix
            if not name.startswith(("0x", "(")):      # unnamed code: nothing to place
                found.add(name)
    return sorted(found)


def record(binary, tmp, seconds):
    cfg, cap = bench_memory.scenario(binary, tmp, seconds)
    out = os.path.join(tmp, "callgrind.out")
    daemon = subprocess.Popen(["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}", "-q"]
                              + bench_memory.daemon_argv(binary, tmp, cfg, cap), stderr=subprocess.DEVNULL)
    sock = os.path.join(tmp, "touchd.sock")
    wait_for(sock, daemon)
    client = subprocess.run([os.path.join(tmp, "latency-client"), sock, "16"], stdout=subprocess.DEVNULL, timeout=seconds * 20 + 60)
    daemon.wait(timeout=120)
    if daemon.returncode != 0 or client.returncode != 0:
        sys.exit(f"scripts/bench layout: the scenario failed (daemon {daemon.returncode}, client {client.returncode})")
    return functions(out, binary)


def sections(link_map):
    """(sorted start addresses, ends, names) of the input sections gold placed in .text, from
    its link map (-Map): a section's name on its own line or before its address and size."""
    placed = []
    pending = None
    with open(link_map, errors="replace") as f:
        for line in f:
            m = re.match(r"^ (\.text\S*)(?:\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s.*)?$", line)
            if m:
                if m.group(2):
                    placed.append((int(m.group(2), 16), int(m.group(3), 16), m.group(1)))
                    pending = None
                else:
                    pending = m.group(1)
                continue
            m = re.match(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+\S", line)
            if m and pending:
                placed.append((int(m.group(1), 16), int(m.group(2), 16), pending))
            pending = None
    placed = [p for p in placed if p[1] > 0]
    placed.sort()
    return [p[0] for p in placed], [p[0] + p[1] for p in placed], [p[2] for p in placed]


def faulted(binary, tmp, cfg, cap):
    """The .text input sections of `binary` (position-dependent: its addresses are its own)
    whose code a page fault fetched while the scenario ran at full speed, by name."""
    if b"EXEC" not in subprocess.run(["readelf", "-h", binary], capture_output=True, check=True).stdout:
        sys.exit(f"scripts/bench layout: {binary} is not a position-dependent executable (static_build_args links with -no-pie)")
    data = os.path.join(tmp, "perf.data")
    sock = os.path.join(tmp, "touchd.sock")
    if os.path.lexists(sock):
        os.remove(sock)
    daemon = subprocess.Popen(["perf", "record", "-q", "-e", "page-faults", "-c", "1", "-d", "-o", data, "--"]
                              + bench_memory.daemon_argv(binary, tmp, cfg, cap), stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    wait_for(sock, daemon)
    subprocess.run([os.path.join(tmp, "latency-client"), sock, "16"], stdout=subprocess.DEVNULL, timeout=120)
    daemon.wait(timeout=60)
    script = subprocess.run(["perf", "script", "-i", data, "-F", "ip,addr"], capture_output=True, text=True).stdout
    starts, ends, names = sections(LINK_MAP)
    found = set()
    for line in script.split("\n"):
        parts = line.split()
        if len(parts) == 2:
            ip, addr = int(parts[0], 16), int(parts[1], 16)
            i = bisect.bisect_right(starts, addr) - 1
            if ip == addr and i >= 0 and addr < ends[i]:     # an instruction fetch in a .text section
                found.add(names[i])
    return found


def wait_for(sock, daemon):
    """Until the daemon's socket is there (the caller removed any earlier one)."""
    deadline = time.monotonic() + 60
    while not os.path.exists(sock):
        if daemon.poll() is not None or time.monotonic() > deadline:
            sys.exit("scripts/bench layout: the daemon did not open its socket")
        time.sleep(0.05)


def section_names(function):
    """The sections a function named `function` may be in."""
    return {prefix + function for prefix in PREFIXES}


def write(path, names):
    with open(path, "w") as f:
        for name in sorted(names):
            f.write(name + "\n")


def relink(binary):
    """The packaged build again with the list as it is now (SwiftPM does not see the list as
    an input: the binary goes first, so that it is linked again)."""
    os.remove(binary)
    return touchd_binary(static=True)


def add_arguments(ap):
    ap.description = (ap.description or "") + " (--binary default: the packaged build, scripts/lib/binary.py --static)"
    ap.add_argument("--seconds", type=float, default=3, help="length of the 120 Hz capture (default 3)")
    ap.add_argument("--rounds", type=int, default=4, help="full-speed rounds after callgrind's (default 4)")


def run(binary, args):
    subprocess.run([os.path.join(os.path.dirname(HOT_SECTIONS), "..", "deps"), "bench"], check=True)
    if os.path.realpath(binary) != os.path.realpath(STATIC):
        sys.exit(f"scripts/bench layout: lays out the packaged build ({os.path.relpath(STATIC)}), not {binary}")
    with tempfile.TemporaryDirectory(prefix="touchd-layout-") as tmp:
        functions = record(binary, tmp, args.seconds)
        if len(functions) < 100:
            sys.exit(f"scripts/bench layout: only {len(functions)} functions seen running in {binary}: not writing {HOT_SECTIONS}")
        print(f"layout: callgrind saw {len(functions)} functions run", flush=True)
        names = set().union(*(section_names(f) for f in functions))
        cfg, cap = os.path.join(tmp, "bench.json"), os.path.join(tmp, "fingers-120hz.evemu")
        for round in range(1, args.rounds + 1):
            write(HOT_SECTIONS, names)
            binary = relink(binary)
            new = faulted(binary, tmp, cfg, cap) - names
            print(f"layout: round {round}: {len(new)} more section(s) faulted in at full speed"
                  + (f" ({', '.join(sorted(new)[:3])}{', …' if len(new) > 3 else ''})" if new else ""), flush=True)
            if not new:
                break
            names |= new
        write(HOT_SECTIONS, names)
        relink(binary)
    print(f"layout: {len(names)} section names; {os.path.relpath(HOT_SECTIONS)} lists them and {os.path.relpath(STATIC)} "
          f"is linked with it (scripts/bench memory measures it)")
    return 0
