import Testing
@testable import TouchCore
import TouchTestSupport

/// Input conditioning (issue 19): what a noisy panel's contact becomes before the engine sees it.
@Suite struct MovedMeansLocationOrForceTests {
    /// UITouch's touchesMoved is about location (and force): a contact whose only change is its
    /// size (touch-major) has not moved. A Wacom recording reports a size change alone in 190 of
    /// 4,113 frames, where libinput reports no motion.
    @Test func aSizeOnlyChangeIsNotAMove() {
        var t = ContactTracker(device: screenDevice(pressure: true, major: true), protocol: .b)
        var f = Finger()
        f.down(0, 100, 100); f.ev(EV.ABS, ABS.MT_TOUCH_MAJOR, 10); f.syn()
        for major in 11...40 { f.ev(EV.ABS, ABS.MT_SLOT, 0); f.ev(EV.ABS, ABS.MT_TOUCH_MAJOR, Int32(major)); f.syn() }
        f.move(0, 101, 100); f.syn()
        f.ev(EV.ABS, ABS.MT_SLOT, 0); f.ev(EV.ABS, ABS.MT_PRESSURE, 50); f.syn()   // force changed: moved
        f.up(0); f.syn()
        let out = frames(&t, f.events)
        #expect(out.map(kinds) == [["began0"]] + Array(repeating: [], count: 30) + [["moved0"], ["moved0"], ["ended0"]])
        // The move carries the size as it is now.
        #expect(out[31].first?.sample.major == 40)
    }
}

/// `devices[].filter` through the engine: each filter against a made-up capture, and each
/// against the unfiltered run of the same events (which shows the defect it removes).
@Suite struct ConditioningFilterTests {
    let button = try! Config.parse("""
        {"windows": [{"id": "w", "frame": [0, 0, 800, 480], "view": {"id": "root", "frame": [0, 0, 800, 480],
          "subviews": [{"id": "buy", "frame": [50, 50, 200, 100], "control": "button"}]}}]}
        """)

    func settings(_ edit: (inout ConditioningSettings) -> Void) -> DeviceSettings {
        var s = DeviceSettings()
        edit(&s.filter)
        return s
    }

    func controls(_ r: Rig) -> [String] {
        r.messages.compactMap { if case .control(let c) = $0 { return c.event.rawValue }; return nil }
    }

    /// One 300 ms press on the button with a 10 ms bounce in the middle (a lift, then the
    /// contact back 2 points away): frames every 10 ms.
    func bouncyPress(_ r: Rig) {
        r.down(100, 100)
        for _ in 0..<14 { r.move(100, 100); r.finger.time += 0 }
        r.up()
        r.down(102, 100)           // 10 ms later, 2 points away
        for _ in 0..<14 { r.move(102, 100) }
        r.up()
        r.idle(until: r.finger.time + 1_000_000)
    }

    @Test func aBounceWithinTheDebounceIsOnePress() {
        let plain = Rig(button)
        bouncyPress(plain)
        // The defect: one press, two orders.
        #expect(controls(plain).filter { $0 == "primaryActionTriggered" }.count == 2)

        let r = Rig(button, settings: settings { $0.debounce = 0.03 })
        bouncyPress(r)
        #expect(controls(r).filter { $0 == "touchDown" }.count == 1)
        #expect(controls(r).filter { $0 == "touchUpInside" }.count == 1)
        #expect(controls(r).filter { $0 == "primaryActionTriggered" }.count == 1)
        // One touch from down to up, no ended and began in between.
        let phases = r.frames.flatMap(\.touches).map { "\($0.id) \($0.phase.name)" }
        #expect(phases.first == "1 began")
        #expect(phases.last == "1 ended")
        #expect(phases.filter { $0.hasSuffix("ended") || $0.hasSuffix("began") }.count == 2)
        #expect(!phases.contains { $0.hasPrefix("2 ") })
    }

