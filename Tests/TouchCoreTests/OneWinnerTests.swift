import Testing
@testable import TouchCore
import TouchTestSupport

/// One winner per touch sequence. UIGestureRecognizerDelegate's
/// gestureRecognizer(_:shouldRecognizeSimultaneouslyWith:): "If you do not implement this
/// method, the default return value is false — no two gestures can be recognized
/// simultaneously." A recognizer that recognizes makes the others on those touches fail,
/// including one waiting on requireToFail; and the winner must not depend on how the config
/// happens to list the recognizers (UIKit sets no order).
@Suite struct OneWinnerTests {
    func run(_ childGestures: String) -> [String] {
        let cfg = scene("""
            {"id": "card", "frame": [0, 0, 800, 480], "touches": "handle", "gestures": [{"id": "cardTap", "kind": "tap"}],
             "subviews": [{"id": "photo", "frame": [100, 100, 200, 200], "touches": "handle", "gestures": [\(childGestures)]}]}
            """)
        let r = Rig(cfg)
        var f = Finger(); f.down(0, 150, 150); f.syn(after: 50); f.up(0); f.syn()
        r.feed(f)
        r.advance(to: 2_000_000)
        return r.gestures.map { "\($0.recognizer):\($0.state.rawValue)" }
    }

    @Test func aPendingRecognizerDoesNotAlsoWinWhenTheOneItWaitsForFails() {
        let single = "{\"id\": \"single\", \"kind\": \"tap\", \"requireToFail\": [\"double\"]}"
        let double = "{\"id\": \"double\", \"kind\": \"tap\", \"taps\": 2}"
        let a = run(single + "," + double), b = run(double + "," + single)
        #expect(a == b)
        #expect(a.filter { $0.hasSuffix(":recognized") } == ["cardTap:recognized"])
        #expect(Set(a) == ["cardTap:recognized", "double:failed", "single:failed"])
    }
}
