import Testing
@testable import TouchCore
import TouchTestSupport

/// Issue 43, item 2: a `began` that a recognizer held (delaysTouchesBegan, a scroll view's
/// delaysContentTouches) is delivered as the touch began — the touch-down's location and time —
/// and, when the finger has moved since, a `moved` frame with where it is now follows in the same
/// delivery (UIKit delivers the held touchesBegan, then touchesMoved). It used to carry the
/// touch's current state, so a drawing view lost its first point.
@Suite struct DelayedBeganTests {
    /// The touch records of the frames published from `start` on, with each frame's time.
    static func records(_ r: Rig, from start: Int = 0) -> [(time: Int64, touch: TouchRecord)] {
        Array(r.messages[start...]).frames.flatMap { f in f.touches.map { (f.time, $0) } }
    }

    static let list = scene("""
        {"id": "list", "frame": [0, 0, 400, 480], "touches": "forward",
         "scroll": {"contentSize": [400, 4000]},
         "subviews": [{"id": "canvas", "frame": [0, 0, 400, 60], "touches": "handle"}]}
        """)

    /// delaysContentTouches, released by the lift: began where the finger landed, when it
    /// landed; its move; its end — in one delivery, at the lift's time.
    @Test func aHeldBeganReleasedByTheLiftBeginsWhereTheFingerLanded() {
        let r = Rig(Self.list)
        var f = Finger()
        f.down(0, 100, 30); f.syn(after: 50)
        f.move(0, 103, 32); f.syn(after: 70)
        f.up(0); f.syn()
        r.feed(f)
        let rs = Self.records(r)
        #expect(rs.map(\.touch.phase) == [.began, .moved, .ended], "\(rs.map(\.touch.phase))")
        guard rs.count == 3 else { return }
        let (began, moved, ended) = (rs[0].touch, rs[1].touch, rs[2].touch)
        #expect(began.location == Point(100, 30))
        #expect(began.previous == Point(100, 30))
        #expect(began.timestamp == 0)
        // The move carries the touch as it is now: lifted there, at 0.12 s.
        #expect(moved.location == Point(103, 32))
        #expect(moved.previous == Point(100, 30))
        #expect(moved.timestamp == 120_000)
        #expect(ended.location == Point(103, 32))
        #expect(ended.timestamp == 120_000)
        // All three at the lift, the delivery's time.
        #expect(rs.allSatisfy { $0.time == 120_000 }, "\(rs.map(\.time))")
        #expect(r.calls == ["canvas.touchesBegan(1)", "canvas.touchesMoved(1)", "canvas.touchesEnded(1)"], "\(r.calls)")
    }

    /// delaysContentTouches, released by the content delay (150 ms) while the finger is down.
    @Test func aHeldBeganReleasedByTheContentDelayIsFollowedByItsMove() {
        let r = Rig(Self.list)
        var f = Finger()
        f.down(0, 100, 30); f.syn(after: 50)
        f.move(0, 103, 32); f.syn(after: 150)
        f.move(0, 104, 33); f.syn(after: 20)
        f.up(0); f.syn()
        r.feed(f)
        let rs = Self.records(r)
        #expect(rs.map(\.touch.phase) == [.began, .moved, .moved, .ended], "\(rs.map(\.touch.phase))")
        guard rs.count == 4 else { return }
        #expect(rs[0].time == 150_000)
        #expect(rs[0].touch.location == Point(100, 30))
        #expect(rs[0].touch.timestamp == 0)
        #expect(rs[1].time == 150_000)
        #expect(rs[1].touch.location == Point(103, 32))
        #expect(rs[1].touch.previous == Point(100, 30))
        #expect(rs[1].touch.timestamp == 50_000)
        // The next move's previous is where the views last saw the finger.
        #expect(rs[2].touch.location == Point(104, 33))
        #expect(rs[2].touch.previous == Point(103, 32))
    }

