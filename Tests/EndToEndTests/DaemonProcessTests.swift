import Foundation
import Glibc
import Testing

/// The real `touchd run` with a real socket in a temporary directory and real clients.
@Suite struct DaemonProcessTests {
    let example = Paths.exampleConfig
    var demo: String { Paths.root.appendingPathComponent("captures/demo-taps-and-drag.events").path }
    var long: String { Paths.fixture("daemon/long-two-fingers.events") }

    func offline(_ config: String, _ capture: String) throws -> [String] {
        let r = try touchd("replay", "--config", config, capture)
        #expect(r.status == 0)
        return r.lines
    }

    @Test func socketStreamMatchesOfflineReplayExactly() throws {
        let dir = TempDir()
        let capture = Paths.capture("edt-ft5x06-EP0430M09_4-finger-drag-down.events")
        let sock = dir.path("run/touchd.sock")
        let d = try DaemonProcess(["--config", example, "--replay", capture, "--speed", "0", "--wait-clients", "1", "--exit-at-end"],
                                  socket: sock, dir: dir)
        let c = try LineClient(sock)
        let hello = c.next()
        #expect(hello?["type"] as? String == "hello")
        #expect(hello?["protocol"] as? Int == 1)
        #expect((hello?["screen"] as? [String: Any])?["width"] as? Double == 800)
        c.send("{\"ping\":1}\n")
        let lines = c.all()
        #expect(d.wait() == 0)
        let expected = try offline(example, capture)
        // The device was added before the client came: it is in the snapshot instead.
        let snapshot = json(lines[0])
        #expect(snapshot["type"] as? String == "snapshot")
        let device = (snapshot["devices"] as? [[String: Any]])?.first
        #expect(device?["name"] as? String == "EP0430M09")
        #expect(json(expected[0])["type"] as? String == "device")
        let published = lines.filter { ["frame", "control"].contains(json($0)["type"] as? String) }
        #expect(published == Array(expected.dropFirst()))
        #expect(published.count > 100)
        #expect(lines.contains("{\"type\":\"pong\",\"ping\":1}"))
        #expect(json(lines.last!)["type"] as? String == "bye")
        #expect(!FileManager.default.fileExists(atPath: sock))
    }

    @Test func subscriptionsFilterByTypeAndView() throws {
        let dir = TempDir()
        let sock = dir.path("touchd.sock")
        let d = try DaemonProcess(["--config", example, "--replay", demo, "--speed", "0", "--wait-clients", "2", "--exit-at-end"],
                                  socket: sock, dir: dir)
        let controls = try LineClient(sock)
        let panel = try LineClient(sock)
        controls.send("{\"subscribe\":{\"types\":[\"control\"]}}\n")
        panel.send("{\"subscribe\":{\"views\":[\"panel\"],\"types\":[\"frame\"]}}\n")
        let a = controls.all().map(json)
        let b = panel.all().map(json)
        #expect(d.wait() == 0)
        let expected = try offline(example, demo).map(json)
        let expectedControls = expected.filter { $0["type"] as? String == "control" }.map { "\($0["control"]!).\($0["event"]!)" }
        #expect(a.filter { $0["type"] as? String == "control" }.map { "\($0["control"]!).\($0["event"]!)" } == expectedControls)
        #expect(!a.contains { $0["type"] as? String == "frame" })
        // The panel and its subviews (play, stop, volume): touches 2, 3 (play) and 4 (panel).
        let panelViews: Set<String> = ["panel", "play", "stop", "volume"]
        let ids = Set(expected.filter { $0["type"] as? String == "frame" }.flatMap(\.touches)
            .filter { panelViews.contains($0["view"] as? String ?? "") }.map { $0["id"] as! Int })
        #expect(ids == [2, 3, 4])
        let frames = b.filter { $0["type"] as? String == "frame" }
        #expect(!frames.isEmpty)
        #expect(Set(frames.flatMap(\.touches).map { $0["id"] as! Int }) == ids)
        #expect(!b.contains { $0["type"] as? String == "control" })
    }

