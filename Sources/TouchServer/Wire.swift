import TouchCore

/// The socket protocol's pure half: client requests parsed from NDJSON lines, subscription
/// filters, and the daemon's own message shapes (hello, pong, error, snapshot, stats, bye).
/// No I/O here, so it is tested with plain values.

public enum WireProtocol {
    public static let version = 1
    /// Longest request line accepted (bytes, without the newline).
    public static let maxLine = 64 * 1024
    public static let messageTypes = ["frame", "control", "gesture", "scroll", "device", "hitTest"]
    public static let defaultTypes: Set<String> = ["frame", "control", "gesture", "scroll", "device"]
}

public struct SubscriptionFilter: Sendable, Equatable {
    public var types: Set<String> = WireProtocol.defaultTypes
    public var windowIDs: [String] = []
    public var viewIDs: [String] = []
    /// Resolved against the current scene: windows, and the views named with all their
    /// descendants. nil when the filter does not restrict.
    public private(set) var windows: Set<ViewIndex>?
    public private(set) var views: Set<ViewIndex>?

    public init() {}

    public var restrictsTouches: Bool { windows != nil || views != nil }

    /// What decides the form of a message for this subscriber: subscribers with equal
    /// restrictions get the same bytes.
    public struct Restriction: Hashable, Sendable {
        var windows: Set<ViewIndex>?
        var views: Set<ViewIndex>?
    }
    public var restriction: Restriction { Restriction(windows: windows, views: views) }

    /// Resolves ids against a scene; returns the ids that name nothing.
    @discardableResult
    public mutating func resolve(in scene: Scene) -> [String] {
        var unknown: [String] = []
        if windowIDs.isEmpty { windows = nil } else {
            var set = Set<ViewIndex>()
            for id in windowIDs {
                if let w = scene.viewIndex[id], scene[w].isWindow { set.insert(w) } else { unknown.append(id) }
            }
            windows = set
        }
        if viewIDs.isEmpty { views = nil } else {
            let roots = viewIDs.compactMap { id -> ViewIndex? in
                guard let v = scene.viewIndex[id] else { unknown.append(id); return nil }
                return v
            }
            var set = Set<ViewIndex>()
            for v in scene.viewIndices where roots.contains(where: { scene.isDescendant(v, of: $0) }) { set.insert(v) }
            views = set
        }
        return unknown
    }

    public func matches(window: ViewIndex?, view: ViewIndex?) -> Bool {
        if let windows { guard let window, windows.contains(window) else { return false } }
        if let views { guard let view, views.contains(view) else { return false } }
        return true
    }

    /// The message as this subscriber should see it: nil to skip it, or (for frames) a copy
    /// restricted to the touches bound inside the filter and the calls about them.
    public func apply(_ m: Message, scene: Scene) -> Message? {
        guard types.contains(m.typeName) else { return nil }
        guard restrictsTouches else { return m }
        switch m {
        case .device:
            return m
        case .frame(var f):
            let kept = f.touches.filter { matches(window: $0.window, view: $0.view) }
            if kept.isEmpty { return nil }
            if kept.count == f.touches.count { return m }
            let ids = Set(kept.map(\.id))
            f.touches = kept
            f.calls = f.calls.compactMap { c in
                let t = c.touches.filter { ids.contains($0) }
                return t.isEmpty ? nil : Call(responder: c.responder, phase: c.phase, touches: t)
            }
            return .frame(f)
        case .control(let c):
            return matches(window: scene[c.control].window, view: c.control) ? m : nil
        case .hitTest(let h):
            return matches(window: h.window, view: h.view) ? m : nil
        case .gesture(let g):
            return matches(window: scene[g.view].window, view: g.view) ? m : nil
        case .scroll(let s):
            return matches(window: scene[s.view].window, view: s.view) ? m : nil
        }
    }
}

public enum ClientRequest: Sendable, Equatable {
    case subscribe(types: [String]?, windows: [String]?, views: [String]?)
    /// The value to echo, already as JSON text.
    case ping(String)
    case stats
}

