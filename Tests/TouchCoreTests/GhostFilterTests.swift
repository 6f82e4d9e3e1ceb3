import Testing
@testable import TouchCore
import TouchTestSupport

/// Issue 30, item 3: ghost touches — a contact for a frame or two where no finger is (EMI on a
/// cheap capacitive panel, a spike on a resistive one) — kept out by `minimumDuration`,
/// `minimumFrames` and `deadZone`, each against a made-up capture and against the run without
/// the filter (which shows the defect: the ghost presses a button).
@Suite struct GhostFilterTests {
    let buttons = scene("""
        {"id": "buy", "frame": [50, 50, 200, 100], "control": "button"},
        {"id": "other", "frame": [400, 50, 200, 100], "control": "button", "multipleTouch": true},
        {"id": "edge", "frame": [0, 0, 800, 20], "control": "button"}
        """)

    func settings(_ edit: (inout ConditioningSettings) -> Void) -> DeviceSettings {
        var s = DeviceSettings()
        edit(&s.filter)
        return s
    }

    func filter(_ edit: (inout ConditioningSettings) -> Void) -> ConditioningSettings {
        var c = ConditioningSettings()
        edit(&c)
        return c
    }

    /// A real 80 ms tap on "other" (frames every 10 ms) and, during it, a one-frame ghost on
    /// "buy" (down, then up 10 ms later) and a two-frame one.
    func tapWithGhosts(ghosts: Bool = true) -> [InputEvent] {
        var f = Finger()
        f.down(0, 450, 100); f.syn()
        if ghosts { f.down(1, 100, 100) }
        f.move(0, 451, 100); f.syn()
        if ghosts { f.up(1) }
        f.move(0, 452, 100); f.syn()
        if ghosts { f.down(2, 150, 80) }
        f.move(0, 453, 100); f.syn()
        f.move(0, 454, 100); f.syn()
        if ghosts { f.up(2) }
        f.move(0, 455, 100); f.syn()
        f.move(0, 456, 100); f.syn()
        f.syn(); f.up(0); f.syn()
        return f.events
    }

    @Test func aContactShorterThanMinimumDurationIsNeverDelivered() {
        // The defect: the ghosts press "buy" twice.
        let plain = transcript(buttons, tapWithGhosts())
        #expect(plain.filter { $0.contains("primaryActionTriggered") }.count == 3)
        // With minimumDuration 0.03 (the ghosts last 10 and 20 ms, the tap 80): exactly what the
        // tap alone publishes — no ghost touch, no id taken, the tap's frames unchanged.
        let clean = transcript(buttons, tapWithGhosts(ghosts: false))
        let filtered = transcript(buttons, tapWithGhosts(), filter: filter { $0.minimumDuration = 0.03 })
        #expect(filtered == clean, "\(firstDifference(filtered, clean))")
        #expect(clean.filter { $0.contains("primaryActionTriggered") }.count == 1)
    }

    @Test func theBeganWaitsUntilTheContactHasLastedAndKeepsItsTime() {
        let r = Rig(buttons, settings: settings { $0.minimumDuration = 0.03 })
        r.down(100, 100)                     // at 0
        r.move(101, 100)                     // at 10 ms
        #expect(r.frames.isEmpty)
        #expect(r.engine.nextDeadline == 30_000)
        r.idle(until: 29_999)
        #expect(r.frames.isEmpty)
        r.idle(until: 30_000)
        // Published at 30 ms, each frame with its own time: began at 0, the move at 10 ms.
        #expect(r.frames.map(\.time) == [0, 10_000])
        #expect(r.frames.first?.touches.first?.phase == .began)
        #expect(r.frames.first?.touches.first?.timestamp == 0)
        r.move(102, 100)                     // at 20 ms: straight on now
        #expect(r.frames.map(\.time) == [0, 10_000, 20_000])
    }