    @Test func lateSubscriberSeesASnapshotBeforeAnyMove() throws {
        let dir = TempDir()
        let sock = dir.path("touchd.sock")
        let d = try DaemonProcess(["--config", Paths.fixture("daemon/halves.json"), "--replay", long, "--speed", "1",
                                   "--wait-clients", "1", "--exit-at-end"], socket: sock, dir: dir)
        let first = try LineClient(sock)
        first.send("{\"ping\":0}\n")
        usleep(1_000_000)   // one second into the three-second hold
        let late = try LineClient(sock)
        #expect(late.next()?["type"] as? String == "hello")
        let snap = late.next()
        #expect(snap?["type"] as? String == "snapshot")
        let down = (snap?["touches"] as? [[String: Any]]) ?? []
        #expect(down.map { $0["id"] as? Int } == [1, 2])
        #expect(down.allSatisfy { $0["phase"] as? String == "stationary" && $0["device"] as? String == "long-two-fingers" })
        let later = late.all().map(json).filter { $0["type"] as? String == "frame" }
        #expect(later.count > 5)
        // Every touch it hears about was in the snapshot or began in its sight.
        var known = Set(down.compactMap { $0["id"] as? Int })
        for f in later {
            for t in f.touches {
                let id = t["id"] as! Int
                if t["phase"] as? String == "began" { known.insert(id) }
                #expect(known.contains(id), "touch \(id) \(t["phase"]!) without a snapshot or began")
            }
        }
        _ = first.all()
        #expect(d.wait() == 0)
    }

    @Test func badClientInputGetsErrorsAndTheConnectionStaysUsable() throws {
        let dir = TempDir()
        let sock = dir.path("touchd.sock")
        let d = try DaemonProcess(["--config", example, "--replay", demo, "--wait-clients", "99"], socket: sock, dir: dir)
        let c = try LineClient(sock)
        _ = c.next(); _ = c.next()   // hello, snapshot
        c.send("{\"ping\":41}\n")
        #expect(c.nextLine() == "{\"type\":\"pong\",\"ping\":41}")
        c.send("this is not json\n")
        let e1 = c.next()
        #expect(e1?["type"] as? String == "error")
        #expect((e1?["error"] as? String)?.hasPrefix("invalid JSON") == true)
        #expect(e1?["line"] as? Int == 2)
        c.send("{\"subscribe\":{\"types\":[\"frame\"],\"colour\":[\"red\"]}}\n")
        #expect((c.next()?["error"] as? String) == "subscribe: unknown key \"colour\" (expected: types, windows, views, maxRate, speaker)")
        c.send("{\"subscribe\":{\"views\":[\"nope\"]}}\n")
        #expect((c.next()?["error"] as? String)?.contains("no window or view has id \"nope\"") == true)
        c.send(String(repeating: "x", count: 200_000) + "\n")
        let e3 = c.next()
        #expect((e3?["error"] as? String) == "line 5 is longer than 65536 bytes; skipped")
        c.send("{\"ping\":\"still here\"}\n")
        #expect(c.nextLine() == "{\"type\":\"pong\",\"ping\":\"still here\"}")
        c.send("{\"stats\":true}\n")
        let stats = c.next()
        #expect(stats?["type"] as? String == "stats")
        #expect(stats?["clients"] as? Int == 1)
        d.signal(SIGTERM)
        #expect(c.next()?["type"] as? String == "bye")
        #expect(d.wait() == 0)
        #expect(d.log.contains("client 1 connected: pid \(getpid()) uid \(getuid())"))
    }

    @Test func sigtermCancelsLiveTouchesAndRemovesTheSocket() throws {
        let dir = TempDir()
        let sock = dir.path("touchd.sock")
        let d = try DaemonProcess(["--config", Paths.fixture("daemon/halves.json"), "--replay", long, "--speed", "1", "--wait-clients", "1"],
                                  socket: sock, dir: dir)
        let c = try LineClient(sock)
        c.send("{\"subscribe\":{\"types\":[\"frame\"]}}\n")
        var began = 0
        while began < 2, let m = c.next() {
            began += m.touches.filter { $0["phase"] as? String == "began" }.count
        }
        d.signal(SIGTERM)
        let rest = c.all().map(json)
        #expect(d.wait() == 0)
        let cancelled = rest.filter { $0["type"] as? String == "frame" }.last?.touches ?? []
        #expect(cancelled.map { $0["phase"] as? String } == ["cancelled", "cancelled"])
        #expect(cancelled.allSatisfy { $0["reason"] as? String == "shutdown" })
        #expect(rest.last?["type"] as? String == "bye")
        #expect(!FileManager.default.fileExists(atPath: sock))
        #expect(d.log.contains("SIGTERM: stopping"))
    }

