import Testing
@testable import TouchCore
import TouchTestSupport

/// A calibration from the UI on the glass (issue 33, item 3), through the engine with plain
/// values: the device's taps go to the session alone, a known distortion is recovered, a
/// misclick sends its target back, and every bad request changes nothing.
@Suite struct CalibrationSessionTests {
    static let config = """
        {"screen": {"width": 800, "height": 480},
         "windows": [{"id": "main", "frame": [0, 0, 800, 480], "view": {"id": "root", "frame": [0, 0, 800, 480], "touches": "handle"}}]}
        """

    /// The panel's distortion: its x axis follows the screen's y and its y the screen's x,
    /// each scaled and offset (a mis-mounted resistive panel) — device units for a screen point.
    static func raw(_ p: Point) -> (Int32, Int32) {
        (Int32((30 + 0.9 * p.y / 479 * 799).rounded()), Int32((20 + 0.85 * p.x / 799 * 479).rounded()))
    }

    final class Board {
        let e: Engine
        let d: DeviceIndex
        var time: Int64 = 1_000_000
        var nextID: Int32 = 100
        var messages: [Message] = []
        var told: [(Int, CalibrationMessage)] = []

        init() throws {
            var options = EngineOptions()
            options.tracing = true   // a hit test would show in the messages
            e = Engine(scene: try Config.parse(CalibrationSessionTests.config).scene, options: options)
            d = e.addDevice(DeviceDescriptor(id: "event5", name: "Resistive Panel", vendor: 0x0eef, product: 1, touchProtocol: .b, slots: 10),
                            info: screenDevice(), trackerProtocol: .b, settings: DeviceSettings(), time: 0)
            take()
        }

        func frame(_ body: (inout Finger) -> Void) {
            var f = Finger()
            f.time = time
            f.nextID = nextID
            body(&f)
            f.syn()
            nextID = f.nextID
            for ev in f.events { e.process(ev, device: d) }
            time += 20_000
        }

        /// A finger down and up at raw device units (x, y), a sample in between.
        func tap(_ r: (Int32, Int32)) {
            frame { $0.down(0, r.0, r.1) }
            frame { $0.move(0, r.0 + 1, r.1) }
            frame { $0.up(0) }
        }

        func tap(at p: Point) { tap(CalibrationSessionTests.raw(p)) }

        @discardableResult
        func take() -> (messages: [Message], told: [(Int, CalibrationMessage)]) {
            var m: [Message] = [], t: [(Int, CalibrationMessage)] = []
            for o in e.drain() {
                switch o {
                case .message(let x): m.append(x)
                case .calibration(let c, let x): t.append((c, x))
                default: break
                }
            }
            messages += m
            told += t
            return (m, t)
        }

        func start(_ targets: [Point]? = nil, client: Int = 7) -> SceneReply {
            let r = e.apply(.calibrate(device: "event5", targets: targets), from: client, time: time)
            time += 1_000
            return r
        }
    }

    static func touches(_ ms: [Message]) -> [TouchRecord] {
        ms.flatMap { m -> [TouchRecord] in if case .frame(let f) = m { return f.touches }; return [] }
    }

    static func asked(_ t: [(Int, CalibrationMessage)]) -> [Int] {
        t.compactMap { if case .target(_, _, let k, _, _, _) = $0.1 { return k }; return nil }
    }

    static let targets = Calibration.defaultTargets(Size(800, 480))

