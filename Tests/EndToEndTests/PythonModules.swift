import Foundation
import Testing

/// Python modules some tests need that Python itself does not bring (scripts/deps test installs or
/// fetches them). A test that needs one that is missing is skipped, saying which and where it
/// comes from — it does not fail on the import instead of testing something.
enum PythonModules {
    /// Debian's python3 (where the python3-* packages install), not one on PATH.
    static let python = "/usr/bin/python3"

    /// Whether Debian's python3 imports `module`; with `wheel`, the way the examples import
    /// it: from the wheels `.build/pydeps/<wheel>-*.whl` put first on the path.
    static func available(_ module: String, wheel: String? = nil) -> Bool {
        var code = "import glob, sys\n"
        if let wheel {
            let pattern = Paths.root.appendingPathComponent(".build/pydeps/\(wheel)-*.whl").path
            code += "sys.path[:0] = glob.glob(\(String(reflecting: pattern)))\n"
        }
        code += "import \(module)\n"
        guard let r = try? runProgram(python, ["-c", code], timeout: 60) else { return false }
        return r.status == 0
    }

    // What each module is for and where it comes from, as the skip's reason.
    static let pygame: Comment = "needs pygame for /usr/bin/python3 (Debian's python3-pygame; scripts/deps test installs it)"
    static let pythonOsc: Comment = "needs python-osc (scripts/deps fetches its wheel into .build/pydeps)"
    static let kivy: Comment = "needs kivy for /usr/bin/python3 (Debian's python3-kivy; scripts/deps test installs it)"
    static let oscpy: Comment = "needs oscpy, Kivy's OSC reader (scripts/deps fetches its wheel into .build/pydeps)"
}
