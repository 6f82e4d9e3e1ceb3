import Foundation
import Glibc
import Testing

/// Issue 21: `touchd subscribe` buffered an endless line from a broken or hostile daemon without
/// bound (2.3 GB in 6 s). A line over 8 MiB is now skipped as it streams in, with a warning,
/// and the stream goes on.
@Suite struct SubscribeBoundTests {
    /// Peak resident memory of a process, KiB (VmHWM).
    func peakKiB(_ pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }

    func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return false }
            off += n
        }
        return true
    }

    @Test func anEndlessLineFromTheDaemonIsSkippedInBoundedMemory() throws {
        let dir = NSTemporaryDirectory() + "touchd-sub-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/s.sock"
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(listener) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { p in for (i, b) in path.utf8.enumerated() { p[i] = b } }
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        #expect(bound == 0 && listen(listener, 1) == 0)
        let out = ChildPipe(), err = ChildPipe()
        let child = try Spawned(Paths.binary, ["subscribe", "--socket", path], stdout: out.write, stderr: err.write)
        close(out.write); close(err.write)
        var pfd = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        #expect(Glibc.poll(&pfd, 1, 10_000) == 1, "subscribe did not connect")
        let conn = accept(listener, nil, nil)
        #expect(conn >= 0)
        defer { close(conn) }
        #expect(sendAll(conn, Array("{\"type\":\"hello\",\"protocol\":1}\n{\"type\":\"snapshot\",\"touches\":[]}\n".utf8)))
        // 64 MiB without a newline, in 1 MiB pieces.
        let piece = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        for _ in 0..<64 { #expect(sendAll(conn, piece)) }
        let peak = peakKiB(child.pid) ?? Int.max
        #expect(sendAll(conn, Array("\n{\"type\":\"frame\",\"seq\":1}\n{\"type\":\"bye\",\"reason\":\"shutdown\"}\n".utf8)))
        let (stdout, stderr) = drain(out.read, err.read, until: Date().addingTimeInterval(20))
        close(out.read); close(err.read)
        let exit = child.wait(timeout: 20, "subscribe")
        #expect(exit.status == 0 && !exit.signalled)
        // Far below the 64 MiB it was sent (8 MiB at most is held before the limit).
        #expect(peak < 40 << 10, "peak \(peak) KiB")
        let printed = String(decoding: stdout, as: UTF8.self)
        #expect(printed.contains("{\"type\":\"frame\",\"seq\":1}"), "\(printed.prefix(300))")
        #expect(!printed.contains("xxxx"))
        #expect(String(decoding: stderr, as: UTF8.self).contains("longer than 8388608 bytes; skipped"))
    }
}
