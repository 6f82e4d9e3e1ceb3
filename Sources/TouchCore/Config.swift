/// The JSON configuration (interface.md): parsed and validated into plain values. Every
/// problem is collected, each with its JSON path and line, so `check-config` can list them all.

public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var line: Int
    public var message: String
    public init(path: String, line: Int, message: String) {
        self.path = path; self.line = line; self.message = message
    }
    public var description: String {
        line > 0 ? "\(path): \(message) (line \(line))" : "\(path): \(message)"
    }
}

public struct ConfigErrors: Error, Sendable, CustomStringConvertible {
    public var errors: [ConfigError]
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}

public struct DeviceMatch: Sendable, Equatable {
    public var name: String?
    public var vendor: Int?
    public var product: Int?
    /// udev properties (ID_PATH, ID_SERIAL, …) that must be equal.
    public var properties: [String: String] = [:]
    public init() {}

    public func matches(name deviceName: String, vendor v: Int, product p: Int, properties props: [String: String] = [:]) -> Bool {
        if let n = name, !globMatch(n, deviceName) { return false }
        if let want = vendor, want != v { return false }
        if let want = product, want != p { return false }
        for (k, want) in properties where props[k] != want { return false }
        return true
    }
}

public struct DeviceEntry: Sendable, Equatable {
    public var match: DeviceMatch
    public var settings: DeviceSettings
    /// Where the entry is in the config ("devices[2]"), for logs and `touchd devices`.
    public var label: String
}

public struct SocketSettings: Sendable, Equatable {
    public var path = "/run/touchd/touchd.sock"
    public var mode: UInt32 = 0o660
    public var group: String? = "input"
    public var queueLimit = 4096
    public var maxClients = 256
    public init() {}
}

public struct Config: Sendable {
    public var screen: Size
    public var socket: SocketSettings
    public var devices: [DeviceEntry]
    public var scene: Scene

    /// The first device entry whose `match` fits, or nil.
    public func deviceEntry(name: String, vendor: Int, product: Int, properties: [String: String] = [:]) -> DeviceEntry? {
        devices.first { $0.match.matches(name: name, vendor: vendor, product: product, properties: properties) }
    }

    /// Parses and validates. Throws every problem found (syntax errors stop at the first one).
    public static func parse(_ bytes: [UInt8]) throws(ConfigErrors) -> Config {
        let root: JSONNode
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw ConfigErrors(errors: [ConfigError(path: "line \(error.line) column \(error.column)", line: 0,
                                                    message: "invalid JSON: \(error.message)")])
        }
        var b = ConfigBuilder()
        let config = b.build(root)
        if !b.errors.isEmpty { throw ConfigErrors(errors: b.errors) }
        return config!
    }

    public static func parse(_ text: String) throws(ConfigErrors) -> Config {
        try parse(Array(text.utf8))
    }
}

/// `*` any run of characters, `?` one character, `[abc]` / `[a-z]` one of a set; everything
/// else literal. Like fnmatch(3) without flags.
public func globMatch(_ pattern: String, _ text: String) -> Bool {
    let p = Array(pattern.unicodeScalars), t = Array(text.unicodeScalars)
    var pi = 0, ti = 0, starP = -1, starT = 0
    func matchClass(_ pi: Int, _ c: Unicode.Scalar) -> (Bool, Int)? {
        var i = pi + 1
        var negate = false
        if i < p.count && (p[i] == "!" || p[i] == "^") { negate = true; i += 1 }
        var matched = false
        var first = true
        while i < p.count && (p[i] != "]" || first) {
            first = false
            if i + 2 < p.count && p[i + 1] == "-" && p[i + 2] != "]" {
                if p[i] <= c && c <= p[i + 2] { matched = true }
                i += 3
            } else {
                if p[i] == c { matched = true }
                i += 1
            }
        }
        guard i < p.count else { return nil }  // no closing bracket: treat '[' literally
        return (matched != negate, i + 1)
    }
    while ti < t.count {
        if pi < p.count {
            let c = p[pi]
            if c == "*" { starP = pi; starT = ti; pi += 1; continue }
            if c == "?" { pi += 1; ti += 1; continue }
            if c == "[", let (ok, next) = matchClass(pi, t[ti]) {
                if ok { pi = next; ti += 1; continue }
            } else if c == t[ti] { pi += 1; ti += 1; continue }
        }
        if starP >= 0 { pi = starP + 1; starT += 1; ti = starT; continue }
        return false
    }
    while pi < p.count && p[pi] == "*" { pi += 1 }
    return pi == p.count
}

