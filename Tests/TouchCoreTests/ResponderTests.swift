import Testing
@testable import TouchCore
import TouchTestSupport

/// One tap (down, then up 50 ms later) at (x, y).
func tap(_ x: Int32, _ y: Int32, slot: Int32 = 0, into f: inout Finger) {
    f.down(slot, x, y); f.syn(after: 50)
    f.up(slot); f.syn(after: 500)
}

func callLog(_ cfg: Config, _ events: [InputEvent]) -> [[String]] {
    run(cfg, events).frames.map { cfg.scene.describe($0.calls) }
}

@Suite struct ResponderChainTests {
    @Test func forwardingViewLetsTheParentHandle() {     // S6
        let cfg = scene("""
            {"id": "parent", "frame": [0, 0, 400, 400], "touches": "handle",
             "subviews": [{"id": "child", "frame": [10, 10, 100, 100]}]}
            """)
        var f = Finger(); tap(20, 20, into: &f)
        #expect(callLog(cfg, f.events) == [["parent.touchesBegan(1)"], ["parent.touchesEnded(1)"]])
        #expect(run(cfg, f.events).frames[0].touches[0].view == cfg.scene.viewIndex["child"])
    }

    @Test func handleStopsAndHandleAndForwardContinues() {     // S7
        func cfg(_ policy: String) -> Config {
            scene("""
                {"id": "parent", "frame": [0, 0, 400, 400], "touches": "handle",
                 "subviews": [{"id": "child", "frame": [10, 10, 100, 100], "touches": "\(policy)"}]}
                """)
        }
        var f = Finger(); tap(20, 20, into: &f)
        #expect(callLog(cfg("handle"), f.events) == [["child.touchesBegan(1)"], ["child.touchesEnded(1)"]])
        #expect(callLog(cfg("handleAndForward"), f.events) ==
                [["child.touchesBegan(1)", "parent.touchesBegan(1)"], ["child.touchesEnded(1)", "parent.touchesEnded(1)"]])
    }

    @Test func perPhasePolicyForwardsOnlyWhatItSays() {
        // Forwarding only began: the parent never sees the end.
        let cfg = scene("""
            {"id": "parent", "frame": [0, 0, 400, 400], "touches": "handle",
             "subviews": [{"id": "child", "frame": [10, 10, 100, 100],
                           "touches": {"began": "handleAndForward", "moved": "handle", "ended": "handle"}}]}
            """)
        var f = Finger()
        f.down(0, 20, 20); f.syn()
        f.move(0, 25, 25); f.syn()
        f.up(0); f.syn()
        #expect(callLog(cfg, f.events) ==
                [["child.touchesBegan(1)", "parent.touchesBegan(1)"], ["child.touchesMoved(1)"], ["child.touchesEnded(1)"]])
    }

    @Test func controllerSceneApplicationAndDelegateFollowTheWindow() {
        let cfg = config("""
            {"application": {"id": "app", "delegate": "appDelegate", "scene": "windowScene"},
             "windows": [{"id": "main", "frame": [0, 0, 800, 480],
               "view": {"id": "root", "controller": "rootVC", "frame": [0, 0, 800, 480], "subviews": [
                 {"id": "card", "controller": "cardVC", "frame": [100, 100, 300, 200], "subviews": [
                   {"id": "label", "frame": [10, 10, 100, 30], "touches": "handleAndForward"}]}]}}],
             "responders": {"cardVC": {"touches": "handleAndForward"}, "rootVC": {"touches": "handleAndForward"},
                            "main": {"touches": "handleAndForward"}, "windowScene": {"touches": "handleAndForward"},
                            "app": {"touches": "handleAndForward"}, "appDelegate": {"touches": "handle"}}}
            """)
        let s = cfg.scene
        #expect(s.chain(from: s.viewIndex["label"]!).map { s[$0].id } ==
                ["label", "card", "cardVC", "root", "rootVC", "main", "windowScene", "app", "appDelegate"])
        var f = Finger()
        f.down(0, 120, 120); f.syn()
        #expect(callLog(cfg, f.events)[0] == ["label.touchesBegan(1)", "cardVC.touchesBegan(1)", "rootVC.touchesBegan(1)",
                                              "main.touchesBegan(1)", "windowScene.touchesBegan(1)", "app.touchesBegan(1)",
                                              "appDelegate.touchesBegan(1)"])
    }

    @Test func withoutSceneTheWindowGoesToTheApplication() {
        let cfg = config("""
            {"application": {"id": "app", "delegate": "d"},
             "windows": [{"id": "w", "frame": [0, 0, 100, 100], "view": {"id": "v", "frame": [0, 0, 100, 100]}}]}
            """)
        let s = cfg.scene
        #expect(s.chain(from: s.viewIndex["v"]!).map { s[$0].id } == ["v", "w", "app", "d"])
    }

    @Test func chainRunningOutDropsTheTouch() {
        let cfg = scene("{\"id\": \"v\", \"frame\": [0, 0, 100, 100]}")
        var f = Finger(); tap(10, 10, into: &f)
        let frames = run(cfg, f.events).frames
        #expect(frames.count == 2)
        #expect(frames.allSatisfy { $0.calls.isEmpty })
    }

    @Test func eachViewIsCalledOnceWithItsTouchesAndSiblingsBothReachTheParent() {
        let cfg = scene("""
            {"id": "parent", "frame": [0, 0, 800, 480], "touches": "handle", "subviews": [
              {"id": "a", "frame": [0, 0, 100, 100], "touches": "handleAndForward", "multipleTouch": true},
              {"id": "b", "frame": [200, 0, 100, 100], "touches": "handleAndForward"}]}
            """)
        var f = Finger()
        f.down(0, 10, 10); f.down(1, 210, 10); f.down(2, 20, 20); f.syn()
        #expect(callLog(cfg, f.events)[0] ==
                ["a.touchesBegan(1,3)", "parent.touchesBegan(1,3)", "b.touchesBegan(2)", "parent.touchesBegan(2)"])
    }

    @Test func phasesAreCalledBeganMovedEndedCancelledInOneFrame() {
        let cfg = scene("{\"id\": \"v\", \"frame\": [0, 0, 800, 480], \"touches\": \"handle\", \"multipleTouch\": true}")
        var f = Finger()
        f.down(0, 10, 10); f.down(1, 20, 20); f.syn()
        f.up(0); f.move(1, 30, 30); f.down(2, 40, 40); f.syn()
        #expect(callLog(cfg, f.events)[1] == ["v.touchesBegan(3)", "v.touchesMoved(2)", "v.touchesEnded(1)"])
    }
}

