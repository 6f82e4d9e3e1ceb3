import Testing
@testable import TouchCore
import TouchTestSupport

/// Where a discrete gesture happened (issue 20, items 9 and 10), as UIKit says: "The return
/// value is a generic single-point location for the gesture … usually the centroid of the
/// touches involved in the gesture" (UIGestureRecognizer.location(in:)); for a swipe, "the
/// location where the gesture began" (UISwipeGestureRecognizer, location(in:)); for several
/// taps, the first tap's (the reading of UITapGestureRecognizer).
@Suite struct GestureLocationTests {
    @Test func aThreeFingerTapIsAtTheCentroidOfItsFingers() {
        let r = Rig(gestureScene("{\"id\": \"three\", \"kind\": \"tap\", \"touches\": 3}"))
        var f = Finger()
        f.down(0, 100, 100); f.down(1, 200, 100); f.down(2, 600, 100); f.syn(after: 50)
        f.up(0); f.up(1); f.up(2); f.syn()
        r.feed(f)
        #expect(r.states("three") == ["recognized"])
        #expect(r.gestures.first?.location == Point(300, 100))   // was 600 (the last finger up)
    }

    @Test func aDoubleTapIsAtItsFirstTap() {
        let r = Rig(gestureScene("{\"id\": \"double\", \"kind\": \"tap\", \"taps\": 2}"))
        var f = Finger()
        f.down(0, 100, 100); f.syn(after: 50)
        f.up(0); f.syn(after: 100)
        f.down(0, 110, 106); f.syn(after: 50)
        f.up(0); f.syn()
        r.feed(f)
        #expect(r.states("double") == ["recognized"])
        #expect(r.gestures.first?.location == Point(100, 100))   // was the second tap's (110, 106)
    }

    @Test func aSwipeIsWhereItBegan() {
        let r = Rig(gestureScene("{\"id\": \"swipe\", \"kind\": \"swipe\"}"))
        var f = Finger()
        f.down(0, 100, 200); f.syn()
        for k in 1...8 { f.move(0, 100 + Int32(k) * 15, 200); f.syn() }
        f.up(0); f.syn()
        r.feed(f)
        #expect(r.states("swipe") == ["recognized"])
        #expect(r.gestures.first?.location == Point(100, 200))   // was where the finger was at recognition
    }
}
