@preconcurrency import Glibc
import CLinux
import TouchCore
import TouchInput
import TouchCapture
import TouchServer

/// `touchd run`: one thread, one epoll loop over the input source, the listening socket, the
/// clients and a signalfd. Everything the engine and server own is touched from this thread
/// only, so nothing on the hot path takes a lock.
///
/// Start-up in order: config → listener (or systemd's socket) → input → READY=1. Shutdown in
/// reverse: STOPPING=1 → input stopped (live touches cancelled, reason shutdown, published) →
/// clients told ("bye") and flushed for up to a second → socket file removed.
final class Daemon {
    struct Options {
        var configPath: String
        var socketPath: String?
        var replay: [String] = []
        var deviceInfos: [String] = []
        var format: String?
        var speed: Double = 1
        var startAfterRequests = 0
        var exitAtEnd = false
        var logLevel: LogLevel = .info
    }

    let options: Options
    var config: Config
    let log: StderrLog
    let poller: Poller
    var listener: Listener!
    var server: Server!
    var input: InputSource!
    var signalFD: Int32 = -1
    var running = true
    var exitCode: Int32 = 0
    var watchdog: Int64?
    var nextWatchdog: Int64 = 0

    init(options: Options, config: Config, log: StderrLog) throws(CommandFailure) {
        self.options = options
        self.config = config
        self.log = log
        do { poller = try Poller() } catch { throw CommandFailure("\(error)") }
    }

    func start() throws(CommandFailure) {
        try blockSignals()
        // The socket: systemd's, or ours.
        let path = options.socketPath ?? config.socket.path
        if let fd = Systemd.activatedSocket() {
            listener = Listener.adopt(fd: fd, path: path)
            log(.info, "using the socket passed by systemd (fd \(fd))")
        } else {
            do {
                listener = try Listener.bind(path: path, mode: config.socket.mode, group: config.socket.group, log: log.function)
            } catch {
                throw CommandFailure(error.message)
            }
        }
        var limits = ServerLimits()
        limits.queueLimit = config.socket.queueLimit
        limits.maxClients = config.socket.maxClients
        do {
            server = try Server(listenFD: listener.fd, poller: poller, scene: config.scene, screen: config.screen,
                                version: touchdVersion, limits: limits, log: log.function)
        } catch {
            listener.remove()
            throw CommandFailure("\(error)")
        }
        // The input.
        do {
            input = try makeInput()
        } catch {
            listener.remove()
            throw error
        }
        let engine = input.engine
        server.snapshotProvider = { [unowned engine] in
            let touches = engine.snapshot()
            return (touches, touches.map { engine.deviceID(ofTouch: $0.id) ?? "" }, engine.activeDevices, engine.lastTime, engine.seq)
        }
        server.statsProvider = { [unowned self] in
            [("peakRSSKiB", String(peakRSSKiB())), ("liveTouches", String(self.input.engine.liveTouchCount))]
        }
        watchdog = Systemd.watchdogMicros()
        let status = "listening on \(listener.path)" + (options.replay.isEmpty ? ", \(input.engine.activeDevices.count) touchscreen(s)" : ", replaying \(options.replay.count) capture(s)")
        log(.info, status + " (up to \(limits.maxClients) clients, queue \(limits.queueLimit) messages each)")
        Systemd.notify("READY=1\nSTATUS=\(status)\nMAINPID=\(getpid())")
    }

    func makeInput() throws(CommandFailure) -> InputSource {
        if options.replay.isEmpty {
            let live = try LiveSource(config: config, options: EngineOptions(), log: log.function)
            var sink = ServerSink(server: server)
            live.start(sink: &sink)
            return live
        }
        let devices: [CaptureDevice]
        do {
            devices = try CaptureLoader.load(paths: options.replay, deviceInfos: options.deviceInfos, format: options.format) { self.log(.warning, $0) }
        } catch {
            throw CommandFailure(error.description)
        }
        var sink = ServerSink(server: server)
        let session: ReplaySession
        do {
            session = try ReplaySession(config: config, captures: devices, options: EngineOptions(), log: log.function, sink: &sink)
        } catch {
            throw CommandFailure(error.description)
        }
        let source = ReplaySource(session: session, speed: options.speed, startAfterRequests: options.startAfterRequests,
                                  server: server, log: log.function)
        if options.exitAtEnd { source.onFinish = { [unowned self] in self.running = false } }
        return source
    }

