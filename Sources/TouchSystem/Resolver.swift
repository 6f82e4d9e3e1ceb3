@preconcurrency import Glibc
import CLinux
import Dispatch
import Synchronization

/// Host names resolved off the event loop: getaddrinfo can wait as long as DNS does not answer
/// (seconds), which would stop every frame. A worker thread resolves; the answer waits in the
/// inbox and the eventfd `descriptor` turns readable, so the loop takes it (`take`) like any
/// other readiness. Address literals are answered at once, without a thread.
///
/// Sendable for real: the inbox is behind a mutex, the eventfd is only written (by workers) and
/// read (by the loop), both atomic system calls, and it is closed when the last worker that
/// holds the resolver is done (workers keep it alive).
public final class Resolver: Sendable {
    public struct Answer: Sendable {
        /// The caller's tag (which request this answers).
        public let tag: Int
        public let host: String
        public let port: UInt16
        public let result: Result<[SocketAddress], SystemError>
    }

    let wake: FileDescriptor
    let inbox = Mutex<[Answer]>([])

    public init() throws(SystemError) {
        let fd = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        guard fd >= 0 else { throw .last("eventfd") }
        wake = FileDescriptor(adopting: fd)
    }

    /// Readable when answers wait.
    public var descriptor: Descriptor { wake.number }

    /// Is `host` an address literal (IPv4 or IPv6), which resolves without asking anyone?
    public static func isLiteral(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// Resolves `host` on a worker thread (a literal at once); the answer comes through `take`.
    public func resolve(host: String, port: UInt16, tag: Int) {
        if Resolver.isLiteral(host) {
            post(Resolver.answer(host: host, port: port, tag: tag))
            return
        }
        DispatchQueue.global().async { [self] in
            post(Resolver.answer(host: host, port: port, tag: tag))
        }
    }

    static func answer(host: String, port: UInt16, tag: Int) -> Answer {
        let result: Result<[SocketAddress], SystemError>
        do { result = .success(try UDPSocket.resolve(host: host, port: port)) } catch { result = .failure(error) }
        return Answer(tag: tag, host: host, port: port, result: result)
    }

    func post(_ a: Answer) {
        inbox.withLock { $0.append(a) }
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { Glibc.write(wake.rawValue, $0.baseAddress, 8) }
    }

    /// The answers that came (the eventfd is reset).
    public func take() -> [Answer] {
        var count: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &count) { Glibc.read(wake.rawValue, $0.baseAddress, 8) }
        return inbox.withLock { a in
            defer { a.removeAll() }
            return a
        }
    }
}
