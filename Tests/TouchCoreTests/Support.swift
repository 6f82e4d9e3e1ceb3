import Testing
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

/// A test's config; one that does not parse fails the test (not the whole run) and gives an
/// empty one-window scene.
func config(_ json: String) -> Config {
    do { return try Config.parse(json) } catch {
        Issue.record("test config does not parse: \(error)")
        return try! Config.parse("{\"windows\": [{\"id\": \"broken\", \"frame\": [0, 0, 800, 480]}]}")
    }
}

/// An engine with one device attached, collecting every message it publishes (the outbox is
/// drained after each call, as the daemon does).
final class Rig {
    let cfg: Config
    let engine: Engine
    let device: DeviceIndex
    private(set) var messages: [Message] = []
    private(set) var scenes: [Scene] = []

    init(_ cfg: Config, device info: DeviceInfo = screenDevice(), settings: DeviceSettings = DeviceSettings(), tracing: Bool = false) {
        self.cfg = cfg
        var options = EngineOptions()
        options.tracing = tracing
        engine = Engine(scene: cfg.scene, options: options)
        device = engine.addDevice(DeviceDescriptor(id: "test", name: "test", vendor: 0, product: 0, touchProtocol: .b, slots: info.slotCount),
                                  info: info, trackerProtocol: info.touchProtocol ?? .b, settings: settings, screen: cfg.screen, time: 0)
        collect()
    }

    func collect() {
        for o in engine.drain() {
            switch o {
            case .message(let m): messages.append(m)
            case .sceneChanged(let s): scenes.append(s)
            }
        }
    }

    func feed(_ f: Finger) { feed(f.events) }
    func feed(_ events: [InputEvent]) {
        for e in events { engine.process(e, device: device) }
        collect()
    }
    /// Lets time pass with no input (timers fire).
    func advance(to time: Int64) { engine.advance(to: time); collect() }
    func idle(until time: Int64) { advance(to: time) }
    func shutdown() { engine.shutdown(time: engine.lastTime); collect() }
    func removeDevice(time: Int64) { engine.removeDevice(device, time: time); collect() }
    func replaceScene(_ s: Scene, time: Int64) { engine.replaceScene(s, time: time); collect() }

    var frames: [FrameMessage] { messages.frames }
    var gestures: [GestureMessage] { messages.compactMap { if case .gesture(let g) = $0 { return g }; return nil } }
    func states(_ id: String) -> [String] { gestures.filter { $0.recognizer == id }.map(\.state.rawValue) }
    var calls: [String] { frames.flatMap { cfg.scene.describe($0.calls) } }
    func value(_ g: GestureMessage, _ key: String) -> GestureValue? { g.values.first { $0.0 == key }?.1 }
    /// Touches the views know and have not seen the end of.
    var delivered: Int { engine.snapshot().touches.count }
}

/// Runs events through an engine on a fresh scene and returns the published messages.
func run(_ cfg: Config, _ events: [InputEvent], device: DeviceInfo = screenDevice(),
         settings: DeviceSettings = DeviceSettings(), tracing: Bool = false) -> [Message] {
    let r = Rig(cfg, device: device, settings: settings, tracing: tracing)
    r.feed(events)
    r.shutdown()
    return r.messages
}

extension Array where Element == Message {
    var frames: [FrameMessage] { compactMap { if case .frame(let f) = $0 { return f }; return nil } }
    var controls: [ControlMessage] { compactMap { if case .control(let c) = $0 { return c }; return nil } }
    var hitTests: [HitTestMessage] { compactMap { if case .hitTest(let h) = $0 { return h }; return nil } }
}

extension Scene {
    func id(_ node: ViewIndex?) -> String? { id(of: node) }
    /// Calls as "responder.method(touches)" strings, for readable assertions.
    func describe(_ calls: [Call]) -> [String] {
        calls.map { "\(self[$0.responder].id).\($0.phase.method)(\($0.touches.map(String.init).joined(separator: ",")))" }
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
