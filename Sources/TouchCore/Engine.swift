/// The dispatcher: device frames in, messages out. Owns all touch state; one thread drives it
/// (no locks). Live input and replay feed it the same way, so every capture is a regression test.

public protocol MessageSink {
    mutating func publish(_ message: Message)
}

/// Collects messages in memory (tests, snapshots).
public struct MessageCollector: MessageSink {
    public var messages: [Message] = []
    public init() {}
    public mutating func publish(_ message: Message) { messages.append(message) }
}

public struct EngineOptions: Sendable {
    /// Produce hit-test traces (hitTest messages) for each touch-down.
    public var tracing = false
    /// Taps close in time and place count up (UITouch.tapCount): at most this long between the
    /// end of one tap and the start of the next…
    public var tapInterval: Int64 = 350_000
    /// …and at most this far apart, on the same view; a touch counts as a tap only if it stayed
    /// within this distance of where it began.
    public var tapDistance: Double = 45
    public init() {}
}

public final class Engine {
    struct DeviceState {
        var descriptor: DeviceDescriptor
        var tracker: ContactTracker
        var mapping: DeviceMapping
        var removed = false
    }

    struct LiveTouch {
        var id: Int
        var device: Int
        var slot: Int
        var window: Int
        var view: Int
        var phase: Phase
        var location: Point       // window coordinates (screen when no window)
        var previous: Point
        var start: Point
        var tapCount: Int
        var pressure: Double?
        var major: Double?
        var tool: Tool
        var reason: CancelReason?
        var ignored: IgnoreReason?
        var controlInside = true
        var windowOrigin: Point
    }

    struct RecentTap {
        var view: Int
        var location: Point
        var time: Int64
        var count: Int
    }

    public private(set) var scene: Scene
    public var options: EngineOptions
    public var log: LogFunction?
    var devices: [DeviceState] = []
    var live: [LiveTouch] = []
    var recentTaps: [RecentTap] = []
    var nextTouchID = 1
    public private(set) var seq = 0
    public private(set) var lastTime: Int64 = 0

    // Scratch buffers reused across frames to keep allocation per frame small.
    var changes: [ContactChange] = []
    var trace: [HitStep] = []

    public init(scene: Scene, options: EngineOptions = EngineOptions(), log: LogFunction? = nil) {
        self.scene = scene
        self.options = options
        self.log = log
    }

    public var deviceCount: Int { devices.count }
    public func descriptor(of device: Int) -> DeviceDescriptor { devices[device].descriptor }
    public var liveTouchCount: Int { live.count }
    /// Devices attached and not removed, in the order they came.
    public var activeDevices: [DeviceDescriptor] { devices.filter { !$0.removed }.map(\.descriptor) }

    func nextSeq() -> Int {
        seq += 1
        return seq
    }

    // MARK: Devices

    /// Registers a device and publishes `device added`. `trackerProtocol` is what the tracker
    /// sees (B for protocol A devices already converted by libmtdev), `slotCount` its slots.
    @discardableResult
    public func addDevice<S: MessageSink>(_ descriptor: DeviceDescriptor, info: DeviceInfo,
                                          trackerProtocol: TouchProtocol, slotCount: Int? = nil,
                                          settings: DeviceSettings, screen: Size, time: Int64,
                                          sink: inout S) -> Int {
        let tracker = ContactTracker(device: info, protocol: trackerProtocol, slotCount: slotCount,
                                     xCode: settings.xAxis, yCode: settings.yAxis)
        let xInfo = info.abs[tracker.xCode] ?? AbsInfo(minimum: 0, maximum: Int32(screen.width) - 1)
        let yInfo = info.abs[tracker.yCode] ?? AbsInfo(minimum: 0, maximum: Int32(screen.height) - 1)
        let pressureInfo = trackerProtocol == .single ? info.abs[ABS.PRESSURE] : info.abs[ABS.MT_PRESSURE]
        let majorInfo = trackerProtocol == .single ? nil : info.abs[ABS.MT_TOUCH_MAJOR]
        let mapping = DeviceMapping(x: xInfo, y: yInfo, pressure: pressureInfo, major: majorInfo,
                                    settings: settings, screen: screen)
        devices.append(DeviceState(descriptor: descriptor, tracker: tracker, mapping: mapping))
        sink.publish(.device(DeviceMessage(seq: nextSeq(), time: time, action: .added, device: descriptor)))
        return devices.count - 1
    }

