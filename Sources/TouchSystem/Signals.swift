@preconcurrency import Glibc
import CLinux

/// Signals as readable events (signalfd): the listed signals are blocked for the process and
/// arrive through one descriptor the event loop watches, so a handler never interrupts the
/// loop's state.
public final class SignalSource {
    public let fd: FileDescriptor

    public init(_ signals: [Int32]) throws(SystemError) {
        var mask = sigset_t()
        sigemptyset(&mask)
        for s in signals { sigaddset(&mask, s) }
        guard sigprocmask(SIG_BLOCK, &mask, nil) == 0 else { throw .last("sigprocmask") }
        let raw = signalfd(-1, &mask, Int32(SFD_NONBLOCK) | Int32(SFD_CLOEXEC))
        guard raw >= 0 else { throw .last("signalfd") }
        fd = FileDescriptor(adopting: raw)
    }

    /// The signals that arrived since the last call, in order.
    public func take() throws(SystemError) -> [Int32] {
        var out: [Int32] = []
        var info = signalfd_siginfo()
        let size = MemoryLayout<signalfd_siginfo>.size
        while true {
            let n = retryingEINTR { Glibc.read(fd.rawValue, &info, size) }
            if n == size { out.append(Int32(info.ssi_signo)); continue }
            if n < 0 && (Glibc.errno == EAGAIN || Glibc.errno == EWOULDBLOCK) { return out }
            if n < 0 { throw .last("read(signalfd)") }
            return out   // a short read cannot happen for signalfd; stop rather than spin
        }
    }

    public static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGTERM: return "SIGTERM"
        case SIGINT: return "SIGINT"
        case SIGHUP: return "SIGHUP"
        default: return "signal \(signal)"
        }
    }

    public static let terminate = SIGTERM
    public static let interrupt = SIGINT
    public static let hangup = SIGHUP
}

/// A deadline on CLOCK_MONOTONIC as a readable descriptor (timerfd): the event loop sleeps in
/// epoll until input or the next deadline, to the microsecond.
public final class DeadlineTimer {
    public let fd: FileDescriptor
    public private(set) var armedAt: Int64?

    public init() throws(SystemError) {
        let raw = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK) | Int32(TFD_CLOEXEC))
        guard raw >= 0 else { throw .last("timerfd_create") }
        fd = FileDescriptor(adopting: raw)
    }

    /// Fires at `micros` (monotonic); nil disarms. A deadline in the past fires at once.
    public func arm(at micros: Int64?) throws(SystemError) {
        let target = micros.map { max($0, 1) }
        if target == armedAt { return }
        guard touchd_timerfd_arm(fd.rawValue, target ?? 0) == 0 else { throw .last("timerfd_settime") }
        armedAt = target
    }

    /// Reads the expiry count so the descriptor stops being readable.
    public func acknowledge() throws(SystemError) {
        var count: UInt64 = 0
        let n = retryingEINTR { Glibc.read(fd.rawValue, &count, 8) }
        if n < 0 && Glibc.errno != EAGAIN && Glibc.errno != EWOULDBLOCK { throw .last("read(timerfd)") }
        armedAt = nil
    }
}
