import TouchCore
import TouchSystem

struct OutputsCommand: Command {
    static let name = "outputs"
    static let summary = "list displays (DRM connectors) and touchscreens' WL_OUTPUT; suggest outputs[]"
    static let operands = ""
    static let about = """
    Lists the DRM connectors under SYSFS/class/drm (name, connected or not, preferred mode,
    physical size from the EDID), then the touchscreens with their udev property WL_OUTPUT
    and the output each maps to (devices[].output, else WL_OUTPUT when it names an output,
    else the first), and a suggested "outputs" (and "devices" entries for touchscreens
    without WL_OUTPUT) to paste into the config. With --config, the config's outputs and
    devices decide the mapping; without it, the connected connectors do.
    """
    static var options: [Option<OutputsCommand>] {
        [.optionalConfig(\.config, help: "map the touchscreens with this configuration's outputs and devices"),
         .flag(["--json"], help: "one JSON object instead of text", \.json),
         .string(["--sysfs"], value: "DIR", help: "read DIR/class/drm and DIR/class/input (default /sys)", \.sysfs),
         .string(["--udev-data"], value: "DIR", help: "udev's database of device properties (default /run/udev/data)", \.udevData)]
    }

    var config: String?
    var json = false
    var sysfs = "/sys"
    var udevData = "/run/udev/data"

    mutating func validate(operands: [String]) throws(UsageError) {
        guard operands.isEmpty else { throw UsageError("unexpected argument \(operands[0])") }
    }

    func run() throws(CommandFailure) -> Int32 {
        let cfg = try config.map { (p) throws(CommandFailure) in try loadConfig(p) }
        let survey: OutputsSurvey
        do { survey = try OutputsSurvey.read(sysfs: sysfs, udevData: udevData) } catch { throw CommandFailure(error.description) }
        let out = OutputWriter.standardOutput()
        out.write(json ? OutputsCommand.json(survey, config: cfg) : Array(OutputsCommand.text(survey, config: cfg, sysfs: sysfs).utf8))
        out.flush()
        return 0
    }

    /// The outputs the touchscreens are mapped with: the config's, else the connected ones.
    static func outputs(_ s: OutputsSurvey, config: Config?) -> [Output] { config?.outputs ?? s.suggestedOutputs }

    /// Entries for touchscreens that nothing maps (no WL_OUTPUT naming an output, no entry):
    /// a guess, the first output, for the reader to correct.
    static func suggestedDevices(_ s: OutputsSurvey) -> [(name: String, output: String)] {
        let outputs = s.suggestedOutputs
        guard let first = outputs.first, outputs.count > 1 else { return [] }
        return s.touchscreens.filter { t in !outputs.contains { $0.id == t.wlOutput } }.map { ($0.name, first.id) }
    }

    /// The survey as text; every value read from the tree (names, WL_OUTPUT, statuses) with
    /// its control characters escaped, so none reaches the terminal.
    static func text(_ s: OutputsSurvey, config: Config?, sysfs: String) -> String {
        let e = TerminalText.escaped
        var t = "connectors (\(e(sysfs))/class/drm):\n"
        if s.connectors.isEmpty { t += "  none (no DRM driver, or not a /sys)\n" }
        for c in s.connectors {
            t += "  \(e(c.name))  \(e(c.status))"
            if let m = c.mode { t += "  \(m.width)x\(m.height)" }
            if let p = c.physical { t += "  \(p.width)x\(p.height) mm" }
            t += "\n"
        }
        t += "touchscreens:\n"
        if s.touchscreens.isEmpty { t += "  none with ID_INPUT_TOUCHSCREEN=1 or WL_OUTPUT in udev's database\n" }
        let outputs = outputs(s, config: config)
        for d in s.touchscreens {
            t += "  \(e(d.node)) \"\(e(d.name))\"  " + (d.wlOutput.map { "WL_OUTPUT=\(e($0))" } ?? "no WL_OUTPUT")
            if let m = s.mapping(d, outputs: outputs, config: config) { t += "  → \(e(m.output)) (\(e(m.by)))" }
            t += "\n"
        }
        t += "suggested config:\n"
        if s.suggestedOutputs.isEmpty { t += "  none: no connected connector with a mode (keep \"screen\")\n" }
        else { t += "  \"outputs\": " + e(String(decoding: outputsJSON(s.suggestedOutputs), as: UTF8.self)) + "\n" }
        let devices = suggestedDevices(s)
        if !devices.isEmpty {
            // (DEL and C1 escaped as \u escapes inside JSON strings: the same JSON.)
            t += "  \"devices\": " + e(String(decoding: devicesJSON(devices), as: UTF8.self)) + "\n"
            t += "  (a guess: set each device's \"output\" to the display it is on, or give it WL_OUTPUT in a udev rule)\n"
        }
        return t
    }

