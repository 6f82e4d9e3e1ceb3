@preconcurrency import Glibc
import TouchCore
import TouchInput
import TouchCapture

public let touchdVersion = "0.1.0"

/// Errors a command reports in one line and exits non-zero for.
public struct CommandFailure: Error {
    public var lines: [String]
    public var code: Int32
    public init(_ lines: [String], code: Int32 = 1) { self.lines = lines; self.code = code }
    public init(_ line: String, code: Int32 = 1) { self.init([line], code: code) }
}

func loadConfig(_ path: String) throws(CommandFailure) -> Config {
    let bytes: [UInt8]
    do { bytes = try readFileBytes(path) } catch { throw CommandFailure("\(path): \(error.message)") }
    do {
        return try Config.parse(bytes)
    } catch {
        throw CommandFailure(error.errors.map { "\(path): \($0)" })
    }
}

protocol Command: Sendable {
    static var name: String { get }
    static var summary: String { get }
    static var help: String { get }
    init(arguments: [String]) throws(UsageError)
    func run() throws(CommandFailure) -> Int32
}

public enum CLI {
    static let commands: [any Command.Type] = [
        RunCommand.self, SubscribeCommand.self, ReplayCommand.self, HitTestCommand.self, CheckConfigCommand.self,
        DevicesCommand.self, RecordCommand.self, RenderCommand.self, BenchCommand.self,
    ]

    static var usage: String {
        var s = """
        touchd \(touchdVersion): iOS-style touch delivery for Linux touchscreens.

        usage: touchd <command> [options]

        commands:

        """
        for c in commands {
            s += "  " + c.name.padding(12) + c.summary + "\n"
        }
        s += "\nRun 'touchd <command> --help' for a command's options.\n"
        return s
    }

    /// Runs a command line; returns the process exit code.
    public static func main(_ argv: [String]) -> Int32 {
        var args = Array(argv.dropFirst())
        guard let first = args.first else {
            fputs(usage, stderr)
            return 2
        }
        if first == "--help" || first == "-h" || first == "help" {
            if args.count > 1, let c = commands.first(where: { $0.name == args[1] }) {
                print(c.help, terminator: "")
            } else {
                print(usage, terminator: "")
            }
            return 0
        }
        if first == "--version" { print("touchd \(touchdVersion)"); return 0 }
        args.removeFirst()
        guard let type = commands.first(where: { $0.name == first }) else {
            fputs("touchd: unknown command '\(first)'\n\n" + usage, stderr)
            return 2
        }
        if args.contains("--help") || args.contains("-h") {
            print(type.help, terminator: "")
            return 0
        }
        do {
            let command = try type.init(arguments: args)
            let code = try command.run()
            fflush(stdout)
            return code
        } catch let e as UsageError {
            fputs("touchd \(first): \(e.message)\nRun 'touchd \(first) --help' for usage.\n", stderr)
            return 2
        } catch let f as CommandFailure {
            fflush(stdout)
            for l in f.lines { fputs("touchd \(first): \(l)\n", stderr) }
            return f.code
        } catch {
            fputs("touchd \(first): \(error)\n", stderr)
            return 1
        }
    }
}

extension String {
    func padding(_ n: Int) -> String { count >= n ? self + " " : self + String(repeating: " ", count: n - count) }
}

// MARK: replay

struct ReplayCommand: Command {
    static let name = "replay"
    static let summary = "run captures through the pipeline offline and print every message"
    static let help = """
    usage: touchd replay --config FILE [--device-info DESC]... [--format FORMAT] [--trace]
                         [--summary] [--log-level LEVEL] CAPTURE...

    Runs recorded evdev captures through the same pipeline as the daemon and prints every
    published message to stdout as NDJSON, one per line. The same inputs always give
    byte-identical output: times come from the capture. Touches still down when the captures
    end are cancelled with reason "shutdown".

    options:
      --config FILE        the JSON configuration (scene, devices, screen)
      --device-info DESC   the evemu description for a header-less events file; give it once
                           per such capture, in order
      --format FORMAT      skip detection: evemu, libinput, raw or getevent
      --trace              also print a hitTest message (full trace) for every touch-down
      --summary            print a readable digest instead: per touch its view, start and end
                           point, duration and how it ended; per recognizer and control what fired
      --log-level LEVEL    debug, info, warning (default) or error; logs go to stderr

    Formats, detected from the content: evemu recordings (one file, or a description given with
    --device-info and a header-less events file), libinput record YAML (one or several devices),
    raw input_event dumps (24 bytes each; give --device-info), and Android `getevent -lt` logs
    (axis ranges from --device-info, or inferred from the largest values seen, with a warning).
    Several captures replay together as several devices on one timeline (merged by timestamp).

    """

