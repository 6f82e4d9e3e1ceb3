import Foundation
import Testing

/// The README's marked examples print what the README shows (issue 22): its "Running the
/// daemon and subscribing" example lost touch 1, never exited, showed one snapshot of two and
/// times from 0 where the daemon printed CLOCK_MONOTONIC's. scripts/readme-check runs them,
/// the Python client's example too (issue 32: its on_touch pattern raised TypeError).
@Suite struct ReadmeTests {
    @Test func theReadmesExamplesPrintWhatItShows() throws {
        let r = try runProgram("/usr/bin/env", ["python3", Paths.root.appendingPathComponent("scripts/readme-check").path,
                                               "--binary", Paths.binary], timeout: 120)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("readme-check: 5 example(s) print what the README shows"))
    }

    /// The tree in "How it is built" names everything in examples/ (it said "socat.sh,
    /// client.py" while there were six).
    @Test func theReadmesTreeNamesEveryExample() throws {
        let readme = try String(contentsOf: Paths.root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("examples/ ") }) else { Issue.record("no examples/ line"); return }
        let entry = ([lines[start]] + lines[(start + 1)...].prefix { $0.hasPrefix(" ") }).joined(separator: " ")
        let names = try FileManager.default.contentsOfDirectory(atPath: Paths.root.appendingPathComponent("examples").path)
        #expect(names.count >= 6)
        for name in names { #expect(entry.contains(name), "README's examples/ entry lacks \(name): \(entry)") }
        #expect(lines.contains { $0.hasPrefix("clients/c/ ") } && lines.contains { $0.hasPrefix("python/ ") })
    }
}
