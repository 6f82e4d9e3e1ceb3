import Foundation
import Testing

/// Paths of the package, the built binary, the fixtures and the real captures.
enum Paths {
    static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var binary: String {
        // The touchd built with these tests, beside the test bundle: found also when the build
        // went to a --build-path of its own (scripts/debian-root), where .build/debug is another
        // toolchain's. In the default .build it is the same file as .build/debug/touchd.
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("touchd").path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
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
    let outPipe = ChildPipe(), errPipe = ChildPipe(), inPipe = ChildPipe()
    let child: Spawned
    do {
        child = try Spawned(path, args, stdin: inPipe.read, stdout: outPipe.write, stderr: errPipe.write)
    } catch {
        for fd in [outPipe.read, outPipe.write, errPipe.read, errPipe.write, inPipe.read, inPipe.write] { close(fd) }
        throw error
    }
    close(outPipe.write); close(errPipe.write); close(inPipe.read)
    if let stdin { _ = stdin.withUnsafeBytes { write(inPipe.write, $0.baseAddress, $0.count) } }
    close(inPipe.write)
    let deadline = Date().addingTimeInterval(timeout)
    let (outData, errData) = drain(outPipe.read, errPipe.read, until: deadline)
    close(outPipe.read); close(errPipe.read)
    while child.isRunning && Date() < deadline { usleep(5_000) }
    if child.isRunning {
        Issue.record("\(path) \(args.joined(separator: " ")) did not finish within \(timeout) s")
        child.signal(SIGKILL)
    }
    let exit = child.wait(timeout: 10, path)
    return RunResult(status: exit.status, stdout: String(decoding: outData, as: UTF8.self),
                     stderr: String(decoding: errData, as: UTF8.self), signalled: exit.signalled)
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
