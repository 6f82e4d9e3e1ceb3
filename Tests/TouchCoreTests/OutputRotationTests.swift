import Testing
@testable import TouchCore
import TouchTestSupport

/// An output turned at run time (issue 33, item 2): exactly its touches end, with the reason;
/// every subscriber is told; the next finger is mapped in the new orientation.
@Suite struct OutputRotationTests {
    struct Board {
        let cfg: Config
        let e: Engine
        let dsi: DeviceIndex
        let hdmi: DeviceIndex
        var out: [Message] = []

        init() throws {
            cfg = try Config.parse(OutputsTests.twoPanels)
            e = Engine(scene: cfg.scene)
            var s = DeviceSettings()
            s.output = "HDMI-A-1"
            dsi = e.addDevice(OutputsTests.descriptor("dsi-touch"), info: screenDevice(), trackerProtocol: .b, settings: DeviceSettings(), time: 0)
            hdmi = e.addDevice(OutputsTests.descriptor("hdmi-touch"), info: OutputsTests.device(1000, 600), trackerProtocol: .b, settings: s, time: 0)
            _ = e.drain()
        }

        /// One hardware frame of slot 0 on `d`.
        func frame(_ d: DeviceIndex, at t: Int64, _ body: (inout Finger) -> Void) {
            var f = Finger()
            f.time = t
            f.nextID = Int32(100 + d.rawValue * 10 + Int(t / 1_000_000))
            body(&f)
            f.syn()
            for ev in f.events { e.process(ev, device: d) }
        }

        mutating func take() -> [Message] {
            let m = e.drain().compactMap { if case .message(let m) = $0 { return m }; return nil }
            out += m
            return m
        }
    }

    static func touches(_ ms: [Message]) -> [(String, TouchRecord)] {
        ms.flatMap { m -> [(String, TouchRecord)] in if case .frame(let f) = m { return f.touches.map { (f.device, $0) } }; return [] }
    }

    @Test func turningCancelsExactlyThatOutputsTouchesAndMapsTheNextFingerAnew() throws {
        var b = try Board()
        b.frame(b.dsi, at: 1_000) { $0.down(0, 100, 100) }
        b.frame(b.hdmi, at: 2_000) { $0.down(0, 100, 100) }
        #expect(Self.touches(b.take()).map { $0.1.phase } == [.began, .began])
        let reply = b.e.apply(.output(id: "HDMI-A-1", rotation: .r90), from: 1, time: 3_000)
        let turned = Output(id: "HDMI-A-1", size: Size(1000, 600), rotation: .r90)
        #expect(reply == .turned(turned))
        let now = b.take()
        // The HDMI finger's touch ends, cancelled with the reason; the DSI finger's does not.
        let ts = Self.touches(now)
        #expect(ts.count == 1)
        #expect(ts.first?.0 == "hdmi-touch" && ts.first?.1.phase == .cancelled && ts.first?.1.reason == .outputChanged)
        // Every subscriber is told, after the cancellation.
        let outputs = now.compactMap { if case .output(let o) = $0 { return o.output }; return nil }
        #expect(outputs == [turned])
        if case .output? = now.last {} else { Issue.record("the output message is not last: \(now)") }
        #expect(b.e.scene.outputs[1] == turned && b.e.scene.outputs[0].rotation == .r0)
        // The cancelled finger's moves and lift reach nobody; the other finger goes on.
        b.frame(b.hdmi, at: 4_000) { $0.move(0, 120, 100) }
        b.frame(b.dsi, at: 4_500) { $0.move(0, 130, 100) }
        let after = Self.touches(b.take())
        #expect(after.map(\.0) == ["dsi-touch"])
        #expect(after.first?.1.phase == .moved && after.first?.1.location == Point(130, 100))
        b.frame(b.hdmi, at: 5_000) { $0.up(0) }
        #expect(Self.touches(b.take()).isEmpty)
        // The next finger on HDMI, at its natural top-right corner: the UI's bottom-right at 90.
        b.frame(b.hdmi, at: 6_000) { $0.down(0, 999, 0) }
        let next = Self.touches(b.take())
        #expect(next.first?.1.phase == .began)
        #expect(next.first?.1.location == Point(599, 999))
        #expect(next.first?.1.output == "HDMI-A-1")
    }

    /// UITouch.tapCount and a turn: a tap sequence on the output that turns ends (the same
    /// place is elsewhere on the glass now), even with no finger down; one on the other output
    /// goes on, even when the turn cancels a finger (the count used to be reset for every
    /// output, and only when a touch was cancelled).
    @Test func aTurnEndsOnlyItsOwnOutputsTapSequence() throws {
        var b = try Board()
        // Two taps on DSI with HDMI turned between them while a finger is down on HDMI.
        b.frame(b.hdmi, at: 900_000) { $0.down(0, 500, 300) }
        b.frame(b.dsi, at: 1_000_000) { $0.down(0, 100, 100) }
        b.frame(b.dsi, at: 1_050_000) { $0.up(0) }
        _ = b.e.apply(.output(id: "HDMI-A-1", rotation: .r90), from: 1, time: 1_100_000)
        b.frame(b.dsi, at: 1_200_000) { $0.down(0, 100, 100) }
        let dsiTaps = Self.touches(b.take()).filter { $0.0 == "dsi-touch" && $0.1.phase == .began }.map(\.1.tapCount)
        #expect(dsiTaps == [1, 2])
        b.frame(b.dsi, at: 1_250_000) { $0.up(0) }
        b.frame(b.hdmi, at: 1_300_000) { $0.up(0) }
        // Two taps at HDMI's middle with it turned half round between them (90 → 270: the middle
        // stays within a point of where it was), no finger down: the second is a first.
        b.frame(b.hdmi, at: 3_000_000) { $0.down(0, 500, 300) }
        b.frame(b.hdmi, at: 3_050_000) { $0.up(0) }
        _ = b.e.apply(.output(id: "HDMI-A-1", rotation: .r270), from: 1, time: 3_100_000)
        b.frame(b.hdmi, at: 3_200_000) { $0.down(0, 500, 300) }
        let hdmiTaps = Self.touches(b.take()).filter { $0.0 == "hdmi-touch" && $0.1.phase == .began && $0.1.timestamp >= 3_000_000 }.map(\.1.tapCount)
        #expect(hdmiTaps == [1, 1])
    }

