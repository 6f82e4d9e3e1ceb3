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
built the same way (swiftc -O -static-stdlib) and stripped the same way. Each run starts
cold: both binaries' pages dropped from the page cache first (posix_fadvise), as after a boot
(the text's resident size depends on how the kernel brought the file in). Medians of
--runs runs of the scenario (the breakdown is the median run's).

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
from binary import bench_command, touchd_binary

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


def measure_yardstick(program):
    cold(program)
    p = subprocess.Popen([program], stdout=subprocess.DEVNULL)
    time.sleep(0.5)   # printed (into stdio's buffer: not a terminal) and sleeping
    parts, hwm = smaps(p.pid, program), vm_hwm(p.pid)
    p.kill()
    p.wait()
    return hwm, parts


def measure_daemon(binary, tmp, cfg, cap, wrapper=()):
    """The scenario's daemon run (through `wrapper`, e.g. qemu-user) with its 16 subscribers:
    its VmHWM (KiB) and its fullest smaps sample; exits if it failed."""
    sock = os.path.join(tmp, "touchd.sock")
    client = os.path.join(tmp, "latency-client")
    cold(binary)
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


def report(seconds, runs, touchd, yard, sizes):
    (t_hwm, t_parts), (y_hwm, y_parts) = touchd, yard
    print(f"memory: the packaged (static, stripped) touchd running 10 fingers at 120 Hz for {seconds:g} s, 1,000 views, "
          f"16 subscribers; median of {runs} run(s)")
    print(f"  peak RSS (VmHWM): touchd {t_hwm / 1024:.1f} MiB, yardstick {y_hwm / 1024:.1f} MiB "
          f"(ratio {t_hwm / max(y_hwm, 1):.2f}×; goal ≤ 8 MiB)")
    print(f"  binaries on disk: touchd {sizes[0] / 1048576:.1f} MiB, yardstick {sizes[1] / 1048576:.1f} MiB (stripped)")
    print(f"  resident at touchd's fullest sample, KiB:  {'touchd':>8} {'yardstick':>10}")
    for k in order({**t_parts, **y_parts}):
        a, b = t_parts.get(k, 0), y_parts.get(k, 0)
        if a or b:
            print(f"    {k:<38} {a:>8} {b:>10}")
    print(f"    {'total':<38} {sum(t_parts.values()):>8} {sum(y_parts.values()):>10}")


def add_arguments(ap):
    ap.description = (ap.description or "") + " (--binary default: the static build, scripts/lib/binary.py --static)"
    ap.add_argument("--seconds", type=float, default=10, help="length of the 120 Hz capture (default 10)")
    ap.add_argument("--runs", type=int, default=3, help="runs of the scenario (default 3)")
    ap.add_argument("--unstripped", action="store_true", help="run the binary as built, not stripped as packaged")
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


def measure(binary, seconds, runs, unstripped=False):
    """The scenario `runs` times beside the yardstick: ((touchd's VmHWM KiB, parts),
    (the yardstick's), (the two binaries' sizes)) of the median run, and the shared
    libraries each run's daemon had mapped (their file names, all runs together)."""
    with tempfile.TemporaryDirectory(prefix="touchd-memory-") as tmp:
        cfg, cap = scenario(binary, tmp, seconds)
        program = binary if unstripped else packaged(binary, tmp, "touchd")
        yard = yardstick(tmp)
        results = []
        for _ in range(runs):
            results.append((measure_daemon(program, tmp, cfg, cap), measure_yardstick(yard)))
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
    touchd, yard, sizes, _ = measure(binary, args.seconds, args.runs, args.unstripped)
    report(args.seconds, args.runs, touchd, yard, sizes)
    return 0
