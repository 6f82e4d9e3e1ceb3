import Foundation
import Testing

/// The README's marked examples print what the README shows (issue 22): its "Running the
/// daemon and subscribing" example lost touch 1, never exited, showed one snapshot of two and
/// times from 0 where the daemon printed CLOCK_MONOTONIC's. scripts/readme-check runs them.
@Suite struct ReadmeTests {
    @Test func theReadmesExamplesPrintWhatItShows() throws {
        let r = try runProgram("/usr/bin/env", ["python3", Paths.root.appendingPathComponent("scripts/readme-check").path,
                                               "--binary", Paths.binary], timeout: 120)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("readme-check: 3 example(s) print what the README shows"))
    }
}
