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

    @Test func usageErrorsExitTwo() throws {
        #expect(try touchd(["doctor", "--bogus"]).status == 2)
        #expect(try touchd(["doctor", "--root", "relative"]).status == 2)
        let help = try touchd(["doctor", "--help"])
        #expect(help.status == 0 && help.stdout.contains("--no-grab-test"))
    }
}
