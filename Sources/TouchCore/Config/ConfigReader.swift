/// The config reader's tools: each checks one JSON value, records a problem with its JSON path
/// and line when it is wrong, and returns the value when it is right, so that one pass reports
/// every problem of a file.
struct ConfigReader {
    var errors: [ConfigError] = []
    /// Every id (views, windows, controllers, the chain above the windows) with where it was
    /// declared, to report duplicates.
    var declared: [String: String] = [:]
    // The scene as it is built (ConfigScene.swift, ConfigGestures.swift).
    var views: [ViewNode] = []
    var responders: [Responder] = []
    var controllerOfView: [(controller: String, view: ViewIndex, path: String, line: Int)] = []
    var gestureIDs: [String: String] = [:]
    var gestureRefs: [(ids: [String], path: String, line: Int)] = []
    /// Per recognizer id, the ids it requires to fail and where they are listed.
    var requirements: [String: (requires: [String], path: String, line: Int)] = [:]
    /// The outputs' ids, once read (a window or a device naming another is refused); nil for a
    /// request, whose outputs the engine checks.
    var outputIDs: [String]?
    /// Each view's accessibility `order` as read, checked once its subtree is (ConfigAccessibility.swift).
    var orderRefs: [(view: Int, ids: [String], path: String, line: Int)] = []

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
        guard let a = node.array, case let ns = a.compactMap(\.number), ns.count == a.count, ns.count == count else {
            error(path, node, "expected \(what), got \(describe(node))")
            return nil
        }
        return ns
    }

    /// An array of strings, or nil (with a problem recorded).
    mutating func strings(_ node: JSONNode?, _ path: String) -> [String]? {
        guard let node else { return nil }
        guard let a = node.array, case let ss = a.compactMap(\.string), ss.count == a.count else {
            error(path, node, "expected an array of strings, got \(describe(node))")
            return nil
        }
        return ss
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

    /// Records a new id; false (with a problem recorded) when it is empty or taken.
    mutating func declare(_ id: String, _ path: String, _ node: JSONNode?) -> Bool {
        if id.isEmpty { error(path, node, "id must not be empty"); return false }
        if let other = declared[id] {
            error(path, node, "duplicate id \"\(id)\" (already used at \(other))")
            return false
        }
        declared[id] = path
        return true
    }
}

extension JSONNode.Value {
    var isNull: Bool { if case .null = self { return true }; return false }
}
