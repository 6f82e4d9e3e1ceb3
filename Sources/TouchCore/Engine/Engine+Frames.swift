/// One hardware frame through the engine: contacts become touches (bound at touch-down, once),
/// recognizers see them first, then the views get what the delivery gate lets through, with the
/// responder calls and the control events.
extension Engine {
    /// A conditioned frame (`changes`, after the device's filter) through the touch
    /// accommodations (Engine+Accommodations.swift), then on.
    func handleFrame(device d: DeviceIndex, time: Int64) {
        guard let frames = accommodate(device: d, time: time) else { return handleAccommodatedFrame(device: d, time: time) }
        for f in frames {
            changes = f
            handleAccommodatedFrame(device: d, time: time)
        }
    }

    /// A frame past the accommodations: the kiosk's stages, the screen reader's, the re-export,
    /// touches bound and delivered.
    func handleAccommodatedFrame(device d: DeviceIndex, time: Int64) {
        // The kiosk's stages, in interface.md's order, on the contacts in screen points before
        // anything binds them: the session (a swallowed wake leaves `changes`), then the system
        // gestures (which only watch).
        sessionStage(device: d, time: time)
        systemGestureStage(device: d, time: time)
        guard !changes.isEmpty else { return }
        let mapping = devices[d].mapping
        // The screen reader's stage (Engine+ScreenReader.swift): while its output's reader is on,
        // it takes the contacts that are its gestures out of `changes`, and nothing is re-exported.
        let reading = !reader.isEmpty && readScreen(device: d, time: time, mapping: mapping)
        let split = !reading && devices[d].exportsContacts && devices[d].settings.uinput?.split == true
        if devices[d].exportsContacts && !split && !reading {
            outbox.contacts(ScreenContactFrame(device: d, time: time, contacts: changes.map {
                ScreenContact(slot: $0.slot, kind: $0.kind, point: mapping.map(x: $0.sample.x, y: $0.sample.y))
            }))
        }

        var hitTests: [HitTestMessage] = []
        for ch in changes {
            let screen = mapping.map(x: ch.sample.x, y: ch.sample.y)
            if case .began = ch.kind {
                began(device: d, slot: ch.slot, screen: screen, sample: ch.sample, mapping: mapping, time: time, hitTests: &hitTests)
                continue
            }
            touches.apply(ch, device: d, screen: screen, mapping: mapping, time: time)
        }
        // A split re-export is written once the frame's new touches are bound: which contacts
        // it withholds depends on what they hit.
        if split { exportSplit(device: d, time: time, mapping: mapping) }
        for h in hitTests { outbox.publish(.hitTest(h)) }
        guard touches.hasChanges(on: d) else { return }
        carryOut(arbiter.feed(device: d, arbiterContext(time)))
        deliver(time: time)
        finishStep(time: time)
    }

    /// The contacts of a split re-export: those whose touch-down hit a view of a client's
    /// window are withheld from touch-down to lift (the client has them from touchd); the
    /// others go to the virtual touchscreen as usual.
    func exportSplit(device d: DeviceIndex, time: Int64, mapping: DeviceMapping) {
        var withheld = withheldContacts[d] ?? []
        var out: [ScreenContact] = []
        for ch in changes {
            if case .began = ch.kind {
                let t = touches.slots(of: d).last { touches[$0].slot == ch.slot && !touches[$0].fingerDone }.map { touches[$0] }
                // The window itself (what a passthrough root leaves a touch on) is no view of it.
                if let w = t?.window, let v = t?.view, v != w, scene[w].owner != nil { withheld.insert(ch.slot) } else { withheld.remove(ch.slot) }
            }
            let held = withheld.contains(ch.slot)
            switch ch.kind {
            case .ended, .cancelled: withheld.remove(ch.slot)
            case .began, .moved: break
            }
            if !held { out.append(ScreenContact(slot: ch.slot, kind: ch.kind, point: mapping.map(x: ch.sample.x, y: ch.sample.y))) }
        }
        withheldContacts[d] = withheld.isEmpty ? nil : withheld
        if !out.isEmpty { outbox.contacts(ScreenContactFrame(device: d, time: time, contacts: out)) }
    }

