import Testing
@testable import TouchCore
import TouchTestSupport

/// Issue 20, item 7: a pan's finger counts. UIPanGestureRecognizer.minimumNumberOfTouches is
/// "the minimum number of fingers that can be touching the view for this gesture to be
/// recognized": movement made with fewer fingers is not the gesture's, so its translation and
/// velocity start when the last finger needed lands. maximumNumberOfTouches is "the maximum
/// number of fingers that can be touching the view": a further finger is ignored by the
/// recognizer (UIGestureRecognizer.ignore(_:for:)) and reaches the view as if the pan were not
/// there; the pan ends when its own fingers lift.
@Suite struct MultiFingerPanTests {
    @Test func movementWithTooFewFingersIsNotCounted() {
        let r = Rig(gestureScene("{\"id\": \"pan2\", \"kind\": \"pan\", \"minimumTouches\": 2}"))
        var f = Finger()
        f.down(0, 100, 100); f.syn(after: 10)
        for k in 1...20 { f.move(0, 100, 100 + 10 * Int32(k)); f.syn(after: 10) }   // 200 points alone
        f.down(1, 300, 300); f.syn(after: 10)                                      // the second finger
        for k in 1...4 { f.move(0, 100, 300 + 3 * Int32(k)); f.move(1, 300, 300 + 3 * Int32(k)); f.syn(after: 10) }
        f.up(0); f.up(1); f.syn()
        r.feed(f)
        let pans = r.gestures.filter { $0.recognizer == "pan2" }
        #expect(pans.map(\.state.rawValue).first == "began", "\(pans.map(\.state.rawValue))")
        let began = pans.first { $0.state.rawValue == "began" }
        // It begins once the two fingers together have moved past the 10-point hysteresis (the
        // fourth step, 12 points), with only their own movement in its translation: straight
        // down, at 3 points per 10 ms (300 points a second), nothing sideways.
        #expect(began.map { point(r.value($0, "translation")) } == Point(0, 12))
        #expect(began.map { point(r.value($0, "velocity")) } == Point(0, 300))
        for p in pans { #expect(point(r.value(p, "velocity")).map { abs($0.x) } == 0, "\(p)") }
    }

    @Test func aFingerBeyondTheMaximumIsIgnoredAndReachesTheView() {
        let r = Rig(gestureScene("{\"id\": \"pan1\", \"kind\": \"pan\", \"maximumTouches\": 1}"))
        var f = Finger()
        f.down(0, 100, 100); f.syn(after: 10)
        for k in 1...5 { f.move(0, 100 + 10 * Int32(k), 100); f.syn(after: 10) }    // began
        f.down(1, 500, 300); f.syn(after: 10)                                      // a second finger
        f.move(0, 160, 100); f.syn(after: 10)
        f.up(0); f.syn(after: 50)                                                 // the pan's finger lifts
        f.move(1, 520, 300); f.syn(after: 10)
        f.up(1); f.syn()
        r.feed(f)
        let pans = r.gestures.filter { $0.recognizer == "pan1" }
        #expect(pans.first?.state.rawValue == "began")
        #expect(pans.allSatisfy { $0.touches == [1] }, "the second finger joined: \(pans.map(\.touches))")
        // The pan ends when its finger lifts (t = 80 ms), not when the second one does.
        let ended = pans.first { $0.state.rawValue == "ended" }
        #expect(ended?.time == 80_000, "\(pans.map { "\($0.state.rawValue)@\($0.time)" })")
        // The second finger is the view's: it begins, moves and ends there.
        #expect(r.calls.contains("pad.touchesBegan(2)"), "\(r.calls)")
        #expect(r.calls.contains("pad.touchesMoved(2)"))
        #expect(r.calls.contains("pad.touchesEnded(2)"))
        // The first finger was taken by the pan (cancelsTouchesInView).
        #expect(r.calls.contains("pad.touchesCancelled(1)"))
    }
}
