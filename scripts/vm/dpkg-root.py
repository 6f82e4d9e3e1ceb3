#!/usr/bin/env python3
"""Writes a tree that, included at / of the VM of `scripts/vm/run --systemd`, makes it a Debian
system as far as installing, upgrading, removing and purging a package goes (scripts/deb-test
includes it for scripts/vm/deb-test.sh).

    scripts/vm/dpkg-root.py DIR DEPENDS

DIR is made (it must not exist); DEPENDS is the Depends field of the package to be installed.
The tree holds:

- the host's packages that dpkg, apt-get and debhelper's maintainer scripts run, copied whole
  (every regular file their dpkg -L lists, at its merged-/usr path; /usr/share/doc, man, info
  and locale left out, as Debian's minimal images leave them) with the shared libraries their
  programs and modules load (ldd): dpkg (with start-stop-daemon), tar (GNU tar: dpkg-deb
  extracts through it), dash, perl-base, init-system-helpers (deb-systemd-helper and
  deb-systemd-invoke, which the postinst, prerm and postrm of dh_installsystemd run), libc-bin
  (ldconfig, the C.UTF-8 locale systemd's services get) — all Essential on Debian, so present
  on every Debian system — and apt (apt-get, its methods); and systemd's systemd-sysusers and
  systemd-tmpfiles (the VM's systemd is the host's; dh_installsysusers' and
  dh_installtmpfiles' postinst lines run them);
- dash as /bin/sh, as on Debian. The VM's own sh is busybox's (Debian's busybox-static, built
  with FEATURE_SH_STANDALONE), which runs its own applet for a command of that name before it
  looks at PATH: with it, a script's `dpkg -i` ran busybox's dpkg applet, whatever
  /usr/bin/dpkg was — which passes no old version to the postinst (so no restart on an
  upgrade), sets no DPKG_MAINTSCRIPT_PACKAGE (so deb-systemd-helper exits at once, "not
  called from dpkg", and never records what purge must remove) and records no conffiles (so
  the real dpkg, run by apt-get remove, removed /etc/touchd/touchd.json with the rest);
- /var/lib/dpkg: the status entries, as installed on the host, of those packages and of every
  package they and DEPENDS need, recursively (of alternatives, the first one installed here,
  by name or by Provides), each with its file list (info/NAME.list, the host's: the files of a
  package not copied are not there, but dpkg knows whose each directory is); the empty
  directories apt-get needs under /var/lib/apt, /var/cache/apt and /etc/apt.

Prints a summary on stderr. Exits 1 if a dependency is not installed on the host.
"""
import os
import re
import shutil
import subprocess
import sys

COPIED = ("dpkg", "tar", "dash", "perl-base", "init-system-helpers", "libc-bin", "apt")
PROGRAMS = ("/usr/bin/systemd-sysusers", "/usr/bin/systemd-tmpfiles")
SKIPPED = ("/usr/share/doc/", "/usr/share/man/", "/usr/share/info/", "/usr/share/locale/",
           "/usr/share/lintian/", "/usr/share/bash-completion/")
ADMINDIR = "/var/lib/dpkg"


def merged(path):
    """The path on a merged-/usr system (the VM's /bin, /sbin, /lib and /lib64 are symlinks into /usr)."""
    for top in ("/bin/", "/sbin/", "/lib/", "/lib64/"):
        if path.startswith(top):
            return "/usr" + path
    return path


def field(stanza, name):
    m = re.search(rf"^{name}: (.*(?:\n .*)*)", stanza, re.M)
    return m.group(1).replace("\n", " ") if m else ""


def installed():
    """The host's installed packages: name → status stanza, and provided name → package name."""
    with open(f"{ADMINDIR}/status", encoding="utf-8") as f:
        stanzas = f.read().split("\n\n")
    by_name, provides = {}, {}
    for st in stanzas:
        name = field(st, "Package")
        if name and field(st, "Status").endswith(" installed"):
            by_name.setdefault(name, st)
            for p in field(st, "Provides").split(","):
                p = re.sub(r"[ (].*", "", p.strip())
                if p:
                    provides.setdefault(p, name)
    return by_name, provides


