import Foundation
import Glibc
import Testing

/// At the descriptor limit the daemon stops accepting (no busy loop) until a client leaves.
@Suite struct DescriptorLimitTests {
    func cpuTicks(_ pid: pid_t) -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)   // utime + stime
    }

    /// This process's descriptors above 2 that a child would inherit (no FD_CLOEXEC).
    func inheritable() -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.compactMap { Int32($0) }.filter { $0 > 2 && fcntl($0, F_GETFD) >= 0 && fcntl($0, F_GETFD) & FD_CLOEXEC == 0 }.count
    }

    @Test func outOfDescriptorsItWaitsInsteadOfSpinning() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit") else {
            Issue.record("prlimit (util-linux) is needed for this test")
            return
        }
        let dir = TempDir()
        let sock = dir.path("touchd.sock")
        let log = open(dir.path("daemon.log"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        // 24 descriptors of the daemon's own, beyond those it inherits from this test process
        // (descriptors other tests running beside it opened without O_CLOEXEC).
        let limit = 24 + inheritable()
        let p = try Spawned("/usr/bin/prlimit", ["--nofile=\(limit):\(limit)", Paths.binary, "run", "--config", Paths.exampleConfig, "--socket", sock,
                                                  "--replay", Paths.root.appendingPathComponent("captures/demo-taps-and-drag.events").path,
                                                  "--wait-clients", "999"], stderr: log)
        close(log)
        var clients: [LineClient] = []
        var waited = 0
        while !FileManager.default.fileExists(atPath: sock) && waited < 200 { usleep(20_000); waited += 1 }
        for _ in 0..<30 { if let c = try? LineClient(sock) { clients.append(c) } }
        usleep(500_000)
        let text = { (try? String(contentsOfFile: dir.path("daemon.log"), encoding: .utf8)) ?? "" }
        #expect(text().contains("out of file descriptors"))
        // Idle at the limit: next to no CPU over a second (a spinning accept loop takes it all).
        let before = cpuTicks(p.pid)
        usleep(1_000_000)
        let used = cpuTicks(p.pid) - before
        #expect(used < 20, "\(used) ticks of CPU in a second at the descriptor limit")
        // A served client leaves: one that waited in the backlog is served.
        let served = clients.filter { $0.next(timeout: 0.05)?["type"] as? String == "hello" }
        #expect(!served.isEmpty && served.count < clients.count)
        served.first?.closeNow()
        usleep(300_000)
        #expect(text().contains("accepting new clients again"))
        let waiting = clients.filter { c in !served.contains { $0 === c } }
        #expect(waiting.contains { $0.next(timeout: 0.5)?["type"] as? String == "hello" })
        p.signal(SIGTERM)
        #expect(p.wait(timeout: 10, "daemon").status == 0)
    }
}
