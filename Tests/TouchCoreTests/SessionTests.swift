import Testing
@testable import TouchCore
import TouchTestSupport

/// Issue 44, item 1, through the engine: idle after `idle` seconds without a touch, the waking
/// touch (and every finger down with it) reaching nothing — no view, control, recognizer,
/// re-export — and the requests (interface.md, "Kiosk session").
@Suite struct SessionTests {
    static func config(wake: String = "swallow", idle: Double = 1, extra: String = "") -> Config {
        try! Config.parse("""
            {"screen": {"width": 800, "height": 480},
             "session": {"idle": \(idle), "wake": "\(wake)"}\(extra),
             "windows": [{"id": "main", "frame": [0, 0, 800, 480],
               "view": {"id": "root", "frame": [0, 0, 800, 480], "touches": "handle",
                        "subviews": [{"id": "ok", "frame": [100, 100, 100, 50], "control": "button"},
                                     {"id": "card", "frame": [400, 100, 200, 200], "touches": "handle",
                                      "gestures": [{"id": "card-tap", "kind": "tap"}]}]}}]}
            """)
    }

    /// A tap at time `at` seconds at (x, y): down, then up 50 ms later.
    func tap(_ r: Rig, at: Double, _ x: Int32, _ y: Int32) {
        r.finger.time = Int64(at * 1_000_000)
        r.down(x, y)
        r.finger.time += 40_000
        r.up()
    }

    @Test func aTapOnABlankedScreenPressesNothing() {
        let r = Rig(Self.config())
        tap(r, at: 0.1, 150, 120)
        #expect(r.take() == ["t1 began ok", "ok touchDown", "t1 ended ok", "ok touchUpInside", "ok primaryActionTriggered"])
        // A second of nothing after the lift (at 0.15 s): idle, at its time.
        r.advance(to: 1_140_000)
        #expect(r.take() == [])
        r.advance(to: 1_150_000)
        #expect(r.take() == ["idle screen"])
        let idleTime: Int64? = r.messages.last.flatMap { if case .idle(let i) = $0 { return i.time }; return nil }
        #expect(idleTime == 1_150_000)
        // The button on a blanked screen: the screen wakes, nothing is pressed, nobody hears of the touch.
        let before = r.messages.count
        tap(r, at: 3, 150, 120)
        #expect(r.take() == ["wake screen"])
        #expect(r.messages.count == before + 1)
        #expect(r.swallowed.flatMap(\.contacts).map(\.kind) == [.began, .ended])
        // The next tap presses it.
        tap(r, at: 3.5, 150, 120)
        #expect(r.take() == ["t2 began ok", "ok touchDown", "t2 ended ok", "ok touchUpInside", "ok primaryActionTriggered"])
    }

