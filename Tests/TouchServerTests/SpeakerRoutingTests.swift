import Testing
import TouchCore
import TouchServer
import TouchTestSupport

/// Issue 46, the daemon's side: who hears what the screen reader says of a private window or a
/// secure element. Its owner and the speakers (a subscription with `speaker`, which the server
/// grants only to a client `clients.speakers` names) get it — its text with `"private": true`
/// while headphones are plugged into the output, its traits' words otherwise — and nobody else
/// gets any message about it. A speaker gets every output's speech, and nothing else private.
/// Worked out by hand from docs/accessibility.md "Private text and the speaker role".
@Suite struct SpeakerRoutingTests {
    /// Client 1 owns the private PIN pad (ScreenReaderPrivacyTests' keys "4"…"9", trait key);
    /// client 2 owns a public window; client 3 only subscribes; client 4 is a speaker. The
    /// config's window has a secure field with no spoken trait.
    static let config = """
        {"screen": {"width": 800, "height": 480, "screenReader": true},
         "windows": [{"id": "main", "frame": [0, 0, 800, 480],
           "view": {"id": "root", "frame": [0, 0, 800, 480], "subviews": [
             {"id": "ok", "frame": [20, 20, 120, 60], "control": "button", "accessibility": {"label": "OK"}},
             {"id": "code", "frame": [20, 100, 300, 60], "accessibility": {"label": "1234", "secure": true}}]}}]}
        """
    let owner = 1, publicOwner = 2, other = 3, speaker = 4

    func rig(plugged: Bool) -> Rig {
        let r = Rig(try! Config.parse(Self.config))
        if plugged { r.engine.headphones(source: "jack", output: nil, plugged: true, time: 0) }
        r.send(ScreenReaderPrivacyTests.request(ScreenReaderPrivacyTests.pinpad), from: owner)
        r.send(ScreenReaderPrivacyTests.request(ScreenReaderPrivacyTests.other), from: publicOwner)
        _ = r.take()
        return r
    }

    /// A finger held at (x, y) until it explores, then lifted: the messages it published.
    func explore(_ r: Rig, _ x: Int32, _ y: Int32, at t: Int64) -> [Message] {
        let start = r.messages.count
        r.finger.time = t
        r.down(x, y)
        r.finger.time = t + 400_000
        r.up()
        return Array(r.messages[start...])
    }

    func filter(speaker: Bool = false, types: Set<MessageType>? = nil, windows: [String] = [], scene: Scene) -> SubscriptionFilter {
        var f = SubscriptionFilter()
        f.speaker = speaker
        if let types { f.types = types }
        f.windowIDs = windows
        f.resolve(in: scene)
        return f
    }

    /// Each client's encoded lines of the speech messages among `ms`.
    func heard(_ ms: [Message], _ r: Rig, windows: [String] = []) -> [Int: [String]] {
        let history = SceneHistory(scene: r.scene)
        var out: [Int: [String]] = [:]
        for c in [owner, publicOwner, other, speaker] {
            let f = filter(speaker: c == speaker, windows: c == speaker ? windows : [], scene: r.scene)
            out[c] = ms.filter { $0.type == .speech }.compactMap { f.apply($0, scene: r.scene, client: c) }
                .map { String(decoding: history.encode($0), as: UTF8.self) }
        }
        return out
    }

    func text(_ line: String) -> String? {
        guard let m = try? JSONParser.parse(Array(line.utf8)) else { return nil }
        return m["text"]?.string.map { $0 + (m["private"]?.bool == true ? " [private]" : "") }
    }

    @Test func aPinKeyWithHeadphonesIsItsOwnersAndTheSpeakersOnly() {
        let r = rig(plugged: true)
        let h = heard(explore(r, 690, 30, at: 1_000_000), r)   // k1, "5"
        #expect(h[owner]!.map(text) == ["5, key [private]"])
        #expect(h[speaker]!.map(text) == ["5, key [private]"])
        #expect(h[publicOwner]! == [] && h[other]! == [])
        // It takes no public seq (the others see no gap).
        #expect(h[speaker]!.allSatisfy { $0.contains("\"sub\":") })
    }

