/// The JSON configuration (docs/config.md): parsed and validated into plain values. Every
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
    public init(match: DeviceMatch, settings: DeviceSettings, label: String) {
        self.match = match; self.settings = settings; self.label = label
    }
}

public struct SocketSettings: Sendable, Equatable {
    public var path = "/run/touchd/touchd.sock"
    public var mode: UInt32 = 0o660
    /// The socket's group: its members may connect. `touchd`, a group of its own (the package
    /// makes it, systemd/touchd.sysusers.conf): not `input`, whose members read every keyboard.
    public var group: String? = "touchd"
    public var queueLimit = 4096
    /// `clients.queueBytes`: the same queue's limit in bytes.
    public var queueBytes = 4 << 20
    public var maxClients = 256
    public init() {}
}

/// Who may own windows (`clients.owners`): a client whose peer credentials (SO_PEERCRED) name
/// one of an entry's users, or one of its groups as its primary or a supplementary group. Names,
/// or decimal ids as strings. Root is not exempt. Each entry may give the levels its clients'
/// windows may take; the first entry that names a client decides for it.
public struct OwnersPolicy: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var users: [String] = []
        public var groups: [String] = []
        /// nil: `clients.levels`.
        public var levels: ClosedRange<Double>?
        public init(users: [String] = [], groups: [String] = [], levels: ClosedRange<Double>? = nil) {
            self.users = users
            self.groups = groups
            self.levels = levels
        }

        func names(uid: UInt32, userName: String?, groups peerGroups: [(gid: UInt32, name: String?)]) -> Bool {
            if users.contains(where: { $0 == String(uid) || $0 == userName }) { return true }
            for g in peerGroups where groups.contains(where: { $0 == String(g.gid) || $0 == g.name }) { return true }
            return false
        }
    }

    public var entries: [Entry]
    public init(entries: [Entry]) { self.entries = entries }
    /// One entry (the object form of `clients.owners`).
    public init(users: [String] = [], groups: [String] = []) { entries = [Entry(users: users, groups: groups)] }

    /// Every user and group named, for messages.
    public var users: [String] { entries.flatMap(\.users) }
    public var groups: [String] { entries.flatMap(\.groups) }

    /// The entry that names this peer: `user` is its uid and its name (when the system knows
    /// it), `groups` its gids with their names. nil: it may not own windows.
    public func entry(uid: UInt32, userName: String?, groups peerGroups: [(gid: UInt32, name: String?)]) -> Entry? {
        entries.first { $0.names(uid: uid, userName: userName, groups: peerGroups) }
    }
}

/// What clients may do with the live scene (`clients` in the config).
public struct ClientSettings: Sendable, Equatable {
    public var limits = ClientLimits()
    /// nil: every client that can connect may attach windows.
    public var owners: OwnersPolicy?
    /// `outputs[].actors` by output id: clients that may act on that output although their
    /// levels do not reach the top of the policy's ranges.
    public var outputActors: [String: OwnersPolicy.Entry] = [:]
    /// `clients.speakers`: who may claim the speaker role (`"speaker": true` in a subscribe) and
    /// so hear private windows' and secure elements' speech; matched as an owners entry. nil:
    /// nobody (private text reaches its window's owner alone).
    public var speakers: OwnersPolicy.Entry?
    public init() {}

    /// The highest level any owner may take: the top of the policy's ranges (each entry's
    /// levels, or `clients.levels`); nil without a policy (every client may act on outputs).
    public var topLevel: Double? {
        guard let owners else { return nil }
        return owners.entries.map { ($0.levels ?? limits.levels).upperBound }.max()
    }

    /// The outputs a client may act on (ClientLimits.actsOn): nil for every output — no policy,
    /// or its entry's levels (`entry`, nil when the policy names it nowhere) reach the top of the
    /// policy's ranges, a fixed rule that holds while the kiosk reconnects — else the outputs
    /// whose `actors` name it (`named`).
    public func outputsActedOn(entry: OwnersPolicy.Entry?, named: Set<String>) -> Set<String>? {
        guard let top = topLevel else { return nil }
        if let entry, (entry.levels ?? limits.levels).upperBound >= top { return nil }
        return named
    }
}

/// TUIO 1.1 output (`tuio` in the config): where to send, and the source name.
public struct TuioSettings: Sendable, Equatable {
    public struct Target: Sendable, Equatable, CustomStringConvertible {
        /// A host name or an address literal (IPv6 without brackets).
        public var host: String
        public var port: UInt16
        /// Only this output's touches go to it, normalised to it (nil: the section's `output`).
        public var output: String?
        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }
    public var targets: [Target] = []
    /// The `source` message's name (NAME@HOST is sent); nil: "touchd".
    public var source = "touchd"
    /// Seconds between full-state bundles (alive and every touch, for receivers that start late).
    public var fullStateInterval = 1.0
    /// Only this output's touches, normalised to it (nil: all, each to its own output), for the
    /// targets that name none.
    public var output: String?
    public init() {}

    /// What target `k` is sent: its own output's touches, else the section's.
    public func output(of k: Int) -> String? { targets[k].output ?? output }
}

/// `realtime` in the config: the daemon's loop at a low real-time priority (docs/config.md,
/// "Real-time priority"); asked for at start, refused gracefully.
public struct RealtimeSettings: Sendable, Equatable {
    public enum Policy: String, Sendable { case fifo, rr }
    /// nil: off (`"realtime": false`, or `"policy": "off"`).
    public var policy: Policy? = .fifo
    /// 1 to 99 (the kernel's range); low by default: below the kernel's interrupt threads (50)
    /// and an audio server's (rtkit allows 20 at most).
    public var priority = 10
    public init() {}
    public static let off: RealtimeSettings = { var r = RealtimeSettings(); r.policy = nil; return r }()
}

extension ConfigReader {
    /// `realtime`: true (the defaults), false (off), or {"policy": "fifo" | "rr" | "off", "priority": 1…99}.
    mutating func realtime(_ root: JSONNode) -> RealtimeSettings {
        var settings = RealtimeSettings()
        guard let r = root["realtime"] else { return settings }
        if let b = r.bool { return b ? settings : .off }
        guard r.members != nil else {
            error("$.realtime", r, "expected true, false or {\"policy\": \"fifo\", \"priority\": 10}, got \(r.typeName)")
            return settings
        }
        guard object(r, "$.realtime", allowed: ["policy", "priority"]) != nil else { return settings }
        if let p = string(r["policy"], "$.realtime.policy") {
            if p == "off" { settings.policy = nil }
            else if let policy = RealtimeSettings.Policy(rawValue: p) { settings.policy = policy }
            else { error("$.realtime.policy", r["policy"], "unknown value \"\(p)\" (expected one of: fifo, rr, off)") }
        }
        if let n = wholeNumber(r["priority"], "$.realtime.priority", min: 1, max: 99) { settings.priority = n }
        return settings
    }
}

public struct Config: Sendable {
    /// The displays (`outputs[]`, or `screen` as one output with id "screen"); never empty.
    public var outputs: [Output]
    /// The first output's point space (what a one-output config calls its screen).
    public var screen: Size { outputs[0].pointSize }
    public var socket: SocketSettings
    public var clients = ClientSettings()
    public var tuio: TuioSettings?
    /// The loop's real-time priority (`realtime`).
    public var realtime = RealtimeSettings()
    public var devices: [DeviceEntry]
    public var scene: Scene
    /// `session` and `systemGestures` (ConfigKiosk.swift): the engine's kiosk stages.
    public var kiosk = KioskSettings()

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
        var b = ConfigReader()
        return try b.read(root)
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
