/// The dispatcher: device events in, messages out. A thin facade over its parts — the device
/// registry, the touch table (with the tap counter), the gesture arbiter, the delivery gate,
/// the responder router, the control tracker and the scene reloader — that appends what it
/// publishes to an outbox its caller drains (libinput's event queue). It owns all touch state;
/// one thread drives it (no locks). Live input and replay feed it the same way, so every
/// capture is a regression test.

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
    public internal(set) var scene: Scene
    public var options: EngineOptions
    public var log: LogFunction?
    var devices = DeviceRegistry()
    var touches = TouchTable()
    var arbiter: GestureArbiter
    var scrolls = ScrollViews()
    var controls = ControlTracker()
    var outbox = Outbox()
    /// The calibrations running (Engine+Calibration.swift): their devices' contacts are theirs.
    var calibrations: [DeviceIndex: CalibrationSession] = [:]
    /// A split re-export's contacts withheld, per device (Engine+Frames.swift, exportSplit).
    var withheldContacts: [DeviceIndex: Set<Int>] = [:]
    /// The touch accommodations' stage of each device that has them (Engine+Accommodations.swift).
    var accommodationStages: [DeviceIndex: AccommodationStage] = [:]
    /// What says headphones are plugged into each output, by output id (Engine+Headphones.swift).
    var headphoneSources: [String: Set<String>] = [:]
    /// Each client's highest level as of its last request (preemption, Engine+Scene.swift).
    var clientTops: [Int: Double] = [:]
    /// The outputs' screen readers (Engine+ScreenReader.swift).
    var reader = ScreenReader()
    /// The latest time the engine has seen (event or timer).
    public internal(set) var lastTime: Int64 = 0
    /// The kiosk's stages (Engine+Session.swift, Engine+SystemGestures.swift): the settings,
    /// each output's session by output index (nil: none), the system gestures' watchers, the
    /// output ids they were built for, and whether their clock has started.
    var kiosk = KioskSettings()
    var sessions: [SessionMachine?] = []
    var hasSessions = false
    var watchers: [SystemGestureWatcher] = []
    var kioskOutputIDs: [String] = []
    var kioskStarted = false

    // Scratch buffers reused across frames to keep allocation per frame small.
    var changes: [ContactChange] = []
    var trace: [HitStep] = []
    /// Scratch for `deliver`: the devices to look at, and a mark per device.
    var deliverOrder: [DeviceIndex] = []
    var deliverMark: [UInt8] = []
    /// While frames are held (Engine+Conditioning.swift): the time up to which what follows
    /// the filters has run (frames handled, timers fired).
    var heldClock: Int64 = 0

    public init(scene: Scene, options: EngineOptions = EngineOptions(), log: LogFunction? = nil) {
        self.scene = scene
        self.options = options
        self.log = log
        arbiter = GestureArbiter(scene: scene)
        reader.configure(scene)
    }

    /// Appends everything published since the last call to `out`, in order.
    public func drain(into out: inout [EngineOutput]) { outbox.drain(into: &out) }

    /// Everything published since the last call, in order.
    public func drain() -> [EngineOutput] {
        var out: [EngineOutput] = []
        outbox.drain(into: &out)
        return out
    }

    /// Something was published and not drained yet.
    public var hasOutput: Bool { !outbox.isEmpty }

    /// The sequence number of the latest message.
    public var seq: Int { outbox.seq }
    public func descriptor(of d: DeviceIndex) -> DeviceDescriptor { devices[d].descriptor }
    /// The output device `d` maps onto, as it is turned now.
    public func output(of d: DeviceIndex) -> Output { scene.outputs[devices[d].outputIndex] }
    public var liveTouchCount: Int { touches.count }
    /// For each touch `liveTouchCount` counts, the client whose private window it landed in
    /// (nil for any other) — still that client after the window went, while the finger stays.
    public var liveTouchPrivateOwners: [Int?] { touches.all.map(\.privateOwner) }
    /// Devices attached and not removed, in the order they came.
    public var activeDevices: [DeviceDescriptor] { devices.active }
    public var recognizers: [GestureRecognizer] { arbiter.recognizers }

    // MARK: Devices

    /// Registers a device and publishes `device added`. `trackerProtocol` is what the tracker
    /// sees (B for protocol A devices already converted by libmtdev), `slotCount` its slots.
    /// It maps onto the output its settings name (`settings.output`; nil or unknown: the first).
    @discardableResult
    public func addDevice(_ descriptor: DeviceDescriptor, info: DeviceInfo, trackerProtocol: TouchProtocol, slotCount: Int? = nil,
                          settings: DeviceSettings, time: Int64) -> DeviceIndex {
        let o = outputIndex(for: settings)
        let d = devices.add(descriptor, info: info, trackerProtocol: trackerProtocol, slotCount: slotCount, settings: settings,
                            output: scene.outputs[o], outputIndex: o)
        // Conditioning keys the device cannot honour are said once, here, and ignored.
        if settings.filter.pressure != nil && !devices[d].mapping.hasPressure {
            log?(.warning, "\(descriptor.id): filter.pressure is ignored: the device reports no pressure axis")
        }
        if settings.filter.palmSize != nil && !devices[d].mapping.hasMajor {
            log?(.warning, "\(descriptor.id): filter.palmSize is ignored: the device reports no touch-major axis")
        }
        outbox.publish(.device(DeviceMessage(seq: 0, time: time, action: .added, device: descriptor)))
        return d
    }

    /// A device went away: its live touches are cancelled (device-removed), then `device removed`.
    public func removeDevice(_ d: DeviceIndex, time: Int64) {
        guard devices.contains(d), !devices[d].removed else { return }
        if !kioskStarted { startKiosk(at: time) }
        endCalibration(d, reason: "device-removed")
        changes.removeAll(keepingCapacity: true)
        devices.cancelAll(d, .deviceRemoved, time: time, into: &changes)
        if !changes.isEmpty { handleFrame(device: d, time: time) }
        releaseEverythingHeld()
        // Touches whose end a recognizer still holds end now, cancelled; those whose began is
        // still held were never seen by a view and go quietly.
        var settle = false
        for i in touches.slots(of: d) {
            let fingerDone = touches[i].fingerDone
            if touches[i].live(.deviceRemoved(fingerDone: fingerDone)) != .none { settle = true }
        }
        if settle {
            deliver(time: time)
            finishStep(time: time)
        }
        devices.markRemoved(d)
        accommodationStages[d] = nil
        sessionsForget(device: d, time: time)
        outbox.publish(.device(DeviceMessage(seq: 0, time: time, action: .removed, device: devices[d].descriptor)))
    }

    /// Cancels every live touch with reason `shutdown` (end of capture, SIGTERM): no touch is
    /// left open.
    public func shutdown(time: Int64) {
        // A calibration ends first, nothing changed: its fingers were never the windows'.
        for d in calibrations.keys.sorted(by: { $0.rawValue < $1.rawValue }) { endCalibration(d, reason: "shutdown") }
        for d in devices.activeIndices {
            changes.removeAll(keepingCapacity: true)
            devices.cancelAll(d, .shutdown, time: time, into: &changes)
            if !changes.isEmpty { handleFrame(device: d, time: time) }
        }
        releaseEverythingHeld()
        // Recognizers still deciding (a tap waiting for its next tap) give up, so that every
        // delayed delivery is made before the end.
        settleRecognizers(time: time)
    }

    /// The end of a capture (the offline replay's last step, and the daemon's when its paced
    /// replay has played everything): a second of quiet (timers such as a double tap's interval
    /// run out as they would), scroll views still moving on run until they rest (each motion
    /// is bounded), then touches still down are cancelled (shutdown).
    public func playEnd() {
        advance(to: lastTime + 1_000_000)
        while isMoving, let next = nextDeadline { advance(to: next) }
        shutdown(time: lastTime)
    }

    /// Every recognizer that holds touches ends now; then what they held is delivered.
    func settleRecognizers(time: Int64) {
        carryOut(arbiter.settle(arbiterContext(time)))
        deliver(time: time)
        finishStep(time: time)
    }

    /// Contacts down when the device was opened are ignored until they lift.
    public func ignoreContactsDown(device d: DeviceIndex, _ down: [(slot: Int, trackingID: Int32)]) {
        devices.ignoreContactsDown(d, down)
    }

    /// Brackets libevdev's resync events after SYN_DROPPED (see ContactTracker.resyncing).
    public func setResyncing(device d: DeviceIndex, _ on: Bool) { devices.setResyncing(d, on) }

    /// Puts (or stops putting) the device's frames of contacts in screen points — conditioned,
    /// calibrated, rotated: the points the engine publishes — in the outbox with the messages
    /// (`EngineOutput.contacts`, for `devices[].uinput`). No message changes.
    public func exportContacts(device d: DeviceIndex, _ on: Bool) {
        guard devices.contains(d) else { return }
        devices.setExportsContacts(d, on)
    }

    /// Replaces a device's mapping settings (a config reload), or remaps it onto its output
    /// as the output is now (a rotation).
    public func updateDevice(_ d: DeviceIndex, settings: DeviceSettings, info: DeviceInfo) {
        guard devices.contains(d) else { return }
        let o = outputIndex(for: settings)
        let before = devices[d].outputIndex
        // What the old filter holds goes on first, as it would have: each touch ends once.
        if devices.updateMapping(d, settings: settings, info: info, output: scene.outputs[o], outputIndex: o) && devices.holding { releaseHeldFrames() }
        refreshAccommodations(d)
        // Its contacts down now are no longer on the output they landed on.
        if before != o {
            sessionsForget(device: d, time: lastTime)
            systemGesturesAbandon(output: before)
        }
    }

    /// Every device mapped again onto its output as the scene has it now (after a reload or a
    /// rotation); those whose output did not change are left as they are.
    func remapDevices() {
        for d in devices.activeIndices { updateDevice(d, settings: devices[d].settings, info: devices[d].info) }
    }

    /// The output a device's settings name, by index (nil or unknown: the first).
    func outputIndex(for settings: DeviceSettings) -> Int { scene.outputIndex(named: settings.output) ?? 0 }

    /// The output a device maps onto (its id), e.g. for `touchd devices` and tests.
    public func outputID(of d: DeviceIndex) -> String { scene.outputs[devices[d].outputIndex].id }

    // MARK: Events and time

    public func process(_ event: InputEvent, device d: DeviceIndex) {
        if !kioskStarted { startKiosk(at: event.time) }
        // Timers run on event time (libinput's habit): whatever was due before this event fires first.
        if let due = nextDeadline, due <= event.time { advance(to: event.time) }
        if event.time > lastTime { lastTime = event.time }
        if !calibrations.isEmpty && calibrations[d] != nil { return calibrate(event, device: d) }
        let wasHolding = devices.holding
        changes.removeAll(keepingCapacity: true)
        let flushed = devices.feed(event, device: d, into: &changes)
        if devices.hasIssues(d) { reportIssues(d) }
        if flushed && !changes.isEmpty { handleFrame(device: d, time: event.time) }
        if devices.holding {
            if !wasHolding { heldClock = event.time }
            releaseHeldFrames()
        }
    }

    func reportIssues(_ d: DeviceIndex) {
        let issues = devices.drainIssues(d)
        guard let log else { return }
        for issue in issues { log(.warning, "\(devices[d].descriptor.id): \(issue)") }
    }

    /// When the next timer is due: a recognizer's deadline, a scroll view's content delay or
    /// motion, the end of a hold of a device's filter (Engine+Conditioning.swift), or the kiosk's
    /// (a session's idle time, a system gesture's: Engine+Session.swift) — never one after a
    /// frame the filters still hold (that frame is a touch: it comes first).
    public var nextDeadline: Int64? {
        let engine = devices.holding ? heldDeadline : gestureDeadline(after: lastTime)
        guard let k = kioskDue else { return engine }
        return engine.map { min($0, k) } ?? k
    }

    /// The recognizers' and scroll views' next timer, ignoring content delays not after `time`.
    func gestureDeadline(after time: Int64) -> Int64? {
        var gestures = arbiter.isEmpty ? nil : arbiter.nextDeadline(touches: touches, after: time)
        if let m = scrolls.nextDeadline { gestures = gestures.map { min($0, m) } ?? m }
        if let c = calibrationDeadline { gestures = gestures.map { min($0, c) } ?? c }
        if let a = accommodationDeadline { gestures = gestures.map { min($0, a) } ?? a }
        if !reader.isEmpty, let r = reader.nextDeadline { gestures = gestures.map { min($0, r) } ?? r }
        return gestures
    }

    /// A scroll view is moving on after a flick (its frames are timers).
    public var isMoving: Bool { scrolls.isMoving }

    /// Fires every timer due up to `time`, each at its own deadline.
    public func advance(to time: Int64) {
        if !kioskStarted { startKiosk(at: time) }
        var guardCount = 0
        while let due = nextDeadline, due <= time, guardCount < 10_000 {
            guardCount += 1
            // The kiosk's timers fire apart: the engine's own time does not move for them.
            if let k = kioskDue, k <= due {
                fireKioskTimers(due: k)
                continue
            }
            if devices.holding && expireHeld(due: due) { continue }
            fireTimers(due: due)
        }
    }

    /// The recognizers' and scroll views' timers due at `due`, and what they release.
    func fireTimers(due: Int64) {
        expireCalibrations(due: due)
        if !reader.isEmpty { fireReaderTimers(due: due) }
        carryOut(arbiter.fireTimers(arbiterContext(due)))
        carryOut(scrolls.advance(to: due))
        if due > lastTime { lastTime = due }
        if due > heldClock { heldClock = due }
        deliver(time: due)
        finishStep(time: due)
        // A stage's frame at `due` comes after the timers due then, as an event of that time would.
        expireAccommodations(due: due)
    }

    // MARK: Snapshots and reloads

    /// Every touch currently down as a late subscriber should first see it (phase stationary),
    /// the devices attached, and where the stream stands.
    public func snapshot() -> Snapshot {
        let down = touches.all.filter(\.isVisible).map { (record(for: $0, phase: .stationary), devices[$0.device].descriptor.id) }
        var snap = Snapshot(touches: down, devices: devices.active, time: lastTime, seq: outbox.seq, liveTouches: touches.count)
        snap.headphones = outputsWithHeadphones
        return snap
    }

    /// Ids of the clients' windows (views, controllers, recognizers) that a new config scene
    /// also declares: such a reload must be refused.
    public func clientIDs(clashingWith newScene: Scene) -> [String] {
        var out: [String] = []
        let newGestures = Set(newScene.viewIndices.flatMap { newScene[$0].gestures.map(\.id) })
        for w in scene.windowOrder where scene[w].owner != nil {
            let f = scene.fragment(of: w)
            out += f.ids(skippingRoot: false).filter { newScene.viewIndex[$0] != nil || newScene.responderIndex[$0] != nil }
            out += f.gestureIDs.filter { newGestures.contains($0) }
        }
        return out
    }

    /// Replaces the config's part of the scene (a reload); the clients' windows stay, above the
    /// config's windows of their level as before. Touches whose view (or window) still exists, by
    /// id, stay bound to it; the others are cancelled with reason `view-removed` and tracked,
    /// undelivered, until their finger lifts. Then the outbox says the scene changed. An output
    /// whose rotation or size the reload changes ends its touches as a turn does, and an
    /// `output` message says what it is now.
    public func replaceScene(_ configScene: Scene, time: Int64) {
        // A calibration ends with nothing changed: the reload gives its device the file's settings.
        for d in calibrations.keys.sorted(by: { $0.rawValue < $1.rawValue }) { endCalibration(d, reason: "reload") }
        var newScene = configScene
        for w in scene.windowOrder.filter({ scene[$0].owner != nil }).sorted(by: { scene[$0].arrival < scene[$1].arrival }) {
            let nw = newScene.attachWindow(scene.fragment(of: w), owner: scene[w].owner, isPrivate: scene[w].isPrivate)
            newScene.views[nw.rawValue].version = scene[w].version
        }
        // An output the reload turns or resizes (a run-time rotation undone, a new size) is as
        // if turned by a client: its touches end (output-changed) and every subscriber is told.
        let changedOutputs = scene.outputs.indices.filter { o in
            newScene.outputIndex(named: scene.outputs[o].id).map { newScene.outputs[$0] != scene.outputs[o] } ?? false
        }
        for o in changedOutputs { cancelTouches(onOutput: o, reason: .outputChanged, time: time) }
        let toldOutputs = changedOutputs.compactMap { newScene.outputIndex(named: scene.outputs[$0].id) }
        // Recognizers are rebuilt for the new scene: they end first, so subscribers see every
        // recognizer end and held touches are released (all through the old scene).
        settleRecognizers(time: time)
        let plan = SceneReloader.plan(touches, from: scene, to: newScene)
        // The responders that saw them begin see them end.
        publishCancellations(plan.removed.map { touches[$0] }.filter(\.isVisible), reason: .viewRemoved, time: time)
        for i in plan.removed {
            _ = touches[i].live(.unbound)
            touches[i].view = nil
            touches[i].window = nil
            touches[i].ignored = nil
        }
        for s in plan.survivors {
            touches[s.index].view = s.view
            touches[s.index].window = s.window
        }
        for i in touches.ordered { touches[i].recognizers = [] }
        reader.remap(from: scene, to: newScene)
        scene = newScene
        touches.taps.reset()
        arbiter = GestureArbiter(scene: newScene)
        scrolls = ScrollViews()
        remapDevices()
        alignKiosk(time: time)
        outbox.sceneChanged(newScene)
        for o in toldOutputs { outbox.publish(.output(OutputMessage(seq: 0, time: time, output: newScene.outputs[o]))) }
        readerSettingsReloaded(time: time)
    }
}