    /// A device went away: its live touches are cancelled (device-removed), then `device removed`.
    public func removeDevice<S: MessageSink>(_ d: Int, time: Int64, sink: inout S) {
        guard d >= 0 && d < devices.count, !devices[d].removed else { return }
        changes.removeAll(keepingCapacity: true)
        devices[d].tracker.cancelAll(.deviceRemoved, into: &changes)
        if !changes.isEmpty { handleFrame(device: d, time: time, sink: &sink) }
        devices[d].removed = true
        sink.publish(.device(DeviceMessage(seq: nextSeq(), time: time, action: .removed, device: devices[d].descriptor)))
    }

    /// Cancels every live touch with reason `shutdown` (end of capture, SIGTERM): no touch is
    /// left open.
    public func shutdown<S: MessageSink>(time: Int64, sink: inout S) {
        for d in devices.indices where !devices[d].removed {
            changes.removeAll(keepingCapacity: true)
            devices[d].tracker.cancelAll(.shutdown, into: &changes)
            if !changes.isEmpty { handleFrame(device: d, time: time, sink: &sink) }
        }
    }

    /// Contacts down when the device was opened are ignored until they lift.
    public func ignoreContactsDown(device d: Int, _ down: [(slot: Int, trackingID: Int32)]) {
        devices[d].tracker.ignoreContactsDown(down) { _ in ContactSample() }
    }

    /// Brackets libevdev's resync events after SYN_DROPPED (see ContactTracker.resyncing).
    public func setResyncing(device d: Int, _ on: Bool) {
        devices[d].tracker.resyncing = on
    }

    // MARK: Events

    
    public func process<S: MessageSink>(_ event: InputEvent, device d: Int, sink: inout S) {
        if event.time > lastTime { lastTime = event.time }
        changes.removeAll(keepingCapacity: true)
        let flushed = devices[d].tracker.feed(event, into: &changes)
        if devices[d].tracker.issueCount > 0 { reportIssues(d) }
        if flushed && !changes.isEmpty {
            handleFrame(device: d, time: event.time, sink: &sink)
        }
    }

    
    func reportIssues(_ d: Int) {
        let issues = devices[d].tracker.drainIssues()
        guard let log else { return }
        for issue in issues { log(.warning, "\(devices[d].descriptor.id): \(issue)") }
    }

    func touchIndex(device d: Int, slot: Int) -> Int? {
        live.firstIndex { $0.device == d && $0.slot == slot && ($0.phase != .ended && $0.phase != .cancelled) }
    }

    
    func handleFrame<S: MessageSink>(device d: Int, time: Int64, sink: inout S) {
        let mapping = devices[d].mapping
        var hitTests: [HitTestMessage] = []
        for ch in changes {
            switch ch.kind {
            case .began:
                let screen = mapping.map(x: ch.sample.x, y: ch.sample.y)
                began(device: d, slot: ch.slot, screen: screen, sample: ch.sample, mapping: mapping,
                      time: time, hitTests: &hitTests)
            case .moved, .ended, .cancelled:
                // No touch: its view went away in a reload; it is ignored until it lifts.
                guard let i = touchIndex(device: d, slot: ch.slot) else { continue }
                let screen = mapping.map(x: ch.sample.x, y: ch.sample.y)
                live[i].location = screen - live[i].windowOrigin
                if mapping.hasPressure { live[i].pressure = mapping.pressure(ch.sample.pressure) }
                if mapping.hasMajor { live[i].major = mapping.major(ch.sample.major) }
                live[i].tool = Tool(mtTool: ch.sample.tool)
                switch ch.kind {
                case .moved:
                    live[i].phase = .moved
                case .ended:
                    live[i].phase = .ended
                case .cancelled(let r):
                    live[i].phase = .cancelled
                    live[i].reason = r
                    if r == .palm { live[i].tool = .palm }
                case .began:
                    break
                }
            }
        }
        for h in hitTests { sink.publish(.hitTest(h)) }
        guard live.contains(where: { $0.device == d && $0.phase != .stationary }) else { return }
        dispatch(device: d, time: time, sink: &sink)
    }

    func began(device d: Int, slot: Int, screen: Point, sample: ContactSample, mapping: DeviceMapping,
               time: Int64, hitTests: inout [HitTestMessage]) {
        let id = nextTouchID
        nextTouchID += 1
        trace.removeAll(keepingCapacity: true)
        let hit = scene.hitTest(screen: screen, tracing: options.tracing, trace: &trace)
        let window = hit?.window ?? -1
        let view = hit?.view ?? -1
        let origin = window >= 0 ? scene.views[window].frame.origin : .zero
        let location = screen - origin
        if options.tracing {
            hitTests.append(HitTestMessage(time: time, touch: id, window: window, point: screen, trace: trace, view: view))
        }
        var t = LiveTouch(id: id, device: d, slot: slot, window: window, view: view, phase: .began,
                          location: location, previous: location, start: location,
                          tapCount: tapCount(view: view, location: location, time: time),
                          pressure: mapping.hasPressure ? mapping.pressure(sample.pressure) : nil,
                          major: mapping.hasMajor ? mapping.major(sample.major) : nil,
                          tool: Tool(mtTool: sample.tool), windowOrigin: origin)
        if view >= 0 { t.ignored = deliveryRefusal(view: view, window: window) }
        live.append(t)
    }

