@preconcurrency import Glibc
import TouchCore
import TouchServer

struct RunCommand: Command {
    static let name = "run"
    static let summary = "the daemon: read touchscreens (or a capture), publish on the socket"
    static let help = """
    usage: touchd run [--config FILE] [--socket PATH] [--replay CAPTURE [--speed X]]
                      [--device-info DESC]... [--wait-clients N] [--exit-at-end] [--log-level LEVEL]

    The daemon. Publishes every message on a Unix socket (NDJSON both ways, see docs/protocol.md)
    to any number of subscribers. Logs go to stderr. SIGTERM or SIGINT stop it cleanly (touches
    still down are cancelled with reason "shutdown", clients get {"type":"bye"}, the socket file
    is removed); SIGHUP reloads the config (a bad one is rejected and the old one kept).
    Under systemd: Type=notify readiness, WatchdogSec= keep-alive, and socket activation.

    options:
      --config FILE      the configuration (default /etc/touchd/touchd.json)
      --socket PATH      listen here instead of the config's socket.path
      --replay CAPTURE   read a capture instead of devices (repeat for several devices)
      --speed X          replay speed: 1 real time (default), 0 as fast as possible
      --device-info DESC evemu description for a header-less capture
      --wait-clients N   start the replay once N clients have each sent a request
      --exit-at-end      stop the daemon when the replay ends
      --log-level LEVEL  debug, info (default), warning or error

    """

    var options: Daemon.Options

    init(arguments: [String]) throws(UsageError) {
        var list = ArgumentList(arguments)
        var o = Daemon.Options(configPath: "/etc/touchd/touchd.json")
        try list.parse { (name, l) throws(UsageError) in
            switch name {
            case "--config", "-c": o.configPath = try l.value(for: name)
            case "--socket": o.socketPath = try l.value(for: name)
            case "--replay": o.replay.append(try l.value(for: name))
            case "--device-info": o.deviceInfos.append(try l.value(for: name))
            case "--speed":
                let s = try l.number(for: name)
                guard s >= 0 else { throw UsageError("--speed must be 0 (as fast as possible) or more") }
                o.speed = s
            case "--wait-clients":
                let n = try l.number(for: name)
                guard n >= 0, n == n.rounded() else { throw UsageError("--wait-clients needs a whole number") }
                o.startAfterRequests = Int(n)
            case "--exit-at-end": o.exitAtEnd = true
            case "--log-level":
                let v = try l.value(for: name)
                guard let lv = LogLevel(name: v) else { throw UsageError("unknown log level \"\(v)\"") }
                o.logLevel = lv
            default: return false
            }
            return true
        }
        guard list.positionals.isEmpty else { throw UsageError("unexpected argument \(list.positionals[0])") }
        if o.exitAtEnd && o.replay.isEmpty { throw UsageError("--exit-at-end needs --replay") }
        options = o
    }

    func run() throws(CommandFailure) -> Int32 {
        setvbuf(stderr, nil, _IOLBF, 0)
        let log = StderrLog(threshold: options.logLevel)
        let config = try loadConfig(options.configPath)
        let daemon = try Daemon(options: options, config: config, log: log)
        try daemon.start()
        return daemon.run()
    }
}