    @Test func aKnownDistortionIsRecoveredFromTapsAndTheDevicesTouchesReachNoWindow() throws {
        let b = try Board()
        // Before: the middle of the screen, tapped, lands far from the middle.
        b.frame { $0.down(0, Self.raw(Point(100, 400)).0, Self.raw(Point(100, 400)).1) }
        b.frame { $0.up(0) }
        let before = Self.touches(b.take().messages).first?.location ?? .zero
        #expect(before.distance(to: Point(100, 400)) > 50, "\(before)")
        let first = b.start()
        #expect(first == .calibration(.target(device: "event5", output: "screen", index: 0, count: 5, point: Self.targets[0], retry: nil)))
        for (k, t) in Self.targets.enumerated() {
            b.tap(at: t)
            let now = b.take()
            // No window, no hit test, no frame: the taps are the calibration's alone.
            #expect(now.messages.isEmpty, "\(now.messages)")
            #expect(now.told.allSatisfy { $0.0 == 7 })
            if k < 4 { #expect(Self.asked(now.told) == [k + 1]) }
        }
        guard case .calibrated(let device, let output, let matrix, let rms, let mx, let match)? = b.told.last?.1 else {
            Issue.record("no calibrated message: \(b.told)"); return
        }
        #expect(device == "event5" && output == "screen" && match.name == "Resistive Panel")
        #expect(rms < 1 && mx < 1.5, "rms \(rms) max \(mx)")
        // Normalised raw x follows screen y: the matrix swaps the axes back.
        #expect(abs(matrix[0]) < 0.01 && abs(matrix[4]) < 0.01 && abs(matrix[1]) > 1 && abs(matrix[3]) > 1, "\(matrix)")
        #expect(!b.e.isCalibrating(b.d))
        // Applied at once: the next finger lands where it is on the glass, in the window.
        for p in [Point(400, 240), Point(100, 400), Point(700, 60)] {
            b.frame { $0.down(0, Self.raw(p).0, Self.raw(p).1) }
            b.frame { $0.up(0) }
            let t = Self.touches(b.take().messages)
            #expect(t.first?.phase == .began && t.first?.view != nil)
            #expect((t.first?.location ?? .zero).distance(to: p) < 2, "\(p): \(String(describing: t.first?.location))")
        }
        // The calibrated line carries the config entry to save.
        let line = String(decoding: b.told.last!.1.encode(), as: UTF8.self)
        #expect(line.hasPrefix(#"{"type":"calibrated","device":"event5","output":"screen","matrix":["#), "\(line)")
        #expect(line.contains(#""entry":{"match":{"name":"Resistive Panel","vendor":"0x0eef","product":"0x0001"},"calibration":["#), "\(line)")
    }

    @Test func aMisclickSendsItsTargetBackAndTheFitIgnoresIt() throws {
        let b = try Board()
        _ = b.start()
        for t in Self.targets.prefix(4) { b.tap(at: t) }
        b.take()
        // The middle target tapped 150 points off: the other four agree, it does not.
        b.tap(at: Point(Self.targets[4].x + 150, Self.targets[4].y))
        let again = b.take().told
        guard case .target(_, _, 4, 5, let p, let retry)? = again.last?.1 else { Issue.record("\(again)"); return }
        #expect(p == Self.targets[4] && retry?.reason == "misclick", "\(String(describing: retry))")
        #expect(b.e.isCalibrating(b.d))
        b.tap(at: Self.targets[4])
        guard case .calibrated(_, _, _, let rms, _, _)? = b.take().told.last?.1 else { Issue.record("not calibrated"); return }
        #expect(rms < 1)
    }

    @Test func aTapAtAnEarlierTargetsPlaceAsksForTheTargetAgain() throws {
        let b = try Board()
        _ = b.start()
        b.tap(at: Self.targets[0])
        b.tap(at: Self.targets[0])
        let told = b.take().told
        #expect(Self.asked(told) == [1, 1])
        if case .target(_, _, _, _, _, let retry)? = told.last?.1 { #expect(retry?.reason == "same-place") }
    }

    @Test func touchesDownWhenItStartsAreCancelledAndTheirFingersStayUndelivered() throws {
        let b = try Board()
        b.frame { $0.down(0, 300, 200) }
        b.take()
        _ = b.start()
        let cancelled = Self.touches(b.take().messages)
        #expect(cancelled.map(\.phase) == [.cancelled] && cancelled.first?.reason == .calibrating)
        // Its moves and lift reach nobody, nor the session (no tap: it began before).
        b.frame { $0.move(0, 320, 200) }
        b.frame { $0.up(0) }
        let after = b.take()
        #expect(after.messages.isEmpty && after.told.isEmpty)
        // A finger down during the session, still down when it is cancelled, is never delivered.
        b.frame { $0.down(0, 300, 200) }
        #expect(b.e.apply(.cancelCalibration(device: "event5"), from: 7, time: b.time) == .calibration(.ended(device: "event5", reason: "cancelled")))
        b.frame { $0.move(0, 330, 200) }
        b.frame { $0.up(0) }
        #expect(b.take().messages.isEmpty)
        // The next finger is the windows' again, mapped as before.
        b.frame { $0.down(0, 300, 200) }
        let next = Self.touches(b.take().messages)
        #expect(next.first?.phase == .began && next.first?.location == Point(300, 200))
    }

    @Test func cancelLeavingTheDeviceGoingOrAReloadChangeNothing() throws {
        // Cancel: only by its client; nothing applied.
        let b = try Board()
        _ = b.start()
        for t in Self.targets.prefix(4) { b.tap(at: t) }
        let other = b.e.apply(.cancelCalibration(device: "event5"), from: 8, time: b.time)
        #expect(other == .refused(request: "calibrate", window: nil, error: SceneRequestError(path: "device", message: "no calibration of device \"event5\" is running for this client")))
        #expect(b.e.isCalibrating(b.d))
        b.take()
        _ = b.e.apply(.cancelCalibration(device: "event5"), from: 7, time: b.time)
        #expect(!b.e.isCalibrating(b.d))
        // The last target's tap is the window's now: no calibrated, the mapping as it was.
        b.tap(at: Self.targets[4])
        let last = b.take()
        #expect(last.told.isEmpty)
        #expect(Self.touches(last.messages).map(\.phase) == [.began, .moved, .ended])
        b.frame { $0.down(0, 300, 200) }
        #expect(Self.touches(b.take().messages).first?.location == Point(300, 200))

        // The client leaving: ended, nobody told.
        let c = try Board()
        _ = c.start()
        c.take()
        c.e.calibrationClientGone(7)
        #expect(!c.e.isCalibrating(c.d) && c.take().told.isEmpty)

        // The device going: its client is told.
        let g = try Board()
        _ = g.start()
        g.take()
        g.e.removeDevice(g.d, time: g.time)
        #expect(g.take().told.map(\.1) == [.ended(device: "event5", reason: "device-removed")])

        // Its output turning: the targets were in the old orientation.
        let o = try Board()
        _ = o.start()
        o.take()
        _ = o.e.apply(.output(id: "screen", rotation: .r90), from: 9, time: o.time)
        #expect(o.take().told.map(\.1) == [.ended(device: "event5", reason: "output-changed")])
        #expect(!o.e.isCalibrating(o.d))

        // The daemon stopping, a finger down on the device: its client is told; nobody else hears
        // of that finger (the windows never had it).
        let s = try Board()
        _ = s.start()
        s.frame { $0.down(0, 300, 200) }
        s.take()
        s.e.shutdown(time: s.time)
        let stopped = s.take()
        #expect(stopped.told.map(\.1) == [.ended(device: "event5", reason: "shutdown")])
        #expect(Self.touches(stopped.messages).isEmpty, "\(stopped.messages)")

        // A reload: its client is told; the file's settings are the device's.
        let r = try Board()
        _ = r.start()
        r.take()
        r.e.replaceScene(try Config.parse(Self.config).scene, time: r.time)
        #expect(r.take().told.map(\.1) == [.ended(device: "event5", reason: "reload")])
        #expect(!r.e.isCalibrating(r.d))
    }

    /// Starting a calibration settles what the filter holds of its own device only: another
    /// panel's lift held by its debounce keeps its time, so a bounce there is still one touch
    /// (it used to release every device's holds: the bounce became two touches).
    @Test func startingACalibrationLeavesOtherDevicesHoldsAlone() throws {
        let e = Engine(scene: try Config.parse(Self.config).scene)
        var filtered = DeviceSettings()
        filtered.filter = debounce(0.05)
        let b = e.addDevice(OutputsTests.descriptor("bouncy"), info: screenDevice(), trackerProtocol: .b, settings: filtered, time: 0)
        _ = e.addDevice(OutputsTests.descriptor("event5"), info: screenDevice(), trackerProtocol: .b, settings: DeviceSettings(), time: 0)
        func frame(at t: Int64, id: Int32 = 100, _ body: (inout Finger) -> Void) {
            var f = Finger()
            f.time = t
            f.nextID = id
            body(&f)
            f.syn()
            for ev in f.events { e.process(ev, device: b) }
        }
        frame(at: 1_000_000) { $0.down(0, 300, 200) }
        frame(at: 1_100_000) { $0.up(0) }                      // held: 50 ms of debounce
        _ = e.apply(.calibrate(device: "event5", targets: nil), from: 7, time: 1_120_000)
        frame(at: 1_130_000, id: 101) { $0.down(0, 302, 200) } // back within 50 ms and 20 points
        frame(at: 1_200_000) { $0.up(0) }
        e.advance(to: 2_000_000)
        let phases = e.drain().flatMap { o -> [Phase] in
            if case .message(.frame(let f)) = o, f.device == "bouncy" { return f.touches.map(\.phase) }
            return []
        }
        #expect(phases.filter { $0 == .began }.count == 1, "\(phases)")
        #expect(phases.last == .ended)
    }

    @Test func badRequestsAreRefusedAndChangeNothing() throws {
        let b = try Board()
        #expect(b.e.apply(.calibrate(device: "event9", targets: nil), from: 7, time: 1) ==
                .refused(request: "calibrate", window: nil, error: SceneRequestError(path: "device", message: "no device has id \"event9\" (devices: event5)")))
        let off = b.start([Point(10, 10), Point(800, 10), Point(400, 400)])
        #expect(off == .refused(request: "calibrate", window: nil, error: SceneRequestError(path: "targets[1]", message: "(800, 10) is off output \"screen\", where device \"event5\" lands (its points: x 0…799, y 0…479)")))
        let line = b.start([Point(10, 10), Point(400, 10), Point(790, 10)])
        #expect(line == .refused(request: "calibrate", window: nil, error: SceneRequestError(path: "targets", message: Calibration.Failure.collinear.description)))
        // Two targets whose taps would be one (within 3 % of 799 and of 479: 5 points apart):
        // the second would be asked for again and again, the device taken from every window.
        let close = b.start([Point(100, 100), Point(105, 100), Point(700, 100), Point(100, 400), Point(400, 240)])
        #expect(close == .refused(request: "calibrate", window: nil, error: SceneRequestError(path: "targets", message: "targets 1 and 2 are too close (within 3 % of the output's width and height): their taps would be taken for one")))
        // 30 points apart on x is enough (3.8 % of 799).
        if case .refused(_, _, let e) = b.start([Point(100, 100), Point(130, 100), Point(700, 100), Point(100, 400), Point(400, 240)]) {
            Issue.record("refused: \(e)")
        }
        _ = b.e.apply(.cancelCalibration(device: "event5"), from: 7, time: 1)
        #expect(!b.e.isCalibrating(b.d))
        // A second calibration of a device already calibrating, by anyone.
        _ = b.start()
        for client in [7, 8] {
            guard case .refused(_, _, let e) = b.start(client: client) else { Issue.record("a second calibration started"); continue }
            #expect(e.path == "device" && e.message.contains("is being calibrated already"), "\(e)")
        }
        #expect(Self.asked(b.take().told).isEmpty)
        // Parsing: paths of what is wrong.
        func parse(_ json: String) throws -> Result<SceneRequest, SceneRequestError>? { SceneRequest.parse("calibrate", try JSONParser.parse(json)) }
        #expect(try parse(#"{"device": "event5"}"#) == .success(.calibrate(device: "event5", targets: nil)))
        #expect(try parse(#"{"device": "event5", "targets": [[1, 2], [3, 4], [5, 6.5]]}"#) == .success(.calibrate(device: "event5", targets: [Point(1, 2), Point(3, 4), Point(5, 6.5)])))
        #expect(try parse(#"{"device": "event5", "cancel": true}"#) == .success(.cancelCalibration(device: "event5")))
        #expect(try parse(#"{"targets": [[1, 2], [3, 4], [5, 6]]}"#)?.failurePath == "device")
        #expect(try parse(#"{"device": "event5", "targets": [[1, 2], [3, 4], [5]]}"#)?.failurePath == "targets[2]")
        #expect(try parse(#"{"device": "event5", "targets": [[1, 2], [3, "x"], [5, 6]]}"#)?.failurePath == "targets[1][1]")
        #expect(try parse(#"{"device": "event5", "targets": [[1, 2]]}"#)?.failurePath == "targets")
        #expect(try parse(#"{"device": "event5", "cancel": false}"#)?.failurePath == "cancel")
        #expect(try parse(#"{"device": "event5", "colour": 1}"#)?.failurePath == "colour")
    }
}

extension Result where Success == SceneRequest, Failure == SceneRequestError {
    var failurePath: String? { if case .failure(let e) = self { return e.path }; return nil }
}

/// A tap's samples are bounded: a finger resting for ever during a calibration (a palm, a stuck
/// contact on a noisy panel at 200 Hz) kept every sample until it lifted.
@Suite struct CalibrationTapsTests {
    @Test func aRestingFingerKeepsAtMostMaxSamples() {
        var taps = Calibration.Taps()
        func change(_ kind: ContactChangeKind, _ x: Int32) -> ContactChange {
            ContactChange(slot: 0, kind: kind, sample: ContactSample(x: x, y: 100))
        }
        _ = taps.take([change(.began, 100)])
        for k in 0..<5_000 { _ = taps.take([change(.moved, 100 + Int32(k % 3))]) }
        #expect(taps.open[0]?.count == Calibration.Taps.maxSamples)
        let done = taps.take([change(.ended, 101)])
        #expect(done.count == 1 && done.first?.x == 101 && done.first?.y == 100)
    }
}
