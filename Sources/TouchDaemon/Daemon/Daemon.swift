import TouchCore
import TouchSystem
import TouchInput
import TouchCapture
import TouchServer

/// `touchd run`: one thread, one loop, the only code that touches the engine. Each turn it
/// waits for the input, the listening socket, the clients, the signals and its next deadline,
/// then: feeds the engine what the input read (sources return events and devices, they never
/// see the engine), applies the clients' scene requests, runs the engine's timers, and drains
/// the engine's outbox once into every consumer — the server, TUIO and the uinput re-export —
/// read through one scene history. Nothing on the hot path takes a lock.
///
/// Start-up in order: signals → listener (or systemd's socket) → server → input → READY=1.
/// Shutdown in reverse: STOPPING=1 → live touches cancelled (reason shutdown, published) and the
/// input stopped → clients told ("bye") and served for up to a second → clients closed and the
/// socket file removed. The world comes in through a `LoopEnvironment`, so a test drives the
/// same loop one `turn()` at a time with virtual time.
final class Daemon {
    struct Options {
        var configPath = "/etc/touchd/touchd.json"
        var socketPath: String?
        var replay: [String] = []
        var deviceInfos: [String] = []
        var format: CaptureFormat?
        var maxInputSize = CaptureFiles.defaultMaxBytes
        var speed: Double = 1
        var startAfterRequests = 0
        /// `--wait-windows N`: the replay starts once clients have N windows attached.
        var startAfterWindows = 0
        var exitAtEnd = false
        var logLevel: LogLevel = .info
        /// A replay waits for clients (`--wait-clients`) or their windows (`--wait-windows`).
        var holdsReplay: Bool { startAfterRequests > 0 || startAfterWindows > 0 }
        /// --realtime: overrides the config's `realtime`.
        var realtime: RealtimeSettings?
    }

    enum Phase {
        case running
        /// Stopping: clients get what is queued until they are idle or the deadline passes.
        case draining(until: Int64)
        case stopped
    }

    let options: Options
    var config: Config
    let log: StderrLog
    let env: LoopEnvironment
    let epoll: Epoll
    /// Host names (TUIO targets) resolved off the loop.
    let resolver: Resolver
    let engine: Engine
    /// The scene of what is published: every consumer reads the engine's output through it.
    let history: SceneHistory
    let server: Server
    let input: InputSource
    /// The replay, when the input is one (it may wait for clients).
    let replay: ReplaySource?
    /// What the input read this turn, and the engine's index of each of its devices.
    var items: [InputItem] = []
    var feed = EngineFeed()
    /// The consumers beside the server: TUIO (nil without `tuio`) and the uinput re-export.
    var tuio: TuioOutput?
    let uinput: UinputExport
    /// The sessions' backlights (session.backlight), a consumer too.
    let backlight: Backlight
    var outputs: [EngineOutput] = []
    /// The replay's end (a second of quiet, touches still down cancelled) has been played.
    var replayEnded = false
    var watched = Set<Descriptor>()
    var phase = Phase.running
    /// Asked for (a signal, or a test's call) and carried out at the next turn's start.
    var stopRequested = false
    var reloadRequested = false
    /// The scene requests whose answers the engine's outbox will carry, by tag.
    var asking: [Int: PendingSceneRequest] = [:]
    var nextTag = 0
    /// When the input wants to be called again.
    var nextDue: Int64?
    var nextWatchdog: Int64 = 0
    /// When the loop next looks whether the real-time guard demoted it (Realtime.swift).
    var nextSchedulingCheck: Int64 = 0
    /// Clients gone whose windows are still to be removed (clientsGone).
    var goneQueue: [Int] = []
    /// Views of gone clients removed since memory was last given back.
    var freedViews = 0
    static let goneBudget = 5_000
    var tuioGenerations = 0