struct ConfigBuilder {
    var errors: [ConfigError] = []
    var views: [ViewNode] = []
    var responders: [Responder] = []
    /// Every responder id with where it was declared, to report duplicates.
    var declared: [String: String] = [:]
    var controllerOfView: [(controller: String, view: Int, path: String, line: Int)] = []
    var gestureIDs: [String: String] = [:]
    var gestureRefs: [(ids: [String], path: String, line: Int)] = []

    mutating func error(_ path: String, _ node: JSONNode?, _ message: String) {
        errors.append(ConfigError(path: path, line: node?.line ?? 0, message: message))
    }

    /// Checks that `node` is an object with only `allowed` keys and no duplicates.
    mutating func object(_ node: JSONNode, _ path: String, allowed: [String]) -> JSONNode? {
        guard let members = node.members else {
            error(path, node, "expected an object, got \(node.typeName)")
            return nil
        }
        var seen = Set<String>()
        for m in members {
            let p = path + "." + m.key
            if !seen.insert(m.key).inserted {
                errors.append(ConfigError(path: p, line: m.line, message: "duplicate key \"\(m.key)\""))
            }
            if !allowed.contains(m.key) {
                errors.append(ConfigError(path: p, line: m.line,
                                          message: "unknown key \"\(m.key)\" (expected one of: \(allowed.joined(separator: ", ")))"))
            }
        }
        return node
    }

    mutating func number(_ node: JSONNode?, _ path: String, min lo: Double? = nil, max hi: Double? = nil) -> Double? {
        guard let node else { return nil }
        guard let n = node.number else { error(path, node, "expected a number, got \(node.typeName)"); return nil }
        if let lo, n < lo { error(path, node, "must be at least \(fmt(lo)), got \(fmt(n))"); return nil }
        if let hi, n > hi { error(path, node, "must be at most \(fmt(hi)), got \(fmt(n))"); return nil }
        return n
    }

    mutating func bool(_ node: JSONNode?, _ path: String) -> Bool? {
        guard let node else { return nil }
        guard let b = node.bool else { error(path, node, "expected true or false, got \(node.typeName)"); return nil }
        return b
    }

    mutating func string(_ node: JSONNode?, _ path: String) -> String? {
        guard let node else { return nil }
        guard let s = node.string else { error(path, node, "expected a string, got \(node.typeName)"); return nil }
        return s
    }

    mutating func numbers(_ node: JSONNode?, _ path: String, count: Int, what: String) -> [Double]? {
        guard let node else { return nil }
        guard let a = node.array, a.count == count, a.allSatisfy({ $0.number != nil }) else {
            error(path, node, "expected \(what), got \(describe(node))")
            return nil
        }
        return a.map { $0.number! }
    }

    func describe(_ node: JSONNode) -> String {
        if let a = node.array { return "an array of \(a.count) \(a.allSatisfy { $0.number != nil } ? "numbers" : "values")" }
        return node.typeName
    }

    func fmt(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
    }

    mutating func enumValue<E: RawRepresentable>(_ node: JSONNode?, _ path: String, _: E.Type, cases: [String]) -> E? where E.RawValue == String {
        guard let s = string(node, path) else { return nil }
        guard let v = E(rawValue: s) else {
            error(path, node, "unknown value \"\(s)\" (expected one of: \(cases.joined(separator: ", ")))")
            return nil
        }
        return v
    }

    mutating func declare(_ id: String, _ path: String, _ node: JSONNode?) -> Bool {
        if id.isEmpty { error(path, node, "id must not be empty"); return false }
        if let other = declared[id] {
            error(path, node, "duplicate id \"\(id)\" (already used at \(other))")
            return false
        }
        declared[id] = path
        return true
    }

