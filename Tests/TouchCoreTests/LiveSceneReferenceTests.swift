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
