/// The scene part of the config: the chain above the windows (`application`), `windows` with
/// their view trees, view controllers, and `responders` policies.
extension ConfigReader {
    /// Reads the whole config: a config only when no problem was found, otherwise every problem
    /// (a root that is not an object is one).
    mutating func read(_ root: JSONNode) throws(ConfigErrors) -> Config {
        let rootKeys = ["screen", "outputs", "socket", "devices", "application", "windows", "responders", "clients", "tuio", "speech", "realtime",
                        "session", "systemGestures"]
        guard object(root, "$", allowed: rootKeys) != nil else { throw ConfigErrors(errors: errors) }
        let outputs = outputs(root)
        outputIDs = outputs.map(\.id)
        var socket = socket(root)
        let clients = clients(root, socket: &socket)
        let tuio = tuio(root, outputs: outputs)
        let realtime = realtime(root)
        let devices = devices(root, outputs: outputs)
        let kiosk = kiosk(root, outputs: outputs)
        let windowNext = application(root)

        var windowEntries: [(index: ViewIndex, level: Double, order: Int)] = []
        if let ws = root["windows"] {
            if let items = ws.array {
                for (i, item) in items.enumerated() {
                    if let w = window(item, "$.windows[\(i)]", next: windowNext) {
                        windowEntries.append((w, views[w.rawValue].level, i))
                    }
                }
            } else {
                error("$.windows", ws, "expected an array, got \(ws.typeName)")
            }
        } else {
            error("$.windows", root, "missing: a config needs a list of windows (empty when every window comes from a client)")
        }
        controllers()
        responderPolicies(root)
        for ref in gestureRefs {
            for id in ref.ids where gestureIDs[id] == nil {
                errors.append(ConfigError(path: ref.path, line: ref.line, message: "no gesture recognizer has id \"\(id)\""))
            }
        }
        requirementCycles()
        checkAccessibilityOrders()
        let accessibility = accessibilitySettings(root, outputs: outputs)
        for w in windowEntries { views[w.index.rawValue].arrival = w.order }
        let accommodations = outputAccommodations(root)
        if !errors.isEmpty { throw ConfigErrors(errors: errors) }
        var scene = Scene(views: views, responders: responders, outputs: outputs, windowNext: windowNext)
        scene.outputAccommodations = accommodations
        scene.accessibility = accessibility
        var config = Config(outputs: outputs, socket: socket, clients: clients, tuio: tuio, realtime: realtime, devices: devices, scene: scene)
        config.kiosk = kiosk
        return config
    }

    /// The chain above the windows: scene → application → delegate. Returns what a window's
    /// next responder is.
    mutating func application(_ root: JSONNode) -> ResponderIndex? {
        guard let a = root["application"], object(a, "$.application", allowed: ["id", "delegate", "scene"]) != nil else { return nil }
        var chainIDs: [(String, ResponderKind, String, String)] = []
        if let id = string(a["id"], "$.application.id") { chainIDs.append((id, .application, "$.application.id", "id")) }
        else if a["id"] == nil { error("$.application.id", a, "missing") }
        if let d = string(a["delegate"], "$.application.delegate") { chainIDs.append((d, .delegate, "$.application.delegate", "delegate")) }
        if let s = string(a["scene"], "$.application.scene") { chainIDs.append((s, .scene, "$.application.scene", "scene")) }
        var indices: [ResponderKind: ResponderIndex] = [:]
        for (id, kind, path, key) in chainIDs where declare(id, path, a[key]) {
            responders.append(Responder(id: id, kind: kind, policy: TouchPolicy(.forward), next: nil, view: nil))
            indices[kind] = ResponderIndex(responders.count - 1)
        }
        let app = indices[.application]
        if let app, let del = indices[.delegate] { responders[app.rawValue].next = del }
        if let sc = indices[.scene] {
            responders[sc.rawValue].next = app ?? indices[.delegate]
            return sc
        }
        return app ?? indices[.delegate]
    }

    mutating func window(_ node: JSONNode, _ path: String, next: ResponderIndex?, clientKeys: Bool = false) -> ViewIndex? {
        let keys = ["id", "frame", "level", "output", "view", "hidden", "userInteractionEnabled"] + (clientKeys ? ["private"] : [])
        guard object(node, path, allowed: keys) != nil else { return nil }
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
        if let o = string(node["output"], path + ".output") {
            if let ids = outputIDs, !ids.contains(o) {
                error(path + ".output", node["output"], "no output has id \"\(o)\" (outputs: \(ids.joined(separator: ", ")))")
            }
            w.outputID = o
        }
        w.hidden = bool(node["hidden"], path + ".hidden") ?? false
        w.userInteractionEnabled = bool(node["userInteractionEnabled"], path + ".userInteractionEnabled") ?? true
        let wi = ViewIndex(views.count)
        w.window = wi
        w.responder = ResponderIndex(responders.count)
        views.append(w)
        responders.append(Responder(id: id, kind: .window, policy: TouchPolicy(.forward), next: next, view: wi))
        if let root = node["view"] {
            if let r = view(root, path + ".view", superview: wi, window: wi) { views[wi.rawValue].subviews = [r] }
        }
        return wi
    }

    static let viewKeys = ["id", "frame", "boundsOrigin", "hidden", "userInteractionEnabled", "alpha", "hitOutset",
                           "shape", "hitTest", "controller", "control", "enabled", "touches", "multipleTouch",
                           "exclusiveTouch", "gestures", "scroll", "subviews", "accessibility"]

