import Testing
@testable import TouchCore
import TouchTestSupport

/// Scrolling like iOS: UIScrollView.DecelerationRate ("normal: 0.998, fast: 0.99" — the
/// velocity kept per millisecond), bounces, isPagingEnabled ("stops on multiples of the scroll
/// view's bounds"), and a touch on a decelerating scroll view stops it.
@Suite struct ScrollMotionTests {
    func list(_ extra: String = "") -> Config {
        scene("""
            {"id": "list", "frame": [0, 0, 400, 400], "scroll": {"contentSize": [400, 4000] \(extra)},
             "subviews": [{"id": "row", "frame": [0, 0, 400, 100], "control": "button"}]}
            """)
    }

    /// A flick upward: the finger moves 20 points every 10 ms (2,000 points a second) and lifts.
    func flick(_ r: Rig, from y: Int32 = 300, steps: Int = 5, step: Int32 = 20) {
        var f = Finger()
        f.down(0, 200, y); f.syn(after: 10)
        for k in 1...steps { f.move(0, 200, y - step * Int32(k)); f.syn(after: 10) }
        f.up(0); f.syn()
        r.feed(f)
    }

    func offsets(_ r: Rig) -> [(Int64, Point, Bool, Bool)] {
        r.scrolls().map { ($0.time, $0.offset, $0.dragging, $0.decelerating) }
    }

    @Test func aFlickDeceleratesByTheRateEveryMillisecond() {
        let r = Rig(list())
        flick(r)
        let dragEnd = offsets(r).last!.1.y          // 100 points dragged (the first 10 hysteresis… then follow)
        r.advance(to: 10_000_000)
        let all = offsets(r)
        let moving = all.filter { !$0.2 }
        #expect(moving.count > 10)
        #expect(moving.dropLast().allSatisfy { $0.3 } && moving.last?.3 == false)   // decelerating until it rests
        // Released at 2 points per ms. Each millisecond the velocity first decays by the rate,
        // then moves the content, until it is below the rest speed (0.01 point/ms): n steps, n
        // the first with 2·0.998ⁿ < 0.01 (n = 2647), so it travels Σ_{k=1…n} 2·0.998ᵏ =
        // 2·0.998·(1 − 0.998ⁿ)/0.002 ≈ 993.01 points. Moving before the decay would travel
        // Σ_{k=0…n−1} ≈ 995.00, 2 points more: the tolerance is well below that.
        let travelled = moving.last!.1.y - dragEnd
        #expect(abs(travelled - 993.01) < 0.5, "\(travelled)")
        // Frames every 16 ms of event time.
        #expect(moving[1].0 - moving[0].0 == 16_000)
        // And faster decay with "fast".
        let fast = Rig(list(", \"decelerationRate\": \"fast\""))
        flick(fast)
        fast.advance(to: 10_000_000)
        let fastTravel = offsets(fast).last!.1.y - dragEnd
        // n = 528 (2·0.99ⁿ < 0.01): 2·0.99·(1 − 0.99ⁿ)/0.01 ≈ 197.02 (moved before the decay: 199.01).
        #expect(abs(fastTravel - 197.02) < 0.5, "\(fastTravel)")
    }

    @Test func pastTheEndItStretchesAndSpringsBack() {
        let r = Rig(list())
        var f = Finger()
        f.down(0, 200, 100); f.syn(after: 10)
        for k in 1...10 { f.move(0, 200, 100 + 20 * Int32(k)); f.syn(after: 10) }   // pull down at the top
        f.syn(after: 100)                                                            // rest, then lift
        f.up(0); f.syn()
        r.feed(f)
        let drag = offsets(r).filter(\.2).map(\.1.y)
        // 200 points of finger past the top edge: rubber band (1 − 1/(x·0.55/d + 1))·d with
        // d = 400 → about 86 points.
        let stretched: Double = -(1 - 1 / (200 * 0.55 / 400 + 1)) * 400   // typed: Swift 6.0 gave up inferring it
        #expect(abs(drag.last! - stretched) < 0.01, "\(drag.last!) vs \(stretched)")
        r.advance(to: 5_000_000)
        #expect(offsets(r).last?.1 == Point(0, 0))                                  // sprung back exactly
        // Without bounces the drag stops at the edge.
        let flat = Rig(list(", \"bounces\": false"))
        flat.feed(f)
        #expect(offsets(flat).isEmpty)
    }

    @Test func pagingSettlesOnMultiplesOfTheViewsSize() {
        let r = Rig(list(", \"pagingEnabled\": true"))
        flick(r)                                   // a flick upward (content moves down: offset grows)
        r.advance(to: 5_000_000)
        #expect(offsets(r).last?.1 == Point(0, 400))
        let slow = Rig(list(", \"pagingEnabled\": true"))
        var f = Finger()
        f.down(0, 200, 300); f.syn(after: 10)
        f.move(0, 200, 150); f.syn(after: 200)      // 150 points, then rest: nearest page is 0
        f.up(0); f.syn()
        slow.feed(f)
        slow.advance(to: 5_000_000)
        #expect(offsets(slow).last?.1 == Point(0, 0))
    }

    @Test func aTouchDuringDecelerationStopsItAndIsNotDelivered() {
        let r = Rig(list())
        flick(r)
        r.advance(to: 200_000)
        let stoppedAt = offsets(r).last!.1
        var f = Finger()
        f.time = 200_000
        f.down(0, 200, 50); f.syn(after: 50)       // on the row (a button)
        f.up(0); f.syn()
        let before = r.messages.count
        r.feed(f)
        r.advance(to: 5_000_000)
        let after = Array(r.messages[before...])
        // It stopped: one scroll message says so at the touch (same offset, no longer
        // decelerating: ScrollFlagsTests), and none moves it.
        let scrolled = after.scrolls
        #expect(scrolled.count == 1)
        #expect(scrolled.allSatisfy { $0.offset == stoppedAt && !$0.decelerating && !$0.dragging && $0.time == 200_000 })
        #expect(!after.contains { if case .control = $0 { return true }; return false })  // the button never saw it
        #expect(r.engine.scene[r.engine.scene.viewIndex["list"]!].boundsOrigin == stoppedAt)
    }
}
