import TouchSystem

/// A program `touchd` runs in its place for a command whose work is not the daemon's: touchd-web
/// (`touchd web`, the Python bridge for web pages) and touchd-speak (`touchd speak`, speech
/// through speech-dispatcher), kept out of the touchd binary because of what they link
/// (websockets; speech-dispatcher's client). Looked for beside the binary, then in the build
/// tree the binary was built in (.build/<triple>/debug/touchd → python/NAME), then on PATH.
enum HelperProgram {
    static func candidates(_ name: String, executable: String?, path: String?) -> [String] {
        var out: [String] = []
        if let exe = executable, let slash = exe.lastIndex(of: "/") {
            var dir = String(exe[..<slash])
            out.append(dir + "/" + name)
            for _ in 0..<4 {
                guard let up = dir.lastIndex(of: "/"), up > dir.startIndex else { break }
                dir = String(dir[..<up])
                out.append(dir + "/python/" + name)
            }
        }
        for d in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") where !d.isEmpty {
            out.append(d + "/" + name)
        }
        return out
    }

    /// execv the first candidate with `arguments` (no shell); returns only by throwing.
    static func run(_ name: String, _ arguments: [String], package: String) throws(CommandFailure) -> Int32 {
        let exe = ThisProcess.executablePath()
        let places = candidates(name, executable: exe, path: ThisProcess.environment("PATH"))
        guard let found = places.first(where: ThisProcess.isExecutableFile) else {
            throw CommandFailure("no \(name) beside \(exe ?? "touchd"), in its build tree (python/\(name)) or on PATH; install the \(package) package")
        }
        let reason = ThisProcess.exec(found, [name] + arguments)
        throw CommandFailure("cannot run \(found): \(reason)")
    }
}
