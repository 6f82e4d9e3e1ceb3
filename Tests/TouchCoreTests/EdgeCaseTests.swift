import Testing
@testable import TouchCore
import TouchTestSupport

/// Edge cases found in review, each pinned: every one failed before its fix.
@Suite struct EdgeCaseTests {
    @Test func anIgnoredTouchInAScrollViewDoesNotLeaveATimerInThePast() {
        let r = Rig(scene("""
            {"id": "list", "frame": [0, 0, 400, 480], "scroll": {"contentSize": [400, 2000]},
             "subviews": [{"id": "row", "frame": [0, 0, 400, 100], "touches": "handle"}]}
            """))
        var f = Finger()
        f.down(0, 100, 50); f.syn()
        f.down(1, 200, 50); f.syn()          // same view, multipleTouch false: ignored
        r.feed(f)
        r.advance(to: 300_000)
        #expect(r.engine.nextDeadline.map { $0 > 300_000 } ?? true)
    }

    @Test func liftDownLiftInOneFrameLeavesNothingDown() {
        var t = ContactTracker(device: screenDevice(), protocol: .b)
        var ch: [ContactChange] = []
        func e(_ ty: UInt16, _ c: UInt16, _ v: Int32) { _ = t.feed(InputEvent(time: 0, type: ty, code: c, value: v), into: &ch) }
        e(EV.ABS, ABS.MT_SLOT, 0); e(EV.ABS, ABS.MT_TRACKING_ID, 1); e(EV.SYN, SYN.REPORT, 0)
        e(EV.ABS, ABS.MT_TRACKING_ID, -1); e(EV.ABS, ABS.MT_TRACKING_ID, 2); e(EV.ABS, ABS.MT_TRACKING_ID, -1); e(EV.SYN, SYN.REPORT, 0)
        #expect(t.liveSlots.isEmpty)
        #expect(kinds(ch) == ["began0", "ended0"])
        let single = DeviceInfo(name: "st", codes: [EV.KEY: [BTN.TOUCH]], abs: [ABS.X: AbsInfo(minimum: 0, maximum: 99), ABS.Y: AbsInfo(minimum: 0, maximum: 99)])
        var s = ContactTracker(device: single, protocol: .single)
        var sc: [ContactChange] = []
        for v: Int32 in [1] { _ = s.feed(InputEvent(time: 0, type: EV.KEY, code: BTN.TOUCH, value: v), into: &sc) }
        _ = s.feed(InputEvent(time: 0, type: EV.SYN, code: SYN.REPORT, value: 0), into: &sc)
        for v: Int32 in [0, 1, 0] { _ = s.feed(InputEvent(time: 1, type: EV.KEY, code: BTN.TOUCH, value: v), into: &sc) }
        _ = s.feed(InputEvent(time: 1, type: EV.SYN, code: SYN.REPORT, value: 0), into: &sc)
        #expect(kinds(sc) == ["began0", "ended0"])
        #expect(s.liveSlots.isEmpty)
    }

    @Test func aDeviceRemovedWhileAnEndIsHeldEndsItBeforeSayingSo() {
        let r = Rig(gestureScene("{\"id\": \"double\", \"kind\": \"tap\", \"taps\": 2}"))
        var f = Finger(); f.down(0, 100, 100); f.syn(after: 50); f.up(0); f.syn()
        r.feed(f)
        r.removeDevice(time: 70_000)
        r.advance(to: 1_000_000)
        var removed = false, frameAfter = false
        var lastPhase: [Int: String] = [:]
        for m in r.messages {
            if case .device(let d) = m, d.action == .removed { removed = true }
            if case .frame(let fr) = m {
                if removed { frameAfter = true }
                for t in fr.touches { lastPhase[t.id] = "\(t.phase.name)\(t.reason.map { "(\($0.rawValue))" } ?? "")" }
            }
        }
        #expect(!frameAfter)
        #expect(lastPhase == [1: "cancelled(device-removed)"])
    }