    /// A new contact: one hit-test, and the touch is bound to what it hit for its whole life.
    func began(device d: DeviceIndex, slot: Int, screen: Point, sample: ContactSample, mapping: DeviceMapping,
               time: Int64, hitTests: inout [HitTestMessage]) {
        trace.removeAll(keepingCapacity: true)
        if !options.tracing { scene.refreshHitIndexes() }
        // Among the windows of its device's output only.
        let hit = scene.hitTest(screen: screen, output: devices[d].outputIndex, tracing: options.tracing, trace: &trace)
        // A touch in a private window is numbered by its owner's counter, never the public one.
        let privateOwner = hit.flatMap { scene[$0.window].isPrivate ? scene[$0.window].owner : nil }
        let id = privateOwner.map { touches.newPrivateID(owner: $0) } ?? touches.newID()
        let origin = hit.map { scene[$0.window].frame.origin } ?? .zero
        let location = screen - origin
        if options.tracing {
            hitTests.append(HitTestMessage(time: time, touch: id, window: hit?.window, point: screen,
                                            trace: HitStep.bounded(trace), view: hit?.view))
        }
        var t = LiveTouch(id: id, device: d, slot: slot, window: hit?.window, view: hit?.view, phase: .began,
                          location: location, previous: location, start: location,
                          tapCount: touches.taps.count(view: hit?.view, location: location, time: time,
                                                       interval: options.tapInterval, distance: options.tapDistance, domain: privateOwner),
                          pressure: mapping.hasPressure ? mapping.pressure(sample.pressure) : nil,
                          major: mapping.hasMajor ? mapping.major(sample.major) : nil,
                          tool: Tool(mtTool: sample.tool), windowOrigin: origin, beganAt: time, changedAt: time)
        if let hit {
            t.ignored = deliveryRefusal(view: hit.view, window: hit.window)
            t.privateOwner = privateOwner
        }
        // The recognizers of the hit view and of its ancestors up to the window see it first.
        // Touches of this frame bound before this one (the only ones whose phase is began).
        let arriving = { (r: RecognizerIndex) in
            var n = 0
            self.touches.forEachNeedingLook { if $0.phase == .began && $0.recognizers.contains(r) { n += 1 } }
            return n
        }
        t.recognizers = arbiter.recognizers(seeing: hit?.view, in: scene, arriving: arriving)
        // A finger on a scroll view that moves on stops it; its content never sees that touch,
        // an inner scroll view included (only a touch on the moving scroll view itself is its).
        let stopped = scrolls.stop(seenBy: t.recognizers, arbiter)
        if !stopped.isEmpty { t.taken = !stopped.contains { $0 == hit?.view } }
        // A finger joining a pan under way goes to the pan, not to the content.
        if !t.taken && arbiter.joinsBegunPan(t.recognizers, arriving: arriving) { t.taken = true }
        touches.append(t)
    }

    /// UIKit's multipleTouch and exclusiveTouch rules for a touch that hit `view`.
    func deliveryRefusal(view: ViewIndex, window: ViewIndex) -> IgnoreReason? {
        let node = scene[view]
        var othersInWindow = false
        var exclusiveOther = false
        for i in touches.ordered where !touches[i].undelivered && touches[i].isDown {
            let t = touches[i]
            if t.view == view {
                if !node.multipleTouch { return .multipleTouch }
            } else if t.window == window {
                othersInWindow = true
                if let v = t.view, scene[v].exclusiveTouch { exclusiveOther = true }
            }
        }
        if exclusiveOther || (node.exclusiveTouch && othersInWindow) { return .exclusiveTouch }
        return nil
    }

    /// A touch as a frame (or a snapshot) lists it.
    func record(for t: LiveTouch, phase: Phase, reason: CancelReason? = nil) -> TouchRecord {
        var r = TouchRecord(id: t.id, phase: phase, window: t.window, view: t.view, location: t.location,
                            previous: phase == .moved ? t.previous : t.location,
                            locationInView: t.view.map { scene.convert(windowPoint: t.location, to: $0) } ?? t.location,
                            timestamp: t.changedAt, tapCount: t.tapCount, pressure: t.pressure, major: t.major, tool: t.tool, reason: reason, ignored: t.ignored)
        r.synthesized = t.synthesized
        // With more than one output every touch says which (a one-output stream is unchanged).
        if scene.outputs.count > 1 { r.output = scene.outputs[devices[t.device].outputIndex].id }
        if phase == .moved { r.predicted = predict(t) }
        return r
    }

    /// A began a recognizer held (delaysTouchesBegan, delaysContentTouches), delivered later: as
    /// the touch began — where and when the finger landed (UIKit delivers the held touchesBegan,
    /// then a touchesMoved with where the finger is now: `deliver`).
    func heldBeganRecord(for t: LiveTouch) -> TouchRecord {
        var r = record(for: t, phase: .began)
        r.location = t.start
        r.previous = t.start
        r.locationInView = t.view.map { scene.convert(windowPoint: t.start, to: $0) } ?? t.start
        r.timestamp = t.beganAt
        return r
    }

    /// Where a moving touch is expected one frame later: its last step again (constant
    /// velocity over the last frame interval), kept on screen. On real recordings this is 3 to 7
    /// times closer to the next sample than the touch's current location (docs/messages.md).
    func predict(_ t: LiveTouch) -> Point {
        let next = t.location + (t.location - t.previous)
        let screen = next + t.windowOrigin
        let size = devices[t.device].mapping
        let clamped = Point(min(max(screen.x, 0), max(size.width - 1, 0)), min(max(screen.y, 0), max(size.height - 1, 0)))
        return clamped - t.windowOrigin
    }