    var config: String
    var captures: [String]
    var deviceInfos: [String] = []
    var format: String?
    var trace = false
    var summary = false
    var logLevel: LogLevel = .warning

    init(arguments: [String]) throws(UsageError) {
        var list = ArgumentList(arguments)
        var config: String?
        var deviceInfos: [String] = []
        var format: String?
        var trace = false
        var summary = false
        var level = LogLevel.warning
        try list.parse { (name, l) throws(UsageError) in
            switch name {
            case "--config", "-c": config = try l.value(for: name)
            case "--device-info": deviceInfos.append(try l.value(for: name))
            case "--format":
                let f = try l.value(for: name)
                guard CaptureLoader.formats.contains(f) else {
                    throw UsageError("unknown format \"\(f)\" (expected one of: \(CaptureLoader.formats.joined(separator: ", ")))")
                }
                format = f
            case "--trace": trace = true
            case "--summary": summary = true
            case "--log-level":
                let v = try l.value(for: name)
                guard let lv = LogLevel(name: v) else { throw UsageError("unknown log level \"\(v)\"") }
                level = lv
            default: return false
            }
            return true
        }
        guard let config else { throw UsageError("--config FILE is required") }
        guard !list.positionals.isEmpty else { throw UsageError("give at least one CAPTURE file") }
        self.summary = summary
        self.config = config
        captures = list.positionals
        self.deviceInfos = deviceInfos
        self.format = format
        self.trace = trace
        logLevel = level
    }

    func run() throws(CommandFailure) -> Int32 {
        let cfg = try loadConfig(config)
        let log = StderrLog(threshold: logLevel)
        let devices: [CaptureDevice]
        do {
            devices = try CaptureLoader.load(paths: captures, deviceInfos: deviceInfos, format: format) { log(.warning, $0) }
        } catch {
            throw CommandFailure(error.description)
        }
        let writer = FDWriter(fd: STDOUT_FILENO)
        var options = EngineOptions()
        options.tracing = trace
        if summary {
            var digest = SummarySink(scene: cfg.scene)
            do {
                let session = try ReplaySession(config: cfg, captures: devices, options: options, log: log.function, sink: &digest)
                session.runToEnd(sink: &digest)
            } catch {
                throw CommandFailure(error.description)
            }
            writer.write(digest.text())
            writer.flush()
            return 0
        }
        var sink = WriterSink(scene: cfg.scene, writer: writer, includeHitTests: trace)
        let session: ReplaySession
        do {
            session = try ReplaySession(config: cfg, captures: devices, options: options, log: log.function, sink: &sink)
        } catch {
            throw CommandFailure(error.description)
        }
        session.runToEnd(sink: &sink)
        writer.flush()
        return 0
    }
}

// MARK: hit-test

struct HitTestCommand: Command {
    static let name = "hit-test"
    static let summary = "one hit-test at a screen point, with the responder chain (and --trace)"
    static let help = """
    usage: touchd hit-test --config FILE [--window ID] [--trace] X Y

    Hit-tests the screen point (X, Y) against the configured windows, topmost first, and prints
    one JSON object:
      {"window":…,"view":…,"location":[x,y],"locationInView":[x,y],"chain":[…]}
    "location" is in the window's coordinates, "locationInView" in the hit view's; "chain" is
    the responder chain from the hit view up to the application delegate. With --trace, a
    "trace" array lists every step in call order: hitTest, gate (why a view was skipped
    without asking pointInside), pointInside (its result) and return (the view returned).
    When nothing is hit, "window" and "view" are null and the exit code is still 0.

    options:
      --config FILE   the JSON configuration
      --window ID     ask only this window
      --trace         include the full trace

    """

    var config: String
    var window: String?
    var trace = false
    var point: Point

