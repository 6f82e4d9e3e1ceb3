import Foundation
import Glibc
import Testing

/// One client flooding requests without reading its replies neither delays the others nor
/// grows the daemon: its requests wait (and then its socket fills) once its replies fill its
/// queue.
@Suite struct FairServiceTests {
    func rssKiB(_ pid: pid_t) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    @Test func aFloodingClientDoesNotDelayOthersOrBloatTheDaemon() throws {
        let dir = TempDir()
        let sock = dir.path("touchd.sock")
        let d = try DaemonProcess(["--config", Paths.exampleConfig, "--replay", Paths.root.appendingPathComponent("captures/demo-taps-and-drag.events").path,
                                   "--wait-clients", "999"], socket: sock, dir: dir)
        let flooder = try LineClient(sock)
        let fd = flooder.fd
        let lines = String(repeating: "{\"ping\":\"flood\"}\n", count: 4096)
        nonisolated(unsafe) var stop = false
        nonisolated(unsafe) var sent = 0
        let t = Thread {
            // Blocking sends: once the daemon stops reading this client, they block.
            var flags = fcntl(fd, F_GETFL)
            flags &= ~O_NONBLOCK
            _ = fcntl(fd, F_SETFL, flags)
            while !stop {
                let n = lines.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                if n <= 0 { break }
                sent += n
            }
        }
        t.start()
        usleep(1_000_000)
        let sentThen = sent
        usleep(500_000)
        let other = try LineClient(sock)
        _ = other.next(); _ = other.next()   // hello, snapshot
        var worst = 0.0
        for k in 0..<20 {
            let start = Date()
            other.send("{\"ping\":\(k)}\n")
            guard let m = other.next(timeout: 5), m["type"] as? String == "pong" else { Issue.record("no pong"); break }
            worst = max(worst, Date().timeIntervalSince(start))
        }
        #expect(worst < 0.25, "a ping took \(worst) s while another client flooded")
        let rss = rssKiB(d.process.pid)
        #expect(rss < 64 * 1024, "daemon RSS \(rss) KiB under the flood")
        // It flooded until its replies filled its queue; then the daemon stopped reading it,
        // and its own sends blocked.
        #expect(sentThen > 100_000 && sent == sentThen, "sent \(sentThen), then \(sent)")
        stop = true
        flooder.closeNow()
        d.signal(SIGTERM)
        #expect(d.wait() == 0)
    }
}
