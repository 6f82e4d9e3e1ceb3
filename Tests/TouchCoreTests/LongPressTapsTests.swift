import Testing
@testable import TouchCore
import TouchTestSupport

/// Issue 20, item 11. UILongPressGestureRecognizer.numberOfTapsRequired: "The number of taps on
/// the view necessary for gesture recognition" (default 0) — that many taps first, then the
/// press held for minimumPressDuration ("tap and a half" with 1). touchd: each tap lifts, and
/// the next touch lands, within 350 ms (the tap recognizer's default maximumInterval).
@Suite struct LongPressTapsTests {
    let cfg = gestureScene("{\"id\": \"hold\", \"kind\": \"longPress\", \"taps\": 1}")

    @Test func aTapThenAPressBegins() {
        let r = Rig(cfg)
        var f = Finger()
        f.down(0, 100, 100); f.syn(after: 100)
        f.up(0); f.syn(after: 150)                  // tap lifted at 100 ms, next down at 250 ms
        f.down(0, 102, 100); f.syn(after: 700)
        f.up(0); f.syn()
        r.feed(f)
        #expect(r.states("hold") == ["began", "ended"])
        #expect(r.gestures.first?.time == 750_000)  // 500 ms after the second touch landed
    }

    @Test func aPressWithoutTheTapDoesNotBegin() {
        let r = Rig(cfg)
        var f = Finger()
        f.down(0, 100, 100); f.syn(after: 800)      // held at once: that was the tap, held too long
        f.up(0); f.syn()
        r.feed(f)
        #expect(r.states("hold") == ["failed"])
    }

    @Test func aPressTooLongAfterTheTapDoesNotBegin() {
        let r = Rig(cfg)
        var f = Finger()
        f.down(0, 100, 100); f.syn(after: 100)
        f.up(0); f.syn(after: 600)                  // 600 ms > 350 ms before the next touch
        f.down(0, 100, 100); f.syn(after: 700)
        f.up(0); f.syn()
        r.feed(f)
        #expect(!r.states("hold").contains("began"))
        #expect(r.states("hold").first == "failed")
    }

    @Test func twoTapsThenAPress() {
        let r = Rig(gestureScene("{\"id\": \"hold\", \"kind\": \"longPress\", \"taps\": 2}"))
        var f = Finger()
        f.down(0, 100, 100); f.syn(after: 80)
        f.up(0); f.syn(after: 100)
        f.down(0, 100, 100); f.syn(after: 80)
        f.up(0); f.syn(after: 100)
        f.down(0, 100, 100); f.syn(after: 600)
        f.up(0); f.syn()
        r.feed(f)
        #expect(r.states("hold") == ["began", "ended"])
        // One tap then a press is not enough.
        let one = Rig(gestureScene("{\"id\": \"hold\", \"kind\": \"longPress\", \"taps\": 2}"))
        var g = Finger()
        g.down(0, 100, 100); g.syn(after: 80)
        g.up(0); g.syn(after: 100)
        g.down(0, 100, 100); g.syn(after: 600)
        g.up(0); g.syn()
        one.feed(g)
        #expect(!one.states("hold").contains("began"))
    }
}
