"""`scripts/bench memory`: what the packaged touchd's peak memory is made of (figures, not
pass/fail).

The packaged binary — the static one (scripts/lib/binary.py --static), stripped as scripts/deb
strips it — runs the latency benchmark's scenario: `touchd run --replay` of 10 fingers at
120 Hz on the 1,000-view scene, 16 subscribers reading frames (Benchmarks/latency-client.c).
Every 50 ms this reads /proc/PID/smaps and keeps the sample with the most resident memory;
at the end it prints the peak (VmHWM) and that sample's resident memory by what it is:

  text / rodata / data+bss   the binary's own pages (code touched, constants, globals)
  lib*.so*                   each shared library (code and data together)
  heap (brk)                 malloc's main arena ([heap])
  anonymous (mmap)           unnamed mappings: large allocations, thread stacks
  stack                      the main thread's stack
  kernel                     [vdso] [vvar] and the like

The socket's group is this user's own (in /etc/group), as `touchd` is where the package made
it: the default `touchd`, missing here, would send glibc past /etc/group to the NSS modules of
nsswitch.conf (libnss_systemd and libcap: about 360 KiB a board does not load).

beside the same for the yardstick: a static Swift program that prints a line and sleeps,
built the same way (swiftc -O -static-stdlib) and stripped the same way. Both ways a board
starts it (issue 48): cold, both binaries' pages dropped from the page cache first
(posix_fadvise), as after a boot; and warm, the whole file read into the page cache first, as
after installing it or a restart (a fault then maps the cached pages around the one it needs,
64 KiB of fault-around, where a cold fault maps the one page: the text's resident size depends
on how the kernel brought the file in). Medians of --runs runs of each (the breakdown is the
median run's); --cold or --warm for one of the two.

Then, for the packaged build itself, whether its layout is current: the scenario once more under
`perf record -e page-faults` (as `scripts/bench layout` runs it), and every code fault that landed
in a section Benchmarks/hot-sections.txt does not list is named. A function added since the list
was made sits in .text among the cold ones, and each one the daemon runs costs a 64 KiB window
of fault-around (more with a warm cache, whose large folios are mapped whole): issue 48 found
the peak at 8.0 MiB cold and 8.3 MiB warm with a list two rounds of work old, 7.6 both ways
once `scripts/bench layout` had made it again. --no-layout-check leaves it out.

--arm64 A [B]: the same scenario run by aarch64 touchd binaries (scripts/cross-arm64's) under
qemu-aarch64-static with the arm64 sysroot's libraries (scripts/debian-root arm64 --sysroot),
A and B in alternating runs: the peak (VmHWM) of the emulator's process, which holds the
guest's pages and its own (translated code, its heap), so only the difference of two builds
means anything; no breakdown. For a layout of the arm64 package where no arm64 board is at
hand.
"""
import grp
import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time

import bench_yardsticks
from binary import STATIC, bench_command, touchd_binary

STRIP = ["strip", "--strip-unneeded", "--remove-section=.comment", "--remove-section=.note"]   # as scripts/deb
HEADER = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$")
YARDSTICK = 'print("touchd memory yardstick: a static Swift program that prints a line and sleeps")\n' \
            '#if canImport(Glibc)\nimport Glibc\n#endif\nsleep(30)\n'


def smaps(pid, binary):
    """{part: resident KiB} of a process, or None once it is gone."""
    parts = {}
    real = os.path.realpath(binary)
    try:
        with open(f"/proc/{pid}/smaps") as f:
            text = f.read()
    except OSError:
        return None
    part, prev_end, prev_part = None, None, None
    for line in text.splitlines():
        m = HEADER.match(line)
        if m:
            start, end, perms, path = int(m.group(1), 16), int(m.group(2), 16), m.group(3), m.group(4).strip()
            if path == real or path.endswith(" (deleted)") and path[:-10] == real:
                part = "text" if "x" in perms else "data+bss" if "w" in perms else "rodata"
            elif not path:
                # .bss beyond the file's last page is an unnamed mapping right after the data.
                part = "data+bss" if prev_part == "data+bss" and prev_end == start else "anonymous (mmap)"
            elif path == "[heap]":
                part = "heap (brk)"
            elif path.startswith("[stack"):
                part = "stack"
            elif path.startswith("["):
                part = "kernel"
            else:
                part = os.path.basename(path)
            prev_end, prev_part = end, part
        elif line.startswith("Rss:") and part is not None:
            parts[part] = parts.get(part, 0) + int(line.split()[1])
    return parts


