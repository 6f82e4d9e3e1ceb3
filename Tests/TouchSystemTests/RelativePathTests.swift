import Foundation
import Testing
@testable import TouchSystem

/// A relative socket path's directories are made in the working directory, not from / (issue
/// 21, item 4: `--socket run/t.sock` made /run… before).
@Suite struct RelativePathTests {
    @Test func parentsOfARelativePathAreMadeInTheWorkingDirectory() throws {
        let top = ".touchd-relative-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: top) }
        let created = try FileSystem.makeParents(of: "\(top)/a/t.sock")
        #expect(created == ["./\(top)", "./\(top)/a"])
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/\(top)/a", isDirectory: &isDirectory) && isDirectory.boolValue)
        #expect(!FileManager.default.fileExists(atPath: "/\(top)"))
    }
}
