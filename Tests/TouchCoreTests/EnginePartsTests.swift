import Testing
@testable import TouchCore
import TouchTestSupport

/// Each part of the engine on its own, with plain values.

/// UITouch.tapCount: "the number of times the finger was tapped for this given touch"
/// (developer.apple.com/documentation/uikit/uitouch/tapcount) — consecutive taps at one place.
@Suite struct TapCounterTests {
    let a = ViewIndex(3), b = ViewIndex(4)

    @Test func quickTapsAtOnePlaceCountUp() {
        var c = TapCounter()
        #expect(c.count(view: a, location: Point(10, 10), time: 0, interval: 350_000, distance: 45) == 1)
        c.record(view: a, location: Point(10, 10), time: 100_000, count: 1)
        #expect(c.count(view: a, location: Point(20, 15), time: 300_000, interval: 350_000, distance: 45) == 2)
        c.record(view: a, location: Point(20, 15), time: 350_000, count: 2)
        #expect(c.count(view: a, location: Point(20, 15), time: 600_000, interval: 350_000, distance: 45) == 3)
    }

    @Test func tooLateTooFarOrAnotherViewStartsAgain() {
        var c = TapCounter()
        c.record(view: a, location: Point(10, 10), time: 100_000, count: 1)
        #expect(c.count(view: b, location: Point(10, 10), time: 200_000, interval: 350_000, distance: 45) == 1)
        #expect(c.count(view: a, location: Point(100, 10), time: 200_000, interval: 350_000, distance: 45) == 1)
        #expect(c.count(view: nil, location: Point(10, 10), time: 200_000, interval: 350_000, distance: 45) == 1)
        #expect(c.count(view: a, location: Point(10, 10), time: 460_000, interval: 350_000, distance: 45) == 1)
        #expect(c.last() == nil)   // the late look forgot the stale tap
    }

    @Test func aTapElsewhereEndsTheSequence() {
        var c = TapCounter()
        c.record(view: a, location: Point(10, 10), time: 100_000, count: 1)
        c.record(view: b, location: Point(300, 10), time: 200_000, count: 1)     // a tap elsewhere
        #expect(c.count(view: a, location: Point(10, 10), time: 300_000, interval: 350_000, distance: 45) == 1)
        c.record(view: a, location: Point(10, 10), time: 300_000, count: 1)
        c.interrupt()                                                               // a drag in between
        #expect(c.count(view: a, location: Point(10, 10), time: 400_000, interval: 350_000, distance: 45) == 1)
    }
}

@Suite struct TouchTableTests {
    func touch(_ id: Int, view: Int?, phase: Phase, at p: Point = .zero, start: Point = .zero) -> LiveTouch {
        LiveTouch(id: id, device: DeviceIndex(0), slot: id, window: view.map { _ in ViewIndex(0) }, view: view.map(ViewIndex.init),
                  phase: phase, location: p, previous: p, start: start, tapCount: 1, pressure: nil, major: nil, tool: .finger,
                  windowOrigin: .zero, beganAt: 0)
    }

    @Test func theEndOfAStepRecordsTapsDropsWhatIsOverAndSettlesTheRest() {
        var t = TouchTable()
        var lifted = touch(1, view: 2, phase: .ended, at: Point(12, 10), start: Point(10, 10))
        lifted.reach(.gone)
        var dragged = touch(2, view: 2, phase: .ended, at: Point(200, 10), start: Point(10, 10))
        dragged.reach(.endHeld)        // a recognizer still holds its end
        let moving = touch(3, view: 2, phase: .moved, at: Point(5, 5))
        t.append(dragged); t.append(lifted); t.append(moving)
        t.finishStep(time: 50, tapDistance: 45)
        #expect(t.all.map(\.id) == [2, 3])
        #expect(t.all.allSatisfy { $0.phase == .stationary })
        #expect(t.all[0].fingerDone)
        #expect(t.all[1].previous == Point(5, 5))
        // Only the still lift was a tap (the drag before it did not count).
        #expect(t.taps.last()?.location == Point(12, 10))
    }

