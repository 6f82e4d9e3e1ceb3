import TouchCore
import TouchSystem

/// The small readings BoardReader is made of: directory listings, symlinks, one-line sysfs
/// files, and the formats it parses (udev's database, capability bitmasks, /etc/group, a
/// systemd unit) — those pure, tested with plain strings.
enum BoardFiles {
    /// A directory's entries (no "." or ".."), in the tree; empty when it cannot be read.
    static func list(_ tree: FileSystem.Tree, _ dir: String) -> [String] { listOrDenied(tree, dir) ?? [] }

    /// A directory's entries; nil when reading it is not permitted (another user's /proc/PID/fd),
    /// empty when it is gone or not a directory.
    static func listOrDenied(_ tree: FileSystem.Tree, _ dir: String) -> [String]? {
        do { return try tree.entries(dir) } catch { return error.errno == .permissionDenied || error.errno == .notPermitted ? nil : [] }
    }

    /// Each entry of a directory with the text of its symlink (a /proc/PID/fd entry: "5" →
    /// "/dev/input/event3"; read, never followed); nil when reading it is not permitted, empty
    /// when it is gone or not a directory.
    static func linksOrDenied(_ tree: FileSystem.Tree, _ dir: String) -> [(name: String, target: String?)]? {
        do { return try tree.links(in: dir) } catch { return error.errno == .permissionDenied || error.errno == .notPermitted ? nil : [] }
    }

    /// A small regular file's text in the tree without its trailing newline; nil when it cannot
    /// be read (missing, not a regular file — a FIFO is never opened —, over 1 MiB).
    static func text(_ tree: FileSystem.Tree, _ p: String) -> String? {
        let bytes: [UInt8]
        do { bytes = try tree.read(p, limit: 1 << 20) } catch { return nil }
        var s = String(decoding: bytes, as: UTF8.self)
        while s.hasSuffix("\n") { s.removeLast() }
        return s
    }

    /// "event12" → 12, for sysfs order (event2 before event10).
    static func number(_ name: String) -> Int { Int(name.drop { !$0.isNumber }) ?? 0 }

    /// udev's database entry (/run/udev/data/c13:67): its "E:KEY=VALUE" lines.
    static func udevProperties(_ text: String) -> [String: String] {
        var out: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("E:") {
            let kv = line.dropFirst(2)
            guard let eq = kv.firstIndex(of: "=") else { continue }
            out[String(kv[..<eq])] = String(kv[kv.index(after: eq)...])
        }
        return out
    }

    /// Is bit `n` set in a sysfs capability bitmask ("1 0 3000003": words of an unsigned long,
    /// in hex, the most significant first)?
    static func bit(_ n: Int, in mask: String, wordBits: Int = Int.bitWidth) -> Bool {
        let words = mask.split(separator: " ").reversed().map { UInt64($0, radix: 16) ?? 0 }
        let w = n / wordBits
        return w < words.count && words[w] & (1 << UInt64(n % wordBits)) != 0
    }

    /// The capabilities' verdict where udevd does not run (as DeviceInfo.isTouchscreen):
    /// multitouch positions with INPUT_PROP_DIRECT, or ABS_X/ABS_Y with BTN_TOUCH.
    static func touchCapabilities(properties: String, abs: String, key: String, wordBits: Int = Int.bitWidth) -> Bool {
        if bit(Int(ABS.MT_POSITION_X), in: abs, wordBits: wordBits) && bit(Int(ABS.MT_POSITION_Y), in: abs, wordBits: wordBits) {
            return bit(Int(InputProp.direct), in: properties, wordBits: wordBits)
        }
        return bit(Int(ABS.X), in: abs, wordBits: wordBits) && bit(Int(ABS.Y), in: abs, wordBits: wordBits)
            && bit(Int(BTN.TOUCH), in: key, wordBits: wordBits)
    }

