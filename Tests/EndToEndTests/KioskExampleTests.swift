import Foundation
import Testing

/// The example kiosk app (examples/kiosk) and the Python client library (python/), run headless
/// by their own test against `touchd run --replay` of the kiosk's capture: its state and a
/// screenshot after the scripted taps, and the library re-attaching after a daemon restart.
@Suite struct KioskExampleTests {
    /// examples/kiosk/test_kiosk.py's checks, in the order it makes them: all must run (one
    /// skipped is as bad as one failed).
    static let checks = [
        "kiosk exits cleanly on bye", "selections in order", "final screen is the menu", "list scrolled when the row was tapped",
        "touches seen", "screenshot saved", "screenshot is 800x480", "Tea drawn selected", "Coffee drawn plain",
        "library connects", "attach then update", "a bad update raises TouchdError", "library sees the daemon go",
        "library reconnects to the new daemon", "window re-attached (its id is taken)", "re-attached as updated (the added view exists)",
        "the client's copy follows its updates", "updates go on after the re-attach (version restarts at 1)",
    ]

    /// The script's lines "ok    name: detail" / "FAIL  name: detail" as (passed, name, detail).
    static func results(_ stdout: String) -> [(ok: Bool, name: String, detail: String)] {
        stdout.split(separator: "\n").compactMap { line in
            let ok = line.hasPrefix("ok    ")
            guard ok || line.hasPrefix("FAIL  ") else { return nil }
            let rest = line.dropFirst(6)
            guard let colon = rest.range(of: ": ") else { return (ok, String(rest), "") }
            return (ok, String(rest[..<colon.lowerBound]), String(rest[colon.upperBound...]))
        }
    }

    @Test(.enabled(if: PythonModules.available("pygame"), PythonModules.pygame))
    func theKioskAppAgainstAReplayedCapture() throws {
        let script = Paths.root.appendingPathComponent("examples/kiosk/test_kiosk.py").path
        let r = try runProgram(PythonModules.python, [script, "--binary", Paths.binary], timeout: 120)
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        #expect(r.lines.last?.hasPrefix("all checks passed in ") == true, "\(r.stdout)")
        let results = Self.results(r.stdout)
        #expect(results.map(\.name) == Self.checks)
        #expect(results.filter { !$0.ok }.map(\.name) == [])
        var detail: [String: String] = [:]
        for c in results { detail[c.name] = c.detail }

        // What the capture (examples/kiosk/README.md) does on the kiosk's layout, worked out by
        // hand. Coffee (60, 100, 320, 160) holds the tap at (220, 180); List → (420, 300, 320,
        // 160) the tap at (580, 380); ← Back (20, 10, 160, 60) the tap at (100, 40); Tea (420,
        // 100, 320, 160) the tap at (580, 180). The row tap at (400, 300) is 220 points into the
        // list (at y 80): with the list settled at offset 594.4 after the drag, content y 814.4,
        // in row 14 (content y 60·13 + 4 = 784 to 836). Five taps and a drag: six touches.
        #expect(detail["selections in order"]?.hasPrefix("['Coffee', 'Item 14', 'Tea'] ") == true, "\(detail["selections in order"] ?? "")")
        #expect(detail["final screen is the menu"] == "menu")
        let scrolled = detail["list scrolled when the row was tapped"] ?? ""   // "offset 594.4 after N scroll messages"
        let words = scrolled.split(separator: " ")
        let offset = words.count == 6 ? Double(words[1]) : nil
        let scrolls = words.count == 6 ? Int(words[3]) : nil
        #expect(offset.map { abs($0 - 594.4) < 0.05 } == true, "\(scrolled)")
        #expect((scrolls ?? 0) > 0, "\(scrolled)")
        #expect(detail["touches seen"]?.hasPrefix("6 ") == true)
        // The screenshot: the daemon's 800 × 480 screen; Tea (the last selection) in the kiosk's
        // SELECTED colour (40, 170, 90), Coffee back in BUTTON (62, 74, 98) (examples/kiosk/kiosk.py).
        #expect(detail["screenshot is 800x480"] == "800x480")
        #expect(detail["Tea drawn selected"]?.hasPrefix("pixel (40, 170, 90) ") == true)
        #expect(detail["Coffee drawn plain"]?.hasPrefix("pixel (62, 74, 98) ") == true)

        // The library: the daemon's screen from its hello; the window's versions (attach 1, an
        // update 2); the bad change named by its place; after the restart the window is back as
        // updated (its id and the added view's id taken), and its versions start again.
        #expect(detail["library connects"] == "(800.0, 480.0)")
        #expect(detail["attach then update"] == "versions 1, 2")
        #expect(detail["a bad update raises TouchdError"]?.hasPrefix("request update, window probe, path changes[1].view: ") == true)
        #expect(detail["library sees the daemon go"]?.hasSuffix("('disconnect', 'bye: shutdown')]") == true)
        #expect(detail["library reconnects to the new daemon"]?.components(separatedBy: "('connect', ").count == 3)
        #expect(detail["window re-attached (its id is taken)"]?.contains("id \"probe\" is taken") == true)
        #expect(detail["re-attached as updated (the added view exists)"]?.contains("id \"probe-added\" is taken") == true)
        #expect(detail["updates go on after the re-attach (version restarts at 1)"] == "version 2")
    }
}