    @Test func aSlotFindsOnlyItsTouchStillDown() {
        var t = TouchTable()
        var done = touch(1, view: nil, phase: .stationary)
        done.fingerDone = true
        t.append(done)
        t.append(touch(2, view: nil, phase: .moved))
        #expect(t.index(device: DeviceIndex(0), slot: 1) == nil)
        #expect(t.index(device: DeviceIndex(0), slot: 2) == 1)
        #expect(t.index(device: DeviceIndex(1), slot: 2) == nil)
    }

    /// The table's slots are reused (issue 28, item 8: no touch moves when another is dropped),
    /// but its order stays the order touches came in — each device's, the whole table's, and
    /// the devices' order for delivery (by their first touch) — and a step visits only the
    /// touches that changed.
    @Test func reusedSlotsKeepTheOrderTouchesCameIn() {
        func on(_ d: Int, _ id: Int, _ phase: Phase) -> LiveTouch {
            var x = touch(id, view: 2, phase: phase)
            x.device = DeviceIndex(d)
            x.reach(.active)
            return x
        }
        var t = TouchTable()
        t.append(on(1, 1, .stationary))   // device 1's first touch, resting
        t.append(on(0, 2, .stationary))
        var gone = on(0, 3, .ended)
        gone.reach(.gone)
        t.append(gone)
        t.finishStep(time: 0, tapDistance: 45)      // touch 3 is over: its slot is free
        #expect(t.all.map(\.id) == [1, 2])
        t.append(on(0, 4, .began))                  // takes touch 3's slot
        t.append(on(1, 5, .began))
        #expect(t.all.map(\.id) == [1, 2, 4, 5])
        #expect(t.slots(of: DeviceIndex(0)).map { t[$0].id } == [2, 4])
        #expect(t.slots(of: DeviceIndex(1)).map { t[$0].id } == [1, 5])
        #expect(t.slot(ofID: 4) == 2 && t.slot(ofID: 3) == nil)
        // Both devices have news; device 1 first, since its first touch came first.
        var out: [DeviceIndex] = [], mark: [UInt8] = []
        t.devicesToDeliver(into: &out, mark: &mark)
        #expect(out == [DeviceIndex(1), DeviceIndex(0)])
        t.finishStep(time: 1, tapDistance: 45)
        t.devicesToDeliver(into: &out, mark: &mark)
        #expect(out.isEmpty)
        // A write through the table notes the touch: its device has news again.
        if let i = t.slot(ofID: 2) { t[i].phase = .moved }
        t.devicesToDeliver(into: &out, mark: &mark)
        #expect(out == [DeviceIndex(0)])
    }
}

@Suite struct DeviceRegistryTests {
    @Test func devicesKeepTheirIndexAfterRemoval() {
        var r = DeviceRegistry()
        let info = screenDevice()
        let a = r.add(DeviceDescriptor(id: "a", name: "a", vendor: 0, product: 0, touchProtocol: .b, slots: 10), info: info,
                      trackerProtocol: .b, slotCount: nil, settings: DeviceSettings(), output: .screen(Size(800, 480)), outputIndex: 0)
        let b = r.add(DeviceDescriptor(id: "b", name: "b", vendor: 0, product: 0, touchProtocol: .b, slots: 10), info: info,
                      trackerProtocol: .b, slotCount: nil, settings: DeviceSettings(), output: .screen(Size(800, 480)), outputIndex: 0)
        #expect(a == DeviceIndex(0) && b == DeviceIndex(1))
        r.markRemoved(a)
        #expect(r.active.map(\.id) == ["b"])
        #expect(r.activeIndices == [b])
        #expect(r[a].descriptor.id == "a" && r[a].removed)
        var changes: [ContactChange] = []
        var f = Finger(); f.down(0, 100, 200); f.syn()
        var flushed = false
        for e in f.events { flushed = r.feed(e, device: b, into: &changes) }
        #expect(flushed && changes.map(\.slot) == [0])
        #expect(r[b].mapping.map(x: 100, y: 200) == Point(100, 200))
    }
}

