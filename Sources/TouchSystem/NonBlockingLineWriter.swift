@preconcurrency import Glibc

/// Whole lines to a descriptor that must never stall its caller: the daemon's log on stderr,
/// which journald (or whatever reads the pipe) may stop taking. A line the descriptor cannot
/// take now is dropped and counted, never waited for; once it takes lines again, the next one
/// is preceded by `notice(count)` ("N log line(s) dropped"). The unwritten end of a line that
/// went out in part is kept and finished first, so lines stay whole.
///
/// The descriptor itself is left as it is (it is often shared: a terminal, the parent's
/// pipe): a socket (journald's stream) is written with send(MSG_DONTWAIT); a pipe, FIFO or
/// terminal through a descriptor of its own opened non-blocking (/proc/self/fd/N), or where
/// that fails, only when poll says it has room; a regular file as it is (it does not block).
/// Owned by one thread.
public final class NonBlockingLineWriter {
    enum Mode: Equatable {
        /// send(MSG_DONTWAIT | MSG_NOSIGNAL).
        case send
        /// write(2) on a descriptor that is non-blocking, or a regular file.
        case write
        /// poll(POLLOUT, 0) first: a line up to PIPE_BUF then fits without waiting.
        case pollFirst
    }

    /// The descriptor written: stderr's own (borrowed), or one opened for it (owned).
    let descriptor: FileDescriptor
    var fd: Int32 { descriptor.rawValue }
    let mode: Mode
    let notice: (Int) -> String
    /// The end of a line that went out in part.
    var pending: [UInt8] = []
    /// Lines dropped since the last notice.
    public private(set) var dropped = 0
    /// Every line dropped.
    public private(set) var droppedTotal = 0

    /// `descriptor` is borrowed (stderr: 2); the writer never closes it.
    public init(descriptor: Int32, notice: @escaping (Int) -> String = NonBlockingLineWriter.defaultNotice) {
        self.notice = notice
        var st = stat()
        let kind = fstat(descriptor, &st) == 0 ? st.st_mode & S_IFMT : 0
        var own: Int32 = -1
        if kind != S_IFSOCK && kind != S_IFREG && fcntl(descriptor, F_GETFL) & O_NONBLOCK == 0 {
            // A pipe, FIFO or terminal: the same one through a new open file description, so
            // that its O_NONBLOCK is ours alone.
            own = retryingEINTR { open("/proc/self/fd/\(descriptor)", O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY) }
        }
        if own >= 0 { self.descriptor = FileDescriptor(adopting: own) } else { self.descriptor = .borrowing(descriptor) }
        if kind == S_IFSOCK {
            mode = .send
        } else if own >= 0 || kind == S_IFREG || fcntl(descriptor, F_GETFL) & O_NONBLOCK != 0 {
            mode = .write
        } else {
            mode = .pollFirst
        }
    }

    /// The process's stderr.
    public static func standardError() -> NonBlockingLineWriter { NonBlockingLineWriter(descriptor: STDERR_FILENO) }

    public static func defaultNotice(_ count: Int) -> String {
        "touchd: warning: \(count) log line(s) dropped: stderr was not taking more\n"
    }

    /// Writes one line (with its newline), or drops it and counts it when the descriptor
    /// cannot take it now. Never waits. True when the line went out (or its start did, the
    /// rest kept to finish first).
    @discardableResult
    public func write(_ line: String) -> Bool { write(Array(line.utf8)) }

    @discardableResult
    public func write(_ line: [UInt8]) -> Bool {
        guard reportDrops(), offer(line) else {
            dropped += 1
            droppedTotal += 1
            return false
        }
        return true
    }

    /// Finishes a line that went out in part and reports drops, where the descriptor takes
    /// them now (for a timer: the notice need not wait for the next line).
    public func retry() {
        _ = reportDrops()
    }

    /// True while something waits to be written: the end of a line, or the drops' notice.
    public var isBacklogged: Bool { !pending.isEmpty || dropped > 0 }

    /// The notice of the drops so far, when there are any; false when it could not go out.
    func reportDrops() -> Bool {
        guard flushPending() else { return false }
        guard dropped > 0 else { return true }
        guard offer(Array(notice(dropped).utf8)) else { return false }
        dropped = 0
        return true
    }

    /// Writes what it can of `bytes` after the pending end of a line; false when none of it
    /// went out.
    func offer(_ bytes: [UInt8]) -> Bool {
        guard flushPending() else { return false }
        guard !bytes.isEmpty else { return true }
        let n = put(bytes[...])
        guard n > 0 else { return false }
        if n < bytes.count { pending = Array(bytes[n...]) }
        return true
    }

    func flushPending() -> Bool {
        guard !pending.isEmpty else { return true }
        let n = put(pending[...])
        pending.removeFirst(n)
        return pending.isEmpty
    }

    /// Bytes written now, without waiting: 0 when the descriptor is full (or gone).
    func put(_ bytes: ArraySlice<UInt8>) -> Int {
        if mode == .pollFirst {
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard retryingEINTR({ poll(&p, 1, 0) }) > 0, p.revents & Int16(POLLOUT) != 0 else { return 0 }
        }
        let n = bytes.withUnsafeBytes { b in
            retryingEINTR {
                mode == .send ? Glibc.send(fd, b.baseAddress, b.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
                              : Glibc.write(fd, b.baseAddress, b.count)
            }
        }
        return max(n, 0)
    }
}
