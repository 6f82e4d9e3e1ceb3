import Foundation
import Testing

/// UIKit fidelity, end to end with `touchd replay` on hand-written captures and configs in
/// Tests/Fixtures/gestures and Tests/Fixtures/mapping. Expectations worked out by hand from
/// UIKit's documented behaviour (cited) and the timings in the captures.
@Suite struct FidelityScenarioTests {
    func replay(_ dir: String, config: String, events: String) throws -> GestureScenarioTests.Run {
        let r = try touchd("replay", "--config", Paths.fixture("\(dir)/\(config).json"),
                           "--device-info", Paths.fixture("virtual-800x480.desc"), Paths.fixture("\(dir)/\(events).events"))
        #expect(r.status == 0, "\(r.stderr)")
        return GestureScenarioTests.Run(messages: r.messages)
    }
    func gestures(_ name: String) throws -> GestureScenarioTests.Run { try replay("gestures", config: name, events: name) }

    /// Every corner and edge midpoint of the panel, under a half turn, a quarter turn with a
    /// flip, and a mirroring calibration that also scales past 1: each touch lands on screen
    /// (UIKit never reports a touch outside its screen) and on the view of the 3 × 3 grid there.
    @Test(arguments: ["rotated-180", "rotated-90-flipped", "mirrored-calibration"])
    func panelEdgesLandOnScreenOnTheViewThere(_ config: String) throws {
        let r = try replay("mapping", config: "panel-edges-\(config)", events: "panel-edges")
        let began = r.of("frame").flatMap(\.touches).filter { $0["phase"] as? String == "began" }
        #expect(began.count == 8)
        for t in began {
            let p = try #require(t["location"] as? [Double])
            #expect(p[0] >= 0 && p[0] < 800 && p[1] >= 0 && p[1] < 480, "\(p)")
            let expected = "c\(min(Int(p[0] * 3 / 800), 2))\(min(Int(p[1] * 3 / 480), 2))"
            #expect(t["view"] as? String == expected, "\(p) on \(String(describing: t["view"]))")
        }
        // A panel corner is a screen corner exactly (the four corner taps come first).
        for t in began.prefix(4) {
            let p = try #require(t["location"] as? [Double])
            #expect((p[0] == 0 || p[0] == 799) && (p[1] == 0 || p[1] == 479), "\(p)")
        }
    }

    /// UIScrollView.touchesShouldCancel(in:) "returns false if view is a UIControl": a row button
    /// already tracking (after the 150 ms content delay) keeps its touch through a drag; the
    /// list does not scroll.
    @Test func aTrackingButtonKeepsItsTouch() throws {
        let r = try gestures("g7-button-keeps-its-touch")
        #expect(r.controls == ["row1.touchDown"] + Array(repeating: "row1.touchDragInside", count: 5)
                    + ["row1.touchUpInside", "row1.primaryActionTriggered"])
        #expect(r.gestures == ["list.pan:failed@1.22"])
        #expect(r.scrolls.isEmpty)
    }

    /// A flick decelerates by 0.998 every millisecond (UIScrollView.DecelerationRate.normal) and
    /// a finger on the moving list stops it and never reaches the row under it.
    @Test func aFlickDeceleratesAndAFingerStopsIt() throws {
        let r = try gestures("g8-flick-decelerates")
        let scrolls = r.of("scroll")
        let dragging = scrolls.filter { $0["dragging"] as? Bool == true }.map { ($0["offset"] as! [Double])[1] }
        #expect(dragging == [20, 40, 60, 80, 100])
        // After the lift: decelerating frames, then one message when the second finger stops it
        // (same offset, decelerating false: the flags' change is published).
        let afterAll = scrolls.filter { $0["dragging"] as? Bool == false }
        let stop = try #require(afterAll.last)
        #expect(stop["decelerating"] as? Bool == false && (stop["time"] as? Double) == 1.56)
        #expect(stop["offset"] as? [Double] == afterAll.dropLast().last?["offset"] as? [Double])
        let after = Array(afterAll.dropLast())
        #expect(after.count > 20 && after.allSatisfy { $0["decelerating"] as? Bool == true })
        // Released at 2,000 points/s = 2 points/ms at 1.06 s; the first frame 16 ms later is at
        // 100 + Σ(k=1…16) 2·0.998^k = 100 + 998·(1 − 0.998^16) = 131.461.
        #expect(after.first?["time"] as? Double == 1.076)
        #expect(abs(((after.first?["offset"] as? [Double])?[1] ?? 0) - 131.461) < 0.001)
        // Each frame moves less than the one before (it slows down) …
        let ys = after.map { ($0["offset"] as! [Double])[1] }
        let steps = zip(ys.dropFirst(), ys).map { $0 - $1 }
        #expect(zip(steps.dropFirst(), steps).allSatisfy { $0 < $1 + 1e-9 || $0 < 0.01 })
        // … until the second finger lands at 1.56 s: nothing moves after that.
        #expect(after.allSatisfy { ($0["time"] as! Double) < 1.56 })
        // Neither touch ever reached the row (the flick was the list's; the stop was too).
        #expect(r.controls.isEmpty)
        #expect(r.of("frame").isEmpty)
    }

    /// isPagingEnabled: "the scroll view stops on multiples of the scroll view's bounds".
    @Test func pagingSettlesOnThePageTheFlickPointsTo() throws {
        let r = try gestures("g9-paging")
        let last = try #require(r.of("scroll").last)
        #expect(last["offset"] as? [Double] == [0, 480])
        #expect(last["decelerating"] as? Bool == false)
        #expect(r.scrolls.allSatisfy { $0[1] >= 0 && $0[1] <= 1440 })
    }

    @Test func aScreenEdgePanStartsOnlyAtItsEdge() throws {
        let r = try gestures("g10-edge-pan")
        #expect(r.gestures == ["back:began@1.02", "back:changed@1.04", "back:changed@1.06", "back:changed@1.08",
                               "back:changed@1.10", "back:changed@1.12", "back:ended@1.14", "back:failed@2.00"])
        #expect(r.of("gesture").first?["edge"] as? String == "left")
    }

    /// One winner, whatever the listing order (UIGestureRecognizerDelegate's default: "no two
    /// gestures can be recognized simultaneously").
    @Test func oneTapHasOneWinnerInEitherListingOrder() throws {
        let a = try gestures("g11-one-winner"), b = try gestures("g11-one-winner-listed-the-other-way")
        #expect(a.gestures == ["cardTap:recognized@1.05", "double:failed@1.05", "single:failed@1.05"])
        #expect(b.gestures == a.gestures)
    }
}
