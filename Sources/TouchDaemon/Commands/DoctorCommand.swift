import TouchCore
import TouchSystem

/// `touchd doctor`: reads the board (BoardReader), checks it (Doctor), prints one line per finding.
struct DoctorCommand: Command {
    static let name = "doctor"
    static let summary = "check the board (devices, grabs, permissions, groups, config, daemon) and say what to do"
    static let operands = ""
    static let about = """
    Checks what touch needs on this board and prints one line per finding, each problem with
    the command that fixes it: the config's validity; every touchscreen (udev's
    ID_INPUT_TOUCHSCREEN), which devices[] entry matches it, ignored or grabbed; which other
    processes have it open (/proc/*/fd) and whether one holds an exclusive grab; the
    permissions of the device nodes, /dev/uinput and the socket; the socket group's members;
    WL_OUTPUT and the connected outputs; the daemon (is it listening?) and its stats.

    The grab test grabs the device (EVIOCGRAB) and releases it at once; a grab held elsewhere
    makes it fail. It is tried only when another process has the device open (or some could
    not be seen), touchd is not the one configured to grab it, and no touch is down — a grab
    takes the device's events from its other readers while it lasts (microseconds).
    --no-grab-test never tries it. Run as root to see every process's descriptors.

    Lines: "ok: …", "warning: … — fix: …", "error: … — fix: …". Exit 0 when every finding is
    ok, 1 when any is a warning or an error, 2 on a usage error.
    --json prints one object: {"findings":[{"level":"ok"|"warning"|"error","check":…,
    "what":…,"fix":…|null},…]}; check is one of config, device, holders, permissions,
    output, uinput, group, socket, daemon.
    """
    static var options: [Option<DoctorCommand>] {
        [.string(["--config", "-c"], value: "FILE", help: "the configuration to check (default /etc/touchd/touchd.json)", \.config),
         Option(["--socket"], value: "PATH", help: "the daemon's socket (default: the config's socket.path)") { c, v throws(UsageError) in c.socket = v },
         .flag(["--json"], help: "one JSON object instead of lines", \.json),
         .flag(["--no-grab-test"], help: "never try the EVIOCGRAB test", \.noGrabTest),
         .string(["--root"], value: "DIR", help: "read /sys, /dev, /proc, /run and /etc under DIR (a copy of a board's\nfiles; default / or $TOUCHD_DOCTOR_ROOT); no grab test there", \.root)]
    }

    var config = "/etc/touchd/touchd.json"
    var socket: String?
    var json = false
    var noGrabTest = false
    var root = ThisProcess.environment("TOUCHD_DOCTOR_ROOT") ?? "/"

    mutating func validate(operands: [String]) throws(UsageError) {
        guard operands.isEmpty else { throw UsageError("unexpected argument \(operands[0])") }
        guard root.hasPrefix("/") else { throw UsageError("--root needs an absolute path, got \"\(root)\"") }
        guard FileSystem.exists(root) else { throw UsageError("--root: \(root) does not exist") }
    }

    func run() throws(CommandFailure) -> Int32 {
        let reader = BoardReader(root: root == "/" || root.isEmpty ? "/" : root, configPath: config, socketPath: socket, grabTests: !noGrabTest)
        let findings = Doctor.findings(reader.read())
        let out = OutputWriter.standardOutput()
        if json { out.write(DoctorCommand.json(findings)) } else { out.write(DoctorCommand.text(findings)) }
        out.flush()
        return Doctor.exitCode(findings)
    }

    /// One line per finding; control characters from the board's files (a device's name,
    /// WL_OUTPUT, /proc/PID/comm) escaped, so none can move the cursor or forge a line.
    static func text(_ findings: [Finding]) -> String {
        findings.map { f in
            "\(f.level.rawValue): \(TerminalText.escaped(f.what))" + (f.fix.map { " — fix: \(TerminalText.escaped($0))" } ?? "") + "\n"
        }.joined()
    }

    static func json(_ findings: [Finding]) -> [UInt8] {
        var o: [UInt8] = Array("{\"findings\":[".utf8)
        for (i, f) in findings.enumerated() {
            if i > 0 { o.append(UInt8(ascii: ",")) }
            o += Array("{\"level\":\"\(f.level.rawValue)\",\"check\":".utf8)
            JSONWriter.appendString(f.check, to: &o)
            JSONWriter.appendRaw(",\"what\":", to: &o)
            JSONWriter.appendString(f.what, to: &o)
            JSONWriter.appendRaw(",\"fix\":", to: &o)
            JSONWriter.appendOptionalString(f.fix, to: &o)
            o.append(UInt8(ascii: "}"))
        }
        o += Array("]}\n".utf8)
        return o
    }
}
