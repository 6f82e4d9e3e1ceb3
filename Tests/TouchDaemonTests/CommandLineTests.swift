import Testing
import TouchCore
@testable import TouchDaemon

/// Option tables drive both parsing and --help; checked on the real commands.
@Suite struct CommandLineTests {
    func error<C: Command>(_ type: C.Type, _ args: [String]) -> String? {
        do { _ = try C.parse(args); return nil } catch { return error.message }
    }

    @Test func optionsParseInEveryForm() throws {
        let r = try ReplayCommand.parse(["-c", "a.json", "--device-info=d1", "--device-info", "d2", "--trace", "x.events", "--", "-y.events"])
        #expect(r.config == "a.json" && r.deviceInfos == ["d1", "d2"] && r.trace && !r.summary)
        #expect(r.captures == ["x.events", "-y.events"])
        #expect(r.logLevel == .warning)
        let run = try RunCommand.parse(["--replay", "a", "--replay", "b", "--speed", "0", "--wait-clients", "3", "--exit-at-end", "--log-level", "notice"])
        #expect(run.options.replay == ["a", "b"] && run.options.speed == 0 && run.options.startAfterRequests == 3)
        #expect(run.options.exitAtEnd && run.options.logLevel == .notice && run.options.configPath == "/etc/touchd/touchd.json")
        let hit = try HitTestCommand.parse(["--config", "c.json", "-5", "-7.5"])
        #expect(hit.point == Point(-5, -7.5))
        #expect(try HitTestCommand.parse(["--config", "c.json", "1e2", ".5"]).point == Point(100, 0.5))
        #expect(decimal("12.") == 12 && decimal("-") == nil && decimal("1e") == nil && decimal("+1") == nil)
    }

    @Test func mistakesAreNamed() {
        #expect(error(ReplayCommand.self, ["x"]) == "--config FILE is required")
        #expect(error(ReplayCommand.self, ["-c", "a"]) == "give at least one CAPTURE file")
        #expect(error(ReplayCommand.self, ["-c"]) == "-c needs a value")
        #expect(error(ReplayCommand.self, ["-c", "a", "--bogus", "x"]) == "unknown option --bogus")
        #expect(error(ReplayCommand.self, ["-c", "a", "--trace=yes", "x"]) == "--trace takes no value")
        #expect(error(ReplayCommand.self, ["-c", "a", "--log-level", "loud", "x"]) == "unknown log level \"loud\" (expected debug, info, notice, warning or error)")
        #expect(error(RunCommand.self, ["--speed", "-1"]) == "--speed must be 0 (as fast as possible) or from 0.001 to 1000, got -1")
        #expect(error(RunCommand.self, ["--speed", "fast"]) == "--speed needs a number, got \"fast\"")
        #expect(error(RunCommand.self, ["--exit-at-end"]) == "--exit-at-end needs --replay")
        #expect(error(RunCommand.self, ["--wait-clients", "2.5"]) == "--wait-clients needs a whole number from 0 to 100000, got \"2.5\"")
        #expect(error(RenderCommand.self, ["-c", "a"]) == "-o OUT.svg is required")
        #expect(error(HitTestCommand.self, ["-c", "a", "1"]) == "give the point as two numbers: X Y")
        #expect(error(SubscribeCommand.self, ["--types", "frame,frames"])?.hasPrefix("unknown message type \"frames\"") == true)
        // Decimal numbers only: Swift's Double("0x10") would be 16.
        #expect(error(HitTestCommand.self, ["-c", "a", "0x10", "5"]) == "X and Y must be numbers, got \"0x10\" \"5\"")
        #expect(error(HitTestCommand.self, ["-c", "a", "inf", "5"]) == "X and Y must be numbers, got \"inf\" \"5\"")
        #expect(error(RunCommand.self, ["--speed", "nan"]) == "--speed needs a number, got \"nan\"")
    }

