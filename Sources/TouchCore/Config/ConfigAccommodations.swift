/// `accommodations` of an output (`outputs[].accommodations`) or a device
/// (`devices[].accommodations`): iOS's Touch Accommodations (Accommodations.swift,
/// docs/config.md "Touch accommodations"). Times in seconds, each 0.05 to 4.
extension ConfigReader {
    mutating func accommodations(_ node: JSONNode, _ path: String) -> AccommodationSettings? {
        let keys = ["holdDuration", "ignoreRepeat", "tapAssistance", "tapAssistanceDelay"]
        guard object(node, path, allowed: keys) != nil else { return nil }
        let range = AccommodationSettings.secondsRange
        func micros(_ key: String) -> Int64? {
            number(node[key], path + "." + key, min: range.lowerBound, max: range.upperBound).map { Int64(($0 * 1_000_000).rounded()) }
        }
        var a = AccommodationSettings()
        a.holdDuration = micros("holdDuration")
        a.ignoreRepeat = micros("ignoreRepeat")
        if let t = string(node["tapAssistance"], path + ".tapAssistance") {
            if let mode = AccommodationSettings.TapAssistance(rawValue: t) {
                a.tapAssistance = mode
            } else {
                error(path + ".tapAssistance", node["tapAssistance"], "expected \"initial\" (a tap where the finger came down) or \"final\" (where it lifted), got \"\(t)\"")
            }
        }
        if let d = micros("tapAssistanceDelay") {
            a.tapAssistanceDelay = d
            if node["tapAssistance"] == nil { error(path + ".tapAssistanceDelay", node["tapAssistanceDelay"], "has no effect without \"tapAssistance\"") }
        }
        return a
    }

    /// `outputs[].accommodations` by output id.
    mutating func outputAccommodations(_ root: JSONNode) -> [String: AccommodationSettings] {
        var out: [String: AccommodationSettings] = [:]
        guard let items = root["outputs"]?.array else { return out }
        for (i, o) in items.enumerated() {
            guard let a = o["accommodations"], let id = o["id"]?.string else { continue }
            if let settings = accommodations(a, "$.outputs[\(i)].accommodations") { out[id] = settings }
        }
        return out
    }
}