    /// A finger that did not move since it landed: the held began alone.
    @Test func aStillFingersHeldBeganHasNoMove() {
        let r = Rig(Self.list)
        var f = Finger()
        f.down(0, 100, 30); f.syn(after: 200)
        f.up(0); f.syn()
        r.feed(f)
        let rs = Self.records(r)
        #expect(rs.map(\.touch.phase) == [.began, .ended], "\(rs.map(\.touch.phase))")
        #expect(rs.first?.time == 150_000)
        #expect(rs.first?.touch.timestamp == 0)
    }

    /// delaysTouchesBegan: a long press that fails by moving 12 points releases the began at
    /// the touch-down's place and time, then the move.
    @Test func aLongPressThatFailsReleasesTheBeganAsTheTouchBegan() {
        let r = Rig(gestureScene(#"{"id": "press", "kind": "longPress", "delaysTouchesBegan": true}"#))
        var f = Finger()
        f.time = 1_000_000
        f.down(0, 500, 100); f.syn(after: 100)
        f.move(0, 512, 100); f.syn(after: 100)
        f.up(0); f.syn()
        r.feed(f)
        #expect(r.states("press") == ["failed"])
        let rs = Self.records(r)
        #expect(rs.map(\.touch.phase) == [.began, .moved, .ended], "\(rs.map(\.touch.phase))")
        guard rs.count == 3 else { return }
        #expect(rs[0].time == 1_100_000)
        #expect(rs[0].touch.location == Point(500, 100))
        #expect(rs[0].touch.timestamp == 1_000_000)
        #expect(rs[0].touch.locationInView == Point(500, 100))
        #expect(rs[1].time == 1_100_000)
        #expect(rs[1].touch.location == Point(512, 100))
        #expect(rs[1].touch.previous == Point(500, 100))
        #expect(rs[1].touch.timestamp == 1_100_000)
        #expect(rs[1].touch.predicted != nil)
    }
}

/// Issue 43, item 3: the scroll view's 150 ms content delay belongs to the scroll view's touch
/// sequence, as UIKit's is one recognizer on the scroll view (it fails 150 ms after the first
/// finger lands, and takes no new touch until every finger has lifted): a finger landing later in
/// the same sequence reaches the content at once; one landing within the first 150 ms waits only
/// for what is left of them; after every finger has lifted, the next sequence is delayed again.
/// It used to run per finger (a second finger at 0.5 s got its touchDown at 0.65 s).
@Suite struct ContentDelayPerSequenceTests {
    static let list = scene("""
        {"id": "list", "frame": [0, 0, 400, 480], "touches": "forward", "multipleTouch": true,
         "scroll": {"contentSize": [400, 4000]},
         "subviews": [{"id": "row0", "frame": [0, 0, 400, 60], "control": "button"},
                      {"id": "row2", "frame": [0, 120, 400, 60], "control": "button"}]}
        """)

    static func touchDowns(_ r: Rig) -> [String] {
        r.messages.controls.filter { $0.event == .touchDown }.map { "\(r.scene[$0.control].id)@\($0.time / 1000)" }
    }

    @Test func aSecondFingerAfterTheDelayReachesTheContentAtOnce() {
        let r = Rig(Self.list)
        var f = Finger()
        f.down(0, 200, 30); f.syn(after: 500)
        f.down(1, 200, 150); f.syn(after: 300)
        f.up(1); f.syn(after: 100)
        f.up(0); f.syn(after: 500)
        // A new sequence: delayed again.
        f.down(0, 200, 150); f.syn(after: 300)
        f.up(0); f.syn()
        r.feed(f)
        #expect(Self.touchDowns(r) == ["row0@150", "row2@500", "row2@1550"], "\(Self.touchDowns(r))")
    }

    @Test func aSecondFingerWithinTheDelayWaitsForWhatIsLeftOfIt() {
        let r = Rig(Self.list)
        var f = Finger()
        f.down(0, 200, 30); f.syn(after: 100)
        f.down(1, 200, 150); f.syn(after: 300)
        f.up(0); f.up(1); f.syn()
        r.feed(f)
        #expect(Self.touchDowns(r) == ["row0@150", "row2@150"], "\(Self.touchDowns(r))")
    }
}
