/// The session stage (interface.md, "Kiosk session"): between the device's filter and the
/// system gestures, each output with a `session` follows its contacts (SessionMachine). Any
/// touch on it, private windows' included, restarts its idle time; after `idle` seconds with none
/// every subscriber is told `idle` (the daemon turns the backlight off); the next touch wakes it
/// (`wake`) and, with `"wake": "swallow"`, that touch and every finger down with it are taken out
/// of the frame here — no view, recognizer, system gesture, TUIO or re-export ever hears of them.
/// Its timers run on the engine's clock like every other (one deadline per idle period), but
/// apart from them: firing one changes nothing else's time.
extension Engine {
    /// An engine for a config: its scene, and its sessions and system gestures.
    public convenience init(config: Config, options: EngineOptions = EngineOptions(), log: LogFunction? = nil) {
        self.init(scene: config.scene, options: options, log: log)
        configureKiosk(config.kiosk, time: 0)
    }

    /// Sets (a start) or replaces (a reload) the kiosk's sessions and system gestures. An output
    /// that keeps a session keeps its state (idle stays idle, its keepers and its contacts); one
    /// that loses it while idle wakes (`wake`: its backlight goes on). System gestures start over.
    public func configureKiosk(_ settings: KioskSettings, time: Int64) {
        kiosk = settings
        alignKiosk(time: time)
    }

    /// The kiosk's stages as the scene's outputs are now (after a start, a reload, a new scene).
    func alignKiosk(time: Int64) {
        var old: [String: SessionMachine] = [:]
        for (k, id) in kioskOutputIDs.enumerated() where k < sessions.count { if let s = sessions[k] { old[id] = s } }
        sessions = scene.outputs.map { o in
            guard let settings = kiosk.sessions[o.id] else { return nil }
            guard var s = old.removeValue(forKey: o.id) else { return SessionMachine(settings: settings, state: .awake(since: time)) }
            s.settings = settings
            return s
        }
        for (id, s) in old.sorted(by: { $0.key < $1.key }) where s.isIdle {
            outbox.publish(.wake(SessionMessage(time: time, output: id)))
            log?(.info, "output \(id): awake (its session was removed)")
        }
        kioskOutputIDs = scene.outputs.map(\.id)
        hasSessions = sessions.contains { $0 != nil }
        watchers = []
        for g in kiosk.systemGestures {
            for (o, output) in scene.outputs.enumerated() where g.output == nil || g.output == output.id {
                watchers.append(SystemGestureWatcher(name: g.name, output: o, kind: g.kind))
            }
        }
    }

    /// The stage: this frame's changes on a session's output go through it; those it swallows
    /// leave `changes` (and go out only as `EngineOutput.swallowed`, for `render`).
    func sessionStage(device d: DeviceIndex, time: Int64) {
        guard hasSessions else { return }
        let o = devices[d].outputIndex
        guard o < sessions.count, sessions[o] != nil else { return }
        fireSessionTimers(through: time)
        var kept = 0
        var swallowed: [ScreenContact] = []
        for i in changes.indices {
            let ch = changes[i]
            let key = ContactKey(device: d, slot: ch.slot)
            let input: SessionInput
            switch ch.kind {
            case .began: input = .down(key, time)
            case .moved: input = .moved(key, time)
            case .ended, .cancelled: input = .up(key, time)
            }
            let actions = sessions[o]!.next(input)
            if actions.contains(.idle) { publishSession(.idle, output: o, time: time) }
            if actions.contains(.wake) { publishSession(.wake, output: o, time: time) }
            if !actions.contains(.swallow) {
                changes[kept] = ch
                kept += 1
            } else {
                swallowed.append(ScreenContact(slot: ch.slot, kind: ch.kind, point: devices[d].mapping.map(x: ch.sample.x, y: ch.sample.y)))
            }
        }
        guard !swallowed.isEmpty else { return }
        changes.removeLast(changes.count - kept)
        outbox.swallowed(ScreenContactFrame(device: d, time: time, contacts: swallowed))
    }

    enum SessionEvent { case idle, wake }

    func publishSession(_ e: SessionEvent, output o: Int, time: Int64) {
        let id = scene.outputs[o].id
        switch e {
        case .idle:
            outbox.publish(.idle(SessionMessage(time: time, output: id)))
            log?(.info, "output \(id): idle")
        case .wake:
            outbox.publish(.wake(SessionMessage(time: time, output: id)))
            log?(.info, "output \(id): awake")
        }
    }

