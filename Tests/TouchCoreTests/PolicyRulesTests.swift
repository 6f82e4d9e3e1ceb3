import Testing
@testable import TouchCore
import TouchTestSupport

/// Issue 40, items 1–3: the levels policy beyond `attach`. A client held below the kiosk may not
/// act on an output (turn it, calibrate its panel), a calibration cannot hold a device for ever,
/// and a window id is not first come, first served.
@Suite struct PolicyRulesTests {
    /// The packaged config's policy: the kiosk's group at 0…1000, everyone else at -1000…-1.
    static let clients = """
        {"owners": [{"groups": ["kiosk"], "levels": [0, 1000]}, {"groups": ["touchd"], "levels": [-1000, -1]}]}
        """
    static let scene = """
        {"outputs": [{"id": "DSI-1", "width": 800, "height": 480}, {"id": "HDMI-A-1", "width": 1920, "height": 1080, "actors": {"users": ["signage"]}}],
         "clients": \(clients),
         "windows": []}
        """
    static func pinpad(level: Int) -> String {
        """
        {"attach": {"id": "pinpad", "frame": [0, 0, 800, 480], "level": \(level), "private": true,
                    "view": {"id": "pad", "frame": [0, 0, 800, 480],
                             "subviews": [{"id": "digit5", "frame": [300, 200, 100, 100], "control": "button"}]}}}
        """
    }

    /// A private window's touch ids come from its owner's counter (issue 40, item 5).
    static func pid(_ owner: Int, _ n: Int) -> String { "t\((1 << 32) + owner << 24 + n)" }

    static let kiosk = OwnersPolicy.Entry(groups: ["kiosk"], levels: 0...1000)
    static let low = OwnersPolicy.Entry(groups: ["touchd"], levels: -1000 ... -1)

    func limits(_ entry: OwnersPolicy.Entry, _ cfg: Config, named: Set<String> = []) -> ClientLimits {
        var l = cfg.clients.limits
        l.levels = entry.levels!
        l.actsOn = cfg.clients.outputsActedOn(entry: entry, named: named)
        return l
    }

