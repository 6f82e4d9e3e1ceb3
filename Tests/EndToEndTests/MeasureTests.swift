import Foundation
import Testing

/// `touchd measure --capture` on a made-up recording with known noise (±2 points on a held
/// finger) and a known bounce (a 10 ms lift in the middle of a press): the filter it suggests,
/// put in the config, removes the double press and the drag events the noise made.
@Suite struct MeasureTests {
    /// A 600 ms press on the button with ±2 points of jitter every 10 ms and a 10 ms bounce
    /// 2 points away at 300 ms, as evemu lines for the virtual 800×480 panel.
    func noisyPress() -> String {
        var lines: [String] = []
        var t = 1.0
        var id = 1
        func ev(_ type: Int, _ code: Int, _ value: Int) { lines.append(String(format: "E: %.6f %04x %04x %d", t, type, code, value)) }
        func frame(_ x: Int, _ y: Int, down: Bool) {
            ev(3, 0x2f, 0)
            if down { ev(3, 0x39, id); id += 1 }
            ev(3, 0x35, x); ev(3, 0x36, y); ev(0, 0, 0)
            t += 0.01
        }
        func up() { ev(3, 0x2f, 0); ev(3, 0x39, -1); ev(0, 0, 0); t += 0.01 }
        let jitter = [(2, 1), (-2, -1), (1, 2), (-1, -2), (2, -2), (-2, 2)]
        frame(120, 75, down: true)
        for k in 0..<28 { let (dx, dy) = jitter[k % jitter.count]; frame(120 + dx, 75 + dy, down: false) }
        up()                                              // the bounce: 10 ms without contact
        frame(122, 75, down: true)
        for k in 0..<28 { let (dx, dy) = jitter[k % jitter.count]; frame(122 + dx, 75 + dy, down: false) }
        up()
        return lines.joined(separator: "\n") + "\n"
    }

    func config(filter: String?) -> String {
        let devices = filter.map { ", \"devices\": [{\"match\": {\"name\": \"*\"}, \($0.dropFirst().dropLast())}]" } ?? ""
        return """
            {"windows": [{"id": "w", "frame": [0, 0, 800, 480], "view": {"id": "root", "frame": [0, 0, 800, 480],
              "subviews": [{"id": "buy", "frame": [50, 50, 200, 100], "control": "button"}]}}]\(devices)}
            """
    }

    func controlEvents(_ output: String, _ event: String) -> Int {
        output.split(separator: "\n").filter { $0.contains("\"type\":\"control\"") && $0.contains("\"event\":\"\(event)\"") }.count
    }

    @Test func theSuggestedFilterRemovesTheDoublePressAndTheDragEvents() throws {
        let dir = TempDir()
        let capture = dir.url.appendingPathComponent("noisy.events").path
        try noisyPress().write(toFile: capture, atomically: true, encoding: .utf8)
        let desc = Paths.fixture("virtual-800x480.desc")
        let plain = dir.url.appendingPathComponent("plain.json").path
        try config(filter: nil).write(toFile: plain, atomically: true, encoding: .utf8)

        // Unfiltered: one press, two orders, and the jitter drags.
        let before = try runProgram(Paths.binary, ["replay", "--config", plain, "--device-info", desc, capture])
        #expect(before.status == 0, "\(before.stderr)")
        #expect(controlEvents(before.stdout, "primaryActionTriggered") == 2)
        #expect(controlEvents(before.stdout, "touchDragInside") > 20)

        let m = try runProgram(Paths.binary, ["measure", "--capture", capture, "--device-info", desc])
        #expect(m.status == 0, "\(m.stderr)")
        let lines = m.stdout.split(separator: "\n")
        #expect(lines.contains { $0.contains("(a bounce)") })
        guard let suggestion = lines.last, suggestion.hasPrefix("{\"filter\":{") else {
            Issue.record("the last line is the suggested filter: \(m.stdout)")
            return
        }
        // ±2 points of noise per axis, a 10 ms bounce: a debounce over 10 ms, a circle over 2.
        let json = try JSONSerialization.jsonObject(with: Data(suggestion.utf8)) as? [String: [String: Any]]
        let filter = json?["filter"]
        #expect((filter?["debounce"] as? Double).map { $0 > 0.01 && $0 <= 0.1 } == true, "\(suggestion)")
        #expect((filter?["hysteresis"] as? Double).map { $0 >= 2 } == true, "\(suggestion)")

        let tuned = dir.url.appendingPathComponent("tuned.json").path
        try config(filter: String(suggestion)).write(toFile: tuned, atomically: true, encoding: .utf8)
        let after = try runProgram(Paths.binary, ["replay", "--config", tuned, "--device-info", desc, capture])
        #expect(after.status == 0, "\(after.stderr)")
        #expect(controlEvents(after.stdout, "touchDown") == 1)
        #expect(controlEvents(after.stdout, "primaryActionTriggered") == 1)
        #expect(controlEvents(after.stdout, "touchDragInside") == 0)
        // One touch: the bounce continues it (a second touch would only be ignored by the
        // button's multipleTouch rule while the first one's lift is held).
        #expect(!after.stdout.contains("{\"id\":2,"))
    }

