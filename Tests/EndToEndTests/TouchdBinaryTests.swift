import Foundation
import Testing
import TouchTestSupport

/// Which touchd the end-to-end tests run (Repository.touchd): the one $TOUCHD_BINARY names,
/// else the newest of the debug and release builds — not the debug one whatever its age.
@Suite struct TouchdBinaryTests {
    /// Two executable "builds" in a temporary directory, debug modified at `debug` and release
    /// at `release` (seconds since the epoch).
    func builds(_ dir: TempDir, debug: Double, release: Double) throws -> (debug: String, release: String) {
        var paths: [String] = []
        for (name, time) in [("debug", debug), ("release", release)] {
            let p = dir.write(name, "#!/bin/sh\n")
            try FileManager.default.setAttributes([.posixPermissions: 0o755, .modificationDate: Date(timeIntervalSince1970: time)], ofItemAtPath: p)
            paths.append(p)
        }
        return (paths[0], paths[1])
    }

    @Test func theNewestBuildWinsWhicheverItIs() throws {
        let dir = TempDir()
        var b = try builds(dir, debug: 1_700_000_000, release: 1_700_000_100)
        #expect(Repository.touchd(environment: nil, candidates: [b.debug, b.release]) == b.release)
        b = try builds(dir, debug: 1_700_000_200, release: 1_700_000_100)
        #expect(Repository.touchd(environment: nil, candidates: [b.debug, b.release]) == b.debug)
        // Equal times: the first listed (debug).
        b = try builds(dir, debug: 1_700_000_300, release: 1_700_000_300)
        #expect(Repository.touchd(environment: nil, candidates: [b.debug, b.release]) == b.debug)
    }

    @Test func theEnvironmentVariableWinsOverTheBuilds() throws {
        let dir = TempDir()
        let b = try builds(dir, debug: 1_700_000_000, release: 1_700_000_100)
        #expect(Repository.touchd(environment: "/opt/touchd/bin/touchd", candidates: [b.debug, b.release]) == "/opt/touchd/bin/touchd")
        #expect(Repository.touchd(environment: b.debug, candidates: [b.debug, b.release]) == b.debug)
        // Set but empty: as if not set.
        #expect(Repository.touchd(environment: "", candidates: [b.debug, b.release]) == b.release)
    }

    @Test func missingOrNotExecutableBuildsAreLeftOut() throws {
        let dir = TempDir()
        let b = try builds(dir, debug: 1_700_000_000, release: 1_700_000_100)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: b.release)
        #expect(Repository.touchd(environment: nil, candidates: [b.debug, b.release]) == b.debug)
        try FileManager.default.removeItem(atPath: b.debug)
        // None there: the first candidate (starting it then fails, naming it).
        #expect(Repository.touchd(environment: nil, candidates: [b.debug, b.release]) == b.debug)
        #expect(Repository.newest([b.debug, b.release]) == nil)
    }

    @Test func withoutCandidatesItLooksInThisRepositorysBuilds() {
        #expect(Repository.touchd(environment: "/x/touchd") == "/x/touchd")
        let found = Repository.touchd(environment: nil)
        #expect([".build/debug/touchd", ".build/release/touchd"].map(Repository.path).contains(found))
        #expect(Repository.path("Package.swift").hasPrefix(Repository.root + "/"))
        #expect(FileManager.default.fileExists(atPath: Repository.path("Package.swift")))
        #expect(FileManager.default.fileExists(atPath: Repository.path("Tests/TouchTestSupport/Repository.swift")))
    }
}
