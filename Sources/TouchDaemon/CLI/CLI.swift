import TouchCore
import TouchSystem

/// The repository's VERSION file, by hand (the build reads no files): PackagingTests checks
/// that `touchd --version` says what VERSION says, as the C library and the Python package do.
public let touchdVersion = "0.2.0"

/// Errors a command reports, one line each, before it exits non-zero.
public struct CommandFailure: Error {
    public var lines: [String]
    public var code: Int32
    public init(_ lines: [String], code: Int32 = 1) { self.lines = lines; self.code = code }
    public init(_ line: String, code: Int32 = 1) { self.init([line], code: code) }
}

public enum CLI {
    static let commands: [any Command.Type] = [
        RunCommand.self, SubscribeCommand.self, ReplayCommand.self, HitTestCommand.self, CheckConfigCommand.self,
        DevicesCommand.self, DoctorCommand.self, OutputsCommand.self, RecordCommand.self, RenderCommand.self, CalibrateCommand.self, MeasureCommand.self, WebCommand.self, SpeakCommand.self,
        OnGestureCommand.self,
    ]

    static var usage: String {
        var s = """
        touchd \(touchdVersion): iOS-style touch delivery for Linux touchscreens.

        usage: touchd <command> [options]

        commands:

        """
        for c in commands {
            s += "  " + c.name.padding(12) + c.summary + "\n"
        }
        s += "\nRun 'touchd <command> --help' for a command's options, 'touchd help --all' for the whole manual\n(touchd(1); 'touchd help --man' prints its roff).\n"
        return s
    }

    /// Runs a command line; returns the process exit code.
    public static func main(_ argv: [String]) -> Int32 {
        var args = Array(argv.dropFirst())
        guard let first = args.first else {
            ThisProcess.writeError(usage)
            return 2
        }
        if first == "--help" || first == "-h" || first == "help" {
            if args.count > 1 && args[1] == "--all" {
                ThisProcess.writeOutput(Manual.text())
                return 0
            }
            if args.count > 1 && args[1] == "--man" {
                ThisProcess.writeOutput(Manual.roff(date: args.count > 2 ? args[2] : "2026-11-30"))
                return 0
            }
            if args.count > 1, let c = commands.first(where: { $0.name == args[1] }) {
                ThisProcess.writeOutput(c.help)
            } else {
                ThisProcess.writeOutput(usage)
            }
            return 0
        }
        if first == "--version" { ThisProcess.writeOutput("touchd \(touchdVersion)\n"); return 0 }
        args.removeFirst()
        guard let type = commands.first(where: { $0.name == first }) else {
            ThisProcess.writeError("touchd: unknown command '\(first)'\n\n" + usage)
            return 2
        }
        if args.contains("--help") || args.contains("-h") {
            ThisProcess.writeOutput(type.help)
            return 0
        }
        return run(type, args)
    }

    package static func run<C: Command>(_ type: C.Type, _ args: [String]) -> Int32 {
        let command: C
        do { command = try C.parse(args) } catch {
            ThisProcess.writeError("\(C.invocation): \(error.message)\nRun '\(C.invocation) --help' for usage.\n")
            return 2
        }
        do {
            let code = try command.run()
            ThisProcess.flushOutput()
            return code
        } catch {
            ThisProcess.flushOutput()
            for l in error.lines { ThisProcess.writeError("\(C.invocation): \(l)\n") }
            return error.code
        }
    }
}

extension String {
    func padding(_ n: Int) -> String { count >= n ? self + " " : self + String(repeating: " ", count: n - count) }
}
