import Testing
@testable import TouchCore
import TouchTestSupport

@Suite struct PinchAndRotationTests {
    @Test func pinchFrom100To200PointsApartIsScale2() {
        let r = Rig(gestureScene("{\"id\": \"pinch\", \"kind\": \"pinch\"}"))
        var f = Finger()
        f.down(0, 350, 240); f.down(1, 450, 240); f.syn(after: 100)       // 100 apart
        f.move(0, 325, 240); f.move(1, 475, 240); f.syn(after: 100)       // 150
        f.move(0, 300, 240); f.move(1, 500, 240); f.syn(after: 100)       // 200
        f.up(0); f.up(1); f.syn()
        r.feed(f)
        #expect(r.states("pinch") == ["began", "changed", "ended"])
        #expect(number(r.value(r.gestures[0], "scale")) == 1.5)
        #expect(number(r.value(r.gestures[1], "scale")) == 2)
        #expect(number(r.value(r.gestures[1], "velocity")) == 5)      // 0.5 of scale in 0.1 s
        #expect(r.gestures[1].location == Point(400, 240))
    }

    @Test func rotationByAQuarterTurnIsHalfPi() {
        let r = Rig(gestureScene("{\"id\": \"turn\", \"kind\": \"rotation\"}"))
        var f = Finger()
        // Two fingers 200 apart around (400, 240), turned clockwise (screen y is down) in 3 steps.
        f.down(0, 300, 240); f.down(1, 500, 240); f.syn(after: 100)
        f.move(0, 313, 190); f.move(1, 487, 290); f.syn(after: 100)     // 30°
        f.move(0, 350, 153); f.move(1, 450, 327); f.syn(after: 100)     // 60°
        f.move(0, 400, 140); f.move(1, 400, 340); f.syn(after: 100)     // 90°
        f.up(0); f.up(1); f.syn()
        r.feed(f)
        #expect(r.states("turn") == ["began", "changed", "changed", "ended"])
        let last = number(r.value(r.gestures[2], "rotation"))!
        #expect(abs(last - Double.pi / 2) < 1e-9)
    }

    @Test func needTwoFingers() {
        let r = Rig(gestureScene("{\"id\": \"pinch\", \"kind\": \"pinch\"}"))
        var f = Finger()
        f.down(0, 100, 100); f.syn()
        f.move(0, 200, 100); f.syn()
        f.up(0); f.syn()
        r.feed(f)
        #expect(r.states("pinch") == ["failed"])
    }
}

/// Issue 20, item 6. UIPinchGestureRecognizer and UIRotationGestureRecognizer are continuous
/// gestures that end "when the user lifts the fingers" — all of them, not the first: with one
/// finger lifted the recognizer stays in changed, and a finger landing again continues the same
/// scale and rotation (Apple, "Handling pinch gestures" / "Handling rotation gestures").
@Suite struct TwoFingerGesturesLastUntilBothLiftTests {
    @Test func aPinchGoesOnWhenOneFingerLiftsAndEndsWithTheLast() {
        let r = Rig(gestureScene("{\"id\": \"pinch\", \"kind\": \"pinch\"}"))
        var f = Finger()
        f.down(0, 350, 240); f.down(1, 450, 240); f.syn(after: 100)       // 100 apart
        f.move(0, 300, 240); f.move(1, 500, 240); f.syn(after: 100)       // 200: scale 2
        f.up(1); f.syn(after: 100)                                        // one finger lifts
        f.move(0, 250, 240); f.syn(after: 100)                            // the other moves alone
        f.up(0); f.syn()
        r.feed(f)
        #expect(r.states("pinch") == ["began", "ended"])
        let end = r.gestures.last!
        #expect(end.time == 400_000, "ends when the last finger lifts, not at 200 ms")
        #expect(number(r.value(end, "scale")) == 2)                         // the scale held
        #expect(end.location == Point(400, 240))                           // the pair's centroid, no jump
    }

    @Test func aFingerLandingAgainContinuesTheScale() {
        let r = Rig(gestureScene("{\"id\": \"pinch\", \"kind\": \"pinch\"}"))
        var f = Finger()
        f.down(0, 350, 240); f.down(1, 450, 240); f.syn(after: 100)       // 100 apart
        f.move(0, 300, 240); f.move(1, 500, 240); f.syn(after: 100)       // scale 2
        f.up(1); f.syn(after: 100)
        f.down(1, 400, 240); f.syn(after: 100)                            // lands 100 from finger 0
        f.move(1, 450, 240); f.syn(after: 100)                            // 150: ×1.5 more
        f.up(0); f.up(1); f.syn()
        r.feed(f)
        #expect(r.states("pinch") == ["began", "changed", "ended"])
        #expect(number(r.value(r.gestures[1], "scale")) == 3)               // 2 × 1.5, no jump to 1.5
    }

    @Test func aRotationGoesOnUntilBothLift() {
        let r = Rig(gestureScene("{\"id\": \"turn\", \"kind\": \"rotation\"}"))
        var f = Finger()
        f.down(0, 300, 240); f.down(1, 500, 240); f.syn(after: 100)
        f.move(0, 400, 140); f.move(1, 400, 340); f.syn(after: 100)     // 90°
        f.up(0); f.syn(after: 100)
        f.up(1); f.syn()
        r.feed(f)
        #expect(r.states("turn") == ["began", "ended"])
        #expect(r.gestures.last?.time == 300_000)
        #expect(abs(number(r.value(r.gestures.last!, "rotation"))! - Double.pi / 2) < 1e-9)
    }
}
