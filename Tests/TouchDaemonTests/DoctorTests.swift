import Foundation
import Testing
import TouchCore
import TouchSystem
import TouchTestSupport
@testable import TouchDaemon

/// `touchd doctor` (issue 32, item 6): the checks as a pure function of a Board, with plain
/// boards — a healthy one, then each usual cause of "touch does not work" on its own.
@Suite struct DoctorTests {
    static let goodixConfig = """
    {"screen": {"width": 800, "height": 480},
     "socket": {"path": "/run/touchd/touchd.sock", "mode": "0660", "group": "touchd"},
     "devices": [{"match": {"name": "Goodix*"}, "grab": true}], "windows": []}
    """

    static func screen(_ node: String = "/dev/input/event3", name: String = "Goodix Capacitive TouchScreen",
                       holders: [Board.Holder] = [], grab: Board.GrabTest = .notTried("not tried: no other process has it open, so none can hold a grab")) -> Board.Device {
        Board.Device(node: node, name: name, vendor: 0x416, product: 0x38f, properties: ["ID_INPUT": "1", "ID_INPUT_TOUCHSCREEN": "1", "WL_OUTPUT": "DSI-1"],
                     touchscreen: true, file: Board.Node(kind: .characterDevice, mode: 0o660, owner: "root", group: "input"),
                     holders: holders, grab: grab)
    }

