/// The kiosk session's settings (interface.md, "Kiosk session"; docs/config.md, "Kiosk
/// sessions"): `session` (global, or `outputs[].session` for one output) and `systemGestures`,
/// as plain values, and their reading with every problem at its JSON path.

/// One output's session: when it goes idle, what the waking touch does, its backlight.
public struct SessionSettings: Sendable, Equatable {
    public enum Wake: String, Sendable, Equatable, CaseIterable {
        /// The waking touch, and every finger down with it, reaches nothing (the default).
        case swallow
        /// The waking touch is delivered as usual.
        case deliver
    }
    /// Microseconds without a touch before the output goes idle; nil: only when a client asks.
    public var idle: Int64?
    public var wake = Wake.swallow
    /// A `/sys/class/backlight` device's directory: `bl_power` (or `brightness`) is written there
    /// by the daemon (TouchDaemon's Backlight); nil: messages only.
    public var backlight: String?
    public init(idle: Int64? = nil, wake: Wake = .swallow, backlight: String? = nil) {
        self.idle = idle; self.wake = wake; self.backlight = backlight
    }
}

/// A system gesture: a recognizer that watches every touch of its output without taking any.
public struct SystemGestureSettings: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// `taps` taps of `touches` fingers each, all within `within` µs of the first touch-down,
        /// every finger landing in `region` (nil: anywhere on the output).
        case tap(taps: Int, touches: Int, within: Int64, region: Rect?)
        /// `touches` fingers held still for `duration` µs.
        case longPress(touches: Int, duration: Int64)
        /// One finger from within 20 points of `edge`, `distance` points inward.
        case edgeSwipe(edge: GestureSettings.Edge, distance: Double)

        public var name: String {
            switch self {
            case .tap: return "tap"
            case .longPress: return "longPress"
            case .edgeSwipe: return "edgeSwipe"
            }
        }
    }
    public var name: String
    public var kind: Kind
    /// The output it watches (nil: each output, on its own).
    public var output: String?
    /// Who is told (`to`); nil: the clients whose levels reach the top of clients.owners' ranges
    /// (every client without a policy).
    public var to: OwnersPolicy.Entry?
    public init(name: String, kind: Kind, output: String? = nil, to: OwnersPolicy.Entry? = nil) {
        self.name = name; self.kind = kind; self.output = output; self.to = to
    }
}

/// What a kiosk's config says of its sessions and its system gestures.
public struct KioskSettings: Sendable, Equatable {
    /// By output id: the outputs that have a session.
    public var sessions: [String: SessionSettings] = [:]
    public var systemGestures: [SystemGestureSettings] = []
    public init(sessions: [String: SessionSettings] = [:], systemGestures: [SystemGestureSettings] = []) {
        self.sessions = sessions; self.systemGestures = systemGestures
    }
    public var isEmpty: Bool { sessions.isEmpty && systemGestures.isEmpty }
    public func gesture(named name: String) -> SystemGestureSettings? { systemGestures.first { $0.name == name } }
}

extension ConfigReader {
    static let sessionKeys = ["idle", "wake", "backlight"]

    /// `session` and `outputs[].session`: each output's session, the global one for every output
    /// without its own.
    mutating func kiosk(_ root: JSONNode, outputs: [Output]) -> KioskSettings {
        var k = KioskSettings()
        let global = root["session"].flatMap { session($0, "$.session") }
        var own: [String: SessionSettings] = [:]
        if let items = root["outputs"]?.array {
            for (i, o) in items.enumerated() {
                guard let node = o["session"], let id = o["id"]?.string else { continue }
                if let s = session(node, "$.outputs[\(i)].session") { own[id] = s }
            }
        }
        for o in outputs {
            if let s = own[o.id] ?? global { k.sessions[o.id] = s }
        }
        // One backlight is one panel: a global one for several outputs would blank them all.
        if let g = global, g.backlight != nil, outputs.filter({ own[$0.id] == nil }).count > 1 {
            error("$.session.backlight", root["session"]?["backlight"], "with several outputs, give each its own backlight in outputs[].session (a global one would turn every display off when one goes idle)")
        }
        k.systemGestures = systemGestures(root["systemGestures"], outputs: outputs)
        return k
    }