    func blockSignals() throws(CommandFailure) {
        var mask = sigset_t()
        sigemptyset(&mask)
        for s in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&mask, s) }
        guard sigprocmask(SIG_BLOCK, &mask, nil) == 0 else { throw CommandFailure("sigprocmask: \(String(cString: strerror(errno)))") }
        signalFD = signalfd(-1, &mask, Int32(SFD_NONBLOCK) | Int32(SFD_CLOEXEC))
        guard signalFD >= 0 else { throw CommandFailure("signalfd: \(String(cString: strerror(errno)))") }
        do { try poller.add(signalFD) } catch { throw CommandFailure("\(error)") }
    }

    /// The loop. Returns the exit code.
    func run() -> Int32 {
        var sink = ServerSink(server: server)
        var inputFDs = Set(input.descriptors)
        for fd in inputFDs { try? poller.add(fd) }
        var nextDue: Int64? = monotonicMicros()
        while running {
            let now = monotonicMicros()
            if let w = watchdog, now >= nextWatchdog {
                Systemd.notify("WATCHDOG=1")
                nextWatchdog = now + w / 2
            }
            var deadline = nextDue
            if watchdog != nil { deadline = min(deadline ?? nextWatchdog, nextWatchdog) }
            let timeout: Int32 = deadline.map { Int32(clamping: max(0, ($0 - now + 999) / 1000)) } ?? -1
            for r in poller.wait(timeoutMS: timeout) {
                if r.fd == signalFD {
                    handleSignals(&sink)
                } else if inputFDs.contains(r.fd) {
                    input.readable(r.fd, sink: &sink)
                } else {
                    server.handle(r)
                }
            }
            // Work due now; a replay waiting for clients asks again after each wake-up.
            nextDue = input.due(now: monotonicMicros(), sink: &sink)
            if nextDue == nil && !input.finished && options.startAfterRequests > 0 { nextDue = monotonicMicros() + 20_000 }
            server.flush()
            let current = Set(input.descriptors)
            for fd in current.subtracting(inputFDs) { try? poller.add(fd) }
            for fd in inputFDs.subtracting(current) { poller.remove(fd) }
            inputFDs = current
        }
        shutdown(&sink)
        return exitCode
    }

    func handleSignals(_ sink: inout ServerSink) {
        var info = signalfd_siginfo()
        while read(signalFD, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
            switch Int32(info.ssi_signo) {
            case SIGHUP:
                reload(&sink)
            case SIGTERM, SIGINT:
                log(.info, "\(info.ssi_signo == UInt32(SIGTERM) ? "SIGTERM" : "SIGINT"): stopping")
                running = false
            default:
                break
            }
        }
    }

    func reload(_ sink: inout ServerSink) {
        Systemd.notify("RELOADING=1")
        log(.info, "SIGHUP: reloading \(options.configPath)")
        do {
            let new = try loadConfig(options.configPath)
            if new.socket.path != config.socket.path && options.socketPath == nil {
                log(.warning, "the socket path changed to \(new.socket.path): that takes a restart; still listening on \(listener.path)")
            }
            // Cancellations for vanished views go out with the old scene's ids, then the
            // server switches to the new scene.
            input.engine.replaceScene(new.scene, time: input.engine.lastTime, sink: &sink)
            server.replaceScene(new.scene, screen: new.screen)
            server.limits.queueLimit = new.socket.queueLimit
            server.limits.maxClients = new.socket.maxClients
            input.reconfigure(new)
            config = new
            log(.info, "reloaded: \(new.scene.views.count) views in \(new.scene.windowOrder.count) window(s)")
        } catch {
            for line in error.lines { log(.error, line) }
            log(.error, "reload rejected: the previous configuration stays in force")
        }
        Systemd.notify("READY=1")
    }

    func shutdown(_ sink: inout ServerSink) {
        Systemd.notify("STOPPING=1")
        input.stop(sink: &sink)
        server.closeAll(farewell: WireProtocol.bye(reason: "shutdown"), deadlineMicros: 1_000_000)
        listener.remove()
        log(.info, "stopped")
    }
}

func peakRSSKiB() -> Int {
    var u = rusage()
    getrusage(RUSAGE_SELF.rawValue, &u)
    return Int(u.ru_maxrss)
}