    @Test func aPinKeyWithoutHeadphonesIsItsTraitToTheOwnerAndTheSpeakerOnly() {
        let r = rig(plugged: false)
        let h = heard(explore(r, 690, 30, at: 1_000_000), r)
        // Said aloud as its trait, not private (its label stays unsaid), still only theirs.
        #expect(h[owner]!.map(text) == ["key"])
        #expect(h[speaker]!.map(text) == ["key"])
        #expect(h[publicOwner]! == [] && h[other]! == [])
        #expect(!h[speaker]![0].contains("private") && !h[speaker]![0].contains("5"))
    }

    @Test func aSecureFieldInTheConfigsWindowIsTheSpeakersOnly() {
        let plugged = rig(plugged: true)
        let h = heard(explore(plugged, 100, 130, at: 1_000_000), plugged)
        #expect(h[speaker]!.map(text) == ["1234 [private]"])   // no owner: the speaker alone
        #expect(h[owner]! == [] && h[publicOwner]! == [] && h[other]! == [])
        // Unplugged it has no trait to be read as: nothing is said at all.
        let unplugged = rig(plugged: false)
        let u = heard(explore(unplugged, 100, 130, at: 1_000_000), unplugged)
        #expect(u.values.allSatisfy { $0.isEmpty })
        #expect(unplugged.messages.contains { $0.type == .accessibilityFocus })   // it was focused
    }

    @Test func aSpeakerHearsEveryOutputsPublicSpeechWhateverItsWindows() {
        let r = rig(plugged: false)
        // Client 2's public "Help": every subscriber that takes speech hears it; the speaker too
        // although its filter names only the config's window.
        let h = heard(explore(r, 440, 320, at: 1_000_000), r, windows: ["main"])
        #expect(h[speaker]!.map(text) == ["Help, button"])
        #expect(h[other]!.map(text) == ["Help, button"] && h[owner]!.map(text) == ["Help, button"])
        // A speaker that does not take `speech` hears nothing, private or not.
        let pad = explore(r, 690, 30, at: 3_000_000)
        let quiet = filter(speaker: true, types: [.frame, .headphones], scene: r.scene)
        #expect(pad.allSatisfy { quiet.apply($0, scene: r.scene, client: speaker) == nil })
    }

    @Test func theClaimIsParsed() {
        #expect(WireProtocol.parse(Array(#"{"subscribe": {"types": ["speech"], "speaker": true}}"#.utf8)) == .success(.subscribe(types: [.speech], windows: nil, views: nil, maxRate: nil, speaker: true)))
        #expect(WireProtocol.parse(Array(#"{"subscribe": {}}"#.utf8)) == .success(.subscribe(types: nil, windows: nil, views: nil, maxRate: nil, speaker: false)))
        #expect(WireProtocol.parse(Array(#"{"subscribe": {"speaker": "yes"}}"#.utf8)) == .failure(RequestError("subscribe.speaker: expected true or false")))
        // The handler passes the claim on; granting it is the server's, asking its host.
        guard case .subscribe(let f) = RequestHandler.respond(to: Array(#"{"subscribe": {"speaker": true}}"#.utf8), scene: try! Config.parse(Self.config).scene) else { Issue.record("not a subscribe"); return }
        #expect(f.speaker)
    }

    @Test func aSpeakerGetsNothingElsePrivate() {
        let r = rig(plugged: true)
        var ms = explore(r, 690, 30, at: 1_000_000)
        // Double tap: the key is activated and tapped (frames and a control in the pad).
        for (k, t) in [Int64(2_000_000), 2_160_000].enumerated() {
            r.finger.time = t
            r.down(400, 440 + Int32(k))
            r.finger.time = t + 60_000
            r.up()
        }
        r.advance(to: 3_000_000)
        ms += r.messages.suffix(from: r.messages.count - (r.messages.count - ms.count))
        let all = r.messages
        let f = filter(speaker: true, scene: r.scene)
        let seen = all.compactMap { f.apply($0, scene: r.scene, client: speaker) }
        #expect(all.contains { $0.type == .frame } && all.contains { $0.type == .accessibility })   // the pad had a tap
        #expect(seen.allSatisfy { $0.type == .speech || $0.type == .headphones || $0.type == .device || $0.type == .output },
                "a speaker saw \(seen.filter { $0.type != .speech }.map(\.type))")
        #expect(seen.contains { $0.type == .speech })
    }
}