def needed(depends, by_name, provides):
    """The installed packages a Depends field names (of alternatives, the first one installed)."""
    for group in filter(None, (g.strip() for g in depends.split(","))):
        for alt in group.split("|"):
            n = re.sub(r"[ (:].*", "", alt.strip())
            if n in by_name:
                yield n
                break
            if n in provides:
                yield provides[n]
                break
        else:
            sys.exit(f"dpkg-root: none of '{group}' is installed here")


def info_name(name, stanza):
    """The name of a package's files in /var/lib/dpkg/info (NAME:ARCH for Multi-Arch: same)."""
    return f"{name}:{field(stanza, 'Architecture')}" if field(stanza, "Multi-Arch") == "same" else name


def copy(src, dest, root):
    """Copies the host file src to root/dest (dest a merged-/usr path), following symlinks."""
    target = root + dest
    os.makedirs(os.path.dirname(target), exist_ok=True)
    if not os.path.lexists(target):
        shutil.copy2(src, target)


def is_elf(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def libraries(elf):
    """The shared libraries ldd says elf loads, with the loader."""
    out = subprocess.run(["ldd", elf], capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] == "=>" and parts[2].startswith("/"):
            yield parts[2]
        elif parts and parts[0].startswith("/"):
            yield parts[0]


def main():
    if len(sys.argv) != 3 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if sys.argv[1:2] in (["-h"], ["--help"]) else 2)
    root, depends = os.path.abspath(sys.argv[1]), sys.argv[2]
    os.makedirs(root)
    by_name, provides = installed()
    for name in COPIED:
        if name not in by_name:
            sys.exit(f"dpkg-root: {name} is not installed here (scripts/deps vm)")

    elves, files = set(), 0
    for name in COPIED:
        with open(f"{ADMINDIR}/info/{info_name(name, by_name[name])}.list", encoding="utf-8") as f:
            paths = [p for p in f.read().splitlines() if p and p != "/."]
        for path in paths:
            dest = merged(path)
            if dest.startswith(SKIPPED) or not os.path.exists(path) or os.path.isdir(path):
                continue
            copy(path, dest, root)
            files += 1
            if is_elf(path):
                elves.add(path)
    for program in PROGRAMS:
        copy(program, program, root)
        elves.add(program)
    # dash is /bin/sh (dash's own list has the link; a copy here, as scripts/vm/run --include
    # copies what a link points at).
    shutil.copy2(f"{root}/usr/bin/dash", f"{root}/usr/bin/sh")
    libs = set()
    for elf in sorted(elves):
        libs.update(libraries(elf))
    for lib in sorted(libs):
        copy(lib, merged(lib), root)

    want = list(COPIED) + list(needed(depends, by_name, provides))
    seen = set()
    while want:
        n = want.pop()
        if n in seen:
            continue
        seen.add(n)
        st = by_name[n]
        want += needed(field(st, "Pre-Depends") + "," + field(st, "Depends"), by_name, provides)
    info = f"{root}{ADMINDIR}/info"
    os.makedirs(info)
    for d in ("updates", "triggers"):
        os.makedirs(f"{root}{ADMINDIR}/{d}")
    with open(f"{root}{ADMINDIR}/status", "w", encoding="utf-8") as f:
        for n in sorted(seen):
            f.write(by_name[n].strip("\n") + "\n\n")
            listed = f"{ADMINDIR}/info/{info_name(n, by_name[n])}.list"
            if os.path.exists(listed):
                shutil.copy2(listed, info + "/" + os.path.basename(listed))
            else:
                open(info + "/" + os.path.basename(listed), "w").close()
    shutil.copy2(f"{ADMINDIR}/info/format", f"{info}/format")
    open(f"{root}{ADMINDIR}/available", "w").close()
    for d in ("/var/lib/apt/lists/partial", "/var/cache/apt/archives/partial", "/var/log/apt",
              "/etc/apt/sources.list.d", "/etc/apt/preferences.d", "/etc/apt/apt.conf.d"):
        os.makedirs(root + d, exist_ok=True)
    open(f"{root}/etc/apt/sources.list", "w").close()
    print(f"dpkg-root: {root}: {files} files of {', '.join(COPIED)}, {len(libs)} libraries; "
          f"the dpkg database: {len(seen)} packages", file=sys.stderr)


if __name__ == "__main__":
    main()