    mutating func build(_ root: JSONNode) -> Config? {
        let rootKeys = ["screen", "socket", "devices", "application", "windows", "responders", "clients"]
        guard object(root, "$", allowed: rootKeys) != nil else { return nil }

        var screen = Size(800, 480)
        if let s = root["screen"], object(s, "$.screen", allowed: ["width", "height"]) != nil {
            let w = number(s["width"], "$.screen.width", min: 1, max: 100_000)
            let h = number(s["height"], "$.screen.height", min: 1, max: 100_000)
            if s["width"] == nil { error("$.screen.width", s, "missing") }
            if s["height"] == nil { error("$.screen.height", s, "missing") }
            screen = Size(w ?? screen.width, h ?? screen.height)
        }

        var socket = SocketSettings()
        if let s = root["socket"], object(s, "$.socket", allowed: ["path", "mode", "group"]) != nil {
            if let p = string(s["path"], "$.socket.path") {
                if p.isEmpty || !p.hasPrefix("/") { error("$.socket.path", s["path"], "must be an absolute path") }
                else if p.utf8.count > 107 { error("$.socket.path", s["path"], "longer than a Unix socket path may be (107 bytes)") }
                else { socket.path = p }
            }
            if let m = s["mode"] {
                if let text = m.string, let v = UInt32(text, radix: 8), v <= 0o777 { socket.mode = v }
                else { error("$.socket.mode", m, "expected an octal string such as \"0660\", got \(m.string.map { "\"\($0)\"" } ?? m.typeName)") }
            }
            if let g = s["group"] {
                if g.value.isNull { socket.group = nil } else if let name = string(g, "$.socket.group") { socket.group = name }
            }
        }
        if let c = root["clients"], object(c, "$.clients", allowed: ["queue", "max"]) != nil {
            if let q = number(c["queue"], "$.clients.queue", min: 16, max: 1_000_000) { socket.queueLimit = Int(q) }
            if let m = number(c["max"], "$.clients.max", min: 1, max: 100_000) { socket.maxClients = Int(m) }
        }

        var devices: [DeviceEntry] = []
        if let d = root["devices"] {
            if let items = d.array {
                for (i, item) in items.enumerated() {
                    if let e = device(item, "$.devices[\(i)]") { devices.append(e) }
                }
            } else {
                error("$.devices", d, "expected an array, got \(d.typeName)")
            }
        }

        // The chain above the windows: scene → application → delegate.
        var windowNext = -1
        if let a = root["application"], object(a, "$.application", allowed: ["id", "delegate", "scene"]) != nil {
            var appIndex = -1
            var chainIDs: [(String, ResponderKind, String)] = []
            if let id = string(a["id"], "$.application.id") { chainIDs.append((id, .application, "$.application.id")) }
            else if a["id"] == nil { error("$.application.id", a, "missing") }
            if let d = string(a["delegate"], "$.application.delegate") { chainIDs.append((d, .delegate, "$.application.delegate")) }
            if let s = string(a["scene"], "$.application.scene") { chainIDs.append((s, .scene, "$.application.scene")) }
            var indices: [ResponderKind: Int] = [:]
            for (id, kind, path) in chainIDs where declare(id, path, a[String(path.split(separator: ".").last!)]) {
                responders.append(Responder(id: id, kind: kind, policy: TouchPolicy(.forward), next: -1, view: -1))
                indices[kind] = responders.count - 1
            }
            appIndex = indices[.application] ?? -1
            if appIndex >= 0, let del = indices[.delegate] { responders[appIndex].next = del }
            if let sc = indices[.scene] {
                responders[sc].next = appIndex >= 0 ? appIndex : (indices[.delegate] ?? -1)
                windowNext = sc
            } else if appIndex >= 0 {
                windowNext = appIndex
            } else {
                windowNext = indices[.delegate] ?? -1
            }
        }

        var windowEntries: [(index: Int, level: Double, order: Int)] = []
        if let ws = root["windows"] {
            if let items = ws.array {
                for (i, item) in items.enumerated() {
                    if let w = window(item, "$.windows[\(i)]", next: windowNext) {
                        windowEntries.append((w, views[w].level, i))
                    }
                }
            } else {
                error("$.windows", ws, "expected an array, got \(ws.typeName)")
            }
        } else {
            error("$.windows", root, "missing: a config needs at least one window")
        }

        // Controllers: created per view that names one; next = the view's superview.
        for (name, v, path, line) in controllerOfView {
            if let other = declared[name] {
                errors.append(ConfigError(path: path, line: line,
                                          message: "duplicate id \"\(name)\" (already used at \(other)); a controller manages one view"))
                continue
            }
            declared[name] = path
            let sup = views[v].superview
            responders.append(Responder(id: name, kind: .controller, policy: TouchPolicy(.forward),
                                        next: sup >= 0 ? views[sup].responder : -1, view: -1))
            let ci = responders.count - 1
            views[v].controller = ci
            responders[views[v].responder].next = ci
        }

        // Policies of non-view responders.
        if let rs = root["responders"] {
            if let members = rs.members {
                var seen = Set<String>()
                for m in members {
                    let path = "$.responders.\(m.key)"
                    if !seen.insert(m.key).inserted {
                        errors.append(ConfigError(path: path, line: m.line, message: "duplicate key \"\(m.key)\""))
                        continue
                    }
                    guard object(m.value, path, allowed: ["touches"]) != nil else { continue }
                    guard let policy = touchPolicy(m.value["touches"], path + ".touches") else { continue }
                    guard let ri = responders.firstIndex(where: { $0.id == m.key }) else {
                        errors.append(ConfigError(path: path, line: m.line,
                                                  message: "no controller, window, scene, application or delegate has id \"\(m.key)\""))
                        continue
                    }
                    if responders[ri].kind == .view {
                        errors.append(ConfigError(path: path, line: m.line,
                                                  message: "\"\(m.key)\" is a view: set \"touches\" in its own entry"))
                        continue
                    }
                    responders[ri].policy = policy
                }
            } else {
                error("$.responders", rs, "expected an object, got \(rs.typeName)")
            }
        }

        for ref in gestureRefs {
            for id in ref.ids where gestureIDs[id] == nil {
                errors.append(ConfigError(path: ref.path, line: ref.line, message: "no gesture recognizer has id \"\(id)\""))
            }
        }

        let order = windowEntries.sorted { a, b in a.level != b.level ? a.level > b.level : a.order > b.order }.map(\.index)
        return Config(screen: screen, socket: socket, devices: devices,
                      scene: Scene(views: views, responders: responders, windowOrder: order))
    }