    @Test func sighupReloadsAGoodConfigAndKeepsTheOldOneForABadOne() throws {
        let dir = TempDir()
        let sock = dir.path("touchd.sock")
        let config = dir.write("touchd.json", try String(contentsOfFile: Paths.fixture("daemon/halves.json"), encoding: .utf8))
        let d = try DaemonProcess(["--config", config, "--replay", long, "--speed", "1", "--wait-clients", "1"], socket: sock, dir: dir)
        let c = try LineClient(sock)
        c.send("{\"subscribe\":{\"types\":[\"frame\"]}}\n")
        var began = 0
        while began < 2, let m = c.next() { began += m.touches.filter { $0["phase"] as? String == "began" }.count }
        // A bad config: rejected, everything goes on.
        _ = dir.write("touchd.json", "{\"windows\": [{\"id\": 1}]}")
        d.signal(SIGHUP)
        usleep(300_000)
        #expect(d.log.contains("reload rejected: the previous configuration stays in force"))
        #expect(d.log.contains("$.windows[0].id: expected a string, got a number"))
        // A good one without the right-hand view: touch 2 is cancelled, touch 1 goes on.
        _ = dir.write("touchd.json", try String(contentsOfFile: Paths.fixture("daemon/halves-without-gone.json"), encoding: .utf8))
        d.signal(SIGHUP)
        var cancel: [String: Any]?
        var afterwards: [[String: Any]] = []
        while let m = c.next(timeout: 5) {
            if m["type"] as? String == "bye" { break }
            if let t = m.touches.first(where: { $0["reason"] as? String == "view-removed" }) { cancel = t; continue }
            if cancel != nil { afterwards.append(m) }
            if afterwards.count >= 3 { break }
        }
        #expect(cancel?["id"] as? Int == 2)
        #expect(cancel?["view"] as? String == "gone")
        #expect(afterwards.count == 3)
        #expect(afterwards.allSatisfy { $0.touches.map { $0["id"] as? Int } == [1] && $0.calls == ["keep.touchesMoved(1)"] })
        // The reload counts what check-config counts (it counted every slot, windows too).
        let check = try touchd("check-config", config)
        #expect(check.stdout.contains("1 window(s), 2 view(s)"))
        #expect(d.log.contains("reloaded: 1 window(s), 2 view(s) (as check-config counts them); 0 client window(s) kept"))
        d.signal(SIGTERM)
        #expect(d.wait() == 0)
    }

