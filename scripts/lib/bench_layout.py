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

Needs valgrind (scripts/deps bench). Takes about a minute beyond the build.
"""
import os
import re
import subprocess
import sys
import tempfile
import time

import bench_memory
from binary import HOT_SECTIONS

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
    deadline = time.monotonic() + 60
    while not os.path.exists(sock):
        if daemon.poll() is not None or time.monotonic() > deadline:
            sys.exit("scripts/bench layout: the daemon under valgrind did not open its socket")
        time.sleep(0.1)
    client = subprocess.run([os.path.join(tmp, "latency-client"), sock, "16"], stdout=subprocess.DEVNULL, timeout=seconds * 20 + 60)
    daemon.wait(timeout=120)
    if daemon.returncode != 0 or client.returncode != 0:
        sys.exit(f"scripts/bench layout: the scenario failed (daemon {daemon.returncode}, client {client.returncode})")
    return functions(out, binary)


def add_arguments(ap):
    ap.description = (ap.description or "") + " (--binary default: the packaged build, scripts/lib/binary.py --static)"
    ap.add_argument("--seconds", type=float, default=3, help="length of the 120 Hz capture (default 3)")
    ap.add_argument("--output", default=HOT_SECTIONS, help="where to write the list (default scripts/lib/hot-sections.txt)")


def run(binary, args):
    subprocess.run([os.path.join(os.path.dirname(HOT_SECTIONS), "..", "deps"), "bench"], check=True)
    with tempfile.TemporaryDirectory(prefix="touchd-layout-") as tmp:
        names = record(binary, tmp, args.seconds)
    if len(names) < 100:
        sys.exit(f"scripts/bench layout: only {len(names)} functions seen running in {binary}: not writing {args.output}")
    with open(args.output, "w") as f:
        for name in names:
            for prefix in PREFIXES:
                f.write(prefix + name + "\n")
    print(f"layout: {len(names)} functions ran in the scenario; {os.path.relpath(args.output)} lists them "
          f"(rebuild with scripts/lib/binary.py --static, then scripts/bench memory)")
    return 0