    mutating func device(_ node: JSONNode, _ path: String) -> DeviceEntry? {
        let keys = ["match", "rotation", "flipX", "flipY", "swapXY", "calibration", "grab", "ignore", "axes"]
        guard object(node, path, allowed: keys) != nil else { return nil }
        var match = DeviceMatch()
        if let m = node["match"], object(m, path + ".match", allowed: ["name", "vendor", "product", "properties"]) != nil {
            match.name = string(m["name"], path + ".match.name")
            match.vendor = idNumber(m["vendor"], path + ".match.vendor")
            match.product = idNumber(m["product"], path + ".match.product")
            if let p = m["properties"], let members = object(p, path + ".match.properties", allowed: p.members?.map(\.key) ?? [])?.members {
                for pm in members {
                    if let v = string(pm.value, path + ".match.properties." + pm.key) { match.properties[pm.key] = v }
                }
            }
        }
        var s = DeviceSettings()
        if let r = node["rotation"] {
            if let n = number(r, path + ".rotation"), let rot = Rotation(rawValue: Int(n)), Double(rot.rawValue) == n { s.rotation = rot }
            else if r.number != nil { error(path + ".rotation", r, "must be 0, 90, 180 or 270") }
        }
        s.flipX = bool(node["flipX"], path + ".flipX") ?? false
        s.flipY = bool(node["flipY"], path + ".flipY") ?? false
        s.swapXY = bool(node["swapXY"], path + ".swapXY") ?? false
        s.grab = bool(node["grab"], path + ".grab") ?? false
        s.ignore = bool(node["ignore"], path + ".ignore") ?? false
        if let c = numbers(node["calibration"], path + ".calibration", count: 6, what: "an array of 6 numbers [a, b, c, d, e, f]") {
            s.calibration = c
        }
        if let a = node["axes"], object(a, path + ".axes", allowed: ["x", "y"]) != nil {
            s.xAxis = axisCode(a["x"], path + ".axes.x")
            s.yAxis = axisCode(a["y"], path + ".axes.y")
        }
        return DeviceEntry(match: match, settings: s, label: String(path.dropFirst(2)))
    }

