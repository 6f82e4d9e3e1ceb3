import Foundation
import Testing

/// Issue 44, item 4: `touchd replay` prints idle, wake and systemGesture at their times (and
/// `--summary` lists them); `touchd render` marks the swallowed touch and the system gestures'
/// places. A capture of three taps — at 1.0 s, at 3.0 s (a drag of two steps: it wakes the
/// output, idle since 2.04 s, and is swallowed) and at 3.5 s — on examples/maintenance's config
/// with a one-second idle time, an edge swipe and a long press added.
@Suite struct KioskReplayTests {
    static let desc = Paths.fixture("virtual-800x480.desc")

    static func files(_ dir: TempDir) throws -> (config: String, capture: String) {
        var lines: [String] = []
        var id = 0
        func ev(_ t: Double, _ type: Int, _ code: Int, _ value: Int) { lines.append(String(format: "E: %.6f %04x %04x %d", t, type, code, value)) }
        func tap(_ t: Double, _ x: Int, _ y: Int, moves: [(Int, Int)] = []) {
            id += 1
            ev(t, 3, 0x2f, 0); ev(t, 3, 0x39, id); ev(t, 3, 0x35, x); ev(t, 3, 0x36, y); ev(t, 0, 0, 0)
            var u = t
            for (mx, my) in moves { u += 0.02; ev(u, 3, 0x2f, 0); ev(u, 3, 0x35, mx); ev(u, 3, 0x36, my); ev(u, 0, 0, 0) }
            ev(u + 0.04, 3, 0x2f, 0); ev(u + 0.04, 3, 0x39, -1); ev(u + 0.04, 0, 0, 0)
        }
        tap(1.0, 400, 240)
        tap(3.0, 300, 200, moves: [(320, 210), (340, 220)])
        tap(3.5, 400, 240)
        var config = try String(contentsOfFile: Paths.root.appendingPathComponent("examples/maintenance/touchd.json").path, encoding: .utf8)
        config = config.replacingOccurrences(of: #""idle": 120"#, with: #""idle": 1"#)
            .replacingOccurrences(of: #""region": [0, 0, 80, 80]}"#, with: #""region": [0, 0, 80, 80]}, "#
                + #"{"name": "back", "kind": "edgeSwipe", "edge": "left"}, {"name": "exit", "kind": "longPress", "touches": 3, "duration": 2.0}"#)
        return (dir.write("kiosk.json", config), dir.write("wake.events", lines.joined(separator: "\n") + "\n"))
    }

    @Test func replayPrintsTheSessionAtItsTimes() throws {
        let dir = TempDir()
        let (config, capture) = try Self.files(dir)
        let r = try touchd("replay", "--config", config, "--device-info", Self.desc, capture)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains(#"{"type":"idle","seq":4,"time":2.040000,"output":"screen"}"#), "\(r.stdout)")
        #expect(lines.contains(#"{"type":"wake","seq":5,"time":3.000000,"output":"screen"}"#))
        #expect(lines.contains(#"{"type":"idle","seq":8,"time":4.540000,"output":"screen"}"#))
        // The waking drag is in no frame: touches 1 and 2 are the taps at 1.0 and 3.5 s.
        let frames = lines.filter { $0.hasPrefix(#"{"type":"frame""#) }
        #expect(frames.count == 4 && !frames.contains { $0.contains(#""time":3.0"#) }, "\(frames)")
        #expect(frames.last?.contains(#""id":2,"phase":"ended""#) == true)
        let summary = try touchd("replay", "--summary", "--config", config, "--device-info", Self.desc, capture)
        #expect(summary.stdout.hasSuffix("session:\n  idle on screen at 2.040\n  wake on screen at 3.000\n  idle on screen at 4.540\n"), "\(summary.stdout)")
        let check = try touchd("check-config", config)
        #expect(check.stdout == "\(config): ok: screen 800x480, 1 window(s), 2 view(s), 1 control(s), 0 controller(s), 0 gesture recognizer(s), 0 device entries; session on screen; system gesture(s) admin, back, exit\n", "\(check.stdout)")
        // The maintenance example: the gesture at the fifth lift.
        let example = Paths.root.appendingPathComponent("examples/maintenance").path
        let five = try touchd("replay", "--config", example + "/touchd.json", "--device-info", Self.desc, example + "/five-taps.events")
        #expect(five.stdout.split(separator: "\n").filter { $0.contains("systemGesture") } == [#"{"type":"systemGesture","name":"admin","output":"screen","time":2.240000}"#])
    }

    /// A scene script's session requests (replay --scene): kept awake past the idle time, then
    /// blanked by request; the next tap wakes it and is swallowed; the replies with the client's name.
    @Test func sessionRequestsInASceneScript() throws {
        let dir = TempDir()
        let (config, capture) = try Self.files(dir)
        let script = dir.write("s.ndjson", #"{"time":1.5,"client":"ui","request":{"session":{"output":"screen","keepAwake":true}}}"# + "\n"
                               + #"{"time":3.2,"client":"ui","request":{"session":{"output":"screen","action":"idle"}}}"# + "\n")
        let r = try touchd("replay", "--config", config, "--device-info", Self.desc, "--scene", script, capture)
        let kiosk = r.stdout.split(separator: "\n").filter { !$0.contains(#""type":"frame""#) && !$0.contains(#""type":"control""#) && !$0.contains(#""type":"device""#) }
        #expect(kiosk == [#"{"type":"session","output":"screen","idle":false,"keepAwake":1,"client":"ui"}"#,
                          #"{"type":"idle","seq":8,"time":3.200000,"output":"screen"}"#,
                          #"{"type":"session","output":"screen","idle":true,"keepAwake":1,"client":"ui"}"#,
                          #"{"type":"wake","seq":9,"time":3.500000,"output":"screen"}"#], "\(r.stdout)\(r.stderr)")
    }

    @Test func renderMarksTheSwallowedTouchAndTheGestures() throws {
        let dir = TempDir()
        let (config, capture) = try Self.files(dir)
        let svg = dir.path("kiosk.svg")
        let r = try touchd("render", "--config", config, "--device-info", Self.desc, capture, "-o", svg)
        #expect(r.status == 0 && r.stdout == "\(svg): 2 views in 1 window(s), 2 touch trail(s), 1 swallowed\n", "\(r.stdout)\(r.stderr)")
        let script = """
            import json, sys, xml.etree.ElementTree as ET
            ns = {"s": "http://www.w3.org/2000/svg"}
            root = ET.parse(sys.argv[1]).getroot()
            print(json.dumps({
              "gestures": [[g.get("data-name"), [r.get(k) for k in ("class", "x", "y", "width", "height")]]
                           for g in root.findall("s:g[@class='system-gesture']", ns) for r in g.findall("s:rect", ns)],
              "legend": [t.text for t in root.findall("s:text[@class='system-gestures']", ns)],
              "swallowed": [g.find("s:polyline", ns).get("points") for g in root.findall("s:g[@class='touch swallowed']", ns)],
              "touches": [t.get("data-id") for t in root.findall("s:g[@class='touch']", ns)],
            }))
            """
        let p = try runProgram("/usr/bin/env", ["python3", "-c", script, svg])
        #expect(p.status == 0, "\(p.stderr)")
        let o = json(p.stdout)
        let gestures = (o["gestures"] as? [[Any]])?.map { "\($0[0]) \(($0[1] as? [String])?.joined(separator: " ") ?? "")" }
        #expect(gestures == ["admin region 0.0 0.0 80.0 80.0", "back edge 0.0 0.0 20.0 480.0"], "\(p.stdout)")
        #expect(o["legend"] as? [String] == ["system gestures: exit: 3 fingers held 2.0 s"])
        #expect(o["swallowed"] as? [String] == ["300.0,200.0 320.0,210.0 340.0,220.0"])
        #expect(o["touches"] as? [String] == ["1", "2"])
    }
}
