import Testing
import TouchCore
import TouchServer
import TouchTestSupport

/// Issue 45: a PIN pad's digits never appear in another client's stream while the screen
/// reader is on. As PrivateStreamPropertyTests, as a property: random public screen-reader
/// gestures (exploring a public element, double taps that activate it, swipes to the next one)
/// are replayed twice, once with episodes on client 1's private PIN pad in between (exploring a
/// digit, which reads it, and double-tapping it, which taps it); every other client's stream —
/// each message as the server shapes it for that client and encodes it, ids, seq and speech
/// included — is the same, and no digit's text is in it.
@Suite struct ScreenReaderPrivacyTests {
    static let config = """
        {"screen": {"width": 800, "height": 480, "screenReader": true},
         "windows": [{"id": "main", "frame": [0, 0, 800, 480],
           "view": {"id": "root", "frame": [0, 0, 800, 480], "subviews": [
             {"id": "ok", "frame": [20, 20, 120, 60], "control": "button", "accessibility": {"label": "OK"}},
             {"id": "info", "frame": [20, 100, 300, 60], "accessibility": {"label": "Insert your card"}},
             {"id": "cancel", "frame": [20, 200, 120, 60], "control": "button", "accessibility": {"label": "Cancel"}}]}}]}
        """
    /// Client 1's private PIN pad (level 10, read first), its keys secure; client 2's own public window.
    static let pinpad = pinpad(private: true)
    static func pinpad(private p: Bool) -> String {
        let keys = (0..<6).map { k in
            "{\"id\": \"k\(k)\", \"frame\": [\((k % 3) * 60), \((k / 3) * 60), 60, 60], \"control\": \"button\", \"accessibility\": {\"label\": \"\(k + 4)\", \"traits\": [\"key\"], \"secure\": true}}"
        }
        return """
            {"attach": {"id": "pin", "private": \(p), "frame": [600, 0, 180, 120], "level": 10,
                        "view": {"id": "pad", "frame": [0, 0, 180, 120], "subviews": [\(keys.joined(separator: ", "))]}}}
            """
    }
    static let other = """
        {"attach": {"id": "side", "frame": [420, 300, 160, 160], "level": 5,
                    "view": {"id": "side-root", "frame": [0, 0, 160, 160],
                             "subviews": [{"id": "side-button", "frame": [10, 10, 100, 60], "control": "button", "accessibility": {"label": "Help"}}]}}}
        """

    static func request(_ json: String) -> SceneRequest? {
        guard let m = (try? JSONParser.parse(json))?.members?.first, case .success(let r)? = SceneRequest.parse(m.key, m.value) else { return nil }
        return r
    }

    struct Ignore: OutputSink { mutating func take(_ m: Message, history: SceneHistory) {} }

