import TouchCore

struct CheckConfigCommand: Command {
    static let name = "check-config"
    static let summary = "validate a configuration file"
    static let operands = "FILE"
    static let about = """
    Validates a configuration. Exit 0 with a one-line summary, or exit 1 with every problem
    on its own line as
      FILE: <json path>: <problem> (line N)
    (duplicate ids, bad frames, unknown keys, wrong types, dangling references …).
    """
    static var options: [Option<CheckConfigCommand>] { [] }

    var file = ""

    mutating func validate(operands: [String]) throws(UsageError) {
        guard operands.count == 1 else { throw UsageError("give exactly one FILE") }
        file = operands[0]
    }

    func run() throws(CommandFailure) -> Int32 {
        let cfg = try loadConfig(file)
        let s = cfg.scene
        let (windows, views) = sceneCounts(s)
        let controllers = s.responders.filter { $0.kind == .controller }.count
        let controls = s.views.filter { $0.control != nil }.count
        let gestures = s.views.reduce(0) { $0 + $1.gestures.count }
        // Entries that re-export their device (devices[].uinput) are named; without any, the
        // line is as it always was.
        let reexported = cfg.devices.compactMap { e in e.settings.uinput.map { "\(e.label) as \"\($0.name)\"" } }
        let uinput = reexported.isEmpty ? "" : " (uinput: \(reexported.joined(separator: ", ")))"
        // A kiosk's sessions and system gestures are named; without them, as it always was.
        var kiosk = ""
        if !cfg.kiosk.sessions.isEmpty { kiosk += "; session on \(cfg.outputs.map(\.id).filter { cfg.kiosk.sessions[$0] != nil }.joined(separator: ", "))" }
        if !cfg.kiosk.systemGestures.isEmpty { kiosk += "; system gesture(s) \(cfg.kiosk.systemGestures.map(\.name).joined(separator: ", "))" }
        let w = OutputWriter.standardOutput()
        // One output: its size as it always was; several: each, with its rotation when turned.
        let displays = cfg.outputs.count == 1 ? "screen \(Int(cfg.screen.width))x\(Int(cfg.screen.height))" :
            "outputs " + cfg.outputs.map { "\($0.id) \(Int($0.size.width))x\(Int($0.size.height))" + ($0.rotation == .r0 ? "" : " turned \($0.rotation.rawValue)") }.joined(separator: ", ")
        w.write("\(file): ok: \(displays), \(windows) window(s), \(views) view(s), \(controls) control(s), \(controllers) controller(s), \(gestures) gesture recognizer(s), \(cfg.devices.count) device entr\(cfg.devices.count == 1 ? "y" : "ies")\(uinput)\(kiosk)\n")
        w.flush()
        return 0
    }
}
