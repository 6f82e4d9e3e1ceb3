import Foundation
import Testing

/// `touchd calibrate --capture`: a panel that reads off (scaled, shifted, sheared) is tapped at
/// the five targets; the matrix it prints, put in the config, brings the same taps onto them.
@Suite struct CalibrateTests {
    let targets = [(80.0, 48.0), (719.0, 48.0), (719.0, 431.0), (80.0, 431.0), (400.0, 240.0)]
    let truth = [1.04, 0.03, -0.03, -0.02, 0.95, 0.04]

    /// Where the distorted panel reports a target (device units of the 800 × 480 virtual panel).
    func raw(_ t: (Double, Double)) -> (Int, Int) {
        let c = (t.0 / 799, t.1 / 479), m = truth
        let det = m[0] * m[4] - m[1] * m[3]
        let cx = c.0 - m[2], cy = c.1 - m[5]
        return (Int(((m[4] * cx - m[1] * cy) / det * 799).rounded()), Int(((m[0] * cy - m[3] * cx) / det * 479).rounded()))
    }

    /// One tap per target: a few samples around the point (the median counts).
    func capture(_ points: [(Int, Int)]) -> String {
        var steps: [(Double, String)] = []
        for (k, p) in points.enumerated() {
            let t = 1.0 + Double(k)
            steps.append((t, "down \(p.0 + 1) \(p.1)"))
            steps.append((t + 0.01, "move \(p.0) \(p.1 - 1)"))
            steps.append((t + 0.02, "move \(p.0) \(p.1)"))
            steps.append((t + 0.03, "move \(p.0 - 1) \(p.1 + 1)"))
            steps.append((t + 0.04, "up"))
        }
        return panelCapture(steps)
    }

    var targetArg: String { targets.map { "\(Int($0.0)),\(Int($0.1))" }.joined(separator: ";") }