    /// What clients 2 (owns a public window) and 3 (a subscriber) receive, line by line, and
    /// what client 1 (the pad's owner) does.
    static func streams(seed: UInt64, privateEpisodes: Bool) -> [Int: [String]] {
        let r = Rig(try! Config.parse(config))
        let history = SceneHistory(scene: r.scene)
        var ignore = Ignore()
        var lines: [Int: [String]] = [1: [], 2: [], 3: []]
        r.observer = { o in
            switch o {
            case .sceneChanged: history.deliver([o], to: &ignore)
            case .message(let m):
                for c in [1, 2, 3] {
                    guard let shaped = SubscriptionFilter().apply(m, scene: history.scene, client: c) else { continue }
                    lines[c]!.append(String(decoding: history.encode(shaped), as: UTF8.self))
                }
            default: break
            }
        }
        // Headphones in: the digits are spoken (issue 46), and must still reach nobody else.
        r.engine.headphones(source: "jack", output: nil, plugged: true, time: 0)
        r.collect()
        r.send(Self.request(pinpad), from: 1)
        r.send(Self.request(other), from: 2)
        var pub = SplitMix64(state: seed)
        var priv = SplitMix64(state: seed ^ 0x5eed)
        var time: Int64 = 0
        func frame(_ body: (inout Finger) -> Void) {
            r.finger.time = time
            body(&r.finger)
            r.frame()
        }
        /// A finger held at (x, y) until it explores, then lifted.
        func explore(_ x: Int32, _ y: Int32) {
            time += 600_000
            frame { $0.down(0, x, y) }
            time += 400_000
            frame { $0.up(0) }
        }
        func doubleTap() {
            time += 600_000
            frame { $0.down(0, 400, 440) }
            time += 60_000
            frame { $0.up(0) }
            time += 100_000
            frame { $0.down(0, 402, 441) }
            time += 60_000
            frame { $0.up(0) }
        }
        func swipeRight() {
            time += 600_000
            frame { $0.down(0, 300, 400) }
            time += 40_000
            frame { $0.move(0, 390, 405) }
            time += 40_000
            frame { $0.up(0) }
        }
        let places: [(Int32, Int32)] = [(80, 50), (100, 130), (80, 230), (480, 340)]
        // Each round has its own 6 seconds, the pad's episode in the first 3 (or nothing), the
        // public gestures from the fourth: the public timeline is the same either way.
        for round in 0..<16 {
            time = Int64(round) * 6_000_000
            if privateEpisodes && priv.int(2) == 0 {
                let k = priv.int(6)
                explore(Int32(630 + (k % 3) * 60), Int32(30 + (k / 3) * 60))
                if priv.int(2) == 0 { doubleTap() }
            }
            time = Int64(round) * 6_000_000 + 3_000_000
            let (x, y) = places[pub.int(places.count)]
            explore(x, y)
            switch pub.int(3) {
            case 0: doubleTap()
            case 1: swipeRight()
            default: break
            }
        }
        r.advance(to: time + 2_000_000)
        r.shutdown()
        return lines
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func othersStreamsDoNotDependOnThePinPad(seed: UInt64) {
        let without = Self.streams(seed: seed, privateEpisodes: false)
        let with = Self.streams(seed: seed, privateEpisodes: true)
        for c in [2, 3] {
            let a = without[c]!, b = with[c]!
            #expect(a.count > 40, "client \(c) saw too little for the property to mean anything: \(a.count)")
            #expect(!b.contains { $0.contains("\"text\":\"4") || $0.contains("\"view\":\"k") || $0.contains("\"pin\"") })
            guard let k = a.indices.first(where: { $0 >= b.count || a[$0] != b[$0] }) ?? (a.count == b.count ? nil : a.count) else { continue }
            Issue.record("seed \(seed), client \(c): line \(k) differs:\n  without: \(k < a.count ? a[k] : "(end)")\n  with:    \(k < b.count ? b[k] : "(end)")")
        }
        // The property is not empty: the pad's owner heard its digits and had its keys tapped.
        if with[1]!.count > without[1]!.count {
            #expect(with[1]!.contains { $0.contains("\"type\":\"speech\"") && $0.contains("\"sub\":") && $0.contains(", key\"") })
        }
    }

    /// The pad was used in at least one seed, its digit read to its owner alone and its key tapped.
    @Test func theOwnerHearsItsDigitsAndTheKeyIsTapped() {
        let r = Rig(try! Config.parse(Self.config))
        r.engine.headphones(source: "jack", output: nil, plugged: true, time: 0)
        r.send(Self.request(Self.pinpad), from: 1)
        r.finger.time = 1_000_000
        r.down(690, 30)                            // k1, "5"
        r.finger.time = 1_400_000
        r.up()
        #expect(r.take() == ["focus k1", "say 5, key"])
        let speech = r.messages.compactMap { m -> AccessibilityMessage? in
            if case .accessibility(let a) = m, case .speech = a.body { return a }
            return nil
        }
        #expect(speech.count == 1 && speech[0].sub != nil)
        let owner = SubscriptionFilter().apply(.accessibility(speech[0]), scene: r.scene, client: 1)
        let other = SubscriptionFilter().apply(.accessibility(speech[0]), scene: r.scene, client: 2)
        #expect(owner != nil && other == nil)
    }

    /// A secure key in a public window: its owner hears "5, key"; anyone else hears nothing of
    /// it — issue 46 changed part 1's trait-only "key" for others, which told them that a
    /// focus moved on the pad — and the speech takes no public `seq`.
    @Test func aSecureKeyInAPublicWindowIsNothingToOthers() {
        let r = Rig(try! Config.parse(Self.config))
        r.engine.headphones(source: "jack", output: nil, plugged: true, time: 0)
        r.send(Self.request(Self.pinpad(private: false)), from: 1)
        r.finger.time = 1_000_000
        r.down(690, 30)
        r.finger.time = 1_400_000
        r.up()
        guard let m = r.messages.last, case .accessibility(let a) = m else { Issue.record("no speech"); return }
        func text(_ c: Int) -> String? {
            guard case .accessibility(let x)? = SubscriptionFilter().apply(m, scene: r.scene, client: c), case .speech(let s) = x.body else { return nil }
            return s.text
        }
        #expect(a.sub != nil && text(1) == "5, key" && text(2) == nil && text(3) == nil)
    }
}
