import Foundation
import Glibc
import Testing

/// `touchd doctor --root DIR` on a fake board's files (issue 32, item 6): the gatherer reads
/// sysfs, udev's database, /dev, /proc, /etc and the installed unit under DIR, and the binary
/// prints what the checks found.
@Suite struct DoctorProcessTests {
    /// A board: a keyboard, a Goodix touchscreen held open by "weston" (pid 812), an ILITEK
    /// touchscreen the config ignores, one DSI output, the packaged unit, group touchd without
    /// members, no daemon.
    static func board(config: String, groups: String = "touchd:x:990:\n") throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-\(UUID().uuidString)")
        func write(_ path: String, _ text: String) throws {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: false, encoding: .utf8)
        }
        let devices = [("event0", "13:64", "AT Translated Set 2 keyboard", "0001", "0001", "E:ID_INPUT=1\nE:ID_INPUT_KEYBOARD=1\n"),
                       ("event3", "13:67", "Goodix Capacitive TouchScreen", "0416", "038f", "E:ID_INPUT=1\nE:ID_INPUT_TOUCHSCREEN=1\nE:WL_OUTPUT=DSI-1\n"),
                       ("event4", "13:68", "ILITEK ILITEK-TP", "222a", "0001", "E:ID_INPUT=1\nE:ID_INPUT_TOUCHSCREEN=1\nE:WL_OUTPUT=DSI-1\n")]
        for (n, dev, name, vendor, product, udev) in devices {
            try write("sys/class/input/\(n)/dev", dev + "\n")
            try write("sys/class/input/\(n)/device/name", name + "\n")
            try write("sys/class/input/\(n)/device/id/vendor", vendor + "\n")
            try write("sys/class/input/\(n)/device/id/product", product + "\n")
            try write("run/udev/data/c\(dev)", "I:1234\n" + udev)
            try write("dev/input/\(n)", "")
            chmod(root.appendingPathComponent("dev/input/\(n)").path, 0o660)
        }
        try write("run/udev/control", "")
        try write("proc/812/comm", "weston\n")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("proc/812/fd"), withIntermediateDirectories: true)
        symlink("/dev/input/event3", root.appendingPathComponent("proc/812/fd/5").path)
        symlink("/dev/null", root.appendingPathComponent("proc/812/fd/0").path)
        try write("sys/class/drm/card0-DSI-1/status", "connected\n")
        try write("sys/class/drm/card0-HDMI-A-1/status", "disconnected\n")
        try write("usr/lib/systemd/system/touchd.service", "[Service]\nDynamicUser=yes\nUser=touchd-daemon\nSupplementaryGroups=input touchd\n")
        // The files are the test's user's: name its group "input", so the service may read them.
        try write("etc/group", "input:x:\(getgid()):\n" + groups)
        try write("etc/passwd", "root:x:\(getuid()):\(getgid())::/root:/bin/sh\n")
        try write("etc/touchd/touchd.json", config)
        return root
    }

    static let config = #"{"devices": [{"match": {"name": "Goodix*"}}, {"match": {"name": "ILITEK*"}, "ignore": true}], "windows": []}"#

    func findings(_ r: RunResult) -> [[String: Any]] {
        let object = r.messages.first ?? [:]
        return object["findings"] as? [[String: Any]] ?? []
    }

    @Test func aFakeBoardsProblemsAreFoundAndExplained() throws {
        let root = try Self.board(config: Self.config)
        defer { try? FileManager.default.removeItem(at: root) }
        let r = try touchd(["doctor", "--root", root.path, "--json"])
        #expect(r.status == 1, "\(r.stderr)")
        let f = findings(r)
        func one(_ check: String, _ containing: String) -> [String: Any]? {
            f.first { ($0["check"] as? String) == check && (($0["what"] as? String)?.contains(containing) ?? false) }
        }
        #expect(one("config", "/etc/touchd/touchd.json: valid, 2 device entries")?["level"] as? String == "ok")
        #expect(one("device", "event3 \"Goodix Capacitive TouchScreen\": read by touchd, matched by devices[0]")?["level"] as? String == "ok")
        #expect(one("device", "event4 \"ILITEK ILITEK-TP\": ignored by devices[1]")?["level"] as? String == "warning")
        #expect(one("holders", "is also read by weston (pid 812)")?["level"] as? String == "warning")
        #expect(one("holders", "grab test not tried: not the running system (--root)") != nil)
        #expect(one("permissions", "/dev/input/event3 is -rw-rw---- root:input")?["level"] as? String == "ok")
        #expect(one("output", "WL_OUTPUT=DSI-1 (connected: DSI-1)")?["level"] as? String == "ok")
        #expect(one("group", "group touchd (the socket's) has no members")?["level"] as? String == "warning")
        #expect(one("daemon", "touchd is not running")?["level"] as? String == "error")
        #expect(f.allSatisfy { ($0["level"] as? String == "ok") == ($0["fix"] is NSNull) })
        // Text: the same findings, one line each.
        let text = try touchd(["doctor", "--root", root.path])
        #expect(text.status == 1)
        #expect(text.lines.count == f.count)
        #expect(text.lines.contains { $0.hasPrefix("warning: group touchd (the socket's) has no members") && $0.contains(" — fix: sudo usermod -aG touchd USER") })
    }

    @Test func aMissingGroupAndABadConfig() throws {
        let root = try Self.board(config: Self.config, groups: "")
        defer { try? FileManager.default.removeItem(at: root) }
        let r = try touchd(["doctor", "--root", root.path, "--json"])
        #expect(findings(r).contains { $0["check"] as? String == "group" && $0["level"] as? String == "error" })
        try #"{"devices": [{"match": {"name": "Goodix*"}, "rotation": 45}]"#.write(to: root.appendingPathComponent("etc/touchd/touchd.json"), atomically: false, encoding: .utf8)
        let bad = try touchd(["doctor", "--root", root.path])
        #expect(bad.status == 1)
        #expect(bad.lines.first?.hasPrefix("error: /etc/touchd/touchd.json: ") == true)
        #expect(bad.lines.first?.hasSuffix("— fix: edit /etc/touchd/touchd.json, then: touchd check-config /etc/touchd/touchd.json") == true)
    }

    /// A daemon listening under the root: the doctor asks it for its stats.
    @Test func aRunningDaemonsStats() throws {
        let root = try Self.board(config: Self.config)
        defer { try? FileManager.default.removeItem(at: root) }
        let dir = TempDir()
        let socket = root.appendingPathComponent("run/touchd/touchd.sock").path
        let d = try DaemonProcess(["--config", root.appendingPathComponent("etc/touchd/touchd.json").path, "--replay",
                                   Paths.capture("edt-ft5x06-EP0430M09_4-finger-drag-down.events"), "--wait-clients", "99"], socket: socket, dir: dir)
        defer { d.signal(SIGTERM); d.wait() }
        let r = try touchd(["doctor", "--root", root.path, "--json"])
        let daemon = findings(r).first { $0["check"] as? String == "daemon" }
        #expect(daemon?["level"] as? String == "ok")
        #expect((daemon?["what"] as? String)?.hasPrefix("touchd is running on /run/touchd/touchd.sock: 1 client(s), ") == true, "\(r.stdout)")
        #expect(findings(r).contains { $0["check"] as? String == "socket" })
    }

    /// A tree someone else made (issue 40, items 6 and 7): event3's name an absolute symlink to
    /// a secret outside the tree (as root: /root/secret, mode 0600), event4's name a FIFO (it
    /// hung doctor and outputs for ever), event3's WL_OUTPUT with an escape sequence and weston's
    /// /proc/PID/comm with a newline that forges an "ok:" line.
    static func hostile(symlink link: Bool = false, fifo: Bool = false, controls: Bool = false) throws -> (root: URL, secret: TempDir) {
        let root = try board(config: config)
        let secret = TempDir()
        let secretFile = secret.write("secret", "SECRET-3141")
        chmod(secretFile, 0o600)
        if link {
            let event3 = root.appendingPathComponent("sys/class/input/event3/device/name").path
            unlink(event3)
            symlink(secretFile, event3)
        }
        if fifo {
            let event4 = root.appendingPathComponent("sys/class/input/event4/device/name").path
            unlink(event4)
            #expect(mkfifo(event4, 0o644) == 0)
        }
        if controls {
            try "I:1234\nE:ID_INPUT=1\nE:ID_INPUT_TOUCHSCREEN=1\nE:WL_OUTPUT=DSI-1\u{1b}[2K\rX\n".write(to: root.appendingPathComponent("run/udev/data/c13:67"), atomically: false, encoding: .utf8)
            try "weston\nok: everything is fine\n".write(to: root.appendingPathComponent("proc/812/comm"), atomically: false, encoding: .utf8)
        }
        return (root, secret)
    }

    /// doctor and outputs, text and JSON, on a tree, each given 20 s.
    func run(_ root: URL) throws -> (doctorJSON: RunResult, doctor: RunResult, outputs: RunResult, outputsJSON: RunResult) {
        let sys = root.appendingPathComponent("sys").path, udev = root.appendingPathComponent("run/udev/data").path
        return (try runProgram(Paths.binary, ["doctor", "--root", root.path, "--json"], timeout: 20),
                try runProgram(Paths.binary, ["doctor", "--root", root.path], timeout: 20),
                try runProgram(Paths.binary, ["outputs", "--sysfs", sys, "--udev-data", udev], timeout: 20),
                try runProgram(Paths.binary, ["outputs", "--json", "--sysfs", sys, "--udev-data", udev], timeout: 20))
    }

    @Test func aSymlinkOutOfTheTreeIsResolvedInsideIt() throws {
        let (root, secret) = try Self.hostile(symlink: true)
        defer { try? FileManager.default.removeItem(at: root); _ = secret }
        let r = try run(root)
        for x in [r.doctorJSON, r.doctor, r.outputs, r.outputsJSON] {
            #expect(!x.stdout.contains("SECRET"), "\(x.stdout)")
        }
        let devices = findings(r.doctorJSON).filter { $0["check"] as? String == "device" }.compactMap { $0["what"] as? String }
        #expect(devices.contains { $0.hasPrefix("/dev/input/event3 \"?\": ") }, "\(devices)")
        #expect(r.outputs.stdout.contains("  /dev/input/event3 \"?\"  WL_OUTPUT=DSI-1\n"), "\(r.outputs.stdout)")
        #expect(r.outputsJSON.stdout.contains(#"{"node":"/dev/input/event3","name":"?","#), "\(r.outputsJSON.stdout)")
    }

    @Test func aFIFOInTheTreeIsNotWaitedFor() throws {
        let (root, secret) = try Self.hostile(fifo: true)
        defer { try? FileManager.default.removeItem(at: root); _ = secret }
        let r = try run(root)
        #expect(r.doctorJSON.status == 1 && r.doctor.status == 1 && r.outputs.status == 0 && r.outputsJSON.status == 0)
        let devices = findings(r.doctorJSON).filter { $0["check"] as? String == "device" }.compactMap { $0["what"] as? String }
        #expect(devices.contains { $0.hasPrefix("/dev/input/event4 \"?\": ") }, "\(devices)")
        #expect(r.outputs.stdout.contains("  /dev/input/event4 \"?\"  WL_OUTPUT=DSI-1\n"), "\(r.outputs.stdout)")
    }

    @Test func controlCharactersInNamesAreEscapedInText() throws {
        let (root, secret) = try Self.hostile(controls: true)
        defer { try? FileManager.default.removeItem(at: root); _ = secret }
        let r = try run(root)
        #expect(r.doctor.lines.count == findings(r.doctorJSON).count, "\(r.doctor.stdout)")
        for x in [r.doctor, r.outputs] {
            #expect(!x.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(x.stdout)")
        }
        #expect(r.doctor.stdout.contains("is also read by weston\\u000aok: everything is fine (pid 812)"), "\(r.doctor.stdout)")
        #expect(r.doctor.stdout.contains("WL_OUTPUT=DSI-1\\u001b[2K\\u000dX names no connected output"), "\(r.doctor.stdout)")
        #expect(r.outputs.stdout.contains("  /dev/input/event3 \"Goodix Capacitive TouchScreen\"  WL_OUTPUT=DSI-1\\u001b[2K\\u000dX\n"), "\(r.outputs.stdout)")
        // JSON keeps the values, escaped as JSON escapes them.
        let what = findings(r.doctorJSON).compactMap { $0["what"] as? String }
        #expect(what.contains { $0.contains("is also read by weston\nok: everything is fine (pid 812)") })
    }

    /// A socket.path and a socket.group a shell would split (issue 40, item 7): the fixes
    /// quote them, and run by sh they name the file and the group as one word each.
    @Test func fixesQuoteWhatTheConfigNames() throws {
        let config = #"{"socket": {"path": "/run/touchd/x.sock;id;#", "group": "x;id"}, "devices": [{"match": {"name": "Goodix*"}}], "windows": []}"#
        let root = try Self.board(config: config, groups: "")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("run/touchd"), withIntermediateDirectories: true)
        try "".write(to: root.appendingPathComponent("run/touchd/x.sock;id;#"), atomically: false, encoding: .utf8)
        let r = try touchd(["doctor", "--root", root.path])
        let socket = r.lines.first { $0.hasPrefix("error: /run/touchd/x.sock;id;# is not a socket") }
        #expect(socket?.hasSuffix(" — fix: sudo rm '/run/touchd/x.sock;id;#'; sudo systemctl restart touchd.socket touchd") == true, "\(r.stdout)")
        let group = r.lines.first { $0.hasPrefix("error: group x;id (socket.group) does not exist") }
        #expect(group?.contains("fix: sudo groupadd --system 'x;id' (the package's") == true, "\(r.stdout)")
        #expect(group?.hasSuffix("sudo usermod -aG 'x;id' USER") == true, "\(r.stdout)")
        // The fix's word, as sh reads it (printf for sudo rm): one argument, no `id` run.
        let fix = socket?.components(separatedBy: " — fix: sudo rm ").last?.components(separatedBy: "; sudo systemctl").first ?? ""
        let words = try runProgram("/bin/sh", ["-c", "printf '<%s>\\n' " + fix])
        #expect(words.stdout == "</run/touchd/x.sock;id;#>\n", "\(fix)")
        // A socket that is a symlink in the tree is not connected through.
        unlink(root.appendingPathComponent("run/touchd/x.sock;id;#").path)
        symlink("/run/touchd/touchd.sock", root.appendingPathComponent("run/touchd/x.sock;id;#").path)
        let linked = try touchd(["doctor", "--root", root.path, "--json"])
        #expect(findings(linked).first { $0["check"] as? String == "daemon" }?["what"] as? String == "nothing listens on /run/touchd/x.sock;id;#: touchd stopped or crashed")
    }

    /// A directory on the socket's path that is a symlink out of the tree (here to where a
    /// daemon listens): the tree's walk resolves it inside, where there is no socket, and the
    /// doctor connects to nothing (it reported the outside daemon's stats before).
    @Test func aSocketOutsideTheTreeIsNotAskedForItsStats() throws {
        let root = try Self.board(config: #"{"socket": {"path": "/sockets/touchd.sock"}, "windows": []}"#)
        defer { try? FileManager.default.removeItem(at: root) }
        let dir = TempDir()
        let d = try DaemonProcess(["--config", Paths.exampleConfig, "--replay", Paths.capture("edt-ft5x06-EP0430M09_4-finger-drag-down.events"),
                                   "--wait-clients", "99"], socket: dir.path("touchd.sock"), dir: dir)
        defer { d.signal(SIGTERM); d.wait() }
        symlink(dir.url.path, root.appendingPathComponent("sockets").path)
        let r = try touchd(["doctor", "--root", root.path, "--json"])
        #expect(findings(r).first { $0["check"] as? String == "daemon" }?["what"] as? String == "touchd is not running: no socket at /sockets/touchd.sock", "\(r.stdout)")
        // A socket where the walk leads inside the tree (bound, nobody listening): that one is
        // connected to, not the daemon's the plain path reaches.
        let inTree = root.appendingPathComponent(dir.url.path)
        try FileManager.default.createDirectory(at: inTree, withIntermediateDirectories: true)
        let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(s) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let sockPath = Array(inTree.appendingPathComponent("touchd.sock").path.utf8)
        #expect(sockPath.count < MemoryLayout.size(ofValue: addr.sun_path))
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in sockPath.enumerated() { raw[i] = b } }
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        #expect(bound == 0)
        let walked = try touchd(["doctor", "--root", root.path, "--json"])
        #expect(findings(walked).first { $0["check"] as? String == "daemon" }?["what"] as? String == "nothing listens on /sockets/touchd.sock: touchd stopped or crashed", "\(walked.stdout)")
        // The same daemon's socket put in the tree (a relative link that stays inside) is asked.
        unlink(root.appendingPathComponent("sockets").path)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("real"), withIntermediateDirectories: true)
        symlink("real", root.appendingPathComponent("sockets").path)
        link(dir.path("touchd.sock"), root.appendingPathComponent("real/touchd.sock").path)
        let inside = try touchd(["doctor", "--root", root.path, "--json"])
        #expect((findings(inside).first { $0["check"] as? String == "daemon" }?["what"] as? String)?.hasPrefix("touchd is running on /sockets/touchd.sock: 1 client(s), ") == true, "\(inside.stdout)")
    }

    @Test func usageErrorsExitTwo() throws {
        #expect(try touchd(["doctor", "--bogus"]).status == 2)
        #expect(try touchd(["doctor", "--root", "relative"]).status == 2)
        let help = try touchd(["doctor", "--help"])
        #expect(help.status == 0 && help.stdout.contains("--no-grab-test"))
    }
}