public struct RequestError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension WireProtocol {
    /// Parses one request line (without its newline). Exactly one request per line.
    public static func parse(_ line: [UInt8]) -> Result<ClientRequest, RequestError> {
        let node: JSONNode
        do { node = try JSONParser.parse(line) } catch {
            return .failure(RequestError("invalid JSON: column \(error.column): \(error.message)"))
        }
        guard let members = node.members else {
            return .failure(RequestError("expected a JSON object such as {\"ping\":1} or {\"subscribe\":{…}}, got \(node.typeName)"))
        }
        guard members.count == 1 else {
            return .failure(RequestError(members.isEmpty ? "empty request: expected \"subscribe\", \"ping\" or \"stats\""
                                                          : "one request per line: got \(members.map { "\"\($0.key)\"" }.joined(separator: ", "))"))
        }
        let m = members[0]
        switch m.key {
        case "ping":
            switch m.value.value {
            case .number(let n):
                var out: [UInt8] = []
                if n == n.rounded() && abs(n) < 1e15 { JSONWriter.appendInt(Int(n), to: &out) } else { JSONWriter.appendDouble(n, digits: 6, to: &out) }
                return .success(.ping(String(decoding: out, as: UTF8.self)))
            case .string(let s):
                var out: [UInt8] = []
                JSONWriter.appendString(s, to: &out)
                return .success(.ping(String(decoding: out, as: UTF8.self)))
            default:
                return .failure(RequestError("ping: expected a number or a string, got \(m.value.typeName)"))
            }
        case "stats":
            guard m.value.bool == true || m.value.members?.isEmpty == true else {
                return .failure(RequestError("stats: expected true"))
            }
            return .success(.stats)
        case "subscribe":
            guard let fields = m.value.members else {
                return .failure(RequestError("subscribe: expected an object, got \(m.value.typeName)"))
            }
            var types: [String]?, windows: [String]?, views: [String]?
            for f in fields {
                guard let list = f.value.array, list.allSatisfy({ $0.string != nil }) else {
                    return .failure(RequestError("subscribe.\(f.key): expected an array of strings"))
                }
                let names = list.map { $0.string! }
                switch f.key {
                case "types":
                    if let bad = names.first(where: { !messageTypes.contains($0) }) {
                        return .failure(RequestError("subscribe.types: unknown message type \"\(bad)\" (expected: \(messageTypes.joined(separator: ", ")))"))
                    }
                    types = names
                case "windows": windows = names
                case "views": views = names
                default:
                    return .failure(RequestError("subscribe: unknown key \"\(f.key)\" (expected: types, windows, views)"))
                }
            }
            return .success(.subscribe(types: types, windows: windows, views: views))
        default:
            return .failure(RequestError("unknown request \"\(m.key)\" (expected: subscribe, ping, stats)"))
        }
    }

    public static func hello(screen: Size, version: String, pid: Int32) -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.appendRaw("{\"type\":\"hello\",\"protocol\":", to: &out)
        JSONWriter.appendInt(WireProtocol.version, to: &out)
        JSONWriter.appendRaw(",\"version\":", to: &out)
        JSONWriter.appendString(version, to: &out)
        JSONWriter.appendRaw(",\"screen\":{\"width\":", to: &out)
        JSONWriter.appendDouble(screen.width, to: &out)
        JSONWriter.appendRaw(",\"height\":", to: &out)
        JSONWriter.appendDouble(screen.height, to: &out)
        JSONWriter.appendRaw("},\"pid\":", to: &out)
        JSONWriter.appendInt(Int(pid), to: &out)
        JSONWriter.appendRaw("}\n", to: &out)
        return out
    }

    public static func error(_ message: String, line: Int? = nil) -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.appendRaw("{\"type\":\"error\",\"error\":", to: &out)
        JSONWriter.appendString(message, to: &out)
        if let line {
            JSONWriter.appendRaw(",\"line\":", to: &out)
            JSONWriter.appendInt(line, to: &out)
        }
        JSONWriter.appendRaw("}\n", to: &out)
        return out
    }

    public static func pong(_ value: String) -> [UInt8] {
        Array("{\"type\":\"pong\",\"ping\":\(value)}\n".utf8)
    }

    public static func overflow(dropped: Int) -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.appendRaw("{\"type\":\"overflow\",\"dropped\":", to: &out)
        JSONWriter.appendInt(dropped, to: &out)
        JSONWriter.appendRaw("}\n", to: &out)
        return out
    }

    public static func bye(reason: String) -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.appendRaw("{\"type\":\"bye\",\"reason\":", to: &out)
        JSONWriter.appendString(reason, to: &out)
        JSONWriter.appendRaw("}\n", to: &out)
        return out
    }

    /// The touches currently down, for a client that joined late: it never sees a `moved`
    /// for a touch it did not first see here or in a `began`. Only what `filter` lets through.
    public static func snapshot(_ snap: Snapshot, filter: SubscriptionFilter, encoder: MessageEncoder) -> [UInt8] {
        var touches: [TouchRecord] = []
        var devices: [String] = []
        for (t, d) in snap.touches where filter.matches(window: t.window, view: t.view) {
            touches.append(t)
            devices.append(d)
        }
        let attached = filter.types.contains("device") ? snap.devices : []
        var out: [UInt8] = []
        JSONWriter.appendRaw("{\"type\":\"snapshot\",\"seq\":", to: &out)
        JSONWriter.appendInt(snap.seq, to: &out)
        JSONWriter.appendRaw(",\"time\":", to: &out)
        JSONWriter.appendTime(snap.time, to: &out)
        JSONWriter.appendRaw(",\"devices\":[", to: &out)
        for (i, d) in attached.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            MessageEncoder.encodeDevice(d, into: &out)
        }
        JSONWriter.appendRaw("],\"touches\":", to: &out)
        encoder.encodeTouches(touches, devices: devices, into: &out)
        JSONWriter.appendRaw("}\n", to: &out)
        return out
    }
}