    static let axisNames: [String: UInt16] = [
        "ABS_X": 0x00, "ABS_Y": 0x01, "ABS_Z": 0x02, "ABS_RX": 0x03, "ABS_RY": 0x04, "ABS_RZ": 0x05,
        "ABS_MT_POSITION_X": 0x35, "ABS_MT_POSITION_Y": 0x36,
    ]

    mutating func axisCode(_ node: JSONNode?, _ path: String) -> UInt16? {
        guard let s = string(node, path) else { return nil }
        guard let c = ConfigBuilder.axisNames[s] else {
            error(path, node, "unknown axis \"\(s)\" (expected one of: \(ConfigBuilder.axisNames.keys.sorted().joined(separator: ", ")))")
            return nil
        }
        return c
    }

    /// A USB id as a number or a hex string ("0x0eef" or "0eef").
    mutating func idNumber(_ node: JSONNode?, _ path: String) -> Int? {
        guard let node else { return nil }
        if let n = node.number, n >= 0, n <= 0xffff, n == n.rounded() { return Int(n) }
        if let s = node.string {
            let hex = s.hasPrefix("0x") || s.hasPrefix("0X") ? String(s.dropFirst(2)) : s
            if let v = Int(hex, radix: 16), v >= 0, v <= 0xffff { return v }
        }
        error(path, node, "expected a number 0…65535 or a hex string such as \"0x0eef\"")
        return nil
    }

    mutating func touchPolicy(_ node: JSONNode?, _ path: String) -> TouchPolicy? {
        guard let node else { return nil }
        let cases = ["forward", "handle", "handleAndForward"]
        if node.string != nil {
            guard let h = enumValue(node, path, Handling.self, cases: cases) else { return nil }
            return TouchPolicy(h)
        }
        guard node.members != nil else {
            error(path, node, "expected \"forward\", \"handle\", \"handleAndForward\" or an object of phases, got \(node.typeName)")
            return nil
        }
        guard object(node, path, allowed: ["began", "moved", "ended", "cancelled"]) != nil else { return nil }
        var p = TouchPolicy(.forward)
        if let n = node["began"] { p.began = enumValue(n, path + ".began", Handling.self, cases: cases) ?? .forward }
        if let n = node["moved"] { p.moved = enumValue(n, path + ".moved", Handling.self, cases: cases) ?? .forward }
        if let n = node["ended"] { p.ended = enumValue(n, path + ".ended", Handling.self, cases: cases) ?? .forward }
        if let n = node["cancelled"] { p.cancelled = enumValue(n, path + ".cancelled", Handling.self, cases: cases) ?? .forward }
        return p
    }

    mutating func frame(_ node: JSONNode?, _ path: String) -> Rect? {
        guard let f = numbers(node, path, count: 4, what: "[x, y, width, height]") else { return nil }
        if f[2] < 0 || f[3] < 0 {
            error(path, node, "width and height must not be negative")
            return nil
        }
        return Rect(f[0], f[1], f[2], f[3])
    }

    mutating func window(_ node: JSONNode, _ path: String, next: Int) -> Int? {
        guard object(node, path, allowed: ["id", "frame", "level", "view", "hidden", "userInteractionEnabled"]) != nil else { return nil }
        guard let id = string(node["id"], path + ".id") else {
            if node["id"] == nil { error(path + ".id", node, "missing") }
            return nil
        }
        guard declare(id, path, node) else { return nil }
        var w = ViewNode(id: id, frame: .init(0, 0, 0, 0))
        w.isWindow = true
        if let f = frame(node["frame"], path + ".frame") { w.frame = f }
        else if node["frame"] == nil { error(path + ".frame", node, "missing") }
        w.level = number(node["level"], path + ".level") ?? 0
        w.hidden = bool(node["hidden"], path + ".hidden") ?? false
        w.userInteractionEnabled = bool(node["userInteractionEnabled"], path + ".userInteractionEnabled") ?? true
        let wi = views.count
        w.window = wi
        views.append(w)
        responders.append(Responder(id: id, kind: .window, policy: TouchPolicy(.forward), next: next, view: wi))
        views[wi].responder = responders.count - 1
        if let root = node["view"] {
            if let r = view(root, path + ".view", superview: wi, window: wi) { views[wi].subviews = [r] }
        }
        return wi
    }

