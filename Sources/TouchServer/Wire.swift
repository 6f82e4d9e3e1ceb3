import TouchCore

/// The socket protocol's pure half: client requests parsed from NDJSON lines, subscription
/// filters, and the daemon's own message shapes (hello, pong, error, snapshot, stats, bye).
/// No I/O here, so it is tested with plain values.

public enum WireProtocol {
    public static let version = 1
    /// Longest request line accepted (bytes, without the newline).
    public static let maxLine = 64 * 1024
}

public struct SubscriptionFilter: Sendable, Equatable {
    public var types: Set<MessageType> = MessageType.subscribedByDefault
    public var windowIDs: [String] = []
    public var viewIDs: [String] = []
    /// At most this many frames a second (moves in between are coalesced); nil: every frame.
    public var maxRate: Double?
    /// Resolved against the current scene: the windows and the views named (a view matches
    /// with all its descendants: `matches` walks up from the touch's view). nil when the filter
    /// does not restrict.
    public private(set) var windows: Set<ViewIndex>?
    public private(set) var views: Set<ViewIndex>?

    public init() {}

    public var restrictsTouches: Bool { windows != nil || views != nil }
    /// It names windows or views (resolved again when the scene changes).
    public var namesIDs: Bool { !windowIDs.isEmpty || !viewIDs.isEmpty }

    /// Resolves ids against a scene, one lookup each (nothing proportional to the scene's
    /// size); returns the ids that name nothing `client` may see: a view or window of another
    /// client's private window is answered as unknown, as an id that does not exist is.
    @discardableResult
    public mutating func resolve(in scene: Scene, client: Int? = nil) -> [String] {
        var unknown: [String] = []
        func visible(_ v: ViewIndex) -> Bool { SubscriptionFilter.access(window: scene[v].window, client: client, scene: scene) != .hidden }
        if windowIDs.isEmpty { windows = nil } else {
            var set = Set<ViewIndex>()
            for id in windowIDs {
                if let w = scene.viewIndex[id], scene[w].isWindow, visible(w) { set.insert(w) } else { unknown.append(id) }
            }
            windows = set
        }
        if viewIDs.isEmpty { views = nil } else {
            var set = Set<ViewIndex>()
            for id in viewIDs {
                if let v = scene.viewIndex[id], visible(v) { set.insert(v) } else { unknown.append(id) }
            }
            views = set
        }
        return unknown
    }

    /// In one of its windows, and in one of its views or below one (the walk up from `view` is
    /// as deep as the view).
    public func matches(window: ViewIndex?, view: ViewIndex?, scene: Scene) -> Bool {
        if let windows { guard let window, windows.contains(window) else { return false } }
        if let views {
            var v = view
            while let node = v {
                if views.contains(node) { return true }
                v = scene[node].superview
            }
            return false
        }
        return true
    }

    /// What client `client` may know of window `window`: the one statement of the private-window
    /// rule. The owner of a client window sees all of it whatever its filter says; a private
    /// window is hidden from everyone else (its touches, controls, gestures, scrolls, the steps
    /// of hit-test traces through it); any other window is open to the filter.
    public enum Access { case owner, hidden, open }

    public static func access(window: ViewIndex?, client: Int?, scene: Scene) -> Access {
        guard let window, let owner = scene[window].owner else { return .open }
        if owner == client { return .owner }
        return scene[window].isPrivate ? .hidden : .open
    }

    /// Does client `client` see something of type `type` in this window and view? Its own
    /// windows whatever its filter (traces only if it asked for them), others' private ones
    /// never, everything else by the filter.
    public func sees(_ type: MessageType, window: ViewIndex?, view: ViewIndex?, client: Int?, scene: Scene) -> Bool {
        switch SubscriptionFilter.access(window: window, client: client, scene: scene) {
        case .owner: return type != .hitTest || types.contains(type)
        case .hidden: return false
        case .open: return types.contains(type) && matches(window: window, view: view, scene: scene)
        }
    }

    /// A touch in a snapshot: as `sees`, whatever the types.
    public func seesTouch(window: ViewIndex?, view: ViewIndex?, client: Int?, scene: Scene) -> Bool {
        switch SubscriptionFilter.access(window: window, client: client, scene: scene) {
        case .owner: return true
        case .hidden: return false
        case .open: return matches(window: window, view: view, scene: scene)
        }
    }

    /// The message as client `client` should see it: nil to skip it, or (for frames) a copy
    /// restricted to the touches it sees and the calls about them.
    public func apply(_ m: Message, scene: Scene, client: Int? = nil) -> Message? {
        let type = m.type
        switch m {
        case .device, .headphones:
            return types.contains(type) ? m : nil
        case .frame(var f):
            let kept = f.touches.filter { sees(type, window: $0.window, view: $0.view, client: client, scene: scene) }
            if kept.isEmpty { return nil }
            if kept.count == f.touches.count { return m }
            // Cut down to touches that did not change, the frame would only say that something
            // the client may not see (another window's touch, a private key) changed, and when.
            if !kept.contains(where: { $0.phase != .stationary }) { return nil }
            let ids = Set(kept.map(\.id))
            f.touches = kept
            f.calls = f.calls.compactMap { c in
                let t = c.touches.filter { ids.contains($0) }
                return t.isEmpty ? nil : Call(responder: c.responder, phase: c.phase, touches: t)
            }
            return .frame(f)
        case .control(let c):
            return sees(type, window: scene[c.control].window, view: c.control, client: client, scene: scene) ? m : nil
        case .hitTest(var h):
            guard sees(type, window: h.window, view: h.view, client: client, scene: scene) else { return nil }
            // A trace that passed by another client's private window does not show it.
            let kept = h.trace.filter { step in
                if case .omitted = step.kind { return true }   // the bound's marker: no view of its own
                return SubscriptionFilter.access(window: scene[step.view].window, client: client, scene: scene) != .hidden
            }
            if kept.count == h.trace.count { return m }
            h.trace = kept
            return .hitTest(h)
        case .gesture(let g):
            return sees(type, window: scene[g.view].window, view: g.view, client: client, scene: scene) ? m : nil
        case .scroll(let s):
            return sees(type, window: scene[s.view].window, view: s.view, client: client, scene: scene) ? m : nil
        case .output:
            return m   // every subscriber: its windows' frames may have to change
        case .accessibility(let a):
            switch SubscriptionFilter.access(window: a.window, client: client, scene: scene) {
            case .owner: return m
            case .hidden: return nil
            case .open:
                // Focus and actions about another client's window are its business only.
                if a.isForOwner, let w = a.window, scene[w].owner != nil { return nil }
                guard types.contains(type), a.window == nil || matches(window: a.window, view: a.view, scene: scene) else { return nil }
                return a.forOthers.map(Message.accessibility)
            }
        case .idle, .wake:
            return types.contains(type) ? m : nil
        case .systemGesture:
            return nil   // never to every subscriber: the daemon sends it to those its `to` names
        }
    }
}

public enum ClientRequest: Sendable, Equatable {
    case subscribe(types: [MessageType]?, windows: [String]?, views: [String]?, maxRate: Double? = nil)
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
            var types: [MessageType]?, windows: [String]?, views: [String]?, maxRate: Double?
            for f in fields {
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
                    return .failure(RequestError("subscribe: unknown key \"\(f.key)\" (expected: types, windows, views, maxRate)"))
                }
            }
            return .success(.subscribe(types: types, windows: windows, views: views, maxRate: maxRate))
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