    @Test func onlyTheTopOfThePolicyOrAnOutputsActorsMayActOnIt() throws {
        let cfg = try Config.parse(Self.scene)
        #expect(cfg.clients.topLevel == 1000)
        #expect(cfg.clients.outputActors["HDMI-A-1"]?.users == ["signage"])
        #expect(cfg.clients.outputsActedOn(entry: Self.kiosk, named: []) == nil)
        #expect(cfg.clients.outputsActedOn(entry: Self.low, named: []) == [])
        #expect(cfg.clients.outputsActedOn(entry: Self.low, named: ["HDMI-A-1"]) == ["HDMI-A-1"])
        #expect(cfg.clients.outputsActedOn(entry: nil, named: ["HDMI-A-1"]) == ["HDMI-A-1"])
        // An entry without levels takes clients.levels (unbounded here): it reaches the top.
        #expect(cfg.clients.outputsActedOn(entry: OwnersPolicy.Entry(users: ["x"]), named: []) == nil)
        // Without a policy every client may act on every output.
        let open = try Config.parse(#"{"windows": []}"#)
        #expect(open.clients.outputsActedOn(entry: nil, named: []) == nil)
    }

    @Test func aLowClientCannotCalibrateTheKiosksPanelNorTurnItsDisplay() throws {
        let r = Rig(try Config.parse(Self.scene))
        r.limits = limits(Self.kiosk, r.cfg)
        #expect(r.send(Self.pinpad(level: 500), from: 1) == .attached(window: "pinpad", version: 1))
        r.limits = limits(Self.low, r.cfg)
        let calibrate = SceneRequest.calibrate(device: "test", targets: [Point(100, 100), Point(700, 100), Point(400, 400)])
        guard case .refused("calibrate", nil, let e)? = r.send(calibrate, from: 2) else { Issue.record("the low client calibrated"); return }
        #expect(e.path == "device")
        #expect(e.message == #"calibrating a device of output "DSI-1" is for clients whose levels reach the top of clients.owners' ranges (this client's highest: -1), or that outputs[].actors names"#)
        guard case .refused("output", nil, let turn)? = r.send(.output(id: "DSI-1", rotation: .r90), from: 2) else { Issue.record("the low client turned the display"); return }
        #expect(turn.path == "id" && turn.message.hasPrefix(#"turning output "DSI-1" is for clients whose levels reach the top"#))
        #expect(r.scene.outputs[0].rotation == .r0)
        // The PIN pad still gets its digit: nothing of the refusals took the device.
        r.tap(350, 250)
        #expect(r.take() == ["\(Self.pid(1, 1)) began digit5", "digit5 touchDown", "\(Self.pid(1, 1)) ended digit5", "digit5 touchUpInside", "digit5 primaryActionTriggered"])
        // The output its actors name is the low client's to turn; not the kiosk's panel.
        r.limits = limits(Self.low, r.cfg, named: ["HDMI-A-1"])
        #expect(r.send(.output(id: "HDMI-A-1", rotation: .r90), from: 2) == .turned(Output(id: "HDMI-A-1", size: Size(1920, 1080), rotation: .r90)))
        #expect(r.send(.output(id: "DSI-1", rotation: .r90), from: 2)?.isRefusal == true)
        // The kiosk may do both.
        r.limits = limits(Self.kiosk, r.cfg)
        guard case .calibration(.target(_, _, 0, 3, _, _))? = r.send(calibrate, from: 1) else { Issue.record("the kiosk could not calibrate"); return }
    }

    @Test func aCalibrationWithoutATapEndsByItselfAndGivesTheDeviceBack() throws {
        let r = Rig(try Config.parse(Self.scene))
        r.limits = limits(Self.kiosk, r.cfg)
        r.limits.calibrationTimeout = 10_000_000
        r.send(Self.pinpad(level: 500), from: 1)
        var told: [(Int, CalibrationMessage)] = []
        r.observer = { if case .calibration(let c, let m) = $0 { told.append((c, m)) } }
        r.finger.time = 1_000_000
        let calibrate = SceneRequest.calibrate(device: "test", targets: [Point(100, 100), Point(700, 100), Point(400, 400)])
        guard case .calibration? = r.send(calibrate, from: 1) else { Issue.record("not started"); return }
        #expect(r.engine.nextDeadline == 11_000_000)
        // A tap at 9 s gives the next target its whole time again.
        r.finger.time = 9_000_000
        r.tap(100, 100)
        #expect(r.take().isEmpty)
        #expect(r.engine.nextDeadline.map { $0 >= 19_000_000 } == true, "\(String(describing: r.engine.nextDeadline))")
        r.advance(to: 18_900_000)
        #expect(r.engine.isCalibrating(r.device))
        r.advance(to: 19_100_000)
        #expect(!r.engine.isCalibrating(r.device))
        guard case .ended("test", "timeout")? = told.last?.1, told.last?.0 == 1 else { Issue.record("\(told)"); return }
        // Nothing changed, and the device's taps reach the windows again.
        #expect(r.engine.nextDeadline == nil)
        r.finger.time = 20_000_000
        r.tap(350, 250)
        #expect(r.take().first == "\(Self.pid(1, 1)) began digit5")
    }

    @Test func aHigherClientTakesTheIdsALowerOneSquatsAndItsWindowGoes() throws {
        let r = Rig(try Config.parse(Self.scene))
        r.limits = limits(Self.low, r.cfg)
        // While the kiosk reconnects, a low client takes its ids.
        #expect(r.send(Self.pinpad(level: -1), from: 2) == .attached(window: "pinpad", version: 1))
        r.down(350, 250)                     // a finger on the squatter's pad
        #expect(r.take() == ["\(Self.pid(2, 1)) began digit5", "digit5 touchDown"])
        // Another client as low cannot take them.
        guard case .refused("attach", "pinpad", let e)? = r.send(Self.pinpad(level: -1), from: 3) else { Issue.record("an equal client took the ids"); return }
        #expect(e.message == #"id "pinpad" is taken: ids are unique across the whole scene"#)
        // The kiosk does: the squatter's window goes, told why, and its touch is cancelled.
        r.limits = limits(Self.kiosk, r.cfg)
        #expect(r.send(Self.pinpad(level: 500), from: 1) == .attached(window: "pinpad", version: 1))
        #expect(r.notices.map(\.client) == [2])
        #expect(r.notices.map(\.notice) == [.detached(window: "pinpad", reason: "preempted")])
        #expect(r.take() == ["\(Self.pid(2, 1)) cancelled digit5 window-removed", "digit5 touchCancel"])
        #expect(String(decoding: WindowNotice.detached(window: "pinpad", reason: "preempted").encode(), as: UTF8.self)
                == #"{"type":"detached","window":"pinpad","reason":"preempted"}"# + "\n")
        r.up()
        // The next tap on the PIN pad is the kiosk's.
        r.tap(350, 250)
        let owner = r.frames.last.flatMap { f in f.touches.first?.window.map { r.scene[$0].owner } } ?? nil
        #expect(owner == 1)
        #expect(r.take() == ["\(Self.pid(1, 1)) began digit5", "digit5 touchDown", "\(Self.pid(1, 1)) ended digit5", "digit5 touchUpInside", "digit5 primaryActionTriggered"])
        // The low client cannot take them back.
        r.limits = limits(Self.low, r.cfg)
        #expect(r.send(Self.pinpad(level: -1), from: 2)?.isRefusal == true)
    }

    @Test func theConfigsIdsAreNobodysToTake() throws {
        let r = Rig(config(liveBase))
        r.limits.levels = 0...1_000_000
        let squat = #"{"attach": {"id": "w", "frame": [0, 0, 10, 10], "view": {"id": "base-button", "frame": [0, 0, 10, 10]}}}"#
        #expect(r.send(squat, from: 1)?.isRefusal == true)
        #expect(r.notices.isEmpty)
    }
}
