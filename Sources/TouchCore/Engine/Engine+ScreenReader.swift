/// The screen reader's stage (docs/accessibility.md): in interface.md's order a touch passes the
/// device's filter, the accommodations, the session, the system gestures, then this, then
/// hit-testing and delivery. Its one call site is `handleFrame` (Engine+Frames.swift): while the
/// device's output has its reader on, the frame's contact changes, in screen points, come here
/// first; the contacts that are the reader's gestures are taken out of `changes`, so that only
/// a contact passing through (double tap and hold) and contacts that were down before the
/// reader turned on (ignored until they lift) go on to binding. Nothing is re-exported meanwhile.
/// The reader's own timers run with the engine's (`fireReaderTimers`). What its gestures do is
/// Engine+ReaderActions.swift; its requests are at the end of this file.
extension Engine {
    /// The stage: false when device `d`'s output has no reader on (nothing taken).
    func readScreen(device d: DeviceIndex, time: Int64, mapping: DeviceMapping) -> Bool {
        let id = scene.outputs[devices[d].outputIndex].id
        guard var r = reader[id] else { return false }
        var kept: [ContactChange] = []
        var inputs: [ReaderInput] = []
        let passing = r.gesture.passingThrough
        for ch in changes {
            let key = ContactKey(device: d, slot: ch.slot)
            let p = mapping.map(x: ch.sample.x, y: ch.sample.y)
            if case .began = ch.kind {
                // A pass-through's began (made by the reader, `passThrough`) goes on.
                if key == passing { kept.append(ch); continue }
                r.contacts[key] = ch.sample
                inputs.append(.down(key, p, time))
                continue
            }
            // A contact down before the reader turned on: its touch was cancelled; it goes on,
            // ignored until it lifts.
            guard r.contacts[key] != nil else { kept.append(ch); continue }
            if key == passing { kept.append(ch) }
            switch ch.kind {
            case .moved:
                r.contacts[key] = ch.sample
                inputs.append(.move(key, p, time))
            case .ended:
                r.contacts[key] = nil
                inputs.append(.up(key, p, time))
            case .cancelled:
                r.contacts[key] = nil
                inputs.append(.cancel(key, time))
            case .began:
                break
            }
        }
        changes = kept
        reader[id] = r
        for input in inputs { readerStep(id, input, time: time) }
        return true
    }

    /// One input through output `id`'s gesture machine, and what it says to do.
    func readerStep(_ id: String, _ input: ReaderInput, time: Int64) {
        guard let r = reader[id] else { return }
        let (next, actions) = ReaderGesture.next(r.gesture, input, reader.timings)
        reader[id]?.gesture = next
        var device: DeviceIndex?
        switch input {
        case .down(let k, _, _), .move(let k, _, _), .up(let k, _, _), .cancel(let k, _): device = k.device
        case .timer: device = nil
        }
        for a in actions { readerAction(a, output: id, device: device, time: time) }
    }

    /// The readers' timers due by `due` (a double tap's interval, a tap's length, a hold).
    func fireReaderTimers(due: Int64) {
        for id in reader.due(by: due) { readerStep(id, .timer(due), time: due) }
    }

    // MARK: On and off

    /// Turns output `o`'s reader on or off: its touches down are cancelled (reason
    /// `screen-reader`; their fingers are ignored until they lift). Turned on, it reads the
    /// first element (as after a new screen). False when it already was so. `announced`
    /// (headphones turned it): it says so first, "Screen reader on" / "off", and the first
    /// element is queued after it.
    @discardableResult
    func setScreenReader(output o: Int, on: Bool, announced: Bool = false, time: Int64) -> Bool {
        let id = scene.outputs[o].id
        guard reader.isOn(id) != on else { return false }
        cancelTouches(onOutput: o, reason: .screenReader, time: time)
        reader[id] = on ? ScreenReader.OnOutput() : nil
        log?(.info, "output \(id): screen reader \(on ? "on" : "off")")
        if announced {
            let words = SpokenWords.table(for: nil, fallback: scene.accessibility.language)
            say(on ? words.readerOn : words.readerOff, output: id, about: nil, time: time)
        }
        if on { readerScreenChanged(id, focus: nil, interrupt: !announced, time: time) }
        return true
    }