    static let viewKeys = ["id", "frame", "boundsOrigin", "hidden", "userInteractionEnabled", "alpha", "hitOutset",
                           "shape", "hitTest", "controller", "control", "enabled", "touches", "multipleTouch",
                           "exclusiveTouch", "gestures", "scroll", "subviews"]

    mutating func view(_ node: JSONNode, _ path: String, superview: Int, window: Int) -> Int? {
        guard object(node, path, allowed: ConfigBuilder.viewKeys) != nil else { return nil }
        guard let id = string(node["id"], path + ".id") else {
            if node["id"] == nil { error(path + ".id", node, "missing") }
            return nil
        }
        guard declare(id, path, node) else { return nil }
        var v = ViewNode(id: id, frame: .init(0, 0, 0, 0))
        if let f = frame(node["frame"], path + ".frame") { v.frame = f }
        if let b = numbers(node["boundsOrigin"], path + ".boundsOrigin", count: 2, what: "[x, y]") { v.boundsOrigin = Point(b[0], b[1]) }
        v.hidden = bool(node["hidden"], path + ".hidden") ?? false
        v.userInteractionEnabled = bool(node["userInteractionEnabled"], path + ".userInteractionEnabled") ?? true
        v.alpha = number(node["alpha"], path + ".alpha", min: 0, max: 1) ?? 1
        if let o = node["hitOutset"] {
            if let n = o.number { v.hitOutset = Outset(all: n) }
            else if let a = numbers(o, path + ".hitOutset", count: 4, what: "a number or [top, left, bottom, right]") {
                v.hitOutset = Outset(top: a[0], left: a[1], bottom: a[2], right: a[3])
            }
        }
        v.shape = enumValue(node["shape"], path + ".shape", Shape.self, cases: ["rect", "ellipse"]) ?? .rect
        v.hitMode = enumValue(node["hitTest"], path + ".hitTest", HitMode.self, cases: HitMode.allCases.map(\.rawValue)) ?? .default
        v.control = enumValue(node["control"], path + ".control", ControlKind.self, cases: ["button"])
        v.enabled = bool(node["enabled"], path + ".enabled") ?? true
        if node["enabled"] != nil && v.control == nil && node["control"] == nil {
            error(path + ".enabled", node["enabled"], "\"enabled\" applies to controls only (set \"control\")")
        }
        v.multipleTouch = bool(node["multipleTouch"], path + ".multipleTouch") ?? false
        v.exclusiveTouch = bool(node["exclusiveTouch"], path + ".exclusiveTouch") ?? false
        // A control implements all four touch methods itself and does not call super (S8).
        var policy = TouchPolicy(v.control != nil ? .handle : .forward)
        if let t = node["touches"], let p = touchPolicy(t, path + ".touches") { policy = p }
        if let g = node["gestures"] { v.gestures = gestures(g, path + ".gestures") }
        if let s = node["scroll"] { v.scroll = scroll(s, path + ".scroll") }
        v.superview = superview
        v.window = window
        let vi = views.count
        views.append(v)
        responders.append(Responder(id: id, kind: .view, policy: policy,
                                    next: views[superview].responder, view: vi))
        views[vi].responder = responders.count - 1
        if let c = node["controller"], let name = string(c, path + ".controller") {
            if name.isEmpty { error(path + ".controller", c, "id must not be empty") }
            else { controllerOfView.append((name, vi, path + ".controller", c.line)) }
        }
        if let subs = node["subviews"] {
            if let items = subs.array {
                var children: [Int] = []
                for (i, item) in items.enumerated() {
                    if let c = view(item, path + ".subviews[\(i)]", superview: vi, window: window) { children.append(c) }
                }
                views[vi].subviews = children
            } else {
                error(path + ".subviews", subs, "expected an array, got \(subs.typeName)")
            }
        }
        return vi
    }

