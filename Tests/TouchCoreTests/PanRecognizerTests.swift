import Testing
@testable import TouchCore
import TouchTestSupport

@Suite struct PanRecognizerTests {
    @Test func translationAndVelocityInPoints() {
        let r = Rig(gestureScene("{\"id\": \"pan\", \"kind\": \"pan\"}"))
        var f = Finger()
        f.down(0, 100, 100); f.syn(after: 10)
        f.move(0, 106, 100); f.syn(after: 10)    // 6: below the 10-point hysteresis
        f.move(0, 112, 100); f.syn(after: 10)    // 12: begins
        f.move(0, 130, 108); f.syn(after: 10)
        f.up(0); f.syn()
        r.feed(f)
        #expect(r.states("pan") == ["began", "changed", "ended"])
        let g = r.gestures
        #expect(near(point(r.value(g[0], "translation")), Point(12, 0)))
        #expect(near(point(r.value(g[1], "translation")), Point(30, 8)))
        // The velocity is smoothed over the last 50 ms (GestureSettings.Pan.velocityWindow): 30
        // and 8 points in the 30 ms since the finger landed, not the last step's 18 and 8 in 10 ms.
        #expect(near(point(r.value(g[1], "velocity")), Point(1000, 800.0 / 3), 1e-6))
        #expect(r.calls == ["pad.touchesBegan(1)", "pad.touchesMoved(1)", "pad.touchesCancelled(1)"])
    }

    @Test func needsItsMinimumTouches() {
        let r = Rig(gestureScene("{\"id\": \"pan2\", \"kind\": \"pan\", \"minimumTouches\": 2}"))
        var f = Finger()
        f.down(0, 100, 100); f.syn()
        f.move(0, 200, 100); f.syn()
        f.up(0); f.syn()
        r.feed(f)
        #expect(r.states("pan2") == ["failed"])
    }
}
