import TouchCore
import TouchSystem
import TouchServer

/// `touchd on-gesture NAME -- COMMAND…` (issue 44, item 3): a client of the daemon that runs
/// COMMAND each time the system gesture NAME is recognized — as the user who runs it (the
/// daemon never runs anything), with no shell, one at a time, its exit status logged; it
/// reconnects when the daemon goes and comes back.
struct OnGestureCommand: Command {
    static let name = "on-gesture"
    static let summary = "run a command each time a system gesture is recognized"
    static let operands = "NAME -- COMMAND [ARG...]"
    static let about = """
    Connects to the daemon and runs COMMAND (its arguments as given: no shell; looked up on
    PATH) each time the system gesture NAME (systemGestures[].name in the daemon's config) is
    recognized — the way to open a maintenance screen from a hidden gesture. COMMAND runs as
    the user running on-gesture, with its environment: run it in the kiosk user's session (a
    systemd user unit, docs/kiosk.md). One at a time: a gesture recognized while COMMAND still
    runs is logged and dropped. Each run's exit status is logged (stderr: the journal, in a
    unit).

    This user must be among the gesture's `to` (by default the clients whose levels reach the
    top of clients.owners' ranges): it asks the daemon which gestures it is sent, and exits 1
    saying so when NAME is not among them. When the daemon is not there, or goes away (a
    restart, a reload that stops it), it tries again, every 0.25 s at first and every 5 s at
    most, for as long as it runs. SIGTERM or SIGINT stop it (a COMMAND running goes on).
    """
    static var options: [Option<OnGestureCommand>] {
        [.string(["--socket"], value: "PATH", help: "the daemon's socket (default /run/touchd/touchd.sock)", \.socket)]
    }

    var socket = "/run/touchd/touchd.sock"
    var gesture = ""
    var command: [String] = []

    mutating func validate(operands: [String]) throws(UsageError) {
        guard let first = operands.first else { throw UsageError("give the gesture's NAME, then -- and the COMMAND to run") }
        guard operands.count > 1 else { throw UsageError("give the COMMAND to run after the gesture's name: touchd on-gesture \(first) -- COMMAND [ARG...]") }
        gesture = first
        command = Array(operands.dropFirst())
    }

    func run() throws(CommandFailure) -> Int32 {
        guard ChildProcess.resolve(command[0]) != nil else {
            throw CommandFailure("\(command[0]): no such program\(command[0].contains("/") ? " (or it may not be executed)" : " on PATH") — COMMAND runs without a shell: give a program and its arguments")
        }
        let log = StderrLog(threshold: .info)
        log.format = ThisProcess.standardErrorIsJournal() ? .journal : .timed
        defer { log.flush() }
        let runner: GestureRunner
        do { runner = try GestureRunner(self, log: log) } catch { throw CommandFailure("\(error)") }
        return try runner.loop()
    }
}

/// The on-gesture loop: one epoll over the connection and a signalfd (SIGCHLD for COMMAND's
/// end, SIGTERM and SIGINT to stop).
final class GestureRunner {
    let options: OnGestureCommand
    let log: StderrLog
    let epoll: Epoll
    let signals: SignalSource
    /// COMMAND running: its pid and when it started.
    var child: (pid: Int32, since: Int64)?
    var shown: String { options.command.map(Shell.quoted).joined(separator: " ") }

    init(_ options: OnGestureCommand, log: StderrLog) throws(SystemError) {
        self.options = options
        self.log = log
        epoll = try Epoll()
        signals = try SignalSource([SignalSource.child, SignalSource.terminate, SignalSource.interrupt])
        try epoll.add(signals.fd.number)
    }

    enum Outcome { case goOn, stop, reconnect }

    func loop() throws(CommandFailure) -> Int32 {
        var delay: Int64 = 250_000
        var waiting = false
        while true {
            let fd: FileDescriptor
            do { fd = try UnixSocket.connect(options.socket, nonBlocking: true) } catch {
                if !waiting { log(.warning, "cannot connect to \(options.socket) (\(error.errno)): trying again until the daemon is there") }
                waiting = true
                if wait(micros: delay) == .stop { return 0 }
                delay = min(delay * 2, 5_000_000)
                continue
            }
            log(.info, "connected to \(options.socket): \"\(options.gesture)\" runs \(shown)")
            waiting = false
            delay = 250_000
            switch try session(fd) {
            case .stop: return 0
            case .reconnect, .goOn: continue
            }
        }
    }