    static func outputsJSON(_ outputs: [Output]) -> [UInt8] {
        var o: [UInt8] = [UInt8(ascii: "[")]
        for (k, x) in outputs.enumerated() {
            if k > 0 { o += Array(", ".utf8) }
            o += Array("{\"id\": ".utf8)
            JSONWriter.appendString(x.id, to: &o)
            o += Array(", \"width\": \(Int(x.size.width)), \"height\": \(Int(x.size.height)), \"rotation\": 0}".utf8)
        }
        return o + [UInt8(ascii: "]")]
    }

    static func devicesJSON(_ devices: [(name: String, output: String)]) -> [UInt8] {
        var o: [UInt8] = [UInt8(ascii: "[")]
        for (k, d) in devices.enumerated() {
            if k > 0 { o += Array(", ".utf8) }
            o += Array("{\"match\": {\"name\": ".utf8)
            JSONWriter.appendString(d.name, to: &o)
            o += Array("}, \"output\": ".utf8)
            JSONWriter.appendString(d.output, to: &o)
            o.append(UInt8(ascii: "}"))
        }
        return o + [UInt8(ascii: "]")]
    }

    static func json(_ s: OutputsSurvey, config: Config?) -> [UInt8] {
        var o = Array("{\"connectors\":[".utf8)
        for (k, c) in s.connectors.enumerated() {
            if k > 0 { o.append(UInt8(ascii: ",")) }
            o += Array("{\"name\":".utf8)
            JSONWriter.appendString(c.name, to: &o)
            o += Array(",\"status\":".utf8)
            JSONWriter.appendString(c.status, to: &o)
            o += Array(",\"connected\":\(c.connected),\"mode\":".utf8)
            o += Array((c.mode.map { "{\"width\":\($0.width),\"height\":\($0.height)}" } ?? "null").utf8)
            o += Array(",\"physicalMillimetres\":".utf8)
            o += Array((c.physical.map { "{\"width\":\($0.width),\"height\":\($0.height)}" } ?? "null").utf8)
            o.append(UInt8(ascii: "}"))
        }
        o += Array("],\"touchscreens\":[".utf8)
        let outputs = outputs(s, config: config)
        for (k, d) in s.touchscreens.enumerated() {
            if k > 0 { o.append(UInt8(ascii: ",")) }
            o += Array("{\"node\":".utf8)
            JSONWriter.appendString(d.node, to: &o)
            o += Array(",\"name\":".utf8)
            JSONWriter.appendString(d.name, to: &o)
            o += Array(",\"wlOutput\":".utf8)
            JSONWriter.appendOptionalString(d.wlOutput, to: &o)
            let m = s.mapping(d, outputs: outputs, config: config)
            o += Array(",\"output\":".utf8)
            JSONWriter.appendOptionalString(m?.output, to: &o)
            o += Array(",\"by\":".utf8)
            JSONWriter.appendOptionalString(m?.by, to: &o)
            o.append(UInt8(ascii: "}"))
        }
        o += Array("],\"suggested\":{\"outputs\":".utf8) + outputsJSON(s.suggestedOutputs)
        o += Array(",\"devices\":".utf8) + devicesJSON(suggestedDevices(s))
        return o + Array("}}\n".utf8)
    }
}
