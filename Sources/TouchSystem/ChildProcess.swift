@preconcurrency import Glibc

/// Other programs run as children (`touchd on-gesture` runs its COMMAND so): posix_spawnp, no
/// shell, this process's environment and user; the child's signal mask emptied and the signals
/// this process takes through a signalfd set back to their defaults, so a child of a process
/// that blocks SIGTERM is still stopped by it. Children that ended are reaped without waiting.
public enum ChildProcess {
    /// How a child ended.
    public enum Exit: Sendable, Equatable, CustomStringConvertible {
        case status(Int32)
        case signal(Int32)

        public var description: String {
            switch self {
            case .status(let s): return "exited with status \(s)"
            case .signal(let s): return "was killed by signal \(s)\(s == SIGKILL ? " (SIGKILL)" : s == SIGTERM ? " (SIGTERM)" : "")"
            }
        }
    }

    /// Starts `argv` (argv[0] looked up on PATH unless it has a slash); its pid.
    public static func spawn(_ argv: [String]) throws(SystemError) -> Int32 {
        precondition(!argv.isEmpty, "a command to run")
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigmask(&attr, &empty)
        posix_spawnattr_setsigdefault(&attr, &defaults)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var cargs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) }
        cargs.append(nil)
        defer { for p in cargs { free(p) } }
        var pid: pid_t = 0
        let r = posix_spawnp(&pid, argv[0], nil, &attr, &cargs, environ)
        guard r == 0 else { throw SystemError("posix_spawnp", Errno(rawValue: r), path: argv[0]) }
        return pid
    }

    /// Every child that has ended since the last call (waitpid with WNOHANG), never waiting.
    public static func reap() -> [(pid: Int32, exit: Exit)] {
        var out: [(pid: Int32, exit: Exit)] = []
        while true {
            var status: Int32 = 0
            let pid = waitpid(-1, &status, WNOHANG)
            guard pid > 0 else { return out }
            // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import (C macros).
            let signal = status & 0x7f
            out.append((pid, signal == 0 ? .status((status >> 8) & 0xff) : .signal(signal)))
        }
    }

    /// Where `name` would be run from: itself when it has a slash (if it may be executed), else
    /// the first executable file of that name on PATH; nil when there is none.
    public static func resolve(_ name: String) -> String? {
        if name.contains("/") { return ThisProcess.isExecutableFile(name) ? name : nil }
        let path = ThisProcess.environment("PATH") ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (dir.isEmpty ? "." : String(dir)) + "/" + name
            if ThisProcess.isExecutableFile(candidate) { return candidate }
        }
        return nil
    }
}

extension SignalSource {
    /// A child ended (ChildProcess.reap).
    public static let child = SIGCHLD
}
