@preconcurrency import Glibc
import Synchronization

/// Names of users and groups (the system's databases, through NSS). A lookup can block for as
/// long as NSS takes (LDAP, sssd, a slow network), so the daemon's names come from a cache:
/// each uid and gid is looked up once, on first use, and the answers (a name, or "no such
/// user") are kept until `clearCache()` (the daemon calls it on SIGHUP, when the databases may
/// have changed). A lookup that failed (an NSS error) is not kept: the next use tries again.
public enum Accounts {
    /// The answer of one lookup.
    public enum Lookup: Equatable, Sendable {
        case found(String)
        /// The database has no such entry.
        case missing
        /// NSS failed (or the entry did not fit `maxBuffer`): nothing is known.
        case failed(Errno)

        public var name: String? {
            if case .found(let n) = self { return n }
            return nil
        }
    }

    /// The largest buffer an entry may need (a group with very many members needs a big one);
    /// past it the lookup fails with ERANGE.
    public static let maxBuffer = 1 << 20

    static let users = NameCache { uid in lookUpUser(uid) }
    static let groups = NameCache { gid in lookUpGroup(gid) }

    /// The user's name (cached), nil when there is none or NSS failed.
    public static func userName(_ uid: UInt32) -> String? { users.name(uid) }

    /// The group's name (cached), nil when there is none or NSS failed.
    public static func groupName(_ gid: UInt32) -> String? { groups.name(gid) }

    /// Forgets every cached name: the next use of each looks it up again. For SIGHUP.
    public static func clearCache() {
        users.clear()
        groups.clear()
    }

    /// getpwuid_r, uncached; a buffer too small (ERANGE) is retried twice as big, up to `maxBuffer`.
    public static func lookUpUser(_ uid: UInt32, bufferSize: Int = 4096) -> Lookup {
        withGrowingBuffer(start: bufferSize) { buffer, size in
            var pw = passwd()
            var result: UnsafeMutablePointer<passwd>?
            let rc = getpwuid_r(uid, &pw, buffer, size, &result)
            if rc != 0 { return .failed(Errno(rawValue: rc)) }
            // The entry points into the buffer: its name is read while the buffer lives.
            guard result != nil, let name = pw.pw_name else { return .missing }
            return .found(String(cString: name))
        }
    }

    /// getgrgid_r, uncached; a buffer too small (ERANGE) is retried twice as big, up to `maxBuffer`.
    public static func lookUpGroup(_ gid: UInt32, bufferSize: Int = 16384) -> Lookup {
        withGrowingBuffer(start: bufferSize) { buffer, size in
            var gr = group()
            var result: UnsafeMutablePointer<group>?
            let rc = getgrgid_r(gid, &gr, buffer, size, &result)
            if rc != 0 { return .failed(Errno(rawValue: rc)) }
            guard result != nil, let name = gr.gr_name else { return .missing }
            return .found(String(cString: name))
        }
    }

    /// Calls `body` with a buffer of `start` bytes, then twice as many while it fails with
    /// ERANGE (or EINTR, same size), up to `cap` bytes; ERANGE at `cap` is the answer.
    static func withGrowingBuffer(start: Int, cap: Int = maxBuffer, _ body: (UnsafeMutablePointer<CChar>, Int) -> Lookup) -> Lookup {
        var size = min(max(start, 1), cap)
        while true {
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: size)
            let r = body(buffer, size)
            buffer.deallocate()
            switch r {
            case .failed(.interrupted): continue
            case .failed(.resultTooLarge) where size < cap: size = min(size * 2, cap)
            default: return r
            }
        }
    }
}

/// id → name, each looked up once; definite answers kept until `clear()`, failures not kept.
/// The lookup runs outside the lock (it may block), so two threads may both look up a new id.
final class NameCache: Sendable {
    let lookup: @Sendable (UInt32) -> Accounts.Lookup
    let entries = Mutex<[UInt32: String?]>([:])

    init(_ lookup: @escaping @Sendable (UInt32) -> Accounts.Lookup) { self.lookup = lookup }

    func name(_ id: UInt32) -> String? {
        if let known = entries.withLock({ $0[id] }) { return known }
        let answer = lookup(id)
        switch answer {
        case .found(let n): entries.withLock { $0[id] = .some(n) }
        case .missing: entries.withLock { $0[id] = .some(nil) }
        case .failed: break
        }
        return answer.name
    }

    func clear() { entries.withLock { $0.removeAll() } }

    var count: Int { entries.withLock { $0.count } }
}

extension Accounts {
    /// getgrnam_r's members of a group; nil when there is no such group (or NSS failed).
    public static func groupMembers(_ name: String) -> [String]? {
        var size = 16384
        while size <= Accounts.maxBuffer {
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: size)
            defer { buffer.deallocate() }
            var gr = group()
            var result: UnsafeMutablePointer<group>?
            let rc = getgrnam_r(name, &gr, buffer, size, &result)
            if rc == ERANGE { size *= 2; continue }
            guard rc == 0, result != nil else { return nil }
            var members: [String] = []
            var i = 0
            while let m = gr.gr_mem?[i] {
                members.append(String(cString: m))
                i += 1
            }
            return members
        }
        return nil
    }
}