@Suite struct ResponderRouterTests {
    let cfg = config("""
        {"application": {"id": "app", "delegate": "delegate"},
         "responders": {"delegate": {"touches": "handle"}},
         "windows": [{"id": "w", "frame": [0, 0, 800, 480],
           "view": {"id": "root", "frame": [0, 0, 800, 480], "touches": "handleAndForward", "subviews": [
             {"id": "a", "frame": [0, 0, 100, 100], "touches": "handle"},
             {"id": "b", "frame": [100, 0, 100, 100], "touches": {"began": "handleAndForward", "ended": "forward"}},
             {"id": "plain", "frame": [200, 0, 100, 100]}]}}]}
        """)

    func record(_ id: Int, _ view: String, _ phase: Phase, ignored: IgnoreReason? = nil) -> TouchRecord {
        let v = cfg.scene.viewIndex[view]!
        return TouchRecord(id: id, phase: phase, window: cfg.scene[v].window, view: v, location: .zero, previous: .zero,
                           locationInView: .zero, tapCount: 1, pressure: nil, major: nil, tool: .finger, reason: nil, ignored: ignored)
    }

    @Test func phasesInOrderViewsByFirstTouchAndEachChainWalkedOnce() {
        let calls = ResponderRouter.calls(for: [record(1, "b", .moved), record(2, "a", .began), record(3, "b", .began),
                                                record(4, "a", .began), record(5, "plain", .ended), record(6, "b", .ended)], in: cfg.scene)
        // a handles and stops the walk; b handles and forwards up to the delegate (which handles);
        // b has no moved or ended method, so those go straight to root; the ended phase has two
        // groups (plain, then b), each walked from its own view.
        #expect(cfg.scene.describe(calls) == [
            "a.touchesBegan(2,4)",
            "b.touchesBegan(3)", "root.touchesBegan(3)", "delegate.touchesBegan(3)",
            "root.touchesMoved(1)", "delegate.touchesMoved(1)",
            "root.touchesEnded(5)", "delegate.touchesEnded(5)",
            "root.touchesEnded(6)", "delegate.touchesEnded(6)",
        ])
    }

    @Test func ignoredAndViewlessTouchesCallNobody() {
        var nowhere = record(1, "a", .began)
        nowhere.view = nil
        #expect(ResponderRouter.calls(for: [nowhere, record(2, "a", .began, ignored: .multipleTouch), record(3, "a", .stationary)], in: cfg.scene).isEmpty)
    }

    @Test func aCycleInTheChainEndsTheWalk() {
        var responders = cfg.scene.responders
        let root = cfg.scene.responderIndex["root"]!
        let a = cfg.scene.responderIndex["a"]!
        responders[root.rawValue].next = a       // a → root → a → …
        responders[a.rawValue].policy = TouchPolicy(.handleAndForward)
        let looped = Scene(views: Array(cfg.scene.views), responders: Array(responders))
        let walked = Array(looped.chain(from: cfg.scene.viewIndex["a"]!))
        #expect(walked.count == responders.count + 1)
    }
}

@Suite struct ControlTrackerTests {
    let cfg = scene("{\"id\": \"ok\", \"frame\": [100, 100, 100, 40], \"control\": \"button\"}")

    func record(_ phase: Phase, inView p: Point, tapCount: Int = 1) -> TouchRecord {
        let v = cfg.scene.viewIndex["ok"]!
        return TouchRecord(id: 7, phase: phase, window: cfg.scene[v].window, view: v, location: .zero, previous: .zero,
                           locationInView: p, tapCount: tapCount, pressure: nil, major: nil, tool: .finger, reason: nil, ignored: nil)
    }

    func events(_ t: inout ControlTracker, _ r: TouchRecord) -> [String] {
        t.events(for: [r], in: cfg.scene).map(\.event.rawValue)
    }

