import Foundation
import Testing
import TouchCore
import TouchCapture
import TouchTestSupport

/// Inputs that crashed touchd (found by fuzzing: Fuzz/crashes/<target>/) now fail with an
/// error that names the place; and the fuzzers' hand-written seeds (Fuzz/corpus/) go through
/// the readers without a trap. (scripts/fuzz runs the fuzzers themselves.)
@Suite struct HostileInputTests {
    static let root = URL(fileURLWithPath: Repository.root)

    static func files(_ dir: String) -> [URL] {
        let d = root.appendingPathComponent(dir)
        return ((try? FileManager.default.contentsOfDirectory(at: d, includingPropertiesForKeys: nil)) ?? [])
            .filter { !$0.lastPathComponent.hasPrefix(".") && !$0.lastPathComponent.hasSuffix(".md") }.sorted { $0.path < $1.path }
    }

    static let description = try! EvemuReader.readDescription(Array(try! Data(contentsOf: root.appendingPathComponent("Tests/Fixtures/virtual-800x480.desc"))), file: "desc")

    /// Runs the reader of `target` on `bytes`; the error's text, or nil when it read them.
    static func read(_ target: String, _ bytes: [UInt8], file: String) -> String? {
        do {
            switch target {
            case "evemu", "replay": _ = try EvemuReader.read(bytes, file: file)
            case "libinput": _ = try LibinputRecordReader.read(bytes, file: file)
            case "raw": _ = try RawEventReader.read(bytes, file: file, description: description)
            case "getevent": _ = try GeteventReader.read(bytes, file: file, description: nil) { _ in }
            case "config":
                do { _ = try Config.parse(bytes) } catch { return error.description }
            default: return nil
            }
        } catch let e as CaptureError {
            return e.description
        } catch {
            return "\(error)"
        }
        return nil
    }

    static let crashes: [(String, URL)] = ["evemu", "libinput", "raw", "getevent", "config", "replay"].flatMap { t in
        files("Fuzz/crashes/\(t)").map { (t, $0) }
    }

    @Test(arguments: crashes)
    func aCrashFoundByFuzzingIsAnErrorWithItsPlace(_ target: String, _ file: URL) throws {
        let bytes = Array(try Data(contentsOf: file))
        let error = Self.read(target, bytes, file: file.lastPathComponent)
        #expect(error != nil, "\(target) read \(file.lastPathComponent) without an error")
        #expect(error?.contains(file.lastPathComponent) == true || target == "config", "\(error ?? "")")
    }

    @Test func theFuzzersSeedsGoThroughWithoutATrap() throws {
        var read = 0
        for target in ["evemu", "libinput", "raw", "getevent", "config"] {
            for f in Self.files("Fuzz/corpus/\(target)") {
                _ = Self.read(target, Array(try Data(contentsOf: f)), file: f.lastPathComponent)
                read += 1
            }
        }
        #expect(read > 0)
    }

    /// Recordings carry uptime or the epoch (libinput record: 1350644052 s in a real one), so
    /// every reader takes seconds up to 999999999999 and refuses the next one with its line.
    @Test(arguments: [(Int64(1_350_644_052), true), (999_999_999_999, true), (1_000_000_000_000, false)])
    func timestampsUpToTheLimitAreReadAndPastItRefused(_ sec: Int64, _ accepted: Bool) throws {
        let desc = "N: t\nI: 0018 0000 0000 0000\nB: 00 0b 00 00 00 00 00 00 00\nB: 03 03 00 00 00 00 00 00 00\n" +
            "A: 00 0 100 0 0 0\nA: 01 0 100 0 0 0\n"
        let evemu = desc + "E: \(sec).000001 0003 0000 5\nE: \(sec).000002 0000 0000 0\n"
        let libinput = """
            version: 1
            ndevices: 1
            devices:
            - node: /dev/input/event0
              evdev:
                name: t
                id: [24, 0, 0, 0]
                codes:
                  0: [0]
                  3: [0, 1]
                absinfo:
                  0: [0, 100, 0, 0, 0]
                  1: [0, 100, 0, 0, 0]
                properties: []
              events:
              - evdev:
                - [\(sec), 1, 3, 0, 5]
                - [\(sec), 2, 0, 0, 0]

            """
        let getevent = "[ \(sec).000001] /dev/input/event0: 0003 0000 00000005\n[ \(sec).000002] /dev/input/event0: 0000 0000 00000000\n"
        for (target, text) in [("evemu", evemu), ("libinput", libinput), ("getevent", getevent)] {
            let error = Self.read(target, Array(text.utf8), file: "t")
            if accepted {
                #expect(error == nil, "\(target): \(error ?? "")")
            } else {
                #expect(error?.hasPrefix("t:") == true, "\(target) read \(sec) s: \(error ?? "no error")")
            }
        }
    }
}
