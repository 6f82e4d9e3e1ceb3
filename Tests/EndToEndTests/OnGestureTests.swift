import Foundation
import Glibc
import Testing
import TouchTestSupport

/// `touchd on-gesture` (issue 44, item 3) against the real daemon replaying taps: the
/// maintenance recipe of docs/kiosk.md with the real Chromium, a command run as the user who
/// runs on-gesture (not the daemon's), one at a time with its exit status logged, reconnecting
/// when the daemon goes and comes back, and refusing a gesture its user is not sent.
@Suite(.serialized) struct OnGestureTests {
    static let desc = Paths.fixture("virtual-800x480.desc")
    static let example = Paths.root.appendingPathComponent("examples/maintenance").path

    /// An evemu events file of five-tap bursts in the corner, one burst at each time (seconds).
    static func bursts(_ starts: [Double]) -> String {
        var lines: [String] = []
        var id = 0
        func ev(_ t: Double, _ type: Int, _ code: Int, _ value: Int) { lines.append(String(format: "E: %.6f %04x %04x %d", t, type, code, value)) }
        for s in starts {
            for k in 0..<5 {
                let t = s + 0.3 * Double(k)
                id += 1
                ev(t, 3, 0x2f, 0); ev(t, 3, 0x39, id); ev(t, 3, 0x35, 40); ev(t, 3, 0x36, 40); ev(t, 0, 0, 0)
                ev(t + 0.04, 3, 0x2f, 0); ev(t + 0.04, 3, 0x39, -1); ev(t + 0.04, 0, 0, 0)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The example's config, with `socket` open to every user here and the gesture's `to`.
    static func config(_ dir: TempDir, to: String? = nil) throws -> String {
        var text = try String(contentsOfFile: example + "/touchd.json", encoding: .utf8)
        text = text.replacingOccurrences(of: #""mode": "0660""#, with: #""mode": "0666""#)
        if let to { text = text.replacingOccurrences(of: #""region": [0, 0, 80, 80]}"#, with: #""region": [0, 0, 80, 80], "to": \#(to)}"#) }
        return dir.write("touchd.json", text)
    }

    /// `touchd on-gesture` started (as `user` through setpriv when given), its streams in files.
    final class OnGesture {
        let process: Spawned
        let out: String, err: String
        init(_ dir: TempDir, _ args: [String], user: UInt32? = nil) throws {
            out = dir.path("on-gesture-\(UUID().uuidString.prefix(6)).out")
            err = out.replacingOccurrences(of: ".out", with: ".err")
            let o = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644), e = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            defer { close(o); close(e) }
            if let user {
                process = try Spawned("/usr/bin/setpriv", ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", Paths.binary, "on-gesture"] + args, stdout: o, stderr: e)
            } else {
                process = try Spawned(Paths.binary, ["on-gesture"] + args, stdout: o, stderr: e)
            }
        }
        var stdout: String { (try? String(contentsOfFile: out, encoding: .utf8)) ?? "" }
        var stderr: String { (try? String(contentsOfFile: err, encoding: .utf8)) ?? "" }
        /// Until its log has `text` (bounded).
        @discardableResult
        func waitFor(_ text: String, count: Int = 1, timeout: TimeInterval = 60) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while stderr.components(separatedBy: text).count - 1 < count && Date() < deadline && process.isRunning { usleep(20_000) }
            return stderr.components(separatedBy: text).count - 1 >= count
        }
    }

    func daemon(_ dir: TempDir, config: String, capture: String, socket: String) throws -> DaemonProcess {
        try DaemonProcess(["--config", config, "--replay", capture, "--device-info", Self.desc, "--wait-clients", "1", "--exit-at-end"],
                          socket: socket, dir: dir)
    }

    /// docs/kiosk.md's cage + Chromium recipe: the unit's ExecStart as written, run against a
    /// replay of five taps in the corner. What cannot be here is replaced, each named: the
    /// installed /usr/bin/touchd by the built one (with --socket: the test's daemon), cage's
    /// Wayland display by Chromium's headless mode printing the page (--headless=new --dump-dom;
    /// --no-sandbox as root), %t by a directory of the test's, touchd-web's URL by the page's file.
    @Test func theMaintenanceRecipeOpensThePage() throws {
        let chromium = "/usr/bin/chromium"
        guard FileManager.default.isExecutableFile(atPath: chromium) else {
            Issue.record("the recipe runs the real Chromium (Debian's chromium package): \(chromium) is missing"); return
        }
        let dir = TempDir()
        let unit = try String(contentsOfFile: Self.example + "/touchd-maintenance.service", encoding: .utf8)
        guard let line = unit.split(separator: "\n").first(where: { $0.hasPrefix("ExecStart=") }) else { Issue.record("no ExecStart="); return }
        var argv = line.dropFirst("ExecStart=".count).split(separator: " ").map(String.init)
        #expect(Array(argv.prefix(4)) == ["/usr/bin/touchd", "on-gesture", "admin", "--"] && argv[4] == chromium)
        let socket = dir.path("touchd.sock")
        argv = Array(argv.dropFirst(2)).map { a in
            switch a {
            case "--ozone-platform=wayland": return "--headless=new"
            case "http://127.0.0.1:8470/maintenance.html": return "file://" + Self.example + "/maintenance.html"
            default: return a.replacingOccurrences(of: "%t", with: dir.path("runtime"))
            }
        }
        argv.insert(contentsOf: ["--no-sandbox", "--dump-dom"], at: argv.count - 1)
        let og = try OnGesture(dir, ["--socket", socket] + argv)
        // Started before the daemon: it waits for it.
        #expect(og.waitFor("trying again until the daemon is there", timeout: 10))
        let d = try daemon(dir, config: try Self.config(dir), capture: Self.example + "/five-taps.events", socket: socket)
        #expect(og.waitFor("exited with status 0", timeout: 90), "\(og.stderr)")
        #expect(og.stdout.contains("<h1>Maintenance</h1>") && og.stdout.contains("<button id=\"done\""), "\(og.stdout.prefix(400))")
        #expect(og.stderr.contains("\"admin\" recognized on output screen: running /usr/bin/chromium --headless=new"))
        #expect(og.stderr.components(separatedBy: "recognized").count == 2)   // five taps, once
        d.wait()
        og.process.signal(SIGTERM)
        #expect(og.process.wait(timeout: 10, "on-gesture").status == 0)
    }

    /// COMMAND runs as the user running on-gesture (nobody here; the daemon runs as root), one
    /// at a time — the second gesture while it runs is logged and dropped — with its exit status
    /// logged; on-gesture outlives the daemon and takes the next one's gestures.
    @Test func asItsUserOneAtATimeAndReconnecting() throws {
        let dir = TempDir()
        chmod(dir.url.path, 0o777)
        let socket = dir.path("touchd.sock")
        let marks = dir.path("ran")
        _ = dir.write("ran", "")
        chmod(marks, 0o666)
        let capture = dir.write("two.events", Self.bursts([1.0, 3.0]))
        let og = try OnGesture(dir, ["--socket", socket, "admin", "--", "/bin/sh", "-c", "id -u >> \(marks); sleep 3; exit 7"], user: 65534)
        let config = try Self.config(dir, to: #"{"users": ["nobody", "65534"]}"#)
        let first = try daemon(dir, config: config, capture: capture, socket: socket)
        #expect(og.waitFor("exited with status 7", timeout: 30), "\(og.stderr)")
        #expect(og.stderr.contains("while /bin/sh -c 'id -u >> \(marks); sleep 3; exit 7' (pid "), "\(og.stderr)")
        #expect(og.stderr.contains("still runs: dropped"))
        #expect((try? String(contentsOfFile: marks, encoding: .utf8)) == "65534\n")
        first.wait()
        #expect(og.waitFor("the daemon closed the connection: reconnecting", timeout: 10))
        #expect(og.process.isRunning)
        // Another daemon on the same socket: connected again, its gesture runs COMMAND again.
        let second = try daemon(dir, config: config, capture: dir.write("one.events", Self.bursts([1.0])), socket: socket)
        #expect(og.waitFor("exited with status 7", count: 2, timeout: 30), "\(og.stderr)")
        #expect((try? String(contentsOfFile: marks, encoding: .utf8)) == "65534\n65534\n")
        second.wait()
        og.process.signal(SIGTERM)
        #expect(og.process.wait(timeout: 10, "on-gesture").status == 0)
    }

    @Test func aGestureItsUserIsNotSentIsRefused() throws {
        let dir = TempDir()
        let socket = dir.path("touchd.sock")
        let d = try daemon(dir, config: try Self.config(dir, to: #"{"users": ["touchd-nobody-here"]}"#), capture: Self.example + "/five-taps.events", socket: socket)
        let og = try OnGesture(dir, ["--socket", socket, "admin", "--", "/bin/true"])
        let status = og.process.wait(timeout: 20, "on-gesture").status
        #expect(status == 1)
        #expect(og.stderr.contains(#"touchd on-gesture: no system gesture "admin" is sent to user root: the daemon's config has none of that name, or its "to" does not name this user"#), "\(og.stderr)")
        let other = try OnGesture(dir, ["--socket", socket, "maintenance", "--", "/bin/true"])
        #expect(other.process.wait(timeout: 20, "on-gesture").status == 1)
        d.signal(SIGTERM)
        d.wait()
    }

    @Test func helpAndMistakes() throws {
        let help = try touchd("on-gesture", "--help")
        #expect(help.status == 0 && help.stdout.contains("usage: touchd on-gesture [--socket PATH] NAME -- COMMAND [ARG...]") && help.stdout.contains("no shell"), "\(help.stdout)")
        let noCommand = try touchd("on-gesture", "admin")
        #expect(noCommand.status == 2 && noCommand.stderr.contains("give the COMMAND to run after the gesture's name"), "\(noCommand.stderr)")
        let missing = try touchd("on-gesture", "admin", "--", "touchd-no-such-program")
        #expect(missing.status == 1 && missing.stderr.contains("touchd-no-such-program: no such program on PATH"), "\(missing.stderr)")
        // Listed among the commands, and in the manual.
        #expect(try touchd("help").stdout.contains("on-gesture  run a command each time a system gesture is recognized"))
    }
}

/// The recipe's user units pass `systemd-analyze --user verify` (programs this machine lacks —
/// the packaged /usr/bin/touchd, the native kiosk's own kiosk-settings — checked as /bin/true,
/// as examples/web-kiosk/check-units does).
@Suite struct MaintenanceUnitTests {
    @Test func theUnitsVerify() throws {
        let analyze = "/usr/bin/systemd-analyze"
        guard FileManager.default.isExecutableFile(atPath: analyze) else { Issue.record("systemd-analyze is needed"); return }
        let dir = TempDir()
        try FileManager.default.createDirectory(atPath: dir.path("runtime"), withIntermediateDirectories: true)
        chmod(dir.path("runtime"), 0o700)
        var units: [String] = []
        for name in ["touchd-maintenance.service", "touchd-maintenance-native.service", "kiosk-maintenance.service"] {
            let text = try String(contentsOfFile: OnGestureTests.example + "/" + name, encoding: .utf8)
            let checked = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
                guard line.hasPrefix("ExecStart="), let prog = line.dropFirst("ExecStart=".count).split(separator: " ").first,
                      !FileManager.default.isExecutableFile(atPath: String(prog)) else { return String(line) }
                return "ExecStart=/bin/true" + line.dropFirst("ExecStart=".count + prog.count)
            }.joined(separator: "\n")
            units.append(dir.write(name, checked))
        }
        let r = try runProgram("/usr/bin/env", ["XDG_RUNTIME_DIR=" + dir.path("runtime"), analyze, "--user", "verify", "--man=no"] + units)
        #expect(r.status == 0 && r.stderr.isEmpty && r.stdout.isEmpty, "\(r.stdout)\(r.stderr)")
    }
}
