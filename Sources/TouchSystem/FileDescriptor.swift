@preconcurrency import Glibc

/// A descriptor's number, for lookups and event registration only: it owns nothing and closes
/// nothing. Descriptors that C libraries own (libudev's monitor) are known by their number.
public struct Descriptor: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    public var description: String { "fd \(rawValue)" }
}

/// An owned file descriptor: one owner, closed exactly once (when the owner lets go of it, or
/// by `close()`). Non-copyable, so the compiler keeps the ownership honest (swift-system's and
/// NIO's habit). The standard streams are borrowed: they are never closed. Sendable: a moved
/// value has one owner wherever it goes, and its number is immutable (a class that shares it
/// between threads, Resolver, only makes atomic system calls on it).
public struct FileDescriptor: ~Copyable, Sendable {
    public let rawValue: Int32
    let closesOnDeinit: Bool

    /// Takes ownership of a descriptor the process just got (open, socket, accept …).
    public init(adopting rawValue: Int32) {
        self.rawValue = rawValue
        closesOnDeinit = true
    }

    private init(borrowing rawValue: Int32) {
        self.rawValue = rawValue
        closesOnDeinit = false
    }

    /// A descriptor someone else owns (a standard stream): never closed by this value.
    public static func borrowing(_ rawValue: Int32) -> FileDescriptor { FileDescriptor(borrowing: rawValue) }

    /// Waits up to `timeoutMS` milliseconds for it to be readable (poll(2)); false when the
    /// time ran out (or poll failed: the caller reads and learns why).
    public func waitReadable(timeoutMS: Int32) -> Bool {
        var p = pollfd(fd: rawValue, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, timeoutMS) > 0
    }

    /// Whether descriptor number `n` is open in this process.
    public static func isOpen(_ n: Int32) -> Bool { fcntl(n, F_GETFD) >= 0 }

    public static var standardOutput: FileDescriptor { FileDescriptor(borrowing: STDOUT_FILENO) }
    public static var standardError: FileDescriptor { FileDescriptor(borrowing: STDERR_FILENO) }

    deinit {
        // EINTR on close must not be retried on Linux (the descriptor is gone either way).
        if closesOnDeinit { _ = Glibc.close(rawValue) }
    }

    /// Closes now (instead of when the owner goes away).
    public consuming func close() {}

    public var number: Descriptor { Descriptor(rawValue: rawValue) }

    // MARK: Opening

    public struct OpenMode: Sendable {
        let flags: Int32
        public static let readOnly = OpenMode(flags: O_RDONLY)
        public static let readOnlyNonBlocking = OpenMode(flags: O_RDONLY | O_NONBLOCK)
        /// Read and write, non-blocking (/dev/uinput).
        public static let readWriteNonBlocking = OpenMode(flags: O_RDWR | O_NONBLOCK)
        /// Created or truncated, mode 0644.
        public static let writeTruncate = OpenMode(flags: O_WRONLY | O_CREAT | O_TRUNC)
        /// As `writeTruncate`, but a symlink at the path is refused (ELOOP), not followed: an
        /// output file a command writes as root cannot be turned into another file by a link
        /// planted where it will be (where fs.protected_symlinks is 0).
        public static let writeTruncateNoFollow = OpenMode(flags: O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW)
        /// An existing file, written from its start (a sysfs attribute: never created).
        public static let writeExisting = OpenMode(flags: O_WRONLY | O_TRUNC)
    }

    public static func open(_ path: String, _ mode: OpenMode) throws(SystemError) -> FileDescriptor {
        let fd = retryingEINTR { Glibc.open(path, mode.flags | O_CLOEXEC, 0o644) }
        guard fd >= 0 else { throw .last("open", path: path) }
        return FileDescriptor(adopting: fd)
    }

