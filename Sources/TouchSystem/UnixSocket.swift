@preconcurrency import Glibc
import CLinux

/// Unix stream sockets: listening, accepting, connecting, and the peer's credentials.
public enum UnixSocket {
    /// The longest path a sockaddr_un holds (without its terminating NUL).
    public static let maxPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    static func address(_ path: String) -> sockaddr_un? {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count <= maxPathBytes else { return nil }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
            raw[bytes.count] = 0
        }
        return addr
    }

    public static func fits(_ path: String) -> Bool { address(path) != nil }

    static func stream(nonBlocking: Bool = false) throws(SystemError) -> FileDescriptor {
        let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        let fd = socket(AF_UNIX, flags, 0)
        guard fd >= 0 else { throw .last("socket") }
        return FileDescriptor(adopting: fd)
    }

    /// A socket bound at `path` (created with no permission for anyone but the owner: the
    /// caller sets the mode it wants before listening).
    public static func bind(_ path: String) throws(SystemError) -> FileDescriptor {
        guard var addr = address(path) else { throw SystemError("bind", .nameTooLong, path: path) }
        let fd = try stream()
        let oldMask = umask(0o177)
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd.rawValue, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        let e = Errno.current
        umask(oldMask)
        guard r == 0 else { throw SystemError("bind", e, path: path) }
        return fd
    }

    public static func listen(_ fd: borrowing FileDescriptor, backlog: Int32 = 128) throws(SystemError) {
        guard Glibc.listen(fd.rawValue, backlog) == 0 else { throw .last("listen") }
    }

    /// A connected client, nil when none is waiting (EAGAIN).
    public static func accept(_ listener: borrowing FileDescriptor) throws(SystemError) -> FileDescriptor? {
        let fd = retryingEINTR { touchd_accept(listener.rawValue) }
        if fd >= 0 { return FileDescriptor(adopting: fd) }
        if Glibc.errno == EAGAIN || Glibc.errno == EWOULDBLOCK { return nil }
        // A connection that was reset while it waited in the backlog: not the listener's problem.
        if Glibc.errno == ECONNABORTED || Glibc.errno == EPROTO { return nil }
        throw .last("accept")
    }

    /// Connects (blocking) to a listening socket.
    /// `nonBlocking`: the socket never blocks, connect(2) included — a listener whose queue is
    /// full (a stalled daemon) is EAGAIN at once instead of a wait with no end.
    public static func connect(_ path: String, nonBlocking: Bool = false) throws(SystemError) -> FileDescriptor {
        guard var addr = address(path) else { throw SystemError("connect", .nameTooLong, path: path) }
        let fd = try stream(nonBlocking: nonBlocking)
        let r = retryingEINTR {
            withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd.rawValue, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        }
        guard r == 0 else { throw .last("connect", path: path) }
        return fd
    }

    /// Is something listening at `path`? Never blocks: a listener whose backlog is full counts
    /// as alive. Returns the errno of a refused connect (ECONNREFUSED, ENOENT) as dead.
    public static func probe(_ path: String) -> Result<Bool, SystemError> {
        guard var addr = address(path) else { return .failure(SystemError("connect", .nameTooLong, path: path)) }
        let raw = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard raw >= 0 else { return .failure(.last("socket")) }
        let fd = FileDescriptor(adopting: raw)
        let r = retryingEINTR {
            withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd.rawValue, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        }
        if r == 0 { return .success(true) }
        let e = Errno.current
        if e == .wouldBlock || e == .inProgress { return .success(true) }   // alive, its backlog full
        if e == .connectionRefused || e == .noSuchFile { return .success(false) }
        return .failure(.last("connect", path: path))
    }

    public struct Credentials: Sendable, Equatable {
        public var pid: Int32
        public var uid: UInt32
        public var gid: UInt32
        /// Supplementary groups (SO_PEERGROUPS), when the kernel tells them.
        public var groups: [UInt32] = []
        public init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32] = []) {
            self.pid = pid; self.uid = uid; self.gid = gid; self.groups = groups
        }
    }

    /// The peer's pid, uid and gid (SO_PEERCRED) and supplementary groups (SO_PEERGROUPS,
    /// Linux 4.13; empty where it is missing).
    public static func peerCredentials(_ fd: borrowing FileDescriptor) throws(SystemError) -> Credentials {
        var pid: Int32 = 0, uid: UInt32 = 0, gid: UInt32 = 0
        guard touchd_peercred(fd.rawValue, &pid, &uid, &gid) == 0 else { throw .last("getsockopt(SO_PEERCRED)") }
        return Credentials(pid: pid, uid: uid, gid: gid, groups: peerGroups(fd))
    }

    static func peerGroups(_ fd: borrowing FileDescriptor) -> [UInt32] {
        var groups = [gid_t](repeating: 0, count: 64)
        while true {
            var len = socklen_t(groups.count * MemoryLayout<gid_t>.size)
            let r = groups.withUnsafeMutableBytes { getsockopt(fd.rawValue, SOL_SOCKET, touchd_so_peergroups, $0.baseAddress, &len) }
            if r == 0 { return Array(groups.prefix(Int(len) / MemoryLayout<gid_t>.size)) }
            // ERANGE: the list is longer; len says how long.
            guard Errno.current == .resultTooLarge, Int(len) > groups.count * MemoryLayout<gid_t>.size, groups.count < 65536 else { return [] }
            groups = [gid_t](repeating: 0, count: Int(len) / MemoryLayout<gid_t>.size)
        }
    }
}