    /// A board where everything works: one Goodix screen grabbed by the running daemon.
    static func healthy(config: String = goodixConfig) -> Board {
        var b = Board()
        b.config = .text(Array(config.utf8))
        let keyboard = Board.Device(node: "/dev/input/event0", name: "AT Translated Set 2 keyboard", properties: ["ID_INPUT": "1", "ID_INPUT_KEYBOARD": "1"],
                                    touchscreen: false, file: Board.Node(kind: .characterDevice, mode: 0o660, owner: "root", group: "input"))
        b.devices = [keyboard, screen(holders: [Board.Holder(pid: 400, command: "touchd")], grab: .notTried("not tried: touchd has it open and its entry grabs it"))]
        b.uinput = Board.Node(kind: .characterDevice, mode: 0o600, owner: "root", group: "root")
        b.socket = Board.Node(kind: .socket, mode: 0o660, owner: "root", group: "touchd")
        b.daemon = .running(stats: #"{"type":"stats","clients":2,"published":5120,"dropped":0,"liveTouches":0,"inputLatencyMicros":{"p99":850}}"#)
        b.socketGroup = Board.Group(name: "touchd", members: ["kiosk"])
        b.outputs = ["DSI-1"]
        b.daemonGroups = ["input", "touchd"]
        return b
    }

    func problems(_ b: Board) -> [Finding] { Doctor.findings(b).filter { $0.level != .ok } }

    @Test func aHealthyBoardHasNoProblems() {
        let f = Doctor.findings(Self.healthy())
        #expect(problems(Self.healthy()) == [])
        #expect(Doctor.exitCode(f) == 0)
        #expect(f.map(\.check) == ["config", "device", "holders", "permissions", "output", "uinput", "group", "socket", "daemon"])
        #expect(f.last?.what == "touchd is running on /run/touchd/touchd.sock: 2 client(s), 5120 published, 0 dropped, 0 touch(es) down, input latency p99 850 µs")
        #expect(f[1].what == "/dev/input/event3 \"Goodix Capacitive TouchScreen\": read by touchd, matched by devices[0], which grabs it")
    }

    /// The daemon's real-time priority, from its stats' "scheduling" (issue 48): on and off are
    /// fine, refused and demoted are warnings; the kernel's throttling off (-1) is a warning.
    @Test func realTimePriorityRefusedOrDemotedIsAWarning() {
        func board(_ realtime: String, policy: String = "fifo", priority: Int = 10, runtime: Int? = 950_000) -> Board {
            var b = Self.healthy()
            b.daemon = .running(stats: #"{"type":"stats","clients":2,"published":5120,"dropped":0,"liveTouches":0,"scheduling":{"realtime":""# + realtime
                                + #"","policy":""# + policy + #"","priority":"# + String(priority) + "}}")
            b.realtimeRuntime = runtime
            return b
        }
        let on = Doctor.findings(board("on"))
        #expect(on.map(\.check).suffix(2) == ["daemon", "realtime"])
        #expect(on.last == .ok("realtime", "touchd's loop runs at real-time priority (fifo 10)"))
        #expect(problems(board("off", policy: "other", priority: 0)) == [])
        #expect(Doctor.findings(board("off", policy: "other", priority: 0)).last?.what == "touchd's real-time priority is off (the config's \"realtime\" or --realtime)")
        let refused = problems(board("refused", policy: "other", priority: 0))
        #expect(refused.map(\.check) == ["realtime"] && refused[0].level == .warning)
        #expect(refused[0].what.hasPrefix("touchd was refused real-time priority and runs at normal priority"))
        #expect(refused[0].fix?.hasPrefix("the unit needs LimitRTPRIO=") == true)
        let demoted = problems(board("demoted", policy: "other", priority: 0))
        #expect(demoted.map(\.what) == ["touchd's loop ran too long without blocking and its guard put it back to normal priority (other 0)"])
        let unthrottled = problems(board("on", runtime: -1))
        #expect(unthrottled.map(\.check) == ["realtime"] && unthrottled[0].what.hasPrefix("the kernel's real-time throttling is off (kernel.sched_rt_runtime_us = -1)"))
        // An older daemon's stats say nothing of it: no line.
        #expect(Doctor.findings(Self.healthy()).last?.check == "daemon")
    }

    @Test func aDeviceGrabbedByAnotherProcessIsAnError() {
        var b = Self.healthy()
        b.devices[1] = Self.screen(holders: [Board.Holder(pid: 812, command: "weston"), Board.Holder(pid: 400, command: "touchd")], grab: .grabbed)
        b.config = .text(Array(Self.goodixConfig.replacingGrab.utf8))
        let p = problems(b)
        #expect(p.count == 1)
        #expect(p.first?.level == .error && p.first?.check == "holders")
        #expect(p.first?.what == "/dev/input/event3 \"Goodix Capacitive TouchScreen\" is grabbed (EVIOCGRAB) by one of: weston (pid 812): touchd receives none of its events")
        #expect(p.first?.fix?.hasPrefix("sudo kill 812") == true)
        #expect(Doctor.exitCode(Doctor.findings(b)) == 1)
        // Two other readers: which one grabs is not known, both are named.
        b.devices[1].holders.insert(Board.Holder(pid: 113, command: "evemu-device"), at: 0)
        #expect(problems(b).first?.fix?.hasPrefix("stop the one of them that grabs it (systemctl status 113 812 names their services)") == true)
    }

    @Test func aGrabByTouchdItselfIsFine() {
        var b = Self.healthy()
        b.devices[1] = Self.screen(holders: [Board.Holder(pid: 400, command: "touchd")], grab: .grabbed)
        #expect(problems(b) == [])
    }

    @Test func anotherReaderOfAnUngrabbedDeviceIsAWarning() {
        var b = Self.healthy()
        b.config = .text(Array(Self.goodixConfig.replacingGrab.utf8))
        b.devices[1] = Self.screen(holders: [Board.Holder(pid: 812, command: "weston"), Board.Holder(pid: 400, command: "touchd")], grab: .free)
        let p = problems(b)
        #expect(p.map(\.check) == ["holders"])
        #expect(p.first?.level == .warning)
        #expect(p.first?.what == "/dev/input/event3 \"Goodix Capacitive TouchScreen\" is also read by weston (pid 812): they act on the same touches as touchd (not grabbed)")
        #expect(p.first?.fix?.contains("\"grab\": true in devices[0]") == true)
    }

    /// Not root: other users' /proc/PID/fd cannot be read, and the line says how to see them.
    @Test func unreadableProcessesAreSaid() {
        var b = Self.healthy()
        b.hiddenProcesses = 5
        b.devices[1] = Self.screen()
        let holders = Doctor.findings(b).first { $0.check == "holders" }
        #expect(holders?.what == "/dev/input/event3 \"Goodix Capacitive TouchScreen\": open in no other process (5 processes not readable: sudo touchd doctor sees them); grab test not tried: no other process has it open, so none can hold a grab")
        b.devices[1].grab = .grabbed
        #expect(problems(b).first?.what == "/dev/input/event3 \"Goodix Capacitive TouchScreen\" is grabbed (EVIOCGRAB) by another program (5 processes not readable: sudo touchd doctor sees them): touchd receives none of its events")
        #expect(problems(b).first?.fix?.hasPrefix("find it: sudo touchd doctor; sudo fuser -v /dev/input/event3") == true)
    }

    @Test func aMissingGroupIsAnError() {
        var b = Self.healthy()
        b.socketGroup = nil
        let p = problems(b)
        #expect(p.map(\.check) == ["group"])
        #expect(p.first?.level == .error)
        #expect(p.first?.fix?.hasPrefix("sudo groupadd --system touchd") == true)
    }

    @Test func aGroupWithoutMembersIsAWarning() {
        var b = Self.healthy()
        b.socketGroup = Board.Group(name: "touchd", members: [])
        let p = problems(b)
        #expect(p.map(\.level) == [.warning])
        #expect(p.first?.what == "group touchd (the socket's) has no members: only root and the daemon may connect")
        #expect(p.first?.fix == "sudo usermod -aG touchd USER (the kiosk's user), then log in again")
    }

    @Test func anIgnoredDeviceIsAWarningAndIgnoringEveryOneAnError() {
        let ignoring = Self.goodixConfig.replacingOccurrences(of: "\"grab\": true", with: "\"ignore\": true")
        var b = Self.healthy(config: ignoring)
        b.devices[1] = Self.screen()
        let p = problems(b)
        #expect(p.map(\.level) == [.warning, .error])
        #expect(p.first?.what == "/dev/input/event3 \"Goodix Capacitive TouchScreen\": ignored by devices[0] (\"ignore\": true): touchd does not read it")
        #expect(p.last?.what == "touchd reads no touchscreen: every one is ignored")
        // A second screen that is read: only the warning stays.
        b.devices.append(Self.screen("/dev/input/event4", name: "ILITEK touch"))
        #expect(problems(b).map(\.what).filter { $0.contains("every one") } == [])
    }

    @Test func aBadConfigGivesOneErrorPerProblemWithItsPath() {
        let bad = #"{"screen": {"width": -5, "height": 480}, "devices": [{"match": {"name": "Goodix*"}, "rotate": 90}], "windows": []}"#
        var b = Self.healthy(config: bad)
        b.configPath = "/etc/touchd/touchd.json"
        let config = Doctor.findings(b).filter { $0.check == "config" }
        #expect(config.count == 2)
        #expect(config.allSatisfy { $0.level == .error && $0.fix == "edit /etc/touchd/touchd.json, then: touchd check-config /etc/touchd/touchd.json" })
        #expect(config.contains { $0.what.hasPrefix("/etc/touchd/touchd.json: $.screen.width:") })
        #expect(config.contains { $0.what.hasPrefix("/etc/touchd/touchd.json: $.devices[0].rotate:") })
        b.config = .missing
        #expect(problems(b).first?.what == "no config at /etc/touchd/touchd.json: the service (touchd run --config /etc/touchd/touchd.json) does not start")
    }

    @Test func noTouchscreenIsAnError() {
        var b = Self.healthy()
        b.devices.removeLast()
        let p = problems(b)
        #expect(p.first?.what == "no touchscreen found: no input device has ID_INPUT_TOUCHSCREEN=1 (udev)")
        // One line: the config's entries matching nothing is no news then.
        #expect(p.count == 1)
        b.udevRunning = false
        #expect(problems(b).first?.what.contains("udevd does not run") == true)
    }

    @Test func uinputMissingIsAnErrorOnlyWhenAnEntryReExports() {
        var b = Self.healthy()
        b.uinput = nil
        #expect(problems(b) == [])
        let reexport = Self.goodixConfig.replacingOccurrences(of: "\"grab\": true", with: "\"uinput\": {\"name\": \"touchd screen\"}")
        b.config = .text(Array(reexport.utf8))
        let p = problems(b)
        #expect(p.map(\.check) == ["uinput"])
        #expect(p.first?.level == .error)
        #expect(p.first?.fix == "sudo modprobe uinput, and at boot: echo uinput | sudo tee /etc/modules-load.d/uinput.conf")
        // Present but only root's: the service (not root) cannot open it.
        b.uinput = Board.Node(kind: .characterDevice, mode: 0o600, owner: "root", group: "root")
        #expect(problems(b).first?.what.contains("cannot open it") == true)
        b.uinput = Board.Node(kind: .characterDevice, mode: 0o660, owner: "root", group: "input")
        #expect(problems(b) == [])
    }

    @Test func aDeviceTheServiceCannotReadIsAnError() {
        var b = Self.healthy()
        b.devices[1].file = Board.Node(kind: .characterDevice, mode: 0o600, owner: "root", group: "root")
        let p = problems(b)
        #expect(p.first?.what == "/dev/input/event3 is crw------- root:root: the service (groups input, touchd) cannot read it")
        b.daemonGroups = nil   // no unit: started by hand (as root)
        #expect(problems(b) == [])
    }

    @Test func theDaemonsStates() {
        var b = Self.healthy()
        for (state, text) in [(Board.Daemon.noSocket, "touchd is not running: no socket at /run/touchd/touchd.sock"),
                              (.refused, "nothing listens on /run/touchd/touchd.sock: touchd stopped or crashed"),
                              (.denied, "you may not connect to /run/touchd/touchd.sock (permission denied)")] {
            b.daemon = state
            #expect(problems(b).map(\.what) == [text])
        }
        b.daemon = .denied
        #expect(problems(b).first?.fix == "sudo usermod -aG touchd $USER, then log in again (or: sudo touchd doctor)")
    }

    /// A daemon that accepts no more connections (its listen queue full: stalled) is a finding,
    /// not a doctor that waits for ever in connect(2).
    @Test func aListenerWhoseQueueIsFullIsNoAnswerNotAHang() throws {
        let dir = NSTemporaryDirectory() + "touchd-doctor-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/s.sock"
        let listener = try UnixSocket.bind(path)
        try UnixSocket.listen(listener, backlog: 0)
        final class Held { let fd: FileDescriptor; init(_ fd: consuming FileDescriptor) { self.fd = fd } }
        var queued: [Held] = []
        while queued.count < 64 {   // fill its queue: connections nobody accepts
            do { queued.append(Held(try UnixSocket.connect(path, nonBlocking: true))) } catch { break }
        }
        #expect(queued.count < 64)
        let start = Clock.monotonicMicros()
        guard case .noAnswer(let why) = DaemonProbe.ask(path, exists: true) else { Issue.record("not noAnswer"); return }
        #expect(why.contains("accepts no connection"), "\(why)")
        #expect(Clock.monotonicMicros() - start < 3_000_000)
        withExtendedLifetime(queued) {}
    }

    @Test func wlOutputNamingNoConnectedOutputIsAWarning() {
        var b = Self.healthy()
        b.outputs = ["HDMI-A-1"]
        #expect(problems(b).first?.what == "/dev/input/event3 \"Goodix Capacitive TouchScreen\": WL_OUTPUT=DSI-1 names no connected output (connected: HDMI-A-1): a compositor maps its touches to another")
        b.outputs = ["DSI-1", "HDMI-A-1"]
        #expect(problems(b) == [])
        b.devices[1].properties?["WL_OUTPUT"] = nil
        #expect(problems(b).first?.check == "output")
    }

    @Test func theGrabTestIsTriedOnlyWhereItIsSafeAndTellsSomething() {
        let weston = [Board.Holder(pid: 812, command: "weston")]
        let touchd = [Board.Holder(pid: 400, command: "touchd")]
        #expect(Doctor.reasonNotToGrab(holders: weston, hiddenProcesses: 0, touchdGrabs: false, contactsDown: false, allowed: true) == nil)
        #expect(Doctor.reasonNotToGrab(holders: [], hiddenProcesses: 3, touchdGrabs: false, contactsDown: false, allowed: true) == nil)
        #expect(Doctor.reasonNotToGrab(holders: weston, hiddenProcesses: 0, touchdGrabs: false, contactsDown: false, allowed: false) == "not tried (--no-grab-test)")
        #expect(Doctor.reasonNotToGrab(holders: weston, hiddenProcesses: 0, touchdGrabs: false, contactsDown: true, allowed: true)?.contains("a touch is down") == true)
        #expect(Doctor.reasonNotToGrab(holders: [], hiddenProcesses: 0, touchdGrabs: false, contactsDown: false, allowed: true)?.contains("no other process") == true)
        #expect(Doctor.reasonNotToGrab(holders: touchd + weston, hiddenProcesses: 0, touchdGrabs: true, contactsDown: false, allowed: true)?.contains("touchd has it open") == true)
        #expect(Doctor.reasonNotToGrab(holders: touchd + weston, hiddenProcesses: 0, touchdGrabs: false, contactsDown: false, allowed: true) == nil)
    }

    @Test func theJSONHasStableKeys() throws {
        let f = [Finding.ok("config", "fine"), Finding.error("group", "no \"g\"", fix: "sudo groupadd g")]
        let text = String(decoding: DoctorCommand.json(f), as: UTF8.self)
        #expect(text == #"{"findings":[{"level":"ok","check":"config","what":"fine","fix":null},{"level":"error","check":"group","what":"no \"g\"","fix":"sudo groupadd g"}]}"# + "\n")
        #expect(DoctorCommand.text(f) == "ok: fine\nerror: no \"g\" — fix: sudo groupadd g\n")
    }

    /// Issue 40, item 7: what a board's files or the config hold cannot add commands to a fix
    /// or keys to a suggested entry, nor lines to the text.
    @Test func fixesAreSafeToPaste() throws {
        let config = #"{"socket": {"path": "/run/touchd/x.sock;id;#", "mode": "0660", "group": "x;id"}, "devices": [{"match": {"name": "Goodix*"}, "grab": true}], "windows": []}"#
        var b = Self.healthy(config: config)
        b.socketPath = "/run/touchd/x.sock;id;#"
        b.socket = Board.Node(kind: .file, mode: 0o644, owner: "root", group: "root")
        b.socketGroup = nil
        b.daemon = .denied
        let p = problems(b)
        #expect(p.first { $0.check == "socket" }?.fix == "sudo rm '/run/touchd/x.sock;id;#'; sudo systemctl restart touchd.socket touchd")
        #expect(p.first { $0.check == "group" }?.fix == "sudo groupadd --system 'x;id' (the package's sysusers.d file makes it: sudo systemd-sysusers), then add the clients' users: sudo usermod -aG 'x;id' USER")
        #expect(p.first { $0.check == "daemon" }?.fix == "sudo usermod -aG 'x;id' $USER, then log in again (or: sudo touchd doctor)")
        b.socketGroup = Board.Group(name: "x;id", members: [])
        #expect(problems(b).first { $0.check == "group" }?.fix == "sudo usermod -aG 'x;id' USER (the kiosk's user), then log in again")

        // A device name that closes the string in the suggested entry: escaped by the JSON writer.
        var named = Self.healthy(config: #"{"devices": [{"match": {"name": "ILITEK*"}}], "windows": []}"#)
        let evil = #"Panel"}, "ignore": true, "m": {"n": ""#
        named.devices[1] = Self.screen(name: evil)
        let fix = try #require(problems(named).first { $0.check == "device" && $0.level == .warning && $0.what.hasPrefix("/dev/input/event3") }?.fix)
        #expect(fix.hasPrefix(#"add {"match": {"name": "Panel\"}, \"ignore\": true, \"m\": {\"n\": \""}, …} to devices in"#), "\(fix)")
        let entry = String(fix.dropFirst(4).prefix { $0 != "…" }.dropLast(2)) + "}"
        let parsed = try JSONSerialization.jsonObject(with: Data(entry.utf8)) as? [String: Any]
        #expect(parsed?.keys.sorted() == ["match"], "\(entry)")
        #expect((parsed?["match"] as? [String: Any])?["name"] as? String == evil)

        // A config path and a device node in commands, quoted.
        var bad = Self.healthy()
        bad.configPath = "/tmp/my config;id.json"
        bad.config = .missing
        #expect(Doctor.findings(bad).first?.fix == "write one (docs/config.md; the package's is a good start), then: touchd check-config '/tmp/my config;id.json'")
        bad.config = .unreadable("permission denied")
        #expect(Doctor.findings(bad).first?.fix == "sudo touchd doctor (or: sudo chmod 644 '/tmp/my config;id.json')")
        var grabbed = Self.healthy()
        grabbed.devices[1] = Self.screen("/dev/input/event3$(id)", grab: .grabbed)
        grabbed.hiddenProcesses = 1
        #expect(problems(grabbed).first?.fix?.hasPrefix("find it: sudo touchd doctor; sudo fuser -v '/dev/input/event3$(id)', or") == true)
        // A connector's name (a directory in the tree) that would end the udev rule's string.
        var output = Self.healthy()
        output.outputs = [#"X", RUN+="/bin/sh -c id"#, "DSI-2"]
        #expect(problems(output).first?.fix == #"a udev rule in /etc/udev/rules.d/: ENV{ID_INPUT_TOUCHSCREEN}=="1", ENV{WL_OUTPUT}="OUTPUT"; then: sudo udevadm trigger -s input"#)
        output.outputs = ["HDMI-A-1", "DSI-2"]
        #expect(problems(output).first?.fix == #"a udev rule in /etc/udev/rules.d/: ENV{ID_INPUT_TOUCHSCREEN}=="1", ENV{WL_OUTPUT}="HDMI-A-1"; then: sudo udevadm trigger -s input"#)
    }

    @Test func shellQuotingReadsBackAsOneWord() throws {
        #expect(Shell.quoted("/run/touchd/touchd.sock") == "/run/touchd/touchd.sock")
        #expect(Shell.quoted("touchd") == "touchd")
        #expect(Shell.quoted("x;id") == "'x;id'")
        #expect(Shell.quoted("it's") == #"'it'\''s'"#)
        #expect(Shell.quoted("") == "''")
        let words = ["a b", "x;id;#", "$(id)", "`id`", "it's", "'", "\"q\"", "back\\slash", "new\nline", "*?[", "~root", "", "é'\u{301}"]
        let r = Process()
        r.executableURL = URL(fileURLWithPath: "/bin/sh")
        r.arguments = ["-c", "printf '<%s>' " + words.map(Shell.quoted).joined(separator: " ")]
        let pipe = Pipe()
        r.standardOutput = pipe
        try r.run()
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        r.waitUntilExit()
        #expect(out == words.map { "<\($0)>" }.joined())
    }

    /// Text mode: a value's control characters are escaped, one finding is one line.
    @Test func textEscapesControlCharacters() {
        let f = [Finding.warning("holders", "read by weston\nok: forged (pid 1)", fix: "kill \u{1b}[2K\u{9b}1m")]
        #expect(DoctorCommand.text(f) == "warning: read by weston\\u000aok: forged (pid 1) — fix: kill \\u001b[2K\\u009b1m\n")
        #expect(TerminalText.escaped("plain µs → ok") == "plain µs → ok")
        #expect(TerminalText.escaped("\u{7f}\u{2028}") == "\\u007f\\u2028")
    }

    @Test func theFormatsTheReaderParses() {
        #expect(BoardFiles.udevProperties("I:123\nE:ID_INPUT=1\nE:WL_OUTPUT=DSI-1\nG:seat\n") == ["ID_INPUT": "1", "WL_OUTPUT": "DSI-1"])
        // ABS_MT_POSITION_X/Y are bits 53 and 54; INPUT_PROP_DIRECT bit 1; BTN_TOUCH bit 330.
        #expect(BoardFiles.touchCapabilities(properties: "2", abs: "60000000000003", key: "0"))
        #expect(!BoardFiles.touchCapabilities(properties: "0", abs: "60000000000003", key: "0"))
        #expect(BoardFiles.touchCapabilities(properties: "0", abs: "3", key: "400 0 0 0 0 0", wordBits: 64))
        #expect(!BoardFiles.touchCapabilities(properties: "0", abs: "3", key: "0", wordBits: 64))
        #expect(BoardFiles.bit(33, in: "2 0", wordBits: 32) && !BoardFiles.bit(1, in: "2 0", wordBits: 32))
        #expect(BoardFiles.unitGroups("[Service]\nDynamicUser=yes\nUser=touchd-daemon\nSupplementaryGroups=input touchd\n") == ["input", "touchd"])
        #expect(BoardFiles.unitGroups("[Service]\nExecStart=/usr/bin/touchd run\n") == nil)
        #expect(BoardFiles.colonFile("# c\ntouchd:x:998:kiosk,ops\n") == [["touchd", "x", "998", "kiosk,ops"]])
    }
}

extension String {
    var replacingGrab: String { replacingOccurrences(of: "\"grab\": true", with: "\"grab\": false") }
}

/// A session's backlight (issue 44, item 1): missing, not a backlight, not writable by the
/// service, /sys read-only for its unit — each said with its fix; a good one is ok.
@Suite struct DoctorBacklightTests {
    static let config = """
    {"screen": {"width": 800, "height": 480}, "session": {"idle": 60, "backlight": "/sys/class/backlight/10-0045"},
     "socket": {"path": "/run/touchd/touchd.sock", "mode": "0660", "group": "touchd"},
     "devices": [{"match": {"name": "Goodix*"}, "grab": true}], "windows": []}
    """
    static let writable = Board.Node(kind: .file, mode: 0o664, owner: "root", group: "touchd-backlight")
    static let rootOnly = Board.Node(kind: .file, mode: 0o644, owner: "root", group: "root")

    func board(_ b: Board.Backlight, groups: [String]? = ["input", "touchd", "touchd-uinput", "touchd-backlight"], sys: Bool? = true) -> [Finding] {
        var board = DoctorTests.healthy(config: Self.config)
        board.backlights = [b]
        board.daemonGroups = groups
        board.unitWritesSys = sys
        return Doctor.findings(board).filter { $0.check == "backlight" }
    }

    static func panel(exists: Bool = true, power: Board.Node? = writable, brightness: Board.Node? = writable) -> Board.Backlight {
        Board.Backlight(output: "screen", path: "/sys/class/backlight/10-0045", exists: exists, power: power, brightness: brightness)
    }

    @Test func aWritablePanelIsOK() {
        let f = board(Self.panel())
        #expect(f == [.ok("backlight", "output screen: backlight /sys/class/backlight/10-0045: bl_power -rw-rw-r-- root:touchd-backlight, brightness -rw-rw-r-- root:touchd-backlight: the service can write it")])
        // In the order of the checks: after uinput.
        var b = DoctorTests.healthy(config: Self.config)
        b.backlights = [Self.panel()]
        #expect(Doctor.findings(b).map(\.check) == ["config", "device", "holders", "permissions", "output", "uinput", "backlight", "group", "socket", "daemon"])
    }

    @Test func eachProblemWithItsFix() {
        let missing = board(Self.panel(exists: false, power: nil, brightness: nil))
        #expect(missing.first?.level == .error && missing.first?.what == "output screen: backlight /sys/class/backlight/10-0045 does not exist: the output goes idle and wakes, its panel stays lit")
        #expect(missing.first?.fix == "ls /sys/class/backlight, and name one in the output's session.backlight")
        let notOne = board(Self.panel(power: nil, brightness: nil))
        #expect(notOne.first?.what.hasSuffix("has neither bl_power nor brightness: not a backlight device") == true)
        let unwritable = board(Self.panel(power: Self.rootOnly, brightness: Self.rootOnly))
        #expect(unwritable.first?.level == .error && unwritable.first?.what.hasSuffix("the service (groups input, touchd, touchd-uinput, touchd-backlight) cannot write them") == true)
        #expect(unwritable.first?.fix?.hasPrefix("install systemd/70-touchd.rules (its backlight rule)") == true)
        let noGroup = board(Self.panel(), groups: ["input", "touchd"])
        #expect(noGroup.first?.fix?.hasPrefix("give the service group touchd-backlight") == true)
        let readOnly = board(Self.panel(), sys: false)
        #expect(readOnly.first?.level == .error && readOnly.first?.fix?.hasPrefix("add ReadWritePaths=-/sys/devices to touchd.service") == true)
        // Started by hand (no unit): its modes are shown, nothing is judged.
        #expect(board(Self.panel(power: Self.rootOnly, brightness: nil), groups: nil).first?.level == .ok)
        // One writable attribute is enough (a panel without bl_power).
        #expect(board(Self.panel(power: nil)).first?.level == .ok)
    }

    @Test func theUnitsSysAccess() {
        #expect(BoardFiles.unitWritesSys("[Service]\nProtectKernelTunables=yes\nReadWritePaths=-/sys/devices\n"))
        #expect(!BoardFiles.unitWritesSys("[Service]\nProtectKernelTunables=yes\n"))
        #expect(BoardFiles.unitWritesSys("[Service]\nProtectSystem=strict\n"))
        #expect(!BoardFiles.unitWritesSys("[Service]\nProtectKernelTunables=yes\nReadWritePaths=/var/lib/x\n"))
        let shipped = (try? String(contentsOfFile: Repository.root + "/systemd/touchd.service", encoding: .utf8)) ?? ""
        #expect(!shipped.isEmpty && BoardFiles.unitWritesSys(shipped))
    }
}
