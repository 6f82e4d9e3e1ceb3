import TouchCore
import TouchSystem
import TouchCapture

struct RunCommand: Command {
    static let name = "run"
    static let summary = "the daemon: read touchscreens (or a capture), publish on the socket"
    static let operands = ""
    static let about = """
    The daemon. Publishes every message on a Unix socket (NDJSON both ways, see docs/protocol.md)
    to any number of subscribers. Logs go to stderr. SIGTERM or SIGINT stop it cleanly (touches
    still down are cancelled with reason "shutdown", clients get {"type":"bye"}, the socket file
    is removed); SIGHUP reloads the config (a bad one is rejected and the old one kept).
    Under systemd: Type=notify readiness, WatchdogSec= keep-alive, and socket activation.
    """
    static var options: [Option<RunCommand>] {
        [.config(\.options.configPath, required: false, help: "the configuration (default /etc/touchd/touchd.json)"),
         Option(["--socket"], value: "PATH", help: "listen here instead of the config's socket.path") { c, v throws(UsageError) in c.options.socketPath = v },
         Option(["--replay"], value: "CAPTURE", help: "read a capture instead of devices (repeat for several devices)", repeatable: true) { c, v throws(UsageError) in
             c.options.replay.append(v)
         },
         Option(["--speed"], value: "X", help: "replay speed: 1 real time (default), 0 as fast as possible") { c, v throws(UsageError) in
             let s = try number(v, for: "--speed")
             guard s == 0 || (s >= 0.001 && s <= 1000) else { throw UsageError("--speed must be 0 (as fast as possible) or from 0.001 to 1000, got \(v)") }
             c.options.speed = s
         },
         .deviceInfo(\.options.deviceInfos),
         .format(\.options.format),
         .maxInputSize(\.options.maxInputSize),
         .count(["--wait-clients"], help: "start the replay once N clients have each sent a request", range: 0...100_000, \.options.startAfterRequests),
         .count(["--wait-windows"], help: "start the replay once clients have N windows attached (with --wait-clients:\nonce both hold)", range: 0...100_000, \.options.startAfterWindows),
         .flag(["--exit-at-end"], help: "stop the daemon when the replay ends", \.options.exitAtEnd),
         Option(["--realtime"], value: "POLICY", help: "the loop's real-time priority: off, fifo:N or rr:N (N 1 to 99; default the config's \"realtime\", else fifo:10)") { c, v throws(UsageError) in
             c.options.realtime = try realtimeOption(v)
         },
         .logLevel(\.options.logLevel, defaultLevel: .info)]
    }

    var options = Daemon.Options()

    /// --realtime's value: off, fifo, rr, fifo:N or rr:N.
    static func realtimeOption(_ v: String) throws(UsageError) -> RealtimeSettings {
        if v == "off" { return .off }
        let parts = v.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        var settings = RealtimeSettings()
        guard let policy = RealtimeSettings.Policy(rawValue: parts[0]) else {
            throw UsageError("--realtime must be off, fifo:N or rr:N, got \(v)")
        }
        settings.policy = policy
        if parts.count == 2 {
            guard let n = Int(parts[1]), (1...99).contains(n) else { throw UsageError("--realtime's priority must be a whole number from 1 to 99, got \(parts[1])") }
            settings.priority = n
        }
        return settings
    }

    mutating func validate(operands: [String]) throws(UsageError) {
        guard operands.isEmpty else { throw UsageError("unexpected argument \(operands[0])") }
        if options.exitAtEnd && options.replay.isEmpty { throw UsageError("--exit-at-end needs --replay") }
        if options.startAfterWindows > 0 && options.replay.isEmpty { throw UsageError("--wait-windows needs --replay (it holds the replay back)") }
    }

    func run() throws(CommandFailure) -> Int32 {
        ThisProcess.lineBufferStandardStreams()
        // The daemon's log never waits for stderr: lines it cannot take are dropped and counted.
        let log = StderrLog.nonBlocking(threshold: options.logLevel)
        let config = try loadConfig(options.configPath)
        return try Daemon.start(options: options, config: config, log: log).run()
    }
}
