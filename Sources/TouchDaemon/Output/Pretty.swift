import TouchCore

/// One readable line per message for `--pretty`.
enum Pretty {
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

    static func time(_ n: JSONNode?) -> String {
        guard let d = n?.number else { return "?" }
        let ms = Int64((d * 1000).rounded())
        let frac = String(ms % 1000)
        return "\(ms / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
    }

    static func line(_ node: JSONNode?, raw: [UInt8]) -> String? {
        guard let m = node, let type = m["type"]?.string else { return String(decoding: raw, as: UTF8.self) }
        let t = time(m["time"])
        switch type {
        case "hello":
            return "connected: touchd \(m["version"]?.string ?? "?"), protocol \(num(m["protocol"])), screen \(num(m["screen"]?["width"]))×\(num(m["screen"]?["height"]))"
        case "snapshot":
            let touches = m["touches"]?.array ?? []
            let devices = (m["devices"]?.array ?? []).map { "\($0["id"]?.string ?? "?") \"\($0["name"]?.string ?? "?")\"" }
            let head = "snapshot: " + (devices.isEmpty ? "no devices" : "devices " + devices.joined(separator: ", ")) + "; "
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