    @Test func aRecognizerNeverSeesTheWakingTouch() {
        let r = Rig(Self.config())
        r.send(json: #"{"session":{"output":"screen","action":"idle"}}"#, from: 1)
        #expect(r.take() == ["idle screen"])
        tap(r, at: 0.5, 450, 150)
        r.advance(to: 1_500_000)        // past the tap recognizer's every timer, before idle again
        #expect(r.take() == ["wake screen"])
        #expect(r.gestures.isEmpty)
    }

    /// Every finger that lands while the waking one is down is swallowed too, until the last lifts.
    @Test func fingersDownWithTheWakingOneAreSwallowed() {
        let r = Rig(Self.config())
        r.send(json: #"{"session":{"output":"screen","action":"idle"}}"#, from: 1)
        _ = r.take()
        r.finger.time = 500_000
        r.down(150, 120, slot: 0)              // wakes
        r.down(450, 150, slot: 1)              // lands while it is down
        r.up(slot: 0)
        r.move(460, 150, slot: 1)              // still the second's: swallowed
        r.down(150, 120, slot: 0)              // lands while the second is down
        r.up(slot: 1)
        r.up(slot: 0)
        #expect(r.take() == ["wake screen"])
        #expect(r.frames.isEmpty)
        r.down(150, 120)                        // everything lifted: delivered again
        r.up()
        #expect(r.take() == ["t1 began ok", "ok touchDown", "t1 ended ok", "ok touchUpInside", "ok primaryActionTriggered"])
    }

    @Test func deliverWakesAndDelivers() {
        let r = Rig(Self.config(wake: "deliver"))
        r.send(json: #"{"session":{"output":"screen","action":"idle"}}"#, from: 1)
        _ = r.take()
        tap(r, at: 0.5, 150, 120)
        #expect(r.take() == ["wake screen", "t1 began ok", "ok touchDown", "t1 ended ok", "ok touchUpInside", "ok primaryActionTriggered"])
    }

    /// Idle counts from the last lift; a finger held down keeps it awake however long.
    @Test func idleCountsFromTheLastTouch() {
        let r = Rig(Self.config())
        r.finger.time = 100_000
        r.down(10, 10)
        r.finger.time = 5_000_000
        r.move(12, 10)
        r.advance(to: 8_000_000)
        #expect(!r.take().contains("idle screen"))
        r.finger.time = 8_000_000
        r.up()
        r.advance(to: 8_999_999)
        #expect(!r.take().contains("idle screen"))
        r.advance(to: 9_000_000)                // a second after the lift's frame, stamped 8.0 s
        #expect(r.take() == ["idle screen"])
        #expect(r.engine.nextDeadline == nil)   // idle: no timer at all
    }

    /// The engine's next deadline is the idle time's, once, and nothing fires in between.
    @Test func oneDeadlinePerIdlePeriod() {
        let r = Rig(Self.config(idle: 120))
        tap(r, at: 0, 10, 10)
        _ = r.take()
        let deadline = r.engine.nextDeadline
        #expect(deadline == Int64(50_000 + 120_000_000), "\(String(describing: deadline))")
        r.advance(to: 120_049_999)
        #expect(r.take() == [])
        r.advance(to: 120_050_000)
        #expect(r.take() == ["idle screen"])
        #expect(r.engine.nextDeadline == nil)
    }

    @Test func keepAwakeHoldsItUntilItsClientLeaves() {
        let r = Rig(Self.config())
        tap(r, at: 0, 10, 10)
        let kept = r.send(json: #"{"session":{"output":"screen","keepAwake":true}}"#, from: 7)
        #expect(kept == .session(output: "screen", idle: false, keepAwake: 1))
        r.advance(to: 30_000_000)
        #expect(!r.take().contains("idle screen"))
        r.finger.time = 30_000_000
        r.gone(7)
        r.advance(to: 30_999_999)
        #expect(!r.take().contains("idle screen"))
        r.advance(to: 31_000_000)
        #expect(r.take() == ["idle screen"])
    }

    @Test func keepAwakeWakesAnIdleOutput() {
        let r = Rig(Self.config())
        r.send(json: #"{"session":{"output":"screen","action":"idle"}}"#, from: 1)
        #expect(r.send(json: #"{"session":{"output":"screen","keepAwake":true}}"#, from: 1) == .session(output: "screen", idle: false, keepAwake: 1))
        #expect(r.take() == ["idle screen", "wake screen"])
        // Its waking was no touch: the next one is delivered.
        tap(r, at: 1, 150, 120)
        #expect(r.take().first == "t1 began ok")
    }

    @Test func requestsAndTheirReplies() {
        let r = Rig(Self.config())
        #expect(r.send(json: #"{"session":{"output":"screen"}}"#, from: 1) == .session(output: "screen", idle: false, keepAwake: 0))
        #expect(r.send(json: #"{"session":{"output":"screen","action":"idle"}}"#, from: 1) == .session(output: "screen", idle: true, keepAwake: 0))
        #expect(r.send(json: #"{"session":{"output":"screen","action":"idle"}}"#, from: 1) == .session(output: "screen", idle: true, keepAwake: 0))
        #expect(r.send(json: #"{"session":{"output":"screen","action":"wake"}}"#, from: 1) == .session(output: "screen", idle: false, keepAwake: 0))
        #expect(r.take() == ["idle screen", "wake screen"])     // the second idle said nothing
        guard case .refused(_, _, let e)? = r.send(json: #"{"session":{"output":"HDMI-A-9","action":"idle"}}"#, from: 1) else {
            Issue.record("an unknown output was accepted"); return
        }
        #expect(e.path == "output" && e.message.contains("no output has id \"HDMI-A-9\""))
        // Acting on an output is for the clients allowed to (Engine+Outputs' rule).
        r.limits.actsOn = ["other"]
        guard case .refused(_, _, let e2)? = r.send(json: #"{"session":{"output":"screen","action":"idle"}}"#, from: 2) else {
            Issue.record("a client not allowed to act on the output put it to sleep"); return
        }
        #expect(e2.message.contains("acting on the session of output \"screen\""))
        #expect(r.take() == [])
    }

    @Test func anOutputWithoutASessionRefuses() {
        let r = Rig(try! Config.parse(#"{"windows": []}"#))
        guard case .refused(let name, _, let e)? = r.send(json: #"{"session":{"output":"screen","action":"idle"}}"#, from: 1) else {
            Issue.record("accepted"); return
        }
        #expect(name == "session" && e.message.contains("has no session"))
    }

    /// A touch in another client's private window restarts the idle time like any other.
    @Test func privateTouchesKeepItAwake() {
        let r = Rig(Self.config())
        r.send(json: #"{"attach":{"id":"pin","private":true,"frame":[600,300,200,180],"view":{"id":"pad","frame":[0,0,200,180],"control":"button"}}}"#, from: 3)
        tap(r, at: 0, 650, 350)
        tap(r, at: 0.9, 650, 350)
        r.advance(to: 1_900_000)
        #expect(!r.take().contains("idle screen"))
        r.advance(to: 1_950_000)
        #expect(r.take().last == "idle screen")
    }

    /// A device re-exporting its contacts (devices[].uinput) never writes the swallowed ones.
    @Test func theReexportNeverSeesASwallowedTouch() {
        let r = Rig(Self.config())
        r.engine.exportContacts(device: r.device, true)
        r.send(json: #"{"session":{"output":"screen","action":"idle"}}"#, from: 1)
        tap(r, at: 0.5, 150, 120)
        #expect(r.takeContacts().isEmpty)
        tap(r, at: 1, 150, 120)
        #expect(r.takeContacts().flatMap(\.contacts).map(\.kind) == [.began, .ended])
    }

    /// A reload keeps an output's session as it is (idle stays idle, keepers stay); one that
    /// loses its session while idle wakes (its backlight must come back on).
    @Test func aReloadKeepsOrEndsTheSession() {
        let r = Rig(Self.config())
        r.send(json: #"{"session":{"output":"screen","keepAwake":true}}"#, from: 4)
        r.send(json: #"{"session":{"output":"screen","action":"idle"}}"#, from: 1)
        _ = r.take()
        r.replaceScene(Self.config().scene, time: 500_000)
        r.engine.configureKiosk(Self.config(idle: 30).kiosk, time: 500_000)
        r.collect()
        #expect(r.take() == [])
        #expect(r.engine.isIdle(output: "screen") == true)
        #expect(r.send(json: #"{"session":{"output":"screen"}}"#, from: 1) == .session(output: "screen", idle: true, keepAwake: 1))
        r.engine.configureKiosk(KioskSettings(), time: 600_000)
        r.collect()
        #expect(r.take() == ["wake screen"])
        #expect(r.engine.isIdle(output: "screen") == nil)
        // No session now: a touch goes to its view.
        tap(r, at: 1, 150, 120)
        #expect(r.take().first == "t1 began ok")
    }

    /// A touch-down the device's filter still holds (minimumDuration: a ghost filter counting
    /// it) when the idle time runs out came before the deadline: it restarts the idle time and
    /// is delivered; the output never went idle.
    @Test func aTouchTheFilterHoldsComesBeforeTheIdleTime() {
        var settings = DeviceSettings()
        settings.filter.minimumDuration = 0.03
        let r = Rig(Self.config(), settings: settings)
        tap(r, at: 0, 150, 120)            // lifts at 0.05 s: idle due at 1.05 s
        r.finger.time = 1_040_000
        r.down(150, 120)                   // held until it has lasted 30 ms (1.07 s)
        r.advance(to: 1_100_000)
        r.finger.time = 1_200_000
        r.up()
        let lines = r.take()
        #expect(!lines.contains("idle screen") && !lines.contains("wake screen"), "\(lines)")
        #expect(lines.filter { $0 == "ok touchUpInside" }.count == 2, "\(lines)")
    }

    @Test func configErrorsNameTheirPlace() {
        func errors(_ json: String) -> [String] {
            do { _ = try Config.parse(json); return [] } catch { return error.errors.map(\.description) }
        }
        #expect(errors(#"{"windows": [], "session": {"idle": 0.5}}"#) == ["$.session.idle: must be at least 1, got 0.5 (line 1)"])
        #expect(errors(#"{"windows": [], "session": {"wake": "press"}}"#) == ["$.session.wake: unknown value \"press\" (expected one of: swallow, deliver) (line 1)"])
        #expect(errors(#"{"windows": [], "session": {"backlight": "sys/class/backlight/x"}}"#).first?.hasPrefix("$.session.backlight: must be an absolute path") == true)
        #expect(errors(#"{"windows": [], "session": {"idle": 5, "dim": 3}}"#).first?.hasPrefix("$.session.dim: unknown key") == true)
        #expect(errors("""
            {"windows": [], "session": {"backlight": "/sys/class/backlight/a"},
             "outputs": [{"id": "A", "width": 800, "height": 480}, {"id": "B", "width": 800, "height": 480}]}
            """).first?.hasPrefix("$.session.backlight: with several outputs") == true)
        let two = try! Config.parse("""
            {"windows": [], "session": {"idle": 60},
             "outputs": [{"id": "A", "width": 800, "height": 480, "session": {"idle": 5, "backlight": "/sys/class/backlight/a"}},
                         {"id": "B", "width": 800, "height": 480}]}
            """)
        #expect(two.kiosk.sessions["A"] == SessionSettings(idle: 5_000_000, backlight: "/sys/class/backlight/a"))
        #expect(two.kiosk.sessions["B"] == SessionSettings(idle: 60_000_000))
    }
}