    @Test func aDragOutOfTheTrackingAreaAndBack() {
        var t = ControlTracker()
        #expect(events(&t, record(.began, inView: Point(50, 20))) == ["touchDown"])
        #expect(events(&t, record(.moved, inView: Point(160, 20))) == ["touchDragInside"])        // within 70 points of the bounds
        #expect(events(&t, record(.moved, inView: Point(171, 20))) == ["touchDragExit", "touchDragOutside"])
        #expect(events(&t, record(.moved, inView: Point(180, 20))) == ["touchDragOutside"])
        #expect(events(&t, record(.moved, inView: Point(0, -69))) == ["touchDragEnter", "touchDragInside"])
        #expect(events(&t, record(.ended, inView: Point(0, -69))) == ["touchUpInside", "primaryActionTriggered"])
        #expect(t.inside.isEmpty)
    }

    @Test func repeatOutsideAndCancel() {
        var t = ControlTracker()
        #expect(events(&t, record(.began, inView: Point(5, 5), tapCount: 2)) == ["touchDown", "touchDownRepeat"])
        #expect(events(&t, record(.ended, inView: Point(300, 5))) == ["touchUpOutside"])
        #expect(events(&t, record(.began, inView: Point(5, 5))) == ["touchDown"])
        #expect(events(&t, record(.cancelled, inView: Point(5, 5))) == ["touchCancel"])
        #expect(t.inside.isEmpty)
    }
}

@Suite struct DeliveryGateTests {
    /// A recognizer on view 2 that has seen touch 1, with the given delays.
    func recognizer(delaysBegan: Bool, delaysEnded: Bool, phase: GestureState = .possible) -> GestureRecognizer {
        var s = GestureSettings(id: "r", kind: .tap(GestureSettings.Tap()))
        s.delaysTouchesBegan = delaysBegan
        s.delaysTouchesEnded = delaysEnded
        var g = GestureRecognizer(RecognizerConfig(settings: s, view: ViewIndex(2)))
        g.state.touches = [1]
        g.state.phase = phase
        return g
    }

    func touch(_ phase: Phase) -> LiveTouch {
        var t = LiveTouch(id: 1, device: DeviceIndex(0), slot: 0, window: ViewIndex(0), view: ViewIndex(2), phase: phase,
                          location: .zero, previous: .zero, start: .zero, tapCount: 1, pressure: nil, major: nil, tool: .finger,
                          windowOrigin: .zero, beganAt: 0)
        t.recognizers = [RecognizerIndex(0)]
        return t
    }

    @Test func aDelayedBeganWaitsForTheRecognizerToFail() {
        var t = touch(.began)
        let deciding = [recognizer(delaysBegan: true, delaysEnded: false)]
        #expect(DeliveryGate.viewPhase(&t, time: 0, deciding) == nil)
        #expect(t.viewState == .pending)
        t.phase = .moved
        let failed = [recognizer(delaysBegan: true, delaysEnded: false, phase: .failed)]
        #expect(DeliveryGate.viewPhase(&t, time: 0, failed) == .began)
        #expect(t.viewState == .active)
    }

    @Test func aDelayedEndIsStationaryUntilReleased() {
        var t = touch(.began)
        let deciding = [recognizer(delaysBegan: false, delaysEnded: true)]
        #expect(DeliveryGate.viewPhase(&t, time: 0, deciding) == .began)
        t.phase = .ended
        #expect(DeliveryGate.viewPhase(&t, time: 0, deciding) == .stationary)
        #expect(t.viewState == .endHeld)
        t.phase = .stationary
        #expect(DeliveryGate.viewPhase(&t, time: 0, [recognizer(delaysBegan: false, delaysEnded: true, phase: .failed)]) == .ended)
        #expect(t.viewState == .gone)
        #expect(DeliveryGate.viewPhase(&t, time: 0, deciding) == nil)
    }

    @Test func aTouchTakenByARecognizerIsCancelledForItsView() {
        let recognized = [recognizer(delaysBegan: true, delaysEnded: true, phase: .recognized)]
        var t = touch(.began)
        #expect(DeliveryGate.viewPhase(&t, time: 0, recognized) == .began)
        t.taken = true
        t.phase = .moved
        #expect(DeliveryGate.viewPhase(&t, time: 0, recognized) == .cancelled)
        #expect(t.reason == .gesture && t.viewState == .gone)
        // Taken before its began was delivered: its view never hears of it.
        var early = touch(.began)
        early.taken = true
        #expect(DeliveryGate.viewPhase(&early, time: 0, recognized) == nil)
    }
}

