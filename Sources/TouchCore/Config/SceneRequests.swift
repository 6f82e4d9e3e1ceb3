/// The requests of a client that owns windows (docs/protocol.md, "Live scene"): `attach`,
/// `update` with its changes, `detach`. Parsed and checked here, as values; whether they fit the
/// scene (ids taken, the window's owner) is the engine's to decide. Errors carry the JSON path
/// of what was wrong, relative to the request's object (`changes[2].set.frame`).
public enum SceneRequest: Sendable, Equatable {
    case attach(SceneFragment, isPrivate: Bool, references: [GestureReference])
    case update(window: String, changes: [SceneChange])
    case detach(window: String)
    /// `{"output":{"id":ID,"rotation":R}}`: turns an output (Engine+Outputs.swift).
    case output(id: String, rotation: Rotation)
    /// `{"calibrate":{"device":ID,"targets":[[x,y],…]}}`: a calibration from the glass
    /// (Engine+Calibration.swift); nil targets: `touchd calibrate`'s five.
    case calibrate(device: String, targets: [Point]?)
    /// `{"calibrate":{"device":ID,"cancel":true}}`.
    case cancelCalibration(device: String)
    /// `screenReader`, `announce`, `accessibilityChanged` (AccessibilityRequests.swift).
    case accessibility(AccessibilityRequest)
    /// `{"session":{"output":ID,"action":"idle"|"wake"}}`, `{"session":{"output":ID,"keepAwake":B}}`
    /// or `{"session":{"output":ID}}` (Engine+Session.swift).
    case session(output: String, action: SessionRequestAction)

    public var name: String {
        switch self {
        case .attach: return "attach"
        case .update: return "update"
        case .detach: return "detach"
        case .output: return "output"
        case .calibrate, .cancelCalibration: return "calibrate"
        case .accessibility(let r): return r.name
        case .session: return "session"
        }
    }

    /// The window the request is about (nil for an output's).
    public var window: String? {
        switch self {
        case .attach(let f, _, _): return f.views.first?.id ?? ""
        case .update(let w, _), .detach(let w): return w
        case .output, .calibrate, .cancelCalibration, .accessibility, .session: return nil
        }
    }

    public static let names = ["attach", "update", "detach", "output", "calibrate", "session"] + AccessibilityRequest.names

    /// What the request names, for logs: the window, the output or the device.
    public var subject: String {
        switch self {
        case .output(let id, _): return id
        case .calibrate(let d, _), .cancelCalibration(let d): return d
        case .accessibility(let r): return r.output
        case .session(let o, _): return o
        default: return window ?? ""
        }
    }

    /// It acts on an output (turns it, calibrates one of its devices): only for clients whose
    /// levels reach the top of the policy's ranges, or that the output's `actors` names.
    public var actsOnOutput: Bool {
        switch self {
        case .output, .calibrate, .accessibility, .session: return true
        default: return false
        }
    }

    /// Refused outright to a client the owners policy does not name (an update or a detach of
    /// such a client finds no window of its own).
    public var needsOwnership: Bool {
        switch self {
        case .attach, .output, .calibrate, .session: return true
        case .accessibility(let r): return r.needsOwnership
        default: return false
        }
    }

    /// Whether the owners policy must be read for it: an attach (who may own windows, at which
    /// levels), an update that sets its window's level, or an output's rotation (only the
    /// clients that may own windows may turn the display under everyone's), or a calibration
    /// (it takes a device from everyone and changes where its touches land).
    public var needsOwnerEntry: Bool {
        switch self {
        case .attach, .output, .calibrate, .accessibility, .session: return true
        case .update(_, let changes): return changes.contains { if case .window(let p) = $0 { return p.level != nil }; return false }
        case .detach, .cancelCalibration: return false
        }
    }
}

public enum SceneChange: Sendable, Equatable {
    case set(view: String, ViewProperties)
    case window(WindowProperties)
    case add(SceneFragment, to: String, index: Int?, references: [GestureReference])
    case remove(String)
}

/// Gesture ids a new recognizer names (requireToFail, simultaneousWith) and where.
public struct GestureReference: Sendable, Equatable {
    public var ids: [String]
    public var path: String
}

public struct SceneRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Relative to the request's object; "" for the object itself.
    public var path: String
    public var message: String
    public init(path: String, message: String) { self.path = path; self.message = message }
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

extension SceneRequest {
    /// The request named `key` with its value; nil when `key` is not a scene request.
    public static func parse(_ key: String, _ value: JSONNode) -> Result<SceneRequest, SceneRequestError>? {
        var r = ConfigReader()
        let request: SceneRequest?
        switch key {
        case "attach": request = r.attach(value)
        case "update": request = r.update(value)
        case "detach": request = r.detach(value)
        case "output": request = r.output(value)
        case "calibrate": request = r.calibrate(value)
        case "screenReader", "announce", "accessibilityChanged": request = r.accessibilityRequest(key, value).map(SceneRequest.accessibility)
        case "session": request = r.session(value)
        default: return nil
        }
        if let first = r.errors.first { return .failure(SceneRequestError(path: ConfigReader.relative(first.path), message: first.message)) }
        return request.map { .success($0) } ?? .failure(SceneRequestError(path: "", message: "not a \(key) request"))
    }
}