    @Test func aRealDoubleTapIsTwoTaps() {
        // Two 50 ms taps 150 ms apart: the second is a touch of its own (tapCount 2).
        let r = Rig(button, settings: settings { $0.debounce = 0.03 })
        r.down(100, 100); r.move(100, 100); r.move(100, 100); r.move(100, 100); r.up()
        r.finger.time += 150_000
        r.down(100, 100); r.move(100, 100); r.up()
        r.idle(until: r.finger.time + 1_000_000)
        let began = r.frames.flatMap(\.touches).filter { $0.phase == .began }
        #expect(began.map(\.id) == [1, 2])
        #expect(began.last?.tapCount == 2)
        #expect(controls(r).filter { $0 == "primaryActionTriggered" }.count == 2)
    }

    func jitter(_ r: Rig) {
        r.down(300, 300)
        for k in 0..<27 { r.move(300 + (k % 2 == 0 ? 2 : -2), 300 + (k % 3 == 0 ? 1 : -1)) }
    }

    func moves(_ r: Rig) -> [Point] { r.frames.flatMap(\.touches).filter { $0.phase == .moved }.map(\.location) }

    @Test func jitterInsideACircleMovesNothingAndADragTrailsByItsRadius() {
        let plain = Rig(button)
        jitter(plain)
        #expect(moves(plain).count == 27)

        let r = Rig(button, settings: settings { $0.hysteresis = .points(3) })
        jitter(r)
        #expect(moves(r).isEmpty)
        // A real drag: the point follows 3 points behind the finger.
        r.move(320, 300)
        r.move(340, 300)
        #expect(moves(r) == [Point(317, 300), Point(337, 300)])
    }

    @Test func theFuzzDefaultFollowsTheKernelsRule() {
        var info = screenDevice()
        info.abs[ABS.MT_POSITION_X]?.fuzz = 8
        info.abs[ABS.MT_POSITION_Y]?.fuzz = 8
        let r = Rig(button, device: info)          // no filter key: hysteresis "fuzz"
        r.down(300, 300)
        r.move(303, 297)                           // within fuzz/2 of the last: stays
        r.move(306, 300)                           // within fuzz: (3·300 + 306) / 4 = 301
        r.move(312, 300)                           // within 2·fuzz of 301: (301 + 312) / 2 = 306
        r.move(330, 300)                           // beyond: as it is
        #expect(moves(r) == [Point(301, 300), Point(306, 300), Point(330, 300)])
        // Turned off: every step.
        let off = Rig(button, device: info, settings: settings { $0.hysteresis = .points(0) })
        off.down(300, 300); off.move(303, 297); off.move(306, 300)
        #expect(moves(off).count == 2)
    }

    @Test func pressureStartsAtDownAndEndsBelowUp() {
        let r = Rig(button, device: screenDevice(pressure: true), settings: settings { $0.pressure = .init(down: 0.3, up: 0.1) })
        func press(_ p: Int32) { r.finger.ev(EV.ABS, ABS.MT_SLOT, 0); r.finger.ev(EV.ABS, ABS.MT_PRESSURE, p); r.frame() }
        r.finger.down(0, 400, 300); r.finger.ev(EV.ABS, ABS.MT_PRESSURE, 20); r.frame()   // a graze: 20 < 77
        press(60)                                                                         // still below down
        #expect(r.frames.isEmpty)
        press(100)                                                                        // ≥ 0.3 × 255
        press(40)                                                                         // between up and down: still down
        press(20)                                                                         // < 0.1 × 255 = 26: up
        let phases = r.frames.flatMap(\.touches).map(\.phase)
        #expect(phases == [.began, .moved, .ended])
        #expect(r.frames.first?.touches.first?.pressure.map { ($0 * 255).rounded() } == 100)
    }

    @Test func aPalmBySizeIsNeverDeliveredOrCancelledWhenItGrows() {
        let r = Rig(button, device: screenDevice(major: true), settings: settings { $0.palmSize = 30 })
        func major(_ m: Int32, slot: Int32 = 0) { r.finger.ev(EV.ABS, ABS.MT_SLOT, slot); r.finger.ev(EV.ABS, ABS.MT_TOUCH_MAJOR, m) }
        r.finger.down(0, 400, 300); major(60); r.frame()          // a palm from the start
        r.finger.move(0, 410, 300); r.frame()
        r.finger.up(0); r.frame()
        #expect(r.frames.isEmpty)
        r.finger.down(1, 200, 200); major(10, slot: 1); r.frame()  // a finger…
        major(45, slot: 1); r.frame()                              // …that grows into a palm
        r.finger.move(1, 210, 200); r.frame()
        r.finger.up(1); r.frame()
        let touches = r.frames.flatMap(\.touches)
        #expect(touches.map(\.phase) == [.began, .cancelled])
        #expect(touches.last?.reason == .palm)
    }
}

