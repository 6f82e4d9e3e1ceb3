/// A live scene replayed offline (`touchd replay --scene SCRIPT`): NDJSON, one line per
/// request, `{"time":T,"client":NAME,"request":{…}}` or `{"time":T,"client":NAME,"disconnect":true}`.
/// T is in seconds on the capture's clock (the `time` of the messages). A request whose
/// content is wrong is not a script error: it is replayed and gets its error reply, as the
/// client would have; a line that is not such an object is a script error, with its line.
public struct SceneScript: Sendable {
    public enum Action: Sendable {
        /// A request as the client sent it: parsed, or the error reply it gets.
        case request(Result<SceneRequest, SceneReplyError>)
        /// The client's connection closes: its windows go (client-gone).
        case disconnect
    }

    public struct Entry: Sendable {
        /// Microseconds, on the capture's clock.
        public var time: Int64
        public var client: String
        public var action: Action
        /// Its line in the script.
        public var line: Int
    }

    /// In time order (lines with equal times keep their order).
    public var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    /// Every problem, each with its line.
    public static func parse(_ bytes: [UInt8]) throws(ConfigErrors) -> SceneScript {
        var entries: [Entry] = []
        var errors: [ConfigError] = []
        var n = 0
        for raw in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            n += 1
            let line = raw.last == UInt8(ascii: "\r") ? raw.dropLast() : raw[...]
            if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { continue }
            let node: JSONNode
            do { node = try JSONParser.parse(Array(line)) } catch {
                errors.append(ConfigError(path: "column \(error.column)", line: n, message: "invalid JSON: \(error.message)"))
                continue
            }
            switch entry(node, line: n) {
            case .success(let e): entries.append(e)
            case .failure(let e): errors.append(e)
            }
        }
        if !errors.isEmpty { throw ConfigErrors(errors: errors) }
        // Stable: equal times keep the script's order.
        let ordered = entries.enumerated().sorted { a, b in a.element.time != b.element.time ? a.element.time < b.element.time : a.offset < b.offset }
        return SceneScript(entries: ordered.map(\.element))
    }

    static func entry(_ node: JSONNode, line n: Int) -> Result<Entry, ConfigError> {
        func problem(_ path: String, _ message: String) -> Result<Entry, ConfigError> {
            .failure(ConfigError(path: path, line: n, message: message))
        }
        guard let members = node.members else { return problem("$", "expected an object {\"time\": T, \"client\": NAME, \"request\": {…}}, got \(node.typeName)") }
        for m in members where !["time", "client", "request", "disconnect"].contains(m.key) {
            return problem("$.\(m.key)", "unknown key (expected: time, client, request, disconnect)")
        }
        guard let t = node["time"]?.number else { return problem("$.time", node["time"] == nil ? "missing: when, in seconds on the capture's clock" : "expected a number of seconds") }
        guard t.isFinite, t >= 0, t < 1e9 else { return problem("$.time", "must be between 0 and 1e9 seconds") }
        guard let client = node["client"]?.string, !client.isEmpty else { return problem("$.client", "expected the client's name (a non-empty string)") }
        let time = Int64((t * 1_000_000).rounded())
        switch (node["request"], node["disconnect"]) {
        case (nil, nil):
            return problem("$", "expected \"request\" or \"disconnect\"")
        case (.some, .some):
            return problem("$", "a line is either a request or a disconnect, not both")
        case (nil, .some(let d)):
            guard d.bool == true else { return problem("$.disconnect", "expected true") }
            return .success(Entry(time: time, client: client, action: .disconnect, line: n))
        case (.some(let r), nil):
            guard let rm = r.members, rm.count == 1 else { return problem("$.request", "expected one request: {\"attach\": …}, {\"update\": …}, {\"detach\": …}, {\"output\": …} or {\"calibrate\": …}") }
            let key = rm[0].key, value = rm[0].value
            guard let parsed = SceneRequest.parse(key, value) else {
                return problem("$.request.\(key)", "not a scene request (expected: \(SceneRequest.names.joined(separator: ", ")))")
            }
            let action: Action
            switch parsed {
            case .success(let req): action = .request(.success(req))
            case .failure(let e): action = .request(.failure(SceneReplyError(reply: SceneRequest.refusal(key, value, e))))
            }
            return .success(Entry(time: time, client: client, action: action, line: n))
        }
    }
}

/// A request that did not parse, with the reply its sender gets.
public struct SceneReplyError: Error, Sendable {
    public var reply: SceneReply
}

/// Plays a scene script's entries into an engine as their times come (the replay session
/// calls `playNext` before the first event at or after the entry's time, and for the entries
/// left at the end), writing each reply with its client's name.
public struct ScenePlayer {
    public let script: SceneScript
    public var limits: ClientLimits
    var next = 0
    /// Client names to the ids the engine knows them by; a name that disconnected and comes
    /// back is a new client.
    var ids: [String: Int] = [:]
    var lastID = 0

    public init(script: SceneScript, limits: ClientLimits) {
        self.script = script
        self.limits = limits
    }

    /// The name of the client the engine knows as `id`, while it is connected.
    public func name(of id: Int) -> String? { ids.first { $0.value == id }?.key }

    /// The time of the next entry, nil when all are played.
    public var nextTime: Int64? { next < script.entries.count ? script.entries[next].time : nil }

    /// Plays the next entry: the request applies (its cancellations published) and its reply,
    /// a line with `"client":NAME`, is returned. The caller's loop has run the timers due
    /// before the entry's time.
    public mutating func playNext(_ engine: Engine) -> [UInt8]? {
        guard next < script.entries.count else { return nil }
        let e = script.entries[next]
        next += 1
        let time = max(e.time, engine.lastTime)
        switch e.action {
        case .disconnect:
            if let id = ids.removeValue(forKey: e.client) { engine.clientGone(id, time: time) }
            return nil
        case .request(.failure(let f)):
            return f.reply.encode(client: e.client)
        case .request(.success(let r)):
            let id: Int
            if let known = ids[e.client] { id = known } else {
                lastID += 1
                id = lastID
                ids[e.client] = id
            }
            return engine.apply(r, from: id, limits: limits, time: time).encode(client: e.client)
        }
    }
}
