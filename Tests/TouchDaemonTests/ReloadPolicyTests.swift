import Testing
import Glibc
import Foundation
@testable import TouchDaemon

/// Issue 40, item 4: a reload that tightens the policy is enforced on the windows clients
/// already own. A client allowed 0…1000 attached at 500; the config narrows it to -1000…-1: its
/// window moves to -1, below the kiosk's, and the kiosk's tap is the kiosk's again. Taken out of
/// `clients.owners`, its window goes and an update finds none.
@Suite(.serialized) struct ReloadPolicyTests {
    static func config(_ levels: String?) -> String {
        let me = String(getuid())
        let owners = levels.map { #"[{"users": ["\#(me)"], "levels": \#($0)}]"# } ?? #"[{"users": ["touchd-nobody-\#(me)"]}]"#
        return """
            {"outputs": [{"id": "DSI-1", "width": 800, "height": 480}], "clients": {"owners": \(owners)},
             "windows": [{"id": "kiosk", "frame": [0, 0, 800, 480], "level": 0,
                          "view": {"id": "pin", "frame": [0, 0, 800, 480], "touches": "handle"}}]}
            """
    }
    static let overlay = #"{"attach": {"id": "overlay", "frame": [0, 0, 800, 480], "level": 500, "view": {"id": "glass", "frame": [0, 0, 800, 480], "touches": "handle"}}}"#

    func started() throws -> (EmbeddedDaemon, EmbeddedDaemon.Client) {
        // The capture starts once a second client has spoken: after the reload.
        let d = try EmbeddedDaemon(config: Self.config("[0, 1000]"), steps: [(1.0, "down 50 50"), (1.1, "up")], waitClients: 2)
        let c = try d.connect()
        d.turn()
        try c.send(Self.overlay)
        d.turn()
        d.turn()
        #expect(try c.messages().contains { $0.type == "attached" })
        return (d, c)
    }

    func reload(_ d: EmbeddedDaemon, _ levels: String?) throws {
        try Self.config(levels).write(toFile: d.configPath, atomically: true, encoding: .utf8)
        d.daemon.requestReload()
        d.turn()
        d.turn()
    }

    @Test func aNarrowedRangeMovesTheWindowBelowTheKiosk() throws {
        let (d, c) = try started()
        try reload(d, "[-1000, -1]")
        let told = try c.messages()
        let notice = told.first { $0.type == "updated" && $0["reason"] as? String == "policy" }
        #expect(notice?["window"] as? String == "overlay", "\(told)")
        #expect(notice?["level"] as? Double == -1)
        #expect(notice?["version"] as? Int == 2)
        let w = d.daemon.engine.scene.viewIndex["overlay"].map { d.daemon.engine.scene[$0].level }
        #expect(w == -1)
        // The tap lands on the kiosk's PIN pad, not on the demoted overlay.
        let starter = try d.connect()
        d.turn()
        try starter.send(#"{"ping": 1}"#)
        d.turn()
        d.run(for: 1_500_000)
        #expect(try starter.messages().contains { $0.type == "frame" && ($0.touches.first?["window"] as? String) == "kiosk" })
        let windows = try c.messages().filter { $0.type == "frame" }.flatMap(\.touches).map { $0["window"] as? String }
        #expect(windows == ["kiosk", "kiosk"], "the tap went to \(windows)")
        #expect(d.logLines.contains { $0.contains("window \"overlay\" of client") && $0.contains("moved to level -1") })
    }

    @Test func aClientNoLongerAnOwnerLosesItsWindowsAndCannotUpdate() throws {
        let (d, c) = try started()
        try reload(d, nil)
        let told = try c.messages()
        #expect(told.contains { $0.type == "detached" && $0["window"] as? String == "overlay" && $0["reason"] as? String == "policy" }, "\(told)")
        #expect(d.daemon.engine.scene.viewIndex["overlay"] == nil)
        try c.send(#"{"update": {"window": "overlay", "changes": [{"window": {"frame": [0, 0, 800, 480]}}]}}"#)
        d.turn()
        d.turn()
        let answer = try c.messages().first { $0.type == "error" }
        #expect((answer?["error"] as? String)?.contains("no window has id \"overlay\"") == true, "\(String(describing: answer))")
    }
}

/// Issue 40, item 8: lines a client's requests cause are folded like warnings, notices
/// included: one client turning the output 200 times wrote 200 notices (6,000 in 1.4 s).
@Suite(.serialized) struct RequestLogTests {
    @Test func aClientRepeatingARequestCannotFloodTheLog() throws {
        let d = try EmbeddedDaemon(config: #"{"outputs": [{"id": "DSI-1", "width": 800, "height": 480}], "windows": []}"#,
                                   steps: [(1.0, "down 50 50"), (1.1, "up")])
        let c = try d.connect()
        d.turn()
        for i in 0..<200 { try c.send(#"{"output": {"id": "DSI-1", "rotation": \#(i % 2 == 0 ? 90 : 0)}}"#) }
        for _ in 0..<20 { d.turn() }
        d.run(for: 1_500_000)
        let turned = d.logLines.filter { $0.contains("turned output DSI-1") }
        #expect(turned.count == StderrLog.shownPerWindow + 1, "\(turned.count) lines: \(turned.prefix(8))")
        #expect(turned.last?.contains("more like this") == true, "\(String(describing: turned.last))")
        // Every request was still carried out and answered.
        var answered: [Int] = []
        for _ in 0..<50 where answered.count < 200 {
            answered += try c.messages().filter { $0.type == "output" && $0["line"] != nil }.map { $0["line"] as? Int ?? 0 }
            d.turn()   // the daemon reads on as its answers are read (flow control)
        }
        #expect(answered == Array(1...200), "\(answered.count) answers, the last \(answered.suffix(3))")
    }
}