    /// Builds, per device, the event the views see (frame message), the responder calls and
    /// the control events, and publishes them. A device whose views see no change gets no frame.
    /// A began that a recognizer held is delivered as the touch began (`heldBeganRecord`); when
    /// the finger has moved since, a frame with its move follows at once, and when it has
    /// lifted, one with its end.
    func deliver(time: Int64) {
        touches.devicesToDeliver(into: &deliverOrder, mark: &deliverMark)
        for d in deliverOrder {
            var records: [TouchRecord] = []
            var positions: [Int] = []
            var followUp = false
            for i in touches.slots(of: d) {
                guard let phase = DeliveryGate.viewPhase(&touches[i], time: time, arbiter.recognizers) else { continue }
                let t = touches[i]
                // Released after the step of its touch-down: it was held.
                let held = phase == .began && t.phase != .began
                if held || (phase == .began && t.viewState == .endHeld) { followUp = true }
                records.append(held ? heldBeganRecord(for: t) : record(for: t, phase: phase, reason: phase == .cancelled ? t.reason : nil))
                positions.append(i)
            }
            guard records.contains(where: { $0.phase != .stationary }) else { continue }
            publishFrame(device: d, time: time, records: records)
            guard followUp else { continue }
            // A held began of a finger that moved since it landed: its move follows, from there.
            var moves: [TouchRecord] = []
            for (k, i) in positions.enumerated() where records[k].phase == .began && touches[i].phase != .began && touches[i].location != touches[i].start {
                var r = record(for: touches[i], phase: .moved)
                r.previous = touches[i].start
                moves.append(r)
            }
            if !moves.isEmpty { publishFrame(device: d, time: time, records: moves) }
            // A held began released after its finger had already lifted: its end follows.
            var ends: [TouchRecord] = []
            for (k, i) in positions.enumerated() where touches[i].viewState == .endHeld && records[k].phase == .began {
                let reason = touches[i].reason
                let input = TouchLife.Input.beganAfterLift(holdsEnded: DeliveryGate.holdsEnded(touches[i], arbiter.recognizers),
                                                           ownReason: reason != nil && reason != .gesture)
                var r = record(for: touches[i], phase: .ended)
                switch touches[i].live(input) {
                case .cancel: r.phase = .cancelled
                case .deliver(let phase): r.phase = phase
                default: continue
                }
                r.reason = r.phase == .cancelled ? reason : nil
                ends.append(r)
            }
            if !ends.isEmpty { publishFrame(device: d, time: time, records: ends) }
        }
    }

    /// Touches the views knew, cancelled now (their view went away): one frame per device.
    func publishCancellations(_ cancelled: [LiveTouch], reason: CancelReason, time: Int64) {
        var order: [DeviceIndex] = []
        for t in cancelled where !order.contains(t.device) { order.append(t.device) }
        for d in order {
            publishFrame(device: d, time: time, records: cancelled.filter { $0.device == d }.map { record(for: $0, phase: .cancelled, reason: reason) })
        }
    }

    func publishFrame(device d: DeviceIndex, time: Int64, records: [TouchRecord]) {
        outbox.publish(.frame(FrameMessage(seq: 0, time: time, device: devices[d].descriptor.id,
                                           touches: records, calls: ResponderRouter.calls(for: records, in: scene))))
        for e in controls.events(for: records, in: scene) {
            var c = ControlMessage(seq: 0, time: time, control: e.control, event: e.event, touch: e.touch)
            c.synthesized = records.contains { $0.id == e.touch && $0.synthesized }
            outbox.publish(.control(c))
        }
    }

    /// End of a step: lifted fingers are marked, finished touches dropped, recognizers whose
    /// sequence is over reset.
    func finishStep(time: Int64) {
        touches.finishStep(time: time, tapDistance: options.tapDistance)
        let scrolls = self.scrolls
        carryOut(arbiter.resetFinished(time: time) { scrolls.isMoving($0) })
        if self.scrolls.hasFlags { carryOut(self.scrolls.correctFlags(time: time, scene: scene, arbiter)) }
    }

    /// What the arbiter's decisions of a step at `time` read: the touches and the scene as they
    /// are now (values: what the arbiter returns is carried out after the call).
    func arbiterContext(_ time: Int64) -> ArbiterContext { ArbiterContext(touches: touches, scene: scene, time: time) }

    /// Carries out what the arbiter decided, in order: messages, touches taken from the views,
    /// scroll views' drags (through ScrollViews, whose effects apply at once), recognizer ids the
    /// scene's settings no longer name. The parts decide; only the engine changes the scene, the
    /// touches and the outbox.
    func carryOut(_ actions: [ArbiterAction]) {
        for a in actions {
            switch a {
            case .publish(let m): outbox.publish(synthesizedMarked(m))
            case .take(let id): if let i = touches.slot(ofID: id) { touches[i].taken = true }
            case .scroll(let e): carryOut(scrolls.handle(e, scene: scene))
            case .forget(let v, let ids): scene.forgetRecognizers(ids, on: v)
            }
        }
    }

    /// Carries out a part's effects on the scene and the outbox, in order.
    func carryOut(_ effects: [SceneEffect]) {
        for e in effects {
            switch e {
            case .bounds(let v, let p): scene.setBoundsOrigin(p, of: v)
            case .publish(let m): outbox.publish(m)
            }
        }
    }
}
