// touchd-fuzz: plays saved inputs through a fuzz target's harness once each, without libFuzzer
// (scripts/fuzz --replay, in CI: the seeds and every saved crash). A crash stops it; the input
// it was playing is the last one named on stderr.
//
//   touchd-fuzz TARGET [--max-len N] FILE...
//   touchd-fuzz --list
import Glibc
import TouchFuzz
import TouchSystem

func usage() -> Never {
    ThisProcess.writeError("usage: touchd-fuzz TARGET [--max-len N] FILE... | touchd-fuzz --list (targets: \(FuzzTargets.all.map(\.name).joined(separator: ", ")))")
    exit(2)
}

var args = Array(CommandLine.arguments.dropFirst())
if args == ["--list"] {
    for t in FuzzTargets.all { print(t.name) }
    exit(0)
}
guard let name = args.first, let entry = FuzzTargets.named(name) else { usage() }
args.removeFirst()
var maxLen = Int.max
if args.first == "--max-len" {
    guard args.count >= 2, let n = Int(args[1]), n > 0 else { usage() }
    maxLen = n
    args.removeFirst(2)
}
var played = 0
for path in args {
    let bytes: [UInt8]
    do { bytes = try FileSystem.read(path, limit: 64 << 20) } catch {
        ThisProcess.writeError("touchd-fuzz: \(error)")
        exit(2)
    }
    ThisProcess.writeError("input: \(path)")
    let input = bytes.count > maxLen ? Array(bytes[0..<maxLen]) : bytes
    // A harness gets a valid pointer even for an empty input, as from libFuzzer.
    _ = (input.isEmpty ? [0] : input).withUnsafeBufferPointer { entry($0.baseAddress!, input.count) }
    played += 1
}
print("touchd-fuzz: \(name): \(played) input(s) played")
