#!/usr/bin/env python3
"""The one way the scripts find the touchd binary they run.

    scripts/lib/binary.py [--build | --static] [PATH]
    scripts/lib/binary.py --hot-symbols FILE [BINARY...]

Prints the absolute path of the touchd to use:
  PATH        that file (a script's --binary PATH), which must be executable;
  (nothing)   the harnesses' rule (built_touchd, below): the file $TOUCHD_BINARY names, if
              it does; else the newest of .build/debug/touchd and .build/release/touchd (a
              stale release build must not stand in for a new debug one); then, if neither is
              built, builds the release one (swift build -c release);
  --build     builds the release one first (incremental), then prints it: for scripts that
              must run the sources as they are now (scripts/demo);
  --static    builds the one that needs no Swift runtime (swift build -c release
              --static-swift-stdlib --scratch-path .build-packaged, laid out for a small
              footprint: see static_build_args; incremental), then prints it: for the VM,
              the Debian package and scripts/bench memory.
--hot-symbols writes FILE, the layout's list as lld's --symbol-ordering-file (hot_symbols), for
the arm64 cross build (scripts/cross-arm64), removing each BINARY when FILE changes.
Build output goes to stderr. Python scripts import it (sys.path has scripts/lib):
    from binary import touchd_binary
    binary = touchd_binary(args.binary)
Bash scripts run it: bin=$(scripts/lib/binary.py ${binary:+"$binary"})

The rule every test harness follows to find the touchd it runs (docs/development.md, "Which
touchd"): $TOUCHD_BINARY when set and not empty (scripts/test sets it: the debug build); else
the most recently modified of .build/debug/touchd and .build/release/touchd that is an
executable file, debug on a tie (to the nanosecond); else none. Written here (built_touchd: this
script, scripts/golden and the others, python/tests/support.py, examples/kiosk/test_kiosk.py),
in Swift (Tests/TouchTestSupport/Repository.swift) and in C (clients/c/tests/harness.h, which
examples/sdl-kiosk's test includes); TouchdBinaryTests pins the Swift one.

The engine's benchmark is a program of its own, touchd-bench, built beside touchd (same
configuration): bench_command(touchd) is the command line that runs it for a given touchd —
the touchd-bench beside it (built if it is this repository's build and missing), or, for a
touchd from before the split (scripts/bench compare OLD), that touchd's own `bench` command.
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RELEASE = os.path.join(ROOT, ".build", "release", "touchd")
DEBUG = os.path.join(ROOT, ".build", "debug", "touchd")
STATIC = os.path.join(ROOT, ".build-packaged", "release", "touchd")
# Data, not code: written by `scripts/bench layout` (bench_layout.py), beside the benchmarks.
HOT_SECTIONS = os.path.join(ROOT, "Benchmarks", "hot-sections.txt")
LINK_MAP = os.path.join(ROOT, ".build-packaged", "touchd.map")
# The names clang's -function-sections may give a function's section (hot-sections.txt lists
# each function the daemon runs under all of them).
SECTION_PREFIXES = (".text.", ".text.unlikely.", ".text.hot.", ".text.startup.")


def hot_script():
    """The linker script that gathers the sections hot-sections.txt names into an output section
    of their own before .text (lld's INSERT keeps its default layout for everything else),
    written into .build-packaged/ and rewritten when the list changed (the packaged touchd and
    touchd-bench then linked again). A section name, not a symbol: Swift's private functions
    (.Lobjectdestroy…) have a section but no symbol."""
    text = "SECTIONS {\n  .text.hot : {\n" + "".join(f"    *({n})\n" for n in _names()) + "  }\n} INSERT BEFORE .text;\n"
    return _rewrite(os.path.join(ROOT, ".build-packaged", "hot-sections.ld"), text,
                    (STATIC, os.path.join(os.path.dirname(STATIC), "touchd-bench")))


def _names():
    with open(HOT_SECTIONS) as f:
        return [line.strip() for line in f if line.strip()]


def _rewrite(path, text, linked):
    """Writes `text` to `path` if it differs, the `linked` files removed first: SwiftPM does not
    see a linker input given by -Xlinker, so what it linked with the old text would be kept;
    removed before the file changes, a process stopped in between leaves nothing linked with
    the old one, and they are linked again when next built."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    if os.path.exists(path) and open(path).read() == text:
        return path
    for binary in linked:
        if os.path.exists(binary):
            os.remove(binary)
    with open(path, "w") as f:
        f.write(text)
    return path


def hot_symbols(path, linked=()):
    """hot-sections.txt as lld's --symbol-ordering-file, written to `path`: the symbol of each
    section (.text.NAME, .text.unlikely.NAME … → NAME, once each). For a link that cannot take
    hot_script's linker script: the arm64 cross build's lld (Debian 13's swiftlang 6.0.3, LLVM
    17, built with assertions) aborts on its INSERT BEFORE. The ordering covers less: a private
    function's section (.Lobjectdestroy…) has no symbol to name it."""
    symbols = {}
    for name in _names():
        for prefix in sorted(SECTION_PREFIXES, key=len, reverse=True):   # the longest first
            if name.startswith(prefix):
                symbols.setdefault(name[len(prefix):], None)
                break
    return _rewrite(path, "".join(f"{s}\n" for s in symbols), linked)


def static_build_args():
    """`swift build` arguments of the packaged (static, amd64) touchd: the Swift standard
    library linked in, and the binary laid out so that a board's daemon maps little of it
    (issue 34: the peak RSS of the packaged binary), linked with the toolchain's lld:
      - each function in its own section (-function-sections), and the sections the daemon
        runs gathered into one output section, .text.hot (hot_script: the linker script made
        from Benchmarks/hot-sections.txt, which `scripts/bench layout` writes): the kernel
        maps code 64 KiB around each page a fault needs, so the ~700 KiB the daemon runs,
        spread over all 6.5 MiB of .text, made nearly all of it resident;
      - still a position-independent executable (ASLR, as Debian builds them), its relative
        relocations packed (-z pack-relative-relocs: DT_RELR, which glibc 2.36 reads): 6 KiB
        instead of 650 KiB of .rela.dyn read at every start;
      - no dynamic export of every symbol (--no-export-dynamic, after the toolchain's
        static-stdlib-args.lnk asks for it): a smaller .dynsym/.dynstr to map;
      - libstdc++ linked statically (what the Swift runtime uses of it, under GCC's runtime
        library exception): the toolchain's -lstdc++ finds libstdc++.a first through a
        directory that holds only that (.build-packaged/static-libstdc++), instead of mapping
        the 2 MiB shared library and running its initialisers;
      - a link map (.build-packaged/touchd.map): where each input section landed, which
        scripts/bench layout reads.
    scripts/bench memory measures the result beside a static Swift hello-and-sleep. The arm64
    package's build (scripts/cross-arm64) does the same, but for how it orders: hot_symbols."""
    args = ["-c", "release", "--static-swift-stdlib", "--scratch-path", ".build-packaged",
            "-Xswiftc", "-Xfrontend", "-Xswiftc", "-function-sections",
            "-Xswiftc", "-use-ld=lld",
            "-Xlinker", "-T", "-Xlinker", hot_script(),
            "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
            "-Xlinker", "--no-export-dynamic",
            "-Xlinker", f"-Map={LINK_MAP}"]
    found = subprocess.run(["c++", "-print-file-name=libstdc++.a"], capture_output=True, text=True).stdout.strip()
    if os.path.isabs(found) and os.path.isfile(found):
        only = os.path.join(ROOT, ".build-packaged", "static-libstdc++")
        os.makedirs(only, exist_ok=True)
        link = os.path.join(only, "libstdc++.a")
        if not (os.path.islink(link) and os.readlink(link) == found):
            if os.path.lexists(link):
                os.remove(link)
            os.symlink(found, link)
        args += ["-Xswiftc", f"-L{only}"]
    return args


def _build(argv, out, why):
    print(f"touchd: {why}: swift {' '.join(argv)}", file=sys.stderr, flush=True)
    p = subprocess.run(["swift"] + argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = [l for l in p.stdout.splitlines() if l.strip() and not l.startswith("[")]  # not progress
    if p.returncode != 0 or not os.access(out, os.X_OK):
        print("\n".join(lines), file=sys.stderr)
        sys.exit(f"touchd: the build failed (swift {' '.join(argv)})")
    print(f"touchd: {lines[-1] if lines else 'built'}", file=sys.stderr)   # "Build complete! (12.3s)"
    return out


def touchd_binary(given=None, build=False, static=False):
    """The path of the touchd to run (see the module's text); exits with a message if none."""
    if given:
        path = os.path.abspath(given)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            sys.exit(f"--binary {given}: not an executable file")
        return path
    if os.environ.get("TOUCHD_BINARY") and not (build or static):
        return touchd_binary(built_touchd())
    if static:
        return _build(["build"] + static_build_args() + ["--product", "touchd"],
                      STATIC, "building the touchd that needs no Swift runtime")
    if build:
        return _build(["build", "-c", "release"], RELEASE, "building")
    built = built_touchd()
    if built:
        return built
    return _build(["build", "-c", "release"], RELEASE, "no built touchd yet, building one")


def built_touchd(candidates=(DEBUG, RELEASE)):
    """The harnesses' rule (see the module's text): $TOUCHD_BINARY when set and not empty, else
    the newest executable of the debug and release builds (debug on a tie), else None.
    `candidates`: other paths in their place (python/tests/test_binary_rule.py)."""
    named = os.environ.get("TOUCHD_BINARY")
    if named:
        return named
    built = [p for p in candidates if os.path.isfile(p) and os.access(p, os.X_OK)]
    return max(built, key=lambda p: os.stat(p).st_mtime_ns) if built else None   # max: the first of equals


def bench_command(touchd):
    """The argv that runs the engine's benchmark of the build `touchd` belongs to."""
    beside = os.path.join(os.path.dirname(touchd), "touchd-bench")
    path, flags = os.path.abspath(touchd), None
    if path == STATIC:
        flags = static_build_args()   # first: a changed layout list removes the packaged touchd-bench
    elif path in (RELEASE, DEBUG):
        flags = ["-c", "release" if path == RELEASE else "debug"]
    if os.access(beside, os.X_OK):
        return [beside]
    if flags is not None:
        return [_build(["build"] + flags + ["--product", "touchd-bench"], beside, "building the engine's benchmark")]
    return [touchd, "bench"]


def main(argv):
    if argv[:1] == ["--hot-symbols"] and len(argv) >= 2:
        print(hot_symbols(argv[1], argv[2:]))
        return 0
    build = static = False
    given = None
    for a in argv:
        if a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        elif a == "--build":
            build = True
        elif a == "--static":
            static = True
        elif a.startswith("-") or given is not None:
            print(f"scripts/lib/binary.py: unexpected argument {a}\n\n{__doc__.strip()}", file=sys.stderr)
            return 2
        else:
            given = a
    print(touchd_binary(given, build=build, static=static))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
