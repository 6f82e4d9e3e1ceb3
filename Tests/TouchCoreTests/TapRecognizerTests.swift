import Testing
@testable import TouchCore
import TouchTestSupport

@Suite struct TapRecognizerTests {
    @Test func singleTapIsRecognizedAndTakesTheTouchFromTheView() {
        let r = Rig(gestureScene("{\"id\": \"tap\", \"kind\": \"tap\"}"))
        var f = Finger()
        f.down(0, 100, 100); f.syn(after: 50)
        f.up(0); f.syn()
        r.feed(f)
        #expect(r.states("tap") == ["recognized"])
        #expect(integer(r.value(r.gestures[0], "taps")) == 1)   // a count: printed 1, not 1.0
        #expect(r.gestures[0].touches == [1])
        #expect(r.gestures[0].location == Point(100, 100))
        // delaysTouchesEnded held the end until the tap decided; cancelsTouchesInView then
        // turned it into a cancel (reason gesture).
        #expect(r.calls == ["pad.touchesBegan(1)", "pad.touchesCancelled(1)"])
        #expect(r.messages.frames.last?.touches.first?.reason == .gesture)
    }

    @Test func failsWhenTheFingerMovesTooFar() {
        let r = Rig(gestureScene("{\"id\": \"tap\", \"kind\": \"tap\"}"))
        var f = Finger()
        f.down(0, 100, 100); f.syn()
        f.move(0, 105, 100); f.syn()      // within 10 points: still possible
        f.move(0, 111, 100); f.syn()      // 11 points: fails
        f.up(0); f.syn()
        r.feed(f)
        #expect(r.states("tap") == ["failed"])
        #expect(r.calls == ["pad.touchesBegan(1)", "pad.touchesMoved(1)", "pad.touchesMoved(1)", "pad.touchesEnded(1)"])
    }

    @Test func failsWithTheWrongNumberOfTouches() {
        let r = Rig(gestureScene("{\"id\": \"tap\", \"kind\": \"tap\"}, {\"id\": \"two\", \"kind\": \"tap\", \"touches\": 2}"))
        var f = Finger()
        f.down(0, 100, 100); f.down(1, 200, 100); f.syn(after: 50)
        f.up(0); f.up(1); f.syn()
        r.feed(f)
        #expect(r.states("tap") == ["failed"])
        #expect(r.states("two") == ["recognized"])
    }

    @Test func doubleTapNeedsTwoQuickTaps() {
        let r = Rig(gestureScene("{\"id\": \"double\", \"kind\": \"tap\", \"taps\": 2}"))
        var f = Finger()
        f.down(0, 100, 100); f.syn(after: 50); f.up(0); f.syn(after: 200)
        f.down(0, 102, 101); f.syn(after: 50); f.up(0); f.syn(after: 10)
        r.feed(f)
        #expect(r.states("double") == ["recognized"])
        #expect(r.gestures[0].touches == [1, 2])
        // The first tap's end was held while the double tap was still possible, then both
        // touches were taken.
        #expect(r.calls == ["pad.touchesBegan(1)", "pad.touchesBegan(2)", "pad.touchesCancelled(1,2)"])
    }

    @Test func doubleTapFailsWhenTheSecondTapIsTooLate() {
        let r = Rig(gestureScene("{\"id\": \"double\", \"kind\": \"tap\", \"taps\": 2}"))
        var f = Finger()
        f.down(0, 100, 100); f.syn(after: 50); f.up(0); f.syn(after: 10)   // lift at 50 ms
        r.feed(f)
        r.idle(until: 1_000_000)
        #expect(r.states("double") == ["failed"])
        let failed = r.gestures.last!
        #expect(failed.time == 50_000 + 350_000)   // the interval ran out on event time
        // The held end is delivered when it fails.
        #expect(r.calls == ["pad.touchesBegan(1)", "pad.touchesEnded(1)"])
        #expect(r.messages.frames.last?.time == 400_000)
    }
}
