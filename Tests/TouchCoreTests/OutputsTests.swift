import Testing
@testable import TouchCore
import TouchTestSupport

/// Outputs (issue 33, item 1): UIScreen.screens — each window on one output, each device on
/// one output, each touch hit-tested among its output's windows only.
@Suite struct OutputsTests {
    /// Two outputs; a window at the same coordinates on each; an edge pan on the second.
    static let twoPanels = """
        {"outputs": [{"id": "DSI-1", "width": 800, "height": 480},
                     {"id": "HDMI-A-1", "width": 1000, "height": 600}],
         "devices": [{"match": {"name": "hdmi-touch"}, "output": "HDMI-A-1"}],
         "windows": [
           {"id": "dsi", "frame": [0, 0, 400, 300], "view": {"id": "dsiView", "frame": [0, 0, 400, 300], "touches": "handle"}},
           {"id": "hdmi", "output": "HDMI-A-1", "frame": [0, 0, 400, 300],
            "view": {"id": "hdmiView", "frame": [0, 0, 400, 300], "touches": "handle"}},
           {"id": "hdmiEdge", "output": "HDMI-A-1", "frame": [0, 0, 1000, 600], "level": -1,
            "view": {"id": "pad", "frame": [0, 0, 1000, 600], "touches": "handle",
                     "gestures": [{"id": "back", "kind": "screenEdgePan", "edges": ["right"]}]}}
         ]}
        """

    /// A protocol B device whose units are the points of a `w` × `h` output.
    static func device(_ w: Int32, _ h: Int32) -> DeviceInfo {
        var info = screenDevice()
        info.abs[ABS.MT_POSITION_X] = AbsInfo(minimum: 0, maximum: w - 1)
        info.abs[ABS.MT_POSITION_Y] = AbsInfo(minimum: 0, maximum: h - 1)
        return info
    }

    static func descriptor(_ id: String) -> DeviceDescriptor {
        DeviceDescriptor(id: id, name: id, vendor: 0, product: 0, touchProtocol: .b, slots: 10)
    }

    static func frames(_ e: Engine) -> [FrameMessage] {
        e.drain().compactMap { if case .message(.frame(let f)) = $0 { return f }; return nil }
    }

    static func tap(_ e: Engine, _ d: DeviceIndex, _ x: Int32, _ y: Int32, at t: Int64) {
        var f = Finger()
        f.time = t
        f.down(0, x, y); f.syn()
        f.up(0); f.syn()
        for ev in f.events { e.process(ev, device: d) }
    }

    @Test func eachFingerIsHitTestedAmongItsOutputsWindowsOnly() throws {
        let cfg = try Config.parse(OutputsTests.twoPanels)
        let e = Engine(scene: cfg.scene)
        // One device by its entry (devices[].output), the other on the first output.
        let hdmiSettings = cfg.deviceEntry(name: "hdmi-touch", vendor: 0, product: 0)?.settings ?? DeviceSettings()
        #expect(hdmiSettings.output == "HDMI-A-1")
        let dsi = e.addDevice(OutputsTests.descriptor("dsi-touch"), info: screenDevice(), trackerProtocol: .b, settings: DeviceSettings(), time: 0)
        let hdmi = e.addDevice(OutputsTests.descriptor("hdmi-touch"), info: OutputsTests.device(1000, 600), trackerProtocol: .b,
                               settings: hdmiSettings, time: 0)
        #expect(e.outputID(of: dsi) == "DSI-1" && e.outputID(of: hdmi) == "HDMI-A-1")
        _ = e.drain()
        // The same point on each: each finger sees its own output's window, never the other's.
        OutputsTests.tap(e, hdmi, 100, 100, at: 1_000)
        let onHDMI = OutputsTests.frames(e)
        #expect(!onHDMI.isEmpty)
        for f in onHDMI {
            #expect(f.device == "hdmi-touch")
            for t in f.touches {
                #expect(cfg.scene.id(of: t.view) == "hdmiView")
                #expect(t.output == "HDMI-A-1")
            }
        }
        OutputsTests.tap(e, dsi, 100, 100, at: 500_000)
        let onDSI = OutputsTests.frames(e)
        #expect(!onDSI.isEmpty)
        for f in onDSI {
            for t in f.touches {
                #expect(cfg.scene.id(of: t.view) == "dsiView")
                #expect(t.output == "DSI-1")
            }
        }
        // Past the first output's width: only the second output has anything there.
        OutputsTests.tap(e, dsi, 799, 479, at: 1_000_000)
        #expect(OutputsTests.frames(e).flatMap(\.touches).allSatisfy { $0.view == nil && $0.output == "DSI-1" })
        OutputsTests.tap(e, hdmi, 900, 500, at: 1_500_000)
        #expect(OutputsTests.frames(e).flatMap(\.touches).allSatisfy { cfg.scene.id(of: $0.view) == "pad" })
    }

