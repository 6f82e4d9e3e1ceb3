import Foundation
import Testing

/// Every capture format: libinput record and raw dumps made from each real evemu capture by an
/// independent converter (Tests/Tools/convert-capture.py) replay to the same bytes as the original;
/// the real getevent logs replay with counts checked by the independent oracle; bad input in
/// each format names its place.
@Suite struct FormatTests {
    static let evemu: [(file: String, desc: String?)] = SharedCaptureTests.facts.map { f in
        let args = SharedCaptureTests.arguments(for: f.file)
        return (f.file, args.count == 3 ? args[1] : nil)
    }

    func convert(_ to: String, _ file: String, desc: String?, into dir: TempDir, ext: String) throws -> String {
        let out = dir.path((file as NSString).deletingPathExtension + "." + ext)
        var args = [Paths.root.appendingPathComponent("Tests/Tools/convert-capture.py").path, "--to", to, Paths.capture(file), "-o", out]
        if let desc { args += ["--device-info", desc] }
        let r = try runProgram("/usr/bin/env", ["python3"] + args)
        #expect(r.status == 0, "\(r.stderr)")
        return out
    }

    @Test(arguments: FormatTests.evemu.map(\.file))
    func libinputRecordingReplaysLikeTheEvemuOriginal(_ file: String) throws {
        let dir = TempDir()
        let desc = FormatTests.evemu.first { $0.file == file }!.desc
        let yml = try convert("libinput", file, desc: desc, into: dir, ext: "yml")
        let original = try touchd(["replay", "--config", Paths.exampleConfig] + SharedCaptureTests.arguments(for: file))
        let converted = try touchd("replay", "--config", Paths.exampleConfig, yml)
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(!original.stdout.isEmpty && converted.stdout == original.stdout)
    }

    @Test(arguments: FormatTests.evemu.map(\.file))
    func rawDumpReplaysLikeTheEvemuOriginal(_ file: String) throws {
        let dir = TempDir()
        let entry = FormatTests.evemu.first { $0.file == file }!
        let raw = try convert("raw", file, desc: entry.desc, into: dir, ext: "raw")
        let original = try touchd(["replay", "--config", Paths.exampleConfig] + SharedCaptureTests.arguments(for: file))
        let converted = try touchd("replay", "--config", Paths.exampleConfig, "--device-info", entry.desc ?? Paths.capture(file), raw)
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(converted.stdout == original.stdout)
    }

    @Test func twoDevicesInOneLibinputRecordingShareATimeline() throws {
        let dir = TempDir()
        let a = try String(contentsOfFile: try convert("libinput", "atmel-maxtouch_1-finger-fast-taps.events", desc: nil, into: dir, ext: "yml"), encoding: .utf8)
        let b = try String(contentsOfFile: try convert("libinput", "edt-ft5x06-EP0430M09_2-finger-scroll-down.events", desc: nil, into: dir, ext: "yml"), encoding: .utf8)
        // The second file's device entry appended to the first's devices list.
        let second = b.components(separatedBy: "devices:\n")[1]
        let both = dir.write("both.yml", a.replacingOccurrences(of: "ndevices: 1", with: "ndevices: 2") + second)
        let r = try touchd("replay", "--config", Paths.fixture("facts-800x480.json"), both)
        #expect(r.status == 0, "\(r.stderr)")
        let devices = r.messages.filter { $0.type == "device" }.compactMap { ($0["device"] as? [String: Any])?["name"] as? String }
        #expect(devices == ["Atmel maXTouch Touchscreen", "EP0430M09"])
        let frames = r.messages.filter { $0.type == "frame" }
        #expect(Set(frames.map { $0["device"] as! String }).count == 2)
        #expect(frames.map { $0["time"] as! Double } == frames.map { $0["time"] as! Double }.sorted())
        #expect(Set(frames.flatMap(\.touches).map { $0["id"] as! Int }).count == 9 + 2)
    }