extension SceneRequest {
    /// The window a request names, as far as it can be read (for an error about it).
    public static func windowNamed(in value: JSONNode) -> String? {
        value["id"]?.string ?? value["window"]?.string
    }

    /// A request that does not parse, as the reply its sender gets.
    public static func refusal(_ key: String, _ value: JSONNode, _ e: SceneRequestError) -> SceneReply {
        .refused(request: key, window: windowNamed(in: value), error: e)
    }
}

extension ConfigReader {
    /// "$.changes[2].set.frame" → "changes[2].set.frame"; "$" → "".
    static func relative(_ path: String) -> String {
        if path == "$" { return "" }
        return path.hasPrefix("$.") ? String(path.dropFirst(2)) : path
    }

    /// Everything parsed so far as a fragment (views[0] is the window or the placeholder).
    func fragment() -> SceneFragment {
        var paths = declared.mapValues(ConfigReader.relative)
        for (id, path) in gestureIDs { paths[id] = ConfigReader.relative(path) }
        return SceneFragment(views: views, responders: responders, paths: paths)
    }

    var references: [GestureReference] { gestureRefs.map { GestureReference(ids: $0.ids, path: ConfigReader.relative($0.path)) } }

    mutating func attach(_ node: JSONNode) -> SceneRequest? {
        guard window(node, "$", next: nil, clientKeys: true) != nil else { return nil }
        controllers()
        requirementCycles()
        checkAccessibilityOrders()
        let isPrivate = bool(node["private"], "$.private") ?? false
        return .attach(fragment(), isPrivate: isPrivate, references: references)
    }

    mutating func windowID(_ node: JSONNode?, _ path: String) -> String? {
        guard let node else { error(path, nil, "missing: the window's id"); return nil }
        return string(node, path)
    }

    /// `{"id": ID, "rotation": R}`: which output turns, and to which right angle.
    /// `{"output": ID}` with `"action": "idle"|"wake"`, or `"keepAwake": true|false`, or neither
    /// (the session as it is).
    mutating func session(_ node: JSONNode) -> SceneRequest? {
        guard object(node, "$", allowed: ["output", "action", "keepAwake"]) != nil else { return nil }
        if node["output"] == nil { error("$.output", node, "missing: the output's id") }
        let output = string(node["output"], "$.output")
        if node["action"] != nil && node["keepAwake"] != nil { error("$.keepAwake", node["keepAwake"], "give either action or keepAwake, not both") }
        var action = SessionRequestAction.status
        if let a = node["action"] {
            guard let name = string(a, "$.action") else { return nil }
            switch name {
            case "idle": action = .idle
            case "wake": action = .wake
            default: error("$.action", a, "unknown value \"\(name)\" (expected one of: idle, wake)")
            }
        }
        if let k = node["keepAwake"], let on = bool(k, "$.keepAwake") { action = .keepAwake(on) }
        return output.map { .session(output: $0, action: action) }
    }

    mutating func output(_ node: JSONNode) -> SceneRequest? {
        guard object(node, "$", allowed: ["id", "rotation"]) != nil else { return nil }
        let id = string(node["id"], "$.id")
        if node["id"] == nil { error("$.id", node, "missing: the output's id") }
        if node["rotation"] == nil { error("$.rotation", node, "missing: 0, 90, 180 or 270") }
        guard let r = rotation(node["rotation"], "$.rotation"), let id else { return nil }
        return .output(id: id, rotation: r)
    }

    /// `{"device": ID, "targets": [[x, y], …]}` or `{"device": ID, "cancel": true}`. Whether the
    /// targets are on the device's output is the engine's to check.
    mutating func calibrate(_ node: JSONNode) -> SceneRequest? {
        guard object(node, "$", allowed: ["device", "targets", "cancel"]) != nil else { return nil }
        if node["device"] == nil { error("$.device", node, "missing: the id of the device to calibrate (as device messages name it, e.g. \"event5\")") }
        let device = string(node["device"], "$.device")
        if let c = node["cancel"] {
            guard let b = bool(c, "$.cancel") else { return nil }
            if !b { error("$.cancel", c, "must be true (leave it out to start a calibration)") }
            if node["targets"] != nil { error("$.targets", node["targets"], "a cancel takes no targets") }
            return device.map { .cancelCalibration(device: $0) }
        }
        var targets: [Point]?
        if let t = node["targets"] {
            guard let items = t.array else { error("$.targets", t, "expected an array of [x, y] points, got \(t.typeName)"); return nil }
            if items.count < 3 || items.count > 16 {
                error("$.targets", t, "\(items.count) target(s): give 3 to 16 (5 are better; leave targets out for the default five)")
                return nil
            }
            var points: [Point] = []
            for (i, item) in items.enumerated() {
                let path = "$.targets[\(i)]"
                guard let xy = item.array, xy.count == 2 else { error(path, item, "expected [x, y] in the output's points"); return nil }
                guard let x = number(xy[0], path + "[0]"), let y = number(xy[1], path + "[1]") else { return nil }
                points.append(Point(x, y))
            }
            targets = points
        }
        return device.map { .calibrate(device: $0, targets: targets) }
    }

