/// `gestures` and `scroll` of a view: typed per kind, each value checked (and converted) here.
extension ConfigReader {
    static let gestureNumberKeys = ["taps", "touches", "minimumDuration", "allowableMovement", "minimumTouches",
                                    "maximumTouches", "maximumInterval", "movementTolerance", "minimumDistance",
                                    "maximumDuration"]
    static let gestureKeys = GestureSettings.commonKeys + gestureNumberKeys + ["directions", "edges"]

    /// The kinds a kind-specific key applies to.
    static func kinds(taking key: String) -> [GestureKind] {
        if key == "directions" { return [.swipe] }
        if key == "edges" { return [.screenEdgePan] }
        return GestureKind.allCases.filter { GestureSettings.numberKeys(of: $0).contains(key) }
    }

    mutating func gestures(_ node: JSONNode, _ path: String) -> [GestureSettings] {
        guard let items = node.array else {
            error(path, node, "expected an array, got \(node.typeName)")
            return []
        }
        var out: [GestureSettings] = []
        for (i, item) in items.enumerated() {
            if let g = gesture(item, "\(path)[\(i)]") { out.append(g) }
        }
        return out
    }

    mutating func gesture(_ item: JSONNode, _ p: String) -> GestureSettings? {
        guard object(item, p, allowed: ConfigReader.gestureKeys) != nil else { return nil }
        guard let id = string(item["id"], p + ".id") else {
            if item["id"] == nil { error(p + ".id", item, "missing") }
            return nil
        }
        if let other = gestureIDs[id] { error(p + ".id", item["id"], "duplicate gesture id \"\(id)\" (already used at \(other))"); return nil }
        gestureIDs[id] = p
        guard let kindName = string(item["kind"], p + ".kind") else {
            if item["kind"] == nil { error(p + ".kind", item, "missing") }
            return nil
        }
        guard let kindName = GestureKind(rawValue: kindName) else {
            error(p + ".kind", item["kind"], "unknown kind \"\(kindName)\" (expected one of: \(GestureKind.allCases.map(\.rawValue).joined(separator: ", ")))")
            return nil
        }
        // Keys of other kinds are mistakes, not silently ignored settings.
        for m in item.members ?? [] where !GestureSettings.commonKeys.contains(m.key) && ConfigReader.gestureKeys.contains(m.key) {
            let takers = ConfigReader.kinds(taking: m.key)
            if !takers.contains(kindName) {
                errors.append(ConfigError(path: "\(p).\(m.key)", line: m.line,
                                          message: "\"\(m.key)\" does not apply to a \(kindName.rawValue) recognizer (it applies to: \(takers.map(\.rawValue).joined(separator: ", ")))"))
            }
        }
        var numbers: [String: Double] = [:]
        for key in GestureSettings.numberKeys(of: kindName) {
            // Counts (whole, at least 1; a long press may need 0 taps), seconds and points, each
            // within what a touchscreen can mean.
            let isCount = ["taps", "touches", "minimumTouches", "maximumTouches"].contains(key)
            let low: Double = isCount && !(kindName == .longPress && key == "taps") ? 1 : 0
            let limit: Double = isCount ? 100 : (["minimumDuration", "maximumInterval", "maximumDuration"].contains(key) ? 3600 : 100_000)
            guard let n = number(item[key], "\(p).\(key)", min: low, max: limit) else { continue }
            if isCount && n != n.rounded() { error("\(p).\(key)", item[key], "must be a whole number, got \(fmt(n))"); continue }
            numbers[key] = n
        }
        if let lo = numbers["minimumTouches"], let hi = numbers["maximumTouches"], hi < lo {
            error("\(p).maximumTouches", item["maximumTouches"], "must be at least minimumTouches (\(fmt(lo))), got \(fmt(hi))")
        }
        func count(_ key: String, atLeast floor: Int = 0) -> Int? { numbers[key].map { max(floor, Int($0)) } }
        func micros(_ key: String) -> Int64? { numbers[key].map { Int64($0 * 1_000_000) } }

        let kind: GestureSettings.Kind
        switch kindName {
        case .tap:
            var t = GestureSettings.Tap()
            if let v = count("taps") { t.taps = v }
            if let v = count("touches", atLeast: 1) { t.touches = v }
            if let v = numbers["movementTolerance"] { t.movementTolerance = v }
            if let v = micros("maximumInterval") { t.maximumInterval = v }
            kind = .tap(t)
        case .longPress:
            var l = GestureSettings.LongPress()
            if let v = count("taps") { l.taps = v }
            if let v = count("touches", atLeast: 1) { l.touches = v }
            if let v = micros("minimumDuration") { l.minimumDuration = v }
            if let v = numbers["allowableMovement"] { l.allowableMovement = v }
            kind = .longPress(l)
        case .pan:
            var pan = GestureSettings.Pan()
            if let v = count("minimumTouches", atLeast: 1) { pan.minimumTouches = v }
            if let v = count("maximumTouches", atLeast: 1) { pan.maximumTouches = v }
            kind = .pan(pan)
        case .swipe:
            var s = GestureSettings.Swipe()
            if let v = count("touches", atLeast: 1) { s.touches = v }
            if let v = numbers["minimumDistance"] { s.minimumDistance = v }
            if let v = micros("maximumDuration") { s.maximumDuration = v }
            if let names = strings(item["directions"], p + ".directions") {
                var set = Set<GestureSettings.Direction>()
                for d in names {
                    if let dir = GestureSettings.Direction(rawValue: d) { set.insert(dir) }
                    else { error(p + ".directions", item["directions"], "unknown direction \"\(d)\" (expected left, right, up, down)") }
                }
                s.directions = set
            }
            kind = .swipe(s)
        case .pinch: kind = .pinch
        case .rotation: kind = .rotation
        case .screenEdgePan:
            var e = GestureSettings.ScreenEdgePan()
            if let names = strings(item["edges"], p + ".edges") {
                for n in names {
                    if let edge = GestureSettings.Edge(rawValue: n) { e.edges.insert(edge) }
                    else { error(p + ".edges", item["edges"], "unknown edge \"\(n)\" (expected left, right, top, bottom)") }
                }
                if names.isEmpty { error(p + ".edges", item["edges"], "name at least one edge: left, right, top, bottom") }
            } else if item["edges"] == nil {
                error(p + ".edges", item, "missing: a screen-edge pan needs the edges it starts from (left, right, top, bottom)")
            }
            kind = .screenEdgePan(e)
        }
        var g = GestureSettings(id: id, kind: kind)
        g.cancelsTouchesInView = bool(item["cancelsTouchesInView"], p + ".cancelsTouchesInView") ?? true
        g.delaysTouchesBegan = bool(item["delaysTouchesBegan"], p + ".delaysTouchesBegan") ?? false
        g.delaysTouchesEnded = bool(item["delaysTouchesEnded"], p + ".delaysTouchesEnded") ?? true
        for key in ["requireToFail", "simultaneousWith"] {
            guard let names = strings(item[key], "\(p).\(key)") else { continue }
            gestureRefs.append((names, "\(p).\(key)", item[key]?.line ?? 0))
            if key == "requireToFail" { g.requireToFail = names } else { g.simultaneousWith = names }
        }
        requirements[id] = (g.requireToFail, "\(p).requireToFail", item["requireToFail"]?.line ?? item.line)
        return g
    }

