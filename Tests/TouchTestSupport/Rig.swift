import TouchCore

/// The tests' one engine rig: an engine with one device attached, keeping every message it
/// publishes (the outbox is drained after each call, as the daemon does) both as messages and
/// as lines of text written with the ids of the scene of their time (slots are reused, so an
/// index alone would not say which view it was). Clients send scene requests through it, and
/// its `finger` writes protocol B frames.
public final class Rig {
    public let cfg: Config
    public let engine: Engine
    public let device: DeviceIndex
    public let descriptor: DeviceDescriptor
    public let info: DeviceInfo
    public var finger = Finger()
    public var limits = ClientLimits()
    public private(set) var messages: [Message] = []
    public private(set) var scenes: [Scene] = []
    /// The contact frames of exported devices (EngineOutput.contacts), until `takeContacts`.
    public private(set) var contactFrames: [ScreenContactFrame] = []
    /// The contacts a session swallowed (EngineOutput.swallowed).
    public private(set) var swallowed: [ScreenContactFrame] = []
    /// The messages for one client about its own windows (preempted, policy).
    public var notices: [(client: Int, notice: WindowNotice)] = []
    /// The messages as lines ("t1 began ok", "ok touchDown", "pan began"), since the last
    /// `take()`; those of the device's attachment are left out.
    public private(set) var lines: [String] = []
    /// Sees every output, in order, as it is collected (a property test's own checks).
    public var observer: ((EngineOutput) -> Void)?
    private var current: Scene

    public init(_ cfg: Config, device info: DeviceInfo = screenDevice(), id: String = "test", name: String = "test",
                settings: DeviceSettings = DeviceSettings(), tracing: Bool = false) {
        self.cfg = cfg
        var options = EngineOptions()
        options.tracing = tracing
        engine = Engine(config: cfg, options: options)
        current = cfg.scene
        self.info = info
        descriptor = DeviceDescriptor(id: id, name: name, vendor: 0, product: 0, touchProtocol: .b, slots: info.slotCount)
        device = engine.addDevice(descriptor, info: info, trackerProtocol: info.touchProtocol ?? .b, settings: settings, time: 0)
        collect()
        lines.removeAll()
    }

    public func collect() {
        for o in engine.drain() {
            observer?(o)
            switch o {
            case .message(let m):
                messages.append(m)
                lines += describe(m)
            case .sceneChanged(let s):
                scenes.append(s)
                current = s
            case .contacts(let f):
                contactFrames.append(f)
            case .notice(let c, let n):
                notices.append((c, n))
            case .swallowed(let f):
                swallowed.append(f)
            case .reply, .calibration:
                break
            }
        }
    }

    /// A message as lines, with the ids of the scene current when it was published.
    public func describe(_ m: Message) -> [String] {
        switch m {
        case .frame(let f):
            return f.touches.map { t in
                "t\(t.id) \(t.phase.name) \(current.id(of: t.view) ?? "-")" + (t.reason.map { " " + $0.rawValue } ?? "") + (t.synthesized ? " synthesized" : "")
            }
        case .control(let c): return ["\(current[c.control].id) \(c.event.rawValue)"]
        case .gesture(let g): return ["\(g.recognizer) \(g.state.rawValue)"]
        case .accessibility(let a):
            switch a.body {
            case .focus: return ["focus \(current.id(of: a.view) ?? "-")"]
            case .action(let x): return ["\(x.rawValue) \(current.id(of: a.view) ?? "-")"]
            case .speech(let s): return [s.control.map { "speech \($0.rawValue)" } ?? "say \(s.text)" + (s.interrupt ? "" : " (queued)")]
            }
        case .idle(let i): return ["idle \(i.output)"]
        case .wake(let w): return ["wake \(w.output)"]
        case .systemGesture(let g): return ["systemGesture \(g.name) \(g.output)"]
        default: return []
        }
    }

    public func feed(_ f: Finger) { feed(f.events) }
    public func feed(_ events: [InputEvent]) {
        for e in events { engine.process(e, device: device) }
        collect()
    }
    /// Lets time pass with no input (timers fire).
    public func advance(to time: Int64) { engine.advance(to: time); collect() }
    public func idle(until time: Int64) { advance(to: time) }
    public func shutdown() { engine.shutdown(time: engine.lastTime); collect() }
    public func removeDevice(time: Int64) { engine.removeDevice(device, time: time); collect() }
    public func replaceScene(_ s: Scene, time: Int64) { engine.replaceScene(s, time: time); collect() }
    /// A reload's new settings for the rig's device (its filter, its mapping).
    public func reload(_ settings: DeviceSettings) { engine.updateDevice(device, settings: settings, info: info); collect() }