    /// /etc/passwd or /etc/group: the fields of each line that is not a comment.
    static func colonFile(_ text: String) -> [[String]] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init) }
    }

    /// The groups a systemd unit gives its service's process (Group=, SupplementaryGroups=);
    /// nil when the process runs as root (no User= and no DynamicUser=yes, or User=root).
    static func unitGroups(_ unit: String) -> [String]? {
        var user: String?, dynamic = false
        var groups: [String] = []
        for raw in unit.split(separator: "\n") {
            let line = raw.drop { $0 == " " }
            guard !line.hasPrefix("#"), let eq = line.firstIndex(of: "=") else { continue }
            let key = line[..<eq].trimmingTrailingSpaces, value = String(line[line.index(after: eq)...])
            switch key {
            case "User": user = value.trimmingCharacters()
            case "DynamicUser": dynamic = ["yes", "true", "1", "on"].contains(value.trimmingCharacters())
            case "Group", "SupplementaryGroups": groups += value.split(separator: " ").map(String.init)
            default: break
            }
        }
        if !dynamic && (user == nil || user == "root" || user == "0") { return nil }
        return groups
    }

    /// Whether a unit's process may write /sys: no ProtectKernelTunables=yes, or a
    /// ReadWritePaths= naming /sys or /sys/devices (a backlight's attributes are there, behind
    /// /sys/class/backlight's links).
    static func unitWritesSys(_ unit: String) -> Bool {
        var protected = false, opened = false
        for raw in unit.split(separator: "\n") {
            let line = raw.drop { $0 == " " }
            guard !line.hasPrefix("#"), let eq = line.firstIndex(of: "=") else { continue }
            let key = line[..<eq].trimmingTrailingSpaces, value = String(line[line.index(after: eq)...])
            switch key {
            case "ProtectKernelTunables": protected = ["yes", "true", "1", "on"].contains(value.trimmingCharacters())
            case "ReadWritePaths":
                let paths = value.split(separator: " ").map { $0.hasPrefix("-") ? String($0.dropFirst()) : String($0) }
                if paths.contains(where: { ["/sys", "/sys/", "/sys/devices", "/sys/devices/"].contains($0) }) { opened = true }
            default: break
            }
        }
        return !protected || opened
    }

    /// The members of a group (Accounts.groupMembers: the system's own lookup).
    static func groupMembers(_ name: String) -> [String]? { Accounts.groupMembers(name) }
}

extension Substring {
    var trimmingTrailingSpaces: String {
        var s = self
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}

/// Asks the daemon for its `stats` on its socket, waiting at most a second and a half.
enum DaemonProbe {
    static func ask(_ path: String, exists: Bool) -> Board.Daemon {
        guard exists else { return .noSocket }
        let fd: FileDescriptor
        do { fd = try UnixSocket.connect(path, nonBlocking: true) } catch {   // a stalled daemon must not stall the doctor
            switch error.errno {
            case .wouldBlock: return .noAnswer("its queue of connections is full: it accepts no connection (stalled?)")
            case .noSuchFile: return .noSocket
            case .connectionRefused: return .refused
            case .permissionDenied, .notPermitted: return .denied
            default: return .noAnswer("could not connect: \(error.errno)")
            }
        }
        do { _ = try fd.writeAll(Array("{\"stats\":true}\n".utf8), timeoutMS: 1000) } catch {
            return .noAnswer("the stats request could not be sent: \(error.errno)")
        }
        let deadline = Clock.monotonicMicros() + 1_500_000
        var pending: [UInt8] = []
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 1)
        defer { chunk.deallocate() }
        while pending.count < 8 << 20 {
            let left = deadline - Clock.monotonicMicros()
            guard left > 0 else { return .noAnswer("did not answer {\"stats\":true} within 1.5 s") }
            guard fd.waitReadable(timeoutMS: Int32(left / 1000) + 1) else { continue }
            let r: IOResult
            do { r = try fd.read(into: chunk) } catch { return .noAnswer("reading the answer failed: \(error.errno)") }
            if r == .wouldBlock { continue }
            guard case .done(let n) = r else { return .noAnswer("closed the connection before answering stats") }
            pending += chunk[0..<n]
            while let nl = pending.firstIndex(of: 0x0A) {
                let line = Array(pending[..<nl])
                pending.removeSubrange(...nl)
                let node: JSONNode
                do { node = try JSONParser.parse(line) } catch { continue }
                if node["type"]?.string == "stats" { return .running(stats: String(decoding: line, as: UTF8.self)) }
            }
        }
        return .noAnswer("sent more than 8 MiB without a stats answer")
    }
}
