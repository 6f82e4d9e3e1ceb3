@preconcurrency import Glibc
import Testing
import TouchCore
import TouchSystem
@testable import TouchDaemon

/// Issue 17: the daemon's log cannot stall it (a reader that never reads costs lines, counted
/// and reported, never time).
@Suite struct NonBlockingStderrLogTests {
    @Test func aLogWhoseReaderNeverReadsReturnsPromptlyAndCountsWhatItDropped() {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let clock = Box(1_000_000)
        let log = StderrLog(threshold: .info, now: { clock.value }, output: NonBlockingLineWriter(descriptor: fds[1]))
        #expect(log.nextDeadline == nil)
        let start = Clock.monotonicMicros()
        // Lifecycle lines are never folded: each one is a write.
        // 4,000 lines of ~100 bytes: six times what a pipe holds (64 KiB), few enough that an
        // emulated arm64 run (qemu-user, scripts/test-arm64) formats them well inside the bound.
        for k in 0..<4_000 { log(.notice, "device \(k) came " + String(repeating: "x", count: 80)) }
        let took = Clock.monotonicMicros() - start
        #expect(took < 5_000_000, "the log waited for a reader that never reads (\(took) µs)")
        let dropped = log.droppedLines
        #expect(dropped > 0 && dropped < 4_000)
        // Backlogged: the event loop's timer comes back in a window to report the drops.
        #expect(log.nextDeadline == clock.value + StderrLog.window)
        // The reader reads again; the timer's tick says how many lines were dropped.
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        func drain() -> String {
            var out = ""
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
                if n <= 0 { return out }
                out += String(decoding: buffer[0..<n], as: UTF8.self)
            }
        }
        let first = drain()
        #expect(first.hasPrefix("touchd: notice: device 0 came "))
        #expect(first.split(separator: "\n").count + dropped == 4_000)
        clock.value += 10
        log.tick()
        #expect(drain() == "touchd: warning: \(dropped) log line(s) dropped: stderr was not taking more\n")
        #expect(log.nextDeadline == nil)
        log(.notice, "stopping")
        #expect(drain() == "touchd: notice: stopping\n")
        #expect(log.droppedLines == dropped)
    }

    @Test func theOfflineLogKeepsEveryLine() {
        // A log without a non-blocking output (replay, render) hands every line on, and never drops.
        var lines: [String] = []
        let log = StderrLog(threshold: .info, now: { 0 }, emit: { lines.append($0) })
        for k in 0..<3 { log(.notice, "line \(k)") }
        #expect(lines == ["touchd: notice: line 0\n", "touchd: notice: line 1\n", "touchd: notice: line 2\n"])
        #expect(log.droppedLines == 0 && log.nextDeadline == nil)
    }

    final class Box: @unchecked Sendable {
        var value: Int64
        init(_ v: Int64) { value = v }
    }
}
