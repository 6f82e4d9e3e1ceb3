import Testing
@testable import TouchCore

/// Recognizers on synthetic input: their states, in order, and their numbers.
typealias GestureRun = Rig

func gestureScene(_ gestures: String, viewExtra: String = "", children: String = "") -> Config {
    scene("""
        {"id": "pad", "frame": [0, 0, 800, 480], "touches": "handle", "multipleTouch": true \(viewExtra),
         "gestures": [\(gestures)], "subviews": [\(children)]}
        """)
}

func number(_ v: GestureValue?) -> Double? { if case .number(let n)? = v { return n }; return nil }
func point(_ v: GestureValue?) -> Point? { if case .point(let p)? = v { return p }; return nil }
func integer(_ v: GestureValue?) -> Int? { if case .integer(let n)? = v { return n }; return nil }
func near(_ a: Point?, _ b: Point, _ eps: Double = 1e-9) -> Bool { a.map { abs($0.x - b.x) < eps && abs($0.y - b.y) < eps } ?? false }

@Suite struct TapRecognizerTests {
    @Test func singleTapIsRecognizedAndTakesTheTouchFromTheView() {
        var r = GestureRun(gestureScene("{\"id\": \"tap\", \"kind\": \"tap\"}"))
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
        var r = GestureRun(gestureScene("{\"id\": \"tap\", \"kind\": \"tap\"}"))
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
        var r = GestureRun(gestureScene("{\"id\": \"tap\", \"kind\": \"tap\"}, {\"id\": \"two\", \"kind\": \"tap\", \"touches\": 2}"))
        var f = Finger()
        f.down(0, 100, 100); f.down(1, 200, 100); f.syn(after: 50)
        f.up(0); f.up(1); f.syn()
        r.feed(f)
        #expect(r.states("tap") == ["failed"])
        #expect(r.states("two") == ["recognized"])
    }

