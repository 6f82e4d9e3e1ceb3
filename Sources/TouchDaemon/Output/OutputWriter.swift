import TouchCore
import TouchSystem

/// Buffered output to stdout or a file. Flushes when the buffer fills and on `flush()`, so a
/// reader on a pipe sees whole lines promptly. A reader that went away (EPIPE) stops the
/// writing quietly; any other failure is kept in `failure` for the command to report.
/// It waits for a slow reader as long as it takes (writeAll without a timeout): it serves the
/// offline commands (replay, render, record), whose reader must get every byte. The daemon's
/// log never waits: it goes through a NonBlockingLineWriter (StderrLog.nonBlocking).
public final class OutputWriter {
    let fd: FileDescriptor
    var buffer: [UInt8] = []
    let limit: Int
    public private(set) var failure: SystemError?
    public private(set) var readerGone = false

    public init(_ fd: consuming FileDescriptor, limit: Int = 1 << 16) {
        self.fd = fd
        self.limit = limit
        buffer.reserveCapacity(limit + 4096)
    }

    public static func standardOutput(limit: Int = 1 << 16) -> OutputWriter { OutputWriter(.standardOutput, limit: limit) }

    /// A file created (or truncated) for writing (render -o, record -o); a symlink there is
    /// refused, not followed (issue 40, item 11). The standard streams by their names
    /// (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: the kernel's symlinks) are
    /// written to as the descriptors they name.
    public static func file(_ path: String) throws(CommandFailure) -> OutputWriter {
        if let n = streamNumber(path) { return OutputWriter(.borrowing(n)) }
        do { return OutputWriter(try FileDescriptor.open(path, .writeTruncateNoFollow)) } catch {
            if error.errno == .symlink {
                throw CommandFailure("cannot write \(path): it is a symlink, and output files are not written through one (name the file it points to)")
            }
            throw CommandFailure("cannot write \(path): \(error.errno)")
        }
    }

    /// The descriptor a stream's name stands for, when it is open.
    static func streamNumber(_ path: String) -> Int32? {
        let n: Int32?
        switch path {
        case "/dev/stdout": n = 1
        case "/dev/stderr": n = 2
        default:
            let digits = path.hasPrefix("/dev/fd/") ? path.dropFirst(8) : path.hasPrefix("/proc/self/fd/") ? path.dropFirst(14) : nil
            n = digits.flatMap { d in !d.isEmpty && d.allSatisfy { ("0"..."9").contains($0) } ? Int32(d) : nil }
        }
        guard let n, FileDescriptor.isOpen(n) else { return nil }
        return n
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
        defer { buffer.removeAll(keepingCapacity: true) }
        guard !buffer.isEmpty, failure == nil, !readerGone else { return }
        let result = buffer.withUnsafeBytes { b in Result { () throws(SystemError) -> Bool in try fd.writeAll(b) } }
        switch result {
        case .success(let complete): if !complete { readerGone = true }
        case .failure(let e): failure = e
        }
    }

    deinit { flush() }
}
