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
                                      "/usr/share/doc/touchd/README.md.gz"]))
        let man = try touchd("help", "--man", "2026-01-01")
        #expect(man.status == 0)
        var sources: [(String, String)] = [("touchd help --man", man.stdout)]
        for f in ["README.md", "docs/config.md", "docs/protocol.md", "docs/messages.md", "docs/client-c.md",
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
        let deb = try String(contentsOf: Paths.root.appendingPathComponent("scripts/deb"), encoding: .utf8)
        let entries = unit.split(separator: "\n").filter { $0.hasPrefix("Documentation=") }.flatMap { $0.dropFirst("Documentation=".count).split(separator: " ") }
        #expect(!entries.isEmpty)
        for e in entries {
            if e == "man:touchd(1)" {
                #expect(deb.contains("usr/share/man/man1/touchd.1.gz"))
            } else if e.hasPrefix("file://") {
                #expect(files.contains(String(e.dropFirst("file://".count))), "\(e)")
            } else {
                Issue.record("Documentation=\(e): neither the man page nor an installed file")
            }
        }
    }
}
