import Foundation
import Glibc
import Testing

/// touchd's TUIO output decoded by independent readers: python-osc (PyPI, fetched by
/// scripts/deps into .build/pydeps) through examples/tuio_receiver.py, and Debian's oscdump.
@Suite(.serialized) struct TuioOverUDPTests {
    /// A UDP port nobody uses right now.
    func freePort() -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return UInt16(bigEndian: addr.sin_port)
    }

    func config(_ dir: TempDir, port: UInt16) throws -> String {
        var text = try String(contentsOfFile: Paths.exampleConfig, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"windows\"", with: "\"tuio\": {\"targets\": [\"127.0.0.1:\(port)\"], \"source\": \"test\", \"fullStateInterval\": 0.5}, \"windows\"")
        return dir.write("touchd.json", text)
    }

    /// A receiver program started with its standard output going to the file `out`.
    func receiver(_ program: String, _ args: [String], writingTo out: String) throws -> Spawned {
        let fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer { close(fd) }
        return try Spawned(program, args, stdout: fd)
    }

    @Test(.enabled(if: PythonModules.available("pythonosc", wheel: "python_osc"), PythonModules.pythonOsc))
    func pythonOscDecodesEveryBundleAndTheCursorsAreTheTouches() throws {
        let dir = TempDir()
        let port = freePort()
        let cfg = try config(dir, port: port)
        let capture = Paths.root.appendingPathComponent("captures/demo-taps-and-drag.events").path
        let out = dir.path("bundles.ndjson")
        let receiver = try receiver("/usr/bin/python3", [Paths.root.appendingPathComponent("examples/tuio_receiver.py").path, "--port", String(port),
                                                         "--json", "--idle", "3"], writingTo: out)
        usleep(500_000)
        let sock = dir.path("touchd.sock")
        let d = try DaemonProcess(["--config", cfg, "--replay", capture, "--speed", "1", "--exit-at-end"], socket: sock, dir: dir)
        #expect(d.wait() == 0)
        #expect(receiver.wait(timeout: 20, "receiver").status == 0)
        let bundles = ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n").map {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [[String: Any]] ?? []
        }
        #expect(bundles.count >= 10)
        // The touches offline: after each frame, those down and where (screen = window, here).
        let offline = try touchd("replay", "--config", Paths.exampleConfig, capture)
        var down: [Int: [Double]] = [:]
        var expected: [[Int: [Double]]] = []
        for f in offline.messages where f.type == "frame" {
            for t in f.touches {
                let id = t["id"] as! Int
                if ["ended", "cancelled"].contains(t["phase"] as? String) { down[id] = nil } else { down[id] = t["location"] as? [Double] }
            }
            expected.append(down)
        }
        var frames: [[Int: [Double]]] = []
        var fseqs: [Int] = []
        for b in bundles {
            let args = b.map { $0["args"] as? [Any] ?? [] }
            #expect(b.allSatisfy { $0["address"] as? String == "/tuio/2Dcur" })
            #expect(args.first?.first as? String == "source" && (args.first?[1] as? String)?.hasPrefix("test@") == true)
            #expect(args.count >= 3 && args[1].first as? String == "alive" && args.last?.first as? String == "fseq")
            let alive = Set(args[1].dropFirst().compactMap { $0 as? Int })
            var cursors: [Int: [Double]] = [:]
            for a in args where a.first as? String == "set" {
                cursors[a[1] as! Int] = [(a[2] as! Double) * 800, (a[3] as! Double) * 480]
            }
            #expect(Set(cursors.keys) == alive)
            let fseq = args.last?[1] as? Int ?? -2
            if fseq >= 0 {
                fseqs.append(fseq)
                frames.append(cursors)
            }
        }
        // One bundle per frame, fseq counting up from 0, and the same touches at the same
        // places (float32 on the wire: within a thousandth of a point).
        #expect(fseqs == Array(0..<fseqs.count))
        #expect(frames.count == expected.count)
        for (got, want) in zip(frames, expected) {
            #expect(Set(got.keys) == Set(want.keys))
            for (id, p) in want { #expect(abs((got[id]?[0] ?? -1) - p[0]) < 1e-3 && abs((got[id]?[1] ?? -1) - p[1]) < 1e-3) }
        }
    }

    @Test func oscdumpReadsTheSameStream() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/oscdump") else {
            Issue.record("oscdump (Debian's liblo-tools) is needed; scripts/deps test installs it")
            return
        }
        let dir = TempDir()
        let port = freePort()
        let cfg = try config(dir, port: port)
        let out = dir.path("oscdump.txt")
        let dump = try receiver("/usr/bin/oscdump", ["-L", String(port)], writingTo: out)
        usleep(300_000)
        let d = try DaemonProcess(["--config", cfg, "--replay", Paths.root.appendingPathComponent("captures/demo-taps-and-drag.events").path,
                                   "--speed", "1", "--exit-at-end"], socket: dir.path("touchd.sock"), dir: dir)
        #expect(d.wait() == 0)
        usleep(300_000)
        dump.signal(SIGKILL)   // it waits for messages for ever; -L has written each line
        _ = dump.wait(timeout: 5, "oscdump")
        let lines = ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n")
        // `<time> /tuio/2Dcur si "fseq" 3` and the like: a source, alive and fseq in every bundle.
        let fseq = lines.filter { $0.contains("/tuio/2Dcur si \"fseq\"") }
        #expect(fseq.count >= 10)
        #expect(lines.filter { $0.contains("/tuio/2Dcur ss \"source\" \"test@") }.count == fseq.count)
        #expect(lines.filter { $0.contains("\"alive\"") }.count == fseq.count)
        // The first touch, (50, 30) on 800 × 480.
        #expect(lines.contains { $0.contains("/tuio/2Dcur sifffff \"set\" 1 0.062500 0.062500") }, "\(lines.prefix(8))")
    }

    /// A target per display (issue 33, item 5): the capture's panel is on B by its devices[]
    /// entry; the target that names A gets bundles with no cursor, the one that names B gets
    /// the touches normalised to B (50, 30 of 800 × 480 units is 0.06…, 0.06… of B).
    @Test func eachTargetGetsItsOwnOutputsTouches() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/oscdump") else {
            Issue.record("oscdump (Debian's liblo-tools) is needed; scripts/deps test installs it")
            return
        }
        let dir = TempDir()
        let (portA, portB) = (freePort(), freePort())
        var text = try String(contentsOfFile: Paths.exampleConfig, encoding: .utf8)
        text = text.replacingOccurrences(of: #""screen": {"width": 800, "height": 480},"#, with: """
            "outputs": [{"id": "A", "width": 800, "height": 480}, {"id": "B", "width": 1000, "height": 600}],
            "tuio": {"targets": [{"address": "127.0.0.1:\(portA)", "output": "A"}, {"address": "127.0.0.1:\(portB)", "output": "B"}], "source": "test"},
            """)
        text = text.replacingOccurrences(of: #""devices": ["#, with: #""devices": [{"match": {"name": "touchd virtual touchscreen"}, "output": "B"},"#)
        let cfg = dir.write("touchd.json", text)
        let (outA, outB) = (dir.path("a.txt"), dir.path("b.txt"))
        let dumpA = try receiver("/usr/bin/oscdump", ["-L", String(portA)], writingTo: outA)
        let dumpB = try receiver("/usr/bin/oscdump", ["-L", String(portB)], writingTo: outB)
        usleep(300_000)
        let d = try DaemonProcess(["--config", cfg, "--replay", Paths.root.appendingPathComponent("captures/demo-taps-and-drag.events").path,
                                   "--speed", "1", "--exit-at-end"], socket: dir.path("touchd.sock"), dir: dir)
        #expect(d.wait() == 0)
        usleep(300_000)
        for dump in [dumpA, dumpB] { dump.signal(SIGKILL); _ = dump.wait(timeout: 5, "oscdump") }
        let a = ((try? String(contentsOfFile: outA, encoding: .utf8)) ?? "").split(separator: "\n")
        let b = ((try? String(contentsOfFile: outB, encoding: .utf8)) ?? "").split(separator: "\n")
        #expect(b.filter { $0.contains("/tuio/2Dcur si \"fseq\"") }.count >= 10)
        #expect(b.contains { $0.contains("/tuio/2Dcur sifffff \"set\" 1 0.06") }, "\(b.prefix(8))")
        #expect(!a.isEmpty && !a.contains { $0.contains("\"set\"") }, "\(a.prefix(8))")
    }

    /// The real consumer: Kivy (Debian's python3-kivy) with its own TUIO provider, under Xvfb,
    /// sees the touches touchd saw, at their places.
    @Test(.enabled(if: PythonModules.available("kivy"), PythonModules.kivy),
          .enabled(if: PythonModules.available("oscpy", wheel: "oscpy"), PythonModules.oscpy))
    func kivyReceivesTheTouchesAtTheirPlaces() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/xvfb-run") else {
            Issue.record("xvfb-run (Debian's xvfb) is needed; scripts/deps test installs it")
            return
        }
        let dir = TempDir()
        let port = freePort()
        let cfg = try config(dir, port: port)
        let out = dir.path("kivy.json")
        let app = try receiver("/usr/bin/xvfb-run", ["-a", "/usr/bin/python3", Paths.root.appendingPathComponent("examples/tuio_kivy.py").path,
                                                    "--port", String(port), "--idle", "2", "--json"], writingTo: out)
        // Kivy is listening once its window is up.
        usleep(6_000_000)
        let capture = Paths.root.appendingPathComponent("captures/demo-taps-and-drag.events").path
        let d = try DaemonProcess(["--config", cfg, "--replay", capture, "--speed", "1", "--exit-at-end"], socket: dir.path("touchd.sock"), dir: dir)
        #expect(d.wait() == 0)
        #expect(app.wait(timeout: 40, "kivy").status == 0)
        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        let events = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [[Any]] ?? []
        // What touchd saw: each touch's began and end, and where (Kivy's y is from the bottom).
        let offline = try touchd("replay", "--config", Paths.exampleConfig, capture)
        var want: [(String, Int, Double, Double)] = []
        var places: [Int: [(Double, Double)]] = [:]   // every place each touch was, in order
        for f in offline.messages where f.type == "frame" {
            for t in f.touches {
                let p = t["location"] as? [Double] ?? [0, 0]
                let id = t["id"] as! Int
                places[id, default: []].append((p[0] / 800, 1 - p[1] / 480))
                let kind = ["began": "down", "ended": "up", "cancelled": "up"][t["phase"] as? String ?? ""]
                if let kind { want.append((kind, id, p[0] / 800, 1 - p[1] / 480)) }
            }
        }
        let got = events.compactMap { e -> (String, Int, Double, Double)? in
            guard e.count == 4, let k = e[0] as? String, k != "move", let id = e[1] as? Int, let x = e[2] as? Double, let y = e[3] as? Double else { return nil }
            return (k, id, x, y)
        }
        // Every touch comes down and goes up, in order. Where it came down is where touchd saw
        // it: where it began, or — when the touch moved again before Kivy's event loop got to
        // the bundles (Kivy's provider dispatches the latest `set` it holds; a loaded machine
        // makes its loop slower than the 10 ms between moves) — one of its next places. (An end
        // has no position of its own in TUIO: it is where the touch last was.)
        #expect(got.map { "\($0.0) \($0.1)" } == want.map { "\($0.0) \($0.1)" }, "kivy: \(text.prefix(300))")
        var exact = 0
        for (g, w) in zip(got, want) where g.0 == "down" && w.0 == "down" {
            let early = (places[w.1] ?? []).prefix(5)
            #expect(early.contains { abs(g.2 - $0.0) < 1e-3 && abs(g.3 - $0.1) < 1e-3 }, "kivy \(g) touchd \(w), then \(Array(early))")
            if abs(g.2 - w.2) < 1e-3 && abs(g.3 - w.3) < 1e-3 { exact += 1 }
        }
        // The four taps (touches 1–4 stand still) come down exactly where they began.
        #expect(exact >= 4, "only \(exact) touches came down exactly where touchd saw them begin")
    }
}