    /// A reload undoes a run-time turn (the config's rotation again): the touches down on that
    /// output end as for a turn, and every subscriber is told what the output is now; the other
    /// output's finger goes on.
    @Test func aReloadThatUndoesATurnEndsItsTouchesAndSaysSo() throws {
        var b = try Board()
        _ = b.e.apply(.output(id: "HDMI-A-1", rotation: .r90), from: 1, time: 500)
        _ = b.take()
        b.frame(b.dsi, at: 1_000) { $0.down(0, 100, 100) }
        b.frame(b.hdmi, at: 2_000) { $0.down(0, 100, 100) }
        #expect(Self.touches(b.take()).map { $0.1.phase } == [.began, .began])
        b.e.replaceScene(b.cfg.scene, time: 3_000)
        let now = b.take()
        let ts = Self.touches(now)
        #expect(ts.count == 1)
        #expect(ts.first?.0 == "hdmi-touch" && ts.first?.1.phase == .cancelled && ts.first?.1.reason == .outputChanged)
        let outputs = now.compactMap { if case .output(let o) = $0 { return o.output }; return nil }
        #expect(outputs == [Output(id: "HDMI-A-1", size: Size(1000, 600), rotation: .r0)])
        b.frame(b.dsi, at: 4_000) { $0.move(0, 130, 100) }
        #expect(Self.touches(b.take()).map(\.0) == ["dsi-touch"])
        // A reload that changes no output says nothing of outputs.
        b.e.replaceScene(b.cfg.scene, time: 5_000)
        #expect(b.take().allSatisfy { if case .output = $0 { return false }; return true })
    }

    @Test func aScreenEdgePanTakesItsOutputsNewEdges() throws {
        var b = try Board()
        _ = b.e.apply(.output(id: "HDMI-A-1", rotation: .r90), from: 1, time: 1_000)
        _ = b.take()
        // 600 wide now: a finger at x 595 is at the right edge (before, 995 was).
        b.frame(b.hdmi, at: 10_000) { _ in }
        var f = Finger()
        f.time = 20_000
        // Natural (y → UI x): UI x = 599 − natural y; natural y 4 → UI x 595; UI y = natural x.
        f.down(0, 400, 4); f.syn(after: 20)
        for k in 1...4 { f.move(0, 400, 4 + 15 * Int32(k)); f.syn(after: 20) }
        f.up(0); f.syn()
        for ev in f.events { b.e.process(ev, device: b.hdmi) }
        let states = b.take().compactMap { if case .gesture(let g) = $0, g.recognizer == "back" { return g.state.rawValue }; return nil }
        #expect(states.first == "began", "\(states)")
    }

    @Test func anUnchangedRotationPublishesNothing() throws {
        var b = try Board()
        b.frame(b.hdmi, at: 1_000) { $0.down(0, 100, 100) }
        _ = b.take()
        #expect(b.e.apply(.output(id: "HDMI-A-1", rotation: .r0), from: 1, time: 2_000) == .turned(b.e.scene.outputs[1]))
        #expect(b.take().isEmpty)
    }

    @Test func badRequestsAreRefusedAndChangeNothing() throws {
        var b = try Board()
        let unknown = b.e.apply(.output(id: "VGA-1", rotation: .r90), from: 1, time: 1_000)
        #expect(unknown == .refused(request: "output", window: nil,
                                    error: SceneRequestError(path: "id", message: "no output has id \"VGA-1\" (outputs: DSI-1, HDMI-A-1)")))
        #expect(b.take().isEmpty)
        #expect(b.e.scene.outputs.map(\.rotation) == [.r0, .r0])
        func parse(_ json: String) throws -> Result<SceneRequest, SceneRequestError>? {
            SceneRequest.parse("output", try JSONParser.parse(json))
        }
        #expect(try parse(#"{"id": "DSI-1", "rotation": 45}"#) == .failure(SceneRequestError(path: "rotation", message: "must be 0, 90, 180 or 270 (a right angle), got 45")))
        #expect(try parse(#"{"id": "DSI-1"}"#) == .failure(SceneRequestError(path: "rotation", message: "missing: 0, 90, 180 or 270")))
        #expect(try parse(#"{"id": "DSI-1", "rotation": 270}"#) == .success(.output(id: "DSI-1", rotation: .r270)))
        // The asker's reply: the output message's shape, with its line.
        let line = String(decoding: SceneReply.turned(Output(id: "DSI-1", size: Size(800, 480), rotation: .r270)).encode(line: 3), as: UTF8.self)
        #expect(line == #"{"type":"output","output":{"id":"DSI-1","width":800.0,"height":480.0,"rotation":270},"line":3}"# + "\n")
    }
}