    init(arguments: [String]) throws(UsageError) {
        var list = ArgumentList(arguments)
        var config: String?
        var window: String?
        var trace = false
        try list.parse { (name, l) throws(UsageError) in
            switch name {
            case "--config", "-c": config = try l.value(for: name)
            case "--window": window = try l.value(for: name)
            case "--trace": trace = true
            default:
                // Negative coordinates look like options.
                if Double(name) != nil { l.positionals.append(name); return true }
                return false
            }
            return true
        }
        guard let config else { throw UsageError("--config FILE is required") }
        guard list.positionals.count == 2 else { throw UsageError("give the point as two numbers: X Y") }
        guard let x = Double(list.positionals[0]), let y = Double(list.positionals[1]), x.isFinite, y.isFinite else {
            throw UsageError("X and Y must be numbers, got \"\(list.positionals[0])\" \"\(list.positionals[1])\"")
        }
        self.config = config
        self.window = window
        self.trace = trace
        point = Point(x, y)
    }

    func run() throws(CommandFailure) -> Int32 {
        let cfg = try loadConfig(config)
        let scene = cfg.scene
        var only: Int?
        if let window {
            guard let w = scene.viewIndex[window], scene.views[w].isWindow else {
                throw CommandFailure("no window has id \"\(window)\"")
            }
            only = w
        }
        var steps: [HitStep] = []
        let result = scene.hitTest(screen: point, onlyWindow: only, tracing: trace, trace: &steps)
        let encoder = MessageEncoder(scene: scene)
        var out: [UInt8] = []
        JSONWriter.appendRaw("{\"window\":", to: &out)
        if let r = result { JSONWriter.appendString(scene.views[r.window].id, to: &out) } else { JSONWriter.appendRaw("null", to: &out) }
        JSONWriter.appendRaw(",\"view\":", to: &out)
        if let r = result { JSONWriter.appendString(scene.views[r.view].id, to: &out) } else { JSONWriter.appendRaw("null", to: &out) }
        JSONWriter.appendRaw(",\"location\":", to: &out)
        JSONWriter.appendPoint(result?.location ?? point, to: &out)
        JSONWriter.appendRaw(",\"locationInView\":", to: &out)
        JSONWriter.appendPoint(result.map { scene.convert(windowPoint: $0.location, to: $0.view) } ?? point, to: &out)
        JSONWriter.appendRaw(",\"chain\":[", to: &out)
        if let r = result {
            for (k, c) in scene.chain(from: r.view).enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.appendString(scene.responders[c].id, to: &out)
            }
        }
        JSONWriter.appendRaw("]", to: &out)
        if trace {
            JSONWriter.appendRaw(",\"trace\":", to: &out)
            encoder.encodeTrace(steps, &out)
        }
        JSONWriter.appendRaw("}\n", to: &out)
        let w = FDWriter(fd: STDOUT_FILENO)
        w.write(out)
        w.flush()
        return 0
    }
}

// MARK: check-config

struct CheckConfigCommand: Command {
    static let name = "check-config"
    static let summary = "validate a configuration file"
    static let help = """
    usage: touchd check-config FILE

    Validates a configuration. Exit 0 with a one-line summary, or exit 1 with every problem
    on its own line as
      FILE: <json path>: <problem> (line N)
    (duplicate ids, bad frames, unknown keys, wrong types, dangling references …).

    """

    var file: String

    init(arguments: [String]) throws(UsageError) {
        var list = ArgumentList(arguments)
        try list.parse { (_, _) throws(UsageError) in false }
        guard list.positionals.count == 1 else { throw UsageError("give exactly one FILE") }
        file = list.positionals[0]
    }

    func run() throws(CommandFailure) -> Int32 {
        let cfg = try loadConfig(file)
        let s = cfg.scene
        let windows = s.views.filter(\.isWindow).count
        let views = s.views.count - windows
        let controllers = s.responders.filter { $0.kind == .controller }.count
        let controls = s.views.filter { $0.control != nil }.count
        let gestures = s.views.reduce(0) { $0 + $1.gestures.count }
        print("\(file): ok: screen \(Int(cfg.screen.width))x\(Int(cfg.screen.height)), \(windows) window(s), \(views) view(s), \(controls) control(s), \(controllers) controller(s), \(gestures) gesture recognizer(s), \(cfg.devices.count) device entr\(cfg.devices.count == 1 ? "y" : "ies")")
        return 0
    }
}
