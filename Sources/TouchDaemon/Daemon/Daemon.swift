import TouchCore
import TouchSystem
import TouchInput
import TouchCapture
import TouchServer


/// `touchd run`: one thread, one epoll loop over the input, the listening socket, the clients,
/// a signalfd and a timerfd. Everything the engine and the server own is touched from this
/// thread only, so nothing on the hot path takes a lock. Flow is one way: the input feeds the
/// engine, the daemon drains the engine's outbox into the server.
///
/// Start-up in order: signals → listener (or systemd's socket) → server → input → READY=1.
/// Shutdown in reverse: STOPPING=1 → input stopped (live touches cancelled, reason shutdown,
/// published) → clients told ("bye") and served for up to a second → clients closed and the
/// socket file removed.
final class Daemon {
    struct Options {
        var configPath = "/etc/touchd/touchd.json"
        var socketPath: String?
        var replay: [String] = []
        var deviceInfos: [String] = []
        var format: String?
        var maxInputSize = CaptureFiles.defaultMaxBytes
        var speed: Double = 1
        var startAfterRequests = 0
        var exitAtEnd = false
        var logLevel: LogLevel = .info
    }

    enum Phase {
        case running
        /// Stopping: clients get what is queued until they are idle or the deadline passes.
        case draining(until: Int64)
    }

    let options: Options
    var config: Config
    let log: StderrLog
    let epoll: Epoll
    let signals: SignalSource
    let timer: DeadlineTimer
    let engine: Engine
    var server: Server!
    var input: InputSource!
    /// The replay, when the input is one (it may wait for clients).
    var replay: ReplaySource?
    var watched = Set<Descriptor>()
    var phase = Phase.running
    var watchdog: Int64?
    var nextWatchdog: Int64 = 0
    var outputs: [EngineOutput] = []
    /// TUIO out (the config's `tuio`), nil without it.
    var tuio: TuioOutput?

    init(options: Options, config: Config, log: StderrLog) throws(CommandFailure) {
        self.options = options
        self.config = config
        self.log = log
        engine = Engine(scene: config.scene, options: EngineOptions(), log: log.function)
        do {
            epoll = try Epoll()
            signals = try SignalSource([SignalSource.terminate, SignalSource.interrupt, SignalSource.hangup])
            timer = try DeadlineTimer()
            try epoll.add(signals.fd.number)
            try epoll.add(timer.fd.number)
        } catch {
            throw CommandFailure("\(error)")
        }
    }

    func start() throws(CommandFailure) {
        let descriptors = ThisProcess.raiseDescriptorLimit()
        log(.debug, "up to \(descriptors) open descriptors")
        let path = options.socketPath ?? config.socket.path
        let listener: Listener
        do {
            if let d = Systemd.activatedSocket() {
                listener = try Listener.adopt(d, path: path)
                log(.info, "using the socket passed by systemd (\(d))")
            } else {
                listener = try Listener.bind(path: path, mode: config.socket.mode, group: config.socket.group, log: log.function)
            }
        } catch {
            throw CommandFailure(error.message)
        }
        var limits = ServerLimits()
        limits.queueLimit = config.socket.queueLimit
        limits.maxClients = config.socket.maxClients
        do {
            server = try Server(listener: listener, epoll: epoll, scene: config.scene, screen: config.screen,
                                version: touchdVersion, limits: limits, log: log.function)
            server.monotonicStamps = options.replay.isEmpty || options.speed > 0
        } catch {
            listener.removeFile(log: log.function)
            throw CommandFailure("\(error)")
        }
        if let t = config.tuio { tuio = TuioOutput(settings: t, screen: config.screen, scene: engine.scene, log: log.function) }
        do { input = try makeInput() } catch {
            server.closeAll()
            throw error
        }
        pump()
        watchInput()
        watchdog = Systemd.watchdogMicros()
        let status = "listening on \(path)" + (options.replay.isEmpty ? ", \(engine.activeDevices.count) touchscreen(s)" : ", replaying \(options.replay.count) capture(s)")
        log(.notice, status + " (up to \(limits.maxClients) clients, queue \(limits.queueLimit) messages each)")
        Systemd.notify("READY=1\nSTATUS=\(status)\nMAINPID=\(ThisProcess.id)")
    }

