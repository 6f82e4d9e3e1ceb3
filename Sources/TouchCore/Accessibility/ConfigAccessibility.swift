/// Reading the accessibility keys (docs/config.md "Accessibility"): a view's `accessibility`
/// (config, attach, `set`), `outputs[].screenReader` (or `screen.screenReader`) and `speech`.
/// Every problem is recorded with its JSON path, as for every other key.
extension ConfigReader {
    static let accessibilityKeys = ["label", "value", "hint", "traits", "element", "hidden", "modal", "secure",
                                    "activationPoint", "language", "rate", "order"]

    /// A view's `accessibility` object as a patch (null resets a key to its default). Nil, with
    /// problems recorded, when something in it is wrong.
    mutating func accessibilityPatch(_ node: JSONNode, _ path: String) -> AccessibilityPatch? {
        guard object(node, path, allowed: ConfigReader.accessibilityKeys) != nil else { return nil }
        let before = errors.count
        var p = AccessibilityPatch()
        func isNull(_ n: JSONNode?) -> Bool { n?.value.isNull == true }
        func text(_ key: String) -> String?? {
            guard let n = node[key] else { return nil }
            if isNull(n) { return .some(nil) }
            guard let s = string(n, path + "." + key) else { return nil }
            if s.utf8.count > 1_000 { error(path + "." + key, n, "at most 1000 bytes (it is spoken: say it shorter)"); return nil }
            return .some(s)
        }
        p.label = text("label")
        p.value = text("value")
        p.hint = text("hint")
        if let n = node["traits"] {
            if isNull(n) { p.traits = .some(nil) } else if let names = strings(n, path + ".traits") {
                var traits: [AccessibilityTrait] = []
                for (i, name) in names.enumerated() {
                    guard let t = AccessibilityTrait(rawValue: name) else {
                        error(path + ".traits[\(i)]", n, "unknown trait \"\(name)\" (expected one of: \(AccessibilityTrait.allCases.map(\.rawValue).joined(separator: ", ")))")
                        continue
                    }
                    if traits.contains(t) { error(path + ".traits[\(i)]", n, "\"\(name)\" is listed twice") }
                    traits.append(t)
                }
                p.traits = .some(AccessibilityTraits(traits))
            }
        }
        if let n = node["element"] { p.element = isNull(n) ? .some(nil) : bool(n, path + ".element").map { .some($0) } }
        p.hidden = bool(node["hidden"], path + ".hidden")
        p.modal = bool(node["modal"], path + ".modal")
        p.secure = bool(node["secure"], path + ".secure")
        if let n = node["activationPoint"] {
            if isNull(n) { p.activationPoint = .some(nil) }
            else if let xy = numbers(n, path + ".activationPoint", count: 2, what: "[x, y] in the superview's coordinates") { p.activationPoint = .some(Point(xy[0], xy[1])) }
        }
        if let n = node["language"] {
            if isNull(n) { p.language = .some(nil) } else if let s = string(n, path + ".language") {
                if ConfigReader.isLanguageTag(s) { p.language = .some(s) }
                else { error(path + ".language", n, "expected a language tag such as \"en\" or \"de-AT\" (BCP 47), got \"\(s)\"") }
            }
        }
        if let n = node["rate"] {
            if isNull(n) { p.rate = .some(nil) } else if let r = speechRate(n, path + ".rate") { p.rate = .some(r) }
        }
        if let n = node["order"] {
            if isNull(n) { p.order = .some(nil) } else if let ids = strings(n, path + ".order") {
                var seen = Set<String>()
                for (i, id) in ids.enumerated() where !seen.insert(id).inserted {
                    error(path + ".order[\(i)]", n, "\"\(id)\" is listed twice")
                }
                p.order = .some(ids)
            }
        }
        return errors.count == before ? p : nil
    }

    /// Letters, digits and hyphens, starting with 2 or 3 letters: enough of BCP 47 to refuse a
    /// typo, not a registry check.
    static func isLanguageTag(_ s: String) -> Bool {
        let parts = s.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    /// Each `order` read since the last check names views of its own view's subtree (the views
    /// read so far: a config's windows, an attach's window, an added subtree).
    mutating func checkAccessibilityOrders() {
        var index: [String: Int] = [:]
        for (i, v) in views.enumerated() where !v.id.isEmpty { index[v.id] = i }
        for ref in orderRefs {
            for (k, id) in ref.ids.enumerated() {
                guard let i = index[id], i != ref.view, isUnder(i, ref.view) else {
                    errors.append(ConfigError(path: ref.path + "[\(k)]", line: ref.line,
                                              message: "no view \"\(id)\" under \"\(views[ref.view].id)\" (order lists views of its own subtree)"))
                    continue
                }
            }
        }
        orderRefs.removeAll()
    }

    private func isUnder(_ i: Int, _ ancestor: Int) -> Bool {
        var c: ViewIndex? = ViewIndex(i)
        while let v = c {
            if v.rawValue == ancestor { return true }
            c = views[v.rawValue].superview
        }
        return false
    }

    /// A speech rate: an integer from -100 to 100 (speech-dispatcher's SSIP `SET RATE` scale).
    mutating func speechRate(_ n: JSONNode, _ path: String) -> Int? {
        guard let r = n.number, r == r.rounded(), r >= -100, r <= 100 else {
            error(path, n, "expected an integer from -100 (slowest) to 100 (fastest), 0 the voice's normal rate")
            return nil
        }
        return Int(r)
    }

    /// `outputs[].screenReader` (or `screen.screenReader`): true, false or "headphones" (on
    /// while headphones are plugged into the output), and `speech`.
    mutating func accessibilitySettings(_ root: JSONNode, outputs: [Output]) -> AccessibilitySettings {
        var s = AccessibilitySettings()
        func reader(_ node: JSONNode?, _ path: String, _ id: String) {
            guard let node else { return }
            if let t = node.string {
                if t == "headphones" { s.headphoneOutputs.insert(id) }
                else { error(path, node, "expected true, false or \"headphones\" (on while headphones are plugged in), got \"\(t)\"") }
                return
            }
            if bool(node, path) == true { s.screenReaderOutputs.insert(id) }
        }
        if let list = root["outputs"]?.array {
            for (i, o) in list.enumerated() {
                guard let id = o["id"]?.string, outputs.contains(where: { $0.id == id }) else { continue }
                reader(o["screenReader"], "$.outputs[\(i)].screenReader", id)
            }
        } else if let sc = root["screen"], sc.members != nil {
            reader(sc["screenReader"], "$.screen.screenReader", Output.screenID)
        }
        if let sp = root["speech"], object(sp, "$.speech", allowed: ["language", "rate"]) != nil {
            if let n = sp["rate"] { s.rate = speechRate(n, "$.speech.rate") }
            if let l = string(sp["language"], "$.speech.language") {
                if ConfigReader.isLanguageTag(l) { s.language = l }
                else { error("$.speech.language", sp["language"], "expected a language tag such as \"en\" or \"de-AT\" (BCP 47), got \"\(l)\"") }
            }
        }
        return s
    }
}