    @Test func aReloadEndsRecognizersAndReleasesWhatTheyHeld() {
        let r = Rig(gestureScene("{\"id\": \"double\", \"kind\": \"tap\", \"taps\": 2}, {\"id\": \"pan\", \"kind\": \"pan\", \"minimumTouches\": 2}"))
        var f = Finger()
        f.down(0, 100, 100); f.syn(after: 50); f.up(0); f.syn()   // the double tap holds touch 1's end
        r.feed(f)
        r.replaceScene(r.cfg.scene, time: 80_000)
        #expect(r.states("double") == ["failed"])
        #expect(r.delivered == 0)
        #expect(r.calls == ["pad.touchesBegan(1)", "pad.touchesEnded(1)"])
    }

    @Test func anIgnoredTouchOnARemovedViewIsCancelledOnReload() {
        let before = scene("{\"id\": \"v\", \"frame\": [0, 0, 800, 480], \"touches\": \"handle\"}")
        let r = Rig(before)
        var f = Finger()
        f.down(0, 100, 100); f.down(1, 200, 100); f.syn()     // touch 2 ignored (multipleTouch false)
        r.feed(f)
        r.replaceScene(scene("{\"id\": \"w\", \"frame\": [0, 0, 800, 480]}").scene, time: 10_000)
        let last = r.messages.frames.last!
        #expect(last.touches.map { "\($0.id):\($0.phase.name):\($0.reason?.rawValue ?? "")" } == ["1:cancelled:view-removed", "2:cancelled:view-removed"])
    }

    @Test func theDeepestRecognizerDecidesFirst() {
        let r = Rig(scene("""
            {"id": "parent", "frame": [0, 0, 800, 480], "gestures": [{"id": "parentTap", "kind": "tap"}],
             "subviews": [{"id": "child", "frame": [0, 0, 400, 480], "gestures": [{"id": "childTap", "kind": "tap"}]}]}
            """))
        var f = Finger(); f.down(0, 100, 100); f.syn(after: 50); f.up(0); f.syn()
        r.feed(f)
        #expect(r.states("childTap") == ["recognized"])
        #expect(r.states("parentTap") == ["failed"])
    }

    @Test func requireToFailFailsWhenTheRequiredOneSucceeded() {
        let r = Rig(gestureScene("""
            {"id": "swipe", "kind": "swipe"}, {"id": "pan", "kind": "pan", "requireToFail": ["swipe"], "simultaneousWith": ["swipe"]}
            """))
        var f = Finger()
        f.down(0, 100, 100); f.syn(after: 20)
        f.move(0, 160, 100); f.syn(after: 20)      // 60 points right in 20 ms: the swipe recognizes
        f.move(0, 200, 100); f.syn(after: 20)
        f.up(0); f.syn()
        r.feed(f)
        #expect(r.states("swipe") == ["recognized"])
        #expect(r.states("pan") == ["failed"])
    }

    @Test func twoFingerDoubleTapWithFingersLandingTogether() {
        let r = Rig(gestureScene("{\"id\": \"two\", \"kind\": \"tap\", \"taps\": 2, \"touches\": 2}"))
        var f = Finger()
        f.down(0, 100, 100); f.down(1, 150, 100); f.syn(after: 50); f.up(0); f.up(1); f.syn(after: 300)   // lift at 50 ms
        f.down(0, 100, 100); f.down(1, 150, 100); f.syn(after: 200); f.up(0); f.up(1); f.syn()            // back at 350 ms, held 200 ms
        r.feed(f)
        #expect(r.states("two") == ["recognized"])
    }

    @Test func gestureNumbersHaveLimits() {
        let p = problems("""
            {"windows": [{"id": "w", "frame": [0, 0, 1, 1], "view": {"id": "v", "frame": [0, 0, 1, 1],
              "gestures": [{"id": "t", "kind": "tap", "maximumInterval": 1e13, "taps": 1e300}]}}]}
            """)
        #expect(p.contains("$.windows[0].view.gestures[0].maximumInterval: must be at most 3600, got 10000000000000 (line 2)"))
        #expect(p.contains { $0.hasPrefix("$.windows[0].view.gestures[0].taps: must be at most 100") })
    }
}
