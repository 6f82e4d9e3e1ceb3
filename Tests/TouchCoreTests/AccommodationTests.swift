import Testing
@testable import TouchCore
import TouchTestSupport

/// Touch accommodations through the engine (issue 46, item 3): what the views and controls get
/// from a finger under Hold Duration, Ignore Repeat and Tap Assistance, per device or per
/// output, and nothing different without them. Each expectation is from iOS's rules
/// (docs/config.md, "Touch accommodations"); device units are screen points.
@Suite struct AccommodationTests {
    /// An 800×480 screen with a button "ok" at (100, 100)-(300, 200).
    static let ok = #"{"id": "ok", "frame": [100, 100, 200, 100], "control": "button"}"#

    func rig(_ a: AccommodationSettings?, outputs: String? = nil) -> Rig {
        var s = DeviceSettings()
        s.accommodations = a
        let cfg = outputs.map { config("""
            {"outputs": [\($0)], "windows": [{"id": "main", "frame": [0, 0, 800, 480], "output": "panel",
             "view": {"id": "root", "frame": [0, 0, 800, 480], "subviews": [\(Self.ok)]}}]}
            """) } ?? scene(Self.ok)
        return Rig(cfg, settings: s)
    }

    /// Frames as "time phase view (x,y)", from the frames' own times and locations.
    func frames(_ r: Rig) -> [String] {
        r.frames.flatMap { f in
            f.touches.filter { $0.phase != .stationary }.map { t in
                "\(f.time / 1000)ms \(t.phase.name) \(r.scene.id(of: t.view) ?? "-") (\(Int(t.location.x)),\(Int(t.location.y)))"
            }
        }
    }

    func controls(_ r: Rig) -> [String] { r.messages.controls.map { "\(r.scene[$0.control].id) \($0.event.rawValue)" } }

    /// A finger down at `at` ms, moved through `path`, lifted at `up` ms (each step one frame).
    func touch(_ r: Rig, at: Int64, _ x: Int32, _ y: Int32, moves: [(Int64, Int32, Int32)] = [], up: Int64) {
        r.finger.time = at * 1000
        r.down(x, y)
        for (t, mx, my) in moves {
            r.finger.time = t * 1000
            r.move(mx, my)
        }
        r.finger.time = up * 1000
        r.up()
    }

    @Test func holdDurationDropsShortTouchesAndBeginsTheOthersWhenHeld() {
        let r = rig(AccommodationSettings(holdDuration: 300_000))
        touch(r, at: 0, 150, 150, up: 200)                      // 0.2 s: never a touch
        #expect(frames(r) == [] && controls(r) == [])
        touch(r, at: 1000, 150, 150, moves: [(1100, 160, 150)], up: 1400)
        #expect(frames(r) == ["1300ms began ok (160,150)", "1400ms ended ok (160,150)"])
        #expect(controls(r) == ["ok touchDown", "ok touchUpInside", "ok primaryActionTriggered"])
    }