@Suite struct TouchTests {
    @Test func touchIsBoundAtDownForItsWholeLife() {
        let cfg = scene("""
            {"id": "left", "frame": [0, 0, 100, 100], "touches": "handle"},
            {"id": "right", "frame": [300, 0, 100, 100], "touches": "handle"}
            """)
        var f = Finger()
        f.down(0, 10, 10); f.syn()
        f.move(0, 350, 50); f.syn()      // now over "right"
        f.up(0); f.syn()
        let frames = run(cfg, f.events).frames
        let left = cfg.scene.viewIndex["left"]!
        #expect(frames.map { $0.touches[0].view } == [left, left, left])
        #expect(frames[1].touches[0].locationInView == Point(350, 50))
        #expect(frames[1].touches[0].previous == Point(10, 10))
        #expect(cfg.scene.describe(frames[2].calls) == ["left.touchesEnded(1)"])
    }

    @Test func phasesStationaryAndLocations() {
        let cfg = scene("{\"id\": \"v\", \"frame\": [100, 50, 400, 300], \"multipleTouch\": true}")
        var f = Finger()
        f.down(0, 110, 60); f.down(1, 200, 200); f.syn()
        f.move(1, 210, 220); f.syn()
        let frames = run(cfg, f.events).frames
        #expect(frames[0].touches.map(\.phase) == [.began, .began])
        #expect(frames[1].touches.map(\.phase) == [.stationary, .moved])
        #expect(frames[1].touches[0].previous == frames[1].touches[0].location)
        #expect(frames[1].touches[1].locationInView == Point(110, 170))
        #expect(frames[1].touches[1].previous == Point(200, 200))
        #expect(frames[0].time == 0 && frames[1].time == 10_000)
    }

