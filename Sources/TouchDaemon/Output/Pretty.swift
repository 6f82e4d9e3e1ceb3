import TouchCore

/// One readable line per message for `--pretty`. Times are seconds since the first message
/// that has one after the snapshot (a line before it says when that was, on which clock):
/// the daemon's times are CLOCK_MONOTONIC's, seconds since boot, which no reader can follow.
struct Pretty {
    /// The first message's time, the origin of the times printed.
    var origin: Double?
    /// The snapshot's `clock`, named in the line that gives the origin.
    var clock: String?

    static func clockName(_ clock: String?) -> String {
        clock.flatMap(StreamClock.init(rawValue:))?.name ?? "the daemon's clock"
    }

    /// The line(s) for one message: a message with a time prints it relative to the origin,
    /// the first one after a line that names the origin and its clock.
    mutating func lines(_ node: JSONNode?, raw: [UInt8]) -> String? {
        guard let text = Pretty.line(node, raw: raw, origin: origin ?? 0) else { return nil }
        if let m = node, m["type"]?.string == "snapshot", let c = m["clock"]?.string { clock = c }
        guard origin == nil, let m = node, m["type"]?.string != "snapshot", let t = m["time"]?.number else { return text }
        origin = t
        let head = "times: seconds since " + Pretty.time(m["time"], origin: 0) + " on " + Pretty.clockName(clock)
        return head + "\n" + (Pretty.line(node, raw: raw, origin: t) ?? text)
    }

    static func num(_ n: JSONNode?) -> String {
        guard let d = n?.number else { return "?" }
        if d == d.rounded() && abs(d) < 1e15 { return String(Int64(d)) }
        var out: [UInt8] = []
        JSONWriter.appendDouble(d, digits: 1, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func point(_ n: JSONNode?) -> String {
        guard let a = n?.array, a.count == 2 else { return "(?)" }
        return "(\(num(a[0])), \(num(a[1])))"
    }

    static func time(_ n: JSONNode?, origin: Double) -> String {
        guard let d = n?.number else { return "?" }
        let ms = Int64(((d - origin) * 1000).rounded())
        let frac = String(abs(ms) % 1000)
        return (ms < 0 ? "-" : "") + "\(abs(ms) / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
    }

    static func line(_ node: JSONNode?, raw: [UInt8], origin: Double) -> String? {
        guard let m = node, let type = m["type"]?.string else { return String(decoding: raw, as: UTF8.self) }
        let t = time(m["time"], origin: origin)
        switch type {
        case "hello":
            return "connected: touchd \(m["version"]?.string ?? "?"), protocol \(num(m["protocol"])), screen \(num(m["screen"]?["width"]))×\(num(m["screen"]?["height"]))"
        case "snapshot":
            let touches = m["touches"]?.array ?? []
            let devices = (m["devices"]?.array ?? []).map { "\($0["id"]?.string ?? "?") \"\($0["name"]?.string ?? "?")\"" }
            let head = "snapshot at \(time(m["time"], origin: 0)) s on \(clockName(m["clock"]?.string)): " + (devices.isEmpty ? "no devices" : "devices " + devices.joined(separator: ", ")) + "; "
            if touches.isEmpty { return head + "no touches down" }
            return head + touches.map { "touch \(num($0["id"])) down on \($0["view"]?.string ?? "nothing") at \(point($0["location"]))" }.joined(separator: "; ")
        case "device":
            let d = m["device"]
            return "\(t) device \(m["action"]?.string ?? "?"): \(d?["id"]?.string ?? "?") \"\(d?["name"]?.string ?? "?")\" protocol \(d?["protocol"]?.string ?? "?"), \(num(d?["slots"])) slot(s)"
        case "frame":
            let touches = (m["touches"]?.array ?? []).filter { $0["phase"]?.string != "stationary" }.map { tt -> String in
                var s = "touch \(num(tt["id"])) \(tt["phase"]?.string ?? "?") on \(tt["view"]?.string ?? "nothing") at \(point(tt["location"]))"
                if let r = tt["reason"]?.string { s += " (\(r))" }
                if let i = tt["ignored"]?.string { s += " [ignored: \(i)]" }
                if tt["synthesized"]?.bool == true { s += " [screen reader's tap]" }
                return s
            }
            let calls = (m["calls"]?.array ?? []).map { "\($0["responder"]?.string ?? "?").\($0["method"]?.string ?? "?")" }
            return "\(t) " + touches.joined(separator: "; ") + (calls.isEmpty ? "" : " → " + calls.joined(separator: ", "))
        case "control":
            return "\(t) \(m["control"]?.string ?? "?"): \(m["event"]?.string ?? "?") (touch \(num(m["touch"])))"
        case "hitTest":
            let steps = m["trace"]?.array?.count ?? 0
            return "\(t) hit-test for touch \(num(m["touch"])) at \(point(m["point"])): \(m["view"]?.string ?? "nothing") (\(steps) steps)"
        case "gesture":
            return "\(t) \(m["recognizer"]?.string ?? "?") (\(m["kind"]?.string ?? "?") on \(m["view"]?.string ?? "?")): \(m["state"]?.string ?? "?")"
        case "scroll":
            return "\(t) \(m["view"]?.string ?? "?") scrolled to \(point(m["offset"]))"
        case "accessibilityFocus":
            return "\(t) screen reader on \(m["view"]?.string ?? "nothing") (\(m["window"]?.string ?? "?"))"
        case "accessibility":
            return "\(t) screen reader: \(m["action"]?.string ?? "?") \(m["view"]?.string ?? "(no element)")"
        case "speech":
            if let c = m["control"]?.string { return "\(t) speech: \(c)" }
            return "\(t) says\(m["interrupt"]?.bool == false ? " next" : "")\(m["private"]?.bool == true ? " (private)" : ""): \"\(m["text"]?.string ?? "")\""
        case "idle":
            return "\(t) output \(m["output"]?.string ?? "?") idle (backlight off)"
        case "wake":
            return "\(t) output \(m["output"]?.string ?? "?") awake"
        case "systemGesture":
            return "\(t) system gesture \(m["name"]?.string ?? "?") on output \(m["output"]?.string ?? "?")"
        case "session":
            return "session of output \(m["output"]?.string ?? "?"): \(m["idle"]?.bool == true ? "idle" : "awake"), kept awake by \(num(m["keepAwake"])) client(s)"
        case "overflow":
            return "overflow: \(num(m["dropped"])) message(s) were dropped because this client fell behind"
        case "error":
            return "error: \(m["error"]?.string ?? "?")"
        case "bye":
            return "the daemon closed the connection (\(m["reason"]?.string ?? "?"))"
        default:
            return String(decoding: raw, as: UTF8.self)
        }
    }
}
