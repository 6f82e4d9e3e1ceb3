"""`scripts/bench layout`: writes Benchmarks/hot-sections.txt, the sections of the functions the
packaged touchd runs, which its link gathers into one output section (scripts/lib/binary.py
static_build_args: a linker script made from the list).

Why: the kernel maps a file's code 64 KiB around each page a fault needs (fault-around), so
the ~700 KiB of code a daemon runs, spread over 6.5 MiB of .text, made nearly all of it
resident (issue 34: 6.2 MiB of the packaged binary's 12.1 MiB peak). Placed together, they
fill a few dozen such windows.

How: the packaged binary (built with one section per function) runs `scripts/bench memory`'s
scenario — `touchd run --replay` of 10 fingers at 120 Hz on the 1,000-view scene to 16
subscribers — under valgrind's callgrind, which records every function that ran; the names
of those in touchd's own binary (the Swift runtime and standard library included: they are
linked in) give the list its .text.NAME lines (and the .text.unlikely/.hot/.startup forms
clang may give a function). callgrind runs the daemon some 50 times slower, so a few paths that
depend on time (a paced replay catching up) run only at full speed; then come rounds at full
speed: the list's build runs the same scenario under `perf record -e page-faults`; every fault
that fetched an instruction from a .text input section not yet listed adds the section's name
(from the link map: private functions like .Lobjectdestroy have a section but no symbol; the
first fault in each 64 KiB window the kernel maps), and the binary is linked again, until a
round finds none (at most --rounds).

Not placeable: the standard library's Swift code that sits in one unsplit .text section
(Swift.o). Names the next build no longer has match nothing; functions it gained stay in .text
until this runs again. The file is sorted, so that its diffs stay readable.

Needs valgrind and perf (scripts/deps bench). About a minute: one callgrind run, then a link
and a run per round.
"""
import bisect
import os
import re
import subprocess
import sys
import tempfile
import time

import bench_memory
from binary import HOT_SECTIONS, LINK_MAP, ROOT, SECTION_PREFIXES, STATIC, touchd_binary

MAP_LINE = re.compile(r"^\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s+\S.*:\((\.text[^)]*)\)$")
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
    return found


def wait_for(sock, daemon):
    """Until the daemon's socket is there (the caller removed any earlier one)."""
    deadline = time.monotonic() + 60
    while not os.path.exists(sock):
        if daemon.poll() is not None or time.monotonic() > deadline:
            sys.exit("scripts/bench layout: the daemon did not open its socket")
        time.sleep(0.05)