    @Test func touchesStillDownAtTheEndAreCancelledWithShutdown() {
        let cfg = scene("{\"id\": \"v\", \"frame\": [0, 0, 800, 480], \"touches\": \"handle\"}")
        var f = Finger()
        f.down(0, 10, 10); f.syn()
        let frames = run(cfg, f.events).frames
        #expect(frames.count == 2)
        #expect(frames[1].touches[0].phase == .cancelled)
        #expect(frames[1].touches[0].reason == .shutdown)
        #expect(cfg.scene.describe(frames[1].calls) == ["v.touchesCancelled(1)"])
    }

    @Test func tapCountCountsQuickTapsInPlaceOnTheSameView() {
        let cfg = scene("{\"id\": \"v\", \"frame\": [0, 0, 400, 480]}, {\"id\": \"w\", \"frame\": [400, 0, 400, 480]}")
        var f = Finger()
        f.down(0, 100, 100); f.syn(after: 50); f.up(0); f.syn(after: 100)
        f.down(0, 110, 105); f.syn(after: 50); f.up(0); f.syn(after: 100)     // 2: close in time and place
        f.down(0, 112, 100); f.syn(after: 50); f.up(0); f.syn(after: 400)     // 3
        f.down(0, 112, 100); f.syn(after: 50); f.up(0); f.syn(after: 100)     // 1: 400 ms later
        f.down(0, 200, 100); f.syn(after: 50); f.up(0); f.syn(after: 100)     // 1: 88 points away
        f.down(0, 410, 100); f.syn(after: 50); f.up(0); f.syn(after: 100)     // 1: another view
        let counts = run(cfg, f.events).frames.filter { $0.touches[0].phase == .began }.map { $0.touches[0].tapCount }
        #expect(counts == [1, 2, 3, 1, 1, 1])
    }

    /// tapCount counts consecutive taps at one place (UITouch.tapCount): tap A, tap elsewhere,
    /// tap A again quickly is a first tap again, not a second.
    @Test func aTapElsewhereEndsTheTapSequence() {
        let cfg = scene("{\"id\": \"v\", \"frame\": [0, 0, 400, 480]}, {\"id\": \"w\", \"frame\": [400, 0, 400, 480]}")
        var f = Finger()
        f.down(0, 100, 100); f.syn(after: 50); f.up(0); f.syn(after: 100)     // A: 1
        f.down(0, 500, 100); f.syn(after: 50); f.up(0); f.syn(after: 100)     // B: 1
        f.down(0, 100, 100); f.syn(after: 50); f.up(0); f.syn(after: 100)     // A: 1 (B ended the sequence)
        f.down(0, 100, 100); f.syn(after: 50); f.up(0); f.syn(after: 100)     // A: 2
        f.down(0, 100, 100); f.syn(after: 10); f.move(0, 200, 100); f.syn(after: 10); f.up(0); f.syn(after: 100)   // a drag: 3 at its start
        f.down(0, 100, 100); f.syn(after: 50); f.up(0); f.syn(after: 100)     // A: 1 (the drag was no tap)
        let counts = run(cfg, f.events).frames.filter { $0.touches[0].phase == .began }.map { $0.touches[0].tapCount }
        #expect(counts == [1, 1, 1, 2, 3, 1])
    }