    @Test func theMatrixItPrintsBringsTheTapsOntoTheTargets() throws {
        let dir = TempDir()
        let desc = Paths.fixture("virtual-800x480.desc")
        let cap = dir.write("taps.events", capture(targets.map(raw)))
        let base = dir.write("base.json", LiveSceneSocketTests.base)
        let r = try touchd("calibrate", "--config", base, "--capture", cap, "--device-info", desc, "--targets", targetArg)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.lines
        #expect(lines.count == 3)
        let entry = json(lines.first ?? "")
        let matrix = entry["calibration"] as? [Double] ?? []
        #expect(matrix.count == 6)
        // Rounding to device units limits the fit: within a few thousandths of the truth.
        for (got, want) in zip(matrix, truth) { #expect(abs(got - want) < 5e-3, "\(matrix)") }
        #expect(lines.count > 1 && lines[1].hasPrefix("ENV{LIBINPUT_CALIBRATION_MATRIX}=\"") && lines[1].split(separator: " ").count == 6)
        #expect(lines.count > 2 && lines[2].hasPrefix("residual: rms "))
        // The config entry, used: every tap begins within 1.5 points of its target.
        let calibrated = dir.write("calibrated.json", LiveSceneSocketTests.base.replacingOccurrences(
            of: "\"windows\"", with: "\"devices\": [{\"match\": {\"name\": \"touchd virtual touchscreen\"}, \"calibration\": \(matrix)}], \"windows\""))
        let replay = try touchd("replay", "--config", calibrated, "--device-info", desc, cap)
        let began = replay.messages.filter { $0.type == "frame" }.flatMap(\.touches).filter { $0["phase"] as? String == "began" }
        #expect(began.count == 5)
        for (t, target) in zip(began, targets) {
            let p = t["location"] as? [Double] ?? []
            #expect(p.count == 2 && abs(p[0] - target.0) <= 1.5 && abs(p[1] - target.1) <= 1.5, "\(p) for \(target)")
        }
    }

    /// On a turned output (issue 33, item 5): B is 800 × 480 turned 90, 480 × 800 points; the
    /// targets are B's points. A UI point (x, y) is the panel's natural (y, 479 − x) (the
    /// daemon's mapping: the VM saw the panel's (100, 100) at (379, 100)), which the distorted
    /// panel reports through `truth`. The fit must take B's rotation after the device's, so the
    /// matrix is the truth and, put in the entry, brings the taps onto B's targets.
    @Test func onATurnedOutputTheTargetsAreItsPoints() throws {
        let dir = TempDir()
        let desc = Paths.fixture("virtual-800x480.desc")
        let ui = [(48.0, 80.0), (431.0, 80.0), (431.0, 719.0), (48.0, 719.0), (240.0, 400.0)]
        let cap = dir.write("taps.events", capture(ui.map { raw(($0.1, 479 - $0.0)) }))
        func config(_ entry: String) -> String {
            """
            {"outputs": [{"id": "A", "width": 800, "height": 480}, {"id": "B", "width": 800, "height": 480, "rotation": 90}],
             "devices": [{"match": {"name": "touchd virtual touchscreen"}\(entry)}],
             "windows": [{"id": "b", "output": "B", "frame": [0, 0, 480, 800], "view": {"id": "b-root", "frame": [0, 0, 480, 800]}}]}
            """
        }
        let cfg = dir.write("two.json", config(""))
        let targets = ui.map { "\(Int($0.0)),\(Int($0.1))" }.joined(separator: ";")
        // --output B, and the device's own devices[].output: the same matrix.
        let byOption = try touchd("calibrate", "--config", cfg, "--output", "B", "--capture", cap, "--device-info", desc, "--targets", targets)
        let byEntry = try touchd("calibrate", "--config", dir.write("entry.json", config(", \"output\": \"B\"")), "--capture", cap, "--device-info", desc, "--targets", targets)
        #expect(byOption.status == 0 && byEntry.status == 0, "\(byOption.stderr) \(byEntry.stderr)")
        #expect(byOption.lines.first == byEntry.lines.first)
        let matrix = json(byOption.lines.first ?? "")["calibration"] as? [Double] ?? []
        #expect(matrix.count == 6)
        for (got, want) in zip(matrix, truth) { #expect(abs(got - want) < 5e-3, "\(matrix)") }
        let calibrated = dir.write("calibrated.json", config(", \"output\": \"B\", \"calibration\": \(matrix)"))
        let replay = try touchd("replay", "--config", calibrated, "--device-info", desc, cap)
        let began = replay.messages.filter { $0.type == "frame" }.flatMap(\.touches).filter { $0["phase"] as? String == "began" }
        #expect(began.count == 5)
        for (t, target) in zip(began, ui) {
            let p = t["location"] as? [Double] ?? []
            #expect(p.count == 2 && abs(p[0] - target.0) <= 1.5 && abs(p[1] - target.1) <= 1.5, "\(p) for \(target)")
        }
        let bad = try touchd("calibrate", "--config", cfg, "--output", "C", "--capture", cap, "--device-info", desc, "--targets", targets)
        #expect(bad.status == 2 && bad.stderr.contains("--output C: no output has that id (outputs: A, B)"), "\(bad.stderr)")
        let noConfig = try touchd("calibrate", "--output", "B", "--capture", cap, "--device-info", desc, "--targets", targets)
        #expect(noConfig.status == 2 && noConfig.stderr.contains("--output needs --config"), "\(noConfig.stderr)")
    }

    @Test func badTapsAndTargetsAreClearErrors() throws {
        let dir = TempDir()
        let desc = Paths.fixture("virtual-800x480.desc")
        var points = targets.map(raw)
        points[2].0 -= 120   // target 3 tapped 120 units off
        let miss = dir.write("miss.events", capture(points))
        let r1 = try touchd("calibrate", "--capture", miss, "--device-info", desc, "--targets", targetArg)
        #expect(r1.status == 1 && r1.stderr.contains("target 3 looks like a misclick"), "\(r1.stderr)")
        let few = dir.write("few.events", capture(Array(targets.map(raw).prefix(2))))
        let r2 = try touchd("calibrate", "--capture", few, "--device-info", desc, "--targets", "80,48;719,48")
        #expect(r2.status == 1 && r2.stderr.contains("at least 3 are needed"), "\(r2.stderr)")
        let line = dir.write("line.events", capture([(100, 100), (400, 240), (700, 380)].map(raw)))
        let r3 = try touchd("calibrate", "--capture", line, "--device-info", desc, "--targets", "100,100;400,240;700,380")
        #expect(r3.status == 1 && r3.stderr.contains("on one line"), "\(r3.stderr)")
        let r4 = try touchd("calibrate", "--capture", line, "--device-info", desc, "--targets", "1,2;3")
        #expect(r4.status == 2 && r4.stderr.contains("target 2 (\"3\") is not \"x,y\""), "\(r4.stderr)")
        let r5 = try touchd("calibrate", "--capture", line, "--device-info", desc, "--targets", "100,100;400,240")
        #expect(r5.status == 1 && r5.stderr.contains("3 tap(s) for 2 target(s)"), "\(r5.stderr)")
    }
}