    /// Issue 30: the Atmel's 18 s one-finger stroke (tslib's ts_verify) was reported as "noise
    /// of a still finger" (p95 6 points) and got "hysteresis": 9, a 9-point drag lag. It is
    /// motion: no noise figure, no hysteresis, and what it suggests passes check-config.
    @Test func aMovingStrokeIsNotTakenForNoise() throws {
        let m = try runProgram(Paths.binary, ["measure", "--capture", Paths.capture("atmel-maxtouch_tslib-ts-verify-1-finger-long.events")])
        #expect(m.status == 0, "\(m.stderr)")
        #expect(m.stdout.contains("moving: 18."), "\(m.stdout)")
        #expect(m.stdout.contains("noise of a still finger: not measured"), "\(m.stdout)")
        let suggestion = String(m.stdout.split(separator: "\n").last ?? "")
        #expect(suggestion.hasPrefix("{\"filter\":{") && !suggestion.contains("hysteresis"), "\(suggestion)")
        let dir = TempDir()
        let tuned = dir.url.appendingPathComponent("tuned.json").path
        try config(filter: suggestion).write(toFile: tuned, atomically: true, encoding: .utf8)
        let check = try runProgram(Paths.binary, ["check-config", tuned])
        #expect(check.status == 0, "\(check.stdout) \(check.stderr)")
    }

    /// Figures in the points of the device's output (issue 33, item 5): the same panel measured
    /// on an 800 × 480 output and on a 1600 × 960 one turned 90 (960 × 1600 points). Each device
    /// unit is 1599/799 = 2.0013 points there, so the still finger's p95 of 4 points is 8.01.
    @Test func theFiguresAreInTheOutputsPoints() throws {
        let dir = TempDir()
        let capture = dir.write("noisy.events", noisyPress())
        let desc = Paths.fixture("virtual-800x480.desc")
        let cfg = dir.write("two.json", """
            {"outputs": [{"id": "A", "width": 800, "height": 480}, {"id": "B", "width": 1600, "height": 960, "rotation": 90}],
             "windows": [{"id": "w", "frame": [0, 0, 800, 480], "view": {"id": "root", "frame": [0, 0, 800, 480]}}]}
            """)
        let a = try touchd("measure", "--config", cfg, "--capture", capture, "--device-info", desc)
        let b = try touchd("measure", "--config", cfg, "--output", "B", "--capture", capture, "--device-info", desc)
        #expect(a.status == 0 && b.status == 0, "\(a.stderr) \(b.stderr)")
        #expect(a.lines.contains("  x  p50 3.00  p95 4.00  max 4.00  (56 samples)"), "\(a.stdout)")
        #expect(b.lines.contains("  x  p50 6.01  p95 8.01  max 8.01  (56 samples)"), "\(b.stdout)")
        let bad = try touchd("measure", "--config", cfg, "--output", "C", "--capture", capture, "--device-info", desc)
        #expect(bad.status == 2 && bad.stderr.contains("--output C: no output has that id (outputs: A, B)"), "\(bad.stderr)")
    }
}
