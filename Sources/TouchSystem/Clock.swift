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

    /// The local wall-clock time to the millisecond, for log lines: "2026-12-01 19:08:22.123".
    public static func wallClock() -> String {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        var t = time_t(ts.tv_sec)
        var tm = Glibc.tm()
        localtime_r(&t, &tm)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let ms = Int(ts.tv_nsec / 1_000_000)
        let msText = ms < 10 ? "00\(ms)" : ms < 100 ? "0\(ms)" : "\(ms)"
        return "\(tm.tm_year + 1900)-\(two(tm.tm_mon + 1))-\(two(tm.tm_mday)) \(two(tm.tm_hour)):\(two(tm.tm_min)):\(two(tm.tm_sec)).\(msText)"
    }

    /// Sleeps (a command's short wait, never the daemon's loop).
    public static func sleep(micros: Int64) {
        var ts = timespec(tv_sec: Int(micros / 1_000_000), tv_nsec: Int(micros % 1_000_000) * 1000)
        var left = timespec()
        while nanosleep(&ts, &left) != 0 && errno == EINTR { ts = left }
    }

    /// CLOCK_MONOTONIC in seconds, for benchmarks.
    public static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
