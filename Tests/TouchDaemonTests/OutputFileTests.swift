import Foundation
import Glibc
import Testing
@testable import TouchDaemon

/// The files offline commands write (render -o, record -o: OutputWriter.file).
@Suite struct OutputFileTests {
    /// Issue 40, item 11: render -o and record -o do not write through a planted symlink.
    @Test func outputFilesAreNotWrittenThroughASymlink() throws {
        let dir = NSTemporaryDirectory() + "touchd-out-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "victim".write(toFile: dir + "/victim", atomically: false, encoding: .utf8)
        symlink(dir + "/victim", dir + "/out.svg")
        do {
            let w = try OutputWriter.file(dir + "/out.svg")
            w.write("overwritten")
            w.flush()
            Issue.record("a symlink was written through")
        } catch {
            #expect(error.lines == ["cannot write \(dir)/out.svg: it is a symlink, and output files are not written through one (name the file it points to)"])
        }
        #expect(try String(contentsOfFile: dir + "/victim", encoding: .utf8) == "victim")
        // A plain file is written; the standard streams by name are the descriptors.
        let w = try OutputWriter.file(dir + "/plain.svg")
        w.write("drawn")
        w.flush()
        #expect(try String(contentsOfFile: dir + "/plain.svg", encoding: .utf8) == "drawn")
        #expect(OutputWriter.streamNumber("/dev/stdout") == 1 && OutputWriter.streamNumber("/dev/fd/2") == 2)
        #expect(OutputWriter.streamNumber("/dev/fd/") == nil && OutputWriter.streamNumber("/dev/fd/999999") == nil && OutputWriter.streamNumber(dir + "/plain.svg") == nil)
    }
}