    /// Issue 43, item 6 (config.md's sentence was wrong): a tap that a recognizer cancelled for
    /// its view (reason `gesture`) is still a tap — the next one counts on (1, 2, 3), as
    /// UITouch.tapCount does —, while a touch the device cancelled (a palm) starts again at 1.
    @Test func aTapCancelledByAGestureCountsOnAndACancelledContactStartsAgain() {
        let cfg = scene(#"{"id": "v", "frame": [0, 0, 800, 480], "gestures": [{"id": "tap", "kind": "tap"}]}"#)
        var f = Finger()
        for _ in 0..<3 { f.down(0, 100, 100); f.syn(after: 50); f.up(0); f.syn(after: 100) }
        f.down(0, 100, 100); f.syn(after: 20); f.ev(EV.ABS, ABS.MT_TOOL_TYPE, 2); f.syn(after: 20); f.up(0); f.syn(after: 100)   // a palm
        f.down(0, 100, 100); f.ev(EV.ABS, ABS.MT_TOOL_TYPE, 0); f.syn(after: 50); f.up(0); f.syn(after: 100)
        let frames = run(cfg, f.events).frames
        let counts = frames.filter { $0.touches[0].phase == .began }.map { $0.touches[0].tapCount }
        let reasons = frames.filter { $0.touches[0].phase == .cancelled }.map { $0.touches[0].reason }
        #expect(reasons == [.gesture, .gesture, .gesture, .palm, .gesture], "\(reasons)")
        #expect(counts == [1, 2, 3, 4, 1], "\(counts)")
    }

    @Test func pressureMajorAndToolAreReported() {
        let cfg = scene("{\"id\": \"v\", \"frame\": [0, 0, 800, 480]}")
        var f = Finger()
        f.down(0, 10, 10); f.ev(EV.ABS, ABS.MT_PRESSURE, 51); f.ev(EV.ABS, ABS.MT_TOUCH_MAJOR, 8); f.syn()
        let t = run(cfg, f.events, device: screenDevice(pressure: true, major: true)).frames[0].touches[0]
        #expect(t.pressure == 0.2)
        #expect(t.major == 8)
        #expect(t.tool == .finger)
        let plain = run(cfg, f.events).frames[0].touches[0]
        #expect(plain.pressure == nil && plain.major == nil)
    }

    @Test func multipleTouchFalseDeliversOnlyTheFirstTouch() {
        let cfg = scene("""
            {"id": "single", "frame": [0, 0, 400, 480], "touches": "handle"},
            {"id": "multi", "frame": [400, 0, 400, 480], "touches": "handle", "multipleTouch": true}
            """)
        var f = Finger()
        f.down(0, 10, 10); f.syn()
        f.down(1, 20, 20); f.down(2, 410, 10); f.down(3, 420, 20); f.syn()
        f.up(0); f.syn()
        f.down(0, 30, 30); f.syn()          // the first touch is gone: delivered again
        let frames = run(cfg, f.events).frames
        #expect(frames[1].touches.first { $0.id == 2 }?.ignored == .multipleTouch)
        #expect(cfg.scene.describe(frames[1].calls) == ["multi.touchesBegan(3,4)"])
        #expect(cfg.scene.describe(frames[3].calls) == ["single.touchesBegan(5)"])
        // The ignored touch never reaches a responder, even when it ends.
        #expect(!cfg.scene.describe(frames.last!.calls).contains { $0.contains("(2)") })
    }

    @Test func exclusiveTouchBlocksOtherViewsInTheWindowBothWays() {
        let cfg = scene("""
            {"id": "excl", "frame": [0, 0, 200, 200], "touches": "handle", "exclusiveTouch": true},
            {"id": "other", "frame": [400, 0, 200, 200], "touches": "handle"},
            {"id": "third", "frame": [400, 250, 200, 200], "touches": "handle"}
            """)
        var f = Finger()
        f.down(0, 10, 10); f.syn()            // exclusive view tracking
        f.down(1, 410, 10); f.syn()           // refused
        f.up(0); f.up(1); f.syn()
        f.down(0, 410, 10); f.syn()           // other view tracking
        f.down(1, 10, 10); f.syn()            // exclusive view refuses to start
        f.down(2, 410, 260); f.syn()          // non-exclusive views share freely
        let frames = run(cfg, f.events).frames
        #expect(frames[1].touches.first { $0.id == 2 }?.ignored == .exclusiveTouch)
        #expect(frames[1].calls.isEmpty)
        #expect(frames[4].touches.first { $0.id == 4 }?.ignored == .exclusiveTouch)
        #expect(cfg.scene.describe(frames[5].calls) == ["third.touchesBegan(5)"])
    }

    @Test func touchOutsideEveryWindowHasNoViewAndNoCalls() {
        let cfg = config("""
            {"application": {"id": "app", "delegate": "d"}, "responders": {"d": {"touches": "handle"}},
             "windows": [{"id": "w", "frame": [0, 0, 100, 100], "view": {"id": "v", "frame": [0, 0, 100, 100]}}]}
            """)
        var f = Finger(); f.down(0, 500, 300); f.syn()
        let frame = run(cfg, f.events).frames[0]
        #expect(frame.touches[0].view == nil && frame.touches[0].window == nil)
        #expect(frame.touches[0].location == Point(500, 300))
        #expect(frame.calls.isEmpty)
    }

    @Test func tracingProducesAHitTestMessageBeforeTheFrame() {
        let cfg = scene("{\"id\": \"v\", \"frame\": [0, 0, 100, 100]}")
        var f = Finger(); f.down(0, 10, 10); f.syn()
        let messages = run(cfg, f.events, tracing: true)
        guard case .hitTest(let h) = messages[1] else { Issue.record("expected a hitTest message"); return }
        #expect(h.touch == 1 && cfg.scene.id(h.view) == "v")
        #expect(h.trace.first == HitStep(view: cfg.scene.viewIndex["main"]!, kind: .hitTest))
        if case .frame = messages[2] {} else { Issue.record("the frame follows the hitTest") }
        #expect(run(cfg, f.events).hitTests.isEmpty)
    }
}

@Suite struct ReloadAndSnapshotTests {
    func engineWithTouches(_ cfg: Config) -> Rig {
        let r = Rig(cfg)
        var f = Finger()
        f.down(0, 10, 10); f.down(1, 500, 10); f.syn()
        r.feed(f)
        return r
    }

