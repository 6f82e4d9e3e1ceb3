import Foundation
import Glibc
import Testing

/// A temporary directory per test, removed at the end.
final class TempDir {
    let url: URL
    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("touchd-\(getpid())-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    func write(_ name: String, _ text: String) -> String {
        let p = path(name)
        FileManager.default.createFile(atPath: p, contents: Data(text.utf8))
        return p
    }
    deinit { try? FileManager.default.removeItem(at: url) }
}

/// A running `touchd run`, its stderr collected in a file.
final class DaemonProcess {
    let process: Spawned
    let socket: String
    let logPath: String

    init(_ args: [String], socket: String, dir: TempDir, environment: [String: String] = [:], waitForSocket: Bool = true) throws {
        self.socket = socket
        logPath = dir.path("daemon-\(UUID().uuidString.prefix(6)).log")
        let log = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer { close(log) }
        process = try Spawned(Paths.binary, ["run", "--socket", socket] + args, environment: environment, stderr: log)
        if waitForSocket {
            // Ready when it says so (the socket file alone may be a stale one it will replace).
            let deadline = Date().addingTimeInterval(20)
            while !self.log.contains("listening on") && Date() < deadline && process.isRunning { usleep(10_000) }
            if !self.log.contains("listening on") { Issue.record("daemon did not listen: \(self.log)") }
        }
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    func signal(_ s: Int32) { process.signal(s) }

    /// Waits for exit (bounded); returns the exit status.
    @discardableResult
    func wait(timeout: TimeInterval = 20) -> Int32 {
        process.wait(timeout: timeout, "daemon").status
    }
}

/// A plain Unix-socket client with line reading and timeouts.
final class LineClient {
    let fd: Int32
    var buffer: [UInt8] = []
    var closed = false

    init(_ path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() { raw[i] = b }
        }
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if r != 0 {
            let e = errno
            close(fd)
            throw NSError(domain: "connect", code: Int(e))
        }
    }

    deinit { close(fd) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            off += n
        }
    }

    /// The next line as a JSON object, or nil on timeout / close.
    func next(timeout: TimeInterval = 10) -> [String: Any]? {
        guard let line = nextLine(timeout: timeout) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? ["unparsable": line]
    }

    func nextLine(timeout: TimeInterval = 10) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            if closed { return nil }
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, Int32(left * 1000)) <= 0 { return nil }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { closed = true; continue }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }

    /// Every line until the daemon closes the connection (or the time limit).
    func all(timeout: TimeInterval = 30) -> [String] {
        var out: [String] = []
        let deadline = Date().addingTimeInterval(timeout)
        while let l = nextLine(timeout: max(0.1, deadline.timeIntervalSinceNow)) { out.append(l) }
        return out
    }
}

func json(_ line: String) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
}