    @Test func aContactInFewerThanMinimumFramesIsNeverDelivered() {
        let clean = transcript(buttons, tapWithGhosts(ghosts: false))
        // minimumFrames 3: the ghosts were in 1 and 2 frames, the tap in 9.
        let filtered = transcript(buttons, tapWithGhosts(), filter: filter { $0.minimumFrames = 3 })
        #expect(filtered == clean, "\(firstDifference(filtered, clean))")
        // 2 would let the two-frame ghost through.
        let two = transcript(buttons, tapWithGhosts(), filter: filter { $0.minimumFrames = 2 })
        #expect(two.filter { $0.contains("primaryActionTriggered") }.count == 2)
    }

    @Test func aTouchDownWaitingForFramesOnAQuietPanelGoesOnAfterHalfASecond() {
        // A panel that reports nothing while a finger rests: the frames never come.
        let r = Rig(buttons, settings: settings { $0.minimumFrames = 3 })
        r.down(100, 100)
        #expect(r.engine.nextDeadline == ConditioningSettings.longestFrameWait)
        r.idle(until: ConditioningSettings.longestFrameWait - 1)
        #expect(r.frames.isEmpty)
        r.idle(until: ConditioningSettings.longestFrameWait)
        #expect(r.take() == ["t1 began buy", "buy touchDown"])
    }