def vm_hwm(pid):
    return bench_yardsticks.peak_rss_kib(pid)


def cold(path):
    """Drops the file's pages from the page cache (its own, no one else's), so that the run
    reads it from the disk as a board's first start after boot does: a file just written (the
    stripped copy) is in the cache in large folios, and what a fault maps around the page it
    needs depends on them (the text's resident size moved by 0.5 MiB from run to run)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def packaged(binary, tmp, name):
    """A copy of `binary` stripped as the package strips it."""
    out = os.path.join(tmp, name)
    shutil.copy(binary, out)
    subprocess.run(STRIP + [out], check=True)
    return out


def yardstick(tmp):
    src = os.path.join(tmp, "yardstick.swift")
    with open(src, "w") as f:
        f.write(YARDSTICK)
    out = os.path.join(tmp, "yardstick-unstripped")
    subprocess.run(["swiftc", "-O", "-static-stdlib", "-o", out, src], check=True, cwd=tmp)
    return packaged(out, tmp, "yardstick")


def warm(path):
    """Reads the whole file, so that every page of it is in the page cache (as after dpkg wrote
    it, or anything read it): the most a fault can find there to map around the page it needs."""
    with open(path, "rb") as f:
        while f.read(1 << 20):
            pass


def prepare(path, warm_cache):
    if warm_cache:
        warm(path)
    else:
        cold(path)


def measure_yardstick(program, warm_cache=False):
    prepare(program, warm_cache)
    p = subprocess.Popen([program], stdout=subprocess.DEVNULL)
    time.sleep(0.5)   # printed (into stdio's buffer: not a terminal) and sleeping
    parts, hwm = smaps(p.pid, program), vm_hwm(p.pid)
    p.kill()
    p.wait()
    return hwm, parts


def measure_daemon(binary, tmp, cfg, cap, wrapper=(), warm_cache=False):
    """The scenario's daemon run (through `wrapper`, e.g. qemu-user) with its 16 subscribers,
    the binary's page cache cold or warm: its VmHWM (KiB) and its fullest smaps sample; exits
    if it failed."""
    sock = os.path.join(tmp, "touchd.sock")
    client = os.path.join(tmp, "latency-client")
    prepare(binary, warm_cache)
    daemon = subprocess.Popen(list(wrapper) + daemon_argv(binary, tmp, cfg, cap), stderr=subprocess.DEVNULL)
    measuring = subprocess.Popen([client, sock, "16"], stdout=subprocess.PIPE, text=True)
    best, hwm = {}, 0
    while daemon.poll() is None:
        parts = smaps(daemon.pid, binary)
        hwm = max(hwm, vm_hwm(daemon.pid) or 0)
        if parts and sum(parts.values()) > sum(best.values()):
            best = parts
        time.sleep(0.05)
    frames = measuring.communicate(timeout=30)[0].split()[:1]
    if daemon.returncode != 0 or not frames:
        raise SystemExit(f"scripts/bench memory: {binary} ended with {daemon.returncode}, its client read {frames or 'nothing'}")
    return hwm, best


def order(parts):
    """Fixed rows first, then the libraries by size."""
    fixed = ["text", "rodata", "data+bss", "heap (brk)", "anonymous (mmap)", "stack", "kernel"]
    libs = sorted((k for k in parts if k not in fixed), key=lambda k: -parts[k])
    return fixed + libs


def report(seconds, runs, results, sizes):
    """results: {"cold"|"warm": ((touchd's VmHWM, parts), (the yardstick's))}, one column each."""
    print(f"memory: the packaged (static, stripped) touchd running 10 fingers at 120 Hz for {seconds:g} s, 1,000 views, "
          f"16 subscribers; median of {runs} run(s) each way")
    for how, ((t_hwm, _), (y_hwm, _)) in results.items():
        print(f"  peak RSS (VmHWM), page cache {how}: touchd {t_hwm / 1024:.1f} MiB, yardstick {y_hwm / 1024:.1f} MiB "
              f"(ratio {t_hwm / max(y_hwm, 1):.2f}×; goal ≤ 8 MiB)")
    print(f"  binaries on disk: touchd {sizes[0] / 1048576:.1f} MiB, yardstick {sizes[1] / 1048576:.1f} MiB (stripped)")
    columns = [(f"touchd {how}", r[0][1]) for how, r in results.items()] + [(f"yard {how}", r[1][1]) for how, r in results.items()]
    print("  resident at touchd's fullest sample, KiB:  " + " ".join(f"{name:>11}" for name, _ in columns))
    every = {}
    for _, parts in columns:
        every.update(parts)
    for k in order(every):
        if any(parts.get(k, 0) for _, parts in columns):
            print(f"    {k:<38} " + " ".join(f"{parts.get(k, 0):>11}" for _, parts in columns))
    print(f"    {'total':<38} " + " ".join(f"{sum(parts.values()):>11}" for _, parts in columns))


def add_arguments(ap):
    ap.description = (ap.description or "") + " (--binary default: the static build, scripts/lib/binary.py --static)"
    ap.add_argument("--seconds", type=float, default=10, help="length of the 120 Hz capture (default 10)")
    ap.add_argument("--runs", type=int, default=3, help="runs of the scenario (default 3)")
    ap.add_argument("--unstripped", action="store_true", help="run the binary as built, not stripped as packaged")
    ap.add_argument("--no-layout-check", action="store_true", help="skip the check that the packaged build's layout is current")
    ap.add_argument("--cold", action="store_true", help="only cold runs (the binary's pages dropped from the page cache)")
    ap.add_argument("--warm", action="store_true", help="only warm runs (the whole binary in the page cache)")
    ap.add_argument("--arm64", nargs="+", metavar="AARCH64_TOUCHD",
                    help="aarch64 touchd binaries (one or two) run under qemu-user in alternating runs: "
                         "the emulator's peak, to compare two arm64 builds (see the module's text)")


def scenario(binary, tmp, seconds):
    """Writes the scenario's files into `tmp`: the 1,000-view config (its socket group this
    user's own), the 120 Hz capture of `seconds` and the 16-subscriber client
    (tmp/latency-client); returns (config, capture)."""
    bench_yardsticks.needs_cc()
    bench_yardsticks.cc(tmp, "latency-client.c", "latency-client")
    subprocess.run(bench_command(binary) + ["--write", tmp, "--events", "1000"], check=True, stdout=subprocess.DEVNULL)
    cfg, cap = os.path.join(tmp, "bench.json"), os.path.join(tmp, "fingers-120hz.evemu")
    with open(cfg) as f:
        config = json.load(f)
    config["socket"] = {"group": grp.getgrgid(os.getgid()).gr_name}
    with open(cfg, "w") as f:
        json.dump(config, f)
    bench_yardsticks.capture_120hz(cap, seconds)
    return cfg, cap


def daemon_argv(binary, tmp, cfg, cap):
    """The scenario's daemon: `touchd run` replaying the capture at its own pace to 16 clients."""
    return [binary, "run", "--config", cfg, "--socket", os.path.join(tmp, "touchd.sock"), "--replay", cap, "--speed", "1",
            "--wait-clients", "16", "--exit-at-end", "--log-level", "warning"]


