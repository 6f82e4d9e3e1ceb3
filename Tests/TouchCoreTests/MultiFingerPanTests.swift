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

    /// A pan of at most two fingers under way with one: two fingers landing in the same frame
    /// — one joins the pan, the other is ignored by it and reaches the view (both joined: the
    /// pan's count was read before the frame's fingers reached it).
    @Test func twoFingersLandingTogetherOnAPanWithRoomForOneOnlyOneJoins() {
        let r = Rig(gestureScene("{\"id\": \"pan2\", \"kind\": \"pan\", \"maximumTouches\": 2}"))
        var f = Finger()
        f.down(0, 100, 100); f.syn(after: 10)
        for k in 1...5 { f.move(0, 100 + 10 * Int32(k), 100); f.syn(after: 10) }    // began
        f.down(1, 300, 300); f.down(2, 500, 300); f.syn(after: 10)                 // two more at once
        f.move(0, 160, 100); f.move(1, 310, 300); f.move(2, 510, 300); f.syn(after: 10)
        f.up(0); f.up(1); f.syn(after: 10)
        f.up(2); f.syn()
        r.feed(f)
        let pans = r.gestures.filter { $0.recognizer == "pan2" }
        #expect(pans.first?.state.rawValue == "began")
        #expect(pans.allSatisfy { $0.touches.count <= 2 }, "\(pans.map(\.touches))")
        #expect(Set(pans.flatMap(\.touches)) == [1, 2], "\(pans.map(\.touches))")
        // The third finger is the view's alone; the second was never the view's.
        #expect(r.calls.contains("pad.touchesBegan(3)") && r.calls.contains("pad.touchesEnded(3)"), "\(r.calls)")
        #expect(!r.calls.contains { $0.hasPrefix("pad.") && $0.contains("(2)") }, "\(r.calls)")
    }
}

/// Issue 43, item 5: a pan of `minimumTouches` keeps its fingers until the last lifts
/// (UIPanGestureRecognizer changes while at least the minimum are down and ends when every
/// finger has lifted): with fewer than its minimum down it says nothing (no `changed`, and what
/// the fingers left move is not its translation), a finger that lands again rejoins it (never
/// reaching the view), and its translation goes on from where it was. It used to end when one
/// of two fingers lifted, and the returning finger went to the view.
@Suite struct MinimumTouchesPanTests {
    @Test func aTwoFingerPanKeepsItsFingersUntilTheLastLifts() {
        let r = Rig(gestureScene(#"{"id": "pan2", "kind": "pan", "minimumTouches": 2}"#))
        var f = Finger()
        f.down(0, 100, 100); f.down(1, 300, 100); f.syn(after: 10)
        for k in 1...6 { f.move(0, 100, 100 + 5 * Int32(k)); f.move(1, 300, 100 + 5 * Int32(k)); f.syn(after: 10) }   // 30 down
        f.up(1); f.syn(after: 10)                                                   // one lifts
        for k in 1...5 { f.move(0, 100 + 6 * Int32(k), 130); f.syn(after: 10) }      // the other, alone: 30 right
        f.down(1, 330, 130); f.syn(after: 10)                                       // a finger returns
        for k in 1...4 { f.move(0, 130, 130 + 5 * Int32(k)); f.move(1, 330, 130 + 5 * Int32(k)); f.syn(after: 10) }   // 20 down
        f.up(0); f.syn(after: 10)
        f.up(1); f.syn()
        r.feed(f)
        let pans = r.gestures.filter { $0.recognizer == "pan2" }
        let states = pans.map(\.state.rawValue)
        #expect(states.first == "began" && states.last == "ended", "\(states)")
        #expect(states.filter { $0 == "ended" || $0 == "cancelled" }.count == 1, "\(states)")
        // Ended at the last lift (t = 190 ms), not at the first.
        #expect(pans.last?.time == 190_000, "\(pans.map { "\($0.state.rawValue)@\($0.time)" })")
        // Nothing while one finger was down (t 70…120 ms, and at the first of the last two lifts).
        #expect(!pans.contains { ($0.time >= 70_000 && $0.time <= 120_000) || $0.time == 180_000 }, "\(pans.map { "\($0.state.rawValue)@\($0.time)" })")
        // The returning finger is the pan's (touch 3), never the view's.
        #expect(pans.contains { $0.touches.contains(3) }, "\(pans.map(\.touches))")
        #expect(!r.calls.contains { $0.contains("(3)") || $0.contains(",3)") }, "\(r.calls)")
        // Translation: 30 down together; the lone finger's 30 right do not count; 20 more down together.
        let translations = pans.compactMap { point(r.value($0, "translation")) }
        #expect(translations.allSatisfy { abs($0.x) < 1e-9 }, "\(translations)")
        #expect(translations.last.map { abs($0.y - 50) < 1e-9 } == true, "\(translations)")
        // Continuous: no step between two messages larger than one frame's movement (5 points)
        // but the first (the hysteresis: it began at 15).
        for (a, b) in zip(translations.dropFirst(), translations.dropFirst(2)) {
            #expect(abs(b.y - a.y) <= 5 + 1e-9, "\(translations)")
        }
    }
}

/// Found in review: a finger lifting in the same frame as the other one moves restarted the
/// velocity's samples and measured no time — the pan said velocity 0, and a two-finger flick
/// ending that way stopped a scroll view dead. UIPanGestureRecognizer's velocity stays the
/// fingers' speed across fingers landing and lifting.
@Suite struct PanVelocityAcrossLiftsTests {
    @Test func aLiftInTheSameFrameAsAMoveKeepsTheVelocity() {
        let r = Rig(gestureScene("{\"id\": \"pan\", \"kind\": \"pan\"}"))
        var f = Finger()
        f.down(0, 300, 100); f.down(1, 500, 100); f.syn(after: 10)
        // Both down the screen at 1 point a millisecond (1,000 points a second).
        for k in 1...10 { f.move(0, 300, 100 + 10 * Int32(k)); f.move(1, 500, 100 + 10 * Int32(k)); f.syn(after: 10) }
        f.up(1); f.move(0, 300, 210); f.syn(after: 10)      // one lifts while the other moves on
        f.up(0); f.syn()
        r.feed(f)
        let pans = r.gestures.filter { $0.recognizer == "pan" }
        let velocities = pans.compactMap { point(r.value($0, "velocity")) }
        #expect(pans.last?.state.rawValue == "ended")
        // Every velocity after the pan began, the end's included, is the fingers' 1,000 points
        // a second down (within a point a second), never 0.
        for v in velocities.dropFirst() { #expect(abs(v.y - 1000) < 1 && abs(v.x) < 1, "\(velocities)") }
    }
}