    /// One connection, until it closes or a signal stops us.
    func session(_ fd: borrowing FileDescriptor) throws(CommandFailure) -> Outcome {
        let requests = Array(#"{"systemGestures":true}"#.utf8) + [0x0A] + Array(#"{"subscribe":{"types":["systemGesture"]}}"#.utf8) + [0x0A]
        let number = fd.number
        do {
            try epoll.add(number)
            _ = try fd.writeAll(requests)
        } catch {
            log(.warning, "\(options.socket): \(error): trying again")
            return .reconnect
        }
        defer { do { try epoll.remove(number) } catch { log(.debug, "\(error)") } }
        var framer = LineFramer(maxLine: 1 << 20)
        var lines: [LineFramer.Item] = []
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 1)
        defer { chunk.deallocate() }
        while true {
            let ready: [Epoll.Ready]
            do { ready = try epoll.wait(timeoutMS: -1) } catch { throw CommandFailure("\(error)") }
            for r in ready {
                if r.descriptor == signals.fd.number {
                    if handleSignals() == .stop { return .stop }
                    continue
                }
                let result: IOResult
                do { result = try fd.read(into: chunk) } catch {
                    log(.warning, "reading \(options.socket): \(error): reconnecting")
                    return .reconnect
                }
                switch result {
                case .wouldBlock: continue
                case .closed:
                    log(.warning, "the daemon closed the connection: reconnecting")
                    return .reconnect
                case .done(let n):
                    lines.removeAll(keepingCapacity: true)
                    framer.feed(UnsafeRawBufferPointer(rebasing: chunk[0..<n]), into: &lines)
                    for case .line(let line, _) in lines { try handle(line) }
                }
            }
        }
    }

    /// One line from the daemon.
    func handle(_ line: [UInt8]) throws(CommandFailure) {
        let node: JSONNode
        do { node = try JSONParser.parse(line) } catch { return }
        switch node["type"]?.string {
        case "systemGestures":
            let names = node["names"]?.array?.compactMap(\.string) ?? []
            guard names.contains(options.gesture) else {
                let who = Accounts.userName(ThisProcess.userID).map { "user \($0)" } ?? "uid \(ThisProcess.userID)"
                throw CommandFailure("no system gesture \"\(options.gesture)\" is sent to \(who): the daemon's config has none of that name, or its \"to\" does not name this user or one of its groups (by default the clients whose levels reach the top of clients.owners' ranges)" + (names.isEmpty ? "" : "; this user is sent: \(names.joined(separator: ", "))"))
            }
        case "error":
            throw CommandFailure("the daemon refused: \(node["error"]?.string ?? String(decoding: line, as: UTF8.self))")
        case "systemGesture" where node["name"]?.string == options.gesture:
            recognized(output: node["output"]?.string ?? "?")
        case "bye":
            log(.notice, "the daemon is stopping (\(node["reason"]?.string ?? "")): reconnecting once it is back")
        default:
            break
        }
    }

    func recognized(output: String) {
        if let c = child {
            log(.notice, "\"\(options.gesture)\" recognized on output \(output) while \(shown) (pid \(c.pid)) still runs: dropped")
            return
        }
        do {
            let pid = try ChildProcess.spawn(options.command)
            child = (pid, Clock.monotonicMicros())
            log(.notice, "\"\(options.gesture)\" recognized on output \(output): running \(shown) (pid \(pid))")
        } catch {
            log(.error, "\"\(options.gesture)\" recognized on output \(output): cannot run \(shown): \(error.errno)")
        }
    }

    /// Signals that arrived: a child's end is logged; SIGTERM or SIGINT stop the loop.
    func handleSignals() -> Outcome {
        let taken: [Int32]
        do { taken = try signals.take() } catch {
            log(.warning, "\(error)")
            return .goOn
        }
        var outcome = Outcome.goOn
        for s in taken {
            if s == SignalSource.child {
                for (pid, exit) in ChildProcess.reap() where pid == child?.pid {
                    let seconds = fixed(Double(Clock.monotonicMicros() - (child?.since ?? 0)) / 1e6, 1)
                    log(exit == .status(0) ? .notice : .warning, "\(shown) (pid \(pid)) \(exit) after \(seconds) s")
                    child = nil
                }
            } else {
                log(.notice, "\(SignalSource.name(s)): stopping\(child.map { " (\(shown), pid \($0.pid), goes on)" } ?? "")")
                outcome = .stop
            }
        }
        return outcome
    }

    /// Waits `micros` (between two attempts to connect), a signal ending it early.
    func wait(micros: Int64) -> Outcome {
        let end = Clock.monotonicMicros() + micros
        while true {
            let left = end - Clock.monotonicMicros()
            if left <= 0 { return .goOn }
            do {
                if try !epoll.wait(timeoutMS: Int32((left + 999) / 1000)).isEmpty, handleSignals() == .stop { return .stop }
            } catch {
                log(.warning, "\(error)")
                return .goOn
            }
        }
    }
}
