import Foundation
import Testing
import TouchCore
import TouchCapture

/// Inputs that crashed touchd (found by fuzzing: Fuzz/crashes/<target>/) now fail with an
/// error that names the place; and the fuzzers' hand-written seeds (Fuzz/corpus/) go through
/// the readers without a trap. (scripts/fuzz runs the fuzzers themselves.)
@Suite struct HostileInputTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

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
}
