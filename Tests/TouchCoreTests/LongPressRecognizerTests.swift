import Testing
@testable import TouchCore
import TouchTestSupport

@Suite struct LongPressRecognizerTests {
    let cfg = gestureScene("{\"id\": \"hold\", \"kind\": \"longPress\"}")

    @Test func beginsAfterTheMinimumDurationThenChangesAndEnds() {
        let r = Rig(cfg)
        var f = Finger()
        f.down(0, 100, 100); f.syn(after: 600)      // down at 0, next event at 600 ms
        f.move(0, 130, 100); f.syn(after: 100)      // after it began, movement is fine
        f.up(0); f.syn()
        r.feed(f)
        #expect(r.states("hold") == ["began", "changed", "ended"])
        #expect(r.gestures[0].time == 500_000)      // fired by the timer at 0.5 s
        #expect(r.gestures[1].location == Point(130, 100))
        #expect(r.calls == ["pad.touchesBegan(1)", "pad.touchesCancelled(1)"])
    }

    @Test func doesNotFireWhenTheFingerMoves() {
        let r = Rig(cfg)
        var f = Finger()
        f.down(0, 100, 100); f.syn(after: 100)
        f.move(0, 115, 100); f.syn(after: 600)      // 15 points > allowableMovement 10
        f.up(0); f.syn()
        r.feed(f)
        #expect(r.states("hold") == ["failed"])
        #expect(r.calls == ["pad.touchesBegan(1)", "pad.touchesMoved(1)", "pad.touchesEnded(1)"])
    }

    @Test func failsWhenLiftedTooSoonOrWithTooManyTouches() {
        let r = Rig(cfg)
        var f = Finger()
        f.down(0, 100, 100); f.syn(after: 300)
        f.up(0); f.syn(after: 1000)
        f.down(0, 100, 100); f.down(1, 300, 100); f.syn(after: 700)
        f.up(0); f.up(1); f.syn()
        r.feed(f)
        #expect(r.states("hold") == ["failed", "failed"])
    }
}
