@preconcurrency import Glibc
@preconcurrency import CLinux

/// Clocks and process facts.
public enum Clock {
    /// CLOCK_MONOTONIC in microseconds: the kernel's input timestamps use the same clock.
    public static func monotonicMicros() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    /// CLOCK_MONOTONIC in seconds, for benchmarks.
    public static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

public enum ThisProcess {
    public static var id: Int32 { getpid() }

    /// Peak resident set size in KiB (getrusage's ru_maxrss).
    /// Gives memory freed inside the process back to the system (glibc's malloc_trim: after a
    /// burst, such as many clients' windows removed at once, it otherwise stays resident).
    public static func releaseFreedMemory() { _ = malloc_trim(0) }

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