    // The rig's own finger: each call is one hardware frame.
    public func frame() {
        finger.syn()
        feed(finger.events)
        finger.events.removeAll()
    }
    public func down(_ x: Int32, _ y: Int32, slot: Int32 = 0) { finger.down(slot, x, y); frame() }
    public func move(_ x: Int32, _ y: Int32, slot: Int32 = 0) { finger.move(slot, x, y); frame() }
    public func up(slot: Int32 = 0) { finger.up(slot); frame() }
    public func tap(_ x: Int32, _ y: Int32) { down(x, y); up() }

    /// A client's scene request; the engine's reply (nil: no request, nothing sent).
    @discardableResult
    public func send(_ request: SceneRequest?, from client: Int) -> SceneReply? {
        guard let request else { return nil }
        let reply = engine.apply(request, from: client, limits: limits, time: finger.time)
        collect()
        return reply
    }

    /// A client's request as JSON (`{"session":{…}}`); the engine's reply.
    @discardableResult
    public func send(json: String, from client: Int) -> SceneReply? {
        guard let node = try? JSONParser.parse(json), let m = node.members?.first, case .success(let r)? = SceneRequest.parse(m.key, m.value) else { return nil }
        return send(r, from: client)
    }

    /// A client disconnects.
    public func gone(_ client: Int) {
        engine.clientGone(client, time: finger.time)
        collect()
    }

    /// The contact frames since the last call.
    public func takeContacts() -> [ScreenContactFrame] {
        defer { contactFrames.removeAll() }
        return contactFrames
    }

    /// The lines since the last call.
    public func take() -> [String] {
        defer { lines.removeAll() }
        return lines
    }

    public var scene: Scene { engine.scene }
    public func frameOf(_ id: String) -> Rect? { scene.viewIndex[id].map { scene[$0].frame } }

    public var frames: [FrameMessage] { messages.frames }
    /// The scroll messages published from `messages[start]` on, only `view`'s when one is named
    /// (its id): the one helper every scroll test reads them through.
    public func scrolls(from start: Int = 0, of view: String? = nil) -> [ScrollMessage] {
        let index = view.map { id in scene.viewIndex[id] ?? { fatalError("no view \(id) in the scene") }() }
        return Array(messages[start...]).scrolls.filter { index == nil || $0.view == index }
    }
    public var gestures: [GestureMessage] { messages.compactMap { if case .gesture(let g) = $0 { return g }; return nil } }
    public func states(_ id: String) -> [String] { gestures.filter { $0.recognizer == id }.map(\.state.rawValue) }
    public var calls: [String] { frames.flatMap { cfg.scene.describe($0.calls) } }
    public func value(_ g: GestureMessage, _ key: String) -> GestureValue? { g.values.fields.first { $0.0 == key }?.1 }
    /// Touches the views know and have not seen the end of.
    public var delivered: Int { engine.snapshot().touches.count }
}

/// Runs events through an engine on a fresh scene and returns the published messages.
public func run(_ cfg: Config, _ events: [InputEvent], device: DeviceInfo = screenDevice(),
                settings: DeviceSettings = DeviceSettings(), tracing: Bool = false) -> [Message] {
    let r = Rig(cfg, device: device, settings: settings, tracing: tracing)
    r.feed(events)
    r.shutdown()
    return r.messages
}

extension Array where Element == Message {
    public var frames: [FrameMessage] { compactMap { if case .frame(let f) = $0 { return f }; return nil } }
    public var scrolls: [ScrollMessage] { compactMap { if case .scroll(let s) = $0 { return s }; return nil } }
    public var controls: [ControlMessage] { compactMap { if case .control(let c) = $0 { return c }; return nil } }
    public var hitTests: [HitTestMessage] { compactMap { if case .hitTest(let h) = $0 { return h }; return nil } }
}

extension Array where Element == EngineOutput {
    /// The messages, without scene changes.
    public var messages: [Message] { compactMap { if case .message(let m) = $0 { return m }; return nil } }
}

extension Scene {
    public func id(_ node: ViewIndex?) -> String? { id(of: node) }
    /// Calls as "responder.method(touches)" strings, for readable assertions.
    public func describe(_ calls: [Call]) -> [String] {
        calls.map { "\(self[$0.responder].id).\($0.phase.method)(\($0.touches.map(String.init).joined(separator: ",")))" }
    }
}
