@preconcurrency import Glibc
import CLinux

/// epoll, level-triggered. The event loop's owner thread is its only user.
public final class Epoll {
    let fd: FileDescriptor
    var events: [epoll_event]

    public init() throws(SystemError) {
        let raw = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard raw >= 0 else { throw .last("epoll_create1") }
        fd = FileDescriptor(adopting: raw)
        events = Array(repeating: epoll_event(), count: 128)
    }

    public struct Interest: Equatable, Sendable {
        public var readable: Bool
        public var writable: Bool
        public init(readable: Bool = true, writable: Bool = false) {
            self.readable = readable
            self.writable = writable
        }
        var mask: UInt32 {
            var m: UInt32 = 0
            if readable { m |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
            if writable { m |= EPOLLOUT.rawValue }
            return m
        }
    }

    public func add(_ d: Descriptor, _ interest: Interest = Interest()) throws(SystemError) {
        try control(EPOLL_CTL_ADD, d, interest, "epoll_ctl(ADD)")
    }

    public func modify(_ d: Descriptor, _ interest: Interest) throws(SystemError) {
        try control(EPOLL_CTL_MOD, d, interest, "epoll_ctl(MOD)")
    }

    /// Stops watching. A descriptor that was already closed (the kernel forgot it) is not an error.
    public func remove(_ d: Descriptor) throws(SystemError) {
        do { try control(EPOLL_CTL_DEL, d, Interest(), "epoll_ctl(DEL)") } catch {
            if error.errno == .badDescriptor || error.errno == .noSuchFile { return }
            throw error
        }
    }

    func control(_ op: Int32, _ d: Descriptor, _ interest: Interest, _ call: String) throws(SystemError) {
        var ev = epoll_event()
        touchd_epoll_event_set(&ev, interest.mask, d.rawValue)
        guard epoll_ctl(fd.rawValue, op, d.rawValue, &ev) == 0 else { throw .last(call) }
    }

    public struct Ready: Sendable {
        public var descriptor: Descriptor
        public var readable: Bool
        public var writable: Bool
        /// Both directions are gone (EPOLLHUP / EPOLLERR).
        public var hangup: Bool
    }

    /// Waits up to `timeoutMS` (-1: until something is ready) and returns what is ready.
    /// An interrupted wait returns nothing.
    public func wait(timeoutMS: Int32) throws(SystemError) -> [Ready] {
        // baseAddress!: events is never empty, and newer glibc headers (trixie's) declare the
        // buffer nonnull, so Swift imports it non-optional there and optional elsewhere.
        let n = events.withUnsafeMutableBufferPointer { buf in
            Int(epoll_wait(fd.rawValue, buf.baseAddress!, Int32(buf.count), timeoutMS))
        }
        if n < 0 {
            if Glibc.errno == EINTR { return [] }
            throw .last("epoll_wait")
        }
        var out: [Ready] = []
        out.reserveCapacity(n)
        for i in 0..<n {
            let e = touchd_epoll_event_events(&events[i])
            out.append(Ready(descriptor: Descriptor(rawValue: touchd_epoll_event_fd(&events[i])),
                             readable: e & EPOLLIN.rawValue != 0,
                             writable: e & EPOLLOUT.rawValue != 0,
                             hangup: e & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0))
        }
        return out
    }
}