    // MARK: Reading and writing

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> IOResult {
        let n = retryingEINTR { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
        if n > 0 { return .done(n) }
        if n == 0 { return .closed }
        switch Glibc.errno {
        case EAGAIN, EWOULDBLOCK: return .wouldBlock
        case ECONNRESET: return .closed
        default: throw .last("read")
        }
    }

    public func write(_ buffer: UnsafeRawBufferPointer) throws(SystemError) -> IOResult {
        let n = retryingEINTR { Glibc.write(rawValue, buffer.baseAddress, buffer.count) }
        if n >= 0 { return .done(n) }
        switch Glibc.errno {
        case EAGAIN, EWOULDBLOCK: return .wouldBlock
        case EPIPE, ECONNRESET: return .closed
        default: throw .last("write")
        }
    }

    /// Writes all of `bytes`: false when the reader went away. A non-blocking descriptor whose
    /// reader is full is waited for, `timeoutMS` at most in all (then ETIMEDOUT, with part of
    /// the bytes written); -1 waits as long as it takes, for the offline commands whose reader
    /// must get everything however slowly it reads. (A blocking descriptor waits in write(2).)
    public func writeAll(_ bytes: UnsafeRawBufferPointer, timeoutMS: Int32 = -1) throws(SystemError) -> Bool {
        var offset = 0
        let deadline = timeoutMS < 0 ? Int64.max : Clock.monotonicMicros() + Int64(timeoutMS) * 1000
        while offset < bytes.count {
            switch try write(UnsafeRawBufferPointer(rebasing: bytes[offset...])) {
            case .done(let n): offset += n
            case .closed: return false
            case .wouldBlock:
                // A non-blocking reader that is full: wait until it takes more (or the time is up).
                var wait: Int32 = -1
                if timeoutMS >= 0 {
                    let left = deadline - Clock.monotonicMicros()
                    guard left > 0 else { throw SystemError("write", .timedOut) }
                    wait = Int32(clamping: (left + 999) / 1000)
                }
                var p = pollfd(fd: rawValue, events: Int16(POLLOUT), revents: 0)
                _ = retryingEINTR { Glibc.poll(&p, 1, wait) }
            }
        }
        return true
    }

    public func writeAll(_ bytes: [UInt8], timeoutMS: Int32 = -1) throws(SystemError) -> Bool {
        let r = bytes.withUnsafeBytes { b in Result { () throws(SystemError) -> Bool in try writeAll(b, timeoutMS: timeoutMS) } }
        return try r.get()
    }

    /// send(2) with MSG_NOSIGNAL: a peer that went away is `.closed`, never SIGPIPE.
    public func send(_ buffer: UnsafeRawBufferPointer) throws(SystemError) -> IOResult {
        let n = retryingEINTR { Glibc.send(rawValue, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
        if n >= 0 { return .done(n) }
        switch Glibc.errno {
        case EAGAIN, EWOULDBLOCK: return .wouldBlock
        case EPIPE, ECONNRESET: return .closed
        default: throw .last("send")
        }
    }

    // MARK: Flags

    public func setNonBlocking() throws(SystemError) { try number.setNonBlocking() }
    public func setCloseOnExec() throws(SystemError) { try number.setCloseOnExec() }
}

extension Descriptor {
    /// Also for descriptors someone else owns (libudev's monitor, systemd's socket).
    public func setNonBlocking() throws(SystemError) {
        let flags = fcntl(rawValue, F_GETFL)
        guard flags >= 0 else { throw .last("fcntl(F_GETFL)") }
        guard fcntl(rawValue, F_SETFL, flags | O_NONBLOCK) >= 0 else { throw .last("fcntl(F_SETFL)") }
    }

    public func setCloseOnExec() throws(SystemError) {
        let flags = fcntl(rawValue, F_GETFD)
        guard flags >= 0 else { throw .last("fcntl(F_GETFD)") }
        guard fcntl(rawValue, F_SETFD, flags | FD_CLOEXEC) >= 0 else { throw .last("fcntl(F_SETFD)") }
    }
}
