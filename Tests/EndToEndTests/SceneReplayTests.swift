import Foundation
import Testing

/// `touchd replay --scene`: a live scene replayed offline with a capture.
@Suite struct SceneReplayTests {
    let config = Paths.fixture("live/live-taps.json")
    let capture = Paths.fixture("live/live-taps.events")
    let script = Paths.fixture("live/live-taps.scene.ndjson")

    func replay(_ extra: [String] = []) throws -> RunResult {
        try touchd(["replay", "--config", config, "--device-info", Paths.fixture("virtual-800x480.desc"), "--scene", script] + extra + [capture])
    }

    /// Each message as a short line: touches "id phase view [reason]", controls "control event",
    /// replies "client type window [version|path]".
    func digest(_ r: RunResult) -> [String] {
        r.messages.flatMap { m -> [String] in
            switch m.type {
            case "frame":
                return m.touches.map { "\($0["id"]!) \($0["phase"]!) \($0["view"]!)" + (($0["reason"] as? String).map { " " + $0 } ?? "") }
            case "control":
                return ["\(m["control"]!) \(m["event"]!)"]
            case "attached", "updated", "detached", "error":
                let tail = (m["version"] as? Int).map { " v\($0)" } ?? (m["path"] as? String).map { " at " + $0 } ?? ""
                return ["\(m["client"]!) \(m.type!) \(m["window"]!)" + tail]
            default:
                return []
            }
        }
    }