/// `devices[].filter` mistakes are named by JSON path (check-config).
@Suite struct ConditioningConfigTests {
    @Test func eachMistakeIsNamedByItsPath() {
        let text = """
            {"windows": [{"id": "w", "frame": [0, 0, 800, 480], "view": {"id": "r", "frame": [0, 0, 800, 480]}}],
             "devices": [{"match": {"name": "*"}, "filter": {"debounce": 5, "hysteresis": "big",
               "pressure": {"down": 0.1, "up": 0.3}, "palmSize": "x", "extra": 1}}]}
            """
        do {
            _ = try Config.parse(text)
            Issue.record("the config was accepted")
        } catch {
            let paths = Set(error.errors.map(\.path))
            #expect(paths == ["$.devices[0].filter.extra", "$.devices[0].filter.debounce", "$.devices[0].filter.hysteresis",
                              "$.devices[0].filter.pressure.up", "$.devices[0].filter.palmSize"])
        }
        let good = try? Config.parse("""
            {"windows": [{"id": "w", "frame": [0, 0, 800, 480], "view": {"id": "r", "frame": [0, 0, 800, 480]}}],
             "devices": [{"match": {"name": "*"}, "filter": {"debounce": 0.03, "hysteresis": 2, "pressure": {"down": 0.3, "up": 0.1}, "palmSize": 30}}]}
            """)
        var want = ConditioningSettings()
        want.debounce = 0.03
        want.hysteresis = .points(2)
        want.pressure = .init(down: 0.3, up: 0.1)
        want.palmSize = 30
        #expect(good?.devices.first?.settings.filter == want)
    }
}

/// Issue 28 item 5 / issue 30 item 2: `"hysteresis": 1e-300` passed check-config and stopped
/// the daemon on the next move (the circle's radii squared to zero in device units: a NaN
/// converted to an integer). The config refuses radii below the smallest; the filter gives no
/// NaN for any radius, the smallest allowed included.
@Suite struct HysteresisRangeTests {
    /// The problems' paths and messages of a config with this hysteresis (empty: accepted).
    func problems(_ h: String) -> [ConfigError] {
        do {
            _ = try Config.parse("""
                {"windows": [{"id": "w", "frame": [0, 0, 800, 480], "view": {"id": "r", "frame": [0, 0, 800, 480]}}],
                 "devices": [{"match": {"name": "*"}, "filter": {"hysteresis": \(h)}}]}
                """)
            return []
        } catch {
            return error.errors
        }
    }

    @Test func radiiTooSmallToMatterAreRefusedByPath() {
        for bad in ["1e-300", "0.001", "-1", "1001"] {
            let e = problems(bad)
            #expect(e.map(\.path) == ["$.devices[0].filter.hysteresis"], "\(bad)")
            #expect(e.first?.message.contains("0.01 to 1000") == true, "\(e)")
        }
        for good in ["0", "0.01", "1000", "\"fuzz\""] {
            #expect(problems(good).isEmpty, "\(good)")
        }
    }
}

extension ConditioningFilterTests {
    @Test func aMoveAlongOneAxisThroughTheTiniestCircleIsAMove() {
        for r in [1e-300, ConditioningSettings.smallestRadius] {
            let rig = Rig(button, settings: settings { $0.hysteresis = .points(r) })
            rig.down(300, 300)
            rig.move(300, 310)   // along y only: dx = 0 (0/0 made the NaN)
            rig.move(305, 310)   // along x only
            #expect(moves(rig) == [Point(300, 310), Point(305, 310)], "radius \(r)")
        }
    }
}
