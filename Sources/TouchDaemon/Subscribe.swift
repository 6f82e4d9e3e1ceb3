@preconcurrency import Glibc
import TouchCore
import TouchServer

/// `touchd subscribe`: a client of the daemon's socket.
struct SubscribeCommand: Command {
    static let name = "subscribe"
    static let summary = "connect to the daemon and print what it publishes"
    static let help = """
    usage: touchd subscribe [--socket PATH] [--types a,b] [--window W] [--view V] [--trace]
                            [--pretty] [--count N]

    Connects to the daemon, subscribes, and prints every message: raw NDJSON by default, or one
    readable line per event with --pretty. Exits 0 when the daemon says goodbye, non-zero with
    a clear message when it is not there.

    options:
      --socket PATH   the daemon's socket (default /run/touchd/touchd.sock)
      --types a,b     message types: frame, control, gesture, scroll, device, hitTest
                      (default: all but hitTest)
      --window W      only touches in window W (repeatable, or comma-separated)
      --view V        only touches bound to view V or its descendants (repeatable)
      --trace         add hitTest messages (the full hit-test trace of each touch-down)
      --pretty        one readable line per event instead of JSON
      --count N       exit after N published messages (hello/snapshot not counted)

    """

    var socket = "/run/touchd/touchd.sock"
    var types: [String]?
    var windows: [String] = []
    var views: [String] = []
    var trace = false
    var pretty = false
    var count: Int?

    init(arguments: [String]) throws(UsageError) {
        var list = ArgumentList(arguments)
        var s = SubscribeCommand(empty: ())
        try list.parse { (name, l) throws(UsageError) in
            switch name {
            case "--socket": s.socket = try l.value(for: name)
            case "--types":
                let t = try l.value(for: name).split(separator: ",").map { String($0).trimmingCharacters() }
                if let bad = t.first(where: { !WireProtocol.messageTypes.contains($0) }) {
                    throw UsageError("unknown message type \"\(bad)\" (expected: \(WireProtocol.messageTypes.joined(separator: ", ")))")
                }
                s.types = t
            case "--window": s.windows += try l.value(for: name).split(separator: ",").map(String.init)
            case "--view": s.views += try l.value(for: name).split(separator: ",").map(String.init)
            case "--trace": s.trace = true
            case "--pretty": s.pretty = true
            case "--count":
                let n = try l.number(for: name)
                guard n >= 1, n == n.rounded() else { throw UsageError("--count needs a whole number of at least 1") }
                s.count = Int(n)
            default: return false
            }
            return true
        }
        guard list.positionals.isEmpty else { throw UsageError("unexpected argument \(list.positionals[0])") }
        self = s
    }

    private init(empty: Void) {}

    func request() -> [UInt8] {
        var types = self.types ?? Array(WireProtocol.defaultTypes).sorted()
        if trace && !types.contains("hitTest") { types.append("hitTest") }
        var out: [UInt8] = []
        JSONWriter.appendRaw("{\"subscribe\":{\"types\":[", to: &out)
        for (i, t) in types.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(t, to: &out)
        }
        JSONWriter.appendRaw("]", to: &out)
        for (key, list) in [("windows", windows), ("views", views)] where !list.isEmpty {
            out.append(contentsOf: ",\"\(key)\":[".utf8)
            for (i, v) in list.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.appendString(v, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        JSONWriter.appendRaw("}}\n", to: &out)
        return out
    }

    func run() throws(CommandFailure) -> Int32 {
        let fd: Int32
        do { fd = try Sys.connectUnix(socket) } catch {
            throw CommandFailure("cannot connect to \(socket): \(String(cString: strerror(error.errno))) — is touchd running (touchd run), and may you use its socket (group input)?")
        }
        defer { Sys.close(fd) }
        let req = request()
        _ = req.withUnsafeBytes { try? Sys.send(fd, $0) }
        let out = FDWriter(fd: STDOUT_FILENO, limit: 0)
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        var published = 0
        var subscribed = false
        while true {
            let r: IOResult
            do { r = try chunk.withUnsafeMutableBytes { (b) throws(SysError) -> IOResult in try Sys.read(fd, into: b) } } catch {
                throw CommandFailure("reading \(socket): \(error)")
            }
            guard case .done(let n) = r else { break }
            buffer.append(contentsOf: chunk[0..<n])
            while let nl = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<nl])
                buffer.removeSubrange(...nl)
                let node = try? JSONParser.parse(line)
                let type = node?["type"]?.string ?? ""
                if type == "error" && !subscribed {
                    throw CommandFailure("the daemon refused: \(node?["error"]?.string ?? String(decoding: line, as: UTF8.self))")
                }
                if type == "snapshot" { subscribed = true }
                if pretty {
                    if let text = Pretty.line(node, raw: line) { out.write(text + "\n") }
                } else {
                    out.write(line)
                    out.write([0x0A])
                }
                out.flush()
                if type == "bye" { return 0 }
                if !["hello", "snapshot", "pong", "overflow", "stats", "error"].contains(type) {
                    published += 1
                    if let count, published >= count { return 0 }
                }
            }
        }
        return 0
    }
}

extension String {
    func trimmingCharacters() -> String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}

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