    /// The first session to go idle by itself (nil: none will).
    var sessionDeadline: Int64? {
        guard hasSessions else { return nil }
        var best: Int64?
        for s in sessions { if let d = s?.deadline, best.map({ d < $0 }) ?? true { best = d } }
        return best
    }

    /// The sessions whose idle time has run out by `time` go idle, each at its own deadline.
    func fireSessionTimers(through time: Int64) {
        while let due = sessionDeadline, due <= time {
            for o in sessions.indices where sessions[o]?.deadline == due {
                if sessions[o]!.next(.timer(due)).contains(.idle) { publishSession(.idle, output: o, time: due) }
            }
        }
    }

    /// The idle time counts from the engine's first event or timer.
    func startKiosk(at time: Int64) {
        kioskStarted = true
        for o in sessions.indices { sessions[o]?.start(at: time) }
    }

    /// `{"session":{"output":ID,…}}`: for clients allowed to act on the output (as `output`).
    func sessionRequest(output id: String, _ action: SessionRequestAction, client: Int, limits: ClientLimits,
                        time: Int64) -> Result<SceneReply, SceneRequestError> {
        guard let o = scene.outputIndex(named: id) else {
            return .failure(SceneRequestError(path: "output", message: "no output has id \"\(id)\" (outputs: \(scene.outputs.map(\.id).joined(separator: ", ")))"))
        }
        if let problem = limits.actProblem(id, "acting on the session of") { return .failure(SceneRequestError(path: "output", message: problem)) }
        guard o < sessions.count, sessions[o] != nil else {
            return .failure(SceneRequestError(path: "output", message: "output \"\(id)\" has no session (give it one: session, or outputs[].session, in the config)"))
        }
        if !kioskStarted { startKiosk(at: time) }
        fireSessionTimers(through: time)
        let input: SessionInput?
        switch action {
        case .idle: input = .idleRequested
        case .wake: input = .wakeRequested(time)
        case .keepAwake(let on): input = .keepAwake(client: client, on: on, time)
        case .status: input = nil
        }
        if let input {
            let actions = sessions[o]!.next(input)
            if actions.contains(.idle) { publishSession(.idle, output: o, time: time) }
            if actions.contains(.wake) { publishSession(.wake, output: o, time: time) }
        }
        return .success(sessionStatus(o))
    }

    func sessionStatus(_ o: Int) -> SceneReply {
        .session(output: scene.outputs[o].id, idle: sessions[o]?.isIdle ?? false, keepAwake: sessions[o]?.keepers.count ?? 0)
    }

    /// Client `client` went away: whatever it kept awake is let go (the idle time starts again).
    public func sessionClientGone(_ client: Int, time: Int64) {
        guard hasSessions else { return }
        for o in sessions.indices where sessions[o]?.keepers.contains(client) == true {
            _ = sessions[o]!.next(.keepAwake(client: client, on: false, time))
        }
    }

    /// Device `d`'s contacts are no longer followed on any output (it went, or was moved to
    /// another output by a reload).
    func sessionsForget(device d: DeviceIndex, time: Int64) {
        guard hasSessions else { return }
        for o in sessions.indices { sessions[o]?.forget(device: d, at: time) }
    }

    /// Whether output `id` is idle now (nil: it has no session).
    public func isIdle(output id: String) -> Bool? {
        guard let o = scene.outputIndex(named: id), o < sessions.count, let s = sessions[o] else { return nil }
        return s.isIdle
    }

    // MARK: The kiosk's timers

    /// When a session goes idle or a system gesture's time is up: apart from the engine's other
    /// timers (firing one changes nothing else's time).
    var kioskDeadline: Int64? {
        guard kioskStarted else { return nil }
        let s = sessionDeadline, g = watchDeadline
        guard let s else { return g }
        return g.map { min($0, s) } ?? s
    }

    /// The kiosk's next timer, unless a frame the filters hold comes before it (that frame is a
    /// touch: it goes first, and restarts the idle time).
    var kioskDue: Int64? {
        guard let k = kioskDeadline else { return nil }
        if devices.holding, let head = devices.held.headTime, k > head { return nil }
        return k
    }

    /// The kiosk's timers due at `due`, sessions first.
    func fireKioskTimers(due: Int64) {
        fireSessionTimers(through: due)
        fireWatchTimers(through: due)
    }
}