    func makeInput() throws(CommandFailure) -> InputSource {
        if options.replay.isEmpty {
            let live: LiveSource
            do { live = try LiveSource(config: config, engine: engine, log: log.function) } catch {
                throw CommandFailure(error.description)
            }
            live.start()
            return live
        }
        let session = try replaySession(config: config, captures: options.replay, deviceInfos: options.deviceInfos,
                                        format: options.format, maxBytes: options.maxInputSize, engine: engine, log: log)
        let source = ReplaySource(session: session, speed: options.speed, held: options.startAfterRequests > 0, log: log.function)
        replay = source
        return source
    }

    /// Hands what the engine published to the server.
    func pump() {
        guard engine.hasOutput else { return }
        engine.drain(into: &outputs)
        server.publish(outputs)
        tuio?.publish(outputs)
        outputs.removeAll(keepingCapacity: true)
    }

    /// Keeps epoll watching exactly the input's descriptors (devices come and go).
    func watchInput() {
        let current = Set(input.descriptors)
        for d in current.subtracting(watched) {
            do { try epoll.add(d) } catch { log(.error, "cannot watch the input's \(d) (\(error)): it is not read") }
        }
        for d in watched.subtracting(current) {
            do { try epoll.remove(d) } catch { log(.warning, "\(error)") }
        }
        watched = current
    }

    /// The loop. Returns the exit code.
    func run() -> Int32 {
        var nextDue: Int64? = Clock.monotonicMicros()
        while true {
            let now = Clock.monotonicMicros()
            if let w = watchdog, now >= nextWatchdog {
                Systemd.notify("WATCHDOG=1")
                nextWatchdog = now + w / 2
            }
            var deadlines = [nextDue, log.nextDeadline, server.nextDeadline, tuio?.nextFull]
            if server.hasPendingRequests { deadlines.append(now) }
            if watchdog != nil { deadlines.append(nextWatchdog) }
            if case .draining(let until) = phase { deadlines.append(until) }
            let ready: [Epoll.Ready]
            do {
                try timer.arm(at: deadlines.compactMap { $0 }.min())
                ready = try epoll.wait(timeoutMS: -1)
            } catch {
                log(.error, "the event loop failed: \(error)")
                return 1
            }
            for r in ready {
                if r.descriptor == signals.fd.number {
                    handleSignals()
                } else if r.descriptor == timer.fd.number {
                    do { try timer.acknowledge() } catch { log(.warning, "\(error)") }
                } else if watched.contains(r.descriptor) {
                    input.readable(r.descriptor)
                    pump()
                } else {
                    server.handle(r, host: self)
                }
            }
            server.serveBacklogs(host: self)
            clientsGone()
            engine.options.tracing = server.wantsTraces
            if case .running = phase {
                // Work due now; a replay held for clients starts once enough have spoken.
                if let replay, replay.held, server.clientsWithRequests >= options.startAfterRequests { replay.release() }
                nextDue = input.due(now: Clock.monotonicMicros())
                pump()
                if input.finished && options.exitAtEnd { beginStop() }
                watchInput()
            }
            server.releaseDue(now: Clock.monotonicMicros())
            tuio?.due(now: Clock.monotonicMicros())
            server.flush(host: self)
            clientsGone()
            log.tick()
            if case .draining(let until) = phase, server.isIdle || Clock.monotonicMicros() >= until { break }
        }
        server.closeAll()
        log(.notice, "stopped")
        log.flush()
        return 0
    }

    func handleSignals() {
        let taken: [Int32]
        do { taken = try signals.take() } catch {
            log(.error, "\(error)")
            return
        }
        for s in taken {
            switch s {
            case SignalSource.hangup:
                if case .running = phase { reload() }
            default:
                log(.notice, "\(SignalSource.name(s)): stopping")
                if case .running = phase { beginStop() }
            }
        }
    }

    /// Stops the input (live touches cancelled, published) and says goodbye to every client.
    func beginStop() {
        Systemd.notify("STOPPING=1")
        server.prepareShutdown()
        input.stop()
        pump()
        watchInput()
        server.beginShutdown(farewell: WireProtocol.bye(reason: "shutdown"), host: self)
        phase = .draining(until: Clock.monotonicMicros() + 1_000_000)
    }

