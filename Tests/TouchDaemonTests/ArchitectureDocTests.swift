import Foundation
import Testing

/// docs/architecture.md stays true to the tree: every Swift file under Sources/ is named in it,
/// and no source file is over 400 lines (the doc's own rule).
@Suite struct ArchitectureDocTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func sources() -> [URL] {
        let e = FileManager.default.enumerator(at: root.appendingPathComponent("Sources"), includingPropertiesForKeys: nil)
        var out: [URL] = []
        while let u = e?.nextObject() as? URL { if u.pathExtension == "swift" { out.append(u) } }
        return out.sorted { $0.path < $1.path }
    }

    @Test func everySourceFileIsNamedInTheArchitectureDoc() throws {
        let doc = try String(contentsOf: Self.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let files = Self.sources()
        #expect(files.count > 50, "Sources/ should hold the project's files (found \(files.count))")
        let missing = files.map(\.lastPathComponent).filter { !doc.contains($0) }
        #expect(missing.isEmpty, "docs/architecture.md does not mention: \(missing.joined(separator: ", "))")
    }

    @Test func noSourceFileIsOver400Lines() throws {
        var long: [String] = []
        for f in Self.sources() {
            let lines = try String(contentsOf: f, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).count - 1
            if lines > 400 { long.append("\(f.lastPathComponent) (\(lines))") }
        }
        #expect(long.isEmpty, "over 400 lines: \(long.joined(separator: ", "))")
    }
}
