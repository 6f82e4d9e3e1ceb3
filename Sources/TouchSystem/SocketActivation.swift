@preconcurrency import Glibc

/// Socket activation, written from sd_listen_fds(3) and sd_is_socket(3): the manager binds the
/// sockets, starts the service with them as descriptors 3, 4, … and says so in the environment:
/// LISTEN_PID (the process they are for: a child that inherited the variables is not it),
/// LISTEN_FDS (how many) and LISTEN_FDNAMES (their names, colon-separated; FileDescriptorName=,
/// by default the socket unit's name). The descriptors are marked close-on-exec and the
/// variables removed, as sd_listen_fds(1) does, so nothing the process starts inherits either.
public enum SocketActivation {
    /// The first passed descriptor (SD_LISTEN_FDS_START).
    public static let firstDescriptor: Int32 = 3

    /// The variables are set for this process but cannot be followed: it must not guess.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
        init(_ message: String) { self.message = message }
    }

    /// What a passed descriptor is: sd_is_socket(3)'s checks (fstat, getsockname's family,
    /// SO_TYPE, SO_ACCEPTCONN).
    public enum Kind: Equatable, Sendable, CustomStringConvertible {
        case notOpen
        case notASocket
        case socket(family: Int32, type: Int32, listening: Bool)

        public var isListeningUnixStream: Bool {
            self == .socket(family: AF_UNIX, type: Int32(SOCK_STREAM.rawValue), listening: true)
        }

        public var description: String {
            switch self {
            case .notOpen: return "not open"
            case .notASocket: return "not a socket"
            case .socket(let family, let type, let listening):
                let f = family == AF_UNIX ? "Unix" : family == AF_INET ? "IPv4" : family == AF_INET6 ? "IPv6" : family == AF_NETLINK ? "netlink" : "family \(family)"
                let t = type == Int32(SOCK_STREAM.rawValue) ? "stream" : type == Int32(SOCK_DGRAM.rawValue) ? "datagram"
                    : type == Int32(SOCK_SEQPACKET.rawValue) ? "seqpacket" : "type \(type)"
                let article = f.hasPrefix("I") ? "an" : "a"
                return "\(article) \(f) \(t) socket" + (type == Int32(SOCK_STREAM.rawValue) || type == Int32(SOCK_SEQPACKET.rawValue) ? (listening ? ", listening" : " that is not listening") : "")
            }
        }
    }

    /// A descriptor the manager passed, with its name ("unknown" when it gave none).
    public struct Passed: Equatable, Sendable, CustomStringConvertible {
        public let descriptor: Descriptor
        public let name: String
        public var kind: Kind { SocketActivation.kind(of: descriptor) }
        public var description: String { "\(descriptor) (\(name))" }
    }

    /// What the variables say: nil when nothing was passed to this process (LISTEN_PID or
    /// LISTEN_FDS unset, or LISTEN_PID another process's); the count and the names otherwise
    /// (nil when LISTEN_FDNAMES gives none: each is then "unknown"). Throws when they are for
    /// this process but malformed (sd_listen_fds' -EINVAL): a count that is not a number, zero
    /// or too big, a LISTEN_PID that is not a process id, names whose number is not the count.
    public static func parse(listenPID: String?, listenFDs: String?, listenFDNames: String?, ownPID: Int32) throws(Failure) -> (count: Int, names: [String]?)? {
        guard let listenPID else { return nil }
        guard let pid = ServiceManager.processID(listenPID) else { throw Failure("LISTEN_PID=\(listenPID) is not a process id") }
        guard pid == ownPID else { return nil }
        guard let listenFDs else { return nil }
        guard let n = ServiceManager.decimal(listenFDs), n > 0, n <= UInt64(Int32.max - firstDescriptor) else {
            throw Failure("LISTEN_FDS=\(listenFDs) is not a count of descriptors (1 or more)")
        }
        let count = Int(n)
        guard let listenFDNames, !listenFDNames.isEmpty else { return (count, nil) }
        let names = listenFDNames.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard names.count == count else {
            throw Failure("LISTEN_FDNAMES=\(listenFDNames) names \(names.count) descriptor(s), LISTEN_FDS=\(listenFDs) passes \(count)")
        }
        return (count, names)
    }

    /// The descriptors passed to this process, each marked close-on-exec (nil when none was);
    /// the first that is not open ends it (so a huge count costs nothing before it fails).
    /// `first` is 3 but for tests, which cannot give themselves descriptor 3.
    public static func receive(listenPID: String?, listenFDs: String?, listenFDNames: String?, ownPID: Int32 = ThisProcess.id,
                               first: Int32 = firstDescriptor) throws(Failure) -> [Passed]? {
        guard let (count, names) = try parse(listenPID: listenPID, listenFDs: listenFDs, listenFDNames: listenFDNames, ownPID: ownPID) else { return nil }
        var passed: [Passed] = []
        for i in 0..<count {
            let d = Descriptor(rawValue: first + Int32(i))
            do { try d.setCloseOnExec() } catch {
                throw Failure("LISTEN_FDS=\(count) passes \(d), which is \(error.errno == .badDescriptor ? "not open" : "unusable: \(error)")")
            }
            passed.append(Passed(descriptor: d, name: names?[i] ?? "unknown"))
        }
        return passed
    }

    /// `receive` with this process's variables, which are then removed (whatever the outcome,
    /// as sd_listen_fds(1) does): a second call finds nothing, a child inherits nothing.
    public static func take(from environment: Environment = .process, first: Int32 = firstDescriptor) throws(Failure) -> [Passed]? {
        let pid = environment.get("LISTEN_PID"), fds = environment.get("LISTEN_FDS"), names = environment.get("LISTEN_FDNAMES")
        for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { environment.unset(name) }
        return try receive(listenPID: pid, listenFDs: fds, listenFDNames: names, first: first)
    }

    /// Where the variables are read and removed: the process's environment, or a test's stand-in
    /// (a test changing its process's environment would race its other threads' reads).
    public struct Environment: Sendable {
        public var get: @Sendable (String) -> String?
        public var unset: @Sendable (String) -> Void
        public init(get: @escaping @Sendable (String) -> String?, unset: @escaping @Sendable (String) -> Void) {
            self.get = get
            self.unset = unset
        }
        public static let process = Environment(get: { ThisProcess.environment($0) }, unset: { _ = unsetenv($0) })
    }

    /// The first passed descriptor that is a listening Unix stream socket (what a subscriber
    /// socket must be); throws, naming what each one is, when none is.
    public static func listeningUnixStream(in passed: [Passed]) throws(Failure) -> Passed {
        if let p = passed.first(where: { $0.kind.isListeningUnixStream }) { return p }
        throw Failure("no listening Unix stream socket among the descriptors passed: " + passed.map { "\($0) is \($0.kind)" }.joined(separator: "; "))
    }

    /// sd_is_socket(3)'s facts about a descriptor.
    public static func kind(of d: Descriptor) -> Kind {
        var st = stat()
        guard fstat(d.rawValue, &st) == 0 else { return .notOpen }
        guard st.st_mode & S_IFMT == S_IFSOCK else { return .notASocket }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(d.rawValue, $0, &length) }
        }
        let family = named == 0 && length >= socklen_t(MemoryLayout<sa_family_t>.size) ? Int32(storage.ss_family) : -1
        return .socket(family: family, type: option(d, SO_TYPE) ?? -1, listening: option(d, SO_ACCEPTCONN) == 1)
    }

    static func option(_ d: Descriptor, _ name: Int32) -> Int32? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(d.rawValue, SOL_SOCKET, name, &value, &length) == 0 ? value : nil
    }
}