    @Test func theScriptsRequestsApplyAtTheirTimesWithTheirReplies() throws {
        let r = try replay()
        #expect(r.status == 0, "\(r.stderr)")
        // Checked by hand against the script and the capture (Tests/Fixtures/live):
        // the dialog's OK button is at screen (150…250, 150…200) until 1.6 s, then at
        // (350…450, 220…270); the ui client goes away at 3.45 s with touch 4 still down.
        #expect(digest(r) == [
            "ui attached dialog v1", "pinpad attached pin v1",
            "1 began ok", "ok touchDown", "1 ended ok", "ok touchUpInside", "ok primaryActionTriggered",
            "ui error dialog at changes[1].view",          // one bad change: the whole update fails
            "pinpad error dialog at window",               // not the owner
            "ui updated dialog v2",                        // the failed update counted nothing
            "2 began panel", "2 ended panel",              // the button's old place
            "3 began ok", "ok touchDown", "3 ended ok", "ok touchUpInside", "ok primaryActionTriggered",
            "4 began panel", "4 moved panel", "4 moved panel", "4 moved panel", "4 moved panel",
            "4 cancelled panel client-gone",               // never ended afterwards
            "5 began root", "5 ended root",                // the window is gone: the config's view
            "pinpad detached pin",                         // after the capture's last event
        ])
        let cancel = r.messages.first { $0.touches.contains { $0["reason"] as? String == "client-gone" } }
        #expect(cancel?["time"] as? Double == 3.45)
    }

    @Test func byteIdenticalTwice() throws {
        let a = try replay(), b = try replay()
        #expect(a.status == 0 && !a.stdout.isEmpty)
        #expect(a.stdout == b.stdout)
        let t1 = try replay(["--trace"]), t2 = try replay(["--trace"])
        #expect(t1.stdout == t2.stdout && t1.stdout.contains("\"type\":\"hitTest\""))
    }

    @Test func aBadScriptLineIsAnErrorWithItsLine() throws {
        let dir = TempDir()
        let bad = dir.write("bad.ndjson", """
            {"time": 0, "client": "ui", "request": {"attach": {"id": "w", "frame": [0, 0, 1, 1]}}}
            {"time": "soon", "client": "ui", "request": {"detach": {"window": "w"}}}

            {"time": 1, "client": "ui", "request": {"ping": 1}}
            not json
            """)
        let r = try touchd("replay", "--config", config, "--device-info", Paths.fixture("virtual-800x480.desc"), "--scene", bad, capture)
        #expect(r.status == 1)
        #expect(r.stdout.isEmpty)
        let lines = r.stderr.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("bad.ndjson: $.time: expected a number of seconds (line 2)") })
        #expect(lines.contains { $0.contains("bad.ndjson: $.request.ping: not a scene request (expected: attach, update, detach, output, calibrate, session, screenReader, announce, accessibilityChanged) (line 4)") })
        #expect(lines.contains { $0.contains("bad.ndjson: column 1: invalid JSON") && $0.contains("(line 5)") })
    }

    @Test func theDigestFollowsTheLiveScene() throws {
        let r = try replay(["--summary"])
        #expect(r.status == 0)
        // Each touch with the view of its time: touch 3 on the moved button, touch 4 cancelled
        // by its window's client going away, touch 5 on the config's view below.
        let touches = r.stdout.split(separator: "\n").filter { $0.hasPrefix("  #") }
            .map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        #expect(touches.map { "\($0[0]) \($0[1])" } == ["#1 ok", "#2 panel", "#3 ok", "#4 panel", "#5 root"])
        #expect(touches.map { $0.last! } == ["ended", "ended", "ended", "(client-gone)", "ended"])
    }

    /// An output turned in a scene script (issue 33, items 2 and 5): a bug report about a
    /// rotating kiosk replays offline. The panel (800 × 480 units) is on B, 800 × 480 turned 90:
    /// the panel's (x, y) is B's (479 − y, x); turned to 0 at 2.2 s it is (x, y); turned to 180
    /// at 3.05 s, while touch 4 is down, it is (799 − x, 479 − y) and touch 4 ends cancelled
    /// where it was (the turn applies before the 3.1 s frame), before the output message (the
    /// engine cancels, then tells).
    @Test func anOutputTurnedByTheScript() throws {
        let dir = TempDir()
        let cfg = dir.write("b.json", """
            {"outputs": [{"id": "A", "width": 800, "height": 480}, {"id": "B", "width": 800, "height": 480, "rotation": 90}],
             "devices": [{"match": {"name": "touchd virtual touchscreen"}, "output": "B"}],
             "windows": [{"id": "b", "output": "B", "frame": [0, 0, 800, 800], "view": {"id": "b-root", "frame": [0, 0, 800, 800]}}]}
            """)
        let script = dir.write("turns.ndjson", """
            {"time": 2.2, "client": "ui", "request": {"output": {"id": "B", "rotation": 0}}}
            {"time": 3.05, "client": "ui", "request": {"output": {"id": "B", "rotation": 180}}}
            """)
        let r = try touchd(["replay", "--config", cfg, "--device-info", Paths.fixture("virtual-800x480.desc"), "--scene", script, capture])
        #expect(r.status == 0, "\(r.stderr)")
        var seen: [String] = []
        for m in r.messages {
            if m.type == "output", let o = m["output"] as? [String: Any], m["client"] == nil {
                seen.append("output \(o["id"]!) \(o["rotation"]!)")
            }
            for t in m.type == "frame" ? m.touches : [] where t["phase"] as? String != "moved" {
                let p = t["location"] as? [Double] ?? []
                seen.append("\(t["id"]!) \(t["phase"]!) \(p.map { String(Int($0.rounded())) }.joined(separator: ","))" + ((t["reason"] as? String).map { " " + $0 } ?? ""))
            }
        }
        #expect(seen == ["1 began 299,200", "1 ended 299,200", "2 began 299,200", "2 ended 299,200",
                         "output B 0", "3 began 400,240", "3 ended 400,240", "4 began 120,120",
                         "4 cancelled 120,120 output-changed", "output B 180", "5 began 679,359", "5 ended 679,359"], "\(seen)")
    }

    /// A calibration in a scene script (a bug report of a kiosk calibrating): its messages are
    /// in the output with the client's name, and the client leaving ends it — the panel's taps
    /// reach the windows again (they vanished for the rest of the replay). The Atmel capture's
    /// taps begin at 0, 0.23, 0.47, 0.69 … 1.82 s: calibrating from 0.1 s, taps 2 and 3 are
    /// targets 1 and 2; after the disconnect at 0.6 s the last six are touches again.
    @Test func aCalibrationInTheScriptAndItsClientLeaving() throws {
        let dir = TempDir()
        let device = "atmel-maxtouch_1-finger-fast-taps"
        let script = dir.write("cal.ndjson", """
            {"time": 0.1, "client": "k", "request": {"calibrate": {"device": "\(device)"}}}
            {"time": 0.6, "client": "k", "disconnect": true}
            """)
        let r = try touchd(["replay", "--config", Paths.exampleConfig, "--scene", script, Paths.fixture("captures/\(device).events")])
        #expect(r.status == 0, "\(r.stderr)")
        let asked = r.messages.filter { $0.type == "calibration" }
        #expect(asked.map { $0["target"] as? Int } == [0, 1, 2], "\(asked)")
        #expect(asked.allSatisfy { $0["client"] as? String == "k" })
        let began = r.messages.filter { $0.type == "frame" }.flatMap { f in f.touches.filter { $0["phase"] as? String == "began" }.map { _ in f["time"] as? Double ?? -1 } }
        #expect(began.count == 7, "\(began)")
        #expect(!began.contains { $0 > 0.1 && $0 < 0.6 }, "\(began)")
    }
}
