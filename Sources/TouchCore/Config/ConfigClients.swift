/// `clients` of the config: the queue and client limits, who may own windows (`owners`), who may
/// act on an output (`outputs[].actors`) and who may hear private speech (`speakers`).
extension ConfigReader {
    /// `clients`: the queue and the number of clients (socket settings), and what each client
    /// may own of the live scene.
    mutating func clients(_ root: JSONNode, socket: inout SocketSettings) -> ClientSettings {
        var settings = ClientSettings()
        guard let c = root["clients"], object(c, "$.clients", allowed: ["queue", "queueBytes", "max", "windows", "views", "levels", "owners", "speakers", "calibrationTimeout"]) != nil else {
            settings.outputActors = outputActors(root)
            return settings
        }
        if let t = number(c["calibrationTimeout"], "$.clients.calibrationTimeout", min: 1, max: 3600) {
            settings.limits.calibrationTimeout = Int64((t * 1_000_000).rounded())
        }
        if let q = wholeNumber(c["queue"], "$.clients.queue", min: 16, max: 1_000_000) { socket.queueLimit = q }
        if let b = wholeNumber(c["queueBytes"], "$.clients.queueBytes", min: 65_536, max: 1_073_741_824) { socket.queueBytes = b }
        if let m = wholeNumber(c["max"], "$.clients.max", min: 1, max: 100_000) { socket.maxClients = m }
        if let w = wholeNumber(c["windows"], "$.clients.windows", min: 0, max: 10_000) { settings.limits.windows = w }
        if let v = wholeNumber(c["views"], "$.clients.views", min: 0, max: 1_000_000) { settings.limits.views = v }
        if let l = levelRange(c["levels"], "$.clients.levels") { settings.limits.levels = l }
        if let o = c["owners"] {
            // One entry as an object, or a list of entries each with its own levels.
            if let list = o.array {
                var entries: [OwnersPolicy.Entry] = []
                for (i, e) in list.enumerated() {
                    if let entry = ownersEntry(e, "$.clients.owners[\(i)]", levels: true) { entries.append(entry) }
                }
                if list.isEmpty { error("$.clients.owners", o, "an empty list lets no client own windows: leave the key out to let every client, or name the owners") }
                settings.owners = OwnersPolicy(entries: entries)
            } else if let entry = ownersEntry(o, "$.clients.owners", levels: false) {
                settings.owners = OwnersPolicy(entries: [entry])
            }
        }
        if let sp = c["speakers"], let entry = ownersEntry(sp, "$.clients.speakers", levels: false) {
            if sp["users"] == nil && sp["groups"] == nil {
                error("$.clients.speakers", sp, "names no user and no group: leave the key out for no speaker, or name the kiosk's user")
            } else {
                settings.speakers = entry
            }
        }
        settings.outputActors = outputActors(root)
        return settings
    }

    /// `outputs[].actors`: who else may act on that output (turn it, calibrate its devices),
    /// besides the clients whose levels reach the top of the policy's ranges.
    mutating func outputActors(_ root: JSONNode) -> [String: OwnersPolicy.Entry] {
        var actors: [String: OwnersPolicy.Entry] = [:]
        guard let items = root["outputs"]?.array else { return actors }
        for (i, o) in items.enumerated() {
            guard let a = o["actors"], let id = o["id"]?.string else { continue }
            if let entry = ownersEntry(a, "$.outputs[\(i)].actors", levels: false) { actors[id] = entry }
        }
        return actors
    }

    /// An owners entry: users, groups (names, or ids as strings) and, in the list form, levels.
    mutating func ownersEntry(_ o: JSONNode, _ path: String, levels: Bool) -> OwnersPolicy.Entry? {
        guard object(o, path, allowed: ["users", "groups"] + (levels ? ["levels"] : [])) != nil else { return nil }
        var entry = OwnersPolicy.Entry()
        for (key, list) in [("users", \OwnersPolicy.Entry.users), ("groups", \OwnersPolicy.Entry.groups)] {
            guard let names = strings(o[key], "\(path).\(key)") else { continue }
            if let i = names.firstIndex(where: \.isEmpty) { error("\(path).\(key)[\(i)]", o[key], "a name must not be empty") }
            entry[keyPath: list] = names
        }
        if levels { entry.levels = levelRange(o["levels"], path + ".levels") }
        return entry
    }

    /// `[lowest, highest]`: the levels a client's windows may take.
    mutating func levelRange(_ node: JSONNode?, _ path: String) -> ClosedRange<Double>? {
        guard let node else { return nil }
        guard let n = numbers(node, path, count: 2, what: "[lowest, highest] levels") else { return nil }
        guard n[0] <= n[1] else {
            error(path, node, "the lowest level (\(fmt(n[0]))) is above the highest (\(fmt(n[1])))")
            return nil
        }
        return n[0]...n[1]
    }
}