    private init(options: Options, config: Config, log: StderrLog, env: LoopEnvironment, epoll: Epoll, resolver: Resolver,
                 engine: Engine, history: SceneHistory, server: Server, input: InputSource, replay: ReplaySource?) {
        self.options = options
        self.config = config
        self.log = log
        self.env = env
        self.epoll = epoll
        self.resolver = resolver
        self.engine = engine
        self.history = history
        self.server = server
        self.input = input
        self.replay = replay
        uinput = UinputExport(log: log.function)
        backlight = Backlight(config.kiosk, log: log.function)
        nextDue = env.now()
    }

    /// Starts the daemon, in order: the descriptors systemd passed → the loop's own descriptors →
    /// listener (or systemd's socket) → server → input → READY=1. Every part exists once this
    /// returns. `environment` gives the world (nil: the real one).
    static func start(options: Options, config: Config, log: StderrLog,
                      environment: ((Epoll) throws(SystemError) -> LoopEnvironment)? = nil) throws(CommandFailure) -> Daemon {
        // First, before this process opens a descriptor of its own: what systemd passed (from
        // descriptor 3 on) is checked while those numbers can only be what it passed. An
        // embedded loop (a test's) has none.
        let activated = environment == nil ? try Systemd.activatedSocket(log: log.function) : nil
        let descriptors = ThisProcess.raiseDescriptorLimit()
        log(.debug, "up to \(descriptors) open descriptors")
        let epoll: Epoll, env: LoopEnvironment, resolver: Resolver
        do {
            epoll = try Epoll()
            env = try environment.map { f throws(SystemError) in try f(epoll) } ?? LoopEnvironment.system(epoll: epoll, log: log.function)
            resolver = try Resolver()
            try epoll.add(resolver.descriptor)
        } catch {
            throw CommandFailure("\(error)")
        }
        let engine = Engine(config: config, options: EngineOptions(), log: log.function)
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
            server = try Server(listener: listener, epoll: epoll, history: history, screen: config.screen,
                                version: touchdVersion, limits: limits, clock: env.now, log: log.function)
            server.monotonicStamps = options.clock == .monotonic
        } catch {
            listener.removeFile(log: log.function)
            throw CommandFailure("\(error)")
        }
        // What parsing the config and building the scene freed stays in malloc's heap, resident;
        // given back before the input's own memory (a replay's capture and its events) comes on
        // top of it: 0.7 MiB off the peak of `scripts/bench memory` (1,000 views).
        ThisProcess.releaseFreedMemory()
        let input: InputSource, replay: ReplaySource?
        do { (input, replay) = try makeInput(options: options, config: config, now: env.now, log: log) } catch {
            server.closeAll()
            throw error
        }
        let d = Daemon(options: options, config: config, log: log, env: env, epoll: epoll, resolver: resolver,
                       engine: engine, history: history, server: server, input: input, replay: replay)
        if let t = config.tuio { d.tuio = d.makeTuio(t) }
        d.backlight.lightAll()
        input.start(into: &d.items)
        d.feedInput()
        d.drain()
        d.watchInput()
        let status = "listening on \(path)" + (options.replay.isEmpty ? ", \(engine.activeDevices.count) touchscreen(s)" : ", replaying \(options.replay.count) capture(s)")
        log(.notice, status + " (up to \(limits.maxClients) clients, queue \(limits.queueLimit) messages each)")
        // Not for an embedded loop: a test's thread keeps its own scheduling.
        if environment == nil { server.scheduling = enterRealtime(realtimeSettings(options: options, config: config), log: log) }
        env.notify("READY=1\nSTATUS=\(status)\nMAINPID=\(ThisProcess.id)")
        return d
    }

    static func makeInput(options: Options, config: Config, now: @escaping () -> Int64, log: StderrLog) throws(CommandFailure) -> (InputSource, ReplaySource?) {
        if options.replay.isEmpty {
            do { return (try LiveSource(config: config, now: now, log: log.function), nil) } catch {
                throw CommandFailure(error.description)
            }
        }
        let captures = try captureInputs(config: config, captures: options.replay, deviceInfos: options.deviceInfos,
                                         format: options.format, maxBytes: options.maxInputSize, log: log)
        // devices[].uinput holds for a replayed device too: its contacts go to a virtual
        // touchscreen, so a recorded capture can be played into a toolkit reading evdev.
        captures.exports = true
        let source = ReplaySource(captures: captures, speed: options.speed, held: options.holdsReplay, log: log.function)
        return (source, source)
    }

    /// A TUIO output whose targets are being resolved off the loop.
    func makeTuio(_ settings: TuioSettings) -> TuioOutput {
        tuioGenerations += 1
        return TuioOutput(settings: settings, resolver: resolver, generation: tuioGenerations, now: env.now(), log: log.function)
    }


    /// The loop. Returns the exit code.
    func run() -> Int32 {
        while true {
            switch turn() {
            case .goOn: continue
            case .stopped: return 0
            case .failed: return 1
            }
        }
    }

    enum TurnResult { case goOn, stopped, failed }

    /// One turn of the loop (see the type's comment for the order of its steps).
    func turn() -> TurnResult {
        if case .stopped = phase { return .stopped }
        let now = env.now()
        if let w = env.watchdog, now >= nextWatchdog {
            env.notify("WATCHDOG=1")
            nextWatchdog = now + w / 2
        }
        let ready: [Epoll.Ready]
        do { ready = try env.wait(epoll, nextDeadline(now: now)) } catch {
            log(.error, "the event loop failed: \(error)")
            return .failed
        }
        noticeDemotion(now: now)
        for r in ready {
            if let s = env.signals, r.descriptor == s.fd.number {
                handleSignals(s)
            } else if r.descriptor == resolver.descriptor {
                for a in resolver.take() { tuio?.resolved(a) }
            } else if watched.contains(r.descriptor) {
                input.readable(r.descriptor, into: &items)
            } else {
                server.handle(r, host: self)
            }
        }
        feedInput()
        // A stop or a reload asked for (a signal, or a test's call) is carried out here, after
        // the input read with it and before the clients' requests.
        if case .running = phase {
            if stopRequested { beginStop() }
            else if reloadRequested { reloadRequested = false; reload() }
        }
        server.serveBacklogs(host: self)
        applySceneRequests()
        clientsGone()
        engine.options.tracing = server.wantsTraces
        if case .running = phase { runInput() }
        drain()
        if case .draining = phase, !server.isShuttingDown {
            server.beginShutdown(farewell: WireProtocol.bye(reason: "shutdown"), host: self)
        }
        let after = env.now()
        server.releaseDue(now: after)
        tuio?.due(now: after)
        server.flush(host: self)
        log.tick()
        if case .draining(let until) = phase, server.isIdle || env.now() >= until {
            server.closeAll()
            uinput.closeAll()
            phase = .stopped
            log(.notice, "stopped")
            log.flush()
            return .stopped
        }
        return .goOn
    }

    /// When the loop must wake at the latest: the input's next call, the engine's next timer
    /// (on the monotonic clock), held frames of maxRate subscribers, the TUIO full state, the
    /// log's pending summary, the watchdog, the shutdown's deadline — and now, while a client
    /// has lines waiting, a scene request or a gone client's windows wait, or a stop or a
    /// reload was asked for.
    func nextDeadline(now: Int64) -> Int64? {
        var deadlines = [nextDue, log.nextDeadline, server.nextDeadline, tuio?.nextFull]
        if server.hasPendingRequests || !goneQueue.isEmpty || server.hasGoneClients || stopRequested || reloadRequested || engine.hasOutput {
            deadlines.append(now)
        }
        if env.watchdog != nil { deadlines.append(nextWatchdog) }
        if case .draining(let until) = phase { deadlines.append(until) }
        return deadlines.compactMap { $0 }.min()
    }

    /// Hands the engine what the input read (in order), and makes or drops the virtual
    /// touchscreens its devices ask for.
    func feedInput() {
        guard !items.isEmpty else { return }
        for item in items {
            switch feed.feed(item, to: engine) {
            case .arrived(let d, let a):
                if let e = a.export { engine.exportContacts(device: d, uinput.set(d, id: a.descriptor.id, source: a.descriptor.name, e, on: engine.output(of: d))) }
            case .reconfigured(let d, let export):
                engine.exportContacts(device: d, uinput.set(d, id: engine.descriptor(of: d).id, source: engine.descriptor(of: d).name, export, on: engine.output(of: d)))
            case .nothing, .removed:
                break
            }
        }
        items.removeAll(keepingCapacity: true)
    }

    /// The input's work due now, then the engine's timers up to where its events have reached:
    /// the one place the daemon's engine time advances (sources only deliver events).
    func runInput() {
        // A replay held for clients starts once enough have spoken and attached enough windows
        // (their attach requests were applied earlier in this turn).
        if let replay, replay.held, server.clientsWithRequests >= options.startAfterRequests,
           options.startAfterWindows == 0 || clientWindows >= options.startAfterWindows {
            replay.release()
        }
        let schedule = input.due(now: env.now(), into: &items)
        feedInput()
        if let t = schedule.settled { engine.advance(to: t) }
        if let replay, replay.finished, !replayEnded {
            replayEnded = true
            engine.playEnd()
            replay.captures.diagnose()
        }
        // On a capture's clock (as fast as possible) the timers run with the events.
        let timers = schedule.settled == nil ? nil : engine.nextDeadline
        nextDue = [schedule.next, timers].compactMap { $0 }.min()
        if input.finished && options.exitAtEnd { requestStop() }
        watchInput()
    }

    /// The windows clients have attached (not the config's): what `--wait-windows` counts.
    var clientWindows: Int { engine.scene.windowOrder.lazy.filter { self.engine.scene[$0].owner != nil }.count }

    /// The daemon's consumers of the engine's output, read through the one scene history.
    struct Consumers: OutputSink {
        let server: Server
        let tuio: TuioOutput?
        let uinput: UinputExport
        let backlight: Backlight
        /// Whether a client (its id, its peer credentials) is sent the system gesture named.
        let receives: (String, Int, UnixSocket.Credentials?) -> Bool
        let answer: (Int, SceneReply) -> Void
        func take(_ m: Message, history: SceneHistory) {
            if case .systemGesture(let g) = m {
                server.publish(m) { receives(g.name, $0, $1) }
                return
            }
            server.publish(m)
            tuio?.publish(m, history: history)
            uinput.take(m)
            backlight.take(m)
        }
        func sceneChanged(_ history: SceneHistory) { server.sceneChanged() }
        func contacts(_ frame: ScreenContactFrame) { uinput.contacts(frame) }
        func answered(tag: Int, _ reply: SceneReply) { answer(tag, reply) }
        func calibration(client: Int, _ message: CalibrationMessage) { server.send(toClient: client, message.encode()) }
        func notice(client: Int, _ notice: WindowNotice) { server.send(toClient: client, notice.encode()) }
    }

    /// Everything the engine published, to every consumer, in order: the loop's one drain.
    func drain() {
        guard engine.hasOutput else { return }
        engine.drain(into: &outputs)
        var consumers = Consumers(server: server, tuio: tuio, uinput: uinput, backlight: backlight,
                                  receives: { [unowned self] in receivesSystemGesture($0, credentials: $2) }) { [unowned self] tag, reply in
            if let p = asking.removeValue(forKey: tag) { server.answer(p, reply, host: self) }
        }
        history.deliver(outputs, to: &consumers)
        outputs.removeAll(keepingCapacity: true)
    }

    /// Keeps epoll watching exactly the input's descriptors (devices come and go).
    func watchInput() {
        let current = Set(input.descriptors)
        guard current != watched else { return }
        for d in current.subtracting(watched) {
            do { try epoll.add(d) } catch { log(.error, "cannot watch the input's \(d) (\(error)): it is not read") }
        }
        for d in watched.subtracting(current) {
            do { try epoll.remove(d) } catch { log(.warning, "\(error)") }
        }
        watched = current
    }
}
