import CLibsystemd
import TouchSystem

/// libsystemd's readiness, status, watchdog and socket activation. Without systemd (no
/// NOTIFY_SOCKET, no LISTEN_FDS) every call is a no-op.
enum Systemd {
    @discardableResult
    static func notify(_ state: String) -> Bool {
        sd_notify(0, state) > 0
    }

    /// The watchdog interval in microseconds when WatchdogSec= is set for this process.
    static func watchdogMicros() -> Int64? {
        var usec: UInt64 = 0
        return sd_watchdog_enabled(0, &usec) > 0 && usec > 0 ? Int64(usec) : nil
    }

    /// A listening Unix stream socket passed by systemd (LISTEN_FDS / LISTEN_PID), if any.
    static func activatedSocket() -> Descriptor? {
        let n = sd_listen_fds(1)
        guard n >= 1 else { return nil }
        let fd = touchd_sd_listen_fds_start()
        guard sd_is_socket_unix(fd, touchd_sock_stream, 1 /* listening */, nil, 0) > 0 else { return nil }
        return Descriptor(rawValue: fd)
    }
}