def scenario(prefix, binary, tmp, cfg, cap):
    """Runs the scenario's daemon under `prefix` (a tool's argv) with its 16 subscribers."""
    sock = os.path.join(tmp, "touchd.sock")
    if os.path.lexists(sock):
        os.remove(sock)
    daemon = subprocess.Popen(prefix + bench_memory.daemon_argv(binary, tmp, cfg, cap), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for(sock, daemon)
    client = subprocess.run([os.path.join(tmp, "latency-client"), sock, "16"], stdout=subprocess.DEVNULL, timeout=600)
    daemon.wait(timeout=120)
    if daemon.returncode != 0 or client.returncode != 0:
        sys.exit(f"scripts/bench layout: the scenario failed under {prefix[0]} (daemon {daemon.returncode}, client {client.returncode})")


def sections(link_map):
    """(sorted start addresses, ends, names) of the .text input sections in lld's link map
    (`VMA LMA Size Align Out In Symbol`, an input section's line ending in `file:(name)`)."""
    placed = []
    with open(link_map, errors="replace") as f:
        for line in f:
            m = MAP_LINE.match(line.rstrip("\n"))
            if m and int(m.group(2), 16) > 0:
                placed.append((int(m.group(1), 16), int(m.group(1), 16) + int(m.group(2), 16), m.group(3)))
    placed.sort()
    return [p[0] for p in placed], [p[1] for p in placed], [p[2] for p in placed]


def faulted(binary, tmp, cfg, cap):
    """The .text input sections of `binary` whose code a page fault fetched while the scenario
    ran at full speed, but for the unsplit `.text` ones (listing them would gather every
    object's). A position-independent binary: perf's record of its mapping gives the base."""
    data = os.path.join(tmp, "perf.data")
    scenario(["perf", "record", "-q", "-e", "page-faults", "-c", "1", "-d", "-o", data, "--"], binary, tmp, cfg, cap)
    script = subprocess.run(["perf", "script", "-i", data, "--show-mmap-events", "-F", "ip,addr"],
                            capture_output=True, text=True).stdout
    real = os.path.realpath(binary)
    base = None
    for line in script.splitlines():
        m = re.search(r"PERF_RECORD_MMAP2? \S+ \[0x([0-9a-f]+)\(0x[0-9a-f]+\) @ (0x[0-9a-f]+|0) .*\s(\S+)$", line)
        if m and os.path.realpath(m.group(3)) == real and int(m.group(2), 16) == 0:
            base = int(m.group(1), 16)
            break
    if base is None:
        sys.exit(f"scripts/bench layout: perf recorded no mapping of {binary}")
    starts, ends, names = sections(LINK_MAP)
    found = set()
    for line in script.splitlines():
        parts = line.split()
        if len(parts) == 2 and not line.lstrip().startswith("PERF"):
            try:
                ip, addr = int(parts[0], 16), int(parts[1], 16)
            except ValueError:
                continue
            if ip != addr:                                   # not an instruction fetch
                continue
            a = addr - base
            i = bisect.bisect_right(starts, a) - 1
            if i >= 0 and a < ends[i] and names[i] != ".text":
                found.add(names[i])
    return found


def write(path, names):
    with open(path, "w") as f:
        for name in sorted(names):
            f.write(name + "\n")


def relink():
    """The packaged build again with the list as it is now (binary.py's hot_script sees the
    list changed and has the binary linked again)."""
    return touchd_binary(static=True)


def add_arguments(ap):
    ap.description = (ap.description or "") + " (lays out the packaged build, scripts/lib/binary.py --static)"
    ap.add_argument("--seconds", type=float, default=3, help="length of the 120 Hz capture (default 3)")
    ap.add_argument("--rounds", type=int, default=4, help="full-speed rounds after callgrind's (default 4)")


def run(binary, args):
    subprocess.run([os.path.join(ROOT, "scripts", "deps"), "bench"], check=True)
    if os.path.realpath(binary) != os.path.realpath(STATIC):
        sys.exit(f"scripts/bench layout: lays out the packaged build ({os.path.relpath(STATIC)}), not {binary}")
    with open(HOT_SECTIONS) as f:
        original = f.read()
    try:
        names = lay_out(args)
    except BaseException:
        # An empty list (the callgrind run's) or a half-made one must not stay behind for the
        # next scripts/deb to package: the list goes back as it was (binary.py then links the
        # packaged touchd with it again).
        with open(HOT_SECTIONS, "w") as f:
            f.write(original)
        print(f"scripts/bench layout: stopped before the end; {os.path.relpath(HOT_SECTIONS)} is as it was", file=sys.stderr)
        raise
    print(f"layout: {len(names)} section names; {os.path.relpath(HOT_SECTIONS)} lists them and {os.path.relpath(STATIC)} "
          f"is linked with it (scripts/bench memory measures it)")
    return 0


def lay_out(args):
    """The list's making (see the module's text); returns the names written."""
    with tempfile.TemporaryDirectory(prefix="touchd-layout-") as tmp:
        # callgrind names only the code in a section called .text (valgrind's reader takes the
        # code's bounds from it): its run is of the binary linked with nothing in .text.hot.
        write(HOT_SECTIONS, [])
        binary = relink()
        cfg, cap = bench_memory.scenario(binary, tmp, args.seconds)
        out = os.path.join(tmp, "callgrind.out")
        scenario(["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}", "-q"], binary, tmp, cfg, cap)
        ran = functions(out, binary)
        if len(ran) < 100:
            sys.exit(f"scripts/bench layout: only {len(ran)} functions seen running in {binary}: not writing {HOT_SECTIONS}")
        print(f"layout: callgrind saw {len(ran)} functions run", flush=True)
        names = {prefix + name for name in ran for prefix in SECTION_PREFIXES}
        for round in range(1, args.rounds + 1):
            write(HOT_SECTIONS, names)
            binary = relink()
            new = faulted(binary, tmp, cfg, cap) - names
            print(f"layout: round {round}: {len(new)} more section(s) faulted in at full speed"
                  + (f" ({', '.join(sorted(new)[:3])}{', …' if len(new) > 3 else ''})" if new else ""), flush=True)
            if not new:
                break
            names |= new
        write(HOT_SECTIONS, names)
        relink()
    return names
