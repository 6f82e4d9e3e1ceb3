import Foundation
import Testing

/// Bad input of every kind gives a clear error naming the place and a non-zero exit: never a
/// crash (signal) or a hang (the runner's time limit).
@Suite struct BadInputTests {
    let dir: URL = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("touchd-bad-\(getpid())-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }()

    func write(_ name: String, _ text: String) -> String {
        let p = dir.appendingPathComponent(name).path
        FileManager.default.createFile(atPath: p, contents: Data(text.utf8))
        return p
    }

    func writeBytes(_ name: String, _ bytes: [UInt8]) -> String {
        let p = dir.appendingPathComponent(name).path
        FileManager.default.createFile(atPath: p, contents: Data(bytes))
        return p
    }

    var config: String { Paths.fixture("facts-800x480.json") }
    var atmel: String { (try? String(contentsOfFile: Paths.capture("atmel-maxtouch_4-finger-drag-down.events"), encoding: .utf8)) ?? "" }

    func replay(_ capture: String, _ extra: [String] = []) throws -> RunResult {
        let r = try touchd(["replay", "--config", config] + extra + [capture])
        #expect(!r.signalled, "crashed: \(r.stderr)")
        return r
    }

    @Test func captureCutInTheMiddleOfALine() throws {
        // Keep the first 130 lines (events start at line 120) and 20 bytes of the 131st.
        let lines = atmel.components(separatedBy: "\n")
        let cut = lines[0..<130].joined(separator: "\n") + "\n" + String(lines[130].prefix(20))
        let p = write("cut.events", cut)
        let r = try replay(p)
        #expect(r.status == 1)
        #expect(r.stderr.contains("\(p):131: expected 'E: <sec>.<usec> <type> <code> <value>', got \"\(lines[130].prefix(20))\""))
    }

    @Test func captureEndingMidFrameReplaysWhatIsCompleteAndSaysSo() throws {
        let lines = atmel.components(separatedBy: "\n")
        // Events start at line 120; the third frame begins at line 137 ("E: 0.083213 … ABS_MT_SLOT 0")
        // and line 138 sets its ABS_MT_POSITION_Y: cut after it, before the frame's SYN_REPORT.
        let p = write("midframe.events", lines[0..<138].joined(separator: "\n") + "\n")
        let r = try replay(p)
        #expect(r.status == 0)
        #expect(r.stderr.contains("\(p):138: the recording ends in the middle of a frame"))
        let frames = r.messages.filter { $0.type == "frame" }
        #expect(frames.count == 3)   // two complete frames, then the shutdown cancel
        #expect(frames.last!.touches.allSatisfy { $0["reason"] as? String == "shutdown" })
    }

    @Test func garbledEventLines() throws {
        let header = atmel.components(separatedBy: "\n").prefix(98 + 21).joined(separator: "\n")
        for (bad, why) in [("E: 0.1 0003 zz 5", "expected 'E:"), ("E: x.1 0003 0035 5", "expected 'E:"),
                           ("E: 0.1 0003 0035 99999999999", "does not fit in 32 bits"), ("Q: what", "unknown evemu line type 'Q'"),
                           ("E: 0.1 0042 0035 5", "out of range")] {
            let p = write("garbled.events", header + "\n" + bad + "\n")
            let r = try replay(p)
            #expect(r.status == 1)
            #expect(r.stderr.contains("\(p):120: "), "\(bad): \(r.stderr)")
            #expect(r.stderr.contains(why), "\(bad): \(r.stderr)")
        }
    }

    @Test func eventsOnAnAxisTheHeaderLacks() throws {
        // The virtual device's description without ABS_MT_POSITION_X.
        let desc = (try String(contentsOfFile: Paths.fixture("virtual-800x480.desc"), encoding: .utf8))
            .components(separatedBy: "\n").filter { !$0.hasPrefix("A: 35") }.joined(separator: "\n")
        let d = write("nox.desc", desc)
        let p = write("taps.events", "E: 1.000000 0003 002f 0\nE: 1.000000 0003 0039 1\nE: 1.000000 0003 0036 20\nE: 1.000000 0003 0035 10\n")
        let r = try replay(p, ["--device-info", d])
        #expect(r.status == 1)
        #expect(r.stderr.contains("\(p):4: event on ABS_MT_POSITION_X, which the device description (\(d)) does not declare: its range is unknown"))
    }

    @Test func headerlessEventsWithoutDescription() throws {
        let p = write("alone.events", "E: 1.000000 0003 0035 10\n")
        let r = try replay(p)
        #expect(r.status == 1)
        #expect(r.stderr.contains("\(p):1: events before any device description"))
        #expect(r.stderr.contains("--device-info"))
    }

    @Test func notACaptureAtAll() throws {
        var rng = SystemRandomNumberGenerator()
        let noise = writeBytes("noise.bin", (0..<4096).map { _ in UInt8.random(in: 0...255, using: &rng) })
        let r = try replay(noise)
        #expect(r.status == 1)
        #expect(r.stderr.contains("\(noise):1: not a recognised capture"))
        let empty = write("empty.events", "")
        let e = try replay(empty)
        #expect(e.status == 1 && e.stderr.contains("\(empty): empty file"))
        let missing = try replay(dir.appendingPathComponent("nope.events").path)
        #expect(missing.status == 1 && missing.stderr.contains("nope.events: no such file"))
        let notTouch = write("keyboard.events", "N: keyboard\nI: 0003 0001 0001 0001\nB: 00 03 00 00 00 00 00 00 00\nE: 0.000001 0001 001e 1\nE: 0.000001 0000 0000 0\n")
        let k = try replay(notTouch)
        #expect(k.status == 1 && k.stderr.contains("\"keyboard\" is not a touch device"))
    }

    @Test func brokenAndWrongConfigs() throws {
        let broken = write("broken.json", "{\n  \"screen\": {\"width\": 800,\n}")
        let r = try touchd("check-config", broken)
        #expect(r.status == 1)
        #expect(r.stderr.contains("\(broken): line 3 column 1: invalid JSON: unexpected '}', expected a string key"))
        let wrong = write("wrong.json", "{\"windows\": [{\"id\": 5, \"frame\": \"big\"}], \"screen\": {\"width\": 800, \"height\": true}}")
        let w = try touchd("check-config", wrong)
        #expect(w.status == 1)
        #expect(w.stderr.contains("\(wrong): $.windows[0].id: expected a string, got a number (line 1)"))
        #expect(w.stderr.contains("\(wrong): $.screen.height: expected a number, got a boolean (line 1)"))
        // replay refuses a bad config before reading any capture.
        let rp = try touchd("replay", "--config", wrong, Paths.capture("atmel-maxtouch_4-finger-drag-down.events"))
        #expect(rp.status == 1 && rp.stdout.isEmpty && rp.stderr.contains("$.windows[0].id"))
        let ok = try touchd("check-config", Paths.exampleConfig)
        #expect(ok.status == 0 && ok.stdout.contains("ok: screen 800x480, 2 window(s), 10 view(s), 3 control(s)"))
    }

    @Test func commandLineMistakes() throws {
        for (args, text) in [(["replay"], "--config FILE is required"),
                             (["replay", "--config", config], "give at least one CAPTURE"),
                             (["replay", "--config", config, "--format", "mp3", "x"], "unknown format \"mp3\""),
                             (["replay", "--bogus"], "unknown option --bogus"),
                             (["hit-test", "--config", config, "1"], "give the point as two numbers"),
                             (["hit-test", "--config", config, "a", "b"], "X and Y must be numbers"),
                             (["check-config"], "give exactly one FILE"),
                             (["frobnicate"], "unknown command 'frobnicate'")] {
            let r = try touchd(args)
            #expect(r.status == 2, "\(args)")
            #expect(r.stderr.contains(text), "\(args): \(r.stderr)")
        }
        let w = try touchd("hit-test", "--config", config, "--window", "nope", "1", "1")
        #expect(w.status == 1 && w.stderr.contains("no window has id \"nope\""))
    }

    @Test(arguments: ["replay", "hit-test", "check-config", "run", "subscribe", "devices", "record", "render", "calibrate", "measure"])
    func everyCommandHasHelp(_ command: String) throws {
        let r = try touchd(command, "--help")
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("usage: touchd \(command)"))
    }

    @Test func topLevelHelpListsTheCommands() throws {
        let r = try touchd("--help")
        #expect(r.status == 0)
        for c in ["run", "subscribe", "replay", "hit-test", "check-config", "devices", "record", "render", "calibrate", "measure"] {
            #expect(r.stdout.contains("  \(c) "))
        }
        // The engine's benchmark is not in the shipped binary: it is touchd-bench, built beside it.
        #expect(!r.stdout.contains("  bench "))
        let bench = try touchd("bench", "--help")
        #expect(bench.status == 2 && bench.stderr.contains("unknown command 'bench'"))
    }

    @Test func theBenchmarkIsAProgramOfItsOwn() throws {
        let path = URL(fileURLWithPath: Paths.binary).deletingLastPathComponent().appendingPathComponent("touchd-bench").path
        let r = try runProgram(path, ["--help"])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("usage: touchd-bench [--events N]"))
        let bad = try runProgram(path, ["--events", "10"])
        #expect(bad.status == 2 && bad.stderr.hasPrefix("touchd-bench: --events"))
    }
}
