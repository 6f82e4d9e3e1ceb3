import Foundation
import Testing

/// Issue 30, items 3 and 4, on a real recording: the Atmel maXTouch's nine fast taps (a panel
/// that reports nothing while a finger rests: each 82 ms tap is one frame down, one up), with
/// ghost contacts written into it — one frame each, on a slot of their own — between the taps
/// and during them. The filters must give exactly the original recording's output (replay's
/// NDJSON, byte for byte), and the recording without ghosts must come out unchanged with them
/// set; `touchd measure` must flag the ghosts and suggest a minimumDuration that does that.
@Suite struct GhostCaptureTests {
    static let capture = Paths.capture("atmel-maxtouch_1-finger-fast-taps.events")

    /// A device entry for every device with `filter` in config/example.json.
    func config(_ dir: TempDir, filter: String?) throws -> String {
        var text = try String(contentsOfFile: Paths.exampleConfig, encoding: .utf8)
        if let filter {
            let entry = "{\"match\": {\"name\": \"*\"}, \"rotation\": 0,"
            #expect(text.contains(entry))
            text = text.replacingOccurrences(of: entry, with: "{\"match\": {\"name\": \"*\"}, \"filter\": \(filter), \"rotation\": 0,")
        }
        let path = dir.url.appendingPathComponent("config-\(abs(text.hashValue)).json").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The recording with a one-frame contact (slot 5, 10 ms) at each of `points`, starting
    /// 3 ms after the frame `after[k]` of the recording; the slot selected before is selected
    /// again, so the recording's own events go on as they were.
    static func withGhosts(at points: [(Int, Int)], after frames: [Int]) throws -> String {
        let lines = try String(contentsOfFile: capture, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var out: [String] = []
        var frame = 0, slot = 0, id = 9000, k = 0
        for line in lines {
            out.append(line)
            guard line.hasPrefix("E:") else { continue }
            let f = line.split(separator: "#")[0].split(whereSeparator: { $0 == " " || $0 == "\t" })
            let (time, type, code, value) = (Double(f[1])!, Int(f[2], radix: 16)!, Int(f[3], radix: 16)!, Int(f[4])!)
            if type == 3 && code == 0x2f { slot = value }
            guard type == 0 && code == 0 else { continue }
            defer { frame += 1 }
            guard k < frames.count, frames[k] == frame else { continue }
            let (x, y) = points[k]
            k += 1
            func ev(_ t: Double, _ type: Int, _ code: Int, _ v: Int) { out.append(String(format: "E: %.6f %04x %04x %d", t, type, code, v)) }
            ev(time + 0.003, 3, 0x2f, 5); ev(time + 0.003, 3, 0x39, id); ev(time + 0.003, 3, 0x35, x); ev(time + 0.003, 3, 0x36, y)
            ev(time + 0.003, 3, 0x2f, slot); ev(time + 0.003, 0, 0, 0)
            ev(time + 0.013, 3, 0x2f, 5); ev(time + 0.013, 3, 0x39, -1); ev(time + 0.013, 3, 0x2f, slot); ev(time + 0.013, 0, 0, 0)
            id += 1
        }
        #expect(k == frames.count, "every ghost was written")
        return out.joined(separator: "\n")
    }

    /// A path in a directory of its own with the recording's file name (a replay names the
    /// device after it).
    static func sameName(_ dir: TempDir, _ sub: String) -> String {
        let d = dir.url.appendingPathComponent(sub)
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d.appendingPathComponent((capture as NSString).lastPathComponent).path
    }

    /// Ghosts on the "play" button, the canvas and the toolbar's edge: after the first tap's
    /// touch-down (during it), after its lift (between taps), and later.
    static let ghosts = [(620, 150), (300, 300), (40, 2), (700, 400), (120, 240)]
    static let ghostFrames = [0, 1, 4, 7, 12]

    func replay(_ config: String, _ capture: String) throws -> String {
        let r = try runProgram(Paths.binary, ["replay", "--config", config, capture])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout
    }

    @Test func theFiltersGiveTheRecordingsOwnOutputWithGhostsWrittenIn() throws {
        let dir = TempDir()
        let ghosty = GhostCaptureTests.sameName(dir, "ghosts")
        try GhostCaptureTests.withGhosts(at: GhostCaptureTests.ghosts, after: GhostCaptureTests.ghostFrames).write(toFile: ghosty, atomically: true, encoding: .utf8)
        let plain = try config(dir, filter: nil)
        let original = try replay(plain, GhostCaptureTests.capture)
        #expect(original.components(separatedBy: "\"phase\":\"began\"").count - 1 == 9)
        // The defect: five more touches.
        let unfiltered = try replay(plain, ghosty)
        #expect(unfiltered.components(separatedBy: "\"phase\":\"began\"").count - 1 == 14)
        for filter in ["{\"minimumDuration\": 0.02}", "{\"minimumDuration\": 0.08, \"debounce\": 0.05}"] {
            let f = try config(dir, filter: filter)
            #expect(try replay(f, ghosty) == original, "\(filter) with ghosts")
            #expect(try replay(f, GhostCaptureTests.capture) == original, "\(filter) on the recording")
        }
        // minimumFrames alone drops this panel's real taps (one frame each): the docs say so.
        let frames = try replay(try config(dir, filter: "{\"minimumFrames\": 2}"), GhostCaptureTests.capture)
        #expect(frames.components(separatedBy: "\"phase\":\"began\"").count - 1 == 0)
        // A dead zone: contacts that begin in the top 5 points are ignored (only the toolbar
        // ghost lands there); with no contact there the recording is unchanged.
        let zone = try config(dir, filter: "{\"deadZone\": [5, 0, 0, 0]}")
        #expect(try replay(zone, GhostCaptureTests.capture) == original)
        let edgeOnly = GhostCaptureTests.sameName(dir, "edge")
        try GhostCaptureTests.withGhosts(at: [(40, 2), (400, 1)], after: [4, 12]).write(toFile: edgeOnly, atomically: true, encoding: .utf8)
        #expect(try replay(zone, edgeOnly) == original)
    }

    @Test func measureFlagsTheGhostsAndItsMinimumDurationRemovesThemAndKeepsEveryTap() throws {
        let dir = TempDir()
        let ghosty = GhostCaptureTests.sameName(dir, "ghosts")
        try GhostCaptureTests.withGhosts(at: GhostCaptureTests.ghosts, after: GhostCaptureTests.ghostFrames).write(toFile: ghosty, atomically: true, encoding: .utf8)
        let m = try runProgram(Paths.binary, ["measure", "--capture", ghosty])
        #expect(m.status == 0, "\(m.stderr)")
        #expect(m.stdout.contains("phantom contacts: 5 "), "\(m.stdout)")
        #expect(m.stdout.contains("5 of 5 phantom(s) removed, 9 of 9 other touch-down(s) kept"), "\(m.stdout)")
        guard let suggestion = m.stdout.split(separator: "\n").last, suggestion.hasPrefix("{\"filter\":{") else {
            Issue.record("the last line is the suggested filter: \(m.stdout)")
            return
        }
        let json = try JSONSerialization.jsonObject(with: Data(suggestion.utf8)) as? [String: [String: Any]]
        let md = json?["filter"]?["minimumDuration"] as? Double
        #expect(md.map { $0 > 0.01 && $0 < 0.082 } == true, "\(suggestion)")
        // Put in the config: the ghosts are gone and every tap is as it was.
        let filter = String(suggestion.dropFirst("{\"filter\":".count).dropLast())
        let tuned = try config(dir, filter: filter)
        #expect(try runProgram(Paths.binary, ["check-config", tuned]).status == 0)
        let original = try replay(try config(dir, filter: nil), GhostCaptureTests.capture)
        #expect(try replay(tuned, ghosty) == original)
        // The recording itself has no phantom.
        let clean = try runProgram(Paths.binary, ["measure", "--capture", GhostCaptureTests.capture])
        #expect(clean.stdout.contains("phantom contacts: none"), "\(clean.stdout)")
        #expect(!clean.stdout.contains("minimumDuration"))
    }
}