    let before = scene("""
        {"id": "keep", "frame": [0, 0, 400, 480], "touches": "handle"},
        {"id": "gone", "frame": [400, 0, 400, 480], "touches": "handle"}
        """)
    let after = scene("""
        {"id": "new", "frame": [400, 0, 400, 480]},
        {"id": "keep", "frame": [0, 0, 200, 480], "touches": "handle"}
        """)

    @Test func snapshotListsTouchesDownAsStationary() {
        let r = engineWithTouches(before)
        let snap = r.engine.snapshot()
        #expect(snap.touches.map(\.record.id) == [1, 2])
        #expect(snap.touches.allSatisfy { $0.record.phase == .stationary })
        #expect(snap.touches.map { before.scene.id(of: $0.record.view) } == ["keep", "gone"])
        #expect(snap.touches.map(\.device) == ["test", "test"])
        #expect(snap.devices.map(\.id) == ["test"])
        #expect(snap.seq == r.engine.seq && snap.liveTouches == 2)
    }

    @Test func reloadKeepsTouchesOnSurvivingViewsAndCancelsTheOthers() {
        let r = engineWithTouches(before)
        let count = r.messages.count
        r.replaceScene(after.scene, time: 5)
        let reloadFrames = Array(r.messages[count...]).frames
        #expect(reloadFrames.count == 1)
        #expect(reloadFrames.first?.touches.map(\.id) == [2])
        #expect(reloadFrames.first?.touches.first?.reason == .viewRemoved)
        // Encoded with the old scene: the responder that saw it begin sees it cancelled.
        #expect(before.scene.describe(reloadFrames.first?.calls ?? []) == ["gone.touchesCancelled(2)"])
        // The outbox says the scene changed after the cancellations.
        #expect(r.scenes.count == 1 && r.scenes.first?.viewIndex["new"] != nil)
        // The survivor is re-bound to the new scene's index for "keep".
        #expect(r.engine.snapshot().touches.map { after.scene.id(of: $0.record.view) } == ["keep"])
        // The cancelled finger's later moves and lift go nowhere; the survivor's still arrive.
        var f = Finger()
        f.move(1, 510, 20); f.syn()
        f.move(0, 15, 15); f.syn()
        f.up(1); f.up(0); f.syn()
        let n = r.messages.count
        r.feed(f)
        let later = Array(r.messages[n...]).frames
        #expect(later.count == 2)
        #expect(later.allSatisfy { $0.touches.map(\.id) == [1] })
        #expect(after.scene.describe(later.last?.calls ?? []) == ["keep.touchesEnded(1)"])
    }
}