    /// With more than one output every touch carries its output; the encoder writes it.
    @Test func theOutputIsInEveryTouchOfAManyOutputMessage() throws {
        let cfg = try Config.parse(OutputsTests.twoPanels)
        let e = Engine(scene: cfg.scene)
        let d = e.addDevice(OutputsTests.descriptor("dsi-touch"), info: screenDevice(), trackerProtocol: .b, settings: DeviceSettings(), time: 0)
        _ = e.drain()
        OutputsTests.tap(e, d, 10, 10, at: 1_000)
        var out: [UInt8] = []
        for f in OutputsTests.frames(e) { MessageEncoder(scene: cfg.scene).encode(.frame(f), into: &out) }
        let text = String(decoding: out, as: UTF8.self)
        #expect(text.contains("\"view\":\"dsiView\",\"output\":\"DSI-1\",\"location\""))
        // One output: no "output" key at all.
        let one = try Config.parse(#"{"screen": {"width": 800, "height": 480}, "windows": [{"id": "w", "frame": [0, 0, 800, 480]}]}"#)
        let e1 = Engine(scene: one.scene)
        let d1 = e1.addDevice(OutputsTests.descriptor("t"), info: screenDevice(), trackerProtocol: .b, settings: DeviceSettings(), time: 0)
        _ = e1.drain()
        OutputsTests.tap(e1, d1, 10, 10, at: 1_000)
        var out1: [UInt8] = []
        let f1 = OutputsTests.frames(e1)
        #expect(!f1.isEmpty)
        for f in f1 { MessageEncoder(scene: one.scene).encode(.frame(f), into: &out1) }
        #expect(!String(decoding: out1, as: UTF8.self).contains("output"))
    }

    /// Screen-edge pans use the edges of their own output: 1000 wide, not the first's 800.
    @Test func screenEdgePansUseTheirOutputsEdges() throws {
        let cfg = try Config.parse(OutputsTests.twoPanels)
        func drag(fromX x: Int32) -> [String] {
            let e = Engine(scene: cfg.scene)
            var s = DeviceSettings()
            s.output = "HDMI-A-1"
            let d = e.addDevice(OutputsTests.descriptor("h"), info: OutputsTests.device(1000, 600), trackerProtocol: .b, settings: s, time: 0)
            var f = Finger()
            f.down(0, x, 400); f.syn(after: 20)
            for k in 1...4 { f.move(0, x - 15 * Int32(k), 400); f.syn(after: 20) }
            f.up(0); f.syn()
            for ev in f.events { e.process(ev, device: d) }
            return e.drain().compactMap { if case .message(.gesture(let g)) = $0, g.recognizer == "back" { return g.state.rawValue }; return nil }
        }
        #expect(drag(fromX: 995).first == "began")
        #expect(drag(fromX: 795) == ["failed"])        // the first output's right edge is nothing here
    }

    /// Where the four corners of an 800×480 panel land on its output under each rotation, with
    /// and without flips: exact points, the output's space turned at 90 and 270.
    @Test(arguments: [
        // rotation, flipX, flipY, then top-left, top-right, bottom-left, bottom-right
        (0, false, false, [Point(0, 0), Point(799, 0), Point(0, 479), Point(799, 479)]),
        (90, false, false, [Point(479, 0), Point(479, 799), Point(0, 0), Point(0, 799)]),
        (180, false, false, [Point(799, 479), Point(0, 479), Point(799, 0), Point(0, 0)]),
        (270, false, false, [Point(0, 799), Point(0, 0), Point(479, 799), Point(479, 0)]),
        (90, true, false, [Point(479, 799), Point(479, 0), Point(0, 799), Point(0, 0)]),
        (270, false, true, [Point(479, 799), Point(479, 0), Point(0, 799), Point(0, 0)]),
        (180, true, true, [Point(0, 0), Point(799, 0), Point(0, 479), Point(799, 479)]),
    ])
    func cornersAreExactUnderEveryRotation(rotation: Int, flipX: Bool, flipY: Bool, corners: [Point]) throws {
        let cfg = try Config.parse(#"{"outputs": [{"id": "P", "width": 800, "height": 480, "rotation": \#(rotation)}], "windows": []}"#)
        #expect(cfg.screen == (rotation % 180 == 0 ? Size(800, 480) : Size(480, 800)))
        var s = DeviceSettings()
        s.flipX = flipX
        s.flipY = flipY
        let e = Engine(scene: cfg.scene)
        let d = e.addDevice(OutputsTests.descriptor("p"), info: screenDevice(), trackerProtocol: .b, settings: s, time: 0)
        _ = e.drain()
        for (k, raw) in [(Int32(0), Int32(0)), (799, 0), (0, 479), (799, 479)].enumerated() {
            OutputsTests.tap(e, d, raw.0, raw.1, at: Int64(k) * 1_000_000 + 1_000)
            let began = OutputsTests.frames(e).flatMap(\.touches).first { $0.phase == .began }
            #expect(began?.location == corners[k], "corner \(k) at rotation \(rotation)")
        }
    }

    /// The device's own rotation (its mounting) and the output's (the UI's) add up.
    @Test func aDevicesRotationAndItsOutputsAddUp() throws {
        let cfg = try Config.parse(#"{"outputs": [{"id": "P", "width": 800, "height": 480, "rotation": 270}], "windows": []}"#)
        var s = DeviceSettings()
        s.rotation = .r90
        let e = Engine(scene: cfg.scene)
        let d = e.addDevice(OutputsTests.descriptor("p"), info: screenDevice(), trackerProtocol: .b, settings: s, time: 0)
        _ = e.drain()
        OutputsTests.tap(e, d, 799, 0, at: 1_000)
        let began = OutputsTests.frames(e).flatMap(\.touches).first { $0.phase == .began }
        // 90 then 270 is a full turn: the output's 480×800 space, the device's turned back.
        #expect(began?.location == Point(479, 0))
    }

    /// `devices[].output`, else WL_OUTPUT when it names a configured output, else the first.
    @Test func wlOutputNamesTheOutputUnlessTheEntryDoes() {
        let outputs = [Output(id: "DSI-1", size: Size(800, 480)), Output(id: "HDMI-A-1", size: Size(1920, 1080))]
        let none = DeviceSettings()
        #expect(none.resolvingOutput(properties: ["WL_OUTPUT": "HDMI-A-1"], outputs: outputs).output == "HDMI-A-1")
        #expect(none.resolvingOutput(properties: ["WL_OUTPUT": "DP-3"], outputs: outputs).output == nil)
        #expect(none.resolvingOutput(properties: [:], outputs: outputs).output == nil)
        var entry = DeviceSettings()
        entry.output = "DSI-1"
        #expect(entry.resolvingOutput(properties: ["WL_OUTPUT": "HDMI-A-1"], outputs: outputs).output == "DSI-1")
    }

    @Test func screenIsOneOutputNamedScreen() throws {
        let cfg = try Config.parse(#"{"screen": {"width": 1024, "height": 600}, "windows": []}"#)
        #expect(cfg.outputs == [Output(id: "screen", size: Size(1024, 600))])
        #expect(cfg.screen == Size(1024, 600))
        let turned = try Config.parse(#"{"outputs": [{"id": "DSI-1", "width": 800, "height": 480, "rotation": 90}], "windows": []}"#)
        #expect(turned.outputs[0].pointSize == Size(480, 800))
        #expect(turned.scene.screen == Size(480, 800))
    }

    /// Bad input: a clear error naming the JSON path, and no config.
    @Test(arguments: [
        (#"{"outputs": [{"id": "A", "width": 800, "height": 480, "rotation": 45}], "windows": []}"#,
         "$.outputs[0].rotation", "must be 0, 90, 180 or 270 (a right angle), got 45"),
        (#"{"outputs": [{"id": "A", "width": 800, "height": 480}], "windows": [{"id": "w", "output": "B", "frame": [0, 0, 1, 1]}]}"#,
         "$.windows[0].output", "no output has id \"B\" (outputs: A)"),
        (#"{"outputs": [{"id": "A", "width": 800, "height": 480}], "devices": [{"output": "HDMI-A-9"}], "windows": []}"#,
         "$.devices[0].output", "no output has id \"HDMI-A-9\" (outputs: A)"),
        (#"{"outputs": [{"id": "A", "width": 800, "height": 480}, {"id": "A", "width": 8, "height": 4}], "windows": []}"#,
         "$.outputs[1].id", "duplicate output id \"A\" (already used at $.outputs[0])"),
        (#"{"screen": {"width": 8, "height": 4}, "outputs": [{"id": "A", "width": 800, "height": 480}], "windows": []}"#,
         "$.screen", "give either \"screen\" or \"outputs\", not both (\"screen\" is one output)"),
        (#"{"outputs": [], "windows": []}"#, "$.outputs", "must list at least one output"),
        (#"{"devices": [{"rotation": 91}], "windows": []}"#, "$.devices[0].rotation", "must be 0, 90, 180 or 270 (a right angle), got 91"),
    ])
    func badOutputsAreRefusedWithTheirPath(json: String, path: String, message: String) {
        #expect(throws: ConfigErrors.self) { try Config.parse(json) }
        do {
            _ = try Config.parse(json)
        } catch {
            #expect(error.errors.contains { $0.path == path && $0.message == message }, "\(error)")
        }
    }

    /// A client's window names its output; one that names none there is refused.
    @Test func anAttachedWindowGoesOnTheOutputItNames() throws {
        let cfg = try Config.parse(OutputsTests.twoPanels)
        let r = Rig(cfg)
        guard case .success(let ok)? = SceneRequest.parse("attach", try JSONParser.parse(
            #"{"id": "c", "output": "HDMI-A-1", "level": 5, "frame": [0, 0, 50, 50], "view": {"id": "cv", "frame": [0, 0, 50, 50], "touches": "handle"}}"#)),
              case .success(let bad)? = SceneRequest.parse("attach", try JSONParser.parse(#"{"id": "d", "output": "VGA-1", "frame": [0, 0, 5, 5]}"#))
        else { Issue.record("the requests do not parse"); return }
        #expect(r.send(ok, from: 1) == .attached(window: "c", version: 1))
        #expect(r.send(bad, from: 1) == .refused(request: "attach", window: "d",
                                                 error: SceneRequestError(path: "output", message: "no output has id \"VGA-1\" (outputs: DSI-1, HDMI-A-1)")))
        // The rig's device is on the first output: the client's window (on the second) is not hit.
        r.tap(10, 10)
        #expect(r.take() == ["t1 began dsiView", "t1 ended dsiView"])
        #expect(r.scene[r.scene.viewIndex["c"]!].output == 1)
    }
}