    /// After a reload: the outputs whose `screenReader` the new config changed turn (one now
    /// `"headphones"`: on while they are plugged in).
    func readerSettingsReloaded(time: Int64) {
        for (id, on) in reader.reconfigure(scene, plugged: headphonesPlugged(output:)) {
            if let o = scene.outputIndex(named: id) { setScreenReader(output: o, on: on, time: time) }
        }
    }

    /// Headphones plugged into or pulled from output `id`: a reader in `"headphones"` mode
    /// turns on or off, and says so.
    func readerHeadphones(output id: String, plugged: Bool, time: Int64) {
        guard scene.accessibility.headphoneOutputs.contains(id), let o = scene.outputIndex(named: id) else { return }
        setScreenReader(output: o, on: plugged, announced: true, time: time)
    }

    /// Whether output `id`'s screen reader is on.
    public func isScreenReaderOn(output id: String) -> Bool { reader.isOn(id) }

    /// The element the screen reader of output `id` has focused.
    public func accessibilityFocus(output id: String) -> ViewIndex? { reader[id]?.focus }

    // MARK: Requests

    func accessibilityRequest(_ r: AccessibilityRequest, client: Int, limits: ClientLimits, time: Int64) -> Result<SceneReply, SceneRequestError> {
        guard let o = scene.outputIndex(named: r.output) else {
            return .failure(SceneRequestError(path: "output", message: "no output has id \"\(r.output)\" (outputs: \(scene.outputs.map(\.id).joined(separator: ", ")))"))
        }
        let id = scene.outputs[o].id
        switch r {
        case .screenReader(_, let on):
            if let problem = limits.actProblem(id, "turning the screen reader of") { return .failure(SceneRequestError(path: "output", message: problem)) }
            setScreenReader(output: o, on: on, time: time)
            return .success(.accessibility(.screenReader(output: id, on: on)))
        case .announce(_, let text):
            if let problem = limits.actProblem(id, "announcing on") { return .failure(SceneRequestError(path: "output", message: problem)) }
            if reader.isOn(id) { say(text, output: id, about: nil, time: time) }
            return .success(.accessibility(.announced(output: id)))
        case .changed(_, let screen, let focus):
            // The owner of a window on the output may say its screen changed; so may whoever
            // may act on the output.
            let owns = scene.windowOrder.contains { scene[$0].owner == client && scene[$0].output == o }
            let problem = limits.actProblem(id, "changing the screen of")
            if !owns, let problem { return .failure(SceneRequestError(path: "output", message: problem)) }
            var target: ViewIndex?
            if let f = focus {
                // A view of its own windows, or, for a client that may act on the output, of
                // any window but another client's private one (answered as one that does not exist).
                let w = scene.viewIndex[f].map { scene[$0].window }
                guard let v = scene.viewIndex[f], let w, scene[w].output == o,
                      scene[w].owner == client || (problem == nil && !(scene[w].isPrivate && scene[w].owner != client)) else {
                    return .failure(SceneRequestError(path: "focus", message: "no view \"\(f)\" of this client's on output \(id)"))
                }
                guard scene.readingOrder(output: o).contains(v) else {
                    return .failure(SceneRequestError(path: "focus", message: "\"\(f)\" is not read (not an element, hidden, or outside a modal view)"))
                }
                target = v
            }
            guard reader.isOn(id) else { return .success(.accessibility(.changed(output: id, focus: nil))) }
            if screen || target != nil || !stillReadable(reader[id]?.focus, output: o) {
                readerScreenChanged(id, focus: target, time: time)
            }
            return .success(.accessibility(.changed(output: id, focus: scene.id(of: reader[id]?.focus))))
        }
    }

    /// Whether a focus is still an element that is read on its output.
    func stillReadable(_ v: ViewIndex?, output o: Int) -> Bool {
        guard let v else { return false }
        return scene.readingOrder(output: o).contains(v)
    }

    /// A new screen: the focus goes to `focus`, or the first element, and it is read.
    func readerScreenChanged(_ id: String, focus: ViewIndex?, interrupt: Bool = true, time: Int64) {
        guard let o = scene.outputIndex(named: id), let v = focus ?? scene.readingOrder(output: o).first else { return }
        setFocus(v, output: id, read: true, interrupt: interrupt, time: time)
    }
}