    @Test func twoDaemonsStartedAtOnceOnOneSocketRunOnce() throws {
        let dir = TempDir()
        let sock = dir.path("touchd.sock")
        var logs: [Int32] = []
        var procs: [Spawned] = []
        for k in 0..<2 {
            let log = open(dir.path("d\(k).log"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            logs.append(log)
            procs.append(try Spawned(Paths.binary, ["run", "--config", example, "--socket", sock, "--replay", demo, "--wait-clients", "9"], stderr: log))
        }
        for l in logs { close(l) }
        usleep(1_500_000)
        let running = procs.filter(\.isRunning)
        #expect(running.count == 1)
        let loser = procs.first { !$0.isRunning }
        let loserLog = (try? String(contentsOfFile: dir.path("d\(procs.firstIndex { $0 === loser } ?? 0).log"), encoding: .utf8)) ?? ""
        #expect(loserLog.contains("another touchd (pid \(running.first?.pid ?? -1)) is running on \(sock)"), "\(loserLog)")
        #expect(loser.map { $0.wait(timeout: 5, "loser").status } == 1)
        // The winner serves; stopping it removes its socket.
        #expect(try LineClient(sock).next()?["type"] as? String == "hello")
        running.first?.signal(SIGTERM)
        #expect(running.first?.wait(timeout: 10, "winner").status == 0)
        #expect(!FileManager.default.fileExists(atPath: sock))
    }

    @Test func aDaemonRemovesOnlyTheSocketItMade() throws {
        let dir = TempDir()
        let sock = dir.path("touchd.sock")
        let d = try DaemonProcess(["--config", example, "--replay", demo, "--wait-clients", "9"], socket: sock, dir: dir)
        // Someone replaces the socket file behind its back (as a second daemon did before the
        // lock): stopping must not delete the newcomer's file.
        unlink(sock)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in sock.utf8.enumerated() { raw[i] = b } }
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        d.signal(SIGTERM)
        #expect(d.wait() == 0)
        #expect(FileManager.default.fileExists(atPath: sock))
        #expect(d.log.contains("is no longer the socket this daemon made; left alone"))
        close(fd)
    }

    @Test func staleSocketIsReplacedButALiveOneIsLeftAlone() throws {
        let dir = TempDir()
        let sock = dir.path("touchd.sock")
        // A socket file with nobody listening, as a crashed run leaves it.
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in sock.utf8.enumerated() { raw[i] = b } }
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        close(fd)
        #expect(FileManager.default.fileExists(atPath: sock))
        let d = try DaemonProcess(["--config", example, "--replay", demo, "--wait-clients", "9"], socket: sock, dir: dir)
        _ = try LineClient(sock).next()
        #expect(d.log.contains("removed a stale socket left by an earlier run: \(sock)"))
        let second = try runProgram(Paths.binary, ["run", "--config", example, "--socket", sock, "--replay", demo])
        #expect(second.status == 1)
        #expect(second.stderr.contains("another touchd (pid \(d.process.pid)) is running on \(sock)"))
        let plain = dir.write("plain-file", "x")
        let third = try runProgram(Paths.binary, ["run", "--config", example, "--socket", plain, "--replay", demo])
        #expect(third.status == 1 && third.stderr.contains("\(plain) exists and is not a socket; refusing to replace it"))
        d.signal(SIGINT)
        #expect(d.wait() == 0)
    }

    @Test func socketModeAndParentDirectoryFromTheConfig() throws {
        let dir = TempDir()
        let sock = dir.path("a/b/touchd.sock")
        let cfg = dir.write("c.json", """
            {"socket": {"path": "\(sock)", "mode": "0600", "group": null},
             "windows": [{"id": "w", "frame": [0, 0, 800, 480]}]}
            """)
        let p = try Spawned(Paths.binary, ["run", "--config", cfg, "--replay", demo, "--wait-clients", "9"])
        defer { p.signal(SIGKILL) }
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: sock) && Date() < deadline { usleep(10_000) }
        var st = stat()
        #expect(stat(sock, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o600)
        #expect(st.st_mode & S_IFMT == S_IFSOCK)
    }

    @Test func clientLimitRefusesWithAnErrorLine() throws {
        let dir = TempDir()
        let sock = dir.path("touchd.sock")
        let cfg = dir.write("c.json", "{\"clients\": {\"max\": 2}, \"windows\": [{\"id\": \"w\", \"frame\": [0, 0, 800, 480]}]}")
        let d = try DaemonProcess(["--config", cfg, "--replay", demo, "--wait-clients", "9"], socket: sock, dir: dir)
        let a = try LineClient(sock), b = try LineClient(sock)
        #expect(a.next()?["type"] as? String == "hello" && b.next()?["type"] as? String == "hello")
        let third = try LineClient(sock)
        #expect((third.next()?["error"] as? String) == "too many clients (the limit is 2); try again later")
        #expect(third.next(timeout: 2) == nil)   // and closed
        a.send("{\"ping\":2}\n")
        _ = a.next()
        #expect(a.next()?["type"] as? String == "pong")
        d.signal(SIGTERM)
        #expect(d.wait() == 0)
    }
}