    @Test func helpIsMadeFromTheSameTable() {
        for type in CLI.commands {
            let help = type.help
            #expect(help.hasPrefix("usage: touchd \(type.name)"), "\(type.name)")
            #expect(help.contains("--help, -h"))
        }
        let replay = ReplayCommand.help
        for option in ReplayCommand.options {
            for name in option.names { #expect(replay.contains(name), "\(name) is in the table but not in the help") }
        }
        // Required options are not bracketed; the short alias -c is documented.
        #expect(replay.hasPrefix("usage: touchd replay --config FILE [--device-info DESC]... [--format FORMAT]"))
        #expect(replay.contains("--config FILE, -c FILE"))
        #expect(RunCommand.help.contains("[--config FILE]"))
        // Every level is named (notice was missing), and a default is only claimed where it holds.
        for level in [LogLevel.debug, .info, .notice, .warning, .error] { #expect(RunCommand.help.contains("\(level)"), "\(level)") }
        #expect(RunCommand.help.contains("debug, info, notice, warning or error"))
        #expect(CalibrateCommand.help.contains("required with --capture; live, default: the five targets"))
    }
}

@Suite struct StderrLogTests {
    final class Clock {
        var now: Int64 = 1_000_000
    }

    func log(_ clock: Clock, _ lines: Box) -> StderrLog {
        StderrLog(threshold: .info, now: { clock.now }, emit: { lines.value.append($0) })
    }

    final class Box { var value: [String] = [] }

    @Test func repeatsAreFoldedWithinAWindowAndSummedUp() {
        let clock = Clock(), lines = Box()
        let l = log(clock, lines)
        for k in 0..<20 { l(.warning, "client \(k) is not keeping up") }
        #expect(lines.value.count == StderrLog.shownPerWindow)
        #expect(lines.value.first == "touchd: warning: client 0 is not keeping up\n")
        #expect(l.nextDeadline == 1_000_000 + StderrLog.window)
        clock.now += 1_200_000
        l.tick()
        #expect(lines.value.last == "touchd: warning: … 15 more like this in 1.2 s; the last: client 19 is not keeping up\n")
        // A new window shows the kind again.
        l(.warning, "client 20 is not keeping up")
        #expect(lines.value.last == "touchd: warning: client 20 is not keeping up\n")
        #expect(l.nextDeadline == nil)
    }

    @Test func lifecycleLinesAndErrorsAreNeverFolded() {
        let clock = Clock(), lines = Box()
        let l = log(clock, lines)
        for _ in 0..<30 { l(.notice, "SIGHUP: reloading /etc/touchd/touchd.json") }
        for _ in 0..<30 { l(.error, "reload rejected: the previous configuration stays in force") }
        #expect(lines.value.count == 60)
        l(.debug, "below the threshold")
        #expect(lines.value.count == 60)
    }

    @Test func theTableOfKindsIsBoundedAndFlushedAtTheEnd() {
        let clock = Clock(), lines = Box()
        let l = log(clock, lines)
        // Kinds told apart by letters (numbers are blanked out of a kind).
        func name(_ k: Int) -> String { String(UnicodeScalar(UInt8(97 + k % 26))) + String(UnicodeScalar(UInt8(97 + k / 26 % 26))) }
        for k in 0..<(StderrLog.kindLimit * 3) { l(.info, "kind \(name(k)) said") }
        #expect(l.kinds.count <= StderrLog.kindLimit)
        for _ in 0..<10 { l(.info, "one more kind") }
        l.flush()
        #expect(lines.value.last == "touchd: info: … 5 more like this in 0.0 s; the last: one more kind\n")
        #expect(l.kinds.isEmpty)
    }

    @Test func kindsIgnoreNumbers() {
        #expect(StderrLog.kind(of: "kernel bug at 12.345: slot 3") == StderrLog.kind(of: "kernel bug at 9.1: slot 10"))
        #expect(StderrLog.kind(of: "a") != StderrLog.kind(of: "b"))
    }
}
