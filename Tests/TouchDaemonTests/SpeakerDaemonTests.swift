import Testing
import Glibc
import TouchTestSupport
@testable import TouchDaemon

/// Issue 46 in the daemon's loop, through its socket: a PIN pad's digits are spoken only while
/// headphones are plugged in (the jack's capture: plugged at 0.5 s, pulled at 3 s, plugged
/// again at 4 s) and reach only the pad's owner and the speaker the config names — every other
/// client gets no speech about the pad at all. A claim the policy does not grant is refused,
/// and the connection stays.
@Suite(.serialized) struct SpeakerDaemonTests {
    static func config(speakers: String?) -> String {
        """
        {"screen": {"width": 800, "height": 480, "screenReader": true}\(speakers.map { #", "clients": {"speakers": \#($0)}"# } ?? ""),
         "windows": [{"id": "main", "frame": [0, 0, 800, 480], "view": {"id": "root", "frame": [0, 0, 800, 480], "subviews": [
           {"id": "ok", "frame": [20, 20, 120, 60], "control": "button", "accessibility": {"label": "OK"}}]}}]}
        """
    }
    static let jack = Repository.path("Tests/Fixtures/headphones/hda-intel-pch-headphone.events")

    /// The digit "5" explored at 1 s (plugged), 3.5 s (pulled) and 4.5 s (plugged again).
    static let steps: [(Double, String)] = [(1.0, "down 690 30"), (1.4, "up"), (3.5, "down 690 30"), (3.9, "up"), (4.5, "down 690 30"), (4.9, "up")]

    @Test func aPinPadsDigitsReachItsOwnerAndTheSpeakerOnlyAndOnlyWithHeadphones() throws {
        let d = try EmbeddedDaemon(config: Self.config(speakers: #"{"users": ["\#(getuid())"]}"#), steps: Self.steps, alongside: [Self.jack], waitClients: 3)
        let owner = try d.connect(), speaker = try d.connect(), other = try d.connect()
        d.turn()
        try owner.send(ScreenReaderPrivacyPad.attach)
        try owner.send(#"{"subscribe": {}}"#)
        try speaker.send(#"{"subscribe": {"types": ["speech", "headphones"], "speaker": true}}"#)
        try other.send(#"{"subscribe": {}}"#)
        var o: [[String: Any]] = [], s: [[String: Any]] = [], x: [[String: Any]] = []
        d.run(for: 6_000_000, step: 10_000) {
            o += (try? owner.messages()) ?? []
            s += (try? speaker.messages()) ?? []
            x += (try? other.messages()) ?? []
        }
        func said(_ ms: [[String: Any]]) -> [String] {
            ms.filter { $0.type == "speech" && ($0["text"] as? String ?? "").contains("key") }
              .map { ($0["text"] as! String) + ($0["private"] as? Bool == true ? " [private]" : "") }
        }
        #expect(!s.contains { $0.type == "error" }, "\(s.filter { $0.type == "error" })")
        #expect(said(o) == ["5, key [private]", "key", "5, key [private]"])
        #expect(said(s) == ["5, key [private]", "key", "5, key [private]"])
        #expect(said(x) == [])
        #expect(s.filter { $0.type == "headphones" }.map { $0["plugged"] as? Bool } == [true, false, true])
        // The other client got nothing about the pad: no digit, no speech numbered after a seq.
        #expect(!x.contains { $0.type == "speech" && $0["sub"] != nil })
        #expect(!x.contains { "\($0)".contains("pin") || "\($0)".contains("\"5") })
        // The speaker got speech and headphones only: nothing else of the private pad.
        #expect(Set(s.compactMap(\.type)).isSubset(of: ["hello", "snapshot", "speech", "headphones"]), "\(Set(s.compactMap(\.type)))")
    }

    @Test func aClaimThePolicyDoesNotGrantIsRefusedAndTheConnectionStays() throws {
        for speakers in [nil, #"{"users": ["touchd-nobody-\#(getuid())"]}"#] {
            let d = try EmbeddedDaemon(config: Self.config(speakers: speakers), steps: [(1.0, "down 80 50"), (1.4, "up")], waitClients: 1)
            let c = try d.connect()
            d.turn()
            try c.send(#"{"subscribe": {"types": ["speech"], "speaker": true}}"#)
            try c.send(#"{"ping": 7}"#)
            var m: [[String: Any]] = []
            d.run(for: 100_000, step: 10_000) { m += (try? c.messages()) ?? [] }
            let e = m.first { $0.type == "error" }
            #expect((e?["error"] as? String)?.hasPrefix("subscribe: speaker: the config's clients.speakers does not name") == true, "\(m)")
            #expect(e?["line"] as? Int == 1)
            // Still connected, and not subscribed: the connection's own snapshot, no second one.
            #expect(m.contains { $0.type == "pong" } && m.filter { $0.type == "snapshot" }.count == 1, "\(m)")
        }
    }
}

/// The private PIN pad of ScreenReaderPrivacyTests (keys "4"…"9", secure, trait key), as an
/// attach line.
enum ScreenReaderPrivacyPad {
    static let attach: String = {
        let keys = (0..<6).map { k in
            "{\"id\": \"k\(k)\", \"frame\": [\((k % 3) * 60), \((k / 3) * 60), 60, 60], \"control\": \"button\", \"accessibility\": {\"label\": \"\(k + 4)\", \"traits\": [\"key\"], \"secure\": true}}"
        }
        return #"{"attach": {"id": "pin", "private": true, "frame": [600, 0, 180, 120], "level": 10, "view": {"id": "pad", "frame": [0, 0, 180, 120], "subviews": ["# + keys.joined(separator: ", ") + "]}}}"
    }()
}