    /// UIKit's multipleTouch and exclusiveTouch rules for a touch that hit `view`.
    func deliveryRefusal(view: Int, window: Int) -> IgnoreReason? {
        let node = scene.views[view]
        var othersInWindow = false
        var exclusiveOther = false
        for t in live where t.ignored == nil && t.view >= 0 && t.phase != .ended && t.phase != .cancelled {
            if t.view == view {
                if !node.multipleTouch { return .multipleTouch }
            } else if t.window == window {
                othersInWindow = true
                if scene.views[t.view].exclusiveTouch { exclusiveOther = true }
            }
        }
        if exclusiveOther || (node.exclusiveTouch && othersInWindow) { return .exclusiveTouch }
        return nil
    }

    func tapCount(view: Int, location: Point, time: Int64) -> Int {
        recentTaps.removeAll { time - $0.time > options.tapInterval }
        if let prev = recentTaps.last(where: { $0.view == view && $0.location.distance(to: location) <= options.tapDistance }) {
            return prev.count + 1
        }
        return 1
    }

    /// Builds the frame message (every touch of this device), the responder calls and the
    /// control events, publishes them, then retires ended and cancelled touches.
    func dispatch<S: MessageSink>(device d: Int, time: Int64, sink: inout S) {
        var records: [TouchRecord] = []
        records.reserveCapacity(live.count)
        for t in live where t.device == d {
            let inView = t.view >= 0 ? scene.convert(windowPoint: t.location, to: t.view) : t.location
            records.append(TouchRecord(id: t.id, phase: t.phase, window: t.window, view: t.view,
                                       location: t.location, previous: t.previous, locationInView: inView,
                                       tapCount: t.tapCount, pressure: t.pressure, major: t.major, tool: t.tool,
                                       reason: t.reason, ignored: t.ignored))
        }
        var calls: [Call] = []
        for phase in [Phase.began, .moved, .ended, .cancelled] {
            // Group this phase's delivered touches by view, in the order of their first touch.
            var groups: [(view: Int, touches: [Int])] = []
            for t in records where t.phase == phase && t.view >= 0 && t.ignored == nil {
                if let g = groups.firstIndex(where: { $0.view == t.view }) {
                    groups[g].touches.append(t.id)
                } else {
                    groups.append((t.view, [t.id]))
                }
            }
            for g in groups {
                var r = scene.views[g.view].responder
                var hops = 0
                while r >= 0 && hops <= scene.responders.count {
                    let handling = scene.responders[r].policy[phase]
                    if handling != .forward { calls.append(Call(responder: r, phase: phase, touches: g.touches)) }
                    if handling == .handle { break }
                    r = scene.responders[r].next
                    hops += 1
                }
            }
        }
        let frameSeq = nextSeq()
        sink.publish(.frame(FrameMessage(seq: frameSeq, time: time, device: devices[d].descriptor.id,
                                         touches: records, calls: calls)))
        controlEvents(device: d, time: time, records: records, sink: &sink)
        retire(device: d, time: time)
    }

    func controlEvents<S: MessageSink>(device d: Int, time: Int64, records: [TouchRecord], sink: inout S) {
        for i in live.indices where live[i].device == d && live[i].ignored == nil && live[i].view >= 0 {
            let v = live[i].view
            let node = scene.views[v]
            guard node.control != nil, live[i].phase != .stationary else { continue }
            let policy = scene.responders[node.responder].policy
            guard policy[live[i].phase] != .forward else { continue }
            let id = live[i].id
            func send(_ e: ControlEvent) {
                sink.publish(.control(ControlMessage(seq: nextSeq(), time: time, control: v, event: e, touch: id)))
            }
            // UIControl's tracking area: the bounds grown by 70 points on every side.
            let inView = scene.convert(windowPoint: live[i].location, to: v)
            let inside = node.bounds.grown(by: Outset(all: 70)).contains(inView)
            switch live[i].phase {
            case .began:
                live[i].controlInside = true
                send(.touchDown)
                if live[i].tapCount > 1 { send(.touchDownRepeat) }
            case .moved:
                let was = live[i].controlInside
                live[i].controlInside = inside
                if inside {
                    if !was { send(.touchDragEnter) }
                    send(.touchDragInside)
                } else {
                    if was { send(.touchDragExit) }
                    send(.touchDragOutside)
                }
            case .ended:
                if inside {
                    send(.touchUpInside)
                    send(.primaryActionTriggered)
                } else {
                    send(.touchUpOutside)
                }
            case .cancelled:
                send(.touchCancel)
            case .stationary:
                break
            }
        }
    }

