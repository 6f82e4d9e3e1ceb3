import Foundation
import Testing

/// Paths of the package, the built binary, the fixtures and the real captures.
enum Paths {
    static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var binary: String {
        for config in ["debug", "release"] {
            let p = root.appendingPathComponent(".build/\(config)/touchd").path
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return root.appendingPathComponent(".build/debug/touchd").path
    }
    static func fixture(_ name: String) -> String { root.appendingPathComponent("Tests/Fixtures/\(name)").path }
    /// Real recordings copied into the repository (Tests/Fixtures/captures/SOURCES.md).
    static let captures: String = root.appendingPathComponent("Tests/Fixtures/captures").path
    static func capture(_ name: String) -> String { captures + "/" + name }
    static let exampleConfig = root.appendingPathComponent("config/example.json").path
}

struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var signalled: Bool
    var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    var messages: [[String: Any]] {
        lines.map { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] ?? ["unparsable": $0] }
    }
}

/// A file of the repository that a test needs is not there: the test fails saying which,
/// instead of running on and crashing the whole test run.
struct MissingFixture: Error, CustomStringConvertible {
    var path: String
    var description: String { "\(path) is missing from the repository (a test fixture or script the test needs)" }
}

/// Runs a program with a time limit (a hang is a failure, not a stuck test run). Every argument
/// that names a file of the repository must exist.
func runProgram(_ path: String, _ args: [String], timeout: TimeInterval = 60, stdin: Data? = nil) throws -> RunResult {
    for a in args where a.hasPrefix(Paths.root.path + "/") && !FileManager.default.fileExists(atPath: a) {
        throw MissingFixture(path: String(a.dropFirst(Paths.root.path.count + 1)))
    }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = args
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    let inPipe = Pipe()
    p.standardInput = inPipe
    try p.run()
    if let stdin { inPipe.fileHandleForWriting.write(stdin) }
    try? inPipe.fileHandleForWriting.close()
    // Drain both pipes concurrently so a chatty child cannot block on a full pipe.
    nonisolated(unsafe) var outData = Data(), errData = Data()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async { outData = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    group.enter()
    DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    let deadline = Date().addingTimeInterval(timeout)
    while p.isRunning && Date() < deadline { usleep(10_000) }
    if p.isRunning {
        p.terminate()
        p.waitUntilExit()
        Issue.record("\(path) \(args.joined(separator: " ")) did not finish within \(timeout) s")
    }
    p.waitUntilExit()
    group.wait()
    return RunResult(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                     stderr: String(decoding: errData, as: UTF8.self),
                     signalled: p.terminationReason == .uncaughtSignal)
}

func touchd(_ args: String...) throws -> RunResult { try runProgram(Paths.binary, args) }
func touchd(_ args: [String]) throws -> RunResult { try runProgram(Paths.binary, args) }

extension Dictionary where Key == String, Value == Any {
    var type: String? { self["type"] as? String }
    var touches: [[String: Any]] { self["touches"] as? [[String: Any]] ?? [] }
    var calls: [String] {
        (self["calls"] as? [[String: Any]] ?? []).map { c in
            "\(c["responder"]!).\(c["method"]!)(\((c["touches"] as? [Int] ?? []).map(String.init).joined(separator: ",")))"
        }
    }
}
