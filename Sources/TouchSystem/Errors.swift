@preconcurrency import Glibc

/// TouchSystem: the one seam between touchd and the operating system (swift-system's habit).
/// Every system call of the daemon, the server and the input layer goes through a small
/// function here, so errors are mapped in one place: EINTR is retried, EAGAIN comes back as a
/// value (`IOResult.wouldBlock`), a peer that went away as `.closed`, everything else as a
/// `SystemError` naming the call (and the path, where there is one).

/// An errno value.
public struct Errno: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's errno right now.
    public static var current: Errno { Errno(rawValue: Glibc.errno) }

    public static let noSuchFile = Errno(rawValue: ENOENT)
    public static let noDevice = Errno(rawValue: ENODEV)
    public static let permissionDenied = Errno(rawValue: EACCES)
    public static let notPermitted = Errno(rawValue: EPERM)
    public static let connectionRefused = Errno(rawValue: ECONNREFUSED)
    public static let nameTooLong = Errno(rawValue: ENAMETOOLONG)
    public static let interrupted = Errno(rawValue: EINTR)
    public static let wouldBlock = Errno(rawValue: EAGAIN)
    public static let exists = Errno(rawValue: EEXIST)
    public static let isDirectory = Errno(rawValue: EISDIR)
    public static let tooBig = Errno(rawValue: EFBIG)
    public static let outOfMemory = Errno(rawValue: ENOMEM)
    public static let tooManyFiles = Errno(rawValue: EMFILE)
    public static let tooManyFilesInSystem = Errno(rawValue: ENFILE)
    public static let notDirectory = Errno(rawValue: ENOTDIR)
    public static let busy = Errno(rawValue: EBUSY)
    /// ELOOP: too many links, or a symlink where O_NOFOLLOW refused one.
    public static let symlink = Errno(rawValue: ELOOP)
    public static let badDescriptor = Errno(rawValue: EBADF)
    public static let invalidArgument = Errno(rawValue: EINVAL)
    /// ERANGE: a result does not fit the buffer given (getpwuid_r, getsockopt(SO_PEERGROUPS)).
    public static let resultTooLarge = Errno(rawValue: ERANGE)
    public static let brokenPipe = Errno(rawValue: EPIPE)
    public static let connectionReset = Errno(rawValue: ECONNRESET)
    public static let inProgress = Errno(rawValue: EINPROGRESS)
    public static let timedOut = Errno(rawValue: ETIMEDOUT)

    /// strerror's text ("No such file or directory").
    public var description: String { String(cString: strerror(rawValue)) }
}

/// A failed system call: which call, why, and on what path.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    public var call: String
    public var errno: Errno
    public var path: String?

    public init(_ call: String, _ errno: Errno, path: String? = nil) {
        self.call = call
        self.errno = errno
        self.path = path
    }

    /// The error of the call that just failed (reads errno).
    public static func last(_ call: String, path: String? = nil) -> SystemError {
        SystemError(call, .current, path: path)
    }

    public var description: String {
        let what = path.map { "\(call) \($0)" } ?? call
        return "\(what): \(errno)"
    }
}

/// The outcome of a read or a write on a non-blocking descriptor.
public enum IOResult: Equatable, Sendable {
    case done(Int)
    case wouldBlock
    /// End of file, or the peer went away (EPIPE, ECONNRESET).
    case closed
}

/// Runs a call until it does not fail with EINTR; returns its result (errno is left as the
/// call set it).
@inline(__always)
func retryingEINTR<T: SignedInteger>(_ body: () -> T) -> T {
    while true {
        let r = body()
        if r < 0 && Glibc.errno == EINTR { continue }
        return r
    }
}