    /// requireToFail must not go round: a recognizer that (through others) waits for itself to
    /// fail would wait for ever, or merge separate gestures into one.
    mutating func requirementCycles() {
        var state: [String: Int] = [:]   // 1: on the path, 2: done
        var path: [String] = []
        var reported = Set<String>()
        func visit(_ id: String) {
            state[id] = 1
            path.append(id)
            for next in requirements[id]?.requires ?? [] where requirements[next] != nil {
                if state[next] == 1, let start = path.lastIndex(of: next) {   // on the path: state 1
                    let cycle = Array(path[start...]) + [next]
                    let key = Set(cycle).sorted().joined(separator: ",")
                    if reported.insert(key).inserted, let r = requirements[next] {
                        let message = cycle.count == 2 ? "\"\(next)\" requires itself to fail"
                            : "requireToFail goes round: \(cycle.map { "\"\($0)\"" }.joined(separator: " → ")); none of them could ever recognize"
                        errors.append(ConfigError(path: r.path, line: r.line, message: message))
                    }
                } else if state[next] == nil {
                    visit(next)
                }
            }
            path.removeLast()
            state[id] = 2
        }
        for id in requirements.keys.sorted() where state[id] == nil { visit(id) }
    }

    mutating func scroll(_ node: JSONNode, _ path: String) -> ScrollSpec? {
        guard let keys = scrollKeys(node, path) else { return nil }
        guard let size = keys.contentSize else {
            if node["contentSize"] == nil { error(path + ".contentSize", node, "missing") }
            return nil
        }
        return keys.applied(to: ScrollSpec(contentSize: size))
    }

    /// A scroll view's keys, each optional: a config's `scroll` (which needs contentSize) and
    /// an update's `set.scroll` (any of them).
    mutating func scrollKeys(_ node: JSONNode, _ path: String) -> ScrollChanges? {
        let keys = ["contentSize", "delaysContentTouches", "canCancelContentTouches", "cancelsControlTouches",
                    "decelerationRate", "bounces", "pagingEnabled", "alwaysBounceHorizontal", "alwaysBounceVertical"]
        guard object(node, path, allowed: keys) != nil else { return nil }
        var s = ScrollChanges()
        if let c = numbers(node["contentSize"], path + ".contentSize", count: 2, what: "[width, height]") { s.contentSize = Size(c[0], c[1]) }
        s.delaysContentTouches = bool(node["delaysContentTouches"], path + ".delaysContentTouches")
        s.canCancelContentTouches = bool(node["canCancelContentTouches"], path + ".canCancelContentTouches")
        s.cancelsControlTouches = bool(node["cancelsControlTouches"], path + ".cancelsControlTouches")
        s.bounces = bool(node["bounces"], path + ".bounces")
        s.pagingEnabled = bool(node["pagingEnabled"], path + ".pagingEnabled")
        s.alwaysBounceHorizontal = bool(node["alwaysBounceHorizontal"], path + ".alwaysBounceHorizontal")
        s.alwaysBounceVertical = bool(node["alwaysBounceVertical"], path + ".alwaysBounceVertical")
        if let r = node["decelerationRate"] {
            switch r.string {
            case "normal"?: s.decelerationRate = ScrollSpec.normalRate
            case "fast"?: s.decelerationRate = ScrollSpec.fastRate
            case nil:
                if let n = number(r, path + ".decelerationRate") {
                    if n > 0.5 && n < 1 { s.decelerationRate = n }
                    else { error(path + ".decelerationRate", r, "must be between 0.5 and 1 (the velocity kept per millisecond; UIKit's are 0.998 and 0.99), got \(fmt(n))") }
                }
            case let other?:
                error(path + ".decelerationRate", r, "unknown value \"\(other)\" (expected \"normal\", \"fast\" or a number)")
            }
        }
        return s
    }
}
