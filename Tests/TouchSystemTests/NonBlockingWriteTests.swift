@preconcurrency import Glibc
import Testing
@testable import TouchSystem

/// Issue 17: the daemon's non-blocking log output, bounded writes and the named errno values.

/// A pipe (or socket pair) whose far end the test reads only when it wants to.
final class Pair {
    let write: Int32, read: Int32
    init(socket: Bool = false) {
        var fds: [Int32] = [-1, -1]
        if socket {
            precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
        } else {
            precondition(pipe(&fds) == 0)
        }
        read = fds[0]
        write = fds[1]
    }
    deinit { close(read); close(write) }

    /// Everything the reader has, without waiting.
    func drain() -> String {
        let flags = fcntl(read, F_GETFL)
        _ = fcntl(read, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(read, F_SETFL, flags) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(read, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            out += chunk[0..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }
}

@Suite struct NonBlockingLineWriterTests {
    static let line = String(repeating: "x", count: 99) + "\n"

    /// Writes `count` numbered lines; returns how long it took (µs).
    func flood(_ w: NonBlockingLineWriter, _ count: Int) -> Int64 {
        let start = Clock.monotonicMicros()
        for k in 0..<count { w.write("line \(k) " + NonBlockingLineWriterTests.line) }
        return Clock.monotonicMicros() - start
    }

    func check(_ pair: Pair) {
        // The descriptor as the daemon gets it from journald or a shell: blocking.
        #expect(fcntl(pair.write, F_GETFL) & O_NONBLOCK == 0)
        let w = NonBlockingLineWriter(descriptor: pair.write)
        let total = 20_000   // about 2 MB: far more than a pipe or a socket buffer holds
        let took = flood(w, total)
        #expect(took < 5_000_000, "a reader that never reads must not stall the writer (took \(took) µs)")
        #expect(w.dropped > 0 && w.dropped == w.droppedTotal && w.dropped < total)
        // The descriptor the writer borrowed is left blocking (it may be shared with a terminal).
        #expect(fcntl(pair.write, F_GETFL) & O_NONBLOCK == 0)
        let taken = pair.drain()
        let whole = taken.split(separator: "\n", omittingEmptySubsequences: false)
        // Lines went out whole and in order; the last may have gone out in part.
        var k = 0
        for l in whole.dropLast() {
            #expect(l == "line \(k) " + Self.line.dropLast())
            k += 1
        }
        let dropped = w.dropped
        // The reader reads again: the next line first finishes the one cut off, then says
        // how many were dropped.
        #expect(w.write("after\n"))
        let rest = pair.drain()
        let started = whole.last.map { !$0.isEmpty } ?? false
        #expect(k + (started ? 1 : 0) + dropped == total)
        #expect(rest.hasSuffix("touchd: warning: \(dropped) log line(s) dropped: stderr was not taking more\nafter\n"))
        #expect((whole.last.map(String.init) ?? "") + rest == (started ? "line \(k) " + Self.line : "")
                + "touchd: warning: \(dropped) log line(s) dropped: stderr was not taking more\nafter\n")
        #expect(w.dropped == 0 && w.droppedTotal == dropped && !w.isBacklogged)
    }

    @Test func aPipeNobodyReadsDropsLinesAndCountsThem() { check(Pair()) }

    @Test func aSocketNobodyReadsDropsLinesAndCountsThem() { check(Pair(socket: true)) }   // journald's stream

    @Test func retrySaysHowManyWereDroppedWithoutWaitingForTheNextLine() {
        let pair = Pair()
        let w = NonBlockingLineWriter(descriptor: pair.write, notice: { "dropped \($0)\n" })
        _ = flood(w, 5000)
        let dropped = w.dropped
        #expect(dropped > 0 && w.isBacklogged)
        w.retry()   // still full: nothing changes
        #expect(w.dropped == dropped)
        _ = pair.drain()
        w.retry()
        #expect(pair.drain().hasSuffix("dropped \(dropped)\n"))
        #expect(!w.isBacklogged)
    }

    @Test func aRegularFileTakesEveryLine() throws {
        let dir = Scratch()
        let path = dir.file("log", [])
        let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        defer { close(fd) }
        let w = NonBlockingLineWriter(descriptor: fd)
        for k in 0..<3 { w.write("line \(k)\n") }
        #expect(w.droppedTotal == 0)
        #expect(try FileSystem.read(path, limit: 1000) == Array("line 0\nline 1\nline 2\n".utf8))
    }
}

@Suite struct BoundedWriteTests {
    @Test func writeAllToAFullNonBlockingReaderGivesUpAtItsTimeout() throws {
        let pair = Pair()
        _ = fcntl(pair.write, F_SETFL, fcntl(pair.write, F_GETFL) | O_NONBLOCK)
        let fd = FileDescriptor(adopting: dup(pair.write))
        let bytes = [UInt8](repeating: 0x41, count: 1 << 20)   // more than the pipe holds
        let start = Clock.monotonicMicros()
        #expect(throws: SystemError("write", .timedOut)) { _ = try fd.writeAll(bytes, timeoutMS: 100) }
        let took = Clock.monotonicMicros() - start
        #expect(took >= 100_000 && took < 3_000_000)
        // A reader that keeps up gets everything.
        let small = [UInt8](repeating: 0x42, count: 100)
        _ = pair.drain()
        #expect(try fd.writeAll(small, timeoutMS: 100))
        #expect(pair.drain() == String(repeating: "B", count: 100))
    }
}

@Suite struct NamedErrnoTests {
    @Test func aFileInThePathIsNotADirectory() throws {
        let dir = Scratch()
        let file = dir.file("plain", [])
        #expect(throws: SystemError("mkdir", .notDirectory, path: file)) { _ = try FileSystem.makeParents(of: file + "/sub/socket") }
        #expect(Errno.notDirectory.rawValue == ENOTDIR && Errno.badDescriptor.rawValue == EBADF && Errno.timedOut.rawValue == ETIMEDOUT)
    }

    @Test func removingADescriptorEpollDoesNotWatchIsNotAnError() throws {
        let epoll = try Epoll()
        let pair = Pair()
        // Never added: epoll_ctl(DEL) fails with ENOENT, which remove() forgives.
        try epoll.remove(Descriptor(rawValue: pair.read))
        // Not a descriptor at all: EBADF, forgiven too.
        try epoll.remove(Descriptor(rawValue: 100_000))
    }
}