    func retire(device d: Int, time: Int64) {
        var i = 0
        while i < live.count {
            if live[i].device != d { i += 1; continue }
            let t = live[i]
            if t.phase == .ended || t.phase == .cancelled {
                if t.phase == .ended && t.view >= 0 && t.location.distance(to: t.start) <= options.tapDistance {
                    recentTaps.removeAll { $0.view == t.view }
                    recentTaps.append(RecentTap(view: t.view, location: t.location, time: time, count: t.tapCount))
                    if recentTaps.count > 16 { recentTaps.removeFirst() }
                }
                live.remove(at: i)
                continue
            }
            live[i].phase = .stationary
            live[i].previous = live[i].location
            i += 1
        }
    }

    // MARK: Snapshots and reloads

    /// Every touch currently down, as a late subscriber should first see it (phase stationary).
    public func snapshot() -> [TouchRecord] {
        live.map { t in
            TouchRecord(id: t.id, phase: .stationary, window: t.window, view: t.view, location: t.location,
                        previous: t.location,
                        locationInView: t.view >= 0 ? scene.convert(windowPoint: t.location, to: t.view) : t.location,
                        tapCount: t.tapCount, pressure: t.pressure, major: t.major, tool: t.tool, reason: nil, ignored: t.ignored)
        }
    }

    /// The device a live touch belongs to (for snapshots).
    public func deviceID(ofTouch id: Int) -> String? {
        guard let t = live.first(where: { $0.id == id }) else { return nil }
        return devices[t.device].descriptor.id
    }

    /// Replaces the scene (a config reload). Touches whose view (or window) still exists, by
    /// id, stay bound to it; the others are cancelled with reason `view-removed` and tracked,
    /// undelivered, until their finger lifts.
    public func replaceScene<S: MessageSink>(_ newScene: Scene, time: Int64, sink: inout S) {
        var removedByDevice: [Int: [Int]] = [:]
        for i in live.indices {
            let t = live[i]
            let viewID = t.view >= 0 ? scene.views[t.view].id : nil
            let windowID = t.window >= 0 ? scene.views[t.window].id : nil
            let newView = viewID.flatMap { newScene.viewIndex[$0] }
            let newWindow = windowID.flatMap { newScene.viewIndex[$0] }
            let stillThere = t.view < 0 || (newView != nil && newWindow != nil && newScene.views[newView!].window == newWindow!)
            if stillThere {
                live[i].view = newView ?? -1
                live[i].window = newWindow ?? -1
            } else {
                removedByDevice[t.device, default: []].append(i)
            }
        }
        // Cancel through the old scene (the responders that saw the touch begin see it end).
        for (d, indices) in removedByDevice.sorted(by: { $0.key < $1.key }) {
            for i in indices {
                live[i].phase = .cancelled
                live[i].reason = .viewRemoved
            }
            // Untouched touches of the device must not be dispatched as stationary under the
            // wrong indices: only the cancelled ones take part in this frame.
            let saved = live
            live = indices.map { saved[$0] }
            dispatch(device: d, time: time, sink: &sink)
            let cancelledIDs = Set(indices.map { saved[$0].id })
            live = saved.filter { !cancelledIDs.contains($0.id) }
        }
        scene = newScene
        recentTaps.removeAll()
    }

    /// Replaces a device's mapping settings (a config reload).
    public func updateDevice(_ d: Int, settings: DeviceSettings, info: DeviceInfo, screen: Size) {
        guard d >= 0 && d < devices.count else { return }
        let tracker = devices[d].tracker
        let xInfo = info.abs[tracker.xCode] ?? AbsInfo(minimum: 0, maximum: Int32(screen.width) - 1)
        let yInfo = info.abs[tracker.yCode] ?? AbsInfo(minimum: 0, maximum: Int32(screen.height) - 1)
        let single = tracker.touchProtocol == .single
        devices[d].mapping = DeviceMapping(x: xInfo, y: yInfo,
                                           pressure: single ? info.abs[ABS.PRESSURE] : info.abs[ABS.MT_PRESSURE],
                                           major: single ? nil : info.abs[ABS.MT_TOUCH_MAJOR],
                                           settings: settings, screen: screen)
    }
}
