import Foundation
import Testing

/// What the documentation says is installed, is (issue 22): the unit's Documentation= named
/// README.md where the package has README.md.gz, the TUIO drop-in's comment named a path the
/// package does not use, and the man page sent readers to docs/ "in the source". Every
/// /usr/share/doc/touchd path named anywhere is one scripts/deb installs (scripts/deb
/// --doc-files lists them without building); scripts/deb-test checks the built package.
@Suite struct PackagingTests {
    func installed() throws -> Set<String> {
        let r = try runProgram("/bin/bash", [Paths.root.appendingPathComponent("scripts/deb").path, "--doc-files"])
        #expect(r.status == 0, "\(r.stderr)")
        return Set(r.lines)
    }

    /// Every "/usr/share/doc/touchd/…" in a text, as a path (a name that ends a sentence loses its dot).
    func named(_ text: String) -> [String] {
        var out: [String] = []
        var rest = Substring(text)
        while let r = rest.range(of: "/usr/share/doc/touchd/") {
            let tail = rest[r.upperBound...].prefix { !" \n`),;:'\"".contains($0) }
            var path = "/usr/share/doc/touchd/" + tail
            while path.hasSuffix(".") { path.removeLast() }
            out.append(path)
            rest = rest[r.upperBound...]
        }
        return out
    }

    @Test func everyDocumentedPathIsInstalled() throws {
        let files = try installed()
        #expect(files.isSuperset(of: ["/usr/share/doc/touchd/config.md.gz", "/usr/share/doc/touchd/protocol.md.gz",
                                      "/usr/share/doc/touchd/messages.md.gz", "/usr/share/doc/touchd/client-c.md.gz",
                                      "/usr/share/doc/touchd/README.md.gz", "/usr/share/doc/touchd/kiosk.md.gz",
                                      "/usr/share/doc/touchd/commands.md.gz", "/usr/share/doc/touchd/clients.md.gz"]))
        let man = try touchd("help", "--man", "2026-01-01")
        #expect(man.status == 0)
        var sources: [(String, String)] = [("touchd help --man", man.stdout)]
        let docs = try FileManager.default.contentsOfDirectory(atPath: Paths.root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        #expect(docs.contains("docs/kiosk.md") && docs.contains("docs/commands.md"))
        for f in ["README.md"] + docs + [
                  "systemd/touchd.service", "systemd/touchd.socket", "systemd/touchd-tuio.conf", "systemd/touchd.sysusers.conf"] {
            sources.append((f, try String(contentsOf: Paths.root.appendingPathComponent(f), encoding: .utf8)))
        }
        var seen = 0
        for (name, text) in sources {
            for path in named(text) where path != "/usr/share/doc/touchd/" {
                seen += 1
                #expect(files.contains(path), "\(name) names \(path), which the package does not install")
            }
        }
        #expect(seen >= 3)
        // The man page points at the installed docs, not only at the source.
        #expect(man.stdout.contains("/usr/share/doc/touchd/config.md.gz"))
    }

    @Test func theUnitsDocumentationIsInstalled() throws {
        let files = try installed()
        let unit = try String(contentsOf: Paths.root.appendingPathComponent("systemd/touchd.service"), encoding: .utf8)
        // debian/touchd.install takes the page `debian/touchd-build install` writes (dh_compress gzips it).
        let install = try String(contentsOf: Paths.root.appendingPathComponent("debian/touchd.install"), encoding: .utf8)
        let build = try String(contentsOf: Paths.root.appendingPathComponent("debian/touchd-build"), encoding: .utf8)
        let entries = unit.split(separator: "\n").filter { $0.hasPrefix("Documentation=") }.flatMap { $0.dropFirst("Documentation=".count).split(separator: " ") }
        #expect(!entries.isEmpty)
        for e in entries {
            if e == "man:touchd(1)" {
                #expect(install.split(separator: "\n").contains("usr/share/man/man1/touchd.1"))
                #expect(build.contains("help --man \"$date\" > \"$dest/usr/share/man/man1/touchd.1\""))
            } else if e.hasPrefix("file://") {
                #expect(files.contains(String(e.dropFirst("file://".count))), "\(e)")
            } else {
                Issue.record("Documentation=\(e): neither the man page nor an installed file")
            }
        }
    }

    /// One version (issue 32, item 2): the daemon said 0.1.0, the C library 0.1.0 and the Python
    /// package 0.2.0. The VERSION file is the one place: touchd's constant must say what it says
    /// (Swift reads no file at build time), the C library's Makefile and the Python build backend
    /// read it, and the packages' version, debian/changelog's, must say the same
    /// (debian/touchd-build refuses to package a touchd whose --version differs).
    @Test func oneVersionFromTheVersionFile() throws {
        let version = try String(contentsOf: Paths.root.appendingPathComponent("VERSION"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(version.split(separator: ".").count == 3 && version.allSatisfy { $0.isNumber || $0 == "." }, "VERSION: \(version)")
        let daemon = try touchd("--version")
        #expect(daemon.stdout == "touchd \(version)\n", "touchd --version: \(daemon.stdout); VERSION: \(version)")
        let c = try runProgram("/usr/bin/make", ["--no-print-directory", "-s", "-C", Paths.root.appendingPathComponent("clients/c").path, "version"])
        #expect(c.stdout == "\(version)\n", "make -C clients/c version: \(c.stdout)\(c.stderr)")
        let py = try runProgram("/usr/bin/env", ["python3", "-c", "import sys; sys.path.insert(0, sys.argv[1]); import touchd_build; print(touchd_build.version())",
                                                 Paths.root.appendingPathComponent("python/backend").path])
        #expect(py.stdout == "\(version)\n", "the Python build backend: \(py.stdout)\(py.stderr)")
        let changelog = try String(contentsOf: Paths.root.appendingPathComponent("debian/changelog"), encoding: .utf8)
        #expect(changelog.hasPrefix("touchd (\(version)) "), "debian/changelog: \(changelog.prefix(40)); VERSION: \(version)")
    }

    /// A licence file, and the packages' copyright made from it; no placeholder Homepage (issue 32).
    @Test func theLicenceIsTheRepositorysAndNoPlaceholderHomepage() throws {
        let license = try String(contentsOf: Paths.root.appendingPathComponent("LICENSE"), encoding: .utf8)
        #expect(license.hasPrefix("MIT License\n"))
        let copyright = try runProgram("/bin/bash", [Paths.root.appendingPathComponent("scripts/lib/deb-copyright").path])
        #expect(copyright.status == 0, "\(copyright.stderr)")
        #expect(copyright.stdout.contains("License: MIT\n Permission is hereby granted"))
        // Every line of the licence's text is in the copyright file, indented.
        for line in license.split(separator: "\n").dropFirst(3) { #expect(copyright.stdout.contains(" " + line), "\(line)") }
        // debian/copyright (dh_installdocs installs it for every package) is what the script makes.
        #expect(try String(contentsOf: Paths.root.appendingPathComponent("debian/copyright"), encoding: .utf8) == copyright.stdout)
        let control = try String(contentsOf: Paths.root.appendingPathComponent("debian/control"), encoding: .utf8)
        #expect(!control.contains("example.invalid"), "debian/control has a placeholder Homepage")
        #expect(!control.contains("Homepage:"), "debian/control: a Homepage with no home to point at")
    }
}
