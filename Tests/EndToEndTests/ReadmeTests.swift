import Foundation
import Testing

/// The marked examples of the README and of docs/ print what their files show (issue 22): the
/// README's "Running the daemon and subscribing" example lost touch 1, never exited, showed one
/// snapshot of two and times from 0 where the daemon printed CLOCK_MONOTONIC's. scripts/readme-check
/// runs them, the Python client's examples too (issue 32: its on_touch pattern raised TypeError),
/// and the C library's build-tree flow (issue 32: the build tree's .pc pointed nowhere). The
/// README was cut to its first steps (issue 32, item 3) and the flows it held moved to
/// docs/commands.md and docs/clients.md, where they are still run.
@Suite struct ReadmeTests {
    @Test func theReadmesExamplesPrintWhatItShows() throws {
        let r = try runProgram("/usr/bin/env", ["python3", Paths.root.appendingPathComponent("scripts/readme-check").path,
                                               "--binary", Paths.binary], timeout: 120)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("readme-check: 12 example(s) in 4 file(s) print what they show (README.md, docs/clients.md, docs/commands.md, docs/web.md)"), "\(r.stdout)")
    }

    /// The tree in "How it is built" (docs/development.md, the README's before issue 32) names
    /// everything in examples/ (it said "socat.sh, client.py" while there were six).
    @Test func theTreeNamesEveryExample() throws {
        let readme = try String(contentsOf: Paths.root.appendingPathComponent("docs/development.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("examples/ ") }) else { Issue.record("no examples/ line"); return }
        let entry = ([lines[start]] + lines[(start + 1)...].prefix { $0.hasPrefix(" ") }).joined(separator: " ")
        let names = try FileManager.default.contentsOfDirectory(atPath: Paths.root.appendingPathComponent("examples").path)
        #expect(names.count >= 6)
        for name in names { #expect(entry.contains(name), "README's examples/ entry lacks \(name): \(entry)") }
        #expect(lines.contains { $0.hasPrefix("clients/c/ ") } && lines.contains { $0.hasPrefix("python/ ") })
    }
}
