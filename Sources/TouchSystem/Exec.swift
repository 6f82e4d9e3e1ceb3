@preconcurrency import Glibc

/// Running another program in this process's place (`touchd web` runs touchd-web so).
extension ThisProcess {
    /// The running binary's path, symlinks resolved (/proc/self/exe), or nil.
    public static func executablePath() -> String? {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buf, buf.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether path is a regular file this process may execute.
    public static func isExecutableFile(_ path: String) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return false }
        return access(path, X_OK) == 0
    }

    /// execv(path, argv): no shell, the environment inherited. Returns only when it failed,
    /// with the reason (strerror).
    public static func exec(_ path: String, _ argv: [String]) -> String {
        ThisProcess.flushOutput()
        var cargs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) }
        cargs.append(nil)
        defer { for p in cargs { free(p) } }
        _ = execv(path, &cargs)
        return String(cString: strerror(errno))
    }
}
