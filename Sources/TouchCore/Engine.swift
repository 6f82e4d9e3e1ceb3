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

    /// Where a touch stands for the views (as opposed to the finger): recognizers can hold its
    /// `began` (delaysTouchesBegan, delaysContentTouches) or `ended` (delaysTouchesEnded), or take
    /// it away (cancelsTouchesInView).
    enum ViewState {
        case pending      // began not delivered yet
        case active       // delivered, finger down (or moving)
        case endHeld      // finger up, ended not delivered yet
        case gone         // delivered its end (or never will be delivered)
    }

    struct LiveTouch {
        var id: Int
        var device: Int
        var slot: Int
        var window: Int
        var view: Int
        /// The finger's phase in the current step (began, moved, ended, cancelled, stationary).
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
        var beganAt: Int64 = 0
        /// The finger lifted (or the contact was cancelled) in an earlier step.
        var fingerDone = false
        var viewState = ViewState.pending
        /// Recognizers that see this touch (hit view first, then its ancestors).
        var recognizers: [Int] = []
        /// A recognizer with cancelsTouchesInView recognized with this touch.
        var taken = false
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

    /// Every recognizer of the scene (configured ones and each scroll view's pan), and per view
    /// the indices of those attached to it.
    public private(set) var recognizers: [GestureRecognizer] = []
    var viewRecognizers: [[Int]] = []
    var scrollStart: [Int: Point] = [:]

    // Scratch buffers reused across frames to keep allocation per frame small.
    var changes: [ContactChange] = []
    var trace: [HitStep] = []

    public init(scene: Scene, options: EngineOptions = EngineOptions(), log: LogFunction? = nil) {
        self.scene = scene
        self.options = options
        self.log = log
        buildRecognizers()
    }

    func buildRecognizers() {
        recognizers = []
        viewRecognizers = Array(repeating: [], count: scene.views.count)
        scrollStart = [:]
        var byID: [String: Int] = [:]
        for (v, node) in scene.views.enumerated() {
            if let scroll = node.scroll {
                var pan = GestureRecognizer(id: node.id + ".pan", kind: .pan, view: v)
                pan.scrollView = true
                pan.delaysTouchesBegan = scroll.delaysContentTouches
                pan.delaysTouchesEnded = false
                pan.cancelsTouchesInView = scroll.canCancelContentTouches
                pan.canCancelContentTouches = scroll.canCancelContentTouches
                viewRecognizers[v].append(recognizers.count)
                recognizers.append(pan)
            }
            for g in node.gestures {
                byID[g.id] = recognizers.count
                viewRecognizers[v].append(recognizers.count)
                recognizers.append(GestureRecognizer(spec: g, view: v))
            }
        }
        for (v, node) in scene.views.enumerated() {
            for (k, g) in node.gestures.enumerated() {
                let r = viewRecognizers[v][k + (node.scroll == nil ? 0 : 1)]
                recognizers[r].requireToFail = (g.lists["requireToFail"] ?? []).compactMap { byID[$0] }
                recognizers[r].simultaneousWith = Set((g.lists["simultaneousWith"] ?? []).compactMap { byID[$0] })
            }
        }
    }

    public var deviceCount: Int { devices.count }
    public func descriptor(of device: Int) -> DeviceDescriptor { devices[device].descriptor }
    public var liveTouchCount: Int { live.count }
    /// Touches the views have been told about and not yet told the end of.
    public var deliveredTouchCount: Int { snapshot().count }
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
        let mapping = Engine.mapping(for: tracker, info: info, settings: settings, screen: screen)
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
        // Touches whose end a recognizer still holds end now, cancelled; those whose began is
        // still held were never seen by a view and go quietly.
        var settle = false
        for i in live.indices where live[i].device == d {
            if live[i].viewState == .endHeld { live[i].reason = .deviceRemoved; settle = true }
            if live[i].viewState == .pending && live[i].fingerDone { live[i].viewState = .gone; settle = true }
        }
        if settle {
            deliver(time: time, sink: &sink)
            finishStep(time: time)
        }
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
        // Recognizers still deciding (a tap waiting for its next tap) give up, so that every
        // delayed delivery is made before the end.
        settleRecognizers(time: time, sink: &sink)
    }

    /// Every recognizer that holds touches ends now: those that began are cancelled, those
    /// still deciding fail; then what they held is delivered.
    func settleRecognizers<S: MessageSink>(time: Int64, sink: inout S) {
        for r in recognizers.indices where !recognizers[r].terminal && !recognizers[r].touches.isEmpty {
            if recognizers[r].active {
                recognizers[r].state = .cancelled
                publish(r, time: time, sink: &sink)
            } else {
                fail(r, time: time, sink: &sink)
            }
        }
        deliver(time: time, sink: &sink)
        finishStep(time: time)
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
        // Timers run on event time (libinput's habit): whatever was due before this event fires first.
        if let due = nextDeadline, due <= event.time { advance(to: event.time, sink: &sink) }
        if event.time > lastTime { lastTime = event.time }
        changes.removeAll(keepingCapacity: true)
        let flushed = devices[d].tracker.feed(event, into: &changes)
        if !devices[d].tracker.issues.isEmpty { reportIssues(d) }
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
        live.firstIndex { $0.device == d && $0.slot == slot && !$0.fingerDone && $0.phase != .ended && $0.phase != .cancelled }
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
        feedRecognizers(device: d, time: time, sink: &sink)
        deliver(time: time, sink: &sink)
        finishStep(time: time)
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
        t.beganAt = time
        // The recognizers of the hit view and of its ancestors up to the window see it first.
        var v = view
        while v >= 0 {
            t.recognizers += viewRecognizers[v]
            v = scene.views[v].superview
        }
        live.append(t)
    }

    /// UIKit's multipleTouch and exclusiveTouch rules for a touch that hit `view`.
    func deliveryRefusal(view: Int, window: Int) -> IgnoreReason? {
        let node = scene.views[view]
        var othersInWindow = false
        var exclusiveOther = false
        for t in live where t.ignored == nil && t.view >= 0 && !t.fingerDone && t.viewState != .gone && t.phase != .ended && t.phase != .cancelled {
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

    // MARK: Gestures

    /// Feeds the recognizers the touches of device `d` that changed in this frame.
    func feedRecognizers<S: MessageSink>(device d: Int, time: Int64, sink: inout S) {
        guard !recognizers.isEmpty else { return }
        var perRecognizer: [Int: [GestureTouch]] = [:]
        var order: [Int] = []
        for t in live where t.device == d && t.phase != .stationary {
            for r in t.recognizers {
                if t.phase == .began && recognizers[r].terminal { continue }
                if t.phase != .began && !recognizers[r].touches.contains(t.id) { continue }
                if perRecognizer[r] == nil { order.append(r) }
                perRecognizer[r, default: []].append(GestureTouch(id: t.id, phase: t.phase, location: t.location))
            }
        }
        // In the touches' order: the hit view's recognizers before its ancestors' (the deepest
        // decides first, as in UIKit).
        for r in order {
            let request = recognizers[r].update(perRecognizer[r]!, time: time)
            apply(request, to: r, time: time, sink: &sink)
        }
    }

    func shareTouches(_ a: Int, _ b: Int) -> Bool {
        !Set(recognizers[a].touches).isDisjoint(with: recognizers[b].touches)
    }

    func simultaneous(_ a: Int, _ b: Int) -> Bool {
        recognizers[a].simultaneousWith.contains(b) || recognizers[b].simultaneousWith.contains(a)
    }

    func publish<S: MessageSink>(_ r: Int, time: Int64, sink: inout S) {
        let g = recognizers[r]
        sink.publish(.gesture(GestureMessage(seq: nextSeq(), time: time, recognizer: g.id, kind: g.kind.rawValue, view: g.view,
                                             state: g.state.rawValue, touches: g.touches, location: g.location, values: g.values)))
    }

    func apply<S: MessageSink>(_ request: GestureRequest, to r: Int, time: Int64, sink: inout S) {
        switch request {
        case .none:
            return
        case .fail:
            fail(r, time: time, sink: &sink)
        case .change:
            guard recognizers[r].active else { return }
            recognizers[r].state = .changed
            publish(r, time: time, sink: &sink)
            if recognizers[r].scrollView { scroll(r, time: time, sink: &sink) }
        case .end:
            guard recognizers[r].active else { fail(r, time: time, sink: &sink); return }
            recognizers[r].state = .ended
            if recognizers[r].scrollView { scroll(r, time: time, sink: &sink) }
            publish(r, time: time, sink: &sink)
        case .cancel:
            guard recognizers[r].active else { fail(r, time: time, sink: &sink); return }
            recognizers[r].state = .cancelled
            publish(r, time: time, sink: &sink)
        case .begin, .recognize:
            let g = recognizers[r]
            guard g.state == .possible else { return }
            // A scroll view that may not cancel its content does not scroll once content has it.
            if g.scrollView && !g.canCancelContentTouches &&
                live.contains(where: { g.touches.contains($0.id) && $0.view != g.view && ($0.viewState == .active || $0.viewState == .endHeld) }) {
                fail(r, time: time, sink: &sink)
                return
            }
            // Controls win their own taps (UIKit since iOS 6): a single-tap recognizer above a
            // control does not take the control's tap.
            if g.kind == .tap && g.tapsRequired == 1 && g.touchesRequired == 1,
               live.contains(where: { t in g.touches.contains(t.id) && t.view >= 0 && t.view != g.view &&
                   scene.views[t.view].control != nil && scene.views[t.view].enabled && scene.isDescendant(t.view, of: g.view) }) {
                fail(r, time: time, sink: &sink)
                return
            }
            // Another recognizer already has these touches.
            for o in recognizers.indices where o != r && (recognizers[o].active || (recognizers[o].state == .recognized && !recognizers[o].down.isEmpty)) {
                if shareTouches(r, o) && !simultaneous(r, o) {
                    fail(r, time: time, sink: &sink)
                    return
                }
            }
            // requireToFail: a required recognizer that succeeded rules this one out; one that
            // sees touches and is undecided makes it wait.
            if g.requireToFail.contains(where: { [.recognized, .began, .changed, .ended].contains(recognizers[$0].state) }) {
                fail(r, time: time, sink: &sink)
                return
            }
            if g.requireToFail.contains(where: { recognizers[$0].undecided && !recognizers[$0].touches.isEmpty }) {
                recognizers[r].pending = request
                return
            }
            succeed(r, request, time: time, sink: &sink)
        }
    }

    func succeed<S: MessageSink>(_ r: Int, _ request: GestureRequest, time: Int64, sink: inout S) {
        recognizers[r].pending = nil
        recognizers[r].deadline = nil
        recognizers[r].state = request == .begin ? .began : .recognized
        if recognizers[r].scrollView { scrollStart[r] = scene.views[recognizers[r].view].boundsOrigin }
        publish(r, time: time, sink: &sink)
        // By default one recognizer's success makes the others that share its touches fail.
        for o in recognizers.indices where o != r && recognizers[o].undecided && shareTouches(r, o) && !simultaneous(r, o) {
            fail(o, time: time, sink: &sink)
        }
        // Those waiting for this one to fail cannot succeed now.
        for o in recognizers.indices where recognizers[o].pending != nil && recognizers[o].requireToFail.contains(r) {
            fail(o, time: time, sink: &sink)
        }
        if recognizers[r].cancelsTouchesInView {
            let ids = Set(recognizers[r].touches)
            for i in live.indices where ids.contains(live[i].id) && !(recognizers[r].scrollView && live[i].view == recognizers[r].view) {
                live[i].taken = true
            }
        }
        if recognizers[r].scrollView { scroll(r, time: time, sink: &sink) }
    }

    func fail<S: MessageSink>(_ r: Int, time: Int64, sink: inout S) {
        guard !recognizers[r].terminal else { return }
        recognizers[r].state = .failed
        recognizers[r].pending = nil
        recognizers[r].deadline = nil
        publish(r, time: time, sink: &sink)
        // Those that waited for this one to fail may go ahead.
        for o in recognizers.indices where recognizers[o].requireToFail.contains(r) {
            if let p = recognizers[o].pending,
               !recognizers[o].requireToFail.contains(where: { recognizers[$0].undecided && !recognizers[$0].touches.isEmpty }) {
                recognizers[o].pending = nil
                apply(p, to: o, time: time, sink: &sink)
            }
        }
    }

    /// A scroll view's pan moved its content: bounds origin = start − translation, clamped.
    func scroll<S: MessageSink>(_ r: Int, time: Int64, sink: inout S) {
        let v = recognizers[r].view
        guard let spec = scene.views[v].scroll, let start = scrollStart[r] else { return }
        let size = scene.views[v].frame.size
        let t = recognizers[r].translation
        let maxX = max(0, spec.contentSize.width - size.width), maxY = max(0, spec.contentSize.height - size.height)
        let offset = Point(min(max(start.x - t.x, 0), maxX), min(max(start.y - t.y, 0), maxY))
        guard offset != scene.views[v].boundsOrigin else { return }
        scene.setBoundsOrigin(offset, of: v)
        sink.publish(.scroll(ScrollMessage(seq: nextSeq(), time: time, view: v, offset: offset)))
    }

    // MARK: Time

    /// When the next timer is due: a recognizer's deadline, or a scroll view's content delay.
    public var nextDeadline: Int64? {
        guard !recognizers.isEmpty else { return nil }   // only recognizers set timers
        var best: Int64?
        for g in recognizers { if let d = g.deadline, best == nil || d < best! { best = d } }
        // A scroll view's content delay, for touches it still holds (ignored touches are never
        // held; a delay already past is not a timer any more, whoever else holds the touch).
        for t in live where t.viewState == .pending && t.ignored == nil && t.view >= 0 {
            for r in t.recognizers where recognizers[r].scrollView && recognizers[r].delaysTouchesBegan && recognizers[r].undecided {
                let d = t.beganAt + recognizers[r].contentDelay
                if d > lastTime && (best == nil || d < best!) { best = d }
            }
        }
        return best
    }

    /// Fires every timer due up to `time`, each at its own deadline.
    public func advance<S: MessageSink>(to time: Int64, sink: inout S) {
        var guardCount = 0
        while let due = nextDeadline, due <= time, guardCount < 10_000 {
            guardCount += 1
            for r in recognizers.indices where recognizers[r].deadline.map({ $0 <= due }) == true {
                let request = recognizers[r].timerFired(time: due)
                apply(request, to: r, time: due, sink: &sink)
            }
            if due > lastTime { lastTime = due }
            deliver(time: due, sink: &sink)
            finishStep(time: due)
        }
    }

    // MARK: Delivery to views

    /// Is the touch's began still held by a recognizer that delays it?
    func holdsBegan(_ t: LiveTouch, time: Int64) -> Bool {
        t.recognizers.contains { r in
            let g = recognizers[r]
            guard g.delaysTouchesBegan, g.undecided, g.touches.contains(t.id) else { return false }
            if g.scrollView { return t.view != g.view && time < t.beganAt + g.contentDelay }
            return true
        }
    }

    func holdsEnded(_ t: LiveTouch) -> Bool {
        t.recognizers.contains { r in
            let g = recognizers[r]
            return g.delaysTouchesEnded && g.undecided && g.touches.contains(t.id)
        }
    }

    /// The phase the views see for touch `i` in this step, or nil when it is not in their event.
    func viewPhase(_ i: Int, time: Int64) -> Phase? {
        let t = live[i]
        if t.viewState == .gone { return nil }
        if t.view < 0 || t.ignored != nil {
            // Not delivered to any view: it is in the event with the finger's own phase.
            return t.phase
        }
        switch t.viewState {
        case .pending:
            if t.taken { live[i].viewState = .gone; return nil }
            if holdsBegan(t, time: time) { return nil }
            live[i].viewState = t.fingerDone || t.phase == .ended || t.phase == .cancelled ? .endHeld : .active
            return .began
        case .active:
            if t.taken { live[i].viewState = .gone; live[i].reason = .gesture; return .cancelled }
            if t.phase == .cancelled { live[i].viewState = .gone; return .cancelled }
            if t.phase == .ended {
                if holdsEnded(t) { live[i].viewState = .endHeld; return .stationary }
                live[i].viewState = .gone
                return .ended
            }
            return t.phase == .moved ? .moved : .stationary
        case .endHeld:
            if t.taken { live[i].viewState = .gone; live[i].reason = .gesture; return .cancelled }
            if t.reason != nil && t.reason != .gesture { live[i].viewState = .gone; return .cancelled }
            if holdsEnded(t) { return .stationary }
            live[i].viewState = .gone
            return .ended
        case .gone:
            return nil
        }
    }

    /// Builds, per device, the event the views see (frame message), the responder calls and
    /// the control events, and publishes them. A device whose views see no change gets no frame.
    func deliver<S: MessageSink>(time: Int64, sink: inout S) {
        var devicesInOrder: [Int] = []
        for t in live where !devicesInOrder.contains(t.device) { devicesInOrder.append(t.device) }
        for d in devicesInOrder {
            var records: [TouchRecord] = []
            var liveIndex: [Int] = []
            var followUp = false
            for i in live.indices where live[i].device == d {
                guard let phase = viewPhase(i, time: time) else { continue }
                let t = live[i]
                if phase == .began && t.viewState == .endHeld { followUp = true }
                let inView = t.view >= 0 ? scene.convert(windowPoint: t.location, to: t.view) : t.location
                records.append(TouchRecord(id: t.id, phase: phase, window: t.window, view: t.view,
                                           location: t.location, previous: phase == .moved ? t.previous : t.location,
                                           locationInView: inView, tapCount: t.tapCount, pressure: t.pressure, major: t.major,
                                           tool: t.tool, reason: phase == .cancelled ? t.reason : nil, ignored: t.ignored))
                liveIndex.append(i)
            }
            guard records.contains(where: { $0.phase != .stationary }) else { continue }
            publishFrame(device: d, time: time, records: records, liveIndex: liveIndex, sink: &sink)
            if followUp {
                // A held began released after its finger had already lifted: its end follows.
                var endRecords: [TouchRecord] = []
                var endIndex: [Int] = []
                for (k, i) in liveIndex.enumerated() where live[i].viewState == .endHeld && records[k].phase == .began {
                    if holdsEnded(live[i]) { continue }
                    live[i].viewState = .gone
                    var r = records[k]
                    r.phase = live[i].reason != nil && live[i].reason != .gesture ? .cancelled : .ended
                    r.reason = r.phase == .cancelled ? live[i].reason : nil
                    endRecords.append(r)
                    endIndex.append(i)
                }
                if !endRecords.isEmpty { publishFrame(device: d, time: time, records: endRecords, liveIndex: endIndex, sink: &sink) }
            }
        }
    }

    func publishFrame<S: MessageSink>(device d: Int, time: Int64, records: [TouchRecord], liveIndex: [Int], sink: inout S) {
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
        sink.publish(.frame(FrameMessage(seq: nextSeq(), time: time, device: devices[d].descriptor.id,
                                         touches: records, calls: calls)))
        controlEvents(time: time, records: records, liveIndex: liveIndex, sink: &sink)
    }

    func controlEvents<S: MessageSink>(time: Int64, records: [TouchRecord], liveIndex: [Int], sink: inout S) {
        for (k, rec) in records.enumerated() where rec.ignored == nil && rec.view >= 0 && rec.phase != .stationary {
            let v = rec.view
            let node = scene.views[v]
            guard node.control != nil else { continue }
            let policy = scene.responders[node.responder].policy
            guard policy[rec.phase] != .forward else { continue }
            let i = liveIndex[k]
            let id = rec.id
            func send(_ e: ControlEvent) {
                sink.publish(.control(ControlMessage(seq: nextSeq(), time: time, control: v, event: e, touch: id)))
            }
            // UIControl's tracking area: the bounds grown by 70 points on every side.
            let inside = node.bounds.grown(by: Outset(all: 70)).contains(rec.locationInView)
            switch rec.phase {
            case .began:
                live[i].controlInside = true
                send(.touchDown)
                if rec.tapCount > 1 { send(.touchDownRepeat) }
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

    /// End of a step: fingers that lifted are marked, touches nobody will hear of again are
    /// dropped, recognizers whose sequence is over are reset.
    func finishStep(time: Int64) {
        var i = 0
        while i < live.count {
            let t = live[i]
            if t.phase == .ended || t.phase == .cancelled {
                if t.phase == .ended && !t.fingerDone && t.view >= 0 && t.location.distance(to: t.start) <= options.tapDistance {
                    recentTaps.removeAll { $0.view == t.view }
                    recentTaps.append(RecentTap(view: t.view, location: t.location, time: time, count: t.tapCount))
                    if recentTaps.count > 16 { recentTaps.removeFirst() }
                }
                live[i].fingerDone = true
            }
            let gone = live[i].fingerDone && (live[i].viewState == .gone || live[i].view < 0 || live[i].ignored != nil)
            if gone {
                live.remove(at: i)
                continue
            }
            live[i].phase = .stationary
            live[i].previous = live[i].location
            i += 1
        }
        for r in recognizers.indices where !recognizers[r].touches.isEmpty { recognizers[r].resetIfDone() }
    }

    // MARK: Snapshots and reloads

    /// Every touch currently down, as a late subscriber should first see it (phase stationary).
    public func snapshot() -> [TouchRecord] {
        live.filter { $0.viewState == .active || $0.viewState == .endHeld || (($0.view < 0 || $0.ignored != nil) && $0.viewState != .gone && !$0.fingerDone) }.map { t in
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
        // 1. Recognizers are rebuilt for the new scene: they end first, so subscribers see every
        //    recognizer end and held touches are released (all through the old scene).
        settleRecognizers(time: time, sink: &sink)
        // 2. Which touches keep their view (by id), which lose it.
        var removed: [Int] = []
        var survivors: [(index: Int, view: Int, window: Int)] = []
        for i in live.indices where live[i].view >= 0 {
            let t = live[i]
            let newView = newScene.viewIndex[scene.views[t.view].id]
            let newWindow = t.window >= 0 ? newScene.viewIndex[scene.views[t.window].id] : nil
            if let v = newView, let w = newWindow, newScene.views[v].window == w {
                survivors.append((i, v, w))
            } else {
                removed.append(i)
            }
        }
        // 3. The others are cancelled through the old scene (the responders that saw them begin
        //    see them end), then tracked, undelivered, until their fingers lift.
        if !removed.isEmpty {
            let saved = live
            var cancelled: [LiveTouch] = []
            for i in removed {
                let t = saved[i]
                let visible = t.viewState == .active || t.viewState == .endHeld || (t.ignored != nil && t.viewState != .gone && !t.fingerDone)
                guard visible else { continue }
                var c = t
                c.phase = .cancelled
                c.reason = .viewRemoved
                c.taken = false
                if c.viewState == .endHeld { c.viewState = .active }
                cancelled.append(c)
            }
            live = cancelled
            deliver(time: time, sink: &sink)
            live = saved
            for i in removed {
                live[i].viewState = .gone
                live[i].view = -1
                live[i].window = -1
                live[i].ignored = nil
            }
        }
        // 4. Survivors are re-bound to the new scene's indices.
        for s in survivors {
            live[s.index].view = s.view
            live[s.index].window = s.window
        }
        for i in live.indices { live[i].recognizers = [] }
        scene = newScene
        recentTaps.removeAll()
        buildRecognizers()
    }

    /// Replaces a device's mapping settings (a config reload).
    public func updateDevice(_ d: Int, settings: DeviceSettings, info: DeviceInfo, screen: Size) {
        guard d >= 0 && d < devices.count else { return }
        devices[d].mapping = Engine.mapping(for: devices[d].tracker, info: info, settings: settings, screen: screen)
    }

    /// Device units → screen points for the axes the tracker reads.
    static func mapping(for tracker: ContactTracker, info: DeviceInfo, settings: DeviceSettings, screen: Size) -> DeviceMapping {
        let single = tracker.touchProtocol == .single
        return DeviceMapping(x: info.abs[tracker.xCode] ?? AbsInfo(minimum: 0, maximum: Int32(screen.width) - 1),
                             y: info.abs[tracker.yCode] ?? AbsInfo(minimum: 0, maximum: Int32(screen.height) - 1),
                             pressure: single ? info.abs[ABS.PRESSURE] : info.abs[ABS.MT_PRESSURE],
                             major: single ? nil : info.abs[ABS.MT_TOUCH_MAJOR],
                             settings: settings, screen: screen)
    }
}
