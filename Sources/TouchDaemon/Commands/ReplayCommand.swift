import TouchCore
import TouchCapture
import TouchSystem

/// Captures loaded from files and attached to an engine, for replay, render and run --replay.
struct ReplayCommand: Command {
    static let name = "replay"
    static let summary = "run captures through the pipeline offline and print every message"
    static let operands = "CAPTURE..."
    static let about = """
    Runs recorded evdev captures through the same pipeline as the daemon and prints every
    published message to stdout as NDJSON, one per line. The same inputs always give
    byte-identical output: times come from the capture. Touches still down when the captures
    end are cancelled with reason "shutdown".

    Formats, detected from the content: evemu recordings (one file, or a description given with
    --device-info and a header-less events file), libinput record YAML (one or several devices),
    raw input_event dumps (24 bytes each; give --device-info), and Android `getevent -lt` logs
    (axis ranges from --device-info, or inferred from the largest values seen, with a warning).
    Several captures replay together as several devices on one timeline (merged by timestamp).

    --scene SCRIPT replays a live scene with the captures: NDJSON, one line per client request,
    {"time":T,"client":NAME,"request":{"attach"|"update"|"detach"|"output"|"calibrate"|"session":…}} or
    {"time":T,"client":NAME,"disconnect":true}, T in seconds on the capture's clock. Each applies
    before the first hardware frame at or after T, as if client NAME had sent it; its reply (or
    error) is in the output with "client":NAME. A bug report is a capture plus a scene script.
    (clients.owners is not consulted: a script has no peer credentials.)
    """
    static var options: [Option<ReplayCommand>] {
        [.config(\.config, required: true),
         .deviceInfo(\.deviceInfos),
         .format(\.format),
         Option(["--scene"], value: "SCRIPT", help: "replay a live scene too: timed attach/update/detach requests (NDJSON)") { c, v throws(UsageError) in c.scene = v },
         .maxInputSize(\.maxInputSize),
         .flag(["--trace"], help: "also print a hitTest message (full trace) for every touch-down", \.trace),
         .flag(["--summary"], help: "print a readable digest instead: per touch its view, start and end\npoint, duration and how it ended; per recognizer and control what fired", \.summary),
         .logLevel(\.logLevel, defaultLevel: .warning)]
    }

    var config = ""
    var captures: [String] = []
    var deviceInfos: [String] = []
    var format: CaptureFormat?
    var scene: String?
    var maxInputSize = CaptureFiles.defaultMaxBytes
    var trace = false
    var summary = false
    var logLevel = LogLevel.warning

    mutating func validate(operands: [String]) throws(UsageError) {
        guard !operands.isEmpty else { throw UsageError("give at least one CAPTURE file") }
        captures = operands
    }

    func run() throws(CommandFailure) -> Int32 {
        let cfg = try loadConfig(config)
        let log = StderrLog(threshold: logLevel)
        defer { log.flush() }
        var options = EngineOptions()
        // The digest also lists touches no view saw: it reads every touch-down from the traces.
        options.tracing = trace || summary
        let engine = Engine(config: cfg, options: options, log: log.function)
        let player = try scene.map { path throws(CommandFailure) in ScenePlayer(script: try loadSceneScript(path), limits: cfg.clients.limits) }
        let session = try replaySession(config: cfg, captures: captures, deviceInfos: deviceInfos, format: format, maxBytes: maxInputSize, engine: engine, log: log)
        let writer = OutputWriter.standardOutput()
        if summary {
            var digest = SummarySink(scene: cfg.scene)
            session.run(into: &digest, scene: player)
            writer.write(digest.text())
        } else {
            var sink = NDJSONSink(writer: writer, includeHitTests: trace)
            // Encoded on a second thread where there is a second processor (same bytes).
            if EncoderThread.pays {
                EncoderThread.run(session, scene: player, into: &sink)
            } else {
                session.run(into: &sink, scene: player)
            }
        }
        writer.flush()
        if let e = writer.failure { throw CommandFailure("writing the output: \(e)") }
        return 0
    }
}
