import TouchCore
import TouchSystem
import TouchInput
import TouchCapture
import TouchServer
import TouchDaemon

/// The bench's measured runs apart from the replay: structural updates of a live scene, taps on
/// scenes of growing size, and frames under a client's window (with and without its updates).
extension BenchCommand {
    /// Updates that change the tree: each is published as a scene change, which the consumer
    /// keeps (as the server does) — what the next change costs then.
    static func structuralRun(views: Int) throws(CommandFailure) -> Percentiles {
        let cfg: Config
        do { cfg = try Config.parse(sceneConfig(views: 2, flat: true)) } catch { throw CommandFailure(error.description) }
        let engine = Engine(scene: cfg.scene)
        let attach = "{\"attach\": {\"id\": \"client\", \"frame\": [0, 0, 800, 480], \"level\": 1, \"view\": \(rootView(views: views, flat: false, id: "client-root"))}}"
        guard case .success(.scene(let request)) = WireProtocol.parse(Array(attach.utf8)) else { throw CommandFailure("bench: the attach does not parse") }
        var limits = ClientLimits()
        limits.views = views + 10
        guard case .attached = engine.apply(request, from: 1, limits: limits, time: 0) else { throw CommandFailure("bench: the attach was refused") }
        let history = SceneHistory(scene: engine.scene)
        var sink = NullSink()
        var outputs: [EngineOutput] = []
        var times: [Double] = []
        for k in 0..<2000 {
            let line = k % 2 == 0
                ? "{\"update\": {\"window\": \"client\", \"changes\": [{\"add\": {\"id\": \"extra\", \"frame\": [0, 0, 10, 10]}, \"to\": \"card3\"}]}}"
                : "{\"update\": {\"window\": \"client\", \"changes\": [{\"remove\": \"extra\"}]}}"
            let t0 = BenchCommand.now()
            guard case .success(.scene(let r)) = WireProtocol.parse(Array(line.utf8)),
                  case .updated = engine.apply(r, from: 1, limits: limits, time: Int64(k)) else { throw CommandFailure("bench: a structural update was refused") }
            engine.drain(into: &outputs)
            history.deliver(outputs, to: &sink)
            outputs.removeAll(keepingCapacity: true)
            times.append((BenchCommand.now() - t0) * 1e6)
        }
        return Percentiles(times)
    }

