import TouchCore

/// The socket protocol's pure half: client requests parsed from NDJSON lines (the subscription
/// filters: SubscriptionFilter.swift), and the daemon's own message shapes (hello, pong, error, snapshot, stats, bye).
/// No I/O here, so it is tested with plain values.

public enum WireProtocol {
    public static let version = 1
    /// Longest request line accepted (bytes, without the newline).
    public static let maxLine = 64 * 1024
}

public enum ClientRequest: Sendable, Equatable {
    case subscribe(types: [MessageType]?, windows: [String]?, views: [String]?, maxRate: Double? = nil, speaker: Bool = false)
    /// The value to echo, already as JSON text.
    case ping(String)
    case stats
    /// `{"systemGestures":true}`: which system gestures this client is sent.
    case systemGestures
    /// attach, update or detach (the live scene), for the engine to apply.
    case scene(SceneRequest)
}

public struct RequestError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// For a scene request: which one, the window it names (when it got that far) and the JSON
    /// path of what was wrong inside it.
    public var request: String?
    public var window: String?
    public var path: String?
    public init(_ message: String, request: String? = nil, window: String? = nil, path: String? = nil) {
        self.message = message; self.request = request; self.window = window; self.path = path
    }
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
            return .failure(RequestError(members.isEmpty ? "empty request: expected one of \(requestNames.map { "\"\($0)\"" }.joined(separator: ", "))"
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
        case "systemGestures":
            guard m.value.bool == true else {
                return .failure(RequestError("systemGestures: expected true"))
            }
            return .success(.systemGestures)
        case "subscribe":
            guard let fields = m.value.members else {
                return .failure(RequestError("subscribe: expected an object, got \(m.value.typeName)"))
            }
            var types: [MessageType]?, windows: [String]?, views: [String]?, maxRate: Double?, speaker = false
            for f in fields {
                if f.key == "speaker" {
                    guard let b = f.value.bool else { return .failure(RequestError("subscribe.speaker: expected true or false")) }
                    speaker = b
                    continue
                }
                if f.key == "maxRate" {
                    guard let hz = f.value.number, hz.isFinite, hz >= 1, hz <= 1000 else {
                        return .failure(RequestError("subscribe.maxRate: expected frames per second, a number from 1 to 1000"))
                    }
                    maxRate = hz
                    continue
                }
                guard let list = f.value.array, case let names = list.compactMap(\.string), names.count == list.count else {
                    return .failure(RequestError("subscribe.\(f.key): expected an array of strings"))
                }
                switch f.key {
                case "types":
                    if let bad = names.first(where: { MessageType(rawValue: $0) == nil }) {
                        return .failure(RequestError("subscribe.types: unknown message type \"\(bad)\" (expected: \(MessageType.allCases.map(\.rawValue).joined(separator: ", ")))"))
                    }
                    types = names.compactMap(MessageType.init(rawValue:))
                case "windows": windows = names
                case "views": views = names
                default:
                    return .failure(RequestError("subscribe: unknown key \"\(f.key)\" (expected: types, windows, views, maxRate, speaker)"))
                }
            }
            return .success(.subscribe(types: types, windows: windows, views: views, maxRate: maxRate, speaker: speaker))
        default:
            switch SceneRequest.parse(m.key, m.value) {
            case .success(let r)?:
                return .success(.scene(r))
            case .failure(let e)?:
                // The window, when the request names one that far.
                let window = SceneRequest.windowNamed(in: m.value)
                let head = m.key + (window.map { " \"\($0)\"" } ?? "")
                return .failure(RequestError("\(head): \(e)", request: m.key, window: window, path: e.path))
            case nil:
                return .failure(RequestError("unknown request \"\(m.key)\" (expected: \(requestNames.joined(separator: ", ")))"))
            }
        }
    }

    public static let requestNames = ["subscribe", "ping", "stats", "systemGestures"] + SceneRequest.names

    /// `outputs` are listed when there is more than one (a one-output hello is as it was).
    public static func hello(screen: Size, outputs: [Output] = [], version: String, pid: Int32) -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.appendRaw("{\"type\":\"hello\",\"protocol\":", to: &out)
        JSONWriter.appendInt(WireProtocol.version, to: &out)
        JSONWriter.appendRaw(",\"version\":", to: &out)
        JSONWriter.appendString(version, to: &out)
        JSONWriter.appendRaw(",\"screen\":{\"width\":", to: &out)
        JSONWriter.appendDouble(screen.width, to: &out)
        JSONWriter.appendRaw(",\"height\":", to: &out)
        JSONWriter.appendDouble(screen.height, to: &out)
        JSONWriter.appendRaw("}", to: &out)
        appendOutputs(outputs, to: &out)
        JSONWriter.appendRaw(",\"pid\":", to: &out)
        JSONWriter.appendInt(Int(pid), to: &out)
        JSONWriter.appendRaw("}\n", to: &out)
        return out
    }

    /// `,"outputs":[…]` as they are turned now, when there is more than one (hello, snapshot,
    /// stats: a one-output message is as it was).
    static func appendOutputs(_ outputs: [Output], to out: inout [UInt8]) {
        guard outputs.count > 1 else { return }
        JSONWriter.appendRaw(",\"outputs\":[", to: &out)
        for (k, o) in outputs.enumerated() {
            if k > 0 { JSONWriter.appendRaw(",", to: &out) }
            MessageEncoder.encodeOutput(o, into: &out)
        }
        JSONWriter.appendRaw("]", to: &out)
    }

    public static func error(_ message: String, line: Int? = nil) -> [UInt8] {
        error(RequestError(message), line: line)
    }

    /// An error reply; a scene request's names the request, its window and the path inside it.
    public static func error(_ e: RequestError, line: Int? = nil) -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.appendRaw("{\"type\":\"error\",\"error\":", to: &out)
        JSONWriter.appendString(e.message, to: &out)
        if let v = e.request { JSONWriter.appendRaw(",\"request\":", to: &out); JSONWriter.appendString(v, to: &out) }
        if let v = e.window { JSONWriter.appendRaw(",\"window\":", to: &out); JSONWriter.appendString(v, to: &out) }
        if let v = e.path { JSONWriter.appendRaw(",\"path\":", to: &out); JSONWriter.appendString(v, to: &out) }
        if let line {
            JSONWriter.appendRaw(",\"line\":", to: &out)
            JSONWriter.appendInt(line, to: &out)
        }
        JSONWriter.appendRaw("}\n", to: &out)
        return out
    }


    /// `{"type":"systemGestures","names":[…]}`: the system gestures a client is sent.
    public static func systemGestures(_ names: [String]) -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.appendRaw("{\"type\":\"systemGestures\",\"names\":[", to: &out)
        for (i, n) in names.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(n, to: &out)
        }
        JSONWriter.appendRaw("]}\n", to: &out)
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
    /// for a touch it did not first see here or in a `began`. Only what client `client` sees.
    public static func snapshot(_ snap: Snapshot, filter: SubscriptionFilter, client: Int? = nil, scene: Scene, encoder: MessageEncoder) -> [UInt8] {
        var touches: [TouchRecord] = []
        var devices: [String] = []
        for (t, d) in snap.touches where filter.seesTouch(window: t.window, view: t.view, client: client, scene: scene) {
            touches.append(t)
            devices.append(d)
        }
        let attached = filter.types.contains(.device) ? snap.devices : []
        var out: [UInt8] = []
        JSONWriter.appendRaw("{\"type\":\"snapshot\",\"seq\":", to: &out)
        JSONWriter.appendInt(snap.seq, to: &out)
        JSONWriter.appendRaw(",\"time\":", to: &out)
        JSONWriter.appendTime(snap.time, to: &out)
        JSONWriter.appendRaw(",\"clock\":", to: &out)
        JSONWriter.appendString(snap.clock.rawValue, to: &out)
        // A client joining after a turn learns the orientations here.
        appendOutputs(scene.outputs, to: &out)
        JSONWriter.appendRaw(",\"devices\":[", to: &out)
        for (i, d) in attached.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            MessageEncoder.encodeDevice(d, into: &out)
        }
        JSONWriter.appendRaw("]", to: &out)
        // Outputs with headphones plugged in (issue 46), only when there are any: touchd speak
        // learns there whether private text may be spoken.
        if filter.types.contains(.headphones) && !snap.headphones.isEmpty {
            JSONWriter.appendRaw(",\"headphones\":[", to: &out)
            for (i, o) in snap.headphones.enumerated() {
                JSONWriter.appendRaw(i > 0 ? ",{\"output\":" : "{\"output\":", to: &out)
                JSONWriter.appendString(o, to: &out)
                JSONWriter.appendRaw(",\"plugged\":true}", to: &out)
            }
            JSONWriter.appendRaw("]", to: &out)
        }
        JSONWriter.appendRaw(",\"touches\":", to: &out)
        encoder.encodeTouches(touches, devices: devices, into: &out)
        JSONWriter.appendRaw("}\n", to: &out)
        return out
    }
}
