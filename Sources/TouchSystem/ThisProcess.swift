@preconcurrency import Glibc
@preconcurrency import CLinux

/// This process: its id, memory, limits, environment, the journal and the kernel it runs on,
/// stdio, SIGPIPE and exit (moved out of Clock.swift: issue 41).
public enum ThisProcess {
    /// Processors online now (sysconf(_SC_NPROCESSORS_ONLN)).
    public static var onlineProcessors: Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    public static var id: Int32 { getpid() }
    /// The real user id (who runs it).
    public static var userID: UInt32 { getuid() }

    /// Gives memory freed inside the process back to the system (glibc's malloc_trim: after a
    /// burst, such as many clients' windows removed at once, it otherwise stays resident).
    public static func releaseFreedMemory() { _ = malloc_trim(0) }

    /// Peak resident set size in KiB (getrusage's ru_maxrss).
    public static func peakRSSKiB() -> Int {
        var u = rusage()
        getrusage(RUSAGE_SELF.rawValue, &u)
        return Int(u.ru_maxrss)
    }

    /// Raises the soft limit on open descriptors to the hard limit (a daemon with hundreds of
    /// clients needs more than the usual 1024). Returns the limit now in force.
    @discardableResult
    public static func raiseDescriptorLimit() -> UInt64 {
        var r = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &r) == 0 else { return 0 }
        if r.rlim_cur < r.rlim_max {
            var raised = r
            raised.rlim_cur = r.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return UInt64(raised.rlim_cur) }
        }
        return UInt64(r.rlim_cur)
    }

    /// An environment variable, nil when unset.
    public static func environment(_ name: String) -> String? {
        guard let p = getenv(name) else { return nil }
        return String(cString: p)
    }

    /// Whether stderr is the journal's stream (sd-daemon(3)): systemd sets JOURNAL_STREAM to
    /// "DEV:INODE" of the stream it connects; it is only believed when stderr is that very
    /// file (a variable inherited by a child whose stderr was redirected is not).
    public static func standardErrorIsJournal(stream: String? = environment("JOURNAL_STREAM")) -> Bool {
        guard let stream else { return false }
        let parts = stream.split(separator: ":")
        guard parts.count == 2, let dev = UInt64(parts[0]), let ino = UInt64(parts[1]) else { return false }
        var st = stat()
        guard fstat(2, &st) == 0 else { return false }
        return UInt64(st.st_dev) == dev && UInt64(st.st_ino) == ino
    }

    /// The running kernel's release ("6.1.0-18-amd64").
    public static func kernelRelease() -> String {
        var uts = utsname()
        uname(&uts)
        return withUnsafeBytes(of: &uts.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// Line-buffers stdout and stderr, so a reader on a pipe sees whole lines as they come.
    public static func lineBufferStandardStreams() {
        setvbuf(stdout, nil, _IOLBF, 0)
        setvbuf(stderr, nil, _IOLBF, 0)
    }

    /// Writes text to stderr (flushed: stderr is unbuffered or line-buffered).
    public static func writeError(_ text: String) {
        _ = text.withCString { fputs($0, stderr) }
    }

    /// Writes text to stdout through stdio (for short command results).
    public static func writeOutput(_ text: String) {
        _ = text.withCString { fputs($0, stdout) }
    }

    public static func flushOutput() {
        fflush(stdout)
    }

    /// Writing to a reader that went away must not kill the process: EPIPE comes back as an
    /// error value (IOResult.closed) instead of SIGPIPE.
    public static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    public static func exit(_ code: Int32) -> Never {
        fflush(stdout)
        Glibc.exit(code)
    }
}