    mutating func session(_ node: JSONNode, _ path: String) -> SessionSettings? {
        guard object(node, path, allowed: ConfigReader.sessionKeys) != nil else { return nil }
        var s = SessionSettings()
        if let t = number(node["idle"], path + ".idle", min: 1, max: 86_400) { s.idle = Int64((t * 1_000_000).rounded()) }
        if let w: SessionSettings.Wake = enumValue(node["wake"], path + ".wake", SessionSettings.Wake.self, cases: SessionSettings.Wake.allCases.map(\.rawValue)) {
            s.wake = w
        }
        if let b = string(node["backlight"], path + ".backlight") {
            if !b.hasPrefix("/") { error(path + ".backlight", node["backlight"], "must be an absolute path, a /sys/class/backlight device's directory (ls /sys/class/backlight)") }
            else { s.backlight = b }
        }
        return s
    }

    /// `systemGestures`: each checked against its kind's keys; names unique.
    mutating func systemGestures(_ node: JSONNode?, outputs: [Output]) -> [SystemGestureSettings] {
        guard let node else { return [] }
        guard let items = node.array else {
            error("$.systemGestures", node, "expected an array of system gestures, got \(node.typeName)")
            return []
        }
        var out: [SystemGestureSettings] = []
        var seen: [String: Int] = [:]
        for (i, item) in items.enumerated() {
            let path = "$.systemGestures[\(i)]"
            let kindName = item["kind"]?.string
            let own: [String]
            switch kindName {
            case "tap": own = ["taps", "touches", "within", "region"]
            case "longPress": own = ["touches", "duration"]
            case "edgeSwipe": own = ["edge", "distance"]
            default: own = []
            }
            guard object(item, path, allowed: ["name", "kind", "output", "to"] + own) != nil else { continue }
            let name = string(item["name"], path + ".name")
            if item["name"] == nil { error(path + ".name", item, "missing: the name its messages carry (touchd on-gesture NAME)") }
            if let name, name.isEmpty { error(path + ".name", item["name"], "must not be empty") }
            if let name, let other = seen[name] { error(path + ".name", item["name"], "duplicate system gesture name \"\(name)\" (already used at $.systemGestures[\(other)])") }
            var output: String?
            if let o = string(item["output"], path + ".output") {
                if outputs.contains(where: { $0.id == o }) { output = o }
                else { error(path + ".output", item["output"], "no output has id \"\(o)\" (outputs: \(outputs.map(\.id).joined(separator: ", ")))") }
            }
            let to = item["to"].flatMap { ownersEntry($0, path + ".to", levels: false) }
            let kind = systemGestureKind(item, path, kindName)
            guard let name, !name.isEmpty, seen[name] == nil, let kind, item["output"] == nil || output != nil else { continue }
            seen[name] = i
            out.append(SystemGestureSettings(name: name, kind: kind, output: output, to: to))
        }
        return out
    }

    mutating func systemGestureKind(_ item: JSONNode, _ path: String, _ name: String?) -> SystemGestureSettings.Kind? {
        func micros(_ s: Double) -> Int64 { Int64((s * 1_000_000).rounded()) }
        switch name {
        case "tap":
            let taps = wholeNumber(item["taps"], path + ".taps", min: 1, max: 20) ?? 1
            let touches = wholeNumber(item["touches"], path + ".touches", min: 1, max: 10) ?? 1
            // Half a second a tap unless said: 2.5 s for five taps.
            let within = number(item["within"], path + ".within", min: 0.05, max: 60) ?? 0.5 * Double(taps)
            var region: Rect?
            if let r = frame(item["region"], path + ".region") {
                if r.size.width <= 0 || r.size.height <= 0 { error(path + ".region", item["region"], "width and height must be more than 0") }
                else { region = r }
            }
            if item["region"] != nil && region == nil { return nil }
            return .tap(taps: taps, touches: touches, within: micros(within), region: region)
        case "longPress":
            let touches = wholeNumber(item["touches"], path + ".touches", min: 1, max: 10) ?? 1
            let duration = number(item["duration"], path + ".duration", min: 0.1, max: 60) ?? 0.5
            return .longPress(touches: touches, duration: micros(duration))
        case "edgeSwipe":
            let edge: GestureSettings.Edge? = enumValue(item["edge"], path + ".edge", GestureSettings.Edge.self, cases: GestureSettings.Edge.allCases.map(\.rawValue))
            if item["edge"] == nil { error(path + ".edge", item, "missing: the edge it starts from (left, right, top, bottom)") }
            let distance = number(item["distance"], path + ".distance", min: 1, max: 100_000) ?? 100
            return edge.map { .edgeSwipe(edge: $0, distance: distance) }
        case nil:
            if item["kind"] == nil { error(path + ".kind", item, "missing: tap, longPress or edgeSwipe") }
            else { _ = string(item["kind"], path + ".kind") }
            return nil
        case let other?:
            error(path + ".kind", item["kind"], "unknown system gesture kind \"\(other)\" (expected one of: tap, longPress, edgeSwipe)")
            return nil
        }
    }
}
