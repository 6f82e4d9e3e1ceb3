import Testing
import TouchCore
import TouchTestSupport

/// Which recognizers a client may name (requireToFail, simultaneousWith), and the view limit.
@Suite struct LiveSceneReferenceTests {
    @Test func aClientNamesOnlyItsOwnOrTheConfigsRecognizers() {
        let r = Rig(config(liveBase.replacing(#""control": "button"}"#, with: #""control": "button", "gestures": [{"id": "base-tap", "kind": "tap"}]}"#)))
        let secret = #"{"attach": {"id": "pin", "private": true, "frame": [600, 0, 200, 200], "view": {"id": "pad", "frame": [0, 0, 200, 200], "gestures": [{"id": "pin-tap", "kind": "tap"}]}}}"#
        #expect(r.send(secret, from: 1) == .attached(window: "pin", version: 1))
        let spy = #"{"attach": {"id": "spy", "frame": [0, 0, 10, 10], "view": {"id": "spy-view", "frame": [0, 0, 10, 10], "gestures": [{"id": "spy-tap", "kind": "tap", "requireToFail": ["pin-tap"]}]}}}"#
        guard case .refused(_, _, let e) = r.send(spy, from: 2) else { Issue.record("a client named another client's recognizer"); return }
        #expect(e.message == "no gesture recognizer has id \"pin-tap\"")
        #expect(e.path == "view.gestures[0].requireToFail")
        // The config's recognizers and its own are fine.
        let fine = spy.replacing("pin-tap", with: "base-tap")
        #expect(r.send(fine, from: 2) == .attached(window: "spy", version: 1))
        let own = #"{"update": {"window": "pin", "changes": [{"add": {"id": "k", "frame": [0, 0, 5, 5], "gestures": [{"id": "k-tap", "kind": "tap", "simultaneousWith": ["pin-tap"]}]}, "to": "pad"}]}}"#
        #expect(r.send(own, from: 1) == .updated(window: "pin", version: 2))
    }

    @Test func replacingASubtreeAtTheViewLimitIsAllowed() {
        let r = Rig(config(liveBase))
        r.limits.views = 2
        #expect(r.send(dialog, from: 1) == .attached(window: "dialog", version: 1))   // panel, ok: at the limit
        let replace = #"{"update": {"window": "dialog", "changes": [{"remove": "ok"}, {"add": {"id": "ok2", "frame": [0, 0, 5, 5]}, "to": "panel"}]}}"#
        #expect(r.send(replace, from: 1) == .updated(window: "dialog", version: 2))
        let more = #"{"update": {"window": "dialog", "changes": [{"add": {"id": "ok3", "frame": [0, 0, 5, 5]}, "to": "panel"}]}}"#
        guard case .refused(_, _, let e) = r.send(more, from: 1) else { Issue.record("over the limit"); return }
        #expect(e.message.contains("limit is 2"))
    }
}

/// Issue 21: gesture recognizers were not counted by `clients.views` — 10 views with 2,000 pans
/// each cost seconds of daemon CPU per second of one finger moving. Each recognizer (a scroll
/// view's own pan included) now counts as a view does.
@Suite struct RecognizerLimitTests {
    func window(views: Int, pansEach: Int, scroll: Bool = false) -> String {
        let subviews = (0..<views).map { v in
            let pans = (0..<pansEach).map { "{\"id\": \"p\(v)-\($0)\", \"kind\": \"pan\"}" }.joined(separator: ",")
            let s = scroll ? ", \"scroll\": {\"contentSize\": [10, 100]}" : ""
            return "{\"id\": \"v\(v)\", \"frame\": [0, 0, 10, 10], \"gestures\": [\(pans)]\(s)}"
        }.joined(separator: ",")
        return "{\"attach\": {\"id\": \"w\", \"frame\": [0, 0, 100, 100], \"view\": {\"id\": \"w-root\", \"frame\": [0, 0, 100, 100], \"subviews\": [\(subviews)]}}}"
    }

    @Test func recognizersCountAgainstTheViewLimit() {
        let r = Rig(config(liveBase))
        r.limits.views = 101
        // The window's root view, 10 views with 20 pans each: 211, over 101 (it was 11 views).
        guard case .refused(_, _, let e) = r.send(window(views: 10, pansEach: 20), from: 1) else {
            Issue.record("10 views × 20 pans were accepted under a limit of 101"); return
        }
        #expect(e.path == "view" && e.message.contains("limit is 101") && e.message.contains("211"), "\(e)")
        // The root and 10 views with 9 pans each: exactly 101.
        #expect(r.send(window(views: 10, pansEach: 9), from: 1) == .attached(window: "w", version: 1))
        // One more recognizer by an update is over; a scroll view counts its own pan.
        let more = #"{"update": {"window": "w", "changes": [{"add": {"id": "s", "frame": [0, 0, 5, 5], "scroll": {"contentSize": [5, 50]}}, "to": "w-root"}]}}"#
        guard case .refused(_, _, let e2) = r.send(more, from: 1) else { Issue.record("a scroll view over the limit was added"); return }
        #expect(e2.path == "changes" && e2.message.contains("limit is 101"))
        // Removing a view gives back its recognizers too: 101 − (1 + 9) + (1 + 1).
        let swap = #"{"update": {"window": "w", "changes": [{"remove": "v0"}, {"add": {"id": "s", "frame": [0, 0, 5, 5], "scroll": {"contentSize": [5, 50]}}, "to": "w-root"}]}}"#
        #expect(r.send(swap, from: 1) == .updated(window: "w", version: 2))
        #expect(r.engine.owned(by: 1).views == 93)
    }
}

/// Issue 21: `seq` gaps told a client how many messages it could not see — every press on
/// another client's private PIN pad. A message only about private windows now keeps the last
/// `seq` and is numbered after it by `sub`; the public numbering has no gaps.
@Suite struct PrivateNumberingTests {
    func numbers(_ m: Message) -> (seq: Int, sub: Int?)? {
        switch m {
        case .device(let d): return (d.seq, nil)
        case .frame(let f): return (f.seq, f.sub)
        case .control(let c): return (c.seq, c.sub)
        case .gesture(let g): return (g.seq, g.sub)
        case .scroll(let s): return (s.seq, s.sub)
        case .output(let o): return (o.seq, nil)
        case .headphones(let h): return (h.seq, nil)
        case .accessibility(let a): return (a.seq, a.sub)
        case .idle(let i), .wake(let i): return (i.seq, nil)
        case .hitTest, .systemGesture: return nil
        }
    }

    @Test func privateWindowsMessagesTakeNoPublicNumber() {
        let r = Rig(config(liveBase))
        let pin = #"{"attach": {"id": "pin", "private": true, "frame": [600, 0, 200, 200], "view": {"id": "pad", "frame": [0, 0, 200, 200], "subviews": [{"id": "k1", "frame": [0, 0, 100, 100], "control": "button"}]}}}"#
        #expect(r.send(pin, from: 1) == .attached(window: "pin", version: 1))
        r.tap(50, 50)       // the public base-button: frame, touchDown, frame, touchUpInside, primaryAction
        r.tap(650, 50)      // the private k1: the same five, all private
        r.tap(50, 50)
        let n = r.messages.compactMap(numbers)
        let pub = n.filter { $0.sub == nil }.map(\.seq)
        let priv = n.filter { $0.sub != nil }
        // The device's arrival, then five public messages per public tap, and the second one's
        // touchDownRepeat: the private tap between them is no part of the public tap sequence
        // (issue 40, item 5: it ended it, so its count told others a private key was pressed).
        #expect(pub.count == 12 && priv.count == 5, "\(n)")
        // The public numbering has no gaps: each public seq is one more than the one before.
        #expect(zip(pub, pub.dropFirst()).allSatisfy { $1 == $0 + 1 }, "\(pub)")
        // The private ones keep the last public seq and count after it.
        #expect(priv.map(\.seq) == Array(repeating: pub[5], count: 5))
        #expect(priv.map(\.sub) == [1, 2, 3, 4, 5])
        // The snapshot's seq is the public one.
        #expect(r.engine.snapshot().seq == pub.last)
    }

    /// A finger on a private window stays that window's owner's business after the window goes
    /// (its touch is followed, undelivered, until it lifts): stats counted it for everyone.
    @Test func aTouchKeepsItsPrivateOwnerAfterTheWindowGoes() {
        let r = Rig(config(liveBase))
        let pin = #"{"attach": {"id": "pin", "private": true, "frame": [600, 0, 200, 200], "view": {"id": "pad", "frame": [0, 0, 200, 200]}}}"#
        #expect(r.send(pin, from: 7) == .attached(window: "pin", version: 1))
        r.down(650, 50)                    // on the private pad
        r.down(50, 50, slot: 1)            // on the public base button
        #expect(r.engine.liveTouchPrivateOwners == [7, nil])
        #expect(r.send(#"{"detach": {"window": "pin"}}"#, from: 7) == .detached(window: "pin"))
        #expect(r.engine.liveTouchCount == 2)
        #expect(r.engine.liveTouchPrivateOwners == [7, nil])
    }

    /// A public finger rests on the base button while the private key is tapped: the frames
    /// list both touches, but only the private one changed in them, so they are private (the
    /// others would otherwise see a public number taken, or a frame, each time the key moved).
    @Test func framesWhereOnlyPrivateTouchesChangeAreNumberedPrivately() {
        let r = Rig(config(liveBase))
        let pin = #"{"attach": {"id": "pin", "private": true, "frame": [600, 0, 200, 200], "view": {"id": "pad", "frame": [0, 0, 200, 200], "subviews": [{"id": "k1", "frame": [0, 0, 100, 100], "control": "button"}]}}}"#
        #expect(r.send(pin, from: 1) == .attached(window: "pin", version: 1))
        r.down(50, 50)                     // public, resting from now on
        let before = r.messages.count
        r.down(650, 50, slot: 1)           // the private key: frame (t1 stationary, t2 began), touchDown
        r.up(slot: 1)                      // frame (t1 stationary, t2 ended), touchUpInside, primaryAction
        let during = r.messages[before...].compactMap(numbers)
        #expect(r.frames.suffix(2).map { $0.touches.map(\.phase) } == [[.stationary, .began], [.stationary, .ended]])
        #expect(during.count == 5 && during.allSatisfy { $0.sub != nil }, "\(during)")
        r.move(60, 60)                     // the public finger moves: public again
        #expect(r.messages.compactMap(numbers).last.map { $0.sub == nil } == true)
    }
}

/// Issue 21: 250 clients of 1,000 views disconnecting at once cost 14.7 s of daemon CPU — each
/// departure was its own scene change, copying the whole scene. Clients leaving together now go
/// in one change.
@Suite struct MassDisconnectTests {
    func window(_ id: String, x: Int) -> String {
        #"{"attach": {"id": "\#(id)", "frame": [\#(x), 300, 100, 100], "view": {"id": "\#(id)-v", "frame": [0, 0, 100, 100], "subviews": [{"id": "\#(id)-b", "frame": [0, 0, 50, 50], "control": "button"}]}}}"#
    }

    @Test func clientsLeavingTogetherGoInOneSceneChange() {
        let r = Rig(config(liveBase))
        for (k, c) in [1, 2, 3].enumerated() { #expect(r.send(window("w\(c)", x: 100 + 200 * k), from: c) == .attached(window: "w\(c)", version: 1)) }
        r.down(110, 310)                                        // on client 1's button, held
        _ = r.take()
        let changesBefore = r.scenes.count
        #expect(r.engine.viewsOwned(by: 2) == 3)
        let gone = r.engine.clientsGone([1, 2, 9], time: r.finger.time)
        r.collect()
        #expect(gone.map(\.client) == [1, 2, 9] && gone.map(\.windows) == [1, 1, 0])
        #expect(r.scenes.count == changesBefore + 1, "one scene change for both")
        #expect(r.scene.viewIndex["w1"] == nil && r.scene.viewIndex["w2-b"] == nil && r.scene.viewIndex["w3"] != nil)
        let cancelled = r.frames.flatMap(\.touches).filter { $0.phase == .cancelled }
        #expect(cancelled.map(\.reason) == [.clientGone])
        #expect(r.engine.owned(by: 3).windows == 1)
    }
}
