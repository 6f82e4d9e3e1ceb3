import TouchCore

/// A virtual 800×480 protocol B touchscreen whose device units equal screen points
/// (range 0…799 × 0…479 on an 800×480 screen), so expected locations are the raw values.
func screenDevice(slots: Int = 10, pressure: Bool = false, major: Bool = false) -> DeviceInfo {
    var abs: [UInt16: AbsInfo] = [
        ABS.MT_SLOT: AbsInfo(minimum: 0, maximum: Int32(slots - 1)),
        ABS.MT_POSITION_X: AbsInfo(minimum: 0, maximum: 799),
        ABS.MT_POSITION_Y: AbsInfo(minimum: 0, maximum: 479),
        ABS.MT_TRACKING_ID: AbsInfo(minimum: 0, maximum: 65535),
        ABS.MT_TOOL_TYPE: AbsInfo(minimum: 0, maximum: 2),
    ]
    if pressure { abs[ABS.MT_PRESSURE] = AbsInfo(minimum: 0, maximum: 255) }
    if major { abs[ABS.MT_TOUCH_MAJOR] = AbsInfo(minimum: 0, maximum: 799) }
    return DeviceInfo(name: "test", properties: [InputProp.direct], codes: [EV.KEY: [BTN.TOUCH]], abs: abs)
}

/// Writes protocol B event sequences, one hardware frame at a time.
struct Finger {
    var events: [InputEvent] = []
    var time: Int64 = 0
    var nextID: Int32 = 100

    mutating func ev(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        events.append(InputEvent(time: time, type: type, code: code, value: value))
    }
    mutating func down(_ slot: Int32, _ x: Int32, _ y: Int32) {
        ev(EV.ABS, ABS.MT_SLOT, slot)
        ev(EV.ABS, ABS.MT_TRACKING_ID, nextID)
        nextID += 1
        ev(EV.ABS, ABS.MT_POSITION_X, x)
        ev(EV.ABS, ABS.MT_POSITION_Y, y)
    }
    mutating func move(_ slot: Int32, _ x: Int32, _ y: Int32) {
        ev(EV.ABS, ABS.MT_SLOT, slot)
        ev(EV.ABS, ABS.MT_POSITION_X, x)
        ev(EV.ABS, ABS.MT_POSITION_Y, y)
    }
    mutating func up(_ slot: Int32) {
        ev(EV.ABS, ABS.MT_SLOT, slot)
        ev(EV.ABS, ABS.MT_TRACKING_ID, -1)
    }
    /// SYN_REPORT, then the clock advances by `ms`.
    mutating func syn(after ms: Int64 = 10) {
        ev(EV.SYN, SYN.REPORT, 0)
        time += ms * 1000
    }
}

func config(_ json: String) -> Config {
    do { return try Config.parse(json) } catch { fatalError("test config does not parse: \(error)") }
}

/// Runs events through an engine on a fresh scene and returns the published messages.
func run(_ cfg: Config, _ events: [InputEvent], device: DeviceInfo = screenDevice(),
         settings: DeviceSettings = DeviceSettings(), tracing: Bool = false) -> [Message] {
    var options = EngineOptions()
    options.tracing = tracing
    let engine = Engine(scene: cfg.scene, options: options)
    var sink = MessageCollector()
    let d = engine.addDevice(DeviceDescriptor(id: "test", name: "test", vendor: 0, product: 0, touchProtocol: .b, slots: device.slotCount),
                             info: device, trackerProtocol: device.touchProtocol ?? .b, settings: settings,
                             screen: cfg.screen, time: 0, sink: &sink)
    for e in events { engine.process(e, device: d, sink: &sink) }
    engine.shutdown(time: engine.lastTime, sink: &sink)
    return sink.messages
}

extension Array where Element == Message {
    var frames: [FrameMessage] { compactMap { if case .frame(let f) = $0 { return f }; return nil } }
    var controls: [ControlMessage] { compactMap { if case .control(let c) = $0 { return c }; return nil } }
    var hitTests: [HitTestMessage] { compactMap { if case .hitTest(let h) = $0 { return h }; return nil } }
}

extension Scene {
    func id(_ node: Int) -> String? { node >= 0 ? views[node].id : nil }
    /// Calls as "responder.method(touches)" strings, for readable assertions.
    func describe(_ calls: [Call]) -> [String] {
        calls.map { "\(responders[$0.responder].id).\($0.phase.method)(\($0.touches.map(String.init).joined(separator: ",")))" }
    }
}

/// A one-window scene: `views` is the root view's subviews JSON.
func scene(_ subviews: String, rootExtra: String = "", extra: String = "") -> Config {
    config("""
    {"screen": {"width": 800, "height": 480},
     "application": {"id": "app", "delegate": "appDelegate", "scene": "scene"},
     "windows": [{"id": "main", "frame": [0, 0, 800, 480],
                  "view": {"id": "root", "frame": [0, 0, 800, 480] \(rootExtra), "subviews": [\(subviews)]}}]
     \(extra)}
    """)
}