    mutating func detach(_ node: JSONNode) -> SceneRequest? {
        guard object(node, "$", allowed: ["window"]) != nil, let w = windowID(node["window"], "$.window") else { return nil }
        return .detach(window: w)
    }

    mutating func update(_ node: JSONNode) -> SceneRequest? {
        guard object(node, "$", allowed: ["window", "changes"]) != nil, let w = windowID(node["window"], "$.window") else { return nil }
        guard let items = node["changes"]?.array else {
            error("$.changes", node["changes"], node["changes"] == nil ? "missing: a list of changes" : "expected an array of changes")
            return nil
        }
        var changes: [SceneChange] = []
        for (i, item) in items.enumerated() {
            guard let c = change(item, "$.changes[\(i)]") else { return nil }
            changes.append(c)
        }
        return .update(window: w, changes: changes)
    }

    static let settableViewKeys = ["frame", "boundsOrigin", "hidden", "userInteractionEnabled", "alpha", "hitOutset", "shape",
                                   "hitTest", "enabled", "touches", "multipleTouch", "exclusiveTouch", "scroll", "accessibility"]

    mutating func change(_ node: JSONNode, _ path: String) -> SceneChange? {
        guard let members = node.members else { error(path, node, "expected an object: set, window, add or remove"); return nil }
        let keys = Set(members.map(\.key))
        if keys.contains("set") {
            guard object(node, path, allowed: ["view", "set"]) != nil, let v = string(node["view"], path + ".view") else {
                if node["view"] == nil { error(path + ".view", node, "missing: the id of the view to set") }
                return nil
            }
            guard let s = node["set"], let setMembers = s.members else { error(path + ".set", node["set"], "expected an object of view keys"); return nil }
            if setMembers.contains(where: { $0.key == "id" }) { error(path + ".set.id", s, "a view's id never changes"); return nil }
            guard object(s, path + ".set", allowed: ConfigReader.settableViewKeys) != nil else { return nil }
            var p = viewProperties(s, path + ".set")
            if let sc = s["scroll"] { p.scroll = scrollKeys(sc, path + ".set.scroll") }
            return errors.isEmpty ? .set(view: v, p) : nil
        }
        if keys.contains("window") {
            guard object(node, path, allowed: ["window"]) != nil, let w = node["window"],
                  object(w, path + ".window", allowed: ["frame", "level", "hidden"]) != nil else { return nil }
            var p = WindowProperties()
            p.frame = frame(w["frame"], path + ".window.frame")
            p.level = number(w["level"], path + ".window.level")
            p.hidden = bool(w["hidden"], path + ".window.hidden")
            return errors.isEmpty ? .window(p) : nil
        }
        if keys.contains("add") {
            guard object(node, path, allowed: ["add", "to", "index"]) != nil, let to = string(node["to"], path + ".to") else {
                if node["to"] == nil { error(path + ".to", node, "missing: the id of the parent view") }
                return nil
            }
            var index: Int?
            if let n = number(node["index"], path + ".index", min: 0, max: 100_000) {
                guard n == n.rounded() else { error(path + ".index", node["index"], "must be a whole number"); return nil }
                index = Int(n)
            }
            // The subtree is read under a placeholder window (local view 0).
            var sub = ConfigReader()
            sub.views = [ViewNode(id: "", frame: Rect(0, 0, 0, 0))]
            sub.views[0].isWindow = true
            sub.responders = [Responder(id: "", kind: .window, policy: TouchPolicy(.forward), next: nil, view: ViewIndex(0))]
            guard let a = node["add"] else { return nil }
            if let root = sub.view(a, path + ".add", superview: ViewIndex(0), window: ViewIndex(0)) { sub.views[0].subviews = [root] }
            sub.controllers()
            sub.requirementCycles()
            sub.checkAccessibilityOrders()
            errors += sub.errors
            return errors.isEmpty ? .add(sub.fragment(), to: to, index: index, references: sub.references) : nil
        }
        if keys.contains("remove") {
            guard object(node, path, allowed: ["remove"]) != nil, let v = string(node["remove"], path + ".remove") else { return nil }
            return .remove(v)
        }
        error(path, node, "expected one of: set (with view), window, add (with to), remove")
        return nil
    }
}

/// What a `session` request asks of an output's session.
public enum SessionRequestAction: Sendable, Equatable {
    case idle, wake
    /// Kept awake by this client (video playing) while on, until it leaves.
    case keepAwake(Bool)
    /// Nothing: the reply says how it is.
    case status
}
