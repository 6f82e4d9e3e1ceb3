@preconcurrency import Glibc
import CLinux

/// The one seam for the socket and event-loop system calls (swift-system's habit): EINTR is
/// retried here, EAGAIN comes back as a value, other errors as `SysError` naming the call.
public struct SysError: Error, Sendable, CustomStringConvertible, Equatable {
    public var call: String
    public var errno: Int32
    public var path: String?
    public init(_ call: String, _ errno: Int32, path: String? = nil) {
        self.call = call; self.errno = errno; self.path = path
    }
    public var description: String {
        let what = path.map { "\(call) \($0)" } ?? call
        return "\(what): \(String(cString: strerror(errno)))"
    }
}

public enum IOResult: Equatable {
    case done(Int)
    case wouldBlock
    case closed
}

public enum Sys {
    @inline(__always)
    static func retrying(_ body: () -> Int) -> Int {
        while true {
            let r = body()
            if r < 0 && errno == EINTR { continue }
            return r
        }
    }

    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SysError) -> IOResult {
        let n = retrying { Glibc.read(fd, buffer.baseAddress, buffer.count) }
        if n > 0 { return .done(n) }
        if n == 0 { return .closed }
        if errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock }
        if errno == ECONNRESET { return .closed }
        throw SysError("read", errno)
    }

    /// send(2) with MSG_NOSIGNAL: a peer that went away is `.closed`, never SIGPIPE.
    public static func send(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(SysError) -> IOResult {
        let n = retrying { Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
        if n >= 0 { return .done(n) }
        if errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock }
        if errno == EPIPE || errno == ECONNRESET { return .closed }
        throw SysError("send", errno)
    }

    public static func close(_ fd: Int32) {
        _ = Glibc.close(fd)  // EINTR on close must not be retried on Linux
    }

    public static func setNonBlocking(_ fd: Int32) throws(SysError) {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) >= 0 else { throw SysError("fcntl", errno) }
    }

    public static func setCloseOnExec(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFD)
        if flags >= 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
    }

    /// Fills a sockaddr_un; nil when the path does not fit.
    public static func unixAddress(_ path: String) -> sockaddr_un? {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        guard bytes.count < capacity else { return nil }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
            raw[bytes.count] = 0
        }
        return addr
    }

    public static func connectUnix(_ path: String) throws(SysError) -> Int32 {
        guard var addr = unixAddress(path) else { throw SysError("connect", ENAMETOOLONG, path: path) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SysError("socket", errno) }
        let r = retrying {
            withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Int(Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))) }
            }
        }
        if r < 0 {
            let e = errno
            Glibc.close(fd)
            throw SysError("connect", e, path: path)
        }
        return fd
    }

    /// The peer's pid, uid and gid (SO_PEERCRED).
    public static func peerCredentials(_ fd: Int32) -> (pid: Int32, uid: UInt32, gid: UInt32)? {
        var pid: Int32 = 0, uid: UInt32 = 0, gid: UInt32 = 0
        guard touchd_peercred(fd, &pid, &uid, &gid) == 0 else { return nil }
        return (pid, uid, gid)
    }
}

/// epoll, level-triggered. The loop's owner thread is the only user.
public final class Poller {
    public let fd: Int32
    var events: [epoll_event]

    public init() throws(SysError) {
        fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard fd >= 0 else { throw SysError("epoll_create1", errno) }
        events = Array(repeating: epoll_event(), count: 128)
    }

    deinit { Sys.close(fd) }

    public func add(_ watched: Int32, readable: Bool = true, writable: Bool = false) throws(SysError) {
        var ev = epoll_event()
        touchd_epoll_event_set(&ev, mask(readable, writable), watched)
        guard epoll_ctl(fd, EPOLL_CTL_ADD, watched, &ev) == 0 else { throw SysError("epoll_ctl(ADD)", errno) }
    }

    public func modify(_ watched: Int32, readable: Bool, writable: Bool) {
        var ev = epoll_event()
        touchd_epoll_event_set(&ev, mask(readable, writable), watched)
        _ = epoll_ctl(fd, EPOLL_CTL_MOD, watched, &ev)
    }

    public func remove(_ watched: Int32) {
        var ev = epoll_event()
        _ = epoll_ctl(fd, EPOLL_CTL_DEL, watched, &ev)
    }

    func mask(_ r: Bool, _ w: Bool) -> UInt32 {
        var m: UInt32 = 0
        if r { m |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
        if w { m |= EPOLLOUT.rawValue }
        return m
    }

    public struct Ready {
        public var fd: Int32
        public var readable: Bool
        public var writable: Bool
        /// Both directions are gone (EPOLLHUP / EPOLLERR).
        public var hangup: Bool
    }

    /// Waits up to `timeoutMS` (-1: forever) and returns the ready descriptors.
    public func wait(timeoutMS: Int32) -> [Ready] {
        let n = events.withUnsafeMutableBufferPointer { buf in
            Int(epoll_wait(fd, buf.baseAddress, Int32(buf.count), timeoutMS))
        }
        guard n > 0 else { return [] }
        var out: [Ready] = []
        out.reserveCapacity(n)
        for i in 0..<n {
            let e = touchd_epoll_event_events(&events[i])
            out.append(Ready(fd: touchd_epoll_event_fd(&events[i]),
                             readable: e & EPOLLIN.rawValue != 0,
                             writable: e & EPOLLOUT.rawValue != 0,
                             hangup: e & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0))
        }
        return out
    }
}

/// Monotonic clock in microseconds.
public func monotonicMicros() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
}