    func reload() {
        Systemd.notify("RELOADING=1")
        log(.notice, "SIGHUP: reloading \(options.configPath)")
        do throws(CommandFailure) {
            let new = try loadConfig(options.configPath)
            let clashes = engine.clientIDs(clashingWith: new.scene)
            if !clashes.isEmpty {
                throw CommandFailure("\(options.configPath): \(clashes.map { "\"\($0)\"" }.joined(separator: ", ")) \(clashes.count == 1 ? "is" : "are") taken by a client's window: ids are unique across the whole scene")
            }
            if new.socket.path != config.socket.path && options.socketPath == nil {
                log(.warning, "the socket path changed to \(new.socket.path): that takes a restart; still listening on \(server.socketPath)")
            }
            // Cancellations for vanished views go out with the old scene's ids; the outbox then
            // tells the server to switch to the new scene.
            engine.replaceScene(new.scene, time: engine.lastTime)
            pump()
            server.screen = new.screen
            server.limits.queueLimit = new.socket.queueLimit
            server.limits.maxClients = new.socket.maxClients
            input.reconfigure(new)
            if new.tuio != config.tuio {
                tuio = new.tuio.map { TuioOutput(settings: $0, screen: new.screen, scene: engine.scene, log: log.function) }
            }
            config = new
            log(.notice, "reloaded: \(engine.scene.liveViewCount) views in \(engine.scene.windowOrder.count) window(s), client windows kept")
        } catch {
            for line in error.lines { log(.error, line) }
            log(.error, "reload rejected: the previous configuration stays in force")
        }
        Systemd.notify("READY=1")
    }
}

/// The live scene: clients' requests, applied between two frames (the loop calls the server,
/// which calls here, never in the middle of the engine's work), and their disconnections.
extension Daemon: ServerHost {
    func snapshot() -> Snapshot { engine.snapshot() }

    /// The time of a change: now on the monotonic clock the kernel stamps events with (a paced
    /// replay stamps them so too), or, in a replay as fast as possible, the capture's time so far.
    var sceneTime: Int64 { options.replay.isEmpty || options.speed > 0 ? max(Clock.monotonicMicros(), engine.lastTime) : engine.lastTime }

    func sceneRequest(_ request: SceneRequest, from client: ClientInfo) -> [UInt8] {
        if case .attach = request, let policy = config.clients.owners, let refusal = refusal(client, policy) {
            log(.warning, "client \(client.id): attach \"\(request.window)\" refused: \(refusal)")
            return SceneReply.refused(request: "attach", window: request.window, error: SceneRequestError(path: "", message: refusal))
                .encode(line: client.line)
        }
        let reply = engine.apply(request, from: client.id, limits: config.clients.limits, time: sceneTime)
        pump()
        switch reply {
        case .attached(let w, _): log(.info, "client \(client.id) attached window \"\(w)\"")
        case .detached(let w): log(.info, "client \(client.id) detached window \"\(w)\"")
        case .updated(let w, let v): log(.debug, "client \(client.id) updated window \"\(w)\" (version \(v))")
        case .refused(let r, let w, let e): log(.info, "client \(client.id): \(r) \"\(w ?? "")\" refused: \(e)")
        }
        return reply.encode(line: client.line)
    }

    /// Why `clients.owners` does not let this client own windows, or nil when it does.
    func refusal(_ client: ClientInfo, _ policy: OwnersPolicy) -> String? {
        guard let cr = client.credentials else { return "its credentials are unknown, and clients.owners limits who may own windows" }
        let gids = [cr.gid] + cr.groups.filter { $0 != cr.gid }
        let user = Accounts.userName(cr.uid)
        if policy.permits(uid: cr.uid, userName: user, groups: gids.map { ($0, Accounts.groupName($0)) }) { return nil }
        return "user \(user ?? String(cr.uid)) (uid \(cr.uid)) is not among clients.owners (users \(policy.users), groups \(policy.groups))"
    }

    /// Clients that went away: their windows go at once, their touches cancelled (client-gone).
    func clientsGone() {
        for id in server.takeGoneClients() {
            let owned = engine.owned(by: id)
            guard owned.windows > 0 else { continue }
            engine.clientGone(id, time: sceneTime)
            pump()
            log(.info, "client \(id) is gone: its \(owned.windows) window(s) removed")
        }
    }
}