    @Test func geteventLogsReplayWithCountsFromTheOracle() throws {
        let oracle = try runProgram("/usr/bin/env", ["python3", Paths.root.appendingPathComponent("Tests/Tools/capture-facts.py").path,
                                                    "--all", Paths.captures, "--getevent"])
        #expect(oracle.status == 0)
        let facts = oracle.messages
        #expect(facts.count == 2)
        for f in facts {
            let file = f["file"] as! String
            let r = try touchd("replay", "--config", Paths.fixture("facts-800x480.json"), Paths.capture(file))
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("axis ranges are inferred from the largest values seen"))
            let frames = r.messages.filter { $0.type == "frame" }
            var last: [Int: String] = [:]
            var most = 0
            for fr in frames {
                for t in fr.touches { last[t["id"] as! Int] = t["phase"] as? String }
                most = max(most, fr.touches.filter { !["ended", "cancelled"].contains($0["phase"] as? String) }.count)
            }
            #expect(last.count == f["contacts"] as! Int, "\(file)")
            #expect(most == f["maxFingers"] as! Int, "\(file)")
            #expect(last.values.allSatisfy { $0 == "ended" || $0 == "cancelled" })
            let device = r.messages.first { $0.type == "device" }?["device"] as? [String: Any]
            #expect(device?["protocol"] as? String == (f["protocol"] as! String))
        }
    }

    @Test func geteventRangesFromADescription() throws {
        let dir = TempDir()
        // A Galaxy S-like panel: 0…1023 × 0…1023 on the 800×480 screen.
        let desc = dir.write("gs.desc", "N: galaxy\nI: 0000 0000 0000 0000\nP: 02 00 00 00 00 00 00 00\nA: 30 0 255 0 0\nA: 35 0 1023 0 0\nA: 36 0 1023 0 0\nA: 39 0 65535 0 0\nA: 3a 0 255 0 0\n")
        let r = try touchd("replay", "--config", Paths.fixture("facts-800x480.json"), "--device-info", desc,
                           Paths.capture("android-galaxyS_getevent-lt_protocolA_2-finger-drag.txt"))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stderr.contains("inferred"))
        // The first contact is at x 4 of 0…1023 → 4 · 799 / 1023 = 3.124 points; y 0x260 = 608
        // → 608 · 479 / 1023 = 284.684.
        let first = try #require(r.messages.first { $0.type == "frame" }?.touches.first)
        #expect(first["location"] as? [Double] == [3.124, 284.684])
        #expect(first["pressure"] as? Double == 0.09)   // 0x17 = 23 of 255
    }

    @Test func badInputInEachFormatNamesItsPlace() throws {
        let dir = TempDir()
        let yaml = dir.write("bad.yml", "version: 1\ndevices:\n- node: /dev/input/event0\n  evdev:\n    name: \"x\"\n    id: [1, 2\n  events: []\n")
        let y = try touchd("replay", "--config", Paths.fixture("facts-800x480.json"), "--format", "libinput", yaml)
        #expect(y.status == 1)
        #expect(y.stderr.contains("\(yaml):7: malformed YAML"), "\(y.stderr)")
        let wrongEvent = dir.write("ev.yml", "version: 1\ndevices:\n- evdev:\n    name: x\n    absinfo:\n      53: [0, 99, 0, 0, 0]\n      54: [0, 99, 0, 0, 0]\n  events:\n  - evdev:\n    - [0, 0, 3, 53]\n")
        let w = try touchd("replay", "--config", Paths.fixture("facts-800x480.json"), wrongEvent)
        #expect(w.status == 1 && w.stderr.contains("\(wrongEvent):10: expected an event [sec, usec, type, code, value]"), "\(w.stderr)")
        // A raw dump cut short: not a whole number of 24-byte events.
        let raw = try convert("raw", "atmel-maxtouch_4-finger-drag-down.events", desc: nil, into: dir, ext: "raw")
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        let cut = dir.path("cut.raw")
        FileManager.default.createFile(atPath: cut, contents: data.prefix(24 * 10 + 7))
        let c = try touchd("replay", "--config", Paths.fixture("facts-800x480.json"), "--device-info",
                           Paths.capture("atmel-maxtouch_4-finger-drag-down.events"), cut)
        #expect(c.status == 1)
        #expect(c.stderr.contains("\(cut): truncated raw dump: 247 bytes is not a whole number of 24-byte input_events (event 11, at byte 240, is cut short: 7 bytes)"), "\(c.stderr)")
        let noDesc = try touchd("replay", "--config", Paths.fixture("facts-800x480.json"), raw)
        #expect(noDesc.status == 1 && noDesc.stderr.contains("give --device-info"))
        // A getevent line with garbage in it.
        let lines = try String(contentsOfFile: Paths.capture("android-galaxyS_getevent-lt_protocolA_2-finger-drag.txt"), encoding: .utf8).split(whereSeparator: \.isNewline).map(String.init)   // CRLF lines
        let g = dir.write("garbage.txt", (lines[0..<5] + ["[    1807.354899] EV_ABS       ABS_MT_WIBBLE        zz"] + lines[5..<20]).joined(separator: "\n"))
        let gr = try touchd("replay", "--config", Paths.fixture("facts-800x480.json"), g)
        #expect(gr.status == 1)
        #expect(gr.stderr.contains("\(g):6: expected '[ seconds] [/dev/input/eventN:] EV_TYPE CODE VALUE'"), "\(gr.stderr)")
        // --format forces a reader: an evemu file read as getevent fails on its first line.
        let forced = try touchd("replay", "--config", Paths.fixture("facts-800x480.json"), "--format", "getevent", Paths.capture("atmel-maxtouch_4-finger-drag-down.events"))
        #expect(forced.status == 1 && forced.stderr.contains(":1: expected '[ seconds]"))
    }
}
