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
    /// Host names (TUIO targets) resolved off the loop.
    let resolver: Resolver
    let engine: Engine
    /// The scene of what is published: the server and TUIO read the engine's output through it.
    let history: SceneHistory
    let server: Server
    let input: InputSource
    /// The replay, when the input is one (it may wait for clients).
    let replay: ReplaySource?
    /// The replay's end (a second of quiet, touches still down cancelled) has been played.
    var replayEnded = false
    var watched = Set<Descriptor>()
    var phase = Phase.running
    let watchdog: Int64?
    var nextWatchdog: Int64 = 0
    var outputs: [EngineOutput] = []
    /// TUIO out (the config's `tuio`), nil without it; TUIO outputs made so far.
    var tuio: TuioOutput?
    /// Clients gone whose windows are still to be removed (clientsGone).
    var goneQueue: [Int] = []
    /// Views of gone clients removed since memory was last given back.
    var freedViews = 0
    static let goneBudget = 5_000
    var tuioGenerations = 0

    private init(options: Options, config: Config, log: StderrLog, loop: (Epoll, SignalSource, DeadlineTimer, Resolver),
                 engine: Engine, history: SceneHistory, server: Server, input: InputSource, replay: ReplaySource?) {
        self.options = options
        self.config = config
        self.log = log
        (epoll, signals, timer, resolver) = loop
        self.engine = engine
        self.history = history
        self.server = server
        self.input = input
        self.replay = replay
        watchdog = Systemd.watchdogMicros()
    }

    /// Starts the daemon, in order: the descriptors systemd passed → signals and the loop's own
    /// descriptors → listener (or systemd's socket) → server → input → READY=1. Every part
    /// exists once this returns.
    static func start(options: Options, config: Config, log: StderrLog) throws(CommandFailure) -> Daemon {
        // First, before this process opens a descriptor of its own: what systemd passed (from
        // descriptor 3 on) is checked while those numbers can only be what it passed.
        let activated = try Systemd.activatedSocket(log: log.function)
        let descriptors = ThisProcess.raiseDescriptorLimit()
        log(.debug, "up to \(descriptors) open descriptors")
        let loop: (Epoll, SignalSource, DeadlineTimer, Resolver)
        do {
            let epoll = try Epoll()
            let signals = try SignalSource([SignalSource.terminate, SignalSource.interrupt, SignalSource.hangup])
            let timer = try DeadlineTimer()
            let resolver = try Resolver()
            try epoll.add(signals.fd.number)
            try epoll.add(timer.fd.number)
            try epoll.add(resolver.descriptor)
            loop = (epoll, signals, timer, resolver)
        } catch {
            throw CommandFailure("\(error)")
        }
        let engine = Engine(scene: config.scene, options: EngineOptions(), log: log.function)
        let history = SceneHistory(scene: engine.scene)
        let path = options.socketPath ?? config.socket.path
        let listener: Listener
        do {
            if let d = activated {
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
        limits.queueBytes = config.socket.queueBytes
        limits.maxClients = config.socket.maxClients
        let server: Server
        do {
            server = try Server(listener: listener, epoll: loop.0, history: history, screen: config.screen,
                                version: touchdVersion, limits: limits, log: log.function)
            server.monotonicStamps = options.replay.isEmpty || options.speed > 0
        } catch {
            listener.removeFile(log: log.function)
            throw CommandFailure("\(error)")
        }
        let input: InputSource, replay: ReplaySource?
        do { (input, replay) = try makeInput(options: options, config: config, engine: engine, log: log) } catch {
            server.closeAll()
            throw error
        }
        let d = Daemon(options: options, config: config, log: log, loop: loop, engine: engine, history: history,
                       server: server, input: input, replay: replay)
        if let t = config.tuio { d.tuio = d.makeTuio(t, screen: config.screen) }
        d.pump()
        d.watchInput()
        let status = "listening on \(path)" + (options.replay.isEmpty ? ", \(engine.activeDevices.count) touchscreen(s)" : ", replaying \(options.replay.count) capture(s)")
        log(.notice, status + " (up to \(limits.maxClients) clients, queue \(limits.queueLimit) messages each)")
        Systemd.notify("READY=1\nSTATUS=\(status)\nMAINPID=\(ThisProcess.id)", log: log.function)
        return d
    }

    static func makeInput(options: Options, config: Config, engine: Engine, log: StderrLog) throws(CommandFailure) -> (InputSource, ReplaySource?) {
        if options.replay.isEmpty {
            let live: LiveSource
            do { live = try LiveSource(config: config, engine: engine, log: log.function) } catch {
                throw CommandFailure(error.description)
            }
            live.start()
            return (live, nil)
        }
        let session = try replaySession(config: config, captures: options.replay, deviceInfos: options.deviceInfos,
                                        format: options.format, maxBytes: options.maxInputSize, engine: engine, log: log)
        let source = ReplaySource(session: session, speed: options.speed, held: options.startAfterRequests > 0, log: log.function)
        return (source, source)
    }

    /// A TUIO output whose targets are being resolved off the loop.
    func makeTuio(_ settings: TuioSettings, screen: Size) -> TuioOutput {
        tuioGenerations += 1
        return TuioOutput(settings: settings, screen: screen, resolver: resolver, generation: tuioGenerations, log: log.function)
    }

    /// The daemon's consumers of the engine's output, read through the one scene history.
    struct Consumers: OutputSink {
        let server: Server
        let tuio: TuioOutput?
        func take(_ m: Message, history: SceneHistory) {
            server.publish(m)
            tuio?.publish(m, history: history)
        }
        func sceneChanged(_ history: SceneHistory) { server.sceneChanged() }
    }

    /// Hands what the engine published to the server and TUIO (and its contacts to the
    /// virtual touchscreens of devices[].uinput).
    func pump() {
        input.forwardContacts()
        guard engine.hasOutput else { return }
        engine.drain(into: &outputs)
        var consumers = Consumers(server: server, tuio: tuio)
        history.deliver(outputs, to: &consumers)
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
                Systemd.notify("WATCHDOG=1", log: log.function)
                nextWatchdog = now + w / 2
            }
            var deadlines = [nextDue, log.nextDeadline, server.nextDeadline, tuio?.nextFull]
            if server.hasPendingRequests || !goneQueue.isEmpty { deadlines.append(now) }
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
                } else if r.descriptor == resolver.descriptor {
                    for a in resolver.take() { tuio?.resolved(a) }
                } else if watched.contains(r.descriptor) {
                    input.readable(r.descriptor)
                    pump()
                } else {
                    server.handle(r, host: self)
                }
            }
            server.serveBacklogs(host: self)
            applySceneRequests()
            clientsGone()
            engine.options.tracing = server.wantsTraces
            if case .running = phase {
                // Work due now; a replay held for clients starts once enough have spoken.
                if let replay, replay.held, server.clientsWithRequests >= options.startAfterRequests { replay.release() }
                nextDue = runInput()
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

    /// The input's work due now, then the engine's timers up to where its events have reached:
    /// the one place the daemon's engine time advances (sources only deliver events). Returns
    /// when the loop must come back.
    func runInput() -> Int64? {
        let schedule = input.due(now: Clock.monotonicMicros())
        if let t = schedule.settled { engine.advance(to: t) }
        if let replay, replay.finished, !replayEnded {
            replayEnded = true
            replay.session.finish()
        }
        // On a capture's clock (as fast as possible) the timers run with the events.
        let timers = schedule.settled == nil ? nil : engine.nextDeadline
        return [schedule.next, timers].compactMap { $0 }.min()
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

    /// Ends every touch (cancelled, reason shutdown, published), stops the input and says
    /// goodbye to every client.
    func beginStop() {
        Systemd.notify("STOPPING=1", log: log.function)
        server.prepareShutdown()
        engine.shutdown(time: engineNow)
        input.stop()
        if let replay, !replayEnded {
            replayEnded = true
            replay.session.diagnose()
        }
        pump()
        watchInput()
        server.beginShutdown(farewell: WireProtocol.bye(reason: "shutdown"), host: self)
        phase = .draining(until: Clock.monotonicMicros() + 1_000_000)
    }

    func reload() {
        // MONOTONIC_USEC with RELOADING=1: sd_notify(3) asks for it (systemd 253 and later match
        // the reload's READY=1 by it; earlier ones ignore the field).
        Systemd.notify("RELOADING=1\nMONOTONIC_USEC=\(Clock.monotonicMicros())", log: log.function)
        log(.notice, "SIGHUP: reloading \(options.configPath)")
        Accounts.clearCache()   // user and group names are looked up again
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
            server.limits.queueBytes = new.socket.queueBytes
            server.limits.maxClients = new.socket.maxClients
            input.reconfigure(new)
            if new.tuio != config.tuio {
                tuio = new.tuio.map { makeTuio($0, screen: new.screen) }
            }
            config = new
            let (windows, views) = CheckConfigCommand.counts(new.scene)
            let clientWindows = engine.scene.windowOrder.count - windows
            log(.notice, "reloaded: \(windows) window(s), \(views) view(s) (as check-config counts them); \(clientWindows) client window(s) kept")
        } catch {
            for line in error.lines { log(.error, line) }
            log(.error, "reload rejected: the previous configuration stays in force")
        }
        Systemd.notify("READY=1", log: log.function)
    }
}