@Suite struct SceneReloaderTests {
    @Test func touchesKeepViewsThatSurviveByIdInTheSameWindow() {
        let old = config("""
            {"windows": [{"id": "w", "frame": [0, 0, 800, 480], "view": {"id": "root", "frame": [0, 0, 800, 480],
              "subviews": [{"id": "a", "frame": [0, 0, 10, 10]}, {"id": "b", "frame": [0, 0, 10, 10]}]}},
              {"id": "w2", "frame": [0, 0, 800, 480], "view": {"id": "c", "frame": [0, 0, 10, 10]}}]}
            """).scene
        let new = config("""
            {"windows": [{"id": "w2", "frame": [0, 0, 800, 480], "view": {"id": "a", "frame": [0, 0, 10, 10]}},
              {"id": "w", "frame": [0, 0, 800, 480], "view": {"id": "root", "frame": [0, 0, 800, 480],
              "subviews": [{"id": "b", "frame": [0, 0, 10, 10]}]}}]}
            """).scene
        var table = TouchTable()
        for (k, id) in ["a", "b", "c"].enumerated() {
            let v = old.viewIndex[id]!
            table.append(LiveTouch(id: k + 1, device: DeviceIndex(0), slot: k, window: old[v].window, view: v, phase: .stationary,
                                   location: .zero, previous: .zero, start: .zero, tapCount: 1, pressure: nil, major: nil,
                                   tool: .finger, windowOrigin: .zero, beganAt: 0))
        }
        table.append(LiveTouch(id: 4, device: DeviceIndex(0), slot: 3, window: nil, view: nil, phase: .stationary,
                               location: .zero, previous: .zero, start: .zero, tapCount: 1, pressure: nil, major: nil,
                               tool: .finger, windowOrigin: .zero, beganAt: 0))
        let plan = SceneReloader.plan(table, from: old, to: new)
        // "a" moved to another window, "c" is gone: both lose their view; "b" survives.
        #expect(plan.removed == [0, 2])
        #expect(plan.survivors.map(\.index) == [1])
        #expect(plan.survivors.first.map { new.id(of: $0.view) } == "b")
        #expect(plan.survivors.first.map { new.id(of: $0.window) } == "w")
    }
}

@Suite struct OutboxTests {
    @Test func sequenceNumbersFollowPublicationAndDrainingSwapsBuffers() {
        var o = Outbox()
        let d = DeviceDescriptor(id: "d", name: "d", vendor: 0, product: 0, touchProtocol: .b, slots: 1)
        o.publish(.device(DeviceMessage(seq: 0, time: 0, action: .added, device: d)))
        o.sceneChanged(.empty)
        o.publish(.device(DeviceMessage(seq: 0, time: 1, action: .removed, device: d)))
        var out: [EngineOutput] = []
        out.reserveCapacity(64)
        o.drain(into: &out)
        #expect(o.isEmpty && out.count == 3 && o.seq == 2)
        if case .message(.device(let m)) = out[2] { #expect(m.seq == 2 && m.action == .removed) } else { Issue.record("a device message third") }
        if case .sceneChanged = out[1] {} else { Issue.record("the scene change second") }
        // A second drain into a non-empty array appends.
        o.publish(.device(DeviceMessage(seq: 0, time: 2, action: .added, device: d)))
        o.drain(into: &out)
        #expect(out.count == 4 && o.isEmpty)
    }
}

@Suite struct GestureArbiterTests {
    let cfg = scene("""
        {"id": "list", "frame": [0, 0, 400, 480], "scroll": {"contentSize": [400, 2000]},
         "gestures": [{"id": "single", "kind": "tap", "requireToFail": ["double"]}],
         "subviews": [{"id": "row", "frame": [0, 0, 400, 100],
           "gestures": [{"id": "double", "kind": "tap", "taps": 2}, {"id": "hold", "kind": "longPress", "simultaneousWith": ["single"]}]}]}
        """)

