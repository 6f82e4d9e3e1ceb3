import TouchCore
import TouchSystem
import TouchInput
import TouchCapture
import TouchServer

extension Daemon.Options {
    /// The clock of the daemon's messages: CLOCK_MONOTONIC for live input and a paced replay
    /// (stamped as the kernel stamps events), the capture's own for a replay as fast as possible.
    var clock: StreamClock { replay.isEmpty || speed > 0 ? .monotonic : .capture }
}

/// The live scene: clients' requests, applied by the loop between two frames (the server only
/// collects them), and their disconnections. The server reads snapshots here (ServerHost).
extension Daemon: ServerHost {
    /// The touches down now, on the clock the messages are on (named in the snapshot): on
    /// CLOCK_MONOTONIC its time is now, not the last event's (0 before the first).
    func snapshot() -> Snapshot {
        var s = engine.snapshot()
        s.clock = options.clock
        if s.clock == .monotonic { s.time = engineNow }
        return s
    }
    var liveTouchCount: Int { engine.liveTouchCount }
    var liveTouchPrivateOwners: [Int?] { engine.liveTouchPrivateOwners }

    /// The engine's clock now (the time of a scene change or of the shutdown): the monotonic
    /// clock the kernel stamps events with (a paced replay stamps them so too), or, in a replay
    /// as fast as possible, the capture's time so far.
    var engineNow: Int64 { options.clock == .monotonic ? max(env.now(), engine.lastTime) : engine.lastTime }

    /// The scene requests the server collected this turn: each applied (its cancellations
    /// published), its reply put in the engine's outbox after them — the turn's drain hands it
    /// to its sender (`asking`). A request from a client that has gone is not applied.
    func applySceneRequests() {
        for p in server.takeSceneRequests() where server.isConnected(p) {
            let reply = sceneRequest(p.request, from: p.client)
            asking[nextTag] = p
            engine.answer(tag: nextTag, reply)
            nextTag += 1
        }
    }

    func sceneRequest(_ request: SceneRequest, from client: ClientInfo) -> SceneReply {
        var limits = config.clients.limits
        // The owners policy decides who may attach and, entry by entry, the levels they may
        // take; it is read for the requests that need it (the names come from NSS).
        if let policy = config.clients.owners, request.needsOwnerEntry {
            let entry = ownerEntry(client, policy)
            if case .success(let e) = entry, let levels = e.levels { limits.levels = levels }
            // Acting on an output is for the top of the policy's ranges, or whom the output's
            // `actors` names (interface.md, "Acting on an output"; issue 40, items 1 and 2).
            if request.actsOnOutput {
                let named = outputsNaming(client)
                let granted: OwnersPolicy.Entry?
                if case .success(let e) = entry { granted = e } else { granted = nil }
                limits.actsOn = config.clients.outputsActedOn(entry: granted, named: named)
                if case .failure = entry, !named.isEmpty { return engineReply(request, from: client, limits: limits) }
            }
            if case .failure(let refusal) = entry, request.needsOwnership {
                log(.warning, "client \(client.id): \(request.name) \"\(request.subject)\" refused: \(refusal.message)")
                return .refused(request: request.name, window: request.window, error: SceneRequestError(path: "", message: refusal.message))
            }
        }
        return engineReply(request, from: client, limits: limits)
    }

    /// The outputs whose `actors` name this client.
    func outputsNaming(_ client: ClientInfo) -> Set<String> {
        guard !config.clients.outputActors.isEmpty, let cr = client.credentials else { return [] }
        let gids = [cr.gid] + cr.groups.filter { $0 != cr.gid }
        let user = Accounts.userName(cr.uid)
        let groups = gids.map { ($0, Accounts.groupName($0)) }
        var named: Set<String> = []
        for (id, entry) in config.clients.outputActors where OwnersPolicy(entries: [entry]).entry(uid: cr.uid, userName: user, groups: groups) != nil {
            named.insert(id)
        }
        return named
    }