    /// µs per tap on a scene of `views` views (the engine alone: no parsing, no output).
    static func tapRun(views: Int, flat: Bool) throws(CommandFailure) -> Double {
        let cfg: Config
        do { cfg = try Config.parse(sceneConfig(views: views, flat: flat)) } catch { throw CommandFailure(error.description) }
        var abs: [UInt16: AbsInfo] = [:]
        abs[ABS.MT_SLOT] = AbsInfo(minimum: 0, maximum: 9)
        abs[ABS.MT_POSITION_X] = AbsInfo(minimum: 0, maximum: 799)
        abs[ABS.MT_POSITION_Y] = AbsInfo(minimum: 0, maximum: 479)
        abs[ABS.MT_TRACKING_ID] = AbsInfo(minimum: 0, maximum: 65535)
        let info = DeviceInfo(name: "bench", properties: [InputProp.direct], codes: [EV.KEY: [BTN.TOUCH]], abs: abs)
        let engine = Engine(scene: cfg.scene)
        let d = engine.addDevice(DeviceDescriptor(id: "bench", name: "bench", vendor: 0, product: 0, touchProtocol: .b, slots: 10),
                                 info: info, trackerProtocol: .b, slotCount: 10, settings: DeviceSettings(), time: 0)
        var events: [InputEvent] = []
        var state: UInt64 = 0x2545F4914F6CDD1D
        var t: Int64 = 0
        for k in 0..<20_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let x = Int32((state >> 33) % 800), y = Int32((state >> 13) % 480)
            for (code, value) in [(ABS.MT_SLOT, 0), (ABS.MT_TRACKING_ID, Int32(k + 1)), (ABS.MT_POSITION_X, x), (ABS.MT_POSITION_Y, y)] {
                events.append(InputEvent(time: t, type: EV.ABS, code: code, value: value))
            }
            events.append(InputEvent(time: t, type: EV.SYN, code: SYN.REPORT, value: 0))
            t += 50_000
            events.append(InputEvent(time: t, type: EV.ABS, code: ABS.MT_TRACKING_ID, value: -1))
            events.append(InputEvent(time: t, type: EV.SYN, code: SYN.REPORT, value: 0))
            t += 450_000
        }
        let history = SceneHistory(scene: engine.scene)
        var sink = NullSink()
        var outputs: [EngineOutput] = []
        let start = BenchCommand.now()
        for e in events {
            engine.process(e, device: d)
            if e.type == EV.SYN {
                BenchCommand.drainAndEncode(engine, &outputs, history, &sink)
            }
        }
        return (BenchCommand.now() - start) * 1e6 / 20_000
    }

    /// What a frame costs after dispatch: the engine's outputs drained and encoded (the bytes
    /// are dropped: the benches time the work, not an output).
    static func drainAndEncode(_ engine: Engine, _ outputs: inout [EngineOutput], _ history: SceneHistory, _ sink: inout NullSink) {
        engine.drain(into: &outputs)
        history.deliver(outputs, to: &sink)
        outputs.removeAll(keepingCapacity: true)
        sink.buffer.removeAll(keepingCapacity: true)
    }

    struct Percentiles {
        var p50 = 0.0, p99 = 0.0, max = 0.0
        init(_ samples: [Double]) {
            guard !samples.isEmpty else { return }
            let s = samples.sorted()
            p50 = s[s.count / 2]
            p99 = s[min(s.count - 1, s.count * 99 / 100)]
            max = s[s.count - 1]
        }
    }

    /// One run: the config's window below, a client's window of `views` views attached over it,
    /// the capture's frames dispatched and encoded; with `updates`, before each frame the client
    /// moves one of its views once per millisecond of capture time since the last frame (each
    /// request parsed from its JSON line, then applied). Times in µs.
    static func liveRun(_ device: CaptureDevice, views: Int, updates: Bool) throws(CommandFailure) -> (frames: Percentiles, updates: Percentiles, updateCount: Int) {
        let cfg: Config
        do { cfg = try Config.parse(sceneConfig(views: 2, flat: true)) } catch { throw CommandFailure(error.description) }
        let engine = Engine(scene: cfg.scene)
        // The window's content: the bench's nested grid, as a client sends it.
        let view = rootView(views: views, flat: false, id: "client-root")
        let attach = "{\"attach\": {\"id\": \"client\", \"frame\": [0, 0, 800, 480], \"level\": 1, \"view\": \(view)}}"
        guard case .success(.scene(let request)) = WireProtocol.parse(Array(attach.utf8)) else { throw CommandFailure("bench: the attach does not parse") }
        var limits = ClientLimits()
        limits.views = views + 10
        guard case .attached = engine.apply(request, from: 1, limits: limits, time: 0) else { throw CommandFailure("bench: the attach was refused") }
        let d = engine.addDevice(DeviceDescriptor(id: "bench", name: device.info.name, vendor: 0, product: 0, touchProtocol: .b, slots: 10),
                                 info: device.info, trackerProtocol: .b, slotCount: 10, settings: DeviceSettings(), time: 0)
        let history = SceneHistory(scene: engine.scene)
        var sink = NullSink()
        sink.buffer.reserveCapacity(1 << 16)
        var outputs: [EngineOutput] = []
        var frameTimes: [Double] = []
        var updateTimes: [Double] = []
        frameTimes.reserveCapacity(device.events.count / 20)
        var nextUpdate: Int64 = 0
        var moved = 0
        var frameStart = BenchCommand.now()
        var inFrame = false
        for e in device.events {
            if !inFrame {
                // Between two frames: the client's updates due by now, one per millisecond.
                if updates {
                    while nextUpdate <= e.time {
                        let x = 5 + (moved % 60)
                        let line = "{\"update\": {\"window\": \"client\", \"changes\": [{\"view\": \"c3b4\", \"set\": {\"frame\": [\(x), 40, 28, 30]}}]}}"
                        let t0 = BenchCommand.now()
                        guard case .success(.scene(let r)) = WireProtocol.parse(Array(line.utf8)),
                              case .updated = engine.apply(r, from: 1, limits: limits, time: e.time) else { throw CommandFailure("bench: an update was refused") }
                        updateTimes.append((BenchCommand.now() - t0) * 1e6)
                        moved += 1
                        nextUpdate += 1000
                    }
                }
                frameStart = BenchCommand.now()
                inFrame = true
            }
            engine.process(e, device: d)
            if e.type == EV.SYN && e.code == SYN.REPORT {
                BenchCommand.drainAndEncode(engine, &outputs, history, &sink)
                frameTimes.append((BenchCommand.now() - frameStart) * 1e6)
                inFrame = false
            }
        }
        return (Percentiles(frameTimes), Percentiles(updateTimes), updateTimes.count)
    }
}