    @Test func doubleTapNeedsTwoQuickTaps() {
        var r = GestureRun(gestureScene("{\"id\": \"double\", \"kind\": \"tap\", \"taps\": 2}"))
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
        var r = GestureRun(gestureScene("{\"id\": \"double\", \"kind\": \"tap\", \"taps\": 2}"))
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

@Suite struct LongPressRecognizerTests {
    let cfg = gestureScene("{\"id\": \"hold\", \"kind\": \"longPress\"}")

    @Test func beginsAfterTheMinimumDurationThenChangesAndEnds() {
        var r = GestureRun(cfg)
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
        var r = GestureRun(cfg)
        var f = Finger()
        f.down(0, 100, 100); f.syn(after: 100)
        f.move(0, 115, 100); f.syn(after: 600)      // 15 points > allowableMovement 10
        f.up(0); f.syn()
        r.feed(f)
        #expect(r.states("hold") == ["failed"])
        #expect(r.calls == ["pad.touchesBegan(1)", "pad.touchesMoved(1)", "pad.touchesEnded(1)"])
    }

    @Test func failsWhenLiftedTooSoonOrWithTooManyTouches() {
        var r = GestureRun(cfg)
        var f = Finger()
        f.down(0, 100, 100); f.syn(after: 300)
        f.up(0); f.syn(after: 1000)
        f.down(0, 100, 100); f.down(1, 300, 100); f.syn(after: 700)
        f.up(0); f.up(1); f.syn()
        r.feed(f)
        #expect(r.states("hold") == ["failed", "failed"])
    }
}

@Suite struct PanRecognizerTests {
    @Test func translationAndVelocityInPoints() {
        var r = GestureRun(gestureScene("{\"id\": \"pan\", \"kind\": \"pan\"}"))
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
        #expect(near(point(r.value(g[1], "velocity")), Point(1800, 800), 1e-6))   // 18 and 8 points in 10 ms
        #expect(r.calls == ["pad.touchesBegan(1)", "pad.touchesMoved(1)", "pad.touchesCancelled(1)"])
    }

    @Test func needsItsMinimumTouches() {
        var r = GestureRun(gestureScene("{\"id\": \"pan2\", \"kind\": \"pan\", \"minimumTouches\": 2}"))
        var f = Finger()
        f.down(0, 100, 100); f.syn()
        f.move(0, 200, 100); f.syn()
        f.up(0); f.syn()
        r.feed(f)
        #expect(r.states("pan2") == ["failed"])
    }
}

@Suite struct SwipeRecognizerTests {
    func swipe(_ cfg: Config, dx: Int32, dy: Int32, ms: Int64, touches: Int32 = 1) -> GestureRun {
        var r = GestureRun(cfg)
        var f = Finger()
        for s in 0..<touches { f.down(s, 200 + s * 40, 200) }
        f.syn(after: ms / 2)
        for s in 0..<touches { f.move(s, 200 + s * 40 + dx / 2, 200 + dy / 2) }
        f.syn(after: ms / 2)
        for s in 0..<touches { f.move(s, 200 + s * 40 + dx, 200 + dy) }
        f.syn(after: 10)
        for s in 0..<touches { f.up(s) }
        f.syn()
        r.feed(f)
        return r
    }

    let right = gestureScene("{\"id\": \"swipe\", \"kind\": \"swipe\"}")

    @Test func recognizedInItsDirection() {
        let r = swipe(right, dx: 80, dy: 5, ms: 100)
        #expect(r.states("swipe") == ["recognized"])
        if case .string(let d)? = r.value(r.gestures[0], "direction") { #expect(d == "right") } else { Issue.record("no direction") }
        let up = swipe(gestureScene("{\"id\": \"swipe\", \"kind\": \"swipe\", \"directions\": [\"up\", \"down\"]}"), dx: 3, dy: -90, ms: 100)
        if case .string(let d)? = up.value(up.gestures[0], "direction") { #expect(d == "up") } else { Issue.record("no direction") }
    }

    @Test func failureCases() {
        #expect(swipe(right, dx: -80, dy: 0, ms: 100).states("swipe") == ["failed"])              // wrong direction
        #expect(swipe(right, dx: 80, dy: 0, ms: 600).states("swipe") == ["failed"])               // too slow
        #expect(swipe(right, dx: 30, dy: 0, ms: 100).states("swipe") == ["failed"])               // too short
        #expect(swipe(right, dx: 80, dy: 0, ms: 100, touches: 2).states("swipe") == ["failed"])   // too many touches
    }
}

@Suite struct PinchAndRotationTests {
    @Test func pinchFrom100To200PointsApartIsScale2() {
        var r = GestureRun(gestureScene("{\"id\": \"pinch\", \"kind\": \"pinch\"}"))
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
        var r = GestureRun(gestureScene("{\"id\": \"turn\", \"kind\": \"rotation\"}"))
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
        var r = GestureRun(gestureScene("{\"id\": \"pinch\", \"kind\": \"pinch\"}"))
        var f = Finger()
        f.down(0, 100, 100); f.syn()
        f.move(0, 200, 100); f.syn()
        f.up(0); f.syn()
        r.feed(f)
        #expect(r.states("pinch") == ["failed"])
    }
}

@Suite struct AtanTests {
    @Test func matchesKnownAngles() {
        #expect(abs(atan2Approx(1, 1) - Double.pi / 4) < 1e-14)
        #expect(abs(atan2Approx(1, 0) - Double.pi / 2) < 1e-14)
        #expect(abs(atan2Approx(0, -1) - Double.pi) < 1e-14)
        #expect(abs(atan2Approx(-1, -1) + 3 * Double.pi / 4) < 1e-14)
        #expect(abs(atan2Approx(3, -4) - 2.498091544796509) < 1e-14)
    }
}

@Suite struct PalmTests {
    @Test func aContactThatTurnsIntoAPalmIsCancelledAndOneThatStartsAsAPalmIsNeverDelivered() {
        let cfg = scene("{\"id\": \"v\", \"frame\": [0, 0, 800, 480], \"touches\": \"handle\", \"multipleTouch\": true}")
        var f = Finger()
        f.down(0, 100, 100); f.syn()
        f.ev(EV.ABS, ABS.MT_SLOT, 0); f.ev(EV.ABS, ABS.MT_TOOL_TYPE, MTTool.palm); f.syn()
        f.move(0, 120, 100); f.syn()
        f.down(1, 300, 300); f.ev(EV.ABS, ABS.MT_TOOL_TYPE, MTTool.palm); f.syn()
        f.move(1, 310, 300); f.syn()
        f.up(0); f.up(1); f.syn()
        let frames = run(cfg, f.events).frames
        #expect(frames.count == 2)
        #expect(frames[1].touches.map(\.phase) == [.cancelled])
        #expect(frames[1].touches[0].reason == .palm)
        #expect(frames[1].touches[0].tool == .palm)
        #expect(cfg.scene.describe(frames[1].calls) == ["v.touchesCancelled(1)"])
    }
}

/// One winner per touch sequence. UIGestureRecognizerDelegate's
/// gestureRecognizer(_:shouldRecognizeSimultaneouslyWith:): "If you do not implement this
/// method, the default return value is false — no two gestures can be recognized
/// simultaneously." A recognizer that recognizes makes the others on those touches fail,
/// including one waiting on requireToFail; and the winner must not depend on how the config
/// happens to list the recognizers (UIKit sets no order).
@Suite struct OneWinnerTests {
    func run(_ childGestures: String) -> [String] {
        let cfg = scene("""
            {"id": "card", "frame": [0, 0, 800, 480], "touches": "handle", "gestures": [{"id": "cardTap", "kind": "tap"}],
             "subviews": [{"id": "photo", "frame": [100, 100, 200, 200], "touches": "handle", "gestures": [\(childGestures)]}]}
            """)
        let r = Rig(cfg)
        var f = Finger(); f.down(0, 150, 150); f.syn(after: 50); f.up(0); f.syn()
        r.feed(f)
        r.advance(to: 2_000_000)
        return r.gestures.map { "\($0.recognizer):\($0.state.rawValue)" }
    }

    @Test func aPendingRecognizerDoesNotAlsoWinWhenTheOneItWaitsForFails() {
        let single = "{\"id\": \"single\", \"kind\": \"tap\", \"requireToFail\": [\"double\"]}"
        let double = "{\"id\": \"double\", \"kind\": \"tap\", \"taps\": 2}"
        let a = run(single + "," + double), b = run(double + "," + single)
        #expect(a == b)
        #expect(a.filter { $0.hasSuffix(":recognized") } == ["cardTap:recognized"])
        #expect(Set(a) == ["cardTap:recognized", "double:failed", "single:failed"])
    }
}

/// A scroll view against its content. UIScrollView.delaysContentTouches: the scroll view
/// "delays the handling of touch-down gestures until it can determine if scrolling is the
/// intent"; touchesShouldCancel(in:) "returns true if view is not a UIControl object;
/// otherwise, it returns false" (developer.apple.com/documentation/uikit/uiscrollview).
@Suite struct ScrollContentTests {
    func list(_ scroll: String, content: String = "\"control\": \"button\"") -> Config {
        scene("""
            {"id": "list", "frame": [0, 0, 400, 480], "scroll": {"contentSize": [400, 1200] \(scroll)},
             "subviews": [{"id": "row", "frame": [0, 100, 400, 60], "touches": "handle", \(content)}]}
            """)
    }

    func controls(_ r: Rig) -> [String] {
        r.messages.compactMap { if case .control(let c) = $0 { return c.event.rawValue }; return nil }
    }
    func scrolled(_ r: Rig) -> Bool { r.messages.contains { if case .scroll = $0 { return true }; return false } }

    /// A flick that starts within the content delay: the scroll view's alone, even when it may
    /// not cancel content touches: a scroll or a press, never both.
    @Test func aFlickIsAScrollNotAPressEvenWithoutCancelling() {
        let r = Rig(list(", \"canCancelContentTouches\": false"))
        var f = Finger()
        f.down(0, 100, 130); f.syn(after: 30)
        f.move(0, 100, 110); f.syn(after: 30)
        f.move(0, 100, 80); f.syn(after: 40)
        f.up(0); f.syn()
        r.feed(f)
        r.advance(to: 2_000_000)
        #expect(controls(r).isEmpty)
        #expect(r.frames.isEmpty)          // the row never hears of the touch
        #expect(scrolled(r))
        #expect(r.states("list.pan").first == "began")
    }

    /// A button already tracking keeps its touch: the view does not scroll.
    @Test func aTrackingButtonKeepsItsTouchByDefault() {
        let r = Rig(list(""))
        var f = Finger()
        f.down(0, 100, 130); f.syn(after: 200)            // the content delay (150 ms) passes: touchDown
        for k in 1...5 { f.move(0, 100, Int32(130 - 18 * k)); f.syn(after: 20) }
        f.up(0); f.syn()
        r.feed(f)
        r.advance(to: 2_000_000)
        #expect(controls(r).first == "touchDown")
        #expect(controls(r).suffix(2) == ["touchUpInside", "primaryActionTriggered"])
        #expect(!controls(r).contains("touchCancel"))
        #expect(!scrolled(r))
        #expect(!r.states("list.pan").contains("began"))
    }

    /// cancelsControlTouches: true is touchesShouldCancel(in:) returning true for controls.
    @Test func cancelsControlTouchesLetsTheViewTakeTheButtonsTouch() {
        let r = Rig(list(", \"cancelsControlTouches\": true"))
        var f = Finger()
        f.down(0, 100, 130); f.syn(after: 200)
        for k in 1...5 { f.move(0, 100, Int32(130 - 18 * k)); f.syn(after: 20) }
        f.up(0); f.syn()
        r.feed(f)
        #expect(controls(r) == ["touchDown", "touchCancel"])
        #expect(scrolled(r))
    }

    /// Other content views are cancelled when the drag begins (touchesShouldCancel is true).
    @Test func plainContentIsCancelledWhenTheDragBegins() {
        let r = Rig(list("", content: "\"multipleTouch\": false"))
        var f = Finger()
        f.down(0, 100, 130); f.syn(after: 200)
        for k in 1...5 { f.move(0, 100, Int32(130 - 18 * k)); f.syn(after: 20) }
        f.up(0); f.syn()
        r.feed(f)
        #expect(r.calls.prefix(2) == ["row.touchesBegan(1)", "row.touchesCancelled(1)"])
        #expect(scrolled(r))
    }
}

/// UIScreenEdgePanGestureRecognizer: "looks for panning (dragging) gestures that start near an
/// edge of the screen" (developer.apple.com/documentation/uikit/uiscreenedgepangesturerecognizer).
@Suite struct ScreenEdgePanTests {
    func rig(_ edges: String, rotation: Rotation = .r0) -> Rig {
        var s = DeviceSettings()
        s.rotation = rotation
        return Rig(gestureScene("{\"id\": \"back\", \"kind\": \"screenEdgePan\", \"edges\": [\(edges)]}"), settings: s)
    }

    func drag(_ r: Rig, from: (Int32, Int32), by step: (Int32, Int32)) {
        var f = Finger()
        f.down(0, from.0, from.1); f.syn(after: 20)
        for k in 1...4 { f.move(0, from.0 + step.0 * Int32(k), from.1 + step.1 * Int32(k)); f.syn(after: 20) }
        f.up(0); f.syn()
        r.feed(f)
    }

    @Test func beginsOnlyNearItsEdgeMovingIntoTheScreen() {
        let inFromLeft = rig("\"left\"")
        drag(inFromLeft, from: (5, 200), by: (15, 1))
        #expect(inFromLeft.states("back").prefix(2) == ["began", "changed"])
        #expect(inFromLeft.gestures.first.flatMap { g in g.values.first { $0.0 == "edge" } }.map { "\($0.1)" } == "string(\"left\")")
        let fromTheMiddle = rig("\"left\"")
        drag(fromTheMiddle, from: (100, 200), by: (15, 0))
        #expect(fromTheMiddle.states("back") == ["failed"])
        let alongTheEdge = rig("\"left\"")
        drag(alongTheEdge, from: (5, 200), by: (1, 15))          // up the edge, not away from it
        #expect(alongTheEdge.states("back") == ["failed"])
        let otherEdge = rig("\"right\", \"bottom\"")
        drag(otherEdge, from: (795, 200), by: (-15, 0))
        #expect(otherEdge.states("back").first == "began")
    }

    /// Edges are the screen's after rotation: on a panel turned a quarter, the device's top edge
    /// is the screen's right edge.
    @Test func edgesFollowTheScreenAfterRotation() {
        let r = rig("\"right\"", rotation: .r90)
        drag(r, from: (400, 3), by: (0, 15))      // device y grows: screen x shrinks (into the screen)
        #expect(r.states("back").first == "began")
        let top = rig("\"top\"", rotation: .r90)
        drag(top, from: (400, 3), by: (0, 15))
        #expect(top.states("back") == ["failed"])
    }

    @Test func edgesAreRequired() {
        do {
            _ = try Config.parse("""
                {"windows": [{"id": "w", "frame": [0, 0, 1, 1], "view": {"id": "v", "frame": [0, 0, 1, 1],
                  "gestures": [{"id": "e", "kind": "screenEdgePan"}]}}]}
                """)
            Issue.record("accepted")
        } catch {
            #expect(error.errors.map(\.description) == ["$.windows[0].view.gestures[0].edges: missing: a screen-edge pan needs the edges it starts from (left, right, top, bottom) (line 2)"])
        }
    }
}

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
        r.messages.compactMap { if case .scroll(let s) = $0 { return (s.time, s.offset, s.dragging, s.decelerating) }; return nil }
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
        // Released at 2 points per ms: it travels Σ 2·0.998^k = 2·0.998/0.002 ≈ 998 points,
        // less the tail below the rest speed (0.01 point/ms: 0.01·0.998/0.002 ≈ 5 points).
        let travelled = moving.last!.1.y - dragEnd
        #expect(abs(travelled - (998 - 5)) < 3, "\(travelled)")
        // Frames every 16 ms of event time.
        #expect(moving[1].0 - moving[0].0 == 16_000)
        // And faster decay with "fast".
        let fast = Rig(list(", \"decelerationRate\": \"fast\""))
        flick(fast)
        fast.advance(to: 10_000_000)
        let fastTravel = offsets(fast).last!.1.y - dragEnd
        #expect(abs(fastTravel - (2 * 0.99 / 0.01 - 0.01 * 0.99 / 0.01)) < 3, "\(fastTravel)")
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
        #expect(!after.contains { if case .scroll = $0 { return true }; return false })   // it stopped
        #expect(!after.contains { if case .control = $0 { return true }; return false })  // the button never saw it
        #expect(r.engine.scene[r.engine.scene.viewIndex["list"]!].boundsOrigin == stoppedAt)
    }
}