    func engineReply(_ request: SceneRequest, from client: ClientInfo, limits: ClientLimits) -> SceneReply {
        let reply = engine.apply(request, from: client.id, limits: limits, time: engineNow)
        switch reply {
        case .attached(let w, _): log(.info, "client \(client.id) attached window \"\(w)\"")
        case .detached(let w): log(.info, "client \(client.id) detached window \"\(w)\"")
        case .turned(let o):
            log.fromClient(.notice, "client \(client.id) turned output \(o.id) to \(o.rotation.rawValue)°")
            server.screen = engine.scene.screen   // hello's screen: the first output as it is now
        case .calibration(.ended(let d, _)): log(.info, "client \(client.id) cancelled the calibration of \(d)")
        case .calibration(let m): log.fromClient(.notice, "client \(client.id) started calibrating: \(String(decoding: m.encode().dropLast(), as: UTF8.self))")
        case .updated(let w, let v): log(.debug, "client \(client.id) updated window \"\(w)\" (version \(v))")
        case .accessibility(let r): log.fromClient(.info, "client \(client.id): \(r.logLine)")
        case .session(let o, let idle, let keepers):
            log(.info, "client \(client.id): session of output \(o): \(idle ? "idle" : "awake"), kept awake by \(keepers) client(s)")
        case .refused(let r, let w, let e): log(.info, "client \(client.id): \(r) \"\(w ?? "")\" refused: \(e)")
        }
        return reply
    }

    struct Refusal: Error { var message: String }

    /// After a reload: every client's windows under the new policy — out of its range, moved
    /// into it; no longer an owner, removed — each owner told per window (Engine.enforcePolicy).
    func enforcePolicy() {
        for id in engine.windowOwners {
            var levels: ClosedRange<Double>? = config.clients.limits.levels
            if let policy = config.clients.owners {
                let info = ClientInfo(id: id, credentials: server.credentials(ofClient: id), line: 0)
                switch ownerEntry(info, policy) {
                case .success(let e): levels = e.levels ?? config.clients.limits.levels
                case .failure(let refusal):
                    log(.warning, "client \(id): its windows are removed: \(refusal.message) (the reloaded config)")
                    levels = nil
                }
            }
            engine.enforcePolicy(client: id, levels: levels, time: engineNow)
        }
    }

    /// The `clients.owners` entry that lets this client own windows, or why none does.
    func ownerEntry(_ client: ClientInfo, _ policy: OwnersPolicy) -> Result<OwnersPolicy.Entry, Refusal> {
        guard let cr = client.credentials else { return .failure(Refusal(message: "its credentials are unknown, and clients.owners limits who may own windows")) }
        let gids = [cr.gid] + cr.groups.filter { $0 != cr.gid }
        let user = Accounts.userName(cr.uid)
        if let entry = policy.entry(uid: cr.uid, userName: user, groups: gids.map { ($0, Accounts.groupName($0)) }) { return .success(entry) }
        return .failure(Refusal(message: "user \(user ?? String(cr.uid)) (uid \(cr.uid)) is not among clients.owners (users \(policy.users), groups \(policy.groups))"))
    }

    /// Clients that went away: their windows go, their touches cancelled (client-gone) — many
    /// at once in one change, up to `goneBudget` views a loop turn (a mass disconnect is
    /// spread over turns, so clients still connected get their replies between them).
    func clientsGone() {
        let gone = server.takeGoneClients()
        // Their calibrations end at once, nothing changed (a calibration holds no views).
        for id in gone {
            engine.calibrationClientGone(id)
            engine.sessionClientGone(id, time: engineNow)   // what it kept awake is let go
        }
        goneQueue += gone
        var batch: [Int] = []
        var views = 0
        while let id = goneQueue.first, batch.isEmpty || views < Daemon.goneBudget {
            goneQueue.removeFirst()
            batch.append(id)
            views += engine.viewsOwned(by: id)
        }
        guard views > 0 else { return }
        for (id, windows) in engine.clientsGone(batch, time: engineNow) where windows > 0 {
            log(.info, "client \(id) is gone: its \(windows) window(s) removed")
        }
        // The memory their windows held goes back to the system once the last batch is done
        // (glibc keeps freed memory otherwise: 173 MiB stayed after 250 clients left).
        freedViews += views
        if goneQueue.isEmpty && freedViews >= 10_000 {
            ThisProcess.releaseFreedMemory()
            freedViews = 0
        }
    }
}