def measure(binary, seconds, runs, unstripped=False, warm=False):
    """The scenario `runs` times beside the yardstick, the page cache cold or warm: ((touchd's
    VmHWM KiB, parts), (the yardstick's), (the two binaries' sizes)) of the median run, and the
    shared libraries each run's daemon had mapped (their file names, all runs together)."""
    with tempfile.TemporaryDirectory(prefix="touchd-memory-") as tmp:
        cfg, cap = scenario(binary, tmp, seconds)
        program = binary if unstripped else packaged(binary, tmp, "touchd")
        yard = yardstick(tmp)
        results = []
        for _ in range(runs):
            results.append((measure_daemon(program, tmp, cfg, cap, warm_cache=warm), measure_yardstick(yard, warm_cache=warm)))
        libraries = sorted({k for (_, parts), _ in results for k in parts if ".so" in k})
        results.sort(key=lambda r: r[0][0])
        middle = results[len(results) // 2]
        return middle[0], middle[1], (os.path.getsize(program), os.path.getsize(yard)), libraries


def measure_arm64(binaries, seconds, runs):
    """Each aarch64 binary's runs of the scenario under qemu-user, alternating: the emulator
    process's VmHWM (KiB) per run."""
    sysroot = subprocess.run([os.path.join(os.path.dirname(__file__), "..", "debian-root"), "arm64", "--sysroot"],
                             check=True, capture_output=True, text=True).stdout.strip()
    qemu = ["qemu-aarch64-static", "-L", sysroot]
    peaks = {b: [] for b in binaries}
    with tempfile.TemporaryDirectory(prefix="touchd-memory-arm64-") as tmp:
        cfg, cap = scenario(touchd_binary(), tmp, seconds)   # the host's touchd-bench writes them
        for _ in range(runs):
            for b in binaries:
                peaks[b].append(measure_daemon(b, tmp, cfg, cap, wrapper=qemu)[0])
    return peaks


def run_arm64(binaries, args):
    for b in binaries:
        with open(b, "rb") as f:
            head = f.read(20)
        if head[:4] != b"\x7fELF" or int.from_bytes(head[18:20], "little") != 183:   # e_machine EM_AARCH64
            raise SystemExit(f"scripts/bench memory --arm64: {b} is not an aarch64 ELF binary (scripts/cross-arm64 builds one)")
    peaks = measure_arm64(binaries, args.seconds, args.runs)
    print(f"memory --arm64: aarch64 touchd under qemu-aarch64-static, 10 fingers at 120 Hz for {args.seconds:g} s, 1,000 views, "
          f"16 subscribers; {args.runs} alternating run(s); the emulator's peak RSS (VmHWM), its own memory included")
    for b in binaries:
        print(f"  {os.path.relpath(b)}: median {statistics.median(peaks[b]) / 1024:.1f} MiB  (runs: "
              f"{', '.join(f'{p / 1024:.1f}' for p in peaks[b])} MiB)")
    if len(binaries) == 2:
        a, b = (statistics.median(peaks[x]) for x in binaries)
        print(f"  difference: {(b - a) / 1024:+.1f} MiB (the second less the first)")
    return 0


def run(binary, args):
    if args.arm64:
        return run_arm64([os.path.abspath(b) for b in args.arm64], args)
    results, sizes = {}, None
    for how in [h for h, only in (("cold", args.cold), ("warm", args.warm)) if only or not (args.cold or args.warm)]:
        touchd, yard, sizes, _ = measure(binary, args.seconds, args.runs, args.unstripped, warm=how == "warm")
        results[how] = (touchd, yard)
    report(args.seconds, args.runs, results, sizes)
    if not args.no_layout_check and os.path.realpath(binary) == os.path.realpath(STATIC):
        layout_check(binary)
    return 0


def layout_check(binary, seconds=3):
    """Prints the code sections the packaged daemon faulted in that hot-sections.txt does not
    list (bench_layout's full-speed round, once): none when the layout is current."""
    import bench_layout   # it imports this module
    from binary import HOT_SECTIONS, LINK_MAP
    # The link map is written by every link of the packaged build, touchd-bench's too: where it
    # is newer than touchd, touchd is linked again so that it describes touchd.
    if os.path.getmtime(LINK_MAP) > os.path.getmtime(binary):
        os.remove(binary)
        binary = touchd_binary(static=True)
    with open(HOT_SECTIONS) as f:
        listed = {line.strip() for line in f if line.strip()}
    with tempfile.TemporaryDirectory(prefix="touchd-memory-layout-") as tmp:
        cfg, cap = scenario(binary, tmp, seconds)
        stale = sorted(bench_layout.faulted(binary, tmp, cfg, cap) - listed)
    if stale:
        print(f"  layout: the daemon ran code in {len(stale)} section(s) that {os.path.relpath(HOT_SECTIONS)} does not list "
              f"({', '.join(stale[:3])}{', …' if len(stale) > 3 else ''}): the list is stale, run scripts/bench layout")
    else:
        print(f"  layout: every code section the daemon faulted in is in .text.hot ({os.path.relpath(HOT_SECTIONS)} is current)")
    return stale