    @Test func ignoreRepeatDropsARecoilAfterALift() {
        let r = rig(AccommodationSettings(ignoreRepeat: 500_000))
        touch(r, at: 0, 150, 150, up: 100)
        touch(r, at: 400, 152, 150, moves: [(450, 160, 150)], up: 500)   // 0.3 s after the lift: ignored
        touch(r, at: 1000, 150, 150, up: 1100)                           // 0.5 s after the last delivered lift
        #expect(frames(r) == ["0ms began ok (150,150)", "100ms ended ok (150,150)",
                              "1000ms began ok (150,150)", "1100ms ended ok (150,150)"])
        #expect(r.frames.flatMap(\.touches).filter { $0.phase == .began }.map(\.tapCount) == [1, 1],
                "the ignored repeat is no tap: the next is 0.9 s after the first, past the tap interval")
    }

    @Test func tapAssistanceInitialTapsWhereTheFingerCameDown() {
        let r = rig(AccommodationSettings(tapAssistance: .initial))
        touch(r, at: 0, 150, 150, moves: [(100, 350, 150), (200, 400, 300)], up: 300)
        #expect(frames(r) == ["300ms began ok (150,150)", "300ms ended ok (150,150)"])
        #expect(controls(r) == ["ok touchDown", "ok touchUpInside", "ok primaryActionTriggered"])
    }

    @Test func tapAssistanceFinalTapsWhereItLifted() {
        let r = rig(AccommodationSettings(tapAssistance: .final))
        touch(r, at: 0, 400, 300, moves: [(100, 200, 150)], up: 300)
        #expect(frames(r) == ["300ms began ok (200,150)", "300ms ended ok (200,150)"])
        let missed = rig(AccommodationSettings(tapAssistance: .initial))
        touch(missed, at: 0, 400, 300, moves: [(100, 200, 150)], up: 300)
        #expect(frames(missed) == ["300ms began root (400,300)", "300ms ended root (400,300)"], "initial: where it came down")
        #expect(controls(missed) == [])
    }

    @Test func tapAssistanceLetsAHeldFingerDragAfterTheDelay() {
        let r = rig(AccommodationSettings(tapAssistance: .initial, tapAssistanceDelay: 400_000))
        touch(r, at: 0, 150, 150, moves: [(200, 170, 150), (600, 500, 150)], up: 700)
        #expect(frames(r) == ["400ms began ok (170,150)", "600ms moved ok (500,150)", "700ms ended ok (500,150)"])
        #expect(controls(r).last == "ok touchUpOutside")
    }

    @Test func holdThenTapAssistance() {
        let r = rig(AccommodationSettings(holdDuration: 300_000, tapAssistance: .initial))
        touch(r, at: 0, 150, 150, moves: [(350, 400, 300)], up: 500)   // held 0.3 s, lifted 0.2 s later
        #expect(frames(r) == ["500ms began ok (150,150)", "500ms ended ok (150,150)"])
    }

    @Test func outputsAccommodationsAndADevicesOwn() {
        let panel = #"{"id": "panel", "width": 800, "height": 480, "accommodations": {"holdDuration": 0.3}}"#
        let byOutput = rig(nil, outputs: panel)
        touch(byOutput, at: 0, 150, 150, up: 200)
        #expect(frames(byOutput) == [], "the output's hold duration")
        let own = rig(AccommodationSettings(ignoreRepeat: 100_000), outputs: panel)
        touch(own, at: 0, 150, 150, up: 200)
        #expect(frames(own) == ["0ms began ok (150,150)", "200ms ended ok (150,150)"], "the device's own replaces its output's")
    }

    @Test func withoutAccommodationsNoStage() {
        let r = rig(nil)
        touch(r, at: 0, 150, 150, up: 50)
        #expect(frames(r) == ["0ms began ok (150,150)", "50ms ended ok (150,150)"])
        #expect(r.engine.accommodationStages.isEmpty && r.engine.accommodationDeadline == nil)
        let empty = rig(AccommodationSettings())
        touch(empty, at: 0, 150, 150, up: 50)
        #expect(empty.engine.accommodationStages.isEmpty, "an empty accommodations object is none")
    }

    @Test func aReloadThatRemovesThemRefusesTheUndecidedContact() {
        let r = rig(AccommodationSettings(holdDuration: 300_000))
        r.finger.time = 0
        r.down(150, 150)
        r.reload(DeviceSettings())
        r.finger.time = 400_000
        r.move(160, 150)
        r.finger.time = 500_000
        r.up()
        touch(r, at: 1000, 150, 150, up: 1050)
        #expect(frames(r) == ["1000ms began ok (150,150)", "1050ms ended ok (150,150)"])
        #expect(r.engine.accommodationStages.isEmpty, "the stage goes once its last contact lifted")
    }

    @Test func aDeviceGoingEndsWhatWasDelivered() {
        let r = rig(AccommodationSettings(holdDuration: 300_000))
        r.finger.time = 0
        r.down(150, 150)
        r.advance(to: 350_000)
        r.removeDevice(time: 400_000)
        #expect(frames(r) == ["300ms began ok (150,150)", "400ms cancelled ok (150,150)"])
        #expect(r.engine.accommodationStages.isEmpty)
    }
}

/// `accommodations` in the config: each mistake named by its JSON path (check-config's habit).
@Suite struct AccommodationConfigTests {
    func errors(_ json: String) -> [String] {
        do {
            _ = try Config.parse(json)
            return []
        } catch { return error.errors.map { "\($0.path): \($0.message)" } }
    }

    @Test func keysAndRanges() throws {
        func with(_ a: String) -> [String] { errors(#"{"windows": [], "devices": [{"match": {"name": "*"}, "accommodations": "# + a + "}]}") }
        #expect(with(#"{"holdDuration": 0.3, "ignoreRepeat": 0.5, "tapAssistance": "final", "tapAssistanceDelay": 1}"#) == [])
        #expect(with(#"{"holdDuration": 0.01}"#) == ["$.devices[0].accommodations.holdDuration: must be at least 0.05, got 0.01"])
        #expect(with(#"{"ignoreRepeat": 5}"#) == ["$.devices[0].accommodations.ignoreRepeat: must be at most 4, got 5"])
        #expect(with(#"{"tapAssistance": "middle"}"#) == [#"$.devices[0].accommodations.tapAssistance: expected "initial" (a tap where the finger came down) or "final" (where it lifted), got "middle""#])
        #expect(with(#"{"tapAssistanceDelay": 0.3}"#) == [#"$.devices[0].accommodations.tapAssistanceDelay: has no effect without "tapAssistance""#])
        #expect(with(#"{"hold": 1}"#).first?.hasPrefix("$.devices[0].accommodations.hold:") == true)
        let c = try Config.parse(#"{"outputs": [{"id": "a", "width": 800, "height": 480, "accommodations": {"holdDuration": 0.25}}], "windows": [], "devices": [{"match": {"name": "x"}, "accommodations": {"tapAssistance": "initial"}}]}"#)
        #expect(c.scene.outputAccommodations == ["a": AccommodationSettings(holdDuration: 250_000)])
        #expect(c.devices[0].settings.accommodations == AccommodationSettings(tapAssistance: .initial))
        #expect(errors(#"{"outputs": [{"id": "a", "width": 800, "height": 480, "accommodations": {"ignoreRepeat": "x"}}], "windows": []}"#)
                == ["$.outputs[0].accommodations.ignoreRepeat: expected a number, got a string"])
    }
}
