import Testing
import Glibc
@testable import TouchDaemon

/// `{"output":{"id":ID,"rotation":R}}` through the daemon's own loop (issue 33, item 2): a
/// client the owners policy allows turns the output, every subscriber is told and the touch
/// down on it ends; a client the policy refuses gets an error and nothing changes.
@Suite(.serialized) struct OutputRequestTests {
    static func config(owners: String) -> String {
        """
        {"outputs": [{"id": "DSI-1", "width": 800, "height": 480}], "clients": {"owners": {"users": ["\(owners)"]}},
         "windows": [{"id": "main", "frame": [0, 0, 800, 480], "view": {"id": "root", "frame": [0, 0, 800, 480], "touches": "handle"}}]}
        """
    }

    func start(owners: String) throws -> (EmbeddedDaemon, EmbeddedDaemon.Client) {
        let d = try EmbeddedDaemon(config: Self.config(owners: owners), steps: [(1.0, "down 50 50"), (1.5, "move 52 50"), (3.0, "up")])
        let c = try d.connect()
        d.turn()
        try c.send(#"{"subscribe": {}}"#)
        d.turn()
        d.run(for: 200_000)
        #expect(try c.messages().flatMap(\.touches).map { $0["phase"] as? String } == ["began"])
        return (d, c)
    }

    @Test func anAllowedClientTurnsTheOutputAndEverySubscriberIsTold() throws {
        let (d, watcher) = try start(owners: String(getuid()))
        // A subscriber to frames only is told too: its windows' frames may have to change.
        let framesOnly = try d.connect()
        d.turn()
        try framesOnly.send(#"{"subscribe": {"types": ["frame"]}}"#)
        d.turn()
        let ui = try d.connect()
        d.turn()
        try ui.send(#"{"output": {"id": "DSI-1", "rotation": 90}}"#)
        d.turn()
        d.turn()
        let seen = try watcher.messages()
        let touches = seen.flatMap(\.touches)
        #expect(touches.map { $0["phase"] as? String } == ["cancelled"])
        #expect(touches.first?["reason"] as? String == "output-changed")
        let output = seen.first { $0.type == "output" }?["output"] as? [String: Any]
        #expect(output?["id"] as? String == "DSI-1")
        #expect(output?["rotation"] as? Int == 90)
        #expect(output?["width"] as? Double == 800 && output?["height"] as? Double == 480)
        #expect(try framesOnly.messages().filter { $0.type == "output" }.count == 1)
        let answers = try ui.messages()
        // Its answer carries its line (like any client, it also sees the broadcast, first).
        let reply = answers.first { $0.type == "output" && $0["line"] != nil }
        #expect(reply?["line"] as? Int == 1, "\(answers)")
        #expect(d.daemon.engine.scene.outputs[0].rotation == .r90)
        // The finger's move and lift reach nobody: its touch is over.
        d.run(for: 3_000_000)
        #expect(try watcher.messages().flatMap(\.touches).isEmpty)
    }

    @Test func aClientThePolicyRefusesGetsAnErrorAndNothingChanges() throws {
        let (d, watcher) = try start(owners: "touchd-nobody-\(getuid())")
        let ui = try d.connect()
        d.turn()
        try ui.send(#"{"output": {"id": "DSI-1", "rotation": 90}}"#)
        d.turn()
        d.turn()
        let error = try ui.messages().first { $0.type == "error" }
        #expect(error?["request"] as? String == "output")
        #expect((error?["error"] as? String)?.contains("is not among clients.owners") == true, "\(String(describing: error))")
        #expect(try watcher.messages().isEmpty)
        #expect(d.daemon.engine.scene.outputs[0].rotation == .r0)
    }

    /// With two displays, a client joining after a turn learns the orientations from its
    /// snapshot, and `stats` lists them (issue 33, item 5); hello lists them as configured
    /// at connection.
    @Test func aLateClientsSnapshotAndStatsSayHowTheOutputsAreTurned() throws {
        let config = """
            {"outputs": [{"id": "DSI-1", "width": 800, "height": 480}, {"id": "HDMI-A-1", "width": 1920, "height": 1080}],
             "clients": {"owners": {"users": ["\(getuid())"]}},
             "windows": [{"id": "main", "frame": [0, 0, 800, 480], "view": {"id": "root", "frame": [0, 0, 800, 480]}}]}
            """
        let d = try EmbeddedDaemon(config: config, steps: [(1.0, "down 50 50"), (3.0, "up")])
        let ui = try d.connect()
        d.turn()
        try ui.send(#"{"output": {"id": "HDMI-A-1", "rotation": 270}}"#)
        d.turn()
        d.turn()
        let late = try d.connect()
        d.turn()
        try late.send(#"{"subscribe": {}}"#)
        try late.send(#"{"stats": true}"#)
        d.turn()
        d.turn()
        let seen = try late.messages()
        func rotations(_ m: [String: Any]?) -> [String] {
            (m?["outputs"] as? [[String: Any]] ?? []).map { "\($0["id"]!) \($0["rotation"]!)" }
        }
        #expect(rotations(seen.first { $0.type == "snapshot" }) == ["DSI-1 0", "HDMI-A-1 270"], "\(seen)")
        #expect(rotations(seen.first { $0.type == "stats" }) == ["DSI-1 0", "HDMI-A-1 270"], "\(seen)")
        // A one-output daemon's snapshot and stats have no outputs (as they always were).
        let (one, watcher) = try start(owners: String(getuid()))
        try watcher.send(#"{"stats": true}"#)
        one.turn()
        one.turn()
        #expect(try watcher.messages().first { $0.type == "stats" }.map { $0["outputs"] == nil } == true)
    }
}