    static let gestureKinds = ["tap", "longPress", "pan", "swipe", "pinch", "rotation"]
    static let gestureNumberKeys = ["taps", "touches", "minimumDuration", "allowableMovement", "minimumTouches",
                                    "maximumTouches", "maximumInterval", "movementTolerance", "minimumDistance",
                                    "maximumDuration"]
    static let gestureFlagKeys = ["cancelsTouchesInView", "delaysTouchesBegan", "delaysTouchesEnded"]
    static let gestureListKeys = ["directions", "requireToFail", "simultaneousWith"]

    mutating func gestures(_ node: JSONNode, _ path: String) -> [GestureSpec] {
        guard let items = node.array else {
            error(path, node, "expected an array, got \(node.typeName)")
            return []
        }
        var out: [GestureSpec] = []
        let allowed = ["id", "kind"] + ConfigBuilder.gestureNumberKeys + ConfigBuilder.gestureFlagKeys + ConfigBuilder.gestureListKeys
        for (i, item) in items.enumerated() {
            let p = "\(path)[\(i)]"
            guard object(item, p, allowed: allowed) != nil else { continue }
            guard let id = string(item["id"], p + ".id") else {
                if item["id"] == nil { error(p + ".id", item, "missing") }
                continue
            }
            if let other = gestureIDs[id] { error(p + ".id", item["id"], "duplicate gesture id \"\(id)\" (already used at \(other))"); continue }
            gestureIDs[id] = p
            guard let kind = string(item["kind"], p + ".kind") else {
                if item["kind"] == nil { error(p + ".kind", item, "missing") }
                continue
            }
            guard ConfigBuilder.gestureKinds.contains(kind) else {
                error(p + ".kind", item["kind"], "unknown kind \"\(kind)\" (expected one of: \(ConfigBuilder.gestureKinds.joined(separator: ", ")))")
                continue
            }
            var g = GestureSpec(id: id, kind: kind)
            for key in ConfigBuilder.gestureNumberKeys {
                // Counts, seconds and points, each within what a touchscreen can mean.
                let limit: Double = ["taps", "touches", "minimumTouches", "maximumTouches"].contains(key) ? 100
                    : (["minimumDuration", "maximumInterval", "maximumDuration"].contains(key) ? 3600 : 100_000)
                if let n = number(item[key], "\(p).\(key)", min: 0, max: limit) { g.numbers[key] = n }
            }
            for key in ConfigBuilder.gestureFlagKeys {
                if let b = bool(item[key], "\(p).\(key)") { g.flags[key] = b }
            }
            for key in ConfigBuilder.gestureListKeys {
                guard let l = item[key] else { continue }
                guard let a = l.array, a.allSatisfy({ $0.string != nil }) else {
                    error("\(p).\(key)", l, "expected an array of strings, got \(describe(l))")
                    continue
                }
                let names = a.map { $0.string! }
                if key == "directions" {
                    for d in names where !["left", "right", "up", "down"].contains(d) {
                        error("\(p).\(key)", l, "unknown direction \"\(d)\" (expected left, right, up, down)")
                    }
                } else {
                    gestureRefs.append((names, "\(p).\(key)", l.line))
                }
                g.lists[key] = names
            }
            out.append(g)
        }
        return out
    }

    mutating func scroll(_ node: JSONNode, _ path: String) -> ScrollSpec? {
        guard object(node, path, allowed: ["contentSize", "delaysContentTouches", "canCancelContentTouches"]) != nil else { return nil }
        guard let c = numbers(node["contentSize"], path + ".contentSize", count: 2, what: "[width, height]") else {
            if node["contentSize"] == nil { error(path + ".contentSize", node, "missing") }
            return nil
        }
        var s = ScrollSpec(contentSize: Size(c[0], c[1]))
        s.delaysContentTouches = bool(node["delaysContentTouches"], path + ".delaysContentTouches") ?? true
        s.canCancelContentTouches = bool(node["canCancelContentTouches"], path + ".canCancelContentTouches") ?? true
        return s
    }
}

extension JSONNode.Value {
    var isNull: Bool { if case .null = self { return true }; return false }
}