    @Test func recognizersAreBuiltPerViewWithTheirReferencesResolved() {
        let a = GestureArbiter(scene: cfg.scene)
        // Deeper views first; on one view the scroll view's pan, then by id.
        #expect(a.recognizers.map(\.id) == ["double", "hold", "list.pan", "single"])
        #expect(a.recognizers[2].config.scroll != nil)
        #expect(a.recognizers[3].config.requireToFail == [RecognizerIndex(0)])
        #expect(a.recognizers[1].config.simultaneousWith == [RecognizerIndex(3)])
        #expect(a.simultaneous(RecognizerIndex(3), RecognizerIndex(1)))   // either side may declare it
        // Listed the other way round in the config: the same order.
        let reversed = scene("""
            {"id": "list", "frame": [0, 0, 400, 480], "scroll": {"contentSize": [400, 2000]},
             "gestures": [{"id": "single", "kind": "tap", "requireToFail": ["double"]}],
             "subviews": [{"id": "row", "frame": [0, 0, 400, 100],
               "gestures": [{"id": "hold", "kind": "longPress", "simultaneousWith": ["single"]}, {"id": "double", "kind": "tap", "taps": 2}]}]}
            """)
        #expect(GestureArbiter(scene: reversed.scene).recognizers.map(\.id) == ["double", "hold", "list.pan", "single"])
        // A touch on the row is seen by the row's recognizers first, then the list's.
        let row = cfg.scene.viewIndex["row"]!
        #expect(a.recognizers(seeing: row, in: cfg.scene, arriving: { _ in 0 }).map { a[$0].id } == ["double", "hold", "list.pan", "single"])
        #expect(a.recognizers(seeing: nil, in: cfg.scene, arriving: { _ in 0 }).isEmpty)
    }

    @Test func aRecognizerWaitingOnAnotherRecognizesWhenItFails() {
        let r = Rig(cfg)
        var f = Finger()
        f.down(0, 100, 50); f.syn(after: 50); f.up(0); f.syn()
        r.feed(f)
        // The single tap waits for the double tap, which fails when its interval runs out.
        #expect(r.states("single") == [])
        r.advance(to: 1_000_000)
        #expect(r.states("double") == ["failed"])
        #expect(r.states("single") == ["recognized"])
    }
}

@Suite struct GestureSettingsConfigTests {
    func problems(_ gesture: String) -> [String] {
        do {
            _ = try Config.parse("""
                {"windows": [{"id": "w", "frame": [0, 0, 1, 1], "view": {"id": "v", "frame": [0, 0, 1, 1], "gestures": [\(gesture)]}}]}
                """)
            return []
        } catch {
            return error.errors.map(\.description)
        }
    }

    @Test func eachKindTakesItsOwnKeysTypedAndConverted() throws {
        let cfg = config("""
            {"windows": [{"id": "w", "frame": [0, 0, 1, 1], "view": {"id": "v", "frame": [0, 0, 1, 1], "gestures": [
              {"id": "t", "kind": "tap", "taps": 2, "touches": 2, "maximumInterval": 0.25, "movementTolerance": 4},
              {"id": "s", "kind": "swipe", "directions": ["left", "up"], "maximumDuration": 1.5, "cancelsTouchesInView": false}]}}]}
            """)
        let g = cfg.scene[cfg.scene.viewIndex["v"]!].gestures
        guard case .tap(let t) = g[0].kind, case .swipe(let s) = g[1].kind else { Issue.record("kinds"); return }
        #expect(t.taps == 2 && t.touches == 2 && t.maximumInterval == 250_000 && t.movementTolerance == 4)
        #expect(s.directions == [.left, .up] && s.maximumDuration == 1_500_000 && s.touches == 1)
        #expect(!g[1].cancelsTouchesInView && g[0].cancelsTouchesInView && g[0].delaysTouchesEnded && !g[0].delaysTouchesBegan)
    }

