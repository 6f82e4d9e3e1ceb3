import Testing
@testable import TouchCore
import TouchTestSupport

/// Issue 20, items 3, 4 and 5: who owns a touch once a scroll view's pan has begun, and a pan's
/// velocity across fingers landing and lifting. UIGestureRecognizer.cancelsTouchesInView: "When
/// this property is true (the default) and the receiver recognizes its gesture, the touches of
/// that gesture that are pending aren't delivered to the view and previously delivered touches
/// are canceled through a touchesCancelled(_:with:) message sent to the view" — the scroll
/// view's own pan included, for the scroll view itself and the responders above it. A finger
/// landing once the pan has begun is one of its touches, so the content never gets it.
/// UIPanGestureRecognizer's translation and velocity stay continuous when fingers are added or
/// lifted (velocity(in:) is the fingers' speed, not the jump of their centroid).
@Suite struct ScrollTouchOwnershipTests {
    func list(_ rootExtra: String = "") -> Config {
        scene("""
            {"id": "list", "frame": [0, 0, 400, 480], "touches": "forward", "multipleTouch": true,
             "scroll": {"contentSize": [400, 4000]},
             "subviews": [{"id": "row", "frame": [0, 300, 400, 60], "control": "button", "touches": "handle"}]}
            """, rootExtra: rootExtra)
    }

    func controls(_ r: Rig) -> [String] {
        r.messages.compactMap { if case .control(let c) = $0 { return c.event.rawValue }; return nil }
    }

    @Test func aDragOnTheScrollViewsBackgroundIsCancelledWhenItScrolls() {
        let r = Rig(list(", \"touches\": \"handle\""))
        var f = Finger()
        f.down(0, 200, 200); f.syn(after: 200)            // the background, past the content delay
        for k in 1...6 { f.move(0, 200, Int32(200 - 15 * k)); f.syn(after: 20) }
        f.up(0); f.syn()
        r.feed(f)
        #expect(r.states("list.pan").first == "began")
        #expect(r.calls.contains("root.touchesBegan(1)"))
        #expect(r.calls.contains("root.touchesCancelled(1)"), "\(r.calls)")
        #expect(!r.calls.contains("root.touchesEnded(1)"), "a background tap handler would fire: \(r.calls)")
    }

    @Test func aSecondFingerOnContentWhileTheListScrollsJoinsThePan() {
        let r = Rig(list())
        var f = Finger()
        f.down(0, 200, 450); f.syn(after: 20)
        for k in 1...6 { f.move(0, 200, Int32(450 - 15 * k)); f.syn(after: 20) }   // scrolling up
        f.down(1, 200, 250); f.syn(after: 200)                                     // on the row, held
        f.move(0, 200, 350); f.syn(after: 20)
        f.up(1); f.syn(after: 20)
        f.up(0); f.syn()
        r.feed(f)
        #expect(r.states("list.pan").first == "began")
        // The finger landed on the row where it was then (offset about 80: rows 220…280).
        #expect(controls(r).isEmpty, "the row was pressed mid-scroll: \(controls(r))")
        #expect(!r.calls.contains { $0.hasPrefix("row.") }, "\(r.calls)")
        // The pan has both fingers.
        #expect(r.gestures.contains { $0.recognizer == "list.pan" && $0.touches.count == 2 })
    }

    @Test func liftingOneOfTwoFingersDoesNotSpikeTheVelocity() {
        let r = Rig(gestureScene("{\"id\": \"pan\", \"kind\": \"pan\"}"))
        var f = Finger()
        // Two fingers 200 points apart drag up together at 100 points a second (1 point per 10 ms).
        f.down(0, 300, 400); f.down(1, 500, 400); f.syn(after: 10)
        for k in 1...20 { f.move(0, 300, Int32(400 - k)); f.move(1, 500, Int32(400 - k)); f.syn(after: 10) }
        f.up(1); f.syn(after: 10)                         // one lifts: the centroid jumps 100 points
        f.move(0, 300, 379); f.syn(after: 10)              // the other goes on at the same speed
        f.move(0, 300, 378); f.syn()
        r.feed(f)
        let velocities = r.gestures.filter { $0.recognizer == "pan" }.compactMap { point(r.value($0, "velocity")) }
        #expect(!velocities.isEmpty)
        for v in velocities {
            // The fingers never went faster than 100 points a second, nor sideways.
            #expect(abs(v.x) <= 1 && abs(v.y) <= 101, "\(v)")
        }
    }

    @Test func addingAFingerDoesNotSpikeTheVelocity() {
        let r = Rig(gestureScene("{\"id\": \"pan\", \"kind\": \"pan\"}"))
        var f = Finger()
        f.down(0, 300, 400); f.syn(after: 10)
        for k in 1...20 { f.move(0, 300, Int32(400 - k)); f.syn(after: 10) }   // 100 points a second up
        f.down(1, 500, 300); f.syn(after: 10)                                  // a second finger lands
        for k in 1...5 { f.move(0, 300, Int32(380 - k)); f.move(1, 500, Int32(300 - k)); f.syn(after: 10) }
        f.up(0); f.up(1); f.syn()
        r.feed(f)
        let velocities = r.gestures.filter { $0.recognizer == "pan" }.compactMap { point(r.value($0, "velocity")) }
        for v in velocities { #expect(abs(v.x) <= 1 && abs(v.y) <= 101, "\(v)") }
    }
}
