import Glibc

/// Where the repository is, and which touchd binary the end-to-end tests run. (The one place
/// that knows; Glibc only, so the pure modules' tests need no Foundation.)
public enum Repository {
    /// The repository's root: this file is Tests/TouchTestSupport/Repository.swift.
    public static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    /// A path inside the repository ("Tests/Fixtures/…", "examples/…").
    public static func path(_ relative: String) -> String { root + "/" + relative }

    /// The environment variable that names the touchd binary to test.
    public static let binaryVariable = "TOUCHD_BINARY"

    /// The touchd binary the end-to-end tests run: the one $TOUCHD_BINARY names, else the newest
    /// (by modification time) of the debug and release builds — never a stale one just because
    /// of its configuration; debug on a tie — else the debug build's path (starting it then
    /// fails, naming it). Every harness's rule (scripts/lib/binary.py says where the others are).
    public static var touchd: String {
        touchd(environment: getenv(binaryVariable).map { String(cString: $0) })
    }

    /// `touchd` with the environment variable's value given (nil: not set).
    public static func touchd(environment: String?, candidates: [String]? = nil) -> String {
        if let named = environment, !named.isEmpty { return named }
        let builds = candidates ?? ["debug", "release"].map { path(".build/\($0)/touchd") }
        return newest(builds) ?? builds[0]
    }

    /// The most recently modified of the executable files among `paths` (the first of equals).
    public static func newest(_ paths: [String]) -> String? {
        var best: (path: String, time: timespec)?
        for p in paths where access(p, X_OK) == 0 {
            guard let t = modificationTime(p) else { continue }
            if let b = best, (t.tv_sec, t.tv_nsec) <= (b.time.tv_sec, b.time.tv_nsec) { continue }
            best = (p, t)
        }
        return best?.path
    }

    /// A file's modification time (nil: no such file).
    public static func modificationTime(_ path: String) -> timespec? {
        var s = stat()
        guard stat(path, &s) == 0 else { return nil }
        return s.st_mtim
    }
}
