import Testing
import Glibc
@testable import TouchDaemon

/// Issue 44, item 2, in the daemon's loop: `systemGesture` goes only to the clients its `to`
/// names (users, groups), by default those whose levels reach the top of clients.owners' ranges
/// (every client without a policy); it takes no `seq`; `{"systemGestures":true}` says which a
/// client is sent.
@Suite(.serialized) struct SystemGestureRoutingTests {
    static func config(to: String?, owners: String? = nil) -> String {
        """
        {"screen": {"width": 800, "height": 480}\(owners.map { #", "clients": {"owners": \#($0)}"# } ?? ""),
         "systemGestures": [{"name": "admin", "kind": "tap", "region": [0, 0, 80, 80]\(to.map { #", "to": \#($0)"# } ?? "")}],
         "windows": [{"id": "main", "frame": [0, 0, 800, 480], "view": {"id": "root", "frame": [0, 0, 800, 480], "touches": "handle"}}]}
        """
    }

    /// A tap in the corner; what a client taking everything, and one taking frames only, got, and
    /// the first one's answer to {"systemGestures":true}.
    func run(_ config: String) throws -> (all: [[String: Any]], frames: [[String: Any]], names: [String]?) {
        let d = try EmbeddedDaemon(config: config, steps: [(1.0, "down 40 40"), (1.05, "up")], waitClients: 2)
        let all = try d.connect(), frames = try d.connect()
        d.turn()
        try all.send(#"{"systemGestures": true}"#)
        try all.send(#"{"subscribe": {}}"#)
        try frames.send(#"{"subscribe": {"types": ["frame"]}}"#)
        d.turn()
        d.turn()
        var a: [[String: Any]] = [], f: [[String: Any]] = []
        d.run(for: 1_000_000, step: 10_000) {
            a += (try? all.messages()) ?? []
            f += (try? frames.messages()) ?? []
        }
        let names = a.first { $0.type == "systemGestures" }?["names"] as? [String]
        return (a, f, names)
    }

    @Test func toNamesTheUser() throws {
        let (all, frames, names) = try run(Self.config(to: #"{"users": ["\#(getuid())"]}"#))
        let g = all.filter { $0.type == "systemGesture" }
        #expect(g.count == 1 && g.first?["name"] as? String == "admin" && g.first?["output"] as? String == "screen" && g.first?["seq"] == nil)
        #expect(names == ["admin"])
        // A client whose types leave it out is not sent it; the stream around it has no gap.
        #expect(!frames.contains { $0.type == "systemGesture" } && frames.filter { $0.type == "frame" }.count == 2)
        let seqs = all.filter { $0.type != "snapshot" }.compactMap { $0["seq"] as? Int }
        #expect(seqs == Array(seqs.first!..<(seqs.first! + seqs.count)), "\(seqs)")
        // At the lift's time, before the lift's frame: the stage watches before delivery.
        let kinds = all.compactMap(\.type).filter { $0 != "hello" && $0 != "snapshot" && $0 != "systemGestures" }
        #expect(kinds == ["frame", "systemGesture", "frame"], "\(kinds)")
        #expect(all.first { $0.type == "systemGesture" }?["time"] as? Double == all.last { $0.type == "frame" }?["time"] as? Double)
    }

    @Test func toNamesSomeoneElse() throws {
        let (all, _, names) = try run(Self.config(to: #"{"users": ["touchd-nobody-\#(getuid())"], "groups": ["touchd-nobody-group"]}"#))
        #expect(!all.contains { $0.type == "systemGesture" })
        #expect(names == [])
    }

    @Test func theDefaultIsTheTopOfTheOwnersRanges() throws {
        // No policy: every client.
        #expect(try run(Self.config(to: nil)).all.contains { $0.type == "systemGesture" })
        // The policy's top is 1000, this user's entry reaches 10: not the kiosk.
        let low = try run(Self.config(to: nil, owners: #"[{"users": ["\#(getuid())"], "levels": [0, 10]}, {"groups": ["touchd-kiosk-x"], "levels": [0, 1000]}]"#))
        #expect(!low.all.contains { $0.type == "systemGesture" } && low.names == [])
        // Its entry reaches the top: it is.
        let top = try run(Self.config(to: nil, owners: #"[{"users": ["\#(getuid())"], "levels": [0, 1000]}]"#))
        #expect(top.all.filter { $0.type == "systemGesture" }.count == 1 && top.names == ["admin"])
    }
}