    @Test func aContactThatBeginsInTheDeadZoneIsIgnoredUntilItLifts() {
        // "edge" spans the top 20 points; the dead zone is the top 15.
        var f = Finger()
        f.down(0, 100, 10); f.syn()             // begins in the zone…
        f.move(0, 100, 60); f.syn()             // …and moves out of it: still ignored
        f.up(0); f.syn()
        f.down(0, 100, 17); f.syn()             // begins outside (17 ≥ 15)…
        f.move(0, 100, 5); f.syn()              // …and may move into it
        f.up(0); f.syn()
        let plain = transcript(buttons, f.events)
        #expect(plain.filter { $0.contains("\"event\":\"touchDown\"") }.count == 2)
        let r = Rig(buttons, settings: settings { $0.deadZone = Outset(top: 15, left: 0, bottom: 0, right: 0) })
        r.feed(f.events)
        #expect(r.take() == ["t1 began edge", "edge touchDown", "t1 moved edge", "edge touchDragInside", "t1 ended edge",
                             "edge touchUpInside", "edge primaryActionTriggered"])
    }

    @Test func eachEdgeOfTheDeadZoneIsItsOwn() {
        // [top, left, bottom, right] = [10, 20, 30, 40] on 800 × 480: live x 20…759, y 10…449.
        let zone = Outset(top: 10, left: 20, bottom: 30, right: 40)
        let inside: [(Int32, Int32)] = [(20, 10), (759, 449), (400, 240)]
        let outside: [(Int32, Int32)] = [(19, 240), (760, 240), (400, 9), (400, 450)]
        for (p, delivered) in inside.map({ ($0, true) }) + outside.map({ ($0, false) }) {
            let r = Rig(buttons, settings: settings { $0.deadZone = zone })
            r.down(p.0, p.1); r.up()
            #expect(r.frames.isEmpty == !delivered, "\(p)")
        }
    }

    /// A dead zone checked against the output as the config sets it may leave nothing once the
    /// output turns (left + right 600 of 800, then 480 wide): an axis it would close keeps no dead
    /// zone, rather than a panel that ignores every touch.
    @Test func aDeadZoneThatATurnWouldCloseIsDroppedOnThatAxis() {
        let r = Rig(buttons, settings: settings { $0.deadZone = Outset(top: 10, left: 300, bottom: 10, right: 300) })
        r.tap(100, 240)                          // in the left zone: ignored
        #expect(r.frames.isEmpty)
        guard case .success = r.engine.turnOutput("screen", to: .r90, time: 1_000) else { Issue.record("the turn"); return }
        r.tap(400, 240)                          // the middle of the panel
        let delivered = r.frames.count
        #expect(delivered > 0)
        r.tap(5, 240)                            // the panel's left edge, the UI's top or bottom now:
        #expect(r.frames.count == delivered)     // that axis keeps its zone (10 of 800)
    }

    @Test func aGhostDuringADragLeavesTheDragAsItWas() {
        // A drag on "other" with a one-frame ghost landing on "buy" halfway.
        func drag(ghost: Bool) -> [InputEvent] {
            var f = Finger()
            f.down(0, 420, 100); f.syn()
            for k in 1...12 {
                if ghost && k == 6 { f.down(1, 100, 100) }
                if ghost && k == 7 { f.up(1) }
                f.move(0, 420 + 10 * Int32(k), 100); f.syn()
            }
            f.up(0); f.syn()
            return f.events
        }
        let clean = transcript(buttons, drag(ghost: false))
        #expect(transcript(buttons, drag(ghost: true), filter: filter { $0.minimumDuration = 0.02 }) == clean)
        #expect(transcript(buttons, drag(ghost: true), filter: filter { $0.minimumFrames = 2 }) == clean)
    }

    @Test func aReloadDeliversATouchDownStillCountedAndARemovalDropsIt() {
        let r = Rig(buttons, settings: settings { $0.minimumDuration = 0.1 })
        r.down(100, 100)
        r.reload(DeviceSettings())
        #expect(r.take() == ["t1 began buy", "buy touchDown"])
        r.up()
        #expect(r.take() == ["t1 ended buy", "buy touchUpInside", "buy primaryActionTriggered"])

        let gone = Rig(buttons, settings: settings { $0.minimumDuration = 0.1 })
        gone.down(100, 100)
        gone.removeDevice(time: 20_000)
        #expect(gone.frames.isEmpty)          // never delivered: no began, no cancel
        #expect(gone.engine.liveTouchCount == 0)
    }

    /// A new tracking id on a slot whose contact never lifted (events were lost) cancels the
    /// old touch in the frame the new contact begins; when that one is a ghost, the frame loses
    /// its `began` only, and the old touch still ends.
    @Test func aGhostOnTheSlotOfACancelledTouchTakesOnlyItsOwnChanges() {
        let r = Rig(buttons, settings: settings { $0.minimumDuration = 0.03 })
        r.down(100, 100); r.move(101, 100); r.move(102, 100); r.move(103, 100)
        r.finger.ev(EV.ABS, ABS.MT_SLOT, 0); r.finger.ev(EV.ABS, ABS.MT_TRACKING_ID, 500)
        r.finger.ev(EV.ABS, ABS.MT_POSITION_X, 450); r.frame()
        r.up()
        r.idle(until: 1_000_000)
        #expect(r.take() == ["t1 began buy", "buy touchDown", "t1 moved buy", "buy touchDragInside", "t1 moved buy", "buy touchDragInside",
                             "t1 moved buy", "buy touchDragInside", "t1 cancelled buy resync", "buy touchCancel"])
        #expect(r.engine.liveTouchCount == 0)
    }

    @Test func aGhostNearAHeldLiftContinuesTheTouchAndOneFarAwayLetsItGo() {
        let both = settings { $0.minimumDuration = 0.03; $0.debounce = 0.05 }
        // The finger on "buy" bounces (a 10 ms gap, 2 points away): one touch.
        let r = Rig(buttons, settings: both)
        r.down(100, 100); r.move(100, 100); r.move(100, 100); r.move(100, 100); r.move(100, 100); r.up()
        r.down(102, 100); r.move(102, 100); r.move(102, 100); r.move(102, 100); r.up()
        r.idle(until: 1_000_000)
        #expect(r.take().filter { $0.contains(" began ") || $0.contains(" ended ") } == ["t1 began buy", "t1 ended buy"])
        // A ghost far away right after a lift: the lift goes on at its own time, the ghost never.
        let g = Rig(buttons, settings: both)
        g.down(100, 100); g.move(101, 100); g.move(102, 100); g.move(103, 100); g.up()
        g.down(450, 100); g.up()
        g.idle(until: 1_000_000)
        #expect(g.take() == ["t1 began buy", "buy touchDown", "t1 moved buy", "buy touchDragInside", "t1 moved buy", "buy touchDragInside",
                             "t1 moved buy", "buy touchDragInside", "t1 ended buy", "buy touchUpInside", "buy primaryActionTriggered"])
        #expect(g.frames.last?.time == 40_000)
    }
}