    mutating func view(_ node: JSONNode, _ path: String, superview: ViewIndex, window: ViewIndex) -> ViewIndex? {
        guard object(node, path, allowed: ConfigReader.viewKeys) != nil else { return nil }
        guard let id = string(node["id"], path + ".id") else {
            if node["id"] == nil { error(path + ".id", node, "missing") }
            return nil
        }
        // A taken id is reported, and the view read on all the same: its subtree's problems (a
        // dangling requireToFail) are reported too. The config is refused either way.
        _ = declare(id, path, node)
        var v = ViewNode(id: id, frame: .init(0, 0, 0, 0))
        v.control = enumValue(node["control"], path + ".control", ControlKind.self, cases: ["button"])
        if node["enabled"] != nil && v.control == nil && node["control"] == nil {
            error(path + ".enabled", node["enabled"], "\"enabled\" applies to controls only (set \"control\")")
        }
        let p = viewProperties(node, path)
        // A control implements all four touch methods itself and does not call super (S8).
        let policy = p.touches ?? TouchPolicy(v.control != nil ? .handle : .forward)
        v.frame = p.frame ?? v.frame
        v.boundsOrigin = p.boundsOrigin ?? v.boundsOrigin
        v.hidden = p.hidden ?? false
        v.userInteractionEnabled = p.userInteractionEnabled ?? true
        v.alpha = p.alpha ?? 1
        v.hitOutset = p.hitOutset ?? .zero
        v.shape = p.shape ?? .rect
        v.hitMode = p.hitMode ?? .default
        v.enabled = p.enabled ?? true
        v.multipleTouch = p.multipleTouch ?? false
        v.exclusiveTouch = p.exclusiveTouch ?? false
        if let a = p.accessibility { v.accessibility = a.applied(to: nil) }
        if let g = node["gestures"] { v.gestures = gestures(g, path + ".gestures") }
        if let s = node["scroll"] { v.scroll = scroll(s, path + ".scroll") }
        v.superview = superview
        v.window = window
        let vi = ViewIndex(views.count)
        v.responder = ResponderIndex(responders.count)
        views.append(v)
        responders.append(Responder(id: id, kind: .view, policy: policy, next: views[superview.rawValue].responder, view: vi))
        if let ids = p.accessibility?.order ?? nil, let n = node["accessibility"]?["order"] {
            orderRefs.append((view: vi.rawValue, ids: ids, path: path + ".accessibility.order", line: n.line))
        }
        if let c = node["controller"], let name = string(c, path + ".controller") {
            if name.isEmpty { error(path + ".controller", c, "id must not be empty") }
            else { controllerOfView.append((name, vi, path + ".controller", c.line)) }
        }
        if let subs = node["subviews"] {
            if let items = subs.array {
                var children: [ViewIndex] = []
                for (i, item) in items.enumerated() {
                    if let c = view(item, path + ".subviews[\(i)]", superview: vi, window: window) { children.append(c) }
                }
                views[vi.rawValue].subviews = children
            } else {
                error(path + ".subviews", subs, "expected an array, got \(subs.typeName)")
            }
        }
        return vi
    }

    /// The view keys a client may also set later (`set` changes), each checked.
    mutating func viewProperties(_ node: JSONNode, _ path: String) -> ViewProperties {
        var p = ViewProperties()
        p.frame = frame(node["frame"], path + ".frame")
        if let b = numbers(node["boundsOrigin"], path + ".boundsOrigin", count: 2, what: "[x, y]") { p.boundsOrigin = Point(b[0], b[1]) }
        p.hidden = bool(node["hidden"], path + ".hidden")
        p.userInteractionEnabled = bool(node["userInteractionEnabled"], path + ".userInteractionEnabled")
        p.alpha = number(node["alpha"], path + ".alpha", min: 0, max: 1)
        if let o = node["hitOutset"] {
            if let n = o.number { p.hitOutset = Outset(all: n) }
            else if let a = numbers(o, path + ".hitOutset", count: 4, what: "a number or [top, left, bottom, right]") {
                p.hitOutset = Outset(top: a[0], left: a[1], bottom: a[2], right: a[3])
            }
        }
        p.shape = enumValue(node["shape"], path + ".shape", Shape.self, cases: ["rect", "ellipse"])
        p.hitMode = enumValue(node["hitTest"], path + ".hitTest", HitMode.self, cases: HitMode.allCases.map(\.rawValue))
        p.enabled = bool(node["enabled"], path + ".enabled")
        p.multipleTouch = bool(node["multipleTouch"], path + ".multipleTouch")
        p.exclusiveTouch = bool(node["exclusiveTouch"], path + ".exclusiveTouch")
        if let t = node["touches"] { p.touches = touchPolicy(t, path + ".touches") }
        if let a = node["accessibility"] { p.accessibility = accessibilityPatch(a, path + ".accessibility") }
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

    /// Controllers: one per view that names one; its next is the view's superview.
    mutating func controllers() {
        for (name, v, path, line) in controllerOfView {
            if let other = declared[name] {
                errors.append(ConfigError(path: path, line: line,
                                          message: "duplicate id \"\(name)\" (already used at \(other)); a controller manages one view"))
                continue
            }
            declared[name] = path
            let sup = views[v.rawValue].superview
            responders.append(Responder(id: name, kind: .controller, policy: TouchPolicy(.forward),
                                        next: sup.map { views[$0.rawValue].responder }, view: nil))
            let ci = ResponderIndex(responders.count - 1)
            views[v.rawValue].controller = ci
            responders[views[v.rawValue].responder.rawValue].next = ci
        }
    }

    /// Policies of non-view responders.
    mutating func responderPolicies(_ root: JSONNode) {
        guard let rs = root["responders"] else { return }
        guard let members = rs.members else {
            error("$.responders", rs, "expected an object, got \(rs.typeName)")
            return
        }
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
                errors.append(ConfigError(path: path, line: m.line, message: "\"\(m.key)\" is a view: set \"touches\" in its own entry"))
                continue
            }
            responders[ri].policy = policy
        }
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
}
