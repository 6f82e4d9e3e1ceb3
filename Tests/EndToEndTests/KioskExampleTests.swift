import Foundation
import Testing

/// The example kiosk app (examples/kiosk) and the Python client library (python/), run headless
/// by their own test against `touchd run --replay` of the kiosk's capture: its state and a
/// screenshot after the scripted taps, and the library re-attaching after a daemon restart.
@Suite struct KioskExampleTests {
    @Test func theKioskAppAgainstAReplayedCapture() throws {
        // Debian's python3 (where python3-pygame is installed, scripts/deps test), not one on PATH.
        let python = "/usr/bin/python3"
        let script = Paths.root.appendingPathComponent("examples/kiosk/test_kiosk.py").path
        let r = try runProgram(python, [script, "--binary", Paths.binary], timeout: 120)
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        // Its checks print one line each; none may fail.
        #expect(!r.stdout.isEmpty)
        #expect(!r.stdout.contains("FAIL"))
    }
}
