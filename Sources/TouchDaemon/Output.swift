@preconcurrency import Glibc
import TouchCore

/// Buffered writes to a file descriptor (stdout for replay). Flushes when the buffer fills and
/// on `flush()`, so a reader on a pipe sees whole lines promptly.
public final class FDWriter {
    let fd: Int32
    var buffer: [UInt8] = []
    let limit: Int
    public private(set) var failed = false

    public init(fd: Int32, limit: Int = 1 << 16) {
        self.fd = fd
        self.limit = limit
        buffer.reserveCapacity(limit + 4096)
    }

    public func write(_ bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= limit { flush() }
    }

    public func write(_ s: String) {
        buffer.append(contentsOf: s.utf8)
        if buffer.count >= limit { flush() }
    }

    /// Appends through a closure (encoders write straight into the buffer).
    public func append(_ body: (inout [UInt8]) -> Void) {
        body(&buffer)
        if buffer.count >= limit { flush() }
    }

    public func flush() {
        var off = 0
        while off < buffer.count && !failed {
            let n = buffer.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + off, $0.count - off) }
            if n < 0 {
                if errno == EINTR { continue }
                failed = true  // EPIPE (reader went away) and friends: stop writing, do not crash
                break
            }
            off += n
        }
        buffer.removeAll(keepingCapacity: true)
    }

    deinit { flush() }
}

/// Log lines on stderr: "touchd: warning: …". journald keeps them when run as a service.
public final class StderrLog: @unchecked Sendable {
    // Used from the one thread that runs a command; the lock-free counter below is only touched there.
    public var threshold: LogLevel
    var repeats: [String: Int] = [:]
    public static let repeatLimit = 20

    public init(threshold: LogLevel = .info) { self.threshold = threshold }

    public func callAsFunction(_ level: LogLevel, _ message: String) {
        guard level >= threshold else { return }
        // The same kind of message (first 40 bytes) is shown at most repeatLimit times.
        let key = String(message.prefix(40))
        let n = (repeats[key] ?? 0) + 1
        repeats[key] = n
        if n > StderrLog.repeatLimit { return }
        var line = "touchd: \(level): \(message)"
        if n == StderrLog.repeatLimit { line += " (further messages like this are not shown)" }
        line += "\n"
        _ = line.withCString { fputs($0, stderr) }
    }

    public var function: LogFunction { { [self] level, message in self(level, message) } }
}