    @Test func aKeyOfAnotherKindIsAnError() {
        #expect(problems("{\"id\": \"p\", \"kind\": \"pan\", \"taps\": 2}")
                == ["$.windows[0].view.gestures[0].taps: \"taps\" does not apply to a pan recognizer (it applies to: tap, longPress) (line 1)"])
        #expect(problems("{\"id\": \"t\", \"kind\": \"tap\", \"directions\": [\"left\"]}")
                == ["$.windows[0].view.gestures[0].directions: \"directions\" does not apply to a tap recognizer (it applies to: swipe) (line 1)"])
        #expect(problems("{\"id\": \"r\", \"kind\": \"rotation\", \"minimumTouches\": 2}").count == 1)
        #expect(problems("{\"id\": \"l\", \"kind\": \"longPress\", \"taps\": 1, \"minimumDuration\": 1}").isEmpty)
    }

    @Test func countsAreWholeAndAtLeastOne() {
        #expect(problems("{\"id\": \"t\", \"kind\": \"tap\", \"taps\": 0}") == ["$.windows[0].view.gestures[0].taps: must be at least 1, got 0 (line 1)"])
        #expect(problems("{\"id\": \"t\", \"kind\": \"tap\", \"touches\": -2}") == ["$.windows[0].view.gestures[0].touches: must be at least 1, got -2 (line 1)"])
        #expect(problems("{\"id\": \"t\", \"kind\": \"tap\", \"taps\": 1.5}") == ["$.windows[0].view.gestures[0].taps: must be a whole number, got 1.5 (line 1)"])
        #expect(problems("{\"id\": \"p\", \"kind\": \"pan\", \"minimumTouches\": 3, \"maximumTouches\": 2}")
                == ["$.windows[0].view.gestures[0].maximumTouches: must be at least minimumTouches (3), got 2 (line 1)"])
        #expect(problems("{\"id\": \"l\", \"kind\": \"longPress\", \"taps\": 0}").isEmpty)   // UIKit's default for a long press
    }

    @Test func requireToFailMustNotGoRound() {
        #expect(problems("{\"id\": \"a\", \"kind\": \"tap\", \"requireToFail\": [\"a\"]}")
                == ["$.windows[0].view.gestures[0].requireToFail: \"a\" requires itself to fail (line 1)"])
        let two = problems("""
            {"id": "a", "kind": "tap", "requireToFail": ["b"]}, {"id": "b", "kind": "tap", "taps": 2, "requireToFail": ["a"]}
            """)
        #expect(two == ["$.windows[0].view.gestures[0].requireToFail: requireToFail goes round: \"a\" → \"b\" → \"a\"; none of them could ever recognize (line 1)"])
        let three = problems("""
            {"id": "a", "kind": "tap", "requireToFail": ["b"]}, {"id": "b", "kind": "tap", "requireToFail": ["c"]},
            {"id": "c", "kind": "tap", "requireToFail": ["a"]}, {"id": "d", "kind": "tap", "requireToFail": ["a"]}
            """)
        #expect(three.count == 1 && three.first?.contains("\"a\" → \"b\" → \"c\" → \"a\"") == true)
        // A chain that does not go round is fine.
        #expect(problems("{\"id\": \"a\", \"kind\": \"tap\", \"requireToFail\": [\"b\"]}, {\"id\": \"b\", \"kind\": \"tap\", \"taps\": 2}").isEmpty)
    }
}

extension LiveTouch {
    /// Brings a test's touch to a state the way the engine does: through its life's transitions.
    mutating func reach(_ state: TouchLife) {
        let begin = TouchLife.Input.deliver(finger: .began, taken: false, holdsBegan: false, holdsEnded: false, fingerDone: false, ownReason: false)
        let liftHeld = TouchLife.Input.deliver(finger: .ended, taken: false, holdsBegan: false, holdsEnded: true, fingerDone: true, ownReason: false)
        switch state {
        case .pending: break
        case .active: _ = live(begin)
        case .endHeld: _ = live(begin); _ = live(liftHeld)
        case .gone: _ = live(.unbound)
        }
        #expect(viewState == state)
    }
}
